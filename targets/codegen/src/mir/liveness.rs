//! Live intervals with lane masks: where each virtual register — each
//! *part* of it — holds a value that is read later (LLVM's
//! `LiveIntervals` with sub-register liveness).
//!
//! The hardware fact served: a wide value occupies several register units
//! (a 64-bit pair on AMD is four 16-bit units; an Intel SIMD tuple is many
//! dwords), and its parts die at different times. When the high half of a
//! pair is dead, the units under it are free for another value. Lanes come
//! from the tables: a register class's lanes (`class_lane_mask`), a
//! sub-register index's lanes (`sub_reg_index_lane_mask`), and for each
//! unit of a physical register the lanes it holds (`unit_lane_masks`).
//!
//! Each virtual register's lanes are split into disjoint *parts*: the
//! coarsest partition such that every operand reads or writes whole parts.
//! Each part gets its own live segments, computed as LLVM's
//! `LiveRangeCalc` does: from every read, walk back to the reaching def,
//! marking blocks live-in and their predecessors live-out. Physical
//! registers named by operands (implicit defs such as AMD's `SCC`, fixed
//! operands) get live segments per register unit.
//!
//! Input must be free of PHIs (run [`crate::mir::phi_elim`] first); slots
//! are [`crate::mir::slots`].

use regdesc_runtime::{LaneBits, LaneMask, RegClass, RegUnit, RegisterInfo, SubRegIdx, Tables};
use smallvec::SmallVec;

use crate::mir::cfg::MCfg;
use crate::mir::slots::Slots;
use crate::mir::{MBlockId, MFunction, RegOperand, RegRef, VReg};

/// A half-open range of slots.
/// A register's segments: most registers are live in one or two stretches,
/// held inline (a liveness of a large function is hundreds of thousands of
/// these; a heap block each made every query a second cache miss).
pub type Segments = SmallVec<[Segment; 2]>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Segment {
    pub start: u32,
    pub end: u32,
}

impl Segment {
    pub fn contains(self, slot: u32) -> bool {
        self.start <= slot && slot < self.end
    }

    pub fn overlaps(self, o: Segment) -> bool {
        self.start < o.end && o.start < self.end
    }
}

/// Sorted, disjoint segments: whether `slot` is in one.
pub fn segments_contain(segs: &[Segment], slot: u32) -> bool {
    let k = segs.partition_point(|s| s.end <= slot);
    segs.get(k).is_some_and(|s| s.start <= slot)
}

/// Sorted, disjoint segments: whether any overlaps `[start, end)`.
pub fn segments_overlap(segs: &[Segment], seg: Segment) -> bool {
    let k = segs.partition_point(|s| s.end <= seg.start);
    segs.get(k).is_some_and(|s| s.start < seg.end)
}

/// The union of sorted segment lists, sorted and disjoint (touching
/// segments merged).
pub fn union(lists: &[&[Segment]]) -> Segments {
    let mut all: Segments = lists.iter().flat_map(|l| l.iter().copied()).collect();
    if lists.len() > 1 {
        all.sort_unstable();
    }
    merge_sorted(all)
}

fn merge_sorted(all: Segments) -> Segments {
    let mut out = Segments::with_capacity(all.len());
    for s in all {
        if s.start >= s.end {
            continue;
        }
        match out.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => out.push(s),
        }
    }
    out
}

/// Every lane of a class's registers (LLVM's `LaneMask` of the class; all
/// lanes when the description gives none).
pub fn class_lanes<L: LaneBits>(t: &Tables<L>, rc: RegClass) -> LaneMask<L> {
    let m = t.class_lane_mask(rc);
    if m.is_none() {
        LaneMask::ALL
    } else {
        m
    }
}

/// The lanes an operand with sub-register index `sub` touches in a value
/// of class `rc`.
pub fn operand_lanes<L: LaneBits>(
    t: &Tables<L>,
    rc: RegClass,
    sub: Option<SubRegIdx>,
) -> LaneMask<L> {
    let full = class_lanes(t, rc);
    match sub {
        None => full,
        Some(i) => {
            let m = t.sub_reg_index_lane_mask(i) & full;
            if m.is_none() {
                full
            } else {
                m
            }
        }
    }
}

/// The lanes a register operand reads or writes, and the lanes it only
/// ends: an `undef` sub-register def ends the other lanes' value without
/// writing them (so a value live across it may share their register).
fn op_lanes<L: LaneBits>(
    t: &Tables<L>,
    rc: RegClass,
    r: &RegOperand,
) -> (LaneMask<L>, LaneMask<L>) {
    let named = operand_lanes(t, rc, r.sub);
    if r.is_def() && r.undef() {
        (named, class_lanes(t, rc) & !named)
    } else {
        (named, LaneMask::NONE)
    }
}

/// One part of a virtual register: its lanes and where they are live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part<L: LaneBits> {
    pub lanes: LaneMask<L>,
    pub segments: Segments,
}

/// The liveness of one virtual register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveInterval<L: LaneBits> {
    pub class: RegClass,
    /// Disjoint lane parts (together, the lanes its operands touch).
    pub parts: SmallVec<[Part<L>; 1]>,
    /// Where it is written: slot and lanes. The lanes an `undef`
    /// sub-register def only ends are not written there, so not listed.
    pub defs: SmallVec<[(u32, LaneMask<L>); 1]>,
}

impl<L: LaneBits> LiveInterval<L> {
    /// Whether any of `lanes` is live at `slot`.
    pub fn live_at(&self, slot: u32, lanes: LaneMask<L>) -> bool {
        self.parts
            .iter()
            .any(|p| p.lanes.intersects(lanes) && segments_contain(&p.segments, slot))
    }

    /// Where any of `lanes` is live.
    pub fn segments_for(&self, lanes: LaneMask<L>) -> Segments {
        let lists: Vec<&[Segment]> = self
            .parts
            .iter()
            .filter(|p| p.lanes.intersects(lanes))
            .map(|p| p.segments.as_slice())
            .collect();
        union(&lists)
    }

    /// Where any lane is live.
    pub fn main_range(&self) -> Segments {
        let lists: Vec<&[Segment]> = self.parts.iter().map(|p| p.segments.as_slice()).collect();
        union(&lists)
    }

    /// Number of slots covered.
    pub fn size(&self) -> u32 {
        // One part whose segments are in order and apart (as liveness
        // makes them) is its own union: no list to build.
        if let [only] = self.parts.as_slice() {
            let apart = only.segments.iter().try_fold(0u32, |prev_end, s| {
                (s.start >= prev_end && s.start < s.end).then_some(s.end)
            });
            if apart.is_some() {
                return only.segments.iter().map(|s| s.end - s.start).sum();
            }
        }
        self.main_range().iter().map(|s| s.end - s.start).sum()
    }
}

/// A read no def reaches (the value is undefined on some path from the
/// entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UndefinedRead {
    pub vreg: VReg,
    /// A block where it is read before any def in the block, and some
    /// path from the entry to there has no def.
    pub block: MBlockId,
}

/// Live intervals of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Liveness<L: LaneBits> {
    pub slots: Slots,
    /// By virtual register; `None` for registers with no operand.
    pub vregs: Vec<Option<LiveInterval<L>>>,
    /// Where physical register operands hold register units, by unit,
    /// ascending (only units some operand names).
    pub units: Vec<(RegUnit, Segments)>,
    /// Virtual registers read where no def reaches.
    pub undefined: Vec<UndefinedRead>,
}

#[derive(Clone, Copy, Debug)]
struct Event<L: LaneBits> {
    slot: u32,
    /// The block holding `slot`.
    block: u32,
    lanes: LaneMask<L>,
    is_def: bool,
    /// A def of lanes an `undef` sub-register def does not write: it ends
    /// their value but occupies no register (no dead-def slot).
    ends_only: bool,
}

/// Scratch marks over blocks, reset in O(touched).
struct Marks {
    live_in: Vec<u32>,
    live_out: Vec<u32>,
    has_def: Vec<u32>,
    has_event: Vec<u32>,
    stamp: u32,
    /// Blocks with events or made live-out (reused between calls).
    touched: Vec<MBlockId>,
    /// Blocks to propagate liveness from (reused between calls).
    work: Vec<(MBlockId, MBlockId)>,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks {
            live_in: vec![0; n],
            live_out: vec![0; n],
            has_def: vec![0; n],
            has_event: vec![0; n],
            stamp: 0,
            touched: Vec::new(),
            work: Vec::new(),
        }
    }
}

/// Where an operand's event goes: a virtual register or a register unit.
#[derive(Clone, Copy)]
enum Key {
    Virt(usize),
    Unit(usize),
}

/// Calls `each` for every event of `f` in slot order (per instruction:
/// uses, then early-clobber defs, then defs: the order of their slots).
fn for_each_event<L: LaneBits>(f: &MFunction, t: &Tables<L>, mut each: impl FnMut(Key, Event<L>)) {
    let mut n = 0u32;
    for (bi, b) in f.blocks.iter().enumerate() {
        let block = bi as u32;
        for inst in &b.insts {
            for pass in 0..3 {
                for o in &inst.ops {
                    let Some(r) = o.reg() else { continue };
                    let (is_def, slot) = match pass {
                        0 if r.reads() => (false, Slots::use_slot(n)),
                        1 if r.is_def() && r.early_clobber() => (true, Slots::use_slot(n)),
                        2 if r.is_def() && !r.early_clobber() => (true, Slots::def_slot(n)),
                        _ => continue,
                    };
                    match r.reg {
                        RegRef::Virt(v) => {
                            let Some(rc) = f.class_of(v) else { continue };
                            let (lanes, ended) = op_lanes(t, rc, r);
                            each(
                                Key::Virt(v.index()),
                                Event {
                                    slot,
                                    block,
                                    lanes,
                                    is_def,
                                    ends_only: false,
                                },
                            );
                            if is_def && ended.any() {
                                each(
                                    Key::Virt(v.index()),
                                    Event {
                                        slot,
                                        block,
                                        lanes: ended,
                                        is_def,
                                        ends_only: true,
                                    },
                                );
                            }
                        }
                        RegRef::Phys(p) => {
                            for u in t.units(p) {
                                each(
                                    Key::Unit(u.index()),
                                    Event {
                                        slot,
                                        block,
                                        lanes: LaneMask::ALL,
                                        is_def,
                                        ends_only: false,
                                    },
                                );
                            }
                        }
                    }
                }
            }
            n += 1;
        }
    }
}

/// The events of the keys `want` selects, grouped by key in a counting
/// sort (count, then place): `start[k]..start[k + 1]` of the returned
/// array are key `k`'s (virtual registers first, then units), in slot
/// order, with no allocation per key.
fn gather_events<L: LaneBits>(
    f: &MFunction,
    t: &Tables<L>,
    want: impl Fn(Key) -> bool,
) -> (Vec<usize>, Vec<Event<L>>) {
    let nv = f.vregs.len();
    let nu = t.num_units();
    let mut start = vec![0usize; nv + nu + 1];
    let index = |k: Key| match k {
        Key::Virt(v) => v,
        Key::Unit(u) => nv + u,
    };
    for_each_event(f, t, |k, _| {
        if want(k) {
            if let Some(c) = start.get_mut(index(k) + 1) {
                *c += 1;
            }
        }
    });
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let total = start.last().copied().unwrap_or(0);
    let mut fill = start.clone();
    let blank = Event {
        slot: 0,
        block: 0,
        lanes: LaneMask::NONE,
        is_def: false,
        ends_only: false,
    };
    let mut events = vec![blank; total];
    for_each_event(f, t, |k, e| {
        if !want(k) {
            return;
        }
        let i = index(k);
        if let Some(at) = fill.get_mut(i).filter(|_| i + 1 < start.len()) {
            events[*at] = e;
            *at += 1;
        }
    });
    (start, events)
}

/// What making a register's interval reads besides its events: the
/// function, its tables, CFG and slots, the scratch marks, and the reads
/// no def reaches found so far.
struct Intervals<'a, L: LaneBits + 'static> {
    f: &'a MFunction,
    t: &'a Tables<L>,
    cfg: &'a MCfg,
    slots: Slots,
    marks: Marks,
    undefined: Vec<UndefinedRead>,
}

impl<'a, L: LaneBits> Intervals<'a, L> {
    fn new(
        f: &'a MFunction,
        t: &'a Tables<L>,
        cfg: &'a MCfg,
        undefined: Vec<UndefinedRead>,
    ) -> Self {
        Intervals {
            f,
            t,
            cfg,
            slots: Slots::new(f),
            marks: Marks::new(f.blocks.len()),
            undefined,
        }
    }

    /// The live interval of `v` from its events (`None` when it has no
    /// class or no event); a read no def reaches is added to `undefined`.
    fn of(&mut self, v: VReg, events: &[Event<L>]) -> Option<LiveInterval<L>> {
        let (f, t, cfg) = (self.f, self.t, self.cfg);
        let (slots, marks, undefined) = (&self.slots, &mut self.marks, &mut self.undefined);
        let rc = f.class_of(v)?;
        if events.is_empty() {
            return None;
        }
        let full = class_lanes(t, rc);
        let mut reported = false;
        let mut undefined_in = None;
        let parts = if events.iter().all(|e| e.lanes == full) {
            // Every operand names the whole register: one part.
            let segments = ranges(events, slots, cfg, marks, &mut undefined_in);
            vec![Part {
                lanes: full,
                segments,
            }]
        } else {
            let atoms = atoms(full, events);
            let mut parts = Vec::with_capacity(atoms.len());
            let mut relevant = Vec::with_capacity(events.len());
            for lanes in atoms {
                relevant.clear();
                relevant.extend(events.iter().filter(|e| e.lanes.intersects(lanes)));
                let mut here = None;
                let segments = ranges(&relevant, slots, cfg, marks, &mut here);
                undefined_in = undefined_in.or(here);
                if let (Some(block), false) = (here, reported) {
                    undefined.push(UndefinedRead { vreg: v, block });
                    reported = true;
                }
                parts.push(Part { lanes, segments });
            }
            parts
        };
        if let (Some(block), false) = (undefined_in, reported) {
            undefined.push(UndefinedRead { vreg: v, block });
        }
        let defs = events
            .iter()
            .filter(|e| e.is_def && !e.ends_only)
            .map(|e| (e.slot, e.lanes))
            .collect();
        Some(LiveInterval {
            class: rc,
            parts: parts.into(),
            defs,
        })
    }

    fn finish(
        self,
        vregs: Vec<Option<LiveInterval<L>>>,
        units: Vec<(RegUnit, Segments)>,
    ) -> Liveness<L> {
        Liveness {
            slots: self.slots,
            vregs,
            units,
            undefined: self.undefined,
        }
    }
}

impl<L: LaneBits> Liveness<L> {
    /// Computes the live intervals of `f` (which must have no PHIs).
    ///
    /// The events (reads and writes) are gathered in two passes over the
    /// instructions into one array grouped by register (a counting sort:
    /// count, then place), so each register's events are a slice in slot
    /// order with no allocation per register.
    pub fn compute<R: RegisterInfo<Lanes = L>>(f: &MFunction, ri: &R, cfg: &MCfg) -> Liveness<L> {
        let t = ri.tables();
        let nv = f.vregs.len();
        let nu = t.num_units();
        let (start, events) = gather_events(f, t, |_| true);
        let mut make = Intervals::new(f, t, cfg, Vec::new());
        let vregs = (0..nv)
            .map(|vi| make.of(VReg(vi as u32), &events[start[vi]..start[vi + 1]]))
            .collect();
        let mut units = Vec::new();
        for ui in 0..nu {
            let events = &events[start[nv + ui]..start[nv + ui + 1]];
            if events.is_empty() {
                continue;
            }
            let mut ignored = None;
            let segs = ranges(events, &make.slots, cfg, &mut make.marks, &mut ignored);
            units.push((RegUnit(ui as u16), segs));
        }
        make.finish(vregs, units)
    }

    /// The liveness of `f` after some of its instructions were removed
    /// (`removed`: their numbers before, ascending) and the operands of
    /// the registers `dirty` marks were changed, from the liveness before
    /// (`self`, whose intervals of dirty registers are not read): what
    /// [`Liveness::compute`] gives, computing only the dirty registers'
    /// intervals.
    ///
    /// Why this holds: an interval is made from its register's own events,
    /// the block boundaries and the CFG. A register that is not dirty and
    /// not named by a removed instruction keeps its events; every slot
    /// its segments end on is one of its own events' or a block boundary,
    /// so renumbering (slot `x` moves down by two per removed instruction
    /// before instruction `x / 2`) gives the segments liveness would
    /// compute, except that two segments a removed instruction kept
    /// apart may now touch, which merging them as liveness does settles.
    /// A block that became (or was) empty changes what a live-through
    /// segment covers, so then everything is computed again.
    pub fn after_removals<R: RegisterInfo<Lanes = L>>(
        mut self,
        f: &MFunction,
        ri: &R,
        cfg: &MCfg,
        removed: &[u32],
        dirty: &[bool],
    ) -> Liveness<L> {
        if f.blocks.iter().any(|b| b.insts.is_empty()) || self.vregs.len() > f.vregs.len() {
            return Liveness::compute(f, ri, cfg);
        }
        let t = ri.tables();
        let old_insts = self.slots.num_insts() as usize;
        // before[i]: removed instructions before old instruction i.
        let mut before = Vec::with_capacity(old_insts + 1);
        let mut k = 0u32;
        let mut next = removed.iter().peekable();
        for i in 0..=old_insts as u32 {
            while next.next_if(|&&r| r < i).is_some() {
                k += 1;
            }
            before.push(k);
        }
        let total = k + next.count() as u32;
        let remap = |x: u32| x - 2 * before.get((x / 2) as usize).copied().unwrap_or(total);
        let remap_segments = |segs: &mut Segments| {
            for s in segs.iter_mut() {
                s.start = remap(s.start);
                s.end = remap(s.end);
            }
            merge_sorted_in_place(segs);
        };
        let is_dirty = |v: usize| dirty.get(v).copied().unwrap_or(true);
        let nv = f.vregs.len();
        self.vregs.resize(nv, None);
        for (v, iv) in self.vregs.iter_mut().enumerate() {
            if is_dirty(v) {
                continue;
            }
            if let Some(iv) = iv {
                for p in iv.parts.iter_mut() {
                    remap_segments(&mut p.segments);
                }
                for d in iv.defs.iter_mut() {
                    d.0 = remap(d.0);
                }
            }
        }
        for (_, segs) in self.units.iter_mut() {
            remap_segments(segs);
        }
        let (start, events) = gather_events(f, t, |k| matches!(k, Key::Virt(v) if is_dirty(v)));
        let kept = self
            .undefined
            .into_iter()
            .filter(|u| !is_dirty(u.vreg.index()))
            .collect();
        let mut make = Intervals::new(f, t, cfg, kept);
        for (vi, iv) in self.vregs.iter_mut().enumerate() {
            if is_dirty(vi) {
                *iv = make.of(VReg(vi as u32), &events[start[vi]..start[vi + 1]]);
            }
        }
        // One entry at most per register, in register order (as computed).
        make.undefined.sort_by_key(|u| u.vreg);
        make.finish(self.vregs, self.units)
    }

    pub fn interval(&self, v: VReg) -> Option<&LiveInterval<L>> {
        self.vregs.get(v.index()).and_then(Option::as_ref)
    }
}

/// The coarsest partition of `full` in which every event's lanes are a
/// union of parts.
fn atoms<L: LaneBits>(full: LaneMask<L>, events: &[Event<L>]) -> Vec<LaneMask<L>> {
    let mut masks: Vec<LaneMask<L>> = Vec::new();
    for e in events {
        if !masks.contains(&e.lanes) {
            masks.push(e.lanes);
        }
    }
    let mut parts = vec![full];
    for m in masks {
        let mut next = Vec::with_capacity(parts.len() + 1);
        for p in parts {
            let (a, b) = (p & m, p & !m);
            if a.any() {
                next.push(a);
            }
            if b.any() {
                next.push(b);
            }
        }
        parts = next;
    }
    parts
}

/// Live segments of one variable from its events (sorted by slot, uses
/// before defs at the same slot). Sets `undefined` to a block with a read
/// that some path from the entry reaches without a def.
fn ranges<L: LaneBits>(
    events: &[Event<L>],
    slots: &Slots,
    cfg: &MCfg,
    marks: &mut Marks,
    undefined: &mut Option<MBlockId>,
) -> Segments {
    marks.stamp = marks.stamp.wrapping_add(1);
    if marks.stamp == 0 {
        marks.live_in.fill(0);
        marks.live_out.fill(0);
        marks.has_def.fill(0);
        marks.has_event.fill(0);
        marks.stamp = 1;
    }
    let stamp = marks.stamp;
    // Blocks with events: upward-exposed reads and defs.
    let mut touched = std::mem::take(&mut marks.touched);
    touched.clear();
    // (block, the block whose read made it live-in)
    let mut work = std::mem::take(&mut marks.work);
    work.clear();
    let mut last_block: Option<u32> = None;
    for e in events {
        let b = MBlockId(e.block);
        if last_block != Some(e.block) {
            last_block = Some(e.block);
            touched.push(b);
            marks.has_event[b.index()] = stamp;
            if !e.is_def {
                marks.live_in[b.index()] = stamp;
                work.push((b, b));
            }
        }
        if e.is_def {
            marks.has_def[b.index()] = stamp;
        }
    }
    // Blocks with events, in order (events come in slot order).
    let with_events = touched.len();
    while let Some((b, origin)) = work.pop() {
        if b.index() == 0 {
            undefined.get_or_insert(origin);
        }
        for &p in cfg.preds(b) {
            let pi = p.index();
            if marks.live_out[pi] != stamp {
                marks.live_out[pi] = stamp;
                if marks.has_def[pi] != stamp && marks.live_in[pi] != stamp {
                    // Not a block with events: a live-through block.
                    touched.push(p);
                    marks.live_in[pi] = stamp;
                    work.push((p, origin));
                }
            }
        }
    }
    // Live-through blocks: whole, in block order. Sorted, or when they
    // are dense in their span (long ranges), listed by scanning it.
    let mut segs = Segments::with_capacity(touched.len());
    let through = &mut touched[with_events..];
    let lo = through.iter().min().map_or(0, |b| b.index());
    let hi = through.iter().max().map_or(0, |b| b.index());
    if through.len() > 16 && hi - lo < 4 * through.len() {
        let mut k = 0;
        for b in lo..=hi {
            if marks.live_in[b] == stamp && marks.has_event[b] != stamp {
                through[k] = MBlockId(b as u32);
                k += 1;
            }
        }
    } else {
        through.sort_unstable();
    }
    let mut through = touched[with_events..].iter().peekable();
    let mut k = 0;
    let mut flush_through = |segs: &mut Segments, before: Option<MBlockId>| {
        while let Some(&&b) = through.peek() {
            if before.is_some_and(|x| b >= x) {
                break;
            }
            through.next();
            let start = slots.block_start(b);
            let end = slots.block_end(b).max(start + 1);
            match segs.last_mut() {
                Some(last) if last.end == start => last.end = end,
                _ => segs.push(Segment { start, end }),
            }
        }
    };
    for &b in &touched[..with_events] {
        flush_through(&mut segs, Some(b));
        let (bs, be) = (slots.block_start(b), slots.block_end(b));
        let mut start = (marks.live_in[b.index()] == stamp).then_some(bs);
        let mut end = bs;
        // The open value was only ended (no register written) and not read
        // since: no segment unless it is live out.
        let mut ended = false;
        while let Some(e) = events.get(k).filter(|e| e.block == b.0) {
            k += 1;
            if e.is_def {
                if let Some(s) = start {
                    segs.push(Segment { start: s, end });
                }
                start = Some(e.slot);
                end = if e.ends_only { e.slot } else { e.slot + 1 };
                ended = e.ends_only;
            } else if !ended {
                if start.is_none() {
                    start = Some(bs);
                }
                end = e.slot + 1;
            }
            // (A read of lanes an `undef` sub-register def only ended
            // reads no value: a MAD accumulator's high half that no bit
            // read depends on. It keeps no register.)
        }
        if let Some(s) = start {
            let out = marks.live_out[b.index()] == stamp;
            if ended && !out {
                continue;
            }
            let e = if out { be } else { end };
            segs.push(Segment {
                start: s,
                end: e.max(s + 1),
            });
        }
    }
    flush_through(&mut segs, None);
    marks.touched = touched;
    marks.work = work;
    merge_sorted_in_place(&mut segs);
    segs
}

/// Merges touching and overlapping segments of a sorted list in place.
fn merge_sorted_in_place(segs: &mut Segments) {
    let mut w = 0;
    for r in 0..segs.len() {
        let s = segs[r];
        if s.start >= s.end {
            continue;
        }
        if w > 0 && s.start <= segs[w - 1].end {
            segs[w - 1].end = segs[w - 1].end.max(s.end);
        } else {
            segs[w] = s;
            w += 1;
        }
    }
    segs.truncate(w);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_queries() {
        let s = vec![Segment { start: 2, end: 5 }, Segment { start: 8, end: 9 }];
        assert!(segments_contain(&s, 2));
        assert!(!segments_contain(&s, 5));
        assert!(segments_contain(&s, 8));
        assert!(!segments_contain(&s, 9));
        assert!(segments_overlap(&s, Segment { start: 4, end: 6 }));
        assert!(!segments_overlap(&s, Segment { start: 5, end: 8 }));
        let u = union(&[&s, &[Segment { start: 5, end: 8 }]]);
        assert_eq!(u.as_slice(), [Segment { start: 2, end: 9 }]);
    }
}
