//! regdesc-core: a TableGen front end and LLVM-compatible register bank.
//!
//! The pipeline is linear, one module per stage, chained by [`driver`]:
//! `source` (files and spans) → `syntax` (pest grammar, AST, includes) →
//! `eval` (records) → `regs` (the register bank, a mirror of LLVM's
//! `CodeGenRegBank`) → `lanes` (lane masks, `llvm` and `coverage` modes) →
//! `llvm_format` (llvm-tblgen's record and register-info printers) →
//! `check` (lints) → `target` (the typed model every consumer reads) →
//! `emit` (Rust tables, and the library half of `regdesc!`) and `doc`
//! (the HTML/SVG and Markdown documentation).
//! `diag` renders every stage's diagnostics with miette.

pub mod check;
pub mod diag;
pub mod doc;
pub mod driver;
pub mod emit;
pub mod eval;
pub mod lanes;
pub mod llvm_format;
pub mod prelude;
pub mod regs;
pub mod source;
pub mod syntax;
pub mod target;
