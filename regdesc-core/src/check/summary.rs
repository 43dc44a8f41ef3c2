//! The figures of a check and the report's two forms: the human summary
//! (stdout of `regdesc check`) and one JSON object (`--format json`).

use std::fmt::Write;

use serde::Serialize;

use crate::diag::{Diagnostic, LocatedDiagnostic};
use crate::lanes::LaneMode;
use crate::source::SourceMap;

/// Figures of the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub registers_defined: usize,
    pub registers_from_tuples: usize,
    pub classes_defined: usize,
    pub classes_synthesized: usize,
    pub indices_defined: usize,
    pub indices_synthesized: usize,
    pub units: usize,
    pub lanes_llvm: u32,
    pub lanes_coverage: u32,
    /// The class needing most lanes (in the checked mode) and how many.
    pub widest_class: Option<(String, u32)>,
}

/// The result of a check: the figures (when the bank could be computed)
/// and every diagnostic of every stage.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    pub mode: Option<LaneMode>,
    pub lane_bits: u32,
    /// `None` when the bank could not be built.
    pub summary: Option<Summary>,
    /// The built-in Target.td prelude was used.
    pub builtin_prelude: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// Findings silenced by `--allow` or a `regdesc: allow(...)` marker.
    pub allowed: Vec<Diagnostic>,
}

impl CheckReport {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The human summary (stdout); empty when there are no figures.
    pub fn render_summary(&self) -> String {
        let Some(s) = &self.summary else {
            return String::new();
        };
        let mut o = String::new();
        let mut row = |label: &str, value: String| {
            let _ = writeln!(o, "{label:<24}{value}");
        };
        let split = |total: usize, a: usize, b: usize, what: [&str; 2]| {
            format!("{total:>6} ({a} {}, {b} {})", what[0], what[1])
        };
        row(
            "registers:",
            split(
                s.registers_defined + s.registers_from_tuples,
                s.registers_defined,
                s.registers_from_tuples,
                ["defined", "from tuples"],
            ),
        );
        row(
            "register classes:",
            split(
                s.classes_defined + s.classes_synthesized,
                s.classes_defined,
                s.classes_synthesized,
                ["defined", "synthesized"],
            ),
        );
        row(
            "sub-register indices:",
            split(
                s.indices_defined + s.indices_synthesized,
                s.indices_defined,
                s.indices_synthesized,
                ["defined", "synthesized"],
            ),
        );
        row("register units:", format!("{:>6}", s.units));
        row("lanes (llvm):", format!("{:>6}", s.lanes_llvm));
        row("lanes (coverage):", format!("{:>6}", s.lanes_coverage));
        if let Some((name, n)) = &s.widest_class {
            let mode = self.mode.map_or("coverage", LaneMode::name);
            row(
                &format!("most lanes ({mode}):"),
                format!("{name} ({n} of {} bits)", self.lane_bits),
            );
        }
        if !self.allowed.is_empty() {
            let mut codes: Vec<&str> = self
                .allowed
                .iter()
                .map(|d| d.code.rsplit("::").next().unwrap_or(d.code))
                .collect();
            codes.sort_unstable();
            codes.dedup();
            row(
                "allowed:",
                format!("{:>6} ({})", self.allowed.len(), codes.join(", ")),
            );
        }
        if self.builtin_prelude {
            row(
                "Target.td:",
                "built-in prelude (llvm/Target/Target.td not on the include path)".into(),
            );
        }
        o
    }

    /// The JSON form: one object, whatever stage failed (figures are then
    /// `null`); see README "regdesc check".
    pub fn to_json(&self, sources: &SourceMap) -> String {
        let s = self.summary.as_ref();
        let report = JsonReport {
            mode: self.mode.map_or("coverage", LaneMode::name),
            lane_bits: self.lane_bits,
            registers: s.map(|s| s.registers_defined + s.registers_from_tuples),
            registers_defined: s.map(|s| s.registers_defined),
            registers_from_tuples: s.map(|s| s.registers_from_tuples),
            classes: s.map(|s| s.classes_defined + s.classes_synthesized),
            classes_defined: s.map(|s| s.classes_defined),
            classes_synthesized: s.map(|s| s.classes_synthesized),
            sub_reg_indices: s.map(|s| s.indices_defined + s.indices_synthesized),
            sub_reg_indices_defined: s.map(|s| s.indices_defined),
            sub_reg_indices_synthesized: s.map(|s| s.indices_synthesized),
            units: s.map(|s| s.units),
            lanes: s.map(|s| LaneCounts {
                llvm: s.lanes_llvm,
                coverage: s.lanes_coverage,
            }),
            widest_class: s
                .and_then(|s| s.widest_class.as_ref())
                .map(|(name, lanes)| WidestClass {
                    name: name.clone(),
                    lanes: *lanes,
                }),
            builtin_prelude: self.builtin_prelude,
            allowed: self.allowed.len(),
            diagnostics: self
                .diagnostics
                .iter()
                .map(|d| d.located(sources))
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&report).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }
}

#[derive(Serialize)]
struct JsonReport {
    mode: &'static str,
    lane_bits: u32,
    registers: Option<usize>,
    registers_defined: Option<usize>,
    registers_from_tuples: Option<usize>,
    classes: Option<usize>,
    classes_defined: Option<usize>,
    classes_synthesized: Option<usize>,
    sub_reg_indices: Option<usize>,
    sub_reg_indices_defined: Option<usize>,
    sub_reg_indices_synthesized: Option<usize>,
    units: Option<usize>,
    lanes: Option<LaneCounts>,
    widest_class: Option<WidestClass>,
    builtin_prelude: bool,
    #[serde(skip_serializing_if = "is_zero")]
    allowed: usize,
    diagnostics: Vec<LocatedDiagnostic>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize)]
struct LaneCounts {
    llvm: u32,
    coverage: u32,
}

#[derive(Serialize)]
struct WidestClass {
    name: String,
    lanes: u32,
}
