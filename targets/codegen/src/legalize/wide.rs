//! Integer operations on values of any width as 32-bit limbs: carry and
//! borrow chains, comparisons, shifts and extensions.
//!
//! The hardware fact served: 32-bit ALUs with a carry flag (AMD's
//! `V_ADD_CO_U32`/`V_ADDC_CO_U32`, `S_ADD_U32`/`S_ADDC_U32`; Intel's
//! `addc` with `acc0`). A value of width `w` has `ceil(w / 32)` limbs, low
//! limb first; the bits of the top limb above `w` are zero.

use crate::ir::{BinOp, IntPredicate};
use crate::legalize::{Limb, MirBuilder};

/// Bits used in the top limb of a `w`-bit value (1..=32).
pub fn top_bits(w: u32) -> u32 {
    w - 32 * (limbs_of(w) as u32 - 1)
}

/// Limbs of a `w`-bit value.
pub fn limbs_of(w: u32) -> usize {
    w.div_ceil(32).max(1) as usize
}

/// Clears the bits above `w` in the top limb.
pub fn canonical(b: &mut MirBuilder<'_>, mut v: Vec<Limb>, w: u32) -> Vec<Limb> {
    if let Some(top) = v.last_mut() {
        *top = b.zext_inreg(*top, top_bits(w));
    }
    v
}

/// The top limb sign-extended to 32 bits (the other limbs as they are).
pub fn sign_extended_top(b: &mut MirBuilder<'_>, v: &[Limb], w: u32) -> Vec<Limb> {
    let mut out = v.to_vec();
    if let Some(top) = out.last_mut() {
        *top = b.sext_inreg(*top, top_bits(w));
    }
    out
}

pub fn add(b: &mut MirBuilder<'_>, x: &[Limb], y: &[Limb], w: u32) -> Vec<Limb> {
    let n = x.len();
    let mut out = Vec::with_capacity(n);
    let mut carry = Limb::Const(0);
    for k in 0..n {
        if k + 1 == n {
            let s = b.bin(BinOp::Add, x[k], y[k]);
            out.push(b.bin(BinOp::Add, s, carry));
        } else {
            let (s, c) = b.uadde(x[k], y[k], carry);
            out.push(s);
            carry = c;
        }
    }
    canonical(b, out, w)
}

pub fn sub(b: &mut MirBuilder<'_>, x: &[Limb], y: &[Limb], w: u32) -> Vec<Limb> {
    let n = x.len();
    let mut out = Vec::with_capacity(n);
    let mut borrow = Limb::Const(0);
    for k in 0..n {
        if k + 1 == n {
            let s = b.bin(BinOp::Sub, x[k], y[k]);
            out.push(b.bin(BinOp::Sub, s, borrow));
        } else {
            let (s, c) = b.usube(x[k], y[k], borrow);
            out.push(s);
            borrow = c;
        }
    }
    canonical(b, out, w)
}

/// 1 when `x < y` unsigned (limbs of equal count, both canonical or both
/// sign-extended in the top limb with the sign bit flipped).
fn ult(b: &mut MirBuilder<'_>, x: &[Limb], y: &[Limb]) -> Limb {
    if x.len() == 1 {
        return b.icmp(IntPredicate::Ult, x[0], y[0]);
    }
    let mut borrow = Limb::Const(0);
    for k in 0..x.len() {
        let (_, c) = b.usube(x[k], y[k], borrow);
        borrow = c;
    }
    borrow
}

/// An `icmp` on `w`-bit values.
pub fn icmp(b: &mut MirBuilder<'_>, p: IntPredicate, x: &[Limb], y: &[Limb], w: u32) -> Limb {
    match p {
        IntPredicate::Eq | IntPredicate::Ne => {
            let mut acc = Limb::Const(0);
            for k in 0..x.len() {
                let d = b.bin(BinOp::Xor, x[k], y[k]);
                acc = b.bin(BinOp::Or, acc, d);
            }
            b.icmp(p, acc, Limb::Const(0))
        }
        _ => {
            let signed = matches!(
                p,
                IntPredicate::Sgt | IntPredicate::Sge | IntPredicate::Slt | IntPredicate::Sle
            );
            let (mut xs, mut ys) = (x.to_vec(), y.to_vec());
            if signed {
                // Signed order is unsigned order with the sign bit flipped.
                xs = sign_extended_top(b, &xs, w);
                ys = sign_extended_top(b, &ys, w);
                if let (Some(tx), Some(ty)) = (xs.last_mut(), ys.last_mut()) {
                    *tx = b.bin(BinOp::Xor, *tx, Limb::Const(0x8000_0000));
                    *ty = b.bin(BinOp::Xor, *ty, Limb::Const(0x8000_0000));
                }
            }
            if xs.len() == 1 {
                let q = match p {
                    IntPredicate::Sgt => IntPredicate::Ugt,
                    IntPredicate::Sge => IntPredicate::Uge,
                    IntPredicate::Slt => IntPredicate::Ult,
                    IntPredicate::Sle => IntPredicate::Ule,
                    q => q,
                };
                return b.icmp(q, xs[0], ys[0]);
            }
            let flip = |b: &mut MirBuilder<'_>, v: Limb| b.bin(BinOp::Xor, v, Limb::Const(1));
            match p {
                IntPredicate::Ult | IntPredicate::Slt => ult(b, &xs, &ys),
                IntPredicate::Ugt | IntPredicate::Sgt => ult(b, &ys, &xs),
                IntPredicate::Uge | IntPredicate::Sge => {
                    let l = ult(b, &xs, &ys);
                    flip(b, l)
                }
                _ => {
                    let g = ult(b, &ys, &xs);
                    flip(b, g)
                }
            }
        }
    }
}

/// `zext`/`sext`/`trunc` from `from` bits to `to` bits.
pub fn resize(b: &mut MirBuilder<'_>, v: &[Limb], from: u32, to: u32, signed: bool) -> Vec<Limb> {
    let n = limbs_of(to);
    if to <= from {
        let out: Vec<Limb> = v.iter().take(n).copied().collect();
        return canonical(b, out, to);
    }
    let mut out = if signed {
        sign_extended_top(b, v, from)
    } else {
        v.to_vec()
    };
    let fill = if signed {
        let top = out.last().copied().unwrap_or(Limb::Const(0));
        b.bin(BinOp::AShr, top, Limb::Const(31))
    } else {
        Limb::Const(0)
    };
    out.resize(n, fill);
    canonical(b, out, to)
}

/// `shl`, `lshr` or `ashr` of a `w`-bit value by `amount` (its low limb:
/// an amount of `w` or more is poison in the IR, so it is never needed).
pub fn shift(b: &mut MirBuilder<'_>, op: BinOp, x: &[Limb], amount: Limb, w: u32) -> Vec<Limb> {
    let n = x.len();
    let mut v = if op == BinOp::AShr {
        sign_extended_top(b, x, w)
    } else {
        x.to_vec()
    };
    let fill = if op == BinOp::AShr {
        let top = v[n - 1];
        b.bin(BinOp::AShr, top, Limb::Const(31))
    } else {
        Limb::Const(0)
    };
    if n == 1 {
        let r = b.bin(op, v[0], amount);
        return canonical(b, vec![r], w);
    }
    // Whole-limb moves: by a constant, or one select stage per bit of the
    // amount above bit 4.
    let word_shift = |v: &[Limb], q: usize| -> Vec<Limb> {
        (0..n)
            .map(|k| match op {
                BinOp::Shl => k.checked_sub(q).map_or(Limb::Const(0), |s| v[s]),
                _ => v.get(k + q).copied().unwrap_or(fill),
            })
            .collect()
    };
    let bit_amount = match amount {
        Limb::Const(c) => {
            v = word_shift(&v, (c / 32) as usize);
            Limb::Const(c % 32)
        }
        _ => {
            let mut stage = 5u32;
            while (1usize << stage) < 32 * n {
                let t = b.bin(BinOp::LShr, amount, Limb::Const(stage));
                let c = b.bin(BinOp::And, t, Limb::Const(1));
                let moved = word_shift(&v, 1 << (stage - 5));
                v = (0..n).map(|k| b.select(c, moved[k], v[k])).collect();
                stage += 1;
            }
            b.bin(BinOp::And, amount, Limb::Const(31))
        }
    };
    if bit_amount == Limb::Const(0) {
        return canonical(b, v, w);
    }
    // Funnel each limb with its neighbour: the neighbour's bits move by
    // 32 - s, written as a shift by 1 then by 31 - s so that s = 0 works.
    let inv = b.bin(BinOp::Xor, bit_amount, Limb::Const(31));
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        // Below the top limb an arithmetic shift moves the limb's own bits
        // logically: the sign comes in from the top limb only.
        let own_op = if op == BinOp::AShr && k + 1 < n {
            BinOp::LShr
        } else {
            op
        };
        let own = b.bin(own_op, v[k], bit_amount);
        let (nb, back) = match op {
            BinOp::Shl => (
                k.checked_sub(1).map_or(Limb::Const(0), |s| v[s]),
                BinOp::LShr,
            ),
            _ if k + 1 < n => (v[k + 1], BinOp::Shl),
            _ => (Limb::Const(0), BinOp::Shl),
        };
        if nb == Limb::Const(0) {
            out.push(own);
            continue;
        }
        let one = b.bin(back, nb, Limb::Const(1));
        let moved = b.bin(back, one, inv);
        out.push(b.bin(BinOp::Or, own, moved));
    }
    canonical(b, out, w)
}

/// How `x * c` is shifts, for a constant `c`: `x << k`, or `(x << k) ±
/// x` (`c = 2^k ± 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftForm {
    Shl(u32),
    ShlAdd(u32),
    ShlSub(u32),
}

/// The [`ShiftForm`] of the constant `c` (limbs), where it is cheaper
/// than the schoolbook: `2^k`, or `2^k + 1` or `2^k - 1` with `k` at
/// least 32; `None` otherwise (a register limb, other constants). The
/// hardware fact served: a 32-bit ALU shifts a limb, or funnels two, in
/// one instruction and adds a limb with its carry in one more, so these
/// products take about two instructions per limb at and above limb `k /
/// 32` (the limbs below are `x`'s own, or its negation), where the
/// schoolbook takes a partial product for every pair of limbs of `x` and
/// nonzero limbs of `c` (an `i128` times `2^70 + 1`: 2 against 9). Below
/// `k = 32` the `± 1` forms cost two per limb against one multiply-add,
/// and keep the multiply.
pub fn shift_form(c: &[Limb]) -> Option<ShiftForm> {
    // The set bits of `c`, lowest first.
    let mut bits = Vec::new();
    for (j, l) in c.iter().enumerate() {
        let Limb::Const(mut v) = *l else { return None };
        while v != 0 {
            bits.push(32 * j as u32 + v.trailing_zeros());
            v &= v - 1;
        }
    }
    let run = bits.iter().enumerate().all(|(i, &p)| p == i as u32);
    match bits[..] {
        [k] if k > 0 => Some(ShiftForm::Shl(k)),
        [0, k] if k >= 32 => Some(ShiftForm::ShlAdd(k)),
        _ if run && bits.len() >= 32 => Some(ShiftForm::ShlSub(bits.len() as u32)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{shift_form, ShiftForm};
    use crate::legalize::Limb;

    fn limbs(v: u128, n: usize) -> Vec<Limb> {
        (0..n)
            .map(|j| Limb::Const((v >> (32 * j)) as u32))
            .collect()
    }

    #[test]
    fn shift_forms_of_constants() {
        assert_eq!(shift_form(&limbs(1 << 5, 2)), Some(ShiftForm::Shl(5)));
        assert_eq!(shift_form(&limbs(1 << 70, 4)), Some(ShiftForm::Shl(70)));
        assert_eq!(
            shift_form(&limbs((1 << 33) + 1, 2)),
            Some(ShiftForm::ShlAdd(33))
        );
        assert_eq!(
            shift_form(&limbs((1 << 106) - 1, 4)),
            Some(ShiftForm::ShlSub(106))
        );
        // Below 32 the ± 1 forms keep the multiply (one MAD per limb).
        assert_eq!(shift_form(&limbs((1 << 5) + 1, 2)), None);
        assert_eq!(shift_form(&limbs((1 << 20) - 1, 2)), None);
        // 1, zero, three bits, a register limb.
        assert_eq!(shift_form(&limbs(1, 2)), None);
        assert_eq!(shift_form(&limbs(0, 2)), None);
        assert_eq!(shift_form(&limbs((1 << 40) + (1 << 3) + 1, 2)), None);
        let reg = vec![Limb::Const(0), Limb::Reg(crate::mir::VReg(3))];
        assert_eq!(shift_form(&reg), None);
    }
}
