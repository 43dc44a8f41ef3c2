//! Records as a whole: instantiating an anonymous class (`Class<args>`),
//! resolving every field of a record (with a template-argument map, or
//! finally against the record itself), and checking `assert`s.

use super::convert::*;
use super::error::EvalError;
use super::print::unquoted;
use super::record::*;
use super::resolve::{is_leaf, name_eq, resolve, same, MapResolver, RecordResolver, Resolver};
use super::state::{Ctx, CurRec, VarDefKey, MAX_DEPTH, RED_ZONE, STACK_SEGMENT};
use crate::syntax::Span;

/// `VarDefInit::instantiate`: makes (or reuses) the anonymous def for `Class<args>`.
pub fn instantiate(ctx: &mut Ctx, class: RecId, args: &[Init], site: Span) -> Init {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
        instantiate_inner(ctx, class, args, site)
    })
}

fn instantiate_inner(ctx: &mut Ctx, class: RecId, args: &[Init], site: Span) -> Init {
    let key = VarDefKey::new(class, args);
    if let Some(&d) = ctx.vardef_cache.get(&key) {
        return Init::def(d);
    }
    if ctx.depth >= MAX_DEPTH {
        if !ctx.depth_exceeded {
            ctx.depth_exceeded = true;
            let e = EvalError::InstantiationTooDeep {
                class: ctx.rk.name(class).to_string(),
                limit: MAX_DEPTH,
                span: site,
            };
            ctx.report(e);
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
    let cls = ctx.rk.record(class);
    let (cls_span, cls_targs, cls_supers) = (
        cls.span,
        cls.template_args.clone(),
        cls.superclasses.clone(),
    );
    let mut rec = Record {
        id: u32::MAX,
        name: String::new(),
        name_init: name.clone(),
        is_class: false,
        is_anonymous: true,
        span: cls_span,
        template_args: ThinVec::new(),
        fields: Fields::Open(cls.fields.to_open()),
        superclasses: ThinVec::new(),
        instantiated_from: ThinVec::new(),
        assertions: cls.assertions.clone(),
    };
    rec.name = unquoted(&ctx.rk, &name);
    let cur = CurRec {
        id: None,
        name: name.clone(),
        span: cls_span,
    };
    let mut r = MapResolver::with_capacity(Some(cur), cls_targs.len());
    for (k, ta) in cls_targs.iter().enumerate() {
        if k < args.len() {
            r.set_str(ta.clone(), args[k].clone());
        } else {
            let v = rec.get(ta).cloned().unwrap_or_else(Init::unset);
            r.set_str(ta.clone(), v);
        }
    }
    // The arguments' fields go, in one pass (a template argument's field
    // is named `Class:arg`, which no other field can be).
    if !cls_targs.is_empty() {
        rec.fields
            .open()
            .retain(|v| !(v.is_template_arg && cls_targs.iter().any(|t| name_eq(t, &v.name))));
    }
    resolve_record(ctx, &mut rec, &mut r);
    rec.superclasses = cls_supers;
    rec.superclasses.push(class);
    let id = ctx.rk.records.len() as RecId;
    rec.id = id;
    ctx.rk.records.push(rec);
    // Final resolution, in place.
    let cur = CurRec {
        id: Some(id),
        name: name.clone(),
        span: cls_span,
    };
    resolve_record_final(ctx, id, None, cur);
    ctx.def_ids.insert(&ctx.rk, id);
    ctx.vardef_cache.insert(key, id);
    check_record_assertions(ctx, id);
    ctx.rk.pack_fields(id);
    ctx.depth -= 1;
    Init::def(id)
}

/// Resolves every field (and the name) of a record with `r`.
pub fn resolve_record(ctx: &mut Ctx, rec: &mut Record, r: &mut dyn Resolver) {
    let new_name = resolve(ctx, &rec.name_init, r);
    if !same(&new_name, &rec.name_init) {
        rec.name = unquoted(&ctx.rk, &new_name);
        rec.name_init = new_name;
    }
    for val in rec.fields.open().iter_mut() {
        if is_leaf(&val.value) {
            continue;
        }
        let v = val.value.clone();
        let nv = resolve(ctx, &v, r);
        if !same(&nv, &v) {
            store_resolved(ctx, val, nv, rec.span);
        }
    }
    for a in rec.assertions.iter_mut() {
        a.cond = resolve(ctx, &a.cond, r);
        a.message = resolve(ctx, &a.message, r);
    }
}

/// Stores a field's resolved value, cast to the field's type; reports
/// (at `span`, the record) a value that no longer fits the type.
fn store_resolved(ctx: &mut Ctx, val: &mut RecordVal, nv: Init, span: Span) {
    match set_value_cast(ctx, &nv, &val.ty) {
        Some(v) => val.value = v,
        None => {
            let e = EvalError::ResolvedFieldType {
                field: val.name.to_string(),
                field_ty: val.ty.display(&ctx.rk),
                value_ty: type_of(&ctx.rk, &nv).map(|t| t.display(&ctx.rk)),
                value: unquoted(&ctx.rk, &nv),
                span,
            };
            ctx.report(e);
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
    let mut fields = std::mem::take(&mut ctx.rk.records[id as usize].fields);
    let values = fields.open();
    let mut assertions = std::mem::take(&mut ctx.rk.records[id as usize].assertions);
    let vals = values
        .iter()
        .map(|v| (v.name.clone(), v.value.clone()))
        .collect();
    let mut r = RecordResolver::with_values(vals, new_name, cur);
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
        if is_leaf(&val.value) {
            continue;
        }
        let v = val.value.clone();
        let nv = resolve(ctx, &v, &mut r);
        if !same(&nv, &v) {
            store_resolved(ctx, val, nv, span);
            r.vals[k].1 = val.value.clone();
        }
    }
    for a in assertions.iter_mut() {
        a.cond = resolve(ctx, &a.cond, &mut r);
        a.message = resolve(ctx, &a.message, &mut r);
    }
    let rec = &mut ctx.rk.records[id as usize];
    rec.fields = fields;
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
            ctx.report(EvalError::AssertionFailed { message: m, span });
        }
        Some(_) => {}
        None => ctx.report(EvalError::AssertConditionType { span }),
    }
}
