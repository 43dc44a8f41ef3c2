#!/usr/bin/env python3
"""AMD back end beside llc (issue 14): for every function of
../shared/bench/amdgpu/ll/ on gfx900, gfx90a and gfx1030, the instruction
count (by gen_table.py's own counting rule, imported from it, so the
figures compare with the anchors'), the VGPRs used, and the compile time,
for `regdesc-cc compile` and for llc 14 and llc 19 (`-O2`, SelectionDAG) in
the same run. Every .s is assembled for its CPU with llvm-mc of its own
LLVM version (14 for regdesc's), as gen_table.py does.

usage: python3 bench/amdgpu_counts.py [--runs N] [--cpus gfx900,...]
(build first: cargo build --release -p regdesc-cc)
Outputs go to target/amdgpu-bench/<compiler>/<cpu>/<kernel>.s.
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANCHOR = os.path.join(ROOT, "..", "shared", "bench", "amdgpu")
OUT = os.path.join(ROOT, "target", "amdgpu-bench")
REGDESC_CC = os.environ.get("REGDESC_CC", os.path.join(ROOT, "target", "release", "regdesc-cc"))


def load_rule():
    """gen_table.py's `count` and kernel list: the anchors' counting rule."""
    spec = importlib.util.spec_from_file_location("gen_table", os.path.join(ANCHOR, "gen_table.py"))
    if spec is None or spec.loader is None:
        sys.exit(f"cannot load {ANCHOR}/gen_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def vgprs(asm, counted):
    """llc's `; NumVgprs:` when the file has it, else the highest VGPR
    named plus one (what the register allocation used)."""
    if counted != "?":
        return counted
    top = -1
    for m in re.finditer(r"\bv\[(\d+):(\d+)\]|\bv(\d+)\b", asm):
        hi = m.group(2) or m.group(3)
        top = max(top, int(hi))
    return str(top + 1)


def sgprs(asm):
    """llc's `; NumSgprs:` when the file has it, else the highest SGPR
    named plus one (s[4:5], the kernarg pointer, and s[30:31], the return
    address, count when used)."""
    m = re.search(r"; NumSgprs: (\d+)", asm)
    if m:
        return m.group(1)
    top = -1
    for m in re.finditer(r"\bs\[(\d+):(\d+)\]|\bs(\d+)\b", asm):
        hi = m.group(2) or m.group(3)
        top = max(top, int(hi))
    return str(top + 1)


def timed(cmd, runs):
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        t = time.perf_counter() - start
        if p.returncode != 0:
            return None, p.stderr.strip().splitlines()[-1:] or [str(p.returncode)]
        best = t if best is None else min(best, t)
    return best, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cpus", default="gfx900,gfx90a,gfx1030")
    args = ap.parse_args()
    rule = load_rule()
    compilers = {
        "regdesc": lambda cpu, src, out: [REGDESC_CC, "compile", "--target", cpu, src, "-o", out],
        "llc 14": lambda cpu, src, out: ["/usr/lib/llvm-14/bin/llc", "-mtriple=amdgcn-amd-amdhsa",
                                         f"-mcpu={cpu}", "-O2", "-opaque-pointers", src, "-o", out],
        "llc 19": lambda cpu, src, out: ["/usr/lib/llvm-19/bin/llc", "-mtriple=amdgcn-amd-amdhsa",
                                         f"-mcpu={cpu}", "-O2", src, "-o", out],
    }
    print(f"load average: {open('/proc/loadavg').read().split()[:3]}, best of {args.runs} runs\n")
    print("Cell: instructions / v_mad_u64_u32 / VGPRs / SGPRs / compile ms (wall, whole process). Every .s is assembled by llvm-mc of its LLVM version (14 for regdesc).\n")
    print("| kernel | cpu | " + " | ".join(compilers) + " |")
    print("|---|---|" + "---|" * len(compilers))
    for k in rule.KERNELS:
        src = os.path.join(ANCHOR, "ll", k + ".ll")
        for cpu in args.cpus.split(","):
            cells = []
            for name, cmd in compilers.items():
                d = os.path.join(OUT, name.replace(" ", ""), cpu)
                os.makedirs(d, exist_ok=True)
                out = os.path.join(d, k + ".s")
                t, err = timed(cmd(cpu, src, out), args.runs)
                if t is None:
                    cells.append(f"fails: {' '.join(err)[:60]}")
                    continue
                asm = open(out).read()
                c = rule.count(asm)
                ver = "19" if name == "llc 19" else "14"
                mc = subprocess.run([f"/usr/lib/llvm-{ver}/bin/llvm-mc", "-triple=amdgcn-amd-amdhsa",
                                     f"-mcpu={cpu}", "-filetype=obj", out, "-o", "/dev/null"],
                                    capture_output=True).returncode == 0
                cells.append(f"{c['instrs']} / {c['mad64']} / {vgprs(asm, c['vgpr'])} / {sgprs(asm)} / {t * 1e3:.1f}"
                             + ("" if mc else " (mc FAILS)"))
            print(f"| {k} | {cpu} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
