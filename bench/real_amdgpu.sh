#!/usr/bin/env bash
# LLVM 14's real AMDGPU register file (SIRegisterInfo.td with Target.td, via
# tests/fixtures/real_targets/AMDGPU-regs.td): `regdesc dump --lanes llvm`
# and `regdesc check` against `llvm-tblgen -gen-register-info
# -register-info-debug`, timed in one run. The runs of the three commands
# are interleaved, so that load from other jobs falls on all of them alike.
#
# Usage: bash bench/real_amdgpu.sh [N]     (default N=3 runs of each command)
# Env:   REGDESC_LLVM_SRC  the LLVM 14 source corpus (default target/llvm-14-src,
#                          which `bash tests/corpus/prepare.sh` builds)
#
# Prints, for each command, the median wall time and median CPU time
# (user + sys) of the N runs, the ratios llvm-tblgen / regdesc, and the
# spread (min-max) of the wall times, which shows how noisy the machine was.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-3}
case $runs in '' | *[!0-9]* | 0)
  echo "bench/real_amdgpu.sh: N must be a positive integer, not '$runs'" >&2
  exit 2
  ;;
esac

src=${REGDESC_LLVM_SRC:-$root/target/llvm-14-src}
amdgpu=$src/llvm/lib/Target/AMDGPU
if [ ! -f "$amdgpu/SIRegisterInfo.td" ]; then
  echo "bench/real_amdgpu.sh: no LLVM 14 corpus at $src ($amdgpu/SIRegisterInfo.td is missing)." >&2
  echo "  Build it with: bash tests/corpus/prepare.sh   (or set REGDESC_LLVM_SRC to an llvm-toolchain-14 source tree)" >&2
  exit 1
fi
if command -v llvm-config-14 >/dev/null 2>&1; then
  inc=$(llvm-config-14 --includedir)
else
  inc=/usr/include/llvm-14
fi
tblgen=$(command -v llvm-tblgen-14 || command -v llvm-tblgen || true)
if [ -z "$tblgen" ] || [ ! -f "$inc/llvm/Target/Target.td" ]; then
  echo "bench/real_amdgpu.sh: needs llvm-tblgen 14 and $inc/llvm/Target/Target.td (apt-get install llvm-14 llvm-14-dev)" >&2
  exit 1
fi
file=tests/fixtures/real_targets/AMDGPU-regs.td
args=(-I "$inc" -I "$amdgpu" "$file")

echo "building release binary..." >&2
cargo build --release --quiet
# The binary cargo just built: under $CARGO_TARGET_DIR when it is set
# (relative to the workspace root when relative), else target/.
target_dir=${CARGO_TARGET_DIR:-$root/target}
case $target_dir in /*) ;; *) target_dir=$root/$target_dir ;; esac
regdesc=$target_dir/release/regdesc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Same dump first: a benchmark of wrong output means nothing. llvm-tblgen
# prints its dump on stderr.
"$tblgen" -gen-register-info -register-info-debug "${args[@]}" -o /dev/null 2>"$tmp/llvm.dump"
"$regdesc" dump --lanes llvm "${args[@]}" >"$tmp/regdesc.dump" 2>/dev/null
if ! cmp -s "$tmp/llvm.dump" "$tmp/regdesc.dump"; then
  echo "bench/real_amdgpu.sh: regdesc's dump differs from llvm-tblgen's" >&2
  exit 1
fi
regs=$(grep -c '^Register ' "$tmp/regdesc.dump")
classes=$(grep -c '^RegisterClass ' "$tmp/regdesc.dump")
# `regdesc check` exits 1 when it finds errors; it must not fail otherwise.
"$regdesc" check "${args[@]}" >/dev/null 2>&1 || [ $? -eq 1 ]

# time_once NAME CMD...: appends "wall cpu" (seconds) of one run to $tmp/NAME.
time_once() {
  local name=$1 t
  shift
  t=$( {
    TIMEFORMAT='%R %U %S'
    time "$@" >/dev/null 2>&1
  } 2>&1) || true
  echo "$t" | awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' >>"$tmp/$name"
}

for ((i = 0; i < runs; i++)); do
  time_once llvm "$tblgen" -gen-register-info -register-info-debug "${args[@]}" -o /dev/null
  time_once dump "$regdesc" dump --lanes llvm "${args[@]}"
  time_once check "$regdesc" check "${args[@]}"
done

# median NAME COLUMN: the median of column COLUMN (1 wall, 2 cpu) of $tmp/NAME.
median() {
  sort -n -k"$2","$2" "$tmp/$1" | awk -v c="$2" '{ v[NR] = $c }
    END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
spread() { sort -n "$tmp/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }

lw=$(median llvm 1) lc=$(median llvm 2)
dw=$(median dump 1) dc=$(median dump 2)
cw=$(median check 1) cc=$(median check 2)
echo "file:        $file ($regs registers, $classes classes; -I $inc -I $amdgpu)"
echo "machine:     $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs each, interleaved"
printf '%-34s wall %7s s  cpu %7s s  (wall range %s s)\n' \
  "llvm-tblgen -gen-register-info:" "$lw" "$lc" "$(spread llvm)" \
  "regdesc dump --lanes llvm:" "$dw" "$dc" "$(spread dump)" \
  "regdesc check:" "$cw" "$cc" "$(spread check)"
echo "dump:        $(ratio "$lw" "$dw") faster (wall), $(ratio "$lc" "$dc") (cpu)"
echo "check:       $(ratio "$lw" "$cw") faster (wall), $(ratio "$lc" "$cc") (cpu)"
