#!/usr/bin/env bash
# Register bank benchmark: `regdesc dump --lanes llvm` against
# `llvm-tblgen -gen-register-info -register-info-debug` on a generated
# AMDGPU-scale register file (see examples/gen_amdgpu_scale.rs).
# Usage: bash bench/regs.sh [RUNS] [VGPRS]   (defaults: 10 runs, 256 VGPRs)
# Prints the best (minimum) CPU time (user+sys) and wall time of each tool.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
vgprs=${2:-256}
tblgen=$(command -v llvm-tblgen || command -v llvm-tblgen-14)
inc=$( (llvm-config-14 --includedir || llvm-config --includedir) 2>/dev/null || echo /usr/include/llvm-14)
cargo build --release --quiet
cargo run --release --quiet --example gen_amdgpu_scale -- "$vgprs" > target/amdgpu_scale.td
td=target/amdgpu_scale.td
# Parity first: same dump (llvm-tblgen prints it on stderr, after any warnings).
"$tblgen" -gen-register-info -register-info-debug -I "$inc" "$td" -o /dev/null 2> target/amdgpu_scale.llvm
grep -v '^warning: ' target/amdgpu_scale.llvm > target/amdgpu_scale.llvm.dump || true
./target/release/regdesc dump "$td" --lanes llvm > target/amdgpu_scale.regdesc 2>/dev/null
cmp -s target/amdgpu_scale.llvm.dump target/amdgpu_scale.regdesc || { echo "dumps differ"; exit 1; }
regs=$(grep -c '^Register ' target/amdgpu_scale.regdesc)
classes=$(grep -c '^RegisterClass ' target/amdgpu_scale.regdesc)
best() { # command... -> "cpu wall" (best of $runs)
  local bc=999 bw=999 c w
  for _ in $(seq "$runs"); do
    /usr/bin/time -o target/time.txt -f "%U %S %e" "$@" > /dev/null 2>&1
    read -r u s w < target/time.txt
    c=$(echo "$u + $s" | bc)
    bc=$(echo "if ($c < $bc) $c else $bc" | bc); bw=$(echo "if ($w < $bw) $w else $bw" | bc)
  done
  echo "$bc $bw"
}
read -r lc lw < <(best "$tblgen" -gen-register-info -register-info-debug -I "$inc" "$td" -o /dev/null)
read -r rc rw < <(best ./target/release/regdesc dump "$td" --lanes llvm)
echo "file: $td ($regs registers, $classes classes), dumps identical"
echo "llvm-tblgen: cpu ${lc}s wall ${lw}s"
echo "regdesc:     cpu ${rc}s wall ${rw}s"
echo "ratio: cpu $(echo "scale=1; $lc / $rc" | bc)x, wall $(echo "scale=1; $lw / $rw" | bc)x"
