#!/usr/bin/env bash
# README command 1: install what is missing, build (Release), run the inverted-residual demo.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target inverted-residual
"$root/build/examples/inverted-residual" "$@"
