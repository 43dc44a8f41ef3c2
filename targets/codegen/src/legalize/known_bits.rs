//! Known bits of integer values (LLVM's `computeKnownBits`, forward, one
//! pass in reverse post-order).
//!
//! The hardware fact served: a 32x32 multiply is the expensive part of a
//! wide multiply, and a zero-extended or masked factor has whole 32-bit
//! limbs that are zero. Seed 002 (D124844) names this as a gap of LLVM's
//! GlobalISel legalizer: it multiplied known-zero limbs. Here the
//! legalizer turns every limb whose bits are all known into a constant,
//! and the builder folds the partial products that vanish.
//!
//! The same pass counts each value's **sign bits** (LLVM's
//! `ComputeNumSignBits`): how many high bits are copies of the sign bit.
//! A factor with at least `w - 31` of them is the sign extension of its
//! low 32-bit limb, so a target can multiply it with a signed 32x32
//! instruction (AMD's `V_MAD_I64_I32`) and skip the partial products of
//! the sign limbs (seed 002's second gap).
//!
//! Values are analysed once, in reverse post-order; a PHI (and anything
//! computed from one before its inputs are seen) starts unknown, which is
//! sound without iterating.

use crate::value::IntBits;

use crate::ir::{BinOp, Builtin, CastOp, Function, Op, OperandKind, Type, ValueId, ValueKind};
use crate::value::Value;

/// Bits known to be zero and known to be one (within the value's width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    pub width: u32,
    pub zero: IntBits,
    pub one: IntBits,
}

fn mask(w: u32) -> IntBits {
    if w as usize >= IntBits::BITS {
        IntBits::MAX
    } else {
        (IntBits::from(1u8) << w as usize) - IntBits::from(1u8)
    }
}

impl Known {
    pub fn unknown(width: u32) -> Known {
        Known {
            width,
            zero: IntBits::ZERO,
            one: IntBits::ZERO,
        }
    }

    pub fn constant(width: u32, v: IntBits) -> Known {
        let m = mask(width);
        Known {
            width,
            zero: !v & m,
            one: v & m,
        }
    }

    /// Bits `32k .. 32k + 32` when all are known (bits past the width are
    /// zero).
    pub fn limb(&self, k: usize) -> Option<u32> {
        let lo = 32 * k;
        if lo >= self.width as usize {
            return Some(0);
        }
        let m = mask(self.width);
        let known = (self.zero | self.one) | !m;
        let limb_mask = IntBits::from(u32::MAX) << lo;
        if known & limb_mask == limb_mask {
            Some(((self.one >> lo) & IntBits::from(u32::MAX)).to::<u32>())
        } else {
            None
        }
    }

    /// Whether the sign bit is known to be zero (a sign extension is a
    /// zero extension).
    pub fn non_negative(&self) -> bool {
        self.width > 0 && self.zero.bit((self.width - 1) as usize)
    }

    /// Number of high bits known to be one.
    fn leading_ones(&self) -> u32 {
        let mut n = 0;
        while n < self.width && self.one.bit((self.width - 1 - n) as usize) {
            n += 1;
        }
        n
    }

    /// Sign bits the known bits prove (at least 1).
    pub fn sign_bits(&self) -> u32 {
        self.leading_zeros().max(self.leading_ones()).max(1)
    }

    /// Number of high bits known to be zero.
    fn leading_zeros(&self) -> u32 {
        let mut n = 0;
        while n < self.width && self.zero.bit((self.width - 1 - n) as usize) {
            n += 1;
        }
        n
    }

    /// Number of low bits known to be zero.
    fn trailing_zeros(&self) -> u32 {
        let mut n = 0;
        while n < self.width && self.zero.bit(n as usize) {
            n += 1;
        }
        n
    }

    fn with_leading_zeros(width: u32, lz: u32) -> Known {
        let lz = lz.min(width);
        Known {
            width,
            zero: mask(width) & !mask(width - lz),
            one: IntBits::ZERO,
        }
    }

    fn meet(a: Known, b: Known) -> Known {
        Known {
            width: a.width,
            zero: a.zero & b.zero,
            one: a.one & b.one,
        }
    }
}

/// The known bits of every integer value of a function.
#[derive(Clone, Debug)]
pub struct KnownBits {
    /// Per value, its entry in `known`; [`NOTHING`] where nothing is known
    /// (or it was not analysed). A [`Known`] is 136 bytes, for the widest
    /// integer; most values have no known bit, and an array of them for
    /// every value was 14 MB to zero and read back on a function of 100k
    /// instructions.
    slot: Vec<u32>,
    known: Vec<Known>,
    /// Sign bits per value (0: not analysed).
    signs: Vec<u32>,
}

/// [`KnownBits::slot`] of a value with no known bit.
const NOTHING: u32 = u32::MAX;

impl KnownBits {
    pub fn analyze(f: &Function, order: &[crate::ir::BlockId]) -> KnownBits {
        let mut kb = KnownBits {
            slot: vec![NOTHING; f.values.len()],
            known: Vec::new(),
            signs: vec![0; f.values.len()],
        };
        for &b in order {
            for &i in &f.block(b).insts {
                let inst = f.inst(i);
                let Some(r) = inst.result else { continue };
                let Type::Int(w) = f.value(r).ty else {
                    continue;
                };
                let k = kb.transfer(&inst.op, u32::from(w));
                let s = kb.sign_transfer(&inst.op, u32::from(w));
                if (k.zero | k.one) != IntBits::ZERO {
                    kb.slot[r.index()] = kb.known.len() as u32;
                    kb.known.push(k);
                }
                kb.signs[r.index()] = s.max(k.sign_bits()).min(u32::from(w));
            }
        }
        kb
    }

    /// What is known of `v` (nothing for arguments and non-integers).
    pub fn of(&self, f: &Function, v: ValueId) -> Known {
        let w = match f.value(v).ty {
            Type::Int(w) => u32::from(w),
            _ => 0,
        };
        if let ValueKind::Arg(_) = f.value(v).kind {
            return Known::unknown(w);
        }
        match self.slot.get(v.index()) {
            Some(&k) if k != NOTHING => self.known[k as usize],
            _ => Known::unknown(w),
        }
    }

    /// How many high bits of operand `o` (an integer) are copies of its
    /// sign bit: at least 1.
    pub fn sign_bits(&self, o: &crate::ir::Operand) -> u32 {
        let w = match o.ty {
            Type::Int(w) => u32::from(w),
            _ => return 1,
        };
        let k = self.operand(o).sign_bits();
        match &o.kind {
            OperandKind::Value(v) => self
                .signs
                .get(v.index())
                .copied()
                .unwrap_or(0)
                .max(k)
                .min(w),
            OperandKind::Const(_) => k,
        }
    }

    /// How many low bits operand `o` (a non-negative integer) can have set:
    /// its width less its known-zero high bits (`None`: its sign bit may be
    /// set).
    pub fn active_bits(&self, o: &crate::ir::Operand) -> Option<u32> {
        let k = self.operand(o);
        k.non_negative().then(|| k.width - k.leading_zeros())
    }

    /// Whether operand `o` is the sign extension of its low 32 bits (it
    /// fits in an `i32`).
    pub fn fits_i32(&self, o: &crate::ir::Operand) -> bool {
        match o.ty {
            Type::Int(w) => {
                let w = u32::from(w);
                w > 32 && self.sign_bits(o) >= w - 31
            }
            _ => false,
        }
    }

    /// The sign bits of an instruction's `w`-bit result from its operands'
    /// (the known bits add theirs in `analyze`).
    fn sign_transfer(&self, op: &Op, w: u32) -> u32 {
        match op {
            Op::Bin { op, lhs, rhs, .. } => {
                if lhs.ty != rhs.ty || lhs.ty != Type::Int(w as u16) {
                    return 1;
                }
                let (a, b) = (self.sign_bits(lhs), self.sign_bits(rhs));
                // A shift by a known amount (below the width).
                let k = self.operand(rhs);
                let amount = k
                    .limb(0)
                    .filter(|&s| s < w && (1..8).all(|i| k.limb(i) == Some(0)));
                match op {
                    BinOp::And | BinOp::Or | BinOp::Xor => a.min(b),
                    BinOp::Add | BinOp::Sub => a.min(b).saturating_sub(1).max(1),
                    // The factors fit in `w - a + 1` and `w - b + 1` signed
                    // bits, so the product in their sum.
                    BinOp::Mul => (a + b).saturating_sub(w + 1).max(1),
                    BinOp::AShr => amount.map_or(a, |s| (a + s).min(w)),
                    BinOp::Shl => amount.map_or(1, |s| a.saturating_sub(s).max(1)),
                    _ => 1,
                }
            }
            Op::Cast {
                op: CastOp::SExt,
                val,
                ..
            } => match val.ty {
                Type::Int(v) if u32::from(v) <= w => self.sign_bits(val) + (w - u32::from(v)),
                _ => 1,
            },
            Op::Cast {
                op: CastOp::Trunc,
                val,
                ..
            } => match val.ty {
                Type::Int(v) if u32::from(v) >= w => {
                    self.sign_bits(val).saturating_sub(u32::from(v) - w).max(1)
                }
                _ => 1,
            },
            Op::Select {
                on_true, on_false, ..
            } if on_true.ty == Type::Int(w as u16) && on_false.ty == on_true.ty => {
                self.sign_bits(on_true).min(self.sign_bits(on_false))
            }
            _ => 1,
        }
    }

    fn operand(&self, o: &crate::ir::Operand) -> Known {
        let w = match o.ty {
            Type::Int(w) => u32::from(w),
            _ => 0,
        };
        match &o.kind {
            OperandKind::Const(c) => match &**c {
                Value::Int(c) => Known::constant(w, c.bits()),
                _ => Known::unknown(w),
            },
            OperandKind::Value(v) => match self.slot.get(v.index()) {
                Some(&k) if k != NOTHING && self.known[k as usize].width == w => {
                    self.known[k as usize]
                }
                _ => Known::unknown(w),
            },
        }
    }

    fn transfer(&self, op: &Op, w: u32) -> Known {
        let m = mask(w);
        match op {
            Op::Bin { op, lhs, rhs, .. } => {
                let (a, b) = (self.operand(lhs), self.operand(rhs));
                if a.width != w || b.width != w {
                    return Known::unknown(w);
                }
                match op {
                    BinOp::And => Known {
                        width: w,
                        zero: a.zero | b.zero,
                        one: a.one & b.one,
                    },
                    BinOp::Or => Known {
                        width: w,
                        zero: a.zero & b.zero,
                        one: a.one | b.one,
                    },
                    BinOp::Xor => Known {
                        width: w,
                        zero: (a.zero & b.zero) | (a.one & b.one),
                        one: (a.zero & b.one) | (a.one & b.zero),
                    },
                    BinOp::Mul => {
                        let lz = (a.leading_zeros() + b.leading_zeros()).saturating_sub(w);
                        let tz = (a.trailing_zeros() + b.trailing_zeros()).min(w);
                        let mut k = Known::with_leading_zeros(w, lz);
                        k.zero |= mask(tz);
                        k
                    }
                    BinOp::Add => {
                        let lz = a.leading_zeros().min(b.leading_zeros()).saturating_sub(1);
                        Known::with_leading_zeros(w, lz)
                    }
                    BinOp::Shl | BinOp::LShr => match b.limb(0).filter(|_| b.width <= 32) {
                        Some(s) if s < w => {
                            let s = s as usize;
                            if *op == BinOp::Shl {
                                Known {
                                    width: w,
                                    zero: ((a.zero << s) | mask(s as u32)) & m,
                                    one: (a.one << s) & m,
                                }
                            } else {
                                Known {
                                    width: w,
                                    zero: (a.zero >> s) | (m & !(m >> s)),
                                    one: a.one >> s,
                                }
                            }
                        }
                        _ if *op == BinOp::LShr => Known::with_leading_zeros(w, a.leading_zeros()),
                        _ => Known::unknown(w),
                    },
                    _ => Known::unknown(w),
                }
            }
            Op::Cast { op, val, .. } => {
                let a = self.operand(val);
                match op {
                    CastOp::ZExt if a.width > 0 && a.width <= w => Known {
                        width: w,
                        zero: a.zero | (m & !mask(a.width)),
                        one: a.one,
                    },
                    CastOp::Trunc if a.width >= w => Known {
                        width: w,
                        zero: a.zero & m,
                        one: a.one & m,
                    },
                    CastOp::SExt if a.width > 0 && a.width <= w => {
                        let sign = a.width - 1;
                        let high = m & !mask(a.width);
                        if a.zero.bit(sign as usize) {
                            Known {
                                width: w,
                                zero: a.zero | high,
                                one: a.one,
                            }
                        } else if a.one.bit(sign as usize) {
                            Known {
                                width: w,
                                zero: a.zero,
                                one: a.one | high,
                            }
                        } else {
                            Known {
                                width: w,
                                zero: a.zero,
                                one: a.one,
                            }
                        }
                    }
                    _ => Known::unknown(w),
                }
            }
            Op::Select {
                on_true, on_false, ..
            } => {
                let (a, b) = (self.operand(on_true), self.operand(on_false));
                if a.width == w && b.width == w {
                    Known::meet(a, b)
                } else {
                    Known::unknown(w)
                }
            }
            // A lane's id within its work-group is below the work-group
            // size (at most 1024 on GCN; LLVM attaches that range), so
            // never negative: a `getelementptr` by it sign-extends for
            // free.
            Op::Call {
                callee: Builtin::WorkitemIdX,
                ..
            } => Known::with_leading_zeros(w, 1),
            _ => Known::unknown(w),
        }
    }
}
