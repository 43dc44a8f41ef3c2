//! Sub-registers, as LLVM 14's `CodeGenRegister` computes them: the full
//! sub-register maps (inherited sub-registers, orphans named through
//! composites or by synthesized `A_then_B` indices), register units, the
//! concatenated indices of covering super-registers (LLVM's secondary
//! sub-registers), super-register lists and topological signatures.
//!
//! Lookups of "which index names sub-register S of the register being
//! computed" dominate: they go through a dense table over all registers
//! ([`Builder::inv`]) filled for one register at a time and cleared after.
//! The bank keeps no per-register inverse maps.

use super::bank::Builder;
use super::*;

/// No entry, in the dense tables.
pub(super) const NONE: u32 = u32::MAX;
/// In [`Builder::secondary`]'s table: an index the map had before.
const OLD: u32 = u32::MAX - 1;

/// The `Composed` maps of all indices, mirrored in a dense table: the
/// secondary sub-registers add millions of compositions, almost all already
/// known and changing nothing.
#[derive(Default)]
pub(super) struct ComposeTable {
    /// `rows[this][a]`: the result in the low half ([`NONE`] if unknown);
    /// in the high half, one more than the [`ComposeTable::epoch`] at which
    /// adding this entry last changed nothing (0: never).
    rows: Vec<Vec<u64>>,
    /// How many offsets [`ComposeTable::add`] has filled in.
    epoch: u32,
}

impl ComposeTable {
    /// `this ∘ a = b` (LLVM's `addComposite`); returns a conflicting earlier
    /// composite. Also fills in the offset and size of `b` when unknown.
    #[inline(always)]
    pub(super) fn add(
        &mut self,
        idx: &mut [SubRegIndex],
        this: IdxId,
        a: IdxId,
        b: IdxId,
    ) -> Option<IdxId> {
        let entry = self
            .rows
            .get(this as usize)
            .and_then(|row| row.get(a as usize))
            .copied();
        if entry == Some((self.epoch as u64 + 1) << 32 | b as u64) {
            // Added before, and no offset has changed since.
            return None;
        }
        self.add_slow(idx, this, a, b)
    }

    /// `this ∘ a = inv[s]` for every `(a, s)` of `subs` (a sub-register's
    /// map), in order, ignoring conflicts; `Err(s)` at the first `s` with
    /// no index in `inv`, the entries before it added. Entries known and
    /// unchanged since (nearly all of them) cost a comparison each.
    pub(super) fn add_all(
        &mut self,
        idx: &mut [SubRegIndex],
        this: IdxId,
        subs: &[(IdxId, RegId)],
        inv: &[IdxId],
    ) -> Result<(), RegId> {
        let mut k = 0;
        while k < subs.len() {
            let stamp = (self.epoch as u64 + 1) << 32;
            let row = self.rows.get(this as usize).map_or(&[][..], Vec::as_slice);
            while let Some(&(a, s)) = subs.get(k) {
                let b = inv[s as usize];
                if b == NONE {
                    return Err(s);
                }
                if row.get(a as usize) != Some(&(stamp | b as u64)) {
                    break;
                }
                k += 1;
            }
            let Some(&(a, s)) = subs.get(k) else {
                break;
            };
            self.add_slow(idx, this, a, inv[s as usize]);
            k += 1;
        }
        Ok(())
    }

    #[inline(never)]
    fn add_slow(
        &mut self,
        idx: &mut [SubRegIndex],
        this: IdxId,
        a: IdxId,
        b: IdxId,
    ) -> Option<IdxId> {
        let entry = self
            .rows
            .get(this as usize)
            .and_then(|row| row.get(a as usize))
            .map_or(NONE, |&e| e as u32);
        let prev = match entry {
            NONE => self.insert(idx, this, a, b),
            p => p,
        };
        let (t_off, a_off) = (idx[this as usize].offset, idx[a as usize].offset);
        if t_off != UNKNOWN && a_off != UNKNOWN && idx[b as usize].offset == UNKNOWN {
            idx[b as usize].offset = t_off.wrapping_add(a_off);
            idx[b as usize].size = idx[a as usize].size;
            self.epoch += 1;
        }
        // Offsets only go from unknown to known: until another one does,
        // adding this entry again changes nothing.
        self.rows[this as usize][a as usize] = (self.epoch as u64 + 1) << 32 | prev as u64;
        (prev != b).then_some(prev)
    }

    #[cold]
    fn insert(&mut self, idx: &mut [SubRegIndex], this: IdxId, a: IdxId, b: IdxId) -> IdxId {
        if self.rows.len() < idx.len() {
            self.rows.resize_with(idx.len(), Vec::new);
        }
        let row = &mut self.rows[this as usize];
        if row.len() <= a as usize {
            row.resize(idx.len().max(a as usize + 1), NONE as u64);
        }
        idx[this as usize].composed.insert(a, b);
        b
    }
}

/// One register's sub-register map while [`Builder::sub_regs_body`] builds
/// it: dense tables by index and by register, valid where their stamp is
/// the current one (no map rebuilt by inserting in the middle, no set of
/// orphans hashed).
#[derive(Default)]
pub(super) struct MapBuilder {
    stamp: u32,
    /// By index: (stamp, sub-register).
    by_idx: Vec<(u32, RegId)>,
    /// The indices in the map, in the order they came.
    keys: Vec<IdxId>,
    /// By register: the stamp while it is an orphan (a sub-register of a
    /// child reached by an index the map already has).
    orphan: Vec<u32>,
    /// How many orphans there are.
    orphans: usize,
}

impl MapBuilder {
    /// A new map holding `map`, with `nidx` indices and `nregs` registers.
    fn start(&mut self, nidx: usize, nregs: usize, map: &VecMap<IdxId, RegId>) {
        self.stamp += 1;
        if self.by_idx.len() < nidx {
            self.by_idx.resize(nidx, (0, 0));
        }
        if self.orphan.len() < nregs {
            self.orphan.resize(nregs, 0);
        }
        self.keys.clear();
        self.orphans = 0;
        for &(i, s) in map.as_slice() {
            self.set(i, s);
        }
    }

    fn get(&self, i: IdxId) -> Option<RegId> {
        match self.by_idx.get(i as usize) {
            Some(&(stamp, s)) if stamp == self.stamp => Some(s),
            _ => None,
        }
    }

    /// Maps `i` to `s` unless `i` is mapped; whether it was not.
    fn insert_new(&mut self, i: IdxId, s: RegId) -> bool {
        if self.get(i).is_some() {
            return false;
        }
        self.set(i, s);
        true
    }

    /// Maps `i` to `s`.
    fn set(&mut self, i: IdxId, s: RegId) {
        if self.by_idx.len() <= i as usize {
            self.by_idx.resize(i as usize + 1, (0, 0));
        }
        if self.get(i).is_none() {
            self.keys.push(i);
        }
        self.by_idx[i as usize] = (self.stamp, s);
    }

    fn add_orphan(&mut self, s: RegId) {
        let o = &mut self.orphan[s as usize];
        if *o != self.stamp {
            *o = self.stamp;
            self.orphans += 1;
        }
    }

    /// Whether `s` was an orphan (it is not any more).
    fn remove_orphan(&mut self, s: RegId) -> bool {
        let o = &mut self.orphan[s as usize];
        if *o != self.stamp {
            return false;
        }
        *o = 0;
        self.orphans -= 1;
        true
    }

    /// The map, in index order.
    fn finish(&mut self) -> VecMap<IdxId, RegId> {
        self.keys.sort_unstable();
        VecMap::from_sorted(
            self.keys
                .iter()
                .map(|&i| (i, self.by_idx[i as usize].1))
                .collect(),
        )
    }
}

/// The buffers of [`Builder::secondary`], reused from one register to the
/// next.
#[derive(Default)]
pub(super) struct SecondaryScratch {
    /// By index: [`OLD`] (in the map before), [`NONE`] (not in the map),
    /// or the new sub-register by it.
    by_idx: Vec<u32>,
    /// The sub-registers whose leading super-registers are candidates, in
    /// the order LLVM's queue visits them.
    queue: Vec<RegId>,
    /// The new (index, sub-register) pairs, in the order found.
    new: Vec<(IdxId, RegId)>,
    /// The parts of a candidate's concatenated index.
    parts: Vec<IdxId>,
    /// The indices in `by_idx` that are not [`NONE`], as a bit set.
    present: Vec<u64>,
}

impl Builder<'_> {
    fn sub_regs_error(&self, r: RegId, message: String, help: Option<String>) -> RegsError {
        RegsError::SubRegs {
            message,
            span: self.bank.reg(r).span,
            help,
        }
    }

    /// Fills the dense inverse table for register `r`.
    pub(super) fn fill_inv(&mut self, r: RegId) {
        for (&i, &s) in &self.bank.registers[r as usize].sub_regs {
            self.inv[s as usize] = i;
        }
    }

    /// Clears the dense inverse table after register `r` used it.
    pub(super) fn clear_inv(&mut self, r: RegId) {
        let reg = &self.bank.registers[r as usize];
        for &s in reg.sub_regs.values().chain(&reg.explicit_sub_regs) {
            self.inv[s as usize] = NONE;
        }
    }

    /// Every register's sub-register map, children first (LLVM's
    /// `computeSubRegs`).
    #[inline(never)]
    pub(super) fn sub_regs(&mut self) -> Result<(), RegsError> {
        let n = self.bank.registers.len();
        self.inv = vec![NONE; n];
        // 0: not started, 1: started (LLVM's SubRegsComplete), 2: finished.
        let mut state = vec![0u8; n];
        let mut stack: Vec<(RegId, usize)> = Vec::new();
        for root in 0..n {
            if state[root] != 0 {
                continue;
            }
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
                    let res = self.sub_regs_body(r, &state);
                    self.clear_inv(r);
                    res?;
                    state[r as usize] = 2;
                }
            }
        }
        Ok(())
    }

    fn sub_regs_enter(&mut self, r: RegId, state: &mut [u8]) -> Result<(), RegsError> {
        state[r as usize] = 1;
        let ri = r as usize;
        let mut sub_regs = VecMap::new();
        for k in 0..self.bank.registers[ri].explicit_sub_regs.len() {
            let reg = &self.bank.registers[ri];
            let (idx, sr) = (reg.explicit_sub_reg_indices[k], reg.explicit_sub_regs[k]);
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
        }
        let reg = &mut self.bank.registers[ri];
        reg.has_disjunct_sub_regs = reg.explicit_sub_regs.len() > 1;
        reg.sub_regs = sub_regs;
        Ok(())
    }

    /// Completes `r`'s map once its explicit sub-registers are complete.
    /// Leaves `r`'s inverse in [`Builder::inv`] (the caller clears it).
    fn sub_regs_body(&mut self, r: RegId, state: &[u8]) -> Result<(), RegsError> {
        let ri = r as usize;
        let explicit = self.bank.registers[ri].explicit_sub_regs.clone();
        let explicit_idx = self.bank.registers[ri].explicit_sub_reg_indices.clone();
        let mut t = std::mem::take(&mut self.merge);
        t.start(
            self.bank.sub_reg_indices.len(),
            self.bank.registers.len(),
            &std::mem::take(&mut self.bank.registers[ri].sub_regs),
        );
        let mut disjunct = self.bank.registers[ri].has_disjunct_sub_regs;
        for &esr in &explicit {
            let child = &self.bank.registers[esr as usize];
            disjunct |= child.has_disjunct_sub_regs;
            for &(i, s) in child.sub_regs.as_slice() {
                if !t.insert_new(i, s) {
                    t.add_orphan(s);
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
            let Some(sr) = t.get(idx) else {
                continue;
            };
            let sub = &self.bank.registers[sr as usize].sub_regs;
            for &(a, b) in self.bank.sub_reg_indices[idx as usize].composed.as_slice() {
                let Some(&s) = sub.get(&a) else {
                    continue;
                };
                if t.get(b).is_some() || !t.remove_orphan(s) {
                    continue;
                }
                t.insert_new(b, s);
                indices.push(b);
            }
        }
        // Synthesize indices for the remaining orphans, bottom-up.
        while t.orphans > 0 {
            let Some(idx) = indices.pop() else { break };
            let Some(sr) = t.get(idx) else {
                continue;
            };
            let map: Vec<(IdxId, RegId)> = self.bank.reg(sr).sub_regs.as_slice().to_vec();
            for (a, s) in map {
                if t.remove_orphan(s) {
                    let c = self.composite_idx(idx, a, r);
                    t.set(c, s);
                }
            }
        }
        let sub_regs = t.finish();
        self.merge = t;

        // The inverse map: explicit names first, then every entry in index
        // order; a register reached by two indices is an error.
        let covered = self.bank.registers[ri].covered_by_sub_regs;
        for (&sr, &idx) in explicit.iter().zip(&explicit_idx) {
            if self.inv[sr as usize] == NONE {
                self.inv[sr as usize] = idx;
            }
        }
        // Put the map back first, so that the caller clears `inv` from it.
        self.bank.registers[ri].sub_regs = sub_regs;
        let sub_regs = &self.bank.registers[ri].sub_regs;
        for (&idx, &s) in sub_regs {
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
            let prev = &mut self.inv[s as usize];
            if *prev == NONE {
                *prev = idx;
            } else if *prev != idx {
                let prev = *prev;
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
                    match self.inv[ssr as usize] {
                        NONE => {
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
                        p => parts.push(p),
                    }
                }
            }
            self.set_concatenation_of(explicit_idx[k], parts);
        }

        // Register units.
        let mut units: Vec<RegUnitId> = self.bank.registers[ri].units.clone();
        for &sr in &explicit {
            units.extend_from_slice(&self.bank.reg(sr).units);
        }
        for k in 0..self.bank.registers[ri].explicit_aliases.len() {
            let ar = self.bank.registers[ri].explicit_aliases[k];
            if state[ar as usize] != 0 {
                continue;
            }
            let u = self.bank.reg_units.len() as RegUnitId;
            self.bank.reg_units.push(RegUnit {
                roots: [Some(r), Some(ar)],
            });
            units.push(u);
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
            units.push(u);
        }
        units.sort_unstable();
        units.dedup();
        self.bank.registers[ri].units = units;
        Ok(())
    }

    /// Closes `ConcatenationOf` lists over nested concatenations and indexes
    /// them.
    #[inline(never)]
    pub(super) fn concat_closure(&mut self) -> Result<(), RegsError> {
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

    /// The index concatenating `parts`, synthesized (`A_B_...`) if missing.
    fn concat_index(&mut self, parts: &[IdxId], reg: RegId) -> IdxId {
        if let Some(&i) = self.concat_idx.get(parts) {
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
        i.concatenation_of = parts.to_vec();
        self.concat_idx.insert(parts.to_vec(), id);
        id
    }

    /// LLVM's `computeSecondarySubRegs`, for every register covered by its
    /// sub-registers.
    #[inline(never)]
    pub(super) fn secondary_sub_regs(&mut self) -> Result<(), RegsError> {
        let mut sc = SecondaryScratch::default();
        for r in 0..self.bank.registers.len() {
            if self.bank.registers[r].covered_by_sub_regs {
                let r = r as RegId;
                self.fill_inv(r);
                let res = self.secondary(r, &mut sc);
                self.clear_inv(r);
                res?;
            }
        }
        Ok(())
    }

    /// Adds to `r` every leading super-register of its sub-registers whose
    /// parts are all sub-registers of `r`, under a concatenated index, and
    /// the compositions of those indices. `r`'s inverse is in `inv`.
    ///
    /// The new entries are collected apart (mostly not in index order) and
    /// merged into `r`'s map at the end; until then `sc.by_idx` answers
    /// "does `r` have index I".
    fn secondary(&mut self, r: RegId, sc: &mut SecondaryScratch) -> Result<(), RegsError> {
        let ri = r as usize;
        sc.new.clear();
        sc.queue.clear();
        sc.queue
            .extend(self.bank.registers[ri].sub_regs.values().copied());
        sc.by_idx.clear();
        sc.by_idx.resize(self.bank.sub_reg_indices.len(), NONE);
        sc.present.clear();
        sc.present.resize(sc.by_idx.len().div_ceil(64), 0);
        for &i in self.bank.registers[ri].sub_regs.keys() {
            sc.by_idx[i as usize] = OLD;
            bit_set(&mut sc.present, i as usize);
        }
        let mut head = 0;
        while let Some(&sub) = sc.queue.get(head) {
            head += 1;
            let leads = self.bank.registers[sub as usize].leading_super_regs.len();
            for k in 0..leads {
                let cand = self.bank.registers[sub as usize].leading_super_regs[k];
                if cand == r || self.inv[cand as usize] != NONE {
                    continue;
                }
                let explicit = &self.bank.registers[cand as usize].explicit_sub_regs;
                if explicit.len() <= 1 {
                    continue;
                }
                // Candidates reaching past this register fail on their last
                // part: test it first.
                if let Some(&last) = explicit.last() {
                    if self.inv[last as usize] == NONE {
                        continue;
                    }
                }
                sc.parts.clear();
                let mut whole = true;
                for &s in explicit {
                    match self.inv[s as usize] {
                        NONE => {
                            whole = false;
                            break;
                        }
                        si => {
                            let c = &self.bank.sub_reg_indices[si as usize].concatenation_of;
                            if c.is_empty() {
                                sc.parts.push(si);
                            } else {
                                sc.parts.extend_from_slice(c);
                            }
                        }
                    }
                }
                if !whole {
                    continue;
                }
                let concat = self.concat_index(&sc.parts, r);
                if sc.by_idx.len() <= concat as usize {
                    sc.by_idx.resize(concat as usize + 1, NONE);
                }
                if std::mem::replace(&mut sc.by_idx[concat as usize], cand) != NONE {
                    continue;
                }
                bit_set(&mut sc.present, concat as usize);
                self.inv[cand as usize] = concat;
                sc.new.push((concat, cand));
                sc.queue.push(cand);
            }
        }
        if sc.new.is_empty() {
            return Ok(());
        }
        let mut missing = None;
        for &(new_idx, new_sub) in &sc.new {
            // Borrow registers and indices separately: no copies in this hot loop.
            let subs = self.bank.registers[new_sub as usize].sub_regs.as_slice();
            let idxs = &mut self.bank.sub_reg_indices;
            if let Err(s) = self.compose.add_all(idxs, new_idx, subs, &self.inv) {
                missing = Some((new_sub, s));
                break;
            }
        }
        self.merge_sub_regs(r, sc);
        match missing {
            Some((via, s)) => Err(self.no_sub_reg_index(r, via, s)),
            None => Ok(()),
        }
    }

    /// Adds `r`'s new sub-registers (in `sc.by_idx`) to its map, in index
    /// order: the indices in the map are walked by the set bits of
    /// `sc.present`, not over the whole index table.
    fn merge_sub_regs(&mut self, r: RegId, sc: &SecondaryScratch) {
        let old = std::mem::take(&mut self.bank.registers[r as usize].sub_regs);
        let mut old = old.as_slice().iter();
        let mut merged = Vec::with_capacity(old.len() + sc.new.len());
        for (w, &word) in sc.present.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                match sc.by_idx[i] {
                    OLD => merged.extend(old.next()),
                    s => merged.push((i as IdxId, s)),
                }
            }
        }
        self.bank.registers[r as usize].sub_regs = VecMap::from_sorted(merged);
    }

    pub(super) fn no_sub_reg_index(&self, r: RegId, via: RegId, s: RegId) -> RegsError {
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

    /// Super-register lists and topological signatures, sub-registers
    /// first.
    #[inline(never)]
    pub(super) fn super_regs(&mut self) {
        let n = self.bank.registers.len();
        let mut done = vec![false; n];
        let mut stack: Vec<(RegId, usize)> = Vec::new();
        let mut id: Vec<u32> = Vec::new();
        for root in 0..n {
            if done[root] {
                continue;
            }
            // Post-order over all sub-registers, in index order.
            done[root] = true;
            stack.push((root as RegId, 0));
            while let Some(top) = stack.last_mut() {
                let (r, mut k) = *top;
                let subs = self.bank.registers[r as usize].sub_regs.as_slice();
                let mut next = None;
                while let Some(&(_, c)) = subs.get(k) {
                    k += 1;
                    if !done[c as usize] {
                        done[c as usize] = true;
                        next = Some(c);
                        break;
                    }
                }
                top.1 = k;
                if let Some(c) = next {
                    stack.push((c, 0));
                    continue;
                }
                stack.pop();
                id.clear();
                let regs = &mut self.bank.registers;
                for k in 0..regs[r as usize].sub_regs.len() {
                    let (i, s) = regs[r as usize].sub_regs.as_slice()[k];
                    id.push(i + 1);
                    id.push(regs[s as usize].topo_sig);
                    let sr = &mut regs[s as usize].super_regs;
                    if sr.last() != Some(&r) {
                        sr.push(r);
                    }
                }
                let sig = match self.topo_sig_ids.get(id.as_slice()) {
                    Some(&sig) => sig,
                    None => {
                        let next = self.topo_sig_ids.len() as u32;
                        self.topo_sig_ids.insert(id.clone(), next);
                        next
                    }
                };
                regs[r as usize].topo_sig = sig;
            }
        }
        self.bank.num_topo_sigs = self.topo_sig_ids.len();
    }

    #[inline(never)]
    pub(super) fn artificial_indices(&mut self) {
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
}
