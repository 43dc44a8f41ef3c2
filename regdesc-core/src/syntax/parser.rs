//! The pest parser and the AST builder.

use pest::iterators::Pair;
use pest::Parser as _;

use crate::syntax::ast::*;
use crate::syntax::error::SyntaxError;

#[derive(pest_derive::Parser)]
#[grammar = "syntax/grammar.pest"]
struct TdParser;

/// Preprocesses (with no macros defined; `include`s are left unresolved)
/// and parses one file. Returns the AST, or every error found.
pub fn parse(file: FileId, text: &str) -> Result<SourceFileAst, Vec<SyntaxError>> {
    struct NoHost(std::collections::HashSet<String>);
    impl crate::syntax::preprocess::PreprocessHost for NoHost {
        fn is_defined(&self, name: &str) -> bool {
            self.0.contains(name)
        }
        fn define(&mut self, name: &str) {
            self.0.insert(name.to_string());
        }
        fn include(&mut self, _: &str, _: Span, _: Span) {}
    }
    crate::syntax::with_big_stack(|| {
        let pre =
            crate::syntax::preprocess::preprocess(file, text, &mut NoHost(Default::default()));
        if !pre.errors.is_empty() {
            return Err(pre.errors);
        }
        parse_preprocessed(file, &pre.text)
    })
}

/// Parses the output of [`crate::syntax::preprocess::preprocess`]. Returns
/// the AST, or every error found (the first syntax error of the file, or
/// the errors the AST builder found).
pub(crate) fn parse_preprocessed(
    file: FileId,
    text: &str,
) -> Result<SourceFileAst, Vec<SyntaxError>> {
    match crate::syntax::descent::parse(file, text) {
        Some(ast) => Ok(ast),
        None => parse_with_pest(file, text),
    }
}

/// [`parse_preprocessed`] by the pest grammar alone: the definition of
/// the language and of its syntax errors, which the fast path defers to.
pub(crate) fn parse_with_pest(file: FileId, text: &str) -> Result<SourceFileAst, Vec<SyntaxError>> {
    let pairs = match TdParser::parse(Rule::file, text) {
        Ok(p) => p,
        Err(e) => return Err(vec![convert_error(file, text, e)]),
    };
    let mut b = Builder {
        file,
        text,
        errors: Vec::new(),
        ctx: Ctx::default(),
    };
    let mut stmts = Vec::new();
    for p in pairs {
        if p.as_rule() == Rule::file {
            for s in p.kids() {
                if s.as_rule() != Rule::EOI {
                    if let Some(st) = b.stmt(s) {
                        stmts.push(st);
                    }
                }
            }
        }
    }
    if b.errors.is_empty() {
        stmts.shrink_to_fit();
        Ok(SourceFileAst { stmts })
    } else {
        Err(b.errors)
    }
}

/// Parses a single value (for tests and tools).
pub fn parse_value(file: FileId, text: &str) -> Result<Expr, Vec<SyntaxError>> {
    let src = format!("defvar x = {text};");
    let ast = parse(file, &src)?;
    match ast.stmts.into_iter().next() {
        Some(Stmt::Defvar(d)) => {
            let mut e = d.value;
            shift(&mut e, 11);
            Ok(e)
        }
        _ => Err(vec![]),
    }
}

fn shift(e: &mut Expr, by: u32) {
    fn s(sp: &mut Span, by: u32) {
        sp.start -= by;
        sp.end -= by;
    }
    fn t(ty: &mut Type, by: u32) {
        s(&mut ty.span, by);
        match &mut ty.kind {
            TypeKind::List(inner) => t(inner, by),
            TypeKind::Class(id) => s(&mut id.span, by),
            _ => {}
        }
    }
    fn r(p: &mut RangePiece, by: u32) {
        s(&mut p.span, by);
        shift(&mut p.start, by);
        if let Some(e) = &mut p.end {
            shift(e, by);
        }
    }
    fn d(a: &mut DagArg, by: u32) {
        s(&mut a.span, by);
        if let Some(v) = &mut a.value {
            shift(v, by);
        }
        if let Some(n) = &mut a.name {
            s(&mut n.span, by);
        }
    }
    s(&mut e.span, by);
    match &mut e.kind {
        ExprKind::Bits(v) => v.iter_mut().for_each(|x| shift(x, by)),
        ExprKind::List { elems, elem_type } => {
            elems.iter_mut().for_each(|x| shift(x, by));
            if let Some(ty) = elem_type {
                t(ty, by);
            }
        }
        ExprKind::Dag { op, args } => {
            d(op, by);
            args.iter_mut().for_each(|a| d(a, by));
        }
        ExprKind::Id(id) => s(&mut id.span, by),
        ExprKind::ClassInst { class, args } => {
            s(&mut class.span, by);
            args.iter_mut().for_each(|x| shift(x, by));
        }
        ExprKind::Bang {
            op_span,
            type_arg,
            args,
            ..
        } => {
            s(op_span, by);
            if let Some(ty) = type_arg {
                t(ty, by);
            }
            args.iter_mut().for_each(|x| shift(x, by));
        }
        ExprKind::Cond { clauses } => clauses.iter_mut().for_each(|(a, b)| {
            shift(a, by);
            shift(b, by);
        }),
        ExprKind::BitSlice { base, ranges } | ExprKind::ListSlice { base, ranges } => {
            shift(base, by);
            ranges.iter_mut().for_each(|p| r(p, by));
        }
        ExprKind::Field { base, field } => {
            shift(base, by);
            s(&mut field.span, by);
        }
        ExprKind::Paste { lhs, rhs } => {
            shift(lhs, by);
            if let Some(r) = rhs {
                shift(r, by);
            }
        }
        _ => {}
    }
}

/// Where a statement is, for the checks llvm-tblgen makes while parsing.
#[derive(Clone, Copy, Default)]
pub(crate) struct Ctx {
    pub(crate) in_multiclass: bool,
    pub(crate) in_loop: bool,
}

pub(crate) struct Builder<'t> {
    file: FileId,
    text: &'t str,
    errors: Vec<SyntaxError>,
    ctx: Ctx,
}

type P<'i> = Pair<'i, Rule>;

/// Whether `s` is one of [`KEYWORDS`].
pub fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "assert"
            | "bit"
            | "bits"
            | "class"
            | "code"
            | "dag"
            | "def"
            | "defm"
            | "defset"
            | "defvar"
            | "else"
            | "false"
            | "field"
            | "foreach"
            | "if"
            | "in"
            | "include"
            | "int"
            | "let"
            | "list"
            | "multiclass"
            | "string"
            | "then"
            | "true"
    )
}

/// TableGen's keywords: never identifiers.
pub const KEYWORDS: [&str; 24] = [
    "assert",
    "bit",
    "bits",
    "class",
    "code",
    "dag",
    "def",
    "defm",
    "defset",
    "defvar",
    "else",
    "false",
    "field",
    "foreach",
    "if",
    "in",
    "include",
    "int",
    "let",
    "list",
    "multiclass",
    "string",
    "then",
    "true",
];

/// Children of a pair, without the keyword tokens nobody needs.
trait Kids<'i> {
    fn kids(self) -> std::iter::Filter<pest::iterators::Pairs<'i, Rule>, fn(&P<'i>) -> bool>;
}

impl<'i> Kids<'i> for P<'i> {
    fn kids(self) -> std::iter::Filter<pest::iterators::Pairs<'i, Rule>, fn(&P<'i>) -> bool> {
        fn keep(p: &P) -> bool {
            !matches!(
                p.as_rule(),
                Rule::kw_assert
                    | Rule::kw_class
                    | Rule::kw_def
                    | Rule::kw_defm
                    | Rule::kw_defset
                    | Rule::kw_defvar
                    | Rule::kw_else
                    | Rule::kw_foreach
                    | Rule::kw_if
                    | Rule::kw_in
                    | Rule::kw_include
                    | Rule::kw_let
                    | Rule::kw_multiclass
                    | Rule::kw_then
            )
        }
        self.into_inner().filter(keep as fn(&P<'i>) -> bool)
    }
}

impl Builder<'_> {
    /// The span of a pair, without the trailing blanks pest includes when
    /// a rule ends with an optional or repeated part that did not match.
    fn span(&self, p: &P) -> Span {
        let s = p.as_span();
        let bytes = self.text.as_bytes();
        let mut end = s.end();
        while end > s.start() && bytes.get(end - 1) == Some(&b' ') {
            end -= 1;
        }
        Span::new(self.file, s.start(), end)
    }

    fn ident(&mut self, p: P) -> Ident {
        let id = Ident {
            name: p.as_str().into(),
            span: self.span(&p),
        };
        if is_keyword(&id.name) {
            self.err(SyntaxError::KeywordAsIdentifier {
                keyword: id.name.to_string(),
                span: id.span,
            });
        }
        id
    }

    fn err(&mut self, e: SyntaxError) {
        self.errors.push(e);
    }

    // ------------------------------------------------------------ statements

    fn stmts(&mut self, p: P, ctx: Ctx) -> Vec<Stmt> {
        let saved = self.ctx;
        self.ctx = ctx;
        let mut out: Vec<Stmt> = match p.as_rule() {
            Rule::stmt_braces => p.kids().filter_map(|s| self.stmt(s)).collect(),
            _ => self.stmt(p).into_iter().collect(),
        };
        self.ctx = saved;
        // Pushing leaves up to half of a vector unused (four slots for
        // one statement); the tree of a full target is tens of MB.
        out.shrink_to_fit();
        out
    }

    fn stmt(&mut self, p: P) -> Option<Stmt> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::include_stmt => {
                let lit = p.kids().next()?;
                let path = self.string_lit(&lit);
                Some(Stmt::Include(IncludeStmt {
                    path,
                    file: None,
                    span,
                }))
            }
            Rule::class_stmt => {
                if self.ctx.in_multiclass {
                    self.err(SyntaxError::NotAllowed {
                        what: "class",
                        place: "a multiclass",
                        span: head(span, 5),
                    });
                } else if self.ctx.in_loop {
                    self.err(SyntaxError::NotAllowed {
                        what: "class",
                        place: "a `foreach` or `if` body",
                        span: head(span, 5),
                    });
                }
                let mut it = p.kids();
                let name = self.ident(it.next()?);
                let mut targs = Vec::new();
                let mut body = None;
                for c in it {
                    match c.as_rule() {
                        Rule::template_decls => targs = self.template_decls(c),
                        Rule::record_body => body = Some(self.record_body(c)),
                        _ => {}
                    }
                }
                let (body, decl_only) = body?;
                Some(Stmt::Class(ClassStmt::new(
                    name, targs, body, decl_only, span,
                )))
            }
            Rule::def_stmt => {
                let mut name = None;
                let mut body = None;
                for c in p.kids() {
                    match c.as_rule() {
                        Rule::obj_name => name = Some(self.value(c.kids().next()?)),
                        Rule::record_body => body = Some(self.record_body(c).0),
                        _ => {}
                    }
                }
                Some(Stmt::Def(DefStmt {
                    name,
                    body: body?,
                    span,
                }))
            }
            Rule::defm_stmt => {
                let mut name = None;
                let mut parents = Vec::new();
                for c in p.kids() {
                    match c.as_rule() {
                        Rule::obj_name => name = Some(self.value(c.kids().next()?)),
                        Rule::class_ref => parents.push(self.class_ref(c)),
                        _ => {}
                    }
                }
                Some(Stmt::Defm(DefmStmt {
                    name,
                    parents,
                    span,
                }))
            }
            Rule::multiclass_stmt => {
                if self.ctx.in_loop {
                    self.err(SyntaxError::NotAllowed {
                        what: "multiclass",
                        place: "a `foreach` or `if` body",
                        span: head(span, 10),
                    });
                } else if self.ctx.in_multiclass {
                    self.err(SyntaxError::NotAllowed {
                        what: "multiclass",
                        place: "a multiclass",
                        span: head(span, 10),
                    });
                }
                let mut it = p.kids();
                let name = self.ident(it.next()?);
                let mut targs = Vec::new();
                let mut parents = Vec::new();
                let mut body = Vec::new();
                for c in it {
                    match c.as_rule() {
                        Rule::template_decls => targs = self.template_decls(c),
                        Rule::parent_list => {
                            parents = c.kids().map(|r| self.class_ref(r)).collect()
                        }
                        Rule::decl_end if parents.is_empty() => {
                            let sp = self.span(&c);
                            self.err(SyntaxError::MulticlassWithoutBody { span: sp });
                        }
                        Rule::stmt_braces => {
                            let sp = self.span(&c);
                            let ctx = Ctx {
                                in_multiclass: true,
                                in_loop: false,
                            };
                            body = self.stmts(c, ctx);
                            if body.is_empty() && self.errors.is_empty() {
                                self.err(SyntaxError::EmptyMulticlass { span: sp });
                            }
                        }
                        _ => {}
                    }
                }
                Some(Stmt::Multiclass(MulticlassStmt {
                    name,
                    targs,
                    parents,
                    body,
                    span,
                }))
            }
            Rule::defset_stmt => {
                if self.ctx.in_multiclass {
                    self.err(SyntaxError::NotAllowed {
                        what: "defset",
                        place: "a multiclass",
                        span: head(span, 6),
                    });
                }
                let mut it = p.kids();
                let ty = self.ty(it.next()?);
                let name = self.ident(it.next()?);
                let ctx = self.ctx;
                let body = self.stmts(it.next()?, ctx);
                Some(Stmt::Defset(DefsetStmt {
                    ty,
                    name,
                    body,
                    span,
                }))
            }
            Rule::defvar_stmt => Some(Stmt::Defvar(self.defvar(p)?)),
            Rule::assert_stmt => Some(Stmt::Assert(self.assert(p)?)),
            Rule::foreach_stmt => {
                let mut it = p.kids();
                let var = self.ident(it.next()?);
                let iter = self.foreach_iter(it.next()?)?;
                let ctx = Ctx {
                    in_loop: true,
                    ..self.ctx
                };
                let body = self.stmts(it.next()?, ctx);
                Some(Stmt::Foreach(ForeachStmt {
                    var,
                    iter,
                    body,
                    span,
                }))
            }
            Rule::if_stmt => {
                let mut it = p.kids();
                let cond = self.value(it.next()?);
                let ctx = Ctx {
                    in_loop: true,
                    ..self.ctx
                };
                let then_body = self.stmts(it.next()?, ctx);
                let else_body = match it.next() {
                    Some(e) => Some(self.stmts(e.kids().next()?, ctx)),
                    None => None,
                };
                Some(Stmt::If(IfStmt {
                    cond,
                    then_body,
                    else_body,
                    span,
                }))
            }
            Rule::let_stmt => {
                let mut items = Vec::new();
                let mut body = Vec::new();
                let ctx = self.ctx;
                for c in p.kids() {
                    match c.as_rule() {
                        Rule::let_item => items.push(self.let_item(c)?),
                        _ => body = self.stmts(c, ctx),
                    }
                }
                items.shrink_to_fit();
                Some(Stmt::Let(LetStmt { items, body, span }))
            }
            _ => None,
        }
    }

    fn foreach_iter(&mut self, p: P) -> Option<ForeachIter> {
        let inner = p.into_inner().next()?;
        match inner.as_rule() {
            Rule::foreach_ranges => Some(ForeachIter::Ranges(
                self.range_list(inner.into_inner().next()?),
            )),
            _ => {
                let span = self.span(&inner);
                let mut it = inner.into_inner();
                let start = self.value(it.next()?);
                match it.next() {
                    Some(end) => {
                        let end = self.value(end);
                        Some(ForeachIter::Ranges(vec![RangePiece {
                            start,
                            end: Some(end),
                            span,
                        }]))
                    }
                    None if matches!(start.kind, ExprKind::Int(_)) => {
                        Some(ForeachIter::Ranges(vec![RangePiece {
                            start,
                            end: None,
                            span,
                        }]))
                    }
                    None => Some(ForeachIter::Value(start)),
                }
            }
        }
    }

    fn defvar(&mut self, p: P) -> Option<Defvar> {
        let span = self.span(&p);
        let mut it = p.kids();
        let name = self.ident(it.next()?);
        let value = self.value(it.next()?);
        Some(Defvar { name, value, span })
    }

    fn assert(&mut self, p: P) -> Option<Assert> {
        let span = self.span(&p);
        let mut it = p.kids();
        let cond = self.value(it.next()?);
        let message = self.value(it.next()?);
        Some(Assert {
            cond,
            message,
            span,
        })
    }

    fn let_item(&mut self, p: P) -> Option<LetItem> {
        let span = self.span(&p);
        let mut it = p.kids();
        let name = self.ident(it.next()?);
        let mut bits = None;
        let mut value = None;
        for c in it {
            match c.as_rule() {
                Rule::let_bits | Rule::let_ranges => bits = Some(self.range_list(c.kids().next()?)),
                _ => value = Some(self.value(c)),
            }
        }
        Some(LetItem {
            name,
            bits,
            value: value?,
            span,
        })
    }

    fn template_decls(&mut self, p: P) -> Vec<TemplateArg> {
        p.into_inner()
            .filter_map(|a| {
                let mut it = a.into_inner();
                let ty = self.ty(it.next()?);
                let name = self.ident(it.next()?);
                let default = it.next().map(|v| self.value(v));
                Some(TemplateArg { ty, name, default })
            })
            .collect()
    }

    /// Returns the body and whether it was just `;`.
    fn record_body(&mut self, p: P) -> (RecordBody, bool) {
        let mut parents = Vec::new();
        let mut items = Vec::new();
        let mut decl_only = false;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::parent_list => {
                    parents = c.into_inner().map(|r| self.class_ref(r)).collect();
                }
                Rule::decl_end => decl_only = true,
                Rule::body_block => {
                    for item in c.into_inner() {
                        if let Some(i) = self.body_item(item) {
                            items.push(i);
                        }
                    }
                }
                _ => {}
            }
        }
        items.shrink_to_fit();
        (RecordBody { parents, items }, decl_only)
    }

    fn body_item(&mut self, p: P) -> Option<BodyItem> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::field_decl => {
                let mut it = p.kids().peekable();
                let is_field = it.peek().map(|c| c.as_rule()) == Some(Rule::kw_field);
                if is_field {
                    it.next();
                }
                let ty = self.ty(it.next()?);
                let name = self.ident(it.next()?);
                let value = it.next().map(|v| self.value(v));
                Some(BodyItem::Field {
                    is_field,
                    ty,
                    name,
                    value,
                    span,
                })
            }
            Rule::body_let => Some(BodyItem::Let(self.let_item(p)?)),
            Rule::defvar_stmt => Some(BodyItem::Defvar(self.defvar(p)?)),
            Rule::assert_stmt => Some(BodyItem::Assert(self.assert(p)?)),
            Rule::extra_semi => {
                self.err(SyntaxError::BodySemicolon { span });
                None
            }
            _ => None,
        }
    }

    fn class_ref(&mut self, p: P) -> ClassRef {
        let span = self.span(&p);
        let mut it = p.into_inner();
        let name = match it.next() {
            Some(n) => self.ident(n),
            None => Ident {
                name: "".into(),
                span,
            },
        };
        let args = match it.next() {
            Some(a) => a.into_inner().map(|v| self.value(v)).collect(),
            None => Vec::new(),
        };
        ClassRef { name, args, span }
    }

    // ------------------------------------------------------------ types

    fn ty(&mut self, p: P) -> Type {
        let span = self.span(&p);
        let mut it = p.into_inner();
        let Some(name) = it.next() else {
            return Type {
                kind: TypeKind::Int,
                span,
            };
        };
        let arg = it.next();
        let kind = match (name.as_str(), arg) {
            ("bit", None) => TypeKind::Bit,
            ("int", None) => TypeKind::Int,
            ("string", None) => TypeKind::String,
            ("code", None) => TypeKind::Code,
            ("dag", None) => TypeKind::Dag,
            ("bits", Some(a)) if a.as_rule() == Rule::ty_size => {
                let n = a.into_inner().next();
                let width = n.as_ref().and_then(|n| {
                    let text = n.as_str();
                    let v = match n.as_rule() {
                        Rule::hex_lit => u64::from_str_radix(&text[2..], 16).ok(),
                        Rule::dec_lit => text.trim_start_matches('+').parse::<u64>().ok(),
                        _ => None,
                    };
                    v.and_then(|v| u32::try_from(v).ok())
                });
                match width {
                    Some(w) => TypeKind::Bits(w),
                    None => {
                        let (text, sp) = match &n {
                            Some(n) => (n.as_str().to_string(), self.span(n)),
                            None => (String::new(), span),
                        };
                        self.err(SyntaxError::BadBitsWidth { text, span: sp });
                        TypeKind::Bits(0)
                    }
                }
            }
            ("list", Some(a)) if a.as_rule() == Rule::ty => TypeKind::List(Box::new(self.ty(a))),
            ("bits", a) => {
                let (found, sp) = self.found(a.as_ref(), name.as_span().end());
                self.expected("`<N>` after `bits`", found, sp);
                TypeKind::Bits(0)
            }
            ("list", a) => {
                let (found, sp) = self.found(a.as_ref(), name.as_span().end());
                self.expected("`<Type>` after `list`", found, sp);
                TypeKind::List(Box::new(Type {
                    kind: TypeKind::Int,
                    span,
                }))
            }
            (kw @ ("bit" | "int" | "string" | "code" | "dag"), Some(a)) => {
                let what = format!("a name after type `{kw}`");
                let sp = Span::new(self.file, a.as_span().start() - 1, a.as_span().start());
                self.expected(&what, "`<`".to_string(), sp);
                TypeKind::Int
            }
            (_, None) => TypeKind::Class(self.ident(name)),
            (_, Some(a)) => {
                let sp = Span::new(self.file, a.as_span().start() - 1, a.as_span().start());
                let id = self.ident(name);
                self.expected("a name after the class type", "`<`".to_string(), sp);
                TypeKind::Class(id)
            }
        };
        Type { kind, span }
    }

    /// Describes what a type argument pair is (for errors).
    fn found(&self, a: Option<&P>, fallback: usize) -> (String, Span) {
        match a {
            Some(a) => (
                format!("`{}`", a.as_str()),
                Span::new(self.file, a.as_span().start(), a.as_span().end()),
            ),
            None => (
                "the end of the type".to_string(),
                Span::new(self.file, fallback, fallback),
            ),
        }
    }

    fn expected(&mut self, what: &str, found: String, span: Span) {
        self.err(SyntaxError::Expected {
            expected: what.to_string(),
            found,
            context: None,
            span,
            help: None,
        });
    }

    // ------------------------------------------------------------ values

    /// `value` / `name_value`: a simple value, then suffixes and pastes
    /// applied left to right.
    fn value(&mut self, p: P) -> Expr {
        let span = self.span(&p);
        let mut it = p.into_inner().peekable();
        self.chain(&mut it).unwrap_or(Expr {
            kind: ExprKind::Unset,
            span,
        })
    }

    /// The pairs of a `simple`, then each suffix or paste in order.
    fn chain<'i, I: Iterator<Item = P<'i>>>(
        &mut self,
        it: &mut std::iter::Peekable<I>,
    ) -> Option<Expr> {
        let first = it.next()?;
        let mut e = match first.as_rule() {
            Rule::ident => {
                let fspan = self.span(&first);
                if it.peek().map(|x| x.as_rule()) == Some(Rule::inst_args) {
                    let args = it.next()?;
                    let span = fspan.to(self.span(&args));
                    let class = self.ident(first);
                    Expr {
                        kind: ExprKind::ClassInst {
                            class,
                            args: self.values(args),
                        },
                        span,
                    }
                } else {
                    let kind = match first.as_str() {
                        "true" => ExprKind::Bool(true),
                        "false" => ExprKind::Bool(false),
                        _ => ExprKind::Id(self.ident(first)),
                    };
                    Expr { kind, span: fspan }
                }
            }
            Rule::str_lit => {
                let mut span = self.span(&first);
                let mut s = self.string_lit(&first);
                while it.peek().map(|x| x.as_rule()) == Some(Rule::str_lit) {
                    if let Some(lit) = it.next() {
                        span = span.to(self.span(&lit));
                        s.push_str(&self.string_lit(&lit));
                    }
                }
                Expr {
                    kind: ExprKind::Str(s),
                    span,
                }
            }
            _ => self.simple(first),
        };
        for op in it {
            let rule = op.as_rule();
            let op_span = self.span(&op);
            let span = e.span.to(op_span);
            let mut inner = op.into_inner().peekable();
            let kind = match rule {
                Rule::paste => {
                    if inner.peek().map(|x| x.as_rule()) == Some(Rule::paste_end) {
                        // `a #` before `:`, `;` or `{`: the span ends at `#`.
                        let hash = Span {
                            end: op_span.start + 1,
                            ..op_span
                        };
                        e = Expr {
                            span: e.span.to(hash),
                            kind: ExprKind::Paste {
                                lhs: Box::new(e),
                                rhs: None,
                            },
                        };
                        continue;
                    }
                    let rhs = self.chain(&mut inner);
                    ExprKind::Paste {
                        lhs: Box::new(e),
                        rhs: rhs.map(Box::new),
                    }
                }
                Rule::bit_slice | Rule::list_slice | Rule::field_access => {
                    let Some(x) = inner.next() else { continue };
                    match rule {
                        Rule::bit_slice => ExprKind::BitSlice {
                            base: Box::new(e),
                            ranges: self.range_list(x),
                        },
                        Rule::list_slice => ExprKind::ListSlice {
                            base: Box::new(e),
                            ranges: self.range_list(x),
                        },
                        _ => ExprKind::Field {
                            base: Box::new(e),
                            field: self.ident(x),
                        },
                    }
                }
                _ => continue,
            };
            e = Expr { kind, span };
        }
        Some(e)
    }

    fn range_list(&mut self, p: P) -> Vec<RangePiece> {
        p.into_inner()
            .filter_map(|piece| {
                let span = self.span(&piece);
                let mut it = piece.into_inner();
                let start = self.value(it.next()?);
                let end = it.next().map(|v| self.value(v));
                Some(RangePiece { start, end, span })
            })
            .collect()
    }

    fn values(&mut self, p: P) -> Vec<Expr> {
        p.into_inner().map(|v| self.value(v)).collect()
    }

    fn simple(&mut self, p: P) -> Expr {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::dec_lit => ExprKind::Int(dec_value(p.as_str())),
            Rule::hex_lit => match u64::from_str_radix(&p.as_str()[2..], 16) {
                Ok(v) => ExprKind::Int(v as i64),
                Err(_) => {
                    self.err(SyntaxError::HexOutOfRange { span });
                    ExprKind::Int(0)
                }
            },
            Rule::bin_lit => {
                ExprKind::BinaryBits(p.as_str()[2..].bytes().map(|c| c == b'1').collect())
            }
            Rule::code_lit => {
                let t = p.as_str();
                ExprKind::Code(t[2..t.len() - 2].to_string())
            }
            Rule::unset => ExprKind::Unset,
            Rule::bits_lit => ExprKind::Bits(self.values(p)),
            Rule::list_lit => {
                let mut elems = Vec::new();
                let mut elem_type = None;
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::ty => elem_type = Some(Box::new(self.ty(c))),
                        _ => elems.push(self.value(c)),
                    }
                }
                elems.shrink_to_fit();
                ExprKind::List { elems, elem_type }
            }
            Rule::dag_lit => self.dag(p),
            Rule::cond_op => {
                let clauses = p
                    .into_inner()
                    .filter_map(|c| {
                        let mut it = c.into_inner();
                        let a = self.value(it.next()?);
                        let b = self.value(it.next()?);
                        Some((a, b))
                    })
                    .collect();
                ExprKind::Cond { clauses }
            }
            Rule::bang_op => self.bang(p),
            _ => ExprKind::Unset,
        };
        Expr { kind, span }
    }

    fn dag(&mut self, p: P) -> ExprKind {
        let mut it = p.into_inner().peekable();
        let op_pair = match it.next() {
            Some(o) => o,
            None => {
                return ExprKind::Unset;
            }
        };
        let op_span = self.span(&op_pair);
        let op_value = match op_pair.into_inner().next() {
            Some(v) => self.value(v),
            None => Expr {
                kind: ExprKind::Unset,
                span: op_span,
            },
        };
        let mut op = DagArg {
            value: Some(op_value),
            name: None,
            span: op_span,
        };
        if it.peek().map(|c| c.as_rule()) == Some(Rule::var_name) {
            if let Some(n) = it.next() {
                let name = self.var_name(n);
                op.span = op.span.to(name.span);
                op.name = Some(name);
            }
        }
        let args = it
            .map(|a| {
                let span = self.span(&a);
                let mut value = None;
                let mut name = None;
                for c in a.into_inner() {
                    match c.as_rule() {
                        Rule::var_name => name = Some(self.var_name(c)),
                        _ => value = Some(self.value(c)),
                    }
                }
                DagArg { value, name, span }
            })
            .collect();
        ExprKind::Dag {
            op: Box::new(op),
            args,
        }
    }

    fn var_name(&self, p: P) -> Ident {
        Ident {
            name: p.as_str()[1..].into(),
            span: self.span(&p),
        }
    }

    fn bang(&mut self, p: P) -> ExprKind {
        let mut it = p.into_inner().peekable();
        let name_pair = match it.next() {
            Some(n) => n,
            None => return ExprKind::Unset,
        };
        let op_span = self.span(&name_pair);
        let name = &name_pair.as_str()[1..];
        let type_arg = if it.peek().map(|c| c.as_rule()) == Some(Rule::ty) {
            it.next().map(|t| self.ty(t))
        } else {
            None
        };
        let args: Vec<Expr> = it.map(|v| self.value(v)).collect();
        // Operators of later LLVM versions (`!exists`, `!div`, ...) are
        // unknown to llvm-tblgen 14.
        let op = match BangOp::from_name(name) {
            None => {
                self.err(SyntaxError::UnknownOperator {
                    name: name.to_string(),
                    span: op_span,
                });
                return ExprKind::Unset;
            }
            Some(op) => op,
        };
        bang_errors(op, op_span, &type_arg, &args, &mut self.errors);
        ExprKind::Bang {
            op,
            op_span,
            type_arg: type_arg.map(Box::new),
            args,
        }
    }

    /// Unescapes one string literal token (with its quotes).
    fn string_lit(&mut self, p: &P) -> String {
        let t = p.as_str();
        let start = p.as_span().start();
        let body = &t[1..t.len().saturating_sub(1).max(1)];
        let file = self.file;
        let errors = &mut self.errors;
        unescape(body, |i, j, c| {
            let s = Span::new(file, start + 1 + i, start + 1 + j + c.len_utf8());
            errors.push(SyntaxError::InvalidEscape {
                text: format!("\\{c}"),
                span: s,
            });
        })
    }
}

/// The value of a decimal literal (`-5`, `+5`, `5`), saturating.
pub(crate) fn dec_value(t: &str) -> i64 {
    let digits = t.trim_start_matches(['+', '-']);
    let neg = t.starts_with('-');
    let v = digits
        .parse::<i64>()
        .map(|v| if neg { -v } else { v })
        .unwrap_or(if neg { i64::MIN } else { i64::MAX });
    // `-9223372036854775808` does not fit as a positive i64 first.
    if neg && digits.parse::<i64>().is_err() {
        i64::MIN
    } else {
        v
    }
}

/// Unescapes the body of a string literal (between its quotes): `\t`,
/// `\n`, `\\`, `\'` and `\"`. Any other escape is reported to `bad` (the
/// byte offsets of the backslash and of the escaped char in `body`, and the
/// char) and left out.
pub(crate) fn unescape(body: &str, mut bad: impl FnMut(usize, usize, char)) -> String {
    if !body.contains('\\') {
        return body.to_string();
    }
    let mut out = String::with_capacity(body.len());
    let mut it = body.char_indices();
    while let Some((i, c)) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some((_, 't')) => out.push('\t'),
            Some((_, 'n')) => out.push('\n'),
            Some((_, c @ ('\\' | '\'' | '"'))) => out.push(c),
            Some((j, c)) => bad(i, j, c),
            None => {}
        }
    }
    out
}

/// The errors the builder finds in a bang operator: its type argument and
/// operand count, and the operands that must be identifiers.
pub(crate) fn bang_errors(
    op: BangOp,
    op_span: Span,
    type_arg: &Option<Type>,
    args: &[Expr],
    errors: &mut Vec<SyntaxError>,
) {
    use BangOp::*;
    let opname = op.to_string();
    match (op, type_arg) {
        (Cast | IsA, None) => errors.push(SyntaxError::MissingTypeArgument {
            op: opname.clone(),
            span: op_span,
        }),
        (Cast | IsA | GetDagOp, _) | (_, None) => {}
        (_, Some(t)) => errors.push(SyntaxError::UnexpectedTypeArgument {
            op: opname.clone(),
            span: t.span,
        }),
    }
    let (min, max, words): (usize, usize, &'static str) = match op {
        Head | Tail | Size | Empty | Not | Cast | IsA | GetDagOp => (1, 1, "one operand"),
        Add | Mul | And | Or | Xor | ListConcat | StrConcat | Con => {
            (2, usize::MAX, "two or more operands")
        }
        Sub | Shl | Sra | Srl | Eq | Ne | Lt | Le | Gt | Ge | ListSplat | SetDagOp | Interleave => {
            (2, 2, "two operands")
        }
        If | Subst | Dag | Foreach | Filter => (3, 3, "three operands"),
        Substr | Find => (2, 3, "two or three operands"),
        Foldl => (5, 5, "five operands"),
        Cond => (1, usize::MAX, "at least one clause"),
    };
    if args.len() < min || args.len() > max {
        let span = match (args.first(), args.last()) {
            (Some(a), Some(b)) => op_span.to(a.span).to(b.span),
            _ => op_span,
        };
        errors.push(SyntaxError::OperandCount {
            op: opname,
            expected: words,
            found: args.len(),
            span,
        });
        return;
    }
    let mut must_be_id = |e: &Expr, what: &'static str| {
        if !matches!(e.kind, ExprKind::Id(_)) {
            errors.push(SyntaxError::ExpectedIdentifier { what, span: e.span });
        }
    };
    match op {
        Foreach => must_be_id(&args[0], "the first operand of `!foreach`"),
        Filter => must_be_id(&args[0], "the first operand of `!filter`"),
        Foldl => {
            must_be_id(&args[2], "the third operand of `!foldl`");
            must_be_id(&args[3], "the fourth operand of `!foldl`");
        }
        _ => {}
    }
}

/// The first `len` bytes of a span (the keyword of a statement).
fn head(span: Span, len: u32) -> Span {
    Span {
        end: (span.start + len).min(span.end),
        ..span
    }
}

/// How many threads currently want pest's detailed error tracking.
static DETAIL_USERS: std::sync::Mutex<usize> = std::sync::Mutex::new(0);

/// Re-parses `text` with pest's error detail on (it is off for speed) to
/// learn which tokens were expected where the parse failed.
fn detailed_attempts(text: &str) -> Option<(usize, Vec<String>, Vec<String>)> {
    {
        let mut n = DETAIL_USERS.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        pest::set_error_detail(true);
    }
    let result = TdParser::parse(Rule::file, text);
    {
        let mut n = DETAIL_USERS.lock().unwrap_or_else(|p| p.into_inner());
        *n = n.saturating_sub(1);
        if *n == 0 {
            pest::set_error_detail(false);
        }
    }
    let e = result.err()?;
    let attempts = e.parse_attempts()?;
    let tokens: Vec<String> = attempts
        .expected_tokens()
        .into_iter()
        .map(|t| {
            // Tokens print as themselves, ranges as `a..z`.
            let t = t.to_string();
            let cs: Vec<char> = t.chars().collect();
            if cs.len() == 4 && cs[1] == '.' && cs[2] == '.' {
                cs[0].to_string()
            } else {
                t
            }
        })
        .collect();
    let mut tokens: Vec<String> = tokens;
    tokens.sort();
    tokens.dedup();
    let rules = attempts
        .call_stacks()
        .into_iter()
        .filter_map(|c| {
            // `deepest` prints as `Rule(name)` or `Token`.
            let d = format!("{:?}", c.deepest);
            match d.strip_prefix("Rule(").and_then(|x| x.strip_suffix(')')) {
                Some(name) => Some(name.to_string()),
                None => c.parent.map(|r| format!("{r:?}")),
            }
        })
        .collect();
    Some((attempts.max_position, tokens, rules))
}

/// Words for the tokens pest expected. `after_word` says the failure is
/// right after an identifier or number (which could always go on).
fn describe_expected(tokens: &[String], after_word: bool) -> String {
    let has = |t: &str| tokens.iter().any(|x| x == t);
    let ident = !after_word && (has("a") || has("A") || has("_"));
    // `0` alone comes from identifiers that start with digits.
    let number = !after_word && has("0") && (has("-") || has("+"));
    let value_start = ident && number && has("\"") && has("(") && has("?");
    // `#` means a value just ended: `#`, `.`, `[` and `{` would continue it.
    let value_ended = has("#");
    let mut words: Vec<String> = Vec::new();
    let mut push = |w: String| {
        if !words.contains(&w) {
            words.push(w);
        }
    };
    if value_start {
        push("a value".into());
    } else {
        if ident {
            push("an identifier".into());
        }
        if number {
            push("an integer".into());
        }
    }
    for t in tokens {
        let t = t.as_str();
        let skip = match t {
            "" | " " | "a" | "A" | "_" | "0" => true,
            "!" | "\"" | "(" | "?" | "[" | "{" | "+" | "-" if value_start => true,
            "+" | "-" if number => true,
            "#" | "." | "[" | "<" if value_ended => true,
            // `{` after a value is a bit slice, except after a def name.
            "{" if value_ended && !has(":") => true,
            _ => false,
        };
        if skip {
            continue;
        }
        push(match t {
            "\"" => "a string".to_string(),
            "$" => "a `$name`".to_string(),
            "!" => "an operator".to_string(),
            _ => format!("`{t}`"),
        });
    }
    if words.is_empty() && value_ended {
        words.push("`#`".into());
    }
    match words.len() {
        0 => "something else".to_string(),
        1 => words.remove(0),
        _ => {
            let last = words.pop().unwrap_or_default();
            format!("{} or {last}", words.join(", "))
        }
    }
}

/// Where in the grammar a failing rule is, in words.
fn rule_context(rules: &[String]) -> Option<&'static str> {
    let r = rules.first()?;
    Some(match r.as_str() {
        "field_decl" => "in field declaration",
        "body_let" | "let_bits" => "in `let`",
        "let_stmt" | "let_item" | "kw_in" => "in `let` statement",
        "record_body" | "body_block" | "decl_end" | "extra_semi" => "in record body",
        "parent_list" | "class_ref" => "in parent class list",
        "template_decls" | "template_arg" => "in template argument declarations",
        "inst_args" => "in template arguments",
        "class_stmt" => "in class definition",
        "def_stmt" | "obj_name" => "in `def`",
        "defm_stmt" => "in `defm`",
        "multiclass_stmt" => "in multiclass definition",
        "defset_stmt" => "in `defset`",
        "defvar_stmt" => "in `defvar`",
        "foreach_stmt" | "foreach_iter" | "foreach_ranges" | "foreach_value" => "in `foreach`",
        "if_stmt" | "else_part" => "in `if`",
        "assert_stmt" => "in `assert`",
        "include_stmt" => "in `include`",
        "dag_lit" | "dag_op" | "dag_arg" => "in dag",
        "list_lit" => "in list",
        "bits_lit" => "in bits value",
        "bang_op" | "cond_op" | "cond_clause" => "in operator",
        "range_list" | "range_piece" | "bit_slice" | "list_slice" => "in range",
        "ty" | "ty_size" => "in type",
        "stmt_braces" => "in statement block",
        _ => return None,
    })
}

/// Turns a pest error into a readable [`SyntaxError::Expected`].
fn convert_error(file: FileId, text: &str, e: pest::error::Error<Rule>) -> SyntaxError {
    let mut pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let (expected, context) = match detailed_attempts(text) {
        Some((max_pos, tokens, rules)) if !tokens.is_empty() => {
            pos = max_pos;
            let after_word = pos > 0
                && text
                    .as_bytes()
                    .get(pos - 1)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
            (describe_expected(&tokens, after_word), rule_context(&rules))
        }
        _ => {
            let words = match &e.variant {
                pest::error::ErrorVariant::ParsingError { positives, .. } => positives
                    .iter()
                    .map(|r| format!("{r:?}").replace('_', " "))
                    .collect::<Vec<_>>()
                    .join(", "),
                pest::error::ErrorVariant::CustomError { message } => message.clone(),
            };
            (words, None)
        }
    };
    // Skip the blanks the preprocessor made, to point at the real token.
    while text.as_bytes().get(pos) == Some(&b' ') {
        pos += 1;
    }
    // A type keyword parsed as a value (`X<int a>`) makes pest fail one
    // token later; the type is the offending token.
    if let Some((start, word)) = previous_word(text, pos) {
        if TYPE_KEYWORDS.contains(&word) && (expected.contains("`,`") || expected.contains("`>`")) {
            return SyntaxError::Expected {
                expected: "a value".to_string(),
                found: format!("type `{word}`"),
                context,
                span: Span::new(file, start, start + word.len()),
                help: Some(format!(
                    "`{word}` is a type; only classes and multiclasses declare template arguments, \
                     everywhere else `<...>` takes values"
                )),
            };
        }
    }
    let (found, end) = describe_token(text, pos);
    let help = if found == "end of file" && text.trim_end().ends_with('#') {
        Some(
            "llvm-tblgen 14 does not recognize a preprocessor directive at the very end \
             of a file; end the file with a newline"
                .to_string(),
        )
    } else if found == "`include`"
        || text
            .get(..pos)
            .unwrap_or("")
            .trim_end()
            .ends_with("include")
    {
        Some(
            "llvm-tblgen splices included text anywhere, but regdesc supports `include` \
             only where a statement may appear"
                .to_string(),
        )
    } else if let Some(kw) = found.strip_prefix("`").and_then(|f| f.strip_suffix('`')) {
        KEYWORDS
            .contains(&kw)
            .then(|| format!("`{kw}` is a keyword and cannot be used as a name"))
            .filter(|_| expected.contains("identifier") || expected.contains("a value"))
    } else {
        None
    };
    SyntaxError::Expected {
        expected,
        found,
        context,
        span: Span::new(file, pos, end),
        help,
    }
}

/// Type keywords that can never start a value.
const TYPE_KEYWORDS: &[&str] = &["bit", "bits", "int", "string", "code", "dag", "list"];

/// The word that ends just before `pos` (skipping blanks), with its start.
fn previous_word(text: &str, pos: usize) -> Option<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut end = pos.min(bytes.len());
    while end > 0 && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
        start -= 1;
    }
    (start < end).then(|| (start, &text[start..end]))
}

/// Describes the token at `pos` ("`}`", "identifier `foo`", "end of file")
/// and returns where it ends.
fn describe_token(text: &str, pos: usize) -> (String, usize) {
    let rest = text.get(pos..).unwrap_or("");
    let Some(c) = rest.chars().next() else {
        return ("end of file".to_string(), pos);
    };
    let word_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if word_len > 0 {
        let w = &rest[..word_len];
        return (format!("`{w}`"), pos + word_len);
    }
    (format!("`{c}`"), pos + c.len_utf8())
}

#[cfg(test)]
pub(crate) fn pest_only(text: &str) -> bool {
    TdParser::parse(Rule::file, text).is_ok()
}
