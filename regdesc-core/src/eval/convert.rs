//! Values and their types: constructors, the type of a value
//! (`getType`), bits (`getBit`), conversions (`convertInitializerTo`,
//! `getCastTo`), bit ranges and list slices, string and list
//! concatenation.

use std::rc::Rc;

use super::fold::fold;
use super::record::*;
use super::resolve::{is_leaf, same};
use super::state::Ctx;
use super::types::{convertible, def_type, record_ty, type_is_a};

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
        | InitKind::Cond { ty, .. } => ty.clone(),
        InitKind::Fold(f) => f.ty.clone(),
        InitKind::VarListElem { list, .. } => match type_of(rk, list) {
            Some(RecTy::List(e)) => (*e).clone(),
            _ => return None,
        },
        InitKind::VarDef { class, .. } => RecTy::Record(Rc::new(vec![*class])),
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
        InitKind::Bits(b) => b.iter().all(is_concrete_elem),
        InitKind::List { elems, .. } => elems.iter().all(is_concrete_elem),
        InitKind::Dag { op, args, .. } => {
            is_concrete_elem(op) && args.iter().all(|a| is_concrete_elem(&a.0))
        }
        _ => false,
    }
}

/// [`is_concrete`] for the elements of a value: leaves (most of them) are
/// answered without a call.
#[inline]
fn is_concrete_elem(i: &Init) -> bool {
    is_leaf(i) || is_concrete(i)
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

pub(super) fn as_int(rk: &RecordKeeper, i: &Init) -> Option<i64> {
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

pub(super) fn as_str(i: &Init) -> Option<(&Rc<str>, bool)> {
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
pub fn str_concat(a: Init, b: Init) -> Init {
    if let Some(c) = concat_strings(&a, &b) {
        return c;
    }
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

pub(super) fn dag_op_def(op: &Init) -> Option<RecId> {
    match &**op {
        InitKind::Def(id) => Some(*id),
        _ => None,
    }
}

/// The record type of a class used as a type.
pub fn class_ty(rk: &RecordKeeper, class: RecId) -> RecTy {
    record_ty(rk, vec![class])
}
