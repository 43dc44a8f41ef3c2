#!/usr/bin/env python3
"""Intel back end (issue 15): for every function of
../shared/bench/amdgpu/ll/, on gen9 (skl), gen11 (icllp) and gen12lp
(tgllp), at SIMD8 and SIMD16: instructions (counted by the anchors' own
rule, ../shared/bench/intel/count.py, run on the output), instructions per
8 lanes, GRFs used, and the compile time.

usage: python3 bench/intel_counts.py [--runs N]
(build first: cargo build --release -p regdesc-cc)
Outputs go to target/intel-bench/<kernel>_<device>_simd<N>.asm; each
file is a function of its own, assembled with `iga64 -a -Wall`.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "bench")
OUT = os.path.join(ROOT, "target", "intel-bench")
REGDESC_CC = os.environ.get("REGDESC_CC", os.path.join(ROOT, "target", "release", "regdesc-cc"))
PLATFORMS = [("gen9", "skl", "9"), ("gen11", "icllp", "11"), ("gen12lp", "tgllp", "12p1")]


def functions(path):
    return re.findall(r"^define\b[^@]*@([\w.$]+)\(", open(path).read(), re.M)


def count_total(asm, kernel, dev):
    """count.py's `total` and `SIMD` columns for one file."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, f"{kernel}_{dev}.asm"), "w") as f:
            f.write(asm)
        p = subprocess.run([sys.executable, os.path.join(SHARED, "intel", "count.py"), d],
                           capture_output=True, text=True)
    for line in p.stdout.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) > 3 and cells[0] == kernel and cells[1] == dev:
            return int(cells[2]), int(cells[3])
    return None, None


def grfs(asm):
    """GRFs the code names (a region past its first GRF, as a SIMD16 dword
    operand, is counted by its first), and the highest one."""
    named = {int(m.group(1)) for m in re.finditer(r"\br(\d+)\b", asm)}
    return f"{len(named)} (r{max(named)})" if named else "0"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    print(f"load average: {open('/proc/loadavg').read().split()[:3]}, best of {args.runs} runs\n")
    print("Cell: instructions (count.py `total`) / per 8 lanes / GRFs named (highest) / compile ms (wall, whole process)\n")
    head = [f"{t} SIMD{s}" for t, _, _ in PLATFORMS for s in (8, 16)]
    print("| file | function | " + " | ".join(head) + " |")
    print("|---|---|" + "---|" * len(head))
    lldir = os.path.join(SHARED, "amdgpu", "ll")
    for name in sorted(os.listdir(lldir)):
        if not name.endswith(".ll"):
            continue
        src = os.path.join(lldir, name)
        for fn in functions(src):
            cells = []
            for target, dev, p in PLATFORMS:
                for simd in (8, 16):
                    out = os.path.join(OUT, f"{fn}_{dev}_simd{simd}.asm")
                    cmd = [REGDESC_CC, "compile", "--target", target, "--simd", str(simd),
                           "--fn", fn, src, "-o", out]
                    best, err = None, None
                    for _ in range(args.runs):
                        start = time.perf_counter()
                        r = subprocess.run(cmd, capture_output=True, text=True)
                        t = time.perf_counter() - start
                        if r.returncode != 0:
                            err = (r.stderr.strip().splitlines() or ["?"])[0]
                            break
                        best = t if best is None else min(best, t)
                    if err is not None:
                        cells.append(f"fails: {err[:50]}")
                        continue
                    asm = open(out).read()
                    total, _ = count_total(asm, fn, dev)
                    iga = subprocess.run(["iga64", "-a", "-Wall", f"-p={p}", out, "-o", "/dev/null"],
                                         capture_output=True, text=True)
                    ok = iga.returncode == 0 and "warning" not in (iga.stderr + iga.stdout).lower()
                    per8 = "?" if total is None else f"{total / (simd / 8):.1f}"
                    cells.append(f"{total} / {per8} / {grfs(asm)} / {best * 1e3:.1f}"
                                 + ("" if ok else " (iga FAILS)"))
            print(f"| {name} | {fn} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
