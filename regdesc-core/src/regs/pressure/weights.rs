//! Register unit weights, evened out over each "uber set" of registers, as
//! LLVM 14's `computeRegUnitWeights` does.
//!
//! The registers of overlapping allocatable classes form one uber set (the
//! transitive closure of "shares a member with"); registers in no
//! allocatable class form set 0, which is left alone. The goal: every
//! register of an uber set weighs the same, a register's weight being the
//! sum of its units' weights. Each unit of a register in a set starts at
//! weight 1 (artificial units stay at 0); a set weighs as much as its
//! heaviest register. Then, until nothing changes, every register is
//! visited with its sub-registers first (in index order, each once per
//! visit of a top-level register):
//! - it takes on the units its sub-registers have and it lacks (units
//!   adopted by a sub-register, or alias units added after it was built);
//! - a register lighter than its set gets the difference: on its single
//!   unit when it has exactly one, that unit was not already taken into
//!   account by a sub-register in this visit, and no single-unit register of
//!   the set already weighs exactly the set's weight through it; otherwise on
//!   a new, "adopted" unit. Adopted units only carry weight: they are not
//!   native units, do not alias, and are not in the emitted unit tables.
//!
//! LLVM's results, without LLVM's repeated work: set weights are recomputed
//! only for the sets a change can affect; a register takes on only the
//! units of sub-registers that grew since it last looked; and a walk skips
//! the sub-registers whose steps did nothing at the current state (a
//! generation counter tells states apart), since repeating them would do
//! nothing again.
//! An artificial single unit cannot take weight: llvm-tblgen then loops
//! forever, which is reported as [`RegsError::UnitWeights`].
//!
//! The weights read the bank through a [`Graph`] (a copy of what they need),
//! so that they can be computed while class inference changes the bank.

use rustc_hash::FxHashSet as HashSet;

use super::super::{RegBank, RegId, RegUnitId, RegsError};
use super::graph::Graph;

/// The weights of every unit and the units each register ends up with.
#[derive(Clone, Debug, Default)]
pub(crate) struct UnitWeights {
    /// Weight of each unit: the native units, then the adopted ones.
    pub weights: Vec<u32>,
    /// Whether each native unit is artificial (one of its roots is).
    pub artificial: Vec<bool>,
    /// Per register: its units beyond its native ones (units taken from
    /// sub-registers, adopted units), sorted.
    pub extra: Vec<Vec<RegUnitId>>,
}

impl UnitWeights {
    /// Whether unit `u` (native or adopted) is artificial.
    pub fn is_artificial(&self, u: RegUnitId) -> bool {
        self.artificial.get(u as usize).copied().unwrap_or(false)
    }

    /// Every unit of `r`: its native units, then its extra ones.
    pub fn units<'a>(
        &'a self,
        bank: &'a RegBank,
        r: RegId,
    ) -> impl Iterator<Item = RegUnitId> + 'a {
        bank.reg(r)
            .units
            .iter()
            .chain(&self.extra[r as usize])
            .copied()
    }

    /// The sum of `r`'s unit weights (LLVM's `CodeGenRegister::getWeight`).
    pub fn reg_weight(&self, bank: &RegBank, r: RegId) -> u32 {
        self.weight_of(&bank.reg(r).units, r)
    }

    /// [`UnitWeights::reg_weight`] of `r`, whose native units are `native`.
    fn weight_of(&self, native: &[RegUnitId], r: RegId) -> u32 {
        // 32-bit sums that wrap, as LLVM's `unsigned` ones do: some inputs
        // only settle once their weights wrap.
        native
            .iter()
            .chain(&self.extra[r as usize])
            .fold(0u32, |a, &u| a.wrapping_add(self.weights[u as usize]))
    }
}

/// Unit weights that never settle: the register to blame, and why.
#[derive(Debug)]
pub(crate) struct Unsettled {
    pub register: RegId,
    pub why: String,
}

impl Unsettled {
    pub fn into_error(self, bank: &RegBank) -> RegsError {
        let reg = bank.reg(self.register);
        RegsError::UnitWeights {
            register: reg.name.clone(),
            why: self.why,
            span: reg.span,
        }
    }
}

/// One uber set.
#[derive(Default)]
struct UberSet {
    regs: Vec<RegId>,
    /// The weight of its heaviest register.
    weight: u32,
    /// Units that are the single unit of a register weighing exactly
    /// `weight` (at some point): they must not be made heavier.
    singular: HashSet<RegUnitId>,
}

struct Normalizer<'a> {
    /// The registers. Their sub-registers are flat lists: the walks scan
    /// millions of them, mostly to skip ones already visited.
    g: &'a Graph,
    /// The walk's stack: (register, next place in the sub-register lists).
    stack: Vec<(RegId, usize)>,
    /// By unit: the `mark` of the last [`Normalizer::inherit_units`] that
    /// saw it.
    unit_mark: Vec<u32>,
    mark: u32,
    /// The units [`Normalizer::inherit_units`] adds.
    add: Vec<RegUnitId>,
    w: UnitWeights,
    /// Per register: native units of its sub-registers that its own native
    /// list lacks (alias units added to a sub-register after it was built).
    missing: Vec<Vec<RegUnitId>>,
    /// Per register: its uber set (0: in no allocatable class).
    uber_of: Vec<usize>,
    ubers: Vec<UberSet>,
    /// Per register: the visit (of a top-level register) that reached it.
    visit_of: Vec<u32>,
    visit: u32,
    /// Registers finished in the current visit, in order (their units are
    /// LLVM's `NormalUnits`).
    finished: Vec<RegId>,
    /// Whether the current round asked for another (LLVM's `Changed`).
    changed: bool,
    /// Whether the current round changed anything at all.
    progressed: bool,
    /// The last register whose artificial single unit could not take weight.
    stuck: Option<RegId>,
    /// Counts changes of the state (weights, units, set weights, singular
    /// units): equal generations mean equal states.
    generation: u64,
    /// Per register: the `generation` at which its step did nothing.
    clean_at: Vec<Option<u64>>,
    /// Per register: the `generation` at which its step and those of all
    /// its sub-registers did nothing: visiting it again at that generation
    /// changes nothing, so the walk can skip it.
    subtree_clean_at: Vec<Option<u64>>,
    /// Per register: the `generation` of the last growth of its extra units.
    grown_at: Vec<u64>,
    /// Per register: the `generation` when it last took its sub-registers'
    /// units (`None`: never).
    inherited_at: Vec<Option<u64>>,
}

/// Computes the weight of every unit of the registers of `g`.
#[inline(never)]
pub(super) fn compute(g: &Graph) -> Result<UnitWeights, Unsettled> {
    let n = g.len();
    let artificial: Vec<bool> = (0..g.num_units() as RegUnitId)
        .map(|u| g.roots(u).any(|r| g.artificial(r)))
        .collect();
    let mut nz = Normalizer {
        g,
        stack: Vec::new(),
        unit_mark: Vec::new(),
        mark: 0,
        add: Vec::new(),
        w: UnitWeights {
            weights: vec![0; g.num_units()],
            artificial,
            extra: vec![Vec::new(); n],
        },
        missing: missing_units(g),
        uber_of: Vec::new(),
        ubers: Vec::new(),
        visit_of: vec![0; n],
        visit: 0,
        finished: Vec::new(),
        changed: false,
        progressed: false,
        stuck: None,
        generation: 0,
        clean_at: vec![None; n],
        subtree_clean_at: vec![None; n],
        grown_at: vec![0; n],
        inherited_at: vec![None; n],
    };
    nz.uber_sets();
    for s in 1..nz.ubers.len() {
        nz.set_weight(s);
    }
    // LLVM repeats rounds until one changes nothing. Its bound (the number
    // of native units) is an assertion, off in release builds, and some
    // inputs need more: weights that double each round settle once they
    // wrap to zero in 32 bits, after a few dozen rounds more. Weights that
    // grow by a constant (or cycle) never settle: past this many rounds,
    // regdesc reports the register instead of looping.
    let limit = g.num_native_units + 1024;
    let mut rounds = 0;
    loop {
        nz.changed = false;
        nz.progressed = false;
        for r in 0..n as RegId {
            nz.normalize(r);
        }
        if !nz.changed {
            break;
        }
        rounds += 1;
        if !nz.progressed || rounds > limit {
            let why = if nz.progressed {
                format!("still changing after {rounds} rounds")
            } else {
                "its only register unit is artificial, so its weight cannot grow".to_string()
            };
            return Err(Unsettled {
                register: nz.stuck.unwrap_or(0),
                why,
            });
        }
    }
    Ok(nz.w)
}

/// For each register, the native units of its sub-registers it lacks. Only
/// alias units (two roots) can be missing: they are added to a register
/// after its super-registers took its units.
#[inline(never)]
fn missing_units(g: &Graph) -> Vec<Vec<RegUnitId>> {
    let mut missing = vec![Vec::new(); g.len()];
    for u in 0..g.num_units() as RegUnitId {
        if g.roots(u).count() < 2 {
            continue;
        }
        for root in g.roots(u) {
            for &sup in g.supers(root) {
                if g.units(sup).binary_search(&u).is_err() {
                    missing[sup as usize].push(u);
                }
            }
        }
    }
    for m in &mut missing {
        m.sort_unstable();
        m.dedup();
    }
    missing
}

/// A small union-find over register numbers.
fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

impl Normalizer<'_> {
    /// Partitions the registers into uber sets (LLVM's `computeUberSets`).
    #[inline(never)]
    fn uber_sets(&mut self) {
        let g = self.g;
        let n = g.len();
        let mut parent: Vec<usize> = (0..n).collect();
        let mut allocatable = vec![false; n];
        // The sets do not depend on the order of the classes: a set's leader
        // is its lowest register.
        for members in g.allocatable_classes() {
            let Some(&first) = members.first() else {
                continue;
            };
            for &m in members {
                allocatable[m as usize] = true;
                let (a, b) = (
                    find(&mut parent, first as usize),
                    find(&mut parent, m as usize),
                );
                if a != b {
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        // Set 0 holds the registers of no allocatable class.
        self.ubers = vec![UberSet::default()];
        self.uber_of = vec![0; n];
        let mut set_of_leader = vec![usize::MAX; n];
        for (r, &in_class) in allocatable.iter().enumerate() {
            if !in_class {
                self.ubers[0].regs.push(r as RegId);
                continue;
            }
            let l = find(&mut parent, r);
            if set_of_leader[l] == usize::MAX {
                set_of_leader[l] = self.ubers.len();
                self.ubers.push(UberSet::default());
            }
            let s = set_of_leader[l];
            self.uber_of[r] = s;
            self.ubers[s].regs.push(r as RegId);
        }
    }

    /// Recomputes the weight of set `s` (LLVM's `computeUberWeights` for one
    /// set): non-artificial units still weighing 0 get weight 1.
    fn set_weight(&mut self, s: usize) {
        let (g, w) = (self.g, &mut self.w);
        let mut max = 0;
        let mut mutated = false;
        for &r in &self.ubers[s].regs {
            let units = g.units(r).iter().chain(&w.extra[r as usize]);
            let mut sum = 0;
            for &u in units {
                if w.is_artificial(u) {
                    continue;
                }
                let uw = &mut w.weights[u as usize];
                if *uw == 0 {
                    *uw = 1;
                    mutated = true;
                }
                sum = u32::wrapping_add(sum, *uw);
            }
            max = max.max(sum);
        }
        let set = &mut self.ubers[s];
        if set.weight != max {
            set.weight = max;
            mutated = true;
        }
        for &r in &set.regs {
            let extra = &w.extra[r as usize];
            let native = g.units(r);
            if native.len() + extra.len() == 1 && w.weight_of(native, r) == set.weight {
                for &u in native.iter().chain(extra) {
                    mutated |= set.singular.insert(u);
                }
            }
        }
        if mutated {
            self.mutated();
        }
    }

    /// Notes a change of the state.
    fn mutated(&mut self) {
        self.generation += 1;
        self.progressed = true;
    }

    /// Updates `r`'s set after `r` took on more units (it weighed `was`
    /// before): only `r`'s weight changed, so the set changes only if `r`
    /// is now heavier than it, or if its 32-bit sum wrapped to less than it
    /// was (the set may have weighed what `r` did; LLVM recomputes every
    /// set here). New units still weighing 0 get weight 1 first, as in
    /// [`Normalizer::set_weight`]; no other register of a set has them.
    fn reg_grew(&mut self, r: RegId, was: u32) {
        let s = self.uber_of[r as usize];
        let w = &mut self.w;
        let mut mutated = false;
        for &u in &w.extra[r as usize] {
            if !w.is_artificial(u) && w.weights[u as usize] == 0 {
                w.weights[u as usize] = 1;
                mutated = true;
            }
        }
        if mutated {
            self.mutated();
        }
        let now = self.w.weight_of(self.g.units(r), r);
        if now > self.ubers[s].weight || now < was {
            self.set_weight(s);
        }
    }

    /// LLVM's `normalizeWeight` for top-level register `top`: its
    /// sub-registers depth first in index order, then itself. Sub-trees
    /// whose steps would all do nothing (nothing changed since they last
    /// did nothing) are not walked again: their root stands for them among
    /// the finished registers, its units holding theirs.
    fn normalize(&mut self, top: RegId) {
        self.visit += 1;
        self.finished.clear();
        if self.subtree_clean_at[top as usize] == Some(self.generation) {
            return;
        }
        let visit = self.visit;
        self.visit_of[top as usize] = visit;
        let g = self.g;
        let mut stack = std::mem::take(&mut self.stack);
        stack.push((top, g.subs_range(top).0));
        while let Some(entry) = stack.last_mut() {
            let (r, mut k) = *entry;
            let end = g.subs_range(r).1;
            // The next sub-register not visited yet; a clean one is
            // finished on the spot.
            let mut child = None;
            while k < end {
                let s = g.sub_at(k);
                k += 1;
                if self.visit_of[s as usize] == visit {
                    continue;
                }
                self.visit_of[s as usize] = visit;
                if self.subtree_clean_at[s as usize] == Some(self.generation) {
                    self.finished.push(s);
                } else {
                    child = Some(s);
                    break;
                }
            }
            entry.1 = k;
            if let Some(s) = child {
                stack.push((s, g.subs_range(s).0));
                continue;
            }
            stack.pop();
            self.finish(r);
            let now = Some(self.generation);
            let clean = self.clean_at[r as usize] == now
                && g.subs(r)
                    .iter()
                    .all(|&s| self.subtree_clean_at[s as usize] == now);
            if clean {
                self.subtree_clean_at[r as usize] = now;
            }
        }
        self.stack = stack;
    }

    /// The post-order step of `normalize` for `r`.
    fn finish(&mut self, r: RegId) {
        let native = self.g.units(r);
        let before = self.generation;
        let was = self.w.weight_of(native, r);
        if self.inherit_units(r) && self.uber_of[r as usize] != 0 {
            self.reg_grew(r, was);
        }
        let s = self.uber_of[r as usize];
        let reg_weight = self.w.weight_of(native, r);
        let set_weight = self.ubers[s].weight;
        if set_weight > reg_weight {
            let diff = set_weight.wrapping_sub(reg_weight);
            let extra = &self.w.extra[r as usize];
            let count = native.len() + extra.len();
            let first = native
                .first()
                .into_iter()
                .chain(extra.first())
                .min()
                .copied();
            match first {
                Some(u)
                    if count == 1
                        && !self.ubers[s].singular.contains(&u)
                        && !self.in_finished(u) =>
                {
                    if self.w.is_artificial(u) {
                        self.stuck = Some(r);
                    } else {
                        let uw = &mut self.w.weights[u as usize];
                        *uw = uw.wrapping_add(diff);
                        self.mutated();
                        self.unit_weight_changed(u);
                    }
                }
                _ => {
                    let u = self.w.weights.len() as RegUnitId;
                    self.w.weights.push(diff);
                    self.w.extra[r as usize].push(u);
                    self.extra_grew(r);
                }
            }
            self.changed = true;
        } else if self.generation == before {
            self.clean_at[r as usize] = Some(before);
        }
        self.finished.push(r);
    }

    /// Whether `u` is a unit of a register finished in this visit.
    fn in_finished(&self, u: RegUnitId) -> bool {
        self.finished.iter().any(|&f| {
            self.g.units(f).binary_search(&u).is_ok()
                || self.w.extra[f as usize].binary_search(&u).is_ok()
        })
    }

    /// Takes on the units of `r`'s sub-registers it lacks; whether any.
    /// Only sub-registers whose extra units grew since `r` last took them
    /// are looked at. The units `r` has are marked (a stamp per unit), so
    /// that the sub-registers' lists, long in wide tuples and mostly alike,
    /// are merged without sorting them.
    fn inherit_units(&mut self, r: RegId) -> bool {
        let g = self.g;
        let since = self.inherited_at[r as usize];
        if self.unit_mark.len() < self.w.weights.len() {
            self.unit_mark.resize(self.w.weights.len(), 0);
        }
        self.mark += 1;
        let (mark, unit_mark) = (self.mark, &mut self.unit_mark);
        let extra = &self.w.extra;
        for &u in g.units(r).iter().chain(&extra[r as usize]) {
            unit_mark[u as usize] = mark;
        }
        let mut add = std::mem::take(&mut self.add);
        add.clear();
        let mut take = |units: &[RegUnitId]| {
            for &u in units {
                if unit_mark[u as usize] != mark {
                    unit_mark[u as usize] = mark;
                    add.push(u);
                }
            }
        };
        if since.is_none() {
            take(&self.missing[r as usize]);
        }
        // (`r`'s own units are marked: were it its own sub-register, it
        // would add nothing.)
        for &s in g.subs(r) {
            if since.is_none_or(|at| self.grown_at[s as usize] > at) {
                take(&extra[s as usize]);
            }
        }
        let changed = !add.is_empty();
        if changed {
            let extra = &mut self.w.extra[r as usize];
            extra.extend_from_slice(&add);
            extra.sort_unstable();
            self.extra_grew(r);
        }
        self.add = add;
        self.inherited_at[r as usize] = Some(self.generation);
        changed
    }

    /// Notes that `r`'s extra units grew.
    fn extra_grew(&mut self, r: RegId) {
        self.mutated();
        self.grown_at[r as usize] = self.generation;
    }

    /// Recomputes the sets of every register holding native unit `u`: its
    /// roots and their super-registers.
    fn unit_weight_changed(&mut self, u: RegUnitId) {
        let g = self.g;
        let mut sets: Vec<usize> = Vec::new();
        for root in g.roots(u) {
            let regs = std::iter::once(root).chain(g.supers(root).iter().copied());
            sets.extend(regs.map(|x| self.uber_of[x as usize]));
        }
        sets.sort_unstable();
        sets.dedup();
        for s in sets {
            if s != 0 {
                self.set_weight(s);
            }
        }
    }
}
