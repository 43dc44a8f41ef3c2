//! The types of the subset: `void`, the integer widths, `half`, `float`,
//! the three two-element vectors and `ptr addrspace(1)`.

use std::fmt;

/// The widest integer the subset accepts (`i1` to `i256`, any width).
pub const MAX_INT_WIDTH: u16 = 512;

/// The usual integer widths (random tests draw from them).
pub const INT_WIDTHS: [u16; 7] = [1, 8, 16, 32, 64, 128, 256];

/// A scalar type: what a vector element can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// `iN`, `N` from 1 to [`MAX_INT_WIDTH`].
    Int(u16),
    Half,
    Float,
}

/// A first-class type of the subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// Only as a return type.
    Void,
    Int(u16),
    Half,
    Float,
    /// `<2 x i16>`, `<2 x half>`, `<2 x i32>`: always two elements.
    Vec2(Scalar),
    /// `ptr addrspace(1)`: a 64-bit byte address into global memory.
    Ptr,
}

impl Scalar {
    pub fn ty(self) -> Type {
        match self {
            Scalar::Int(w) => Type::Int(w),
            Scalar::Half => Type::Half,
            Scalar::Float => Type::Float,
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Int(w) => u32::from(w),
            Scalar::Half => 16,
            Scalar::Float => 32,
        }
    }
}

impl Type {
    /// The vector element type, or the type itself for scalars.
    pub fn scalar(self) -> Option<Scalar> {
        match self {
            Type::Int(w) => Some(Scalar::Int(w)),
            Type::Half => Some(Scalar::Half),
            Type::Float => Some(Scalar::Float),
            Type::Vec2(s) => Some(s),
            Type::Void | Type::Ptr => None,
        }
    }

    pub fn is_int(self) -> bool {
        matches!(self, Type::Int(_))
    }

    /// An integer or a vector of integers.
    pub fn is_int_or_int_vector(self) -> bool {
        matches!(self.scalar(), Some(Scalar::Int(_)))
    }

    /// `half`, `float` or `<2 x half>`.
    pub fn is_fp_or_fp_vector(self) -> bool {
        matches!(self.scalar(), Some(Scalar::Half | Scalar::Float))
    }

    /// Number of bits (LLVM's primitive size); 0 for `void`.
    pub fn bits(self) -> u32 {
        match self {
            Type::Void => 0,
            Type::Ptr => 64,
            Type::Vec2(s) => 2 * s.bits(),
            other => other.scalar().map_or(0, Scalar::bits),
        }
    }

    /// Bytes a load or store touches, and the stride of a `getelementptr`
    /// (LLVM's store size: bits rounded up to bytes; `i1` takes a byte).
    /// In the subset the allocation size equals the store size.
    pub fn store_size(self) -> u64 {
        u64::from(self.bits().div_ceil(8))
    }

    /// Whether the value has a size (everything but `void`).
    pub fn is_sized(self) -> bool {
        self != Type::Void
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Int(w) => write!(f, "i{w}"),
            Scalar::Half => f.write_str("half"),
            Scalar::Float => f.write_str("float"),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Vec2(s) => write!(f, "<2 x {s}>"),
            Type::Ptr => f.write_str("ptr addrspace(1)"),
            other => match other.scalar() {
                Some(s) => s.fmt(f),
                None => Ok(()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_names() {
        assert_eq!(Type::Int(1).store_size(), 1);
        assert_eq!(Type::Int(256).store_size(), 32);
        assert_eq!(Type::Vec2(Scalar::Half).store_size(), 4);
        assert_eq!(Type::Ptr.store_size(), 8);
        assert_eq!(Type::Vec2(Scalar::Int(32)).to_string(), "<2 x i32>");
        assert_eq!(Type::Ptr.to_string(), "ptr addrspace(1)");
    }
}
