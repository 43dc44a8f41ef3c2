//! The Rust half of the regdesc oracle: prints the canonical text of
//! `tests/oracle/README.md` from regdesc's generated tables, through the
//! public query API of `regdesc-runtime` only, exactly as `harness.cpp`
//! prints it from LLVM 14's MCRegisterInfo and TargetRegisterInfo.
//!
//! This file is the library of the scratch crates `tests/common/oracle_rust.rs`
//! builds under `target/`: each per-description binary's `main` calls
//! [`main`] with its `TABLES`. The entry points are instantiated here for
//! every primitive lane width, so this crate (built optimized, once) holds
//! all of the dumper's code and the per-description crates only their data.
//!
//! Where LLVM's harness stops on an invariant it relies on (for example the
//! inclusive sub-register iterator not starting with the register), this
//! side prints a `!! ...` line in place, so that the comparison fails there.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;

use regdesc_runtime::{HwMode, LaneBits, LaneMask, Reg, RegClass, RegUnit, SubRegIdx, Tables};

/// The text format's version (README.md); bump it with every change.
const FORMAT_VERSION: u32 = 2;

/// Tables the dumper can print (every primitive lane width).
pub trait Dump {
    /// The canonical text.
    fn canonical_text(&self) -> String;
}

macro_rules! dump_impl {
    ($($t:ty),*) => {$(
        impl Dump for Tables<$t> {
            fn canonical_text(&self) -> String {
                Printer::new(self).print()
            }
        }
    )*};
}

dump_impl!(u32, u64, u128);

/// The binary's `main`: the canonical text on stdout (exit status 2 when
/// it cannot be written).
pub fn main(tables: &dyn Dump) {
    let text = tables.canonical_text();
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        eprintln!("oracle dump: cannot write the output");
        std::process::exit(2);
    }
}

/// A lane mask as LLVM's 64-bit `LaneBitmask` prints it (16 hex digits).
/// Storage narrower than 64 bits has no lanes past its width; where LLVM's
/// mask sets every bit (the covering lanes), those lanes are set too.
fn hex<L: LaneBits>(m: LaneMask<L>, fill_above: bool) -> String {
    let mut w = m.word(0);
    if fill_above && L::BITS < 64 {
        w |= u64::MAX << L::BITS;
    }
    format!("{w:016X}")
}

/// Numbers in the given order, each maximal run of consecutive numbers
/// written `N-M`, each with a leading space (harness.cpp's `runs`).
fn runs(numbers: impl IntoIterator<Item = u32>) -> String {
    let v: Vec<u32> = numbers.into_iter().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j].wrapping_add(1) {
            j += 1;
        }
        let _ = write!(out, " {}", v[i]);
        if j > i {
            let _ = write!(out, "-{}", v[j]);
        }
        i = j + 1;
    }
    out
}

fn reg_num(r: Reg) -> u32 {
    u32::from(r.raw())
}

fn class_num(c: RegClass) -> u32 {
    u32::from(c.0)
}

struct Printer<'t, L: LaneBits + 'static> {
    t: &'t Tables<L>,
    out: String,
}

impl<'t, L: LaneBits> Printer<'t, L> {
    fn new(t: &'t Tables<L>) -> Self {
        Printer {
            t,
            out: String::with_capacity(1 << 20),
        }
    }

    fn section(&mut self, name: &str) {
        self.out.push_str("== ");
        self.out.push_str(name);
        self.out.push('\n');
    }

    fn head(&mut self, line: &str) {
        self.out.push_str(line);
        self.out.push('\n');
    }

    fn line(&mut self, line: &str) {
        self.out.push_str("  ");
        self.out.push_str(line);
        self.out.push('\n');
    }

    fn violation(&mut self, what: &str) {
        self.line(&format!("!! {what}"));
    }

    fn print(mut self) -> String {
        self.summary();
        self.hw_modes();
        self.sub_reg_indices();
        self.compose_sub_reg_indices();
        self.lane_mask_compose();
        self.registers();
        self.register_units();
        self.matching_super_registers();
        self.register_classes();
        self.common_sub_classes();
        self.matching_super_reg_classes();
        self.pressure_sets();
        self.out
    }

    fn index_name(&self, i: SubRegIdx) -> &'static str {
        self.t.sub_reg_index_name(i)
    }

    fn summary(&mut self) {
        let t = self.t;
        self.section("summary");
        self.head(&format!("format {FORMAT_VERSION}"));
        self.head(&format!("target {}", t.target));
        self.head(&format!("registers {}", t.num_regs()));
        self.head(&format!("register-units {}", t.num_units()));
        self.head(&format!("sub-register-indices {}", t.num_sub_reg_indices()));
        self.head(&format!("register-classes {}", t.num_classes()));
        self.head(&format!("hw-modes {}", t.hw_modes.len()));
        self.head(&format!("cost-tables {}", t.num_cost_models));
        self.head(&format!("covering-lanes {}", hex(t.covering_lanes(), true)));
    }

    fn hw_modes(&mut self) {
        self.section("hw-modes");
        for m in 0..self.t.hw_modes.len() {
            let name = self.t.hw_modes.get(m);
            self.head(&format!("hw-mode {m} {name}"));
        }
    }

    fn index_head(&mut self, i: SubRegIdx) {
        let name = self.index_name(i);
        self.head(&format!("index {} {name}", i.raw()));
    }

    fn sub_reg_indices(&mut self) {
        let t = self.t;
        self.section("sub-register-indices");
        for i in t.all_sub_reg_indices() {
            self.index_head(i);
            let size = t.sub_reg_index_size(i).unwrap_or(u16::MAX);
            let offset = t.sub_reg_index_offset(i).unwrap_or(u16::MAX);
            self.line(&format!("size {size}"));
            self.line(&format!("offset {offset}"));
            self.line(&format!(
                "lane-mask {}",
                hex(t.sub_reg_index_lane_mask(i), false)
            ));
        }
    }

    /// harness.cpp's `legalCompositions`: for each index A, the indices B
    /// with R:A:B existing for some register R, ascending (by number).
    fn legal_compositions(&self) -> Vec<Vec<SubRegIdx>> {
        let t = self.t;
        let mut shapes: Vec<Vec<SubRegIdx>> = Vec::new();
        let mut shape_ids: BTreeMap<Vec<SubRegIdx>, usize> = BTreeMap::new();
        let mut shape_of = vec![0usize; t.num_regs() + 1];
        for r in t.all_regs() {
            let mut indices: Vec<SubRegIdx> = t.sub_regs_with_indices(r).map(|(i, _)| i).collect();
            indices.sort();
            let next = shapes.len();
            let id = *shape_ids.entry(indices.clone()).or_insert(next);
            if id == next {
                shapes.push(indices);
            }
            shape_of[usize::from(r.raw())] = id;
        }
        let mut shapes_at: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); t.num_sub_reg_indices() + 1];
        for r in t.all_regs() {
            for (i, s) in t.sub_regs_with_indices(r) {
                shapes_at[usize::from(i.raw())].insert(shape_of[usize::from(s.raw())]);
            }
        }
        shapes_at
            .iter()
            .map(|at| {
                let all: BTreeSet<SubRegIdx> = at.iter().flat_map(|&k| shapes[k].iter().copied()).collect();
                all.into_iter().collect()
            })
            .collect()
    }

    fn compose_sub_reg_indices(&mut self) {
        let t = self.t;
        self.section("compose-sub-register-indices");
        let legal = self.legal_compositions();
        for a in t.all_sub_reg_indices() {
            self.index_head(a);
            for &b in &legal[usize::from(a.raw())] {
                let c = t.compose_sub_reg_indices(a, b).map_or("-", |c| self.index_name(c));
                let line = format!("{} {c}", self.index_name(b));
                self.line(&line);
            }
        }
    }

    /// harness.cpp's `composeDomains`: for each index I, the lanes of the
    /// leaf indices A with R:I:A existing; lane 0 for a leaf index.
    fn compose_domains(&self, legal: &[Vec<SubRegIdx>]) -> Vec<LaneMask<L>> {
        let t = self.t;
        let mut domain = vec![LaneMask::<L>::NONE; t.num_sub_reg_indices() + 1];
        for i in t.all_sub_reg_indices() {
            let k = usize::from(i.raw());
            if legal[k].is_empty() {
                domain[k] = LaneMask::lane(0);
            }
            for &a in &legal[k] {
                if legal[usize::from(a.raw())].is_empty() {
                    domain[k] |= t.sub_reg_index_lane_mask(a);
                }
            }
        }
        domain
    }

    /// harness.cpp's `laneMaskCompose`: composition on each index's domain,
    /// each lane alone then all; reverse composition of each answer, within
    /// the domain.
    fn lane_mask_compose(&mut self) {
        let t = self.t;
        self.section("lane-mask-compose");
        let legal = self.legal_compositions();
        let domain = self.compose_domains(&legal);
        for i in t.all_sub_reg_indices() {
            self.index_head(i);
            let d = domain[usize::from(i.raw())];
            let mut probes: Vec<LaneMask<L>> = d.lanes().map(LaneMask::lane).collect();
            if d.any() {
                probes.push(d);
            }
            let mut answers = Vec::new();
            for p in probes {
                let r = t.compose_lane_mask(Some(i), p);
                answers.push(r);
                self.line(&format!("compose {} {}", hex(p, false), hex(r, false)));
            }
            for y in answers {
                let x = t.reverse_compose_lane_mask(Some(i), y) & d;
                self.line(&format!("reverse {} {}", hex(y, false), hex(x, false)));
            }
        }
    }

    fn register_head(&mut self, r: Reg) {
        let name = self.t.name(r);
        self.head(&format!("register {} {name}", r.raw()));
    }

    fn registers(&mut self) {
        let t = self.t;
        self.section("registers");
        let allocatable: Vec<RegClass> = t.all_classes().filter(|&c| t.is_allocatable(c)).collect();
        for r in t.all_regs() {
            self.register_head(r);
            self.line(&format!("encoding {}", t.hw_encoding(r)));
            let mut line = String::from("cost-per-use");
            for k in 0..usize::from(t.num_cost_models) {
                let _ = write!(line, " {}", t.cost_per_use(r, k));
            }
            self.line(&line);
            let in_allocatable = allocatable.iter().any(|&c| t.contains(c, r));
            self.line(&format!("in-allocatable-class {in_allocatable}"));
            self.sub_registers(r);
            self.super_registers(r);
            self.units(r);
            self.aliases(r);
            let overlaps = t
                .all_regs()
                .filter(|&s| t.regs_overlap(r, s))
                .map(reg_num);
            self.line(&format!("overlaps{}", runs(overlaps)));
            let mut line = String::from("sub-register-by-index");
            for i in t.all_sub_reg_indices() {
                if let Some(s) = t.sub_reg(r, i) {
                    let _ = write!(line, " {}:{}", self.index_name(i), s.raw());
                }
            }
            self.line(&line);
        }
    }

    fn sub_registers(&mut self, r: Reg) {
        let t = self.t;
        let subs: Vec<Reg> = t.sub_regs(r).collect();
        let with_self: Vec<Reg> = t.sub_regs_inclusive(r).collect();
        if with_self.first() != Some(&r) || with_self[1..] != subs[..] {
            self.violation("sub_regs_inclusive is not the register followed by sub_regs");
        }
        let with_indices: Vec<(SubRegIdx, Reg)> = t.sub_regs_with_indices(r).collect();
        if with_indices.len() != subs.len()
            || with_indices.iter().zip(&subs).any(|((_, a), b)| a != b)
        {
            self.violation("sub_regs_with_indices disagrees with sub_regs");
        }
        let mut line = String::from("sub-registers");
        for &s in &subs {
            let name = t.sub_reg_index(r, s).map_or("-", |i| self.index_name(i));
            let _ = write!(line, " {}:{name}", s.raw());
        }
        self.line(&line);
        if with_indices
            .iter()
            .any(|&(i, s)| t.sub_reg_index(r, s) != Some(i))
        {
            self.violation("sub_regs_with_indices disagrees with sub_reg_index");
        }
    }

    fn super_registers(&mut self, r: Reg) {
        let t = self.t;
        let supers: Vec<Reg> = t.super_regs(r).collect();
        let with_self: Vec<Reg> = t.super_regs_inclusive(r).collect();
        if with_self.first() != Some(&r) || with_self[1..] != supers[..] {
            self.violation("super_regs_inclusive is not the register followed by super_regs");
        }
        self.line(&format!(
            "super-registers{}",
            runs(supers.into_iter().map(reg_num))
        ));
    }

    fn units(&mut self, r: Reg) {
        let t = self.t;
        let units: Vec<RegUnit> = t.units(r).collect();
        let masks: Vec<(RegUnit, LaneMask<L>)> = t.unit_lane_masks(r).collect();
        if masks.len() != units.len() || masks.iter().zip(&units).any(|((a, _), b)| a != b) {
            self.violation("unit_lane_masks disagrees with units");
        }
        let mut line = String::from("units");
        for (u, m) in masks {
            let _ = write!(line, " {}:{}", u.0, hex(m, false));
        }
        self.line(&line);
    }

    fn aliases(&mut self, r: Reg) {
        let t = self.t;
        let collect = |include_self: bool| {
            let mut v: Vec<Reg> = t.aliases(r, include_self).collect();
            v.sort();
            v.dedup();
            v
        };
        let with_self = collect(true);
        let others = collect(false);
        if with_self.binary_search(&r).is_err() {
            self.violation("aliases with self does not yield the register");
        }
        if others != with_self.iter().copied().filter(|&a| a != r).collect::<Vec<_>>() {
            self.violation("aliases without self is not the set with self less the register");
        }
        self.line(&format!(
            "aliases{}",
            runs(with_self.into_iter().map(reg_num))
        ));
    }

    fn register_units(&mut self) {
        let t = self.t;
        self.section("register-units");
        for u in 0..t.num_units() {
            let Ok(n) = u16::try_from(u) else { break };
            self.head(&format!("unit {u}"));
            let roots = runs(t.unit_roots(RegUnit(n)).map(reg_num));
            self.line(&format!("roots{roots}"));
        }
    }

    /// harness.cpp's `matchingSuperRegisters`: the candidate (index, class)
    /// pairs, each asked; every triple on small targets.
    fn matching_super_registers(&mut self) {
        let t = self.t;
        self.section("matching-super-registers");
        let mut classes_of: Vec<Vec<RegClass>> = vec![Vec::new(); t.num_regs() + 1];
        for c in t.all_classes() {
            for r in t.all_regs() {
                if t.contains(c, r) {
                    classes_of[usize::from(r.raw())].push(c);
                }
            }
        }
        let exhaustive = (t.num_regs() as u64 + 1)
            * (t.num_sub_reg_indices() as u64 + 1)
            * t.num_classes() as u64
            <= 1 << 22;
        for r in t.all_regs() {
            self.register_head(r);
            let mut candidates: Vec<(SubRegIdx, RegClass)> = Vec::new();
            for s in t.super_regs(r) {
                for (i, sub) in t.sub_regs_with_indices(s) {
                    if sub == r {
                        for &c in &classes_of[usize::from(s.raw())] {
                            candidates.push((i, c));
                        }
                    }
                }
            }
            candidates.sort();
            candidates.dedup();
            let mut answers: Vec<(SubRegIdx, Reg, RegClass)> = candidates
                .iter()
                .filter_map(|&(i, c)| t.matching_super_reg(r, i, c).map(|s| (i, s, c)))
                .collect();
            answers.sort();
            let mut k = 0;
            while k < answers.len() {
                let (i, s, _) = answers[k];
                let mut classes = Vec::new();
                while k < answers.len() && answers[k].0 == i && answers[k].1 == s {
                    classes.push(class_num(answers[k].2));
                    k += 1;
                }
                let line = format!("{} {}{}", self.index_name(i), s.raw(), runs(classes));
                self.line(&line);
            }
            if !exhaustive {
                continue;
            }
            for i in t.all_sub_reg_indices() {
                for c in t.all_classes() {
                    if candidates.binary_search(&(i, c)).is_err()
                        && t.matching_super_reg(r, i, c).is_some()
                    {
                        let what = format!(
                            "matching_super_reg({}, {}, {}) answers outside the candidates",
                            t.name(r),
                            self.index_name(i),
                            t.class_name(c)
                        );
                        self.violation(&what);
                    }
                }
            }
        }
    }

    fn class_head(&mut self, c: RegClass) {
        let name = self.t.class_name(c);
        self.head(&format!("class {} {name}", c.0));
    }

    fn register_classes(&mut self) {
        let t = self.t;
        self.section("register-classes");
        let modes = t.hw_modes.len();
        for c in t.all_classes() {
            self.class_head(c);
            let members: Vec<Reg> = t.all_regs().filter(|&r| t.contains(c, r)).collect();
            let listed: Vec<Reg> = t.members(c).collect();
            if listed != members || t.num_members(c) != members.len() {
                self.violation("members disagrees with contains");
            }
            self.line(&format!(
                "contains{}",
                runs(members.into_iter().map(reg_num))
            ));
            for k in 0..t.num_allocation_orders(c).max(1) {
                let order = runs(t.allocation_order(c, k).iter().map(|&r| reg_num(r)));
                self.line(&format!("order {k}{order}"));
            }
            self.line(&format!("lane-mask {}", hex(t.class_lane_mask(c), false)));
            self.line(&format!("copy-cost {}", t.copy_cost(c)));
            self.line(&format!("allocatable {}", t.is_allocatable(c)));
            self.line(&format!("allocation-priority {}", t.allocation_priority(c)));
            for m in 0..modes {
                let Ok(mode) = u16::try_from(m) else { break };
                let s = t.spill_info(c, HwMode(mode));
                self.line(&format!(
                    "mode {m} reg-size {} spill-size {} spill-align {}",
                    s.reg_size, s.spill_size, s.spill_alignment
                ));
            }
            let supers = runs(t.super_classes(c).iter().map(|&s| class_num(s)));
            self.line(&format!("super-classes{supers}"));
            let subs: Vec<u32> = t
                .all_classes()
                .filter(|&b| t.has_sub_class_eq(c, b))
                .map(class_num)
                .collect();
            if t.sub_classes(c).map(class_num).collect::<Vec<_>>() != subs {
                self.violation("sub_classes disagrees with has_sub_class_eq");
            }
            self.line(&format!("sub-classes{}", runs(subs)));
            let mut line = String::from("sub-class-with-sub-reg");
            for i in t.all_sub_reg_indices() {
                if let Some(s) = t.sub_class_with_sub_reg(c, i) {
                    let _ = write!(line, " {}:{}", self.index_name(i), s.0);
                }
            }
            self.line(&line);
        }
    }

    fn common_sub_classes(&mut self) {
        let t = self.t;
        self.section("common-sub-classes");
        for c in t.all_classes() {
            self.class_head(c);
            for b in t.all_classes() {
                if let Some(s) = t.common_sub_class(c, b) {
                    self.line(&format!("{} {}", b.0, s.0));
                }
            }
        }
    }

    fn matching_super_reg_classes(&mut self) {
        let t = self.t;
        self.section("matching-super-reg-classes");
        for c in t.all_classes() {
            self.class_head(c);
            for b in t.all_classes() {
                let mut answers: Vec<(RegClass, SubRegIdx)> = t
                    .all_sub_reg_indices()
                    .filter_map(|i| t.matching_super_reg_class(c, b, i).map(|s| (s, i)))
                    .collect();
                answers.sort();
                let mut k = 0;
                while k < answers.len() {
                    let s = answers[k].0;
                    let mut line = format!("{} {}", b.0, s.0);
                    while k < answers.len() && answers[k].0 == s {
                        let _ = write!(line, " {}", self.index_name(answers[k].1));
                        k += 1;
                    }
                    self.line(&line);
                }
            }
        }
    }

    fn pressure_sets(&mut self) {
        let t = self.t;
        self.section("pressure-sets");
        let n = t.num_pressure_sets();
        self.head(&format!("pressure-sets {n}"));
        for p in 0..n {
            let Ok(k) = u16::try_from(p) else { break };
            let set = regdesc_runtime::PressureSet(k);
            self.head(&format!("pressure-set {p} {}", t.pressure_set_name(set)));
            self.line(&format!("limit {}", t.pressure_set_limit(set)));
        }
        for u in 0..t.num_units() {
            let Ok(k) = u16::try_from(u) else { break };
            let unit = RegUnit(k);
            self.head(&format!("unit {u}"));
            // LLVM 14 emits unit weights into a `uint8_t` table (its "RegUnit
            // too heavy" assertion is off in release builds), so a weight
            // above 255 reads back modulo 256; `tests/pressure_sets.rs` holds
            // the true weights to llvm-tblgen's emitted text.
            self.line(&format!("weight {}", t.unit_weight(unit) % 256));
            let sets = runs(t.unit_pressure_sets(unit).map(|p| u32::from(p.0)));
            self.line(&format!("pressure-sets{sets}"));
        }
        for c in t.all_classes() {
            self.class_head(c);
            let (w, limit) = t.class_weight(c);
            self.line(&format!("weight {w} {limit}"));
            let sets = runs(t.class_pressure_sets(c).map(|p| u32::from(p.0)));
            self.line(&format!("pressure-sets{sets}"));
        }
    }
}
