//! Copies after allocation that the copied value's own definition can
//! absorb (LLVM's `MachineCopyPropagation`, backward direction): in
//!
//! ```text
//! v7 = v_cndmask_b32 0, 1, s[4:5]
//! v3 = COPY v7          ; v7 not read again
//! ```
//!
//! the `v_cndmask_b32` writes `v3` and the copy goes.
//!
//! The hardware fact served: a GCN instruction writes its result to any
//! register of its class, so a move right after it is a wasted VALU (or
//! SALU) slot. They arise where the allocator cannot place a value where
//! its single use wants it: a constant or a carry counter built for one
//! half of a `v_mad_u64_u32` accumulator pair, an argument of a tuple
//! (`REG_SEQUENCE`) whose other half is taken.
//!
//! The rewrite needs, for `d = COPY s` after `s`'s definition `I` in the
//! same block: `I` defines exactly `s` (one 32-bit register, nothing
//! overlapping it) and nothing else explicitly, and does not read `s`;
//! nothing between `I` and
//! the copy reads or writes `s` or anything overlapping `d`; and `s` is
//! dead after the copy (the next access to it in the block writes it
//! without reading it, or the block returns without reading it).

use regdesc_codegen::mir::{MFunction, MInst, Operand, RegOperand, RegRef, Sem};
use regdesc_runtime::{Reg, RegisterInfo};

use crate::isa::Isa;
use crate::Gfx;

fn overlap(ri: &Gfx, a: Reg, b: Reg) -> bool {
    let t = ri.tables();
    a == b || t.units(a).any(|u| t.units(b).any(|v| u == v))
}

/// (reads, writes) of `r` (or a register overlapping it) by `i`.
fn access(ri: &Gfx, i: &MInst, r: Reg) -> (bool, bool) {
    let (mut rd, mut wr) = (false, false);
    for o in &i.ops {
        let Some(op) = o.reg() else { continue };
        let RegRef::Phys(p) = op.reg else {
            // Not allocated: be conservative.
            return (true, true);
        };
        if overlap(ri, p, r) {
            if op.is_def() {
                wr = true;
            } else {
                rd = true;
            }
        }
    }
    (rd, wr)
}

fn copy_regs(isa: &Isa, i: &MInst) -> Option<(Reg, Reg)> {
    if isa.instrs.desc(i.opcode).sem != Sem::Copy {
        return None;
    }
    let d = i.ops.first()?.reg().filter(|r| r.sub.is_none())?.phys()?;
    let s = i.ops.get(1)?.reg().filter(|r| r.sub.is_none())?.phys()?;
    Some((d, s))
}

/// Whether `s` is dead after instruction `at` of `insts` (a block that
/// ends in a return when `returns`).
fn dead_after(ri: &Gfx, insts: &[MInst], at: usize, s: Reg, returns: bool) -> bool {
    for i in &insts[at + 1..] {
        let (rd, wr) = access(ri, i, s);
        if rd {
            return false;
        }
        if wr {
            return true;
        }
    }
    returns
}

/// Runs the rewrite on `f` (allocated, copies not yet lowered).
pub fn forward_copies(f: &mut MFunction, isa: &Isa, ri: &Gfx) {
    let t = ri.tables();
    for b in f.blocks.iter_mut() {
        let returns = b
            .insts
            .last()
            .is_some_and(|i| isa.instrs.desc(i.opcode).sem == Sem::Return);
        let mut c = 0;
        while c < b.insts.len() {
            let Some((d, s)) = copy_regs(isa, &b.insts[c]) else {
                c += 1;
                continue;
            };
            // The same register file, one dword each.
            let same_file = ["VGPR_32", "SGPR_32"].iter().any(|n| {
                t.class_by_name(n)
                    .is_some_and(|rc| t.contains(rc, d) && t.contains(rc, s))
            });
            let def_at = (0..c).rev().find(|&k| access(ri, &b.insts[k], s).1);
            let ok = same_file
                && d != s
                && def_at.is_some_and(|k| {
                    let i = &b.insts[k];
                    let desc = isa.instrs.desc(i.opcode);
                    let only_def = desc.num_defs == 1
                        && i.ops
                            .first()
                            .and_then(Operand::reg)
                            .and_then(RegOperand::phys)
                            == Some(s)
                        && i.ops.iter().skip(1).all(|o| {
                            o.reg().is_none_or(|r| {
                                !r.is_def() || r.phys().is_none_or(|p| !overlap(ri, p, s))
                            })
                        });
                    // A definition that also reads `s` (an SDWA
                    // `UNUSED_PRESERVE` keeps the bits of its destination's
                    // old value, a tied use) cannot be moved to `d`.
                    let reads_s = i
                        .ops
                        .iter()
                        .skip(1)
                        .filter_map(Operand::reg)
                        .any(|r| !r.is_def() && r.phys().is_some_and(|p| overlap(ri, p, s)));
                    only_def
                        && !reads_s
                        && !matches!(desc.sem, Sem::Copy | Sem::Phi)
                        && b.insts[k + 1..c].iter().all(|m| {
                            access(ri, m, s) == (false, false) && access(ri, m, d) == (false, false)
                        })
                        && !b.insts[k]
                            .ops
                            .iter()
                            .skip(1)
                            .filter_map(Operand::reg)
                            .any(|r| r.is_def() && r.phys().is_some_and(|p| overlap(ri, p, d)))
                })
                && dead_after(ri, &b.insts, c, s, returns);
            match (ok, def_at) {
                (true, Some(k)) => {
                    if let Some(Operand::Reg(r)) = b.insts[k].ops.first_mut() {
                        r.reg = RegRef::Phys(d);
                    }
                    b.insts.remove(c);
                }
                _ => c += 1,
            }
        }
    }
}
