#!/bin/bash
# Proves the README's promise on a machine that has nothing: builds a minimal Debian 12 root file
# system (mmdebstrap --variant=minbase: essential packages and apt, no compiler, no -dev package)
# from the Debian registry the host's apt sources name, puts a clean clone of the repository and
# a copy of ../shared beside each other in it, and runs the two README commands exactly as written,
# in a chroot. Prints each command's result and time; exits non-zero if either fails.
#
#   bash scripts/fresh-system-check.sh
#
# Needs root (mmdebstrap --mode=root, chroot, mount). The chroot runs inside its own mount
# namespace (unshare --mount, private propagation), so /proc, /sys and /dev are mounted there only
# and vanish with it: nothing is mounted on or unmounted from the host. The root is rebuilt on
# every run (nothing is taken from an earlier run) in $Q8NN_FRESH_DIR (default build-fresh/ in the
# repository) and deleted afterwards unless Q8NN_FRESH_KEEP=1. Only committed files are checked:
# the clone is of HEAD. Takes about 5-10 minutes on 2 cores (mostly the Release build and tests).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$repo/../shared
DIR=${Q8NN_FRESH_DIR:-$repo/build-fresh}
root=$DIR/root
log() { echo "fresh-system-check: $*"; }

[ "$(id -u)" = 0 ] || { log "needs root (mmdebstrap, chroot, mount namespaces)"; exit 2; }
[ -d "$shared" ] || { log "no ../shared beside the repository"; exit 2; }

# The registry: the Debian mirror of the host's apt sources, never one named here.
source "$repo/scripts/debian-mirror.sh"
ensure_mmdebstrap
mirror=$(host_debian_uri main)
security=$(host_debian_uri security)
[ -n "$mirror" ] || { log "no Debian mirror in the host's apt sources"; exit 1; }
sources=("deb $mirror bookworm main" "deb $mirror bookworm-updates main")
[ -n "$security" ] && sources+=("deb $security bookworm-security main")

# A root left mounted by an interrupted run must not be deleted through its mounts.
still_mounted() { grep -q " $root/" /proc/mounts; }
remove_root() {
  if still_mounted; then log "$root still has mounts: left in place"; return 0; fi
  rm -rf "$root"
}
remove_root
mkdir -p "$DIR"
trap '[ "${Q8NN_FRESH_KEEP:-0}" = 1 ] || remove_root' EXIT

start=$(date +%s)
log "building a minimal Debian 12 root in $root"
mmdebstrap --quiet --mode=root --variant=minbase bookworm "$root" "${sources[@]}" \
  >"$DIR/mmdebstrap.log" 2>&1 || { tail -n 20 "$DIR/mmdebstrap.log"; log "mmdebstrap failed"; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$root/src"
git clone --quiet --no-hardlinks "$repo" "$root/src/q8nn"
cp -a "$shared" "$root/src/shared"
log "root ready in $(( $(date +%s) - start )) s: $(du -sh "$root" | cut -f1), $(chroot "$root" dpkg-query -W | wc -l) packages"

# run_in_root NAME COMMAND: one README command in the chroot, as a new user would type it.
status=0
run_in_root() {
  local name=$1 cmd=$2 t0 rc
  t0=$(date +%s)
  log "== $cmd"
  set +e
  unshare --mount --propagation private -- /bin/sh -c '
    set -e
    root=$1; shift
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      LANG=C.UTF-8 TERM=dumb /bin/bash -c "cd /src/q8nn && $*"' sh "$root" "$cmd" \
    >"$DIR/$name.log" 2>&1 </dev/null
  rc=$?
  set -e
  if [ $rc = 0 ]; then
    log "PASS: '$cmd' in $(( $(date +%s) - t0 )) s (log: $DIR/$name.log)"
    tail -n 4 "$DIR/$name.log" | sed 's/^/    /'
  else
    log "FAIL (exit $rc): '$cmd' after $(( $(date +%s) - t0 )) s; last lines of $DIR/$name.log:"
    tail -n 40 "$DIR/$name.log" | sed 's/^/    /'
    status=1
  fi
}
# The README's commands, exactly as written in its first sh block (comments dropped).
mapfile -t commands < <(awk '/^```sh/ { inside = 1; next } /^```/ { if (inside) exit } inside' \
  "$root/src/q8nn/README.md" | sed -e 's/[[:space:]]*#.*//' -e '/^[[:space:]]*$/d')
[ ${#commands[@]} -ge 2 ] || { log "README.md's first sh block has fewer than two commands"; exit 1; }
n=0
for cmd in "${commands[@]}"; do
  n=$((n + 1))
  run_in_root "readme-$n" "$cmd"
done
# A peer that is missing or whose CMake package fails to load must never fail the configure:
# without OpenCL's development files Debian's oneDNN package fails inside itself, and without
# libxnnpack-dev there is no XNNPACK; the configure must pass and name both as left out.
if [ $status = 0 ]; then
  run_in_root peers "set -o pipefail; apt-get remove -y -qq ocl-icd-opencl-dev libxnnpack-dev >/dev/null && \
    cmake -S . -B build-nopeers -DCMAKE_BUILD_TYPE=Release | grep 'left out' && \
    cmake --build build-nopeers -j\$(nproc) --target bench_mobilenet_v2 | tail -n 1"
fi
log "done in $(( $(date +%s) - start )) s: $([ $status = 0 ] && echo the README commands pass || echo FAILED)"
exit $status
