# Sourced by the scripts that fetch Debian packages outside the host's own apt configuration
# (cross-setup.sh, fresh-system-check.sh, bench/trixie.sh): they reach the same registry the host's
# apt does, so no mirror is ever named in the repository.
#
# host_debian_uri main|security: the first URI of the host's apt sources (deb822 .sources or
# one-line .list) that serves the Debian archive ("main") or the security archive ("security");
# prints nothing when there is none.
host_debian_uri() {
  local want=$1 uri uris
  # no pipeline into an early `break`: under pipefail the writer's SIGPIPE would fail the caller
  uris=$({
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' /etc/apt/sources.list.d/*.sources
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' \
      /etc/apt/sources.list /etc/apt/sources.list.d/*.list
  } 2>/dev/null || true)
  for uri in $uris; do
    case "$want:$uri" in
      security:*security*) echo "$uri"; return 0 ;;
      main:*security*) ;;
      main:*/debian|main:*/debian/) echo "${uri%/}"; return 0 ;;
    esac
  done
  return 0
}

# ensure_mmdebstrap: installs mmdebstrap from the host's registry where it is missing (the scripts
# that build Debian roots: fresh-system-check.sh, bench/trixie.sh).
ensure_mmdebstrap() {
  command -v mmdebstrap >/dev/null && return 0
  echo "installing mmdebstrap" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
}
