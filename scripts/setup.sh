#!/usr/bin/env bash
# Installs what q8nn needs to build, test and benchmark on Debian (12 "bookworm" or later).
# Idempotent: only missing packages are installed, and apt-get update runs only then.
set -euo pipefail
packages=(build-essential cmake pkg-config libcpuinfo-dev libpthreadpool-dev libcmocka-dev
          libbenchmark-dev libxnnpack-dev libdnnl-dev
          # oneDNN's CMake package needs OpenCL's development files (only a Recommends of
          # libdnnl-dev, so --no-install-recommends leaves them out)
          ocl-icd-opencl-dev
          # SIMDe: the AVX-512 VNNI kernels are also tested under emulation on x86 hosts
          # without AVX-512 (tests/ukernels/CMakeLists.txt)
          libsimde-dev
          # the PyTorch package (integrations/pytorch): Debian's PyTorch 1.13 for /usr/bin/python3
          # and its C++ library and CMake package for the extension
          python3-torch python3-torchvision libtorch-dev
          # pybind11's headers for the package's eager-mode module (_q8nn_fast)
          pybind11-dev
          # compiled objects kept between builds (scripts/ccache.sh)
          ccache)
packages+=("$@")
missing=()
for p in "${packages[@]}"; do
  # a package counts as present only when installed for the native architecture
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -ne 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "q8nn setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
