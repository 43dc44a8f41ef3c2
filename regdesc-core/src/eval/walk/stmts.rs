//! The remaining statements (`defset`, `defvar`, `assert`, `foreach`,
//! `if`, top-level `let`) and range lists.

use super::*;

impl<'a> Evaluator<'a> {
    pub(super) fn parse_defset(&mut self, d: &syntax::DefsetStmt) -> R<()> {
        let t = self.parse_type(&d.ty)?;
        let RecTy::List(elt) = t else {
            return self.type_error(d.ty.span, "expected list type");
        };
        if self.get_global(&d.name.name).is_some() {
            return self.fail(EvalError::NameRedefined {
                scope: Scope::Global,
                span: d.name.span,
            });
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
                .insert(d.name.name.to_string(), list(ds.elems, ds.elt_ty));
        }
        Ok(())
    }

    pub(super) fn parse_defvar(&mut self, d: &syntax::Defvar) -> R<()> {
        let name: &str = &d.name.name;
        if let Some(scope) = self.scopes.last() {
            if scope.iter().any(|(n, _)| n.as_str() == name) {
                return self.fail(EvalError::NameRedefined {
                    scope: Scope::Local,
                    span: d.name.span,
                });
            }
        } else if self.get_global(name).is_some() {
            return self.fail(EvalError::NameRedefined {
                scope: Scope::Global,
                span: d.name.span,
            });
        }
        let v = self.value(&d.value, None, None, Mode::Value)?;
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), v));
        } else {
            self.extra_globals.insert(name.to_string(), v);
        }
        Ok(())
    }

    pub(super) fn get_global(&self, name: &str) -> Option<Init> {
        if let Some(d) = self.ctx.def_ids.get(&self.ctx.rk, name) {
            return Some(Init::def(d));
        }
        self.extra_globals.get(name).cloned()
    }

    pub(super) fn parse_assert(&mut self, a: &syntax::Assert, cur: Option<RecId>) -> R<()> {
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

    pub(super) fn parse_foreach(&mut self, f: &syntax::ForeachStmt) -> R<()> {
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

    fn foreach_decl(&mut self, f: &syntax::ForeachStmt) -> R<(Init, Init)> {
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
                            return self.invalid_range("expected integer or bitrange", e.span);
                        };
                        if *x < 0 {
                            return self.invalid_range("invalid range, cannot be negative", e.span);
                        }
                        ranges.push(*x as u32);
                    }
                    None => {
                        return self.fail(EvalError::ForeachNotList {
                            value: self.s(&v),
                            span: e.span,
                        });
                    }
                }
            }
        }
        let vals = ranges.into_iter().map(|x| Init::int(x as i64)).collect();
        Ok((var(name, RecTy::Int), list(vals, RecTy::Int)))
    }

    pub(super) fn parse_if(&mut self, i: &syntax::IfStmt) -> R<()> {
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

    pub(super) fn parse_top_let(&mut self, l: &syntax::LetStmt) -> R<()> {
        let mut recs = Vec::new();
        for it in &l.items {
            let mut bl = match &it.bits {
                Some(r) => self.range_list(r)?,
                None => Vec::new(),
            };
            bl.reverse();
            let v = self.value(&it.value, None, None, Mode::Value)?;
            recs.push(Assignment {
                name: (&*it.name.name).into(),
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

    pub(super) fn ranges_span(r: Option<&[RangePiece]>) -> Option<Span> {
        let r = r?;
        let first = r.first()?.span;
        Some(r.iter().fold(first, |a, p| a.to(p.span)))
    }

    fn invalid_range<T>(&mut self, message: &'static str, span: Span) -> R<T> {
        self.fail(EvalError::InvalidRange { message, span })
    }

    pub(super) fn range_list(&mut self, pieces: &[RangePiece]) -> R<Vec<u32>> {
        let mut out = Vec::new();
        for p in pieces {
            let s = self.value(&p.start, None, None, Mode::Value)?;
            let InitKind::Int(start) = &*s else {
                return self.invalid_range("expected integer or bitrange", p.start.span);
            };
            let start = *start;
            if start < 0 {
                return self.invalid_range("invalid range, cannot be negative", p.start.span);
            }
            let Some(end_e) = &p.end else {
                out.push(start as u32);
                continue;
            };
            let e = self.value(end_e, None, None, Mode::Value)?;
            let InitKind::Int(end) = &*e else {
                return self.invalid_range("expected integer value as end of range", end_e.span);
            };
            let end = *end;
            if end < 0 {
                return self.invalid_range("invalid range, cannot be negative", end_e.span);
            }
            let count = (start - end).unsigned_abs() as usize + 1;
            if count + out.len() > MAX_RANGE || start > u32::MAX as i64 || end > u32::MAX as i64 {
                return self.fail(EvalError::RangeTooLarge {
                    start,
                    end,
                    count,
                    limit: MAX_RANGE,
                    span: p.span,
                });
            }
            if start < end {
                out.extend((start..=end).map(|x| x as u32));
            } else {
                out.extend((end..=start).rev().map(|x| x as u32));
            }
        }
        Ok(out)
    }
}
