# Shared by the cross toolchain files, included after they set CMAKE_SYSTEM_PROCESSOR and
# CMAKE_LIBRARY_ARCHITECTURE: finds the target's libc and the dependency packages that
# scripts/cross-setup.sh extracted into Q8NN_CROSS_DEPS (never the host's), and runs tests under
# qemu-user through scripts/cross-qemu.sh, which reads the CPU model / VLEN from the environment
# at test time so that one build runs under every configuration.
set(Q8NN_CROSS_DEPS "" CACHE PATH "Prefix holding the extracted ${CMAKE_SYSTEM_PROCESSOR} dependency packages")
set(CMAKE_FIND_ROOT_PATH /usr/${CMAKE_LIBRARY_ARCHITECTURE})
if(Q8NN_CROSS_DEPS)
  list(APPEND CMAKE_FIND_ROOT_PATH "${Q8NN_CROSS_DEPS}")
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Never let pkg-config hand back the host's libraries.
set(ENV{PKG_CONFIG_LIBDIR} "${Q8NN_CROSS_DEPS}/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${Q8NN_CROSS_DEPS}")
set(ENV{PKG_CONFIG_PATH} "")

# Under qemu: the dynamic loader and libc from the cross libc package, the extracted libraries
# through the build RPATH (qemu -L looks up absolute paths in the prefix first).
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/../scripts/cross-qemu.sh;${CMAKE_SYSTEM_PROCESSOR}")
