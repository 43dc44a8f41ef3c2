//! Bang operators (`ParseOperation`): operand counts and types, the
//! result type of each operator, and the operator node, folded.

use super::*;

impl<'a> Evaluator<'a> {
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
    pub(super) fn operation(
        &mut self,
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
            | B::SetDagOp => self.binop(op, op_span, args, cur, item),
            B::If | B::Dag | B::Subst => self.ternop(op, op_span, args, cur, item),
            B::Foreach | B::Filter => self.foreach_filter(op, op_span, args, cur, item),
            B::Foldl => self.foldl(op_span, args, cur),
            B::Substr | B::Find => self.substr_find(op, op_span, args, cur, item),
            B::Cond => self.err(op_span, "expected '(' after !cond operator"),
        }
    }

    #[allow(clippy::collapsible_match)]
    fn binop(
        &mut self,
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
                    let span = args.get(k).map_or(op_span, |a| a.span);
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
