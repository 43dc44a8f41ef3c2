//! Value operations: types, conversions, bits, folding, resolution, printing.
//!
//! Each function mirrors the llvm-tblgen `Init` method of the same purpose
//! (`getType`, `getBit`, `convertInitializerTo`, `getCastTo`, `Fold`,
//! `resolveReferences`, `getAsString`), so that records evaluate and print
//! the same.

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;

use super::record::*;
use super::types::{convertible, def_type, record_ty, type_is_a};
use crate::diag::Diagnostic;
use crate::syntax::Span;

/// How deep anonymous-class instantiation and resolution may nest.
pub const MAX_DEPTH: u32 = 512;

/// The evaluation state shared by every operation.
#[derive(Default)]
pub struct Ctx {
    pub rk: RecordKeeper,
    pub anon_counter: u32,
    /// `Class<args>` instantiations already made: llvm-tblgen reuses them.
    pub vardef_cache: HashMap<(RecId, Vec<Init>), RecId>,
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    pub depth: u32,
    /// Set once a depth bound was hit, to stop cascades.
    pub depth_exceeded: bool,
    /// Where the statement being evaluated is (for errors raised deep inside).
    pub stmt_span: Span,
    /// The innermost expression being evaluated, while the AST is walked.
    pub expr_span: Option<Span>,
    /// How deep `resolve` currently recurses.
    pub resolve_depth: u32,
    /// Defs and classes by name, for lookups while evaluating; the sorted
    /// maps of the [`RecordKeeper`] are built from these at the end.
    pub def_ids: HashMap<String, RecId>,
    pub class_ids: HashMap<String, RecId>,
    /// Records made by expansion so far (bounded by [`MAX_RECORDS`]).
    pub expanded: u64,
}

/// Most records (defs, loop and multiclass expansions, anonymous
/// instantiations) one evaluation may create. Nested `foreach` loops
/// multiply; this keeps a runaway description from running for hours.
pub const MAX_RECORDS: u64 = 2_000_000;

impl Ctx {
    pub fn error(&mut self, span: Option<Span>, code: &'static str, msg: impl Into<String>) {
        let span = span.or(Some(self.stmt_span));
        self.errors.push(Diagnostic::error(code, msg, span));
    }

    pub fn new_anonymous_name(&mut self) -> Init {
        let n = self.anon_counter;
        self.anon_counter += 1;
        InitKind::AnonymousName(n).into()
    }
}

/// The record being built or resolved, as `Fold` needs to see it.
#[derive(Clone, Debug)]
pub struct CurRec {
    pub id: Option<RecId>,
    pub name: Init,
    pub span: Span,
    pub is_class: bool,
}

/// Looks up variables during `resolve`.
pub trait Resolver {
    fn resolve(&mut self, ctx: &mut Ctx, name: &Init) -> Option<Init>;
    fn cur(&self) -> Option<&CurRec>;
    fn is_final(&self) -> bool {
        false
    }
    fn keep_unset_bits(&self) -> bool {
        false
    }
}

/// Name comparison with a pointer fast path: variable references share the
/// allocation of the field or argument they name.
#[inline]
pub fn name_eq(a: &Rc<str>, b: &Rc<str>) -> bool {
    Rc::ptr_eq(a, b) || a == b
}

pub fn same(a: &Init, b: &Init) -> bool {
    Rc::ptr_eq(&a.0, &b.0) || a == b
}

/// Maps names to values (template arguments, iterators, `NAME`).
pub struct MapResolver {
    pub map: Vec<(Rc<str>, Init, bool)>,
    pub cur: Option<CurRec>,
}

impl MapResolver {
    pub fn new(cur: Option<CurRec>) -> Self {
        MapResolver {
            map: Vec::new(),
            cur,
        }
    }

    /// Maps the variable named by `key` (a string value) to `value`.
    pub fn set(&mut self, key: Init, value: Init) {
        if let InitKind::String { value: k, .. } = &*key {
            self.set_str(k.clone(), value);
        }
    }

    pub fn set_str(&mut self, key: Rc<str>, value: Init) {
        if let Some(e) = self.map.iter_mut().find(|e| name_eq(&e.0, &key)) {
            e.1 = value;
            e.2 = false;
        } else {
            self.map.push((key, value, false));
        }
    }

    pub fn get_str(&self, key: &str) -> Option<&Init> {
        self.map.iter().find(|e| &*e.0 == key).map(|e| &e.1)
    }
}

impl Resolver for MapResolver {
    fn resolve(&mut self, ctx: &mut Ctx, name: &Init) -> Option<Init> {
        let InitKind::String { value: key, .. } = &**name else {
            return None;
        };
        let idx = self.map.iter().position(|e| name_eq(&e.0, key))?;
        if !self.map[idx].2 && self.map.len() > 1 {
            let (k, v, _) = self.map.remove(idx);
            let v = resolve(ctx, &v, self);
            self.map.push((k, v.clone(), true));
            return Some(v);
        }
        Some(self.map[idx].1.clone())
    }
    fn cur(&self) -> Option<&CurRec> {
        self.cur.as_ref()
    }
}

/// Resolves every variable that names a field of the current record,
/// except fields that are unset (llvm-tblgen's `RecordResolver`).
pub struct RecordResolver {
    pub vals: Vec<(Rc<str>, Init)>,
    pub new_name: Option<Init>,
    pub cache: HashMap<Init, Init>,
    pub stack: Vec<Init>,
    pub cur: CurRec,
    pub is_final: bool,
}

impl RecordResolver {
    pub fn new(rec: &Record, cur: CurRec) -> Self {
        RecordResolver {
            vals: rec
                .values
                .iter()
                .map(|v| (v.name.clone(), v.value.clone()))
                .collect(),
            new_name: None,
            cache: HashMap::default(),
            stack: Vec::new(),
            cur,
            is_final: true,
        }
    }
}

impl Resolver for RecordResolver {
    fn resolve(&mut self, ctx: &mut Ctx, name: &Init) -> Option<Init> {
        if let Some(v) = self.cache.get(name) {
            return Some(v.clone());
        }
        if self.stack.iter().any(|s| same(s, name)) {
            return None;
        }
        let mut val = None;
        let field = match &**name {
            InitKind::String { value, .. } => self
                .vals
                .iter()
                .find(|(n, _)| **n == **value)
                .map(|v| v.1.clone()),
            _ => None,
        };
        if let Some(fv) = field {
            if !fv.is_unset() {
                self.stack.push(name.clone());
                val = Some(resolve(ctx, &fv, self));
                self.stack.pop();
            }
        } else if let Some(nn) = self.new_name.clone() {
            if same(name, &self.cur.name) {
                self.stack.push(name.clone());
                val = Some(resolve(ctx, &nn, self));
                self.stack.pop();
            }
        }
        if let Some(v) = &val {
            self.cache.insert(name.clone(), v.clone());
        }
        val
    }
    fn cur(&self) -> Option<&CurRec> {
        Some(&self.cur)
    }
    fn is_final(&self) -> bool {
        self.is_final
    }
    fn keep_unset_bits(&self) -> bool {
        true
    }
}

/// Delegates, but hides some names (the variables of `!foreach`, `!foldl`).
pub struct ShadowResolver<'a> {
    pub inner: &'a mut dyn Resolver,
    pub shadowed: Vec<Init>,
}

impl Resolver for ShadowResolver<'_> {
    fn resolve(&mut self, ctx: &mut Ctx, name: &Init) -> Option<Init> {
        if self.shadowed.iter().any(|s| same(s, name)) {
            return None;
        }
        self.inner.resolve(ctx, name)
    }
    fn cur(&self) -> Option<&CurRec> {
        self.inner.cur()
    }
    fn is_final(&self) -> bool {
        self.inner.is_final()
    }
}

/// Optionally delegates, and records whether any variable stayed unresolved.
pub struct TrackUnresolvedResolver<'a> {
    pub inner: Option<&'a mut dyn Resolver>,
    pub found_unresolved: bool,
}

impl Resolver for TrackUnresolvedResolver<'_> {
    fn resolve(&mut self, ctx: &mut Ctx, name: &Init) -> Option<Init> {
        let mut out = None;
        if let Some(inner) = self.inner.as_mut() {
            out = inner.resolve(ctx, name);
            if let Some(i) = &out {
                if !self.found_unresolved {
                    let mut sub = TrackUnresolvedResolver {
                        inner: None,
                        found_unresolved: false,
                    };
                    resolve(ctx, i, &mut sub);
                    self.found_unresolved |= sub.found_unresolved;
                }
            }
        }
        if out.is_none() {
            self.found_unresolved = true;
        }
        out
    }
    fn cur(&self) -> Option<&CurRec> {
        self.inner.as_ref().and_then(|r| r.cur())
    }
}

/// Resolves nothing; records whether one name is referenced.
pub struct HasReferenceResolver {
    pub name: Init,
    pub found: bool,
}

impl Resolver for HasReferenceResolver {
    fn resolve(&mut self, _ctx: &mut Ctx, name: &Init) -> Option<Init> {
        if same(name, &self.name) {
            self.found = true;
        }
        None
    }
    fn cur(&self) -> Option<&CurRec> {
        None
    }
}

// ---------------------------------------------------------------------------
// Construction helpers

pub fn str_init(s: &str) -> Init {
    Init::string(s)
}

pub fn str_fmt(s: String, code: bool) -> Init {
    InitKind::String {
        value: s.into(),
        code,
    }
    .into()
}

pub fn list(elems: Vec<Init>, elem_ty: RecTy) -> Init {
    InitKind::List { elems, elem_ty }.into()
}

pub fn bits(v: Vec<Init>) -> Init {
    InitKind::Bits(v).into()
}

pub fn var(name: Init, ty: RecTy) -> Init {
    InitKind::Var { name, ty }.into()
}

pub fn var_str(name: &str, ty: RecTy) -> Init {
    var(str_init(name), ty)
}

// ---------------------------------------------------------------------------
// Types

/// The type of a value (`None` for `?`, which is untyped).
pub fn type_of(rk: &RecordKeeper, i: &Init) -> Option<RecTy> {
    Some(match &**i {
        InitKind::Unset => return None,
        InitKind::Bit(_) | InitKind::VarBit { .. } => RecTy::Bit,
        InitKind::Bits(b) => RecTy::Bits(b.len() as u32),
        InitKind::Int(_) | InitKind::IsA { .. } => RecTy::Int,
        InitKind::String { .. } | InitKind::AnonymousName(_) => RecTy::String,
        InitKind::List { elem_ty, .. } => RecTy::List(Rc::new(elem_ty.clone())),
        InitKind::Def(id) => def_type(rk, *id),
        InitKind::Dag { .. } => RecTy::Dag,
        InitKind::Var { ty, .. }
        | InitKind::Field { ty, .. }
        | InitKind::UnOp { ty, .. }
        | InitKind::BinOp { ty, .. }
        | InitKind::TernOp { ty, .. }
        | InitKind::Fold { ty, .. }
        | InitKind::Cond { ty, .. } => ty.clone(),
        InitKind::VarListElem { list, .. } => match type_of(rk, list) {
            Some(RecTy::List(e)) => (*e).clone(),
            _ => return None,
        },
        InitKind::VarDef { class, .. } => RecTy::Record(Rc::from([*class])),
    })
}

pub fn is_typed(i: &Init) -> bool {
    !matches!(&**i, InitKind::Unset)
}

/// The type of a field `name` of a value of record type (`getFieldType`).
pub fn field_type(rk: &RecordKeeper, i: &Init, name: &str) -> Option<RecTy> {
    if let InitKind::Def(id) = &**i {
        return rk.record(*id).value(name).map(|v| v.ty.clone());
    }
    match type_of(rk, i)? {
        RecTy::Record(classes) => classes
            .iter()
            .find_map(|c| rk.record(*c).value(name).map(|v| v.ty.clone())),
        _ => None,
    }
}

pub fn is_concrete(i: &Init) -> bool {
    match &**i {
        InitKind::Unset
        | InitKind::Bit(_)
        | InitKind::Int(_)
        | InitKind::String { .. }
        | InitKind::Def(_) => true,
        InitKind::Bits(b) => b.iter().all(is_concrete),
        InitKind::List { elems, .. } => elems.iter().all(is_concrete),
        InitKind::Dag { op, args, .. } => is_concrete(op) && args.iter().all(|a| is_concrete(&a.0)),
        _ => false,
    }
}

pub fn is_complete(i: &Init) -> bool {
    match &**i {
        InitKind::Unset => false,
        InitKind::Bits(b) => b.iter().all(is_complete),
        InitKind::List { elems, .. } => elems.iter().all(is_complete),
        _ => true,
    }
}

// ---------------------------------------------------------------------------
// Bits and conversions

/// `getBit`.
pub fn get_bit(rk: &RecordKeeper, i: &Init, bit: u32) -> Init {
    match &**i {
        InitKind::Unset | InitKind::Bit(_) | InitKind::VarBit { .. } => i.clone(),
        InitKind::Bits(b) => b.get(bit as usize).cloned().unwrap_or_else(Init::unset),
        InitKind::Int(v) => Init::bit(bit < 64 && (v >> bit) & 1 == 1),
        _ => {
            if type_of(rk, i) == Some(RecTy::Bit) {
                i.clone()
            } else {
                InitKind::VarBit {
                    var: i.clone(),
                    bit,
                }
                .into()
            }
        }
    }
}

fn can_fit_in_bitfield(v: i64, n: u32) -> bool {
    n >= 64 || (v >> n) == 0 || (v >> (n - 1)) == -1
}

/// `convertInitializerTo`.
pub fn convert_to(rk: &RecordKeeper, i: &Init, ty: &RecTy) -> Option<Init> {
    match (&**i, ty) {
        (InitKind::Unset, _) => Some(i.clone()),
        (InitKind::Bit(_), RecTy::Bit) => Some(i.clone()),
        (InitKind::Bit(b), RecTy::Int) => Some(Init::int(*b as i64)),
        (InitKind::Bit(_), RecTy::Bits(1)) => Some(bits(vec![i.clone()])),
        (InitKind::Bit(_), _) => None,
        (InitKind::Bits(b), RecTy::Bit) => {
            if b.len() == 1 {
                Some(b[0].clone())
            } else {
                None
            }
        }
        (InitKind::Bits(b), RecTy::Bits(n)) => {
            if b.len() == *n as usize {
                Some(i.clone())
            } else {
                None
            }
        }
        (InitKind::Bits(b), RecTy::Int) => {
            let mut v: i64 = 0;
            for (k, bit) in b.iter().enumerate() {
                match &**bit {
                    InitKind::Bit(x) => {
                        if *x && k < 64 {
                            v |= 1i64 << k;
                        }
                    }
                    _ => return None,
                }
            }
            Some(Init::int(v))
        }
        (InitKind::Bits(_), _) => None,
        (InitKind::Int(_), RecTy::Int) => Some(i.clone()),
        (InitKind::Int(v), RecTy::Bit) => {
            if *v == 0 || *v == 1 {
                Some(Init::bit(*v == 1))
            } else {
                None
            }
        }
        (InitKind::Int(v), RecTy::Bits(n)) => {
            if !can_fit_in_bitfield(*v, *n) {
                return None;
            }
            Some(bits(
                (0..*n)
                    .map(|k| Init::bit(k < 64 && (v >> k) & 1 == 1))
                    .collect(),
            ))
        }
        (InitKind::Int(_), _) => None,
        (InitKind::String { .. }, RecTy::String) => Some(i.clone()),
        (InitKind::String { .. }, _) => None,
        (InitKind::List { elems, elem_ty }, RecTy::List(want)) => {
            if **want == *elem_ty {
                return Some(i.clone());
            }
            let mut changed = false;
            let mut out = Vec::with_capacity(elems.len());
            for e in elems {
                let c = convert_to(rk, e, want)?;
                if !same(&c, e) {
                    changed = true;
                }
                out.push(c);
            }
            if !changed {
                return Some(i.clone());
            }
            Some(list(out, (**want).clone()))
        }
        (InitKind::List { .. }, _) => None,
        (InitKind::Def(id), RecTy::Record(_)) => {
            if convertible(rk, &def_type(rk, *id), ty) {
                Some(i.clone())
            } else {
                None
            }
        }
        (InitKind::Def(_), _) => None,
        _ => {
            let t = type_of(rk, i)?;
            if t == *ty || type_is_a(rk, &t, ty) {
                return Some(i.clone());
            }
            if t == RecTy::Bit && *ty == RecTy::Bits(1) {
                return Some(bits(vec![i.clone()]));
            }
            None
        }
    }
}

/// `getCastTo`: like [`convert_to`], but wraps convertible values that
/// cannot be converted yet in `!cast<ty>(...)`.
pub fn cast_to(ctx: &mut Ctx, i: &Init, ty: &RecTy) -> Option<Init> {
    let Some(t) = type_of(&ctx.rk, i) else {
        return convert_to(&ctx.rk, i, ty);
    };
    if t == *ty || type_is_a(&ctx.rk, &t, ty) {
        return Some(i.clone());
    }
    if t == RecTy::Bit && *ty == RecTy::Bits(1) {
        return Some(bits(vec![i.clone()]));
    }
    if !convertible(&ctx.rk, &t, ty) {
        return None;
    }
    let op: Init = InitKind::UnOp {
        op: UnOp::Cast,
        arg: i.clone(),
        ty: ty.clone(),
    }
    .into();
    Some(fold(ctx, &op, None, false))
}

/// `convertInitializerBitRange`: `value{bits}`.
pub fn bit_range(rk: &RecordKeeper, i: &Init, sel: &[u32]) -> Option<Init> {
    match &**i {
        InitKind::Bits(b) => {
            let mut out = Vec::with_capacity(sel.len());
            for &s in sel {
                out.push(b.get(s as usize)?.clone());
            }
            Some(bits(out))
        }
        InitKind::Int(v) => {
            let mut out = Vec::with_capacity(sel.len());
            for &s in sel {
                if s >= 64 {
                    return None;
                }
                out.push(Init::bit((v >> s) & 1 == 1));
            }
            Some(bits(out))
        }
        InitKind::Unset | InitKind::Bit(_) | InitKind::String { .. } | InitKind::List { .. } => {
            None
        }
        _ => {
            let Some(RecTy::Bits(n)) = type_of(rk, i) else {
                return None;
            };
            let mut out = Vec::with_capacity(sel.len());
            for &s in sel {
                if s >= n {
                    return None;
                }
                out.push(
                    InitKind::VarBit {
                        var: i.clone(),
                        bit: s,
                    }
                    .into(),
                );
            }
            Some(bits(out))
        }
    }
}

/// `convertInitListSlice`: `value[elements]`.
pub fn list_slice(rk: &RecordKeeper, i: &Init, sel: &[u32]) -> Option<Init> {
    match &**i {
        InitKind::List { elems, elem_ty } => {
            if sel.len() == 1 {
                return elems.get(sel[0] as usize).cloned();
            }
            let mut out = Vec::with_capacity(sel.len());
            for &s in sel {
                out.push(elems.get(s as usize)?.clone());
            }
            Some(list(out, elem_ty.clone()))
        }
        InitKind::Unset
        | InitKind::Bit(_)
        | InitKind::Bits(_)
        | InitKind::Int(_)
        | InitKind::String { .. } => None,
        _ => {
            let Some(RecTy::List(e)) = type_of(rk, i) else {
                return None;
            };
            let el = |s: u32| -> Init {
                InitKind::VarListElem {
                    list: i.clone(),
                    index: s,
                }
                .into()
            };
            if sel.len() == 1 {
                return Some(el(sel[0]));
            }
            Some(list(sel.iter().map(|&s| el(s)).collect(), (*e).clone()))
        }
    }
}

fn as_int(rk: &RecordKeeper, i: &Init) -> Option<i64> {
    match &**i {
        InitKind::Int(v) => Some(*v),
        _ => match convert_to(rk, i, &RecTy::Int) {
            Some(c) => match &*c {
                InitKind::Int(v) => Some(*v),
                _ => None,
            },
            None => None,
        },
    }
}

fn as_str(i: &Init) -> Option<(&Rc<str>, bool)> {
    match &**i {
        InitKind::String { value, code } => Some((value, *code)),
        _ => None,
    }
}

pub fn concat_strings(a: &Init, b: &Init) -> Option<Init> {
    let (x, xc) = as_str(a)?;
    let (y, yc) = as_str(b)?;
    let mut s = String::with_capacity(x.len() + y.len());
    s.push_str(x);
    s.push_str(y);
    Some(str_fmt(s, xc || yc))
}

/// `BinOpInit::getStrConcat`.
pub fn str_concat(ctx: &mut Ctx, a: Init, b: Init) -> Init {
    if let Some(c) = concat_strings(&a, &b) {
        return c;
    }
    let _ = ctx;
    InitKind::BinOp {
        op: BinOp::StrConcat,
        lhs: a,
        rhs: b,
        ty: RecTy::String,
    }
    .into()
}

/// `BinOpInit::getListConcat`.
pub fn list_concat(ctx: &mut Ctx, a: Init, b: Init) -> Init {
    if let (InitKind::List { elems: x, elem_ty }, InitKind::List { elems: y, .. }) = (&*a, &*b) {
        let mut v = x.clone();
        v.extend(y.iter().cloned());
        return list(v, elem_ty.clone());
    }
    let ty = type_of(&ctx.rk, &a).unwrap_or(RecTy::List(Rc::new(RecTy::Int)));
    InitKind::BinOp {
        op: BinOp::ListConcat,
        lhs: a,
        rhs: b,
        ty,
    }
    .into()
}

fn dag_op_def(op: &Init) -> Option<RecId> {
    match &**op {
        InitKind::Def(id) => Some(*id),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Folding

fn fatal(ctx: &mut Ctx, cur: Option<&CurRec>, msg: String) {
    let span = ctx.expr_span.or(cur.map(|c| c.span));
    ctx.error(span, "regdesc::eval::fold", msg);
}

/// `Fold`: simplifies an operator whose operands allow it.
pub fn fold(ctx: &mut Ctx, i: &Init, cur: Option<&CurRec>, is_final: bool) -> Init {
    match &**i {
        InitKind::UnOp { op, arg, ty } => fold_unop(ctx, i, *op, arg, ty, cur, is_final),
        InitKind::BinOp { op, lhs, rhs, ty } => fold_binop(ctx, i, *op, lhs, rhs, ty, cur),
        InitKind::TernOp { op, a, b, c, ty } => fold_ternop(ctx, i, *op, a, b, c, ty, cur),
        InitKind::Fold {
            start,
            list: l,
            a,
            b,
            expr,
            ..
        } => {
            if let InitKind::List { elems, .. } = &**l {
                let mut acc = start.clone();
                for e in elems {
                    let mut r = MapResolver::new(cur.cloned());
                    r.set(a.clone(), acc);
                    r.set(b.clone(), e.clone());
                    acc = resolve(ctx, expr, &mut r);
                }
                return acc;
            }
            i.clone()
        }
        InitKind::IsA { check, expr } => {
            if let Some(t) = type_of(&ctx.rk, expr) {
                if convertible(&ctx.rk, &t, check) {
                    return Init::int(1);
                }
                if let RecTy::Record(_) = check {
                    if !convertible(&ctx.rk, check, &t) || matches!(&**expr, InitKind::Def(_)) {
                        return Init::int(0);
                    }
                } else {
                    return Init::int(0);
                }
            }
            i.clone()
        }
        InitKind::Cond { conds, vals, ty } => {
            for (c, v) in conds.iter().zip(vals) {
                match as_int(&ctx.rk, c) {
                    Some(x) => {
                        if x != 0 {
                            return convert_to(&ctx.rk, v, ty).unwrap_or_else(|| v.clone());
                        }
                    }
                    None => return i.clone(),
                }
            }
            let name = cur.map(|c| unquoted(&ctx.rk, &c.name)).unwrap_or_default();
            let s = to_string(&ctx.rk, i);
            fatal(
                ctx,
                cur,
                format!("{name} does not have any true condition in:{s}"),
            );
            i.clone()
        }
        InitKind::VarDef { class, args, site } => {
            let mut t = TrackUnresolvedResolver {
                inner: None,
                found_unresolved: false,
            };
            for a in args {
                resolve(ctx, a, &mut t);
            }
            if !t.found_unresolved {
                return instantiate(ctx, *class, args, *site);
            }
            i.clone()
        }
        _ => i.clone(),
    }
}

fn is_self_name(cur: &CurRec, name: &Init) -> bool {
    if same(name, &cur.name) {
        return true;
    }
    if let InitKind::AnonymousName(n) = &*cur.name {
        if let Some((s, _)) = as_str(name) {
            return **s == *format!("anonymous_{n}");
        }
    }
    false
}

/// The def `d` as a value of record type `ty` (for `!cast` and
/// `!getdagop`), or an error and `me` unchanged if it is not of that type.
fn def_as_type(ctx: &mut Ctx, me: &Init, d: RecId, ty: &RecTy, cur: Option<&CurRec>) -> Init {
    let dt = def_type(&ctx.rk, d);
    if type_is_a(&ctx.rk, &dt, ty) {
        return Init::def(d);
    }
    let msg = format!(
        "Expected type '{}', got '{}' in: {}",
        ty.display(&ctx.rk),
        dt.display(&ctx.rk),
        to_string(&ctx.rk, me)
    );
    fatal(ctx, cur, msg);
    me.clone()
}

fn fold_unop(
    ctx: &mut Ctx,
    me: &Init,
    op: UnOp,
    arg: &Init,
    ty: &RecTy,
    cur: Option<&CurRec>,
    is_final: bool,
) -> Init {
    match op {
        UnOp::Cast => {
            if *ty == RecTy::String {
                if as_str(arg).is_some() {
                    return arg.clone();
                }
                if let InitKind::Def(id) = &**arg {
                    return str_init(&ctx.rk.record(*id).name.clone());
                }
                if let Some(v) = convert_to(&ctx.rk, arg, &RecTy::Int) {
                    if let InitKind::Int(x) = &*v {
                        return str_init(&x.to_string());
                    }
                }
            } else if let RecTy::Record(_) = ty {
                if let Some((name, _)) = as_str(arg) {
                    let name = name.clone();
                    if cur.is_none() && !is_final {
                        return me.clone();
                    }
                    let d = match cur {
                        Some(c) if is_self_name(c, arg) => {
                            if !is_final {
                                return me.clone();
                            }
                            match c.id {
                                Some(id) => id,
                                None => return me.clone(),
                            }
                        }
                        _ => match ctx.def_ids.get(&*name) {
                            Some(&d) => d,
                            None => {
                                if is_final {
                                    fatal(
                                        ctx,
                                        cur,
                                        format!("Undefined reference to record: '{name}'"),
                                    );
                                }
                                return me.clone();
                            }
                        },
                    };
                    return def_as_type(ctx, me, d, ty, cur);
                }
            }
            if let Some(v) = convert_to(&ctx.rk, arg, ty) {
                return v;
            }
            me.clone()
        }
        UnOp::Not => match as_int(&ctx.rk, arg) {
            Some(v) => Init::int((v == 0) as i64),
            None => me.clone(),
        },
        UnOp::Head => match &**arg {
            InitKind::List { elems, .. } if !elems.is_empty() => elems[0].clone(),
            _ => me.clone(),
        },
        UnOp::Tail => match &**arg {
            InitKind::List { elems, elem_ty } if !elems.is_empty() => {
                list(elems[1..].to_vec(), elem_ty.clone())
            }
            _ => me.clone(),
        },
        UnOp::Size => match &**arg {
            InitKind::List { elems, .. } => Init::int(elems.len() as i64),
            InitKind::Dag { args, .. } => Init::int(args.len() as i64),
            InitKind::String { value, .. } => Init::int(value.len() as i64),
            _ => me.clone(),
        },
        UnOp::Empty => match &**arg {
            InitKind::List { elems, .. } => Init::int(elems.is_empty() as i64),
            InitKind::Dag { args, .. } => Init::int(args.is_empty() as i64),
            InitKind::String { value, .. } => Init::int(value.is_empty() as i64),
            _ => me.clone(),
        },
        UnOp::GetDagOp => match &**arg {
            InitKind::Dag { op, .. } => {
                let Some(d) = dag_op_def(op) else {
                    let s = to_string(&ctx.rk, op);
                    fatal(ctx, cur, format!("Expected record as operator, got: {s}"));
                    return me.clone();
                };
                def_as_type(ctx, me, d, ty, cur)
            }
            _ => me.clone(),
        },
    }
}

fn cmp_op(op: BinOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinOp::Eq => o == Equal,
        BinOp::Ne => o != Equal,
        BinOp::Le => o != Greater,
        BinOp::Lt => o == Less,
        BinOp::Ge => o != Less,
        BinOp::Gt => o == Greater,
        _ => false,
    }
}

fn fold_binop(
    ctx: &mut Ctx,
    me: &Init,
    op: BinOp,
    lhs: &Init,
    rhs: &Init,
    _ty: &RecTy,
    cur: Option<&CurRec>,
) -> Init {
    match op {
        BinOp::Concat => {
            if let (
                InitKind::Dag {
                    op: lo, args: la, ..
                },
                InitKind::Dag {
                    op: ro, args: ra, ..
                },
            ) = (&**lhs, &**rhs)
            {
                let ld = dag_op_def(lo);
                let rd = dag_op_def(ro);
                if (ld.is_none() && !lo.is_unset()) || (rd.is_none() && !ro.is_unset()) {
                    return me.clone();
                }
                if let (Some(a), Some(b)) = (ld, rd) {
                    if a != b {
                        let msg = format!(
                            "Concatenated Dag operators do not match: '{}' vs. '{}'",
                            to_string(&ctx.rk, lhs),
                            to_string(&ctx.rk, rhs)
                        );
                        fatal(ctx, cur, msg);
                        return me.clone();
                    }
                }
                let o = if ld.is_some() {
                    lo.clone()
                } else if rd.is_some() {
                    ro.clone()
                } else {
                    Init::unset()
                };
                let mut args = la.clone();
                args.extend(ra.iter().cloned());
                return InitKind::Dag {
                    op: o,
                    op_name: None,
                    args,
                }
                .into();
            }
            me.clone()
        }
        BinOp::ListConcat => {
            if let (InitKind::List { elems: x, elem_ty }, InitKind::List { elems: y, .. }) =
                (&**lhs, &**rhs)
            {
                let mut v = x.clone();
                v.extend(y.iter().cloned());
                return list(v, elem_ty.clone());
            }
            me.clone()
        }
        BinOp::ListSplat => {
            if let (Some(t), InitKind::Int(n)) = (type_of(&ctx.rk, lhs), &**rhs) {
                let n = (*n).clamp(0, 1 << 20) as usize;
                return list(vec![lhs.clone(); n], t);
            }
            me.clone()
        }
        BinOp::StrConcat => concat_strings(lhs, rhs).unwrap_or_else(|| me.clone()),
        BinOp::Interleave => {
            let (InitKind::List { elems, elem_ty }, Some((delim, _))) = (&**lhs, as_str(rhs))
            else {
                return me.clone();
            };
            let mut s = String::new();
            // llvm-tblgen's rule: the result is `code` when an element after
            // the first is; the first element and the delimiter do not count,
            // and a list of integers always gives a `string`.
            let mut code = false;
            for (k, e) in elems.iter().enumerate() {
                if k > 0 {
                    s.push_str(delim);
                }
                if *elem_ty == RecTy::String {
                    let Some((v, c)) = as_str(e) else {
                        return me.clone();
                    };
                    s.push_str(v);
                    code |= k > 0 && c;
                } else {
                    let Some(v) = as_int(&ctx.rk, e) else {
                        return me.clone();
                    };
                    s.push_str(&v.to_string());
                }
            }
            str_fmt(s, code)
        }
        BinOp::Eq | BinOp::Ne | BinOp::Le | BinOp::Lt | BinOp::Ge | BinOp::Gt => {
            if let (Some(a), Some(b)) = (as_int(&ctx.rk, lhs), as_int(&ctx.rk, rhs)) {
                return Init::bit(cmp_op(op, a.cmp(&b)));
            }
            if let (Some((a, _)), Some((b, _))) = (as_str(lhs), as_str(rhs)) {
                return Init::bit(cmp_op(op, a.as_bytes().cmp(b.as_bytes())));
            }
            if op == BinOp::Eq || op == BinOp::Ne {
                if let (InitKind::Def(a), InitKind::Def(b)) = (&**lhs, &**rhs) {
                    return Init::bit((a == b) == (op == BinOp::Eq));
                }
            }
            me.clone()
        }
        BinOp::SetDagOp => {
            if let (InitKind::Dag { args, .. }, InitKind::Def(_)) = (&**lhs, &**rhs) {
                return InitKind::Dag {
                    op: rhs.clone(),
                    op_name: None,
                    args: args.clone(),
                }
                .into();
            }
            me.clone()
        }
        BinOp::Add
        | BinOp::Sub
        | BinOp::Mul
        | BinOp::And
        | BinOp::Or
        | BinOp::Xor
        | BinOp::Shl
        | BinOp::Sra
        | BinOp::Srl => {
            if let (Some(a), Some(b)) = (as_int(&ctx.rk, lhs), as_int(&ctx.rk, rhs)) {
                let r = match op {
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::And => a & b,
                    BinOp::Or => a | b,
                    BinOp::Xor => a ^ b,
                    BinOp::Shl => (a as u64).wrapping_shl(b as u32) as i64,
                    BinOp::Sra => a.wrapping_shr(b as u32),
                    BinOp::Srl => (a as u64).wrapping_shr(b as u32) as i64,
                    _ => unreachable!("arith op"),
                };
                return Init::int(r);
            }
            me.clone()
        }
    }
}

fn foreach_apply(
    ctx: &mut Ctx,
    var: &Init,
    item: &Init,
    expr: &Init,
    cur: Option<&CurRec>,
) -> Init {
    let mut r = MapResolver::new(cur.cloned());
    r.set(var.clone(), item.clone());
    resolve(ctx, expr, &mut r)
}

fn foreach_dag_apply(
    ctx: &mut Ctx,
    var: &Init,
    dag: &Init,
    expr: &Init,
    cur: Option<&CurRec>,
) -> Init {
    let InitKind::Dag { op, args, .. } = &**dag else {
        return dag.clone();
    };
    let mut changed = false;
    let nop = foreach_apply(ctx, var, op, expr, cur);
    if !same(&nop, op) {
        changed = true;
    }
    let mut nargs = Vec::with_capacity(args.len());
    for (a, n) in args {
        let na = if let InitKind::Dag { .. } = &**a {
            foreach_dag_apply(ctx, var, a, expr, cur)
        } else {
            foreach_apply(ctx, var, a, expr, cur)
        };
        if !same(&na, a) {
            changed = true;
        }
        nargs.push((na, n.clone()));
    }
    if changed {
        InitKind::Dag {
            op: nop,
            op_name: None,
            args: nargs,
        }
        .into()
    } else {
        dag.clone()
    }
}

#[allow(clippy::too_many_arguments)]
fn fold_ternop(
    ctx: &mut Ctx,
    me: &Init,
    op: TernOp,
    a: &Init,
    b: &Init,
    c: &Init,
    ty: &RecTy,
    cur: Option<&CurRec>,
) -> Init {
    match op {
        TernOp::Subst => {
            match (&**a, &**b, &**c) {
                (InitKind::Def(x), InitKind::Def(y), InitKind::Def(z)) => {
                    return Init::def(if x == z { *y } else { *z });
                }
                (
                    InitKind::Var { name: x, .. },
                    InitKind::Var { name: y, .. },
                    InitKind::Var { name: z, .. },
                ) => {
                    let n = if unquoted(&ctx.rk, x) == unquoted(&ctx.rk, z) {
                        y
                    } else {
                        z
                    };
                    return var(n.clone(), ty.clone());
                }
                _ => {}
            }
            if let (Some((x, _)), Some((y, _)), Some((z, zc))) = (as_str(a), as_str(b), as_str(c)) {
                let _ = zc;
                let mut val = z.to_string();
                if !x.is_empty() {
                    let mut idx = 0;
                    while let Some(found) = val[idx..].find(&**x) {
                        let at = idx + found;
                        val.replace_range(at..at + x.len(), y);
                        idx = at + y.len();
                    }
                } else {
                    // An empty pattern matches at every position; llvm-tblgen loops
                    // forever there. Leave the string unchanged instead.
                }
                return str_init(&val);
            }
            me.clone()
        }
        TernOp::Foreach => {
            if let InitKind::Dag { .. } = &**b {
                return foreach_dag_apply(ctx, a, b, c, cur);
            }
            if let InitKind::List { elems, .. } = &**b {
                let mut out = Vec::with_capacity(elems.len());
                for e in elems {
                    out.push(foreach_apply(ctx, a, e, c, cur));
                }
                let et = match ty {
                    RecTy::List(e) => (**e).clone(),
                    other => other.clone(),
                };
                return list(out, et);
            }
            me.clone()
        }
        TernOp::Filter => {
            if let InitKind::List { elems, .. } = &**b {
                let mut out = Vec::new();
                for e in elems {
                    let inc = foreach_apply(ctx, a, e, c, cur);
                    match as_int(&ctx.rk, &inc) {
                        Some(v) => {
                            if v != 0 {
                                out.push(e.clone());
                            }
                        }
                        None => return me.clone(),
                    }
                }
                let et = match ty {
                    RecTy::List(e) => (**e).clone(),
                    other => other.clone(),
                };
                return list(out, et);
            }
            me.clone()
        }
        TernOp::If => match as_int(&ctx.rk, a) {
            Some(v) => {
                if v != 0 {
                    b.clone()
                } else {
                    c.clone()
                }
            }
            None => me.clone(),
        },
        TernOp::Dag => {
            let bl = match &**b {
                InitKind::List { elems, .. } => Some(elems),
                _ => None,
            };
            let cl = match &**c {
                InitKind::List { elems, .. } => Some(elems),
                _ => None,
            };
            let bok = bl.is_some() || b.is_unset();
            let cok = cl.is_some() || c.is_unset();
            if b.is_unset() && c.is_unset() {
                return me.clone();
            }
            if bok
                && cok
                && (bl.is_none() || cl.is_none() || bl.map(|x| x.len()) == cl.map(|x| x.len()))
            {
                let size = bl.map(|x| x.len()).or(cl.map(|x| x.len())).unwrap_or(0);
                let mut args = Vec::with_capacity(size);
                for k in 0..size {
                    let node = bl.map(|x| x[k].clone()).unwrap_or_else(Init::unset);
                    let name = cl.map(|x| x[k].clone()).unwrap_or_else(Init::unset);
                    let n = match &*name {
                        InitKind::String { value, .. } => Some(value.clone()),
                        InitKind::Unset => None,
                        _ => return me.clone(),
                    };
                    args.push((node, n));
                }
                return InitKind::Dag {
                    op: a.clone(),
                    op_name: None,
                    args,
                }
                .into();
            }
            me.clone()
        }
        TernOp::Substr => {
            if let (Some((s, code)), InitKind::Int(start), InitKind::Int(len)) =
                (as_str(a), &**b, &**c)
            {
                let size = s.len() as i64;
                if *start < 0 || *start > size {
                    fatal(
                        ctx,
                        cur,
                        format!("!substr start position is out of range 0...{size}: {start}"),
                    );
                    return me.clone();
                }
                if *len < 0 {
                    fatal(ctx, cur, "!substr length must be nonnegative".to_string());
                    return me.clone();
                }
                let st = *start as usize;
                let end = (st as i64).saturating_add(*len).min(size) as usize;
                let bytes = &s.as_bytes()[st..end];
                return str_fmt(String::from_utf8_lossy(bytes).into_owned(), code);
            }
            me.clone()
        }
        TernOp::Find => {
            if let (Some((s, _)), Some((pat, _)), InitKind::Int(start)) =
                (as_str(a), as_str(b), &**c)
            {
                let size = s.len() as i64;
                if *start < 0 || *start > size {
                    fatal(
                        ctx,
                        cur,
                        format!("!find start position is out of range 0...{size}: {start}"),
                    );
                    return me.clone();
                }
                let st = *start as usize;
                return match s.as_bytes()[st..]
                    .windows(pat.len().max(1))
                    .position(|w| w == pat.as_bytes())
                {
                    _ if pat.is_empty() => Init::int(st as i64),
                    Some(p) => Init::int((st + p) as i64),
                    None => Init::int(-1),
                };
            }
            me.clone()
        }
    }
}

// ---------------------------------------------------------------------------
// Anonymous class instantiation

/// `VarDefInit::instantiate`: makes (or reuses) the anonymous def for `Class<args>`.
pub fn instantiate(ctx: &mut Ctx, class: RecId, args: &[Init], site: Span) -> Init {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
        instantiate_inner(ctx, class, args, site)
    })
}

fn instantiate_inner(ctx: &mut Ctx, class: RecId, args: &[Init], site: Span) -> Init {
    let key = (class, args.to_vec());
    if let Some(&d) = ctx.vardef_cache.get(&key) {
        return Init::def(d);
    }
    if ctx.depth >= MAX_DEPTH {
        if !ctx.depth_exceeded {
            ctx.depth_exceeded = true;
            let cname = ctx.rk.name(class).to_string();
            ctx.errors.push(
                Diagnostic::error(
                    "regdesc::eval::depth",
                    format!("instantiating `{cname}` nests more than {MAX_DEPTH} levels deep"),
                    Some(site),
                )
                .with_label("this instantiation keeps instantiating itself")
                .with_help("make the recursion stop: guard it with `!if` or `!cond` on a template argument"),
            );
        }
        return InitKind::VarDef {
            class,
            args: args.to_vec(),
            site,
        }
        .into();
    }
    ctx.depth += 1;
    let name = ctx.new_anonymous_name();
    let cls = ctx.rk.record(class).clone();
    let mut rec = Record {
        id: u32::MAX,
        name: String::new(),
        name_init: name.clone(),
        is_class: false,
        is_anonymous: true,
        span: cls.span,
        template_args: Vec::new(),
        values: cls.values.clone(),
        superclasses: Vec::new(),
        instantiated_from: Vec::new(),
        assertions: cls.assertions.clone(),
    };
    rec.name = unquoted(&ctx.rk, &name);
    let cur = CurRec {
        id: None,
        name: name.clone(),
        span: cls.span,
        is_class: false,
    };
    let mut r = MapResolver::new(Some(cur.clone()));
    for (k, ta) in cls.template_args.iter().enumerate() {
        if k < args.len() {
            r.set_str(ta.clone(), args[k].clone());
        } else {
            let v = rec.get(ta).cloned().unwrap_or_else(Init::unset);
            r.set_str(ta.clone(), v);
        }
        rec.values.retain(|v| &v.name != ta);
    }
    resolve_record(ctx, &mut rec, &mut r, &cur);
    rec.superclasses = cls.superclasses.clone();
    rec.superclasses.push((class, cls.span));
    let id = ctx.rk.records.len() as RecId;
    rec.id = id;
    ctx.rk.records.push(rec);
    // Final resolution, in place.
    let cur = CurRec {
        id: Some(id),
        name: name.clone(),
        span: cls.span,
        is_class: false,
    };
    resolve_record_final(ctx, id, None, cur);
    let final_name = ctx.rk.records[id as usize].name.clone();
    ctx.def_ids.insert(final_name, id);
    ctx.vardef_cache.insert(key, id);
    check_record_assertions(ctx, id);
    ctx.depth -= 1;
    Init::def(id)
}

/// Resolves every field (and the name) of a record with `r`.
pub fn resolve_record(ctx: &mut Ctx, rec: &mut Record, r: &mut dyn Resolver, _cur: &CurRec) {
    let new_name = resolve(ctx, &rec.name_init, r);
    if !same(&new_name, &rec.name_init) {
        rec.name = unquoted(&ctx.rk, &new_name);
        rec.name_init = new_name;
    }
    for k in 0..rec.values.len() {
        let v = rec.values[k].value.clone();
        let nv = resolve(ctx, &v, r);
        if !same(&nv, &v) {
            set_value_after_resolve(ctx, rec, k, nv);
        }
    }
    for a in rec.assertions.iter_mut() {
        a.cond = resolve(ctx, &a.cond, r);
        a.message = resolve(ctx, &a.message, r);
    }
}

fn set_value_after_resolve(ctx: &mut Ctx, rec: &mut Record, k: usize, nv: Init) {
    let ty = rec.values[k].ty.clone();
    match set_value_cast(ctx, &nv, &ty) {
        Some(v) => rec.values[k].value = v,
        None => {
            let tstr = type_of(&ctx.rk, &nv)
                .map(|t| format!("of type '{}' ", t.display(&ctx.rk)))
                .unwrap_or_default();
            let msg = format!(
                "Invalid value {tstr}found when setting field '{}' of type '{}' after resolving references: {}",
                rec.values[k].name,
                ty.display(&ctx.rk),
                unquoted(&ctx.rk, &nv)
            );
            ctx.error(Some(rec.span), "regdesc::eval::type", msg);
        }
    }
}

/// `RecordVal::setValue`: casts to the field type, expanding bits.
pub fn set_value_cast(ctx: &mut Ctx, v: &Init, ty: &RecTy) -> Option<Init> {
    let c = cast_to(ctx, v, ty)?;
    if let RecTy::Bits(n) = ty {
        if !matches!(&*c, InitKind::Bits(_)) {
            let b: Vec<Init> = (0..*n).map(|k| get_bit(&ctx.rk, &c, k)).collect();
            return Some(bits(b));
        }
    }
    Some(c)
}

/// Final resolution of a record already in the keeper (`Record::resolveReferences(NewName)`).
/// The record's values are taken out while they are resolved; its name and
/// superclasses stay in place so that self-references see its type.
pub fn resolve_record_final(ctx: &mut Ctx, id: RecId, new_name: Option<Init>, cur: CurRec) {
    let mut values = std::mem::take(&mut ctx.rk.records[id as usize].values);
    let mut assertions = std::mem::take(&mut ctx.rk.records[id as usize].assertions);
    let mut r = RecordResolver {
        vals: values
            .iter()
            .map(|v| (v.name.clone(), v.value.clone()))
            .collect(),
        new_name,
        cache: HashMap::default(),
        stack: Vec::new(),
        cur,
        is_final: true,
    };
    let old_name = ctx.rk.records[id as usize].name_init.clone();
    let nn = resolve(ctx, &old_name, &mut r);
    if !same(&nn, &old_name) {
        let s = unquoted(&ctx.rk, &nn);
        let rec = &mut ctx.rk.records[id as usize];
        rec.name = s;
        rec.name_init = nn.clone();
        // The fields see the record under its new name (a `!cast` of the
        // renamed anonymous def to itself); the resolver's cache still maps
        // the old name to the new one.
        r.cur.name = nn;
    }
    let span = ctx.rk.records[id as usize].span;
    for (k, val) in values.iter_mut().enumerate() {
        let v = val.value.clone();
        let nv = resolve(ctx, &v, &mut r);
        if !same(&nv, &v) {
            let ty = val.ty.clone();
            match set_value_cast(ctx, &nv, &ty) {
                Some(x) => val.value = x,
                None => {
                    let tstr = type_of(&ctx.rk, &nv)
                        .map(|t| format!("of type '{}' ", t.display(&ctx.rk)))
                        .unwrap_or_default();
                    let msg = format!(
                        "Invalid value {tstr}found when setting field '{}' of type '{}' after resolving references: {}",
                        val.name,
                        ty.display(&ctx.rk),
                        unquoted(&ctx.rk, &nv)
                    );
                    ctx.error(Some(span), "regdesc::eval::type", msg);
                }
            }
            r.vals[k].1 = val.value.clone();
        }
    }
    for a in assertions.iter_mut() {
        a.cond = resolve(ctx, &a.cond, &mut r);
        a.message = resolve(ctx, &a.message, &mut r);
    }
    let rec = &mut ctx.rk.records[id as usize];
    rec.values = values;
    rec.assertions = assertions;
}

/// Checks a def's assertions after its final resolution.
pub fn check_record_assertions(ctx: &mut Ctx, id: RecId) {
    if ctx.rk.record(id).assertions.is_empty() {
        return;
    }
    let rec = ctx.rk.record(id).clone();
    let cur = CurRec {
        id: Some(id),
        name: rec.name_init.clone(),
        span: rec.span,
        is_class: false,
    };
    let mut r = RecordResolver::new(&rec, cur);
    for a in &rec.assertions {
        let c = resolve(ctx, &a.cond, &mut r);
        let m = resolve(ctx, &a.message, &mut r);
        check_assert(ctx, a.span, &c, &m);
    }
}

/// Reports a failed `assert`.
pub fn check_assert(ctx: &mut Ctx, span: Span, cond: &Init, msg: &Init) {
    match as_int(&ctx.rk, cond) {
        Some(0) => {
            let m = match &**msg {
                InitKind::String { value, .. } => value.to_string(),
                _ => "(assert message is not a string)".to_string(),
            };
            ctx.errors.push(
                Diagnostic::error("regdesc::eval::assert", "assertion failed", Some(span))
                    .with_label(m.clone())
                    .with_help(format!("the assertion's message: {m}")),
            );
        }
        Some(_) => {}
        None => {
            ctx.error(
                Some(span),
                "regdesc::eval::assert",
                "assert condition must of type bit, bits, or int.",
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Resolution

/// Stack space kept free before recursing, and the size of each new segment.
const RED_ZONE: usize = 128 * 1024;
const STACK_SEGMENT: usize = 4 << 20;

/// `resolveReferences`.
pub fn resolve(ctx: &mut Ctx, i: &Init, r: &mut dyn Resolver) -> Init {
    // Checking the stack costs a thread-local read; doing it every 32
    // levels keeps deep values safe without taxing the common shallow case.
    ctx.resolve_depth += 1;
    let out = if ctx.resolve_depth.is_multiple_of(32) {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || resolve_inner(ctx, i, r))
    } else {
        resolve_inner(ctx, i, r)
    };
    ctx.resolve_depth -= 1;
    out
}

fn resolve_inner(ctx: &mut Ctx, i: &Init, r: &mut dyn Resolver) -> Init {
    match &**i {
        InitKind::Unset
        | InitKind::Bit(_)
        | InitKind::Int(_)
        | InitKind::String { .. }
        | InitKind::Def(_) => i.clone(),
        InitKind::Bits(bs) => {
            let mut changed = false;
            let mut out = Vec::with_capacity(bs.len());
            let mut cache: Option<(Init, Init)> = None;
            for cb in bs {
                let nb = if let InitKind::VarBit { var, bit } = &**cb {
                    let resolved = match &cache {
                        Some((k, v)) if Rc::ptr_eq(&k.0, &var.0) => v.clone(),
                        _ => {
                            let v = resolve(ctx, var, r);
                            cache = Some((var.clone(), v.clone()));
                            v
                        }
                    };
                    if Rc::ptr_eq(&resolved.0, &var.0) {
                        cb.clone()
                    } else {
                        get_bit(&ctx.rk, &resolved, *bit)
                    }
                } else {
                    let v = resolve(ctx, cb, r);
                    if Rc::ptr_eq(&v.0, &cb.0) {
                        cb.clone()
                    } else {
                        get_bit(&ctx.rk, &v, 0)
                    }
                };
                let nb = if nb.is_unset() && r.keep_unset_bits() {
                    cb.clone()
                } else {
                    nb
                };
                if !same(&nb, cb) {
                    changed = true;
                }
                out.push(nb);
            }
            if changed {
                bits(out)
            } else {
                i.clone()
            }
        }
        InitKind::List { elems, elem_ty } => {
            let mut changed = false;
            let mut out = Vec::with_capacity(elems.len());
            for e in elems {
                let n = resolve(ctx, e, r);
                if !Rc::ptr_eq(&n.0, &e.0) {
                    changed = true;
                }
                out.push(n);
            }
            if changed {
                list(out, elem_ty.clone())
            } else {
                i.clone()
            }
        }
        InitKind::Dag { op, op_name, args } => {
            let nop = resolve(ctx, op, r);
            let mut changed = !Rc::ptr_eq(&nop.0, &op.0);
            let mut nargs = Vec::with_capacity(args.len());
            for (a, n) in args {
                let na = resolve(ctx, a, r);
                if !Rc::ptr_eq(&na.0, &a.0) {
                    changed = true;
                }
                nargs.push((na, n.clone()));
            }
            if changed {
                InitKind::Dag {
                    op: nop,
                    op_name: op_name.clone(),
                    args: nargs,
                }
                .into()
            } else {
                i.clone()
            }
        }
        InitKind::Var { name, .. } => r.resolve(ctx, name).unwrap_or_else(|| i.clone()),
        InitKind::AnonymousName(n) => {
            let new = r.resolve(ctx, i).unwrap_or_else(|| i.clone());
            if r.is_final() {
                if let InitKind::AnonymousName(m) = &*new {
                    let _ = n;
                    return str_init(&format!("anonymous_{m}"));
                }
            }
            new
        }
        InitKind::VarBit { var, bit } => {
            let n = resolve(ctx, var, r);
            if !same(&n, var) {
                get_bit(&ctx.rk, &n, *bit)
            } else {
                i.clone()
            }
        }
        InitKind::VarListElem { list: l, index } => {
            let n = resolve(ctx, l, r);
            if let InitKind::List { elems, .. } = &*n {
                if (*index as usize) < elems.len() {
                    return elems[*index as usize].clone();
                }
            }
            if !same(&n, l) && is_typed(&n) {
                return InitKind::VarListElem {
                    list: n,
                    index: *index,
                }
                .into();
            }
            i.clone()
        }
        InitKind::Field { rec, field, ty } => {
            let n = resolve(ctx, rec, r);
            if !same(&n, rec) {
                let ty = field_type(&ctx.rk, &n, field).unwrap_or_else(|| ty.clone());
                let f: Init = InitKind::Field {
                    rec: n,
                    field: field.clone(),
                    ty,
                }
                .into();
                let cur = r.cur().cloned();
                return fold_field(ctx, &f, cur.as_ref());
            }
            i.clone()
        }
        InitKind::UnOp { op, arg, ty } => {
            let n = resolve(ctx, arg, r);
            if !same(&n, arg) || (r.is_final() && *op == UnOp::Cast) {
                return refold(
                    ctx,
                    r,
                    InitKind::UnOp {
                        op: *op,
                        arg: n,
                        ty: ty.clone(),
                    },
                    r.is_final(),
                );
            }
            i.clone()
        }
        InitKind::BinOp { op, lhs, rhs, ty } => {
            let a = resolve(ctx, lhs, r);
            let b = resolve(ctx, rhs, r);
            if !same(&a, lhs) || !same(&b, rhs) {
                return refold(
                    ctx,
                    r,
                    InitKind::BinOp {
                        op: *op,
                        lhs: a,
                        rhs: b,
                        ty: ty.clone(),
                    },
                    false,
                );
            }
            i.clone()
        }
        InitKind::TernOp { op, a, b, c, ty } => {
            let na = resolve(ctx, a, r);
            if *op == TernOp::If && !same(&na, a) {
                if let Some(v) = as_int(&ctx.rk, &na) {
                    return if v != 0 {
                        resolve(ctx, b, r)
                    } else {
                        resolve(ctx, c, r)
                    };
                }
            }
            let nb = resolve(ctx, b, r);
            let nc = if *op == TernOp::Foreach || *op == TernOp::Filter {
                let mut sr = ShadowResolver {
                    inner: r,
                    shadowed: vec![na.clone()],
                };
                resolve(ctx, c, &mut sr)
            } else {
                resolve(ctx, c, r)
            };
            if !same(&na, a) || !same(&nb, b) || !same(&nc, c) {
                return refold(
                    ctx,
                    r,
                    InitKind::TernOp {
                        op: *op,
                        a: na,
                        b: nb,
                        c: nc,
                        ty: ty.clone(),
                    },
                    false,
                );
            }
            i.clone()
        }
        InitKind::Fold {
            start,
            list: l,
            a,
            b,
            expr,
            ty,
        } => {
            let ns = resolve(ctx, start, r);
            let nl = resolve(ctx, l, r);
            let ne = {
                let mut sr = ShadowResolver {
                    inner: r,
                    shadowed: vec![a.clone(), b.clone()],
                };
                resolve(ctx, expr, &mut sr)
            };
            if same(&ns, start) && same(&nl, l) && same(&ne, expr) {
                return i.clone();
            }
            refold(
                ctx,
                r,
                InitKind::Fold {
                    start: ns,
                    list: nl,
                    a: a.clone(),
                    b: b.clone(),
                    expr: ne,
                    ty: ty.clone(),
                },
                false,
            )
        }
        InitKind::IsA { check, expr } => {
            let n = resolve(ctx, expr, r);
            if !same(&n, expr) {
                let u: Init = InitKind::IsA {
                    check: check.clone(),
                    expr: n,
                }
                .into();
                return fold(ctx, &u, None, false);
            }
            i.clone()
        }
        InitKind::Cond { conds, vals, ty } => {
            let mut changed = false;
            let mut nc = Vec::with_capacity(conds.len());
            for c in conds {
                let n = resolve(ctx, c, r);
                changed |= !same(&n, c);
                nc.push(n);
            }
            let mut nv = Vec::with_capacity(vals.len());
            for v in vals {
                let n = resolve(ctx, v, r);
                changed |= !same(&n, v);
                nv.push(n);
            }
            if changed {
                return refold(
                    ctx,
                    r,
                    InitKind::Cond {
                        conds: nc,
                        vals: nv,
                        ty: ty.clone(),
                    },
                    false,
                );
            }
            i.clone()
        }
        InitKind::VarDef { class, args, site } => {
            let mut changed = false;
            let mut nargs = Vec::with_capacity(args.len());
            let found_unresolved;
            {
                let mut t = TrackUnresolvedResolver {
                    inner: Some(r),
                    found_unresolved: false,
                };
                for a in args {
                    let n = resolve(ctx, a, &mut t);
                    changed |= !same(&n, a);
                    nargs.push(n);
                }
                found_unresolved = t.found_unresolved;
            }
            if changed {
                if !found_unresolved {
                    return instantiate(ctx, *class, &nargs, *site);
                }
                return InitKind::VarDef {
                    class: *class,
                    args: nargs,
                    site: *site,
                }
                .into();
            }
            i.clone()
        }
    }
}

/// Builds a node from resolved operands and folds it against the
/// resolver's current record.
fn refold(ctx: &mut Ctx, r: &dyn Resolver, node: InitKind, is_final: bool) -> Init {
    let cur = r.cur().cloned();
    fold(ctx, &node.into(), cur.as_ref(), is_final)
}

/// `FieldInit::Fold`.
pub fn fold_field(ctx: &mut Ctx, f: &Init, cur: Option<&CurRec>) -> Init {
    let InitKind::Field { rec, field, .. } = &**f else {
        return f.clone();
    };
    if let InitKind::Def(id) = &**rec {
        if let Some(c) = cur {
            if c.id == Some(*id) {
                let msg = format!(
                    "Attempting to access field '{}' of '{}' is a forbidden self-reference",
                    field,
                    ctx.rk.name(*id)
                );
                fatal(ctx, cur, msg);
                return f.clone();
            }
        }
        if let Some(v) = ctx.rk.record(*id).get(field) {
            if is_concrete(v) {
                return v.clone();
            }
        }
    }
    f.clone()
}

// ---------------------------------------------------------------------------
// Printing

/// `getAsUnquotedString`.
pub fn unquoted(rk: &RecordKeeper, i: &Init) -> String {
    match &**i {
        InitKind::String { value, .. } => value.to_string(),
        _ => to_string(rk, i),
    }
}

/// `getAsString`.
pub fn to_string(rk: &RecordKeeper, i: &Init) -> String {
    let mut s = String::new();
    write_init(rk, i, &mut s);
    s
}

fn write_unquoted(rk: &RecordKeeper, i: &Init, out: &mut String) {
    match &**i {
        InitKind::String { value, .. } => out.push_str(value),
        _ => write_init(rk, i, out),
    }
}

fn binop_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "!add",
        BinOp::Sub => "!sub",
        BinOp::Mul => "!mul",
        BinOp::And => "!and",
        BinOp::Or => "!or",
        BinOp::Xor => "!xor",
        BinOp::Shl => "!shl",
        BinOp::Sra => "!sra",
        BinOp::Srl => "!srl",
        BinOp::ListConcat => "!listconcat",
        BinOp::ListSplat => "!listsplat",
        BinOp::StrConcat => "!strconcat",
        BinOp::Interleave => "!interleave",
        BinOp::Concat => "!con",
        BinOp::Eq => "!eq",
        BinOp::Ne => "!ne",
        BinOp::Le => "!le",
        BinOp::Lt => "!lt",
        BinOp::Ge => "!ge",
        BinOp::Gt => "!gt",
        BinOp::SetDagOp => "!setdagop",
    }
}

/// Writes values separated by `, `.
fn write_list<'i>(rk: &RecordKeeper, items: impl Iterator<Item = &'i Init>, out: &mut String) {
    for (k, i) in items.enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_init(rk, i, out);
    }
}

/// Writes a value as llvm-tblgen prints it.
pub fn write_init(rk: &RecordKeeper, i: &Init, out: &mut String) {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || write_init_inner(rk, i, out))
}

fn write_init_inner(rk: &RecordKeeper, i: &Init, out: &mut String) {
    use std::fmt::Write;
    match &**i {
        InitKind::Unset => out.push('?'),
        InitKind::Bit(b) => out.push(if *b { '1' } else { '0' }),
        InitKind::Bits(bs) => {
            out.push_str("{ ");
            write_list(rk, bs.iter().rev(), out);
            out.push_str(" }");
        }
        InitKind::Int(v) => {
            let _ = write!(out, "{v}");
        }
        InitKind::String { value, code } => {
            if *code {
                out.push_str("[{");
                out.push_str(value);
                out.push_str("}]");
            } else {
                out.push('"');
                out.push_str(value);
                out.push('"');
            }
        }
        InitKind::List { elems, .. } => {
            out.push('[');
            write_list(rk, elems.iter(), out);
            out.push(']');
        }
        InitKind::Def(id) => out.push_str(&rk.record(*id).name),
        InitKind::Dag { op, op_name, args } => {
            out.push('(');
            write_init(rk, op, out);
            if let Some(n) = op_name {
                out.push(':');
                out.push_str(n);
            }
            for (k, (a, n)) in args.iter().enumerate() {
                out.push_str(if k == 0 { " " } else { ", " });
                write_init(rk, a, out);
                if let Some(n) = n {
                    out.push_str(":$");
                    out.push_str(n);
                }
            }
            out.push(')');
        }
        InitKind::Var { name, .. } => write_unquoted(rk, name, out),
        InitKind::VarBit { var, bit } => {
            write_init(rk, var, out);
            let _ = write!(out, "{{{bit}}}");
        }
        InitKind::VarListElem { list, index } => {
            write_init(rk, list, out);
            let _ = write!(out, "[{index}]");
        }
        InitKind::Field { rec, field, .. } => {
            write_init(rk, rec, out);
            out.push('.');
            out.push_str(field);
        }
        InitKind::UnOp { op, arg, ty } => {
            match op {
                UnOp::Cast => {
                    out.push_str("!cast<");
                    ty.write(rk, out);
                    out.push('>');
                }
                UnOp::Not => out.push_str("!not"),
                UnOp::Head => out.push_str("!head"),
                UnOp::Tail => out.push_str("!tail"),
                UnOp::Size => out.push_str("!size"),
                UnOp::Empty => out.push_str("!empty"),
                UnOp::GetDagOp => out.push_str("!getdagop"),
            }
            out.push('(');
            write_init(rk, arg, out);
            out.push(')');
        }
        InitKind::BinOp { op, lhs, rhs, .. } => {
            out.push_str(binop_name(*op));
            out.push('(');
            write_init(rk, lhs, out);
            out.push_str(", ");
            write_init(rk, rhs, out);
            out.push(')');
        }
        InitKind::TernOp { op, a, b, c, .. } => {
            out.push_str(match op {
                TernOp::Subst => "!subst",
                TernOp::Foreach => "!foreach",
                TernOp::Filter => "!filter",
                TernOp::If => "!if",
                TernOp::Dag => "!dag",
                TernOp::Substr => "!substr",
                TernOp::Find => "!find",
            });
            out.push('(');
            if matches!(op, TernOp::Foreach | TernOp::Filter) {
                write_unquoted(rk, a, out);
            } else {
                write_init(rk, a, out);
            }
            out.push_str(", ");
            write_init(rk, b, out);
            out.push_str(", ");
            write_init(rk, c, out);
            out.push(')');
        }
        InitKind::Fold {
            start,
            list,
            a,
            b,
            expr,
            ..
        } => {
            out.push_str("!foldl(");
            write_init(rk, start, out);
            out.push_str(", ");
            write_init(rk, list, out);
            out.push_str(", ");
            write_unquoted(rk, a, out);
            out.push_str(", ");
            write_unquoted(rk, b, out);
            out.push_str(", ");
            write_init(rk, expr, out);
            out.push(')');
        }
        InitKind::IsA { check, expr } => {
            out.push_str("!isa<");
            check.write(rk, out);
            out.push_str(">(");
            write_init(rk, expr, out);
            out.push(')');
        }
        InitKind::Cond { conds, vals, .. } => {
            out.push_str("!cond(");
            for (k, (c, v)) in conds.iter().zip(vals).enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_init(rk, c, out);
                out.push_str(": ");
                write_init(rk, v, out);
            }
            out.push(')');
        }
        InitKind::VarDef { class, args, .. } => {
            out.push_str(rk.name(*class));
            out.push('<');
            write_list(rk, args.iter(), out);
            out.push('>');
        }
        InitKind::AnonymousName(n) => {
            let _ = write!(out, "anonymous_{n}");
        }
    }
}

/// The record type of a class used as a type.
pub fn class_ty(rk: &RecordKeeper, class: RecId) -> RecTy {
    record_ty(rk, vec![class])
}
