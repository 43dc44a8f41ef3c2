//! Typed ids: one newtype per kind, each an index into its table of the
//! [`Target`](super::Target).

use serde::Serialize;

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The index into its table.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// A register: an index into [`Target::registers`](super::Target::registers),
    /// in LLVM's numbering (LLVM's enum value is this plus one; 0 is
    /// `NoRegister`).
    Reg
);
id!(
    /// A sub-register index: an index into
    /// [`Target::sub_reg_indices`](super::Target::sub_reg_indices) (LLVM's enum
    /// value is this plus one; 0 is `NoSubRegister`).
    SubRegIdx
);
id!(
    /// A register class: an index into [`Target::classes`](super::Target::classes),
    /// which are in LLVM's enum (topological) order, so this is LLVM's
    /// register class id.
    RegClass
);
id!(
    /// A register unit: an index into [`Target::units`](super::Target::units).
    RegUnit
);
id!(
    /// A hardware mode: an index into [`Target::hw_modes`](super::Target::hw_modes);
    /// mode 0 is the default mode.
    HwMode
);
id!(
    /// A register pressure set: an index into
    /// [`Target::pressure_sets`](super::Target::pressure_sets).
    PressureSet
);
