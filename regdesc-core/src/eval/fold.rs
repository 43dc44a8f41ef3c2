//! Folding (llvm-tblgen's `Fold`): evaluating an operator whose operands
//! are known enough, for `!cast`, `!foreach`, `!cond`, `Class<args>` and
//! every other bang operator and field access.

use super::convert::*;
use super::error::EvalError;
use super::instantiate::instantiate;
use super::print::{to_string, unquoted};
use super::record::*;
use super::resolve::{resolve, same, MapResolver, TrackUnresolvedResolver};
use super::state::{Ctx, CurRec};
use super::types::{convertible, def_type, type_is_a};

/// `Fold`: simplifies an operator whose operands allow it.
pub fn fold(ctx: &mut Ctx, i: &Init, cur: Option<&CurRec>, is_final: bool) -> Init {
    match &**i {
        InitKind::UnOp { op, arg, ty } => fold_unop(ctx, i, *op, arg, ty, cur, is_final),
        InitKind::BinOp { op, lhs, rhs, .. } => fold_binop(ctx, i, *op, lhs, rhs, cur),
        InitKind::TernOp { op, a, b, c, ty } => fold_ternop(ctx, i, *op, a, b, c, ty, cur),
        InitKind::Fold(f) => {
            let FoldInit {
                start,
                list: l,
                a,
                b,
                expr,
                ..
            } = &**f;
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
            let e = EvalError::NoTrueCondition {
                record: cur.map(|c| unquoted(&ctx.rk, &c.name)).unwrap_or_default(),
                cond: to_string(&ctx.rk, i),
                span: ctx.fold_span(cur),
            };
            ctx.report(e);
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
    let e = EvalError::CastType {
        expected: ty.display(&ctx.rk),
        found: dt.display(&ctx.rk),
        expr: to_string(&ctx.rk, me),
        span: ctx.fold_span(cur),
    };
    ctx.report(e);
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
                        _ => match ctx.def_ids.get(&ctx.rk, &name) {
                            Some(d) => d,
                            None => {
                                if is_final {
                                    let e = EvalError::UndefinedRecord {
                                        name: name.to_string(),
                                        span: ctx.fold_span(cur),
                                    };
                                    ctx.report(e);
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
                    let e = EvalError::DagOperatorNotRecord {
                        value: to_string(&ctx.rk, op),
                        span: ctx.fold_span(cur),
                    };
                    ctx.report(e);
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
                        let e = EvalError::DagOperatorMismatch {
                            lhs: to_string(&ctx.rk, lhs),
                            rhs: to_string(&ctx.rk, rhs),
                            span: ctx.fold_span(cur),
                        };
                        ctx.report(e);
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
            // The result is a plain string even when the operands are code.
            if let (Some((x, _)), Some((y, _)), Some((z, _))) = (as_str(a), as_str(b), as_str(c)) {
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
                    let e = EvalError::StartOutOfRange {
                        op: "!substr",
                        size,
                        start: *start,
                        span: ctx.fold_span(cur),
                    };
                    ctx.report(e);
                    return me.clone();
                }
                if *len < 0 {
                    let e = EvalError::NegativeLength {
                        span: ctx.fold_span(cur),
                    };
                    ctx.report(e);
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
                    let e = EvalError::StartOutOfRange {
                        op: "!find",
                        size,
                        start: *start,
                        span: ctx.fold_span(cur),
                    };
                    ctx.report(e);
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

/// `FieldInit::Fold`.
pub fn fold_field(ctx: &mut Ctx, f: &Init, cur: Option<&CurRec>) -> Init {
    let InitKind::Field { rec, field, .. } = &**f else {
        return f.clone();
    };
    if let InitKind::Def(id) = &**rec {
        if let Some(c) = cur {
            if c.id == Some(*id) {
                let e = EvalError::SelfReference {
                    field: field.to_string(),
                    record: ctx.rk.name(*id).to_string(),
                    span: ctx.fold_span(cur),
                };
                ctx.report(e);
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
