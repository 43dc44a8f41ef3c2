//! regdesc-core: a TableGen front end and LLVM-compatible register bank.
//!
//! The pipeline is linear, one module per stage:
//! `syntax` (pest grammar + AST with spans) → `eval` (records) →
//! `regs` (register bank) → `lanes` → `check` → `emit`.
//! `diag` renders every stage's errors with miette.

pub mod check;
pub mod diag;
pub mod driver;
pub mod emit;
pub mod eval;
pub mod lanes;
pub mod prelude;
pub mod regs;
pub mod source;
pub mod syntax;
pub mod target;
