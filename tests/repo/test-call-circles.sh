#!/bin/bash
# Fails when the library's source files call each other in a circle: file A calls a function
# defined in B and B, directly or through others, calls one defined in A. Each layer calls only
# down (docs/architecture.md, "The layers"). Works on the compiled objects, so the graph is
# the one the linker sees, not the includes.
#   test-call-circles.sh OBJECTS...   (each argument one object or a ;-separated list, as CMake's
#                                     $<TARGET_OBJECTS:...> gives it)
set -euo pipefail
objects=()
for list in "$@"; do
  IFS=';' read -ra some <<< "$list"
  objects+=("${some[@]}")
done
[ ${#objects[@]} -gt 0 ] || { echo "usage: $0 OBJECTS..."; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The check must catch a circle, or this test could never fail.
if printf 'a.c b.c\nb.c c.c\nc.c a.c\n' | tsort > /dev/null 2>&1; then
  echo "self-check: tsort did not report the circle a.c -> b.c -> c.c -> a.c"
  exit 1
fi

for object in "${objects[@]}"; do
  file=${object##*.dir/}
  file=${file%.o}
  nm --defined-only "$object" | awk -v f="$file" '$2 ~ /^[TDRBV]$/ {print $3, f}' >> "$work/defined"
  nm --undefined-only "$object" | awk -v f="$file" '{print $NF, f}' >> "$work/used"
done
sort -u "$work/defined" -o "$work/defined"
sort -u "$work/used" -o "$work/used"
# symbol caller definer -> "caller definer", one line per pair of distinct files
join "$work/used" "$work/defined" | awk '$2 != $3 {print $2, $3}' | sort -u > "$work/edges"
if ! tsort "$work/edges" > /dev/null 2> "$work/loops"; then
  echo "the source files call each other in a circle (tsort lists its files):"
  cat "$work/loops"
  exit 1
fi
echo "no circle among ${#objects[@]} objects ($(wc -l < "$work/edges") caller -> definer pairs)"
