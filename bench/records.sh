#!/usr/bin/env bash
# Times `regdesc records` against `llvm-tblgen --print-records` on LLVM's
# llvm/Target/Target.td (with -I <includedir>), best of N runs each, in the
# same run and from the same directory, and prints both times and the ratio.
#
# Then, when the LLVM 14 corpus is there (tests/corpus/prepare.sh,
# REGDESC_LLVM_SRC), the five full targets (AMDGPU, X86, AArch64, ARM,
# RISCV): wall, user, sys and peak memory of both tools from one
# interleaved run, with the ratios (bench/full_targets.py).
#
# Usage: bash bench/records.sh [N] [M]    (default N=10 on Target.td, M=3 per full target)
# Env:   TD_FILE=relative/path.td to time another file under the include dir.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-10}

if command -v llvm-config-14 >/dev/null 2>&1; then
  inc=$(llvm-config-14 --includedir)
else
  inc=/usr/include/llvm-14
fi
file="$inc/${TD_FILE:-llvm/Target/Target.td}"
tblgen=$(command -v llvm-tblgen-14 || command -v llvm-tblgen || true)
if [ -z "$tblgen" ] || [ ! -f "$file" ]; then
  echo "bench/records.sh: needs llvm-tblgen 14 and $file (apt-get install llvm-14 llvm-14-dev)" >&2
  exit 1
fi

echo "building release binary..." >&2
cargo build --release --quiet
# The binary cargo just built: under $CARGO_TARGET_DIR when it is set
# (relative to the workspace root when relative), else target/.
target_dir=${CARGO_TARGET_DIR:-$root/target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
regdesc=$target_dir/release/regdesc

# best_of CMD...: runs CMD $runs times (stdout discarded) and prints the
# smallest wall-clock time in seconds. Fails if CMD fails.
best_of() {
  local best="" t i start end
  for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$@" >/dev/null || return 1
    end=$(date +%s%N)
    t=$((end - start))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  awk -v ns="$best" 'BEGIN { printf "%.4f", ns / 1e9 }'
}

# Same output first: a benchmark of wrong output means nothing.
if ! cmp -s <("$tblgen" --print-records -I "$inc" "$file") \
            <("$regdesc" records -I "$inc" "$file" 2>/dev/null); then
  echo "warning: regdesc's output differs from llvm-tblgen's (or regdesc failed)" >&2
fi

t_llvm=$(best_of "$tblgen" --print-records -I "$inc" "$file")
if t_ours=$(best_of "$regdesc" records -I "$inc" "$file" 2>/dev/null); then :; else
  t_ours=""
fi

echo "file:        ${file#"$inc"/} (-I $inc)"
echo "machine:     $(nproc) cores, $(uname -m); best of $runs runs each"
printf 'llvm-tblgen: %s s  (%s)\n' "$t_llvm" "$("$tblgen" --version | sed -n 's/.*LLVM version/LLVM/p' | head -n 1)"
if [ -n "$t_ours" ]; then
  printf 'regdesc:     %s s\n' "$t_ours"
  awk -v a="$t_ours" -v b="$t_llvm" 'BEGIN { printf "ratio:       %.2fx (regdesc / llvm-tblgen)\n", a / b }'
else
  echo "regdesc:     not measured (regdesc records failed on this file)"
fi

src=${REGDESC_LLVM_SRC:-$root/target/llvm-14-src}
if [ -f "$src/llvm/lib/Target/AMDGPU/AMDGPU.td" ]; then
  python3 "$root/bench/full_targets.py" "$regdesc" "$tblgen" "$inc" "$src" "${2:-3}"
else
  echo "full targets: no LLVM 14 corpus at $src (bash tests/corpus/prepare.sh)" >&2
fi
