//! Typed ids of registers, sub-register indices, register classes, units
//! and hardware modes.
//!
//! Registers and sub-register indices are numbered as LLVM numbers them:
//! from 1, with 0 meaning "none" (`NoRegister`, `NoSubRegister`), so that
//! `Option<Reg>` is as small as `Reg`. Classes, units and modes count from 0.

use core::fmt;
use core::num::NonZeroU16;

/// A physical register (LLVM's `MCRegister`), numbered from 1.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reg(NonZeroU16);

impl Reg {
    /// The register numbered `n` (LLVM's enum value). Panics on 0 (in a
    /// `const`, at compile time).
    pub const fn new(n: u16) -> Reg {
        match NonZeroU16::new(n) {
            Some(v) => Reg(v),
            None => panic!("register 0 is NoRegister"),
        }
    }

    /// The register numbered `n`, `None` for 0.
    pub const fn from_raw(n: u16) -> Option<Reg> {
        match NonZeroU16::new(n) {
            Some(v) => Some(Reg(v)),
            None => None,
        }
    }

    /// LLVM's enum value.
    pub const fn raw(self) -> u16 {
        self.0.get()
    }

    /// The 0-based index into per-register tables.
    pub const fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// A sub-register index (LLVM's `SubRegIndex` enum value), numbered from 1.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SubRegIdx(NonZeroU16);

impl SubRegIdx {
    /// The index numbered `n`. Panics on 0 (in a `const`, at compile time).
    pub const fn new(n: u16) -> SubRegIdx {
        match NonZeroU16::new(n) {
            Some(v) => SubRegIdx(v),
            None => panic!("sub-register index 0 is NoSubRegister"),
        }
    }

    /// The index numbered `n`, `None` for 0.
    pub const fn from_raw(n: u16) -> Option<SubRegIdx> {
        match NonZeroU16::new(n) {
            Some(v) => Some(SubRegIdx(v)),
            None => None,
        }
    }

    /// LLVM's enum value.
    pub const fn raw(self) -> u16 {
        self.0.get()
    }

    /// The 0-based index into per-index tables.
    pub const fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// A register class (LLVM's register class id: classes are in topological
/// order, larger classes first).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegClass(pub u16);

impl RegClass {
    /// The 0-based index into per-class tables.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A register unit: the smallest piece of the register file that liveness
/// and interference track.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegUnit(pub u16);

impl RegUnit {
    /// The 0-based index into per-unit tables.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A hardware mode (mode 0 is the default mode).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct HwMode(pub u16);

/// A register pressure set (LLVM's `RegUnitSet`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PressureSet(pub u16);

impl PressureSet {
    /// The 0-based index into per-set tables.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

macro_rules! debug_raw {
    ($($t:ident => $get:expr),*) => {$(
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($t), "({})"), $get(self))
            }
        }
    )*};
}

debug_raw!(
    Reg => |r: &Reg| r.raw(),
    SubRegIdx => |i: &SubRegIdx| i.raw(),
    RegClass => |c: &RegClass| c.0,
    RegUnit => |u: &RegUnit| u.0,
    HwMode => |m: &HwMode| m.0,
    PressureSet => |p: &PressureSet| p.0
);
