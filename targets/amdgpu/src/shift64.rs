//! Uniform shifts of 64 bits and more by a constant on the scalar unit
//! ([`lower_shift`]: the AMD back end's
//! [`regdesc_codegen::target::Target::lower_shift`], and the shift that a
//! uniform multiply by a power of two is, [`crate::legalize_wide_mul`]).
//!
//! The hardware facts served:
//! - The SALU shifts an SGPR pair by up to 63 bits in one instruction
//!   (`s_lshl_b64`, `s_lshr_b64`, `s_ashr_i64`), where 32-bit shifts need
//!   three per limb past the first (the limb's own bits, the bits crossing
//!   from its neighbour, an `s_or_b32`).
//! - A 64-bit SGPR operand is an even-aligned register pair, so a value
//!   of more than two limbs is shifted pair by pair in its own alignment
//!   (limbs 0-1, 2-3, ...: the pairs it was loaded or computed in); the
//!   bits crossing from one pair into the next are one 32-bit shift and an
//!   or each.
//!
//! A limb known to be a constant keeps the 32-bit shifts (they fold);
//! per-lane values keep the generic lowering.

use regdesc_codegen::ir::BinOp;
use regdesc_codegen::legalize::{Limb, MirBuilder};
use regdesc_codegen::mir::{def, use_, Opcode, Operand};

/// The legalize-level 64-bit shift pseudos (`G_AMD_SHL64`,
/// `G_AMD_LSHR64`, `G_AMD_ASHR64`: `lo, hi = xlo, xhi, k`).
#[derive(Clone, Copy, Debug)]
pub struct ShiftOps {
    pub shl: Opcode,
    pub lshr: Opcode,
    pub ashr: Opcode,
}

/// `x op amount` on a `w`-bit uniform value of 32-bit limbs, with 64-bit
/// SALU shifts where a limb pair is shifted whole. `None`: the generic
/// lowering (a per-lane value, an amount that is not a constant or is a
/// whole number of limbs, a width that is not a whole number of limbs).
pub fn lower_shift(
    op: BinOp,
    x: &[Limb],
    amount: Limb,
    w: u32,
    b: &mut MirBuilder<'_>,
    ops: ShiftOps,
) -> Option<Vec<Limb>> {
    let n = x.len();
    let Limb::Const(c) = amount else {
        return None;
    };
    if !b.uniform || !w.is_multiple_of(32) || n < 2 || c >= w || c.is_multiple_of(32) {
        return None;
    }
    let (q, s) = ((c / 32) as usize, c % 32);
    let mut sh = Shifter {
        x,
        q,
        s,
        left: op == BinOp::Shl,
        arith: op == BinOp::AShr,
        ops,
        fill: None,
    };
    let mut r = Vec::with_capacity(n);
    for k in (0..n).step_by(2) {
        match sh.pair(b, k) {
            Some((lo, hi)) => r.extend([lo, hi]),
            None => {
                for j in k..n.min(k + 2) {
                    let l = sh.single(b, j);
                    r.push(l);
                }
            }
        }
    }
    Some(r)
}

/// The shift of one value: result limb `k` comes from source limb `k - q`
/// (left) or `k + q` (right) moved by `s` bits, and the neighbour limb
/// moved by `32 - s` the other way.
struct Shifter<'x> {
    x: &'x [Limb],
    q: usize,
    s: u32,
    left: bool,
    arith: bool,
    ops: ShiftOps,
    /// The limbs above an arithmetic right shift's result (the sign), once
    /// made.
    fill: Option<Limb>,
}

impl Shifter<'_> {
    /// Source limb `i` when it is a register (a constant limb keeps the
    /// 32-bit shifts, which fold it).
    fn reg(&self, i: usize) -> Option<Limb> {
        self.x.get(i).copied().filter(|l| matches!(l, Limb::Reg(_)))
    }

    fn fill(&mut self, b: &mut MirBuilder<'_>) -> Limb {
        if !self.arith {
            return Limb::Const(0);
        }
        let top = self.x[self.x.len() - 1];
        *self
            .fill
            .get_or_insert_with(|| b.bin(BinOp::AShr, top, Limb::Const(31)))
    }

    /// Result limb `k` with 32-bit shifts: its source limb's bits, or'ed
    /// with its neighbour's.
    fn single(&mut self, b: &mut MirBuilder<'_>, k: usize) -> Limb {
        let (n, s) = (self.x.len(), self.s);
        let at = |i: Option<usize>| i.and_then(|i| self.x.get(i).copied());
        if self.left {
            let i = k.checked_sub(self.q);
            let own = match at(i) {
                Some(l) => b.bin(BinOp::Shl, l, Limb::Const(s)),
                None => return Limb::Const(0),
            };
            let nb = match at(i.and_then(|i| i.checked_sub(1))) {
                Some(l) => b.bin(BinOp::LShr, l, Limb::Const(32 - s)),
                None => Limb::Const(0),
            };
            return b.bin(BinOp::Or, own, nb);
        }
        let i = k + self.q;
        if i >= n {
            return self.fill(b);
        }
        let own_op = if self.arith && i + 1 == n {
            BinOp::AShr
        } else {
            BinOp::LShr
        };
        let own = b.bin(own_op, self.x[i], Limb::Const(s));
        let nb = match at(Some(i + 1)) {
            Some(l) => b.bin(BinOp::Shl, l, Limb::Const(32 - s)),
            None => Limb::Const(0),
        };
        b.bin(BinOp::Or, own, nb)
    }

    /// Result limbs `k`, `k + 1` (`k` even: an aligned pair of the result)
    /// from one 64-bit shift of an aligned pair of the source, plus the
    /// bits crossing from the limb beside it; `None` when no such pair
    /// serves (the limbs are made one by one).
    fn pair(&mut self, b: &mut MirBuilder<'_>, k: usize) -> Option<(Limb, Limb)> {
        let (n, s, ops) = (self.x.len(), self.s, self.ops);
        if k + 1 >= n {
            return None;
        }
        if self.left {
            let i = k.checked_sub(self.q)?;
            if i.is_multiple_of(2) {
                // (x[i], x[i+1]) << s, the low limb or'ed with x[i-1]'s top.
                let (xl, xh) = (self.reg(i)?, self.reg(i + 1)?);
                let (lo, hi) = pair(b, ops.shl, xl, xh, s);
                let nb = match i {
                    0 => Limb::Const(0),
                    _ => b.bin(BinOp::LShr, self.x[i - 1], Limb::Const(32 - s)),
                };
                return Some((b.bin(BinOp::Or, lo, nb), hi));
            }
            // (x[i-1], x[i]) >> (32 - s) is result limb k, and its high
            // half the top of x[i] that result limb k + 1 takes.
            let (xl, xh) = (self.reg(i - 1)?, self.reg(i)?);
            let (lo, hi) = pair(b, ops.lshr, xl, xh, 32 - s);
            let own = b.bin(BinOp::Shl, self.x[i + 1], Limb::Const(s));
            return Some((lo, b.bin(BinOp::Or, own, hi)));
        }
        let i = k + self.q;
        if i + 1 == n && i % 2 == 1 && self.arith {
            // The top limb and the sign above it: (x[n-2], x[n-1]) >> (32 + s).
            let (xl, xh) = (self.reg(i - 1)?, self.reg(i)?);
            let (lo, hi) = pair(b, ops.ashr, xl, xh, 32 + s);
            self.fill.get_or_insert(hi);
            return Some((lo, hi));
        }
        if i + 1 >= n {
            return None;
        }
        if i.is_multiple_of(2) {
            // (x[i], x[i+1]) >> s, the high limb or'ed with x[i+2]'s bottom.
            let op = if self.arith && i + 2 == n {
                ops.ashr
            } else {
                ops.lshr
            };
            let (xl, xh) = (self.reg(i)?, self.reg(i + 1)?);
            let (lo, hi) = pair(b, op, xl, xh, s);
            let nb = match self.x.get(i + 2) {
                Some(&l) => b.bin(BinOp::Shl, l, Limb::Const(32 - s)),
                None => Limb::Const(0),
            };
            return Some((lo, b.bin(BinOp::Or, hi, nb)));
        }
        if i + 2 >= n {
            return None;
        }
        // (x[i+1], x[i+2]) << (32 - s) is result limb k + 1, and its low
        // half the bottom of x[i+1] that result limb k takes.
        let (xl, xh) = (self.reg(i + 1)?, self.reg(i + 2)?);
        let (lo, hi) = pair(b, ops.shl, xl, xh, 32 - s);
        let own = b.bin(BinOp::LShr, self.x[i], Limb::Const(s));
        Some((b.bin(BinOp::Or, own, lo), hi))
    }
}

/// `lo, hi = op (hi:lo), s`: one 64-bit shift pseudo (an SGPR pair's
/// shift after selection when the result is uniform, a VGPR pair's when
/// it is per lane).
pub(crate) fn pair(b: &mut MirBuilder<'_>, op: Opcode, lo: Limb, hi: Limb, s: u32) -> (Limb, Limb) {
    let (xl, xh) = (b.reg(lo), b.reg(hi));
    let (dl, dh) = (b.new_reg(), b.new_reg());
    b.push(
        op,
        vec![
            def(dl),
            def(dh),
            use_(xl),
            use_(xh),
            Operand::Imm(i64::from(s)),
        ],
    );
    (Limb::Reg(dl), Limb::Reg(dh))
}
