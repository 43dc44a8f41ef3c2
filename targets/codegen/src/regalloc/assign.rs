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

use regdesc_runtime::{LaneBits, LaneMask, Reg, RegClass, RegUnit, RegisterInfo, SubRegIdx};

use crate::mir::cfg::MCfg;
use crate::mir::liveness::{union, LiveInterval, Liveness, Segment, Segments};
use crate::mir::{InstrSet, MBlockId, MFunction, MInst, RegOperand, RegRef, Sem, VReg};
use crate::regalloc::matrix::Matrix;
use crate::regalloc::temps::{self, Groups, TempSite};

/// The outcome of one round.
pub struct Round {
    /// The register of each virtual register (those with a live interval).
    pub assignment: Vec<Option<Reg>>,
    /// Registers that found none.
    pub failed: Vec<VReg>,
    /// Ranges that lost their register to a spill temporary (incremental
    /// rounds only, see [`crate::regalloc::evict`]).
    pub evicted: usize,
}

/// How many free registers a tuple looks at for one that suits its
/// sub-register copy partners (see [`Assigner::try_assign`]).
const LOOKAHEAD: usize = 16;

/// A copy partner: the other register and the parts each side names.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hint {
    other: RegRef,
    mine: Option<SubRegIdx>,
    theirs: Option<SubRegIdx>,
    /// The copy writes `other` (this register is copied into it).
    into: bool,
}

impl Hint {
    /// The same copy seen from the partner's side (`v` is this hint's
    /// owner).
    fn reversed(&self, v: VReg) -> Hint {
        Hint {
            other: RegRef::Virt(v),
            mine: self.theirs,
            theirs: self.mine,
            into: !self.into,
        }
    }
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
    pub fixed: &'a [(RegUnit, Segments)],
    /// Slots of the function (every segment ends by then).
    pub num_slots: u32,
    /// Ids from `first_temp` on are spill temporaries not yet in the
    /// function, `temps[id - first_temp]` (see [`crate::regalloc::temps`]).
    pub first_temp: usize,
    pub temps: &'a [TempSite<L>],
}

/// Where an interval occupies units of one lane mask.
type LaneSegments<'a, L> = (LaneMask<L>, Cow<'a, [Segment]>);

/// A queued id and what assignment reads of it, gathered in queue order
/// before the round (see [`gather`]).
#[derive(Clone, Copy)]
pub(crate) struct Item<L: LaneBits> {
    pub(crate) v: VReg,
    pub(crate) class: RegClass,
    /// A one-part interval (the common case): its lanes and its
    /// segments, `segments[a..b]` of the round; `None`: several parts
    /// (read from the interval itself).
    one: Option<(LaneMask<L>, u32, u32)>,
    /// Its copy partners, `hint_list[a..b]` of the round; `None`: read
    /// from the round's input (items made outside [`gather`]).
    hints: Option<(u32, u32)>,
}

impl<L: LaneBits> Item<L> {
    /// An item that reads its interval and its hints from the round's
    /// input (for ids queued after the round's arrays were gathered).
    pub(crate) fn direct(v: VReg, class: RegClass) -> Item<L> {
        Item {
            v,
            class,
            one: None,
            hints: None,
        }
    }
}

/// The buffers of a round, kept from one round to the next: on a large
/// function they are tens of MB, and memory freed and allocated again
/// each round comes back from the system as fresh pages to be zeroed.
pub(crate) struct RoundScratch<L: LaneBits> {
    matrix: Matrix,
    /// [`queue_entry`]s.
    queue: Vec<u128>,
    by_id: Vec<(Option<LaneMask<L>>, u32, u32)>,
    by_id_segs: Vec<Segment>,
    items: Vec<Item<L>>,
    segments: Vec<Segment>,
    hint_list: Vec<Hint>,
    /// The rounds of one liveness: an id's interval never changes from
    /// one round to the next (it may only go: a spilled register), and
    /// new ids come after the old ones, so `by_id` is kept and extended
    /// instead of being read again from the intervals.
    same_intervals: bool,
}

impl<L: LaneBits> Default for RoundScratch<L> {
    fn default() -> Self {
        RoundScratch {
            matrix: Matrix::new(0, 0),
            queue: Vec::new(),
            by_id: Vec::new(),
            by_id_segs: Vec::new(),
            items: Vec::new(),
            segments: Vec::new(),
            hint_list: Vec::new(),
            same_intervals: false,
        }
    }
}

impl<L: LaneBits> RoundScratch<L> {
    /// Buffers for rounds over one liveness, in which the interval of an
    /// id stays the same or goes, and new ids are added after the others
    /// (see [`crate::regalloc::rounds`]).
    pub(crate) fn for_rounds_of_one_liveness() -> Self {
        RoundScratch {
            same_intervals: true,
            ..RoundScratch::default()
        }
    }

    /// The segments of id `v`'s interval when it has one part, as the
    /// rounds so far read it (`None`: several parts, or not read).
    pub(crate) fn one_part_segments(&self, v: VReg) -> Option<&[Segment]> {
        OneParts {
            by_id: &self.by_id,
            by_id_segs: &self.by_id_segs,
        }
        .segments(v)
    }

    /// The matrix to assign in, and the one-part intervals the rounds
    /// have read (see [`RoundScratch::one_part_segments`]).
    pub(crate) fn split(&mut self) -> (&mut Matrix, OneParts<'_, L>) {
        (
            &mut self.matrix,
            OneParts {
                by_id: &self.by_id,
                by_id_segs: &self.by_id_segs,
            },
        )
    }
}

/// The one-part intervals the rounds have read, by id.
pub(crate) struct OneParts<'a, L: LaneBits> {
    by_id: &'a [(Option<LaneMask<L>>, u32, u32)],
    by_id_segs: &'a [Segment],
}

impl<'a, L: LaneBits> OneParts<'a, L> {
    /// The segments of id `v`'s interval when it has one part (`None`:
    /// several parts, or not read).
    pub(crate) fn segments(&self, v: VReg) -> Option<&'a [Segment]> {
        match self.by_id.get(v.index()) {
            Some(&(Some(_), a, b)) => self.by_id_segs.get(a as usize..b as usize),
            _ => None,
        }
    }
}

pub(crate) struct Assigner<'a, R: RegisterInfo> {
    pub(crate) ri: &'a R,
    pub(crate) input: &'a RoundInput<'a, R::Lanes>,
    pub(crate) matrix: &'a mut Matrix,
    pub(crate) reserved_units: Vec<bool>,
    pub(crate) assignment: Vec<Option<Reg>>,
    /// The segments of the queued one-part intervals, in queue order
    /// ([`Item::one`] indexes it).
    segments: &'a [Segment],
    /// The copy partners of the queued registers, in queue order
    /// ([`Item::hints`] indexes it).
    hint_list: &'a [Hint],
    /// Scratch: the registers a register's hints have offered.
    tried: Vec<Reg>,
    /// Scratch: per distinct unit lane mask of the candidate, where the
    /// interval occupies it.
    pub(crate) cache: Vec<LaneSegments<'a, R::Lanes>>,
    /// Scratch: the candidate's units and their entry of `cache`.
    pub(crate) fp: Vec<(RegUnit, usize)>,
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
    run_round(ri, &input, reserved, &mut RoundScratch::default())
}

/// One round of assignment over `input`: every id with an interval, most
/// valuable first, gets the first free register of its class (hinted
/// registers first); the ids that find none are returned as failed.
pub(crate) fn run_round<R: RegisterInfo>(
    ri: &R,
    input: &RoundInput<'_, R::Lanes>,
    reserved: &[Reg],
    scratch: &mut RoundScratch<R::Lanes>,
) -> Round {
    let t = ri.tables();
    scratch.matrix.reset(t.num_units(), input.num_slots);
    for (u, segs) in input.fixed {
        scratch.matrix.insert(*u, segs);
    }
    let reserved_units = reserved_units(t, reserved);
    let n = input.intervals.len();
    // The order of assignment: (cannot be spilled, copied from or to a
    // physical register, class priority, weight, lower id first), largest
    // first. Nothing is queued again during a round, so this is one sort.
    let queue = &mut scratch.queue;
    queue.clear();
    for (v, iv) in input.intervals.iter().enumerate() {
        if let Some(iv) = iv {
            queue.push(queue_entry(
                queue_key(t, input, VReg(v as u32), iv.class),
                v as u32,
            ));
        }
    }
    queue.sort_unstable_by(|x, y| y.cmp(x));
    gather(input, scratch);
    let RoundScratch {
        matrix,
        items,
        segments,
        hint_list,
        ..
    } = scratch;
    let mut a = Assigner::new(ri, input, matrix, vec![None; n], segments, hint_list);
    a.reserved_units = reserved_units;
    let mut failed = Vec::new();
    for item in items.iter() {
        let v = item.v;
        if a.assignment[v.index()].is_some() {
            continue;
        }
        if v.index() < input.first_temp && !a.deferred.is_empty() {
            a.place_deferred();
        }
        if !a.try_assign(item) {
            failed.push(v);
        }
    }
    failed.sort_unstable();
    Round {
        assignment: a.assignment,
        failed,
        evicted: 0,
    }
}

/// Per register unit: whether a reserved register covers it.
pub(crate) fn reserved_units<L: LaneBits>(
    t: &regdesc_runtime::Tables<L>,
    reserved: &[Reg],
) -> Vec<bool> {
    let mut units = vec![false; t.num_units()];
    for &r in reserved {
        for u in t.units(r) {
            if let Some(x) = units.get_mut(u.index()) {
                *x = true;
            }
        }
    }
    units
}

/// (cannot be spilled, placed by the calling convention, class priority,
/// weight): the order of assignment, largest first.
pub(crate) type QueueKey = (bool, u8, u8, u32);

/// A queue entry: the key, then the lower id first, as one number that
/// sorts as the pair does (largest first): a round sorts one per register,
/// and comparing numbers is cheaper than comparing tuples.
pub(crate) fn queue_entry(key: QueueKey, v: u32) -> u128 {
    let (unspillable, pinned, prio, weight) = key;
    (u128::from(unspillable) << 112)
        | (u128::from(pinned) << 104)
        | (u128::from(prio) << 96)
        | (u128::from(weight) << 64)
        | u128::from(u32::MAX - v)
}

/// The id of a [`queue_entry`].
pub(crate) fn queued_id(entry: u128) -> u32 {
    u32::MAX - entry as u32
}

/// The queue key of `v` (see [`run_round`]).
pub(crate) fn queue_key<L: LaneBits>(
    t: &regdesc_runtime::Tables<L>,
    input: &RoundInput<'_, L>,
    v: VReg,
    rc: RegClass,
) -> QueueKey {
    let prio = t.allocation_priority(rc);
    let w = input.weight.get(v.index()).copied().unwrap_or(0.0);
    let unspillable = input.unspillable.get(v.index()).copied().unwrap_or(false);
    // A value the calling convention places (an argument or result copied
    // from or to a physical register) chooses first, so that wider values
    // allocated around it do not take its register and leave a copy.
    // Results (copied into a physical register) before arguments: an
    // argument still read after a result that must be in its register is
    // written costs one copy either way, and moving the argument away at
    // the entry keeps the result's tuple (a MAD pair whose halves are two
    // result registers) whole, where the result placed elsewhere costs a
    // copy per register of the tuple.
    let pinned = input
        .hints
        .get(v)
        .iter()
        .filter(|h| matches!(h.other, RegRef::Phys(_)))
        .map(|h| if h.into { 2 } else { 1 })
        .max()
        .unwrap_or(0);
    (unspillable, pinned, prio, w.max(0.0).to_bits())
}

/// What assignment reads of each queued id (`scratch.queue`), copied
/// into arrays in queue order: the items, the one-part intervals'
/// segments and the copy partners.
///
/// Why: the queue visits the function in priority order, not in program
/// order, so reading each interval where liveness left it (a pointer to
/// the interval, to its parts, to their segments, and to the hints) is a
/// chain of cache misses per register once the function's intervals
/// outgrow the caches (tens of MB at 100k instructions), and the work
/// between them keeps the processor from overlapping the chains. Here
/// the intervals are first read in id order (the order liveness made
/// them in), then gathered in queue order in a loop whose loads do not
/// depend on each other, and the round reads its input in order.
fn gather<L: LaneBits>(input: &RoundInput<'_, L>, scratch: &mut RoundScratch<L>) {
    let RoundScratch {
        queue,
        by_id,
        by_id_segs,
        items,
        segments,
        hint_list,
        same_intervals,
        ..
    } = scratch;
    // By id, in id order: (one-part lanes, segments in `by_id_segs`).
    if !scratch_keeps(*same_intervals, by_id.len(), input.intervals.len()) {
        by_id.clear();
        by_id_segs.clear();
    }
    for iv in &input.intervals[by_id.len()..] {
        let entry = match iv.map(|iv| iv.parts.as_slice()) {
            Some([only]) => {
                let a = by_id_segs.len() as u32;
                by_id_segs.extend_from_slice(&only.segments);
                (Some(only.lanes), a, by_id_segs.len() as u32)
            }
            _ => (None, 0, 0),
        };
        by_id.push(entry);
    }
    items.clear();
    segments.clear();
    hint_list.clear();
    for &e in queue.iter() {
        let v = VReg(queued_id(e));
        let Some(iv) = input.intervals[v.index()] else {
            continue;
        };
        let (lanes, a, b) = by_id[v.index()];
        let one = lanes.map(|l| {
            let s = segments.len() as u32;
            segments.extend_from_slice(&by_id_segs[a as usize..b as usize]);
            (l, s, segments.len() as u32)
        });
        let h = hint_list.len() as u32;
        hint_list.extend_from_slice(input.hints.get(v));
        items.push(Item {
            v,
            class: iv.class,
            one,
            hints: Some((h, hint_list.len() as u32)),
        });
    }
}

/// Whether the `kept` entries by id of earlier rounds still hold for a
/// round of `ids` ids.
fn scratch_keeps(same_intervals: bool, kept: usize, ids: usize) -> bool {
    same_intervals && kept <= ids
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
            into: false,
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
            if let Some((d, s)) = copy_operands(instrs, i) {
                hint_pairs(&mut pairs, (d.reg, d.sub), (s.reg, s.sub));
            } else if let Some((d, p)) = live_in_move(instrs, i) {
                hint_pairs(&mut pairs, (d.reg, d.sub), (RegRef::Phys(p), None));
            }
        }
    }
    Hints::new(f.vregs.len(), &pairs)
}

/// A move out of a register the hardware fills (an instruction whose only
/// operand is its def and that reads one physical register, implicitly:
/// AMD's work-group id in `s6`): the def and that register, so that the
/// def may take the register itself and the move disappear.
pub(crate) fn live_in_move<'i>(instrs: &InstrSet, i: &'i MInst) -> Option<(&'i RegOperand, Reg)> {
    let desc = instrs.get(i.opcode)?;
    if desc.implicit_uses.len() != 1 || !desc.implicit_defs.is_empty() {
        return None;
    }
    let mut explicit = i
        .ops
        .iter()
        .filter(|o| o.reg().is_none_or(|r| !r.implicit()));
    let d = explicit.next()?.reg()?;
    (explicit.next().is_none() && d.is_def()).then_some((d, desc.implicit_uses[0]))
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
                into: false,
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
                into: true,
            },
        ));
    }
}

impl<'a, R: RegisterInfo> Assigner<'a, R> {
    /// An assigner over `matrix` starting from `assignment`; `segments`
    /// and `hint_list` are the gathered arrays the items index (empty
    /// when every item is [`Item::direct`]). No unit is reserved yet.
    pub(crate) fn new(
        ri: &'a R,
        input: &'a RoundInput<'a, R::Lanes>,
        matrix: &'a mut Matrix,
        assignment: Vec<Option<Reg>>,
        segments: &'a [Segment],
        hint_list: &'a [Hint],
    ) -> Self {
        Assigner {
            ri,
            input,
            matrix,
            reserved_units: Vec::new(),
            assignment,
            segments,
            hint_list,
            tried: Vec::new(),
            cache: Vec::new(),
            fp: Vec::new(),
            groups: Groups::new(input.temps),
            deferred: Vec::new(),
        }
    }

    /// Fills `self.fp` with the units of `p` and, for each, which entry of
    /// `self.cache` says where `iv` occupies it (lanes a unit does not
    /// cover, or that are dead, leave it free; such units are left out).
    /// `one`: the interval's lanes and segments when it has one part.
    pub(crate) fn footprint(
        &mut self,
        v: VReg,
        one: Option<(LaneMask<R::Lanes>, &'a [Segment])>,
        p: Reg,
    ) {
        self.footprint_while_free(v, one, p, false);
    }

    /// [`Self::footprint`], and with `check`, whether every unit of it is
    /// unreserved and free in the matrix: the walk stops at the first that
    /// is not (most candidates of a crowded class fail on an early unit,
    /// and their other units need not be looked at). Without `check`, true.
    fn footprint_while_free(
        &mut self,
        v: VReg,
        one: Option<(LaneMask<R::Lanes>, &'a [Segment])>,
        p: Reg,
        check: bool,
    ) -> bool {
        let input: &'a RoundInput<'a, R::Lanes> = self.input;
        let t = self.ri.tables();
        self.fp.clear();
        for (u, m) in t.unit_lane_masks(p) {
            let lanes = if m.is_none() { LaneMask::ALL } else { m };
            let k = match self.cache.iter().position(|(l, _)| *l == lanes) {
                Some(k) => k,
                None => {
                    // The interval itself is read only when it has
                    // several parts (see `gather`).
                    let parts = || match input.intervals.get(v.index()).copied().flatten() {
                        Some(iv) => iv.parts.as_slice(),
                        None => &[],
                    };
                    let segs = match one {
                        Some((l, segs)) if l.intersects(lanes) => Cow::Borrowed(segs),
                        Some(_) => Cow::Borrowed(&[][..]),
                        None => match parts() {
                            [only] if only.lanes.intersects(lanes) => {
                                Cow::Borrowed(only.segments.as_slice())
                            }
                            [] | [_] => Cow::Borrowed(&[][..]),
                            several => {
                                let lists: Vec<&[Segment]> = several
                                    .iter()
                                    .filter(|p| p.lanes.intersects(lanes))
                                    .map(|p| p.segments.as_slice())
                                    .collect();
                                Cow::Owned(union(&lists).into_vec())
                            }
                        },
                    };
                    self.cache.push((lanes, segs));
                    self.cache.len() - 1
                }
            };
            if !self.cache[k].1.is_empty() {
                if check
                    && (self.reserved_units.get(u.index()).copied().unwrap_or(true)
                        || !self.matrix.is_free(u, &self.cache[k].1))
                {
                    return false;
                }
                self.fp.push((u, k));
            }
        }
        true
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
    pub(crate) fn place_deferred(&mut self) {
        let input: &'a RoundInput<'a, R::Lanes> = self.input;
        for v in std::mem::take(&mut self.deferred) {
            self.cache.clear();
            let (Some(_), Some(p)) = (
                input.intervals.get(v.index()).copied().flatten(),
                self.assignment[v.index()],
            ) else {
                continue;
            };
            self.footprint(v, None, p);
            for &(u, k) in &self.fp {
                self.matrix.insert(u, &self.cache[k].1);
            }
        }
        self.cache.clear();
    }

    /// Whether temporaries assigned this round wait to be put in the
    /// matrix (see [`Self::place_deferred`]).
    pub(crate) fn has_deferred(&self) -> bool {
        !self.deferred.is_empty()
    }

    /// The other temporaries of temporary `v`'s instruction that have a
    /// register (none when `v` is not a temporary).
    pub(crate) fn assigned_instruction_temps(&self, v: VReg) -> impl Iterator<Item = VReg> + '_ {
        let first = self.input.first_temp;
        let k = v.index().checked_sub(first);
        k.map_or(&[][..], |k| self.groups.of(k))
            .iter()
            .map(move |&o| VReg((first + o as usize) as u32))
            .filter(move |&o| o != v && self.assignment[o.index()].is_some())
    }

    /// Takes `v`'s register away: out of the matrix, or out of the
    /// temporaries waiting to be put there.
    pub(crate) fn unassign(&mut self, v: VReg) {
        let Some(r) = self.assignment[v.index()] else {
            return;
        };
        if let Some(k) = self.deferred.iter().position(|&d| d == v) {
            self.deferred.swap_remove(k);
        } else {
            self.cache.clear();
            self.footprint(v, None, r);
            for k in 0..self.fp.len() {
                let (u, c) = self.fp[k];
                self.matrix.remove(u, &self.cache[c].1);
            }
        }
        self.assignment[v.index()] = None;
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
    pub(crate) fn take_if_free(&mut self, item: &Item<R::Lanes>, p: Reg) -> bool {
        if !self.fits(item, p) {
            return false;
        }
        let v = item.v;
        if v.index() >= self.input.first_temp {
            self.deferred.push(v);
        } else {
            for &(u, k) in &self.fp {
                self.matrix.insert(u, &self.cache[k].1);
            }
        }
        self.assignment[v.index()] = Some(p);
        true
    }

    /// Whether `p` is free for the item (when it is, its footprint is in
    /// `self.fp`).
    fn fits(&mut self, item: &Item<R::Lanes>, p: Reg) -> bool {
        let v = item.v;
        let is_temp = v.index() >= self.input.first_temp;
        if is_temp && self.clashes_with_temps(v, p) {
            return false;
        }
        let segments: &'a [Segment] = self.segments;
        let one = item
            .one
            .map(|(l, a, b)| (l, &segments[a as usize..b as usize]));
        self.footprint_while_free(v, one, p, true)
    }

    /// Whether, with `mine` in register `p`, the register the copy
    /// partner of hint `h` would then be offered is free for it (true
    /// when there is none to offer).
    fn partner_fits(&self, h: &Hint, p: Reg) -> bool {
        let RegRef::Virt(o) = h.other else {
            return true;
        };
        let Some(iv) = self.input.intervals.get(o.index()).copied().flatten() else {
            return true;
        };
        let t = self.ri.tables();
        let shared = match h.mine {
            None => Some(p),
            Some(s) => t.sub_reg(p, s),
        };
        let theirs = shared.and_then(|r| match h.theirs {
            None => Some(r),
            Some(s) => t.matching_super_reg(r, s, iv.class),
        });
        let Some(theirs) = theirs.filter(|&r| t.contains(iv.class, r)) else {
            return false;
        };
        t.unit_lane_masks(theirs).all(|(u, m)| {
            let lanes = if m.is_none() { LaneMask::ALL } else { m };
            let used = iv.parts.iter().filter(|x| x.lanes.intersects(lanes));
            let mut used = used.peekable();
            used.peek().is_none()
                || (!self.reserved_units.get(u.index()).copied().unwrap_or(true)
                    && used.all(|x| self.matrix.is_free(u, &x.segments)))
        })
    }

    pub(crate) fn try_assign(&mut self, item: &Item<R::Lanes>) -> bool {
        let rc = item.class;
        let order = self.ri.allocation_order(rc);
        self.cache.clear();
        // Hinted registers first (those in the allocation order), each
        // once, then the order.
        let hint_list: &'a [Hint] = self.hint_list;
        let input: &'a RoundInput<'a, R::Lanes> = self.input;
        let hints = match item.hints {
            Some((a, b)) => &hint_list[a as usize..b as usize],
            None => input.hints.get(item.v),
        };
        let mut tried = std::mem::take(&mut self.tried);
        tried.clear();
        let mut done = false;
        for h in hints {
            let Some(p) = self.hinted(h, rc) else {
                continue;
            };
            if tried.contains(&p) || !order.contains(&p) {
                continue;
            }
            tried.push(p);
            if self.take_if_free(item, p) {
                done = true;
                break;
            }
        }
        // A tuple built from parts copied out of wider registers not yet
        // assigned (`%t.sub0 = COPY %pair.sub0`): of the first free
        // registers, the first that leaves those partners the register
        // their hint will offer, so that the copies can vanish.
        let pending: crate::mir::SmallVec<[Hint; 4]> = if done || item.v.index() >= input.first_temp
        {
            crate::mir::SmallVec::new()
        } else {
            hints
                .iter()
                .filter(|h| {
                    (h.mine.is_some() || h.theirs.is_some())
                        && matches!(h.other, RegRef::Virt(o)
                            if self.assignment.get(o.index()).is_some_and(Option::is_none))
                })
                .copied()
                .collect()
        };
        if !pending.is_empty() {
            let mut first = None;
            let mut chosen = None;
            let mut free = 0;
            for &p in order {
                if tried.contains(&p) || !self.fits(item, p) {
                    continue;
                }
                first.get_or_insert(p);
                if pending.iter().all(|h| self.partner_fits(h, p)) {
                    chosen = Some(p);
                    break;
                }
                free += 1;
                if free == LOOKAHEAD {
                    break;
                }
            }
            if let Some(p) = chosen.or(first) {
                done = self.take_if_free(item, p);
            }
            // The partners take their registers now: assigned later,
            // after everything queued between, they would find them gone.
            if done && chosen.is_some() {
                for h in &pending {
                    let RegRef::Virt(o) = h.other else { continue };
                    let Some(iv) = input.intervals.get(o.index()).copied().flatten() else {
                        continue;
                    };
                    let partner = Item::direct(o, iv.class);
                    self.cache.clear();
                    let offered = self.hinted(&h.reversed(item.v), iv.class);
                    if let Some(r) =
                        offered.filter(|r| self.ri.allocation_order(iv.class).contains(r))
                    {
                        self.take_if_free(&partner, r);
                    }
                }
            }
        }
        if !done {
            done = order
                .iter()
                .any(|&p| !tried.contains(&p) && self.take_if_free(item, p));
        }
        self.tried = tried;
        done
    }
}
