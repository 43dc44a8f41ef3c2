//! Register class inference: the classes LLVM 14's
//! `computeInferredRegisterClasses` synthesizes (`RC_with_IDX`,
//! `RC1_and_RC2`, `RC_with_IDX_in_SubRC`), created in LLVM's order so that
//! their names and numbers match.
//!
//! LLVM compares every class with every other one, and rebuilds the
//! (super-register, sub-register) pairs of a class each time it looks for
//! matching super-register classes. Here the same questions are answered
//! through indexes that give the same answers in the same order:
//! - each class's members as a [`WindowBits`] (disjoint classes fail
//!   without touching their bits);
//! - the classes holding each register, in creation order (the candidate
//!   sub-register classes are the ones holding some sub-register);
//! - the sub-registers of every member by each index the whole class
//!   supports, computed once per class;
//! - the classes by (members, size), hashed on the member list, looked up
//!   without building a key and named only when created.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::bank::Builder;
use super::window::WindowBits;
use super::*;

/// A bound on inferred classes (real targets have hundreds).
const MAX_CLASSES: usize = 100_000;

/// The indices every member of a class has, and each member's sub-register
/// by them.
#[derive(Default)]
struct FullIndices {
    indices: Vec<IdxId>,
    /// `subs[k * n + m]`: member `m`'s sub-register by `indices[k]`, where
    /// `n` is the number of members.
    subs: Vec<RegId>,
    /// Every register in `subs`.
    all: WindowBits,
}

pub(super) struct Inference<'b, 'a> {
    b: &'b mut Builder<'a>,
    /// Classes by (members, size key); defined artificial classes are left
    /// out, like LLVM's `Key2RC`.
    by_key: HashTable<ClassId>,
    /// Members of each class.
    bits: Vec<WindowBits>,
    /// The classes holding each register, in increasing order.
    reg_classes: Vec<Vec<ClassId>>,
    /// Per class, filled when `sub_class_with_sub_reg` visits it.
    full: Vec<FullIndices>,
    /// While classes from `.0` on are matched against earlier ones: the
    /// members of those classes (a bit set over all registers).
    round: Option<(usize, Vec<u64>)>,
    // Scratch space, kept between calls.
    by_idx: Vec<Vec<(RegId, RegId)>>,
    count: Vec<u32>,
    touched: Vec<ClassId>,
    members: Vec<RegId>,
}

fn key_hash(members: &[RegId], size: RegSizeInfo) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    members.hash(&mut h);
    size.hash(&mut h);
    h.finish()
}

impl<'b, 'a> Inference<'b, 'a> {
    /// Indexes the defined classes of `b`.
    pub(super) fn new(b: &'b mut Builder<'a>) -> Self {
        let classes = &b.bank.classes;
        let mut by_key = HashTable::new();
        for (id, rc) in classes.iter().enumerate() {
            if rc.artificial {
                continue;
            }
            let key = rc.rsi.key();
            let h = key_hash(&rc.members, key);
            let eq = |&c: &ClassId| {
                let o = &classes[c as usize];
                o.members == rc.members && o.rsi.key() == key
            };
            if by_key.find(h, eq).is_none() {
                by_key.insert_unique(h, id as ClassId, |&c| {
                    let o = &classes[c as usize];
                    key_hash(&o.members, o.rsi.key())
                });
            }
        }
        let bits = classes
            .iter()
            .map(|c| WindowBits::new(&c.members))
            .collect();
        let mut reg_classes: Vec<Vec<ClassId>> = vec![Vec::new(); b.bank.registers.len()];
        for (c, rc) in classes.iter().enumerate() {
            for &r in &rc.members {
                reg_classes[r as usize].push(c as ClassId);
            }
        }
        let nidx = b.bank.sub_reg_indices.len();
        let nclasses = classes.len();
        Inference {
            b,
            by_key,
            bits,
            reg_classes,
            full: (0..nclasses).map(|_| FullIndices::default()).collect(),
            round: None,
            by_idx: vec![Vec::new(); nidx],
            count: Vec::new(),
            touched: Vec::new(),
            members: Vec::new(),
        }
    }

    fn classes(&self) -> &[RegClass] {
        &self.b.bank.classes
    }

    /// The class with `members` and the size of `rc`, created (named by
    /// `name`) if missing. `members` are sorted and unique.
    fn get_or_create(
        &mut self,
        rc: ClassId,
        members: &[RegId],
        name: impl FnOnce(&RegBank) -> String,
        origin: ClassOrigin,
    ) -> ClassId {
        let classes = &self.b.bank.classes;
        let rsi = &classes[rc as usize].rsi;
        let key = rsi.key();
        let h = key_hash(members, key);
        let found = self.by_key.find(h, |&c| {
            let o = &classes[c as usize];
            o.members == members && o.rsi.key() == key
        });
        if let Some(&c) = found {
            return c;
        }
        let rsi = rsi.clone();
        let id = classes.len() as ClassId;
        let name = name(&self.b.bank);
        let artificial = members.iter().all(|&r| self.b.bank.reg(r).artificial);
        let topo_sigs = self.b.topo_sigs_of(members);
        self.bits.push(WindowBits::new(members));
        self.full.push(FullIndices::default());
        for &r in members {
            self.reg_classes[r as usize].push(id);
        }
        if let Some((_, bits)) = &mut self.round {
            for &r in members {
                bit_set(bits, r as usize);
            }
        }
        self.b.bank.classes.push(RegClass {
            name,
            def: None,
            span: None,
            origin,
            order: members.to_vec(),
            alt_orders: Vec::new(),
            alt_order_select: String::new(),
            copy_cost: 0,
            allocatable: false,
            allocation_priority: 0,
            members: members.to_vec(),
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
        let classes = &self.b.bank.classes;
        self.by_key.insert_unique(h, id, |&c| {
            let o = &classes[c as usize];
            key_hash(&o.members, o.rsi.key())
        });
        id
    }

    /// Visits every class, including the ones it creates, in LLVM's order.
    pub(super) fn run(&mut self) -> Result<(), RegsError> {
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
            // Classes made since the last round may be sub-register classes
            // of the ones visited before them.
            if rc as usize == first_new {
                let next_new = self.classes().len() - 1;
                let mut bits = vec![0u64; self.b.bank.registers.len().div_ceil(64)];
                for c in &self.classes()[first_new + 1..] {
                    for &r in &c.members {
                        bit_set(&mut bits, r as usize);
                    }
                }
                self.round = Some((first_new + 1, bits));
                for i2 in 0..=first_new {
                    self.matching_super_reg_class(i2 as ClassId, first_new + 1);
                }
                self.round = None;
                first_new = next_new;
            }
        }
        Ok(())
    }

    /// `RC_with_IDX`: the members having sub-register index IDX, for every
    /// (non-artificial) index of some (non-artificial) member.
    fn sub_class_with_sub_reg(&mut self, rc: ClassId) {
        let mut by_idx = std::mem::take(&mut self.by_idx);
        let bank = &self.b.bank;
        let members = &bank.classes[rc as usize].members;
        let n = members.len();
        for &r in members {
            let reg = bank.reg(r);
            if reg.artificial {
                continue;
            }
            for (&i, &s) in &reg.sub_regs {
                if !bank.idx(i).artificial {
                    by_idx[i as usize].push((r, s));
                }
            }
        }
        let mut full = FullIndices::default();
        let mut all = Vec::new();
        let mut with = BTreeMap::new();
        for (idx, pairs) in by_idx.iter_mut().enumerate() {
            if pairs.is_empty() {
                continue;
            }
            let idx = idx as IdxId;
            let sub = if pairs.len() == n {
                full.indices.push(idx);
                full.subs.extend(pairs.iter().map(|p| p.1));
                all.extend(pairs.iter().map(|p| p.1));
                rc
            } else {
                let mut regs = std::mem::take(&mut self.members);
                regs.clear();
                regs.extend(pairs.iter().map(|p| p.0));
                let c = self.get_or_create(
                    rc,
                    &regs,
                    |b| format!("{}_with_{}", b.class(rc).name, b.idx(idx).name),
                    ClassOrigin::WithSubReg {
                        class: rc,
                        index: idx,
                    },
                );
                self.members = regs;
                c
            };
            with.insert(idx, sub);
            pairs.clear();
        }
        self.by_idx = by_idx;
        full.all = WindowBits::new(&all);
        self.b.bank.classes[rc as usize].sub_class_with_sub_reg = with;
        self.full[rc as usize] = full;
    }

    /// `RC1_and_RC2`: the intersection with every earlier class.
    fn common_sub_class(&mut self, rc: ClassId) {
        let last = self.classes().len();
        let mut inter = std::mem::take(&mut self.members);
        for other in 0..last as ClassId {
            if other == rc || !self.bits[rc as usize].intersects(&self.bits[other as usize]) {
                continue;
            }
            let classes = self.classes();
            intersect_into(
                &classes[rc as usize].members,
                &classes[other as usize].members,
                &mut inter,
            );
            let (mut a, mut b) = (rc, other);
            if classes[b as usize]
                .rsi
                .has_stricter_spill_than(&classes[a as usize].rsi)
            {
                std::mem::swap(&mut a, &mut b);
            }
            self.get_or_create(
                a,
                &inter,
                |bank| format!("{}_and_{}", bank.class(a).name, bank.class(b).name),
                ClassOrigin::Common { a, b },
            );
        }
        self.members = inter;
    }

    /// `RC_with_IDX_in_SubRC`: for every index all of RC's members have and
    /// every class SubRC (from `first_sub_rc` on) holding some but not all
    /// of their sub-registers by it, the members whose sub-register is in
    /// SubRC.
    fn matching_super_reg_class(&mut self, rc: ClassId, first_sub_rc: usize) {
        if let Some((from, bits)) = &self.round {
            // None of RC's sub-registers is in a class made since `from`.
            if *from == first_sub_rc && !self.full[rc as usize].all.intersects_bits(bits) {
                return;
            }
        }
        let full = std::mem::take(&mut self.full[rc as usize]);
        let n = self.classes()[rc as usize].members.len();
        let mut subset = std::mem::take(&mut self.members);
        for (k, &idx) in full.indices.iter().enumerate() {
            let end = self.classes().len();
            if first_sub_rc >= end {
                break;
            }
            let subs = &full.subs[k * n..(k + 1) * n];
            // Count, for every class in [first_sub_rc, end), how many of the
            // sub-registers it holds: the others hold none, and LLVM skips
            // them (by topological signature or an empty subset).
            self.count.resize(end, 0);
            let mut visit = |c: ClassId| {
                if self.count[c as usize] == 0 {
                    self.touched.push(c);
                }
                self.count[c as usize] += 1;
            };
            for &sub in subs {
                let rcs = &self.reg_classes[sub as usize];
                if first_sub_rc == 0 {
                    rcs.iter()
                        .take_while(|&&c| (c as usize) < end)
                        .for_each(|&c| visit(c));
                } else {
                    // Few classes are that new: scan from the newest.
                    rcs.iter()
                        .rev()
                        .take_while(|&&c| c as usize >= first_sub_rc)
                        .filter(|&&c| (c as usize) < end)
                        .for_each(|&c| visit(c));
                }
            }
            // Candidates in class order, as LLVM visits them.
            self.touched.sort_unstable();
            let mut touched = std::mem::take(&mut self.touched);
            for &sub_rc in &touched {
                let n_in = std::mem::take(&mut self.count[sub_rc as usize]) as usize;
                if self.classes()[sub_rc as usize].artificial {
                    continue;
                }
                if n_in == n {
                    // RC injects completely into SubRC.
                    self.b.bank.classes[sub_rc as usize]
                        .super_reg_classes
                        .entry(idx)
                        .or_default()
                        .insert(rc);
                    continue;
                }
                let sb = &self.bits[sub_rc as usize];
                let members = &self.classes()[rc as usize].members;
                subset.clear();
                subset.extend(
                    members
                        .iter()
                        .zip(subs)
                        .filter(|(_, &s)| sb.contains(s))
                        .map(|(&m, _)| m),
                );
                self.get_or_create(
                    rc,
                    &subset,
                    |b| {
                        format!(
                            "{}_with_{}_in_{}",
                            b.class(rc).name,
                            b.idx(idx).name,
                            b.class(sub_rc).name
                        )
                    },
                    ClassOrigin::MatchingSuper {
                        class: rc,
                        index: idx,
                        sub_class: sub_rc,
                    },
                );
            }
            touched.clear();
            self.touched = touched;
        }
        self.members = subset;
        self.full[rc as usize] = full;
    }
}

/// The sorted intersection of two sorted lists, into `out`.
fn intersect_into(a: &[RegId], b: &[RegId], out: &mut Vec<RegId>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
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
}
