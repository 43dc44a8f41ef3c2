//! `def` statements: naming a def, adding it to the record keeper once it
//! is complete (`addDefOne`), and checking that its fields are concrete.

use super::*;

impl<'a> Evaluator<'a> {
    pub(super) fn object_name(&mut self, name: &Option<Expr>) -> R<Option<Init>> {
        let Some(e) = name else {
            return Ok(None);
        };
        let mc = self.cur_mc.as_ref().map(|m| (m.0.clone(), m.1));
        let v = self.value(
            e,
            mc.as_ref().map(|m| m.1),
            Some(&RecTy::String),
            Mode::Name,
        )?;
        if let Some((mcname, _)) = mc {
            let nm = str_init(&format!("{mcname}::NAME"));
            let mut h = HasReferenceResolver {
                name: nm.clone(),
                found: false,
            };
            resolve(&mut self.ctx, &v, &mut h);
            if !h.found {
                return Ok(Some(str_concat(var(nm, RecTy::String), v)));
            }
        }
        Ok(Some(v))
    }

    pub(super) fn parse_def(&mut self, d: &syntax::DefStmt) -> R<()> {
        let name = self.object_name(&d.name)?;
        let span = d.name.as_ref().map_or(d.span, |n| n.span);
        let (name_init, anon) = match name {
            Some(n) if !n.is_unset() => (n, false),
            _ => (self.ctx.new_anonymous_name(), true),
        };
        let rec = Record {
            name: unquoted(self.rk(), &name_init),
            name_init,
            is_anonymous: anon,
            span,
            ..Default::default()
        };
        let id = self.push_record(rec);
        self.object_body(&d.body, id)?;
        let rec = self.ctx.rk.records.take(id as usize);
        self.add_entry(Entry::Rec(Box::new(rec)))
    }

    pub(super) fn add_entry(&mut self, e: Entry) -> R<()> {
        if let Some(l) = self.loops.last_mut() {
            l.entries.push(e);
            return Ok(());
        }
        match e {
            Entry::Loop(lp) => {
                let is_final = self.cur_mc.is_none();
                let mut dest = Vec::new();
                let mut substs = Vec::new();
                let r = self.resolve_loop(
                    &lp,
                    &mut substs,
                    is_final,
                    if is_final { None } else { Some(&mut dest) },
                    None,
                );
                if self.cur_mc.is_some() {
                    for e in dest.iter_mut() {
                        self.pack_entry(e);
                    }
                }
                if let Some(mc) = self.cur_mc.as_mut() {
                    mc.2.extend(dest);
                }
                r
            }
            mut e => {
                if self.cur_mc.is_some() {
                    self.pack_entry(&mut e);
                }
                if let Some(mc) = self.cur_mc.as_mut() {
                    mc.2.push(e);
                    return Ok(());
                }
                match e {
                    Entry::Assert(a) => {
                        check_assert(&mut self.ctx, a.span, &a.cond, &a.message);
                        Ok(())
                    }
                    Entry::Rec(r) => self.add_def_one(*r),
                    Entry::Loop(_) => Ok(()),
                }
            }
        }
    }

    /// Packs the records of an entry a multiclass keeps (each `defm` of it
    /// copies them out again, unpacked: [`Record::clone_open`]).
    fn pack_entry(&mut self, e: &mut Entry) {
        match e {
            Entry::Rec(r) => self.ctx.rk.pack(&mut r.fields),
            Entry::Loop(l) => l.entries.iter_mut().for_each(|e| self.pack_entry(e)),
            Entry::Assert(_) => {}
        }
    }

    pub(super) fn add_def_one(&mut self, mut rec: Record) -> R<()> {
        let mut new_name = None;
        if let Some(prev) = self.ctx.def_ids.get(&self.ctx.rk, &rec.name) {
            if !rec.is_anonymous {
                let previous = self.rec(prev).span;
                return self.fail(EvalError::DefRedefined {
                    name: rec.name,
                    span: rec.span,
                    previous,
                    instantiated_from: rec.instantiated_from.to_vec(),
                });
            }
            new_name = Some(self.ctx.new_anonymous_name());
        }
        rec.is_class = false;
        let cur = CurRec {
            id: None,
            name: rec.name_init.clone(),
            span: rec.span,
        };
        let id = self.push_record(rec);
        let cur = CurRec {
            id: Some(id),
            ..cur
        };
        let nerr = self.ctx.errors.len();
        resolve_record_final(&mut self.ctx, id, new_name, cur);
        self.check_concrete(id);
        if !matches!(&*self.rec(id).name_init, InitKind::String { .. }) {
            return self.fail(EvalError::UnresolvedName {
                name: self.s(&self.rec(id).name_init),
                span: self.rec(id).span,
            });
        }
        check_record_assertions(&mut self.ctx, id);
        // The def is final: its fields were pushed one by one (inherited,
        // then set), so their vectors have up to twice the room they use.
        // A full target keeps millions of fields for the whole run.
        if let Some(r) = self.ctx.rk.records.get_mut(id as usize) {
            r.superclasses.shrink_to_fit();
        }
        self.ctx.rk.pack_fields(id);
        // The def's value and type only for the defsets it goes into: both
        // are kept once made (for every def of a full target otherwise).
        if !self.defsets.is_empty() {
            let def = Init::def(id);
            let dt = def_type(self.rk(), id);
            for k in 0..self.defsets.len() {
                if !type_is_a(self.rk(), &dt, &self.defsets[k].elt_ty) {
                    return self.fail(EvalError::DefsetType {
                        ty: self.ty_str(&dt),
                        span: self.rec(id).span,
                        defset: self.defsets[k].span,
                    });
                }
                self.defsets[k].elems.push(def.clone());
            }
        }
        if self
            .ctx
            .def_ids
            .get(&self.ctx.rk, self.rk().name(id))
            .is_some()
        {
            let (name, span) = (self.rec(id).name.clone(), self.rec(id).span);
            return self.fail(EvalError::DefNameTaken { name, span });
        }
        self.ctx.def_ids.insert(&self.ctx.rk, id);
        if self.ctx.errors.len() > nerr {
            return Err(Reported);
        }
        Ok(())
    }

    fn check_concrete(&mut self, id: RecId) {
        let rec = self.rec(id);
        let mut errs = Vec::new();
        for rv in rec.fields.iter() {
            if rv.nonconcrete_ok {
                continue;
            }
            let ok = if let InitKind::Bits(bs) = &**rv.value {
                bs.iter().all(|b| {
                    let is_ref = match &**b {
                        InitKind::VarBit { var, .. } => match &**var {
                            InitKind::Var { name, .. } => {
                                name.as_str().is_some_and(|n| rec.value(n).is_some())
                            }
                            _ => false,
                        },
                        InitKind::Var { .. } => true,
                        _ => false,
                    };
                    is_ref || is_concrete(b)
                })
            } else {
                is_concrete(rv.value)
            };
            if !ok {
                errs.push(EvalError::Unresolved {
                    field: rv.name.to_string(),
                    record: rec.name.clone(),
                    value: to_string(&self.ctx.rk, rv.value),
                    span: self.rk().span(rv.span),
                    record_span: rec.span,
                    instantiated_from: rec.instantiated_from.to_vec(),
                });
            }
        }
        for e in errs {
            self.ctx.report(e);
        }
    }
}
