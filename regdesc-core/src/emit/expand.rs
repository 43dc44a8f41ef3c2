//! The library half of the `regdesc!` proc macro (the macro crate only
//! converts tokens): reading the invocation, running the driver, and
//! turning every failure into `compile_error!` at the right span.
//!
//! Two forms:
//!
//! - `regdesc!(include "path/file.td", include_dirs = ["..."], lanes = coverage)`:
//!   paths resolve against `CARGO_MANIFEST_DIR`;
//! - TableGen as the body, options first as inner attributes:
//!   `regdesc! { #![lanes = llvm] include "llvm/Target/Target.td" def R0 : ... }`.
//!   The tokens are laid out again at their lines and columns (so that the
//!   diagnostics' line numbers are the Rust file's), with a map from text
//!   offsets back to token spans.
//!
//! Rust must be able to tokenize an inline body: write TableGen's paste
//! operator with spaces (`def s # i`, since Rust 2021 reserves `s#`), and
//! `//` comments are dropped by Rust before the macro sees them.
//!
//! Options: `include_dirs = ["dir", ...]`, `defines = ["NAME", ...]`,
//! `lanes = llvm | coverage` (default `coverage`), `lane_bits = N` (the lane
//! budget, default 64), `doc_url = "https://..."`, `allow = ["CODE", ...]`
//! (findings of `check` that are deliberate; a `// regdesc: allow(CODE)`
//! marker in an included `.td` works too).
//!
//! Every file read is tracked with `include_bytes!`, so that editing any
//! included `.td` rebuilds the crate.

use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};

use super::EmitOptions;
use crate::check::CheckOptions;
use crate::diag::{self, Diagnostic};
use crate::driver::{self, Input};
use crate::lanes::LaneMode;

/// What the macro was asked.
struct Invocation {
    /// `include "..."`: the path and its literal's span.
    file: Option<(String, Span)>,
    /// The inline TableGen tokens.
    body: Vec<TokenTree>,
    include_dirs: Vec<String>,
    defines: Vec<String>,
    lanes: LaneMode,
    lane_bits: u32,
    doc_url: Option<String>,
    /// Diagnostic codes whose findings are deliberate.
    allow: Vec<String>,
}

/// An error in the invocation itself, at a span.
struct Misuse {
    span: Span,
    message: String,
}

fn misuse(span: Span, message: impl Into<String>) -> Misuse {
    Misuse {
        span,
        message: message.into(),
    }
}

const OPTIONS: &str = "include_dirs = [\"dir\", ...], defines = [\"NAME\", ...], lanes = llvm | coverage, lane_bits = N, doc_url = \"URL\", allow = [\"CODE\", ...]";

/// Expands `regdesc!(input)`; `manifest_dir` is the calling crate's
/// `CARGO_MANIFEST_DIR`.
pub fn expand(input: TokenStream, manifest_dir: &Path) -> TokenStream {
    match parse(input) {
        Ok(inv) => run(&inv, manifest_dir),
        Err(m) => error_at(m.span, &m.message),
    }
}

fn error_at(span: Span, message: &str) -> TokenStream {
    quote_spanned!(span=> ::core::compile_error!(#message);)
}

fn string_lit(tt: &TokenTree) -> Option<String> {
    let TokenTree::Literal(l) = tt else {
        return None;
    };
    match syn::parse_str::<syn::LitStr>(&l.to_string()) {
        Ok(s) => Some(s.value()),
        Err(_) => None,
    }
}

fn parse(input: TokenStream) -> Result<Invocation, Misuse> {
    let tokens: Vec<TokenTree> = input.into_iter().collect();
    let mut inv = Invocation {
        file: None,
        body: Vec::new(),
        include_dirs: Vec::new(),
        defines: Vec::new(),
        lanes: LaneMode::Coverage,
        lane_bits: 64,
        doc_url: None,
        allow: Vec::new(),
    };
    // `include "file"` alone or followed by `,`: the file form. (An inline
    // body may start with an `include` too, followed by more TableGen.)
    let is_include_form = matches!(tokens.first(), Some(TokenTree::Ident(i)) if *i == "include")
        && tokens.get(1).and_then(string_lit).is_some()
        && match tokens.get(2) {
            None => true,
            Some(TokenTree::Punct(p)) => p.as_char() == ',',
            Some(_) => false,
        };
    if is_include_form {
        let path = string_lit(&tokens[1]).unwrap_or_default();
        inv.file = Some((path, tokens[1].span()));
        // `, key = value` pairs.
        let mut i = 2;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Punct(p) if p.as_char() == ',' => i += 1,
                other => {
                    return Err(misuse(
                        other.span(),
                        format!("expected `,` before the next option ({OPTIONS})"),
                    ))
                }
            }
            if i >= tokens.len() {
                break;
            }
            let (key, value, next) = option_at(&tokens, i)?;
            set_option(&mut inv, &key, &value)?;
            i = next;
        }
        return Ok(inv);
    }
    // Inline: leading `#![key = value]`.
    let mut i = 0;
    while let (
        Some(TokenTree::Punct(hash)),
        Some(TokenTree::Punct(bang)),
        Some(TokenTree::Group(g)),
    ) = (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2))
    {
        if hash.as_char() != '#' || bang.as_char() != '!' || g.delimiter() != Delimiter::Bracket {
            break;
        }
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        let (key, value, next) = option_at(&inner, 0)?;
        if next != inner.len() {
            return Err(misuse(inner[next].span(), "one option per `#![...]`"));
        }
        set_option(&mut inv, &key, &value)?;
        i += 3;
    }
    inv.body = tokens[i..].to_vec();
    if inv.body.is_empty() {
        return Err(misuse(
            Span::call_site(),
            "expected `include \"file.td\"` or TableGen text",
        ));
    }
    Ok(inv)
}

/// `key = value` at `tokens[i..]`: the key, the value tokens, and where the
/// option ends.
fn option_at(
    tokens: &[TokenTree],
    i: usize,
) -> Result<(proc_macro2::Ident, TokenTree, usize), Misuse> {
    let Some(TokenTree::Ident(key)) = tokens.get(i) else {
        let span = tokens.get(i).map_or(Span::call_site(), TokenTree::span);
        return Err(misuse(span, format!("expected an option: {OPTIONS}")));
    };
    match tokens.get(i + 1) {
        Some(TokenTree::Punct(p)) if p.as_char() == '=' => {}
        _ => return Err(misuse(key.span(), format!("expected `{key} = ...`"))),
    }
    let Some(value) = tokens.get(i + 2) else {
        return Err(misuse(key.span(), format!("expected a value for `{key}`")));
    };
    Ok((key.clone(), value.clone(), i + 3))
}

fn string_list(value: &TokenTree, key: &proc_macro2::Ident) -> Result<Vec<String>, Misuse> {
    let TokenTree::Group(g) = value else {
        return Err(misuse(
            value.span(),
            format!("`{key}` takes a list of strings: `[\"...\"]`"),
        ));
    };
    let mut out = Vec::new();
    for tt in g.stream() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => {}
            _ => match string_lit(&tt) {
                Some(s) => out.push(s),
                None => {
                    return Err(misuse(
                        tt.span(),
                        format!("`{key}` takes a list of strings"),
                    ))
                }
            },
        }
    }
    Ok(out)
}

fn set_option(
    inv: &mut Invocation,
    key: &proc_macro2::Ident,
    value: &TokenTree,
) -> Result<(), Misuse> {
    match key.to_string().as_str() {
        "include_dirs" => inv.include_dirs = string_list(value, key)?,
        "defines" => inv.defines = string_list(value, key)?,
        "allow" => inv.allow = string_list(value, key)?,
        "lanes" => {
            inv.lanes = match value {
                TokenTree::Ident(i) if *i == "llvm" => LaneMode::Llvm,
                TokenTree::Ident(i) if *i == "coverage" => LaneMode::Coverage,
                _ => return Err(misuse(value.span(), "`lanes` is `llvm` or `coverage`")),
            }
        }
        "lane_bits" => {
            inv.lane_bits = match value {
                TokenTree::Literal(l) => l.to_string().parse().ok().filter(|&n| n > 0),
                _ => None,
            }
            .ok_or_else(|| misuse(value.span(), "`lane_bits` is a positive number"))?
        }
        "doc_url" => {
            inv.doc_url = Some(
                string_lit(value).ok_or_else(|| misuse(value.span(), "`doc_url` is a string"))?,
            )
        }
        other => {
            return Err(misuse(
                key.span(),
                format!("unknown option `{other}`; the options are: {OPTIONS}"),
            ))
        }
    }
    Ok(())
}

/// A token's text at its place.
struct Placed {
    start: usize,
    end: usize,
    span: Span,
}

/// The inline body as TableGen text, tokens at their lines and columns,
/// and where each token landed.
fn lay_out(body: &[TokenTree]) -> (String, Vec<Placed>) {
    let mut text = String::new();
    let mut placed = Vec::new();
    let (mut line, mut col) = (1usize, 0usize);
    let mut prev_bang = false;
    fn leaves(tts: &[TokenTree], out: &mut Vec<(String, Span)>) {
        let mut i = 0;
        while i < tts.len() {
            match &tts[i] {
                // Rust turns `///` and `//!` comments into `#[doc = ...]`:
                // TableGen ignores comments, so these go.
                TokenTree::Punct(p) if p.as_char() == '#' => {
                    let bang =
                        matches!(tts.get(i + 1), Some(TokenTree::Punct(b)) if b.as_char() == '!');
                    let g = tts.get(i + 1 + usize::from(bang));
                    let is_doc = matches!(g, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket
                        && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(d)) if d == "doc"));
                    if is_doc {
                        i += 2 + usize::from(bang);
                        continue;
                    }
                    out.push(("#".into(), p.span()));
                }
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    out.push((open.into(), g.span_open()));
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    leaves(&inner, out);
                    out.push((close.into(), g.span_close()));
                }
                TokenTree::Ident(id) => out.push((id.to_string(), id.span())),
                TokenTree::Punct(p) => out.push((p.as_char().to_string(), p.span())),
                TokenTree::Literal(l) => out.push((l.to_string(), l.span())),
            }
            i += 1;
        }
    }
    let mut all = Vec::new();
    leaves(body, &mut all);
    for (s, span) in all {
        let (start, end) = (span.start(), span.end());
        if start.line > 0 {
            if start.line > line {
                for _ in line..start.line {
                    text.push('\n');
                }
                line = start.line;
                col = 0;
            }
            if start.column > col {
                for _ in col..start.column {
                    text.push(' ');
                }
            } else if start.column < col
                && !text.is_empty()
                && !text.ends_with(['\n', ' '])
                && !prev_bang
            {
                // Out of order (tokens from a macro): keep them apart.
                text.push(' ');
            }
        } else if !text.is_empty() && !prev_bang {
            // No locations: spaces between tokens, `!name` kept together.
            text.push(' ');
        }
        let at = text.len();
        text.push_str(&s);
        placed.push(Placed {
            start: at,
            end: text.len(),
            span,
        });
        if start.line > 0 {
            line = end.line.max(line);
            col = end.column;
        }
        prev_bang = s == "!";
    }
    text.push('\n');
    (text, placed)
}

/// The span of the token at text offset `at`.
fn span_at(placed: &[Placed], at: usize) -> Option<Span> {
    placed
        .iter()
        .find(|p| p.start <= at && at < p.end.max(p.start + 1))
        .or_else(|| placed.iter().rev().find(|p| p.start <= at))
        .map(|p| p.span)
}

fn resolve(dir: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        dir.join(p)
    }
}

fn run(inv: &Invocation, manifest_dir: &Path) -> TokenStream {
    // The file form's own path is checked here, so that the message names
    // the path as written rather than the absolute one it resolved to.
    if let Some((path, span)) = &inv.file {
        if let Err(e) = std::fs::metadata(resolve(manifest_dir, path)) {
            let message = format!(
                "regdesc: cannot read `{path}`: {e}\n\
                 help: a relative path is resolved against the directory of the crate's \
                 Cargo.toml (CARGO_MANIFEST_DIR)"
            );
            return error_at(*span, &message);
        }
    }
    let (input, placed, call_span) = match &inv.file {
        Some((path, span)) => (Input::file(resolve(manifest_dir, path)), Vec::new(), *span),
        None => {
            let (text, placed) = lay_out(&inv.body);
            let first = inv.body.first().map_or(Span::call_site(), TokenTree::span);
            let name = match first.local_file() {
                Some(f) => format!("{} (regdesc! body)", f.display()),
                None => "regdesc! body".to_string(),
            };
            (Input::text(name, text), placed, first)
        }
    };
    let mut input = input;
    input.include_dirs = inv
        .include_dirs
        .iter()
        .map(|d| resolve(manifest_dir, d))
        .collect();
    input.defines = inv.defines.clone();
    let opts = CheckOptions {
        mode: inv.lanes,
        lane_bits: inv.lane_bits,
        allow: inv.allow.clone(),
        deny: Vec::new(),
    };
    let run = driver::target(&input, &opts);
    let track = tracked_files(&run.sources);
    let errors: Vec<&Diagnostic> = run.diagnostics.iter().filter(|d| d.is_error()).collect();
    if !errors.is_empty() || run.target.is_none() {
        let mut out = track;
        for d in errors {
            let message = diag::render(&run.sources, std::slice::from_ref(d), false);
            // Point into the macro body when the error is there.
            let span = match d.span {
                Some(sp) if inv.file.is_none() && sp.file == 0 => {
                    span_at(&placed, sp.start as usize).unwrap_or(call_span)
                }
                _ => call_span,
            };
            out.extend(error_at(span, message.trim_end()));
        }
        if out.is_empty() {
            out.extend(error_at(
                call_span,
                "regdesc: the description could not be read",
            ));
        }
        return out;
    }
    let Some(target) = &run.target else {
        return error_at(call_span, "regdesc: the description could not be read");
    };
    let emit = EmitOptions {
        min_lane_bits: 32,
        doc_url: inv.doc_url.clone(),
    };
    match super::module(target, &emit) {
        Ok(tokens) => quote!(#track #tokens),
        Err(e) => error_at(call_span, &e.to_string()),
    }
}

/// `include_bytes!` of every file on disk the description read.
fn tracked_files(sources: &crate::source::SourceMap) -> TokenStream {
    let paths = sources
        .files
        .iter()
        .filter(|f| !f.builtin && f.path.is_file())
        .filter_map(|f| std::fs::canonicalize(&f.path).ok())
        .map(|p| p.display().to_string());
    quote!(#(const _: &[u8] = include_bytes!(#paths);)*)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn laid_out(src: &str) -> String {
        let tokens: TokenStream = src.parse().expect("valid tokens");
        let body: Vec<TokenTree> = tokens.into_iter().collect();
        lay_out(&body).0
    }

    #[test]
    fn tokens_keep_their_columns() {
        let src =
            "def R0 : Register<\"r0\">;\nforeach i = 0-3 in def s#i : SubRegIndex<8, !mul(i, 8)>;";
        assert_eq!(laid_out(src), format!("{src}\n"));
    }

    #[test]
    fn lines_are_kept() {
        let src = "def A : B;\n\n\n  def C : D;";
        assert_eq!(laid_out(src), format!("{src}\n"));
    }

    #[test]
    fn doc_comments_are_dropped() {
        assert_eq!(laid_out("/// about A\ndef A : B;").trim(), "def A : B;");
    }
}
