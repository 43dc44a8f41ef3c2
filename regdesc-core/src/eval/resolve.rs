//! Resolution (llvm-tblgen's `resolveReferences`): replacing variables in
//! a value by what a [`Resolver`] maps them to, refolding every operator
//! whose operands changed.
//!
//! The resolvers mirror llvm-tblgen's: [`MapResolver`] (template arguments,
//! loop iterators, `NAME`), [`RecordResolver`] (a record's own fields, for
//! its final resolution), and the wrappers that shadow, track or detect
//! names.

use std::rc::Rc;

use super::convert::*;
use super::fold::{fold, fold_field};
use super::instantiate::instantiate;
use super::record::*;
use super::state::{Ctx, CurRec, RED_ZONE, STACK_SEGMENT};

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
/// allocation of the field or argument they name. Names that differ mostly
/// differ in length or in their last byte (template arguments share their
/// class's `Class:` prefix), which is tested before the bytes are compared.
#[inline]
pub fn name_eq(a: &Rc<str>, b: &Rc<str>) -> bool {
    Rc::ptr_eq(a, b) || (a.len() == b.len() && a.as_bytes().last() == b.as_bytes().last() && a == b)
}

/// Whether two values are equal (llvm-tblgen's `Init`s are unique, so it
/// compares pointers): the same allocation, or equal contents.
#[inline]
pub fn same(a: &Init, b: &Init) -> bool {
    Rc::ptr_eq(&a.0, &b.0)
        || (std::mem::discriminant(&*a.0) == std::mem::discriminant(&*b.0) && a == b)
}

/// Maps names to values (template arguments, iterators, `NAME`).
pub struct MapResolver {
    map: Vec<(Rc<str>, Init, Mapped)>,
    /// How many entries are [`Mapped::Resolving`] (out of the map, as far
    /// as lookups see).
    resolving: usize,
    pub cur: Option<CurRec>,
}

/// The state of a [`MapResolver`] entry.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mapped {
    /// As it was set: resolved against the other entries on first use.
    Set,
    /// Being resolved: llvm-tblgen takes it out of the map meanwhile, so
    /// that a value referring to itself stops there.
    Resolving,
    Resolved,
}

impl MapResolver {
    pub fn new(cur: Option<CurRec>) -> Self {
        MapResolver {
            map: Vec::new(),
            resolving: 0,
            cur,
        }
    }

    /// A resolver with room for `n` names (no regrowth while they are set).
    pub fn with_capacity(cur: Option<CurRec>, n: usize) -> Self {
        MapResolver {
            map: Vec::with_capacity(n),
            resolving: 0,
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
            if e.2 == Mapped::Resolving {
                self.resolving -= 1;
            }
            e.1 = value;
            e.2 = Mapped::Set;
        } else {
            self.map.push((key, value, Mapped::Set));
        }
    }

    pub fn get_str(&self, key: &str) -> Option<&Init> {
        self.map
            .iter()
            .find(|e| e.2 != Mapped::Resolving && &*e.0 == key)
            .map(|e| &e.1)
    }
}

impl Resolver for MapResolver {
    fn resolve(&mut self, ctx: &mut Ctx, name: &Init) -> Option<Init> {
        let InitKind::String { value: key, .. } = &**name else {
            return None;
        };
        let idx = self
            .map
            .iter()
            .position(|e| e.2 != Mapped::Resolving && name_eq(&e.0, key))?;
        if self.map[idx].2 == Mapped::Set && self.map.len() - self.resolving > 1 {
            // llvm-tblgen erases the entry, resolves its value against the
            // rest, and puts it back resolved: the entry stays where it is,
            // hidden meanwhile.
            self.map[idx].2 = Mapped::Resolving;
            self.resolving += 1;
            let v = self.map[idx].1.clone();
            let v = resolve(ctx, &v, self);
            self.map[idx].1 = v.clone();
            self.map[idx].2 = Mapped::Resolved;
            self.resolving -= 1;
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
    /// The resolved value of each field of `vals` asked for so far.
    cache: Vec<Option<Init>>,
    /// The name that resolved to the new name, and what it resolved to.
    name_cache: Option<(Init, Init)>,
    pub stack: Vec<Init>,
    pub cur: CurRec,
    pub is_final: bool,
}

impl RecordResolver {
    pub fn new(rec: &Record, cur: CurRec) -> Self {
        RecordResolver::with_values(
            rec.fields
                .iter()
                .map(|v| (v.name.clone(), v.value.clone()))
                .collect(),
            None,
            cur,
        )
    }

    /// Resolves against the fields `vals`; `new_name` replaces the record's
    /// name (`cur.name`).
    pub fn with_values(vals: Vec<(Rc<str>, Init)>, new_name: Option<Init>, cur: CurRec) -> Self {
        RecordResolver {
            cache: vec![None; vals.len()],
            vals,
            new_name,
            name_cache: None,
            stack: Vec::new(),
            cur,
            is_final: true,
        }
    }
}

impl Resolver for RecordResolver {
    fn resolve(&mut self, ctx: &mut Ctx, name: &Init) -> Option<Init> {
        let field = match &**name {
            InitKind::String { value, .. } => self.vals.iter().position(|(n, _)| name_eq(n, value)),
            _ => None,
        };
        let cached = match (field, &self.name_cache) {
            (Some(k), _) => self.cache[k].as_ref(),
            (None, Some((n, v))) if same(n, name) => Some(v),
            (None, _) => None,
        };
        if let Some(v) = cached {
            return Some(v.clone());
        }
        if self.stack.iter().any(|s| same(s, name)) {
            return None;
        }
        if let Some(k) = field {
            let fv = self.vals[k].1.clone();
            if fv.is_unset() {
                return None;
            }
            self.stack.push(name.clone());
            let v = resolve(ctx, &fv, self);
            self.stack.pop();
            self.cache[k] = Some(v.clone());
            return Some(v);
        }
        let nn = self.new_name.clone()?;
        if !same(name, &self.cur.name) {
            return None;
        }
        self.stack.push(name.clone());
        let v = resolve(ctx, &nn, self);
        self.stack.pop();
        self.name_cache = Some((name.clone(), v.clone()));
        Some(v)
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
// Resolution

/// `resolveReferences`.
#[inline]
pub fn resolve(ctx: &mut Ctx, i: &Init, r: &mut dyn Resolver) -> Init {
    if is_leaf(i) {
        return i.clone();
    }
    resolve_node(ctx, i, r)
}

fn resolve_node(ctx: &mut Ctx, i: &Init, r: &mut dyn Resolver) -> Init {
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
            // Built only once a bit changes.
            let mut out: Option<Vec<Init>> = None;
            let mut cache: Option<(Init, Init)> = None;
            for (k, cb) in bs.iter().enumerate() {
                if is_leaf(cb) {
                    if let Some(out) = &mut out {
                        out.push(cb.clone());
                    }
                    continue;
                }
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
                match &mut out {
                    Some(out) => out.push(nb),
                    None if !same(&nb, cb) => {
                        let mut v = Vec::with_capacity(bs.len());
                        v.extend_from_slice(&bs[..k]);
                        v.push(nb);
                        out = Some(v);
                    }
                    None => {}
                }
            }
            match out {
                Some(out) => bits(out),
                None => i.clone(),
            }
        }
        InitKind::List { elems, elem_ty } => match resolve_each(ctx, elems, r) {
            Some(out) => list(out, elem_ty.clone()),
            None => i.clone(),
        },
        InitKind::Dag { op, op_name, args } => {
            let nop = resolve(ctx, op, r);
            let mut changed = !Rc::ptr_eq(&nop.0, &op.0);
            // Built only once an argument changes.
            let mut nargs: Option<Vec<(Init, Option<Rc<str>>)>> = None;
            for (k, (a, n)) in args.iter().enumerate() {
                let na = if is_leaf(a) {
                    a.clone()
                } else {
                    resolve(ctx, a, r)
                };
                match &mut nargs {
                    Some(v) => v.push((na, n.clone())),
                    None if !Rc::ptr_eq(&na.0, &a.0) => {
                        let mut v = Vec::with_capacity(args.len());
                        v.extend_from_slice(&args[..k]);
                        v.push((na, n.clone()));
                        nargs = Some(v);
                    }
                    None => {}
                }
            }
            changed |= nargs.is_some();
            if changed {
                InitKind::Dag {
                    op: nop,
                    op_name: op_name.clone(),
                    args: nargs.unwrap_or_else(|| args.clone()),
                }
                .into()
            } else {
                i.clone()
            }
        }
        InitKind::Var { name, .. } => r.resolve(ctx, name).unwrap_or_else(|| i.clone()),
        InitKind::AnonymousName(_) => {
            let new = r.resolve(ctx, i).unwrap_or_else(|| i.clone());
            if r.is_final() {
                if let InitKind::AnonymousName(m) = &*new {
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
        InitKind::Fold(f) => {
            let FoldInit {
                start,
                list: l,
                a,
                b,
                expr,
                ty,
            } = &**f;
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
                InitKind::Fold(Box::new(FoldInit {
                    start: ns,
                    list: nl,
                    a: a.clone(),
                    b: b.clone(),
                    expr: ne,
                    ty: ty.clone(),
                })),
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
                        conds: nc.into(),
                        vals: nv.into(),
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

/// A value that resolves to itself whatever the resolver (no variables,
/// no operators): callers skip it.
#[inline]
pub fn is_leaf(i: &Init) -> bool {
    matches!(
        &**i,
        InitKind::Unset
            | InitKind::Bit(_)
            | InitKind::Int(_)
            | InitKind::String { .. }
            | InitKind::Def(_)
    )
}

/// Resolves every element of a list, in order; `None` when none changed
/// (then nothing is allocated).
fn resolve_each(ctx: &mut Ctx, elems: &[Init], r: &mut dyn Resolver) -> Option<Vec<Init>> {
    let mut out: Option<Vec<Init>> = None;
    for (k, e) in elems.iter().enumerate() {
        if is_leaf(e) {
            if let Some(out) = &mut out {
                out.push(e.clone());
            }
            continue;
        }
        let n = resolve(ctx, e, r);
        match &mut out {
            Some(out) => out.push(n),
            None if !Rc::ptr_eq(&n.0, &e.0) => {
                let mut v = Vec::with_capacity(elems.len());
                v.extend_from_slice(&elems[..k]);
                v.push(n);
                out = Some(v);
            }
            None => {}
        }
    }
    out
}

/// Builds a node from resolved operands and folds it against the
/// resolver's current record.
fn refold(ctx: &mut Ctx, r: &dyn Resolver, node: InitKind, is_final: bool) -> Init {
    let cur = r.cur().cloned();
    // The node goes into the allocation of the last one folded away, if
    // there is one (nested folds take their own).
    let rc = match ctx.refold_node.take() {
        Some(mut rc) => match Rc::get_mut(&mut rc) {
            Some(slot) => {
                *slot = node;
                rc
            }
            None => Rc::new(node),
        },
        None => Rc::new(node),
    };
    let i = Init(rc);
    let out = fold(ctx, &i, cur.as_ref(), is_final);
    let Init(mut rc) = i;
    // Nothing kept the node (the fold made something else): its operands
    // are let go now, its allocation kept for the next refold.
    if let Some(slot) = Rc::get_mut(&mut rc) {
        *slot = InitKind::Unset;
        ctx.refold_node = Some(rc);
    }
    out
}
