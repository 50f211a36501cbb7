#!/usr/bin/env bash
# Runs bench_mobilenet_v2 against Debian 13 "trixie"'s oneDNN (3.x), which bookworm's packages
# (oneDNN 2.6) cannot give, in a trixie root next to the host: built once with
# mmdebstrap from the Debian mirror of the host's apt sources (nothing on the host changes), kept
# in $Q8NN_TRIXIE_DIR (default build-trixie/), this repository's HEAD cloned into it and built
# there with trixie's compiler (again when HEAD moved).
#
#   bash bench/trixie.sh [bench_mobilenet_v2 arguments]     # e.g. --no-layers
#
# Q8NN_GUARD and Q8NN_ISA_MASK, where set, reach the benchmark (nothing else of the environment).
#
# Needs root (mmdebstrap --mode=root, chroot, mount namespaces). q8nn and its peers are compiled
# by the same compiler inside the root, so their ratios compare like the host's; the absolute
# times are not the host build's. XNNPACK is left out: the bench's XNNPACK peer is written against
# bookworm's XNNPACK (2022), whose qc8 convolution trixie's (2024) renamed and split into reshape
# and setup.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
DIR=${Q8NN_TRIXIE_DIR:-$repo/build-trixie}
root=$DIR/root
log() { echo "trixie: $*" >&2; }

[ "$(id -u)" = 0 ] || { log "needs root (mmdebstrap, chroot, mount namespaces)"; exit 2; }
source "$repo/scripts/debian-mirror.sh"
ensure_mmdebstrap
mirror=$(host_debian_uri main)
[ -n "$mirror" ] || { log "no Debian mirror in the host's apt sources"; exit 1; }

packages=build-essential,cmake,pkg-config,git,libcpuinfo-dev,libpthreadpool-dev,libbenchmark-dev,libdnnl-dev,ocl-icd-opencl-dev
if [ ! -e "$root/.q8nn-ready" ]; then
  if grep -q " $root/" /proc/mounts; then log "$root still has mounts: remove them first"; exit 1; fi
  rm -rf "$root"
  mkdir -p "$DIR"
  log "building a Debian trixie root in $root (once)"
  mmdebstrap --quiet --mode=root --variant=minbase --include="$packages" trixie "$root" "deb $mirror trixie main" \
    >"$DIR/mmdebstrap.log" 2>&1 || { tail -n 20 "$DIR/mmdebstrap.log"; log "mmdebstrap failed"; exit 1; }
  touch "$root/.q8nn-ready"
fi
# a clone of HEAD (kept, with its build, while HEAD stays the same)
if [ "$(git -C "$root/src/q8nn" rev-parse HEAD 2>/dev/null)" != "$(git -C "$repo" rev-parse HEAD)" ]; then
  rm -rf "$root/src/q8nn"
  mkdir -p "$root/src"
  git clone --quiet --no-hardlinks "$repo" "$root/src/q8nn"
fi
log "oneDNN $(chroot "$root" dpkg-query -W -f '${Version}' libdnnl-dev), $(chroot "$root" gcc --version | head -n 1)"

# the build and the run in the root, with /proc, /sys and /dev of the host in a private mount namespace
passed=()
for v in Q8NN_GUARD Q8NN_ISA_MASK; do
  [ -n "${!v+x}" ] && passed+=("$v=${!v}")
done
unshare --mount --propagation private -- /bin/sh -c '
  set -e
  root=$1; passed=$2; shift 2
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 $passed /bin/bash -c "cd /src/q8nn && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DQ8NN_BUILD_TESTS=OFF \
        -DQ8NN_XNNPACK_LIBRARY=Q8NN_XNNPACK_LIBRARY-NOTFOUND >/dev/null &&
      cmake --build build -j\$(nproc) --target bench_mobilenet_v2 >/dev/null && build/bench/bench_mobilenet_v2 \"\$@\"" sh "$@"' \
  sh "$root" "${passed[*]-}" "$@"
