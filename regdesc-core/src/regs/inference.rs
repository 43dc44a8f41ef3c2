//! Register class inference: the classes LLVM 14's
//! `computeInferredRegisterClasses` synthesizes (`RC_with_IDX`,
//! `RC1_and_RC2`, `RC_with_IDX_in_SubRC`), created in LLVM's order so that
//! their names and numbers match, and the super-register classes it finds
//! on the way (LLVM's `SuperRegClasses`).
//!
//! LLVM compares every class with every other one, walks every member's
//! sub-registers for each class, and rebuilds the (super-register,
//! sub-register) pairs of a class each time it looks for matching
//! super-register classes. Here the same questions are answered through
//! indexes that give the same answers in the same order:
//! - registers of one topological signature have the same indices, at the
//!   same places in their sub-register maps ([`Shape`]): a class's
//!   `RC_with_IDX` sets come from its few signatures, not from every
//!   member's map, and one index's sub-registers are read by position;
//! - the sub-registers of every member by each index the whole class
//!   supports are gathered once per class ([`FullIndices`]);
//! - the classes holding each register, shared by registers held by the
//!   same classes ([`Membership`]): the candidate sub-register classes are
//!   the ones holding some sub-register, counted per group of registers;
//! - each class's members as a [`WindowBits`] (disjoint classes fail
//!   without touching their bits);
//! - the classes by (members, size), hashed on the member list, looked up
//!   without building a key and named only when created.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap as HashMap};

use super::bank::Builder;
use super::membership::Membership;
use super::window::WindowBits;
use super::*;

/// A bound on inferred classes (real targets have hundreds).
const MAX_CLASSES: usize = 100_000;

/// No slot, in the dense scratch tables.
const NONE: u32 = u32::MAX;

/// The non-artificial indices the registers of one topological signature
/// have, each with its position in their sub-register maps.
type Shape = Vec<(IdxId, u32)>;

/// The indices every member of a class has, and each member's sub-register
/// by them.
#[derive(Default)]
struct FullIndices {
    indices: Vec<IdxId>,
    /// `subs[k * n + m]`: member `m`'s sub-register by `indices[k]`, where
    /// `n` is the number of members.
    subs: Vec<RegId>,
    /// Every register in `subs`, as a bit set over all registers.
    all: Vec<u64>,
}

/// Buffers reused from one class to the next.
#[derive(Default)]
struct Scratch {
    /// By topological signature: its slot among the current class's
    /// signatures, or [`NONE`].
    slot_of_sig: Vec<u32>,
    /// The current class's signatures, by slot.
    sigs: Vec<u32>,
    /// How many members have each slot's signature.
    slot_count: Vec<u32>,
    /// Each member's slot ([`NONE`] for artificial members).
    member_slot: Vec<u32>,
    /// By index: the slots whose signature has it (`words` per index).
    masks: Vec<u64>,
    /// The indices some slot has.
    indices: Vec<IdxId>,
    /// Masks already turned into a class, with that class.
    done: Vec<(Vec<u64>, ClassId)>,
    /// By member group: how many sub-registers are in it, and its place
    /// in `groups`.
    group_count: Vec<u32>,
    group_slot: Vec<u32>,
    /// The groups of the sub-registers, in order of appearance.
    groups: Vec<u32>,
    /// The sub-registers as runs of one group: (place in `groups`, first
    /// member, length).
    runs: Vec<(u32, u32, u32)>,
    /// By class: how many sub-registers it holds, and which of `groups`
    /// (the first 64) hold them.
    count: Vec<u32>,
    group_mask: Vec<u64>,
    touched: Vec<ClassId>,
    masks_seen: Vec<u64>,
    members: Vec<RegId>,
    /// The runs of the current index with their groups: (group, first
    /// member, length).
    key: Vec<(u32, u32, u32)>,
    /// For the class being matched, while no class is created: the classes
    /// RC injects into by an index, by the runs of its sub-registers (two
    /// indices whose sub-registers fall in the same groups in the same
    /// places find the same classes; AMDGPU has 50,000 such indices and
    /// 3,000 distinct runs).
    memo: HashMap<Vec<(u32, u32, u32)>, Vec<ClassId>>,
    injective: Vec<ClassId>,
}

pub(super) struct Inference<'b, 'a> {
    b: &'b mut Builder<'a>,
    /// Classes by (members, size key); defined artificial classes are left
    /// out, like LLVM's `Key2RC`.
    by_key: HashTable<ClassId>,
    /// The size key of each class.
    keys: Vec<RegSizeInfo>,
    /// Members of each class.
    bits: Vec<WindowBits>,
    /// The classes holding each register.
    membership: Membership,
    /// By topological signature, filled on first use.
    shapes: Vec<Option<Shape>>,
    /// Per class, filled when `sub_class_with_sub_reg` visits it.
    full: Vec<FullIndices>,
    /// While classes from `.0` on are matched against earlier ones: the
    /// members of those classes (a bit set over all registers).
    round: Option<(usize, Vec<u64>)>,
    /// (SubRC, index, RC): the sub-registers of RC's members by the index
    /// all lie in SubRC.
    /// By index: `SubRC << 32 | RC` (LLVM's `SuperRegClasses` of SubRC):
    /// kept by index, where they are found one index at a time.
    super_reg_classes: Vec<Vec<u64>>,
    scratch: Scratch,
}

fn key_hash(members: &[RegId], size: RegSizeInfo) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    members.hash(&mut h);
    size.hash(&mut h);
    h.finish()
}

impl<'b, 'a> Inference<'b, 'a> {
    /// Indexes the defined classes of `b`.
    #[inline(never)]
    pub(super) fn new(b: &'b mut Builder<'a>) -> Self {
        let classes = &b.bank.classes;
        let keys: Vec<RegSizeInfo> = classes.iter().map(|c| c.rsi.key()).collect();
        let mut by_key = HashTable::new();
        for (id, rc) in classes.iter().enumerate() {
            if rc.artificial {
                continue;
            }
            let key = keys[id];
            let h = key_hash(&rc.members, key);
            let eq =
                |&c: &ClassId| classes[c as usize].members == rc.members && keys[c as usize] == key;
            if by_key.find(h, eq).is_none() {
                by_key.insert_unique(h, id as ClassId, |&c| {
                    key_hash(&classes[c as usize].members, keys[c as usize])
                });
            }
        }
        let bits = classes
            .iter()
            .map(|c| WindowBits::new(&c.members))
            .collect();
        let mut membership = Membership::new(b.bank.registers.len());
        for (c, rc) in classes.iter().enumerate() {
            membership.add_class(c as ClassId, &rc.members);
        }
        let nclasses = classes.len();
        let nsigs = b.bank.num_topo_sigs;
        let nidx = b.bank.sub_reg_indices.len();
        Inference {
            b,
            by_key,
            keys,
            bits,
            membership,
            shapes: vec![None; nsigs],
            full: (0..nclasses).map(|_| FullIndices::default()).collect(),
            round: None,
            super_reg_classes: vec![Vec::new(); nidx],
            scratch: Scratch {
                slot_of_sig: vec![NONE; nsigs],
                ..Scratch::default()
            },
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
        let keys = &self.keys;
        let key = keys[rc as usize];
        let h = key_hash(members, key);
        let found = self.by_key.find(h, |&c| {
            keys[c as usize] == key && classes[c as usize].members == members
        });
        if let Some(&c) = found {
            return c;
        }
        let rsi = classes[rc as usize].rsi.clone();
        let id = classes.len() as ClassId;
        let name = name(&self.b.bank);
        let artificial = members.iter().all(|&r| self.b.bank.reg(r).artificial);
        let topo_sigs = self.b.topo_sigs_of(members);
        self.keys.push(key);
        self.bits.push(WindowBits::new(members));
        self.full.push(FullIndices::default());
        self.membership.add_class(id, members);
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
        let (classes, keys) = (&self.b.bank.classes, &self.keys);
        self.by_key.insert_unique(h, id, |&c| {
            key_hash(&classes[c as usize].members, keys[c as usize])
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
        self.store_super_reg_classes();
        Ok(())
    }

    /// The shape of the registers of topological signature `sig`, `reg`
    /// being one of them.
    fn shape(&mut self, sig: u32, reg: RegId) -> &Shape {
        let bank = &self.b.bank;
        self.shapes[sig as usize].get_or_insert_with(|| {
            bank.reg(reg)
                .sub_regs
                .keys()
                .enumerate()
                .filter(|(_, &i)| !bank.idx(i).artificial)
                .map(|(p, &i)| (i, p as u32))
                .collect()
        })
    }

    /// `RC_with_IDX`: for every (non-artificial) index some
    /// (non-artificial) member has, the members having it. Also gathers
    /// the sub-registers by the indices all members have.
    #[inline(never)]
    fn sub_class_with_sub_reg(&mut self, rc: ClassId) {
        let mut sc = std::mem::take(&mut self.scratch);
        // The members' signatures, each in a slot.
        sc.sigs.clear();
        sc.slot_count.clear();
        sc.member_slot.clear();
        for k in 0..self.classes()[rc as usize].members.len() {
            let m = self.classes()[rc as usize].members[k];
            let reg = self.b.bank.reg(m);
            if reg.artificial {
                sc.member_slot.push(NONE);
                continue;
            }
            let sig = reg.topo_sig;
            let mut slot = sc.slot_of_sig[sig as usize];
            if slot == NONE {
                slot = sc.sigs.len() as u32;
                sc.slot_of_sig[sig as usize] = slot;
                sc.sigs.push(sig);
                sc.slot_count.push(0);
                self.shape(sig, m);
            }
            sc.slot_count[slot as usize] += 1;
            sc.member_slot.push(slot);
        }
        for &sig in &sc.sigs {
            sc.slot_of_sig[sig as usize] = NONE;
        }
        // By index, the slots having it.
        let words = sc.sigs.len().div_ceil(64).max(1);
        let nidx = self.b.bank.sub_reg_indices.len();
        sc.masks.clear();
        sc.masks.resize(nidx * words, 0);
        sc.indices.clear();
        for (slot, &sig) in sc.sigs.iter().enumerate() {
            let Some(shape) = &self.shapes[sig as usize] else {
                continue;
            };
            for &(idx, _) in shape {
                let m = &mut sc.masks[idx as usize * words..][..words];
                if m.iter().all(|&w| w == 0) {
                    sc.indices.push(idx);
                }
                m[slot / 64] |= 1 << (slot % 64);
            }
        }
        sc.indices.sort_unstable();

        let n = self.classes()[rc as usize].members.len();
        let mut full = FullIndices::default();
        // By index, in index order: built into a vector, and the map from it
        // in one go.
        let mut with: Vec<(IdxId, ClassId)> = Vec::with_capacity(sc.indices.len());
        sc.done.clear();
        for &idx in &sc.indices {
            let mask = &sc.masks[idx as usize * words..][..words];
            let size: u32 = (0..sc.sigs.len())
                .filter(|&s| mask[s / 64] & (1 << (s % 64)) != 0)
                .map(|s| sc.slot_count[s])
                .sum();
            if size as usize == n {
                full.indices.push(idx);
                with.push((idx, rc));
                continue;
            }
            // Indices the same signatures have give the same class.
            if let Some(&(_, c)) = sc.done.iter().find(|(m, _)| m.as_slice() == mask) {
                with.push((idx, c));
                continue;
            }
            sc.members.clear();
            let members = &self.b.bank.classes[rc as usize].members;
            sc.members.extend(
                members
                    .iter()
                    .zip(&sc.member_slot)
                    .filter(|(_, &s)| s != NONE && mask[s as usize / 64] & (1 << (s % 64)) != 0)
                    .map(|(&m, _)| m),
            );
            let c = self.get_or_create(
                rc,
                &sc.members,
                |b| format!("{}_with_{}", b.class(rc).name, b.idx(idx).name),
                ClassOrigin::WithSubReg {
                    class: rc,
                    index: idx,
                },
            );
            sc.done.push((mask.to_vec(), c));
            with.push((idx, c));
        }

        // The sub-registers by the full indices, read by position: every
        // member has a slot when some index is full.
        if !full.indices.is_empty() {
            let k = full.indices.len();
            let mut pos = vec![0u32; sc.sigs.len() * k];
            for (slot, &sig) in sc.sigs.iter().enumerate() {
                let Some(shape) = &self.shapes[sig as usize] else {
                    continue;
                };
                let mut it = shape.iter();
                for (j, &idx) in full.indices.iter().enumerate() {
                    if let Some(&(_, p)) = it.find(|(i, _)| *i == idx) {
                        pos[slot * k + j] = p;
                    }
                }
            }
            full.subs = vec![0; k * n];
            full.all = vec![0; self.b.bank.registers.len().div_ceil(64)];
            let members = &self.b.bank.classes[rc as usize].members;
            for (mi, (&m, &slot)) in members.iter().zip(&sc.member_slot).enumerate() {
                let subs = self.b.bank.reg(m).sub_regs.as_slice();
                for (j, &p) in pos[slot as usize * k..][..k].iter().enumerate() {
                    let s = subs[p as usize].1;
                    full.subs[j * n + mi] = s;
                    bit_set(&mut full.all, s as usize);
                }
            }
        }
        self.b.bank.classes[rc as usize].sub_class_with_sub_reg = with.into_iter().collect();
        self.full[rc as usize] = full;
        self.scratch = sc;
    }

    /// `RC1_and_RC2`: the intersection with every earlier class.
    #[inline(never)]
    fn common_sub_class(&mut self, rc: ClassId) {
        let last = self.classes().len();
        let mut inter = std::mem::take(&mut self.scratch.members);
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
        self.scratch.members = inter;
    }

    /// `RC_with_IDX_in_SubRC`: for every index all of RC's members have and
    /// every class SubRC (from `first_sub_rc` on) holding some but not all
    /// of their sub-registers by it, the members whose sub-register is in
    /// SubRC. A SubRC holding all of them is a super-register class.
    fn matching_super_reg_class(&mut self, rc: ClassId, first_sub_rc: usize) {
        if let Some((from, bits)) = &self.round {
            // None of RC's sub-registers is in a class made since `from`.
            let all = &self.full[rc as usize].all;
            if *from == first_sub_rc && !all.iter().zip(bits).any(|(a, b)| a & b != 0) {
                return;
            }
        }
        let full = std::mem::take(&mut self.full[rc as usize]);
        let mut sc = std::mem::take(&mut self.scratch);
        let n = self.classes()[rc as usize].members.len();
        sc.group_count.resize(self.membership.num_groups(), 0);
        sc.group_slot.resize(self.membership.num_groups(), 0);
        sc.memo.clear();
        let mut memo_end = self.classes().len();
        for (k, &idx) in full.indices.iter().enumerate() {
            let end = self.classes().len();
            if first_sub_rc >= end {
                break;
            }
            if end != memo_end {
                // A class was made: the groups and the candidates changed.
                sc.memo.clear();
                memo_end = end;
            }
            let subs = &full.subs[k * n..(k + 1) * n];
            if let Some((from, bits)) = &self.round {
                // In a round, only the classes made since `from` are
                // candidates (LLVM's loop from FirstSubRegRC): with none of
                // these sub-registers in them, the index finds nothing.
                if *from == first_sub_rc && !subs.iter().any(|&s| bit_test(bits, s as usize)) {
                    continue;
                }
            }
            // The runs of one group among the sub-registers (neighbouring
            // members' sub-registers are mostly alike): the memo's key.
            sc.key.clear();
            let mut i = 0;
            while i < n {
                let g = self.membership.group(subs[i]);
                let start = i;
                i += 1;
                while i < n && self.membership.group(subs[i]) == g {
                    i += 1;
                }
                sc.key.push((g, start as u32, (i - start) as u32));
            }
            if let Some(injective) = sc.memo.get(sc.key.as_slice()) {
                let found = &mut self.super_reg_classes[idx as usize];
                found.extend(injective.iter().map(|&c| (c as u64) << 32 | rc as u64));
                continue;
            }
            // The groups in order of appearance, with how many
            // sub-registers each holds, then the classes of each group in
            // [first_sub_rc, end): the other classes hold none of them, and
            // LLVM skips them (by topological signature or an empty subset).
            sc.groups.clear();
            sc.runs.clear();
            for &(g, start, len) in &sc.key {
                let g = g as usize;
                if sc.group_count[g] == 0 {
                    sc.group_slot[g] = sc.groups.len() as u32;
                    sc.groups.push(g as u32);
                }
                sc.group_count[g] += len;
                sc.runs.push((sc.group_slot[g], start, len));
            }
            sc.injective.clear();
            sc.count.resize(end, 0);
            sc.group_mask.resize(end, 0);
            for (j, &g) in sc.groups.iter().enumerate() {
                let in_group = std::mem::take(&mut sc.group_count[g as usize]);
                let list = self.membership.classes(g);
                let from = list.partition_point(|&c| (c as usize) < first_sub_rc);
                for &c in &list[from..] {
                    if c as usize >= end {
                        break;
                    }
                    if sc.count[c as usize] == 0 {
                        sc.touched.push(c);
                    }
                    sc.count[c as usize] += in_group;
                    if j < 64 {
                        sc.group_mask[c as usize] |= 1 << j;
                    }
                }
            }
            // Candidates in class order, as LLVM visits them. Two holding
            // the sub-registers of the same groups give the same subset.
            let by_mask = sc.groups.len() <= 64;
            sc.touched.sort_unstable();
            sc.masks_seen.clear();
            for t in 0..sc.touched.len() {
                let sub_rc = sc.touched[t];
                let n_in = std::mem::take(&mut sc.count[sub_rc as usize]) as usize;
                let mask = std::mem::take(&mut sc.group_mask[sub_rc as usize]);
                if self.classes()[sub_rc as usize].artificial {
                    continue;
                }
                if n_in == n {
                    // RC injects completely into SubRC.
                    self.super_reg_classes[idx as usize].push((sub_rc as u64) << 32 | rc as u64);
                    sc.injective.push(sub_rc);
                    continue;
                }
                if by_mask {
                    if sc.masks_seen.contains(&mask) {
                        continue;
                    }
                    sc.masks_seen.push(mask);
                }
                let members = &self.b.bank.classes[rc as usize].members;
                sc.members.clear();
                if by_mask {
                    // SubRC holds a sub-register exactly when it holds its
                    // group.
                    for &(j, start, len) in &sc.runs {
                        if mask & (1 << j) != 0 {
                            let (start, len) = (start as usize, len as usize);
                            sc.members.extend_from_slice(&members[start..start + len]);
                        }
                    }
                } else {
                    let sb = &self.bits[sub_rc as usize];
                    sc.members.extend(
                        members
                            .iter()
                            .zip(subs)
                            .filter(|(_, &s)| sb.contains(s))
                            .map(|(&m, _)| m),
                    );
                }
                let subset = std::mem::take(&mut sc.members);
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
                sc.members = subset;
                sc.group_count.resize(self.membership.num_groups(), 0);
                sc.group_slot.resize(self.membership.num_groups(), 0);
            }
            sc.touched.clear();
            if self.classes().len() == end {
                // Another index with these runs would find the same classes
                // and make none (they would all exist).
                sc.memo.insert(sc.key.clone(), sc.injective.clone());
            }
        }
        self.scratch = sc;
        self.full[rc as usize] = full;
    }

    /// Stores the super-register classes found, by index, in each class.
    /// The pairs come by RC, mostly in increasing order (a later round
    /// adds a few lower ones): they are put in buckets by SubRC, and each
    /// bucket is sorted by a run-adaptive sort, not the whole list by an
    /// unstable one.
    #[inline(never)]
    fn store_super_reg_classes(&mut self) {
        let found = std::mem::take(&mut self.super_reg_classes);
        let classes = &mut self.b.bank.classes;
        let mut by_sub: Vec<Vec<ClassId>> = vec![Vec::new(); classes.len()];
        let mut touched: Vec<usize> = Vec::new();
        for (idx, pairs) in found.into_iter().enumerate() {
            for p in pairs {
                let sub_rc = (p >> 32) as usize;
                let bucket = &mut by_sub[sub_rc];
                if bucket.is_empty() {
                    touched.push(sub_rc);
                }
                bucket.push(p as ClassId);
            }
            for &sub_rc in &touched {
                let mut rcs = std::mem::take(&mut by_sub[sub_rc]);
                // Later rounds find some again.
                rcs.sort();
                rcs.dedup();
                classes[sub_rc].super_reg_classes.insert(idx as IdxId, rcs);
            }
            touched.clear();
        }
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
