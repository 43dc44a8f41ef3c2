//! Stage 2: AST → records, as llvm-tblgen 14's record keeper holds them.

pub mod record;

pub use record::*;

use crate::diag::Diagnostic;
use crate::syntax::Loaded;

/// The result of a successful evaluation: the records plus any warnings.
#[derive(Debug, Default)]
pub struct EvalOutput {
    pub records: RecordKeeper,
    pub diagnostics: Vec<Diagnostic>,
}

/// Evaluates a loaded set of files. On failure, returns every independent error.
pub fn evaluate(_loaded: &Loaded) -> Result<EvalOutput, Vec<Diagnostic>> {
    Err(vec![Diagnostic::error(
        "regdesc::eval::unimplemented",
        "evaluation is not written yet",
        None,
    )])
}

/// Prints the records exactly as `llvm-tblgen --print-records` does.
pub fn print_records(_rk: &RecordKeeper) -> String {
    String::new()
}
