//! Control flow: uniform branches as `jmpi`; in functions with divergent
//! branches, the per-lane block number (see the module docs of
//! [`crate::emit`]): terminators that write it, the block checks, and
//! the predicate-controlled jumps over blocks no lane is in.
//!
//! Hardware facts served (PRM Vol 2a "jmpi", Vol 7 "Predication"): `jmpi`
//! jumps the whole thread; with `.allNh`/`.anyNh` predicate control its
//! predicate combines the flag bits of all N channels.

use regdesc_codegen::mir::{MBlockId, MInst, Sem};
use regdesc_codegen::target::TargetError;

use super::{block_label, unsupported, Chunk, Em, Loc, F0, F1_1};
use crate::abi::PC_GRF;
use crate::isa::{Cond, Dst, Flag, Inst, Line, Op, Pred, RegName, Ty};

impl Em<'_> {
    /// A divergent function's terminator: the next block number of each
    /// running lane (the block count when it returns).
    pub(super) fn set_pc(&mut self, i: &MInst, sem: Sem) -> Result<(), TargetError> {
        let pc = Loc::Lane(PC_GRF);
        let done = self.f.blocks.len() as u32;
        let mut ts = i.block_targets();
        let c = self.full(pc)[0];
        match sem {
            Sem::CondBranch => {
                let cl = self.loc(i, 0)?;
                let (Some(t), Some(e)) = (ts.next(), ts.next()) else {
                    return Err(unsupported(
                        self.f,
                        "a conditional branch with no targets".into(),
                    ));
                };
                let n = Dst {
                    reg: RegName::Null,
                    h: 1,
                    ty: Ty::Ud,
                };
                let ci = self.push(
                    c,
                    Op::Cmp,
                    n,
                    vec![Self::src(c, cl, Ty::Ud), Self::imm_src(0)],
                );
                ci.cond = Some((Cond::Ne, F0));
                let t3 = self.tmp(3, true);
                self.alu(c, Op::Mov, t3, Self::imm_src(e.0), None);
                self.alu(c, Op::Mov, t3, Self::imm_src(t.0), None).pred = Some(Pred {
                    flag: F0,
                    invert: false,
                    ctrl: None,
                });
                self.alu(c, Op::Mov, pc, Self::src(c, t3, Ty::Ud), None);
            }
            Sem::Branch => {
                let t = ts.next().map_or(done, |b| b.0);
                self.alu(c, Op::Mov, pc, Self::imm_src(t), None);
            }
            _ => {
                self.alu(c, Op::Mov, pc, Self::imm_src(done), None);
            }
        }
        Ok(())
    }

    /// `(W) cmp (ne)f1.1 null PC k`: the block mask of block number `k`.
    pub(super) fn block_check(&mut self, cond: Cond, k: u32) {
        let c = Chunk {
            exec: self.gen.simd.lanes(),
            offset: 0,
            shift: 0,
            nomask: true,
        };
        let n = Dst {
            reg: RegName::Null,
            h: 1,
            ty: Ty::Ud,
        };
        let pc = Self::src(c, Loc::Lane(PC_GRF), Ty::Ud);
        self.push(c, Op::Cmp, n, vec![pc, Self::imm_src(k)]).cond = Some((cond, F1_1));
    }

    /// `(W&f1.1.allNh)` or `.anyNh`.
    pub(super) fn all_lanes(&self, all: bool) -> Pred {
        Pred {
            flag: F1_1,
            invert: false,
            ctrl: Some((all, self.gen.simd.lanes())),
        }
    }

    pub(super) fn jump(&mut self, t: MBlockId, pred: Option<Flag>) {
        let l = block_label(&self.f.name, t);
        self.jump_label(l, pred);
    }

    pub(super) fn jump_label(&mut self, l: String, pred: Option<Flag>) {
        let mut j = Inst::new(
            Op::Jmpi,
            1,
            Dst {
                reg: RegName::Null,
                h: 1,
                ty: Ty::Ud,
            },
            Vec::new(),
        );
        j.dst = None;
        j.nomask = true;
        j.pred = pred.map(|flag| Pred {
            flag,
            invert: false,
            ctrl: None,
        });
        j.label = Some(l);
        self.out.push(Line::Inst(j));
    }

    pub(super) fn jump_if(&mut self, l: String, p: Pred) {
        self.jump_label(l, None);
        if let Some(Line::Inst(j)) = self.out.last_mut() {
            j.pred = Some(p);
        }
    }
}
