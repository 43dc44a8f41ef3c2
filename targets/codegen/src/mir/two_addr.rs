//! Two-address lowering (LLVM's `TwoAddressInstructionPass`): makes tied
//! operands name one register, and turns `REG_SEQUENCE` into sub-register
//! copies.
//!
//! The hardware facts served: a two-address encoding writes its result
//! over one of its sources (AMD's `V_MAC_F32`, `V_ADD_U32` with a tied
//! carry-in, Intel's accumulating `mad`), so the source must be copied into
//! the result's register first: `%d = OP %a(tied-def 0), %b` becomes
//! `%d = COPY %a; %d = OP %d(tied-def 0), %b`. And a register tuple is
//! built part by part: `%t = REG_SEQUENCE %a, %subreg.sub0, %b,
//! %subreg.sub1` becomes `undef %t.sub0 = COPY %a; %t.sub1 = COPY %b`.
//! The copies are the coalescer's to remove.

use crate::diag::Diag;
use crate::mir::classes::sub_reg_class;
use crate::mir::{smallvec, InstrSet, MFunction, MInst, Operand, RegOperand, RegRef, Sem};
use regdesc_runtime::RegisterInfo;

/// Lowers tied operands and `REG_SEQUENCE`s of `f` (which must have no
/// PHIs). Returns the number of copies inserted.
pub fn lower_two_address<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
) -> Result<usize, Diag> {
    let mut copies = 0;
    for bi in f.blocks.ids() {
        // Most blocks have nothing to lower: leave them where they are
        // (rebuilding every block moves the whole function through memory).
        let has_work = f.blocks[bi].insts.iter().any(|inst| {
            instrs.get(inst.opcode).map(|d| d.sem) == Some(Sem::RegSequence)
                || inst
                    .ops
                    .iter()
                    .any(|o| o.reg().is_some_and(|r| r.tied_def().is_some()))
        });
        if !has_work {
            continue;
        }
        let old = std::mem::take(&mut f.blocks[bi].insts);
        let mut out: Vec<MInst> = Vec::with_capacity(old.len());
        for inst in old {
            let sem = instrs.get(inst.opcode).map(|d| d.sem);
            if sem == Some(Sem::RegSequence) {
                copies += reg_sequence(f, instrs, inst, &mut out);
                continue;
            }
            let mut inst = inst;
            copies += tied(f, ri, instrs, &mut inst, &mut out)?;
            out.push(inst);
        }
        f.blocks[bi].insts = out;
    }
    f.props.tied_lowered = true;
    f.props.ssa = false;
    Ok(copies)
}

fn copy(
    instrs: &InstrSet,
    dst: RegOperand,
    src: RegOperand,
    span: &Option<Box<crate::ir::Span>>,
) -> MInst {
    let mut i = MInst::new(instrs.copy, smallvec![Operand::Reg(dst), Operand::Reg(src)]);
    i.span = span.clone();
    i
}

fn reg_sequence(f: &mut MFunction, instrs: &InstrSet, inst: MInst, out: &mut Vec<MInst>) -> usize {
    let Some(def) = inst.ops.first().and_then(Operand::reg).cloned() else {
        return 0;
    };
    let Some(d) = def.vreg() else { return 0 };
    let parts: Vec<(RegOperand, regdesc_runtime::SubRegIdx)> = inst.ops[1..]
        .chunks(2)
        .filter_map(|p| match p {
            [Operand::Reg(r), Operand::SubIdx(s)] if !r.implicit() => Some((r.clone(), *s)),
            _ => None,
        })
        .collect();
    // Reading the register being built: build a new one, then copy.
    let reads_self = parts.iter().any(|(r, _)| r.vreg() == Some(d));
    let target = match (reads_self, f.class_of(d)) {
        (true, Some(rc)) => f.new_vreg(rc),
        _ => d,
    };
    let mut n = 0;
    let mut first = true;
    for (r, s) in parts {
        if r.undef() {
            continue;
        }
        let mut dst = RegOperand::def_of(RegRef::Virt(target), Some(s));
        dst.set_undef(first);
        first = false;
        let mut src = r;
        src.set_kill(false);
        out.push(copy(instrs, dst, src, &inst.span));
        n += 1;
    }
    if first {
        out.push(MInst {
            opcode: instrs.implicit_def,
            ops: smallvec![Operand::Reg(RegOperand::def_of(RegRef::Virt(target), None))],
            span: inst.span.clone(),
        });
    }
    if target != d {
        out.push(copy(
            instrs,
            RegOperand::def_of(RegRef::Virt(d), None),
            RegOperand::use_of(RegRef::Virt(target), None),
            &inst.span,
        ));
        n += 1;
    }
    n
}

fn tied<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    inst: &mut MInst,
    out: &mut Vec<MInst>,
) -> Result<usize, Diag> {
    let mut n = 0;
    for j in 0..inst.ops.len() {
        let Some(use_op) = inst.ops[j].reg().cloned() else {
            continue;
        };
        let Some(d) = use_op.tied_def() else { continue };
        let Some(def_op) = inst.ops.get(d as usize).and_then(Operand::reg).cloned() else {
            continue;
        };
        if def_op.reg == use_op.reg && def_op.sub == use_op.sub {
            continue;
        }
        // Other reads of the def's register would see the copy: read a
        // copy of them instead.
        for k in 0..inst.ops.len() {
            if k == j {
                continue;
            }
            let Some(r) = inst.ops[k].reg().cloned() else {
                continue;
            };
            if !r.reads() || r.reg != def_op.reg {
                continue;
            }
            let rc = match (r.reg, r.sub) {
                (RegRef::Virt(v), None) => f.class_of(v),
                (RegRef::Virt(v), Some(s)) => f.class_of(v).and_then(|rc| sub_reg_class(ri, rc, s)),
                (RegRef::Phys(p), _) => ri
                    .tables()
                    .minimal_class(p)
                    .filter(|&c| ri.tables().is_allocatable(c)),
            };
            let Some(rc) = rc else {
                return Err(Diag::unlocated(
                    "mir::two-address",
                    format!(
                        "instruction `{}` reads its tied def's register, and no class holds that part",
                        instrs.name(inst.opcode)
                    ),
                ));
            };
            let t = f.new_vreg(rc);
            out.push(copy(
                instrs,
                RegOperand::def_of(RegRef::Virt(t), None),
                RegOperand::use_of(r.reg, r.sub),
                &inst.span,
            ));
            n += 1;
            if let Some(x) = inst.ops[k].reg_mut() {
                x.reg = RegRef::Virt(t);
                x.sub = None;
                x.set_kill(false);
            }
        }
        let mut dst = RegOperand::def_of(def_op.reg, def_op.sub);
        dst.set_undef(def_op.undef());
        let mut src = RegOperand::use_of(use_op.reg, use_op.sub);
        src.set_undef(use_op.undef());
        if use_op.undef() {
            out.push(MInst {
                opcode: instrs.implicit_def,
                ops: smallvec![Operand::Reg(dst)],
                span: inst.span.clone(),
            });
        } else {
            out.push(copy(instrs, dst, src, &inst.span));
        }
        n += 1;
        if let Some(x) = inst.ops[j].reg_mut() {
            x.reg = def_op.reg;
            x.sub = def_op.sub;
            x.set_kill(false);
            x.set_undef(false);
        }
        if let Some(x) = inst.ops[d as usize].reg_mut() {
            x.set_undef(false);
        }
    }
    Ok(n)
}
