//! `getelementptr`: the source element type, its memory layout, and the
//! byte offset each index selects.
//!
//! LLVM's `getelementptr T, ptr %p, i64 %i, ...` adds `sext(%i) *
//! alloc_size(T)` for the first index and then walks into `T`: an index into
//! an array or a vector adds `sext(index) * alloc_size(element)`, an index
//! into a struct (a constant `i32`) adds the field's offset. The reader
//! resolves the walk once ([`GepStep`] per index), so the interpreter and the
//! legalizer only add `Σ step`.
//!
//! Sizes and alignments follow LLVM's `DataLayout` rules for the data layouts
//! of the two triples the project reads (`spir64` and `amdgcn`), which both
//! give `i64` 64-bit alignment and leave the rest at LLVM's defaults:
//! - `iN`: store size `ceil(N/8)`; ABI alignment that of the smallest of
//!   i8/i16/i32/i64 at least as wide, and 8 bytes past 64 bits (LLVM takes
//!   the largest integer alignment listed);
//! - `half` 2, `float` 4, `ptr addrspace(1)` 8 bytes, naturally aligned;
//! - vectors: store size `ceil(n * bits / 8)`, aligned to that rounded up
//!   to a power of two (LLVM's natural vector alignment, which is also what
//!   the spir64 layout's `v24:32-v48:64-v96:128...` entries spell out);
//! - arrays: `n * alloc_size(element)`, aligned as the element;
//! - structs: each field at the next multiple of its alignment, the size
//!   rounded up to the largest alignment; packed structs (`<{ ... }>`) have
//!   no padding and alignment 1.
//!
//! The allocation size is the store size rounded up to the alignment.

use std::fmt;

use crate::ir::types::Type;
use crate::ir::Operand;

/// A `getelementptr` source element type: a first-class type of the subset
/// or an aggregate of them (aggregates exist only here, as address layouts).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GepType {
    Value(Type),
    /// `<n x T>` with a scalar `T` (any width: `<4 x i32>`, `<3 x float>`).
    Vector {
        len: u64,
        elem: Type,
    },
    /// `[n x T]`.
    Array {
        len: u64,
        elem: Box<GepType>,
    },
    /// `{ T, U }`, or `<{ T, U }>` when packed.
    Struct {
        packed: bool,
        fields: Vec<GepType>,
    },
}

/// What one index of a `getelementptr` adds to the address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GepStep {
    /// `sext(index) * stride` bytes.
    Scaled(u64),
    /// A struct field: this many bytes (the index is a constant).
    Field(u64),
}

/// One index with the step it selects.
#[derive(Clone, Debug, PartialEq)]
pub struct GepIndex {
    pub index: Operand,
    pub step: GepStep,
}

fn align_to(n: u64, a: u64) -> u64 {
    n.div_ceil(a) * a
}

/// The ABI alignment of a scalar of `bytes` store size (integers, see the
/// module documentation; `half`/`float`/`ptr` are their size).
fn scalar_align(bytes: u64) -> u64 {
    bytes.next_power_of_two().clamp(1, 8)
}

impl GepType {
    /// Store size in bytes.
    pub fn store_size(&self) -> u64 {
        match self {
            GepType::Value(t) => t.store_size(),
            GepType::Vector { len, elem } => (len * u64::from(elem.bits())).div_ceil(8),
            GepType::Array { len, elem } => len * elem.alloc_size(),
            GepType::Struct { .. } => self.struct_layout().0,
        }
    }

    /// ABI alignment in bytes.
    pub fn align(&self) -> u64 {
        match self {
            GepType::Value(t) => scalar_align(t.store_size()),
            GepType::Vector { .. } => self.store_size().next_power_of_two().max(1),
            GepType::Array { elem, .. } => elem.align(),
            GepType::Struct { packed: true, .. } => 1,
            GepType::Struct { fields, .. } => fields.iter().map(GepType::align).max().unwrap_or(1),
        }
    }

    /// Allocation size: the distance between consecutive elements of an
    /// array of this type, and the stride of a `getelementptr` over it.
    pub fn alloc_size(&self) -> u64 {
        align_to(self.store_size(), self.align())
    }

    /// A struct's size and field offsets (empty for other types).
    fn struct_layout(&self) -> (u64, Vec<u64>) {
        let GepType::Struct { packed, fields } = self else {
            return (self.store_size(), Vec::new());
        };
        let mut off = 0;
        let mut offsets = Vec::with_capacity(fields.len());
        for f in fields {
            if !packed {
                off = align_to(off, f.align());
            }
            offsets.push(off);
            off += f.alloc_size();
        }
        (align_to(off, self.align()), offsets)
    }

    /// The byte offset of field `k` of a struct.
    pub fn field_offset(&self, k: usize) -> Option<u64> {
        self.struct_layout().1.get(k).copied()
    }

    /// The type an index walks into, and its step; `field` is the index's
    /// value when it is a constant. `Err` says why the index is not valid
    /// here.
    pub fn step_into(&self, field: Option<u64>) -> Result<(GepType, GepStep), String> {
        match self {
            GepType::Vector { elem, .. } => {
                let e = GepType::Value(*elem);
                let s = e.alloc_size();
                Ok((e, GepStep::Scaled(s)))
            }
            GepType::Array { elem, .. } => {
                Ok(((**elem).clone(), GepStep::Scaled(elem.alloc_size())))
            }
            GepType::Struct { fields, .. } => {
                let Some(k) = field else {
                    return Err("a struct field index must be a constant".into());
                };
                match (usize::try_from(k).ok()).and_then(|k| Some((fields.get(k)?, k))) {
                    Some((f, k)) => {
                        Ok((f.clone(), GepStep::Field(self.field_offset(k).unwrap_or(0))))
                    }
                    None => Err(format!(
                        "field {k} of a struct with {} fields",
                        fields.len()
                    )),
                }
            }
            GepType::Value(t) => Err(format!("`{t}` is not an aggregate to index into")),
        }
    }
}

impl fmt::Display for GepType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GepType::Value(t) => t.fmt(f),
            GepType::Vector { len, elem } => write!(f, "<{len} x {elem}>"),
            GepType::Array { len, elem } => write!(f, "[{len} x {elem}]"),
            GepType::Struct { packed, fields } => {
                let inner: Vec<String> = fields.iter().map(ToString::to_string).collect();
                let body = format!("{{ {} }}", inner.join(", "));
                if *packed {
                    write!(f, "<{body}>")
                } else {
                    f.write_str(&body)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::types::Scalar;

    fn int(w: u16) -> GepType {
        GepType::Value(Type::Int(w))
    }

    #[test]
    fn llvm_layouts() {
        // Sizes and offsets as clang-14 -triple spir64 lays them out (sizeof/offsetof).
        assert_eq!(int(24).alloc_size(), 4);
        assert_eq!(int(48).alloc_size(), 8);
        assert_eq!(int(128).alloc_size(), 16);
        assert_eq!(int(128).align(), 8);
        assert_eq!(GepType::Value(Type::Vec2(Scalar::Int(32))).alloc_size(), 8);
        let v3 = GepType::Vector {
            len: 3,
            elem: Type::Int(32),
        };
        assert_eq!((v3.store_size(), v3.align(), v3.alloc_size()), (12, 16, 16));
        let s = GepType::Struct {
            packed: false,
            fields: vec![int(8), int(64), int(16)],
        };
        assert_eq!(s.field_offset(1), Some(8));
        assert_eq!(s.field_offset(2), Some(16));
        assert_eq!(s.alloc_size(), 24);
        let p = GepType::Struct {
            packed: true,
            fields: vec![int(8), int(64)],
        };
        assert_eq!((p.field_offset(1), p.alloc_size()), (Some(1), 9));
        let a = GepType::Array {
            len: 3,
            elem: Box::new(s.clone()),
        };
        assert_eq!(a.alloc_size(), 72);
        assert_eq!(a.to_string(), "[3 x { i8, i64, i16 }]");
        assert!(int(32).step_into(Some(0)).is_err());
        assert!(s.step_into(None).is_err());
        assert!(s.step_into(Some(3)).is_err());
    }
}
