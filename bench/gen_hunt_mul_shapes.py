#!/usr/bin/env python3
"""Prints random wide multiplies for hunting (issue 16's hidden point):
shapes past the fixtures' generators, drawn afresh for each seed.

- widths from 33 to 256 bits, odd ones and ones just off a limb boundary
  among them;
- factors that are arguments (some `inreg`), zero- or sign-extended
  narrower arguments of any width, or constants (small, negative, powers
  of two and their neighbours, full-width random);
- a product alone, plus or minus an addend, plus a second product, or
  the high half of a double-width product (umulh / smulh);
- a quarter are kernels with loaded or uniform factors.

usage: python3 bench/gen_hunt_mul_shapes.py SEED [COUNT] > /tmp/hunt.ll
       python3 bench/wide_mul_vs_llc.py /tmp/hunt.ll --per-function
A shape found longer than the best llc goes into
targets/amdgpu/tests/fixtures/wide_mul_found.ll with the fix (or into
tests/wide_mul.rs's LONGER with the reason).
"""
import random
import sys


def width(rng):
    return rng.choice(
        [
            rng.randint(33, 256),
            rng.choice([64, 96, 128, 160, 192, 224, 256]),
            rng.choice([63, 65, 95, 97, 127, 129, 191, 193, 255]),
            rng.randint(33, 72),
        ]
    )


def const(rng, n):
    k = rng.choice(["small", "neg", "pow2", "pow2pm", "wide", "limb"])
    if k == "small":
        v = rng.randint(2, 1000)
    elif k == "neg":
        v = -rng.randint(1, 1 << rng.randint(2, 40))
    elif k == "pow2":
        v = 1 << rng.randint(1, n - 2)
    elif k == "pow2pm":
        v = (1 << rng.randint(2, n - 2)) + rng.choice([-1, 1])
    elif k == "limb":
        v = rng.choice([0xFFFFFFFF, 1 << 32, (1 << 32) + 1, 0xFFFFFFFF00000000])
    else:
        v = rng.getrandbits(n)
    v &= (1 << n) - 1
    if v >> (n - 1):
        v -= 1 << n
    return str(v)


class Fn:
    def __init__(self, rng, n):
        self.rng, self.n = rng, n
        self.params, self.body, self.k = [], [], 0
        self.inreg = rng.random() < 0.2

    def tmp(self):
        self.k += 1
        return f"%t{self.k}"

    def arg(self, ty):
        name = f"%a{len(self.params)}"
        self.params.append(f"{ty}{' inreg' if self.inreg else ''} {name}")
        return name

    def factor(self, allow_const=True):
        rng, n = self.rng, self.n
        kind = rng.choice(["arg", "arg", "zext", "sext"] + (["const"] if allow_const else []))
        if kind == "arg":
            return self.arg(f"i{n}"), kind
        if kind == "const":
            return const(rng, n), kind
        w = rng.choice([rng.randint(1, n - 1), rng.choice([w for w in (8, 16, 24, 32, 33, 48, 64, 96, 128) if w < n] or [1])])
        a = self.arg(f"i{w}")
        t = self.tmp()
        self.body.append(f"  {t} = {kind} i{w} {a} to i{n}")
        return t, f"{kind}{w}"


def plain(rng, i):
    n = width(rng)
    f = Fn(rng, n)
    shape = rng.choice(["mul", "mad", "mad", "msub", "dot", "mulh"])
    a, ka = f.factor(allow_const=False)
    b, kb = f.factor(allow_const=shape != "mulh")
    if shape == "mulh":
        signed = rng.random() < 0.4
        ext = "sext" if signed else "zext"
        a2, b2, m, h = f.tmp(), f.tmp(), f.tmp(), f.tmp()
        f.body += [
            f"  {a2} = {ext} i{n} {a} to i{2 * n}",
            f"  {b2} = {ext} i{n} {b} to i{2 * n}",
            f"  {m} = mul i{2 * n} {a2}, {b2}",
            f"  {h} = lshr i{2 * n} {m}, {n}",
        ]
        r = f.tmp()
        f.body.append(f"  {r} = trunc i{2 * n} {h} to i{n}")
    else:
        m = f.tmp()
        f.body.append(f"  {m} = mul i{n} {a}, {b}")
        r = m
        if shape in ("mad", "msub"):
            c, _ = f.factor()
            r = f.tmp()
            f.body.append(f"  {r} = {'add' if shape == 'mad' else 'sub'} i{n} {m}, {c}")
        elif shape == "dot":
            c, _ = f.factor(allow_const=False)
            d, _ = f.factor()
            m2, r = f.tmp(), f.tmp()
            f.body += [f"  {m2} = mul i{n} {c}, {d}", f"  {r} = add i{n} {m}, {m2}"]
    name = f"h{i}_{n}_{shape}_{ka}_{kb}{'_u' if f.inreg else ''}"
    return f"define i{n} @{name}({', '.join(f.params)}) {{\n" + "\n".join(f.body) + f"\n  ret i{n} {r}\n}}\n"


def kernel(rng, i):
    n = rng.choice([64, 96, 128, 160, 192, 256, rng.randint(33, 200)])
    params = ["ptr addrspace(1) %io", "ptr addrspace(1) %in"]
    body = [
        "  %id = call i32 @llvm.amdgcn.workitem.id.x()",
        f"  %p = getelementptr i{n}, ptr addrspace(1) %io, i32 %id",
        f"  %q = getelementptr i{n}, ptr addrspace(1) %in, i32 %id",
    ]
    kinds = []

    def value(name, at):
        kind = rng.choice(["lane", "lane", "uni", "ext", "const"])
        kinds.append(kind)
        if kind == "uni":
            params.append(f"i{n} %{name}")
        elif kind == "const":
            return const(rng, n)
        elif kind == "ext":
            w = rng.randint(8, n - 1)
            e = rng.choice(["zext", "sext"])
            body.append(f"  %{name}p = getelementptr i{w}, ptr addrspace(1) %in, i32 {at}")
            body.append(f"  %{name}w = load i{w}, ptr addrspace(1) %{name}p")
            body.append(f"  %{name} = {e} i{w} %{name}w to i{n}")
        else:
            body.append(f"  %{name}p = getelementptr i{n}, ptr addrspace(1) %q, i32 {at}")
            body.append(f"  %{name} = load i{n}, ptr addrspace(1) %{name}p")
        return f"%{name}"

    a = value("a", 0)
    if a.lstrip("-").isdigit():
        params.append(f"i{n} %a")
        a = "%a"
    b = value("b", 1)
    body.append(f"  %m = mul i{n} {a}, {b}")
    res = "%m"
    if rng.random() < 0.5:
        c = value("c", 2)
        body.append(f"  %r = add i{n} %m, {c}")
        res = "%r"
    body.append(f"  store i{n} {res}, ptr addrspace(1) %p")
    return f"define amdgpu_kernel void @hk{i}_{n}_{'_'.join(kinds)}({', '.join(params)}) {{\n" + "\n".join(body) + "\n  ret void\n}\n"


def main():
    if len(sys.argv) < 2 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    seed = int(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    rng = random.Random(seed)
    out = [kernel(rng, i) if rng.random() < 0.25 else plain(rng, i) for i in range(count)]
    out.append("declare i32 @llvm.amdgcn.workitem.id.x()\n")
    sys.stdout.write(f"; bench/gen_hunt_mul_shapes.py {seed} {count}\n\n" + "\n".join(out))


if __name__ == "__main__":
    main()
