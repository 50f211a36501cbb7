#!/bin/bash
# Installs the cross toolchains and the cross-compiled dependencies for the aarch64 and riscv64
# builds. Idempotent: a second run only checks stamps (a few seconds). Debian packages only.
#
#   bash scripts/cross-setup.sh [aarch64|riscv64|plugin|all]   (default: all but plugin)
#
# What it does
#   host packages  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user clang-19 lld-19
#                  llvm-19 libc6-dev-riscv64-cross gcc-riscv64-linux-gnu g++-riscv64-linux-gnu cmake ninja-build
#                  pkg-config dpkg-dev xz-utils libglib2.0-dev (plugin build)
#   aarch64 deps   Debian's (bookworm) arm64 packages libcpuinfo-dev libcpuinfo0 libpthreadpool-dev
#                  libpthreadpool0 libcmocka-dev libcmocka0 (and libxnnpack-dev libxnnpack0 for
#                  the instruction-count comparison), fetched with `apt-get download` and
#                  extracted into $DIR/aarch64-deps.
#                  They are not installed: libpthreadpool-dev and libxnnpack-dev are not
#                  Multi-Arch: same and libcpuinfo-dev:arm64 clashes with the amd64 one on a
#                  CMake file, so installing them would evict the native packages.
#   riscv64 deps   bookworm has no riscv64 port and this mirror serves neither the .dsc nor the
#                  orig tarball of bookworm's cpuinfo/pthreadpool source packages (404), so they
#                  cannot be rebuilt from Debian source here. Debian trixie does have riscv64
#                  binaries: libcpuinfo-dev libcpuinfo0 libpthreadpool-dev libpthreadpool0
#                  libcmocka-dev libcmocka0 (riscv64, trixie) are downloaded and extracted into
#                  $DIR/riscv64-deps. They need only GLIBC_2.27/2.34 symbols, so they link against
#                  and run on bookworm's riscv64 cross libc (2.36). Nothing is built from source.
#                  When the mirror's trixie index does not verify (a mirror mid-sync, or a proxy
#                  serving a Packages file older than the InRelease), forky's, then sid's are
#                  used: the same libraries, same glibc symbol versions (cmocka 2.0 there).
#   plugin         bench/cross needs qemu's "insn" TCG plugin: its source and qemu-plugin.h are
#                  taken from Debian's qemu source package (the same version as qemu-user) and
#                  the plugin is built into $DIR/qemu-plugins/libinsn.so.
# Everything fetched for the targets goes through a private apt configuration ($DIR/apt): the
# host's sources, dpkg architectures and installed packages are left alone.
# $DIR is $Q8NN_CROSS_DIR or build-cross/ in the repository.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
DIR=${Q8NN_CROSS_DIR:-$repo/build-cross}
mkdir -p "$DIR"
what=${1:-all}
export DEBIAN_FRONTEND=noninteractive
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

log() { echo "cross-setup: $*"; }

apt_updated=0
apt_update_once() {
  if [ $apt_updated = 0 ]; then $SUDO apt-get update -qq; apt_updated=1; fi
}

host_packages() {
  local pkgs=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user clang-19 lld-19 llvm-19
              libc6-dev-riscv64-cross gcc-riscv64-linux-gnu g++-riscv64-linux-gnu cmake ninja-build pkg-config
              dpkg-dev xz-utils)
  [ "$what" = plugin ] && pkgs+=(libglib2.0-dev)
  local missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    apt_update_once
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# host_debian_uri: the Debian mirror of the host's apt sources
source "$repo/scripts/debian-mirror.sh"

# Private apt: target packages and source packages without touching the host's configuration.
PAPT=$DIR/apt
papt_ready=0
papt() {
  if [ $papt_ready = 0 ]; then
    mkdir -p "$PAPT/lists/partial" "$PAPT/cache/archives/partial"
    # The Debian mirror this machine is configured with (deb822 or one-line sources), so that the
    # private configuration reaches the same registry the host's apt does.
    local mirror security
    mirror=$(host_debian_uri main)
    security=$(host_debian_uri security)
    [ -n "$mirror" ] || { echo "cross-setup: no Debian mirror in the host's apt sources" >&2; exit 1; }
    [ -n "$security" ] || security="${mirror}-security"
    local key=/usr/share/keyrings/debian-archive-keyring.gpg
    PAPT_OPTS=(-o "Dir::Etc::SourceList=$PAPT/sources.list" -o Dir::Etc::SourceParts=/dev/null
               -o "Dir::State::Lists=$PAPT/lists" -o "Dir::Cache=$PAPT/cache"
               -o Dir::State::status=/dev/null -o APT::Architectures::=arm64
               -o APT::Architectures::=riscv64 -o APT::Sandbox::User=root)
    # riscv64 comes from a moving suite, and a mirror (or a caching proxy in front of it) can
    # serve a Packages index older than its InRelease ("File has unexpected size ... Mirror sync
    # in progress?") for hours. The next suites up have the same libraries (GLIBC_2.27/2.34
    # symbols only; cross-test.sh builds and runs the whole suite against them), so fall back.
    local suite
    for suite in trixie forky sid; do
      cat >"$PAPT/sources.list" <<EOF2
deb [arch=arm64 signed-by=$key] $mirror bookworm main
deb [arch=riscv64 signed-by=$key] $mirror $suite main
deb-src [signed-by=$key] $mirror bookworm main
deb-src [signed-by=$key] $security bookworm-security main
deb-src [signed-by=$key] $mirror bookworm-updates main
EOF2
      if apt-get "${PAPT_OPTS[@]}" update -qq 2>"$PAPT/update.log"; then
        RISCV64_SUITE=$suite
        break
      fi
      log "the mirror's $suite index does not verify ($(grep -m1 '^E:' "$PAPT/update.log" | cut -c1-120))"
    done
    [ -n "${RISCV64_SUITE:-}" ] || { cat "$PAPT/update.log" >&2; exit 1; }
    papt_ready=1
  fi
  apt-get "${PAPT_OPTS[@]}" "$@"
}

# extract PREFIX PKG:ARCH...: download + dpkg-deb -x (nothing is installed)
extract_debs() {
  local prefix=$1; shift
  mkdir -p "$DIR/debs" "$prefix"
  (cd "$DIR/debs" && papt download -qq "$@")
  for p in "$@"; do
    local name=${p%%:*} arch=${p#*:}
    for deb in "$DIR"/debs/"${name}"_*_"${arch}".deb; do dpkg-deb -x "$deb" "$prefix"; done
  done
  # Debian's dev symlinks may be absolute: make them relative to the prefix.
  for l in "$prefix"/usr/lib/*-linux-gnu/*.so; do
    if [ -L "$l" ]; then ln -sfn "$(basename "$(readlink "$l")")" "$l"; fi
  done
}

aarch64_deps() {
  local prefix=$DIR/aarch64-deps stamp=$DIR/aarch64-deps/.stamp-1
  [ -f "$stamp" ] && return 0
  log "fetching Debian bookworm arm64 packages into $prefix"
  rm -rf "$prefix"
  extract_debs "$prefix" libcpuinfo-dev:arm64 libcpuinfo0:arm64 libpthreadpool-dev:arm64 \
    libpthreadpool0:arm64 libcmocka-dev:arm64 libcmocka0:arm64 libxnnpack-dev:arm64 libxnnpack0:arm64
  touch "$stamp"
}

riscv64_deps() {
  local prefix=$DIR/riscv64-deps stamp=$DIR/riscv64-deps/.stamp-1
  [ -f "$stamp" ] && return 0
  papt --version >/dev/null # picks the suite
  log "fetching Debian $RISCV64_SUITE riscv64 packages into $prefix"
  rm -rf "$prefix"
  extract_debs "$prefix" libcpuinfo-dev:riscv64 libcpuinfo0:riscv64 libpthreadpool-dev:riscv64 \
    libpthreadpool0:riscv64 libcmocka-dev:riscv64 libcmocka0:riscv64
  touch "$stamp"
}

qemu_plugin() {
  local out=$DIR/qemu-plugins/libinsn.so
  [ -f "$out" ] && return 0
  local ver
  ver=$(dpkg-query -W -f='${source:Version}' qemu-user)
  mkdir -p "$DIR/qemu-src" "$DIR/qemu-plugins"
  log "fetching the qemu $ver source package (for the insn plugin)"
  (cd "$DIR/qemu-src" && papt source -qq --download-only "qemu=$ver" >/dev/null)
  local orig top
  orig=$(ls "$DIR"/qemu-src/qemu_*.orig.tar.* | head -n1)
  top=$( (tar -tf "$orig" 2>/dev/null || true) | head -n1 | cut -d/ -f1)
  tar -xf "$orig" -C "$DIR/qemu-src" "$top/include/qemu/qemu-plugin.h" "$top/tests/plugin/insn.c"
  # shellcheck disable=SC2046
  cc -O2 -shared -fPIC -I"$DIR/qemu-src/$top/include/qemu" $(pkg-config --cflags glib-2.0) \
    "$DIR/qemu-src/$top/tests/plugin/insn.c" -o "$out" $(pkg-config --libs glib-2.0)
  log "built $out"
}

case "$what" in
  aarch64) host_packages; aarch64_deps ;;
  riscv64) host_packages; riscv64_deps ;;
  plugin)  host_packages; qemu_plugin ;;
  all)     host_packages; aarch64_deps; riscv64_deps ;;
  *) echo "usage: $0 [aarch64|riscv64|plugin|all]" >&2; exit 2 ;;
esac
log "done ($what) in $DIR"
