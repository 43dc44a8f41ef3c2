//! The static tables `regdesc emit` and `regdesc!` generate for one register
//! description, and how they are encoded.
//!
//! The layout follows LLVM's `MCRegisterInfo` where that is compact
//! (difference-encoded lists shared between registers, deduplicated rows),
//! and adds a per-register map sorted by sub-register index so that
//! [`Tables::sub_reg`](crate::Tables::sub_reg) is a binary search instead of
//! a walk over every sub-register.
//!
//! # Difference lists
//!
//! A [`DiffList`] offset points into [`Tables::diffs`]: the first entry is
//! the first element minus a base (the register itself for sub- and
//! super-register lists, the register's first unit for unit lists), each
//! next entry the difference from the previous element, all modulo 2^16,
//! and a 0 ends the list (two elements in a row are never equal). Registers
//! with the same shape share their lists.

use crate::ids::{Reg, RegClass};
use crate::lane::{LaneBits, LaneMask};

/// Strings `0..n`, stored back to back: string `i` is
/// `text[bounds[i]..bounds[i + 1]]`.
#[derive(Clone, Copy, Debug)]
pub struct Names {
    /// Every string, concatenated.
    pub text: &'static str,
    /// `n + 1` offsets into `text`.
    pub bounds: &'static [u32],
}

impl Names {
    /// String `i` (empty past the end).
    pub fn get(&self, i: usize) -> &'static str {
        match (self.bounds.get(i), self.bounds.get(i + 1)) {
            (Some(&a), Some(&b)) => self.text.get(a as usize..b as usize).unwrap_or(""),
            _ => "",
        }
    }

    /// How many strings there are.
    pub fn len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An offset into [`Tables::diffs`] where a difference list starts.
pub type DiffList = u32;

/// A range `start..start + len` of a shared pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First element.
    pub start: u32,
    /// Number of elements.
    pub len: u32,
}

impl Span {
    /// The range as `usize`s.
    pub const fn range(self) -> core::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// What every register has.
#[derive(Clone, Copy, Debug)]
pub struct RegDesc {
    /// Sub-registers in LLVM's pre-order (explicit sub-registers depth
    /// first, then the others), a [`DiffList`] from the register.
    pub sub_regs: DiffList,
    /// The index naming each of those sub-registers, in the same order:
    /// `Tables::sub_reg_index_lists[sub_reg_indices..][..num_sub_regs]`.
    pub sub_reg_indices: u32,
    /// The same pairs sorted by index, for binary search:
    /// `Tables::sub_reg_maps[sub_reg_map..][..num_sub_regs]`, each
    /// `(index, register - this register mod 2^16)`.
    pub sub_reg_map: u32,
    /// How many sub-registers it has.
    pub num_sub_regs: u16,
    /// Its first (lowest) register unit.
    pub first_unit: u16,
    /// Its last (highest) register unit: registers whose unit ranges do not
    /// meet cannot overlap, which answers most `regs_overlap` queries
    /// without walking the lists.
    pub last_unit: u16,
    /// How many register units it has. When they are consecutive
    /// (`last_unit - first_unit + 1 == num_units`, as for most tuples),
    /// [`crate::UnitIter`] counts them up without reading [`RegDesc::units`].
    pub num_units: u16,
    /// The units after the first, a [`DiffList`] from the first.
    pub units: DiffList,
    /// The lane mask of each unit (first unit first):
    /// `Tables::unit_lane_mask_lists[unit_lane_masks..]`.
    pub unit_lane_masks: u32,
    /// Super-registers in LLVM's order, a [`DiffList`] from the register.
    pub super_regs: DiffList,
}

/// Sizes of a register class in one hardware mode, in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpillInfo {
    /// Register size.
    pub reg_size: u32,
    /// Spill slot size.
    pub spill_size: u32,
    /// Spill slot alignment.
    pub spill_alignment: u32,
}

/// What every register class has.
#[derive(Clone, Copy, Debug)]
pub struct ClassDesc<L: LaneBits> {
    /// Membership: bit `r - 64 * first_word` of
    /// `Tables::class_words[members]..` for register `r` in words
    /// `first_word..first_word + num_words`.
    pub members: u32,
    /// The 64-register word the bit set starts at.
    pub first_word: u16,
    /// How many words the bit set has.
    pub num_words: u16,
    /// How many registers it holds.
    pub num_members: u16,
    /// Its allocation orders (the default first):
    /// `Tables::orders[orders]`, each a range of `Tables::order_regs`.
    pub orders: Span,
    /// The lanes its registers have.
    pub lane_mask: LaneMask<L>,
    /// `CopyCost`.
    pub copy_cost: i16,
    /// `isAllocatable`.
    pub allocatable: bool,
    /// `AllocationPriority`.
    pub allocation_priority: u8,
    /// Sub-classes (itself included) as a bit set over classes:
    /// `Tables::class_masks[sub_classes..][..Tables::class_mask_words]`.
    pub sub_classes: u32,
    /// Strict super-classes in class order: `Tables::class_lists[super_classes]`.
    pub super_classes: Span,
    /// The row of [`Tables::sub_class_with_sub_reg`] this class uses.
    pub sub_class_with_sub_reg_row: u16,
    /// For each index some class projects into this one: the classes whose
    /// `index` sub-registers all lie in this class, as
    /// `Tables::super_reg_classes[super_reg_classes]` entries.
    pub super_reg_classes: Span,
    /// Its pressure sets: `Tables::pressure_set_lists[pressure_sets]`.
    pub pressure_sets: Span,
    /// LLVM's `RegClassWeight::RegWeight`.
    pub weight: u32,
    /// LLVM's `RegClassWeight::WeightLimit`.
    pub weight_limit: u32,
}

/// One step of a lane-mask composition: lanes in `mask` move by `shift`
/// (up when positive).
#[derive(Clone, Copy, Debug)]
pub struct LaneShift<L: LaneBits> {
    /// The lanes that move by `shift`.
    pub mask: LaneMask<L>,
    /// How far they move.
    pub shift: i16,
}

/// The tables of one register description.
#[derive(Debug)]
pub struct Tables<L: LaneBits + 'static> {
    /// The `Target` def's name (or the file's name).
    pub target: &'static str,
    /// Lanes in use.
    pub num_lanes: u32,
    /// Hardware mode names; mode 0 is `Default`.
    pub hw_modes: Names,

    /// Register names (LLVM's enum names), by register index.
    pub reg_names: Names,
    /// Registers sorted by name, for lookups by name.
    pub regs_by_name: &'static [Reg],
    /// `AsmName` of each register.
    pub asm_names: Names,
    /// `AltNames` of every register, back to back.
    pub alt_names: Names,
    /// Register `i`'s alternative names are `alt_names[alt_name_bounds[i]..alt_name_bounds[i + 1]]`.
    pub alt_name_bounds: &'static [u32],
    /// `HWEncoding` of each register.
    pub hw_encodings: &'static [u16],
    /// `isArtificial`, a bit per register.
    pub artificial: &'static [u64],
    /// `CostPerUse`: `num_cost_models` values per register.
    pub cost_per_use: &'static [u8],
    /// Cost models in `CostPerUse`.
    pub num_cost_models: u16,
    /// Per-register descriptors.
    pub regs: &'static [RegDesc],
    /// The pool of difference lists.
    pub diffs: &'static [u16],
    /// Pool of sub-register index lists (parallel to pre-order sub-registers).
    pub sub_reg_index_lists: &'static [u16],
    /// Pool of `(index, register difference)` pairs sorted by index.
    pub sub_reg_maps: &'static [(u16, u16)],
    /// Pool of unit lane-mask lists.
    pub unit_lane_mask_lists: &'static [LaneMask<L>],

    /// The one or two roots of each unit (0: none).
    pub unit_roots: &'static [[u16; 2]],
    /// The weight of each unit.
    pub unit_weights: &'static [u32],
    /// The pressure sets of each unit: ranges of `pressure_set_lists`.
    pub unit_pressure_sets: &'static [Span],

    /// Sub-register index names, by index number - 1.
    pub index_names: Names,
    /// `(size, offset)` of each index in bits, `u16::MAX` when unknown.
    pub index_ranges: &'static [(u16, u16)],
    /// The lane mask of each index.
    pub index_lane_masks: &'static [LaneMask<L>],
    /// The lanes no index leaves uncovered (LLVM's `CoveringLanes` is all
    /// lanes except these).
    pub uncovered_lanes: LaneMask<L>,
    /// Composition rows: `a ∘ b` is `compose_rows[compose_row_of[a - 1] *
    /// num_indices + b - 1]` (0: none).
    pub compose_rows: &'static [u16],
    /// The row of `compose_rows` each index uses.
    pub compose_row_of: &'static [u16],
    /// Lane-mask composition steps of each index: ranges of `lane_shifts`.
    pub index_lane_shifts: &'static [Span],
    /// The pool of lane-mask composition steps.
    pub lane_shifts: &'static [LaneShift<L>],

    /// Register class names, by class.
    pub class_names: Names,
    /// Per-class descriptors.
    pub classes: &'static [ClassDesc<L>],
    /// Pool of membership words.
    pub class_words: &'static [u64],
    /// Pool of allocation orders.
    pub orders: &'static [Span],
    /// Registers of every allocation order, back to back.
    pub order_regs: &'static [Reg],
    /// Words in each sub-class bit set (`ceil(classes / 64)`).
    pub class_mask_words: u16,
    /// Pool of class bit sets.
    pub class_masks: &'static [u64],
    /// Pool of class lists.
    pub class_lists: &'static [RegClass],
    /// Rows of `num_indices` entries: the class with sub-register index
    /// `i` is `sub_class_with_sub_reg[row * num_indices + i - 1]` (class + 1;
    /// 0: none).
    pub sub_class_with_sub_reg: &'static [u16],
    /// Pool of `(index, class bit set offset in class_masks)` entries.
    pub super_reg_classes: &'static [(u16, u32)],
    /// Sizes per hardware mode: `spill[mode * num_classes + class]`.
    pub spill: &'static [SpillInfo],

    /// Pressure set names.
    pub pressure_set_names: Names,
    /// Pressure set limits (LLVM's `getRegPressureSetLimit`).
    pub pressure_set_limits: &'static [u32],
    /// Pool of pressure set lists.
    pub pressure_set_lists: &'static [u16],
}

impl<L: LaneBits> Tables<L> {
    /// `class` as an id (for generated code).
    pub const fn class_id(n: u16) -> RegClass {
        RegClass(n)
    }
}
