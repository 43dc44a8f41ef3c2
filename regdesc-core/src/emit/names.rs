//! Rust identifiers for `.td` record names.
//!
//! TableGen names are identifiers already; a few collide with Rust
//! keywords. Those become raw identifiers (`r#type`), or get a trailing `_`
//! where Rust allows no raw form (`self`, `super`, `crate`, `Self`, `_`).

use proc_macro2::{Ident, Span};

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

const NO_RAW: &[&str] = &["self", "super", "crate", "Self", "_"];

/// Whether `s` is an identifier as Rust (and TableGen) spell them.
fn is_plain_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f == '_' || f.is_ascii_alphabetic())
        && c.all(|ch| ch == '_' || ch.is_ascii_alphanumeric())
}

/// The Rust spelling of `name`, or `None` when it is not an identifier at
/// all (the caller reports it).
pub fn rust_name(name: &str) -> Option<String> {
    if !is_plain_ident(name) {
        return None;
    }
    if NO_RAW.contains(&name) {
        return Some(format!("{name}_"));
    }
    if KEYWORDS.contains(&name) {
        return Some(format!("r#{name}"));
    }
    Some(name.to_string())
}

/// An identifier token for a spelling made by [`rust_name`].
pub fn ident(spelled: &str, span: Span) -> Ident {
    match spelled.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, span),
        None => Ident::new(spelled, span),
    }
}

#[cfg(test)]
mod tests {
    use super::rust_name;

    #[test]
    fn keywords_and_odd_names() {
        assert_eq!(rust_name("R0").as_deref(), Some("R0"));
        assert_eq!(rust_name("type").as_deref(), Some("r#type"));
        assert_eq!(rust_name("self").as_deref(), Some("self_"));
        assert_eq!(rust_name("sub0_then_lo").as_deref(), Some("sub0_then_lo"));
        assert_eq!(rust_name("9a"), None);
        assert_eq!(rust_name("a-b"), None);
    }
}
