#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang-19 and runs each for N seconds, one target
# per core at a time.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      (default 60)
# Installs what is missing through scripts/setup.sh, with clang-19 (its libFuzzer / sanitizer
# runtimes), lld-19 and llvm-19 added (idempotent). Each target starts from a temporary copy of
# its checked-in corpus (tests/fuzz/corpus/<target>), so the checked-in files never change; new
# inputs and crash artifacts stay in the temp dir (its path is printed). Prints executions and the
# final cov / ft per target; exits non-zero if any target found a crash, leak, timeout or OOM.
set -euo pipefail
seconds="${1:-60}"
case "$seconds" in
  ''|*[!0-9]*) echo "usage: $0 [SECONDS_PER_TARGET]" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# ---- toolchain -------------------------------------------------------------------------------
# The project's packages (scripts/setup.sh, idempotent) plus clang-19; libclang-rt-19-dev holds
# libFuzzer and the sanitizer runtimes (only a Recommends of clang-19).
bash "$root/scripts/setup.sh" clang-19 libclang-rt-19-dev lld-19 llvm-19
source "$root/scripts/ccache.sh"

# ---- build -----------------------------------------------------------------------------------
jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DQ8NN_BUILD_FUZZERS=ON -DQ8NN_BUILD_TESTS=OFF -DQ8NN_BUILD_BENCHMARKS=OFF -DQ8NN_BUILD_EXAMPLES=OFF \
  "${q8nn_launcher[@]}" >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz-operators fuzz-vta-program fuzz-vta-backend fuzz-model-loader >/dev/null

# ---- run -------------------------------------------------------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/q8nn-fuzz.XXXXXX")"
echo "q8nn fuzz: ${seconds}s per target, work dir $work"
# max_len per target: the operator decoders read at most a few hundred bytes; .q8vta seeds are
# ~21 KB (DRAM regions are whole 4 KiB pages); the model loader's largest seed is the 98 KB ResNet-8.
declare -A max_len=([fuzz-operators]=1024 [fuzz-vta-backend]=1024 [fuzz-vta-program]=65536
                    [fuzz-model-loader]=131072)
# The loader accepts tensors up to 2 GiB; its arena comes zeroed from calloc, untouched until a run
# (the harness runs only arenas up to 64 MiB), but the loader's other buffers follow the declared
# shapes too: that target keeps a larger RSS limit.
declare -A rss_mb=([fuzz-operators]=2048 [fuzz-vta-backend]=2048 [fuzz-vta-program]=2048
                   [fuzz-model-loader]=4096)
failed=0
summary=()
targets=(fuzz-operators fuzz-vta-program fuzz-vta-backend fuzz-model-loader)
# fuzz_one TARGET: one target's run; its summary line goes to $work/TARGET/summary, a failure
# leaves $work/TARGET/failed.
fuzz_one() {
  local target=$1 corpus="$work/$1/corpus" artifacts="$work/$1/artifacts/" log="$work/$1/log.txt" rc
  mkdir -p "$corpus" "$artifacts"
  if [ -d "tests/fuzz/corpus/$target" ]; then
    cp -r "tests/fuzz/corpus/$target/." "$corpus/"
  fi
  set +e
  "build-fuzz/tests/fuzz/$target" "$corpus" -max_total_time="$seconds" -max_len="${max_len[$target]}" \
    -timeout=10 -rss_limit_mb="${rss_mb[$target]}" -print_final_stats=1 -artifact_prefix="$artifacts" >"$log" 2>&1
  rc=$?
  set -e
  local execs cov ft artifacts_found verdict
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  # The last status line (#N DONE / pulse / NEW) carries the final cov and ft.
  cov="$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)"
  ft="$(grep -oE 'ft: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)"
  artifacts_found="$(find "$artifacts" -type f | wc -l)"
  if [ "$rc" -eq 0 ] && [ "$artifacts_found" -eq 0 ]; then
    verdict="PASS"
  else
    verdict="FAIL (exit $rc, artifacts in $artifacts)"
    touch "$work/$target/failed"
    grep -E 'FUZZ CHECK FAILED|ERROR: |runtime error|SUMMARY' "$log" | head -n 5 || true
  fi
  printf '%-17s execs %-10s cov %-6s ft %-7s %s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$verdict" \
    >"$work/$target/summary"
}
# One target per core at a time: each fuzzer is one process on one thread.
for ((first = 0; first < ${#targets[@]}; first += jobs)); do
  batch=("${targets[@]:first:jobs}")
  echo "== ${batch[*]}"
  for target in "${batch[@]}"; do fuzz_one "$target" & done
  wait
done
for target in "${targets[@]}"; do
  summary+=("$(cat "$work/$target/summary")")
  [ ! -e "$work/$target/failed" ] || failed=1
done
echo "== summary"
printf '%s\n' "${summary[@]}"
exit "$failed"
