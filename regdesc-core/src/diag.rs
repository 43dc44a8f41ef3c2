//! Diagnostics shared by every stage, and their miette rendering.
//!
//! Each stage has its own error enum carrying [`Span`]s; each converts into
//! [`Diagnostic`], which this module renders against the [`SourceMap`].

use crate::syntax::{SourceMap, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A secondary location with a message ("included from", "instantiated from here").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub span: Option<Span>,
    pub message: String,
}

/// One located diagnostic, independent of the stage that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable machine-readable code such as `regdesc::eval::undefined`.
    pub code: &'static str,
    pub message: String,
    /// Where the problem is. `None` only for problems with no location at all.
    pub span: Option<Span>,
    /// Text of the label drawn under the span.
    pub label: String,
    pub related: Vec<Related>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>, span: Option<Span>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: String::new(),
            related: Vec::new(),
            help: None,
        }
    }

    pub fn warning(code: &'static str, message: impl Into<String>, span: Option<Span>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, span)
        }
    }

    pub fn note(code: &'static str, message: impl Into<String>, span: Option<Span>) -> Self {
        Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::error(code, message, span)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_related(mut self, span: Option<Span>, message: impl Into<String>) -> Self {
        self.related.push(Related {
            span,
            message: message.into(),
        });
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Renders diagnostics against the sources. (Filled in by the syntax/diag work.)
pub fn render(_sources: &SourceMap, diags: &[Diagnostic], _color: bool) -> String {
    let mut out = String::new();
    for d in diags {
        out.push_str(d.severity.as_str());
        out.push_str(": ");
        out.push_str(&d.message);
        out.push('\n');
    }
    out
}
