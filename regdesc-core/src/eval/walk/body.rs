//! Record bodies: fields (`AddValue`, `SetValue`), `let`s, superclasses
//! and their template arguments, and `class` statements.

use super::*;

impl<'a> Evaluator<'a> {
    /// `AddValue`.
    fn add_value(&mut self, rec: &mut Record, span: Span, rv: RecordVal) -> R<()> {
        if let Some(k) = rec.values.iter().position(|v| v.name == rv.name) {
            let ty = rec.values[k].ty.clone();
            match set_value_cast(&mut self.ctx, &rv.value, &ty) {
                Some(v) => rec.values[k].value = v,
                None => {
                    let msg = format!(
                        "New definition of '{}' of type '{}' is incompatible with previous definition of type '{}'",
                        rv.name,
                        self.ty_str(&rv.ty),
                        self.ty_str(&ty)
                    );
                    return self.err_code("regdesc::eval::type", span, msg);
                }
            }
        } else {
            let mut rv = rv;
            if let (RecTy::Bits(n), InitKind::Unset) = (&rv.ty, &*rv.value) {
                rv.value = bits(vec![Init::unset(); *n as usize]);
            }
            rec.values.push(rv);
        }
        Ok(())
    }

    /// `SetValue`.
    #[allow(clippy::too_many_arguments)]
    fn set_value(
        &mut self,
        rec: &mut Record,
        span: Span,
        name: &str,
        bitlist: &[u32],
        bits_span: Span,
        v: Init,
        value_span: Span,
        allow_self: bool,
    ) -> R<()> {
        let Some(k) = rec.values.iter().position(|x| &*x.name == name) else {
            return self.err_code(
                "regdesc::eval::unknown-field",
                span,
                format!("Value '{name}' unknown!"),
            );
        };
        if bitlist.is_empty() {
            if let InitKind::Var { name: vn, .. } = &*v {
                if vn.as_str() == Some(name) && !allow_self {
                    return self.err(span, "Recursion / self-assignment forbidden");
                }
            }
        }
        let mut v = v;
        if !bitlist.is_empty() {
            let cur = rec.values[k].value.clone();
            let InitKind::Bits(curbits) = &*cur else {
                return self.err_code(
                    "regdesc::eval::type",
                    span,
                    format!("Value '{name}' is not a bits type"),
                );
            };
            let Some(bi) = cast_to(&mut self.ctx, &v, &RecTy::Bits(bitlist.len() as u32)) else {
                return self.err_code(
                    "regdesc::eval::type",
                    span,
                    "Initializer is not compatible with bit range",
                );
            };
            let mut newbits: Vec<Option<Init>> = vec![None; curbits.len()];
            for (i, &b) in bitlist.iter().enumerate() {
                let Some(slot) = newbits.get_mut(b as usize) else {
                    return self.err_code(
                        "regdesc::eval::bit-range",
                        bits_span,
                        format!("Invalid bit range for value: bit #{b} of '{name}' does not exist (it has {} bits)", curbits.len()),
                    );
                };
                if slot.is_some() {
                    return self.err(
                        span,
                        format!("Cannot set bit #{b} of value '{name}' more than once"),
                    );
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
        let ty = rec.values[k].ty.clone();
        match set_value_cast(&mut self.ctx, &v, &ty) {
            Some(nv) => {
                rec.values[k].value = nv;
                rec.values[k].span = value_span;
                Ok(())
            }
            None => {
                let it = match &*v {
                    InitKind::Bits(b) => {
                        format!("' of type bit initializer with length {}", b.len())
                    }
                    _ => match type_of(self.rk(), &v) {
                        Some(t) => format!("' of type '{}", self.ty_str(&t)),
                        None => String::new(),
                    },
                };
                let msg = format!(
                    "Field '{name}' of type '{}' is incompatible with value '{}{it}'",
                    self.ty_str(&ty),
                    self.s(&v)
                );
                self.err_code("regdesc::eval::type", value_span, msg)
            }
        }
    }

    /// `AddSubClass`.
    fn add_subclass(&mut self, rec: &mut Record, sc_ref: &SubClassRef) -> R<()> {
        let sc = self.rec(sc_ref.rec);
        let sc_values = sc.values.clone();
        let sc_targs = sc.template_args.clone();
        let sc_supers = sc.superclasses.clone();
        let sc_asserts = sc.assertions.clone();
        let sc_name = sc.name.clone();
        let cur = CurRec {
            id: if rec.id != u32::MAX {
                Some(rec.id)
            } else {
                None
            },
            name: rec.name_init.clone(),
            span: rec.span,
        };
        let mut r = MapResolver::new(Some(cur.clone()));
        for f in sc_values {
            if f.is_template_arg {
                r.set_str(f.name.clone(), f.value);
            } else {
                self.add_value(rec, sc_ref.span, f)?;
            }
        }
        for (i, ta) in sc_targs.iter().enumerate() {
            if i < sc_ref.args.len() {
                r.set_str(ta.clone(), sc_ref.args[i].clone());
            } else if !r.get_str(ta).is_some_and(is_complete) {
                let msg = format!(
                    "Value not specified for template argument '{ta}' (#{i}) of parent class '{sc_name}'"
                );
                return self.err_code("regdesc::eval::template-args", sc_ref.span, msg);
            }
        }
        rec.assertions.extend(sc_asserts);
        let name = if rec.is_class {
            var_str(&format!("{}:NAME", rec.name), RecTy::String)
        } else {
            rec.name_init.clone()
        };
        r.set_str(format!("{sc_name}:NAME").into(), name);
        resolve_record(&mut self.ctx, rec, &mut r);
        for (s, span) in sc_supers {
            if rec.superclasses.iter().any(|(x, _)| *x == s) {
                let n = self.rk().name(s).to_string();
                return self.err(sc_ref.span, format!("Already subclass of '{n}'!\n"));
            }
            rec.superclasses.push((s, span));
        }
        if rec.superclasses.iter().any(|(x, _)| *x == sc_ref.rec) {
            return self.err(sc_ref.span, format!("Already subclass of '{sc_name}'!\n"));
        }
        rec.superclasses.push((sc_ref.rec, sc_ref.span));
        Ok(())
    }

    fn apply_let_stack(&mut self, rec: &mut Record) -> R<()> {
        let stack = std::mem::take(&mut self.let_stack);
        let mut res = Ok(());
        'outer: for level in &stack {
            for lr in level {
                if self
                    .set_value(
                        rec,
                        lr.span,
                        &lr.name,
                        &lr.bits,
                        lr.bits_span,
                        lr.value.clone(),
                        lr.value_span,
                        false,
                    )
                    .is_err()
                {
                    res = Err(());
                    break 'outer;
                }
            }
        }
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
        let mut rec = std::mem::take(&mut self.ctx.rk.records[id as usize]);
        let r = f(self, &mut rec);
        self.ctx.rk.records[id as usize] = rec;
        r
    }

    /// `ParseSubClassReference` for a class (not a multiclass).
    pub(super) fn subclass_ref(
        &mut self,
        cr: &'a syntax::ClassRef,
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
        args: &'a [Expr],
        cur: Option<RecId>,
        target: RecId,
        span: Span,
        check_types: bool,
    ) -> R<Vec<Init>> {
        let targs = self.rec(target).template_args.clone();
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            if i >= targs.len() {
                let n = self.rec(target).name.clone();
                let d = Diagnostic::error(
                    "regdesc::eval::template-args",
                    format!("Too many template arguments: {}", i + 1),
                    Some(a.span),
                )
                .with_label("unexpected argument")
                .with_help(format!("`{n}` takes {} template argument(s)", targs.len()));
                self.ctx.errors.push(d);
                return Err(());
            }
            let ty = self.rec(target).value(&targs[i]).map(|v| v.ty.clone());
            let v = self.value(a, cur, ty.as_ref(), Mode::Value)?;
            out.push(v);
        }
        if !check_types {
            return Ok(out);
        }
        // CheckTemplateArgValues
        for (i, v) in out.iter_mut().enumerate() {
            let Some(ty) = self.rec(target).value(&targs[i]).map(|v| v.ty.clone()) else {
                continue;
            };
            if !is_typed(v) {
                continue;
            }
            match cast_to(&mut self.ctx, v, &ty) {
                Some(c) => *v = c,
                None => {
                    let vt = type_of(self.rk(), v)
                        .map(|t| self.ty_str(&t))
                        .unwrap_or_default();
                    let msg = format!(
                        "Value specified for template argument '{}' (#{i}) is of type {vt}; expected type {}: {}",
                        targs[i],
                        self.ty_str(&ty),
                        self.s(v)
                    );
                    return self.err_code(
                        "regdesc::eval::type",
                        args.get(i).map_or(span, |a| a.span),
                        msg,
                    );
                }
            }
        }
        Ok(out)
    }

    // -----------------------------------------------------------------
    // Class

    pub(super) fn parse_class(&mut self, c: &'a syntax::ClassStmt) -> R<()> {
        let name = c.name.name.clone();
        let id = if let Some(&id) = self.ctx.class_ids.get(&name) {
            let r = self.rec(id);
            if !r.values.is_empty() || !r.superclasses.is_empty() || !r.template_args.is_empty() {
                let prev = r.span;
                self.ctx.errors.push(
                    Diagnostic::error(
                        "regdesc::eval::redefinition",
                        format!("Class '{name}' already defined"),
                        Some(c.name.span),
                    )
                    .with_label("redefined here")
                    .with_related(Some(prev), "previous definition"),
                );
                return Err(());
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
        Ok(())
    }

    pub(super) fn check_unused_targs(&mut self, id: RecId) {
        let r = self.rec(id);
        let mut warns = Vec::new();
        for ta in &r.template_args {
            if !self.used_targs.contains(&(id, ta.clone())) {
                let span = r.value(ta).map(|v| v.span).unwrap_or(r.span);
                warns.push(
                    Diagnostic::warning(
                        "regdesc::eval::unused-template-arg",
                        format!("unused template argument: {ta}"),
                        Some(span),
                    )
                    .with_label("never referenced"),
                );
            }
        }
        self.ctx.warnings.extend(warns);
    }

    /// `ParseTemplateArgList`: `cur` is the class; `None` means the current multiclass.
    pub(super) fn template_arg_list(
        &mut self,
        targs: &'a [syntax::TemplateArg],
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
            if ta.name.name == "NAME" {
                return self.err(ta.name.span, "'NAME' is a reserved variable name");
            }
            let qname: Rc<str> = match cur {
                Some(c) => format!("{}:{}", self.rec(c).name, ta.name.name).into(),
                None => format!("{}::{}", self.rec(target).name, ta.name.name).into(),
            };
            if self.rec(target).template_args.contains(&qname) {
                return self.err(
                    ta.name.span,
                    "template argument with the same name has already been defined",
                );
            }
            let rv = RecordVal {
                name: qname.clone(),
                ty: ty.clone(),
                value: Init::unset(),
                nonconcrete_ok: false,
                is_template_arg: true,
                span: ta.name.span,
            };
            self.with_rec(target, |ev, rec| ev.add_value(rec, ta.name.span, rv))?;
            if let Some(d) = &ta.default {
                let v = self.value(d, cur, Some(&ty), Mode::Value)?;
                self.with_rec(target, |ev, rec| {
                    ev.set_value(rec, d.span, &qname, &[], d.span, v, d.span, false)
                })?;
            }
            self.rec_mut(target).template_args.push(qname);
        }
        Ok(())
    }

    /// `ParseObjectBody`: parent classes, the let stack, then the body.
    pub(super) fn object_body(&mut self, body: &'a syntax::RecordBody, id: RecId) -> R<()> {
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

    fn body_items(&mut self, items: &'a [syntax::BodyItem], id: RecId) -> R<()> {
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
                    if name.name == "NAME" {
                        return self.err(name.span, "'NAME' is a reserved variable name");
                    }
                    let rv = RecordVal {
                        name: name.name.as_str().into(),
                        ty: t.clone(),
                        value: Init::unset(),
                        nonconcrete_ok: *is_field,
                        is_template_arg: false,
                        span: name.span,
                    };
                    self.with_rec(id, |ev, rec| ev.add_value(rec, name.span, rv))?;
                    if let Some(v) = value {
                        let val = self.value(v, Some(id), Some(&t), Mode::Value)?;
                        self.with_rec(id, |ev, rec| {
                            ev.set_value(rec, v.span, &name.name, &[], v.span, val, v.span, false)
                        })?;
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
                        let d = Diagnostic::error(
                            "regdesc::eval::unknown-field",
                            format!("Value '{}' unknown!", l.name.name),
                            Some(l.name.span),
                        )
                        .with_label("no such field in this record")
                        .with_help("declare the field (`Type name;`) in the record or one of its classes before `let`");
                        self.ctx.errors.push(d);
                        return Err(());
                    };
                    let ty = if !bl.is_empty() && matches!(fty, RecTy::Bits(_)) {
                        RecTy::Bits(bl.len() as u32)
                    } else {
                        fty
                    };
                    let val = self.value(&l.value, Some(id), Some(&ty), Mode::Value)?;
                    self.with_rec(id, |ev, rec| {
                        ev.set_value(
                            rec,
                            l.name.span,
                            &l.name.name,
                            &bl,
                            bits_span,
                            val,
                            l.value.span,
                            false,
                        )
                    })?;
                }
            }
        }
        Ok(())
    }
}
