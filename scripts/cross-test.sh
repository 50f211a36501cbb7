#!/bin/bash
# Cross builds of q8nn for aarch64 and riscv64, each running the whole ctest suite under qemu-user:
#   aarch64  -cpu cortex-a53 (NEON only: dot-product kernels are reported as skipped)
#            -cpu max        (NEON + dot product + i8mm)
#   riscv64  rv64gcv at VLEN 128, 256 and 512 (the RVV kernels are vector-length agnostic)
# One build per architecture; scripts/cross-qemu.sh (the CMAKE_CROSSCOMPILING_EMULATOR) reads the
# CPU model / VLEN from the environment, so the same binaries run under every configuration. The
# first configuration of an architecture runs the whole suite; the others leave out the VTA model's
# tests (test_vta_*, test_q8nn_run_vta_*): portable C whose bytes do not depend on the CPU model or
# the vector length, already run by the same binaries under the first configuration.
#
#   bash scripts/cross-test.sh [aarch64|riscv64|all]      (default all)
# Environment: Q8NN_CROSS_DIR (default build-cross/), Q8NN_CROSS_JOBS (default 2).
# Installs what it needs through scripts/cross-setup.sh (idempotent). Exits non-zero if any
# configuration fails to build or has a failing test.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
DIR=${Q8NN_CROSS_DIR:-$repo/build-cross}
JOBS=${Q8NN_CROSS_JOBS:-2}
what=${1:-all}
case "$what" in aarch64|riscv64|all) ;; *) echo "usage: $0 [aarch64|riscv64|all]" >&2; exit 2 ;; esac

start=$(date +%s)
Q8NN_CROSS_DIR=$DIR bash "$repo/scripts/cross-setup.sh" "$what"
source "$repo/scripts/ccache.sh"

build() {
  local arch=$1 bdir=$DIR/build-$1
  echo "== cross-test: building $arch in $bdir"
  cmake -S "$repo" -B "$bdir" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchain-$arch.cmake" \
    -DQ8NN_CROSS_DEPS="$DIR/$arch-deps" -DCMAKE_BUILD_TYPE=Release \
    -DQ8NN_BUILD_BENCHMARKS=OFF -DQ8NN_BUILD_EXAMPLES=OFF "${q8nn_launcher[@]}" >"$bdir.configure.log" 2>&1 ||
    { tail -40 "$bdir.configure.log"; return 1; }
  cmake --build "$bdir" -j"$JOBS" >"$bdir.build.log" 2>&1 || { grep -E "error|FAILED" "$bdir.build.log" | head -40; return 1; }
}

failed=()
passed=()
isa_independent='^(test_vta_|test_q8nn_run_vta_)'
run() { # run ARCH LABEL VAR=VALUE [CTEST ARGS...]
  local arch=$1 label=$2 setting=$3 t0
  shift 3
  t0=$(date +%s)
  echo "== cross-test: ctest $arch $label ($setting${*:+, $*})"
  if env "$setting" ctest --test-dir "$DIR/build-$arch" -j"$JOBS" --output-on-failure "$@"; then
    passed+=("$arch/$label")
  else
    failed+=("$arch/$label")
  fi
  echo "== cross-test: $arch $label took $(( $(date +%s) - t0 )) s"
}

if [ "$what" = all ] || [ "$what" = aarch64 ]; then
  if build aarch64; then
    run aarch64 cortex-a53 Q8NN_QEMU_CPU=cortex-a53
    run aarch64 max Q8NN_QEMU_CPU=max -E "$isa_independent"
  else
    failed+=("aarch64/build")
  fi
fi
if [ "$what" = all ] || [ "$what" = riscv64 ]; then
  if build riscv64; then
    run riscv64 vlen128 Q8NN_QEMU_VLEN=128
    for vlen in 256 512; do run riscv64 "vlen$vlen" Q8NN_QEMU_VLEN=$vlen -E "$isa_independent"; done
  else
    failed+=("riscv64/build")
  fi
fi

echo "== cross-test: ${#passed[@]} configurations passed (${passed[*]:-none}), ${#failed[@]} failed (${failed[*]:-none}) in $(( $(date +%s) - start )) s"
[ ${#failed[@]} -eq 0 ]
