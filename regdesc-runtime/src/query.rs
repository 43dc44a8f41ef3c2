//! The queries: what LLVM's `MCRegisterInfo` and `TargetRegisterInfo`
//! answer, over [`Tables`].

use crate::ids::{HwMode, PressureSet, Reg, RegClass, RegUnit, SubRegIdx};
use crate::lane::{LaneBits, LaneMask};
use crate::tables::{ClassDesc, SpillInfo, Tables};

/// Walks a difference list (see [`crate::tables`]).
#[derive(Clone, Debug)]
pub struct DiffIter {
    diffs: &'static [u16],
    pos: usize,
    value: u16,
}

impl DiffIter {
    fn new(diffs: &'static [u16], start: u32, base: u16) -> DiffIter {
        DiffIter {
            diffs,
            pos: start as usize,
            value: base,
        }
    }

    fn empty() -> DiffIter {
        DiffIter {
            diffs: &[],
            pos: 0,
            value: 0,
        }
    }
}

impl Iterator for DiffIter {
    type Item = u16;
    fn next(&mut self) -> Option<u16> {
        let d = *self.diffs.get(self.pos)?;
        if d == 0 {
            return None;
        }
        self.pos += 1;
        self.value = self.value.wrapping_add(d);
        Some(self.value)
    }
}

/// Registers from a difference list (see [`Tables::sub_regs`]).
#[derive(Clone, Debug)]
pub struct RegIter {
    first: Option<Reg>,
    rest: DiffIter,
}

impl Iterator for RegIter {
    type Item = Reg;
    fn next(&mut self) -> Option<Reg> {
        if let Some(r) = self.first.take() {
            return Some(r);
        }
        self.rest.next().and_then(Reg::from_raw)
    }
}

/// The units of a register (see [`Tables::units`]).
#[derive(Clone, Debug)]
pub struct UnitIter {
    /// The unit `next` returns.
    next: u16,
    /// How many units are left, `next` included.
    left: u16,
    /// The differences after `next`; empty when the units are consecutive
    /// (each is then the one before plus one).
    rest: &'static [u16],
}

impl Iterator for UnitIter {
    type Item = RegUnit;
    #[inline]
    fn next(&mut self) -> Option<RegUnit> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let u = self.next;
        self.next = match self.rest.split_first() {
            Some((&d, tail)) => {
                self.rest = tail;
                u.wrapping_add(d)
            }
            None => u.wrapping_add(1),
        };
        Some(RegUnit(u))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for UnitIter {}

/// A register class's members as a bit set (see [`Tables::member_set`]).
#[derive(Clone, Copy, Debug)]
pub struct MemberSet {
    /// Bit `r % 64` of word `r / 64 - first_word` is set for member `r`.
    words: &'static [u64],
    first_word: usize,
}

impl MemberSet {
    /// Whether `r` is a member (`MCRegisterClass::contains`).
    #[inline]
    pub fn contains(&self, r: Reg) -> bool {
        let n = r.raw() as usize;
        (n / 64)
            .checked_sub(self.first_word)
            .and_then(|w| self.words.get(w))
            .is_some_and(|x| (x >> (n % 64)) & 1 == 1)
    }
}

/// LLVM's `MCRegAliasIterator` (see [`Tables::aliases`]).
#[derive(Clone, Debug)]
pub struct AliasIter<'a, L: LaneBits + 'static> {
    tables: &'a Tables<L>,
    reg: Reg,
    include_self: bool,
    units: UnitIter,
    roots: [u16; 2],
    root: usize,
    supers: Option<RegIter>,
}

impl<L: LaneBits> AliasIter<'_, L> {
    fn advance(&mut self) -> Option<Reg> {
        loop {
            if let Some(s) = self.supers.as_mut().and_then(Iterator::next) {
                return Some(s);
            }
            self.supers = None;
            while self.root < 2 {
                let r = self.roots[self.root];
                self.root += 1;
                if let Some(r) = Reg::from_raw(r) {
                    self.supers = Some(self.tables.super_regs_inclusive(r));
                    break;
                }
            }
            if self.supers.is_some() {
                continue;
            }
            let u = self.units.next()?;
            self.roots = self
                .tables
                .unit_roots
                .get(u.index())
                .copied()
                .unwrap_or([0, 0]);
            self.root = 0;
        }
    }
}

impl<L: LaneBits> Iterator for AliasIter<'_, L> {
    type Item = Reg;
    fn next(&mut self) -> Option<Reg> {
        loop {
            let r = self.advance()?;
            if self.include_self || r != self.reg {
                return Some(r);
            }
        }
    }
}

/// The members of a register class (see [`Tables::members`]).
#[derive(Clone, Debug)]
pub struct MemberIter {
    words: &'static [u64],
    first_word: usize,
    word: usize,
    bits: u64,
}

impl Iterator for MemberIter {
    type Item = Reg;
    fn next(&mut self) -> Option<Reg> {
        loop {
            if self.bits != 0 {
                let b = self.bits.trailing_zeros() as usize;
                self.bits &= self.bits - 1;
                let n = (self.first_word + self.word - 1) * 64 + b;
                return u16::try_from(n).ok().and_then(Reg::from_raw);
            }
            self.bits = *self.words.get(self.word)?;
            self.word += 1;
        }
    }
}

/// Classes from a class bit set (see [`Tables::sub_classes`]).
#[derive(Clone, Debug)]
pub struct ClassSetIter {
    words: &'static [u64],
    word: usize,
    bits: u64,
}

impl Iterator for ClassSetIter {
    type Item = RegClass;
    fn next(&mut self) -> Option<RegClass> {
        loop {
            if self.bits != 0 {
                let b = self.bits.trailing_zeros() as usize;
                self.bits &= self.bits - 1;
                return u16::try_from((self.word - 1) * 64 + b).ok().map(RegClass);
            }
            self.bits = *self.words.get(self.word)?;
            self.word += 1;
        }
    }
}

fn bit(words: &[u64], i: usize) -> bool {
    words.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
}

impl<L: LaneBits> Tables<L> {
    // ---- registers ----------------------------------------------------------

    /// Number of registers (not counting `NoRegister`).
    pub fn num_regs(&self) -> usize {
        self.regs.len()
    }

    /// Every register, in numbering order.
    pub fn all_regs(&self) -> impl Iterator<Item = Reg> + '_ {
        (1..=self.regs.len() as u16).filter_map(Reg::from_raw)
    }

    /// The register's name (its `.td` record name).
    pub fn name(&self, r: Reg) -> &'static str {
        self.reg_names.get(r.index())
    }

    /// The register named `name`.
    pub fn reg_by_name(&self, name: &str) -> Option<Reg> {
        let k = self
            .regs_by_name
            .binary_search_by(|&r| self.name(r).cmp(name))
            .ok()?;
        Some(self.regs_by_name[k])
    }

    /// `AsmName`.
    pub fn asm_name(&self, r: Reg) -> &'static str {
        self.asm_names.get(r.index())
    }

    /// `AltNames`, in order.
    pub fn alt_names(&self, r: Reg) -> impl Iterator<Item = &'static str> + '_ {
        let i = r.index();
        let (a, b) = (
            self.alt_name_bounds.get(i).copied().unwrap_or(0) as usize,
            self.alt_name_bounds.get(i + 1).copied().unwrap_or(0) as usize,
        );
        (a..b).map(move |k| self.alt_names.get(k))
    }

    /// `HWEncoding` (LLVM's `getEncodingValue`).
    pub fn hw_encoding(&self, r: Reg) -> u16 {
        self.hw_encodings.get(r.index()).copied().unwrap_or(0)
    }

    /// `isArtificial`.
    pub fn is_artificial(&self, r: Reg) -> bool {
        bit(self.artificial, r.index())
    }

    /// `CostPerUse` in cost model `model` (0 past the last model).
    pub fn cost_per_use(&self, r: Reg, model: usize) -> u8 {
        if model >= self.num_cost_models as usize {
            return 0;
        }
        let i = model * self.regs.len() + r.index();
        self.cost_per_use.get(i).copied().unwrap_or(0)
    }

    fn desc(&self, r: Reg) -> Option<&crate::tables::RegDesc> {
        self.regs.get(r.index())
    }

    /// `r`'s sub-register at index `i` (LLVM's `getSubReg`).
    pub fn sub_reg(&self, r: Reg, i: SubRegIdx) -> Option<Reg> {
        let d = self.desc(r)?;
        let map = self
            .sub_reg_maps
            .get(d.sub_reg_map as usize..d.sub_reg_map as usize + d.num_sub_regs as usize)?;
        let k = map.binary_search_by_key(&i.raw(), |&(idx, _)| idx).ok()?;
        Reg::from_raw(r.raw().wrapping_add(map[k].1))
    }

    /// The index naming `sub` inside `r` (LLVM's `getSubRegIndex`).
    pub fn sub_reg_index(&self, r: Reg, sub: Reg) -> Option<SubRegIdx> {
        self.sub_regs_with_indices(r)
            .find(|&(_, s)| s == sub)
            .map(|(i, _)| i)
    }

    /// Every sub-register of `r` in LLVM's order (`MCSubRegIterator`).
    pub fn sub_regs(&self, r: Reg) -> RegIter {
        let rest = match self.desc(r) {
            Some(d) => DiffIter::new(self.diffs, d.sub_regs, r.raw()),
            None => DiffIter::empty(),
        };
        RegIter { first: None, rest }
    }

    /// `r`, then its sub-registers.
    pub fn sub_regs_inclusive(&self, r: Reg) -> RegIter {
        RegIter {
            first: Some(r),
            ..self.sub_regs(r)
        }
    }

    /// Every sub-register of `r` with the index naming it, in LLVM's order.
    pub fn sub_regs_with_indices(&self, r: Reg) -> impl Iterator<Item = (SubRegIdx, Reg)> + '_ {
        let start = self.desc(r).map_or(0, |d| d.sub_reg_indices as usize);
        self.sub_regs(r).enumerate().filter_map(move |(k, s)| {
            let i = *self.sub_reg_index_lists.get(start + k)?;
            Some((SubRegIdx::from_raw(i)?, s))
        })
    }

    /// Every register `r` is a sub-register of, in LLVM's order
    /// (`MCSuperRegIterator`).
    pub fn super_regs(&self, r: Reg) -> RegIter {
        let rest = match self.desc(r) {
            Some(d) => DiffIter::new(self.diffs, d.super_regs, r.raw()),
            None => DiffIter::empty(),
        };
        RegIter { first: None, rest }
    }

    /// `r`, then its super-registers.
    pub fn super_regs_inclusive(&self, r: Reg) -> RegIter {
        RegIter {
            first: Some(r),
            ..self.super_regs(r)
        }
    }

    /// The super-register of `r` in class `rc` whose `i` sub-register is `r`
    /// (LLVM's `getMatchingSuperReg`).
    pub fn matching_super_reg(&self, r: Reg, i: SubRegIdx, rc: RegClass) -> Option<Reg> {
        self.super_regs(r)
            .find(|&s| self.contains(rc, s) && self.sub_reg(s, i) == Some(r))
    }

    // ---- units ----------------------------------------------------------------

    /// Number of register units.
    pub fn num_units(&self) -> usize {
        self.unit_roots.len()
    }

    /// `r`'s register units, ascending (`MCRegUnitIterator`).
    pub fn units(&self, r: Reg) -> UnitIter {
        match self.desc(r) {
            Some(d) => {
                let consecutive =
                    u32::from(d.last_unit) + 1 == u32::from(d.first_unit) + u32::from(d.num_units);
                let rest = if consecutive || d.num_units == 0 {
                    &[]
                } else {
                    let start = d.units as usize;
                    self.diffs
                        .get(start..start + usize::from(d.num_units) - 1)
                        .unwrap_or(&[])
                };
                UnitIter {
                    next: d.first_unit,
                    left: d.num_units,
                    rest,
                }
            }
            None => UnitIter {
                next: 0,
                left: 0,
                rest: &[],
            },
        }
    }

    /// `r`'s units with the lanes of `r` each covers (`MCRegUnitMaskIterator`;
    /// an empty mask means the whole register).
    pub fn unit_lane_masks(&self, r: Reg) -> impl Iterator<Item = (RegUnit, LaneMask<L>)> + '_ {
        let start = self.desc(r).map_or(0, |d| d.unit_lane_masks as usize);
        self.units(r).enumerate().map(move |(k, u)| {
            let m = self
                .unit_lane_mask_lists
                .get(start + k)
                .copied()
                .unwrap_or(LaneMask::NONE);
            (u, m)
        })
    }

    /// The registers unit `u` is rooted at (`MCRegUnitRootIterator`).
    pub fn unit_roots(&self, u: RegUnit) -> impl Iterator<Item = Reg> {
        self.unit_roots
            .get(u.index())
            .copied()
            .unwrap_or([0, 0])
            .into_iter()
            .filter_map(Reg::from_raw)
    }

    /// Every register sharing a unit with `r`, as LLVM's `MCRegAliasIterator`
    /// yields them: unit by unit, each root's super-registers (the root
    /// first); a register can come more than once.
    pub fn aliases(&self, r: Reg, include_self: bool) -> AliasIter<'_, L> {
        AliasIter {
            tables: self,
            reg: r,
            include_self,
            units: self.units(r),
            roots: [0, 0],
            root: 2,
            supers: None,
        }
    }

    /// Whether two registers share a unit (LLVM's `regsOverlap`).
    pub fn regs_overlap(&self, a: Reg, b: Reg) -> bool {
        let (Some(da), Some(db)) = (self.desc(a), self.desc(b)) else {
            return false;
        };
        if da.last_unit < db.first_unit || db.last_unit < da.first_unit {
            return false;
        }
        let (mut ua, mut ub) = (self.units(a), self.units(b));
        let (mut x, mut y) = (ua.next(), ub.next());
        while let (Some(p), Some(q)) = (x, y) {
            match p.cmp(&q) {
                core::cmp::Ordering::Less => x = ua.next(),
                core::cmp::Ordering::Greater => y = ub.next(),
                core::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    // ---- sub-register indices ------------------------------------------------

    /// Number of sub-register indices (not counting `NoSubRegister`).
    pub fn num_sub_reg_indices(&self) -> usize {
        self.index_ranges.len()
    }

    /// Every sub-register index.
    pub fn all_sub_reg_indices(&self) -> impl Iterator<Item = SubRegIdx> + '_ {
        (1..=self.index_ranges.len() as u16).filter_map(SubRegIdx::from_raw)
    }

    /// The index's name.
    pub fn sub_reg_index_name(&self, i: SubRegIdx) -> &'static str {
        self.index_names.get(i.index())
    }

    /// The index named `name` (`sub0`, `sub2_sub3`, ...).
    pub fn sub_reg_index_by_name(&self, name: &str) -> Option<SubRegIdx> {
        self.all_sub_reg_indices()
            .find(|&i| self.sub_reg_index_name(i) == name)
    }

    /// The index's size in bits, when known.
    pub fn sub_reg_index_size(&self, i: SubRegIdx) -> Option<u16> {
        self.index_ranges
            .get(i.index())
            .map(|r| r.0)
            .filter(|&s| s != u16::MAX)
    }

    /// The index's offset in bits, when known.
    pub fn sub_reg_index_offset(&self, i: SubRegIdx) -> Option<u16> {
        self.index_ranges
            .get(i.index())
            .map(|r| r.1)
            .filter(|&s| s != u16::MAX)
    }

    /// The lanes index `i` covers (`getSubRegIndexLaneMask`).
    pub fn sub_reg_index_lane_mask(&self, i: SubRegIdx) -> LaneMask<L> {
        self.index_lane_masks
            .get(i.index())
            .copied()
            .unwrap_or(LaneMask::NONE)
    }

    /// `a ∘ b`: the index of `R:a:b` in `R` (`composeSubRegIndices`).
    pub fn compose_sub_reg_indices(&self, a: SubRegIdx, b: SubRegIdx) -> Option<SubRegIdx> {
        let n = self.index_ranges.len();
        let row = *self.compose_row_of.get(a.index())? as usize;
        let c = *self.compose_rows.get(row * n + b.index())?;
        SubRegIdx::from_raw(c)
    }

    /// Lanes of `R:i` to lanes of `R` (`composeSubRegIndexLaneMask`); `None`
    /// for the index means the register itself.
    pub fn compose_lane_mask(&self, i: Option<SubRegIdx>, mask: LaneMask<L>) -> LaneMask<L> {
        let Some(i) = i else { return mask };
        let mut out = LaneMask::NONE;
        for s in self.lane_shifts_of(i) {
            out |= shift(mask & s.mask, s.shift);
        }
        out
    }

    /// Lanes of `R` to lanes of `R:i` (`reverseComposeSubRegIndexLaneMask`).
    pub fn reverse_compose_lane_mask(
        &self,
        i: Option<SubRegIdx>,
        mask: LaneMask<L>,
    ) -> LaneMask<L> {
        let Some(i) = i else { return mask };
        let mut out = LaneMask::NONE;
        for s in self.lane_shifts_of(i) {
            out |= shift(mask & shift(s.mask, s.shift), -s.shift);
        }
        out
    }

    fn lane_shifts_of(&self, i: SubRegIdx) -> &'static [crate::tables::LaneShift<L>] {
        self.index_lane_shifts
            .get(i.index())
            .and_then(|sp| self.lane_shifts.get(sp.range()))
            .unwrap_or(&[])
    }

    /// The lanes whose indices cover every register they occur in
    /// (`getCoveringLanes`).
    pub fn covering_lanes(&self) -> LaneMask<L> {
        !self.uncovered_lanes
    }

    // ---- register classes ---------------------------------------------------

    /// Number of register classes.
    pub fn num_classes(&self) -> usize {
        self.classes.len()
    }

    /// Every register class, in LLVM's order.
    pub fn all_classes(&self) -> impl Iterator<Item = RegClass> + '_ {
        (0..self.classes.len() as u16).map(RegClass)
    }

    fn class(&self, c: RegClass) -> Option<&ClassDesc<L>> {
        self.classes.get(c.index())
    }

    /// The class's name.
    pub fn class_name(&self, c: RegClass) -> &'static str {
        self.class_names.get(c.index())
    }

    /// The class named `name`.
    pub fn class_by_name(&self, name: &str) -> Option<RegClass> {
        self.all_classes().find(|&c| self.class_name(c) == name)
    }

    /// Whether `r` is a member of `c`.
    pub fn contains(&self, c: RegClass, r: Reg) -> bool {
        self.member_set(c).contains(r)
    }

    /// `c`'s members as a bit set, looked up once for many
    /// [`MemberSet::contains`] tests (LLVM's `MCRegisterClass`).
    pub fn member_set(&self, c: RegClass) -> MemberSet {
        match self.class(c) {
            Some(d) => MemberSet {
                words: self
                    .class_words
                    .get(d.members as usize..d.members as usize + d.num_words as usize)
                    .unwrap_or(&[]),
                first_word: d.first_word as usize,
            },
            None => MemberSet {
                words: &[],
                first_word: 0,
            },
        }
    }

    /// The members of `c`, ascending.
    pub fn members(&self, c: RegClass) -> MemberIter {
        let (words, first_word) = match self.class(c) {
            Some(d) => (
                self.class_words
                    .get(d.members as usize..d.members as usize + d.num_words as usize)
                    .unwrap_or(&[]),
                d.first_word as usize,
            ),
            None => (&[][..], 0),
        };
        MemberIter {
            words,
            first_word,
            word: 0,
            bits: 0,
        }
    }

    /// How many registers `c` holds.
    pub fn num_members(&self, c: RegClass) -> usize {
        self.class(c).map_or(0, |d| d.num_members as usize)
    }

    /// How many allocation orders `c` has (the default one and `AltOrders`).
    pub fn num_allocation_orders(&self, c: RegClass) -> usize {
        self.class(c).map_or(0, |d| d.orders.len as usize)
    }

    /// Allocation order `k` of `c` (0: the default order).
    pub fn allocation_order(&self, c: RegClass, k: usize) -> &'static [Reg] {
        self.class(c)
            .and_then(|d| self.orders.get(d.orders.range()))
            .and_then(|o| o.get(k))
            .and_then(|sp| self.order_regs.get(sp.range()))
            .unwrap_or(&[])
    }

    /// The lanes `c`'s registers have (`getLaneMask`).
    pub fn class_lane_mask(&self, c: RegClass) -> LaneMask<L> {
        self.class(c).map_or(LaneMask::NONE, |d| d.lane_mask)
    }

    /// Sizes of `c` in hardware mode `mode` (the default mode's when the
    /// mode is unknown).
    pub fn spill_info(&self, c: RegClass, mode: HwMode) -> SpillInfo {
        let n = self.classes.len();
        let at = |m: usize| self.spill.get(m * n + c.index()).copied();
        at(mode.0 as usize).or_else(|| at(0)).unwrap_or(SpillInfo {
            reg_size: 0,
            spill_size: 0,
            spill_alignment: 0,
        })
    }

    /// `CopyCost`.
    pub fn copy_cost(&self, c: RegClass) -> i16 {
        self.class(c).map_or(0, |d| d.copy_cost)
    }

    /// `isAllocatable`.
    pub fn is_allocatable(&self, c: RegClass) -> bool {
        self.class(c).is_some_and(|d| d.allocatable)
    }

    /// `AllocationPriority`.
    pub fn allocation_priority(&self, c: RegClass) -> u8 {
        self.class(c).map_or(0, |d| d.allocation_priority)
    }

    fn class_mask(&self, offset: u32) -> &'static [u64] {
        let n = self.class_mask_words as usize;
        self.class_masks
            .get(offset as usize..offset as usize + n)
            .unwrap_or(&[])
    }

    /// Whether `sub` is `sup` or one of its sub-classes (`hasSubClassEq`).
    pub fn has_sub_class_eq(&self, sup: RegClass, sub: RegClass) -> bool {
        self.class(sup)
            .is_some_and(|d| bit(self.class_mask(d.sub_classes), sub.index()))
    }

    /// `c` and every sub-class of it, in class order.
    pub fn sub_classes(&self, c: RegClass) -> ClassSetIter {
        ClassSetIter {
            words: self
                .class(c)
                .map_or(&[][..], |d| self.class_mask(d.sub_classes)),
            word: 0,
            bits: 0,
        }
    }

    /// The strict super-classes of `c`, in class order.
    pub fn super_classes(&self, c: RegClass) -> &'static [RegClass] {
        self.class(c)
            .and_then(|d| self.class_lists.get(d.super_classes.range()))
            .unwrap_or(&[])
    }

    /// The largest sub-class of `c` whose registers all have index `i`
    /// (`getSubClassWithSubReg`).
    pub fn sub_class_with_sub_reg(&self, c: RegClass, i: SubRegIdx) -> Option<RegClass> {
        let d = self.class(c)?;
        let n = self.index_ranges.len();
        let v = *self
            .sub_class_with_sub_reg
            .get(d.sub_class_with_sub_reg_row as usize * n + i.index())?;
        v.checked_sub(1).map(RegClass)
    }

    fn first_common(&self, a: &[u64], b: &[u64]) -> Option<RegClass> {
        a.iter()
            .zip(b)
            .enumerate()
            .find_map(|(w, (x, y))| {
                let c = x & y;
                (c != 0).then(|| w * 64 + c.trailing_zeros() as usize)
            })
            .and_then(|k| u16::try_from(k).ok())
            .map(RegClass)
    }

    /// The largest class that is a sub-class of both (`getCommonSubClass`).
    pub fn common_sub_class(&self, a: RegClass, b: RegClass) -> Option<RegClass> {
        if a == b {
            return self.class(a).map(|_| a);
        }
        let (da, db) = (self.class(a)?, self.class(b)?);
        self.first_common(
            self.class_mask(da.sub_classes),
            self.class_mask(db.sub_classes),
        )
    }

    /// The largest sub-class of `a` whose registers' `i` sub-registers all
    /// lie in `b` (`getMatchingSuperRegClass`).
    pub fn matching_super_reg_class(
        &self,
        a: RegClass,
        b: RegClass,
        i: SubRegIdx,
    ) -> Option<RegClass> {
        let (da, db) = (self.class(a)?, self.class(b)?);
        let entries = self.super_reg_classes.get(db.super_reg_classes.range())?;
        let &(_, mask) = entries.iter().find(|&&(idx, _)| idx == i.raw())?;
        self.first_common(self.class_mask(mask), self.class_mask(da.sub_classes))
    }

    /// The smallest class holding `r` (LLVM's `getMinimalPhysRegClass`
    /// without a value type).
    pub fn minimal_class(&self, r: Reg) -> Option<RegClass> {
        let mut best: Option<RegClass> = None;
        for c in self.all_classes() {
            if self.contains(c, r) && best.is_none_or(|b| self.has_sub_class_eq(b, c)) {
                best = Some(c);
            }
        }
        best
    }

    // ---- pressure -----------------------------------------------------------

    /// Number of register pressure sets.
    pub fn num_pressure_sets(&self) -> usize {
        self.pressure_set_limits.len()
    }

    /// A pressure set's name.
    pub fn pressure_set_name(&self, p: PressureSet) -> &'static str {
        self.pressure_set_names.get(p.index())
    }

    /// How many register units of weight 1 the set can hold
    /// (`getRegPressureSetLimit`).
    pub fn pressure_set_limit(&self, p: PressureSet) -> u32 {
        self.pressure_set_limits
            .get(p.index())
            .copied()
            .unwrap_or(0)
    }

    fn pressure_sets(&self, sp: crate::tables::Span) -> impl Iterator<Item = PressureSet> + '_ {
        self.pressure_set_lists
            .get(sp.range())
            .unwrap_or(&[])
            .iter()
            .map(|&p| PressureSet(p))
    }

    /// The pressure sets a class's registers count toward
    /// (`getRegClassPressureSets`).
    pub fn class_pressure_sets(&self, c: RegClass) -> impl Iterator<Item = PressureSet> + '_ {
        let sp = self
            .class(c)
            .map_or(crate::tables::Span { start: 0, len: 0 }, |d| {
                d.pressure_sets
            });
        self.pressure_sets(sp)
    }

    /// The pressure sets a unit counts toward (`getRegUnitPressureSets`).
    pub fn unit_pressure_sets(&self, u: RegUnit) -> impl Iterator<Item = PressureSet> + '_ {
        let sp = self
            .unit_pressure_sets
            .get(u.index())
            .copied()
            .unwrap_or(crate::tables::Span { start: 0, len: 0 });
        self.pressure_sets(sp)
    }

    /// `(RegWeight, WeightLimit)` of a class (`getRegClassWeight`).
    pub fn class_weight(&self, c: RegClass) -> (u32, u32) {
        self.class(c).map_or((0, 0), |d| (d.weight, d.weight_limit))
    }

    /// A unit's weight (`getRegUnitWeight`).
    pub fn unit_weight(&self, u: RegUnit) -> u32 {
        self.unit_weights.get(u.index()).copied().unwrap_or(0)
    }
}

fn shift<L: LaneBits>(m: LaneMask<L>, by: i16) -> LaneMask<L> {
    if by >= 0 {
        LaneMask(m.0.shl(by as u32))
    } else {
        LaneMask(m.0.shr(by.unsigned_abs() as u32))
    }
}
