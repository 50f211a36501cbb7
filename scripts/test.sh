#!/usr/bin/env bash
# README command 2: install what is missing, build (Release) and run the whole test suite with
# ctest, then the PyTorch package's build and tests. Options:
#   --sanitize   also build in build-asan with AddressSanitizer + UndefinedBehaviorSanitizer and
#                run the suite there; and in build-tsan with ThreadSanitizer, test_run_operators
#                (the parallel region's barriers and share waits, src/run-sequence.c) and
#                test_hosting (the same region on a host parallel-for) and test_concurrency (the
#                concurrency contract of q8nn.h: operators, lists, models, one shared VTA backend)
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
bash "$root/scripts/setup.sh"
jobs=$(nproc)
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j"$jobs"
(cd "$root/build" && ctest --output-on-failure -j"$jobs")
# the PyTorch package: its extension (which builds q8nn again, as a user's build would) and its
# tests against PyTorch's qnnpack engine (integrations/pytorch/README.md)
cmake -S "$root/integrations/pytorch" -B "$root/build-pytorch" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build-pytorch" -j"$jobs"
ctest --test-dir "$root/build-pytorch" --output-on-failure
if [ "$sanitize" -eq 1 ]; then
  cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQ8NN_SANITIZE=ON \
        -DQ8NN_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build "$root/build-asan" -j"$jobs"
  (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j"$jobs")
  cmake -S "$root" -B "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQ8NN_TSAN=ON \
        -DQ8NN_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build "$root/build-tsan" -j"$jobs" --target test_run_operators test_hosting test_concurrency
  (cd "$root/build-tsan" && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
     ctest --output-on-failure -R '^(test_run_operators|test_hosting|test_concurrency)$')
fi
if [ "$cross" -eq 1 ] && [ -f "$root/scripts/cross-test.sh" ]; then
  bash "$root/scripts/cross-test.sh"
fi
