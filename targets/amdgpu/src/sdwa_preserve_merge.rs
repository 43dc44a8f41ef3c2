//! SDWA preserve merge (seed 001's pass after PHI elimination): an
//! `UNUSED_PRESERVE` instruction writes only its `dst_sel` field and keeps
//! the rest of its destination register, so the preserved value and the
//! result must be one register. SSA code cannot say that; the peephole
//! ([`crate::sdwa_peephole`]) gave the instruction a fresh def and the
//! preserved value as an implicit use tied to it.
//!
//! Here, at the first point where a register may be defined twice: when
//! the instruction is the preserved value's only reader (its sources are
//! read before it writes), the instruction
//! writes the preserved value's own register and the old def becomes a
//! copy of it, `%y = OP ..., implicit %y; %d = COPY %y`, which the
//! allocator's coalescing removes where `%y` and `%d` can share a
//! register. When the preserved value is read elsewhere too, two-address
//! lowering copies it into the def first (`%d = COPY %y; %d = OP ...,
//! implicit %d`): the other readers keep their value.

use std::collections::HashMap;

use regdesc_codegen::mir::{MFunction, MInst, Operand, RegOperand, RegRef, VReg};

use crate::isa::{Isa, Kind};
use crate::sdwa::{self, Unused};

/// Merges the preserve instructions of `f` (after PHI elimination).
/// Returns how many now write their preserved register.
pub fn merge(f: &mut MFunction, isa: &Isa) -> usize {
    let mut uses: HashMap<VReg, usize> = HashMap::new();
    for b in &f.blocks {
        for i in &b.insts {
            for (_, r) in i.reg_ops() {
                if let (true, Some(v)) = (r.reads(), r.vreg()) {
                    *uses.entry(v).or_default() += 1;
                }
            }
        }
    }
    // Reads by the instruction itself come before its write.
    let own_reads = |i: &MInst, y: VReg| {
        i.reg_ops()
            .filter(|(_, r)| r.reads() && r.vreg() == Some(y))
            .count()
    };
    let mut merged = 0;
    for b in f.blocks.ids().collect::<Vec<_>>() {
        let mut k = 0;
        while k < f.blocks[b].insts.len() {
            let i = &f.blocks[b].insts[k];
            let target = match isa.kind(i.opcode) {
                Some(Kind::Sdwa(op)) => sdwa::fields(op, i)
                    .filter(|fl| fl.unused == Unused::Preserve)
                    .and_then(|fl| fl.preserved),
                _ => None,
            };
            let (Some(p), Some(d)) = (target, i.ops.first().and_then(Operand::vreg)) else {
                k += 1;
                continue;
            };
            let Some(y) = i.ops.get(p).and_then(Operand::vreg) else {
                k += 1;
                continue;
            };
            let sole =
                uses.get(&y).copied() == Some(own_reads(i, y)) && f.class_of(y) == f.class_of(d);
            if y == d || !sole {
                k += 1;
                continue;
            }
            let i = &mut f.blocks[b].insts[k];
            if let Some(r) = i.ops[0].reg_mut() {
                r.reg = RegRef::Virt(y);
            }
            let copy = MInst::new(
                isa.instrs.copy,
                vec![
                    Operand::Reg(RegOperand::def_of(RegRef::Virt(d), None)),
                    Operand::Reg(RegOperand::use_of(RegRef::Virt(y), None)),
                ],
            );
            f.blocks[b].insts.insert(k + 1, copy);
            merged += 1;
            k += 2;
        }
    }
    merged
}
