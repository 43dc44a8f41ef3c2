//! Numbering, sub-register maps, register units, composites.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::eval::{RecId, RecordKeeper};

use super::sets::{Elem, Sets};
use super::subregs::{ComposeTable, MapBuilder, NONE};
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
            register_class: rk.classes.get("Register").copied(),
            index_class: rk.classes.get("SubRegIndex").copied(),
            sets: Sets::new(rk),
            bank: RegBank::default(),
            def2idx: HashMap::default(),
            elem2reg: HashMap::default(),
            reg_elems: Vec::new(),
            concat_idx: HashMap::default(),
            topo_sig_ids: HashMap::default(),
            compose: ComposeTable::default(),
            inv: Vec::new(),
            merge: MapBuilder::default(),
        };
        let r = b.run();
        (b.bank, r.err())
    }
}

impl<'a> Builder<'a> {
    fn run(&mut self) -> Result<(), RegsError> {
        let mut lap = Lap::start();
        super::hw_modes::check_mode_selects(self.rk)?;
        self.hw_modes();
        self.indices()?;
        self.registers()?;
        lap.end(&mut self.bank, "bank/registers");
        self.bank.stage = Stage::Registers;
        self.sub_regs()?;
        self.bank.stage = Stage::SubRegs;
        self.concat_closure()?;
        lap.end(&mut self.bank, "bank/sub-registers");
        self.secondary_sub_regs()?;
        lap.end(&mut self.bank, "bank/secondary-sub-registers");
        self.super_regs();
        self.artificial_indices();
        self.bank.num_native_reg_units = self.bank.reg_units.len();
        lap.end(&mut self.bank, "bank/super-registers");
        self.defined_classes()?;
        // The unit weights need the registers and the defined classes only
        // (see `pressure::Graph`): they are computed on a second thread,
        // from a copy, while inference adds classes to the bank.
        let graph = super::pressure::Graph::of(&self.bank);
        let (classes, weights) = std::thread::scope(|s| {
            let weights = std::thread::Builder::new()
                .name("regdesc unit weights".into())
                .spawn_scoped(s, || super::pressure::unit_weights(&graph));
            let classes = self.classes_and_composites(&mut lap);
            let weights = match weights {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                // No thread to be had: here, then.
                Err(_) => super::pressure::unit_weights(&graph),
            };
            (classes, weights)
        });
        classes?;
        self.bank.stage = Stage::Complete;
        self.bank.pressure = super::pressure::finish(self.rk, &self.bank, weights)?;
        lap.end(&mut self.bank, "bank/pressure-sets");
        Ok(())
    }

    /// Inferred classes, class properties and the composites pass.
    fn classes_and_composites(&mut self, lap: &mut Lap) -> Result<(), RegsError> {
        self.inferred_classes()?;
        self.inherit_properties();
        lap.end(&mut self.bank, "bank/classes");
        self.bank.stage = Stage::Classes;
        self.composites()?;
        self.class_flags();
        lap.end(&mut self.bank, "bank/composites");
        Ok(())
    }
}

/// Is `rec` the class `class` or derived from it (`is_subclass_of_name`
/// with the class looked up once)?
fn derives(rk: &RecordKeeper, rec: RecId, class: Option<RecId>) -> bool {
    class.is_some_and(|c| rec == c || rk.record(rec).is_subclass_of(c))
}

/// Times the steps of [`Builder::run`] into [`RegBank::timings`].
struct Lap(std::time::Instant);

impl Lap {
    fn start() -> Lap {
        Lap(std::time::Instant::now())
    }

    fn end(&mut self, bank: &mut RegBank, step: &'static str) {
        let now = std::time::Instant::now();
        bank.timings.push((step, now - self.0));
        self.0 = now;
    }
}

pub(super) struct Builder<'a> {
    pub(super) rk: &'a RecordKeeper,
    /// The classes `Register` and `SubRegIndex`.
    register_class: Option<RecId>,
    index_class: Option<RecId>,
    pub(super) sets: Sets<'a>,
    pub(super) bank: RegBank,
    def2idx: HashMap<RecId, IdxId>,
    pub(super) elem2reg: HashMap<Elem, RegId>,
    reg_elems: Vec<Elem>,
    pub(super) concat_idx: HashMap<Vec<IdxId>, IdxId>,
    pub(super) topo_sig_ids: HashMap<Vec<u32>, u32>,
    pub(super) compose: ComposeTable,
    /// For the register whose sub-registers are being computed: the index
    /// naming each of its sub-registers, [`NONE`] elsewhere.
    pub(super) inv: Vec<IdxId>,
    /// The map of the register whose sub-registers are being computed.
    pub(super) merge: MapBuilder,
}

impl<'a> Builder<'a> {
    #[inline(never)]
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

    pub(super) fn create_idx(
        &mut self,
        name: String,
        namespace: String,
        origin: IndexOrigin,
    ) -> IdxId {
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
        self.compose.add(&mut self.bank.sub_reg_indices, this, a, b)
    }

    pub(super) fn composite_idx(&mut self, a: IdxId, b: IdxId, reg: RegId) -> IdxId {
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

    pub(super) fn set_concatenation_of(&mut self, idx: IdxId, parts: Vec<IdxId>) {
        let i = &mut self.bank.sub_reg_indices[idx as usize];
        if i.concatenation_of.is_empty() {
            i.concatenation_of = parts;
        }
    }

    #[inline(never)]
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
                if !derives(rk, id, self.register_class) {
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

    #[inline(never)]
    fn registers(&mut self) -> Result<(), RegsError> {
        let rk = self.rk;
        let mut regs = rk.all_derived_definitions("Register");
        sort_by_register_name(&mut regs, |r| rk.name(r));
        for r in regs {
            self.get_reg(Elem::Rec(r))?;
        }
        self.bank.num_defined_registers = self.bank.registers.len();
        for t in rk.all_derived_definitions("RegisterTuples") {
            let mut elems = self.sets.expand(t)?.unwrap_or_default();
            let sets = &self.sets;
            sort_by_register_name(&mut elems, |e| sets.name(e));
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
                if !derives(rk, *i, self.index_class) {
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

    // ---- the composites pass -----------------------------------------------

    #[inline(never)]
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
            let r1 = r1 as RegId;
            self.fill_inv(r1);
            let res = self.composites_of(r1, &user_defined, &mut actions);
            self.clear_inv(r1);
            res?;
        }
        Ok(())
    }

    /// The composites pass for one register, whose inverse is in `inv`.
    fn composites_of(
        &mut self,
        r1: RegId,
        user_defined: &HashSet<(IdxId, IdxId)>,
        actions: &mut Option<Vec<BTreeMap<RegId, RegId>>>,
    ) -> Result<(), RegsError> {
        let srm1: Vec<(IdxId, RegId)> = self.bank.reg(r1).sub_regs.as_slice().to_vec();
        for (idx1, reg2) in srm1 {
            if reg2 == r1 {
                continue;
            }
            let srm2: Vec<(IdxId, RegId)> = self.bank.reg(reg2).sub_regs.as_slice().to_vec();
            for (idx2, reg3) in srm2 {
                if reg2 == reg3 {
                    continue;
                }
                let idx3 = self.inv[reg3 as usize];
                if idx3 == NONE {
                    return Err(self.no_sub_reg_index(r1, reg2, reg3));
                }
                let Some(prev) = self.add_composite(idx1, idx2, idx3) else {
                    continue;
                };
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
                        register: r1,
                    });
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
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
        super_regs: Vec::new(),
        units: Vec::new(),
        topo_sig: u32::MAX,
    }
}
