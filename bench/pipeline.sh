#!/usr/bin/env bash
# Back-end pipeline time per stage (issue 13): `compile_function` with the
# ref32 reference target on generated LLVM IR functions of about 1k, 10k
# and 100k instructions (straight-line i32/i64/i128 arithmetic, diamonds
# and counted loops with PHIs; fixed seed), with the growth of each stage
# from one size to the next. See targets/ref32/benches/pipeline/main.rs for
# what is timed; the IR files are left in target/pipeline-bench/.
# Usage: bash bench/pipeline.sh   (REGDESC_BENCH_SIZES=1000,10000 for other
# sizes, REGDESC_BENCH_RUNS=N for N runs per size)
set -euo pipefail
cd "$(dirname "$0")/.."
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
cargo bench --quiet -p regdesc-ref32 --bench pipeline
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
