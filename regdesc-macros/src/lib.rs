//! `regdesc!`: a register description's Rust tables, at compile time.
//!
//! A thin shell over `regdesc_core::emit::expand` (the library does the
//! work; this crate only hands it the tokens):
//!
//! ```ignore
//! regdesc_macros::regdesc!(include "regs/IntelGPURegisterInfo.td", lanes = coverage);
//! ```
//!
//! or TableGen as the body:
//!
//! ```ignore
//! regdesc_macros::regdesc! {
//!     #![lanes = llvm]
//!     include "llvm/Target/Target.td"
//!     def R0 : Register<"r0">;
//!     def GPR : RegisterClass<"My", [i32], 32, (add R0)>;
//! }
//! ```
//!
//! An inline body must be Rust tokens: write TableGen's paste operator with
//! spaces (`def sub # i`), as Rust 2021 reserves `sub#`.
//!
//! It expands to the items `regdesc emit` writes: `regs::*`, `sub_regs::*`
//! and `classes::*` constants, `TABLES`, `LaneMask`, and a unit struct
//! implementing `regdesc_runtime::RegisterInfo` (the crate using the macro
//! depends on `regdesc-runtime`). Every failure is a `compile_error!`
//! carrying the rendered diagnostic, at the offending tokens when the
//! TableGen is inline.

use std::path::PathBuf;

/// Expands to the Rust tables of a TableGen register description; see the
/// crate documentation for the forms and options.
#[proc_macro]
pub fn regdesc(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let input = proc_macro2::TokenStream::from(input);
    match std::panic::catch_unwind(|| regdesc_core::emit::expand(input, &dir)) {
        Ok(tokens) => tokens.into(),
        Err(_) => "::core::compile_error!(\"regdesc: internal error while expanding regdesc! (please report it)\");"
            .parse()
            .unwrap_or_default(),
    }
}
