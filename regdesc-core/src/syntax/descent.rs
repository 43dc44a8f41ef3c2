//! The syntax stage's fast path: a recursive-descent parser over the
//! preprocessed text that builds, on every file it accepts, the very tree
//! the pest grammar (`grammar.pest`) and the AST builder (`parser.rs`)
//! build.
//!
//! It accepts only what it is sure of. At each choice of the grammar it
//! takes the alternative pest would take; wherever pest could backtrack
//! to another alternative, or the builder would report an error, it gives
//! up (`None`), and the file is parsed again by pest, whose diagnostics
//! regdesc reports. So the grammar stays the one definition of the
//! language and of its syntax errors, and this parser only makes valid
//! input cheap: pest interprets its grammar combinator by combinator and
//! keeps a token queue for the whole file, which was about 40 % of
//! `records`' instructions on LLVM's `Target.td`. `tests.rs` holds the two
//! to the same tree on every LLVM `.td` file and on mutated inputs.
//!
//! Conventions: the preprocessor has turned every blank outside strings
//! and code blocks into a space, so `' '` is the only whitespace. Each
//! method skips the blanks before what it parses; `last` is the end of the
//! last token taken, which is where spans end (pest's spans, trimmed of
//! trailing blanks as the builder trims them).

use crate::syntax::ast::*;
use crate::syntax::parser::{bang_errors, dec_value, is_keyword, unescape, Ctx};

mod lists;

/// Parses preprocessed `text` (file `file`), or `None` when pest must
/// decide (invalid input, or a construct this parser leaves to pest).
pub(crate) fn parse(file: FileId, text: &str) -> Option<SourceFileAst> {
    let mut pos = 0;
    let mut stmts = Vec::new();
    while let Some(s) = next_stmt(file, text, &mut pos)? {
        stmts.push(s);
    }
    stmts.shrink_to_fit();
    Some(SourceFileAst { stmts })
}

/// The top-level statement of `text` at `*pos`, moving `*pos` past it:
/// `Some(None)` at the end of the text, `None` when pest must decide. A
/// statement this parser takes is the one pest's `stmt*` would take there
/// (pest's choices depend on the position only), so a file can be parsed
/// one statement at a time and handed to pest from any statement on.
pub(crate) fn next_stmt(file: FileId, text: &str, pos: &mut usize) -> Option<Option<Stmt>> {
    let mut p = Descent {
        file,
        text,
        s: text.as_bytes(),
        pos: *pos,
        last: *pos,
        ctx: Ctx::default(),
        values: Vec::new(),
        refs: Vec::new(),
        items: Vec::new(),
        dag_args: Vec::new(),
    };
    p.ws();
    if p.pos >= p.s.len() {
        *pos = p.pos;
        return Some(None);
    }
    let stmt = p.stmt()?;
    *pos = p.pos;
    Some(Some(stmt))
}

struct Descent<'t> {
    file: FileId,
    text: &'t str,
    s: &'t [u8],
    pos: usize,
    /// End of the last token taken.
    last: usize,
    ctx: Ctx,
    /// The values of the lists being parsed, innermost last: each list is
    /// moved out in one exact allocation once it is complete (no regrowth,
    /// no shrinking).
    values: Vec<Expr>,
    /// The same for a record's superclass references, its body's items and
    /// a dag's arguments.
    refs: Vec<ClassRef>,
    items: Vec<BodyItem>,
    dag_args: Vec<DagArg>,
}

fn is_idchar(b: u8) -> bool {
    super::is_word_byte(b)
}

impl<'t> Descent<'t> {
    // ------------------------------------------------------------ tokens

    fn ws(&mut self) {
        if self.s.get(self.pos) != Some(&b' ') {
            return;
        }
        // Comments are blanked to spaces by the preprocessor: long runs
        // are skipped eight bytes at a time.
        let s = self.s;
        let mut p = self.pos + 1;
        while let Some(w) = s.get(p..p + 8) {
            if w != b"        " {
                break;
            }
            p += 8;
        }
        while s.get(p) == Some(&b' ') {
            p += 1;
        }
        self.pos = p;
    }

    /// The byte at the cursor (0 at the end).
    fn peek(&self) -> u8 {
        self.s.get(self.pos).copied().unwrap_or(0)
    }

    fn at(&self, lit: &[u8]) -> bool {
        self.s[self.pos..].starts_with(lit)
    }

    /// Takes the next `n` bytes as (part of) a token.
    fn bump(&mut self, n: usize) {
        self.pos += n;
        self.last = self.pos;
    }

    fn span(&self, start: usize) -> Span {
        Span::new(self.file, start, self.last)
    }

    /// Skips blanks and takes `c`.
    fn expect(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.peek() == c).then(|| self.bump(1))
    }

    /// The run of identifier characters at the cursor (a keyword is one
    /// such run: the grammar's `kw_x` is `"x" ~ !idchar`).
    fn word(&self) -> &'t str {
        let end = self.s[self.pos..]
            .iter()
            .position(|&b| !is_idchar(b))
            .map_or(self.s.len(), |n| self.pos + n);
        &self.text[self.pos..end]
    }

    /// Takes keyword `kw` if the next word is exactly it.
    fn keyword(&mut self, kw: &str) -> Option<()> {
        self.ws();
        (self.word() == kw).then(|| self.bump(kw.len()))
    }

    /// Where the grammar's `ident` ends if one starts at the cursor: a
    /// letter or `_` and identifier characters, or digits and then a
    /// letter or `_` (`8i`), unless the digits begin a hex or binary
    /// literal (`0x1F`, `0b10`).
    fn ident_end(&self) -> Option<usize> {
        let s = self.s;
        let mut i = self.pos;
        let c = *s.get(i)?;
        if !(c.is_ascii_alphabetic() || c == b'_') {
            if !c.is_ascii_digit() {
                return None;
            }
            while s.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let next = *s.get(i)?;
            let after = s.get(i + 1).copied().unwrap_or(0);
            if (next == b'x' && after.is_ascii_hexdigit())
                || (next == b'b' && matches!(after, b'0' | b'1'))
                || !(next.is_ascii_alphabetic() || next == b'_')
            {
                return None;
            }
        }
        i += 1;
        while s.get(i).is_some_and(|&b| is_idchar(b)) {
            i += 1;
        }
        Some(i)
    }

    /// An identifier that is not a keyword (the builder rejects keywords).
    fn ident(&mut self) -> Option<Ident> {
        self.ws();
        let start = self.pos;
        let end = self.ident_end()?;
        let name = &self.text[start..end];
        if is_keyword(name) {
            return None;
        }
        self.bump(end - start);
        Some(Ident {
            name: name.into(),
            span: self.span(start),
        })
    }

    /// `$name`, as an identifier without the `$`.
    fn var_name(&mut self) -> Option<Ident> {
        self.ws();
        let start = self.pos;
        let first = *self.s.get(start + 1)?;
        if self.peek() != b'$' || !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let mut end = start + 2;
        while self.s.get(end).is_some_and(|&b| is_idchar(b)) {
            end += 1;
        }
        self.bump(end - start);
        Some(Ident {
            name: self.text[start + 1..end].into(),
            span: self.span(start),
        })
    }

    /// One string literal at the cursor, unescaped.
    fn string_lit(&mut self) -> Option<String> {
        let start = self.pos;
        let mut i = start + 1;
        loop {
            match *self.s.get(i)? {
                b'"' => break,
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
        let mut bad = false;
        let out = unescape(&self.text[start + 1..i], |_, _, _| bad = true);
        self.bump(i + 1 - start);
        (!bad).then_some(out)
    }

    // ------------------------------------------------------------ statements

    fn stmt(&mut self) -> Option<Stmt> {
        self.ws();
        let start = self.pos;
        let kw = self.word();
        match kw {
            "def" | "defm" => {
                self.bump(kw.len());
                self.ws();
                let name = match self.peek() {
                    b':' | b';' | b'{' => None,
                    _ => Some(self.value(true)?),
                };
                if kw == "def" {
                    let body = self.record_body()?.0;
                    return Some(Stmt::Def(DefStmt {
                        name,
                        body,
                        span: self.span(start),
                    }));
                }
                self.expect(b':')?;
                let parents = self.class_refs()?;
                self.expect(b';')?;
                Some(Stmt::Defm(DefmStmt {
                    name,
                    parents,
                    span: self.span(start),
                }))
            }
            "defvar" => Some(Stmt::Defvar(self.defvar()?)),
            "assert" => Some(Stmt::Assert(self.assert()?)),
            "include" => {
                self.bump(kw.len());
                self.ws();
                if self.peek() != b'"' {
                    return None;
                }
                let path = self.string_lit()?;
                Some(Stmt::Include(IncludeStmt {
                    path,
                    file: None,
                    span: self.span(start),
                }))
            }
            "class" => {
                let (name, targs) = self.class_head(kw)?;
                let (body, decl_only) = self.record_body()?;
                Some(Stmt::Class(ClassStmt::new(
                    name,
                    targs,
                    body,
                    decl_only,
                    self.span(start),
                )))
            }
            "multiclass" => {
                let (name, targs) = self.class_head(kw)?;
                let parents = self.parent_list()?;
                self.ws();
                let body = if self.peek() == b';' && !parents.is_empty() {
                    self.bump(1);
                    Vec::new()
                } else {
                    let ctx = Ctx {
                        in_multiclass: true,
                        in_loop: false,
                    };
                    let body = self.stmt_braces(ctx)?;
                    if body.is_empty() {
                        return None;
                    }
                    body
                };
                Some(Stmt::Multiclass(MulticlassStmt {
                    name,
                    targs,
                    parents,
                    body,
                    span: self.span(start),
                }))
            }
            "defset" => {
                if self.ctx.in_multiclass {
                    return None;
                }
                self.bump(kw.len());
                let ty = self.ty()?;
                let name = self.ident()?;
                self.expect(b'=')?;
                let body = self.stmt_braces(self.ctx)?;
                Some(Stmt::Defset(DefsetStmt {
                    ty,
                    name,
                    body,
                    span: self.span(start),
                }))
            }
            "foreach" => {
                self.bump(kw.len());
                let var = self.ident()?;
                self.expect(b'=')?;
                let iter = self.foreach_iter()?;
                self.keyword("in")?;
                let ctx = Ctx {
                    in_loop: true,
                    ..self.ctx
                };
                let body = self.stmt_block(ctx)?;
                Some(Stmt::Foreach(ForeachStmt {
                    var,
                    iter,
                    body,
                    span: self.span(start),
                }))
            }
            "if" => {
                self.bump(kw.len());
                let cond = self.value(false)?;
                self.keyword("then")?;
                let ctx = Ctx {
                    in_loop: true,
                    ..self.ctx
                };
                let then_body = self.stmt_block(ctx)?;
                self.ws();
                let else_body = if self.word() == "else" {
                    self.bump(4);
                    Some(self.stmt_block(ctx)?)
                } else {
                    None
                };
                Some(Stmt::If(IfStmt {
                    cond,
                    then_body,
                    else_body,
                    span: self.span(start),
                }))
            }
            "let" => {
                self.bump(kw.len());
                let mut items = Vec::new();
                loop {
                    let (name, bits, value) = self.let_item(b'<', b'>')?;
                    let span = self.span(name.span.start as usize);
                    items.push(LetItem {
                        name,
                        bits,
                        value,
                        span,
                    });
                    if self.expect(b',').is_none() {
                        break;
                    }
                }
                items.shrink_to_fit();
                self.keyword("in")?;
                let body = self.stmt_block(self.ctx)?;
                Some(Stmt::Let(LetStmt {
                    items,
                    body,
                    span: self.span(start),
                }))
            }
            _ => None,
        }
    }

    /// `{ stmt* }` in context `ctx`.
    fn stmt_braces(&mut self, ctx: Ctx) -> Option<Vec<Stmt>> {
        self.expect(b'{')?;
        let saved = std::mem::replace(&mut self.ctx, ctx);
        let mut out = Vec::new();
        loop {
            self.ws();
            if self.peek() == b'}' {
                break;
            }
            out.push(self.stmt()?);
        }
        self.bump(1);
        self.ctx = saved;
        out.shrink_to_fit();
        Some(out)
    }

    /// `{ stmt* }` or a single statement, in context `ctx`.
    fn stmt_block(&mut self, ctx: Ctx) -> Option<Vec<Stmt>> {
        self.ws();
        if self.peek() == b'{' {
            return self.stmt_braces(ctx);
        }
        let saved = std::mem::replace(&mut self.ctx, ctx);
        let stmt = self.stmt()?;
        self.ctx = saved;
        Some(vec![stmt])
    }

    fn foreach_iter(&mut self) -> Option<ForeachIter> {
        if let Some(r) = self.bracketed_ranges(b'{', b'}')? {
            return Some(ForeachIter::Ranges(r));
        }
        let start = self.pos;
        let first = self.value(false)?;
        if let Some(end) = self.range_end()? {
            return Some(ForeachIter::Ranges(vec![RangePiece {
                start: first,
                end: Some(end),
                span: self.span(start),
            }]));
        }
        if matches!(first.kind, ExprKind::Int(_)) {
            return Some(ForeachIter::Ranges(vec![RangePiece {
                start: first,
                end: None,
                span: self.span(start),
            }]));
        }
        Some(ForeachIter::Value(first))
    }

    fn defvar(&mut self) -> Option<Defvar> {
        self.ws();
        let start = self.pos;
        self.keyword("defvar")?;
        let name = self.ident()?;
        self.expect(b'=')?;
        let value = self.value(false)?;
        self.expect(b';')?;
        Some(Defvar {
            name,
            value,
            span: self.span(start),
        })
    }

    fn assert(&mut self) -> Option<Assert> {
        self.ws();
        let start = self.pos;
        self.keyword("assert")?;
        let cond = self.value(false)?;
        self.expect(b',')?;
        let message = self.value(false)?;
        self.expect(b';')?;
        Some(Assert {
            cond,
            message,
            span: self.span(start),
        })
    }

    /// `<Type name [= default], ...>`, or nothing.
    fn template_decls(&mut self) -> Option<Vec<TemplateArg>> {
        self.ws();
        let mut out = Vec::new();
        if self.peek() != b'<' {
            return Some(out);
        }
        self.bump(1);
        loop {
            let ty = self.ty()?;
            let name = self.ident()?;
            self.ws();
            let default = if self.peek() == b'=' {
                self.bump(1);
                Some(self.value(false)?)
            } else {
                None
            };
            out.push(TemplateArg { ty, name, default });
            if self.expect(b',').is_none() {
                break;
            }
        }
        self.expect(b'>')?;
        out.shrink_to_fit();
        Some(out)
    }

    /// `class` or `multiclass` (`kw`, at the cursor), its name and
    /// template arguments. Neither may appear in a multiclass or a loop
    /// body (the builder's error).
    fn class_head(&mut self, kw: &str) -> Option<(Ident, Vec<TemplateArg>)> {
        if self.ctx.in_multiclass || self.ctx.in_loop {
            return None;
        }
        self.bump(kw.len());
        let name = self.ident()?;
        let targs = self.template_decls()?;
        Some((name, targs))
    }

    /// `: parents`, or nothing.
    fn parent_list(&mut self) -> Option<Vec<ClassRef>> {
        self.ws();
        if self.peek() != b':' {
            return Some(Vec::new());
        }
        self.bump(1);
        self.class_refs()
    }

    /// `[: parents] (; | { items })`, and whether it was just `;`.
    fn record_body(&mut self) -> Option<(RecordBody, bool)> {
        let parents = self.parent_list()?;
        self.ws();
        match self.peek() {
            b';' => {
                self.bump(1);
                let items = Vec::new();
                Some((RecordBody { parents, items }, true))
            }
            b'{' => {
                self.bump(1);
                let base = self.items.len();
                if self.body_items_onto().is_none() {
                    self.items.truncate(base);
                    return None;
                }
                let items = self.items.drain(base..).collect();
                self.bump(1);
                self.ws();
                // `{ ... };` is an error (`extra_semi`).
                if self.peek() == b';' {
                    return None;
                }
                Some((RecordBody { parents, items }, false))
            }
            _ => None,
        }
    }

    /// `name [ranges] = value`, the part both `let` forms share: a
    /// top-level `let` takes its bit ranges in `<>`, a body `let` in `{}`.
    fn let_item(&mut self, open: u8, close: u8) -> Option<(Ident, Option<Vec<RangePiece>>, Expr)> {
        let name = self.ident()?;
        let bits = self.bracketed_ranges(open, close)?;
        self.expect(b'=')?;
        let value = self.value(false)?;
        Some((name, bits, value))
    }

    /// `open ranges close` if `open` comes next (`Some(None)`: it does not).
    fn bracketed_ranges(&mut self, open: u8, close: u8) -> Option<Option<Vec<RangePiece>>> {
        self.ws();
        if self.peek() != open {
            return Some(None);
        }
        self.bump(1);
        let ranges = self.range_list()?;
        self.expect(close)?;
        Some(Some(ranges))
    }

    /// `<Type>` if `<` comes next (`Some(None)`: it does not).
    fn type_suffix(&mut self) -> Option<Option<Type>> {
        self.ws();
        if self.peek() != b'<' {
            return Some(None);
        }
        self.bump(1);
        let ty = self.ty()?;
        self.expect(b'>')?;
        Some(Some(ty))
    }

    fn body_item(&mut self) -> Option<BodyItem> {
        self.ws();
        let start = self.pos;
        match self.word() {
            "let" => {
                self.bump(3);
                let (name, bits, value) = self.let_item(b'{', b'}')?;
                self.expect(b';')?;
                Some(BodyItem::Let(LetItem {
                    name,
                    bits,
                    value,
                    span: self.span(start),
                }))
            }
            "defvar" => Some(BodyItem::Defvar(self.defvar()?)),
            "assert" => Some(BodyItem::Assert(self.assert()?)),
            w => {
                let is_field = w == "field";
                if is_field {
                    self.bump(5);
                }
                let ty = self.ty()?;
                let name = self.ident()?;
                self.ws();
                let value = if self.peek() == b'=' {
                    self.bump(1);
                    Some(self.value(false)?)
                } else {
                    None
                };
                self.expect(b';')?;
                Some(BodyItem::Field {
                    is_field,
                    ty,
                    name,
                    value,
                    span: self.span(start),
                })
            }
        }
    }

    // ------------------------------------------------------------ types

    fn ty(&mut self) -> Option<Type> {
        self.ws();
        let start = self.pos;
        let end = self.ident_end()?;
        let name = &self.text[start..end];
        self.bump(end - start);
        self.ws();
        let kind = if self.peek() == b'<' {
            self.bump(1);
            self.ws();
            let kind = match name {
                "bits" => TypeKind::Bits(self.bits_width()?),
                "list" => TypeKind::List(Box::new(self.ty()?)),
                _ => return None,
            };
            self.expect(b'>')?;
            kind
        } else {
            match name {
                "bit" => TypeKind::Bit,
                "int" => TypeKind::Int,
                "string" => TypeKind::String,
                "code" => TypeKind::Code,
                "dag" => TypeKind::Dag,
                _ if is_keyword(name) => return None,
                _ => TypeKind::Class(Ident {
                    name: name.into(),
                    span: Span::new(self.file, start, end),
                }),
            }
        };
        Some(Type {
            kind,
            span: self.span(start),
        })
    }

    /// The `N` of `bits<N>`: hex or decimal, fitting in 32 bits.
    fn bits_width(&mut self) -> Option<u32> {
        let start = self.pos;
        let v = if self.at(b"0x") && self.s.get(start + 2).is_some_and(u8::is_ascii_hexdigit) {
            let end = self.digits_end(start + 2, u8::is_ascii_hexdigit);
            self.bump(end - start);
            u64::from_str_radix(&self.text[start + 2..end], 16).ok()?
        } else {
            let from = start + usize::from(self.peek() == b'+');
            if !self.s.get(from).is_some_and(u8::is_ascii_digit) {
                return None;
            }
            let end = self.digits_end(from, u8::is_ascii_digit);
            // `0b...` is a binary literal, which the builder rejects.
            if self.s.get(end) == Some(&b'b') {
                return None;
            }
            self.bump(end - start);
            self.text[from..end].parse::<u64>().ok()?
        };
        u32::try_from(v).ok()
    }

    fn digits_end(&self, mut i: usize, digit: fn(&u8) -> bool) -> usize {
        while self.s.get(i).is_some_and(digit) {
            i += 1;
        }
        i
    }

    // ------------------------------------------------------------ values

    /// A value: a simple value, then suffixes and pastes, left to right.
    /// In `name` mode (a def's name, the right side of `#`) `{` ends it.
    fn value(&mut self, name: bool) -> Option<Expr> {
        let mut e = self.simple()?;
        loop {
            self.ws();
            let op = self.pos;
            let start = e.span.start as usize;
            let kind = match self.peek() {
                b'[' if !self.at(b"[{") => {
                    let ranges = self.bracketed_ranges(b'[', b']')??;
                    ExprKind::ListSlice {
                        base: Box::new(e),
                        ranges,
                    }
                }
                b'{' if !name => {
                    let ranges = self.bracketed_ranges(b'{', b'}')??;
                    ExprKind::BitSlice {
                        base: Box::new(e),
                        ranges,
                    }
                }
                b'.' if !self.at(b"...") => {
                    self.bump(1);
                    let field = self.ident()?;
                    ExprKind::Field {
                        base: Box::new(e),
                        field,
                    }
                }
                b'#' => {
                    self.bump(1);
                    self.ws();
                    if matches!(self.peek(), b':' | b';' | b'{') {
                        // A trailing paste: its span ends at the `#`.
                        let span = e.span.to(Span::new(self.file, op, op + 1));
                        let kind = ExprKind::Paste {
                            lhs: Box::new(e),
                            rhs: None,
                        };
                        e = Expr { kind, span };
                        continue;
                    }
                    let rhs = self.value(true)?;
                    ExprKind::Paste {
                        lhs: Box::new(e),
                        rhs: Some(Box::new(rhs)),
                    }
                }
                _ => break,
            };
            e = Expr {
                kind,
                span: self.span(start),
            };
        }
        Some(e)
    }

    /// The end of a range, `-` or `...` and a value, if one follows.
    /// (`Some(None)`: none does.)
    fn range_end(&mut self) -> Option<Option<Expr>> {
        self.ws();
        if self.at(b"...") {
            self.bump(3);
        } else if self.peek() == b'-' {
            self.bump(1);
        } else {
            return Some(None);
        }
        Some(Some(self.value(false)?))
    }

    fn range_list(&mut self) -> Option<Vec<RangePiece>> {
        let mut out = Vec::new();
        loop {
            self.ws();
            let start = self.pos;
            let first = self.value(false)?;
            let end = self.range_end()?;
            out.push(RangePiece {
                start: first,
                end,
                span: self.span(start),
            });
            if self.expect(b',').is_none() {
                break;
            }
        }
        out.shrink_to_fit();
        Some(out)
    }

    fn simple(&mut self) -> Option<Expr> {
        self.ws();
        let start = self.pos;
        if let Some(end) = self.ident_end() {
            let name = &self.text[start..end];
            self.bump(end - start);
            let id_span = self.span(start);
            self.ws();
            if self.peek() == b'<' {
                if is_keyword(name) {
                    return None;
                }
                let args = self.inst_args()?;
                let class = Ident {
                    name: name.into(),
                    span: id_span,
                };
                return Some(Expr {
                    kind: ExprKind::ClassInst { class, args },
                    span: self.span(start),
                });
            }
            let kind = match name {
                "true" => ExprKind::Bool(true),
                "false" => ExprKind::Bool(false),
                _ if is_keyword(name) => return None,
                _ => ExprKind::Id(Ident {
                    name: name.into(),
                    span: id_span,
                }),
            };
            return Some(Expr {
                kind,
                span: id_span,
            });
        }
        let kind = match self.peek() {
            b'0'..=b'9' => self.number(),
            b'-' | b'+' if self.s.get(start + 1).is_some_and(u8::is_ascii_digit) => {
                let end = self.digits_end(start + 1, u8::is_ascii_digit);
                self.bump(end - start);
                Some(ExprKind::Int(dec_value(&self.text[start..end])))
            }
            b'"' => {
                let mut s = self.string_lit()?;
                loop {
                    self.ws();
                    if self.peek() != b'"' {
                        break;
                    }
                    s.push_str(&self.string_lit()?);
                }
                Some(ExprKind::Str(s))
            }
            b'[' if self.at(b"[{") => {
                let len = self.text[start + 2..].find("}]")?;
                self.bump(len + 4);
                let code = self.text[start + 2..start + 2 + len].to_string();
                Some(ExprKind::Code(code))
            }
            b'[' => {
                self.bump(1);
                let elems = self.values(b']', true)?;
                let elem_type = self.type_suffix()?.map(Box::new);
                Some(ExprKind::List { elems, elem_type })
            }
            b'(' => self.dag(),
            b'!' => self.bang(),
            b'{' => {
                self.bump(1);
                Some(ExprKind::Bits(self.values(b'}', false)?))
            }
            b'?' => {
                self.bump(1);
                Some(ExprKind::Unset)
            }
            _ => None,
        }?;
        Some(Expr {
            kind,
            span: self.span(start),
        })
    }

    /// A number at the cursor that is not an identifier.
    fn number(&mut self) -> Option<ExprKind> {
        let start = self.pos;
        let s = self.s;
        if self.at(b"0x") && s.get(start + 2).is_some_and(u8::is_ascii_hexdigit) {
            let end = self.digits_end(start + 2, u8::is_ascii_hexdigit);
            self.bump(end - start);
            // Too large for 64 bits: the builder's error.
            let v = u64::from_str_radix(&self.text[start + 2..end], 16).ok()?;
            return Some(ExprKind::Int(v as i64));
        }
        if self.at(b"0b") && matches!(s.get(start + 2), Some(b'0' | b'1')) {
            let end = self.digits_end(start + 2, |b| matches!(b, b'0' | b'1'));
            self.bump(end - start);
            let bits = s[start + 2..end].iter().map(|&c| c == b'1').collect();
            return Some(ExprKind::BinaryBits(bits));
        }
        let end = self.digits_end(start, u8::is_ascii_digit);
        self.bump(end - start);
        Some(ExprKind::Int(dec_value(&self.text[start..end])))
    }

    fn dag(&mut self) -> Option<ExprKind> {
        self.bump(1);
        self.ws();
        let op_ok = self.ident_end().is_some()
            || self.peek() == b'?'
            || self.at(b"!cast")
            || self.at(b"!getdagop")
            || self.at(b"!getop");
        if !op_ok {
            return None;
        }
        let value = self.value(false)?;
        let mut op = DagArg {
            span: value.span,
            value: Some(value),
            name: None,
        };
        self.ws();
        if self.peek() == b':' {
            self.bump(1);
            let name = self.var_name()?;
            op.span = op.span.to(name.span);
            op.name = Some(name);
        }
        let base = self.dag_args.len();
        if self.dag_args_onto().is_none() {
            self.dag_args.truncate(base);
            return None;
        }
        let args = self.dag_args.drain(base..).collect();
        Some(ExprKind::Dag {
            op: Box::new(op),
            args,
        })
    }

    fn dag_arg(&mut self) -> Option<DagArg> {
        self.ws();
        let start = self.pos;
        if self.peek() == b'$' {
            let name = self.var_name()?;
            return Some(DagArg {
                value: None,
                span: name.span,
                name: Some(name),
            });
        }
        let value = self.value(false)?;
        self.ws();
        let name = if self.peek() == b':' {
            self.bump(1);
            Some(self.var_name()?)
        } else {
            None
        };
        Some(DagArg {
            value: Some(value),
            name,
            span: self.span(start),
        })
    }

    /// `!cond(...)` or `!op<type>(...)`.
    fn bang(&mut self) -> Option<ExprKind> {
        let start = self.pos;
        let name_end = self.digits_end(start + 1, u8::is_ascii_alphabetic);
        if name_end == start + 1 {
            return None;
        }
        let name = &self.text[start + 1..name_end];
        self.bump(name_end - start);
        let op_span = self.span(start);
        if name == "cond" {
            self.expect(b'(')?;
            let mut clauses = Vec::new();
            loop {
                let c = self.value(false)?;
                self.expect(b':')?;
                let v = self.value(false)?;
                clauses.push((c, v));
                if self.expect(b',').is_none() {
                    break;
                }
                self.ws();
                if self.peek() == b')' {
                    break;
                }
            }
            self.expect(b')')?;
            clauses.shrink_to_fit();
            return Some(ExprKind::Cond { clauses });
        }
        let op = BangOp::from_name(name)?;
        let type_arg = self.type_suffix()?;
        self.expect(b'(')?;
        self.ws();
        // At least one operand: `!op()` is a syntax error.
        if self.peek() == b')' {
            return None;
        }
        let args = self.values(b')', false)?;
        let mut errors = Vec::new();
        bang_errors(op, op_span, &type_arg, &args, &mut errors);
        if !errors.is_empty() {
            return None;
        }
        Some(ExprKind::Bang {
            op,
            op_span,
            type_arg: type_arg.map(Box::new),
            args,
        })
    }
}
