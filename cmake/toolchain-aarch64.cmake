# Cross toolchain for aarch64 Linux: Debian's gcc-aarch64-linux-gnu. Tests run under qemu-user.
#
# Dependencies (cpuinfo, pthreadpool, cmocka) come from Debian's arm64 packages. Two of them
# (libpthreadpool-dev, libcpuinfo-dev) cannot be installed next to their amd64 versions, so
# scripts/cross-setup.sh extracts the arm64 .debs into Q8NN_CROSS_DEPS (a sysroot-like prefix)
# instead of installing them; pass -DQ8NN_CROSS_DEPS=<prefix> (cross-setup/cross-test do).
#
# The qemu command line used by ctest: Q8NN_QEMU_CPU picks the emulated CPU, e.g. cortex-a53
# (NEON only) or max (NEON + dot product + i8mm); it is read from the environment at test time
# through `env`, so one build runs under every CPU model.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(Q8NN_CROSS_DEPS "" CACHE PATH "Prefix holding the extracted arm64 dependency packages")
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
if(Q8NN_CROSS_DEPS)
  list(APPEND CMAKE_FIND_ROOT_PATH "${Q8NN_CROSS_DEPS}")
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Never let pkg-config hand back the host's (amd64) libraries.
set(ENV{PKG_CONFIG_LIBDIR} "${Q8NN_CROSS_DEPS}/usr/lib/aarch64-linux-gnu/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${Q8NN_CROSS_DEPS}")
set(ENV{PKG_CONFIG_PATH} "")

# Under qemu (scripts/cross-qemu.sh): the dynamic loader and libc from the cross libc package, the
# extracted libraries through the build RPATH (qemu -L looks up absolute paths in the prefix first).
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/../scripts/cross-qemu.sh;aarch64")
