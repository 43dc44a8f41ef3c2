//! The evaluator: walks the AST the way llvm-tblgen's parser acts on its
//! token stream, building classes, multiclasses and defs.
//!
//! Statement-level functions return `Err(())` after recording a diagnostic;
//! the top level then moves on to the next statement so that independent
//! errors are all reported.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;
use std::rc::Rc;

use super::init::*;
use super::record::*;
use super::types::{convertible, def_type, resolve_types, type_is_a};
use crate::diag::Diagnostic;
use crate::syntax::{self, BangOp, Expr, ExprKind, Loaded, RangePiece, Span, Stmt, TypeKind};

type R<T> = Result<T, ()>;

/// Largest number of iterations one `foreach` (or range) may produce.
pub const MAX_RANGE: usize = 1 << 20;
/// Deepest nesting of statements (includes, lets, loops).
pub const MAX_NESTING: u32 = 256;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Value,
    Name,
}

struct LetRecord {
    name: Rc<str>,
    bits: Vec<u32>,
    bits_span: Span,
    value: Init,
    value_span: Span,
    span: Span,
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
    multiclass_ids: HashSet<RecId>,
    let_stack: Vec<Vec<LetRecord>>,
    loops: Vec<ForeachLoop>,
    /// The multiclass being defined: its record and entries so far.
    cur_mc: Option<(String, RecId, Vec<Entry>)>,
    scopes: Vec<Vec<(String, Init)>>,
    defsets: Vec<Defset>,
    extra_globals: BTreeMap<String, Init>,
    /// Template arguments referenced (for the unused-argument warning).
    used_targs: HashSet<(RecId, Rc<str>)>,
    nesting: u32,
}

fn sp(e: &Expr) -> Span {
    e.span
}

impl<'a> Evaluator<'a> {
    pub fn new(loaded: &'a Loaded) -> Self {
        Evaluator {
            ctx: Ctx::default(),
            loaded,
            multiclasses: HashMap::default(),
            multiclass_ids: HashSet::default(),
            let_stack: Vec::new(),
            loops: Vec::new(),
            cur_mc: None,
            scopes: Vec::new(),
            defsets: Vec::new(),
            extra_globals: BTreeMap::new(),
            used_targs: HashSet::default(),
            nesting: 0,
        }
    }

    fn err<T>(&mut self, span: Span, msg: impl Into<String>) -> R<T> {
        self.ctx
            .errors
            .push(Diagnostic::error("regdesc::eval", msg, Some(span)));
        Err(())
    }

    fn err_code<T>(&mut self, code: &'static str, span: Span, msg: impl Into<String>) -> R<T> {
        self.ctx
            .errors
            .push(Diagnostic::error(code, msg, Some(span)));
        Err(())
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
                is_class: r.is_class,
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
        let ast = self.loaded.ast(root);
        for s in &ast.stmts {
            self.top_stmt(s);
        }
    }

    fn top_stmt(&mut self, s: &'a Stmt) {
        if let Stmt::Include(inc) = s {
            if let Some(f) = inc.file {
                if self.nesting >= MAX_NESTING {
                    let _: R<()> = self.err(inc.span, "include nesting is too deep");
                    return;
                }
                self.nesting += 1;
                let ast = self.loaded.ast(f);
                for s in &ast.stmts {
                    self.top_stmt(s);
                }
                self.nesting -= 1;
            }
            return;
        }
        if self.object(s, false).is_err() {
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

    fn object_list(&mut self, stmts: &'a [Stmt]) -> R<()> {
        for s in stmts {
            self.object(s, true)?;
        }
        Ok(())
    }

    /// `ParseObject`.
    fn object(&mut self, s: &'a Stmt, nested: bool) -> R<()> {
        self.ctx.stmt_span = Self::stmt_span(s);
        if self.nesting >= MAX_NESTING {
            return self.err(
                Self::stmt_span(s),
                format!("statements nest more than {MAX_NESTING} levels deep"),
            );
        }
        self.nesting += 1;
        let r = self.object_inner(s, nested);
        self.nesting -= 1;
        r
    }

    fn object_inner(&mut self, s: &'a Stmt, _nested: bool) -> R<()> {
        let in_mc = self.cur_mc.is_some();
        match s {
            Stmt::Include(inc) => {
                if let Some(f) = inc.file {
                    let ast = self.loaded.ast(f);
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
                    return self.err(d.span, "defset is not allowed inside multiclass");
                }
                self.parse_defset(d)
            }
            Stmt::Class(c) => {
                if in_mc {
                    return self.err(c.span, "class is not allowed inside multiclass");
                }
                if !self.loops.is_empty() {
                    return self.err(c.span, "class is not allowed inside foreach loop");
                }
                self.parse_class(c)
            }
            Stmt::Multiclass(m) => {
                if !self.loops.is_empty() {
                    return self.err(m.span, "multiclass is not allowed inside foreach loop");
                }
                if in_mc {
                    return self.err(m.span, "multiclass is not allowed inside multiclass");
                }
                self.parse_multiclass(m)
            }
        }
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
                let mut d = Diagnostic::error(
                    "regdesc::eval::undefined-class",
                    format!("Couldn't find class '{name}'"),
                    Some(span),
                )
                .with_label("not a class");
                if self.multiclasses.contains_key(name) {
                    d = d.with_help(format!(
                        "`{name}` is a multiclass: instantiate it with `defm`"
                    ));
                } else if let Some(sugg) = self.suggest_class(name) {
                    d = d.with_help(format!("did you mean `{sugg}`?"));
                }
                self.ctx.errors.push(d);
                Err(())
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

    // -----------------------------------------------------------------
    // Records: values, lets, subclasses

    /// `AddValue`.
    fn add_value(&mut self, rec: &mut Record, span: Span, rv: RecordVal) -> R<()> {
        if let Some(k) = rec.values.iter().position(|v| v.name == rv.name) {
            let ty = rec.values[k].ty.clone();
            match set_value_cast(&mut self.ctx, &rv.value, &ty) {
                Some(v) => rec.values[k].value = v,
                None => {
                    let msg = format!(
                        "New definition of '{}' of type '{}' is incompatible with previous definition of type '{}'",
                        rv.name,
                        self.ty_str(&rv.ty),
                        self.ty_str(&ty)
                    );
                    return self.err_code("regdesc::eval::type", span, msg);
                }
            }
        } else {
            let mut rv = rv;
            if let (RecTy::Bits(n), InitKind::Unset) = (&rv.ty, &*rv.value) {
                rv.value = bits(vec![Init::unset(); *n as usize]);
            }
            rec.values.push(rv);
        }
        Ok(())
    }

    /// `SetValue`.
    #[allow(clippy::too_many_arguments)]
    fn set_value(
        &mut self,
        rec: &mut Record,
        span: Span,
        name: &str,
        bitlist: &[u32],
        bits_span: Span,
        v: Init,
        value_span: Span,
        allow_self: bool,
    ) -> R<()> {
        let Some(k) = rec.values.iter().position(|x| &*x.name == name) else {
            return self.err_code(
                "regdesc::eval::unknown-field",
                span,
                format!("Value '{name}' unknown!"),
            );
        };
        if bitlist.is_empty() {
            if let InitKind::Var { name: vn, .. } = &*v {
                if vn.as_str() == Some(name) && !allow_self {
                    return self.err(span, "Recursion / self-assignment forbidden");
                }
            }
        }
        let mut v = v;
        if !bitlist.is_empty() {
            let cur = rec.values[k].value.clone();
            let InitKind::Bits(curbits) = &*cur else {
                return self.err_code(
                    "regdesc::eval::type",
                    span,
                    format!("Value '{name}' is not a bits type"),
                );
            };
            let Some(bi) = cast_to(&mut self.ctx, &v, &RecTy::Bits(bitlist.len() as u32)) else {
                return self.err_code(
                    "regdesc::eval::type",
                    span,
                    "Initializer is not compatible with bit range",
                );
            };
            let mut newbits: Vec<Option<Init>> = vec![None; curbits.len()];
            for (i, &b) in bitlist.iter().enumerate() {
                let Some(slot) = newbits.get_mut(b as usize) else {
                    return self.err_code(
                        "regdesc::eval::bit-range",
                        bits_span,
                        format!("Invalid bit range for value: bit #{b} of '{name}' does not exist (it has {} bits)", curbits.len()),
                    );
                };
                if slot.is_some() {
                    return self.err(
                        span,
                        format!("Cannot set bit #{b} of value '{name}' more than once"),
                    );
                }
                *slot = Some(get_bit(&self.ctx.rk, &bi, i as u32));
            }
            let nb: Vec<Init> = newbits
                .into_iter()
                .enumerate()
                .map(|(i, b)| b.unwrap_or_else(|| curbits[i].clone()))
                .collect();
            v = bits(nb);
        }
        let ty = rec.values[k].ty.clone();
        match set_value_cast(&mut self.ctx, &v, &ty) {
            Some(nv) => {
                rec.values[k].value = nv;
                rec.values[k].span = value_span;
                Ok(())
            }
            None => {
                let it = match &*v {
                    InitKind::Bits(b) => {
                        format!("' of type bit initializer with length {}", b.len())
                    }
                    _ => match type_of(self.rk(), &v) {
                        Some(t) => format!("' of type '{}", self.ty_str(&t)),
                        None => String::new(),
                    },
                };
                let msg = format!(
                    "Field '{name}' of type '{}' is incompatible with value '{}{it}'",
                    self.ty_str(&ty),
                    self.s(&v)
                );
                self.err_code("regdesc::eval::type", value_span, msg)
            }
        }
    }

    /// `AddSubClass`.
    fn add_subclass(&mut self, rec: &mut Record, sc_ref: &SubClassRef) -> R<()> {
        let sc = self.rec(sc_ref.rec);
        let sc_values = sc.values.clone();
        let sc_targs = sc.template_args.clone();
        let sc_supers = sc.superclasses.clone();
        let sc_asserts = sc.assertions.clone();
        let sc_name = sc.name.clone();
        let cur = CurRec {
            id: if rec.id != u32::MAX {
                Some(rec.id)
            } else {
                None
            },
            name: rec.name_init.clone(),
            span: rec.span,
            is_class: rec.is_class,
        };
        let mut r = MapResolver::new(Some(cur.clone()));
        for f in sc_values {
            if f.is_template_arg {
                r.set_str(f.name.clone(), f.value);
            } else {
                self.add_value(rec, sc_ref.span, f)?;
            }
        }
        for (i, ta) in sc_targs.iter().enumerate() {
            if i < sc_ref.args.len() {
                r.set_str(ta.clone(), sc_ref.args[i].clone());
            } else if !r.get_str(ta).is_some_and(is_complete) {
                let msg = format!(
                    "Value not specified for template argument '{ta}' (#{i}) of parent class '{sc_name}'"
                );
                return self.err_code("regdesc::eval::template-args", sc_ref.span, msg);
            }
        }
        rec.assertions.extend(sc_asserts);
        let name = if rec.is_class {
            var_str(&format!("{}:NAME", rec.name), RecTy::String)
        } else {
            rec.name_init.clone()
        };
        r.set_str(format!("{sc_name}:NAME").into(), name);
        resolve_record(&mut self.ctx, rec, &mut r, &cur);
        for (s, span) in sc_supers {
            if rec.superclasses.iter().any(|(x, _)| *x == s) {
                let n = self.rk().name(s).to_string();
                return self.err(sc_ref.span, format!("Already subclass of '{n}'!\n"));
            }
            rec.superclasses.push((s, span));
        }
        if rec.superclasses.iter().any(|(x, _)| *x == sc_ref.rec) {
            return self.err(sc_ref.span, format!("Already subclass of '{sc_name}'!\n"));
        }
        rec.superclasses.push((sc_ref.rec, sc_ref.span));
        Ok(())
    }

    fn apply_let_stack(&mut self, rec: &mut Record) -> R<()> {
        let stack = std::mem::take(&mut self.let_stack);
        let mut res = Ok(());
        'outer: for level in &stack {
            for lr in level {
                if self
                    .set_value(
                        rec,
                        lr.span,
                        &lr.name,
                        &lr.bits,
                        lr.bits_span,
                        lr.value.clone(),
                        lr.value_span,
                        false,
                    )
                    .is_err()
                {
                    res = Err(());
                    break 'outer;
                }
            }
        }
        self.let_stack = stack;
        res
    }

    fn apply_let_stack_entry(&mut self, e: &mut Entry) -> R<()> {
        match e {
            Entry::Rec(r) => self.apply_let_stack(r),
            Entry::Loop(l) => {
                for e in l.entries.iter_mut() {
                    self.apply_let_stack_entry(e)?;
                }
                Ok(())
            }
            Entry::Assert(_) => Ok(()),
        }
    }

    fn add_subclass_entry(&mut self, e: &mut Entry, sc: &SubClassRef) -> R<()> {
        match e {
            Entry::Rec(r) => self.add_subclass(r, sc),
            Entry::Loop(l) => {
                for e in l.entries.iter_mut() {
                    self.add_subclass_entry(e, sc)?;
                }
                Ok(())
            }
            Entry::Assert(_) => Ok(()),
        }
    }

    /// Takes a record out of the keeper, applies `f`, puts it back.
    fn with_rec<T>(&mut self, id: RecId, f: impl FnOnce(&mut Self, &mut Record) -> R<T>) -> R<T> {
        let mut rec = std::mem::take(&mut self.ctx.rk.records[id as usize]);
        let r = f(self, &mut rec);
        self.ctx.rk.records[id as usize] = rec;
        r
    }

    /// `ParseSubClassReference` for a class (not a multiclass).
    fn subclass_ref(&mut self, cr: &'a syntax::ClassRef, cur: Option<RecId>) -> R<SubClassRef> {
        let c = self.class_id(&cr.name.name, cr.name.span)?;
        let args = self.template_arg_values(&cr.args, cur, c, cr.span, true)?;
        Ok(SubClassRef {
            rec: c,
            args,
            span: cr.span,
        })
    }

    /// `ParseTemplateArgValueList` + `CheckTemplateArgValues`.
    fn template_arg_values(
        &mut self,
        args: &'a [Expr],
        cur: Option<RecId>,
        target: RecId,
        span: Span,
        check_types: bool,
    ) -> R<Vec<Init>> {
        let targs = self.rec(target).template_args.clone();
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            if i >= targs.len() {
                let n = self.rec(target).name.clone();
                let d = Diagnostic::error(
                    "regdesc::eval::template-args",
                    format!("Too many template arguments: {}", i + 1),
                    Some(a.span),
                )
                .with_label("unexpected argument")
                .with_help(format!("`{n}` takes {} template argument(s)", targs.len()));
                self.ctx.errors.push(d);
                return Err(());
            }
            let ty = self.rec(target).value(&targs[i]).map(|v| v.ty.clone());
            let v = self.value(a, cur, ty.as_ref(), Mode::Value)?;
            out.push(v);
        }
        if !check_types {
            return Ok(out);
        }
        // CheckTemplateArgValues
        for (i, v) in out.iter_mut().enumerate() {
            let Some(ty) = self.rec(target).value(&targs[i]).map(|v| v.ty.clone()) else {
                continue;
            };
            if !is_typed(v) {
                continue;
            }
            match cast_to(&mut self.ctx, v, &ty) {
                Some(c) => *v = c,
                None => {
                    let vt = type_of(self.rk(), v)
                        .map(|t| self.ty_str(&t))
                        .unwrap_or_default();
                    let msg = format!(
                        "Value specified for template argument '{}' (#{i}) is of type {vt}; expected type {}: {}",
                        targs[i],
                        self.ty_str(&ty),
                        self.s(v)
                    );
                    return self.err_code("regdesc::eval::type", args.get(i).map_or(span, sp), msg);
                }
            }
        }
        Ok(out)
    }

    // -----------------------------------------------------------------
    // Class

    fn parse_class(&mut self, c: &'a syntax::ClassStmt) -> R<()> {
        let name = c.name.name.clone();
        let id = if let Some(&id) = self.ctx.class_ids.get(&name) {
            let r = self.rec(id);
            if !r.values.is_empty() || !r.superclasses.is_empty() || !r.template_args.is_empty() {
                let prev = r.span;
                self.ctx.errors.push(
                    Diagnostic::error(
                        "regdesc::eval::redefinition",
                        format!("Class '{name}' already defined"),
                        Some(c.name.span),
                    )
                    .with_label("redefined here")
                    .with_related(Some(prev), "previous definition"),
                );
                return Err(());
            }
            id
        } else {
            let rec = Record {
                name: name.clone(),
                name_init: str_init(&name),
                is_class: true,
                span: c.name.span,
                ..Default::default()
            };
            let id = self.push_record(rec);
            self.ctx.class_ids.insert(name.clone(), id);
            id
        };
        if c.is_forward_decl {
            return Ok(());
        }
        self.template_arg_list(&c.targs, Some(id))?;
        self.object_body(&c.body, id)?;
        self.check_unused_targs(id);
        Ok(())
    }

    fn check_unused_targs(&mut self, id: RecId) {
        let r = self.rec(id);
        let mut warns = Vec::new();
        for ta in &r.template_args {
            if !self.used_targs.contains(&(id, ta.clone())) {
                let span = r.value(ta).map(|v| v.span).unwrap_or(r.span);
                warns.push(
                    Diagnostic::warning(
                        "regdesc::eval::unused-template-arg",
                        format!("unused template argument: {ta}"),
                        Some(span),
                    )
                    .with_label("never referenced"),
                );
            }
        }
        self.ctx.warnings.extend(warns);
    }

    /// `ParseTemplateArgList`: `cur` is the class; `None` means the current multiclass.
    fn template_arg_list(&mut self, targs: &'a [syntax::TemplateArg], cur: Option<RecId>) -> R<()> {
        for ta in targs {
            let target = match cur {
                Some(c) => c,
                None => match &self.cur_mc {
                    Some((_, id, _)) => *id,
                    None => return Ok(()),
                },
            };
            let ty = self.parse_type(&ta.ty)?;
            if ta.name.name == "NAME" {
                return self.err(ta.name.span, "'NAME' is a reserved variable name");
            }
            let qname: Rc<str> = match cur {
                Some(c) => format!("{}:{}", self.rec(c).name, ta.name.name).into(),
                None => format!("{}::{}", self.rec(target).name, ta.name.name).into(),
            };
            if self.rec(target).template_args.contains(&qname) {
                return self.err(
                    ta.name.span,
                    "template argument with the same name has already been defined",
                );
            }
            let rv = RecordVal {
                name: qname.clone(),
                ty: ty.clone(),
                value: Init::unset(),
                nonconcrete_ok: false,
                is_template_arg: true,
                span: ta.name.span,
            };
            self.with_rec(target, |ev, rec| ev.add_value(rec, ta.name.span, rv))?;
            if let Some(d) = &ta.default {
                let v = self.value(d, cur, Some(&ty), Mode::Value)?;
                self.with_rec(target, |ev, rec| {
                    ev.set_value(rec, d.span, &qname, &[], d.span, v, d.span, false)
                })?;
            }
            self.rec_mut(target).template_args.push(qname);
        }
        Ok(())
    }

    /// `ParseObjectBody`: parent classes, the let stack, then the body.
    fn object_body(&mut self, body: &'a syntax::RecordBody, id: RecId) -> R<()> {
        for p in &body.parents {
            let scr = self.subclass_ref(p, Some(id))?;
            self.with_rec(id, |ev, rec| ev.add_subclass(rec, &scr))?;
        }
        self.with_rec(id, |ev, rec| ev.apply_let_stack(rec))?;
        self.scopes.push(Vec::new());
        let r = self.body_items(&body.items, id);
        self.scopes.pop();
        r
    }

    fn body_items(&mut self, items: &'a [syntax::BodyItem], id: RecId) -> R<()> {
        for it in items {
            match it {
                syntax::BodyItem::Assert(a) => self.parse_assert(a, Some(id))?,
                syntax::BodyItem::Defvar(d) => self.parse_defvar(d)?,
                syntax::BodyItem::Field {
                    is_field,
                    ty,
                    name,
                    value,
                    ..
                } => {
                    let t = self.parse_type(ty)?;
                    if name.name == "NAME" {
                        return self.err(name.span, "'NAME' is a reserved variable name");
                    }
                    let rv = RecordVal {
                        name: name.name.as_str().into(),
                        ty: t.clone(),
                        value: Init::unset(),
                        nonconcrete_ok: *is_field,
                        is_template_arg: false,
                        span: name.span,
                    };
                    self.with_rec(id, |ev, rec| ev.add_value(rec, name.span, rv))?;
                    if let Some(v) = value {
                        let val = self.value(v, Some(id), Some(&t), Mode::Value)?;
                        self.with_rec(id, |ev, rec| {
                            ev.set_value(rec, v.span, &name.name, &[], v.span, val, v.span, false)
                        })?;
                    }
                }
                syntax::BodyItem::Let(l) => {
                    let bits_span = Self::ranges_span(l.bits.as_deref()).unwrap_or(l.name.span);
                    let mut bl = match &l.bits {
                        Some(r) => self.range_list(r)?,
                        None => Vec::new(),
                    };
                    bl.reverse();
                    let Some(fty) = self.rec(id).value(&l.name.name).map(|v| v.ty.clone()) else {
                        let d = Diagnostic::error(
                            "regdesc::eval::unknown-field",
                            format!("Value '{}' unknown!", l.name.name),
                            Some(l.name.span),
                        )
                        .with_label("no such field in this record")
                        .with_help("declare the field (`Type name;`) in the record or one of its classes before `let`");
                        self.ctx.errors.push(d);
                        return Err(());
                    };
                    let ty = if !bl.is_empty() && matches!(fty, RecTy::Bits(_)) {
                        RecTy::Bits(bl.len() as u32)
                    } else {
                        fty
                    };
                    let val = self.value(&l.value, Some(id), Some(&ty), Mode::Value)?;
                    self.with_rec(id, |ev, rec| {
                        ev.set_value(
                            rec,
                            l.name.span,
                            &l.name.name,
                            &bl,
                            bits_span,
                            val,
                            l.value.span,
                            false,
                        )
                    })?;
                }
            }
        }
        Ok(())
    }

    // -----------------------------------------------------------------
    // Def

    fn object_name(&mut self, name: &'a Option<Expr>) -> R<Option<Init>> {
        let Some(e) = name else {
            return Ok(None);
        };
        let mc = self.cur_mc.as_ref().map(|m| (m.0.clone(), m.1));
        let v = self.value(
            e,
            mc.as_ref().map(|m| m.1),
            Some(&RecTy::String),
            Mode::Name,
        )?;
        if let Some((mcname, _)) = mc {
            let nm = str_init(&format!("{mcname}::NAME"));
            let mut h = HasReferenceResolver {
                name: nm.clone(),
                found: false,
            };
            resolve(&mut self.ctx, &v, &mut h);
            if !h.found {
                return Ok(Some(str_concat(&mut self.ctx, var(nm, RecTy::String), v)));
            }
        }
        Ok(Some(v))
    }

    fn parse_def(&mut self, d: &'a syntax::DefStmt) -> R<()> {
        let name = self.object_name(&d.name)?;
        let span = d.name.as_ref().map_or(d.span, sp);
        let (name_init, anon) = match name {
            Some(n) if !n.is_unset() => (n, false),
            _ => (self.ctx.new_anonymous_name(), true),
        };
        let rec = Record {
            name: unquoted(self.rk(), &name_init),
            name_init,
            is_anonymous: anon,
            span,
            ..Default::default()
        };
        let id = self.push_record(rec);
        self.object_body(&d.body, id)?;
        let rec = std::mem::take(&mut self.ctx.rk.records[id as usize]);
        self.add_entry(Entry::Rec(Box::new(rec)))
    }

    fn add_entry(&mut self, e: Entry) -> R<()> {
        if let Some(l) = self.loops.last_mut() {
            l.entries.push(e);
            return Ok(());
        }
        match e {
            Entry::Loop(lp) => {
                let is_final = self.cur_mc.is_none();
                let mut dest = Vec::new();
                let mut substs = Vec::new();
                let r = self.resolve_loop(
                    &lp,
                    &mut substs,
                    is_final,
                    if is_final { None } else { Some(&mut dest) },
                    None,
                );
                if let Some(mc) = self.cur_mc.as_mut() {
                    mc.2.extend(dest);
                }
                r
            }
            e => {
                if let Some(mc) = self.cur_mc.as_mut() {
                    mc.2.push(e);
                    return Ok(());
                }
                match e {
                    Entry::Assert(a) => {
                        check_assert(&mut self.ctx, a.span, &a.cond, &a.message);
                        Ok(())
                    }
                    Entry::Rec(r) => self.add_def_one(*r),
                    Entry::Loop(_) => Ok(()),
                }
            }
        }
    }

    fn add_def_one(&mut self, mut rec: Record) -> R<()> {
        let mut new_name = None;
        if let Some(&prev) = self.ctx.def_ids.get(&rec.name) {
            if !rec.is_anonymous {
                let prev_span = self.rec(prev).span;
                let d = Diagnostic::error(
                    "regdesc::eval::redefinition",
                    format!("def already exists: {}", rec.name),
                    Some(rec.span),
                )
                .with_label("redefined here")
                .with_related(Some(prev_span), "location of previous definition");
                let d = rec
                    .instantiated_from
                    .iter()
                    .fold(d, |d, s| d.with_related(Some(*s), "instantiated from here"));
                self.ctx.errors.push(d);
                return Err(());
            }
            new_name = Some(self.ctx.new_anonymous_name());
        }
        rec.is_class = false;
        let cur = CurRec {
            id: None,
            name: rec.name_init.clone(),
            span: rec.span,
            is_class: false,
        };
        let id = self.push_record(rec);
        let cur = CurRec {
            id: Some(id),
            ..cur
        };
        let nerr = self.ctx.errors.len();
        resolve_record_final(&mut self.ctx, id, new_name, cur);
        self.check_concrete(id);
        if !matches!(&*self.rec(id).name_init, InitKind::String { .. }) {
            let s = self.s(&self.rec(id).name_init.clone());
            let span = self.rec(id).span;
            return self.err(
                span,
                format!("record name '{s}' could not be fully resolved"),
            );
        }
        check_record_assertions(&mut self.ctx, id);
        let def = Init::def(id);
        let dt = def_type(self.rk(), id);
        for k in 0..self.defsets.len() {
            if !type_is_a(self.rk(), &dt, &self.defsets[k].elt_ty) {
                let msg = format!(
                    "adding record of incompatible type '{}' to defset",
                    self.ty_str(&dt)
                );
                let span = self.rec(id).span;
                let dspan = self.defsets[k].span;
                self.ctx.errors.push(
                    Diagnostic::error("regdesc::eval::type", msg, Some(span))
                        .with_related(Some(dspan), "location of defset declaration"),
                );
                return Err(());
            }
            self.defsets[k].elems.push(def.clone());
        }
        let name = self.rec(id).name.clone();
        if self.ctx.def_ids.contains_key(&name) {
            let span = self.rec(id).span;
            return self.err(span, format!("Def already exists: {name}"));
        }
        self.ctx.def_ids.insert(name, id);
        if self.ctx.errors.len() > nerr {
            return Err(());
        }
        Ok(())
    }

    fn check_concrete(&mut self, id: RecId) {
        let rec = self.rec(id);
        let mut errs = Vec::new();
        for rv in &rec.values {
            if rv.nonconcrete_ok {
                continue;
            }
            let ok = if let InitKind::Bits(bs) = &*rv.value {
                bs.iter().all(|b| {
                    let is_ref = match &**b {
                        InitKind::VarBit { var, .. } => match &**var {
                            InitKind::Var { name, .. } => {
                                name.as_str().is_some_and(|n| rec.value(n).is_some())
                            }
                            _ => false,
                        },
                        InitKind::Var { .. } => true,
                        _ => false,
                    };
                    is_ref || is_concrete(b)
                })
            } else {
                is_concrete(&rv.value)
            };
            if !ok {
                let mut d = Diagnostic::error(
                    "regdesc::eval::unresolved",
                    format!(
                        "Initializer of '{}' in '{}' could not be fully resolved: {}",
                        rv.name,
                        rec.name,
                        to_string(&self.ctx.rk, &rv.value)
                    ),
                    Some(rv.span),
                )
                .with_label("this value never becomes concrete")
                .with_related(Some(rec.span), format!("in def '{}'", rec.name))
                .with_help("every field of a def must resolve to a concrete value; declare it with `field` to allow otherwise");
                for s in &rec.instantiated_from {
                    d = d.with_related(Some(*s), "instantiated from here");
                }
                errs.push(d);
            }
        }
        self.ctx.errors.extend(errs);
    }

    // -----------------------------------------------------------------
    // Loops and multiclass instantiation

    fn resolve_loop(
        &mut self,
        lp: &ForeachLoop,
        substs: &mut Vec<(Init, Init)>,
        is_final: bool,
        mut dest: Option<&mut Vec<Entry>>,
        loc: Option<Span>,
    ) -> R<()> {
        let mut r = MapResolver::new(None);
        for (k, v) in substs.iter() {
            r.set(k.clone(), v.clone());
        }
        let l = resolve(&mut self.ctx, &lp.list, &mut r);
        let InitKind::List { elems, .. } = &*l else {
            if !is_final {
                if let Some(d) = dest.as_deref_mut() {
                    let mut nl = ForeachLoop {
                        span: lp.span,
                        iter_var: lp.iter_var.clone(),
                        list: l.clone(),
                        entries: Vec::new(),
                    };
                    self.resolve_entries(
                        &lp.entries,
                        substs,
                        is_final,
                        Some(&mut nl.entries),
                        loc,
                    )?;
                    d.push(Entry::Loop(Box::new(nl)));
                    return Ok(());
                }
            }
            let s = self.s(&l);
            return self.err(
                lp.span,
                format!("attempting to loop over '{s}', expected a list"),
            );
        };
        let elems = elems.clone();
        for e in elems {
            let pushed = if let Some(InitKind::Var { name, .. }) = lp.iter_var.as_deref() {
                substs.push((name.clone(), e));
                true
            } else {
                false
            };
            let res = self.resolve_entries(&lp.entries, substs, is_final, dest.as_deref_mut(), loc);
            if pushed {
                substs.pop();
            }
            res?;
        }
        Ok(())
    }

    fn resolve_entries(
        &mut self,
        src: &[Entry],
        substs: &mut Vec<(Init, Init)>,
        is_final: bool,
        mut dest: Option<&mut Vec<Entry>>,
        loc: Option<Span>,
    ) -> R<()> {
        for e in src {
            match e {
                Entry::Loop(l) => {
                    self.resolve_loop(l, substs, is_final, dest.as_deref_mut(), loc)?
                }
                Entry::Assert(a) => {
                    let mut r = MapResolver::new(None);
                    for (k, v) in substs.iter() {
                        r.set(k.clone(), v.clone());
                    }
                    let c = resolve(&mut self.ctx, &a.cond, &mut r);
                    let m = resolve(&mut self.ctx, &a.message, &mut r);
                    match dest.as_deref_mut() {
                        Some(d) => d.push(Entry::Assert(AssertionInfo {
                            span: a.span,
                            cond: c,
                            message: m,
                        })),
                        None => check_assert(&mut self.ctx, a.span, &c, &m),
                    }
                }
                Entry::Rec(rec) => {
                    self.ctx.expanded += 1;
                    if self.ctx.expanded > MAX_RECORDS {
                        let d = Diagnostic::error(
                            "regdesc::eval::limit",
                            format!("expanding loops and multiclasses made more than {MAX_RECORDS} records"),
                            Some(rec.span),
                        )
                        .with_label("while expanding this record")
                        .with_help("nested `foreach` loops multiply; shrink their ranges");
                        self.ctx.errors.push(d);
                        return Err(());
                    }
                    let mut rec: Record = (**rec).clone();
                    if let Some(l) = loc {
                        rec.instantiated_from.push(l);
                    }
                    let cur = CurRec {
                        id: None,
                        name: rec.name_init.clone(),
                        span: rec.span,
                        is_class: false,
                    };
                    let mut r = MapResolver::new(Some(cur.clone()));
                    for (k, v) in substs.iter() {
                        r.set(k.clone(), v.clone());
                    }
                    resolve_record(&mut self.ctx, &mut rec, &mut r, &cur);
                    match dest.as_deref_mut() {
                        Some(d) => d.push(Entry::Rec(Box::new(rec))),
                        None => self.add_def_one(rec)?,
                    }
                }
            }
        }
        Ok(())
    }

    fn mc_args(
        &mut self,
        substs: &mut Vec<(Init, Init)>,
        mc_rec: RecId,
        args: &[Init],
        defm_name: Init,
        span: Span,
    ) -> R<()> {
        let rec = self.rec(mc_rec).clone();
        for (i, ta) in rec.template_args.iter().enumerate() {
            if i < args.len() {
                substs.push((str_init(ta), args[i].clone()));
            } else {
                let d = rec.get(ta).cloned().unwrap_or_else(Init::unset);
                if !is_complete(&d) {
                    return self.err_code(
                        "regdesc::eval::template-args",
                        span,
                        format!(
                            "value not specified for template argument '{}' (#{i}) of multiclass '{}'",
                            ta, rec.name
                        ),
                    );
                }
                substs.push((str_init(ta), d));
            }
        }
        substs.push((str_init(&format!("{}::NAME", rec.name)), defm_name));
        Ok(())
    }

    fn multiclass_ref(
        &mut self,
        cr: &'a syntax::ClassRef,
        cur: Option<RecId>,
        check_types: bool,
    ) -> R<(Rc<MultiClass>, Vec<Init>)> {
        let Some(mc) = self.multiclasses.get(&cr.name.name).cloned() else {
            let mut d = Diagnostic::error(
                "regdesc::eval::undefined-multiclass",
                format!("Couldn't find multiclass '{}'", cr.name.name),
                Some(cr.name.span),
            )
            .with_label("not a multiclass");
            if self.ctx.class_ids.contains_key(&cr.name.name) {
                d = d.with_help(
                    "a defm must name a multiclass first; classes may only follow the multiclasses",
                );
            }
            self.ctx.errors.push(d);
            return Err(());
        };
        let args = self.template_arg_values(&cr.args, cur, mc.rec, cr.span, check_types)?;
        Ok((mc, args))
    }

    fn parse_defm(&mut self, d: &'a syntax::DefmStmt) -> R<()> {
        let name = self.object_name(&d.name)?;
        let defm_name = match name {
            Some(n) if !n.is_unset() => n,
            _ => {
                let a = self.ctx.new_anonymous_name();
                match &self.cur_mc {
                    Some((mcname, _, _)) => {
                        let v = var_str(&format!("{mcname}::NAME"), RecTy::String);
                        str_concat(&mut self.ctx, v, a)
                    }
                    None => a,
                }
            }
        };
        let mut new_entries: Vec<Entry> = Vec::new();
        let mut idx = 0;
        let Some(first) = d.parents.first() else {
            return self.err(d.span, "expected ':' after defm identifier");
        };
        let mut cr = first;
        loop {
            let (mc, args) = self.multiclass_ref(cr, None, true)?;
            let mut substs = Vec::new();
            self.mc_args(&mut substs, mc.rec, &args, defm_name.clone(), cr.span)?;
            let is_final = self.cur_mc.is_none() && self.loops.is_empty();
            self.resolve_entries(
                &mc.entries,
                &mut substs,
                is_final,
                Some(&mut new_entries),
                Some(cr.span),
            )?;
            idx += 1;
            if idx >= d.parents.len() {
                break;
            }
            cr = &d.parents[idx];
            if self.ctx.class_ids.contains_key(&cr.name.name) {
                break;
            }
        }
        while idx < d.parents.len() {
            let scr = self.subclass_ref(&d.parents[idx], None)?;
            for e in new_entries.iter_mut() {
                self.add_subclass_entry(e, &scr)?;
            }
            idx += 1;
        }
        for mut e in new_entries {
            self.apply_let_stack_entry(&mut e)?;
            self.add_entry(e)?;
        }
        Ok(())
    }

    fn parse_multiclass(&mut self, m: &'a syntax::MulticlassStmt) -> R<()> {
        let name = m.name.name.clone();
        if self.multiclasses.contains_key(&name) {
            return self.err_code(
                "regdesc::eval::redefinition",
                m.name.span,
                format!("multiclass '{name}' already defined"),
            );
        }
        let rec = Record {
            name: name.clone(),
            name_init: str_init(&name),
            span: m.name.span,
            ..Default::default()
        };
        let id = self.push_record(rec);
        self.multiclass_ids.insert(id);
        self.cur_mc = Some((name.clone(), id, Vec::new()));
        let r = self.multiclass_inner(m, id);
        let entries = self.cur_mc.take().map(|m| m.2).unwrap_or_default();
        // Register even on error, so later references do not cascade.
        self.multiclasses
            .insert(name, Rc::new(MultiClass { rec: id, entries }));
        r?;
        self.check_unused_targs(id);
        Ok(())
    }

    fn multiclass_inner(&mut self, m: &'a syntax::MulticlassStmt, id: RecId) -> R<()> {
        self.template_arg_list(&m.targs, None)?;
        for p in &m.parents {
            let (smc, args) = self.multiclass_ref(p, Some(id), false)?;
            let mut substs = Vec::new();
            let nm = var_str(&format!("{}::NAME", m.name.name), RecTy::String);
            self.mc_args(&mut substs, smc.rec, &args, nm, p.span)?;
            let mut dest = Vec::new();
            self.resolve_entries(&smc.entries, &mut substs, false, Some(&mut dest), None)?;
            if let Some(mc) = self.cur_mc.as_mut() {
                mc.2.extend(dest);
            }
        }
        if m.body.is_empty() && m.parents.is_empty() {
            return self.err(m.span, "multiclass must contain at least one def");
        }
        self.scopes.push(Vec::new());
        let mut r = Ok(());
        for s in &m.body {
            match s {
                Stmt::Assert(_)
                | Stmt::Def(_)
                | Stmt::Defm(_)
                | Stmt::Defvar(_)
                | Stmt::Foreach(_)
                | Stmt::If(_)
                | Stmt::Let(_)
                | Stmt::Include(_) => {
                    if self.object(s, true).is_err() {
                        r = Err(());
                        break;
                    }
                }
                other => {
                    let _: R<()> = self.err(
                        Self::stmt_span(other),
                        "expected 'assert', 'def', 'defm', 'defvar', 'foreach', 'if', or 'let' in multiclass body",
                    );
                    r = Err(());
                    break;
                }
            }
        }
        self.scopes.pop();
        r
    }

    // -----------------------------------------------------------------
    // Other statements

    fn parse_defset(&mut self, d: &'a syntax::DefsetStmt) -> R<()> {
        let t = self.parse_type(&d.ty)?;
        let RecTy::List(elt) = t else {
            return self.err(d.ty.span, "expected list type");
        };
        if self.get_global(&d.name.name).is_some() {
            return self.err(
                d.name.span,
                "def or global variable of this name already exists",
            );
        }
        self.defsets.push(Defset {
            elt_ty: (*elt).clone(),
            elems: Vec::new(),
            span: d.ty.span,
        });
        let r = self.object_list(&d.body);
        let ds = self.defsets.pop();
        r?;
        if let Some(ds) = ds {
            self.extra_globals
                .insert(d.name.name.clone(), list(ds.elems, ds.elt_ty));
        }
        Ok(())
    }

    fn parse_defvar(&mut self, d: &'a syntax::Defvar) -> R<()> {
        let name = &d.name.name;
        if let Some(scope) = self.scopes.last() {
            if scope.iter().any(|(n, _)| n == name) {
                return self.err(d.name.span, "local variable of this name already exists");
            }
        } else if self.get_global(name).is_some() {
            return self.err(
                d.name.span,
                "def or global variable of this name already exists",
            );
        }
        let v = self.value(&d.value, None, None, Mode::Value)?;
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.clone(), v));
        } else {
            self.extra_globals.insert(name.clone(), v);
        }
        Ok(())
    }

    fn get_global(&self, name: &str) -> Option<Init> {
        if let Some(&d) = self.ctx.def_ids.get(name) {
            return Some(Init::def(d));
        }
        self.extra_globals.get(name).cloned()
    }

    fn parse_assert(&mut self, a: &'a syntax::Assert, cur: Option<RecId>) -> R<()> {
        let c = self.value(&a.cond, cur, None, Mode::Value)?;
        let m = self.value(&a.message, cur, None, Mode::Value)?;
        let info = AssertionInfo {
            span: a.cond.span,
            cond: c,
            message: m,
        };
        match cur {
            Some(id) => {
                self.rec_mut(id).assertions.push(info);
                Ok(())
            }
            None => self.add_entry(Entry::Assert(info)),
        }
    }

    fn parse_foreach(&mut self, f: &'a syntax::ForeachStmt) -> R<()> {
        let (iter, list_v) = self.foreach_decl(f)?;
        self.loops.push(ForeachLoop {
            span: f.span,
            iter_var: Some(iter),
            list: list_v,
            entries: Vec::new(),
        });
        self.scopes.push(Vec::new());
        let r = self.object_list(&f.body);
        self.scopes.pop();
        let lp = self.loops.pop();
        r?;
        match lp {
            Some(lp) => self.add_entry(Entry::Loop(Box::new(lp))),
            None => Ok(()),
        }
    }

    fn foreach_decl(&mut self, f: &'a syntax::ForeachStmt) -> R<(Init, Init)> {
        let name = str_init(&f.var.name);
        let mut ranges = Vec::new();
        match &f.iter {
            syntax::ForeachIter::Ranges(r) => {
                ranges = self.range_list(r)?;
            }
            syntax::ForeachIter::Value(e) => {
                let v = self.value(e, None, None, Mode::Value)?;
                match type_of(self.rk(), &v) {
                    Some(RecTy::List(elt)) => {
                        return Ok((var(name, (*elt).clone()), v));
                    }
                    Some(_) => {
                        let InitKind::Int(x) = &*v else {
                            return self.err(e.span, "expected integer or bitrange");
                        };
                        if *x < 0 {
                            return self.err(e.span, "invalid range, cannot be negative");
                        }
                        ranges.push(*x as u32);
                    }
                    None => {
                        let s = self.s(&v);
                        return self.err(e.span, format!("expected a list, got '{s}'"));
                    }
                }
            }
        }
        let vals = ranges.into_iter().map(|x| Init::int(x as i64)).collect();
        Ok((var(name, RecTy::Int), list(vals, RecTy::Int)))
    }

    fn parse_if(&mut self, i: &'a syntax::IfStmt) -> R<()> {
        let cond = self.value(&i.cond, None, None, Mode::Value)?;
        let single = list(vec![Init::bit(true)], RecTy::Bit);
        let empty = list(vec![], RecTy::Bit);
        let blt = RecTy::Bit.list_of();
        for (body, then) in [(Some(&i.then_body), true), (i.else_body.as_ref(), false)] {
            let Some(body) = body else { continue };
            let (a, b) = if then {
                (single.clone(), empty.clone())
            } else {
                (empty.clone(), single.clone())
            };
            let t: Init = InitKind::TernOp {
                op: TernOp::If,
                a: cond.clone(),
                b: a,
                c: b,
                ty: blt.clone(),
            }
            .into();
            let l = fold(&mut self.ctx, &t, None, false);
            self.loops.push(ForeachLoop {
                span: i.span,
                iter_var: None,
                list: l,
                entries: Vec::new(),
            });
            self.scopes.push(Vec::new());
            let r = self.object_list(body);
            self.scopes.pop();
            let lp = self.loops.pop();
            r?;
            if let Some(lp) = lp {
                self.add_entry(Entry::Loop(Box::new(lp)))?;
            }
        }
        Ok(())
    }

    fn parse_top_let(&mut self, l: &'a syntax::LetStmt) -> R<()> {
        let mut recs = Vec::new();
        for it in &l.items {
            let mut bl = match &it.bits {
                Some(r) => self.range_list(r)?,
                None => Vec::new(),
            };
            bl.reverse();
            let v = self.value(&it.value, None, None, Mode::Value)?;
            recs.push(LetRecord {
                name: it.name.name.as_str().into(),
                bits: bl,
                bits_span: Self::ranges_span(it.bits.as_deref()).unwrap_or(it.name.span),
                value: v,
                value_span: it.value.span,
                span: it.name.span,
            });
        }
        self.let_stack.push(recs);
        self.scopes.push(Vec::new());
        let r = self.object_list(&l.body);
        self.scopes.pop();
        self.let_stack.pop();
        r
    }

    // -----------------------------------------------------------------
    // Ranges

    fn ranges_span(r: Option<&[RangePiece]>) -> Option<Span> {
        let r = r?;
        let first = r.first()?.span;
        Some(r.iter().fold(first, |a, p| a.to(p.span)))
    }

    fn range_list(&mut self, pieces: &'a [RangePiece]) -> R<Vec<u32>> {
        let mut out = Vec::new();
        for p in pieces {
            let s = self.value(&p.start, None, None, Mode::Value)?;
            let InitKind::Int(start) = &*s else {
                return self.err(p.start.span, "expected integer or bitrange");
            };
            let start = *start;
            if start < 0 {
                return self.err(p.start.span, "invalid range, cannot be negative");
            }
            let Some(end_e) = &p.end else {
                out.push(start as u32);
                continue;
            };
            let e = self.value(end_e, None, None, Mode::Value)?;
            let InitKind::Int(end) = &*e else {
                return self.err(end_e.span, "expected integer value as end of range");
            };
            let end = *end;
            if end < 0 {
                return self.err(end_e.span, "invalid range, cannot be negative");
            }
            let count = (start - end).unsigned_abs() as usize + 1;
            if count + out.len() > MAX_RANGE || start > u32::MAX as i64 || end > u32::MAX as i64 {
                return self.err_code(
                    "regdesc::eval::limit",
                    p.span,
                    format!("range {start}-{end} has {count} elements; regdesc allows at most {MAX_RANGE}"),
                );
            }
            if start < end {
                out.extend((start..=end).map(|x| x as u32));
            } else {
                out.extend((end..=start).rev().map(|x| x as u32));
            }
        }
        Ok(out)
    }

    // -----------------------------------------------------------------
    // Values

    fn id_value(&mut self, name: &str, span: Span, cur: Option<RecId>, mode: Mode) -> R<Init> {
        if let Some(c) = cur {
            if let Some(v) = self.rec(c).value(name) {
                let n: Init = InitKind::String {
                    value: v.name.clone(),
                    code: false,
                }
                .into();
                return Ok(var(n, v.ty.clone()));
            }
        }
        let cur_is_class = cur.is_some_and(|c| self.rec(c).is_class);
        if cur_is_class || self.cur_mc.is_some() {
            let (tname, trec) = match &self.cur_mc {
                Some((mcname, mcid, _)) => (format!("{mcname}::{name}"), *mcid),
                None => {
                    let c = cur.unwrap_or_default();
                    (format!("{}:{}", self.rec(c).name, name), c)
                }
            };
            let ta = self
                .rec(trec)
                .template_args
                .iter()
                .find(|t| ***t == *tname)
                .cloned();
            if let Some(ta) = ta {
                let ty = self
                    .rec(trec)
                    .value(&tname)
                    .map(|v| v.ty.clone())
                    .unwrap_or(RecTy::Int);
                self.used_targs.insert((trec, ta.clone()));
                let n: Init = InitKind::String {
                    value: ta,
                    code: false,
                }
                .into();
                return Ok(var(n, ty));
            } else if name == "NAME" {
                return Ok(var_str(&tname, RecTy::String));
            }
        }
        for scope in self.scopes.iter().rev() {
            if let Some((_, v)) = scope.iter().rev().find(|(n, _)| n == name) {
                return Ok(v.clone());
            }
        }
        for l in &self.loops {
            if let Some(iv) = &l.iter_var {
                if let InitKind::Var { name: n, .. } = &**iv {
                    if n.as_str() == Some(name) {
                        return Ok(iv.clone());
                    }
                }
            }
        }
        if mode == Mode::Name {
            return Ok(str_init(name));
        }
        if let Some(g) = self.get_global(name) {
            return Ok(g);
        }
        if let Some(c) = cur {
            let r = self.rec(c);
            if !r.is_class && self.cur_mc.is_none() && r.name_init.as_str() == Some(name) {
                let ty = def_type(self.rk(), c);
                let u: Init = InitKind::UnOp {
                    op: UnOp::Cast,
                    arg: str_init(name),
                    ty,
                }
                .into();
                return Ok(self.fold_in(u, cur));
            }
        }
        let mut d = Diagnostic::error(
            "regdesc::eval::undefined",
            format!("Variable not defined: '{name}'"),
            Some(span),
        )
        .with_label("not defined here");
        if name == "NAME" {
            d = d.with_help("`NAME` is only available inside classes and multiclasses");
        } else if self.ctx.class_ids.contains_key(name) {
            d = d.with_help(format!(
                "`{name}` is a class; to make a record of it write `{name}<...>`"
            ));
        }
        self.ctx.errors.push(d);
        Err(())
    }

    /// `ParseValue`.
    fn value(
        &mut self,
        e: &'a Expr,
        cur: Option<RecId>,
        item: Option<&RecTy>,
        mode: Mode,
    ) -> R<Init> {
        if self.ctx.depth >= MAX_DEPTH {
            return self.err_code(
                "regdesc::eval::depth",
                e.span,
                "expression nests too deeply",
            );
        }
        self.ctx.depth += 1;
        let saved = self.ctx.expr_span.replace(e.span);
        let r = stacker::maybe_grow(128 * 1024, 4 << 20, || self.value_inner(e, cur, item, mode));
        self.ctx.expr_span = saved;
        self.ctx.depth -= 1;
        r
    }

    fn value_inner(
        &mut self,
        e: &'a Expr,
        cur: Option<RecId>,
        item: Option<&RecTy>,
        mode: Mode,
    ) -> R<Init> {
        match &e.kind {
            ExprKind::Paste { lhs, rhs } => {
                let l = self.value(lhs, cur, item, mode)?;
                let Some(lt) = type_of(self.rk(), &l) else {
                    return self.err(e.span, "LHS of paste is not typed!");
                };
                if let RecTy::List(_) = lt {
                    let Some(rhs) = rhs else { return Ok(l) };
                    let r = self.value(rhs, cur, item, Mode::Value)?;
                    return Ok(list_concat(&mut self.ctx, l, r));
                }
                let l = if lt != RecTy::String {
                    let u: Init = InitKind::UnOp {
                        op: UnOp::Cast,
                        arg: l,
                        ty: RecTy::String,
                    }
                    .into();
                    self.fold_in(u, cur)
                } else {
                    l
                };
                let r = match rhs {
                    None => str_init(""),
                    Some(rhs) => {
                        let r = self.value(rhs, cur, None, Mode::Name)?;
                        let Some(rt) = type_of(self.rk(), &r) else {
                            return self.err(rhs.span, "RHS of paste is not typed!");
                        };
                        if rt != RecTy::String {
                            let u: Init = InitKind::UnOp {
                                op: UnOp::Cast,
                                arg: r,
                                ty: RecTy::String,
                            }
                            .into();
                            self.fold_in(u, cur)
                        } else {
                            r
                        }
                    }
                };
                Ok(str_concat(&mut self.ctx, l, r))
            }
            ExprKind::BitSlice { base, ranges } => {
                let b = self.value(base, cur, item, mode)?;
                let mut rl = self.range_list(ranges)?;
                rl.reverse();
                match bit_range(self.rk(), &b, &rl) {
                    Some(v) => Ok(v),
                    None => {
                        let d = Diagnostic::error(
                            "regdesc::eval::bit-range",
                            "Invalid bit range for value",
                            Some(e.span),
                        )
                        .with_label(match type_of(self.rk(), &b) {
                            Some(t) => format!("value of type `{}`", self.ty_str(&t)),
                            None => "untyped value".to_string(),
                        });
                        self.ctx.errors.push(d);
                        Err(())
                    }
                }
            }
            ExprKind::ListSlice { base, ranges } => {
                let b = self.value(base, cur, item, mode)?;
                let rl = self.range_list(ranges)?;
                match list_slice(self.rk(), &b, &rl) {
                    Some(v) => Ok(v),
                    None => self.err_code(
                        "regdesc::eval::list-slice",
                        e.span,
                        "Invalid range for list slice",
                    ),
                }
            }
            ExprKind::Field { base, field } => {
                let b = self.value(base, cur, item, mode)?;
                let Some(ft) = field_type(self.rk(), &b, &field.name) else {
                    let s = self.s(&b);
                    let d = Diagnostic::error(
                        "regdesc::eval::unknown-field",
                        format!("Cannot access field '{}' of value '{s}'", field.name),
                        Some(field.span),
                    )
                    .with_label("no such field");
                    self.ctx.errors.push(d);
                    return Err(());
                };
                let f: Init = InitKind::Field {
                    rec: b,
                    field: field.name.as_str().into(),
                    ty: ft,
                }
                .into();
                let c = self.cur_info(cur);
                Ok(fold_field(&mut self.ctx, &f, c.as_ref()))
            }
            _ => self.simple_value(e, cur, item, mode),
        }
    }

    /// `ParseSimpleValue`.
    fn simple_value(
        &mut self,
        e: &'a Expr,
        cur: Option<RecId>,
        item: Option<&RecTy>,
        mode: Mode,
    ) -> R<Init> {
        match &e.kind {
            ExprKind::Int(v) => Ok(Init::int(*v)),
            ExprKind::Bool(b) => Ok(Init::int(*b as i64)),
            ExprKind::BinaryBits(digits) => {
                Ok(bits(digits.iter().rev().map(|b| Init::bit(*b)).collect()))
            }
            ExprKind::Str(s) => Ok(str_init(s)),
            ExprKind::Code(s) => Ok(str_fmt(s.clone(), true)),
            ExprKind::Unset => Ok(Init::unset()),
            ExprKind::Id(id) => self.id_value(&id.name, id.span, cur, mode),
            ExprKind::ClassInst { class, args } => {
                let Some(&c) = self.ctx.class_ids.get(&class.name) else {
                    return self.err_code(
                        "regdesc::eval::undefined-class",
                        class.span,
                        format!("Expected a class name, got '{}'", class.name),
                    );
                };
                let a = self.template_arg_values(args, cur, c, e.span, true)?;
                let targs = self.rec(c).template_args.clone();
                for (i, ta) in targs.iter().enumerate().skip(a.len()) {
                    let complete = self.rec(c).get(ta).is_some_and(is_complete);
                    if !complete {
                        let n = self.rec(c).name.clone();
                        return self.err_code(
                            "regdesc::eval::template-args",
                            class.span,
                            format!("Value not specified for template argument '{ta}' (#{i}) of parent class '{n}'"),
                        );
                    }
                }
                let v: Init = InitKind::VarDef {
                    class: c,
                    args: a,
                    site: e.span,
                }
                .into();
                Ok(fold(&mut self.ctx, &v, None, false))
            }
            ExprKind::Bits(elems) => {
                let mut vals = Vec::new();
                for x in elems {
                    vals.push((self.value(x, cur, None, Mode::Value)?, x.span));
                }
                let mut nb = Vec::new();
                for (i, (v, vspan)) in vals.iter().enumerate() {
                    if let InitKind::Bits(b) = &**v {
                        nb.extend(b.iter().rev().cloned());
                        continue;
                    }
                    if let InitKind::Var {
                        ty: RecTy::Bits(n), ..
                    } = &**v
                    {
                        for k in (0..*n).rev() {
                            nb.push(get_bit(self.rk(), v, k));
                        }
                        continue;
                    }
                    match cast_to(&mut self.ctx, v, &RecTy::Bit) {
                        Some(b) => nb.push(b),
                        None => {
                            let s = self.s(v);
                            return self.err_code(
                                "regdesc::eval::type",
                                *vspan,
                                format!("Element #{i} ({s}) is not convertable to a bit"),
                            );
                        }
                    }
                }
                nb.reverse();
                Ok(bits(nb))
            }
            ExprKind::List { elems, elem_type } => {
                let given = match item {
                    Some(RecTy::List(t)) => Some((**t).clone()),
                    Some(other) => {
                        let s = self.ty_str(other);
                        return self.err_code(
                            "regdesc::eval::type",
                            e.span,
                            format!("Encountered a list when expecting a {s}"),
                        );
                    }
                    None => None,
                };
                let mut vals = Vec::with_capacity(elems.len());
                for x in elems {
                    vals.push(self.value(x, cur, given.as_ref(), Mode::Value)?);
                }
                let given_elt = match elem_type {
                    Some(t) => Some(self.parse_type(t)?),
                    None => None,
                };
                let mut elt: Option<RecTy> = None;
                for (v, x) in vals.iter().zip(elems) {
                    if let Some(t) = type_of(self.rk(), v) {
                        elt = match elt {
                            Some(prev) => match resolve_types(self.rk(), &prev, &t) {
                                Some(x) => Some(x),
                                None => {
                                    let d = Diagnostic::error(
                                        "regdesc::eval::type",
                                        "Incompatible types in list elements",
                                        Some(x.span),
                                    )
                                    .with_label(format!(
                                        "this element is of type `{}`, the ones before it of type `{}`",
                                        self.ty_str(&t),
                                        self.ty_str(&prev)
                                    ));
                                    self.ctx.errors.push(d);
                                    return Err(());
                                }
                            },
                            None => Some(t),
                        };
                    }
                }
                if let Some(g) = given_elt {
                    if let Some(t) = &elt {
                        if !convertible(self.rk(), t, &g) {
                            return self.err_code(
                                "regdesc::eval::type",
                                e.span,
                                "Incompatible types in list elements",
                            );
                        }
                    }
                    elt = Some(g);
                }
                let deduced = match elt {
                    None => match given {
                        Some(g) => g,
                        None => {
                            return self.err_code("regdesc::eval::type", e.span, "No type for list")
                        }
                    },
                    Some(t) => {
                        if let Some(g) = &given {
                            if !convertible(self.rk(), &t, g) {
                                let msg = format!(
                                    "Element type mismatch for list: element type '{}' not convertible to '{}",
                                    self.ty_str(&t),
                                    self.ty_str(g)
                                );
                                return self.err_code("regdesc::eval::type", e.span, msg);
                            }
                        }
                        t
                    }
                };
                Ok(list(vals, deduced))
            }
            ExprKind::Dag { op, args } => {
                let Some(opv) = &op.value else {
                    return self.err(op.span, "expected identifier in dag init");
                };
                // llvm-tblgen looks only at the operator's first token.
                let mut first = opv;
                while let ExprKind::Paste { lhs: inner, .. }
                | ExprKind::Field { base: inner, .. }
                | ExprKind::BitSlice { base: inner, .. }
                | ExprKind::ListSlice { base: inner, .. } = &first.kind
                {
                    first = inner;
                }
                let ok_start = match &first.kind {
                    ExprKind::Id(_) | ExprKind::Unset | ExprKind::ClassInst { .. } => true,
                    ExprKind::Bang { op: b, .. } => matches!(b, BangOp::Cast | BangOp::GetDagOp),
                    _ => false,
                };
                if !ok_start {
                    return self.err(opv.span, "expected identifier in dag init");
                }
                let o = self.value(opv, cur, None, Mode::Value)?;
                let oname = op.name.as_ref().map(|n| Rc::<str>::from(n.name.as_str()));
                let mut a = Vec::with_capacity(args.len());
                for da in args {
                    let v = match &da.value {
                        Some(x) => self.value(x, cur, None, Mode::Value)?,
                        None => Init::unset(),
                    };
                    a.push((
                        v,
                        da.name.as_ref().map(|n| Rc::<str>::from(n.name.as_str())),
                    ));
                }
                Ok(InitKind::Dag {
                    op: o,
                    op_name: oname,
                    args: a,
                }
                .into())
            }
            ExprKind::Cond { clauses } => self.op_cond(e, clauses, cur, item),
            ExprKind::Bang {
                op,
                op_span,
                type_arg,
                args,
            } => self.operation(e, *op, *op_span, type_arg.as_ref(), args, cur, item),
            ExprKind::Paste { .. }
            | ExprKind::BitSlice { .. }
            | ExprKind::ListSlice { .. }
            | ExprKind::Field { .. } => self.value(e, cur, item, mode),
        }
    }

    fn op_cond(
        &mut self,
        e: &'a Expr,
        clauses: &'a [(Expr, Expr)],
        cur: Option<RecId>,
        item: Option<&RecTy>,
    ) -> R<Init> {
        if clauses.is_empty() {
            return self.err(
                e.span,
                "there should be at least 1 'condition : value' in the !cond operator",
            );
        }
        let mut conds = Vec::new();
        let mut vals = Vec::new();
        for (c, v) in clauses {
            conds.push(self.value(c, cur, None, Mode::Value)?);
            vals.push(self.value(v, cur, item, Mode::Value)?);
        }
        let mut ty: Option<RecTy> = None;
        for v in &vals {
            if v.is_unset() {
                continue;
            }
            let vt = type_of(self.rk(), v);
            ty = match (ty, vt) {
                (None, t) => t,
                (Some(t), Some(vt)) => match resolve_types(self.rk(), &t, &vt) {
                    Some(x) => Some(x),
                    None => {
                        let msg = format!(
                            "inconsistent types '{}' and '{}' for !cond",
                            self.ty_str(&t),
                            self.ty_str(&vt)
                        );
                        return self.err_code("regdesc::eval::type", e.span, msg);
                    }
                },
                (Some(t), None) => Some(t),
            };
        }
        let Some(ty) = ty else {
            return self.err(
                e.span,
                "could not determine type for !cond from its arguments",
            );
        };
        let c: Init = InitKind::Cond { conds, vals, ty }.into();
        Ok(self.fold_in(c, cur))
    }

    fn nargs(&mut self, op: BangOp, span: Span, args: &[Expr], min: usize, max: usize) -> R<()> {
        if args.len() < min || args.len() > max {
            let want = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return self.err_code(
                "regdesc::eval::operands",
                span,
                format!("{op} takes {want} operand(s), got {}", args.len()),
            );
        }
        Ok(())
    }

    fn ident_arg(&mut self, e: &Expr, what: &str) -> R<Init> {
        match &e.kind {
            ExprKind::Id(i) => Ok(str_init(&i.name)),
            _ => self.err(e.span, what.to_string()),
        }
    }

    /// Runs `f` with `vars` added as temporary fields of the current record
    /// (or of a scratch record), as llvm-tblgen does for `!foreach`/`!foldl`.
    fn with_temp_vars<T>(
        &mut self,
        cur: Option<RecId>,
        vars: &[(Init, RecTy)],
        f: impl FnOnce(&mut Self, RecId) -> R<T>,
    ) -> R<T> {
        let (pr, temp) = match cur {
            Some(c) => (c, false),
            None => {
                let rec = Record {
                    name: ".parse".into(),
                    name_init: str_init(".parse"),
                    ..Default::default()
                };
                (self.push_record(rec), true)
            }
        };
        for (n, t) in vars {
            let name: Rc<str> = n.as_str().unwrap_or_default().into();
            self.rec_mut(pr).values.push(RecordVal {
                name,
                ty: t.clone(),
                value: Init::unset(),
                nonconcrete_ok: false,
                is_template_arg: false,
                span: Span::default(),
            });
        }
        let r = f(self, pr);
        for (n, _) in vars {
            let name = n.as_str().unwrap_or_default().to_string();
            let vals = &mut self.rec_mut(pr).values;
            if let Some(k) = vals.iter().rposition(|v| *v.name == *name) {
                vals.remove(k);
            }
        }
        if temp && self.ctx.rk.records.len() == pr as usize + 1 {
            self.ctx.rk.records.pop();
        }
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn operation(
        &mut self,
        e: &'a Expr,
        op: BangOp,
        op_span: Span,
        type_arg: Option<&'a syntax::Type>,
        args: &'a [Expr],
        cur: Option<RecId>,
        item: Option<&RecTy>,
    ) -> R<Init> {
        use BangOp as B;
        let ty_needed = matches!(op, B::Cast | B::IsA);
        if ty_needed && type_arg.is_none() {
            return self.err(
                op_span,
                format!("expected type for {op}: write {op}<type>(...)"),
            );
        }
        if type_arg.is_some() && !matches!(op, B::Cast | B::IsA | B::GetDagOp) {
            return self.err(op_span, format!("{op} does not take a type"));
        }
        if let Some(t) = type_arg.filter(|t| t.kind == TypeKind::Code) {
            return self.err(
                t.span,
                "the 'code' type is not allowed in bang operators; use 'string'",
            );
        }
        match op {
            B::Cast | B::Not | B::Head | B::Tail | B::Size | B::Empty | B::GetDagOp => {
                self.nargs(op, op_span, args, 1, 1)?;
                let (code, mut ty) = match op {
                    B::Cast => {
                        let t = match type_arg {
                            Some(t) => self.parse_type(t)?,
                            None => {
                                return self.err(op_span, "did not get type for unary operator")
                            }
                        };
                        (UnOp::Cast, Some(t))
                    }
                    B::Not => (UnOp::Not, Some(RecTy::Int)),
                    B::Head => (UnOp::Head, None),
                    B::Tail => (UnOp::Tail, None),
                    B::Size => (UnOp::Size, Some(RecTy::Int)),
                    B::Empty => (UnOp::Empty, Some(RecTy::Int)),
                    _ => {
                        let t = match type_arg {
                            Some(t) => {
                                let t = self.parse_type(t)?;
                                if !matches!(t, RecTy::Record(_)) {
                                    return self
                                        .err(op_span, "type for !getdagop must be a record type");
                                }
                                t
                            }
                            None => RecTy::Record(Rc::from([])),
                        };
                        (UnOp::GetDagOp, Some(t))
                    }
                };
                let lhs = self.value(&args[0], cur, None, Mode::Value)?;
                let lt = type_of(self.rk(), &lhs);
                if matches!(code, UnOp::Empty | UnOp::Size)
                    && !matches!(lt, Some(RecTy::List(_) | RecTy::String | RecTy::Dag))
                {
                    return self.err_code(
                        "regdesc::eval::type",
                        args[0].span,
                        "expected string, list, or dag type argument in unary operator",
                    );
                }
                if matches!(code, UnOp::Head | UnOp::Tail) {
                    let Some(RecTy::List(elt)) = lt else {
                        return self.err_code(
                            "regdesc::eval::type",
                            args[0].span,
                            "expected list type argument in unary operator",
                        );
                    };
                    if let InitKind::List { elems, .. } = &*lhs {
                        let Some(first) = elems.first() else {
                            return self.err(args[0].span, "empty list argument in unary operator");
                        };
                        let Some(it) = type_of(self.rk(), first) else {
                            return self
                                .err(args[0].span, "untyped list element in unary operator");
                        };
                        ty = Some(if code == UnOp::Head { it } else { it.list_of() });
                    } else {
                        ty = Some(if code == UnOp::Head {
                            (*elt).clone()
                        } else {
                            RecTy::List(elt)
                        });
                    }
                }
                let u: Init = InitKind::UnOp {
                    op: code,
                    arg: lhs,
                    ty: ty.unwrap_or(RecTy::Int),
                }
                .into();
                Ok(self.fold_in(u, cur))
            }
            B::IsA => {
                self.nargs(op, op_span, args, 1, 1)?;
                let t = match type_arg {
                    Some(t) => self.parse_type(t)?,
                    None => return Err(()),
                };
                let v = self.value(&args[0], cur, None, Mode::Value)?;
                let i: Init = InitKind::IsA { check: t, expr: v }.into();
                Ok(fold(&mut self.ctx, &i, None, false))
            }
            B::Con
            | B::Add
            | B::Sub
            | B::Mul
            | B::And
            | B::Or
            | B::Xor
            | B::Sra
            | B::Srl
            | B::Shl
            | B::Eq
            | B::Ne
            | B::Le
            | B::Lt
            | B::Ge
            | B::Gt
            | B::ListConcat
            | B::ListSplat
            | B::StrConcat
            | B::Interleave
            | B::SetDagOp => self.binop(e, op, op_span, args, cur, item),
            B::If | B::Dag | B::Subst => self.ternop(op, op_span, args, cur, item),
            B::Foreach | B::Filter => self.foreach_filter(op, op_span, args, cur, item),
            B::Foldl => self.foldl(op_span, args, cur),
            B::Substr | B::Find => self.substr_find(op, op_span, args, cur, item),
            B::Cond => self.err(op_span, "expected '(' after !cond operator"),
        }
    }

    fn binop(
        &mut self,
        _e: &'a Expr,
        op: BangOp,
        op_span: Span,
        args: &'a [Expr],
        cur: Option<RecId>,
        item: Option<&RecTy>,
    ) -> R<Init> {
        use BangOp as B;
        let code = match op {
            B::Con => BinOp::Concat,
            B::Add => BinOp::Add,
            B::Sub => BinOp::Sub,
            B::Mul => BinOp::Mul,
            B::And => BinOp::And,
            B::Or => BinOp::Or,
            B::Xor => BinOp::Xor,
            B::Sra => BinOp::Sra,
            B::Srl => BinOp::Srl,
            B::Shl => BinOp::Shl,
            B::Eq => BinOp::Eq,
            B::Ne => BinOp::Ne,
            B::Le => BinOp::Le,
            B::Lt => BinOp::Lt,
            B::Ge => BinOp::Ge,
            B::Gt => BinOp::Gt,
            B::ListConcat => BinOp::ListConcat,
            B::ListSplat => BinOp::ListSplat,
            B::StrConcat => BinOp::StrConcat,
            B::Interleave => BinOp::Interleave,
            _ => BinOp::SetDagOp,
        };
        let arith = code.is_integer_arith();
        let (mut ty, mut argty): (Option<RecTy>, Option<RecTy>) = match code {
            BinOp::Concat | BinOp::SetDagOp => (Some(RecTy::Dag), Some(RecTy::Dag)),
            _ if arith => (Some(RecTy::Int), Some(RecTy::Int)),
            BinOp::Eq | BinOp::Ne | BinOp::Le | BinOp::Lt | BinOp::Ge | BinOp::Gt => {
                (Some(RecTy::Bit), None)
            }
            BinOp::ListConcat => (None, item.cloned()),
            BinOp::ListSplat => (None, None),
            BinOp::StrConcat => (Some(RecTy::String), Some(RecTy::String)),
            _ => (Some(RecTy::String), None),
        };
        if let (Some(t), Some(it)) = (&ty, item) {
            if !convertible(self.rk(), t, it) {
                let msg = format!(
                    "expected value of type '{}', got '{}'",
                    self.ty_str(it),
                    self.ty_str(t)
                );
                return self.err_code("regdesc::eval::type", op_span, msg);
            }
        }
        if args.is_empty() {
            return self.err(op_span, "expected two operands to operator");
        }
        let mut vals: Vec<Init> = Vec::new();
        for a in args {
            let v = self.value(a, cur, argty.as_ref(), Mode::Value)?;
            let Some(lt) = type_of(self.rk(), &v) else {
                let s = self.s(&v);
                return self.err(
                    op_span,
                    format!("expected value to be a typed value, got '{s}'"),
                );
            };
            vals.push(v);
            match argty.clone() {
                None => {
                    argty = Some(lt.clone());
                    match code {
                        BinOp::ListConcat => {
                            if !matches!(lt, RecTy::List(_)) {
                                let msg = format!(
                                    "expected a list, got value of type '{}'",
                                    self.ty_str(&lt)
                                );
                                return self.err_code("regdesc::eval::type", a.span, msg);
                            }
                        }
                        BinOp::ListSplat => {
                            if let (Some(it), 1) = (item, vals.len()) {
                                let RecTy::List(_) = it else {
                                    let msg = format!(
                                        "expected output type to be a list, got type '{}'",
                                        self.ty_str(it)
                                    );
                                    return self.err_code("regdesc::eval::type", op_span, msg);
                                };
                                if !convertible(self.rk(), &lt.clone().list_of(), it) {
                                    let msg = format!("expected first arg type to be '{}', got value of type '{}'", self.ty_str(&lt), match it {
                                        RecTy::List(x) => self.ty_str(x),
                                        other => self.ty_str(other),
                                    });
                                    return self.err_code("regdesc::eval::type", op_span, msg);
                                }
                            }
                            if vals.len() == 2 && lt != RecTy::Int {
                                let msg = format!("expected second parameter to be an int, got value of type '{}'", self.ty_str(&lt));
                                return self.err_code("regdesc::eval::type", a.span, msg);
                            }
                            argty = None;
                        }
                        BinOp::Eq | BinOp::Ne => {
                            if !convertible(self.rk(), &lt, &RecTy::Int)
                                && !convertible(self.rk(), &lt, &RecTy::String)
                                && !convertible(self.rk(), &lt, &RecTy::Record(Rc::from([])))
                            {
                                let msg = format!("expected bit, bits, int, string, or record; got value of type '{}'", self.ty_str(&lt));
                                return self.err_code("regdesc::eval::type", a.span, msg);
                            }
                        }
                        BinOp::Le | BinOp::Lt | BinOp::Ge | BinOp::Gt => {
                            if !convertible(self.rk(), &lt, &RecTy::Int)
                                && !convertible(self.rk(), &lt, &RecTy::String)
                            {
                                let msg = format!(
                                    "expected bit, bits, int, or string; got value of type '{}'",
                                    self.ty_str(&lt)
                                );
                                return self.err_code("regdesc::eval::type", a.span, msg);
                            }
                        }
                        BinOp::Interleave => {
                            match vals.len() {
                                1 => {
                                    if lt != RecTy::String.list_of()
                                        && !convertible(self.rk(), &lt, &RecTy::Int.list_of())
                                    {
                                        let msg = format!("expected list of string, int, bits, or bit; got value of type '{}'", self.ty_str(&lt));
                                        return self.err_code("regdesc::eval::type", a.span, msg);
                                    }
                                }
                                2 => {
                                    if lt != RecTy::String {
                                        let msg = format!("expected second argument to be a string, got value of type '{}'", self.ty_str(&lt));
                                        return self.err_code("regdesc::eval::type", a.span, msg);
                                    }
                                }
                                _ => {}
                            }
                            argty = None;
                        }
                        _ => {}
                    }
                }
                Some(at) => {
                    let Some(resolved) = resolve_types(self.rk(), &at, &lt) else {
                        let msg = format!(
                            "expected value of type '{}', got '{}'",
                            self.ty_str(&at),
                            self.ty_str(&lt)
                        );
                        return self.err_code("regdesc::eval::type", a.span, msg);
                    };
                    if !arith {
                        argty = Some(resolved);
                    }
                }
            }
            if code == BinOp::SetDagOp {
                argty = Some(RecTy::Record(Rc::from([])));
            }
        }
        if code == BinOp::ListConcat {
            ty = argty.clone();
        }
        if code == BinOp::ListSplat {
            ty = type_of(self.rk(), &vals[0]).map(RecTy::list_of);
        }
        let ty = ty.unwrap_or(RecTy::Int);
        if matches!(
            code,
            BinOp::StrConcat
                | BinOp::ListConcat
                | BinOp::Concat
                | BinOp::Add
                | BinOp::And
                | BinOp::Or
                | BinOp::Xor
                | BinOp::Mul
        ) {
            while vals.len() > 2 {
                let Some(rhs) = vals.pop() else { break };
                let Some(lhs) = vals.pop() else { break };
                let b: Init = InitKind::BinOp {
                    op: code,
                    lhs,
                    rhs,
                    ty: ty.clone(),
                }
                .into();
                let f = self.fold_in(b, cur);
                vals.push(f);
            }
        }
        if vals.len() != 2 {
            return self.err_code(
                "regdesc::eval::operands",
                op_span,
                "expected two operands to operator",
            );
        }
        let rhs = vals.pop().unwrap_or_default();
        let lhs = vals.pop().unwrap_or_default();
        let b: Init = InitKind::BinOp {
            op: code,
            lhs,
            rhs,
            ty,
        }
        .into();
        Ok(self.fold_in(b, cur))
    }

    fn ternop(
        &mut self,
        op: BangOp,
        op_span: Span,
        args: &'a [Expr],
        cur: Option<RecId>,
        item: Option<&RecTy>,
    ) -> R<Init> {
        self.nargs(op, op_span, args, 3, 3)?;
        let (code, mut ty, item) = match op {
            BangOp::Dag => (TernOp::Dag, Some(RecTy::Dag), None),
            BangOp::If => (TernOp::If, None, item),
            _ => (TernOp::Subst, None, item),
        };
        let a = self.value(&args[0], cur, None, Mode::Value)?;
        let b = self.value(&args[1], cur, item, Mode::Value)?;
        let c = self.value(&args[2], cur, item, Mode::Value)?;
        match code {
            TernOp::Dag => {
                let bt = type_of(self.rk(), &b);
                if let Some(t) = &bt {
                    if !matches!(t, RecTy::List(_)) {
                        let msg =
                            format!("expected list of children, got type '{}'", self.ty_str(t));
                        return self.err_code("regdesc::eval::type", args[1].span, msg);
                    }
                }
                let ct = type_of(self.rk(), &c);
                if let Some(t) = &ct {
                    if *t != RecTy::String.list_of() {
                        let msg = format!("expected list<string>, got type '{}'", self.ty_str(t));
                        return self.err_code("regdesc::eval::type", args[2].span, msg);
                    }
                }
                if bt.is_none() && ct.is_none() {
                    return self.err(
                        args[1].span,
                        "cannot have both unset children and unset names in !dag",
                    );
                }
            }
            TernOp::If => {
                let mut bt = type_of(self.rk(), &b);
                let mut ct = type_of(self.rk(), &c);
                if b.is_unset() {
                    bt = ct.clone();
                }
                if c.is_unset() {
                    ct = bt.clone();
                }
                let (Some(bt), Some(ct)) = (bt, ct) else {
                    return self.err(op_span, "could not get type for !if");
                };
                match resolve_types(self.rk(), &bt, &ct) {
                    Some(t) => ty = Some(t),
                    None => {
                        let msg = format!(
                            "inconsistent types '{}' and '{}' for !if",
                            self.ty_str(&bt),
                            self.ty_str(&ct)
                        );
                        return self.err_code("regdesc::eval::type", op_span, msg);
                    }
                }
            }
            _ => {
                let Some(t) = type_of(self.rk(), &c) else {
                    return self.err(op_span, "could not get type for !subst");
                };
                ty = Some(t);
            }
        }
        let t: Init = InitKind::TernOp {
            op: code,
            a,
            b,
            c,
            ty: ty.unwrap_or(RecTy::Dag),
        }
        .into();
        Ok(self.fold_in(t, cur))
    }

    fn foreach_filter(
        &mut self,
        op: BangOp,
        op_span: Span,
        args: &'a [Expr],
        cur: Option<RecId>,
        item: Option<&RecTy>,
    ) -> R<Init> {
        self.nargs(op, op_span, args, 3, 3)?;
        let lhs = self.ident_arg(
            &args[0],
            "first argument of !foreach/!filter must be an identifier",
        )?;
        let lname = lhs.as_str().unwrap_or_default().to_string();
        if let Some(c) = cur {
            if self.rec(c).value(&lname).is_some() {
                return self.err(
                    args[0].span,
                    format!("iteration variable '\"{lname}\"' is already defined"),
                );
            }
        }
        let mhs = self.value(&args[1], cur, None, Mode::Value)?;
        let Some(mt) = type_of(self.rk(), &mhs) else {
            return self.err(
                args[1].span,
                "could not get type of !foreach/!filter list or dag",
            );
        };
        let is_foreach = op == BangOp::Foreach;
        let (in_elt, expr_elt, is_dag) = match &mt {
            RecTy::List(e) => {
                let expr_elt = match item {
                    Some(RecTy::List(o)) => Some(if is_foreach {
                        (**o).clone()
                    } else {
                        RecTy::Int
                    }),
                    Some(other) => {
                        let msg = format!(
                            "expected value of type '{}', but got list type",
                            self.ty_str(other)
                        );
                        return self.err_code("regdesc::eval::type", op_span, msg);
                    }
                    None => None,
                };
                ((**e).clone(), expr_elt, false)
            }
            RecTy::Dag => {
                if !is_foreach {
                    return self.err(args[1].span, "!filter must have a list argument");
                }
                if let Some(it) = item {
                    if *it != RecTy::Dag {
                        let msg = format!(
                            "expected value of type '{}', but got dag type",
                            self.ty_str(it)
                        );
                        return self.err_code("regdesc::eval::type", op_span, msg);
                    }
                }
                (RecTy::Dag, None, true)
            }
            _ => {
                return self.err(
                    args[1].span,
                    if is_foreach {
                        "!foreach must have a list or dag argument"
                    } else {
                        "!filter must have a list argument"
                    },
                )
            }
        };
        let body = &args[2];
        let rhs = self.with_temp_vars(cur, &[(lhs.clone(), in_elt.clone())], |ev, pr| {
            ev.value(body, Some(pr), expr_elt.as_ref(), Mode::Value)
        })?;
        let out_ty = if is_foreach && !is_dag {
            let Some(rt) = type_of(self.rk(), &rhs) else {
                return self.err(
                    body.span,
                    "could not get type of !foreach result expression",
                );
            };
            rt.list_of()
        } else if !is_foreach {
            in_elt.list_of()
        } else {
            in_elt
        };
        let t: Init = InitKind::TernOp {
            op: if is_foreach {
                TernOp::Foreach
            } else {
                TernOp::Filter
            },
            a: lhs,
            b: mhs,
            c: rhs,
            ty: out_ty,
        }
        .into();
        Ok(self.fold_in(t, cur))
    }

    fn foldl(&mut self, op_span: Span, args: &'a [Expr], cur: Option<RecId>) -> R<Init> {
        self.nargs(BangOp::Foldl, op_span, args, 5, 5)?;
        let start = self.value(&args[0], cur, None, Mode::Value)?;
        let Some(st) = type_of(self.rk(), &start) else {
            let s = self.s(&start);
            return self.err(
                args[0].span,
                format!("could not get type of !foldl start: '{s}'"),
            );
        };
        let l = self.value(&args[1], cur, None, Mode::Value)?;
        let Some(lt) = type_of(self.rk(), &l) else {
            let s = self.s(&l);
            return self.err(
                args[1].span,
                format!("could not get type of !foldl list: '{s}'"),
            );
        };
        let RecTy::List(elt) = lt else {
            let msg = format!(
                "!foldl list must be a list, but is of type '{}'",
                self.ty_str(&lt)
            );
            return self.err_code("regdesc::eval::type", args[1].span, msg);
        };
        let a = self.ident_arg(&args[2], "third argument of !foldl must be an identifier")?;
        let b = self.ident_arg(&args[3], "fourth argument of !foldl must be an identifier")?;
        if let Some(c) = cur {
            for (v, which, sp) in [(&a, "left", args[2].span), (&b, "right", args[3].span)] {
                let n = v.as_str().unwrap_or_default().to_string();
                if self.rec(c).value(&n).is_some() {
                    return self.err(
                        sp,
                        format!("{which} !foldl variable '\"{n}\"' already defined"),
                    );
                }
            }
        }
        let body = &args[4];
        let expr = self.with_temp_vars(
            cur,
            &[(a.clone(), st.clone()), (b.clone(), (*elt).clone())],
            |ev, pr| ev.value(body, Some(pr), None, Mode::Value),
        )?;
        let Some(et) = type_of(self.rk(), &expr) else {
            return self.err(body.span, "could not get type of !foldl expression");
        };
        if et != st {
            let msg = format!(
                "!foldl expression must be of same type as start ({}), but is of type {}",
                self.ty_str(&st),
                self.ty_str(&et)
            );
            return self.err_code("regdesc::eval::type", body.span, msg);
        }
        let f: Init = InitKind::Fold {
            start,
            list: l,
            a,
            b,
            expr,
            ty: st,
        }
        .into();
        Ok(self.fold_in(f, cur))
    }

    fn substr_find(
        &mut self,
        op: BangOp,
        op_span: Span,
        args: &'a [Expr],
        cur: Option<RecId>,
        item: Option<&RecTy>,
    ) -> R<Init> {
        self.nargs(op, op_span, args, 2, 3)?;
        let is_substr = op == BangOp::Substr;
        let ty = if is_substr { RecTy::String } else { RecTy::Int };
        let a = self.value(&args[0], cur, None, Mode::Value)?;
        let b = self.value(&args[1], cur, None, Mode::Value)?;
        let c = match args.get(2) {
            Some(x) => self.value(x, cur, None, Mode::Value)?,
            None => Init::int(if is_substr { i64::MAX } else { 0 }),
        };
        if let Some(it) = item {
            if !convertible(self.rk(), &ty, it) {
                let msg = format!(
                    "expected value of type '{}', got '{}'",
                    self.ty_str(it),
                    self.ty_str(&ty)
                );
                return self.err_code("regdesc::eval::type", op_span, msg);
            }
        }
        let want = |k: usize| -> RecTy {
            match (is_substr, k) {
                (_, 0) => RecTy::String,
                (true, _) => RecTy::Int,
                (false, 1) => RecTy::String,
                (false, _) => RecTy::Int,
            }
        };
        for (k, v) in [&a, &b, &c].iter().enumerate() {
            if let Some(t) = type_of(self.rk(), v) {
                let w = want(k);
                if t != w {
                    let msg = format!(
                        "expected {}, got type '{}'",
                        self.ty_str(&w),
                        self.ty_str(&t)
                    );
                    let span = args.get(k).map_or(op_span, sp);
                    return self.err_code("regdesc::eval::type", span, msg);
                }
            }
        }
        let t: Init = InitKind::TernOp {
            op: if is_substr {
                TernOp::Substr
            } else {
                TernOp::Find
            },
            a,
            b,
            c,
            ty,
        }
        .into();
        Ok(self.fold_in(t, cur))
    }
}
