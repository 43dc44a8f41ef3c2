#!/usr/bin/env python3
"""regdesc against IGC (-sl rows of ../shared/bench/intel/table.md), per 8 lanes.

Usage: compare.py OURS_DIR [IGC_TABLE]
Runs count.py (the same rules) on OURS_DIR (KERNEL_DEV.asm files, see
kernels.sh) and prints, per kernel and device, the window and the total
divided by SIMD/8 for both, and whether ours is at most IGC's (strictly
below on add64, bitcast_add and ptroff).
"""
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.normpath(os.path.join(here, '../../../../shared/bench/intel'))
ours_dir = sys.argv[1]
table = sys.argv[2] if len(sys.argv) > 2 else os.path.join(bench, 'table.md')
count = os.path.join(bench, 'count.py')

def rows(text):
    out = {}
    for l in text.splitlines():
        c = [x.strip() for x in l.strip().strip('|').split('|')]
        if len(c) < 6 or not c[2].isdigit():
            continue
        out[(c[0], c[1])] = (int(c[2]), int(c[3]), int(c[4]))
    return out

ours = rows(subprocess.run([sys.executable, count, ours_dir], capture_output=True, text=True, check=True).stdout)
igc = rows(open(table).read())
strict = {'add64', 'bitcast_add', 'ptroff'}
print('| kernel | device | regdesc SIMD | regdesc window / 8 lanes | IGC -sl window / 8 lanes | regdesc total / 8 lanes | IGC -sl total / 8 lanes | window goal |')
print('|---|---|---|---|---|---|---|---|')
for k in ['add64', 'bitcast', 'bitcast_add', 'mul64', 'mulhi64', 'ptroff']:
    for d in ['skl', 'icllp', 'tgllp']:
        o, g = ours.get((k, d)), igc.get((k + '-sl', d))
        if not o or not g:
            continue
        ow, gw = o[2] * 8 / o[1], g[2] * 8 / g[1]
        ot, gt = o[0] * 8 / o[1], g[0] * 8 / g[1]
        ok = ow < gw if k in strict else ow <= gw
        goal = ('met' if ok else 'MISSED') + (' (strictly below)' if k in strict else ' (at most)')
        print(f'| {k} | {d} | {o[1]} | {ow:.2f} | {gw:.2f} | {ot:.2f} | {gt:.2f} | {goal} |')
