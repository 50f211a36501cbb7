#!/bin/bash
# Fails when a tracked file cites the process instead of the fact: this tracker's issue number
# ("iss[u]e 11"), a work round ("rou[n]d ten", "rou[n]ds six and sixteen") or "thi[s] session". Issue
# numbers mean nothing outside the tracker and rounds nothing without the notebook; git history
# keeps the chronology. A comment that needs a reason states it, with its figure.
#   test-process-words.sh REPOSITORY_ROOT
set -euo pipefail
top=${1:?usage: $0 REPOSITORY_ROOT}
cd "$top"

numbers='one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen'
numbers="$numbers|seventeen|eighteen|nineteen|twenty|thirty|[0-9]+"
# Written with brackets in the comments so that this file does not match itself. Catches
# "iss[u]e 11", not "issue #329" (another project's public tracker) nor the verb ("issues 16 SDOT").
pattern="\\b([Rr])ounds? ($numbers)\\b|\\b([Ii])ssue [0-9]+\\b|\\b([Tt])his session\\b"

# The matcher must catch what it is meant to catch, or this test could never fail.
source "$(dirname "$0")/repo-check.sh"
self_check "$pattern" "(bench/README.md, rou""nd ten)
issu""e 11's rou""nd six
rounds si""x and sixteen
in thi""s session" "round to nearest, ties to even
rounds the product once
a GitHub issue thread
round-trip
each step issues 16 SDOT
tflite-micro issue #329"

hits=$(files | xargs -0 grep -InE "$pattern" -- 2>/dev/null || true)
if [ -n "$hits" ]; then
  echo "tracked files cite the process (state the fact and its figure instead):"
  printf '%s\n' "$hits"
  exit 1
fi
echo "no process words in $(files | tr -cd '\0' | wc -c) files"
