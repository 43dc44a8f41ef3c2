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

/// Evaluates a loaded set of files. On failure, returns every independent
/// error (and the warnings seen before them).
pub fn evaluate(loaded: &Loaded) -> Result<EvalOutput, Vec<Diagnostic>> {
    let mut ev = walk::Evaluator::new(loaded);
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
