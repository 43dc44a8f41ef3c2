//! Located diagnostics of every stage (parser, verifier, interpreter) and
//! their rendering with miette: `file:line:col`, the source line with a
//! label under the offending text, and a help line.

use crate::source::{Source, Span};

/// One located problem (boxed: results carrying it stay small).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag(Box<DiagData>);

/// The contents of a [`Diag`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiagData {
    /// A stable code, e.g. `ir::unsupported-instruction`.
    pub code: &'static str,
    pub message: String,
    /// Where the problem is, in the source the diagnostic is rendered with.
    pub span: Option<Span>,
    /// The text under the span.
    pub label: String,
    pub help: Option<String>,
    /// Secondary locations ("defined here").
    pub notes: Vec<(Span, String)>,
}

impl std::ops::Deref for Diag {
    type Target = DiagData;

    fn deref(&self) -> &DiagData {
        &self.0
    }
}

impl Diag {
    pub fn new(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Diag(Box::new(DiagData {
            code,
            message: message.into(),
            span: Some(span),
            label: String::new(),
            help: None,
            notes: Vec::new(),
        }))
    }

    /// A problem with no place in the source (a missing function, say).
    pub fn unlocated(code: &'static str, message: impl Into<String>) -> Self {
        Diag(Box::new(DiagData {
            code,
            message: message.into(),
            span: None,
            label: String::new(),
            help: None,
            notes: Vec::new(),
        }))
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.0.label = label.into();
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.0.help = Some(help.into());
        self
    }

    pub fn note(mut self, span: Span, text: impl Into<String>) -> Self {
        self.0.notes.push((span, text.into()));
        self
    }

    /// `file:line:col: message`, one line (for logs and test assertions).
    pub fn one_line(&self, src: &Source) -> String {
        match &self.span {
            Some(s) => {
                let (l, c) = src.line_col(s.start);
                format!("{}:{l}:{c}: error: {}", src.name, self.message)
            }
            None => format!("error: {}", self.message),
        }
    }
}

/// Diagnostics for one source, as returned by the parser and verifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics {
    pub source: Source,
    pub diags: Vec<Diag>,
}

impl Diagnostics {
    pub fn new(source: Source, diags: Vec<Diag>) -> Self {
        Diagnostics { source, diags }
    }

    /// Renders every diagnostic (see [`render`]).
    pub fn render(&self, color: bool) -> String {
        render(&self.source, &self.diags, color)
    }
}

impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for d in &self.diags {
            writeln!(f, "{}", d.one_line(&self.source))?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// The width plain output is wrapped at.
pub const PLAIN_WIDTH: usize = 100;

/// Renders diagnostics with miette's graphical handler. Without colour the
/// output has no escape codes and a fixed width, so it is deterministic
/// (the snapshot tests rely on that).
pub fn render(src: &Source, diags: &[Diag], color: bool) -> String {
    let theme = if color {
        miette::GraphicalTheme::unicode()
    } else {
        miette::GraphicalTheme::unicode_nocolor()
    };
    let handler = miette::GraphicalReportHandler::new_themed(theme)
        .with_width(PLAIN_WIDTH)
        .with_links(false)
        .with_urls(false)
        .tab_width(4);
    let mut out = String::new();
    for d in diags {
        let report = to_report(src, d);
        let mut one = String::new();
        if handler.render_report(&mut one, report.as_ref()).is_err() {
            one = d.one_line(src);
        }
        out.push_str(&one);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

fn clamp(text: &str, span: &Span) -> miette::SourceSpan {
    let mut start = span.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end - start).into()
}

fn to_report(src: &Source, d: &Diag) -> miette::Report {
    let mut m = miette::MietteDiagnostic::new(d.message.clone()).with_code(d.code);
    let text: &str = &src.text;
    if let Some(span) = &d.span {
        let label = if d.label.is_empty() {
            None
        } else {
            Some(d.label.clone())
        };
        m = m.with_label(miette::LabeledSpan::new_with_span(label, clamp(text, span)));
    }
    for (span, note) in &d.notes {
        m = m.and_label(miette::LabeledSpan::new_with_span(
            Some(note.clone()),
            clamp(text, span),
        ));
    }
    if let Some(h) = &d.help {
        m = m.with_help(h.clone());
    }
    let report = miette::Report::new(m);
    if d.span.is_some() {
        report.with_source_code(miette::NamedSource::new(
            src.name.clone(),
            src.text.to_string(),
        ))
    } else {
        report
    }
}
