//! The checks llvm-tblgen makes on hardware modes before anything else of a
//! register description (LLVM 14's `CodeGenHwModes`, built first thing by
//! `CodeGenTarget`, before it looks for the `Target` def).
//!
//! Each `HwModeSelect` def (in record-name order) pairs its `Modes` with its
//! `Objects`, so the two lists must have the same length.

use crate::eval::RecordKeeper;

use super::{list_of_defs, RegsError};

/// Fails on the first `HwModeSelect` def whose `Modes` and `Objects` lists
/// cannot be paired, as llvm-tblgen 14 does.
pub(crate) fn check_mode_selects(rk: &RecordKeeper) -> Result<(), RegsError> {
    for id in rk.all_derived_definitions("HwModeSelect") {
        let modes = list_of_defs(rk, id, "Modes")?;
        let objects = list_of_defs(rk, id, "Objects")?;
        if modes.len() != objects.len() {
            let rec = rk.record(id);
            return Err(RegsError::HwModeSelectLength {
                record: rec.name.clone(),
                modes: modes.len(),
                objects: objects.len(),
                span: Some(rec.span),
            });
        }
    }
    Ok(())
}
