#!/usr/bin/env python3
"""Wide multiplies beside llc (issue 16's hidden point): every function of
an IR file on gfx900, gfx90a and gfx1030, counted by gen_table.py's rule
(every instruction line but `s_waitcnt*`, `s_setpc_b64` and `s_nop`), for
`regdesc-cc compile` and for llc 14 and 19, SelectionDAG and GlobalISel
(`-O2`, amdhsa). Where a GlobalISel run fails on the file, each function
is compiled alone; a configuration that fails on a function has no count.

usage: python3 bench/wide_mul_vs_llc.py FILE.ll... [--per-function]
(build first: cargo build --release -p regdesc-cc; REGDESC_CC overrides)
llc's counts are cached per (llc, CPU, selector, file contents) in
target/wide-mul-vs-llc-cache, so a second run compiles only regdesc's side.
Prints, per file and CPU: functions, regdesc's and the best llc's summed
instructions, and how many functions are longer / shorter than the best.
"""
import hashlib
import json
import os
import resource
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CC = os.environ.get("REGDESC_CC", os.path.join(ROOT, "target", "release", "regdesc-cc"))
CPUS = ["gfx900", "gfx90a", "gfx1030"]
LLC = {14: "/usr/lib/llvm-14/bin/llc", 19: "/usr/lib/llvm-19/bin/llc"}
CACHE = os.path.join(ROOT, "target", "wide-mul-vs-llc-cache")


def counts(asm):
    """Instructions per function label."""
    out, cur = {}, None
    for line in asm.splitlines():
        m = re.match(r"^([A-Za-z_][\w.]*):", line)
        if m and not m.group(1).startswith(".L"):
            cur = m.group(1)
            out.setdefault(cur, 0)
            continue
        s = line.split(";")[0]
        if not s[:1].isspace() or s.strip().startswith("."):
            continue
        w = s.split()
        if not w or not w[0][0].islower():
            continue
        if w[0].startswith("s_waitcnt") or w[0] in ("s_setpc_b64", "s_nop"):
            continue
        if cur:
            out[cur] += 1
    return out


def llc(version, cpu, path, gisel):
    """llc's counts per function, from the cache when this llc, CPU and
    selector have seen these file contents."""
    key = hashlib.sha256(
        f"{LLC[version]} {cpu} {gisel}\n".encode() + open(path, "rb").read()
    ).hexdigest()
    cached = os.path.join(CACHE, key + ".json")
    if os.path.exists(cached):
        with open(cached) as f:
            return json.load(f)
    res = llc_uncached(version, cpu, path, gisel)
    os.makedirs(CACHE, exist_ok=True)
    with open(cached, "w") as f:
        json.dump(res, f)
    return res


def llc_uncached(version, cpu, path, gisel):
    def run(p):
        args = [LLC[version], "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-O2", p, "-o", "-"]
        if version == 14:
            args.append("-opaque-pointers")
        if gisel:
            args.append("-global-isel")
        # llc 14's GlobalISel runs away on some odd widths (an i40 multiply
        # took 14 GB and minutes): such a run (past 60 s or 4 GB) gives no
        # count.
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

        try:
            return subprocess.run(
                args, capture_output=True, text=True, timeout=60, preexec_fn=limit
            )
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(args, 1, "", "timed out")

    r = run(path)
    if r.returncode == 0:
        return counts(r.stdout)
    text = open(path).read()
    decls = "\n".join(l for l in text.splitlines() if l.startswith("declare"))
    res = {}
    for fn in re.findall(r"^define .*?^}", text, re.S | re.M):
        with tempfile.NamedTemporaryFile("w", suffix=".ll", delete=False) as t:
            t.write(fn + "\n" + decls + "\n")
        r = run(t.name)
        os.unlink(t.name)
        if r.returncode == 0:
            res.update(counts(r.stdout))
    return res


def main():
    files = [a for a in sys.argv[1:] if not a.startswith("--")]
    per_function = "--per-function" in sys.argv
    print("| file | CPU | functions | regdesc | best llc | longer | shorter |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for path in files:
        for cpu in CPUS:
            ours = counts(subprocess.run([CC, "compile", "--target", cpu, path],
                                         capture_output=True, text=True, check=True).stdout)
            theirs = [llc(v, cpu, path, g) for v in LLC for g in (False, True)]
            mine = best = longer = shorter = 0
            for fn, n in ours.items():
                b = min((t[fn] for t in theirs if t.get(fn)), default=None)
                if b is None:
                    continue
                mine, best = mine + n, best + b
                longer += n > b
                shorter += n < b
                if per_function and n > b:
                    print(f"  longer: {cpu} {fn}: regdesc {n}, best llc {b}")
            name = os.path.basename(path)
            print(f"| {name} | {cpu} | {len(ours)} | {mine} | {best} | {longer} | {shorter} |")


if __name__ == "__main__":
    main()
