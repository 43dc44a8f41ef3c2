#!/usr/bin/env bash
# Writing LLVM 14's real AMDGPU GenRegisterInfo.inc (SIRegisterInfo.td with
# Target.td, via tests/fixtures/real_targets/AMDGPU-regs.td):
# `regdesc tblgen -gen-register-info` against `llvm-tblgen
# -gen-register-info`, the same command line, timed in one run (interleaved,
# so that load from other jobs falls on both alike). The two .inc files are
# compared first: they must be identical.
#
# Usage: bash bench/tblgen_inc.sh [N]     (default N=5 runs of each command)
# Env:   REGDESC_LLVM_SRC  the LLVM 14 source corpus (default target/llvm-14-src,
#                          which `bash tests/corpus/prepare.sh` builds)
#
# Prints the median wall and CPU (user + sys) times of each tool, the wall
# range, and the ratios llvm-tblgen / regdesc.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-5}
case $runs in '' | *[!0-9]* | 0)
  echo "bench/tblgen_inc.sh: N must be a positive integer, not '$runs'" >&2
  exit 2
  ;;
esac

src=${REGDESC_LLVM_SRC:-$root/target/llvm-14-src}
amdgpu=$src/llvm/lib/Target/AMDGPU
if [ ! -f "$amdgpu/SIRegisterInfo.td" ]; then
  echo "bench/tblgen_inc.sh: no LLVM 14 corpus at $src; build it with: bash tests/corpus/prepare.sh" >&2
  exit 1
fi
if command -v llvm-config-14 >/dev/null 2>&1; then
  inc=$(llvm-config-14 --includedir)
else
  inc=/usr/include/llvm-14
fi
tblgen=$(command -v llvm-tblgen-14 || command -v llvm-tblgen || true)
if [ -z "$tblgen" ] || [ ! -f "$inc/llvm/Target/Target.td" ]; then
  echo "bench/tblgen_inc.sh: needs llvm-tblgen 14 and $inc/llvm/Target/Target.td (apt-get install llvm-14 llvm-14-dev)" >&2
  exit 1
fi
file=tests/fixtures/real_targets/AMDGPU-regs.td
args=(-gen-register-info -I "$inc" -I "$amdgpu" "$file")

echo "building release binary..." >&2
cargo build --release --quiet -p regdesc
# The binary cargo just built: under $CARGO_TARGET_DIR when it is set
# (relative to the workspace root when relative), else target/.
target_dir=${CARGO_TARGET_DIR:-$root/target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
regdesc=$target_dir/release/regdesc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tblgen" "${args[@]}" -o "$tmp/llvm.inc"
"$regdesc" tblgen "${args[@]}" -o "$tmp/regdesc.inc"
if ! cmp -s "$tmp/llvm.inc" "$tmp/regdesc.inc"; then
  echo "bench/tblgen_inc.sh: regdesc's .inc differs from llvm-tblgen's" >&2
  exit 1
fi
bytes=$(wc -c <"$tmp/llvm.inc")

# time_once NAME CMD...: appends "wall cpu" (seconds) of one run to $tmp/NAME.
# Each run writes a fresh file (no unchanged-file shortcut).
time_once() {
  local name=$1 t
  shift
  rm -f "$tmp/out.inc"
  t=$( {
    TIMEFORMAT='%R %U %S'
    time "$@" -o "$tmp/out.inc" >/dev/null 2>&1
  } 2>&1) || true
  echo "$t" | awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' >>"$tmp/$name"
}

for ((i = 0; i < runs; i++)); do
  time_once llvm "$tblgen" "${args[@]}"
  time_once regdesc "$regdesc" tblgen "${args[@]}"
done

median() {
  sort -n -k"$2","$2" "$tmp/$1" | awk -v c="$2" '{ v[NR] = $c }
    END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
spread() { sort -n "$tmp/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }

lw=$(median llvm 1) lc=$(median llvm 2)
rw=$(median regdesc 1) rc=$(median regdesc 2)
echo "file:        $file (-I $inc -I $amdgpu), GenRegisterInfo.inc of $bytes bytes, identical"
echo "machine:     $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs each, interleaved"
printf '%-42s wall %7s s  cpu %7s s  (wall range %s s)\n' \
  "llvm-tblgen -gen-register-info:" "$lw" "$lc" "$(spread llvm)" \
  "regdesc tblgen -gen-register-info:" "$rw" "$rc" "$(spread regdesc)"
echo "ratio:       $(ratio "$lw" "$rw") faster (wall), $(ratio "$lc" "$rc") (cpu)"
