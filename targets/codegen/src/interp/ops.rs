//! The semantics of each operation, as pure functions on [`Value`]s.
//!
//! Integers: results wrap modulo 2^width. Where LLVM's result would be
//! poison (`nuw`/`nsw`/`exact` violated, a shift by at least the width, an
//! out-of-range vector index), the function returns `Err` with the reason:
//! the subset is poison-free, so the reference reports instead of inventing
//! a value.
//!
//! Floating point: IEEE 754 binary32/binary16, round to nearest even, no
//! flushing of subnormals. `half` operations are computed in `float` and
//! rounded once to `half`; for `+ - *` this is exact-then-rounded, because
//! binary32 has at least 2×11+2 significand bits (double rounding is
//! innocuous). NaN results are made deterministic and equal to what x86-64
//! SSE (and so `lli` on x86-64) produces: a NaN operand is returned quieted
//! (the first one if both are NaN), and an invalid operation (`inf - inf`,
//! `0 * inf`) gives the default NaN `0xFFC00000` (`half` `0xFE00`). LLVM
//! itself leaves NaN bits unspecified, so a target simulator should compare
//! NaNs by class only.

use crate::value::{IntBits, IntBitsWide};
use half::f16;

use crate::ir::types::Type;
use crate::ir::{BinOp, CastOp, FBinOp, FastMath, IntFlags, IntPredicate};
use crate::value::{width_mask, IntValue, ScalarValue, Value};

use crate::interp::fault::Fault;

type Res<T> = Result<T, Fault>;

fn operands(op: impl Into<String>, detail: impl Into<String>) -> Fault {
    Fault::Operands {
        op: op.into(),
        detail: detail.into(),
    }
}

/// Applies `f` to each element of a vector, or to the scalar.
fn elementwise(
    a: &Value,
    b: &Value,
    f: impl Fn(ScalarValue, ScalarValue) -> Res<ScalarValue>,
) -> Res<Value> {
    match (a, b) {
        (Value::Vec2([a0, a1]), Value::Vec2([b0, b1])) => {
            Ok(Value::Vec2([f(*a0, *b0)?, f(*a1, *b1)?]))
        }
        _ => match (a.as_scalar(), b.as_scalar()) {
            (Some(x), Some(y)) => Ok(f(x, y)?.value()),
            _ => Err(operands(
                "operation",
                format!("cannot take `{a}` and `{b}`"),
            )),
        },
    }
}

/// An integer binary operation (element-wise on integer vectors).
pub fn bin(op: BinOp, flags: IntFlags, a: &Value, b: &Value) -> Res<Value> {
    elementwise(a, b, |x, y| match (x, y) {
        (ScalarValue::Int(x), ScalarValue::Int(y)) => {
            Ok(ScalarValue::Int(int_bin(op, flags, x, y)?))
        }
        _ => Err(operands(op.name(), "needs integer operands")),
    })
}

fn sign_bit(w: u16) -> IntBits {
    IntBits::from(1u8) << usize::from(w - 1)
}

/// `x` shifted right arithmetically within width `w`.
fn ashr_bits(x: IntValue, s: usize) -> IntBits {
    x.sext_bits().arithmetic_shr(s) & width_mask(x.width())
}

fn int_bin(op: BinOp, flags: IntFlags, a: IntValue, b: IntValue) -> Res<IntValue> {
    let w = a.width();
    let (x, y) = (a.bits(), b.bits());
    let r = |bits: IntBits| IntValue::new(w, bits);
    let poison = |why: &'static str| Err(Fault::Poison { op: op.name(), why });
    match op {
        BinOp::Add | BinOp::Sub => {
            let out = if op == BinOp::Add {
                r(x.wrapping_add(y))
            } else {
                r(x.wrapping_sub(y))
            };
            if flags.nuw {
                let wrapped = if op == BinOp::Add {
                    let (sum, carry) = x.overflowing_add(y);
                    carry
                        || (usize::from(w) < IntBits::BITS
                            && sum >> usize::from(w) != IntBits::ZERO)
                } else {
                    x < y
                };
                if wrapped {
                    return poison("with `nuw` wraps around (unsigned overflow)");
                }
            }
            if flags.nsw {
                let (sa, sb, sr) = (a.is_negative(), b.is_negative(), out.is_negative());
                let overflow = if op == BinOp::Add {
                    sa == sb && sr != sa
                } else {
                    sa != sb && sr != sa
                };
                if overflow {
                    return poison("with `nsw` overflows (signed overflow)");
                }
            }
            Ok(out)
        }
        BinOp::Mul => {
            let out = r(x.wrapping_mul(y));
            if flags.nuw {
                let full: IntBitsWide = x.widening_mul(y);
                if full >> usize::from(w) != IntBitsWide::ZERO {
                    return poison("with `nuw` overflows (unsigned)");
                }
            }
            if flags.nsw {
                let mag = |v: IntValue| {
                    if v.is_negative() {
                        v.sext_bits().wrapping_neg()
                    } else {
                        v.bits()
                    }
                };
                let p: IntBitsWide = mag(a).widening_mul(mag(b));
                let negative = a.is_negative() != b.is_negative() && p != IntBitsWide::ZERO;
                let limit = IntBitsWide::from(1u8) << usize::from(w - 1);
                let fits = if negative { p <= limit } else { p < limit };
                if !fits {
                    return poison("with `nsw` overflows (signed)");
                }
            }
            Ok(out)
        }
        BinOp::And => Ok(r(x & y)),
        BinOp::Or => Ok(r(x | y)),
        BinOp::Xor => Ok(r(x ^ y)),
        BinOp::Shl | BinOp::LShr | BinOp::AShr => {
            if y >= IntBits::from(w) {
                return Err(Fault::ShiftTooFar {
                    op: op.name(),
                    amount: b.bits().to_string(),
                    width: w,
                });
            }
            let s = y.as_limbs()[0] as usize;
            match op {
                BinOp::Shl => {
                    let out = r(x << s);
                    if flags.nuw && out.bits() >> s != x {
                        return poison("with `nuw` shifts out a set bit");
                    }
                    if flags.nsw && ashr_bits(out, s) != x {
                        return poison(
                            "with `nsw` shifts out a bit that differs from the sign bit",
                        );
                    }
                    Ok(out)
                }
                _ => {
                    let out = if op == BinOp::LShr {
                        r(x >> s)
                    } else {
                        r(ashr_bits(a, s))
                    };
                    if flags.exact && (out.bits() << s) & width_mask(w) != x {
                        return poison("with `exact` shifts out a set bit");
                    }
                    Ok(out)
                }
            }
        }
    }
}

/// The NaN x86-64 SSE returns for an operation with these operands.
fn nan_of(a: f32, b: f32) -> f32 {
    let quiet = |v: f32| f32::from_bits(v.to_bits() | 0x0040_0000);
    if a.is_nan() {
        quiet(a)
    } else if b.is_nan() {
        quiet(b)
    } else {
        f32::from_bits(0xFFC0_0000)
    }
}

fn f32_op(op: FBinOp, a: f32, b: f32) -> f32 {
    let r = match op {
        FBinOp::FAdd => a + b,
        FBinOp::FSub => a - b,
        FBinOp::FMul => a * b,
    };
    if r.is_nan() {
        nan_of(a, b)
    } else {
        r
    }
}

/// `fadd`/`fsub`/`fmul` (element-wise on `<2 x half>`).
pub fn fbin(op: FBinOp, fmf: FastMath, a: &Value, b: &Value) -> Res<Value> {
    elementwise(a, b, |x, y| {
        let (fa, fb, is_half) = match (x, y) {
            (ScalarValue::Float(p), ScalarValue::Float(q)) => (p, q, false),
            (ScalarValue::Half(p), ScalarValue::Half(q)) => (p.to_f32(), q.to_f32(), true),
            _ => return Err(operands(op.name(), "needs floating-point operands")),
        };
        let r = f32_op(op, fa, fb);
        let out = if is_half {
            ScalarValue::Half(f16::from_f32(r))
        } else {
            ScalarValue::Float(r)
        };
        let rf = match out {
            ScalarValue::Half(h) => h.to_f32(),
            ScalarValue::Float(f) => f,
            ScalarValue::Int(_) => r,
        };
        if fmf.nnan() && (fa.is_nan() || fb.is_nan() || rf.is_nan()) {
            return Err(Fault::Poison {
                op: op.name(),
                why: "with `nnan` meets a NaN",
            });
        }
        if fmf.ninf() && (fa.is_infinite() || fb.is_infinite() || rf.is_infinite()) {
            return Err(Fault::Poison {
                op: op.name(),
                why: "with `ninf` meets an infinity",
            });
        }
        Ok(out)
    })
}

/// `icmp` on integers or pointers.
pub fn icmp(pred: IntPredicate, a: &Value, b: &Value) -> Res<bool> {
    let (x, y, w) = match (a, b) {
        (Value::Int(x), Value::Int(y)) => (x.bits(), y.bits(), x.width()),
        (Value::Ptr(x), Value::Ptr(y)) => (IntBits::from(*x), IntBits::from(*y), 64),
        _ => return Err(operands("icmp", format!("cannot compare `{a}` and `{b}`"))),
    };
    // Signed order is unsigned order with the sign bit flipped.
    let flip = sign_bit(w);
    let (sx, sy) = (x ^ flip, y ^ flip);
    Ok(pred.holds(x.cmp(&y), sx.cmp(&sy)))
}

/// `zext`/`sext`/`trunc` (element-wise on vectors) and `bitcast`.
pub fn cast(op: CastOp, v: &Value, to: Type) -> Res<Value> {
    let int_cast = |s: ScalarValue, w: u16| -> Res<ScalarValue> {
        let ScalarValue::Int(i) = s else {
            return Err(operands(op.name(), "needs an integer"));
        };
        Ok(ScalarValue::Int(match op {
            CastOp::SExt => IntValue::new(w, i.sext_bits()),
            _ => IntValue::new(w, i.bits()),
        }))
    };
    match op {
        CastOp::Bitcast => Value::from_bits(to, v.to_bits())
            .ok_or_else(|| operands("bitcast", format!("cannot produce `{to}`"))),
        _ => match (v, to) {
            (Value::Int(_), Type::Int(w)) => v
                .as_scalar()
                .ok_or_else(|| operands(op.name(), "needs an integer"))
                .and_then(|s| int_cast(s, w))
                .map(ScalarValue::value),
            (Value::Vec2([a, b]), Type::Vec2(crate::ir::Scalar::Int(w))) => {
                Ok(Value::Vec2([int_cast(*a, w)?, int_cast(*b, w)?]))
            }
            _ => Err(operands(op.name(), format!("cannot take `{v}` to `{to}`"))),
        },
    }
}

/// The element index of `extractelement`/`insertelement`.
pub fn vector_index(index: &Value) -> Res<usize> {
    match index.as_int().and_then(|i| i.to_u64()) {
        Some(n) if n < 2 => Ok(n as usize),
        _ => Err(Fault::VectorIndex {
            index: index
                .as_int()
                .map_or_else(|| index.to_string(), |i| i.bits().to_string()),
        }),
    }
}

/// `base + sext(index) * size`, in 64-bit wrapping address arithmetic
/// (LLVM truncates or sign-extends the index to the pointer's index width).
pub fn gep(base: u64, index: IntValue, size: u64) -> u64 {
    let idx = index.sext_bits().as_limbs()[0];
    base.wrapping_add(idx.wrapping_mul(size))
}

/// OpenCL's `mul_hi(x, y)` for `bits`-bit integers (at most 64): the high
/// half of the full `2 * bits`-bit product of the operands read as signed
/// or unsigned (OpenCL 1.2, 6.12.3).
pub fn mul_hi(x: &IntValue, y: &IntValue, signed: bool, bits: u16) -> Res<Value> {
    if bits == 0 || bits > 64 || x.width() != bits || y.width() != bits {
        return Err(operands(
            "mul_hi",
            format!("needs two i{bits} operands (at most i64)"),
        ));
    }
    let product: i128 = if signed {
        let (Some(a), Some(b)) = (x.to_i128(), y.to_i128()) else {
            return Err(operands("mul_hi", "operand out of range"));
        };
        a * b
    } else {
        let (a, b) = (u128::from(x.low_u64()), u128::from(y.low_u64()));
        // Reinterpreted: only the bits matter from here on.
        (a * b) as i128
    };
    let hi = (product >> bits) as u128 as u64;
    Ok(Value::Int(IntValue::from_u64(bits, hi)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(w: u16, v: i128) -> Value {
        Value::int(w, v)
    }

    const NONE: IntFlags = IntFlags {
        nuw: false,
        nsw: false,
        exact: false,
    };

    #[test]
    fn mul_hi_semantics() {
        let m = |x: i128, y: i128, signed: bool, bits: u16| match mul_hi(
            &IntValue::from_i128(bits, x),
            &IntValue::from_i128(bits, y),
            signed,
            bits,
        ) {
            Ok(Value::Int(v)) => v.low_u64(),
            other => panic!("{other:?}"),
        };
        assert_eq!(m(-1, -1, false, 64), u64::MAX - 1);
        assert_eq!(m(-1, -1, true, 64), 0);
        assert_eq!(m(-1, 1, true, 64), u64::MAX);
        assert_eq!(m(1 << 40, 1 << 40, false, 64), 1 << 16);
        assert_eq!(m(0xFFFF_FFFF, 0xFFFF_FFFF, false, 32), 0xFFFF_FFFE);
        assert_eq!(m(-2, 3, true, 8), 0xFF);
        assert_eq!(m(200, 200, false, 8), (200 * 200) >> 8);
    }

    #[test]
    fn wrapping_and_shifts() {
        assert_eq!(bin(BinOp::Add, NONE, &i(8, 200), &i(8, 100)), Ok(i(8, 44)));
        assert_eq!(
            bin(BinOp::Mul, NONE, &i(128, -1), &i(128, -1)),
            Ok(i(128, 1))
        );
        assert_eq!(bin(BinOp::AShr, NONE, &i(16, -8), &i(16, 2)), Ok(i(16, -2)));
        assert_eq!(
            bin(BinOp::LShr, NONE, &i(16, -8), &i(16, 2)),
            Ok(i(16, 0x3ffe))
        );
        assert!(bin(BinOp::Shl, NONE, &i(32, 1), &i(32, 32)).is_err());
        assert_eq!(
            bin(BinOp::Shl, NONE, &i(256, 1), &i(256, 255)).map(|v| v.to_bits() >> 255),
            Ok(IntBits::from(1u8))
        );
    }

    #[test]
    fn poison_flags() {
        let nsw = IntFlags { nsw: true, ..NONE };
        let nuw = IntFlags { nuw: true, ..NONE };
        assert!(bin(BinOp::Add, nsw, &i(8, 127), &i(8, 1)).is_err());
        assert!(bin(BinOp::Add, nuw, &i(8, 127), &i(8, 1)).is_ok());
        assert!(bin(BinOp::Add, nuw, &i(8, -1), &i(8, 1)).is_err());
        assert!(bin(BinOp::Add, nuw, &i(256, -1), &i(256, 1)).is_err());
        assert!(bin(BinOp::Sub, nuw, &i(8, 0), &i(8, 1)).is_err());
        assert!(bin(BinOp::Mul, nsw, &i(8, -128), &i(8, 1)).is_ok());
        assert!(bin(BinOp::Mul, nsw, &i(8, -128), &i(8, -1)).is_err());
        assert!(bin(BinOp::Mul, nsw, &i(8, -16), &i(8, 8)).is_ok());
        assert!(bin(BinOp::Mul, nuw, &i(256, 1 << 100), &i(256, 1 << 100)).is_ok());
        assert!(bin(BinOp::Shl, nsw, &i(8, 64), &i(8, 1)).is_err());
        assert!(bin(BinOp::Shl, nsw, &i(8, -64), &i(8, 1)).is_ok());
        let exact = IntFlags {
            exact: true,
            ..NONE
        };
        assert!(bin(BinOp::LShr, exact, &i(8, 3), &i(8, 1)).is_err());
    }

    #[test]
    fn signed_compare_and_casts() {
        assert_eq!(icmp(IntPredicate::Slt, &i(64, -1), &i(64, 0)), Ok(true));
        assert_eq!(icmp(IntPredicate::Ult, &i(64, -1), &i(64, 0)), Ok(false));
        assert_eq!(
            cast(CastOp::SExt, &i(8, -2), Type::Int(128)),
            Ok(i(128, -2))
        );
        assert_eq!(cast(CastOp::ZExt, &i(8, -2), Type::Int(16)), Ok(i(16, 254)));
        assert_eq!(
            cast(CastOp::Trunc, &i(32, 0x12345), Type::Int(16)),
            Ok(i(16, 0x2345))
        );
        let h = cast(CastOp::Bitcast, &i(16, 0x3C00), Type::Half);
        assert_eq!(h, Ok(Value::Half(f16::ONE)));
    }

    #[test]
    fn floats_and_nans() {
        let one = Value::Half(f16::ONE);
        assert_eq!(
            fbin(FBinOp::FAdd, FastMath::default(), &one, &one),
            Ok(Value::Half(f16::from_f32(2.0)))
        );
        let inf = Value::Float(f32::INFINITY);
        let r = fbin(FBinOp::FSub, FastMath::default(), &inf, &inf);
        assert_eq!(r.map(|v| v.to_bits()), Ok(IntBits::from(0xFFC0_0000u32)));
        let mut nnan = FastMath::default();
        nnan.add("nnan");
        assert!(fbin(FBinOp::FSub, nnan, &inf, &inf).is_err());
    }
}
