#!/usr/bin/env bash
# Query speed on LLVM 14's AMDGPU: divan benchmarks of regdesc's generated
# tables (bench/tables, `sub_reg`, register-unit iteration, `regs_overlap`,
# class `contains`), then the same four loops timed on regdesc's tables and
# on LLVM's MCRegisterInfo in the oracle's C++ harness (`oracle --bench`), in
# the same run, with the ratio (BENCHMARKS.md, "Query speed").
#
# Usage: bash bench/queries.sh
# Env:   REGDESC_LLVM_SRC (LLVM 14 source corpus, default target/llvm-14-src)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/llvm-side.sh
source bench/llvm-side.sh
llvm_side_check
amdgpu_paths

dir=$root/target/bench/queries
echo "building LLVM's side (llvm-tblgen, g++ -O2)..." >&2
llvm_side_inc "$dir" "$amdgpu_td" "${amdgpu_includes[@]}"
llvm_side_compile "$dir"
llvm_side_link "$dir"

echo "building and running regdesc's side (cargo bench)..." >&2
REGDESC_BENCH_TD=$amdgpu_td \
  REGDESC_BENCH_INCLUDES=$(IFS=:; echo "${amdgpu_includes[*]}") \
  REGDESC_BENCH_ORACLE=$dir/oracle \
  cargo bench -p regdesc-bench --bench queries
