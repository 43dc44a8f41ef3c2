//! Values of the subset's types, shared by the IR (constants) and the
//! interpreter (runtime values), and their LLVM text form.
//!
//! Integers of every width are held in a [`IntBits`] from the `ruint` crate,
//! masked to their width; `half` is [`half::f16`]. Equality is bitwise
//! (two NaNs with the same bits are equal, `0.0` and `-0.0` are not), which
//! is what comparing a target simulator against this reference needs.
//!
//! Constants print as LLVM 14's `llvm-dis` prints them: integers in signed
//! decimal (`i128 -5`), `i1` as `true`/`false`, `half` as `0xH3C00`, `float`
//! as `1.500000e+00` when six decimals give back the exact value and
//! otherwise as the hex bits of the value widened to `double`
//! (`0x3FB99999A0000000`), all-zero vectors as `zeroinitializer`.

use std::fmt;

use half::f16;
/// The bits of an integer value: as wide as the widest integer type.
pub type IntBits = ruint::Uint<
    { crate::types::MAX_INT_WIDTH as usize },
    { crate::types::MAX_INT_WIDTH as usize / 64 },
>;

/// Twice [`IntBits`]: a full product of two of them.
pub type IntBitsWide = ruint::Uint<
    { 2 * crate::types::MAX_INT_WIDTH as usize },
    { crate::types::MAX_INT_WIDTH as usize / 32 },
>;

use crate::types::{Scalar, Type};

/// An integer of width 1..=[`crate::types::MAX_INT_WIDTH`], kept zero-extended (bits above the width are 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntValue {
    width: u16,
    bits: IntBits,
}

/// The mask of the low `width` bits.
pub fn width_mask(width: u16) -> IntBits {
    if usize::from(width) >= IntBits::BITS {
        IntBits::MAX
    } else {
        (IntBits::from(1u8) << usize::from(width)) - IntBits::from(1u8)
    }
}

impl IntValue {
    /// `bits` truncated to `width` (modulo 2^width, as LLVM truncates).
    pub fn new(width: u16, bits: IntBits) -> Self {
        IntValue {
            width,
            bits: bits & width_mask(width),
        }
    }

    pub fn from_u64(width: u16, v: u64) -> Self {
        Self::new(width, IntBits::from(v))
    }

    /// `v` in two's complement, truncated to `width`.
    pub fn from_i128(width: u16, v: i128) -> Self {
        let mag = IntBits::from(v.unsigned_abs());
        let bits = if v < 0 { mag.wrapping_neg() } else { mag };
        Self::new(width, bits)
    }

    pub fn bool(b: bool) -> Self {
        Self::from_u64(1, u64::from(b))
    }

    pub fn zero(width: u16) -> Self {
        Self::new(width, IntBits::ZERO)
    }

    pub fn width(&self) -> u16 {
        self.width
    }

    /// The value zero-extended to [`IntBits`]' width.
    pub fn bits(&self) -> IntBits {
        self.bits
    }

    pub fn is_zero(&self) -> bool {
        self.bits == IntBits::ZERO
    }

    /// The sign bit (the top bit of the width).
    pub fn is_negative(&self) -> bool {
        self.bits.bit(usize::from(self.width) - 1)
    }

    /// The value sign-extended to [`IntBits`]' width.
    pub fn sext_bits(&self) -> IntBits {
        if self.is_negative() {
            self.bits | !width_mask(self.width)
        } else {
            self.bits
        }
    }

    /// The low 64 bits.
    pub fn low_u64(&self) -> u64 {
        self.bits.as_limbs()[0]
    }

    /// The value as an unsigned `u64`, if it fits.
    pub fn to_u64(&self) -> Option<u64> {
        u64::try_from(self.bits).ok()
    }

    /// The value read as signed, if it fits an `i128`.
    pub fn to_i128(&self) -> Option<i128> {
        if self.is_negative() {
            let mag = (!self.sext_bits()).wrapping_add(IntBits::from(1u8));
            let m = u128::try_from(mag).ok()?;
            0i128.checked_sub_unsigned(m)
        } else {
            i128::try_from(u128::try_from(self.bits).ok()?).ok()
        }
    }

    /// Signed decimal, as LLVM prints integer constants (`-1` for `i8 255`).
    pub fn signed_decimal(&self) -> String {
        if self.is_negative() {
            // (The most negative value is its own magnitude.)
            let mag = self.bits.wrapping_neg() & width_mask(self.width);
            format!("-{mag}")
        } else {
            self.bits.to_string()
        }
    }

    /// Parses LLVM's decimal integer literal (`-?[0-9]+`) for `width`,
    /// truncating modulo 2^width as LLVM's parser does (`i8 300` is 44).
    pub fn parse_decimal(width: u16, text: &str) -> Option<Self> {
        let (neg, digits) = match text.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, text),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let ten = IntBits::from(10u8);
        let mut acc = IntBits::ZERO;
        for b in digits.bytes() {
            acc = acc.wrapping_mul(ten).wrapping_add(IntBits::from(b - b'0'));
        }
        Some(Self::new(width, if neg { acc.wrapping_neg() } else { acc }))
    }
}

/// An element of a vector, or a scalar.
#[derive(Clone, Copy, Debug)]
pub enum ScalarValue {
    Int(IntValue),
    Half(f16),
    Float(f32),
}

/// A value of one of the subset's first-class types.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    Int(IntValue),
    Half(f16),
    Float(f32),
    /// Both elements have the same type.
    Vec2([ScalarValue; 2]),
    /// A byte address in global memory (`addrspace(1)`).
    Ptr(u64),
}

impl ScalarValue {
    pub fn scalar_type(&self) -> Scalar {
        match self {
            ScalarValue::Int(i) => Scalar::Int(i.width()),
            ScalarValue::Half(_) => Scalar::Half,
            ScalarValue::Float(_) => Scalar::Float,
        }
    }

    pub fn value(self) -> Value {
        match self {
            ScalarValue::Int(i) => Value::Int(i),
            ScalarValue::Half(h) => Value::Half(h),
            ScalarValue::Float(f) => Value::Float(f),
        }
    }

    /// The raw bits, zero-extended.
    pub fn to_bits(&self) -> IntBits {
        match self {
            ScalarValue::Int(i) => i.bits(),
            ScalarValue::Half(h) => IntBits::from(h.to_bits()),
            ScalarValue::Float(f) => IntBits::from(f.to_bits()),
        }
    }

    /// The element of type `s` whose bits are the low bits of `bits`.
    pub fn from_bits(s: Scalar, bits: IntBits) -> Self {
        let low = bits.as_limbs()[0];
        match s {
            Scalar::Int(w) => ScalarValue::Int(IntValue::new(w, bits)),
            Scalar::Half => ScalarValue::Half(f16::from_bits(low as u16)),
            Scalar::Float => ScalarValue::Float(f32::from_bits(low as u32)),
        }
    }

    pub fn zero(s: Scalar) -> Self {
        Self::from_bits(s, IntBits::ZERO)
    }
}

impl Value {
    pub fn int(width: u16, v: i128) -> Self {
        Value::Int(IntValue::from_i128(width, v))
    }

    pub fn bool(b: bool) -> Self {
        Value::Int(IntValue::bool(b))
    }

    pub fn ty(&self) -> Type {
        match self {
            Value::Int(i) => Type::Int(i.width()),
            Value::Half(_) => Type::Half,
            Value::Float(_) => Type::Float,
            Value::Vec2(e) => Type::Vec2(e[0].scalar_type()),
            Value::Ptr(_) => Type::Ptr,
        }
    }

    /// The scalar view of a non-vector, non-pointer value.
    pub fn as_scalar(&self) -> Option<ScalarValue> {
        match *self {
            Value::Int(i) => Some(ScalarValue::Int(i)),
            Value::Half(h) => Some(ScalarValue::Half(h)),
            Value::Float(f) => Some(ScalarValue::Float(f)),
            Value::Vec2(_) | Value::Ptr(_) => None,
        }
    }

    pub fn as_int(&self) -> Option<IntValue> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The value's bits as a little-endian target lays them out: vector
    /// element 0 in the low bits (what `bitcast` and memory see).
    pub fn to_bits(&self) -> IntBits {
        match self {
            Value::Vec2([a, b]) => {
                let w = a.scalar_type().bits() as usize;
                a.to_bits() | (b.to_bits() << w)
            }
            Value::Ptr(p) => IntBits::from(*p),
            other => other.as_scalar().map_or(IntBits::ZERO, |s| s.to_bits()),
        }
    }

    /// The value of type `ty` with the given bits (the inverse of
    /// [`Value::to_bits`]); `None` for `void`.
    pub fn from_bits(ty: Type, bits: IntBits) -> Option<Self> {
        Some(match ty {
            Type::Void => return None,
            Type::Ptr => Value::Ptr(bits.as_limbs()[0]),
            Type::Vec2(s) => {
                let w = s.bits() as usize;
                let m = width_mask(w as u16);
                Value::Vec2([
                    ScalarValue::from_bits(s, bits & m),
                    ScalarValue::from_bits(s, (bits >> w) & m),
                ])
            }
            Type::Int(w) => Value::Int(IntValue::new(w, bits)),
            Type::Half => Value::Half(f16::from_bits(bits.as_limbs()[0] as u16)),
            Type::Float => Value::Float(f32::from_bits(bits.as_limbs()[0] as u32)),
        })
    }

    /// The zero value of `ty` (`zeroinitializer`, `null`, `0`, `0.0`).
    pub fn zero(ty: Type) -> Option<Self> {
        Self::from_bits(ty, IntBits::ZERO)
    }

    /// The bytes a store writes: [`Type::store_size`] bytes, little-endian.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let n = self.ty().store_size() as usize;
        let mut bytes = self.to_bits().to_le_bytes_vec();
        bytes.truncate(n);
        bytes
    }

    /// The value a load of `ty` reads from `bytes` (little-endian; `i1`
    /// reads bit 0 of its byte). `None` if `bytes` is too short.
    pub fn from_le_bytes(ty: Type, bytes: &[u8]) -> Option<Self> {
        let n = ty.store_size() as usize;
        let src = bytes.get(..n)?;
        Self::from_bits(ty, IntBits::try_from_le_slice(src)?)
    }

    /// The constant without its type: `5`, `true`, `0xH3C00`, `<i16 1, i16 2>`.
    pub fn operand_text(&self) -> String {
        match self {
            Value::Int(i) if i.width() == 1 => {
                if i.is_zero() { "false" } else { "true" }.to_string()
            }
            Value::Int(i) => i.signed_decimal(),
            Value::Half(h) => format!("0xH{:04X}", h.to_bits()),
            Value::Float(f) => float_text(f64::from(*f)),
            Value::Vec2(e) => {
                if self.to_bits() == IntBits::ZERO {
                    "zeroinitializer".to_string()
                } else {
                    let t = e[0].scalar_type();
                    format!(
                        "<{t} {}, {t} {}>",
                        e[0].value().operand_text(),
                        e[1].value().operand_text()
                    )
                }
            }
            Value::Ptr(0) => "null".to_string(),
            Value::Ptr(a) => format!("inttoptr (i64 {} to ptr addrspace(1))", *a as i64),
        }
    }
}

/// Bitwise equality (see the module doc).
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        self.ty() == other.ty() && self.to_bits() == other.to_bits()
    }
}

impl Eq for Value {}

impl PartialEq for ScalarValue {
    fn eq(&self, other: &Self) -> bool {
        self.scalar_type() == other.scalar_type() && self.to_bits() == other.to_bits()
    }
}

impl Eq for ScalarValue {}

/// `TYPE CONSTANT`, as LLVM prints a typed constant (`i128 -5`).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.ty(), self.operand_text())
    }
}

/// LLVM's text for a `float` or `double` constant holding `v`: `%e` with six
/// decimals when that reads back as exactly `v`, else `0x` and the 16 hex
/// digits of the `double` (infinities and NaNs always take the hex form).
pub fn float_text(v: f64) -> String {
    if v.is_finite() {
        let e = format!("{v:.6e}");
        if e.parse::<f64>()
            .ok()
            .is_some_and(|back| back.to_bits() == v.to_bits())
        {
            if let Some((mantissa, exp)) = e.split_once('e') {
                let (sign, digits) = match exp.strip_prefix('-') {
                    Some(d) => ('-', d),
                    None => ('+', exp),
                };
                return format!("{mantissa}e{sign}{digits:0>2}");
            }
        }
    }
    format!("0x{:016X}", v.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_print_signed() {
        assert_eq!(Value::int(8, 255).to_string(), "i8 -1");
        assert_eq!(Value::int(128, -5).to_string(), "i128 -5");
        assert_eq!(Value::int(1, 1).to_string(), "i1 true");
        let min = IntValue::new(8, IntBits::from(0x80u8));
        assert_eq!(min.signed_decimal(), "-128");
        let min256 = IntValue::new(256, IntBits::from(1u8) << 255);
        assert!(min256
            .signed_decimal()
            .starts_with("-5789604461865809771178549250434395392663"));
        assert_eq!(
            IntValue::parse_decimal(8, "300").map(|v| v.low_u64()),
            Some(44)
        );
        assert_eq!(
            IntValue::parse_decimal(16, "-1").map(|v| v.low_u64()),
            Some(0xffff)
        );
    }

    #[test]
    fn floats_print_like_llvm() {
        assert_eq!(float_text(1.5), "1.500000e+00");
        assert_eq!(float_text(f64::from(0.1f32)), "0x3FB99999A0000000");
        assert_eq!(float_text(1.0e10), "1.000000e+10");
        assert_eq!(float_text(16777216.0), "0x4170000000000000");
        assert_eq!(float_text(-0.0), "-0.000000e+00");
        assert_eq!(float_text(f64::INFINITY), "0x7FF0000000000000");
        assert_eq!(Value::Half(f16::ONE).to_string(), "half 0xH3C00");
    }

    #[test]
    fn vectors_and_bits() {
        let v = Value::from_bits(Type::Vec2(Scalar::Int(16)), IntBits::from(0x0002_0001u32));
        assert_eq!(
            v.map(|v| v.to_string()).as_deref(),
            Some("<2 x i16> <i16 1, i16 2>")
        );
        let z = Value::zero(Type::Vec2(Scalar::Half));
        assert_eq!(
            z.map(|v| v.operand_text()).as_deref(),
            Some("zeroinitializer")
        );
        let bytes = Value::int(32, 0x0403_0201).to_le_bytes();
        assert_eq!(bytes, vec![1, 2, 3, 4]);
        assert_eq!(
            Value::from_le_bytes(Type::Int(32), &bytes),
            Some(Value::int(32, 0x0403_0201))
        );
    }
}
