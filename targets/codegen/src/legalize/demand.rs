//! Demanded limbs: how many low 32-bit limbs of each integer value any
//! use reads.
//!
//! The hardware fact served: a limb product `a_i * b_j` lands in column
//! `i + j` and its carries only move up, so the low `k` limbs of a product
//! (or a sum, or a bitwise result) depend on the operands' low `k` limbs
//! alone. A multiply whose result is only truncated (an `i128` product
//! feeding an `i64` address or store) needs only the columns below `k`:
//! the partial products with `i + j < k` and the carries into them, not
//! the whole schoolbook square (LLVM's DAG narrows such a multiply by its
//! demanded bits too). Dead-code elimination removes unused limbs of
//! straight-line code afterwards, but a target's multiply chains interleave
//! the columns, so the legalizer must not build the high ones.

use crate::ir::{BinOp, CastOp, Function, Inst, InstId, Op, Type, ValueId};
use crate::legalize::wide::limbs_of;

/// Per value, the number of low limbs its uses read (the full count when
/// any use reads them all; 0 for an unused value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demand {
    limbs: Vec<usize>,
}

impl Demand {
    /// A backward analysis: a `trunc` reads its result's limbs; `add`,
    /// `sub`, `mul` and the bitwise operations read the limbs their
    /// result's uses read; every other use reads everything.
    ///
    /// One walk over the instructions, last to first, then a worklist:
    /// a value whose demand rises after its definition was walked (a PHI's
    /// input from a loop's back edge) has that definition visited again.
    /// Demands only rise and are bounded by the value's limbs, so this
    /// ends; each rise costs one visit, not a pass over the function.
    pub fn analyze(f: &Function) -> Demand {
        let full: Vec<usize> = f.values.iter().map(|v| full_limbs(v.ty)).collect();
        let mut limbs = vec![0usize; f.values.len()];
        let mut again: Vec<InstId> = Vec::new();
        for (k, inst) in f.insts.iter().enumerate().rev() {
            visit(inst, &full, &mut limbs, &mut |v| {
                // Definitions at `k` and before are walked later.
                if let Some(d) = f.def_inst(v).filter(|d| d.index() > k) {
                    again.push(d);
                }
            });
            while let Some(d) = again.pop() {
                visit(f.inst(d), &full, &mut limbs, &mut |v| {
                    if let Some(d) = f.def_inst(v).filter(|d| d.index() > k) {
                        again.push(d);
                    }
                });
            }
        }
        Demand { limbs }
    }

    /// The same demands by passes over the function to a fixed point: the
    /// plain form of [`Demand::analyze`], which the tests hold it to.
    pub fn analyze_by_passes(f: &Function) -> Demand {
        let full: Vec<usize> = f.values.iter().map(|v| full_limbs(v.ty)).collect();
        let mut limbs = vec![0usize; f.values.len()];
        loop {
            let mut changed = false;
            for inst in f.insts.iter().rev() {
                visit(inst, &full, &mut limbs, &mut |_| changed = true);
            }
            if !changed {
                return Demand { limbs };
            }
        }
    }

    /// The low limbs of `v` any use reads.
    pub fn of(&self, v: crate::ir::ValueId) -> usize {
        self.limbs[v.index()]
    }
}

/// Raises the demand of `inst`'s operands; `raised` hears of each value
/// whose demand rose.
fn visit(inst: &Inst, full: &[usize], limbs: &mut [usize], raised: &mut dyn FnMut(ValueId)) {
    let low_only = match &inst.op {
        Op::Cast {
            op: CastOp::Trunc,
            to: Type::Int(w),
            ..
        } => Some(limbs_of(u32::from(*w))),
        Op::Bin {
            op: BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor,
            lhs,
            ..
        } if matches!(lhs.ty, Type::Int(_)) => inst.result.map(|r| limbs[r.index()]),
        _ => None,
    };
    for o in inst.op.operands() {
        let Some(v) = o.value() else { continue };
        let want = low_only.map_or(full[v.index()], |k| k.min(full[v.index()]));
        if want > limbs[v.index()] {
            limbs[v.index()] = want;
            raised(v);
        }
    }
}

fn full_limbs(ty: Type) -> usize {
    match ty {
        Type::Int(w) => limbs_of(u32::from(w)),
        t => crate::legalize::words_of(t),
    }
}
