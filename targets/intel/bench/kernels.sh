#!/bin/bash
# The six bench kernels (../shared/bench/intel/*.cl) through Debian's clang-14
# and regdesc-cc, for skl/icllp/tgllp: one KERNEL_DEV.asm each, as count.py
# reads them.
# Usage (from the repository root): targets/intel/bench/kernels.sh OUTDIR [SIMD]
#   REGDESC_CC=path/to/regdesc-cc (default target/release/regdesc-cc)
#   BENCH=path/to/shared/bench/intel (default ../shared/bench/intel)
set -e
OUT=${1:?output directory}; SIMD=${2:-16}
CC=${REGDESC_CC:-target/release/regdesc-cc}
BENCH=${BENCH:-../shared/bench/intel}
mkdir -p "$OUT"
declare -A DEV=( [gen9]=skl [gen11]=icllp [gen12lp]=tgllp )
for k in add64 bitcast bitcast_add mul64 mulhi64 ptroff; do
  clang-14 -cc1 -triple spir64 -O2 -cl-std=CL1.2 -finclude-default-header -emit-llvm \
    "$BENCH/$k.cl" -o "$OUT/$k.ll"
  for t in gen9 gen11 gen12lp; do
    "$CC" compile --target $t --simd "$SIMD" "$OUT/$k.ll" -o "$OUT/${k}_${DEV[$t]}.asm"
  done
done
