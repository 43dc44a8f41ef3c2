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
use crate::mir::{InstrSet, LimbOp, MFunction, MInst, Operand, Sem, VReg};

/// Per virtual register, the number of its low bits (0 to 32) some use
/// reads. A backward pass to a fixed point (PHIs in loops).
pub fn demanded_bits(f: &MFunction, instrs: &InstrSet) -> Vec<u32> {
    let mut demand = vec![0u32; f.vregs.len()];
    loop {
        let mut changed = false;
        for b in f.blocks.iter() {
            for i in b.insts.iter().rev() {
                changed |= visit(i, instrs, &mut demand);
            }
        }
        if !changed {
            return demand;
        }
    }
}

/// Raises the demand of `i`'s operands from the demand of its defs.
/// Returns whether any changed.
fn visit(i: &MInst, instrs: &InstrSet, demand: &mut [u32]) -> bool {
    let Some(d) = instrs.get(i.opcode) else {
        return raise_all(i, 32, demand);
    };
    let def = |k: usize| {
        i.ops
            .get(k)
            .and_then(Operand::vreg)
            .map_or(32, |v| demand.get(v.index()).copied().unwrap_or(32))
    };
    let imm = |k: usize| match i.ops.get(k) {
        Some(Operand::Imm(x)) => u32::try_from(*x).ok(),
        _ => None,
    };
    match d.sem {
        // The low bits of the result from the low bits of the operands.
        Sem::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor) => {
            let n = def(0);
            raise(i, 1, n, demand) | raise(i, 2, n, demand)
        }
        // `a << s`: the low bits of `a`; every bit of the amount.
        Sem::Binary(BinOp::Shl) => {
            let n = def(0);
            raise(i, 1, n, demand) | raise(i, 2, 32, demand)
        }
        Sem::Copy if i.ops.first().and_then(Operand::vreg).is_some() => {
            let n = def(0);
            raise(i, 1, n, demand)
        }
        // A sum whose carry out nothing reads is a plain sum (the carry
        // in is one bit at the bottom).
        Sem::Limb(LimbOp::UAddO | LimbOp::UAddE | LimbOp::USubO | LimbOp::USubE) if def(1) == 0 => {
            let n = def(0);
            raise(i, 2, n, demand) | raise(i, 3, n, demand) | raise(i, 4, 32, demand)
        }
        // Bits at and above `w` are zeros or copies of bit `w - 1`.
        Sem::Limb(LimbOp::ZextInReg | LimbOp::SextInReg) => {
            let n = def(0).min(imm(2).unwrap_or(32));
            raise(i, 1, n, demand)
        }
        Sem::Limb(LimbOp::Store) => {
            let n = imm(3).map_or(32, |b| (8 * b).min(32));
            raise(i, 0, n, demand) | raise(i, 1, 32, demand) | raise(i, 2, 32, demand)
        }
        // Everything else (carries, high halves, compares, right shifts,
        // memory addresses, returns) reads all of its operands.
        _ => raise_all(i, 32, demand),
    }
}

/// Raises operand `k`'s register to at least `n` demanded bits.
fn raise(i: &MInst, k: usize, n: u32, demand: &mut [u32]) -> bool {
    let Some(Operand::Reg(r)) = i.ops.get(k) else {
        return false;
    };
    if r.is_def {
        return false;
    }
    let Some(v) = r.vreg() else { return false };
    match demand.get_mut(v.index()) {
        Some(x) if *x < n => {
            *x = n;
            true
        }
        _ => false,
    }
}

fn raise_all(i: &MInst, n: u32, demand: &mut [u32]) -> bool {
    let mut changed = false;
    for k in 0..i.ops.len() {
        changed |= raise(i, k, n, demand);
    }
    changed
}

/// Removes the zero and sign extensions in register whose result no use
/// reads at or above their width: their uses read the source instead.
/// Returns how many went.
pub fn remove_undemanded_extensions(f: &mut MFunction, instrs: &InstrSet) -> usize {
    let demand = demanded_bits(f, instrs);
    // def -> source of each removable extension.
    let mut source: Vec<Option<VReg>> = vec![None; f.vregs.len()];
    let mut removed = 0;
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
                if i64::from(demand[d.index()]) <= *w && f.class_of(d) == f.class_of(s) {
                    source[d.index()] = Some(s);
                    removed += 1;
                }
            }
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
            !matches!(i.ops.first(), Some(Operand::Reg(r)) if r.is_def
                && r.vreg().is_some_and(|d| source[d.index()].is_some()))
        });
        for i in b.insts.iter_mut() {
            for o in i.ops.iter_mut() {
                if let Operand::Reg(r) = o {
                    if let (false, Some(v)) = (r.is_def, r.vreg()) {
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
