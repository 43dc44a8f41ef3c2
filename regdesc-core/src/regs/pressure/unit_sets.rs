//! Register unit sets, the dimensions of register pressure, as LLVM 14's
//! `computeRegUnitSets` makes them.
//!
//! 1. Each allocatable, non-artificial class with `GeneratePressureSet`
//!    (in enum order) gives the set of its registers' non-artificial units
//!    (adopted ones included), named after it; equal sets are kept once. No
//!    set at all is llvm-tblgen's error "RegUnitSets cannot be empty!"; a
//!    set without units next to others makes it crash (both are
//!    [`RegsError`]s here).
//! 2. Pruning: a set is dropped when a later-checked other set contains it,
//!    has at most two more units, and the weights of the first units of both
//!    and of the last unit of the larger are equal. The larger one takes the
//!    smaller one's name when it is shorter.
//! 3. Every two of the remaining sets that intersect give their union, named
//!    `A_with_B` (only the pairs of step-2 sets, not the unions), kept when
//!    new; then pruning again.
//! 4. A set's limit is the sum of its units' weights; the sets are numbered
//!    by size (stable), and each allocatable class with units lists the sets
//!    containing all of them; each native unit the sets containing it.

use std::collections::HashMap;

use fixedbitset::FixedBitSet;

use super::super::{ClassId, RegBank, RegsError};
use super::weights::UnitWeights;

/// A unit set while the sets are computed.
#[derive(Clone, Debug)]
pub(super) struct UnitSet {
    pub name: String,
    pub units: FixedBitSet,
    /// Number of units.
    pub len: usize,
}

impl UnitSet {
    fn new(name: String, units: FixedBitSet) -> UnitSet {
        let len = units.count_ones(..);
        UnitSet { name, units, len }
    }
    fn first(&self) -> Option<usize> {
        self.units.minimum()
    }
    fn last(&self) -> Option<usize> {
        self.units.maximum()
    }
}

/// The non-artificial units of each class's members, by [`ClassId`].
#[inline(never)]
pub(super) fn class_units(bank: &RegBank, w: &UnitWeights) -> Vec<FixedBitSet> {
    let n = w.weights.len();
    bank.classes
        .iter()
        .map(|c| {
            let mut bits = FixedBitSet::with_capacity(n);
            for &r in &c.members {
                for u in w.units(bank, r) {
                    if !w.is_artificial(u) {
                        bits.insert(u as usize);
                    }
                }
            }
            bits
        })
        .collect()
}

/// Steps 1 to 3: the unit sets in LLVM's creation order (before numbering
/// by size). `generates[c]` is `c`'s `GeneratePressureSet`.
#[inline(never)]
pub(super) fn unit_sets(
    bank: &RegBank,
    w: &UnitWeights,
    class_units: &[FixedBitSet],
    generates: &[bool],
) -> Result<Vec<UnitSet>, RegsError> {
    let mut sets: Vec<UnitSet> = Vec::new();
    let mut seen: HashMap<FixedBitSet, ()> = HashMap::new();
    let mut empty = None;
    for &c in &bank.class_order {
        let rc = bank.class(c);
        if !rc.allocatable || rc.artificial || !generates[c as usize] {
            continue;
        }
        let units = &class_units[c as usize];
        if seen.contains_key(units) {
            continue;
        }
        if units.is_clear() {
            empty = Some(c);
        }
        seen.insert(units.clone(), ());
        sets.push(UnitSet::new(rc.name.clone(), units.clone()));
    }
    if sets.is_empty() {
        return Err(empty_sets_error(bank, generates));
    }
    // Pruning reads the first unit of each set it compares: llvm-tblgen
    // crashes on an empty set compared with another.
    if let (Some(c), true) = (empty, sets.len() > 1) {
        let rc = bank.class(c);
        return Err(RegsError::EmptyUnitSet {
            class: rc.name.clone(),
            span: rc.span,
        });
    }
    let mut sets = prune(sets, w);

    let originals = sets.len();
    let mut seen: HashMap<FixedBitSet, ()> = sets.iter().map(|s| (s.units.clone(), ())).collect();
    for i in 0..originals {
        for j in i + 1..originals {
            if sets[i].units.is_disjoint(&sets[j].units) {
                continue;
            }
            let mut union = sets[i].units.clone();
            union.union_with(&sets[j].units);
            if seen.contains_key(&union) {
                continue;
            }
            seen.insert(union.clone(), ());
            let name = format!("{}_with_{}", sets[i].name, sets[j].name);
            sets.push(UnitSet::new(name, union));
        }
    }
    Ok(prune(sets, w))
}

/// LLVM's `pruneUnitSets` (step 2).
fn prune(mut sets: Vec<UnitSet>, w: &UnitWeights) -> Vec<UnitSet> {
    let weight = |u: Option<usize>| u.map(|u| w.weights[u]);
    let mut keep = Vec::with_capacity(sets.len());
    for sub in 0..sets.len() {
        let sub_len = sets[sub].len;
        let sub_weight = weight(sets[sub].first());
        let mut subsumed_by = None;
        for sup in 0..sets.len() {
            if sup == sub {
                continue;
            }
            let s = &sets[sup];
            // Cheap tests first; an empty set is never merged.
            if sub_len + 3 > s.len
                && sub_len <= s.len
                && sub_weight.is_some()
                && sub_weight == weight(s.first())
                && sub_weight == weight(s.last())
                && sets[sub].units.is_subset(&s.units)
            {
                subsumed_by = Some(sup);
                break;
            }
        }
        match subsumed_by {
            Some(sup) => {
                if sets[sub].name.len() < sets[sup].name.len() {
                    sets[sup].name = sets[sub].name.clone();
                }
            }
            None => keep.push(sub),
        }
    }
    let mut slots: Vec<Option<UnitSet>> = sets.into_iter().map(Some).collect();
    keep.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// "RegUnitSets cannot be empty!", pointing at the first allocatable class
/// that opted out of pressure sets (or the first class).
fn empty_sets_error(bank: &RegBank, generates: &[bool]) -> RegsError {
    let opted_out = bank.class_order.iter().find(|&&c| {
        let rc = bank.class(c);
        rc.allocatable && !rc.artificial && !generates[c as usize] && rc.def.is_some()
    });
    match opted_out {
        Some(&c) => RegsError::EmptyPressureSets {
            span: bank.class(c).span,
            class: Some(bank.class(c).name.clone()),
        },
        None => RegsError::EmptyPressureSets {
            span: bank.classes_in_order().find_map(|c| c.span),
            class: None,
        },
    }
}

/// Step 4 for classes: for each class (by [`ClassId`]), the indices into
/// `sets` of the sets containing all its units (allocatable classes with
/// units only).
#[inline(never)]
pub(super) fn class_sets(
    bank: &RegBank,
    class_units: &[FixedBitSet],
    sets: &[UnitSet],
) -> Vec<Vec<usize>> {
    (0..bank.classes.len())
        .map(|c| {
            let units = &class_units[c];
            if !bank.class(c as ClassId).allocatable || units.is_clear() {
                return Vec::new();
            }
            (0..sets.len())
                .filter(|&s| units.is_subset(&sets[s].units))
                .collect()
        })
        .collect()
}

/// Step 4 for native units: the indices into `sets` of the sets holding
/// each.
#[inline(never)]
pub(super) fn unit_set_lists(bank: &RegBank, sets: &[UnitSet]) -> Vec<Vec<usize>> {
    (0..bank.num_native_reg_units)
        .map(|u| {
            (0..sets.len())
                .filter(|&s| sets[s].units.contains(u))
                .collect()
        })
        .collect()
}
