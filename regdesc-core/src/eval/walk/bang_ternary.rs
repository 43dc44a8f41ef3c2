//! The ternary bang operators (`!if`, `!dag`, `!subst`, `!foreach`,
//! `!filter`, `!substr`, `!find`) and `!foldl`: operand types, the result
//! type, the iteration variables, and the folded node.

use super::*;

impl<'a> Evaluator<'a> {
    /// An operand that must be an identifier (an iteration variable).
    fn ident_arg(&mut self, e: &Expr, what: &str) -> R<Init> {
        match &e.kind {
            ExprKind::Id(i) => Ok(str_init(&i.name)),
            _ => self.invalid_operator(e.span, what),
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
            self.rec_mut(pr).fields.open().push(RecordVal::declare(
                name,
                t.clone(),
                false,
                false,
                SpanId::default(),
            ));
        }
        let r = f(self, pr);
        for (n, _) in vars {
            let name = n.as_str().unwrap_or_default().to_string();
            let vals = self.rec_mut(pr).fields.open();
            if let Some(k) = vals.iter().rposition(|v| *v.name == *name) {
                vals.remove(k);
            }
        }
        if temp && self.ctx.rk.records.len() == pr as usize + 1 {
            self.ctx.rk.records.pop();
        }
        r
    }

    /// `!if`, `!dag`, `!subst`.
    pub(super) fn ternop(
        &mut self,
        op: BangOp,
        op_span: Span,
        args: &[Expr],
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
                        return self.type_error(args[1].span, msg);
                    }
                }
                let ct = type_of(self.rk(), &c);
                if let Some(t) = &ct {
                    if *t != RecTy::String.list_of() {
                        let msg = format!("expected list<string>, got type '{}'", self.ty_str(t));
                        return self.type_error(args[2].span, msg);
                    }
                }
                if bt.is_none() && ct.is_none() {
                    return self.invalid_operator(
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
                    return self.untyped(op_span, "could not get type for !if");
                };
                match resolve_types(self.rk(), &bt, &ct) {
                    Some(t) => ty = Some(t),
                    None => {
                        let msg = format!(
                            "inconsistent types '{}' and '{}' for !if",
                            self.ty_str(&bt),
                            self.ty_str(&ct)
                        );
                        return self.type_error(op_span, msg);
                    }
                }
            }
            _ => {
                let Some(t) = type_of(self.rk(), &c) else {
                    return self.untyped(op_span, "could not get type for !subst");
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

    /// `!foreach`, `!filter`.
    pub(super) fn foreach_filter(
        &mut self,
        op: BangOp,
        op_span: Span,
        args: &[Expr],
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
                return self.fail(EvalError::IterationVariableRedefined {
                    name: lname,
                    span: args[0].span,
                });
            }
        }
        let mhs = self.value(&args[1], cur, None, Mode::Value)?;
        let Some(mt) = type_of(self.rk(), &mhs) else {
            return self.untyped(
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
                        return self.type_error(op_span, msg);
                    }
                    None => None,
                };
                ((**e).clone(), expr_elt, false)
            }
            RecTy::Dag => {
                if !is_foreach {
                    return self.type_error(args[1].span, "!filter must have a list argument");
                }
                if let Some(it) = item {
                    if *it != RecTy::Dag {
                        let msg = format!(
                            "expected value of type '{}', but got dag type",
                            self.ty_str(it)
                        );
                        return self.type_error(op_span, msg);
                    }
                }
                (RecTy::Dag, None, true)
            }
            _ => {
                return self.type_error(
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
                return self.untyped(
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

    /// `!foldl(start, list, acc, elem, expr)`.
    pub(super) fn foldl(&mut self, op_span: Span, args: &[Expr], cur: Option<RecId>) -> R<Init> {
        self.nargs(BangOp::Foldl, op_span, args, 5, 5)?;
        let start = self.value(&args[0], cur, None, Mode::Value)?;
        let Some(st) = type_of(self.rk(), &start) else {
            let s = self.s(&start);
            return self.untyped(
                args[0].span,
                format!("could not get type of !foldl start: '{s}'"),
            );
        };
        let l = self.value(&args[1], cur, None, Mode::Value)?;
        let Some(lt) = type_of(self.rk(), &l) else {
            let s = self.s(&l);
            return self.untyped(
                args[1].span,
                format!("could not get type of !foldl list: '{s}'"),
            );
        };
        let RecTy::List(elt) = lt else {
            let msg = format!(
                "!foldl list must be a list, but is of type '{}'",
                self.ty_str(&lt)
            );
            return self.type_error(args[1].span, msg);
        };
        let a = self.ident_arg(&args[2], "third argument of !foldl must be an identifier")?;
        let b = self.ident_arg(&args[3], "fourth argument of !foldl must be an identifier")?;
        if let Some(c) = cur {
            for (v, side, span) in [(&a, "left", args[2].span), (&b, "right", args[3].span)] {
                let name = v.as_str().unwrap_or_default().to_string();
                if self.rec(c).value(&name).is_some() {
                    return self.fail(EvalError::FoldVariableRedefined { side, name, span });
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
            return self.untyped(body.span, "could not get type of !foldl expression");
        };
        if et != st {
            let msg = format!(
                "!foldl expression must be of same type as start ({}), but is of type {}",
                self.ty_str(&st),
                self.ty_str(&et)
            );
            return self.type_error(body.span, msg);
        }
        let f: Init = InitKind::Fold(Box::new(FoldInit {
            start,
            list: l,
            a,
            b,
            expr,
            ty: st,
        }))
        .into();
        Ok(self.fold_in(f, cur))
    }

    /// `!substr`, `!find`.
    pub(super) fn substr_find(
        &mut self,
        op: BangOp,
        op_span: Span,
        args: &[Expr],
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
                return self.type_error(op_span, msg);
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
                    let span = args.get(k).map_or(op_span, |a| a.span);
                    return self.type_error(span, msg);
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
