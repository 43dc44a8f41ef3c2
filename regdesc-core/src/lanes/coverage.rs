//! Coverage lanes (to be written).

use super::LaneMask;
use crate::regs::{IdxId, RegBank};

/// Offsets that contradict the registers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OffsetConflict {
    pub indices: Vec<IdxId>,
    pub message: String,
}

/// What the coverage computation found.
#[derive(Clone, Debug, Default)]
pub struct CoverageReport {
    pub conflicts: Vec<OffsetConflict>,
}

pub(super) fn compute(bank: &RegBank) -> (Vec<LaneMask>, u32, CoverageReport) {
    let (m, n) = super::llvm_index_masks(bank);
    (m, n, CoverageReport::default())
}
