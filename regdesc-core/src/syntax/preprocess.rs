//! The TableGen preprocessor: `#define`, `#ifdef`, `#ifndef`, `#else`,
//! `#endif`, recognized the way llvm-tblgen 14's lexer does.
//!
//! Directives and disabled regions are replaced by spaces, so byte offsets
//! of the remaining text do not change. The output is meant for the parser
//! only: comments and every whitespace character outside string literals
//! and code blocks become spaces too (which keeps the grammar's whitespace
//! handling cheap); line numbers are always computed on the original text. The scan is lexer-aware: it knows comments, strings and code
//! blocks, and it reports `include "path"` statements of the active text to
//! the [`PreprocessHost`] in order, so that the macro set is shared across
//! files in include order (a `#define` in an included file is visible after
//! the `include` in the parent).
//!
//! llvm-tblgen's rules, reproduced here:
//! * a directive is a `#` that starts a line (after spaces, tabs and
//!   `/* */` comments), immediately followed by one of the directive words,
//!   followed by a space, tab, newline, `//` or `/*` (not by the end of the
//!   file: llvm-tblgen 14 does not recognize `#endif` as the very last
//!   bytes of a file);
//! * anything else starting with `#` is the paste operator;
//! * after a directive (and its macro name) only comments may follow on the
//!   line (a `/* */` comment there may span lines);
//! * inside a disabled region, only lines that start with a directive are
//!   looked at (after whitespace and `/* */` comments); `#define` is ignored
//!   there; every other line is skipped without being lexed.

use crate::syntax::error::SyntaxError;
use crate::syntax::{FileId, Span};

/// Maximum nesting of `#ifdef`/`#ifndef` in one file.
pub const MAX_CONDITIONAL_DEPTH: usize = 256;

/// Maximum nesting of brackets (`(`, `[`, `{`, `<`) plus chained
/// `let ... in` / `foreach ... in` / `if ... then` statements plus runs of
/// pastes and field accesses (`a#b#c`, `a.b.c`): the parser, the AST and
/// its users recurse that deep.
pub const MAX_NESTING: usize = 256;

/// What the preprocessor needs from its caller.
pub trait PreprocessHost {
    /// Whether `name` is defined (by `-D` or an earlier `#define`).
    fn is_defined(&self, name: &str) -> bool;
    /// `#define name` in an active region.
    fn define(&mut self, name: &str);
    /// `include "path"` in an active region. `span` covers from `include`
    /// to the end of the string literal, `path_span` the string literal.
    fn include(&mut self, path: &str, span: Span, path_span: Span);
}

/// The preprocessed text and every error found.
#[derive(Clone, Debug)]
pub struct Preprocessed {
    /// The text with directives, disabled regions, comments and whitespace
    /// (outside strings and code blocks) turned into spaces.
    pub text: String,
    pub errors: Vec<SyntaxError>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Directive {
    Ifdef,
    Ifndef,
    Else,
    Endif,
    Define,
}

impl Directive {
    fn word(self) -> &'static str {
        match self {
            Directive::Ifdef => "ifdef",
            Directive::Ifndef => "ifndef",
            Directive::Else => "else",
            Directive::Endif => "endif",
            Directive::Define => "define",
        }
    }
}

const DIRECTIVES: [Directive; 5] = [
    Directive::Ifdef,
    Directive::Ifndef,
    Directive::Else,
    Directive::Endif,
    Directive::Define,
];

struct Cond {
    is_else: bool,
    taken: bool,
    loc: Span,
}

/// Stops the scan after a fatal (lexical or directive) error.
struct Stop;

struct Pp<'a, 'h> {
    file: FileId,
    b: &'a [u8],
    out: Vec<u8>,
    host: &'h mut dyn PreprocessHost,
    stack: Vec<Cond>,
    errors: Vec<SyntaxError>,
}

fn is_word(c: u8) -> bool {
    super::is_word_byte(c)
}

/// Preprocesses `text` (the contents of file `file`).
pub fn preprocess(file: FileId, text: &str, host: &mut dyn PreprocessHost) -> Preprocessed {
    let b = text.as_bytes();
    let mut pp = Pp {
        file,
        b,
        out: b.to_vec(),
        host,
        stack: Vec::new(),
        errors: Vec::new(),
    };
    if pp.run().is_ok() {
        if let Some(top) = pp.stack.last() {
            let open = top.loc;
            let n = b.len();
            pp.errors.push(SyntaxError::UnterminatedConditional {
                span: pp.span(n, n),
                open,
            });
        }
    }
    let text = String::from_utf8(pp.out).unwrap_or_else(|_| text.to_string());
    Preprocessed {
        text,
        errors: pp.errors,
    }
}

impl Pp<'_, '_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn blank(&mut self, start: usize, end: usize) {
        let end = end.min(self.out.len());
        for c in &mut self.out[start.min(end)..end] {
            *c = b' ';
        }
    }

    fn enabled(&self) -> bool {
        self.stack.iter().all(|c| c.taken)
    }

    fn fail(&mut self, e: SyntaxError) -> Stop {
        self.errors.push(e);
        Stop
    }

    /// Skips a (nested) block comment starting at `i` (which is at `/*`).
    fn skip_block_comment(&mut self, i: usize) -> Result<usize, Stop> {
        let b = self.b;
        let mut depth = 0usize;
        let mut j = i;
        while j < b.len() {
            if b[j] == b'/' && self.at(j + 1) == b'*' {
                depth += 1;
                j += 2;
            } else if b[j] == b'*' && self.at(j + 1) == b'/' {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    return Ok(j);
                }
            } else {
                j += 1;
            }
        }
        Err(self.fail(SyntaxError::UnterminatedComment {
            span: self.span(i, i + 2),
        }))
    }

    fn line_end(&self, mut i: usize) -> usize {
        while i < self.b.len() && self.b[i] != b'\n' && self.b[i] != b'\r' {
            i += 1;
        }
        i
    }

    /// Lexes a string literal starting at `i` (at `"`); returns its end.
    fn skip_string(&mut self, i: usize) -> Result<usize, Stop> {
        let b = self.b;
        let mut j = i + 1;
        loop {
            match b.get(j) {
                None | Some(b'\n') | Some(b'\r') => {
                    return Err(self.fail(SyntaxError::UnterminatedString {
                        span: self.span(i, i + 1),
                    }))
                }
                Some(b'\\') => {
                    if matches!(b.get(j + 1), Some(b'\n') | Some(b'\r')) {
                        return Err(self.fail(SyntaxError::EscapedNewline {
                            span: self.span(j, j + 1),
                        }));
                    }
                    j += 2;
                }
                Some(b'"') => return Ok(j + 1),
                Some(_) => j += 1,
            }
        }
    }

    /// Is there a directive word at `i` (just after a `#`)?
    fn directive_at(&self, i: usize) -> Option<Directive> {
        let rest = &self.b[i.min(self.b.len())..];
        for d in DIRECTIVES {
            let w = d.word().as_bytes();
            if !rest.starts_with(w) {
                continue;
            }
            match rest.get(w.len()) {
                Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r') => return Some(d),
                Some(b'/') if matches!(rest.get(w.len() + 1), Some(b'/') | Some(b'*')) => {
                    return Some(d)
                }
                _ => {}
            }
        }
        None
    }

    /// Lexes the macro name after a directive word ending at `i`.
    fn macro_name(&mut self, d: Directive, mut i: usize) -> Result<(usize, usize), Stop> {
        while matches!(self.at(i), b' ' | b'\t') {
            i += 1;
        }
        let c = self.at(i);
        if !(c.is_ascii_alphabetic() || c == b'_') {
            let end = if i < self.b.len() { i + 1 } else { i };
            let end = if matches!(self.at(i), b'\n' | b'\r') {
                i
            } else {
                end
            };
            return Err(self.fail(SyntaxError::MissingMacroName {
                directive: d.word(),
                span: self.span(i, end),
            }));
        }
        let start = i;
        while is_word(self.at(i)) {
            i += 1;
        }
        Ok((start, i))
    }

    /// Skips what may follow a directive: spaces, tabs and comments up to
    /// the end of the line. Returns the position of the line end.
    fn directive_end(&mut self, d: Directive, mut i: usize) -> Result<usize, Stop> {
        loop {
            match self.b.get(i) {
                None | Some(b'\n') | Some(b'\r') => return Ok(i),
                Some(b' ') | Some(b'\t') => i += 1,
                Some(b'/') if self.at(i + 1) == b'/' => return Ok(self.line_end(i)),
                Some(b'/') if self.at(i + 1) == b'*' => i = self.skip_block_comment(i)?,
                Some(_) => {
                    let name = match d {
                        Directive::Ifdef | Directive::Ifndef | Directive::Define => {
                            format!("{} NAME", d.word())
                        }
                        _ => d.word().to_string(),
                    };
                    let end = self.line_end(i);
                    return Err(self.fail(SyntaxError::DirectiveTrailing {
                        directive: name,
                        span: self.span(i, end),
                    }));
                }
            }
        }
    }

    /// Processes the directive whose `#` is at `h`; returns the end of the
    /// directive (a line end). `active` says whether `#define` counts.
    fn directive(&mut self, h: usize, d: Directive, active: bool) -> Result<usize, Stop> {
        let word_end = h + 1 + d.word().len();
        match d {
            Directive::Ifdef | Directive::Ifndef => {
                let (ns, ne) = self.macro_name(d, word_end)?;
                let end = self.directive_end(d, ne)?;
                let name = std::str::from_utf8(&self.b[ns..ne]).unwrap_or("");
                let defined = self.host.is_defined(name);
                if self.stack.len() >= MAX_CONDITIONAL_DEPTH {
                    return Err(self.fail(SyntaxError::ConditionalTooDeep {
                        limit: MAX_CONDITIONAL_DEPTH,
                        span: self.span(h, ne),
                    }));
                }
                self.stack.push(Cond {
                    is_else: false,
                    taken: defined == (d == Directive::Ifdef),
                    loc: self.span(h, ne),
                });
                Ok(end)
            }
            Directive::Else => {
                let end = self.directive_end(d, word_end)?;
                let loc = self.span(h, word_end);
                match self.stack.last_mut() {
                    None => Err(self.fail(SyntaxError::ElseWithoutIf { span: loc })),
                    Some(top) if top.is_else => {
                        let previous = top.loc;
                        Err(self.fail(SyntaxError::DoubleElse {
                            span: loc,
                            previous,
                        }))
                    }
                    Some(top) => {
                        top.is_else = true;
                        top.taken = !top.taken;
                        top.loc = loc;
                        Ok(end)
                    }
                }
            }
            Directive::Endif => {
                let end = self.directive_end(d, word_end)?;
                if self.stack.pop().is_none() {
                    return Err(self.fail(SyntaxError::EndifWithoutIf {
                        span: self.span(h, word_end),
                    }));
                }
                Ok(end)
            }
            Directive::Define => {
                let (ns, ne) = self.macro_name(d, word_end)?;
                let end = self.directive_end(d, ne)?;
                if active {
                    let name = std::str::from_utf8(&self.b[ns..ne]).unwrap_or("");
                    self.host.define(name);
                }
                Ok(end)
            }
        }
    }

    /// Skips a disabled region starting at `i` (the end of the directive
    /// that disabled it). Returns where active text resumes.
    fn skip_region(&mut self, mut i: usize) -> Result<usize, Stop> {
        let start = i;
        let n = self.b.len();
        loop {
            i = self.line_end(i);
            // Skip whitespace, newlines and block comments at line starts.
            loop {
                match self.b.get(i) {
                    Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r') => i += 1,
                    Some(b'/') if self.at(i + 1) == b'*' => match self.skip_block_comment(i) {
                        Ok(e) => i = e,
                        Err(stop) => {
                            self.blank(start, n);
                            return Err(stop);
                        }
                    },
                    _ => break,
                }
            }
            if i >= n {
                self.blank(start, n);
                return Ok(n);
            }
            if self.b[i] == b'#' {
                if let Some(d) = self.directive_at(i + 1) {
                    if d == Directive::Define {
                        continue;
                    }
                    let end = match self.directive(i, d, false) {
                        Ok(end) => end,
                        Err(stop) => {
                            self.blank(start, n);
                            return Err(stop);
                        }
                    };
                    if self.enabled() {
                        self.blank(start, end);
                        return Ok(end);
                    }
                    i = end;
                }
            }
        }
    }

    fn run(&mut self) -> Result<(), Stop> {
        let b = self.b;
        let n = b.len();
        let mut i = 0;
        let mut line_start = true;
        let mut depth = 0usize;
        let mut chain = 0usize;
        // `#` and `.` in a row (pastes nest to the right, fields to the left).
        let mut run = 0usize;
        while i < n {
            let c = b[i];
            if matches!(
                c,
                b',' | b';' | b':' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>'
            ) {
                run = 0;
            }
            match c {
                b' ' => {
                    i += 1;
                    // Indentation and blank runs, eight bytes at a time.
                    while b.get(i..i + 8) == Some(b"        ") {
                        i += 8;
                    }
                }
                b'\t' => {
                    self.out[i] = b' ';
                    i += 1;
                }
                b'\n' | b'\r' => {
                    self.out[i] = b' ';
                    line_start = true;
                    i += 1;
                }
                b'/' if self.at(i + 1) == b'/' => {
                    let e = self.line_end(i);
                    self.blank(i, e);
                    i = e;
                }
                b'/' if self.at(i + 1) == b'*' => {
                    let e = self.skip_block_comment(i)?;
                    self.blank(i, e);
                    i = e;
                }
                b'"' => {
                    i = self.skip_string(i)?;
                    line_start = false;
                }
                b'[' if self.at(i + 1) == b'{' => {
                    match find(b, i + 2, b"}]") {
                        Some(e) => i = e + 2,
                        None => {
                            return Err(self.fail(SyntaxError::UnterminatedCode {
                                span: self.span(i, i + 2),
                            }))
                        }
                    }
                    line_start = false;
                }
                b'#' if line_start && self.directive_at(i + 1).is_some() => {
                    let d = self.directive_at(i + 1).unwrap_or(Directive::Endif);
                    let end = self.directive(i, d, true)?;
                    self.blank(i, end);
                    i = if self.enabled() {
                        end
                    } else {
                        self.skip_region(end)?
                    };
                }
                b'(' | b'[' | b'{' | b'<' => {
                    depth += 1;
                    if c == b'{' {
                        chain = 0;
                    }
                    if depth + chain > MAX_NESTING {
                        return Err(self.fail(SyntaxError::NestingTooDeep {
                            limit: MAX_NESTING,
                            span: self.span(i, i + 1),
                        }));
                    }
                    i += 1;
                    line_start = false;
                }
                b')' | b']' | b'}' | b'>' | b';' => {
                    if c != b';' {
                        depth = depth.saturating_sub(1);
                    }
                    if c == b';' || c == b'}' {
                        chain = 0;
                    }
                    i += 1;
                    line_start = false;
                }
                b'#' | b'.' => {
                    run += 1;
                    if depth + chain + run > MAX_NESTING {
                        return Err(self.fail(SyntaxError::NestingTooDeep {
                            limit: MAX_NESTING,
                            span: self.span(i, i + 1),
                        }));
                    }
                    i += 1;
                    line_start = false;
                }
                b'$' | b'!' => {
                    i += 1;
                    while i < n && is_word(b[i]) {
                        i += 1;
                    }
                    line_start = false;
                }
                _ if is_word(c) => {
                    let start = i;
                    while i < n && is_word(b[i]) {
                        i += 1;
                    }
                    line_start = false;
                    match &b[start..i] {
                        b"include" => i = self.include(start, i)?,
                        b"in" | b"then" | b"else" => {
                            chain += 1;
                            if depth + chain > MAX_NESTING {
                                return Err(self.fail(SyntaxError::NestingTooDeep {
                                    limit: MAX_NESTING,
                                    span: self.span(start, i),
                                }));
                            }
                        }
                        _ => {}
                    }
                }
                _ => {
                    i += 1;
                    line_start = false;
                }
            }
        }
        Ok(())
    }

    /// After the word `include` (at `start..i`): if a string literal
    /// follows, report the include to the host. Returns where to go on.
    fn include(&mut self, start: usize, mut i: usize) -> Result<usize, Stop> {
        let b = self.b;
        let word_end = i;
        loop {
            match b.get(i) {
                Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r') => i += 1,
                Some(b'/') if self.at(i + 1) == b'/' => i = self.line_end(i),
                Some(b'/') if self.at(i + 1) == b'*' => i = self.skip_block_comment(i)?,
                _ => break,
            }
        }
        self.blank(word_end, i);
        if b.get(i) != Some(&b'"') {
            // Not an include statement; the parser reports it.
            return Ok(i);
        }
        let end = self.skip_string(i)?;
        let raw = std::str::from_utf8(&b[i + 1..end - 1]).unwrap_or("");
        let path = unescape_simple(raw);
        let span = self.span(start, end);
        self.host.include(&path, span, self.span(i, end));
        Ok(end)
    }
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from > hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Unescapes a string literal body, keeping invalid escapes as written
/// (the parser reports them).
fn unescape_simple(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(c @ ('\\' | '\'' | '"')) => out.push(c),
            Some(c) => {
                out.push('\\');
                out.push(c);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[derive(Default)]
    struct Host {
        defined: HashSet<String>,
        includes: Vec<(String, Span)>,
    }

    impl PreprocessHost for Host {
        fn is_defined(&self, name: &str) -> bool {
            self.defined.contains(name)
        }
        fn define(&mut self, name: &str) {
            self.defined.insert(name.to_string());
        }
        fn include(&mut self, path: &str, span: Span, path_span: Span) {
            assert_eq!((path_span.file, path_span.end), (span.file, span.end));
            self.includes.push((path.to_string(), span));
        }
    }

    fn pp(text: &str, defs: &[&str]) -> (Preprocessed, Host) {
        let mut host = Host::default();
        for d in defs {
            host.defined.insert(d.to_string());
        }
        let out = preprocess(0, text, &mut host);
        (out, host)
    }

    fn kept(text: &str, defs: &[&str]) -> String {
        let (out, _) = pp(text, defs);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(out.text.len(), text.len());
        out.text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn keeps_offsets_and_lines() {
        let text = "#ifdef X\ndef A;\n#else\ndef B;\n#endif\ndef C;\n";
        let (out, _) = pp(text, &[]);
        assert!(out.errors.is_empty());
        assert_eq!(out.text.len(), text.len());
        assert_eq!(out.text.find("def B;"), text.find("def B;"));
        assert_eq!(out.text.find("def C;"), text.find("def C;"));
        assert!(!out.text.contains("def A"));
        assert!(!out.text.contains('#'));
    }

    #[test]
    fn ifdef_ifndef_else() {
        let t = "#ifdef X\nA\n#else\nB\n#endif\n#ifndef X\nC\n#else\nD\n#endif\n";
        assert_eq!(kept(t, &["X"]), "A D");
        assert_eq!(kept(t, &[]), "B C");
    }

    #[test]
    fn define_then_use() {
        let t = "#define FOO\n#ifdef FOO\nyes\n#endif\n";
        assert_eq!(kept(t, &[]), "yes");
        // #define in a disabled region does nothing.
        let t = "#ifdef NO\n#define Y\n#endif\n#ifdef Y\nbad\n#endif\n";
        assert_eq!(kept(t, &[]), "");
    }

    #[test]
    fn nested_conditionals() {
        let t = "#ifdef A\n#ifdef B\nab\n#else\na\n#endif\n#else\n#ifdef B\nb\n#else\nnone\n#endif\n#endif\n";
        assert_eq!(kept(t, &["A", "B"]), "ab");
        assert_eq!(kept(t, &["A"]), "a");
        assert_eq!(kept(t, &["B"]), "b");
        assert_eq!(kept(t, &[]), "none");
    }

    #[test]
    fn directive_recognition() {
        // Leading whitespace and comments are fine; comments after directives too.
        let t = "  #define FOO\n/* c */ #ifdef FOO // x\nA\n#else /* y */\nB\n#endif\n";
        assert_eq!(kept(t, &[]), "A");
        // A directive word must be followed by whitespace or a comment:
        // otherwise `#` is the paste operator.
        assert_eq!(kept("#ifdefX\n", &[]), "#ifdefX");
        assert_eq!(kept("a #ifdef X\n", &[]), "a #ifdef X");
        // ... and the end of the file does not count (llvm-tblgen 14 quirk).
        let (out, _) = pp("#ifdef X\nA\n#endif", &[]);
        assert!(matches!(
            out.errors[..],
            [SyntaxError::UnterminatedConditional { .. }]
        ));
        // A multi-line comment ending before the directive still counts.
        assert_eq!(kept("/* a\n b */ #ifdef X\nA\n#endif\n", &[]), "");
    }

    #[test]
    fn skipped_regions_are_not_lexed() {
        // In a disabled region a comment at a line start is skipped whole ...
        let t = "#ifdef NO\n /* skip\n#endif */\nA\n#endif\nB\n";
        assert_eq!(kept(t, &[]), "B");
        // ... but text inside strings or mid-line comments is not looked at.
        let t = "#ifdef NO\ndef x = \"unterminated\n#endif\nB\n";
        assert_eq!(kept(t, &[]), "B");
    }

    #[test]
    fn code_blocks_and_comments_hide_directives() {
        let t = "def G { string s = [{\n#ifdef X\n}]; }\n";
        assert_eq!(kept(t, &[]), "def G { string s = [{ #ifdef X }]; }");
        let t = "/*\n#ifdef X\n*/ // c\n";
        assert_eq!(kept(t, &[]), "");
    }

    #[test]
    fn errors() {
        let err = |t: &str| pp(t, &[]).0.errors;
        assert!(matches!(
            err("#ifdef\n#endif\n")[..],
            [SyntaxError::MissingMacroName {
                directive: "ifdef",
                ..
            }]
        ));
        assert!(matches!(
            err("#ifdef X Y\n#endif\n")[..],
            [SyntaxError::DirectiveTrailing { .. }]
        ));
        assert!(matches!(
            err("#define X Y\n")[..],
            [SyntaxError::DirectiveTrailing { .. }]
        ));
        assert!(matches!(
            err("#else\n")[..],
            [SyntaxError::ElseWithoutIf { .. }]
        ));
        assert!(matches!(
            err("#endif\n")[..],
            [SyntaxError::EndifWithoutIf { .. }]
        ));
        assert!(matches!(
            err("#ifdef X\n#else\n#else\n#endif\n")[..],
            [SyntaxError::DoubleElse { .. }]
        ));
        let e = err("#ifdef X\nA\n");
        match &e[..] {
            [SyntaxError::UnterminatedConditional { span, open }] => {
                assert_eq!((span.start, span.end), (11, 11));
                assert_eq!((open.start, open.end), (0, 8));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            err("/* /* */")[..],
            [SyntaxError::UnterminatedComment { .. }]
        ));
        assert!(matches!(
            err("def A { code c = [{ x }")[..],
            [SyntaxError::UnterminatedCode { .. }]
        ));
        assert!(matches!(
            err("def A { string c = \"x\n\"; }")[..],
            [SyntaxError::UnterminatedString { .. }]
        ));
        // Errors inside disabled regions are reported too.
        assert!(matches!(
            err("#ifdef NO\n#ifdef\n#endif\n#endif\n")[..],
            [SyntaxError::MissingMacroName { .. }]
        ));
    }

    #[test]
    fn nesting_bounds() {
        let deep = "(".repeat(MAX_NESTING + 1);
        assert!(matches!(
            pp(&deep, &[]).0.errors[..],
            [SyntaxError::NestingTooDeep { .. }]
        ));
        let chain = "let a = 1 in ".repeat(MAX_NESTING + 1);
        assert!(matches!(
            pp(&chain, &[]).0.errors[..],
            [SyntaxError::NestingTooDeep { .. }]
        ));
        let pastes = format!("defvar x = {}a;", "a # ".repeat(MAX_NESTING + 1));
        assert!(matches!(
            pp(&pastes, &[]).0.errors[..],
            [SyntaxError::NestingTooDeep { .. }]
        ));
        let fields = format!("defvar x = a{};", ".b".repeat(MAX_NESTING + 1));
        assert!(matches!(
            pp(&fields, &[]).0.errors[..],
            [SyntaxError::NestingTooDeep { .. }]
        ));
        let list = format!("defvar x = [{}];", "a#b.c, ".repeat(10_000));
        assert!(pp(&list, &[]).0.errors.is_empty());
        let ok = "def A { int a = 1; }\n".repeat(10_000);
        assert!(pp(&ok, &[]).0.errors.is_empty());
        let conds = "#ifdef X\n".repeat(MAX_CONDITIONAL_DEPTH + 1);
        assert!(matches!(
            pp(&conds, &["X"]).0.errors[..],
            [SyntaxError::ConditionalTooDeep { .. }]
        ));
    }

    #[test]
    fn reports_includes_in_order_and_only_active() {
        let t = "include \"a.td\"\n#ifdef NO\ninclude \"b.td\"\n#endif\ninclude /* c */ \"c\\\\d.td\"\ndef x { string s = \"include \\\"no.td\\\"\"; }\n";
        let (out, host) = pp(t, &[]);
        assert!(out.errors.is_empty());
        let paths: Vec<_> = host.includes.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["a.td", "c\\d.td"]);
        let (_, span) = &host.includes[0];
        assert_eq!(
            &t[span.start as usize..span.end as usize],
            "include \"a.td\""
        );
    }

    #[test]
    fn non_ascii_in_disabled_region() {
        let t = "#ifdef NO\nhé llo\n#endif\nB\n";
        let (out, _) = pp(t, &[]);
        assert_eq!(out.text.len(), t.len());
        assert_eq!(out.text.trim(), "B");
    }
}
