//! Coverage lanes: indices that cover the same bits share lanes.
//!
//! # Algorithm
//!
//! LLVM gives every *leaf* sub-register index (one that composes with
//! nothing) a lane of its own, and every other index the union of the lanes
//! of the leaves it composes to. Coverage mode keeps that structure but
//! merges leaves: each leaf `L` gets a *key*, the bit interval
//! `[Offset, Offset + Size)` it names inside its super-register (or a private
//! key when the offset or size is unknown, i.e. -1), and all leaves with the
//! same key share one lane. A composite index's mask is the union of the
//! (merged) lanes of its LLVM leaves, so `subd1_then_w0` and `w2`, both
//! `[32, 48)`, get the same mask.
//!
//! Declared offsets are checked before they are trusted. The following are
//! contradictions; every leaf involved falls back to a private key (its LLVM
//! lane) and the conflict is reported:
//!
//! 1. *Collision*: two different leaves valid in one register have the same
//!    interval (an index declared at offset 0 that is really a high half).
//! 2. *Units versus bits*: two leaves valid in one register whose intervals
//!    overlap while their sub-registers share no register unit, or whose
//!    sub-registers share a unit while their intervals are disjoint.
//! 3. *Composition*: for an index `I`, the leaves `A` with `I∘A = B` must map
//!    keys to keys as a bijection (same key of `A` ⇒ same key of `B` and
//!    back). With consistent offsets this is automatic (`B` is `A` shifted by
//!    `I`'s offset); where it fails, the leaves involved become private.
//!
//! Steps 1–3 repeat until nothing changes (each round makes at least one more
//! leaf private, so there are at most as many rounds as leaves).
//!
//! # Unused indices
//!
//! A leaf index that no register uses (declared, but in no register's
//! sub-register map) takes no lane and does not count toward the lane total:
//! its mask is empty, and so is the part of any composite mask that would
//! come from it. LLVM gives such an index a lane of its own (`--lanes llvm`
//! keeps that). No register has a sub-register at an unused index, so no
//! liveness question ever reads its mask.
//!
//! # Why the invariants hold
//!
//! Take a register `R` and indices `I`, `J` valid in `R`. In LLVM's lane
//! structure, the lanes of `I` present in `R` are exactly the leaves naming
//! the leaf sub-registers of `R:I`, and distinct leaves valid in `R` name
//! distinct leaf sub-registers. Merging only ever identifies leaves that are
//! never valid together in one register (step 1 makes the merge injective on
//! every register), so inside `R` the merged lanes still stand one-to-one for
//! `R`'s leaf sub-registers. Hence masks of `I` and `J` intersect iff `R:I`
//! and `R:J` have a common leaf sub-register iff they share a register unit
//! (step 2 ties units to intervals), and `mask(I) ⊆ mask(J)` iff every leaf
//! sub-register of `R:I` is one of `R:J`, i.e. `units(R:I) ⊆ units(R:J)`.
//! Composing a lane mask through `I` maps the lane of each leaf `A` to the
//! lane of `I∘A`; step 3 makes this a well-defined bijection between merged
//! lanes, so composing and reverse-composing stay exact.
//!
//! The invariants are checked by property tests on random register files
//! (`tests/regs_lanes.rs`).
//!
//! Ad hoc `Aliases` are outside the invariants: two sub-registers that only
//! overlap through an alias share a unit but no lane, in LLVM's assignment as
//! in this one (LLVM notes the same gap in `computeSubRegLaneMasks`). Step 2
//! flags such pairs, so `check` reports them.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap as HashMap;

use super::LaneMask;
use crate::regs::{IdxId, RegBank, RegId};

/// Offsets that contradict the registers: the indices fell back to leaf lanes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetConflict {
    pub kind: ConflictKind,
    /// The leaf indices involved.
    pub indices: Vec<IdxId>,
    /// A register where it shows (none for composition conflicts).
    pub register: Option<RegId>,
    /// For composition conflicts: the composing index.
    pub via: Option<IdxId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConflictKind {
    /// Two leaves in one register claim the same bits.
    SameBits,
    /// Bits overlap without shared units, or units overlap without shared bits.
    UnitsDisagree,
    /// Composition does not shift offsets consistently.
    Composition,
}

/// What the coverage computation found.
#[derive(Clone, Debug, Default)]
pub struct CoverageReport {
    pub conflicts: Vec<OffsetConflict>,
    /// For each lane, the leaf indices sharing it (LLVM leaves, in index order).
    pub lane_leaves: Vec<Vec<IdxId>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Bits { offset: u16, size: u16 },
    Private(IdxId),
}

fn overlaps(a: Key, b: Key) -> bool {
    match (a, b) {
        (
            Key::Bits {
                offset: o1,
                size: s1,
            },
            Key::Bits {
                offset: o2,
                size: s2,
            },
        ) => {
            let (o1, s1, o2, s2) = (o1 as u32, s1 as u32, o2 as u32, s2 as u32);
            o1 < o2 + s2 && o2 < o1 + s1
        }
        _ => false,
    }
}

fn units_intersect(a: &[u32], b: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

pub(super) fn compute(bank: &RegBank) -> (Vec<LaneMask>, u32, CoverageReport) {
    let (llvm, _) = super::llvm_index_masks(bank);
    let n = bank.sub_reg_indices.len();
    let leaves: Vec<IdxId> = (0..n as IdxId).filter(|&i| bank.idx(i).is_leaf()).collect();
    let mut used = vec![false; n];
    for reg in &bank.registers {
        for &i in reg.sub_regs.keys() {
            used[i as usize] = true;
        }
    }
    let mut key: HashMap<IdxId, Key> = HashMap::default();
    for &l in leaves.iter().filter(|&&l| used[l as usize]) {
        let idx = bank.idx(l);
        let k = if idx.offset == crate::regs::UNKNOWN
            || idx.size == crate::regs::UNKNOWN
            || idx.size == 0
        {
            Key::Private(l)
        } else {
            Key::Bits {
                offset: idx.offset,
                size: idx.size,
            }
        };
        key.insert(l, k);
    }

    // One register per shape is enough for the per-register checks.
    let mut reps: Vec<RegId> = Vec::new();
    let mut seen = vec![false; bank.num_topo_sigs.max(1)];
    for (r, reg) in bank.registers.iter().enumerate() {
        if reg.sub_regs.is_empty() {
            continue;
        }
        let s = reg.topo_sig as usize;
        if s < seen.len() && !seen[s] {
            seen[s] = true;
            reps.push(r as RegId);
        }
    }

    let mut report = CoverageReport::default();
    let mut reported: BTreeSet<(Vec<IdxId>, ConflictKind)> = BTreeSet::new();
    let mut push = |report: &mut CoverageReport, c: OffsetConflict| {
        if reported.insert((c.indices.clone(), c.kind)) {
            report.conflicts.push(c);
        }
    };
    for _round in 0..=leaves.len() {
        let mut private: BTreeSet<IdxId> = BTreeSet::new();
        for &r in &reps {
            let reg = bank.reg(r);
            let ls: Vec<(IdxId, Key, &[u32])> = reg
                .sub_regs
                .iter()
                .filter(|(i, _)| bank.idx(**i).is_leaf())
                .map(|(&i, &s)| (i, key[&i], bank.reg(s).units.as_slice()))
                .collect();
            let mut by_key: BTreeMap<Key, Vec<IdxId>> = BTreeMap::new();
            for &(i, k, _) in &ls {
                if matches!(k, Key::Bits { .. }) {
                    by_key.entry(k).or_default().push(i);
                }
            }
            for (_, v) in by_key {
                if v.len() > 1 {
                    private.extend(v.iter().copied());
                    push(
                        &mut report,
                        OffsetConflict {
                            kind: ConflictKind::SameBits,
                            indices: v,
                            register: Some(r),
                            via: None,
                        },
                    );
                }
            }
            for (x, &(i, ki, ui)) in ls.iter().enumerate() {
                for &(j, kj, uj) in &ls[x + 1..] {
                    let (Key::Bits { .. }, Key::Bits { .. }) = (ki, kj) else {
                        continue;
                    };
                    if ki == kj {
                        continue;
                    }
                    if overlaps(ki, kj) != units_intersect(ui, uj) {
                        private.insert(i);
                        private.insert(j);
                        push(
                            &mut report,
                            OffsetConflict {
                                kind: ConflictKind::UnitsDisagree,
                                indices: vec![i, j],
                                register: Some(r),
                                via: None,
                            },
                        );
                    }
                }
            }
        }
        for (i, idx) in bank.sub_reg_indices.iter().enumerate() {
            let mut fwd: BTreeMap<Key, BTreeSet<Key>> = BTreeMap::new();
            let mut back: BTreeMap<Key, BTreeSet<Key>> = BTreeMap::new();
            let mut members: BTreeMap<Key, Vec<IdxId>> = BTreeMap::new();
            for (&a, &b) in &idx.composed {
                let (Some(&ka), Some(&kb)) = (key.get(&a), key.get(&b)) else {
                    continue;
                };
                fwd.entry(ka).or_default().insert(kb);
                back.entry(kb).or_default().insert(ka);
                members.entry(ka).or_default().extend([a, b]);
                members.entry(kb).or_default().extend([a, b]);
            }
            for (k, set) in fwd.iter().chain(back.iter()) {
                if set.len() > 1 {
                    let mut v = members.get(k).cloned().unwrap_or_default();
                    v.sort_unstable();
                    v.dedup();
                    v.retain(|l| matches!(key[l], Key::Bits { .. }));
                    if v.is_empty() {
                        continue;
                    }
                    private.extend(v.iter().copied());
                    push(
                        &mut report,
                        OffsetConflict {
                            kind: ConflictKind::Composition,
                            indices: v,
                            register: None,
                            via: Some(i as IdxId),
                        },
                    );
                }
            }
        }
        private.retain(|l| matches!(key[l], Key::Bits { .. }));
        if private.is_empty() {
            break;
        }
        for l in private {
            key.insert(l, Key::Private(l));
        }
    }

    // Number the lanes in order of their first leaf.
    let mut lane_of_key: HashMap<Key, u32> = HashMap::default();
    let mut lane_of_leaf: HashMap<IdxId, u32> = HashMap::default();
    for &l in leaves.iter().filter(|&&l| used[l as usize]) {
        let next = lane_of_key.len() as u32;
        let lane = *lane_of_key.entry(key[&l]).or_insert(next);
        lane_of_leaf.insert(l, lane);
        if report.lane_leaves.len() <= lane as usize {
            report.lane_leaves.push(Vec::new());
        }
        report.lane_leaves[lane as usize].push(l);
    }
    let num = lane_of_key.len() as u32;
    // LLVM lane number of each leaf (leaves take lanes in index order).
    let llvm_lane_leaf: Vec<IdxId> = leaves.clone();
    let masks = llvm
        .iter()
        .map(|m| {
            let mut out = LaneMask::none();
            for lane in m.lanes() {
                if let Some(&leaf) = llvm_lane_leaf.get(lane as usize) {
                    // Unused leaves have no lane.
                    if let Some(&l) = lane_of_leaf.get(&leaf) {
                        out.set(l);
                    }
                } else {
                    // Beyond the leaves: only LLVM's "all lanes" cycle marker.
                    out.set(lane);
                }
            }
            out
        })
        .collect();
    (masks, num, report)
}
