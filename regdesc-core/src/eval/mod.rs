//! Stage 2: AST → records, as llvm-tblgen 14's record keeper holds them.
//!
//! `record` is the data model, `types` the type relations, `init` the value
//! operations (conversion, folding, resolution, printing), `walk` the
//! evaluator proper and `print` the `--print-records` output.

pub mod init;
pub mod print;
pub mod record;
pub mod types;
#[allow(clippy::collapsible_match)]
pub mod walk;

pub use record::*;

use crate::diag::Diagnostic;
use crate::syntax::Loaded;

/// The result of a successful evaluation: the records plus any warnings.
#[derive(Debug, Default)]
pub struct EvalOutput {
    pub records: RecordKeeper,
    pub diagnostics: Vec<Diagnostic>,
}

/// How to evaluate.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// Warn about template arguments a class never uses (llvm-tblgen does,
    /// unless given `--no-warn-on-unused-template-args`).
    pub warn_unused_template_args: bool,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            warn_unused_template_args: true,
        }
    }
}

/// Evaluates a loaded set of files with the default options.
pub fn evaluate(loaded: &Loaded) -> Result<EvalOutput, Vec<Diagnostic>> {
    evaluate_with(loaded, &EvalOptions::default())
}

/// Evaluates a loaded set of files. On failure, returns every independent
/// error (and the warnings seen before them).
pub fn evaluate_with(loaded: &Loaded, opts: &EvalOptions) -> Result<EvalOutput, Vec<Diagnostic>> {
    let mut ev = walk::Evaluator::new(loaded);
    ev.warn_unused_targs = opts.warn_unused_template_args;
    ev.run();
    let mut ctx = ev.ctx;
    ctx.rk.defs = std::mem::take(&mut ctx.def_ids).into_iter().collect();
    ctx.rk.classes = std::mem::take(&mut ctx.class_ids).into_iter().collect();
    if !ctx.errors.is_empty() {
        let mut all = ctx.warnings;
        all.append(&mut ctx.errors);
        return Err(all);
    }
    Ok(EvalOutput {
        records: ctx.rk,
        diagnostics: ctx.warnings,
    })
}

/// Prints the records exactly as `llvm-tblgen --print-records` does.
pub fn print_records(rk: &RecordKeeper) -> String {
    print::print_records(rk)
}
