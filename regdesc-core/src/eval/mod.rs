//! Stage 2: AST → records, as llvm-tblgen 14's record keeper holds them.
//!
//! - `record`: the data model (records, values, types);
//! - `types`: relations between types (`typeIsConvertibleTo`, ...);
//! - value operations, each after the llvm-tblgen `Init` methods of the same
//!   purpose: `convert` (types of values, conversions, bits, slices),
//!   `fold` (operators), `resolve` (variables), `instantiate` (records as a
//!   whole: anonymous classes, final resolution, assertions);
//! - `state`: the state those operations share;
//! - `walk`: the evaluator proper, which acts on the AST as llvm-tblgen's
//!   parser acts on its tokens;
//! - `print`: values as llvm-tblgen prints them (records are printed by
//!   `crate::llvm_format`).

mod convert;
pub mod error;
mod fields;
mod fold;
mod instantiate;
pub mod print;
pub mod record;
mod resolve;
mod state;
pub mod types;
mod walk;

#[cfg(test)]
mod tests;

pub use error::EvalError;
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
    /// See [`crate::driver::Input::release_memory`].
    pub release_memory: Option<fn()>,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            warn_unused_template_args: true,
            release_memory: None,
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
    ev.release_memory = opts.release_memory;
    ev.run();
    // The evaluator's own state (multiclasses and the defs they keep, the
    // caches) goes before the sorted maps are built: the end of evaluation
    // is the peak.
    let mut ctx = ev.into_ctx();
    ctx.vardef_cache = Default::default();
    let defs: Vec<RecId> = std::mem::take(&mut ctx.def_ids).ids().collect();
    ctx.rk.set_defs(defs);
    ctx.rk.classes = std::mem::take(&mut ctx.class_ids).into_iter().collect();
    let located = |errors: &[EvalError]| -> Vec<Diagnostic> {
        errors.iter().map(EvalError::to_diagnostic).collect()
    };
    let mut diagnostics = located(&ctx.warnings);
    if !ctx.errors.is_empty() {
        diagnostics.extend(located(&ctx.errors));
        return Err(diagnostics);
    }
    Ok(EvalOutput {
        records: ctx.rk,
        diagnostics,
    })
}
