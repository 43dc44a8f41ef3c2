//! [`RegisterInfo`]: the one trait a generic code generator reads a
//! target's registers through.

use crate::ids::{HwMode, Reg, RegClass};
use crate::lane::LaneBits;
use crate::tables::{SpillInfo, Tables};

/// A target's registers: its generated [`Tables`] (every query of LLVM's
/// `MCRegisterInfo` and `TargetRegisterInfo` lives there), plus the choices
/// LLVM leaves to the target's C++: which allocation order a class uses
/// (`AltOrderSelect`) and which hardware mode is active.
///
/// `regdesc!` and `regdesc emit` generate a unit struct implementing it; a
/// target crate can wrap that struct to override the choices.
pub trait RegisterInfo {
    /// The lane mask storage the description needs.
    type Lanes: LaneBits;

    /// The generated tables.
    fn tables(&self) -> &'static Tables<Self::Lanes>;

    /// The hardware mode in effect (mode 0, the default, unless overridden).
    fn hw_mode(&self) -> HwMode {
        HwMode(0)
    }

    /// Which allocation order of `rc` to use: 0 is the default order, `k`
    /// the `k`th of `AltOrders` (LLVM's `AltOrderSelect` code decides this
    /// per function; here the target decides).
    fn allocation_order_select(&self, rc: RegClass) -> usize {
        let _ = rc;
        0
    }

    /// The allocation order of `rc` in effect.
    fn allocation_order(&self, rc: RegClass) -> &'static [Reg] {
        let t = self.tables();
        let k = self.allocation_order_select(rc);
        if k < t.num_allocation_orders(rc) {
            t.allocation_order(rc, k)
        } else {
            t.allocation_order(rc, 0)
        }
    }

    /// Sizes of `rc` in the mode in effect.
    fn spill_info(&self, rc: RegClass) -> SpillInfo {
        self.tables().spill_info(rc, self.hw_mode())
    }
}
