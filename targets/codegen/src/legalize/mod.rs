//! Wide-integer legalization: IR to generic machine IR on 32-bit limbs.
//!
//! The hardware fact served: Gen11/Gen12LP and GCN have 32-bit integer
//! ALUs (Gen9's `:q` and AMD's 64-bit shifts and `V_MAD_U64_U32` aside),
//! so every `i64`, `i128`, `i256` or odd-width value becomes 32-bit limbs
//! and every operation on it a carry chain, a comparison chain, a funnel
//! shift or a multiply cascade. This runs before selection, as
//! GlobalISel's IR translator and legalizer do, and sees what LLVM's
//! legalizer could not (seed 002, D124844):
//!
//! - **uniformity** of every value ([`crate::uniformity`]): each new
//!   register's class is the target's class for uniform or per-lane values
//!   ([`crate::target::Target::value_class`]), and a multiply's plan says
//!   whether its factors are uniform;
//! - **known bits** ([`known_bits`]): a limb whose bits are all known is a
//!   constant, and the builder folds what vanishes (a zero-extended factor
//!   multiplies narrower);
//! - **mul + add**: a wide multiply whose only use is an `add` becomes one
//!   multiply-add ([`MulPlan::addend`]);
//! - the **schoolbook column structure** of a multiply is handed to the
//!   target as data ([`MulPlan`]), so a target can order the partial
//!   products its own way.
//!
//! Values narrower than 32 bits (`i1`, `i8`, `i16`, `half`) live
//! zero-extended in one 32-bit register; `<2 x i16>` and `<2 x half>` are
//! packed in one (element 0 low), `<2 x i32>` and pointers take two. The
//! output is SSA generic machine IR ([`crate::mir::InstrSet::generic`]),
//! with the calling convention's copies from and to physical registers.

pub mod builder;
pub mod demand;
pub mod demanded_bits;
pub mod known_bits;
mod lower;
pub mod mul;
pub mod sign_split;
pub mod wide;

use std::fmt;

pub use builder::{GenericOps, MirBuilder};
pub use lower::legalize;
pub use mul::{lower_generic, lower_pow2_shift, lower_shifted_sum, power_of_two, MulPlan};

use crate::diag::Diag;
use crate::ir::Span;
use crate::target::TargetError;

/// A 32-bit limb of a legalized value: a register or a known constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limb {
    Reg(crate::mir::VReg),
    Const(u32),
}

/// Why a function cannot be legalized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LegalizeError {
    /// The instruction set lacks a generic opcode (it was not built from
    /// [`crate::mir::InstrSet::generic`]).
    MissingOpcode(String),
    /// A construct of the IR subset the legalizer does not lower.
    Unsupported { what: String, span: Span },
    /// A value used where its definition has not been translated (only in
    /// unreachable code).
    UnreachableUse { span: Span },
    /// The target refused (its calling convention, say).
    Target(TargetError),
}

impl LegalizeError {
    /// As a located diagnostic: each kind's code, label and help.
    pub fn to_diag(&self) -> Diag {
        match self {
            LegalizeError::MissingOpcode(name) => Diag::unlocated(
                "legalize::missing-opcode",
                format!("the target's instruction set has no generic opcode `{name}`"),
            )
            .help("build the target's InstrSet from InstrSet::generic() and add to it"),
            LegalizeError::Unsupported { what, span } => Diag::new(
                "legalize::unsupported",
                format!("cannot legalize {what}"),
                span.clone(),
            )
            .label("not lowered to 32-bit limbs")
            .help("this construct of the IR subset has no lowering yet"),
            LegalizeError::UnreachableUse { span } => Diag::new(
                "legalize::unreachable-use",
                "a value is used in unreachable code before its definition is translated",
                span.clone(),
            )
            .label("used here")
            .help("remove the unreachable blocks (`opt -simplifycfg`)"),
            LegalizeError::Target(e) => e.to_diag(),
        }
    }
}

impl fmt::Display for LegalizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_diag().message)
    }
}

impl std::error::Error for LegalizeError {}

impl From<TargetError> for LegalizeError {
    fn from(e: TargetError) -> Self {
        LegalizeError::Target(e)
    }
}

/// 32-bit words of a value of type `ty` in registers.
pub fn words_of(ty: crate::ir::Type) -> usize {
    use crate::ir::Type;
    match ty {
        Type::Void => 0,
        Type::Int(w) => wide::limbs_of(u32::from(w)),
        Type::Half | Type::Float => 1,
        Type::Vec2(s) => {
            if s.bits() <= 16 {
                1
            } else {
                2
            }
        }
        Type::Ptr => 2,
    }
}
