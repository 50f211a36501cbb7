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

include(${CMAKE_CURRENT_LIST_DIR}/cross-common.cmake)
