//! The one pipeline every consumer runs: load → evaluate → bank → lanes →
//! check (→ the consumer model, for emitters).
//!
//! The CLI, the tests, the proc macro and the doc generator all call these
//! functions; none wires the stages by hand. Each returns a [`Run`]: the
//! files read, every diagnostic of every stage that ran (in order), and the
//! output of each stage that succeeded. A failing stage stops the pipeline
//! and is named in [`Run::failed`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::check::{self, CheckOptions, CheckReport};
use crate::diag::{Diagnostic, Severity};
use crate::eval::{self, EvalOptions, RecordKeeper};
use crate::lanes::{LaneMode, Lanes};
use crate::regs::{self, RegBank};
use crate::source::SourceMap;
use crate::syntax::{self, LoadOptions};
use crate::target::Target;

/// Where the top-level TableGen text comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A file on disk.
    File(PathBuf),
    /// Standard input (what llvm-tblgen reads for `-` or no file); named
    /// `<stdin>` in diagnostics.
    Stdin,
    /// Text held in memory (the proc macro's inline body), with the name
    /// diagnostics show for it.
    Text { name: String, text: String },
}

/// Whether the built-in `Target.td` stands in for a missing one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Prelude {
    /// `include "llvm/Target/Target.td"` (and `SearchableTable.td`) fall back
    /// to regdesc's built-in copy when the include path lacks them, with a
    /// note.
    #[default]
    Builtin,
    /// Only files on disk: a missing include is an error, as in llvm-tblgen.
    Off,
}

/// What to read and how.
#[derive(Clone, Debug)]
pub struct Input {
    pub source: Source,
    /// `-I` directories, searched in order after the path as written.
    pub include_dirs: Vec<PathBuf>,
    /// `-D` preprocessor macros.
    pub defines: Vec<String>,
    pub prelude: Prelude,
    /// Warn about unused template arguments, as llvm-tblgen does by default.
    pub warn_unused_template_args: bool,
    /// Called each time a file has been evaluated and its syntax tree
    /// dropped. The parse threads build the trees ahead of the evaluator, in
    /// their own heaps, and the evaluator frees them: a binary's allocator
    /// can hand that memory back to the system here (the `regdesc` binary
    /// does, with `regdesc_alloc::release_freed_memory`), which keeps it out
    /// of the peak.
    pub release_memory: Option<fn()>,
}

impl Input {
    /// Reads `path`, with no include directories.
    pub fn file(path: impl Into<PathBuf>) -> Input {
        Input::new(Source::File(path.into()))
    }

    /// Reads in-memory `text`, named `name` in diagnostics.
    pub fn text(name: impl Into<String>, text: impl Into<String>) -> Input {
        Input::new(Source::Text {
            name: name.into(),
            text: text.into(),
        })
    }

    /// Reads `source`, with no include directories or defines.
    pub fn new(source: Source) -> Input {
        Input {
            source,
            include_dirs: Vec::new(),
            defines: Vec::new(),
            prelude: Prelude::default(),
            warn_unused_template_args: true,
            release_memory: None,
        }
    }

    /// Adds an include directory.
    pub fn include(mut self, dir: impl Into<PathBuf>) -> Input {
        self.include_dirs.push(dir.into());
        self
    }

    /// Defines a preprocessor macro.
    pub fn define(mut self, name: impl Into<String>) -> Input {
        self.defines.push(name.into());
        self
    }

    fn load_options(&self) -> LoadOptions {
        LoadOptions {
            include_dirs: self.include_dirs.clone(),
            defines: self.defines.clone(),
            builtin_files: match self.prelude {
                Prelude::Builtin => crate::prelude::builtin_files(),
                Prelude::Off => Vec::new(),
            },
        }
    }
}

/// The stages of the pipeline, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Reading, preprocessing and parsing every file.
    Load,
    /// Records, as llvm-tblgen's record keeper holds them.
    Evaluate,
    /// The register bank (LLVM's fatal errors).
    Bank,
    /// The lints of `regdesc check`.
    Check,
}

/// What a run produced.
#[derive(Debug, Default)]
pub struct Run {
    /// Every file read.
    pub sources: SourceMap,
    /// Every diagnostic of every stage that ran, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// The stage that failed, if one did.
    pub failed: Option<Stage>,
    /// The evaluated records.
    pub records: Option<RecordKeeper>,
    /// The complete register bank ([`bank`], [`check`] when it could be
    /// built).
    pub bank: Option<RegBank>,
    /// Lane masks in the mode asked for.
    pub lanes: Option<Lanes>,
    /// Lane masks in the other mode ([`check`] computes both).
    pub other_lanes: Option<Lanes>,
    /// The check report ([`check`], [`target`]).
    pub check: Option<CheckReport>,
    /// The consumer model ([`target`], when no stage failed).
    pub target: Option<Target>,
    /// The consumer model with the lane masks of the other mode
    /// ([`target_both_modes`]): the same items under the same ids.
    pub other_target: Option<Target>,
    /// LLVM's `GenRegisterInfo.inc` ([`register_info_inc`]).
    pub inc: Option<String>,
    /// The first `loader_notes` diagnostics are the loader's notes (the
    /// built-in prelude standing in for a missing include).
    loader_notes: usize,
    /// How long each step took, in order (`REGDESC_TIMINGS=1` makes the CLI
    /// print them).
    pub timings: Vec<(&'static str, std::time::Duration)>,
}

impl Run {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.failed.is_some() || self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Whether the built-in prelude stood in for a missing include.
    pub fn used_builtin_prelude(&self) -> bool {
        self.sources.files.iter().any(|f| f.builtin)
    }

    /// Every diagnostic rendered with miette (no ANSI codes unless `color`).
    pub fn render(&self, color: bool) -> String {
        crate::diag::render(&self.sources, &self.diagnostics, color)
    }

    /// What `llvm-tblgen -gen-register-info -register-info-debug` prints on
    /// stderr for a [`bank`] run: the front end's warnings as LLVM prints
    /// them, the bank's warnings, then the register-info dump. `None` when
    /// the bank could not be built.
    pub fn register_info_debug(&self) -> Option<String> {
        let (bank, lanes) = (self.bank.as_ref()?, self.lanes.as_ref()?);
        let mut text = self.register_info_warnings();
        text.push_str(&crate::llvm_format::debug_dump(bank, lanes));
        Some(text)
    }

    /// [`Run::register_info_debug`], written to `out` a chunk at a time
    /// (the dump of a large bank runs to tens of megabytes).
    pub fn write_register_info_debug(
        &self,
        out: &mut dyn std::io::Write,
    ) -> Option<std::io::Result<()>> {
        let (bank, lanes) = (self.bank.as_ref()?, self.lanes.as_ref()?);
        let warnings = self.register_info_warnings();
        Some(
            out.write_all(warnings.as_bytes())
                .and_then(|()| crate::llvm_format::write_debug_dump(out, bank, lanes)),
        )
    }

    /// The warnings llvm-tblgen prints before its dump, in its format.
    fn register_info_warnings(&self) -> String {
        let warnings: Vec<Diagnostic> = self
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .cloned()
            .collect();
        let mut text = crate::diag::render_llvm(&self.sources, &warnings);
        if let Some(bank) = &self.bank {
            for w in bank.warnings() {
                text.push_str("warning: ");
                text.push_str(&w);
                text.push('\n');
            }
        }
        text
    }

    fn fail(mut self, stage: Stage, diags: impl IntoIterator<Item = Diagnostic>) -> Run {
        self.diagnostics.extend(diags);
        self.failed = Some(stage);
        self
    }
}

/// Loads and evaluates: the records of `input`.
///
/// Files are parsed on a worker thread, in include order, while evaluation
/// proceeds on this one.
pub fn records(input: &Input) -> Run {
    let start = Instant::now();
    let opts = input.load_options();
    let eval_opts = EvalOptions {
        warn_unused_template_args: input.warn_unused_template_args,
        release_memory: input.release_memory,
    };
    let evaluate = |loaded: &syntax::Loaded| eval::evaluate_with(loaded, &eval_opts);
    let loaded = match &input.source {
        Source::File(path) => syntax::load_file_then(path, &opts, evaluate),
        Source::Stdin => match read_stdin() {
            Ok(text) => load_text("<stdin>", &text, &opts, evaluate),
            Err(e) => {
                let d = Diagnostic::error(
                    "regdesc::driver::stdin",
                    format!("cannot read standard input: {e}"),
                    None,
                );
                return Run::default().fail(Stage::Load, [d]);
            }
        },
        Source::Text { name, text } => load_text(name, text, &opts, evaluate),
    };
    let (loaded, evaluated) = match loaded {
        Ok(x) => x,
        Err((sources, diags)) => {
            let run = Run {
                sources,
                ..Run::default()
            };
            return run.fail(Stage::Load, diags);
        }
    };
    let mut run = Run {
        diagnostics: loaded.diagnostics.clone(),
        loader_notes: loaded.diagnostics.len(),
        ..Run::default()
    };
    let waited = loaded.waited.get();
    let result = match evaluated {
        Ok(out) => {
            run.diagnostics.extend(out.diagnostics);
            run.records = Some(out.records);
            run
        }
        Err(errs) => run.fail(Stage::Evaluate, errs),
    };
    // The ASTs are not needed past evaluation.
    let mut run = Run {
        sources: loaded.sources,
        ..result
    };
    run.timings.push(("evaluate", start.elapsed()));
    // Part of it: evaluation waiting for files still being parsed.
    run.timings.push(("evaluate/parse", waited));
    run
}

type Evaluated = Result<eval::EvalOutput, Vec<Diagnostic>>;

fn load_text(
    name: &str,
    text: &str,
    opts: &LoadOptions,
    evaluate: impl FnOnce(&syntax::Loaded) -> Evaluated,
) -> Result<(syntax::Loaded, Evaluated), (SourceMap, Vec<Diagnostic>)> {
    let loaded = syntax::load_str(name, text, opts)?;
    let evaluated = evaluate(&loaded);
    Ok((loaded, evaluated))
}

fn read_stdin() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin().lock().read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// [`records`], then the register bank exactly as llvm-tblgen 14's
/// `-gen-register-info` computes it (which also needs one `Target` def),
/// and its lane masks in `mode`.
pub fn bank(input: &Input, mode: LaneMode) -> Run {
    let mut run = records(input);
    let Some(rk) = &run.records else { return run };
    let start = Instant::now();
    match regs::require_one_target(rk).and_then(|()| RegBank::build(rk)) {
        Ok(bank) => {
            run.timings.push(("bank", start.elapsed()));
            run.timings.extend(bank.timings.iter().copied());
            let start = Instant::now();
            run.lanes = Some(Lanes::compute(&bank, mode));
            run.timings.push(("lanes", start.elapsed()));
            run.bank = Some(bank);
            run
        }
        Err(e) => {
            let d = e.to_diagnostic();
            run.fail(Stage::Bank, [d])
        }
    }
}

/// [`records`], then the register bank (as far as it can be computed) and
/// every lint of `regdesc check`. [`Run::check`] is always set, so that a
/// report can be printed whatever stage failed.
pub fn check(input: &Input, opts: &CheckOptions) -> Run {
    let mut run = records(input);
    let mut report = CheckReport {
        mode: Some(opts.mode),
        lane_bits: opts.lane_bits,
        builtin_prelude: run.used_builtin_prelude(),
        ..CheckReport::default()
    };
    if let Some(rk) = &run.records {
        let start = Instant::now();
        let (bank, error) = RegBank::build_partial(rk);
        run.timings.push(("bank", start.elapsed()));
        run.timings.extend(bank.timings.iter().copied());
        let start = Instant::now();
        let checked = check::check(rk, &bank, error.as_ref(), opts);
        run.timings.push(("check", start.elapsed()));
        report.summary = checked.summary;
        let mut diags = checked.diagnostics;
        report.allowed = check::silence::apply(&run.sources, &opts.allow, &opts.deny, &mut diags);
        run.diagnostics.extend(diags);
        if error.is_some() {
            run.failed = Some(Stage::Bank);
        } else {
            (run.lanes, run.other_lanes) = match opts.mode {
                LaneMode::Llvm => (checked.llvm, checked.coverage),
                LaneMode::Coverage => (checked.coverage, checked.llvm),
            };
            run.bank = Some(bank);
            if run.diagnostics.iter().any(Diagnostic::is_error) {
                run.failed = Some(Stage::Check);
            }
        }
    }
    // The report says whether the prelude was used: no need for the note.
    report.diagnostics = run.diagnostics[run.loader_notes.min(run.diagnostics.len())..].to_vec();
    run.check = Some(report);
    run
}

/// The path a [`Source`] is known by in diagnostics.
pub fn source_name(source: &Source) -> &Path {
    match source {
        Source::File(p) => p,
        Source::Stdin => Path::new("<stdin>"),
        Source::Text { name, .. } => Path::new(name.as_str()),
    }
}

/// [`check`], then the consumer model of the bank with the lane masks of
/// `opts.mode`, when nothing failed (warnings do not stop it; a lane budget
/// exceeded, like every error, does).
pub fn target(input: &Input, opts: &CheckOptions) -> Run {
    let mut run = check(input, opts);
    if run.failed.is_some() {
        return run;
    }
    let start = Instant::now();
    if let (Some(rk), Some(bank), Some(lanes)) = (&run.records, &run.bank, &run.lanes) {
        run.target = Some(Target::build(rk, bank, lanes, &run.sources));
    }
    run.timings.push(("model", start.elapsed()));
    run
}

/// What `regdesc doc` reads: [`check`] (its report, whatever it found) and,
/// whenever the bank is complete, the consumer model in both lane modes:
/// [`Run::target`] with the masks of `opts.mode`, [`Run::other_target`] with
/// those of the other mode. Unlike [`target`], errors found by the lints (a
/// lane budget exceeded, a duplicate register) do not stop it: the docs show
/// them next to the description they are about.
pub fn target_both_modes(input: &Input, opts: &CheckOptions) -> Run {
    let mut run = check(input, opts);
    let start = Instant::now();
    if let (Some(rk), Some(bank)) = (&run.records, &run.bank) {
        let build = |lanes: &Option<Lanes>| {
            lanes
                .as_ref()
                .map(|l| Target::build(rk, bank, l, &run.sources))
        };
        let (target, other) = (build(&run.lanes), build(&run.other_lanes));
        run.target = target;
        run.other_target = other;
    }
    run.timings.push(("model", start.elapsed()));
    run
}

/// [`bank`], with the lane masks of `mode` checked against LLVM's 64-bit
/// `LaneBitmask`: what `GenRegisterInfo.inc` is written from (see
/// [`register_info_inc`], or [`crate::llvm_format::write_register_info_inc`]
/// to stream it). When the masks do not fit, the run is [`check`]'s, whose
/// lane-budget diagnostic says which indices cost the lanes and what to
/// change, and [`Run::failed`] is set.
pub fn register_info(input: &Input, mode: LaneMode) -> Run {
    let run = bank(input, mode);
    let Some(lanes) = &run.lanes else { return run };
    if lanes.num_lanes > 64 {
        let opts = CheckOptions {
            mode,
            lane_bits: 64,
            ..Default::default()
        };
        let mut checked = check(input, &opts);
        checked
            .diagnostics
            .retain(|d| d.is_error() || d.severity == Severity::Note);
        checked.failed = Some(Stage::Check);
        return checked;
    }
    run
}

/// [`register_info`], then LLVM's `GenRegisterInfo.inc` with the lane masks
/// of `mode` ([`Run::inc`]), as `llvm-tblgen -gen-register-info` writes it.
pub fn register_info_inc(input: &Input, mode: LaneMode) -> Run {
    let mut run = register_info(input, mode);
    if run.failed.is_some() {
        return run;
    }
    let (Some(rk), Some(bank), Some(lanes)) = (&run.records, &run.bank, &run.lanes) else {
        return run;
    };
    let start = Instant::now();
    match crate::llvm_format::register_info_inc(rk, bank, lanes) {
        Ok(text) => run.inc = Some(text),
        Err(e) => {
            run.diagnostics.push(e.to_diagnostic());
            run.failed = Some(Stage::Bank);
        }
    }
    run.timings.push(("inc", start.elapsed()));
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static RELEASED: AtomicUsize = AtomicUsize::new(0);

    fn count_release() {
        RELEASED.fetch_add(1, Ordering::SeqCst);
    }

    /// The release hook runs once per evaluated file (the root and each
    /// include), after its records exist.
    #[test]
    fn release_memory_runs_after_each_file() {
        let dir = std::env::temp_dir().join(format!("regdesc-release-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("b.td"), "class B { int x = 1; }\n").expect("b.td");
        std::fs::write(dir.join("c.td"), "def C : B;\n").expect("c.td");
        std::fs::write(
            dir.join("a.td"),
            "include \"b.td\"\ninclude \"c.td\"\ndef A : B;\n",
        )
        .expect("a.td");
        let mut input = Input::file(dir.join("a.td")).include(&dir);
        input.release_memory = Some(count_release);
        let run = records(&input);
        let _ = std::fs::remove_dir_all(&dir);
        let records = run
            .records
            .as_ref()
            .unwrap_or_else(|| panic!("{:?}", run.diagnostics));
        assert!(records.def_id("A").is_some() && records.def_id("C").is_some());
        assert_eq!(RELEASED.load(Ordering::SeqCst), 3);
    }
}
