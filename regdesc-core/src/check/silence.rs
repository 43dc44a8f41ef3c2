//! Silencing findings where a design is deliberate, and denying others.
//!
//! A finding is allowed by `--allow CODE` (or `allow = [...]` in
//! `regdesc!`), or by a marker in a comment on the line its record starts
//! at: `// regdesc: allow(class_size_mismatch)` (several codes separated by
//! commas). `--deny CODE` makes the code's warnings errors. Allowed findings
//! are dropped from the report and counted ([`CheckReport::allowed`]). Errors
//! of the bank stage and the lane budget cannot be allowed: no `.inc` can be
//! written past them.
//!
//! [`CheckReport::allowed`]: super::CheckReport::allowed

use crate::diag::{Diagnostic, Severity};
use crate::source::SourceMap;

/// Whether `code` is named by `name`: the whole code, or its last part.
fn names(name: &str, code: &str) -> bool {
    let name = name.trim();
    code == name || code.rsplit("::").next() == Some(name)
}

/// The codes a `regdesc: allow(...)` marker on `line` allows.
fn marker_codes(line: &str) -> impl Iterator<Item = &str> {
    line.find("//")
        .map(|c| &line[c..])
        .and_then(|comment| comment.split_once("regdesc: allow("))
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(list, _)| list)
        .into_iter()
        .flat_map(|list| list.split(','))
}

/// The source line a diagnostic's primary span starts on.
fn line_of<'a>(sources: &'a SourceMap, d: &Diagnostic) -> Option<&'a str> {
    let span = d.span?;
    let text = sources.files.get(span.file as usize)?.text()?;
    let start = (span.start as usize).min(text.len());
    let begin = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    text.get(begin..end)
}

/// Applies `allow` and `deny` (and the markers in the sources) to the
/// diagnostics of `check`: returns the allowed ones, removed from `diags`.
pub fn apply(
    sources: &SourceMap,
    allow: &[String],
    deny: &[String],
    diags: &mut Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let mut allowed = Vec::new();
    let mut kept = Vec::with_capacity(diags.len());
    for mut d in diags.drain(..) {
        let lint =
            d.code.starts_with("regdesc::check::") && d.code != "regdesc::check::lane_budget";
        let by_option = allow.iter().any(|a| names(a, d.code));
        let by_marker =
            line_of(sources, &d).is_some_and(|l| marker_codes(l).any(|c| names(c, d.code)));
        if lint && (by_option || by_marker) {
            allowed.push(d);
            continue;
        }
        if d.severity == Severity::Warning && deny.iter().any(|n| names(n, d.code)) {
            d.severity = Severity::Error;
        }
        kept.push(d);
    }
    *diags = kept;
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_names() {
        let line = "def SReg_1 : C<[i1], 32, // regdesc: allow(class_size_mismatch, unused_index)";
        let codes: Vec<&str> = marker_codes(line).collect();
        assert_eq!(codes, ["class_size_mismatch", " unused_index"]);
        assert!(names(" unused_index", "regdesc::check::unused_index"));
        assert!(names(
            "regdesc::check::unused_index",
            "regdesc::check::unused_index"
        ));
        assert!(!names("index", "regdesc::check::unused_index"));
        assert_eq!(marker_codes("def X; // allow(a)").count(), 0);
    }
}
