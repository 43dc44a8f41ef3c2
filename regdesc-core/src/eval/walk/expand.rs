//! Expanding `foreach` loops, `if` blocks and multiclasses (`defm`,
//! `multiclass`) into the defs they produce.

use super::*;

impl<'a> Evaluator<'a> {
    pub(super) fn resolve_loop(
        &mut self,
        lp: &ForeachLoop,
        substs: &mut Vec<(Init, Init)>,
        is_final: bool,
        mut dest: Option<&mut Vec<Entry>>,
        loc: Option<Span>,
    ) -> R<()> {
        let mut r = MapResolver::with_capacity(None, substs.len());
        for (k, v) in substs.iter() {
            r.set(k.clone(), v.clone());
        }
        let l = resolve(&mut self.ctx, &lp.list, &mut r);
        let InitKind::List { elems, .. } = &*l else {
            if !is_final {
                if let Some(d) = dest.as_deref_mut() {
                    let mut nl = ForeachLoop {
                        span: lp.span,
                        iter_var: lp.iter_var.clone(),
                        list: l.clone(),
                        entries: Vec::new(),
                    };
                    self.resolve_entries(
                        &lp.entries,
                        substs,
                        is_final,
                        Some(&mut nl.entries),
                        loc,
                    )?;
                    d.push(Entry::Loop(Box::new(nl)));
                    return Ok(());
                }
            }
            return self.fail(EvalError::LoopOverNonList {
                value: self.s(&l),
                span: lp.span,
            });
        };
        let elems = elems.clone();
        for e in elems {
            let pushed = if let Some(InitKind::Var { name, .. }) = lp.iter_var.as_deref() {
                substs.push((name.clone(), e));
                true
            } else {
                false
            };
            let res = self.resolve_entries(&lp.entries, substs, is_final, dest.as_deref_mut(), loc);
            if pushed {
                substs.pop();
            }
            res?;
        }
        Ok(())
    }

    fn resolve_entries(
        &mut self,
        src: &[Entry],
        substs: &mut Vec<(Init, Init)>,
        is_final: bool,
        mut dest: Option<&mut Vec<Entry>>,
        loc: Option<Span>,
    ) -> R<()> {
        for e in src {
            match e {
                Entry::Loop(l) => {
                    self.resolve_loop(l, substs, is_final, dest.as_deref_mut(), loc)?
                }
                Entry::Assert(a) => {
                    let mut r = MapResolver::new(None);
                    for (k, v) in substs.iter() {
                        r.set(k.clone(), v.clone());
                    }
                    let c = resolve(&mut self.ctx, &a.cond, &mut r);
                    let m = resolve(&mut self.ctx, &a.message, &mut r);
                    match dest.as_deref_mut() {
                        Some(d) => d.push(Entry::Assert(AssertionInfo {
                            span: a.span,
                            cond: c,
                            message: m,
                        })),
                        None => check_assert(&mut self.ctx, a.span, &c, &m),
                    }
                }
                Entry::Rec(rec) => {
                    self.ctx.expanded += 1;
                    if self.ctx.expanded > MAX_RECORDS {
                        return self.fail(EvalError::TooManyRecords {
                            limit: MAX_RECORDS,
                            span: rec.span,
                        });
                    }
                    let mut rec: Record = rec.clone_open();
                    if let Some(l) = loc {
                        rec.instantiated_from.push(l);
                    }
                    let cur = CurRec {
                        id: None,
                        name: rec.name_init.clone(),
                        span: rec.span,
                    };
                    let mut r = MapResolver::with_capacity(Some(cur.clone()), substs.len());
                    for (k, v) in substs.iter() {
                        r.set(k.clone(), v.clone());
                    }
                    resolve_record(&mut self.ctx, &mut rec, &mut r);
                    match dest.as_deref_mut() {
                        Some(d) => d.push(Entry::Rec(Box::new(rec))),
                        None => self.add_def_one(rec)?,
                    }
                }
            }
        }
        Ok(())
    }

    fn mc_args(
        &mut self,
        substs: &mut Vec<(Init, Init)>,
        mc_rec: RecId,
        args: &[Init],
        defm_name: Init,
        span: Span,
    ) -> R<()> {
        let rec = self.rec(mc_rec).clone();
        for (i, ta) in rec.template_args.iter().enumerate() {
            if i < args.len() {
                substs.push((str_init(ta), args[i].clone()));
            } else {
                let d = rec.get(ta).cloned().unwrap_or_else(Init::unset);
                if !is_complete(&d) {
                    return self.fail(EvalError::MissingMulticlassArg {
                        arg: ta.to_string(),
                        index: i,
                        multiclass: rec.name.clone(),
                        span,
                    });
                }
                substs.push((str_init(ta), d));
            }
        }
        substs.push((str_init(&format!("{}::NAME", rec.name)), defm_name));
        Ok(())
    }

    fn multiclass_ref(
        &mut self,
        cr: &syntax::ClassRef,
        cur: Option<RecId>,
        check_types: bool,
    ) -> R<(Rc<MultiClass>, Vec<Init>)> {
        let Some(mc) = self.multiclasses.get(&*cr.name.name).cloned() else {
            return self.fail(EvalError::UndefinedMulticlass {
                name: cr.name.name.to_string(),
                is_class: self.ctx.class_ids.contains_key(&*cr.name.name),
                span: cr.name.span,
            });
        };
        let args = self.template_arg_values(&cr.args, cur, mc.rec, cr.span, check_types)?;
        Ok((mc, args))
    }

    pub(super) fn parse_defm(&mut self, d: &syntax::DefmStmt) -> R<()> {
        let name = self.object_name(&d.name)?;
        let defm_name = match name {
            Some(n) if !n.is_unset() => n,
            _ => {
                let a = self.ctx.new_anonymous_name();
                match &self.cur_mc {
                    Some((mcname, _, _)) => {
                        let v = var_str(&format!("{mcname}::NAME"), RecTy::String);
                        str_concat(v, a)
                    }
                    None => a,
                }
            }
        };
        let mut new_entries: Vec<Entry> = Vec::new();
        let mut idx = 0;
        let Some(first) = d.parents.first() else {
            return self.fail(EvalError::Malformed {
                message: "expected ':' after defm identifier",
                span: d.span,
            });
        };
        let mut cr = first;
        loop {
            let (mc, args) = self.multiclass_ref(cr, None, true)?;
            let mut substs = Vec::new();
            self.mc_args(&mut substs, mc.rec, &args, defm_name.clone(), cr.span)?;
            let is_final = self.cur_mc.is_none() && self.loops.is_empty();
            self.resolve_entries(
                &mc.entries,
                &mut substs,
                is_final,
                Some(&mut new_entries),
                Some(cr.span),
            )?;
            idx += 1;
            if idx >= d.parents.len() {
                break;
            }
            cr = &d.parents[idx];
            if self.ctx.class_ids.contains_key(&*cr.name.name) {
                break;
            }
        }
        while idx < d.parents.len() {
            let scr = self.subclass_ref(&d.parents[idx], None)?;
            for e in new_entries.iter_mut() {
                self.add_subclass_entry(e, &scr)?;
            }
            idx += 1;
        }
        for mut e in new_entries {
            self.apply_let_stack_entry(&mut e)?;
            self.add_entry(e)?;
        }
        Ok(())
    }

    pub(super) fn parse_multiclass(&mut self, m: &syntax::MulticlassStmt) -> R<()> {
        let name = m.name.name.to_string();
        if self.multiclasses.contains_key(&name) {
            return self.fail(EvalError::MulticlassRedefined {
                name,
                span: m.name.span,
            });
        }
        let rec = Record {
            name: name.clone(),
            name_init: str_init(&name),
            span: m.name.span,
            ..Default::default()
        };
        let id = self.push_record(rec);
        self.cur_mc = Some((name.clone(), id, Vec::new()));
        let r = self.multiclass_inner(m, id);
        let entries = self.cur_mc.take().map(|m| m.2).unwrap_or_default();
        // Register even on error, so later references do not cascade.
        self.multiclasses
            .insert(name, Rc::new(MultiClass { rec: id, entries }));
        r?;
        self.check_unused_targs(id);
        Ok(())
    }

    fn multiclass_inner(&mut self, m: &syntax::MulticlassStmt, id: RecId) -> R<()> {
        self.template_arg_list(&m.targs, None)?;
        for p in &m.parents {
            let (smc, args) = self.multiclass_ref(p, Some(id), false)?;
            let mut substs = Vec::new();
            let nm = var_str(&format!("{}::NAME", m.name.name), RecTy::String);
            self.mc_args(&mut substs, smc.rec, &args, nm, p.span)?;
            let mut dest = Vec::new();
            self.resolve_entries(&smc.entries, &mut substs, false, Some(&mut dest), None)?;
            if let Some(mc) = self.cur_mc.as_mut() {
                mc.2.extend(dest);
            }
        }
        if m.body.is_empty() && m.parents.is_empty() {
            return self.fail(EvalError::Malformed {
                message: "multiclass must contain at least one def",
                span: m.span,
            });
        }
        self.scopes.push(Vec::new());
        let mut r = Ok(());
        for s in &m.body {
            match s {
                Stmt::Assert(_)
                | Stmt::Def(_)
                | Stmt::Defm(_)
                | Stmt::Defvar(_)
                | Stmt::Foreach(_)
                | Stmt::If(_)
                | Stmt::Let(_)
                | Stmt::Include(_) => {
                    r = self.object(s);
                }
                other => {
                    r = self.fail(EvalError::Malformed {
                        message: "expected 'assert', 'def', 'defm', 'defvar', 'foreach', 'if', or 'let' in multiclass body",
                        span: Self::stmt_span(other),
                    });
                }
            }
            if r.is_err() {
                break;
            }
        }
        self.scopes.pop();
        r
    }
}
