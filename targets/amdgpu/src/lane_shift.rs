//! Per-lane shifts of 64 bits and more by a constant on the VALU
//! ([`lower_shift`], after [`crate::shift64`]'s uniform ones in the AMD
//! back end's [`regdesc_codegen::target::Target::lower_shift`]; and the
//! shift that a per-lane multiply by a power of two is,
//! [`crate::legalize_wide_mul`]).
//!
//! The hardware facts served:
//! - `v_alignbit_b32 d, hi, lo, k` is `(hi:lo) >> k` truncated to 32 bits:
//!   a funnel shift, so each limb of a wide shift that takes bits from two
//!   source limbs is one instruction, where two shifts and an or would be
//!   three (and the generic lowering, whose amount may be zero, four);
//! - the limb that takes bits from one source limb only is one 32-bit
//!   shift (`v_lshlrev_b32`, `v_lshrrev_b32`, `v_ashrrev_i32` for the top
//!   of an arithmetic shift);
//! - a limb that is `0` or `-1` (a sign limb: `v_ashrrev_i32 31` of
//!   something) funnelled with itself is itself, so the sign limbs of a
//!   sign-extended factor shift for free;
//! - the VALU shifts a 64-bit register pair per lane in one instruction
//!   (`v_lshlrev_b64`, `v_lshrrev_b64`, `v_ashrrev_i64`), so the two
//!   limbs at the value's edge (the lowest pair of a left shift, the top
//!   pair of a right shift: one single shift and one funnel) are one
//!   instruction: an `i64` shifted by a constant is one, as llc makes it.

use regdesc_codegen::ir::BinOp;
use regdesc_codegen::legalize::wide::{canonical, sign_extended_top};
use regdesc_codegen::legalize::{Limb, MirBuilder};
use regdesc_codegen::mir::{def, use_, Opcode, Operand};

use crate::shift64::ShiftOps;

/// What a per-lane shift is made of: `v_alignbit_b32`, the 64-bit shift
/// pseudos, and whether a 64-bit VGPR operand must start at an even
/// register (gfx90a), where the edge pair serves only when its result and
/// source limbs are even pairs of their values (else each is copied).
#[derive(Clone, Copy, Debug)]
pub struct LaneShiftOps {
    pub alignbit: Opcode,
    pub pairs: ShiftOps,
    pub aligned_pairs: bool,
}

/// `x op amount` on a `w`-bit per-lane value of 32-bit limbs, with
/// `v_alignbit_b32` per limb and one 64-bit shift at the edge. `None`:
/// another lowering (a uniform value, an amount that is not a constant or
/// is a whole number of limbs, a single limb).
pub fn lower_shift(
    op: BinOp,
    x: &[Limb],
    amount: Limb,
    w: u32,
    b: &mut MirBuilder<'_>,
    ops: LaneShiftOps,
) -> Option<Vec<Limb>> {
    let n = x.len();
    let Limb::Const(c) = amount else {
        return None;
    };
    if b.uniform || n < 2 || c >= w || c.is_multiple_of(32) {
        return None;
    }
    let x = match op {
        BinOp::AShr => sign_extended_top(b, x, w),
        _ => x.to_vec(),
    };
    let (q, s) = ((c / 32) as usize, c % 32);
    let mut fill = None;
    let mut r = vec![Limb::Const(0); n];
    // The edge pair: result limbs `k, k + 1` from source limbs `i, i + 1`
    // by one 64-bit shift, when both are registers and the funnel would
    // not be free (two equal sign limbs). An arithmetic shift past the
    // top limb shifts the top pair by `32 + s`: its high half is the sign,
    // which every limb above takes.
    let sign_pair = op == BinOp::AShr && q >= 1;
    let edge = match op {
        BinOp::Shl => Some((q, 0)),
        _ if sign_pair => Some((n - 1 - q, n - 2)),
        _ => (n - 2).checked_sub(q).map(|k| (k, n - 2)),
    }
    .filter(|&(k, i)| {
        k + 1 < n
            && (!ops.aligned_pairs || (k % 2 == 0 && i % 2 == 0))
            && matches!((x[i], x[i + 1]), (Limb::Reg(l), Limb::Reg(h)) if l != h)
    });
    let made_by_edge =
        |j: usize| edge.is_some_and(|(e, _)| j == e || j == e + 1 || (sign_pair && j > e));
    // Result limb k reads source limbs k - q - 1 and k - q (left) or k + q
    // and k + q + 1 (right): made from the top down (left) or the bottom
    // up, each limb's register is read by no limb made after it, so where
    // the result returns over the source nothing is moved first.
    let order: Vec<usize> = match op {
        BinOp::Shl => (0..n).rev().collect(),
        _ => (0..n).collect(),
    };
    for k in order {
        if made_by_edge(k) {
            continue;
        }
        let l = match op {
            BinOp::Shl => {
                // Bits of source limb k - q move up by s, those of k - q - 1
                // come in from below.
                let hi = k.checked_sub(q).map_or(Limb::Const(0), |i| x[i]);
                let lo = k.checked_sub(q + 1).map_or(Limb::Const(0), |i| x[i]);
                funnel(b, ops.alignbit, hi, lo, 32 - s)
            }
            _ => {
                let i = k + q;
                if i >= n {
                    sign_fill(b, op, &x, &mut fill)
                } else if i + 1 == n {
                    b.bin(op, x[i], Limb::Const(s))
                } else {
                    funnel(b, ops.alignbit, x[i + 1], x[i], s)
                }
            }
        };
        r[k] = l;
    }
    // The edge pair last: it reads the source limbs the others read
    // before it (the lowest of a left shift, the top of a right one).
    if let Some((k, i)) = edge {
        let pair_op = match op {
            BinOp::Shl => ops.pairs.shl,
            BinOp::LShr => ops.pairs.lshr,
            _ => ops.pairs.ashr,
        };
        let by = if sign_pair { 32 + s } else { s };
        let (lo, hi) = crate::shift64::pair(b, pair_op, x[i], x[i + 1], by);
        r[k] = lo;
        r[k + 1] = hi;
        if sign_pair {
            r[k + 2..].fill(hi);
        }
    }
    Some(canonical(b, r, w))
}

/// The limbs above a right shift's result: zero, or the sign of the top.
fn sign_fill(b: &mut MirBuilder<'_>, op: BinOp, x: &[Limb], fill: &mut Option<Limb>) -> Limb {
    if op != BinOp::AShr {
        return Limb::Const(0);
    }
    let top = x[x.len() - 1];
    *fill.get_or_insert_with(|| b.bin(BinOp::AShr, top, Limb::Const(31)))
}

/// `(hi:lo) >> k` (`0 < k < 32`) truncated to 32 bits.
fn funnel(b: &mut MirBuilder<'_>, alignbit: Opcode, hi: Limb, lo: Limb, k: u32) -> Limb {
    match (hi, lo) {
        (Limb::Const(h), Limb::Const(l)) => {
            Limb::Const(((u64::from(h) << 32 | u64::from(l)) >> k) as u32)
        }
        (Limb::Const(0), _) => b.bin(BinOp::LShr, lo, Limb::Const(k)),
        (_, Limb::Const(0)) => b.bin(BinOp::Shl, hi, Limb::Const(32 - k)),
        _ if hi == lo && is_sign(b, hi) => hi,
        _ => {
            let (h, l) = (b.reg(hi), b.reg(lo));
            let d = b.new_reg();
            b.push(
                alignbit,
                vec![def(d), use_(h), use_(l), Operand::Imm(i64::from(k))],
            );
            Limb::Reg(d)
        }
    }
}

/// Whether `l` is `v >> 31` (arithmetic) of some `v`: `0` or `-1`, as the
/// sign limbs of a sign extension are. Looks back a few instructions of
/// the current block, where such a limb is made.
fn is_sign(b: &MirBuilder<'_>, l: Limb) -> bool {
    let Limb::Reg(v) = l else {
        return matches!(l, Limb::Const(0 | u32::MAX));
    };
    let ashr = b.ops.bin_opcode(BinOp::AShr);
    let insts = &b.f.blocks[b.block].insts;
    let def_of = |r| {
        insts
            .iter()
            .rev()
            .take(256)
            .find(|i| i.ops.first().and_then(Operand::vreg) == Some(r))
    };
    let Some(i) = def_of(v) else { return false };
    if i.opcode != ashr {
        return false;
    }
    let Some(amount) = i.ops.get(2).and_then(Operand::vreg) else {
        return false;
    };
    def_of(amount)
        .is_some_and(|m| m.opcode == b.ops.movi && matches!(m.ops.get(1), Some(Operand::Imm(31))))
}
