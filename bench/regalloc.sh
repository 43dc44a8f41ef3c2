#!/usr/bin/env bash
# Register allocation time (issue 9): regdesc's allocator on generated
# machine functions of about 1k, 10k and 100k instructions (AMD-like
# register file), beside `llc -O2 -mtriple=amdgcn -mcpu=gfx900` (LLVM 14)
# on the same functions written as LLVM IR, with the growth from each size
# to the next. See targets/codegen/benches/regalloc_vs_llc.rs for what is
# timed on each side.
# Usage: bash bench/regalloc.sh   (REGDESC_BENCH_SIZES=1000,10000 for other sizes)
set -euo pipefail
cd "$(dirname "$0")/.."
bindir=$( (llvm-config-14 --bindir || llvm-config --bindir) 2>/dev/null || echo /usr/lib/llvm-14/bin)
export PATH="$bindir:$PATH"
if ! llc --version 2>/dev/null | grep -q 'LLVM version 14\.'; then
  echo "llc from LLVM 14 not found (apt-get install llvm-14); timing regdesc only" >&2
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
cargo bench --quiet -p regdesc-codegen --bench regalloc_vs_llc
