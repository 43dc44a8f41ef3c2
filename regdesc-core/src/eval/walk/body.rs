//! Record bodies: fields (`AddValue`, `SetValue`), `let`s, superclasses
//! and their template arguments, and `class` statements.

use super::*;

impl<'a> Evaluator<'a> {
    /// `AddValue`.
    fn add_value(&mut self, rec: &mut Record, span: Span, rv: RecordVal) -> R<()> {
        let vals = rec.fields.open();
        if let Some(k) = vals.iter().position(|v| v.name == rv.name) {
            let ty = vals[k].ty.clone();
            match set_value_cast(&mut self.ctx, &rv.value, &ty) {
                Some(v) => vals[k].value = v,
                None => {
                    return self.fail(EvalError::FieldRedeclared {
                        field: rv.name.to_string(),
                        new_ty: self.ty_str(&rv.ty),
                        old_ty: self.ty_str(&ty),
                        span,
                    });
                }
            }
        } else {
            push_new_value(rec, rv);
        }
        Ok(())
    }

    /// `SetValue`.
    fn set_value(&mut self, rec: &mut Record, a: &Assignment) -> R<()> {
        let (name, span) = (&*a.name, a.span);
        let Some(k) = rec.fields.position(name) else {
            return self.fail(EvalError::UnknownField {
                name: name.to_string(),
                span,
            });
        };
        let mut v = a.value.clone();
        if a.bits.is_empty() {
            if let InitKind::Var { name: vn, .. } = &*v {
                if vn.as_str() == Some(name) {
                    return self.fail(EvalError::SelfAssignment { span });
                }
            }
        } else {
            let cur = rec.fields.open()[k].value.clone();
            let InitKind::Bits(curbits) = &*cur else {
                return self.type_error(span, format!("Value '{name}' is not a bits type"));
            };
            let Some(bi) = cast_to(&mut self.ctx, &v, &RecTy::Bits(a.bits.len() as u32)) else {
                return self.type_error(span, "Initializer is not compatible with bit range");
            };
            let mut newbits: Vec<Option<Init>> = vec![None; curbits.len()];
            for (i, &b) in a.bits.iter().enumerate() {
                let Some(slot) = newbits.get_mut(b as usize) else {
                    return self.fail(EvalError::BitOutOfRange {
                        bit: b,
                        field: name.to_string(),
                        width: curbits.len(),
                        span: a.bits_span,
                    });
                };
                if slot.is_some() {
                    return self.fail(EvalError::BitSetTwice {
                        bit: b,
                        field: name.to_string(),
                        span,
                    });
                }
                *slot = Some(get_bit(&self.ctx.rk, &bi, i as u32));
            }
            let nb: Vec<Init> = newbits
                .into_iter()
                .enumerate()
                .map(|(i, b)| b.unwrap_or_else(|| curbits[i].clone()))
                .collect();
            v = bits(nb);
        }
        let ty = rec.fields.open()[k].ty.clone();
        match set_value_cast(&mut self.ctx, &v, &ty) {
            Some(nv) => {
                let span = self.ctx.rk.intern_span(a.value_span);
                let f = &mut rec.fields.open()[k];
                f.value = nv;
                f.span = span;
                Ok(())
            }
            None => {
                let value_ty = match &*v {
                    InitKind::Bits(b) => Some(format!("bit initializer with length {}", b.len())),
                    _ => type_of(self.rk(), &v).map(|t| format!("'{}'", self.ty_str(&t))),
                };
                self.fail(EvalError::FieldType {
                    field: name.to_string(),
                    field_ty: self.ty_str(&ty),
                    value: self.s(&v),
                    value_ty,
                    span: a.value_span,
                })
            }
        }
    }

    /// `AddSubClass`.
    fn add_subclass(&mut self, rec: &mut Record, sc_ref: &SubClassRef) -> R<()> {
        let sc = self.rec(sc_ref.rec);
        let sc_values = sc.fields.to_open();
        let sc_targs = sc.template_args.clone();
        let sc_supers = sc.superclasses.clone();
        let sc_asserts = sc.assertions.clone();
        let cur = CurRec {
            id: if rec.id != u32::MAX {
                Some(rec.id)
            } else {
                None
            },
            name: rec.name_init.clone(),
            span: rec.span,
        };
        let mut r = MapResolver::with_capacity(Some(cur.clone()), sc_targs.len() + 1);
        // Most of the class's fields are new to the record: grow it once.
        rec.fields.open().reserve(sc_values.len());
        // A record with no fields yet but its template arguments (whose
        // `Record:arg` names no field can have) takes the first class's
        // fields as they are: they are distinct already, so `AddValue`'s
        // search for an earlier one (linear in the fields so far, so
        // quadratic over a record) can only fail.
        let fresh = rec.fields.iter().all(|v| v.is_template_arg);
        for f in sc_values {
            if f.is_template_arg {
                r.set_str(f.name.clone(), f.value);
            } else if fresh {
                push_new_value(rec, f);
            } else {
                self.add_value(rec, sc_ref.span, f)?;
            }
        }
        for (i, ta) in sc_targs.iter().enumerate() {
            if i < sc_ref.args.len() {
                r.set_str(ta.clone(), sc_ref.args[i].clone());
            } else if !r.get_str(ta).is_some_and(is_complete) {
                return self.fail(EvalError::MissingTemplateArg {
                    arg: ta.to_string(),
                    index: i,
                    class: self.rk().name(sc_ref.rec).to_string(),
                    span: sc_ref.span,
                });
            }
        }
        rec.assertions.extend(sc_asserts);
        let name = if rec.is_class {
            var_str(&format!("{}:NAME", rec.name), RecTy::String)
        } else {
            rec.name_init.clone()
        };
        r.set_str(self.name_key(sc_ref.rec), name);
        resolve_record(&mut self.ctx, rec, &mut r);
        for s in sc_supers {
            if rec.superclasses.contains(&s) {
                return self.fail(EvalError::DuplicateSuperclass {
                    class: self.rk().name(s).to_string(),
                    span: sc_ref.span,
                });
            }
            rec.superclasses.push(s);
        }
        if rec.superclasses.contains(&sc_ref.rec) {
            return self.fail(EvalError::DuplicateSuperclass {
                class: self.rk().name(sc_ref.rec).to_string(),
                span: sc_ref.span,
            });
        }
        rec.superclasses.push(sc_ref.rec);
        Ok(())
    }

    /// `Class:NAME` for class `class`, made once.
    fn name_key(&mut self, class: RecId) -> Rc<str> {
        let k = class as usize;
        if self.name_keys.len() <= k {
            self.name_keys.resize(k + 1, None);
        }
        if let Some(key) = &self.name_keys[k] {
            return key.clone();
        }
        let key: Rc<str> = format!("{}:NAME", self.rk().name(class)).into();
        self.name_keys[k] = Some(key.clone());
        key
    }

    fn apply_let_stack(&mut self, rec: &mut Record) -> R<()> {
        let stack = std::mem::take(&mut self.let_stack);
        let res = stack
            .iter()
            .flatten()
            .try_for_each(|a| self.set_value(rec, a));
        self.let_stack = stack;
        res
    }

    pub(super) fn apply_let_stack_entry(&mut self, e: &mut Entry) -> R<()> {
        match e {
            Entry::Rec(r) => self.apply_let_stack(r),
            Entry::Loop(l) => {
                for e in l.entries.iter_mut() {
                    self.apply_let_stack_entry(e)?;
                }
                Ok(())
            }
            Entry::Assert(_) => Ok(()),
        }
    }

    pub(super) fn add_subclass_entry(&mut self, e: &mut Entry, sc: &SubClassRef) -> R<()> {
        match e {
            Entry::Rec(r) => self.add_subclass(r, sc),
            Entry::Loop(l) => {
                for e in l.entries.iter_mut() {
                    self.add_subclass_entry(e, sc)?;
                }
                Ok(())
            }
            Entry::Assert(_) => Ok(()),
        }
    }

    /// Takes a record out of the keeper, applies `f`, puts it back.
    fn with_rec<T>(&mut self, id: RecId, f: impl FnOnce(&mut Self, &mut Record) -> R<T>) -> R<T> {
        let mut rec = self.ctx.rk.records.take(id as usize);
        let r = f(self, &mut rec);
        self.ctx.rk.records[id as usize] = rec;
        r
    }

    /// `ParseSubClassReference` for a class (not a multiclass).
    pub(super) fn subclass_ref(
        &mut self,
        cr: &syntax::ClassRef,
        cur: Option<RecId>,
    ) -> R<SubClassRef> {
        let c = self.class_id(&cr.name.name, cr.name.span)?;
        let args = self.template_arg_values(&cr.args, cur, c, cr.span, true)?;
        Ok(SubClassRef {
            rec: c,
            args,
            span: cr.span,
        })
    }

    /// `ParseTemplateArgValueList` + `CheckTemplateArgValues`.
    pub(super) fn template_arg_values(
        &mut self,
        args: &[Expr],
        cur: Option<RecId>,
        target: RecId,
        span: Span,
        check_types: bool,
    ) -> R<Vec<Init>> {
        let targs = self.rec(target).template_args.clone();
        let mut out = Vec::with_capacity(args.len());
        // Each argument's type, looked up once for both loops.
        let mut tys: Vec<Option<RecTy>> = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            if i >= targs.len() {
                return self.fail(EvalError::TooManyTemplateArgs {
                    count: i + 1,
                    class: self.rec(target).name.clone(),
                    takes: targs.len(),
                    span: a.span,
                });
            }
            let ty = self.rec(target).value(&targs[i]).map(|v| v.ty.clone());
            let v = self.value(a, cur, ty.as_ref(), Mode::Value)?;
            out.push(v);
            tys.push(ty);
        }
        if !check_types {
            return Ok(out);
        }
        // CheckTemplateArgValues
        for (i, (v, ty)) in out.iter_mut().zip(tys).enumerate() {
            let Some(ty) = ty else {
                continue;
            };
            if !is_typed(v) {
                continue;
            }
            match cast_to(&mut self.ctx, v, &ty) {
                Some(c) => *v = c,
                None => {
                    let found = type_of(self.rk(), v)
                        .map(|t| self.ty_str(&t))
                        .unwrap_or_default();
                    return self.fail(EvalError::TemplateArgType {
                        arg: targs[i].to_string(),
                        index: i,
                        found,
                        expected: self.ty_str(&ty),
                        value: self.s(v),
                        span: args.get(i).map_or(span, |a| a.span),
                    });
                }
            }
        }
        Ok(out)
    }

    // -----------------------------------------------------------------
    // Class

    pub(super) fn parse_class(&mut self, c: &syntax::ClassStmt) -> R<()> {
        let name = c.name.name.to_string();
        let id = if let Some(&id) = self.ctx.class_ids.get(&name) {
            let r = self.rec(id);
            if !r.fields.is_empty() || !r.superclasses.is_empty() || !r.template_args.is_empty() {
                let previous = r.span;
                return self.fail(EvalError::ClassRedefined {
                    name,
                    span: c.name.span,
                    previous,
                });
            }
            id
        } else {
            let rec = Record {
                name: name.clone(),
                name_init: str_init(&name),
                is_class: true,
                span: c.name.span,
                ..Default::default()
            };
            let id = self.push_record(rec);
            self.ctx.class_ids.insert(name.clone(), id);
            id
        };
        if c.is_forward_decl {
            return Ok(());
        }
        self.template_arg_list(&c.targs, Some(id))?;
        self.object_body(&c.body, id)?;
        self.check_unused_targs(id);
        // The class is complete: its fields were pushed one by one, into
        // vectors with up to twice the room they use (on X86.td, 26 MB of
        // the peak with multiclass defs).
        self.ctx.rk.pack_fields(id);
        Ok(())
    }

    pub(super) fn check_unused_targs(&mut self, id: RecId) {
        if !self.warn_unused_targs {
            return;
        }
        let r = self.rec(id);
        let mut warns = Vec::new();
        for ta in &r.template_args {
            if !self.used_targs.contains(&(id, ta.clone())) {
                warns.push(EvalError::UnusedTemplateArg {
                    name: ta.to_string(),
                    span: r.value(ta).map_or(r.span, |v| self.rk().span(v.span)),
                });
            }
        }
        for w in warns {
            self.ctx.report(w);
        }
    }

    /// `ParseTemplateArgList`: `cur` is the class; `None` means the current multiclass.
    pub(super) fn template_arg_list(
        &mut self,
        targs: &[syntax::TemplateArg],
        cur: Option<RecId>,
    ) -> R<()> {
        for ta in targs {
            let target = match cur {
                Some(c) => c,
                None => match &self.cur_mc {
                    Some((_, id, _)) => *id,
                    None => return Ok(()),
                },
            };
            let ty = self.parse_type(&ta.ty)?;
            if &*ta.name.name == "NAME" {
                return self.fail(EvalError::ReservedName { span: ta.name.span });
            }
            let qname: Rc<str> = match cur {
                Some(c) => format!("{}:{}", self.rec(c).name, ta.name.name).into(),
                None => format!("{}::{}", self.rec(target).name, ta.name.name).into(),
            };
            if self.rec(target).template_args.contains(&qname) {
                return self.fail(EvalError::NameRedefined {
                    scope: Scope::TemplateArg,
                    span: ta.name.span,
                });
            }
            let span = self.ctx.rk.intern_span(ta.name.span);
            let rv = RecordVal::declare(qname.clone(), ty.clone(), false, true, span);
            self.with_rec(target, |ev, rec| ev.add_value(rec, ta.name.span, rv))?;
            if let Some(d) = &ta.default {
                let value = self.value(d, cur, Some(&ty), Mode::Value)?;
                let a = Assignment::whole(qname.clone(), value, d.span);
                self.with_rec(target, |ev, rec| ev.set_value(rec, &a))?;
            }
            self.rec_mut(target).template_args.push(qname);
        }
        Ok(())
    }

    /// `ParseObjectBody`: parent classes, the let stack, then the body.
    pub(super) fn object_body(&mut self, body: &syntax::RecordBody, id: RecId) -> R<()> {
        for p in &body.parents {
            let scr = self.subclass_ref(p, Some(id))?;
            self.with_rec(id, |ev, rec| ev.add_subclass(rec, &scr))?;
        }
        self.with_rec(id, |ev, rec| ev.apply_let_stack(rec))?;
        self.scopes.push(Vec::new());
        let r = self.body_items(&body.items, id);
        self.scopes.pop();
        r
    }

    fn body_items(&mut self, items: &[syntax::BodyItem], id: RecId) -> R<()> {
        for it in items {
            match it {
                syntax::BodyItem::Assert(a) => self.parse_assert(a, Some(id))?,
                syntax::BodyItem::Defvar(d) => self.parse_defvar(d)?,
                syntax::BodyItem::Field {
                    is_field,
                    ty,
                    name,
                    value,
                    ..
                } => {
                    let t = self.parse_type(ty)?;
                    if &*name.name == "NAME" {
                        return self.fail(EvalError::ReservedName { span: name.span });
                    }
                    let span = self.ctx.rk.intern_span(name.span);
                    let rv =
                        RecordVal::declare((&*name.name).into(), t.clone(), *is_field, false, span);
                    self.with_rec(id, |ev, rec| ev.add_value(rec, name.span, rv))?;
                    if let Some(v) = value {
                        let val = self.value(v, Some(id), Some(&t), Mode::Value)?;
                        let a = Assignment::whole((&*name.name).into(), val, v.span);
                        self.with_rec(id, |ev, rec| ev.set_value(rec, &a))?;
                    }
                }
                syntax::BodyItem::Let(l) => {
                    let bits_span = Self::ranges_span(l.bits.as_deref()).unwrap_or(l.name.span);
                    let mut bl = match &l.bits {
                        Some(r) => self.range_list(r)?,
                        None => Vec::new(),
                    };
                    bl.reverse();
                    let Some(fty) = self.rec(id).value(&l.name.name).map(|v| v.ty.clone()) else {
                        return self.fail(EvalError::UnknownField {
                            name: l.name.name.to_string(),
                            span: l.name.span,
                        });
                    };
                    let ty = if !bl.is_empty() && matches!(fty, RecTy::Bits(_)) {
                        RecTy::Bits(bl.len() as u32)
                    } else {
                        fty
                    };
                    let value = self.value(&l.value, Some(id), Some(&ty), Mode::Value)?;
                    let a = Assignment {
                        name: (&*l.name.name).into(),
                        bits: bl,
                        bits_span,
                        value,
                        value_span: l.value.span,
                        span: l.name.span,
                    };
                    self.with_rec(id, |ev, rec| ev.set_value(rec, &a))?;
                }
            }
        }
        Ok(())
    }
}

/// `AddValue` of a field the record does not have: an unset `bits<n>`
/// becomes `n` unset bits.
fn push_new_value(rec: &mut Record, mut rv: RecordVal) {
    if let (RecTy::Bits(n), InitKind::Unset) = (&rv.ty, &*rv.value) {
        rv.value = bits(vec![Init::unset(); *n as usize]);
    }
    rec.fields.open().push(rv);
}
