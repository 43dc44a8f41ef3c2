//! Bang operators (`ParseOperation`): the dispatch, operand counts, and the
//! unary and binary operators (operand types, result type, the folded
//! node). The ternary operators and `!foldl` are in `bang_ternary`.

use super::*;

impl<'a> Evaluator<'a> {
    /// Checks that `op` has between `min` and `max` operands.
    pub(super) fn nargs(
        &mut self,
        op: BangOp,
        span: Span,
        args: &[Expr],
        min: usize,
        max: usize,
    ) -> R<()> {
        if args.len() < min || args.len() > max {
            let want = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return self.fail(EvalError::OperandCount {
                op,
                want,
                found: args.len(),
                span,
            });
        }
        Ok(())
    }

    /// `!op<type>(...)`, `!op(...)`: parses the operator and its operands.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn operation(
        &mut self,
        op: BangOp,
        op_span: Span,
        type_arg: Option<&syntax::Type>,
        args: &[Expr],
        cur: Option<RecId>,
        item: Option<&RecTy>,
    ) -> R<Init> {
        use BangOp as B;
        let type_arg = match type_arg {
            None => None,
            Some(_) if !matches!(op, B::Cast | B::IsA | B::GetDagOp) => {
                return self.invalid_operator(op_span, format!("{op} does not take a type"));
            }
            Some(t) if t.kind == TypeKind::Code => {
                return self.fail(EvalError::CodeTypeArgument { span: t.span });
            }
            Some(t) => Some(t),
        };
        match op {
            B::Cast | B::Not | B::Head | B::Tail | B::Size | B::Empty | B::GetDagOp => {
                self.unop(op, op_span, type_arg, args, cur)
            }
            B::IsA => {
                let Some(t) = type_arg else {
                    return self.missing_type_arg(op, op_span);
                };
                self.nargs(op, op_span, args, 1, 1)?;
                let check = self.parse_type(t)?;
                let v = self.value(&args[0], cur, None, Mode::Value)?;
                let i: Init = InitKind::IsA { check, expr: v }.into();
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
            B::Cond => self.fail(EvalError::Malformed {
                message: "expected '(' after !cond operator",
                span: op_span,
            }),
        }
    }

    fn missing_type_arg<T>(&mut self, op: BangOp, span: Span) -> R<T> {
        self.invalid_operator(
            span,
            format!("expected type for {op}: write {op}<type>(...)"),
        )
    }

    /// `!cast`, `!not`, `!head`, `!tail`, `!size`, `!empty`, `!getdagop`.
    fn unop(
        &mut self,
        op: BangOp,
        op_span: Span,
        type_arg: Option<&syntax::Type>,
        args: &[Expr],
        cur: Option<RecId>,
    ) -> R<Init> {
        use BangOp as B;
        if op == B::Cast && type_arg.is_none() {
            return self.missing_type_arg(op, op_span);
        }
        self.nargs(op, op_span, args, 1, 1)?;
        let type_arg = match type_arg {
            Some(t) => Some(self.parse_type(t)?),
            None => None,
        };
        let (unop, mut ty) = match op {
            B::Not => (UnOp::Not, Some(RecTy::Int)),
            B::Head => (UnOp::Head, None),
            B::Tail => (UnOp::Tail, None),
            B::Size => (UnOp::Size, Some(RecTy::Int)),
            B::Empty => (UnOp::Empty, Some(RecTy::Int)),
            B::GetDagOp => {
                let t = type_arg.unwrap_or_else(|| RecTy::Record(Rc::default()));
                if !matches!(t, RecTy::Record(_)) {
                    return self
                        .invalid_operator(op_span, "type for !getdagop must be a record type");
                }
                (UnOp::GetDagOp, Some(t))
            }
            _ => (UnOp::Cast, type_arg),
        };
        let arg = self.value(&args[0], cur, None, Mode::Value)?;
        let at = type_of(self.rk(), &arg);
        if matches!(unop, UnOp::Empty | UnOp::Size)
            && !matches!(at, Some(RecTy::List(_) | RecTy::String | RecTy::Dag))
        {
            return self.type_error(
                args[0].span,
                "expected string, list, or dag type argument in unary operator",
            );
        }
        if matches!(unop, UnOp::Head | UnOp::Tail) {
            let Some(RecTy::List(elt)) = at else {
                return self.type_error(
                    args[0].span,
                    "expected list type argument in unary operator",
                );
            };
            // A literal list gives its first element's type, not the list's.
            let elt = match &*arg {
                InitKind::List { elems, .. } => {
                    let Some(first) = elems.first() else {
                        return self.invalid_operator(
                            args[0].span,
                            "empty list argument in unary operator",
                        );
                    };
                    let Some(t) = type_of(self.rk(), first) else {
                        return self
                            .untyped(args[0].span, "untyped list element in unary operator");
                    };
                    t
                }
                _ => (*elt).clone(),
            };
            ty = Some(if unop == UnOp::Head {
                elt
            } else {
                elt.list_of()
            });
        }
        let u: Init = InitKind::UnOp {
            op: unop,
            arg,
            ty: ty.unwrap_or(RecTy::Int),
        }
        .into();
        Ok(self.fold_in(u, cur))
    }

    /// The binary operators; those that take more operands (`!add`,
    /// `!strconcat`, `!con`, ...) fold them pairwise from the right.
    fn binop(
        &mut self,
        op: BangOp,
        op_span: Span,
        args: &[Expr],
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
        // The result type, if known up front, and the type every operand
        // must have (`None`: set by the first operand).
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
                return self.type_error(op_span, msg);
            }
        }
        if args.is_empty() {
            return self.fail(EvalError::ExpectedTwoOperands { span: op_span });
        }
        let mut vals: Vec<Init> = Vec::new();
        for (index, a) in args.iter().enumerate() {
            let v = self.value(a, cur, argty.as_ref(), Mode::Value)?;
            let Some(vt) = type_of(self.rk(), &v) else {
                let s = self.s(&v);
                return self.untyped(
                    op_span,
                    format!("expected value to be a typed value, got '{s}'"),
                );
            };
            vals.push(v);
            argty = match argty {
                None => self.first_operand(code, index, vt, a.span, op_span, item)?,
                Some(at) => {
                    let Some(resolved) = resolve_types(self.rk(), &at, &vt) else {
                        let msg = format!(
                            "expected value of type '{}', got '{}'",
                            self.ty_str(&at),
                            self.ty_str(&vt)
                        );
                        return self.type_error(a.span, msg);
                    };
                    Some(if arith { at } else { resolved })
                }
            };
            if code == BinOp::SetDagOp {
                argty = Some(RecTy::Record(Rc::default()));
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
                let (Some(rhs), Some(lhs)) = (vals.pop(), vals.pop()) else {
                    break;
                };
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
        let Ok([lhs, rhs]) = <[Init; 2]>::try_from(vals) else {
            return self.fail(EvalError::ExpectedTwoOperands { span: op_span });
        };
        let b: Init = InitKind::BinOp {
            op: code,
            lhs,
            rhs,
            ty,
        }
        .into();
        Ok(self.fold_in(b, cur))
    }

    /// Checks operand `index` (of type `vt`) of a binary operator when no
    /// earlier operand fixed its type; returns the type the following
    /// operands must have (`None` when each is checked on its own).
    fn first_operand(
        &mut self,
        code: BinOp,
        index: usize,
        vt: RecTy,
        span: Span,
        op_span: Span,
        item: Option<&RecTy>,
    ) -> R<Option<RecTy>> {
        let is_int = convertible(self.rk(), &vt, &RecTy::Int);
        let is_string = convertible(self.rk(), &vt, &RecTy::String);
        match code {
            BinOp::ListConcat if !matches!(vt, RecTy::List(_)) => {
                let msg = format!("expected a list, got value of type '{}'", self.ty_str(&vt));
                self.type_error(span, msg)
            }
            BinOp::ListSplat => {
                if let (Some(it), 0) = (item, index) {
                    let RecTy::List(want) = it else {
                        let msg = format!(
                            "expected output type to be a list, got type '{}'",
                            self.ty_str(it)
                        );
                        return self.type_error(op_span, msg);
                    };
                    if !convertible(self.rk(), &vt.clone().list_of(), it) {
                        let msg = format!(
                            "expected first arg type to be '{}', got value of type '{}'",
                            self.ty_str(&vt),
                            self.ty_str(want)
                        );
                        return self.type_error(op_span, msg);
                    }
                }
                if index == 1 && vt != RecTy::Int {
                    let msg = format!(
                        "expected second parameter to be an int, got value of type '{}'",
                        self.ty_str(&vt)
                    );
                    return self.type_error(span, msg);
                }
                Ok(None)
            }
            BinOp::Eq | BinOp::Ne
                if !is_int
                    && !is_string
                    && !convertible(self.rk(), &vt, &RecTy::Record(Rc::default())) =>
            {
                let msg = format!(
                    "expected bit, bits, int, string, or record; got value of type '{}'",
                    self.ty_str(&vt)
                );
                self.type_error(span, msg)
            }
            BinOp::Le | BinOp::Lt | BinOp::Ge | BinOp::Gt if !is_int && !is_string => {
                let msg = format!(
                    "expected bit, bits, int, or string; got value of type '{}'",
                    self.ty_str(&vt)
                );
                self.type_error(span, msg)
            }
            BinOp::Interleave => {
                if index == 0
                    && vt != RecTy::String.list_of()
                    && !convertible(self.rk(), &vt, &RecTy::Int.list_of())
                {
                    let msg = format!(
                        "expected list of string, int, bits, or bit; got value of type '{}'",
                        self.ty_str(&vt)
                    );
                    return self.type_error(span, msg);
                }
                if index == 1 && vt != RecTy::String {
                    let msg = format!(
                        "expected second argument to be a string, got value of type '{}'",
                        self.ty_str(&vt)
                    );
                    return self.type_error(span, msg);
                }
                Ok(None)
            }
            _ => Ok(Some(vt)),
        }
    }
}
