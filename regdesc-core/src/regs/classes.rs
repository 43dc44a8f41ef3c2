//! Register classes: members, sizes, inferred classes, topological order.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use crate::eval::RecId;

use super::bank::Builder;
use super::sets::Elem;
use super::*;

type ClassKey = (Vec<RegId>, RegSizeInfo);

/// A bound on inferred classes (real targets have hundreds).
const MAX_CLASSES: usize = 100_000;

impl<'a> Builder<'a> {
    fn vt_size(&self, vt: RecId) -> Option<u32> {
        let rk = self.rk;
        if rk.is_subclass_of_name(vt, "ValueTypeByHwMode") {
            // LLVM takes the type of the first mode.
            let modes = list_of_defs(rk, vt, "Modes").ok()?;
            let objs = list_of_defs(rk, vt, "Objects").ok()?;
            let mut best: Option<(u32, RecId)> = None;
            for (m, o) in modes.iter().zip(&objs) {
                let id = self.mode_id(rk.name(*m))?;
                if best.is_none_or(|(b, _)| id < b) {
                    best = Some((id, *o));
                }
            }
            return best
                .and_then(|(_, o)| rk.record(o).get_int("Size"))
                .map(|s| s as u32);
        }
        rk.record(vt).get_int("Size").map(|s| s as u32)
    }

    fn reg_info_by_hw_mode(
        &self,
        def: RecId,
        span: Option<Span>,
    ) -> Result<RegSizeInfoByHwMode, RegsError> {
        let rk = self.rk;
        let modes = list_of_defs(rk, def, "Modes")?;
        let objs = list_of_defs(rk, def, "Objects")?;
        if modes.len() != objs.len() {
            return Err(RegsError::Class {
                message: format!(
                    "in record {} derived from HwModeSelect: the lists Modes and Objects should have the same size",
                    rk.name(def)
                ),
                span,
            });
        }
        let mut rsi = RegSizeInfoByHwMode::default();
        for (m, o) in modes.iter().zip(&objs) {
            let Some(id) = self.mode_id(rk.name(*m)) else {
                return Err(RegsError::Class {
                    message: format!("'{}' is not a HwMode", rk.name(*m)),
                    span,
                });
            };
            let info = RegSizeInfo {
                reg_size: int_field(rk, *o, "RegSize")? as u32,
                spill_size: int_field(rk, *o, "SpillSize")? as u32,
                spill_alignment: int_field(rk, *o, "SpillAlignment")? as u32,
            };
            rsi.map.entry(id).or_insert(info);
        }
        Ok(rsi)
    }

    fn defined_class(&mut self, def: RecId) -> Result<RegClass, RegsError> {
        let rk = self.rk;
        let rec = rk.record(def);
        let span = Some(rec.span);
        let types = list_of_defs(rk, def, "RegTypes")?;
        if types.is_empty() {
            return Err(RegsError::Class {
                message: "RegTypes list must not be empty!".into(),
                span,
            });
        }
        for &t in &types {
            if !rk.is_subclass_of_name(t, "ValueType") {
                return Err(RegsError::Class {
                    message: format!(
                        "RegTypes list member '{}' does not derive from the ValueType class!",
                        rk.name(t)
                    ),
                    span,
                });
            }
        }
        let elems = self.sets.expand(def)?.unwrap_or_default();
        let mut order = Vec::with_capacity(elems.len());
        let mut artificial = true;
        for e in elems {
            let r = self.elem_reg(e, span)?;
            order.push(r);
            artificial &= self.bank.reg(r).artificial;
        }
        let mut members = order.clone();
        members.sort_unstable();
        members.dedup();

        let mut rsi = RegSizeInfoByHwMode::default();
        if let Some(ri) = rec.get("RegInfos").and_then(|i| i.as_def()) {
            rsi = self.reg_info_by_hw_mode(ri, span)?;
        }
        if let std::collections::btree_map::Entry::Vacant(slot) = rsi.map.entry(0) {
            let size = int_field(rk, def, "Size")?;
            let size = if size != 0 {
                size as u32
            } else {
                match self.vt_size(types[0]) {
                    Some(s) => s,
                    None => {
                        return Err(RegsError::Class {
                            message: "Impossible to determine register size".into(),
                            span,
                        })
                    }
                }
            };
            let align = int_field(rk, def, "Alignment")? as u32;
            slot.insert(RegSizeInfo {
                reg_size: size,
                spill_size: size,
                spill_alignment: align,
            });
        }
        let prio = int_field(rk, def, "AllocationPriority")?;
        if !(0..=63).contains(&prio) {
            return Err(RegsError::Class {
                message: "AllocationPriority out of range [0,63]".into(),
                span,
            });
        }
        let alt_orders = self.alt_orders(def, &members, span)?;
        Ok(RegClass {
            name: rec.name.clone(),
            def: Some(def),
            span,
            origin: ClassOrigin::Defined,
            topo_sigs: self.topo_sigs_of(&members),
            members,
            order,
            alt_orders,
            alt_order_select: rec.get_string("AltOrderSelect").unwrap_or("").to_string(),
            copy_cost: int_field(rk, def, "CopyCost")?,
            allocatable: bit_field(rk, def, "isAllocatable")?,
            allocation_priority: prio as u8,
            rsi,
            artificial,
            namespace: rec.get_string("Namespace").unwrap_or("").to_string(),
            value_types: types.iter().map(|&t| rk.name(t).to_string()).collect(),
            sub_class_with_sub_reg: BTreeMap::new(),
            super_reg_classes: BTreeMap::new(),
            enum_value: 0,
            sub_classes: Vec::new(),
            super_classes: Vec::new(),
            has_disjunct_sub_regs: false,
            covered_by_sub_regs: true,
        })
    }

    fn elem_reg(&self, e: Elem, span: Option<Span>) -> Result<RegId, RegsError> {
        match self.elem2reg.get(&e) {
            Some(&r) => Ok(r),
            None => Err(RegsError::Class {
                message: format!(
                    "'{}' in a register class is not a register",
                    self.sets.name(e)
                ),
                span,
            }),
        }
    }

    fn topo_sigs_of(&self, members: &[RegId]) -> Vec<u64> {
        let mut v = vec![0u64; self.bank.num_topo_sigs.div_ceil(64)];
        for &r in members {
            bit_set(&mut v, self.bank.reg(r).topo_sig as usize);
        }
        v
    }

    pub(super) fn classes(&mut self) -> Result<(), RegsError> {
        let defs = self.rk.all_derived_definitions("RegisterClass");
        if defs.is_empty() {
            return Err(RegsError::Class {
                message: "No 'RegisterClass' subclasses defined!".into(),
                span: None,
            });
        }
        let mut key2rc: HashMap<ClassKey, ClassId> = HashMap::default();
        for d in defs {
            let rc = self.defined_class(d)?;
            let id = self.bank.classes.len() as ClassId;
            if !rc.artificial {
                key2rc
                    .entry((rc.members.clone(), rc.rsi.key()))
                    .or_insert(id);
            }
            self.bank.classes.push(rc);
        }
        self.bank.num_defined_classes = self.bank.classes.len();
        let nregs = self.bank.registers.len();
        let bits = self
            .bank
            .classes
            .iter()
            .map(|c| member_bits(&c.members, nregs))
            .collect();
        let mut reg_classes: Vec<Vec<ClassId>> = vec![Vec::new(); nregs];
        for (c, rc) in self.bank.classes.iter().enumerate() {
            for &r in &rc.members {
                reg_classes[r as usize].push(c as ClassId);
            }
        }
        let mut inf = Inference {
            b: self,
            key2rc,
            bits,
            reg_classes,
        };
        inf.run()?;
        self.sort_classes();
        Ok(())
    }

    fn sort_classes(&mut self) {
        let classes = &self.bank.classes;
        let mut order: Vec<ClassId> = (0..classes.len() as ClassId).collect();
        order.sort_by(|&a, &b| {
            let (ca, cb) = (&classes[a as usize], &classes[b as usize]);
            ca.rsi
                .key()
                .cmp(&cb.rsi.key())
                .then_with(|| cb.members.len().cmp(&ca.members.len()))
                .then_with(|| ca.name.cmp(&cb.name))
        });
        for (e, &c) in order.iter().enumerate() {
            self.bank.classes[c as usize].enum_value = e as u32;
        }
        self.bank.class_order = order;
        self.compute_sub_classes();
    }

    fn compute_sub_classes(&mut self) {
        let order = self.bank.class_order.clone();
        let n = order.len();
        let test = |classes: &[RegClass], a: ClassId, b: ClassId| -> bool {
            let (ca, cb) = (&classes[a as usize], &classes[b as usize]);
            ca.rsi.is_sub_class_of(&cb.rsi) && includes(&ca.members, &cb.members)
        };
        for p in (0..n).rev() {
            let rc = order[p];
            let mut subs = vec![0u64; n.div_ceil(64)];
            bit_set(&mut subs, p);
            if !self.bank.classes[rc as usize].artificial {
                for (q, &sub) in order.iter().enumerate().skip(p + 1) {
                    if bit_test(&subs, q) || !test(&self.bank.classes, rc, sub) {
                        continue;
                    }
                    let other = &self.bank.classes[sub as usize].sub_classes;
                    for (w, o) in subs.iter_mut().zip(other) {
                        *w |= o;
                    }
                }
                for q in (0..p).rev() {
                    if !test(&self.bank.classes, rc, order[q]) {
                        break;
                    }
                    bit_set(&mut subs, q);
                }
            }
            self.bank.classes[rc as usize].sub_classes = subs;
        }
        for p in 0..n {
            let rc = order[p];
            let subs = self.bank.classes[rc as usize].sub_classes.clone();
            for (q, &sub) in order.iter().enumerate() {
                if q != p && bit_test(&subs, q) {
                    self.bank.classes[sub as usize].super_classes.push(rc);
                }
            }
        }
    }
}

fn includes(a: &[RegId], b: &[RegId]) -> bool {
    let mut i = 0;
    for &x in b {
        while i < a.len() && a[i] < x {
            i += 1;
        }
        if i == a.len() || a[i] != x {
            return false;
        }
        i += 1;
    }
    true
}

struct Inference<'b, 'a> {
    b: &'b mut Builder<'a>,
    key2rc: HashMap<ClassKey, ClassId>,
    /// Membership bit set of each class, by register.
    bits: Vec<Vec<u64>>,
    /// The classes holding each register (an inverted index of `bits`).
    reg_classes: Vec<Vec<ClassId>>,
}

fn member_bits(members: &[RegId], nregs: usize) -> Vec<u64> {
    let mut v = vec![0u64; nregs.div_ceil(64)];
    for &r in members {
        v[r as usize / 64] |= 1 << (r % 64);
    }
    v
}

impl Inference<'_, '_> {
    fn classes(&self) -> &[RegClass] {
        &self.b.bank.classes
    }

    fn get_or_create(
        &mut self,
        rc: ClassId,
        members: Vec<RegId>,
        name: String,
        origin: ClassOrigin,
    ) -> ClassId {
        let rsi = self.classes()[rc as usize].rsi.clone();
        let key = (members, rsi.key());
        if let Some(&c) = self.key2rc.get(&key) {
            return c;
        }
        let members = key.0.clone();
        let id = self.classes().len() as ClassId;
        let artificial = members.iter().all(|&r| self.b.bank.reg(r).artificial);
        let topo_sigs = self.b.topo_sigs_of(&members);
        self.bits
            .push(member_bits(&members, self.b.bank.registers.len()));
        for &r in &members {
            self.reg_classes[r as usize].push(id);
        }
        self.b.bank.classes.push(RegClass {
            name,
            def: None,
            span: None,
            origin,
            order: members.clone(),
            alt_orders: Vec::new(),
            alt_order_select: String::new(),
            copy_cost: 0,
            allocatable: false,
            allocation_priority: 0,
            members,
            rsi,
            artificial,
            namespace: String::new(),
            value_types: Vec::new(),
            sub_class_with_sub_reg: BTreeMap::new(),
            super_reg_classes: BTreeMap::new(),
            topo_sigs,
            enum_value: 0,
            sub_classes: Vec::new(),
            super_classes: Vec::new(),
            has_disjunct_sub_regs: false,
            covered_by_sub_regs: true,
        });
        self.key2rc.insert(key, id);
        id
    }

    fn run(&mut self) -> Result<(), RegsError> {
        let mut first_new = self.classes().len().saturating_sub(1);
        let mut i = 0;
        while i < self.classes().len() {
            if self.classes().len() > MAX_CLASSES {
                return Err(RegsError::Class {
                    message: format!(
                        "register class inference made more than {MAX_CLASSES} classes; giving up"
                    ),
                    span: self.classes()[0].span,
                });
            }
            let rc = i as ClassId;
            i += 1;
            if self.classes()[rc as usize].artificial {
                continue;
            }
            self.sub_class_with_sub_reg(rc);
            self.common_sub_class(rc);
            self.matching_super_reg_class(rc, 0);
            if rc as usize == first_new {
                let next_new = self.classes().len() - 1;
                for i2 in 0..=first_new {
                    self.matching_super_reg_class(i2 as ClassId, first_new + 1);
                }
                first_new = next_new;
            }
        }
        Ok(())
    }

    fn sub_class_with_sub_reg(&mut self, rc: ClassId) {
        let bank = &self.b.bank;
        let mut sets: Vec<Vec<RegId>> = vec![Vec::new(); bank.sub_reg_indices.len()];
        for &r in &bank.classes[rc as usize].members {
            let reg = bank.reg(r);
            if reg.artificial {
                continue;
            }
            for &i in reg.sub_regs.keys() {
                if !bank.idx(i).artificial {
                    sets[i as usize].push(r);
                }
            }
        }
        let nmembers = bank.classes[rc as usize].members.len();
        for (idx, regs) in sets.into_iter().enumerate() {
            if regs.is_empty() {
                continue;
            }
            let idx = idx as IdxId;
            let sub = if regs.len() == nmembers {
                rc
            } else {
                let name = format!(
                    "{}_with_{}",
                    self.classes()[rc as usize].name,
                    self.b.bank.idx(idx).name
                );
                self.get_or_create(
                    rc,
                    regs,
                    name,
                    ClassOrigin::WithSubReg {
                        class: rc,
                        index: idx,
                    },
                )
            };
            self.b.bank.classes[rc as usize]
                .sub_class_with_sub_reg
                .insert(idx, sub);
        }
    }

    fn common_sub_class(&mut self, rc: ClassId) {
        let last = self.classes().len();
        for other in 0..last as ClassId {
            if other == rc || !bits_any_common(&self.bits[rc as usize], &self.bits[other as usize])
            {
                continue;
            }
            let (m1, m2) = (
                &self.classes()[rc as usize].members,
                &self.classes()[other as usize].members,
            );
            let inter = intersect(m1, m2);
            if inter.is_empty() {
                continue;
            }
            let (mut a, mut b) = (rc, other);
            if self.classes()[b as usize]
                .rsi
                .has_stricter_spill_than(&self.classes()[a as usize].rsi)
            {
                std::mem::swap(&mut a, &mut b);
            }
            let name = format!(
                "{}_and_{}",
                self.classes()[a as usize].name,
                self.classes()[b as usize].name
            );
            self.get_or_create(a, inter, name, ClassOrigin::Common { a, b });
        }
    }

    fn matching_super_reg_class(&mut self, rc: ClassId, first_sub_rc: usize) {
        let nidx = self.b.bank.sub_reg_indices.len();
        // (super, sub) pairs of every index RC supports fully, in one pass
        // over the members.
        let full: Vec<IdxId> = self.classes()[rc as usize]
            .sub_class_with_sub_reg
            .iter()
            .filter(|(_, &c)| c == rc)
            .map(|(&i, _)| i)
            .collect();
        if full.is_empty() {
            return;
        }
        let mut wanted = vec![false; nidx];
        for &i in &full {
            wanted[i as usize] = true;
        }
        let mut all_pairs: Vec<Vec<(RegId, RegId)>> = vec![Vec::new(); nidx];
        {
            let bank = &self.b.bank;
            for &sup in &bank.classes[rc as usize].members {
                for (&i, &sub) in &bank.reg(sup).sub_regs {
                    if wanted[i as usize] {
                        all_pairs[i as usize].push((sup, sub));
                    }
                }
            }
        }
        for idx in full {
            let pairs = std::mem::take(&mut all_pairs[idx as usize]);
            let end = self.classes().len();
            // Count, for every class from `first_sub_rc` on, how many pairs
            // have their sub-register in it: only classes sharing a member
            // can take part (LLVM skips the others by topological signature
            // or an empty subset), visited in class order as LLVM does.
            let mut count = vec![0usize; end];
            let mut touched: Vec<ClassId> = Vec::new();
            for &(_, sub) in &pairs {
                for &c in &self.reg_classes[sub as usize] {
                    let ci = c as usize;
                    if ci >= first_sub_rc && ci < end {
                        if count[ci] == 0 {
                            touched.push(c);
                        }
                        count[ci] += 1;
                    }
                }
            }
            touched.sort_unstable();
            let candidates: Vec<(ClassId, usize)> =
                touched.iter().map(|&c| (c, count[c as usize])).collect();
            for (sub_rc, n_in) in candidates {
                let sub_rc = sub_rc as usize;
                let src = &self.classes()[sub_rc];
                if src.artificial {
                    continue;
                }
                if n_in == pairs.len() {
                    // RC injects completely into SubRC.
                    self.b.bank.classes[sub_rc]
                        .super_reg_classes
                        .entry(idx)
                        .or_default()
                        .insert(rc);
                    continue;
                }
                let sb = &self.bits[sub_rc];
                let has = |r: RegId| sb[r as usize / 64] & (1 << (r % 64)) != 0;
                // Members are sorted and unique, so the subset is too.
                let subset: Vec<RegId> = pairs.iter().filter(|p| has(p.1)).map(|p| p.0).collect();
                let name = format!(
                    "{}_with_{}_in_{}",
                    self.classes()[rc as usize].name,
                    self.b.bank.idx(idx).name,
                    src.name
                );
                self.get_or_create(
                    rc,
                    subset,
                    name,
                    ClassOrigin::MatchingSuper {
                        class: rc,
                        index: idx,
                        sub_class: sub_rc as ClassId,
                    },
                );
            }
        }
    }
}

fn intersect(a: &[RegId], b: &[RegId]) -> Vec<RegId> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}
