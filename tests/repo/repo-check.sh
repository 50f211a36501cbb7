# Sourced by the repository hygiene tests (test-machine-paths.sh, test-process-words.sh), run from
# the repository root.
#   files                          the tracked files, NUL-separated (git ls-files; without git or
#                                  outside a checkout, every file but the build trees and .git)
#   self_check PATTERN MISSES FLAGS   exits 1 unless PATTERN (grep -E) matches every line of the
#                                  newline-separated MISSES and none of FLAGS: a pattern that
#                                  matched nothing would make its test unable to fail
if [ -d .git ] && command -v git >/dev/null; then
  files() { git ls-files -z; }
else
  files() { find . \( -name .git -o -name 'build*' -o -name out \) -prune -o -type f -print0; }
fi

self_check() {
  local pattern=$1 sample
  while IFS= read -r sample; do
    if ! printf '%s\n' "$sample" | grep -qE "$pattern"; then
      echo "self-check: the pattern misses '$sample'" >&2
      exit 1
    fi
  done <<<"$2"
  while IFS= read -r sample; do
    if printf '%s\n' "$sample" | grep -qE "$pattern"; then
      echo "self-check: the pattern flags '$sample'" >&2
      exit 1
    fi
  done <<<"$3"
}
