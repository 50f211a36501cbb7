#!/usr/bin/env bash
# Per-model VTA table: the five shared models through q8nn-run --backend vta in the exact
# (default) and 16-bit requantization modes (and the exact limb form with --limbs); one markdown
# row per model and mode: operators on VTA, cycles, exact/16-bit, GEMM and ALU micro-ops, DRAM
# KiB per inference, the cycle bound (sum over operators of max(GEMM, 2 x ALU, DRAM bytes / 8)),
# cycles/bound and the output's distance from the CPU's.
#
#   bash bench/vta/model-table.sh BUILD_DIR [--limbs]      (BUILD_DIR holds tools/q8nn-run)
set -euo pipefail
build=${1:?usage: model-table.sh BUILD_DIR [--limbs]}
run="$build/tools/q8nn-run"
models="$(cd "$(dirname "$0")/../../../shared/models" && pwd)"
modes=(exact 16bit)
[ "${2:-}" = --limbs ] && modes+=(exact-limbs)
specs=(
  "person_detect|tflm_person_detection/person_detect.tflite|--input|tflm_person_detection/person_input_int8.bin"
  "MobileNetV2-0.35 (160)|cfu_mnv2/model_mobilenetv2_160_035.tflite|--input-uint8|cfu_mnv2/input_00001_18027.dat"
  "vww|cfu_mlcommons_vww/vww_96_int8.tflite|--input|cfu_mlcommons_vww/quant_test_yes_0.dat"
  "ResNet-8|cfu_mlcommons_imgc/pretrainedResnet_quant.tflite|--input|cfu_mlcommons_imgc/quant_cat.dat"
  "kws (DS-CNN)|cfu_mlcommons_kws/kws_ref_model.tflite|--input|cfu_mlcommons_kws/yes_9.dat"
)
# one row's fields from q8nn-run's output: ops cycles gemm alu dram_bytes bound cycles/bound distance
fields() {
  sed -nE -e "s/^on vta: ([0-9]+ of [0-9]+) operators.*from the CPU's: ([0-9]+)$/OPS \1|\2/p" \
    -e 's/^VTA model per run: ([0-9]+) cycles, [0-9]+ instructions, ([0-9]+) GEMM micro-ops, ([0-9]+) ALU micro-ops, ([0-9]+) DRAM bytes; bound ([0-9]+) cycles \(cycles \/ bound ([0-9.]+)\)$/VTA \1 \2 \3 \4 \5 \6/p'
}
echo "| model | mode | ops on VTA | cycles | exact/16-bit | GEMM uops | ALU uops | DRAM KiB | bound | cycles/bound | distance from CPU |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for spec in "${specs[@]}"; do
  IFS='|' read -r name file flag input <<< "$spec"
  rows=()
  c16=0
  for mode in "${modes[@]}"; do
    out=$("$run" "$models/$file" "$flag" "$models/$input" --backend vta --vta-requant "$mode" | fields)
    IFS='|' read -r ops dist <<< "$(sed -n 's/^OPS //p' <<< "$out")"
    read -r c g a d b r <<< "$(sed -n 's/^VTA //p' <<< "$out")"
    [ "$mode" = 16bit ] && c16=$c
    rows+=("$mode|$ops|$c|$g|$a|$d|$b|$r|$dist")
  done
  for row in "${rows[@]}"; do
    IFS='|' read -r mode ops c g a d b r dist <<< "$row"
    awk -v n="$name" -v m="$mode" -v o="$ops" -v c="$c" -v c16="$c16" -v g="$g" -v a="$a" -v d="$d" -v b="$b" \
      -v r="$r" -v x="$dist" 'BEGIN {
        ratio = m == "16bit" ? "1.00x" : sprintf("%.2fx", c / c16)
        printf "| %s | %s | %s | %d | %s | %d | %d | %.1f | %d | %s | %s |\n", n, m, o, c, ratio, g, a, d / 1024, b, r, x
      }'
  done
done
