//! Expressions (`ParseValue`, `ParseSimpleValue`): identifiers, literals,
//! lists, bits, dags, pastes, slices, field accesses and `!cond`.

use super::*;

impl<'a> Evaluator<'a> {
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
        self.fail(EvalError::UndefinedVariable {
            name: name.to_string(),
            is_class: self.ctx.class_ids.contains_key(name),
            span,
        })
    }

    /// `ParseValue`.
    pub(super) fn value(
        &mut self,
        e: &Expr,
        cur: Option<RecId>,
        item: Option<&RecTy>,
        mode: Mode,
    ) -> R<Init> {
        if self.ctx.depth >= MAX_DEPTH {
            return self.fail(EvalError::ExpressionTooDeep { span: e.span });
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
        e: &Expr,
        cur: Option<RecId>,
        item: Option<&RecTy>,
        mode: Mode,
    ) -> R<Init> {
        match &e.kind {
            ExprKind::Paste { lhs, rhs } => {
                let l = self.value(lhs, cur, item, mode)?;
                let Some(lt) = type_of(self.rk(), &l) else {
                    return self.untyped(e.span, "LHS of paste is not typed!");
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
                            return self.untyped(rhs.span, "RHS of paste is not typed!");
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
                Ok(str_concat(l, r))
            }
            ExprKind::BitSlice { base, ranges } => {
                let b = self.value(base, cur, item, mode)?;
                let mut rl = self.range_list(ranges)?;
                rl.reverse();
                match bit_range(self.rk(), &b, &rl) {
                    Some(v) => Ok(v),
                    None => self.fail(EvalError::InvalidBitRange {
                        value_ty: type_of(self.rk(), &b).map(|t| self.ty_str(&t)),
                        span: e.span,
                    }),
                }
            }
            ExprKind::ListSlice { base, ranges } => {
                let b = self.value(base, cur, item, mode)?;
                let rl = self.range_list(ranges)?;
                match list_slice(self.rk(), &b, &rl) {
                    Some(v) => Ok(v),
                    None => self.fail(EvalError::InvalidListSlice { span: e.span }),
                }
            }
            ExprKind::Field { base, field } => {
                let b = self.value(base, cur, item, mode)?;
                let Some(ft) = field_type(self.rk(), &b, &field.name) else {
                    return self.fail(EvalError::NoSuchField {
                        field: field.name.to_string(),
                        value: self.s(&b),
                        span: field.span,
                    });
                };
                let f: Init = InitKind::Field {
                    rec: b,
                    field: (&*field.name).into(),
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
        e: &Expr,
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
                let Some(&c) = self.ctx.class_ids.get(&*class.name) else {
                    return self.fail(EvalError::ExpectedClassName {
                        name: class.name.to_string(),
                        span: class.span,
                    });
                };
                let a = self.template_arg_values(args, cur, c, e.span, true)?;
                let targs = self.rec(c).template_args.clone();
                for (i, ta) in targs.iter().enumerate().skip(a.len()) {
                    let complete = self.rec(c).get(ta).is_some_and(is_complete);
                    if !complete {
                        return self.fail(EvalError::MissingTemplateArg {
                            arg: ta.to_string(),
                            index: i,
                            class: self.rec(c).name.clone(),
                            span: class.span,
                        });
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
                            return self.type_error(
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
                        return self.type_error(
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
                                    return self.fail(EvalError::ListElementTypes {
                                        conflict: Some((self.ty_str(&t), self.ty_str(&prev))),
                                        span: x.span,
                                    });
                                }
                            },
                            None => Some(t),
                        };
                    }
                }
                if let Some(g) = given_elt {
                    if let Some(t) = &elt {
                        if !convertible(self.rk(), t, &g) {
                            return self.fail(EvalError::ListElementTypes {
                                conflict: None,
                                span: e.span,
                            });
                        }
                    }
                    elt = Some(g);
                }
                let deduced = match elt {
                    None => match given {
                        Some(g) => g,
                        None => return self.untyped(e.span, "No type for list"),
                    },
                    Some(t) => {
                        if let Some(g) = &given {
                            if !convertible(self.rk(), &t, g) {
                                let msg = format!(
                                    "Element type mismatch for list: element type '{}' not convertible to '{}",
                                    self.ty_str(&t),
                                    self.ty_str(g)
                                );
                                return self.type_error(e.span, msg);
                            }
                        }
                        t
                    }
                };
                Ok(list(vals, deduced))
            }
            ExprKind::Dag { op, args } => {
                let Some(opv) = &op.value else {
                    return self.fail(EvalError::Malformed {
                        message: "expected identifier in dag init",
                        span: op.span,
                    });
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
                    return self.fail(EvalError::Malformed {
                        message: "expected identifier in dag init",
                        span: opv.span,
                    });
                }
                let o = self.value(opv, cur, None, Mode::Value)?;
                let oname = op.name.as_ref().map(|n| Rc::<str>::from(&*n.name));
                let mut a = Vec::with_capacity(args.len());
                for da in args {
                    let v = match &da.value {
                        Some(x) => self.value(x, cur, None, Mode::Value)?,
                        None => Init::unset(),
                    };
                    a.push((v, da.name.as_ref().map(|n| Rc::<str>::from(&*n.name))));
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
            } => self.operation(*op, *op_span, type_arg.as_deref(), args, cur, item),
            ExprKind::Paste { .. }
            | ExprKind::BitSlice { .. }
            | ExprKind::ListSlice { .. }
            | ExprKind::Field { .. } => self.value(e, cur, item, mode),
        }
    }

    fn op_cond(
        &mut self,
        e: &Expr,
        clauses: &[(Expr, Expr)],
        cur: Option<RecId>,
        item: Option<&RecTy>,
    ) -> R<Init> {
        if clauses.is_empty() {
            return self.invalid_operator(
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
                        return self.type_error(e.span, msg);
                    }
                },
                (Some(t), None) => Some(t),
            };
        }
        let Some(ty) = ty else {
            return self.untyped(
                e.span,
                "could not determine type for !cond from its arguments",
            );
        };
        let c: Init = InitKind::Cond {
            conds: conds.into(),
            vals: vals.into(),
            ty,
        }
        .into();
        Ok(self.fold_in(c, cur))
    }
}
