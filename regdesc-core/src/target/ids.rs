//! Typed ids: one newtype per kind (the workspace's `define_index!`), each
//! an index into its table of the [`Target`](super::Target).

use serde::Serialize;

/// One id kind of the model: serialized as its number.
macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        regdesc_index::define_index!(
            $(#[$doc])*
            #[derive(Serialize)]
            #[serde(transparent)]
            pub struct $name;
        );
    };
}

id!(
    /// A register: an index into [`Target::registers`](super::Target::registers),
    /// in LLVM's order (LLVM's enum value is `llvm_number()`; 0 is
    /// `NoRegister`).
    Reg
);
id!(
    /// A sub-register index: an index into
    /// [`Target::sub_reg_indices`](super::Target::sub_reg_indices) (LLVM's enum
    /// value is `llvm_number()`; 0 is `NoSubRegister`).
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
