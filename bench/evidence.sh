#!/usr/bin/env bash
# Prints the evidence for the front-end and register-bank acceptance points:
# parity with llvm-tblgen 14 on LLVM's include directory, fixture counts,
# `check` figures on the examples, dump parity on the register corpus, and
# (when a local corpus of real target files exists, REGDESC_LLVM_REAL,
# default /work/llvm-real) parity on real targets. Run from the repo root.
set -u
cd "$(dirname "$0")/.."
real=${REGDESC_LLVM_REAL:-/work/llvm-real}
inc=$(llvm-config-14 --includedir)
R=$PWD/target/release/regdesc
cargo build --release --quiet 2>/dev/null
echo "== issue 2"
echo "-- Target.td byte-identical:"; $R records -I $inc $inc/llvm/Target/Target.td | cmp - <(llvm-tblgen --print-records -I $inc $inc/llvm/Target/Target.td) && echo "identical ($(llvm-tblgen --print-records -I $inc $inc/llvm/Target/Target.td | wc -l) lines)"
echo "-- include corpus:"; ok=0; rej=0; bad=0; for f in $(cd $inc && find -L . -name '*.td' | sort); do if (cd $inc && llvm-tblgen --print-records -I . $f > /tmp/v1 2>/dev/null); then (cd $inc && $R records -I . $f > /tmp/v2 2>/dev/null); cmp -s /tmp/v1 /tmp/v2 && ok=$((ok+1)) || bad=$((bad+1)); else (cd $inc && $R records -I . $f >/dev/null 2>&1) && bad=$((bad+1)) || rej=$((rej+1)); fi; done; echo "identical: $ok, rejected by both: $rej, mismatches: $bad"
echo "-- fixtures: pass $(ls tests/fixtures/pass/*.td | wc -l), fail $(ls tests/fixtures/fail/*.td | wc -l), snapshots $(ls tests/snapshots/fixtures__*.snap | wc -l)"
[ -d "$real" ] && echo "-- real targets (local corpus $real):"; [ -d "$real" ] && for t in X86 ARM SystemZ Hexagon _llvm14-patched/AArch64 _llvm14-patched/Sparc _llvm14-patched/Mips _llvm14-patched/AMDGPU; do d=$real/$t; a=$(cd $d && llvm-tblgen --print-records -I $inc -I . wrap.td 2>/dev/null | md5sum); b=$(cd $d && $R records -I $inc -I . wrap.td 2>/dev/null | md5sum); [ "$a" = "$b" ] && echo "  records $t: identical" || echo "  records $t: DIFFERS"; done
echo "== issue 3"
for f in examples/intel_grf.td examples/intel_grf_simd16.td examples/intel_grf_bytes_simd16.td; do echo "-- check $f:"; $R check $f --format json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print('  registers',d['registers'],'classes',d['classes'],'indices',d['sub_reg_indices'],'units',d['units'],'lanes',d['lanes'],'widest',d['widest_class'])"; done
echo "-- check --lanes llvm simd16 exit:"; $R check --lanes llvm examples/intel_grf_simd16.td >/dev/null 2>&1; echo "  exit $?"
echo "-- regs corpus: $(ls tests/fixtures/regs/*.td | wc -l) files"; n=0; bad=0; for f in tests/fixtures/regs/*.td examples/*.td; do if ! llvm-tblgen -gen-register-info -register-info-debug -I $inc $f -o /dev/null >/dev/null 2>&1; then echo "  llvm-tblgen rejects $f: $(llvm-tblgen -gen-register-info -I $inc $f -o /dev/null 2>&1 | grep -m1 error)"; continue; fi; n=$((n+1)); a=$(llvm-tblgen -gen-register-info -register-info-debug -I $inc $f -o /dev/null 2>&1 | grep -v '^warning: ' | md5sum); b=$($R dump --lanes llvm -I $inc $f 2>/dev/null | md5sum); [ "$a" = "$b" ] || { bad=$((bad+1)); echo "  differs: $f"; }; done; echo "  dump parity: $((n-bad))/$n"
[ -d "$real" ] && echo "-- real targets dump:"; [ -d "$real" ] && for t in X86 ARM SystemZ Hexagon _llvm14-patched/AArch64 _llvm14-patched/Sparc _llvm14-patched/Mips _llvm14-patched/AMDGPU; do d=$real/$t; a=$(cd $d && llvm-tblgen -gen-register-info -register-info-debug -I $inc -I . wrap.td -o /dev/null 2>&1 | grep -v '^warning: ' | md5sum); b=$(cd $d && $R dump --lanes llvm -I $inc -I . wrap.td 2>/dev/null | md5sum); [ "$a" = "$b" ] && echo "  dump $t: identical" || echo "  dump $t: DIFFERS"; done
