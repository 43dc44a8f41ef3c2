//! The consumer model: one typed, documented view of a register
//! description, for everything that consumes the bank (the Rust tables and
//! `regdesc!`, the docs, the register allocator).
//!
//! It is built from the register bank and the lane masks of one mode
//! ([`Target::build`]) and holds everything a table, a doc page or an
//! allocator needs, and nothing of the builder's state: no record ids, one id
//! space per kind ([`Reg`], [`SubRegIdx`], [`RegClass`], [`RegUnit`],
//! [`HwMode`]), classes in LLVM's enum order, sizes and offsets as `Option`
//! (no sentinels), and a [`Span`] for every item that has a source. The
//! `regs` module stays the mirror of LLVM's `CodeGenRegBank` behind
//! `regdesc dump`; consumers read only this.
//!
//! The model is `Serialize`: `regdesc dump --format json` prints it.

#![deny(missing_docs)]

mod build;
mod ids;

pub use ids::{HwMode, PressureSet, Reg, RegClass, RegUnit, SubRegIdx};

use std::collections::HashMap;

use serde::Serialize;

use crate::lanes::{LaneMask, LaneMode};
use crate::source::Span;

/// A register description, ready for consumers.
#[derive(Clone, Debug, Serialize)]
pub struct Target {
    /// The `Target` def's name, if the description has one.
    pub name: Option<String>,
    /// The lane assignment the masks follow.
    pub lane_mode: LaneMode,
    /// Lanes in use: the width a lane mask needs.
    pub num_lanes: u32,
    /// The lanes of indices that some register uses without being covered
    /// by its sub-registers (LLVM's `CoveringLanes` is every lane but these).
    pub uncovered_lanes: LaneMask,
    /// Hardware mode names by [`HwMode`]; mode 0 is `Default`.
    pub hw_modes: Vec<String>,
    /// The source files spans point into, by file id.
    pub files: Vec<String>,
    /// Sub-register indices by [`SubRegIdx`]: the defined ones in LLVM's
    /// order, then the synthesized ones.
    pub sub_reg_indices: Vec<SubRegIndex>,
    /// Registers by [`Reg`]: the defined ones in LLVM's order, then those
    /// the tuples made.
    pub registers: Vec<Register>,
    /// Register units by [`RegUnit`].
    pub units: Vec<RegUnitInfo>,
    /// Register classes by [`RegClass`], in LLVM's enum order.
    pub classes: Vec<RegisterClass>,
    /// Register pressure sets by [`PressureSet`], in LLVM's order.
    pub pressure_sets: Vec<PressureSetInfo>,
    #[serde(skip)]
    reg_names: HashMap<String, Reg>,
    #[serde(skip)]
    class_names: HashMap<String, RegClass>,
    #[serde(skip)]
    index_names: HashMap<String, SubRegIdx>,
}

/// Why a sub-register index exists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IndexOrigin {
    /// A `SubRegIndex` def.
    Defined,
    /// `first_then_second`, synthesized to name a sub-register reached
    /// through two indices (first found in `register`).
    Composite {
        /// The outer index.
        first: SubRegIdx,
        /// The index applied to `first`'s sub-register.
        second: SubRegIdx,
        /// A register where it names a sub-register.
        register: Reg,
    },
    /// `A_B_...`, synthesized for a super-register covered by consecutive
    /// sub-registers (first found in `register`).
    Concat {
        /// A register where it names a sub-register.
        register: Reg,
    },
}

/// A sub-register index (LLVM's `SubRegIndex`).
#[derive(Clone, Debug, Serialize)]
pub struct SubRegIndex {
    /// The record name (`sub0`, `subd1_then_w0`).
    pub name: String,
    /// `Namespace`.
    pub namespace: String,
    /// Size in bits, when known.
    pub size: Option<u16>,
    /// Offset in bits, when known.
    pub offset: Option<u16>,
    /// The lanes this index covers.
    pub lane_mask: LaneMask,
    /// How it came to be.
    pub origin: IndexOrigin,
    /// `self ∘ a = b` for each `(a, b)`, by `a` (LLVM's composition table).
    pub composed: Vec<(SubRegIdx, SubRegIdx)>,
    /// For an index that concatenates others: its leaf parts.
    pub concatenation_of: Vec<SubRegIdx>,
    /// The lane map of composition through this index: `(lane in R:self's
    /// sub-register, lane in R)` pairs (LLVM's `CompositionLaneMaskTransform`
    /// as a table).
    pub lane_map: Vec<(u32, u32)>,
    /// Whether every register that has this index is covered by it.
    pub all_super_regs_covered: bool,
    /// Whether it only names artificial sub-registers.
    pub artificial: bool,
    /// Where it is defined (`None` for synthesized indices).
    pub span: Option<Span>,
}

/// A register (LLVM's `Register`, or one made by `RegisterTuples`).
#[derive(Clone, Debug, Serialize)]
pub struct Register {
    /// The record name (`R0`, `VGPR0_VGPR1`).
    pub name: String,
    /// `AsmName`.
    pub asm_name: String,
    /// `AltNames`.
    pub alt_names: Vec<String>,
    /// `Namespace`.
    pub namespace: String,
    /// `HWEncoding`.
    pub hw_encoding: u16,
    /// `CostPerUse`, one entry per cost model.
    pub cost_per_use: Vec<i64>,
    /// `isArtificial`.
    pub artificial: bool,
    /// `CoveredBySubRegs`.
    pub covered_by_sub_regs: bool,
    /// Whether it has two sub-registers that do not overlap.
    pub has_disjunct_sub_regs: bool,
    /// The `RegisterTuples` def that made it, if any.
    pub tuple: Option<String>,
    /// The sub-registers it is built from (`SubRegs`, or a tuple's
    /// members), with their indices, as written.
    pub explicit_sub_regs: Vec<(SubRegIdx, Reg)>,
    /// Every sub-register, by index, in index order.
    pub sub_regs: Vec<(SubRegIdx, Reg)>,
    /// Every register this one is a sub-register of, in LLVM's order.
    pub super_regs: Vec<Reg>,
    /// Its register units, sorted.
    pub units: Vec<RegUnit>,
    /// The lane mask of each of its units, in the order of `units` (LLVM's
    /// `RegUnitLaneMasks`; empty masks mean "the whole register").
    pub unit_lane_masks: Vec<LaneMask>,
    /// `Aliases` as written (and their reverse).
    pub explicit_aliases: Vec<Reg>,
    /// Where it is defined (its def, or the tuple that made it).
    pub span: Option<Span>,
}

/// A register unit.
#[derive(Clone, Debug, Serialize)]
pub struct RegUnitInfo {
    /// The one or two registers it is rooted at.
    pub roots: Vec<Reg>,
    /// Whether it is one of the units made for registers (the others were
    /// added for ad hoc aliases).
    pub native: bool,
    /// Its weight as LLVM's `getRegUnitWeight` answers (1 for every unit
    /// when no unit weighs more than 1).
    pub weight: u32,
    /// The pressure sets it counts toward, ascending (empty for artificial
    /// units and units of no allocatable class).
    pub pressure_sets: Vec<PressureSet>,
}

/// A register pressure set (LLVM's `RegUnitSet`).
#[derive(Clone, Debug, Serialize)]
pub struct PressureSetInfo {
    /// Its name (a class name, or two names joined with `_with_` for the
    /// union of two sets).
    pub name: String,
    /// The sum of its units' weights (LLVM's `getRegPressureSetLimit`,
    /// before reserved registers are taken out).
    pub limit: u32,
    /// Its units. LLVM also counts, in `limit`, "adopted" units it creates
    /// only to even out register weights; they are not register units and
    /// are not listed.
    pub units: Vec<RegUnit>,
}

/// How a register class came to be.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClassOrigin {
    /// A `RegisterClass` def.
    Defined,
    /// `RC_with_IDX`: the members of `class` that have sub-register `index`.
    WithSubReg {
        /// The class it was inferred from.
        class: RegClass,
        /// The index every member has.
        index: SubRegIdx,
    },
    /// `A_and_B`: the common members of two classes.
    Common {
        /// One class.
        a: RegClass,
        /// The other.
        b: RegClass,
    },
    /// `RC_with_IDX_in_SubRC`: the members of `class` whose `index`
    /// sub-register is in `sub_class`.
    MatchingSuper {
        /// The class it was inferred from.
        class: RegClass,
        /// The sub-register index.
        index: SubRegIdx,
        /// The class the sub-registers are in.
        sub_class: RegClass,
    },
}

/// Register size, spill size and spill alignment in bits, for one hardware
/// mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SpillInfo {
    /// The mode.
    pub mode: HwMode,
    /// Register size in bits.
    pub reg_size: u32,
    /// Spill size in bits.
    pub spill_size: u32,
    /// Spill alignment in bits.
    pub spill_alignment: u32,
}

/// A register class.
#[derive(Clone, Debug, Serialize)]
pub struct RegisterClass {
    /// The record name, or the synthesized one (`GPR_with_sub0`).
    pub name: String,
    /// `Namespace`.
    pub namespace: String,
    /// How it came to be.
    pub origin: ClassOrigin,
    /// Members, sorted by [`Reg`].
    pub members: Vec<Reg>,
    /// Allocation orders: the default order first, then each `AltOrders`
    /// entry.
    pub allocation_orders: Vec<Vec<Reg>>,
    /// `AltOrderSelect` (C++ code choosing among the orders), as text.
    pub alt_order_select: String,
    /// `isAllocatable`.
    pub allocatable: bool,
    /// `CopyCost`.
    pub copy_cost: i64,
    /// `AllocationPriority` (0..=63).
    pub allocation_priority: u8,
    /// Sizes per hardware mode (at least the default mode).
    pub spill: Vec<SpillInfo>,
    /// Value type names (`RegTypes`).
    pub value_types: Vec<String>,
    /// The lanes of its registers that some index covers.
    pub lane_mask: LaneMask,
    /// Every sub-class, itself included, in enum order.
    pub sub_classes: Vec<RegClass>,
    /// Every strict super-class, in enum order.
    pub super_classes: Vec<RegClass>,
    /// For each index some member has: the largest sub-class whose members
    /// all have it (LLVM's `getSubClassWithSubReg`).
    pub sub_class_with_sub_reg: Vec<(SubRegIdx, RegClass)>,
    /// For each index: the classes whose registers' `index` sub-registers
    /// all lie in this class (LLVM's `getSuperRegClasses`), in class order.
    pub super_reg_classes: Vec<(SubRegIdx, Vec<RegClass>)>,
    /// The pressure sets its registers count toward, ascending (LLVM's
    /// `getRegClassPressureSets`; empty for a class that is not
    /// allocatable).
    pub pressure_sets: Vec<PressureSet>,
    /// LLVM's `RegClassWeight::RegWeight`: the weight one register takes
    /// (the class's `Weight` when set).
    pub weight: u32,
    /// LLVM's `RegClassWeight::WeightLimit`: the weight of all its units.
    pub weight_limit: u32,
    /// Whether its registers are artificial.
    pub artificial: bool,
    /// Whether some member has two sub-registers that do not overlap.
    pub has_disjunct_sub_regs: bool,
    /// Whether every member is covered by its sub-registers.
    pub covered_by_sub_regs: bool,
    /// Where it is defined (`None` for synthesized classes).
    pub span: Option<Span>,
}

impl RegisterClass {
    /// Whether `r` is a member.
    pub fn contains(&self, r: Reg) -> bool {
        self.members.binary_search(&r).is_ok()
    }

    /// The sizes in the default mode.
    pub fn default_spill(&self) -> Option<&SpillInfo> {
        self.spill.first()
    }
}

impl Target {
    /// The register `r`.
    pub fn reg(&self, r: Reg) -> &Register {
        &self.registers[r.index()]
    }

    /// The sub-register index `i`.
    pub fn idx(&self, i: SubRegIdx) -> &SubRegIndex {
        &self.sub_reg_indices[i.index()]
    }

    /// The register class `c`.
    pub fn class(&self, c: RegClass) -> &RegisterClass {
        &self.classes[c.index()]
    }

    /// The register named `name`.
    pub fn reg_by_name(&self, name: &str) -> Option<Reg> {
        self.reg_names.get(name).copied()
    }

    /// The register class named `name`.
    pub fn class_by_name(&self, name: &str) -> Option<RegClass> {
        self.class_names.get(name).copied()
    }

    /// The sub-register index named `name`.
    pub fn index_by_name(&self, name: &str) -> Option<SubRegIdx> {
        self.index_names.get(name).copied()
    }

    /// `r`'s sub-register at `i`.
    pub fn sub_reg(&self, r: Reg, i: SubRegIdx) -> Option<Reg> {
        let subs = &self.reg(r).sub_regs;
        subs.binary_search_by_key(&i, |&(k, _)| k)
            .ok()
            .map(|k| subs[k].1)
    }

    /// The index naming `sub` inside `r`, if `sub` is a sub-register of it.
    pub fn sub_reg_index(&self, r: Reg, sub: Reg) -> Option<SubRegIdx> {
        self.reg(r)
            .sub_regs
            .iter()
            .find(|&&(_, s)| s == sub)
            .map(|&(i, _)| i)
    }

    /// `a ∘ b`: the index of `R:a:b` in `R`, if the composition exists.
    pub fn compose(&self, a: SubRegIdx, b: SubRegIdx) -> Option<SubRegIdx> {
        let c = &self.idx(a).composed;
        c.binary_search_by_key(&b, |&(k, _)| k).ok().map(|k| c[k].1)
    }

    /// Whether two registers share a register unit.
    pub fn regs_overlap(&self, a: Reg, b: Reg) -> bool {
        let (ua, ub) = (&self.reg(a).units, &self.reg(b).units);
        let (mut i, mut j) = (0, 0);
        while i < ua.len() && j < ub.len() {
            match ua[i].cmp(&ub[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    /// `r`'s sub-registers in LLVM's order (`MCSubRegIterator`): a
    /// pre-order walk where each register lists its explicit sub-registers
    /// (each followed by its own walk), then its other sub-registers by
    /// index, every register once.
    pub fn sub_regs_pre_order(&self, r: Reg) -> Vec<Reg> {
        fn walk(t: &Target, r: Reg, out: &mut Vec<Reg>, seen: &mut std::collections::HashSet<Reg>) {
            for &(_, s) in &t.reg(r).explicit_sub_regs {
                if seen.insert(s) {
                    out.push(s);
                    walk(t, s, out, seen);
                }
            }
            for &(_, s) in &t.reg(r).sub_regs {
                if seen.insert(s) {
                    out.push(s);
                }
            }
        }
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        walk(self, r, &mut out, &mut seen);
        out
    }

    /// Every register sharing a unit with `r`, `r` included, sorted.
    pub fn aliases(&self, r: Reg) -> Vec<Reg> {
        let mut out: Vec<Reg> = Vec::new();
        for &u in &self.reg(r).units {
            for &root in &self.units[u.index()].roots {
                out.push(root);
                out.extend(self.reg(root).super_regs.iter().copied());
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether `sub` is a sub-class of `sup` (every class is a sub-class of
    /// itself).
    pub fn is_sub_class(&self, sub: RegClass, sup: RegClass) -> bool {
        self.class(sup).sub_classes.binary_search(&sub).is_ok()
    }

    /// The JSON form (`regdesc dump --format json`).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s
    }
}
