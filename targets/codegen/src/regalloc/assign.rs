//! Assigning registers to live intervals in priority order, with eviction
//! (the core of the allocator; see the module doc of [`crate::regalloc`]).
//!
//! The hardware facts served: a value may only live in a register of its
//! class (the class is the tuple alignment: AMD's `VReg_64_Align2` holds
//! only even-aligned pairs, so the candidates are its allocation order and
//! nothing else), candidates are tried in the class's allocation order
//! from the tables (`AltOrders` through `RegisterInfo`), and a candidate is
//! free when none of its units holds an overlapping live segment of the
//! lanes that unit covers.

use std::borrow::Cow;
use std::cmp::Reverse;

use regdesc_runtime::{LaneBits, LaneMask, Reg, RegClass, RegUnit, RegisterInfo, SubRegIdx};

use crate::mir::cfg::MCfg;
use crate::mir::liveness::{LiveInterval, Liveness, Segment};
use crate::mir::{InstrSet, MBlockId, MFunction, MInst, RegOperand, RegRef, Sem, VReg};
use crate::regalloc::matrix::Matrix;
use crate::regalloc::temps::{self, Groups, TempSite};

/// The outcome of one round.
pub struct Round {
    /// The register of each virtual register (those with a live interval).
    pub assignment: Vec<Option<Reg>>,
    /// Registers that found none.
    pub failed: Vec<VReg>,
}

/// A copy partner: the other register and the parts each side names.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hint {
    other: RegRef,
    mine: Option<SubRegIdx>,
    theirs: Option<SubRegIdx>,
}

/// What one round assigns, by *id*: the virtual registers of the function
/// first, then any spill temporaries that are planned but not yet in the
/// function (see [`crate::regalloc::rounds`]).
pub(crate) struct RoundInput<'a, L: LaneBits> {
    /// The live interval of each id (`None`: nothing to assign).
    pub intervals: Vec<Option<&'a LiveInterval<L>>>,
    /// Spill weight of each id (infinite for what cannot be spilled).
    pub weight: &'a [f32],
    /// Ids that must not be spilled (they go first).
    pub unspillable: &'a [bool],
    /// Copy partners of each id (`RegRef::Virt` names an id).
    pub hints: &'a Hints,
    /// Where physical register operands hold units.
    pub fixed: &'a [(RegUnit, Vec<Segment>)],
    /// Slots of the function (every segment ends by then).
    pub num_slots: u32,
    /// Ids from `first_temp` on are spill temporaries not yet in the
    /// function, `temps[id - first_temp]` (see [`crate::regalloc::temps`]).
    pub first_temp: usize,
    pub temps: &'a [TempSite<L>],
}

/// An interval's place in the assignment order (see `Assigner::queue`).
type QueueKey = (bool, bool, u8, u32);

/// Where an interval occupies units of one lane mask.
type LaneSegments<'a, L> = (LaneMask<L>, Cow<'a, [Segment]>);

struct Assigner<'a, R: RegisterInfo> {
    ri: &'a R,
    input: &'a RoundInput<'a, R::Lanes>,
    matrix: Matrix,
    reserved_units: Vec<bool>,
    assignment: Vec<Option<Reg>>,
    /// The order of assignment: (cannot be spilled, copied from or to a
    /// physical register, class priority, weight, lower id first),
    /// largest first. Nothing is queued again during a round, so this is
    /// one sort.
    queue: Vec<(QueueKey, Reverse<u32>)>,
    /// Scratch: per distinct unit lane mask of the candidate, where the
    /// interval occupies it.
    cache: Vec<LaneSegments<'a, R::Lanes>>,
    /// Scratch: the candidate's units and their entry of `cache`.
    fp: Vec<(RegUnit, usize)>,
    /// Spill temporaries' instructions.
    groups: Groups,
    /// Temporaries assigned but not yet in the matrix (they are checked
    /// against each other by [`temps::interfere`]; they all come before
    /// the other registers, which then see them in the matrix).
    deferred: Vec<VReg>,
}

/// Spill weights (LLVM's): uses and defs, each weighted by `8^loop depth`,
/// divided by the interval's length in instructions (plus a constant so
/// that short intervals do not all look alike).
pub fn spill_weights<R: RegisterInfo>(
    f: &MFunction,
    cfg: &MCfg,
    live: &Liveness<R::Lanes>,
) -> Vec<f32> {
    weights_from(&use_frequencies(f, cfg), live)
}

/// Spill weights from use frequencies ([`use_frequencies`]).
pub(crate) fn weights_from<L: LaneBits>(freq: &[f32], live: &Liveness<L>) -> Vec<f32> {
    freq.iter()
        .enumerate()
        .map(|(v, &fr)| match live.interval(VReg(v as u32)) {
            Some(iv) => weight_of(fr, iv.size()),
            None => 0.0,
        })
        .collect()
}

/// The spill weight of a register with use frequency `freq` live over
/// `size` slots.
pub(crate) fn weight_of(freq: f32, size: u32) -> f32 {
    freq / (size as f32 / 2.0 + 4.0)
}

/// Per register: the instructions naming it, each weighted by `8^loop
/// depth` (at most depth 6).
pub(crate) fn use_frequencies(f: &MFunction, cfg: &MCfg) -> Vec<f32> {
    let mut freq = vec![0f32; f.vregs.len()];
    let mut last: Vec<u32> = vec![u32::MAX; f.vregs.len()];
    let mut n = 0u32;
    for (bi, b) in f.blocks.iter().enumerate() {
        let depth = cfg.loop_depth(MBlockId(bi as u32)).min(6);
        let w = 8f32.powi(depth as i32);
        for i in &b.insts {
            for (_, r) in i.reg_ops() {
                if let Some(v) = r.vreg() {
                    if last.get(v.index()) != Some(&n) {
                        last[v.index()] = n;
                        freq[v.index()] += w;
                    }
                }
            }
            n += 1;
        }
    }
    freq
}

/// One round of assignment over the intervals of `live`.
pub fn assign_round<R: RegisterInfo>(
    f: &MFunction,
    ri: &R,
    instrs: &InstrSet,
    cfg: &MCfg,
    live: &Liveness<R::Lanes>,
    unspillable: &[bool],
    reserved: &[Reg],
) -> Round {
    let mut weight = spill_weights::<R>(f, cfg, live);
    let mut fixed_unspillable = vec![false; f.vregs.len()];
    for (v, w) in weight.iter_mut().enumerate() {
        if unspillable.get(v).copied().unwrap_or(false) {
            *w = f32::INFINITY;
            fixed_unspillable[v] = true;
        }
    }
    let hints = hints(f, instrs);
    let input = RoundInput {
        intervals: (0..f.vregs.len())
            .map(|v| live.interval(VReg(v as u32)))
            .collect(),
        weight: &weight,
        unspillable: &fixed_unspillable,
        hints: &hints,
        fixed: &live.units,
        num_slots: 2 * live.slots.num_insts() + 2,
        first_temp: f.vregs.len(),
        temps: &[],
    };
    run_round(ri, &input, reserved)
}

/// One round of assignment over `input`: every id with an interval, most
/// valuable first, gets the first free register of its class (hinted
/// registers first); the ids that find none are returned as failed.
pub(crate) fn run_round<R: RegisterInfo>(
    ri: &R,
    input: &RoundInput<'_, R::Lanes>,
    reserved: &[Reg],
) -> Round {
    let t = ri.tables();
    let mut matrix = Matrix::new(t.num_units(), input.num_slots);
    for (u, segs) in input.fixed {
        matrix.insert(*u, segs);
    }
    let mut reserved_units = vec![false; t.num_units()];
    for &r in reserved {
        for u in t.units(r) {
            if let Some(x) = reserved_units.get_mut(u.index()) {
                *x = true;
            }
        }
    }
    let n = input.intervals.len();
    let mut a = Assigner {
        ri,
        input,
        matrix,
        reserved_units,
        assignment: vec![None; n],
        queue: Vec::with_capacity(n),
        cache: Vec::new(),
        fp: Vec::new(),
        groups: Groups::new(input.temps),
        deferred: Vec::new(),
    };
    for (v, iv) in input.intervals.iter().enumerate() {
        if let Some(iv) = iv {
            a.enqueue(VReg(v as u32), iv.class);
        }
    }
    let mut failed = Vec::new();
    let mut queue = std::mem::take(&mut a.queue);
    queue.sort_unstable_by(|x, y| y.cmp(x));
    for &(_, Reverse(v)) in &queue {
        let v = VReg(v);
        if a.assignment[v.index()].is_some() {
            continue;
        }
        if v.index() < input.first_temp && !a.deferred.is_empty() {
            a.place_deferred();
        }
        if !a.try_assign(v) {
            failed.push(v);
        }
    }
    failed.sort_unstable();
    Round {
        assignment: a.assignment,
        failed,
    }
}

/// Each register's copy partners, in the order of the copies: one list
/// for all registers (`start[id]..start[id + 1]` is `id`'s part).
#[derive(Clone, Debug, Default)]
pub(crate) struct Hints {
    start: Vec<u32>,
    list: Vec<Hint>,
}

impl Hints {
    /// The hints of `ids` registers from `(register, hint)` pairs.
    pub(crate) fn new(ids: usize, pairs: &[(u32, Hint)]) -> Hints {
        let mut start = vec![0u32; ids + 1];
        for &(v, _) in pairs {
            if let Some(c) = start.get_mut(v as usize + 1) {
                *c += 1;
            }
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut fill = start.clone();
        let blank = Hint {
            other: RegRef::Virt(VReg(0)),
            mine: None,
            theirs: None,
        };
        let mut list = vec![blank; start.last().copied().unwrap_or(0) as usize];
        for &(v, h) in pairs {
            if let Some(at) = fill.get_mut(v as usize).filter(|_| (v as usize) < ids) {
                list[*at as usize] = h;
                *at += 1;
            }
        }
        Hints { start, list }
    }

    pub(crate) fn get(&self, v: VReg) -> &[Hint] {
        match (self.start.get(v.index()), self.start.get(v.index() + 1)) {
            (Some(&a), Some(&b)) => &self.list[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// Each register's copy partners.
pub(crate) fn hints(f: &MFunction, instrs: &InstrSet) -> Hints {
    let mut pairs = Vec::new();
    for b in &f.blocks {
        for i in &b.insts {
            let Some((d, s)) = copy_operands(instrs, i) else {
                continue;
            };
            hint_pairs(&mut pairs, (d.reg, d.sub), (s.reg, s.sub));
        }
    }
    Hints::new(f.vregs.len(), &pairs)
}

/// The def and the source of a copy.
pub(crate) fn copy_operands<'i>(
    instrs: &InstrSet,
    i: &'i MInst,
) -> Option<(&'i RegOperand, &'i RegOperand)> {
    if instrs.get(i.opcode).is_none_or(|d| d.sem != Sem::Copy) {
        return None;
    }
    Some((i.ops.first()?.reg()?, i.ops.get(1)?.reg()?))
}

/// Records that `d` (a register and the part named) is copied from `s`:
/// a hint for each virtual side.
pub(crate) fn hint_pairs(
    out: &mut Vec<(u32, Hint)>,
    d: (RegRef, Option<SubRegIdx>),
    s: (RegRef, Option<SubRegIdx>),
) {
    if let RegRef::Virt(v) = d.0 {
        out.push((
            v.0,
            Hint {
                other: s.0,
                mine: d.1,
                theirs: s.1,
            },
        ));
    }
    if let RegRef::Virt(v) = s.0 {
        out.push((
            v.0,
            Hint {
                other: d.0,
                mine: s.1,
                theirs: d.1,
            },
        ));
    }
}

impl<'a, R: RegisterInfo> Assigner<'a, R> {
    fn enqueue(&mut self, v: VReg, rc: RegClass) {
        let t = self.ri.tables();
        let prio = t.allocation_priority(rc);
        let w = self.input.weight.get(v.index()).copied().unwrap_or(0.0);
        let unspillable = self
            .input
            .unspillable
            .get(v.index())
            .copied()
            .unwrap_or(false);
        // A value the calling convention places (an argument or result
        // copied from or to a physical register) chooses first, so that
        // wider values allocated around it do not take its register and
        // leave a copy (additive: the rest of the order is unchanged).
        let pinned = self
            .input
            .hints
            .get(v)
            .iter()
            .any(|h| matches!(h.other, RegRef::Phys(_)));
        self.queue.push((
            (unspillable, pinned, prio, w.max(0.0).to_bits()),
            Reverse(v.0),
        ));
    }

    /// Fills `self.fp` with the units of `p` and, for each, which entry of
    /// `self.cache` says where `iv` occupies it (lanes a unit does not
    /// cover, or that are dead, leave it free; such units are left out).
    fn footprint(&mut self, iv: &'a LiveInterval<R::Lanes>, p: Reg) {
        let t = self.ri.tables();
        self.fp.clear();
        for (u, m) in t.unit_lane_masks(p) {
            let lanes = if m.is_none() { LaneMask::ALL } else { m };
            let k = match self.cache.iter().position(|(l, _)| *l == lanes) {
                Some(k) => k,
                None => {
                    let segs = match iv.parts.as_slice() {
                        [only] if only.lanes.intersects(lanes) => {
                            Cow::Borrowed(only.segments.as_slice())
                        }
                        [_] => Cow::Borrowed(&[][..]),
                        _ => Cow::Owned(iv.segments_for(lanes)),
                    };
                    self.cache.push((lanes, segs));
                    self.cache.len() - 1
                }
            };
            if !self.cache[k].1.is_empty() {
                self.fp.push((u, k));
            }
        }
    }

    /// The register a copy partner suggests for `v`, if any.
    fn hinted(&self, h: &Hint, rc: RegClass) -> Option<Reg> {
        let t = self.ri.tables();
        let p = match h.other {
            RegRef::Phys(p) => p,
            RegRef::Virt(o) => self.assignment.get(o.index()).copied().flatten()?,
        };
        let target = match h.theirs {
            None => p,
            Some(s) => t.sub_reg(p, s)?,
        };
        let mine = match h.mine {
            None => target,
            Some(s) => t.matching_super_reg(target, s, rc)?,
        };
        t.contains(rc, mine).then_some(mine)
    }

    /// Puts the temporaries assigned so far in the matrix.
    fn place_deferred(&mut self) {
        let input: &'a RoundInput<'a, R::Lanes> = self.input;
        for v in std::mem::take(&mut self.deferred) {
            self.cache.clear();
            let (Some(iv), Some(p)) = (
                input.intervals.get(v.index()).copied().flatten(),
                self.assignment[v.index()],
            ) else {
                continue;
            };
            self.footprint(iv, p);
            for &(u, k) in &self.fp {
                self.matrix.insert(u, &self.cache[k].1);
            }
        }
        self.cache.clear();
    }

    /// Whether temporary `v` in `p` interferes with an assigned
    /// temporary of its instruction.
    fn clashes_with_temps(&self, v: VReg, p: Reg) -> bool {
        let input = self.input;
        let Some(k) = v.index().checked_sub(input.first_temp) else {
            return false;
        };
        let Some(me) = input.temps.get(k) else {
            return false;
        };
        let t = self.ri.tables();
        self.groups.of(k).iter().any(|&o| {
            let o = o as usize;
            if o == k {
                return false;
            }
            match (input.temps.get(o), self.assignment[input.first_temp + o]) {
                (Some(other), Some(po)) => temps::interfere(t, other, po, me, p),
                _ => false,
            }
        })
    }

    /// Whether `p` is free for `iv`; if so, takes it for `v`.
    fn take_if_free(&mut self, v: VReg, iv: &'a LiveInterval<R::Lanes>, p: Reg) -> bool {
        let is_temp = v.index() >= self.input.first_temp;
        if is_temp && self.clashes_with_temps(v, p) {
            return false;
        }
        self.footprint(iv, p);
        let reserved = self
            .fp
            .iter()
            .any(|(u, _)| self.reserved_units.get(u.index()).copied().unwrap_or(true));
        if reserved
            || !self
                .fp
                .iter()
                .all(|&(u, k)| self.matrix.is_free(u, &self.cache[k].1))
        {
            return false;
        }
        if is_temp {
            self.deferred.push(v);
        } else {
            for &(u, k) in &self.fp {
                self.matrix.insert(u, &self.cache[k].1);
            }
        }
        self.assignment[v.index()] = Some(p);
        true
    }

    fn try_assign(&mut self, v: VReg) -> bool {
        let input: &'a RoundInput<'a, R::Lanes> = self.input;
        let Some(iv) = input.intervals.get(v.index()).copied().flatten() else {
            return true;
        };
        let rc = iv.class;
        let order = self.ri.allocation_order(rc);
        self.cache.clear();
        // Hinted registers first (those in the allocation order), each
        // once, then the order.
        let hints = input.hints.get(v);
        let mut tried: Vec<Reg> = Vec::new();
        for h in hints {
            let Some(p) = self.hinted(h, rc) else {
                continue;
            };
            if tried.contains(&p) || !order.contains(&p) {
                continue;
            }
            tried.push(p);
            if self.take_if_free(v, iv, p) {
                return true;
            }
        }
        for &p in order {
            if !tried.contains(&p) && self.take_if_free(v, iv, p) {
                return true;
            }
        }
        false
    }
}
