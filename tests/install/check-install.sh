#!/usr/bin/env bash
# Builds q8nn as a shared library, installs it into a scratch prefix, checks that only the public
# q8nn_* API is exported, then builds and runs a consumer through find_package(q8nn) and through
# pkg-config. Usage: check-install.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cmake -S "$src" -B "$work/build" -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=Release -DQ8NN_BUILD_TESTS=OFF \
      -DQ8NN_BUILD_BENCHMARKS=OFF -DQ8NN_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --build "$work/build" -j"$(nproc)" >/dev/null
cmake --install "$work/build" >/dev/null
lib=$(ls "$work"/prefix/lib*/libq8nn.so 2>/dev/null || ls "$work"/prefix/lib/*/libq8nn.so)
exported=$(nm -D --defined-only "$lib" | awk '{print $3}')
bad=$(echo "$exported" | grep -v '^q8nn_' || true)
if [ -n "$bad" ]; then
  echo "FAIL: non-API symbols exported from libq8nn.so:"; echo "$bad"; exit 1
fi
echo "exported symbols: $(echo "$exported" | wc -l), all q8nn_*"
# libq8nn_model.so exports exactly the functions q8nn-model.h declares (its internal helpers,
# also named q8nn_model_*, stay hidden).
model_lib="$(dirname "$lib")/libq8nn_model.so"
test -f "$work/prefix/include/q8nn-model.h" || { echo "FAIL: q8nn-model.h not installed"; exit 1; }
declared=$(grep -oE 'q8nn_model_[a-z_]+\(' "$src/include/q8nn-model.h" | tr -d '(' | sort -u)
model_exported=$(nm -D --defined-only "$model_lib" | awk '{print $3}' | sort -u)
if [ "$declared" != "$model_exported" ]; then
  echo "FAIL: libq8nn_model.so exports differ from q8nn-model.h:"
  diff <(echo "$declared") <(echo "$model_exported") || true
  exit 1
fi
echo "libq8nn_model.so exports: $(echo "$model_exported" | wc -l), exactly q8nn-model.h's functions"
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH=$(dirname "$lib") "$work/consumer/consumer"
LD_LIBRARY_PATH=$(dirname "$lib") "$work/consumer/consumer-model"
pc_dir=$(dirname "$(find "$work/prefix" -name q8nn.pc | head -n 1)")
PKG_CONFIG_PATH="$pc_dir" cc -o "$work/consumer-pc" "$src/tests/install/consumer/consumer.c" \
  $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs q8nn)
LD_LIBRARY_PATH=$(dirname "$lib") "$work/consumer-pc"
PKG_CONFIG_PATH="$pc_dir" cc -o "$work/consumer-model-pc" "$src/tests/install/consumer/consumer-model.c" \
  $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs q8nn-model)
LD_LIBRARY_PATH=$(dirname "$lib") "$work/consumer-model-pc"
