#!/usr/bin/env bash
# README command 2: install what is missing, build (Release) and run the whole test suite with
# ctest, then the PyTorch package's build and tests. Options:
#   --sanitize   also build with clang-19 in build-asan with AddressSanitizer +
#                UndefinedBehaviorSanitizer and run the suite there; and in build-tsan with
#                ThreadSanitizer, test_run_operators (the parallel region's barriers and share
#                waits, src/run-sequence.c), test_hosting (single operators and the region on
#                pthreadpool and on a host parallel-for) and test_concurrency (the concurrency
#                contract of q8nn.h: operators, lists, models, one shared VTA backend)
#   --cross      also run the aarch64 and riscv64 suites under qemu-user (scripts/cross-test.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sanitize=0
cross=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    --cross) cross=1 ;;
    *) echo "usage: $0 [--sanitize] [--cross]" >&2; exit 2 ;;
  esac
done
# stage NAME COMMAND...: runs the command and prints how long it took (also when it fails)
stage() {
  local name=$1 t0 rc=0
  shift
  t0=$(date +%s)
  "$@" || rc=$?
  echo "== test.sh: $name: $([ $rc -eq 0 ] && echo done || echo "FAILED (exit $rc)") in $(( $(date +%s) - t0 )) s"
  return $rc
}
stage setup bash "$root/scripts/setup.sh"
source "$root/scripts/ccache.sh"
jobs=$(nproc)
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release "${q8nn_launcher[@]}" >/dev/null
stage "Release build" cmake --build "$root/build" -j"$jobs"
stage "Release tests" ctest --test-dir "$root/build" --output-on-failure -j"$jobs"
# the PyTorch package: its extension (which builds q8nn again, as a user's build would) and its
# tests against PyTorch's qnnpack engine (integrations/pytorch/README.md)
cmake -S "$root/integrations/pytorch" -B "$root/build-pytorch" -DCMAKE_BUILD_TYPE=Release \
      -DQ8NN_TORCH_REQUIRE_FAST=ON "${q8nn_launcher[@]}" >/dev/null
stage "PyTorch package build" cmake --build "$root/build-pytorch" -j"$jobs"
stage "PyTorch package tests" ctest --test-dir "$root/build-pytorch" --output-on-failure
if [ "$sanitize" -eq 1 ]; then
  # The sanitizer builds use clang-19 (libclang-rt-19-dev: its runtimes; llvm-19: the symbolizer),
  # which the fuzzers need anyway: with AddressSanitizer it compiles the intrinsic-heavy kernels
  # 1.5-2.7x faster than GCC 12 (qs8-dwconv-minmax-avxvnni.c 37 s against 100 s), the largest
  # part of the suite's time. The Release build and its tests stay on the default compiler.
  stage "setup (clang-19)" bash "$root/scripts/setup.sh" clang-19 libclang-rt-19-dev lld-19 llvm-19
  clang=(-DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19)
  # a build directory configured with another compiler: CMake would drop every -D given with the
  # new one, so it is made again
  for dir in build-asan build-tsan; do
    if [ -f "$root/$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_C_COMPILER:.*clang-19' "$root/$dir/CMakeCache.txt"; then
      rm -rf "${root:?}/$dir"
    fi
  done
  cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQ8NN_SANITIZE=ON \
        -DQ8NN_BUILD_BENCHMARKS=OFF "${clang[@]}" "${q8nn_launcher[@]}" >/dev/null
  stage "ASan+UBSan build" cmake --build "$root/build-asan" -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    stage "ASan+UBSan tests" ctest --test-dir "$root/build-asan" --output-on-failure -j"$jobs"
  cmake -S "$root" -B "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQ8NN_TSAN=ON \
        -DQ8NN_BUILD_BENCHMARKS=OFF "${clang[@]}" "${q8nn_launcher[@]}" >/dev/null
  stage "TSan build" cmake --build "$root/build-tsan" -j"$jobs" --target test_run_operators test_hosting \
    test_concurrency
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 stage "TSan tests" ctest --test-dir "$root/build-tsan" \
    --output-on-failure -R '^(test_run_operators|test_hosting|test_concurrency)$'
fi
if [ "$cross" -eq 1 ] && [ -f "$root/scripts/cross-test.sh" ]; then
  stage "cross (qemu)" bash "$root/scripts/cross-test.sh"
fi
