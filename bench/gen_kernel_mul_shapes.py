#!/usr/bin/env python3
"""Prints random wide multiply (and multiply-add) kernels, 64 to 256 bits:
factors loaded per lane or passed as kernel arguments (a narrower factor
loaded from the uniform base address and extended), and no addend, a
per-lane one or a uniform one. Deterministic (seed 5). For issue 16's
hidden point in kernels:

    python3 bench/gen_kernel_mul_shapes.py > target/kernel_mul_shapes.ll
    python3 bench/wide_mul_vs_llc.py target/kernel_mul_shapes.ll --per-function
"""
import random
import sys


def kernel(rng, i, n):
    ka = rng.choice(["lane", "lane", "uni"])
    kb = rng.choice(["lane", "uni"])
    kc = rng.choice(["none", "lane", "uni"])
    ext = rng.choice(["", "zext", "sext"])
    sw = rng.choice([w for w in [32, 64, 96, 128] if w < n])
    params = ["ptr addrspace(1) %io", "ptr addrspace(1) %in"]
    body = [
        "  %id = call i32 @llvm.amdgcn.workitem.id.x()",
        f"  %p = getelementptr i{n}, ptr addrspace(1) %io, i32 %id",
        f"  %q = getelementptr i{n}, ptr addrspace(1) %in, i32 %id",
    ]

    def value(name, kind, at):
        if kind == "uni":
            params.append(f"i{n} %{name}")
        else:
            body.append(f"  %{name} = load i{n}, ptr addrspace(1) {at}")
        return f"%{name}"

    a = value("a", ka, "%p")
    if ext and kb == "lane":
        body.append(f"  %bw = load i{sw}, ptr addrspace(1) %in")
        body.append(f"  %b = {ext} i{sw} %bw to i{n}")
        b = "%b"
    else:
        b = value("b", kb, "%q")
    body.append(f"  %m = mul i{n} {a}, {b}")
    res = "%m"
    if kc != "none":
        if kc == "uni":
            params.append(f"i{n} %c")
        else:
            body.append(f"  %cp = getelementptr i{n}, ptr addrspace(1) %q, i32 1")
            body.append(f"  %c = load i{n}, ptr addrspace(1) %cp")
        body.append(f"  %r = add i{n} %m, %c")
        res = "%r"
    body.append(f"  store i{n} {res}, ptr addrspace(1) %p")
    name = f"k{i}_{n}_{ka}_{kb}{ext}{sw if ext else ''}_{kc}"
    return f"define amdgpu_kernel void @{name}({', '.join(params)}) {{\n" + "\n".join(body) + "\n  ret void\n}\n"


def main():
    rng = random.Random(5)
    out = []
    i = 0
    for n in [64, 96, 128, 160, 192, 224, 256]:
        for _ in range(5):
            i += 1
            out.append(kernel(rng, i, n))
    out.append("declare i32 @llvm.amdgcn.workitem.id.x()\n")
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
