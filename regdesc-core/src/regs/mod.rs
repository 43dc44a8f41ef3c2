//! Stage 3: the register bank, computed from evaluated records exactly as
//! LLVM 14's `CodeGenRegBank` does.
//!
//! [`RegBank::build`] reads the `SubRegIndex`, `Register`, `RegisterTuples`,
//! `RegisterClass` and `HwMode` records and computes, in LLVM's order:
//! numbering of sub-register indices and registers (tuples appended), the
//! full sub-register maps (inherited sub-registers, orphans named through
//! composites, synthesized `A_then_B` indices, concatenated indices), register
//! units (with shared units for ad hoc aliases), the inferred register classes
//! and their topological order, the global composites pass, and register
//! unit weights and pressure sets ([`pressure`]).
//!
//! Lane masks are not computed here: see [`crate::lanes`].

mod bank;
mod class_props;
mod classes;
mod hw_modes;
mod inference;
mod membership;
pub mod pressure;
pub mod sets;
mod subregs;
mod vecmap;
mod window;

use std::collections::BTreeMap;

use crate::diag::Diagnostic;
use crate::eval::{Init, RecId, RecordKeeper};
use crate::syntax::Span;

pub use sets::{Elem, SynthReg};
pub use vecmap::VecMap;

/// Index of a sub-register index in [`RegBank::sub_reg_indices`]. LLVM's
/// enum value is this plus one.
pub type IdxId = u32;
/// Index of a register in [`RegBank::registers`]. LLVM's enum value is this plus one.
pub type RegId = u32;
/// Index of a register class in [`RegBank::classes`] (creation order).
pub type ClassId = u32;
/// A register unit.
pub type RegUnitId = u32;

/// LLVM's `(uint16_t)-1`: an unknown offset or size.
pub const UNKNOWN: u16 = u16::MAX;

/// A sub-register index (`CodeGenSubRegIndex`).
#[derive(Clone, Debug)]
pub struct SubRegIndex {
    pub name: String,
    pub namespace: String,
    /// The defining record; `None` for synthesized indices.
    pub def: Option<RecId>,
    pub span: Option<Span>,
    /// Size in bits, [`UNKNOWN`] if unknown (LLVM keeps it as `uint16_t`).
    pub size: u16,
    /// Offset in bits, [`UNKNOWN`] if unknown.
    pub offset: u16,
    /// `self ∘ A = B`, keyed by `A` (LLVM's `Composed` map, in enum order).
    pub composed: VecMap<IdxId, IdxId>,
    /// For concatenated indices: the leaf parts.
    pub concatenation_of: Vec<IdxId>,
    pub all_super_regs_covered: bool,
    pub artificial: bool,
    /// How this index came to be.
    pub origin: IndexOrigin,
}

/// Why a sub-register index exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexOrigin {
    Defined,
    /// `A_then_B`, synthesized to name an orphan sub-register.
    Composite {
        first: IdxId,
        second: IdxId,
        register: RegId,
    },
    /// `A_B_...`, synthesized for a covering super-register.
    Concat {
        register: RegId,
    },
}

impl SubRegIndex {
    pub fn qualified_name(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}::{}", self.namespace, self.name)
        }
    }
    pub fn is_leaf(&self) -> bool {
        self.composed.is_empty()
    }
}

/// A register (`CodeGenRegister`).
#[derive(Clone, Debug)]
pub struct Register {
    pub name: String,
    /// The defining record; `None` for registers made by a `RegisterTuples`.
    pub def: Option<RecId>,
    /// The `RegisterTuples` def that made this register.
    pub tuple: Option<RecId>,
    pub span: Option<Span>,
    pub asm_name: String,
    /// `AltNames` (tuples take their first member's).
    pub alt_names: Vec<String>,
    /// `HWEncoding`, unset bits as 0 (tuples take their first member's).
    pub hw_encoding: u16,
    pub namespace: String,
    pub cost_per_use: Vec<i64>,
    pub covered_by_sub_regs: bool,
    pub artificial: bool,
    pub has_disjunct_sub_regs: bool,
    pub explicit_sub_regs: Vec<RegId>,
    pub explicit_sub_reg_indices: Vec<IdxId>,
    pub explicit_aliases: Vec<RegId>,
    pub leading_super_regs: Vec<RegId>,
    /// Every sub-register by index, in index order.
    pub sub_regs: VecMap<IdxId, RegId>,
    pub super_regs: Vec<RegId>,
    /// Native register units, sorted.
    pub units: Vec<RegUnitId>,
    pub topo_sig: u32,
}

impl Register {
    /// The index naming sub-register `r` (the lowest, in a bank an error
    /// left with two), by a walk of the map: the bank keeps no inverse.
    pub fn sub_reg_index(&self, r: RegId) -> Option<IdxId> {
        self.sub_regs.iter().find(|(_, &s)| s == r).map(|(&i, _)| i)
    }
}

/// A register unit and the one or two registers it is rooted at.
#[derive(Clone, Debug)]
pub struct RegUnit {
    pub roots: [Option<RegId>; 2],
}

/// Register size, spill size and spill alignment in bits (`RegSizeInfo`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegSizeInfo {
    pub reg_size: u32,
    pub spill_size: u32,
    pub spill_alignment: u32,
}

impl RegSizeInfo {
    /// LLVM's `RegSizeInfo::isSubClassOf`.
    pub fn is_sub_class_of(&self, i: &RegSizeInfo) -> bool {
        self.reg_size <= i.reg_size
            && self.spill_alignment != 0
            && i.spill_alignment.is_multiple_of(self.spill_alignment)
            && self.spill_size <= i.spill_size
    }
}

/// Size information per HwMode (mode 0 is the default mode).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegSizeInfoByHwMode {
    pub map: BTreeMap<u32, RegSizeInfo>,
}

impl RegSizeInfoByHwMode {
    /// The info for `mode`, falling back to the default mode.
    pub fn get(&self, mode: u32) -> RegSizeInfo {
        self.map
            .get(&mode)
            .or_else(|| self.map.get(&0))
            .copied()
            .unwrap_or_default()
    }
    fn first_mode(&self) -> u32 {
        self.map.keys().next().copied().unwrap_or(0)
    }
    /// The part LLVM compares: the info of the first mode.
    pub fn key(&self) -> RegSizeInfo {
        self.get(self.first_mode())
    }
    pub fn is_sub_class_of(&self, other: &RegSizeInfoByHwMode) -> bool {
        let m = self.first_mode();
        self.get(m).is_sub_class_of(&other.get(m))
    }
    pub fn has_stricter_spill_than(&self, other: &RegSizeInfoByHwMode) -> bool {
        let m = self.first_mode();
        let (a, b) = (self.get(m), other.get(m));
        (a.spill_size, a.spill_alignment) > (b.spill_size, b.spill_alignment)
    }
}

/// How a register class came to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassOrigin {
    Defined,
    /// `RC_with_IDX`: the members of `class` that have sub-register `index`.
    WithSubReg {
        class: ClassId,
        index: IdxId,
    },
    /// `RC1_and_RC2`.
    Common {
        a: ClassId,
        b: ClassId,
    },
    /// `RC_with_IDX_in_SubRC`.
    MatchingSuper {
        class: ClassId,
        index: IdxId,
        sub_class: ClassId,
    },
}

/// A register class (`CodeGenRegisterClass`).
#[derive(Clone, Debug)]
pub struct RegClass {
    pub name: String,
    pub def: Option<RecId>,
    pub span: Option<Span>,
    pub origin: ClassOrigin,
    /// Members sorted by register number, without duplicates.
    pub members: Vec<RegId>,
    /// The default allocation order: as written for a defined class; for a
    /// synthesized one, its closest super-class's order without foreign
    /// registers.
    pub order: Vec<RegId>,
    /// `AltOrders`, each evaluated like the member list (inherited the same
    /// way as `order`).
    pub alt_orders: Vec<Vec<RegId>>,
    /// `AltOrderSelect` (C++ code choosing an order; kept as text).
    pub alt_order_select: String,
    /// `CopyCost` (inherited by synthesized classes).
    pub copy_cost: i64,
    /// `isAllocatable` (a synthesized class is allocatable if any of its
    /// super-classes is).
    pub allocatable: bool,
    /// `AllocationPriority`, 0..=63 (inherited).
    pub allocation_priority: u8,
    pub rsi: RegSizeInfoByHwMode,
    pub artificial: bool,
    pub namespace: String,
    /// Value type names (`RegTypes`).
    pub value_types: Vec<String>,
    /// For each index, the largest sub-class whose members all have it.
    pub sub_class_with_sub_reg: BTreeMap<IdxId, ClassId>,
    /// For each index, the classes whose members' sub-registers at that
    /// index all lie in this class (LLVM's `SuperRegClasses`, filled by
    /// class inference), in creation order.
    pub super_reg_classes: BTreeMap<IdxId, Vec<ClassId>>,
    /// Bit set of the members' topological signatures.
    pub topo_sigs: Vec<u64>,
    /// Position in the topological order (LLVM's enum value).
    pub enum_value: u32,
    /// Bit set over enum values.
    pub sub_classes: Vec<u64>,
    pub super_classes: Vec<ClassId>,
    pub has_disjunct_sub_regs: bool,
    pub covered_by_sub_regs: bool,
}

impl RegClass {
    pub fn contains(&self, r: RegId) -> bool {
        self.members.binary_search(&r).is_ok()
    }
    pub fn has_sub_class(&self, enum_value: u32) -> bool {
        bit_test(&self.sub_classes, enum_value as usize)
    }
}

/// A composition LLVM finds ambiguous (it warns and keeps the first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AmbiguousComposite {
    pub first: IdxId,
    pub second: IdxId,
    pub previous: IdxId,
    pub new: IdxId,
    /// A register where the conflicting composition shows up.
    pub register: RegId,
}

/// The computed register bank.
#[derive(Clone, Debug, Default)]
pub struct RegBank {
    pub sub_reg_indices: Vec<SubRegIndex>,
    pub registers: Vec<Register>,
    pub reg_units: Vec<RegUnit>,
    pub num_native_reg_units: usize,
    /// Register classes in creation order; see `class_order` for LLVM's order.
    pub classes: Vec<RegClass>,
    /// Class ids in topological order (enum values 0, 1, ...).
    pub class_order: Vec<ClassId>,
    /// HwMode names by mode id; mode 0 is `Default`.
    pub hw_modes: Vec<String>,
    /// Ambiguous compositions found by the composites pass.
    pub ambiguous: Vec<AmbiguousComposite>,
    pub num_defined_indices: usize,
    pub num_defined_registers: usize,
    pub num_defined_classes: usize,
    pub num_topo_sigs: usize,
    /// Register unit weights and pressure sets ([`pressure::compute`]).
    pub pressure: pressure::Pressure,
    /// How far the computation got (see [`RegBank::build_partial`]).
    pub stage: Stage,
    /// How long each step of the computation took, in order (the driver
    /// passes them on to `REGDESC_TIMINGS=1`).
    pub timings: Vec<(&'static str, std::time::Duration)>,
}

/// Steps of the bank computation, in order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Nothing usable yet.
    #[default]
    Start,
    /// Indices and registers are numbered.
    Registers,
    /// Sub-register maps (before secondary ones) and register units are known.
    SubRegs,
    /// Register classes are complete.
    Classes,
    /// Everything, including the composites pass.
    Complete,
}

impl RegBank {
    pub fn idx(&self, i: IdxId) -> &SubRegIndex {
        &self.sub_reg_indices[i as usize]
    }
    pub fn reg(&self, r: RegId) -> &Register {
        &self.registers[r as usize]
    }
    pub fn class(&self, c: ClassId) -> &RegClass {
        &self.classes[c as usize]
    }
    /// Classes in LLVM's (topological) order.
    pub fn classes_in_order(&self) -> impl Iterator<Item = &RegClass> {
        self.class_order
            .iter()
            .map(move |&c| &self.classes[c as usize])
    }
    /// LLVM's warning text for each ambiguous composition, in order.
    pub fn warnings(&self) -> Vec<String> {
        self.ambiguous
            .iter()
            .map(|a| {
                format!(
                    "SubRegIndex {} and {} compose ambiguously as {} or {}",
                    self.idx(a.first).qualified_name(),
                    self.idx(a.second).qualified_name(),
                    self.idx(a.previous).qualified_name(),
                    self.idx(a.new).qualified_name()
                )
            })
            .collect()
    }
}

/// Errors of the register bank stage (LLVM's fatal errors, located).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegsError {
    #[error("no '{class}' class: the register classes of Target.td are not included")]
    MissingClass { class: &'static str },
    #[error("{message}")]
    Field { message: String, span: Option<Span> },
    #[error("{message}")]
    Set { message: String, span: Option<Span> },
    #[error("{message}")]
    Tuple { message: String, span: Option<Span> },
    #[error("{message}")]
    SubRegs {
        message: String,
        span: Option<Span>,
        help: Option<String>,
    },
    #[error("{message}")]
    Class { message: String, span: Option<Span> },
    /// llvm-tblgen's register-info backend needs exactly one `Target` def.
    #[error("No 'Target' subclasses defined!")]
    NoTarget,
    #[error("Multiple subclasses of Target defined!")]
    MultipleTargets { span: Option<Span> },
    /// A `HwModeSelect` whose `Modes` and `Objects` cannot be paired.
    #[error(
        "in record {record} derived from HwModeSelect: the lists Modes and Objects should have the same size"
    )]
    HwModeSelectLength {
        record: String,
        modes: usize,
        objects: usize,
        span: Option<Span>,
    },
    /// No allocatable class makes a register pressure set.
    #[error("RegUnitSets cannot be empty!")]
    EmptyPressureSets {
        /// The first allocatable class that opted out (`GeneratePressureSet
        /// = 0`), if any.
        span: Option<Span>,
        class: Option<String>,
    },
    /// A class makes a pressure set without units (its registers' units are
    /// all artificial) next to other sets: llvm-tblgen 14 crashes.
    #[error("the register pressure set of class {class} has no units (llvm-tblgen 14 crashes on this input)")]
    EmptyUnitSet { class: String, span: Option<Span> },
    /// Register unit weights never settle: llvm-tblgen 14 does not terminate.
    #[error("the register unit weights of {register} cannot be evened out (llvm-tblgen 14 never terminates on this input)")]
    UnitWeights {
        register: String,
        /// Why, as a label.
        why: String,
        span: Option<Span>,
    },
}

impl RegsError {
    fn field(rk: &RecordKeeper, id: RecId, field: &str, what: &str) -> RegsError {
        let rec = rk.record(id);
        RegsError::Field {
            message: format!("Record `{}', field `{field}' {what}", rec.name),
            span: Some(rec.span),
        }
    }

    pub fn span(&self) -> Option<Span> {
        match self {
            RegsError::MissingClass { .. } | RegsError::NoTarget => None,
            RegsError::MultipleTargets { span } => *span,
            RegsError::HwModeSelectLength { span, .. }
            | RegsError::EmptyPressureSets { span, .. }
            | RegsError::EmptyUnitSet { span, .. }
            | RegsError::UnitWeights { span, .. } => *span,
            RegsError::Field { span, .. }
            | RegsError::Set { span, .. }
            | RegsError::Tuple { span, .. }
            | RegsError::SubRegs { span, .. }
            | RegsError::Class { span, .. } => *span,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            RegsError::MissingClass { .. } => "regdesc::regs::missing_class",
            RegsError::Field { .. } => "regdesc::regs::field",
            RegsError::Set { .. } => "regdesc::regs::set",
            RegsError::Tuple { .. } => "regdesc::regs::tuple",
            RegsError::SubRegs { .. } => "regdesc::regs::sub_regs",
            RegsError::Class { .. } => "regdesc::regs::class",
            RegsError::NoTarget | RegsError::MultipleTargets { .. } => "regdesc::regs::target",
            RegsError::HwModeSelectLength { .. } => "regdesc::regs::hw_mode_select",
            RegsError::EmptyPressureSets { .. } => "regdesc::regs::empty_pressure_sets",
            RegsError::EmptyUnitSet { .. } => "regdesc::regs::empty_unit_set",
            RegsError::UnitWeights { .. } => "regdesc::regs::unit_weights",
        }
    }

    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = Diagnostic::error(self.code(), self.to_string(), self.span());
        if let RegsError::SubRegs { help: Some(h), .. } = self {
            d = d.with_help(h.clone());
        }
        match self {
            RegsError::MissingClass { .. } => {
                d = d.with_help(
                    "add `include \"llvm/Target/Target.td\"` (regdesc has a built-in copy)",
                )
            }
            RegsError::NoTarget => {
                d = d.with_help(
                    "llvm-tblgen -gen-register-info needs one `def MyTarget : Target;` (regdesc check does not)",
                )
            }
            RegsError::HwModeSelectLength { modes, objects, .. } => {
                d = d
                    .with_label(format!("{modes} modes, {objects} objects"))
                    .with_help("give one object per mode, in the same order");
            }
            RegsError::EmptyPressureSets { class, .. } => {
                if let Some(c) = class {
                    d = d.with_label(format!("{c} sets `GeneratePressureSet = 0`"));
                }
                d = d.with_help(
                    "llvm-tblgen needs at least one allocatable, non-artificial register class with `GeneratePressureSet = 1` to make a register pressure set",
                );
            }
            RegsError::EmptyUnitSet { .. } => {
                d = d
                    .with_label("every register unit of its members is artificial")
                    .with_help("make the class non-allocatable (`isAllocatable = 0`) or set `GeneratePressureSet = 0` in it");
            }
            RegsError::UnitWeights { why, .. } => {
                d = d.with_label(why.clone()).with_help(
                    "a register whose only unit is artificial cannot share an allocatable class with registers of nonzero weight; move it to a class with `isAllocatable = 0`",
                );
            }
            _ => {}
        }
        d
    }
}

/// What llvm-tblgen's register-info backend requires before it builds the
/// bank (`CodeGenTarget`), in its order: well-formed `HwModeSelect` defs,
/// then exactly one def deriving from `Target`.
pub fn require_one_target(rk: &RecordKeeper) -> Result<(), RegsError> {
    hw_modes::check_mode_selects(rk)?;
    let targets = rk.all_derived_definitions("Target");
    match targets.as_slice() {
        [] => Err(RegsError::NoTarget),
        [_] => Ok(()),
        [_, second, ..] => Err(RegsError::MultipleTargets {
            span: Some(rk.record(*second).span),
        }),
    }
}

impl From<RegsError> for Diagnostic {
    fn from(e: RegsError) -> Diagnostic {
        e.to_diagnostic()
    }
}

// ---- record access helpers -------------------------------------------------

/// The elements of list field `field`, each converted by `conv`; `bad` is
/// the error (in llvm-tblgen's words) when an element does not convert.
fn list_field<T>(
    rk: &RecordKeeper,
    id: RecId,
    field: &str,
    bad: &str,
    conv: impl Fn(&Init) -> Option<T>,
) -> Result<Vec<T>, RegsError> {
    let Some(init) = rk.record(id).get(field) else {
        return Err(RegsError::field(rk, id, field, "does not exist"));
    };
    let Some(list) = init.as_list() else {
        return Err(RegsError::field(
            rk,
            id,
            field,
            "does not have a list initializer",
        ));
    };
    list.iter()
        .map(|e| conv(e).ok_or_else(|| RegsError::field(rk, id, field, bad)))
        .collect()
}

pub(crate) fn list_of_defs(
    rk: &RecordKeeper,
    id: RecId,
    field: &str,
) -> Result<Vec<RecId>, RegsError> {
    list_field(rk, id, field, "list is not entirely DefInit", Init::as_def)
}

pub(crate) fn list_of_ints(
    rk: &RecordKeeper,
    id: RecId,
    field: &str,
) -> Result<Vec<i64>, RegsError> {
    list_field(
        rk,
        id,
        field,
        "does not have a list of ints initializer",
        Init::as_int,
    )
}

pub(crate) fn list_of_strings(
    rk: &RecordKeeper,
    id: RecId,
    field: &str,
) -> Result<Vec<String>, RegsError> {
    list_field(
        rk,
        id,
        field,
        "does not have a list of strings initializer",
        |e| e.as_str().map(str::to_string),
    )
}

pub(crate) fn int_field(rk: &RecordKeeper, id: RecId, field: &str) -> Result<i64, RegsError> {
    let rec = rk.record(id);
    match rec.get(field) {
        None => Err(RegsError::field(rk, id, field, "does not exist")),
        Some(i) => i
            .as_int()
            .ok_or_else(|| RegsError::field(rk, id, field, "does not have an int initializer")),
    }
}

pub(crate) fn bit_field(rk: &RecordKeeper, id: RecId, field: &str) -> Result<bool, RegsError> {
    let rec = rk.record(id);
    match rec.get(field) {
        None => Err(RegsError::field(rk, id, field, "does not exist")),
        Some(i) => i
            .as_bit()
            .ok_or_else(|| RegsError::field(rk, id, field, "does not have a bit initializer")),
    }
}

// ---- bit sets --------------------------------------------------------------

pub(crate) fn bit_set(v: &mut Vec<u64>, i: usize) {
    let w = i / 64;
    if v.len() <= w {
        v.resize(w + 1, 0);
    }
    v[w] |= 1 << (i % 64);
}

pub(crate) fn bit_test(v: &[u64], i: usize) -> bool {
    v.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

// ---- LLVM's name orders ----------------------------------------------------

/// `LessRecordRegister`: names split into alternating alpha and numeric
/// parts; fewer parts first, then the parts at even positions as strings,
/// then those at odd positions (the numbers, in names starting with a
/// letter) by length, then as strings.
pub fn less_record_register(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut ka, mut kb) = (Vec::new(), Vec::new());
    push_register_key(&mut ka, a);
    push_register_key(&mut kb, b);
    ka.cmp(&kb)
}

/// Sorts `items` by name in the order of [`less_record_register`], stably.
/// The names' keys are built once, into one buffer, and compare as bytes.
pub fn sort_by_register_name<'n, T: Copy>(items: &mut [T], name: impl Fn(T) -> &'n str) {
    let mut keys = Vec::new();
    let mut spans = Vec::with_capacity(items.len());
    for &it in items.iter() {
        let start = keys.len();
        push_register_key(&mut keys, name(it));
        spans.push((start, keys.len()));
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| keys[spans[a].0..spans[a].1].cmp(&keys[spans[b].0..spans[b].1]));
    let sorted: Vec<T> = order.iter().map(|&i| items[i]).collect();
    items.copy_from_slice(&sorted);
}

/// Appends to `key` the bytes of `name` that compare in the order of
/// [`less_record_register`]: the number of parts, each even part (encoded
/// so that no part is a prefix of another) with a terminator, then each
/// odd part after its length.
fn push_register_key(key: &mut Vec<u8>, name: &str) {
    let b = name.as_bytes();
    let at = key.len();
    key.reserve(b.len() + 8);
    key.extend_from_slice(&[0; 4]);
    // The parts are found by one scan of the bytes per pass (tuple names
    // such as AMDGPU's `VGPR0_VGPR1_..._VGPR31` have 64 of them).
    let mut parts = 0u32;
    let mut odd_len = 0;
    let mut i = 0;
    while i < b.len() {
        let end = part_end(b, i);
        if parts.is_multiple_of(2) {
            let part = &b[i..end];
            if part.iter().all(|&c| c > 1) {
                // No byte to escape (every real name): copied whole.
                key.extend_from_slice(part);
            } else {
                for &c in part {
                    // 0 and 1 become two bytes, so that 0 can end a part.
                    if c <= 1 {
                        key.extend_from_slice(&[1, c + 1]);
                    } else {
                        key.push(c);
                    }
                }
            }
            key.push(0);
        } else {
            odd_len += 4 + (end - i);
        }
        parts += 1;
        i = end;
    }
    key[at..at + 4].copy_from_slice(&parts.to_be_bytes());
    if odd_len > 0 {
        key.reserve(odd_len);
        let (mut i, mut k) = (0, 0u32);
        while i < b.len() {
            let end = part_end(b, i);
            if k % 2 == 1 {
                key.extend_from_slice(&((end - i) as u32).to_be_bytes());
                key.extend_from_slice(&b[i..end]);
            }
            k += 1;
            i = end;
        }
    }
}

/// The end of the part of `b` that starts at `i` (`i < b.len()`): the run
/// of digits or of other bytes there.
#[inline]
fn part_end(b: &[u8], i: usize) -> usize {
    let digit = b[i].is_ascii_digit();
    let mut j = i + 1;
    while j < b.len() && b[j].is_ascii_digit() == digit {
        j += 1;
    }
    j
}

/// `StringRef::compare_numeric` (LLVM's `LessRecord`).
pub fn compare_numeric(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let e = x.len().min(y.len());
    let mut i = 0;
    while i < e {
        if x[i].is_ascii_digit() && y[i].is_ascii_digit() {
            let mut j = i + 1;
            while j <= e {
                let ld = j < x.len() && x[j].is_ascii_digit();
                let rd = j < y.len() && y[j].is_ascii_digit();
                if ld != rd {
                    return if rd {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    };
                }
                if !rd {
                    break;
                }
                j += 1;
            }
            let (sa, sb) = (&x[i..j.min(x.len())], &y[i..j.min(y.len())]);
            match sa.cmp(sb) {
                Ordering::Equal => {}
                o => return o,
            }
            i = j;
            continue;
        }
        if x[i] != y[i] {
            return x[i].cmp(&y[i]);
        }
        i += 1;
    }
    x.len().cmp(&y.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::*;

    #[test]
    fn register_order() {
        assert_eq!(less_record_register("R2", "R10"), Less);
        assert_eq!(less_record_register("R10", "S0"), Less);
        assert_eq!(less_record_register("R1_R2", "R1"), Greater);
        assert_eq!(less_record_register("D0_D1", "D0_D2"), Less);
    }

    /// The alternating alpha and numeric parts of a register name (what is
    /// left of it).
    #[derive(Clone)]
    struct NameParts<'a>(&'a str);

    impl<'a> Iterator for NameParts<'a> {
        type Item = &'a str;
        fn next(&mut self) -> Option<&'a str> {
            let bytes = self.0.as_bytes();
            let digit = bytes.first()?.is_ascii_digit();
            let end = bytes
                .iter()
                .position(|b| b.is_ascii_digit() != digit)
                .unwrap_or(bytes.len());
            let (part, rest) = self.0.split_at(end);
            self.0 = rest;
            Some(part)
        }
    }

    /// The order as a sort key, written the obvious way.
    fn key(name: &str) -> (usize, Vec<&str>, Vec<(usize, &str)>) {
        let parts: Vec<&str> = NameParts(name).collect();
        let even = parts.iter().step_by(2).copied().collect();
        let odd = parts
            .iter()
            .skip(1)
            .step_by(2)
            .map(|p| (p.len(), *p))
            .collect();
        (parts.len(), even, odd)
    }

    #[test]
    fn register_order_is_the_key_order() {
        let names = [
            "",
            "R",
            "R0",
            "R00",
            "R1",
            "R01",
            "R10",
            "R2",
            "S0",
            "0",
            "00",
            "1R",
            "R1_R2",
            "R1R2",
            "D0_D1",
            "D0_D2",
            "D10_D1",
            "VGPR255",
            "VGPR3_VGPR4",
            "AGPR0_AGPR1",
            "a1b2c3",
            "a1b2c",
            "a12b2c3",
            "_1",
            "x_",
            "sub0_sub1",
            "a\u{0}b",
            "a\u{1}",
            "a",
            "a\u{0}",
            "a\u{2}",
            "\u{0}",
        ];
        for a in names {
            for b in names {
                assert_eq!(less_record_register(a, b), key(a).cmp(&key(b)), "{a} {b}");
            }
        }
    }

    #[test]
    fn numeric_order() {
        assert_eq!(compare_numeric("sub2", "sub10"), Less);
        assert_eq!(compare_numeric("sub10", "sub_lo"), Less);
        assert_eq!(compare_numeric("a", "ab"), Less);
    }
}
