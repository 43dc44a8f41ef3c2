//! The built-in prelude: a regdesc-written stand-in for LLVM 14's
//! `llvm/Target/Target.td`, declaring the register-description classes with
//! the same fields and defaults. The loader uses it (and notes so) when the
//! real file is not on the include path.

/// The prelude's text.
pub const TARGET_TD: &str = include_str!("Target.td");

/// The include path the prelude answers to.
pub const TARGET_TD_PATH: &str = "llvm/Target/Target.td";

/// The stand-in for `llvm/TableGen/SearchableTable.td` (some register files
/// include it for their system-register tables).
pub const SEARCHABLE_TABLE_TD: &str = include_str!("SearchableTable.td");

/// `LoadOptions::builtin_files` entries for the prelude.
pub fn builtin_files() -> Vec<(String, String)> {
    vec![
        (TARGET_TD_PATH.to_string(), TARGET_TD.to_string()),
        (
            "llvm/TableGen/SearchableTable.td".to_string(),
            SEARCHABLE_TABLE_TD.to_string(),
        ),
    ]
}
