#!/bin/bash
# Fails when a tracked file names an absolute path of a particular machine: a home directory (of a
# user or of root) or a work, farm or scratch directory. The shared folder is ../shared relative
# to the repository root, never an absolute path.
#   test-machine-paths.sh REPOSITORY_ROOT
# Tracked files come from git when the tree is a git checkout and git is installed; otherwise
# every file but the build trees and .git is scanned. Binary files are skipped (grep -I).
set -euo pipefail
top=${1:?usage: $0 REPOSITORY_ROOT}
cd "$top"

# Written with a bracket so that this file does not match itself.
pattern='(^|[^A-Za-z0-9_.~-])(/(h)ome/[A-Za-z0-9._-]+|/(U)sers/[A-Za-z0-9._-]+|/(r)oot/|/(w)ork/|/(f)arm/|/(s)cratch/)'

# The matcher must catch what it is meant to catch, or this test could never fail.
source "$(dirname "$0")/repo-check.sh"
self_check "$pattern" "see /ho""me/alice/q8nn
cd /wo""rk/shared
\"/ro""ot/.cache\"
/Use""rs/bob/x" "../shared/golden
HOME=/root
/usr/lib/x86_64-linux-gnu
/tmp/q8nn"

hits=$(files | xargs -0 grep -InE "$pattern" -- 2>/dev/null || true)
if [ -n "$hits" ]; then
  echo "tracked files name a path of a particular machine (use ../shared relative to the repository root):"
  printf '%s\n' "$hits"
  exit 1
fi
echo "no machine paths in $(files | tr -cd '\0' | wc -c) files"
