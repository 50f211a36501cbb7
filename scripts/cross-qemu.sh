#!/bin/sh
# ctest's CMAKE_CROSSCOMPILING_EMULATOR for the cross builds: runs one test program under
# qemu-user with the CPU model taken from the environment, so one build is tested on several.
#   cross-qemu.sh aarch64 PROGRAM ARGS...   Q8NN_QEMU_CPU: cortex-a53 (NEON) | max (default:
#                                           NEON + dot product + i8mm) | any qemu -cpu name
#   cross-qemu.sh riscv64 PROGRAM ARGS...   Q8NN_QEMU_VLEN: 128 (default) | 256 | 512 | 1024
# Q8NN_QEMU_PLUGIN (optional) is passed as -plugin, e.g. to count executed instructions.
# LD_LIBRARY_PATH (guest only) pins libc to the cross libc package: with -L alone the guest's
# ld.so falls back to the host's ld.so.cache, and if the host has libc6:arm64 installed, it loads
# that libc with the cross package's ld.so; the two builds disagree on _rtld_global's layout and
# the first pthread_create spins forever on a lock word that is not one.
set -e
arch=$1
shift
set -- ${Q8NN_QEMU_PLUGIN:+-plugin "$Q8NN_QEMU_PLUGIN"} "$@"
case "$arch" in
  aarch64)
    exec qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib \
      -cpu "${Q8NN_QEMU_CPU:-max}" "$@" ;;
  riscv64)
    exec qemu-riscv64 -L /usr/riscv64-linux-gnu -E LD_LIBRARY_PATH=/usr/riscv64-linux-gnu/lib \
      -cpu "rv64,v=true,vext_spec=v1.0,vlen=${Q8NN_QEMU_VLEN:-128}" "$@" ;;
  *)
    echo "cross-qemu.sh: unknown architecture '$arch'" >&2
    exit 2 ;;
esac
