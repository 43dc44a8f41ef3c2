//! Numbering, sub-register maps, register units, composites.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::eval::{RecId, RecordKeeper};

use super::sets::{Elem, Sets};
use super::*;

/// Where a register's own fields come from.
struct RegSource {
    sub_reg_indices: Vec<RecId>,
    sub_regs: Vec<Elem>,
    aliases: Vec<RecId>,
}

impl RegBank {
    /// Builds the bank from evaluated records, like LLVM 14's
    /// `CodeGenRegBank` constructor followed by `computeDerivedInfo` (minus
    /// lane masks, which live in [`crate::lanes`]).
    pub fn build(rk: &RecordKeeper) -> Result<RegBank, RegsError> {
        match RegBank::build_partial(rk) {
            (bank, None) => Ok(bank),
            (_, Some(e)) => Err(e),
        }
    }

    /// Like [`RegBank::build`], but returns whatever was computed before a
    /// fatal error too (for `check`, which reports on broken files).
    /// [`RegBank::stage`] tells how far it got.
    pub fn build_partial(rk: &RecordKeeper) -> (RegBank, Option<RegsError>) {
        for class in ["SubRegIndex", "Register", "RegisterClass"] {
            if rk.get_class(class).is_none() {
                return (RegBank::default(), Some(RegsError::MissingClass { class }));
            }
        }
        let mut b = Builder {
            rk,
            sets: Sets::new(rk),
            bank: RegBank::default(),
            def2idx: HashMap::default(),
            elem2reg: HashMap::default(),
            reg_elems: Vec::new(),
            concat_idx: HashMap::default(),
            topo_sig_ids: HashMap::default(),
        };
        let r = b.run();
        (b.bank, r.err())
    }
}

impl<'a> Builder<'a> {
    fn run(&mut self) -> Result<(), RegsError> {
        self.hw_modes();
        self.indices()?;
        self.registers()?;
        self.bank.stage = Stage::Registers;
        self.sub_regs()?;
        self.bank.stage = Stage::SubRegs;
        self.concat_closure()?;
        self.secondary_sub_regs()?;
        self.super_regs();
        self.artificial_indices();
        self.bank.num_native_reg_units = self.bank.reg_units.len();
        self.classes()?;
        self.inherit_properties();
        self.bank.stage = Stage::Classes;
        self.composites()?;
        self.class_flags();
        self.bank.stage = Stage::Complete;
        Ok(())
    }
}

pub(super) struct Builder<'a> {
    pub(super) rk: &'a RecordKeeper,
    pub(super) sets: Sets<'a>,
    pub(super) bank: RegBank,
    def2idx: HashMap<RecId, IdxId>,
    pub(super) elem2reg: HashMap<Elem, RegId>,
    reg_elems: Vec<Elem>,
    concat_idx: HashMap<Vec<IdxId>, IdxId>,
    topo_sig_ids: HashMap<Vec<u32>, u32>,
}

impl<'a> Builder<'a> {
    fn hw_modes(&mut self) {
        self.bank.hw_modes.push("Default".to_string());
        for id in self.rk.all_derived_definitions("HwMode") {
            let name = self.rk.name(id);
            if name != "DefaultMode" {
                self.bank.hw_modes.push(name.to_string());
            }
        }
    }

    pub(super) fn mode_id(&self, name: &str) -> Option<u32> {
        if name == "DefaultMode" {
            return Some(0);
        }
        self.bank
            .hw_modes
            .iter()
            .skip(1)
            .position(|m| m == name)
            .map(|p| p as u32 + 1)
    }

    // ---- sub-register indices ----------------------------------------------

    fn idx_for_def(&mut self, def: RecId) -> Result<IdxId, RegsError> {
        if let Some(&i) = self.def2idx.get(&def) {
            return Ok(i);
        }
        let rk = self.rk;
        let rec = rk.record(def);
        let namespace = rec.get_string("Namespace").unwrap_or("").to_string();
        let size = int_field(rk, def, "Size")? as u16;
        let offset = int_field(rk, def, "Offset")? as u16;
        let id = self.bank.sub_reg_indices.len() as IdxId;
        self.bank.sub_reg_indices.push(SubRegIndex {
            name: rec.name.clone(),
            namespace,
            def: Some(def),
            span: Some(rec.span),
            size,
            offset,
            composed: VecMap::new(),
            concatenation_of: Vec::new(),
            all_super_regs_covered: true,
            artificial: true,
            origin: IndexOrigin::Defined,
        });
        self.def2idx.insert(def, id);
        Ok(id)
    }

    fn create_idx(&mut self, name: String, namespace: String, origin: IndexOrigin) -> IdxId {
        let id = self.bank.sub_reg_indices.len() as IdxId;
        self.bank.sub_reg_indices.push(SubRegIndex {
            name,
            namespace,
            def: None,
            span: None,
            size: UNKNOWN,
            offset: UNKNOWN,
            composed: VecMap::new(),
            concatenation_of: Vec::new(),
            all_super_regs_covered: true,
            artificial: true,
            origin,
        });
        id
    }

    /// `this ∘ a = b`; returns a conflicting earlier composite.
    pub(super) fn add_composite(&mut self, this: IdxId, a: IdxId, b: IdxId) -> Option<IdxId> {
        add_composite_in(&mut self.bank.sub_reg_indices, this, a, b)
    }

    fn composite_idx(&mut self, a: IdxId, b: IdxId, reg: RegId) -> IdxId {
        if let Some(&c) = self.bank.idx(a).composed.get(&b) {
            return c;
        }
        let name = format!("{}_then_{}", self.bank.idx(a).name, self.bank.idx(b).name);
        let ns = self.bank.idx(a).namespace.clone();
        let c = self.create_idx(
            name,
            ns,
            IndexOrigin::Composite {
                first: a,
                second: b,
                register: reg,
            },
        );
        self.add_composite(a, b, c);
        c
    }

    fn set_concatenation_of(&mut self, idx: IdxId, parts: Vec<IdxId>) {
        let i = &mut self.bank.sub_reg_indices[idx as usize];
        if i.concatenation_of.is_empty() {
            i.concatenation_of = parts;
        }
    }

    fn indices(&mut self) -> Result<(), RegsError> {
        let mut defs = self.rk.all_derived_definitions("SubRegIndex");
        defs.sort_by(|&a, &b| compare_numeric(self.rk.name(a), self.rk.name(b)));
        for &d in &defs {
            self.idx_for_def(d)?;
        }
        self.bank.num_defined_indices = self.bank.sub_reg_indices.len();
        for &d in &defs {
            let this = self.def2idx[&d];
            let span = Some(self.rk.record(d).span);
            let comps = list_of_defs(self.rk, d, "ComposedOf")?;
            if !comps.is_empty() {
                if comps.len() != 2 {
                    return Err(RegsError::SubRegs {
                        message: "ComposedOf must have exactly two entries".into(),
                        span,
                        help: None,
                    });
                }
                let a = self.idx_for_def(comps[0])?;
                let b = self.idx_for_def(comps[1])?;
                if self.add_composite(a, b, this).is_some() {
                    return Err(RegsError::SubRegs {
                        message: "Ambiguous ComposedOf entries".into(),
                        span,
                        help: None,
                    });
                }
            }
            let parts = list_of_defs(self.rk, d, "CoveringSubRegIndices")?;
            if !parts.is_empty() {
                if parts.len() < 2 {
                    return Err(RegsError::SubRegs {
                        message: "CoveredBySubRegs must have two or more entries".into(),
                        span,
                        help: None,
                    });
                }
                let mut ids = Vec::new();
                for p in parts {
                    ids.push(self.idx_for_def(p)?);
                }
                self.set_concatenation_of(this, ids);
            }
        }
        Ok(())
    }

    // ---- registers ---------------------------------------------------------

    fn get_reg(&mut self, e: Elem) -> Result<RegId, RegsError> {
        if let Some(&r) = self.elem2reg.get(&e) {
            return Ok(r);
        }
        let rk = self.rk;
        let reg = match e {
            Elem::Rec(id) => {
                let rec = rk.record(id);
                if !rk.is_subclass_of_name(id, "Register") {
                    return Err(RegsError::Set {
                        message: format!("'{}' is not a register", rec.name),
                        span: Some(rec.span),
                    });
                }
                Register {
                    name: rec.name.clone(),
                    def: Some(id),
                    tuple: None,
                    span: Some(rec.span),
                    asm_name: rec.get_string("AsmName").unwrap_or("").to_string(),
                    alt_names: alt_names(rk, id),
                    hw_encoding: hw_encoding(rk, id),
                    namespace: rec.get_string("Namespace").unwrap_or("").to_string(),
                    cost_per_use: list_of_ints(rk, id, "CostPerUse")?,
                    covered_by_sub_regs: bit_field(rk, id, "CoveredBySubRegs")?,
                    artificial: bit_field(rk, id, "isArtificial")?,
                    ..empty_register()
                }
            }
            Elem::Synth(i) => {
                let s = &self.sets.synth[i as usize];
                // Fields the tuple does not set come from its first member.
                let mut proto = s.proto;
                while let Elem::Synth(p) = proto {
                    proto = self.sets.synth[p as usize].proto;
                }
                let (alt, enc) = match proto {
                    Elem::Rec(p) => (alt_names(rk, p), hw_encoding(rk, p)),
                    Elem::Synth(_) => (Vec::new(), 0),
                };
                Register {
                    name: s.name.clone(),
                    def: None,
                    tuple: Some(s.tuple),
                    span: Some(rk.record(s.tuple).span),
                    asm_name: s.asm_name.clone(),
                    alt_names: alt,
                    hw_encoding: enc,
                    namespace: s.namespace.clone(),
                    cost_per_use: s.cost_per_use.clone(),
                    covered_by_sub_regs: true,
                    artificial: s.artificial,
                    ..empty_register()
                }
            }
        };
        let id = self.bank.registers.len() as RegId;
        self.bank.registers.push(reg);
        self.reg_elems.push(e);
        self.elem2reg.insert(e, id);
        Ok(id)
    }

    fn source(&self, e: Elem) -> Result<RegSource, RegsError> {
        let rk = self.rk;
        match e {
            Elem::Rec(id) => {
                let sri = list_of_defs(rk, id, "SubRegIndices")?;
                let srs = list_of_defs(rk, id, "SubRegs")?;
                Ok(RegSource {
                    sub_reg_indices: sri,
                    sub_regs: srs.into_iter().map(Elem::Rec).collect(),
                    aliases: list_of_defs(rk, id, "Aliases")?,
                })
            }
            Elem::Synth(i) => {
                let s = &self.sets.synth[i as usize];
                Ok(RegSource {
                    sub_reg_indices: list_of_defs(rk, s.tuple, "SubRegIndices")?,
                    sub_regs: s.members.clone(),
                    aliases: Vec::new(),
                })
            }
        }
    }

    fn registers(&mut self) -> Result<(), RegsError> {
        let rk = self.rk;
        let mut regs = rk.all_derived_definitions("Register");
        regs.sort_by(|&a, &b| less_record_register(rk.name(a), rk.name(b)));
        for r in regs {
            self.get_reg(Elem::Rec(r))?;
        }
        self.bank.num_defined_registers = self.bank.registers.len();
        for t in rk.all_derived_definitions("RegisterTuples") {
            let mut elems = self.sets.expand(t)?.unwrap_or_default();
            elems.sort_by(|&a, &b| less_record_register(self.sets.name(a), self.sets.name(b)));
            for e in elems {
                self.get_reg(e)?;
            }
        }
        // Build the object graph of explicit references.
        for r in 0..self.bank.registers.len() {
            let e = self.reg_elems[r];
            let src = self.source(e)?;
            let span = self.bank.registers[r].span;
            if src.sub_reg_indices.len() != src.sub_regs.len() {
                return Err(RegsError::SubRegs {
                    message: "SubRegs and SubRegIndices must have the same size".into(),
                    span,
                    help: None,
                });
            }
            let mut idxs = Vec::new();
            let mut subs = Vec::new();
            for (i, s) in src.sub_reg_indices.iter().zip(&src.sub_regs) {
                if !rk.is_subclass_of_name(*i, "SubRegIndex") {
                    return Err(RegsError::SubRegs {
                        message: format!("'{}' is not a SubRegIndex", rk.name(*i)),
                        span,
                        help: None,
                    });
                }
                idxs.push(self.idx_for_def(*i)?);
                subs.push(self.get_reg(*s)?);
            }
            let covered = self.bank.registers[r].covered_by_sub_regs;
            if covered {
                if let Some(&first) = subs.first() {
                    self.bank.registers[first as usize]
                        .leading_super_regs
                        .push(r as RegId);
                }
            }
            let mut aliases = Vec::new();
            for a in src.aliases {
                aliases.push(self.get_reg(Elem::Rec(a))?);
            }
            {
                let reg = &mut self.bank.registers[r];
                reg.explicit_sub_reg_indices = idxs;
                reg.explicit_sub_regs = subs;
            }
            for a in aliases {
                self.bank.registers[r].explicit_aliases.push(a);
                self.bank.registers[a as usize]
                    .explicit_aliases
                    .push(r as RegId);
            }
        }
        Ok(())
    }

    // ---- sub-registers -----------------------------------------------------

    fn sub_regs_error(&self, r: RegId, message: String, help: Option<String>) -> RegsError {
        RegsError::SubRegs {
            message,
            span: self.bank.reg(r).span,
            help,
        }
    }

    fn sub_regs(&mut self) -> Result<(), RegsError> {
        let n = self.bank.registers.len();
        // 0: not started, 1: started (LLVM's SubRegsComplete), 2: finished.
        let mut state = vec![0u8; n];
        for root in 0..n {
            if state[root] != 0 {
                continue;
            }
            let mut stack: Vec<(RegId, usize)> = Vec::new();
            self.sub_regs_enter(root as RegId, &mut state)?;
            stack.push((root as RegId, 0));
            while let Some(top) = stack.last_mut() {
                let (r, next) = (top.0, top.1);
                let children = &self.bank.registers[r as usize].explicit_sub_regs;
                if next < children.len() {
                    let c = children[next];
                    top.1 += 1;
                    match state[c as usize] {
                        0 => {
                            self.sub_regs_enter(c, &mut state)?;
                            stack.push((c, 0));
                        }
                        1 => {
                            return Err(self.sub_regs_error(
                                r,
                                format!(
                                    "Register {} has itself as a sub-register",
                                    self.bank.reg(r).name
                                ),
                                None,
                            ))
                        }
                        _ => {}
                    }
                } else {
                    stack.pop();
                    self.sub_regs_body(r, &state)?;
                    state[r as usize] = 2;
                }
            }
        }
        Ok(())
    }

    fn sub_regs_enter(&mut self, r: RegId, state: &mut [u8]) -> Result<(), RegsError> {
        state[r as usize] = 1;
        let reg = &self.bank.registers[r as usize];
        let pairs: Vec<(IdxId, RegId)> = reg
            .explicit_sub_reg_indices
            .iter()
            .copied()
            .zip(reg.explicit_sub_regs.iter().copied())
            .collect();
        let mut sub_regs = VecMap::new();
        let mut inv = HashMap::default();
        for (idx, sr) in pairs {
            if !self.bank.reg(sr).artificial {
                self.bank.sub_reg_indices[idx as usize].artificial = false;
            }
            if sub_regs.insert(idx, sr).is_some() {
                return Err(self.sub_regs_error(
                    r,
                    format!(
                        "SubRegIndex {} appears twice in Register {}",
                        self.bank.idx(idx).name,
                        self.bank.reg(r).name
                    ),
                    None,
                ));
            }
            inv.entry(sr).or_insert(idx);
        }
        let reg = &mut self.bank.registers[r as usize];
        reg.has_disjunct_sub_regs = reg.explicit_sub_regs.len() > 1;
        reg.sub_regs = sub_regs;
        reg.sub_reg_to_idx = inv;
        Ok(())
    }

    fn sub_regs_body(&mut self, r: RegId, state: &[u8]) -> Result<(), RegsError> {
        let ri = r as usize;
        let explicit = self.bank.registers[ri].explicit_sub_regs.clone();
        let explicit_idx = self.bank.registers[ri].explicit_sub_reg_indices.clone();
        let mut sub_regs = std::mem::take(&mut self.bank.registers[ri].sub_regs);
        let mut orphans: HashSet<RegId> = HashSet::default();
        let mut disjunct = self.bank.registers[ri].has_disjunct_sub_regs;
        for &esr in &explicit {
            let child = &self.bank.registers[esr as usize];
            disjunct |= child.has_disjunct_sub_regs;
            for (&i, &s) in &child.sub_regs {
                if !sub_regs.get_or_insert(i, s).1 {
                    orphans.insert(s);
                }
            }
        }
        self.bank.registers[ri].has_disjunct_sub_regs = disjunct;

        // Name orphans through existing composites.
        let mut indices = explicit_idx.clone();
        let mut i = 0;
        while i < indices.len() {
            let idx = indices[i];
            i += 1;
            let Some(&sr) = sub_regs.get(&idx) else {
                continue;
            };
            let comps: Vec<(IdxId, IdxId)> = self
                .bank
                .idx(idx)
                .composed
                .iter()
                .map(|(&a, &b)| (a, b))
                .collect();
            for (a, b) in comps {
                let Some(&s) = self.bank.reg(sr).sub_regs.get(&a) else {
                    continue;
                };
                if sub_regs.contains_key(&b) || !orphans.remove(&s) {
                    continue;
                }
                sub_regs.insert(b, s);
                indices.push(b);
            }
        }
        // Synthesize indices for the remaining orphans, bottom-up.
        while !orphans.is_empty() {
            let Some(idx) = indices.pop() else { break };
            let Some(&sr) = sub_regs.get(&idx) else {
                continue;
            };
            let map: Vec<(IdxId, RegId)> = self
                .bank
                .reg(sr)
                .sub_regs
                .iter()
                .map(|(&a, &b)| (a, b))
                .collect();
            for (a, s) in map {
                if orphans.remove(&s) {
                    let c = self.composite_idx(idx, a, r);
                    sub_regs.insert(c, s);
                }
            }
        }

        // The inverse map.
        let covered = self.bank.registers[ri].covered_by_sub_regs;
        let mut inv = std::mem::take(&mut self.bank.registers[ri].sub_reg_to_idx);
        for (&idx, &s) in &sub_regs {
            if s == r {
                return Err(self.sub_regs_error(
                    r,
                    format!(
                        "Register {} has itself as a sub-register",
                        self.bank.reg(r).name
                    ),
                    None,
                ));
            }
            if !covered {
                self.bank.sub_reg_indices[idx as usize].all_super_regs_covered = false;
            }
            let prev = *inv.entry(s).or_insert(idx);
            if prev != idx {
                return Err(self.sub_regs_error(
                    r,
                    format!(
                        "Sub-register can't have two names: {} available as {} and {}",
                        self.bank.reg(s).name,
                        self.bank.idx(idx).name,
                        self.bank.idx(prev).name
                    ),
                    Some("two sub-register indices reach the same register; give each sub-register one index".into()),
                ));
            }
        }
        {
            let reg = &mut self.bank.registers[ri];
            reg.sub_regs = sub_regs;
            reg.sub_reg_to_idx = inv;
        }

        // Offer existing spellings for concatenations of explicit sub-registers.
        for (k, &sr) in explicit.iter().enumerate() {
            let s = self.bank.reg(sr);
            if !s.covered_by_sub_regs || s.explicit_sub_regs.len() <= 1 || s.artificial {
                continue;
            }
            let mut parts = Vec::new();
            for (j, &ssr) in s.explicit_sub_regs.iter().enumerate() {
                let ii = s.explicit_sub_reg_indices[j];
                if !self.bank.idx(ii).artificial {
                    match self.bank.reg(r).sub_reg_index(ssr) {
                        Some(p) => parts.push(p),
                        None => {
                            return Err(self.sub_regs_error(
                                r,
                                format!(
                                    "No SubRegIndex for {} in {}",
                                    self.bank.reg(ssr).name,
                                    self.bank.reg(r).name
                                ),
                                None,
                            ))
                        }
                    }
                }
            }
            self.set_concatenation_of(explicit_idx[k], parts);
        }

        // Register units.
        let mut units: BTreeSet<RegUnitId> =
            self.bank.registers[ri].units.iter().copied().collect();
        for &sr in &explicit {
            units.extend(self.bank.reg(sr).units.iter().copied());
        }
        let aliases = self.bank.registers[ri].explicit_aliases.clone();
        for ar in aliases {
            if state[ar as usize] != 0 {
                continue;
            }
            let u = self.bank.reg_units.len() as RegUnitId;
            self.bank.reg_units.push(RegUnit {
                roots: [Some(r), Some(ar)],
            });
            units.insert(u);
            let other = &mut self.bank.registers[ar as usize].units;
            if let Err(p) = other.binary_search(&u) {
                other.insert(p, u);
            }
        }
        if units.is_empty() {
            let u = self.bank.reg_units.len() as RegUnitId;
            self.bank.reg_units.push(RegUnit {
                roots: [Some(r), None],
            });
            units.insert(u);
        }
        self.bank.registers[ri].units = units.into_iter().collect();
        Ok(())
    }

    fn concat_closure(&mut self) -> Result<(), RegsError> {
        let n = self.bank.sub_reg_indices.len();
        let mut state = vec![0u8; n];
        for i in 0..n {
            self.concat_close(i as IdxId, &mut state, 0)?;
            let c = &self.bank.sub_reg_indices[i].concatenation_of;
            if !c.is_empty() {
                self.concat_idx.entry(c.clone()).or_insert(i as IdxId);
            }
        }
        Ok(())
    }

    fn concat_close(&mut self, i: IdxId, state: &mut [u8], depth: u32) -> Result<(), RegsError> {
        match state[i as usize] {
            2 => return Ok(()),
            1 => {
                return Err(RegsError::SubRegs {
                    message: format!(
                        "SubRegIndex {} is a concatenation of itself",
                        self.bank.idx(i).name
                    ),
                    span: self.bank.idx(i).span,
                    help: None,
                })
            }
            _ => {}
        }
        if depth > 256 {
            return Err(RegsError::SubRegs {
                message: "concatenated sub-register indices nest too deeply".into(),
                span: self.bank.idx(i).span,
                help: None,
            });
        }
        state[i as usize] = 1;
        let parts = self.bank.idx(i).concatenation_of.clone();
        let mut out = Vec::with_capacity(parts.len());
        for p in parts {
            self.concat_close(p, state, depth + 1)?;
            let sub = &self.bank.idx(p).concatenation_of;
            if sub.is_empty() {
                out.push(p);
            } else {
                out.extend_from_slice(sub);
            }
        }
        self.bank.sub_reg_indices[i as usize].concatenation_of = out;
        state[i as usize] = 2;
        Ok(())
    }

    fn concat_index(&mut self, parts: Vec<IdxId>, reg: RegId) -> IdxId {
        if let Some(&i) = self.concat_idx.get(&parts) {
            return i;
        }
        let idx = &self.bank.sub_reg_indices;
        let first = &idx[parts[0] as usize];
        let mut name = first.name.clone();
        let mut size = first.size;
        let mut continuous = true;
        let mut last_offset = first.offset as u32;
        let mut last_size = first.size as u32;
        for &p in &parts[1..] {
            let pi = &idx[p as usize];
            name.push('_');
            name.push_str(&pi.name);
            size = size.wrapping_add(pi.size);
            if pi.offset as u32 != last_offset + last_size {
                continuous = false;
            }
            last_offset = pi.offset as u32;
            last_size = pi.size as u32;
        }
        let offset = if continuous { first.offset } else { UNKNOWN };
        let ns = first.namespace.clone();
        let id = self.create_idx(name, ns, IndexOrigin::Concat { register: reg });
        let i = &mut self.bank.sub_reg_indices[id as usize];
        i.size = size;
        i.offset = offset;
        i.concatenation_of = parts.clone();
        self.concat_idx.insert(parts, id);
        id
    }

    fn secondary_sub_regs(&mut self) -> Result<(), RegsError> {
        for r in 0..self.bank.registers.len() {
            if self.bank.registers[r].covered_by_sub_regs {
                self.secondary(r as RegId)?;
            }
        }
        Ok(())
    }

    fn secondary(&mut self, r: RegId) -> Result<(), RegsError> {
        let ri = r as usize;
        let mut new_sub_regs: Vec<(IdxId, RegId)> = Vec::new();
        let mut queue: VecDeque<(IdxId, RegId)> = self.bank.registers[ri]
            .sub_regs
            .iter()
            .map(|(&a, &b)| (a, b))
            .collect();
        let mut parts: Vec<IdxId> = Vec::new();
        while let Some((_, sub)) = queue.pop_front() {
            let nleads = self.bank.reg(sub).leading_super_regs.len();
            for k in 0..nleads {
                let cand = self.bank.reg(sub).leading_super_regs[k];
                let this = self.bank.reg(r);
                if cand == r || this.sub_reg_to_idx.contains_key(&cand) {
                    continue;
                }
                let cr = self.bank.reg(cand);
                if cr.explicit_sub_regs.len() <= 1 {
                    continue;
                }
                // Candidates reaching past this register fail on their last
                // part: test it first.
                if let Some(last) = cr.explicit_sub_regs.last() {
                    if !this.sub_reg_to_idx.contains_key(last) {
                        continue;
                    }
                }
                parts.clear();
                for &s in &cr.explicit_sub_regs {
                    match this.sub_reg_to_idx.get(&s) {
                        Some(&si) => {
                            let c = &self.bank.idx(si).concatenation_of;
                            if c.is_empty() {
                                parts.push(si);
                            } else {
                                parts.extend_from_slice(c);
                            }
                        }
                        None => {
                            parts.clear();
                            break;
                        }
                    }
                }
                if parts.is_empty() {
                    continue;
                }
                let concat = match self.concat_idx.get(parts.as_slice()) {
                    Some(&c) => c,
                    None => self.concat_index(parts.clone(), r),
                };
                let reg = &mut self.bank.registers[ri];
                if reg.sub_regs.contains_key(&concat) {
                    continue;
                }
                reg.sub_regs.insert(concat, cand);
                reg.sub_reg_to_idx.entry(cand).or_insert(concat);
                new_sub_regs.push((concat, cand));
                queue.push_back((concat, cand));
            }
        }
        for (new_idx, new_sub) in new_sub_regs {
            // Borrow registers and indices separately: no copies in this hot loop.
            let regs = &self.bank.registers;
            let idxs = &mut self.bank.sub_reg_indices;
            let this = &regs[ri];
            let mut missing = None;
            for (&si, &s) in &regs[new_sub as usize].sub_regs {
                let Some(&sub_idx) = this.sub_reg_to_idx.get(&s) else {
                    missing = Some(s);
                    break;
                };
                add_composite_in(idxs, new_idx, si, sub_idx);
            }
            if let Some(s) = missing {
                return Err(self.no_sub_reg_index(r, new_sub, s));
            }
        }
        Ok(())
    }

    fn no_sub_reg_index(&self, r: RegId, via: RegId, s: RegId) -> RegsError {
        let b = &self.bank;
        let others: Vec<&str> = b
            .registers
            .iter()
            .filter(|o| o.units == b.reg(s).units && o.name != b.reg(s).name)
            .map(|o| o.name.as_str())
            .take(3)
            .collect();
        let help = if others.is_empty() {
            format!(
                "{} is a sub-register of {} but {} has no index naming it",
                b.reg(s).name,
                b.reg(via).name,
                b.reg(r).name
            )
        } else {
            format!(
                "{} covers the same register units as {}: two tuple definitions build the same register with different sub-register indices; run `regdesc check` for details",
                b.reg(s).name,
                others.join(", ")
            )
        };
        RegsError::SubRegs {
            message: format!("No SubRegIndex for {} in {}", b.reg(s).name, b.reg(r).name),
            span: b.reg(r).span,
            help: Some(help),
        }
    }

    fn super_regs(&mut self) {
        let n = self.bank.registers.len();
        let mut done = vec![false; n];
        for root in 0..n {
            if done[root] {
                continue;
            }
            // Post-order over all sub-registers, in index order.
            let mut stack: Vec<(RegId, Vec<RegId>, usize)> = Vec::new();
            done[root] = true;
            let subs: Vec<RegId> = self.bank.registers[root]
                .sub_regs
                .values()
                .copied()
                .collect();
            stack.push((root as RegId, subs, 0));
            while let Some(top) = stack.last_mut() {
                if top.2 < top.1.len() {
                    let c = top.1[top.2];
                    top.2 += 1;
                    if !done[c as usize] {
                        done[c as usize] = true;
                        let subs: Vec<RegId> = self.bank.registers[c as usize]
                            .sub_regs
                            .values()
                            .copied()
                            .collect();
                        stack.push((c, subs, 0));
                    }
                } else {
                    let r = top.0;
                    stack.pop();
                    let mut id = Vec::new();
                    let pairs: Vec<(IdxId, RegId)> = self.bank.registers[r as usize]
                        .sub_regs
                        .iter()
                        .map(|(&a, &b)| (a, b))
                        .collect();
                    for (i, s) in pairs {
                        id.push(i + 1);
                        id.push(self.bank.registers[s as usize].topo_sig);
                        let sr = &mut self.bank.registers[s as usize].super_regs;
                        if sr.last() != Some(&r) {
                            sr.push(r);
                        }
                    }
                    let next = self.topo_sig_ids.len() as u32;
                    let sig = *self.topo_sig_ids.entry(id).or_insert(next);
                    self.bank.registers[r as usize].topo_sig = sig;
                }
            }
        }
        self.bank.num_topo_sigs = self.topo_sig_ids.len();
    }

    fn artificial_indices(&mut self) {
        let b = &mut self.bank;
        for r in 0..b.registers.len() {
            if b.registers[r].artificial {
                continue;
            }
            for (&i, &s) in &b.registers[r].sub_regs {
                if !b.registers[s as usize].artificial {
                    b.sub_reg_indices[i as usize].artificial = false;
                }
            }
        }
    }

    // ---- the composites pass -----------------------------------------------

    fn composites(&mut self) -> Result<(), RegsError> {
        let mut user_defined: HashSet<(IdxId, IdxId)> = HashSet::default();
        for (i, idx) in self.bank.sub_reg_indices.iter().enumerate() {
            for &a in idx.composed.keys() {
                user_defined.insert((i as IdxId, a));
            }
        }
        // Sub-register actions, built lazily for the agreement check.
        let mut actions: Option<Vec<BTreeMap<RegId, RegId>>> = None;
        let mut seen = vec![false; self.bank.num_topo_sigs.max(1)];
        for r1 in 0..self.bank.registers.len() {
            let sig = self.bank.registers[r1].topo_sig as usize;
            if sig < seen.len() {
                if seen[sig] {
                    continue;
                }
                seen[sig] = true;
            }
            let srm1: Vec<(IdxId, RegId)> = self.bank.registers[r1]
                .sub_regs
                .iter()
                .map(|(&a, &b)| (a, b))
                .collect();
            for (idx1, reg2) in srm1 {
                if reg2 as usize == r1 {
                    continue;
                }
                let srm2: Vec<(IdxId, RegId)> = self
                    .bank
                    .reg(reg2)
                    .sub_regs
                    .iter()
                    .map(|(&a, &b)| (a, b))
                    .collect();
                for (idx2, reg3) in srm2 {
                    if reg2 == reg3 {
                        continue;
                    }
                    let Some(idx3) = self.bank.registers[r1].sub_reg_index(reg3) else {
                        return Err(self.no_sub_reg_index(r1 as RegId, reg2, reg3));
                    };
                    if let Some(prev) = self.add_composite(idx1, idx2, idx3) {
                        let warn = if !user_defined.contains(&(idx1, idx2)) {
                            true
                        } else {
                            let acts = actions.get_or_insert_with(|| {
                                let mut v = vec![BTreeMap::new(); self.bank.sub_reg_indices.len()];
                                for (r, reg) in self.bank.registers.iter().enumerate() {
                                    for (&i, &s) in &reg.sub_regs {
                                        v[i as usize].insert(r as RegId, s);
                                    }
                                }
                                v
                            });
                            let mut composed = BTreeMap::new();
                            for (&a, &b) in &acts[idx1 as usize] {
                                if let Some(&c) = acts[idx2 as usize].get(&b) {
                                    composed.insert(a, c);
                                }
                            }
                            let img3 = &acts[idx3 as usize];
                            !composed.is_empty()
                                && !img3.is_empty()
                                && composed.iter().all(|(a, c)| img3.get(a) == Some(c))
                        };
                        if warn {
                            self.bank.ambiguous.push(AmbiguousComposite {
                                first: idx1,
                                second: idx2,
                                previous: prev,
                                new: idx3,
                                register: r1 as RegId,
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn class_flags(&mut self) {
        let b = &mut self.bank;
        for c in &mut b.classes {
            c.has_disjunct_sub_regs = c
                .members
                .iter()
                .any(|&r| b.registers[r as usize].has_disjunct_sub_regs);
            c.covered_by_sub_regs = c
                .members
                .iter()
                .all(|&r| b.registers[r as usize].covered_by_sub_regs);
        }
    }
}

/// `HWEncoding` as llvm-tblgen emits it: set bits, unset ones as 0.
fn hw_encoding(rk: &RecordKeeper, id: RecId) -> u16 {
    let Some(init) = rk.record(id).get("HWEncoding") else {
        return 0;
    };
    match &**init {
        crate::eval::InitKind::Bits(bits) => bits
            .iter()
            .take(16)
            .enumerate()
            .filter(|(_, b)| b.as_bit() == Some(true))
            .fold(0u16, |v, (i, _)| v | (1 << i)),
        _ => init.as_int().map_or(0, |v| v as u16),
    }
}

/// `AltNames`, or none.
fn alt_names(rk: &RecordKeeper, id: RecId) -> Vec<String> {
    rk.record(id)
        .get_list("AltNames")
        .map(|l| {
            l.iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn empty_register() -> Register {
    Register {
        name: String::new(),
        def: None,
        tuple: None,
        span: None,
        asm_name: String::new(),
        alt_names: Vec::new(),
        hw_encoding: 0,
        namespace: String::new(),
        cost_per_use: Vec::new(),
        covered_by_sub_regs: false,
        artificial: false,
        has_disjunct_sub_regs: false,
        explicit_sub_regs: Vec::new(),
        explicit_sub_reg_indices: Vec::new(),
        explicit_aliases: Vec::new(),
        leading_super_regs: Vec::new(),
        sub_regs: VecMap::new(),
        sub_reg_to_idx: HashMap::default(),
        super_regs: Vec::new(),
        units: Vec::new(),
        topo_sig: u32::MAX,
    }
}

/// `this ∘ a = b` (LLVM's `addComposite`); returns a conflicting earlier
/// composite. Also fills in the offset and size of `b` when unknown.
fn add_composite_in(idx: &mut [SubRegIndex], this: IdxId, a: IdxId, b: IdxId) -> Option<IdxId> {
    let prev = idx[this as usize].composed.get_or_insert(a, b).0;
    let (t_off, a_off, a_size) = (
        idx[this as usize].offset,
        idx[a as usize].offset,
        idx[a as usize].size,
    );
    if t_off != UNKNOWN && a_off != UNKNOWN && idx[b as usize].offset == UNKNOWN {
        idx[b as usize].offset = t_off.wrapping_add(a_off);
        idx[b as usize].size = a_size;
    }
    (prev != b).then_some(prev)
}
