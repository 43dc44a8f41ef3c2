//! Diagnostics shared by every stage, and their miette rendering.
//!
//! Each stage has its own error enum carrying [`Span`]s; each converts into
//! [`Diagnostic`], which this module renders against the [`SourceMap`].

use crate::source::{SourceMap, Span};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
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

/// A diagnostic as JSON consumers see it: located by file, line and column
/// (1-based), `null` where it has no location.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LocatedDiagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub help: Option<String>,
}

impl Diagnostic {
    /// The JSON view of this diagnostic.
    pub fn located(&self, sources: &SourceMap) -> LocatedDiagnostic {
        let (file, line, column) = match self.span {
            Some(sp) if (sp.file as usize) < sources.files.len() => {
                let (l, c) = sources.line_col(sp.file, sp.start);
                (
                    Some(sources.file(sp.file).path.display().to_string()),
                    Some(l),
                    Some(c),
                )
            }
            _ => (None, None, None),
        };
        LocatedDiagnostic {
            severity: self.severity,
            code: self.code,
            message: self.message.clone(),
            file,
            line,
            column,
            help: self.help.clone(),
        }
    }
}

/// The width plain (`color == false`) output is wrapped at.
pub const PLAIN_WIDTH: usize = 100;

/// Renders diagnostics against the sources with miette's graphical
/// handler: `file:line:col`, the source snippet with the label under the
/// span, related notes (each with its own snippet, possibly in another
/// file), and help. With `color == false` the output has no ANSI codes and
/// a fixed width of [`PLAIN_WIDTH`] columns, so it is deterministic.
pub fn render(sources: &SourceMap, diags: &[Diagnostic], color: bool) -> String {
    let theme = if color {
        miette::GraphicalTheme::unicode()
    } else {
        miette::GraphicalTheme::unicode_nocolor()
    };
    let handler = miette::GraphicalReportHandler::new_themed(theme)
        .with_width(PLAIN_WIDTH)
        .with_links(false)
        .with_urls(false)
        .tab_width(4)
        .with_show_related_as_nested(true)
        .with_break_words(false)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        .with_word_separator(textwrap::WordSeparator::Custom(code_aware_words));
    let mut out = String::new();
    for d in diags {
        let report = Report::new(sources, &with_include_notes(sources, d));
        let mut one = String::new();
        if handler.render_report(&mut one, &report).is_err() {
            one = fallback(sources, &with_include_notes(sources, d));
        }
        out.push_str(&one);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Splits a line into words at spaces, keeping each `` `code` `` span (and
/// the text glued to it) one word, so that wrapping never breaks code
/// across lines.
fn code_aware_words(line: &str) -> Box<dyn Iterator<Item = textwrap::core::Word<'_>> + '_> {
    let bytes = line.as_bytes();
    let mut words = Vec::new();
    let (mut start, mut in_code, mut i) = (0, false, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'`' => in_code = !in_code,
            b' ' if !in_code => {
                let mut end = i;
                while end < bytes.len() && bytes[end] == b' ' {
                    end += 1;
                }
                words.push(textwrap::core::Word::from(&line[start..end]));
                start = end;
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if start < line.len() {
        words.push(textwrap::core::Word::from(&line[start..]));
    }
    Box::new(words.into_iter())
}

/// `d` with an "included from here" note for each step of the include
/// chain of the file its span is in (innermost first), after its own notes.
pub fn with_include_notes(sources: &SourceMap, d: &Diagnostic) -> Diagnostic {
    let mut d = d.clone();
    if let Some(span) = d.span {
        for (file, from) in sources.include_chain(span.file) {
            d.related.push(Related {
                span: Some(from),
                message: format!("`{}` included from here", file.path.display()),
            });
        }
    }
    d
}

/// Renders diagnostics the way LLVM's `SourceMgr` prints them on
/// llvm-tblgen's stderr: an `Included from FILE:LINE:` line per level of the
/// include chain (outermost first), `FILE:LINE:COL: warning: MESSAGE`, then
/// the source line (tabs expanded to 8-column stops) and a caret under the
/// column. Without a location, just `warning: MESSAGE`. Related notes and
/// help are regdesc's own and are left out.
pub fn render_llvm(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let kind = d.severity.as_str();
        let located = d.span.filter(|sp| (sp.file as usize) < sources.files.len());
        let Some(span) = located else {
            out.push_str(&format!("{kind}: {}\n", d.message));
            continue;
        };
        for (_, from) in sources.include_chain(span.file).iter().rev() {
            let (line, _) = sources.line_col(from.file, from.start);
            out.push_str(&format!(
                "Included from {}:{line}:\n",
                sources.file(from.file).path.display()
            ));
        }
        let file = sources.file(span.file);
        let (line, col) = sources.line_col(span.file, span.start);
        out.push_str(&format!(
            "{}:{line}:{col}: {kind}: {}\n",
            file.path.display(),
            d.message
        ));
        // Without the text (the file changed on disk since it was read),
        // no source line.
        let Some(text) = file.text() else { continue };
        let at = (span.start as usize).min(text.len());
        let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |p| at + p);
        let (mut shown, mut caret) = (String::new(), String::new());
        for (i, ch) in text[line_start..line_end].char_indices() {
            let here = line_start + i == at;
            if ch == '\t' {
                let pad = 8 - shown.chars().count() % 8;
                shown.extend(std::iter::repeat_n(' ', pad));
                if !here {
                    caret.extend(std::iter::repeat_n(' ', pad));
                }
            } else {
                shown.push(ch);
                if !here {
                    caret.push(' ');
                }
            }
            if here {
                caret.push('^');
            }
        }
        if at == line_end {
            caret.push('^');
        }
        out.push_str(shown.trim_end_matches('\r'));
        out.push('\n');
        out.push_str(caret.trim_end());
        out.push('\n');
    }
    out
}

/// A one-line-per-item rendering used if miette fails.
fn fallback(sources: &SourceMap, d: &Diagnostic) -> String {
    let mut s = String::new();
    if let Some(loc) = d.span.and_then(|sp| location(sources, sp)) {
        s.push_str(&loc);
        s.push_str(": ");
    }
    s.push_str(d.severity.as_str());
    s.push_str(": ");
    s.push_str(&d.message);
    s.push('\n');
    for r in &d.related {
        if let Some(loc) = r.span.and_then(|sp| location(sources, sp)) {
            s.push_str(&loc);
            s.push_str(": ");
        }
        s.push_str("note: ");
        s.push_str(&r.message);
        s.push('\n');
    }
    if let Some(h) = &d.help {
        s.push_str("help: ");
        s.push_str(h);
        s.push('\n');
    }
    s
}

/// `file:line:col` of a span, if its file exists.
pub fn location(sources: &SourceMap, span: Span) -> Option<String> {
    let f = sources.files.get(span.file as usize)?;
    let (line, col) = sources.line_col(span.file, span.start);
    Some(format!("{}:{line}:{col}", f.path.display()))
}

/// A named view of one source file for miette.
struct Src<'a> {
    name: String,
    text: &'a str,
}

impl miette::SourceCode for Src<'_> {
    fn read_span<'b>(
        &'b self,
        span: &miette::SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'b> + 'b>, miette::MietteError> {
        let c = self
            .text
            .read_span(span, context_lines_before, context_lines_after)?;
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name.clone(),
            c.data(),
            *c.span(),
            c.line(),
            c.column(),
            c.line_count(),
        )))
    }
}

/// Resolves a span to its file's source and a span miette accepts
/// (clamped to the text, on char boundaries).
fn resolve(sources: &SourceMap, span: Option<Span>) -> Option<(Src<'_>, miette::SourceSpan)> {
    let span = span?;
    let f = sources.files.get(span.file as usize)?;
    let text = f.text()?;
    let mut start = (span.start as usize).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (span.end as usize).clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    Some((
        Src {
            name: f.path.display().to_string(),
            text,
        },
        miette::SourceSpan::new(start.into(), end - start),
    ))
}

/// One diagnostic (or related note) as a miette diagnostic.
struct Report<'a> {
    severity: Severity,
    code: Option<&'static str>,
    message: String,
    label: String,
    help: Option<String>,
    src: Option<(Src<'a>, miette::SourceSpan)>,
    related: Vec<Report<'a>>,
}

/// A message and the source it points into; where the file's text is no
/// longer available (changed on disk), `file:line:col` goes before the
/// message instead of a snippet.
fn message_and_source<'a>(
    sources: &'a SourceMap,
    span: Option<Span>,
    message: &str,
) -> (String, Option<(Src<'a>, miette::SourceSpan)>) {
    match resolve(sources, span) {
        Some(src) => (message.to_string(), Some(src)),
        None => match span.and_then(|sp| location(sources, sp)) {
            Some(loc) => (format!("{loc}: {message}"), None),
            None => (message.to_string(), None),
        },
    }
}

impl<'a> Report<'a> {
    fn new(sources: &'a SourceMap, d: &Diagnostic) -> Report<'a> {
        let related = d
            .related
            .iter()
            .map(|r| {
                let (message, src) = message_and_source(sources, r.span, &r.message);
                Report {
                    severity: Severity::Note,
                    code: None,
                    message,
                    label: String::new(),
                    help: None,
                    src,
                    related: Vec::new(),
                }
            })
            .collect();
        let (message, src) = message_and_source(sources, d.span, &d.message);
        Report {
            severity: d.severity,
            code: Some(d.code).filter(|c| !c.is_empty()),
            message,
            label: d.label.clone(),
            help: d.help.clone(),
            src,
            related,
        }
    }
}

impl std::fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.code
            .map(|c| Box::new(c) as Box<dyn std::fmt::Display + 'b>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display + 'b>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.src.as_ref().map(|(s, _)| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let (_, span) = self.src.as_ref()?;
        let label = (!self.label.is_empty()).then(|| self.label.clone());
        Some(Box::new(std::iter::once(
            miette::LabeledSpan::new_primary_with_span(label, *span),
        )))
    }

    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn miette::Diagnostic> + 'b>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(
            self.related.iter().map(|r| r as &dyn miette::Diagnostic),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;
    use std::path::PathBuf;

    fn sources() -> SourceMap {
        SourceMap {
            files: vec![
                SourceFile::in_memory(
                    PathBuf::from("main.td"),
                    "include \"a.td\"\ndef X : Foo;\n".into(),
                    None,
                ),
                SourceFile::in_memory(
                    PathBuf::from("a.td"),
                    "class A {\n  int x\n}\n".into(),
                    Some(Span::new(0, 0, 14)),
                ),
            ],
        }
    }

    #[test]
    fn plain_rendering_is_located_and_deterministic() {
        let src = sources();
        let d = Diagnostic::error(
            "regdesc::syntax::expected",
            "expected `;`, found `}`",
            Some(Span::new(1, 18, 19)),
        )
        .with_label("unexpected `}`")
        .with_related(Some(Span::new(0, 0, 14)), "`a.td` included from here")
        .with_help("add a `;`");
        let out = render(&src, std::slice::from_ref(&d), false);
        assert_eq!(out, render(&src, &[d], false));
        assert!(!out.contains('\x1b'), "{out}");
        assert!(out.contains("a.td:3:1"), "{out}");
        assert!(out.contains("main.td:1:1"), "{out}");
        assert!(out.contains("unexpected `}`"), "{out}");
        assert!(out.contains("included from here"), "{out}");
        assert!(out.contains("add a `;`"), "{out}");
        assert!(out.contains("regdesc::syntax::expected"), "{out}");
        for line in out.lines() {
            assert!(line.chars().count() <= PLAIN_WIDTH, "{line}");
        }
    }

    #[test]
    fn unlocated_and_out_of_range_spans_still_render() {
        let src = sources();
        let d = Diagnostic::error("regdesc::x", "no location", None).with_help("some help");
        let out = render(&src, &[d], false);
        assert!(
            out.contains("no location") && out.contains("some help"),
            "{out}"
        );
        let d = Diagnostic::error("regdesc::x", "bad span", Some(Span::new(7, 0, 1)));
        assert!(render(&src, &[d], false).contains("bad span"));
        let d = Diagnostic::warning("regdesc::x", "past the end", Some(Span::new(1, 500, 900)));
        assert!(render(&src, &[d], false).contains("past the end"));
        let d = Diagnostic::note("regdesc::x", "at eof", Some(Span::new(1, 22, 22)));
        assert!(render(&src, &[d], false).contains("at eof"));
    }

    #[test]
    fn color_output_has_ansi() {
        let src = sources();
        let d = Diagnostic::error("regdesc::x", "colored", Some(Span::new(1, 0, 5)));
        assert!(render(&src, &[d], true).contains('\x1b'));
    }
}
