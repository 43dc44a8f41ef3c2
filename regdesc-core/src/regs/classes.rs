//! Register classes: members, sizes, inferred classes, topological order.

use std::collections::BTreeMap;

use crate::eval::RecId;

use super::bank::Builder;
use super::inference::Inference;
use super::sets::Elem;
use super::window::WindowBits;
use super::*;

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

    #[inline(never)]
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

    pub(super) fn topo_sigs_of(&self, members: &[RegId]) -> Vec<u64> {
        let mut v = vec![0u64; self.bank.num_topo_sigs.div_ceil(64)];
        for &r in members {
            bit_set(&mut v, self.bank.reg(r).topo_sig as usize);
        }
        v
    }

    /// The classes the records define, in record order.
    pub(super) fn defined_classes(&mut self) -> Result<(), RegsError> {
        let defs = self.rk.all_derived_definitions("RegisterClass");
        if defs.is_empty() {
            return Err(RegsError::Class {
                message: "No 'RegisterClass' subclasses defined!".into(),
                span: None,
            });
        }
        for d in defs {
            let rc = self.defined_class(d)?;
            self.bank.classes.push(rc);
        }
        self.bank.num_defined_classes = self.bank.classes.len();
        Ok(())
    }

    /// The classes inference adds to the defined ones, and the
    /// topological order of all.
    pub(super) fn inferred_classes(&mut self) -> Result<(), RegsError> {
        Inference::new(self).run()?;
        self.sort_classes();
        Ok(())
    }

    #[inline(never)]
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

    #[inline(never)]
    fn compute_sub_classes(&mut self) {
        let order = self.bank.class_order.clone();
        let n = order.len();
        let bits: Vec<WindowBits> = self
            .bank
            .classes
            .iter()
            .map(|c| WindowBits::new(&c.members))
            .collect();
        // Each class's size info in every mode, and its first mode (what
        // `RegSizeInfoByHwMode::is_sub_class_of` reads, without its maps).
        let modes = self.bank.hw_modes.len().max(1);
        let sizes: Vec<RegSizeInfo> = self
            .bank
            .classes
            .iter()
            .flat_map(|c| (0..modes as u32).map(|m| c.rsi.get(m)))
            .collect();
        let first: Vec<usize> = self
            .bank
            .classes
            .iter()
            .map(|c| {
                c.rsi
                    .map
                    .keys()
                    .next()
                    .map_or(0, |&m| m as usize)
                    .min(modes - 1)
            })
            .collect();
        // LLVM's `testSubClass`.
        let test = |a: ClassId, b: ClassId| -> bool {
            let (a, b) = (a as usize, b as usize);
            let m = first[a];
            sizes[a * modes + m].is_sub_class_of(&sizes[b * modes + m])
                && bits[a].includes(&bits[b])
        };
        for p in (0..n).rev() {
            let rc = order[p];
            let mut subs = vec![0u64; n.div_ceil(64)];
            bit_set(&mut subs, p);
            if !self.bank.classes[rc as usize].artificial {
                for (q, &sub) in order.iter().enumerate().skip(p + 1) {
                    if bit_test(&subs, q) || !test(rc, sub) {
                        continue;
                    }
                    let other = &self.bank.classes[sub as usize].sub_classes;
                    for (w, o) in subs.iter_mut().zip(other) {
                        *w |= o;
                    }
                }
                for q in (0..p).rev() {
                    if !test(rc, order[q]) {
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
