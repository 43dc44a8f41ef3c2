#!/usr/bin/env bash
# `regdesc doc` on LLVM 14's AMDGPU register description
# (tests/fixtures/real_targets/AMDGPU-regs.td: 6,872 registers, 470 classes).
# Usage: bash bench/doc.sh [RUNS]   (default 5 runs)
# Prints the best CPU time (user+sys) and wall time of the whole command
# (read, evaluate, bank, check, both lane modes, write the site), the site's
# size and file count, and where the time goes (REGDESC_TIMINGS=1).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
inc=$( (llvm-config-14 --includedir || llvm-config --includedir) 2>/dev/null || echo /usr/include/llvm-14)
src=${REGDESC_LLVM_SRC:-target/llvm-14-src}
amdgpu="$src/llvm/lib/Target/AMDGPU"
[ -f "$amdgpu/SIRegisterInfo.td" ] || { echo "no $amdgpu (set REGDESC_LLVM_SRC or run tests/corpus/prepare.sh)"; exit 1; }
cargo build --release --quiet
out=target/doc-bench
cmd=(./target/release/regdesc doc -I "$inc" -I "$amdgpu" tests/fixtures/real_targets/AMDGPU-regs.td -o "$out")
bc=999 bw=999
for _ in $(seq "$runs"); do
  rm -rf "$out"
  /usr/bin/time -o target/time.txt -f "%U %S %e" "${cmd[@]}" > /dev/null 2>&1
  read -r u s w < target/time.txt
  c=$(echo "$u + $s" | bc)
  bc=$(echo "if ($c < $bc) $c else $bc" | bc); bw=$(echo "if ($w < $bw) $w else $bw" | bc)
done
echo "regdesc doc AMDGPU: best of $runs: cpu ${bc}s wall ${bw}s"
echo "site: $(du -sb "$out" | cut -f1) bytes in $(find "$out" -type f | wc -l) files ($(find "$out" -name '*.html' | wc -l) pages)"
rm -rf "$out"
REGDESC_TIMINGS=1 "${cmd[@]}" 2>&1 >/dev/null | grep -E '^regdesc: +[a-z]+:'
