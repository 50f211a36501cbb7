# Sourced by the build scripts: compile through ccache when it is installed (scripts/setup.sh
# installs it), so that a build directory made from scratch (a fresh clone, a new configuration)
# reuses the objects an earlier build of the same sources and flags made, on this machine, in any
# clone. Sets q8nn_launcher, the CMake arguments to add to a configure (empty without ccache).
#   CCACHE_BASEDIR    the repository: paths below it are hashed relative to it, so two clones hit
#   CCACHE_NOHASHDIR  the working directory is left out of the hash of -g builds (debug info then
#                     names the directory of the build that filled the cache)
# Q8NN_CCACHE=0 turns it off.
q8nn_launcher=()
if [ "${Q8NN_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
  export CCACHE_NOHASHDIR=1
  q8nn_launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
