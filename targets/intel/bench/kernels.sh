#!/bin/bash
# The six bench kernels (../shared/bench/intel/*.cl) compiled by regdesc-cc
# for skl/icllp/tgllp, one KERNEL_DEV.asm each, as count.py reads them.
# Usage: targets/intel/bench/kernels.sh OUTDIR [SIMD]   (from the repository root;
# REGDESC_CC=path/to/regdesc-cc, default target/release/regdesc-cc)
set -e
OUT=${1:?output directory}; SIMD=${2:-16}
CC=${REGDESC_CC:-target/release/regdesc-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
declare -A DEV=( [gen9]=skl [gen11]=icllp [gen12lp]=tgllp )
for t in gen9 gen11 gen12lp; do
  for f in "$HERE/../../codegen/tests/fixtures/spir_kernel.ll" "$HERE/../tests/fixtures/bench_kernels.ll"; do
    "$CC" compile --target $t --simd "$SIMD" "$f" -o "$OUT/all.tmp"
    awk -v out="$OUT" -v dev="${DEV[$t]}" '
      /^[A-Za-z_][A-Za-z0-9_]*:$/ && !/_bb[0-9]+:$/ && !/_ret:$/ && !/_disp:$/ { name = substr($0, 1, length($0) - 1); file = out "/" name "_" dev ".asm" }
      { if (file != "") print > file }' "$OUT/all.tmp"
  done
done
rm -f "$OUT/all.tmp"
