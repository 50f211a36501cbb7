# Cross toolchain for riscv64 Linux with the V extension: Debian's clang-19 + lld-19, the Debian
# riscv64 cross libc (libc6-dev-riscv64-cross) and gcc-riscv64-linux-gnu's crt files and libgcc.
# Everything is compiled for rv64gc, except src/arch/rvv/*.c, which the top-level CMakeLists.txt
# compiles with -march=rv64gcv (RVV 1.0): the library runs on riscv64 without V, and
# q8nn_rvv_detect_isa() checks the V bit of AT_HWCAP before dispatch uses the RVV kernels.
#
# Dependencies: Debian bookworm has no riscv64 port, so scripts/cross-setup.sh extracts Debian
# trixie's riscv64 packages of cpuinfo, pthreadpool and cmocka into Q8NN_CROSS_DEPS (pass
# -DQ8NN_CROSS_DEPS=<prefix>); they need only GLIBC_2.34 symbols and run on the bookworm cross
# libc. RVV detection does not rely on cpuinfo (src/arch/rvv/rvv-detect.c reads AT_HWCAP).
#
# ctest runs tests under qemu-riscv64; Q8NN_QEMU_VLEN (128, 256, 512, 1024) is read from the
# environment at test time by scripts/cross-qemu.sh, so one build is tested at every VLEN.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)

set(Q8NN_RISCV_TRIPLE riscv64-linux-gnu)
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_C_COMPILER_TARGET ${Q8NN_RISCV_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${Q8NN_RISCV_TRIPLE})
set(CMAKE_ASM_COMPILER_TARGET ${Q8NN_RISCV_TRIPLE})
set(CMAKE_LIBRARY_ARCHITECTURE ${Q8NN_RISCV_TRIPLE})
set(CMAKE_AR llvm-ar-19 CACHE FILEPATH "")
set(CMAKE_RANLIB llvm-ranlib-19 CACHE FILEPATH "")
set(CMAKE_C_FLAGS_INIT "-march=rv64gc -mabi=lp64d")
set(CMAKE_CXX_FLAGS_INIT "-march=rv64gc -mabi=lp64d")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=lld")

include(${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake)
