//! The evaluator: walks the AST the way llvm-tblgen's parser acts on its
//! token stream, building classes, multiclasses and defs.
//!
//! Functions return `Err(Reported)` after recording an [`EvalError`]; the
//! top level then moves on to the next statement so that independent
//! errors are all reported.
//!
//! This file holds the evaluator's state and the statement dispatch; the
//! other files of this module each handle one part of the language.

mod bang;
mod bang_ternary;
mod body;
mod defs;
mod expand;
mod expr;
mod stmts;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;
use std::rc::Rc;

use super::convert::*;
use super::error::{EvalError, Reported, Scope};
use super::fold::{fold, fold_field};
use super::instantiate::{
    check_assert, check_record_assertions, resolve_record, resolve_record_final, set_value_cast,
};
use super::print::{to_string, unquoted};
use super::record::*;
use super::resolve::{resolve, HasReferenceResolver, MapResolver};
use super::state::{Ctx, CurRec, MAX_DEPTH, MAX_RECORDS};
use super::types::{convertible, def_type, resolve_types, type_is_a};
use crate::syntax::{self, BangOp, Expr, ExprKind, Loaded, RangePiece, Span, Stmt, TypeKind};

type R<T> = Result<T, Reported>;

/// Largest number of iterations one `foreach` (or range) may produce.
pub const MAX_RANGE: usize = 1 << 20;
/// Deepest nesting of statements (includes, lets, loops).
pub const MAX_NESTING: u32 = 256;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Value,
    Name,
}

/// One assignment to a field (`SetValue`'s arguments): a `let`, or the
/// value in a field's declaration.
struct Assignment {
    name: Rc<str>,
    /// The bits set (`let F{3-0} = ...`), most significant first; empty
    /// for the whole field.
    bits: Vec<u32>,
    bits_span: Span,
    value: Init,
    value_span: Span,
    /// The field's name as written.
    span: Span,
}

impl Assignment {
    /// An assignment of the value written at `span` to the whole field
    /// `name` (a declaration's value or a template argument's default).
    fn whole(name: Rc<str>, value: Init, span: Span) -> Assignment {
        Assignment {
            name,
            bits: Vec::new(),
            bits_span: span,
            value,
            value_span: span,
            span,
        }
    }
}

#[derive(Clone)]
enum Entry {
    Rec(Box<Record>),
    Loop(Box<ForeachLoop>),
    Assert(AssertionInfo),
}

#[derive(Clone)]
struct ForeachLoop {
    span: Span,
    iter_var: Option<Init>,
    list: Init,
    entries: Vec<Entry>,
}

struct MultiClass {
    rec: RecId,
    entries: Vec<Entry>,
}

struct Defset {
    elt_ty: RecTy,
    elems: Vec<Init>,
    span: Span,
}

struct SubClassRef {
    rec: RecId,
    args: Vec<Init>,
    span: Span,
}

pub struct Evaluator<'a> {
    pub ctx: Ctx,
    loaded: &'a Loaded,
    multiclasses: HashMap<String, Rc<MultiClass>>,
    let_stack: Vec<Vec<Assignment>>,
    loops: Vec<ForeachLoop>,
    /// The multiclass being defined: its record and entries so far.
    cur_mc: Option<(String, RecId, Vec<Entry>)>,
    scopes: Vec<Vec<(String, Init)>>,
    defsets: Vec<Defset>,
    extra_globals: BTreeMap<String, Init>,
    /// Template arguments referenced (for the unused-argument warning).
    used_targs: HashSet<(RecId, Rc<str>)>,
    /// Each class's `Class:NAME` (indexed by record id), made on its first
    /// use as a superclass.
    name_keys: Vec<Option<Rc<str>>>,
    nesting: u32,
    /// Warn about unused template arguments (see `EvalOptions`).
    pub(crate) warn_unused_targs: bool,
    /// [`super::EvalOptions::release_memory`].
    pub(crate) release_memory: Option<fn()>,
}

impl<'a> Evaluator<'a> {
    /// The evaluation state, the rest of the evaluator dropped.
    pub fn into_ctx(self) -> Ctx {
        self.ctx
    }

    pub fn new(loaded: &'a Loaded) -> Self {
        Evaluator {
            ctx: Ctx::default(),
            loaded,
            multiclasses: HashMap::default(),
            let_stack: Vec::new(),
            loops: Vec::new(),
            cur_mc: None,
            scopes: Vec::new(),
            defsets: Vec::new(),
            extra_globals: BTreeMap::new(),
            used_targs: HashSet::default(),
            name_keys: Vec::new(),
            nesting: 0,
            warn_unused_targs: true,
            release_memory: None,
        }
    }

    /// Reports `e` and fails.
    fn fail<T>(&mut self, e: EvalError) -> R<T> {
        self.ctx.report(e);
        Err(Reported)
    }

    /// Reports an operand of the wrong type (in llvm-tblgen's words) and fails.
    fn type_error<T>(&mut self, span: Span, message: impl Into<String>) -> R<T> {
        self.fail(EvalError::OperandType {
            message: message.into(),
            span,
        })
    }

    /// Reports a value whose type is needed but unknown, and fails.
    fn untyped<T>(&mut self, span: Span, message: impl Into<String>) -> R<T> {
        self.fail(EvalError::Untyped {
            message: message.into(),
            span,
        })
    }

    /// Reports a bang operator used in a form llvm-tblgen rejects, and fails.
    fn invalid_operator<T>(&mut self, span: Span, message: impl Into<String>) -> R<T> {
        self.fail(EvalError::InvalidOperator {
            message: message.into(),
            span,
        })
    }

    fn rk(&self) -> &RecordKeeper {
        &self.ctx.rk
    }

    fn rec(&self, id: RecId) -> &Record {
        &self.ctx.rk.records[id as usize]
    }

    fn rec_mut(&mut self, id: RecId) -> &mut Record {
        &mut self.ctx.rk.records[id as usize]
    }

    fn ty_str(&self, t: &RecTy) -> String {
        t.display(&self.ctx.rk)
    }

    fn s(&self, i: &Init) -> String {
        to_string(&self.ctx.rk, i)
    }

    fn push_record(&mut self, mut rec: Record) -> RecId {
        let id = self.ctx.rk.records.len() as RecId;
        rec.id = id;
        self.ctx.rk.records.push(rec);
        id
    }

    fn cur_info(&self, id: Option<RecId>) -> Option<CurRec> {
        id.map(|id| {
            let r = self.rec(id);
            CurRec {
                id: Some(id),
                name: r.name_init.clone(),
                span: r.span,
            }
        })
    }

    fn fold_in(&mut self, i: Init, cur: Option<RecId>) -> Init {
        let c = self.cur_info(cur);
        fold(&mut self.ctx, &i, c.as_ref(), false)
    }

    // -----------------------------------------------------------------
    // Top level

    /// Evaluates every statement of the root file.
    pub fn run(&mut self) {
        let root = self.loaded.root;
        self.top_file(root);
    }

    /// Evaluates the statements of file `f`, dropping each once evaluated:
    /// what a statement defines lives on in records, so the AST of a full
    /// target (tens of megabytes) never stays whole through evaluation.
    fn top_file(&mut self, f: syntax::FileId) {
        let loaded = self.loaded;
        let mut stmts = loaded.statements(f);
        loop {
            let start = std::time::Instant::now();
            let next = stmts.next();
            loaded.waited.set(loaded.waited.get() + start.elapsed());
            let Some(s) = next else { break };
            self.top_stmt(&s);
        }
        if let Some(release) = self.release_memory {
            release();
        }
    }

    fn top_stmt(&mut self, s: &Stmt) {
        if self.ctx.gave_up() {
            return;
        }
        if let Stmt::Include(inc) = s {
            if let Some(f) = inc.file {
                if self.nesting >= MAX_NESTING {
                    self.ctx
                        .report(EvalError::IncludesTooDeep { span: inc.span });
                    return;
                }
                self.nesting += 1;
                self.top_file(f);
                self.nesting -= 1;
            }
            return;
        }
        if self.object(s).is_err() {
            // Recover: forget any partial state of the failed statement.
            self.let_stack.clear();
            self.loops.clear();
            self.cur_mc = None;
            self.scopes.clear();
            self.defsets.clear();
        }
    }

    fn stmt_span(s: &Stmt) -> Span {
        match s {
            Stmt::Include(x) => x.span,
            Stmt::Class(x) => x.span,
            Stmt::Def(x) => x.span,
            Stmt::Defm(x) => x.span,
            Stmt::Multiclass(x) => x.span,
            Stmt::Defset(x) => x.span,
            Stmt::Defvar(x) => x.span,
            Stmt::Foreach(x) => x.span,
            Stmt::If(x) => x.span,
            Stmt::Let(x) => x.span,
            Stmt::Assert(x) => x.span,
        }
    }

    fn object_list(&mut self, stmts: &[Stmt]) -> R<()> {
        for s in stmts {
            self.object(s)?;
        }
        Ok(())
    }

    /// `ParseObject`.
    fn object(&mut self, s: &Stmt) -> R<()> {
        self.ctx.stmt_span = Self::stmt_span(s);
        if self.nesting >= MAX_NESTING {
            return self.fail(EvalError::StatementsTooDeep {
                limit: MAX_NESTING,
                span: Self::stmt_span(s),
            });
        }
        self.nesting += 1;
        let r = self.object_inner(s);
        self.nesting -= 1;
        r
    }

    fn object_inner(&mut self, s: &Stmt) -> R<()> {
        let in_mc = self.cur_mc.is_some();
        match s {
            Stmt::Include(inc) => {
                if let Some(f) = inc.file {
                    let ast = self.loaded.take_ast(f);
                    return self.object_list(&ast.stmts);
                }
                Ok(())
            }
            Stmt::Assert(a) => self.parse_assert(a, None),
            Stmt::Def(d) => self.parse_def(d),
            Stmt::Defm(d) => self.parse_defm(d),
            Stmt::Defvar(d) => self.parse_defvar(d),
            Stmt::Foreach(f) => self.parse_foreach(f),
            Stmt::If(i) => self.parse_if(i),
            Stmt::Let(l) => self.parse_top_let(l),
            Stmt::Defset(d) => {
                if in_mc {
                    return self.not_allowed("defset", "multiclass", d.span);
                }
                self.parse_defset(d)
            }
            Stmt::Class(c) => {
                if in_mc {
                    return self.not_allowed("class", "multiclass", c.span);
                }
                if !self.loops.is_empty() {
                    return self.not_allowed("class", "foreach loop", c.span);
                }
                self.parse_class(c)
            }
            Stmt::Multiclass(m) => {
                if !self.loops.is_empty() {
                    return self.not_allowed("multiclass", "foreach loop", m.span);
                }
                if in_mc {
                    return self.not_allowed("multiclass", "multiclass", m.span);
                }
                self.parse_multiclass(m)
            }
        }
    }

    fn not_allowed<T>(&mut self, what: &'static str, place: &'static str, span: Span) -> R<T> {
        self.fail(EvalError::NotAllowed { what, place, span })
    }

    // -----------------------------------------------------------------
    // Types

    fn parse_type(&mut self, t: &syntax::Type) -> R<RecTy> {
        Ok(match &t.kind {
            TypeKind::Bit => RecTy::Bit,
            TypeKind::Int => RecTy::Int,
            TypeKind::String | TypeKind::Code => RecTy::String,
            TypeKind::Dag => RecTy::Dag,
            TypeKind::Bits(n) => RecTy::Bits(*n),
            TypeKind::List(e) => RecTy::List(Rc::new(self.parse_type(e)?)),
            TypeKind::Class(id) => {
                let c = self.class_id(&id.name, id.span)?;
                class_ty(self.rk(), c)
            }
        })
    }

    fn class_id(&mut self, name: &str, span: Span) -> R<RecId> {
        match self.ctx.class_ids.get(name) {
            Some(&c) => Ok(c),
            None => {
                let is_multiclass = self.multiclasses.contains_key(name);
                let suggestion = if is_multiclass {
                    None
                } else {
                    self.suggest_class(name)
                };
                self.fail(EvalError::UndefinedClass {
                    name: name.to_string(),
                    is_multiclass,
                    suggestion,
                    span,
                })
            }
        }
    }

    fn suggest_class(&self, name: &str) -> Option<String> {
        let lower = name.to_ascii_lowercase();
        // The smallest match, so the suggestion does not depend on hash order.
        self.ctx
            .class_ids
            .keys()
            .filter(|k| k.to_ascii_lowercase() == lower)
            .min()
            .cloned()
    }
}
