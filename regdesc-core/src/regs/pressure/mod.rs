//! Register pressure: register unit weights, class weights and the register
//! pressure sets, exactly as llvm-tblgen 14 computes them
//! (`computeRegUnitWeights` and `computeRegUnitSets` of `CodeGenRegBank`,
//! and what `RegisterInfoEmitter` writes: `getRegUnitWeight`,
//! `getRegClassWeight`, `getRegPressureSetName`, `getRegPressureSetLimit`,
//! `getRegClassPressureSets`, `getRegUnitPressureSets`).
//!
//! [`compute`] runs on a complete bank; [`Pressure::to_text`] prints the
//! result in the canonical text `regdesc dump --format pressure` shows and
//! the oracle test compares with llvm-tblgen's tables.

mod graph;
mod unit_sets;
mod weights;

pub(crate) use graph::Graph;
pub(crate) use weights::{UnitWeights, Unsettled};

use std::fmt::Write;

use crate::eval::RecordKeeper;

use super::{bit_field, int_field, RegBank, RegUnitId, RegsError};

/// The register pressure model of a bank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pressure {
    /// Weight of each native unit (LLVM's `RegUnit::Weight`: 0 for the
    /// units of registers in no allocatable class and for artificial units).
    pub unit_weights: Vec<u32>,
    /// The pressure sets, numbered as LLVM numbers them (by size, stable).
    pub sets: Vec<PressureSet>,
    /// Per class, by [`ClassId`](super::ClassId): the sets its registers count toward,
    /// ascending.
    pub class_sets: Vec<Vec<u32>>,
    /// Per class, by [`ClassId`](super::ClassId): LLVM's `RegClassWeight`.
    pub class_weights: Vec<ClassWeight>,
    /// Per native unit: the sets it counts toward, ascending.
    pub unit_sets: Vec<Vec<u32>>,
}

/// A register pressure set (LLVM's `RegUnitSet`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PressureSet {
    /// A class name, or class names joined by `_with_`.
    pub name: String,
    /// Its units, ascending: native units, then "adopted" ones (numbered
    /// from [`RegBank::num_native_reg_units`]), which LLVM creates only to
    /// even out register weights.
    pub units: Vec<RegUnitId>,
    /// The sum of its units' weights (LLVM's `getRegPressureSetLimit`).
    pub limit: u32,
}

/// LLVM's `RegClassWeight` of a class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassWeight {
    /// Units one register takes: the class's `Weight` when set, else the
    /// weight of its first register (0 for an empty or artificial class).
    pub weight: u32,
    /// The weight of all its non-artificial units (0 for an empty or
    /// artificial class).
    pub limit: u32,
}

impl Pressure {
    /// What LLVM's `getRegUnitWeight` answers for native unit `u`: the
    /// unit's weight, except that when no unit weighs more than 1 it
    /// answers 1 for every unit.
    pub fn emitted_unit_weight(&self, u: RegUnitId) -> u32 {
        if self.unit_weights.iter().all(|&w| w <= 1) {
            1
        } else {
            self.unit_weights.get(u as usize).copied().unwrap_or(0)
        }
    }

    /// The canonical text of everything LLVM emits about register
    /// pressure: the sets (`set NUM NAME limit N`), each class in enum order
    /// (`class NAME weight W limit L sets ...`), and each native unit
    /// (`unit NUM weight W sets ...`).
    pub fn to_text(&self, bank: &RegBank) -> String {
        let mut out = String::new();
        let list = |v: &[u32]| -> String { v.iter().map(|s| format!(" {s}")).collect() };
        for (i, s) in self.sets.iter().enumerate() {
            let _ = writeln!(out, "set {i} {} limit {}", s.name, s.limit);
        }
        for &c in &bank.class_order {
            let w = self.class_weights[c as usize];
            let _ = writeln!(
                out,
                "class {} weight {} limit {} sets{}",
                bank.class(c).name,
                w.weight,
                w.limit,
                list(&self.class_sets[c as usize])
            );
        }
        for (u, sets) in self.unit_sets.iter().enumerate() {
            let w = self.emitted_unit_weight(u as RegUnitId);
            let _ = writeln!(out, "unit {u} weight {w} sets{}", list(sets));
        }
        out
    }
}

/// Computes the pressure model of a complete bank, failing where
/// llvm-tblgen 14 fails (no pressure set; weights that never settle).
pub fn compute(rk: &RecordKeeper, bank: &RegBank) -> Result<Pressure, RegsError> {
    finish(rk, bank, unit_weights(&Graph::of(bank)))
}

/// The register unit weights of the registers of `g` (computed on their
/// own, on another thread, by [`super::bank`]).
pub(crate) fn unit_weights(g: &Graph) -> Result<UnitWeights, Unsettled> {
    weights::compute(g)
}

/// [`compute`], given the unit weights of the bank.
pub(crate) fn finish(
    rk: &RecordKeeper,
    bank: &RegBank,
    w: Result<UnitWeights, Unsettled>,
) -> Result<Pressure, RegsError> {
    let w = w.map_err(|e| e.into_error(bank))?;
    let generates = generate_pressure_set(rk, bank)?;
    let class_units = unit_sets::class_units(bank, &w);
    let sets = unit_sets::unit_sets(bank, &w, &class_units, &generates)?;

    // LLVM numbers the sets by size, keeping creation order on ties.
    let mut order: Vec<usize> = (0..sets.len()).collect();
    order.sort_by_key(|&s| sets[s].len);
    let mut number = vec![0u32; sets.len()];
    for (n, &s) in order.iter().enumerate() {
        number[s] = n as u32;
    }
    let renumber = |lists: Vec<Vec<usize>>| -> Vec<Vec<u32>> {
        lists
            .into_iter()
            .map(|l| {
                let mut v: Vec<u32> = l.into_iter().map(|s| number[s]).collect();
                v.sort_unstable();
                v
            })
            .collect()
    };
    let class_sets = renumber(unit_sets::class_sets(bank, &class_units, &sets));
    let unit_sets = renumber(unit_sets::unit_set_lists(bank, &sets));

    let weight_of = |units: &fixedbitset::FixedBitSet| -> u32 {
        // 32-bit sums that wrap, as LLVM's `unsigned` ones do.
        units.ones().fold(0u32, |a, u| a.wrapping_add(w.weights[u]))
    };
    let mut class_weights = Vec::with_capacity(bank.classes.len());
    for (c, rc) in bank.classes.iter().enumerate() {
        let computed = match rc.members.first() {
            Some(&first) if !rc.artificial => ClassWeight {
                weight: w.reg_weight(bank, first),
                limit: weight_of(&class_units[c]),
            },
            _ => ClassWeight::default(),
        };
        let weight = match rc.def {
            Some(def) if !rk.record(def).is_unset("Weight") => int_field(rk, def, "Weight")? as u32,
            _ => computed.weight,
        };
        class_weights.push(ClassWeight { weight, ..computed });
    }

    let num_native = bank.num_native_reg_units;
    let sets = order
        .iter()
        .map(|&s| PressureSet {
            name: sets[s].name.clone(),
            units: sets[s].units.ones().map(|u| u as RegUnitId).collect(),
            limit: weight_of(&sets[s].units),
        })
        .collect();
    Ok(Pressure {
        unit_weights: w.weights[..num_native].to_vec(),
        sets,
        class_sets,
        class_weights,
        unit_sets,
    })
}

/// Each class's `GeneratePressureSet`, by [`ClassId`](super::ClassId): a defined class's
/// own; a synthesized class takes its closest super-class's, in enum order
/// (as LLVM's `inheritProperties` does).
#[inline(never)]
fn generate_pressure_set(rk: &RecordKeeper, bank: &RegBank) -> Result<Vec<bool>, RegsError> {
    let mut generates = vec![false; bank.classes.len()];
    for (c, rc) in bank.classes.iter().enumerate() {
        if let Some(def) = rc.def {
            generates[c] = bit_field(rk, def, "GeneratePressureSet")?;
        }
    }
    for &c in &bank.class_order {
        let rc = bank.class(c);
        if rc.def.is_none() {
            if let Some(&sup) = rc.super_classes.last() {
                generates[c as usize] |= generates[sup as usize];
            }
        }
    }
    Ok(generates)
}
