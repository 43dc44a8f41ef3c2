//! The runtime half of regdesc: the tables `regdesc!` and `regdesc emit`
//! generate for a register description, and every query a code generator
//! asks of them — what LLVM's `MCRegisterInfo` and `TargetRegisterInfo`
//! answer (sub- and super-registers, register units and aliases, index
//! composition and lane masks, class membership, allocation orders,
//! sub-class relations, register pressure sets).
//!
//! It has no dependencies and needs no allocator: generated tables are
//! `static` data, and queries walk them.
//!
//! ```ignore
//! regdesc_macros::regdesc!(include "IntelGPURegisterInfo.td", lanes = coverage);
//! use regdesc_runtime::RegisterInfo;
//! let t = IntelGPU.tables();
//! assert_eq!(t.sub_reg(regs::Rw0_Rw1, sub_regs::w1), Some(regs::Rw1));
//! ```

#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod ids;
mod info;
mod lane;
mod query;
pub mod tables;

pub use ids::{HwMode, PressureSet, Reg, RegClass, RegUnit, SubRegIdx};
pub use info::RegisterInfo;
pub use lane::{LaneBits, LaneMask, Wide};
pub use query::{AliasIter, ClassSetIter, DiffIter, MemberIter, MemberSet, RegIter, UnitIter};
pub use tables::{ClassDesc, LaneShift, Names, RegDesc, SpillInfo, Tables};
