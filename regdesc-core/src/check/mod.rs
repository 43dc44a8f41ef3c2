//! Stage 5: `regdesc check`: summary figures and located diagnostics.
//!
//! Each lint lives in its own file and reports [`Diagnostic`]s under a
//! stable code ([`Lint::code`]):
//!
//! | code | severity | what |
//! | --- | --- | --- |
//! | `regdesc::check::lane_budget` | error | more lanes than `--lane-bits` |
//! | `regdesc::check::lane_sharing` | note | coverage mode needs fewer lanes than LLVM's assignment |
//! | `regdesc::check::duplicate_register` | error | two registers over the same units with different sub-register indices |
//! | `regdesc::check::offset_conflict` | warning | SubRegIndex offsets/sizes contradicting the registers |
//! | `regdesc::check::offset_out_of_range` | warning | an index reaching past the end of a register |
//! | `regdesc::check::ambiguous_composition` | warning | LLVM's "compose ambiguously" |
//! | `regdesc::check::class_size_mismatch` | warning | a class whose registers differ in size |
//! | `regdesc::check::unused_index` | warning | SubRegIndex defs no register uses (one diagnostic per statement) |
//! | `regdesc::regs::*` | error | the bank itself cannot be computed (LLVM's fatal errors) |

mod ambiguous;
mod class_sizes;
mod context;
mod duplicates;
mod lane_budget;
mod lane_sharing;
mod offsets;
mod out_of_range;
pub mod silence;
mod summary;
mod unused;

pub use summary::{CheckReport, Summary};

use crate::diag::{Diagnostic, Severity};
use crate::eval::RecordKeeper;
use crate::lanes::{LaneMode, Lanes};
use crate::regs::{ClassId, RegBank, RegsError, Stage};
use crate::source::Span;
use context::Ctx;

/// What to check against.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The lane assignment whose budget is checked.
    pub mode: LaneMode,
    /// The lane budget (LLVM's `LaneBitmask` has 64 bits).
    pub lane_bits: u32,
    /// Codes whose findings are silenced (counted as allowed): a design
    /// that is deliberate. `class_size_mismatch` and
    /// `regdesc::check::class_size_mismatch` both name one lint.
    pub allow: Vec<String>,
    /// Codes whose warnings become errors.
    pub deny: Vec<String>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            mode: LaneMode::Coverage,
            lane_bits: 64,
            allow: Vec::new(),
            deny: Vec::new(),
        }
    }
}

/// The lints of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lint {
    LaneBudget,
    LaneSharing,
    DuplicateRegister,
    OffsetConflict,
    OffsetOutOfRange,
    AmbiguousComposition,
    ClassSizeMismatch,
    UnusedIndex,
}

impl Lint {
    /// The diagnostic code.
    pub fn code(self) -> &'static str {
        match self {
            Lint::LaneBudget => "regdesc::check::lane_budget",
            Lint::LaneSharing => "regdesc::check::lane_sharing",
            Lint::DuplicateRegister => "regdesc::check::duplicate_register",
            Lint::OffsetConflict => "regdesc::check::offset_conflict",
            Lint::OffsetOutOfRange => "regdesc::check::offset_out_of_range",
            Lint::AmbiguousComposition => "regdesc::check::ambiguous_composition",
            Lint::ClassSizeMismatch => "regdesc::check::class_size_mismatch",
            Lint::UnusedIndex => "regdesc::check::unused_index",
        }
    }

    /// How serious its findings are.
    pub fn severity(self) -> Severity {
        match self {
            Lint::LaneBudget | Lint::DuplicateRegister => Severity::Error,
            Lint::LaneSharing => Severity::Note,
            _ => Severity::Warning,
        }
    }

    fn diagnostic(self, message: impl Into<String>, span: Option<Span>) -> Diagnostic {
        Diagnostic {
            severity: self.severity(),
            ..Diagnostic::error(self.code(), message, span)
        }
    }
}

/// What the lints found, and the lane masks of both modes they computed.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// `None` when the bank could not be completed.
    pub summary: Option<Summary>,
    pub diagnostics: Vec<Diagnostic>,
    /// Lane masks in `llvm` mode (complete banks only).
    pub llvm: Option<Lanes>,
    /// Lane masks in `coverage` mode (complete banks only).
    pub coverage: Option<Lanes>,
}

/// Runs every lint on `bank`: a complete bank, or the partial one that
/// [`RegBank::build_partial`] returned with `error`.
pub fn check(
    rk: &RecordKeeper,
    bank: &RegBank,
    error: Option<&RegsError>,
    opts: &CheckOptions,
) -> Checked {
    let cx = Ctx { rk, bank };
    let mut out = Checked::default();
    let d = &mut out.diagnostics;
    let dup = bank.stage >= Stage::SubRegs && duplicates::duplicates(&cx, d);
    if let Some(e) = error {
        let mut diag = e.to_diagnostic();
        if dup {
            diag = diag.with_help("this is how llvm-tblgen reports the duplicate register above");
        }
        d.push(diag);
        return out;
    }
    let llvm = Lanes::compute(bank, LaneMode::Llvm);
    let cov = Lanes::compute(bank, LaneMode::Coverage);
    let chosen = match opts.mode {
        LaneMode::Llvm => &llvm,
        LaneMode::Coverage => &cov,
    };
    let widest = widest_class(bank, chosen);
    out.summary = Some(Summary {
        registers_defined: bank.num_defined_registers,
        registers_from_tuples: bank.registers.len() - bank.num_defined_registers,
        classes_defined: bank.num_defined_classes,
        classes_synthesized: bank.classes.len() - bank.num_defined_classes,
        indices_defined: bank.num_defined_indices,
        indices_synthesized: bank.sub_reg_indices.len() - bank.num_defined_indices,
        units: bank.num_native_reg_units,
        lanes_llvm: llvm.num_lanes,
        lanes_coverage: cov.num_lanes,
        widest_class: widest.map(|(c, n)| (bank.class(c).name.clone(), n)),
    });
    if !lane_budget::lane_budget(&cx, opts, &llvm, &cov, widest, d) {
        lane_sharing::lane_sharing(&cx, opts, &llvm, &cov, d);
    }
    offsets::offset_conflicts(&cx, &cov, d);
    out_of_range::out_of_range(&cx, d);
    ambiguous::ambiguous(&cx, d);
    class_sizes::class_sizes(&cx, d);
    unused::unused(&cx, d);
    out.llvm = Some(llvm);
    out.coverage = Some(cov);
    out
}

/// The class needing most lanes (first in LLVM's order on ties).
fn widest_class(bank: &RegBank, lanes: &Lanes) -> Option<(ClassId, u32)> {
    let mut best: Option<(ClassId, u32)> = None;
    for &c in &bank.class_order {
        let n = lanes.class_masks[c as usize].count();
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((c, n));
        }
    }
    best
}
