//! Spill rounds on one liveness: assignment runs again after each spill,
//! but the function's liveness is computed once and the spill code is
//! inserted once, at the end.
//!
//! Why this gives what recomputing would: spilling a register `v`
//! everywhere changes nothing about the other registers' live ranges
//! except that instructions are inserted among them (a reload before each
//! instruction that reads `v`, a store after each that writes it), and the
//! new short-lived registers live only from a reload to the instruction,
//! or from the instruction to its store. Numbered in the function as it
//! was (see [`crate::mir::slots`]: instruction `n` reads at `2n` and writes
//! at `2n + 1`), the new register of instruction `n` lives on
//!
//! - `[2n, 2n + 1)` when it is reloaded and only read there,
//! - `[2n + 1, 2n + 2)` when it is written there and stored,
//! - `[2n, 2n + 2)` when both (tied operands, or a sub-register def that
//!   keeps the other lanes), and from `2n` when the def is early-clobber;
//!
//! and against every other register and register unit it overlaps
//! exactly what it overlaps in the function with the spill code inserted
//! and renumbered: values live across the instruction, values read there
//! (for a reload), values written there (for a store), early-clobber defs
//! of the instruction. Among the new registers of one instruction, the
//! order of the reloads matters (a reloaded register's unread lanes are
//! dead at once): [`crate::regalloc::temps`] checks those against each
//! other by that order. The one approximation left: the unread lanes of a
//! reloaded register are taken to clash with an early-clobber def of its
//! instruction (with the reloads in place they are dead before it). The
//! other registers' segments keep their order relative to each other. So
//! each round assigns over the same intervals minus the spilled
//! registers, plus the new registers' one-segment intervals, and never
//! renumbers or recomputes liveness. The spill weights of the registers
//! that stay are computed for the lengths their ranges will have with the
//! planned spill instructions inside ([`renumbered_weights`]).
//!
//! This holds when the target's spill instructions name no register but
//! the new one. When a [`SpillHook`]'s instructions name others (a
//! physical register, a scratch register of their own), allocation goes
//! on from the function with the spill code inserted, recomputing liveness
//! each round ([`legacy_rounds`]).

use std::time::Instant;

use regdesc_runtime::{LaneMask, Reg, RegisterInfo, SubRegIdx};

use crate::mir::cfg::MCfg;
use crate::mir::liveness::{class_lanes, operand_lanes, LiveInterval, Liveness, Part, Segment};
use crate::mir::slots::Slots;
use crate::mir::SmallVec;
use crate::mir::{InstrSet, MBlockId, MFunction, RegRef, VReg};
use crate::regalloc::assign::{self, copy_operands, hint_pairs, live_in_move, Hints, RoundInput};
use crate::regalloc::coalesce::Undo;
use crate::regalloc::evict;
use crate::regalloc::spill::{self, SpillHook};
use crate::regalloc::temps::TempSite;
use crate::regalloc::{AllocError, AllocOptions, AllocStats, Allocation};

/// A spill temporary planned for instruction `n` of the function (as it
/// was before any spill code), standing for spilled register `of`.
struct Temp<L: regdesc_runtime::LaneBits> {
    n: u32,
    of: VReg,
    site: TempSite<L>,
    /// `None`: the instruction neither reads nor writes it (an `undef`
    /// use), so it has no interval.
    interval: Option<LiveInterval<L>>,
}

/// The id of the spill temporary of each (instruction, spilled register):
/// a short list per instruction (an instruction names a few registers).
struct TempOf {
    by_inst: Vec<SmallVec<[(VReg, u32); 1]>>,
    len: usize,
}

impl TempOf {
    fn new(num_insts: usize) -> TempOf {
        TempOf {
            by_inst: vec![SmallVec::new(); num_insts + 1],
            len: 0,
        }
    }

    fn insert(&mut self, n: u32, v: VReg, id: usize) {
        if let Some(list) = self.by_inst.get_mut(n as usize) {
            match list.iter_mut().find(|(w, _)| *w == v) {
                Some(e) => e.1 = id as u32,
                None => {
                    list.push((v, id as u32));
                    self.len += 1;
                }
            }
        }
    }

    fn get(&self, n: u32, v: VReg) -> Option<usize> {
        let list = self.by_inst.get(n as usize)?;
        list.iter()
            .find(|(w, _)| *w == v)
            .map(|&(_, id)| id as usize)
    }

    fn len(&self) -> usize {
        self.len
    }
}

/// A copy of the function: instruction number, def and source.
type Copy = (
    u32,
    (RegRef, Option<SubRegIdx>),
    (RegRef, Option<SubRegIdx>),
);

/// How to get back the function as it was before coalescing, when the
/// rounds after coalescing run out of registers and allocation starts
/// again without it.
pub(crate) enum Before {
    /// No coalescing was done: out of registers is final (and the error
    /// names the spill temporary that found no register).
    Nothing,
    /// The function is as coalescing left it: undo that.
    Undo(Undo),
    /// Spill code that names other registers is about to go in (and
    /// rounds that recompute liveness after it): a copy, made then.
    Saved(Box<MFunction>),
    /// Spill code went in that cannot be undone.
    Lost,
}

impl Before {
    /// Puts `f` back as it was before coalescing; false when that is not
    /// possible.
    pub(crate) fn restore(self, f: &mut MFunction) -> bool {
        match self {
            Before::Undo(u) => {
                u.restore(f);
                true
            }
            Before::Saved(g) => {
                *f = *g;
                true
            }
            Before::Nothing | Before::Lost => false,
        }
    }
}

/// Assignment rounds with spilling, after coalescing (see the module doc),
/// on `live`, the liveness of `f` (computed here when `None`).
/// While `before` can restore the function, running out of registers
/// leaves `f` as it was on entry.
#[allow(clippy::too_many_arguments)]
pub(crate) fn assign_rounds<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    cfg: &MCfg,
    live: Option<Liveness<R::Lanes>>,
    hook: &dyn SpillHook,
    opts: &AllocOptions,
    mut stats: AllocStats,
    before: &mut Before,
) -> Result<Allocation, AllocError> {
    let start = Instant::now();
    let live = live.unwrap_or_else(|| Liveness::compute(f, ri, cfg));
    stats.time.liveness += start.elapsed();

    let start = Instant::now();
    let nbase = f.vregs.len();
    let freq = assign::use_frequencies(f, cfg);
    let mut weight = assign::weights_from(&freq, &live);
    let mut unspillable = vec![false; nbase];
    // Spill instructions planned before each instruction's reloads (by
    // instruction number), and its reloads, for the lengths of ranges.
    let num = live.slots.num_insts() as usize;
    let mut reloads_at = vec![0u32; num + 1];
    let mut stores_at = vec![0u32; num + 1];
    let mut copies: Vec<Copy> = Vec::new();
    // Where each instruction is, and (register, operand position,
    // instruction) for each register an instruction names (first mention).
    let mut place: Vec<(u32, u32)> = Vec::with_capacity(live.slots.num_insts() as usize);
    let mut mention: Vec<(u32, u32, u32)> = Vec::with_capacity(2 * num);
    let mut n = 0u32;
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.insts.iter().enumerate() {
            if let Some((d, s)) = copy_operands(instrs, i) {
                copies.push((n, (d.reg, d.sub), (s.reg, s.sub)));
            } else if let Some((d, p)) = live_in_move(instrs, i) {
                copies.push((n, (d.reg, d.sub), (RegRef::Phys(p), None)));
            }
            let first = mention.len();
            for (pos, o) in i.ops.iter().enumerate() {
                if let Some(v) = o.vreg() {
                    if !mention[first..].iter().any(|m| m.0 == v.0) {
                        mention.push((v.0, pos as u32, n));
                    }
                }
            }
            place.push((bi as u32, k as u32));
            n += 1;
        }
    }
    // By register: mention_start[v]..mention_start[v + 1], each register's
    // in instruction order (a counting sort: a comparison sort of the
    // million mentions of a 100k-instruction function was a tenth of
    // the round setup).
    let mut mention_start = vec![0u32; nbase + 1];
    for &(v, _, _) in &mention {
        if let Some(c) = mention_start.get_mut(v as usize + 1) {
            *c += 1;
        }
    }
    for i in 1..mention_start.len() {
        mention_start[i] += mention_start[i - 1];
    }
    let mention = {
        let mut fill = mention_start.clone();
        let mut by_reg = vec![(0u32, 0u32, 0u32); mention_start[nbase] as usize];
        for &m in &mention {
            if let Some(at) = fill
                .get_mut(m.0 as usize)
                .filter(|_| (m.0 as usize) < nbase)
            {
                by_reg[*at as usize] = m;
                *at += 1;
            }
        }
        by_reg
    };
    stats.time.assignment += start.elapsed();

    let mut spilled = vec![false; nbase];
    // Spilled registers, round by round (the order of their stack slots).
    let mut spill_order: Vec<VReg> = Vec::new();
    let mut temps: Vec<Temp<R::Lanes>> = Vec::new();
    // (instruction, spilled register) -> id of its temporary.
    let mut temp_of = TempOf::new(num);
    let mut scratch = assign::RoundScratch::for_rounds_of_one_liveness();
    // The last round's assignment (its registers are in the scratch's
    // matrix) and the temporaries planned since, for an incremental round
    // (`evict`).
    let mut previous: Option<(Vec<Option<Reg>>, usize)> = None;
    loop {
        stats.rounds += 1;
        if stats.rounds > opts.max_rounds {
            return Err(AllocError::TooManyRounds(opts.max_rounds));
        }
        let start = Instant::now();
        if !temps.is_empty() {
            renumbered_weights(
                &live,
                &scratch,
                &freq,
                &spilled,
                &reloads_at,
                &stores_at,
                &mut weight,
            );
        }
        let mut intervals: Vec<Option<&LiveInterval<R::Lanes>>> =
            Vec::with_capacity(nbase + temps.len());
        intervals.extend((0..nbase).map(|v| match spilled[v] {
            true => None,
            false => live.interval(VReg(v as u32)),
        }));
        intervals.extend(temps.iter().map(|t| t.interval.as_ref()));
        let hints = round_hints(&copies, &spilled, &temp_of, nbase + temps.len());
        let sites: Vec<TempSite<R::Lanes>> = temps.iter().map(|t| t.site).collect();
        let input = RoundInput {
            intervals,
            weight: &weight,
            unspillable: &unspillable,
            hints: &hints,
            fixed: &live.units,
            num_slots: 2 * live.slots.num_insts() + 2,
            first_temp: nbase,
            temps: &sites,
        };
        let incremental = previous.take().and_then(|(assignment, first_new)| {
            evict::continue_round(
                ri,
                &input,
                &opts.reserved,
                &mut scratch,
                assignment,
                nbase + first_new..nbase + temps.len(),
            )
        });
        let round = match incremental {
            Some(round) => {
                stats.incremental_rounds += 1;
                stats.evicted += round.evicted;
                round
            }
            None => assign::run_round(ri, &input, &opts.reserved, &mut scratch),
        };
        stats.time.assignment += start.elapsed();

        if let Some(&id) = round.failed.iter().find(|v| v.index() >= nbase) {
            // A temporary found no register. After coalescing, allocation
            // starts again without it: leave the function as it is.
            if !matches!(before, Before::Nothing) {
                let t = &temps[id.index() - nbase];
                let class = f
                    .class_of(t.of)
                    .map_or(String::from("?"), |c| ri.tables().class_name(c).to_string());
                return Err(AllocError::OutOfRegisters { vreg: t.of, class });
            }
            // Insert the spill code so far and name it.
            let ins = spill::insert_spill_code(f, ri, instrs, hook, &live, &spill_order)
                .map_err(AllocError::Spill)?;
            let t = &temps[id.index() - nbase];
            let vreg = ins
                .made
                .iter()
                .find(|&&(n, v, _)| n == t.n && v == t.of)
                .map_or(id, |&(_, _, tmp)| tmp);
            let class = f
                .class_of(vreg)
                .map_or(String::from("?"), |c| ri.tables().class_name(c).to_string());
            return Err(AllocError::OutOfRegisters { vreg, class });
        }
        if round.failed.is_empty() {
            return finish(
                f,
                ri,
                instrs,
                hook,
                opts,
                stats,
                before,
                &live,
                &spill_order,
                &temp_of,
                round.assignment,
            );
        }

        // Plan the temporaries of the registers that failed.
        let start = Instant::now();
        let first_new = temps.len();
        for &v in &round.failed {
            spilled[v.index()] = true;
        }
        // The instructions naming them, in order, and in each the
        // registers in the order of their first operands (the order the
        // spill code will be inserted in).
        let mut at: Vec<(u32, u32, VReg)> = Vec::new();
        for &v in &round.failed {
            let (a, b) = (
                mention_start.get(v.index()).copied().unwrap_or(0) as usize,
                mention_start.get(v.index() + 1).copied().unwrap_or(0) as usize,
            );
            at.extend(mention[a..b].iter().map(|&(_, pos, n)| (n, pos, v)));
        }
        at.sort_unstable();
        for &(n, pos, v) in &at {
            let Some(inst) = place
                .get(n as usize)
                .and_then(|&(b, k)| f.blocks.get(MBlockId(b))?.insts.get(k as usize))
            else {
                continue;
            };
            let Some(rc) = f.class_of(v) else { continue };
            let site = spill::site(ri, instrs, &live, inst, n, v, rc).map_err(AllocError::Spill)?;
            let seg = temp_segment(n, &site);
            let lanes = class_lanes(ri.tables(), rc);
            let interval = seg.map(|seg| LiveInterval {
                class: rc,
                parts: smallvec::smallvec![Part {
                    lanes,
                    segments: smallvec::smallvec![seg],
                }],
                defs: SmallVec::new(),
            });
            let reload_only = site.reads && !site.writes && !site.early_def && !site.late_def;
            let read = inst
                .reg_ops()
                .filter(|(_, r)| r.vreg() == Some(v) && r.reads())
                .fold(LaneMask::NONE, |m, (_, r)| {
                    m | operand_lanes(ri.tables(), rc, r.sub)
                })
                & lanes;
            let (used, dead) = match reload_only && read.any() {
                true => (read, lanes & !read),
                false => (lanes, LaneMask::NONE),
            };
            let tsite = TempSite {
                n,
                pos,
                reads: site.reads,
                lanes,
                used,
                dead,
                seg,
            };
            reloads_at[n as usize] += u32::from(site.reads);
            stores_at[n as usize] += u32::from(site.writes);
            temp_of.insert(n, v, nbase + temps.len());
            temps.push(Temp {
                n,
                of: v,
                site: tsite,
                interval,
            });
            weight.push(f32::INFINITY);
            unspillable.push(true);
        }
        spill_order.extend(round.failed.iter().copied());
        stats.spilled += round.failed.len();
        previous = Some((round.assignment, first_new));
        stats.time.spilling += start.elapsed();
    }
}

/// Where the temporary of instruction `n` lives, numbered as the function
/// was (see the module doc); `None` when it is neither read nor written.
fn temp_segment(n: u32, s: &spill::Site) -> Option<Segment> {
    let use_slot = Slots::use_slot(n);
    let def_slot = Slots::def_slot(n);
    let start = if s.reads || s.early_def {
        use_slot
    } else if s.late_def {
        def_slot
    } else {
        return None;
    };
    // Written (and stored after), or a dead def: through the def slot.
    let end = if s.writes || s.late_def {
        def_slot + 1
    } else {
        use_slot + 1
    };
    Some(Segment { start, end })
}

/// The spill weights of the registers that stay, with their lengths
/// counted in the function as it will be, one instruction per planned
/// reload and store (what recomputing liveness after inserting the spill
/// code would give when the hook makes one instruction each). Where a
/// segment's end could be either, an even slot that starts a block is
/// taken as the block's edge (so an early-clobber def at a block's first
/// instruction, or a dead def at its last, is measured from or to the
/// edge, past that instruction's reloads or stores).
fn renumbered_weights<L: regdesc_runtime::LaneBits>(
    live: &Liveness<L>,
    scratch: &assign::RoundScratch<L>,
    freq: &[f32],
    spilled: &[bool],
    reloads_at: &[u32],
    stores_at: &[u32],
    weight: &mut [f32],
) {
    // before[m]: spill instructions inserted before instruction m's
    // reloads.
    let mut before = Vec::with_capacity(reloads_at.len());
    let mut acc = 0u32;
    for (r, s) in reloads_at.iter().zip(stores_at) {
        before.push(acc);
        acc += r + s;
    }
    let slots = &live.slots;
    let at = |m: u32| before.get(m as usize).copied().unwrap_or(acc);
    let renum = |m: u32| m + at(m) + reloads_at.get(m as usize).copied().unwrap_or(0);
    // Instructions that start a block, as bits.
    let mut starts = vec![0u64; (slots.num_insts() as usize) / 64 + 1];
    for b in 0..slots.num_blocks() {
        let m = (slots.block_start(MBlockId(b as u32)) / 2) as usize;
        if let Some(w) = starts.get_mut(m / 64) {
            *w |= 1 << (m % 64);
        }
    }
    let is_block_start = |m: u32| {
        let m = m as usize;
        starts.get(m / 64).is_some_and(|w| w & (1 << (m % 64)) != 0)
    };
    let map_start = |s: u32| {
        let m = s / 2;
        match (s % 2, is_block_start(m)) {
            (1, _) => 2 * renum(m) + 1,
            (_, true) => 2 * (m + at(m)),
            _ => 2 * renum(m),
        }
    };
    let map_end = |e: u32| {
        let m = e / 2;
        match (e % 2, is_block_start(m) || m >= slots.num_insts()) {
            (1, _) => 2 * renum(m) + 1,
            (_, true) => 2 * (m + at(m)),
            _ => 2 * renum(m - 1) + 2,
        }
    };
    for (v, w) in weight.iter_mut().enumerate().take(spilled.len()) {
        if spilled[v] {
            continue;
        }
        // A one-part interval's segments as the rounds gathered them (in
        // one array, read in order), else from the interval.
        if let Some(segs) = scratch.one_part_segments(VReg(v as u32)) {
            let size: u32 = segs
                .iter()
                .map(|s| map_end(s.end) - map_start(s.start))
                .sum();
            *w = assign::weight_of(freq[v], size);
            continue;
        }
        let Some(iv) = live.interval(VReg(v as u32)) else {
            continue;
        };
        let size: u32 = match iv.parts.as_slice() {
            [only] => only
                .segments
                .iter()
                .map(|s| map_end(s.end) - map_start(s.start))
                .sum(),
            _ => iv
                .main_range()
                .iter()
                .map(|s| map_end(s.end) - map_start(s.start))
                .sum(),
        };
        *w = assign::weight_of(freq[v], size);
    }
}

/// The copy hints of a round: a spilled register's side of a copy is its
/// temporary at that copy.
fn round_hints(copies: &[Copy], spilled: &[bool], temp_of: &TempOf, ids: usize) -> Hints {
    let mut pairs = Vec::with_capacity(2 * copies.len());
    let id = |n: u32, r: RegRef| match r {
        RegRef::Virt(v) if spilled.get(v.index()).copied().unwrap_or(false) => temp_of
            .get(n, v)
            .map_or(r, |t| RegRef::Virt(VReg(t as u32))),
        _ => r,
    };
    for &(n, d, s) in copies {
        hint_pairs(&mut pairs, (id(n, d.0), d.1), (id(n, s.0), s.1));
    }
    Hints::new(ids, &pairs)
}

/// Inserts the spill code and gives each new register the register its
/// temporary got. When the spill instructions name other registers, goes
/// on with [`legacy_rounds`].
#[allow(clippy::too_many_arguments)]
fn finish<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    hook: &dyn SpillHook,
    opts: &AllocOptions,
    mut stats: AllocStats,
    before: &mut Before,
    live: &Liveness<R::Lanes>,
    spill_order: &[VReg],
    temp_of: &TempOf,
    by_id: Vec<Option<Reg>>,
) -> Result<Allocation, AllocError> {
    let nbase = f.vregs.len();
    if spill_order.is_empty() {
        let mut assignment = by_id;
        assignment.truncate(nbase);
        return Ok(Allocation { assignment, stats });
    }
    let start = Instant::now();
    if let Before::Undo(_) = before {
        // Rounds that recompute liveness may still run out of registers:
        // keep the function as it was before coalescing while it can be
        // had back.
        if !spill::hook_is_plain(f, hook, spill_order) {
            let mut g = f.clone();
            if std::mem::replace(before, Before::Lost).restore(&mut g) {
                *before = Before::Saved(Box::new(g));
            }
        }
    }
    let ins = spill::insert_spill_code(f, ri, instrs, hook, live, spill_order)
        .map_err(AllocError::Spill)?;
    if let Before::Undo(_) = before {
        *before = Before::Lost;
    }
    stats.time.spilling += start.elapsed();
    stats.reloads += ins.spilled.reloads;
    stats.stores += ins.spilled.stores;
    if !ins.plain || ins.made.len() != temp_of.len() {
        let mut unspillable = vec![false; f.vregs.len()];
        for &(_, _, tmp) in &ins.made {
            unspillable[tmp.index()] = true;
        }
        return legacy_rounds(f, ri, instrs, hook, opts, stats, unspillable);
    }
    let mut assignment: Vec<Option<Reg>> = by_id.iter().take(nbase).copied().collect();
    assignment.resize(f.vregs.len(), None);
    for &(n, v, tmp) in &ins.made {
        if let Some(id) = temp_of.get(n, v) {
            assignment[tmp.index()] = by_id.get(id).copied().flatten();
        }
    }
    Ok(Allocation { assignment, stats })
}

/// Rounds that recompute liveness on the function as it is each time and
/// insert spill code after each (for spill hooks whose instructions name
/// other registers than the spilled value's).
pub(crate) fn legacy_rounds<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    hook: &dyn SpillHook,
    opts: &AllocOptions,
    mut stats: AllocStats,
    mut unspillable: Vec<bool>,
) -> Result<Allocation, AllocError> {
    let t = ri.tables();
    let cfg = MCfg::new(f);
    loop {
        stats.rounds += 1;
        if stats.rounds > opts.max_rounds {
            return Err(AllocError::TooManyRounds(opts.max_rounds));
        }
        let start = Instant::now();
        let live = Liveness::compute(f, ri, &cfg);
        stats.time.liveness += start.elapsed();
        let start = Instant::now();
        unspillable.resize(f.vregs.len(), false);
        let round = assign::assign_round(f, ri, instrs, &cfg, &live, &unspillable, &opts.reserved);
        stats.time.assignment += start.elapsed();
        if round.failed.is_empty() {
            return Ok(Allocation {
                assignment: round.assignment,
                stats,
            });
        }
        if let Some(&v) = round.failed.iter().find(|v| unspillable[v.index()]) {
            let class = f
                .class_of(v)
                .map_or(String::from("?"), |c| t.class_name(c).to_string());
            return Err(AllocError::OutOfRegisters { vreg: v, class });
        }
        let start = Instant::now();
        let s = spill::spill_everywhere(f, ri, instrs, hook, &live, &round.failed)
            .map_err(AllocError::Spill)?;
        stats.time.spilling += start.elapsed();
        stats.spilled += round.failed.len();
        stats.reloads += s.reloads;
        stats.stores += s.stores;
        unspillable.resize(f.vregs.len(), false);
        for v in s.temps {
            unspillable[v.index()] = true;
        }
    }
}
