//! Demanded bits of legalized code: how many low bits of each 32-bit
//! value any use reads, and the extensions in register that no use needs.
//!
//! The hardware fact served: the low `k` bits of a sum, difference,
//! product or bitwise result depend on the operands' low `k` bits alone,
//! and a narrow store writes only its low bytes. An odd-width value (`i48`)
//! is kept zero-extended in its top limb (`G_ZEXT_INREG`), but where that
//! limb only feeds such operations and a 2-byte store, the clearing is
//! dead work: LLVM's `SimplifyDemandedBits` removes it too.

use crate::ir::BinOp;
use crate::mir::{InstrSet, LimbOp, MBlockId, MFunction, MInst, Operand, RegRef, Sem, VReg};
use regdesc_runtime::Reg;

/// Per virtual register, the number of its low bits (0 to 32) some use
/// reads.
///
/// One backward walk over the function (blocks last to first), then a
/// worklist: a register whose demand rises after its definition was
/// walked has that definition visited again, which raises its operands in
/// turn. Demands only rise and stop at 32, so this ends, and costs one
/// visit per instruction plus one per rise (a fixed point of whole-function
/// passes took up to six passes where values cross many blocks, and PHIs
/// in loops).
pub fn demanded_bits(f: &MFunction, instrs: &InstrSet) -> Vec<u32> {
    let n = f.vregs.len();
    let mut d = Demands {
        demand: vec![0u32; n],
        first_def: vec![NONE; n],
        sites: Vec::new(),
        raised: Vec::new(),
    };
    let blocks: Vec<MBlockId> = f.blocks.ids().collect();
    for &b in blocks.iter().rev() {
        let mut returned = returned_regs(f, b, instrs);
        for (k, i) in f.blocks[b].insts.iter().enumerate().rev() {
            let site = d.sites.len() as u32;
            d.sites.push(Site {
                block: b,
                inst: k as u32,
                next: NONE,
            });
            // Registers defined here: chain this site to their defs, so a
            // later rise of their demand finds it.
            for o in i.ops.iter() {
                if let Operand::Reg(r) = o {
                    if let (true, Some(v)) = (r.is_def(), r.vreg()) {
                        if let Some(first) = d.first_def.get_mut(v.index()) {
                            // `next` of the new site: the register's
                            // previous chain (rare: SSA has one def).
                            let prev = std::mem::replace(first, site);
                            if prev != NONE {
                                d.sites[site as usize].next = prev;
                            }
                        }
                    }
                }
            }
            step(i, instrs, &mut d, &mut returned);
            // A register not yet defined in the walk (`NONE`) needs
            // nothing: its definition is walked later.
            while let Some(v) = d.raised.pop() {
                let mut s = d.first_def.get(v.index()).copied().unwrap_or(NONE);
                while s != NONE {
                    let Site { block, inst, next } = d.sites[s as usize];
                    visit(&f.blocks[block].insts[inst as usize], instrs, &mut d);
                    s = next;
                }
            }
        }
    }
    d.demand
}

/// The same demands by whole-function passes to a fixed point: the plain
/// form of [`demanded_bits`], which the tests hold it to (the two differ
/// only in the order they visit instructions).
pub fn demanded_bits_by_passes(f: &MFunction, instrs: &InstrSet) -> Vec<u32> {
    let mut d = Demands {
        demand: vec![0u32; f.vregs.len()],
        first_def: Vec::new(),
        sites: Vec::new(),
        raised: Vec::new(),
    };
    loop {
        for b in f.blocks.ids() {
            let mut returned = returned_regs(f, b, instrs);
            for i in f.blocks[b].insts.iter().rev() {
                step(i, instrs, &mut d, &mut returned);
            }
        }
        if d.raised.is_empty() {
            return d.demand;
        }
        d.raised.clear();
    }
}

const NONE: u32 = u32::MAX;

/// A walked instruction, chained to the other definitions of the same
/// register.
#[derive(Clone, Copy)]
struct Site {
    block: MBlockId,
    inst: u32,
    next: u32,
}

struct Demands {
    demand: Vec<u32>,
    /// Per register, its most recently walked definition (`NONE`: not yet
    /// walked).
    first_def: Vec<u32>,
    sites: Vec<Site>,
    /// Registers whose demand rose and whose definitions are to be visited
    /// again.
    raised: Vec<VReg>,
}

/// The registers block `b`'s return reads, each with the low bits the
/// caller reads ([`MFunction::ret_bits`]); empty where `b` does not
/// return or every bit is read.
fn returned_regs(f: &MFunction, b: MBlockId, instrs: &InstrSet) -> Vec<(Reg, u32)> {
    let Some(ret) = f.blocks[b].insts.last() else {
        return Vec::new();
    };
    if f.ret_bits.iter().all(|&n| n >= 32)
        || !instrs.get(ret.opcode).is_some_and(|d| d.sem == Sem::Return)
    {
        return Vec::new();
    }
    let regs = ret.ops.iter().filter_map(|o| match o.reg().map(|r| r.reg) {
        Some(RegRef::Phys(p)) => Some(p),
        _ => None,
    });
    regs.zip(f.ret_bits.iter().copied()).collect()
}

/// [`visit`], walking a block backwards, where the last definition of a
/// register the return reads before it (in `returned`, which loses it
/// here) is a copy: that copy's source is demanded only the bits the
/// caller reads.
fn step(i: &MInst, instrs: &InstrSet, d: &mut Demands, returned: &mut Vec<(Reg, u32)>) {
    if !returned.is_empty() {
        let mut cap = None;
        for o in i.ops.iter() {
            if let Some(RegRef::Phys(p)) = o.reg().filter(|r| r.is_def()).map(|r| r.reg) {
                if let Some(k) = returned.iter().position(|&(r, _)| r == p) {
                    cap = Some(returned.swap_remove(k).1);
                }
            }
        }
        let copy = instrs.get(i.opcode).is_some_and(|x| x.sem == Sem::Copy);
        if let (Some(n), true, 2) = (cap, copy, i.ops.len()) {
            return raise(i, 1, n, d);
        }
    }
    visit(i, instrs, d);
}

/// Raises the demand of `i`'s operands from the demand of its defs.
fn visit(i: &MInst, instrs: &InstrSet, d: &mut Demands) {
    let Some(desc) = instrs.get(i.opcode) else {
        return raise_all(i, 32, d);
    };
    let def = |k: usize, d: &Demands| {
        i.ops
            .get(k)
            .and_then(Operand::vreg)
            .map_or(32, |v| d.demand.get(v.index()).copied().unwrap_or(32))
    };
    let imm = |k: usize| match i.ops.get(k) {
        Some(Operand::Imm(x)) => u32::try_from(*x).ok(),
        _ => None,
    };
    match desc.sem {
        // The low bits of the result from the low bits of the operands.
        Sem::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor) => {
            let n = def(0, d);
            raise(i, 1, n, d);
            raise(i, 2, n, d);
        }
        // `a << s`: the low bits of `a`; every bit of the amount.
        Sem::Binary(BinOp::Shl) => {
            let n = def(0, d);
            raise(i, 1, n, d);
            raise(i, 2, 32, d);
        }
        Sem::Copy if i.ops.first().and_then(Operand::vreg).is_some() => {
            let n = def(0, d);
            raise(i, 1, n, d);
        }
        // A sum whose carry out nothing reads is a plain sum (the carry
        // in is one bit at the bottom). A carry read later raises the
        // carry's demand, and this is visited again.
        Sem::Limb(LimbOp::UAddO | LimbOp::UAddE | LimbOp::USubO | LimbOp::USubE)
            if def(1, d) == 0 =>
        {
            let n = def(0, d);
            raise(i, 2, n, d);
            raise(i, 3, n, d);
            raise(i, 4, 32, d);
        }
        // `a * b + (chi:clo)` modulo 2^64: a low half read alone needs the
        // same low bits of the factors and of `clo`; a read high half
        // needs every bit of them (the carries into it) and its own low
        // bits of `chi`.
        // A target's multiply-add reads the same way; a read carry out
        // needs every bit.
        Sem::Limb(LimbOp::Mad64) => mad64(i, 2, (def(0, d), def(1, d)), d),
        _ if desc.multiply_add && desc.num_defs >= 2 => {
            let carry = (desc.num_defs > 2).then(|| def(2, d));
            let (lo, hi) = match carry {
                Some(c) if c > 0 => (32, 32),
                _ => (def(0, d), def(1, d)),
            };
            mad64(i, desc.num_defs, (lo, hi), d)
        }
        // Bits at and above `w` are zeros or copies of bit `w - 1`.
        Sem::Limb(LimbOp::ZextInReg | LimbOp::SextInReg) => {
            let n = def(0, d).min(imm(2).unwrap_or(32));
            raise(i, 1, n, d);
        }
        Sem::Limb(LimbOp::Store) => {
            let n = imm(3).map_or(32, |b| (8 * b).min(32));
            raise(i, 0, n, d);
            raise(i, 1, 32, d);
            raise(i, 2, 32, d);
        }
        // Everything else (carries, high halves, compares, right shifts,
        // memory addresses, returns) reads all of its operands.
        _ => raise_all(i, 32, d),
    }
}

/// The uses `a, b, clo, chi` from `first` on of a 64-bit multiply-add whose
/// results' demands are `(lo, hi)`.
fn mad64(i: &MInst, first: usize, (lo, hi): (u32, u32), d: &mut Demands) {
    let n = if hi == 0 { lo } else { 32 };
    raise(i, first, n, d);
    raise(i, first + 1, n, d);
    raise(i, first + 2, n, d);
    raise(i, first + 3, hi, d);
}

/// Raises operand `k`'s register to at least `n` demanded bits.
fn raise(i: &MInst, k: usize, n: u32, d: &mut Demands) {
    let Some(Operand::Reg(r)) = i.ops.get(k) else {
        return;
    };
    if r.is_def() {
        return;
    }
    let Some(v) = r.vreg() else { return };
    if let Some(x) = d.demand.get_mut(v.index()) {
        if *x < n {
            *x = n;
            d.raised.push(v);
        }
    }
}

fn raise_all(i: &MInst, n: u32, d: &mut Demands) {
    for k in 0..i.ops.len() {
        raise(i, k, n, d);
    }
}

/// Removes the zero and sign extensions in register whose result no use
/// reads at or above their width: their uses read the source instead.
/// Returns how many went.
pub fn remove_undemanded_extensions(f: &mut MFunction, instrs: &InstrSet) -> usize {
    // Each extension's (def, source, width); most functions have none,
    // and then the analysis is not run.
    let mut exts: Vec<(VReg, VReg, i64)> = Vec::new();
    for b in f.blocks.iter() {
        for i in &b.insts {
            let ext = instrs
                .get(i.opcode)
                .is_some_and(|d| matches!(d.sem, Sem::Limb(LimbOp::ZextInReg | LimbOp::SextInReg)));
            if !ext {
                continue;
            }
            if let (Some(d), Some(s), Some(Operand::Imm(w))) = (
                i.ops.first().and_then(Operand::vreg),
                i.ops.get(1).and_then(Operand::vreg),
                i.ops.get(2),
            ) {
                if f.class_of(d) == f.class_of(s) {
                    exts.push((d, s, *w));
                }
            }
        }
    }
    if exts.is_empty() {
        return 0;
    }
    let demand = demanded_bits(f, instrs);
    // def -> source of each removable extension.
    let mut source: Vec<Option<VReg>> = vec![None; f.vregs.len()];
    let mut removed = 0;
    for (d, s, w) in exts {
        if i64::from(demand[d.index()]) <= w {
            source[d.index()] = Some(s);
            removed += 1;
        }
    }
    if removed == 0 {
        return 0;
    }
    // Chains of extensions resolve to the first source.
    let resolve = |mut v: VReg| {
        while let Some(s) = source[v.index()] {
            v = s;
        }
        v
    };
    for b in f.blocks.iter_mut() {
        b.insts.retain(|i| {
            !matches!(i.ops.first(), Some(Operand::Reg(r)) if r.is_def()
                && r.vreg().is_some_and(|d| source[d.index()].is_some()))
        });
        for i in b.insts.iter_mut() {
            for o in i.ops.iter_mut() {
                if let Operand::Reg(r) = o {
                    if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                        let s = resolve(v);
                        if s != v {
                            r.reg = crate::mir::RegRef::Virt(s);
                        }
                    }
                }
            }
        }
    }
    removed
}
