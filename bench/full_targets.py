#!/usr/bin/env python3
"""`regdesc records` against `llvm-tblgen --print-records` on LLVM 14's
full target descriptions (issue 19): AMDGPU, X86, AArch64, ARM and RISCV
from the LLVM 14 corpus. Called by bench/records.sh; can run alone:

    python3 bench/full_targets.py REGDESC LLVM_TBLGEN LLVM_INCLUDE CORPUS [RUNS]

The first row is LLVM's own `llvm/Target/Target.td` (under LLVM_INCLUDE),
measured the same way. `REGDESC_TARGETS="Mips PowerPC ..."` times other
targets of the corpus instead of the five.

Each run of a tool is one process under getrusage (RUSAGE_CHILDREN, read
around it: wall, user, sys and the peak resident set as the kernel counts
it). The two tools alternate run by run on each target, the outputs are
compared byte for byte first, and each figure is the median of the runs.
Output goes to /dev/null (both tools write it all).
"""
import os
import resource
import statistics
import subprocess
import sys
import time

TARGETS = os.environ.get("REGDESC_TARGETS", "AMDGPU X86 AArch64 ARM RISCV").split()


def measure(cmd, cwd):
    """(wall s, user s, sys s, peak MiB) of one run of `cmd`, in its own
    child so that the peak is this run's alone."""
    # A fresh Python child per run: RUSAGE_CHILDREN's ru_maxrss is the
    # largest of all children waited for, so it is read in a child of its
    # own that runs only `cmd`.
    probe = (
        "import resource,subprocess,sys,time\n"
        "t=time.perf_counter()\n"
        "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)\n"
        "w=time.perf_counter()-t\n"
        "u=resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(r.returncode,w,u.ru_utime,u.ru_stime,u.ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], cwd=cwd, capture_output=True, text=True)
    rc, wall, user, sys_, rss = out.stdout.split()
    if rc != "0":
        raise SystemExit(f"{' '.join(cmd)} failed (exit {rc}) in {cwd}")
    return float(wall), float(user), float(sys_), int(rss) / 1024.0


def same_output(a, b, cwd):
    pa = subprocess.run(a, cwd=cwd, capture_output=True)
    pb = subprocess.run(b, cwd=cwd, capture_output=True)
    return pa.returncode == 0 and pb.returncode == 0 and pa.stdout == pb.stdout, len(pa.stdout)


def main():
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    regdesc, tblgen, include, corpus = sys.argv[1:5]
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    print(f"\nfull targets: median of {runs} interleaved runs each; "
          f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}, {os.cpu_count()} cores\n")
    print("| target | output | llvm-tblgen wall / user / sys / peak | regdesc wall / user / sys / peak "
          "| ratio wall | ratio CPU (user + sys) | ratio peak |")
    print("| --- | ---: | --- | --- | ---: | ---: | ---: |")
    rows = [("Target.td", include, ["-I", include, "llvm/Target/Target.td"])]
    for t in TARGETS:
        rows.append((t, os.path.join(corpus, "llvm", "lib", "Target", t), ["-I", include, "-I", ".", f"{t}.td"]))
    for t, cwd, args in rows:
        theirs = [tblgen, "--print-records", *args]
        ours = [regdesc, "records", *args]
        same, size = same_output(theirs, ours, cwd)
        if not same:
            print(f"| {t} | outputs differ (or a tool failed): not timed | | | | | |")
            continue
        a, b = [], []
        for _ in range(runs):
            a.append(measure(theirs, cwd))
            b.append(measure(ours, cwd))
        ma = [statistics.median(x[k] for x in a) for k in range(4)]
        mb = [statistics.median(x[k] for x in b) for k in range(4)]
        cell = lambda m: f"{m[0]:.2f} s / {m[1]:.2f} s / {m[2]:.2f} s / {m[3]:.0f} MiB"
        print(f"| {t} | {size / 1e6:.1f} MB | {cell(ma)} | {cell(mb)} | {mb[0] / ma[0]:.2f}x "
              f"| {(mb[1] + mb[2]) / (ma[1] + ma[2]):.2f}x | {mb[3] / ma[3]:.2f}x |")


if __name__ == "__main__":
    main()
