//! Spill rounds after the first, done incrementally: the new spill
//! temporaries go into the previous round's assignment, evicting cheaper
//! ranges where no register is free (LLVM's `RAGreedy` evicts the same
//! way), instead of assigning every range of the function again.
//!
//! The hardware fact served is the one [`crate::regalloc::matrix`]
//! serves (registers overlap through their units); what this module adds
//! is cost. A round that spills a few dozen ranges of a function of 100k
//! instructions changes the registers of the ranges near their uses and
//! defs, not of the whole function: assigning everything again made
//! every spill round cost as much as the first one, and a larger
//! function needs more rounds (the one range the temporaries of the last
//! round pushed out), so the allocator grew faster than the code.
//!
//! A round here:
//!
//! 1. Each new temporary (in queue order) takes a free register of its
//!    class where there is one (copy hints first), as in a full round.
//! 2. A temporary that finds none evicts: for each register of its
//!    class, the assigned ranges live at its instruction that share a
//!    unit with that register; the register whose ranges have the
//!    smallest largest spill weight is taken and those ranges lose their
//!    register. Ranges that cannot be spilled are never evicted, and
//!    temporaries only when they belong to the same instruction (they
//!    move to another register).
//! 3. The evicted ranges are assigned again, most valuable first (moved
//!    temporaries first), to any free register; ranges that find none
//!    are this round's failures and are spilled by the next round. A
//!    moved temporary that finds none evicts ranges in turn (never
//!    another temporary), and what it evicts is assigned the same way.
//!
//! When eviction cannot make room (the register is held by something no
//! range owns: a physical register operand), or a moved temporary finds
//! no register even when its instruction's temporaries are placed again
//! together, the caller runs a full round
//! instead: the incremental round never fails where a full one would
//! succeed.

use regdesc_runtime::{Reg, RegisterInfo};

use crate::mir::VReg;
use crate::regalloc::assign::{
    queue_entry, queue_key, queued_id, reserved_units, Assigner, Item, OneParts, QueueKey, Round,
    RoundInput, RoundScratch,
};

/// The ranges live at some instructions, by instruction: which slots of
/// the instruction (bit 0: its use slot, bit 1: its def slot) each
/// covers.
struct LiveAt {
    /// Per instruction of the function: its row, or `u32::MAX`.
    row: Vec<u32>,
    /// Row `r` is `entries[start[r]..start[r + 1]]`: (id, slot bits).
    start: Vec<u32>,
    entries: Vec<(u32, u8)>,
}

impl LiveAt {
    /// The ranges of `input` (below `first_temp`) live at the
    /// instructions `insts` (sorted, distinct).
    fn new<L: regdesc_runtime::LaneBits>(
        input: &RoundInput<'_, L>,
        one_parts: &OneParts<'_, L>,
        insts: &[u32],
    ) -> LiveAt {
        let num_insts = (input.num_slots / 2) as usize;
        let mut row = vec![u32::MAX; num_insts + 1];
        let mut bits = vec![0u64; num_insts / 64 + 1];
        for (r, &n) in insts.iter().enumerate() {
            if let Some(x) = row.get_mut(n as usize) {
                *x = r as u32;
                bits[n as usize / 64] |= 1 << (n % 64);
            }
        }
        // Two passes over every segment: count, then fill.
        let mut start = vec![0u32; insts.len() + 1];
        let mut entries: Vec<(u32, u8)> = Vec::new();
        for pass in 0..2 {
            let mut fill = start.clone();
            for id in 0..input.first_temp.min(input.intervals.len()) {
                let mut visit =
                    |s: u32, e: u32, fill: &mut Vec<u32>, entries: &mut Vec<(u32, u8)>| {
                        if e <= s {
                            return;
                        }
                        // Instructions n with [2n, 2n + 2) meeting [s, e).
                        let (lo, hi) = ((s / 2) as usize, ((e - 1) / 2) as usize);
                        let mut w = lo / 64;
                        while w <= hi / 64 && w < bits.len() {
                            let mut word = bits[w];
                            if w == lo / 64 {
                                word &= u64::MAX << (lo % 64);
                            }
                            if w == hi / 64 && hi % 64 != 63 {
                                word &= (1u64 << (hi % 64 + 1)) - 1;
                            }
                            while word != 0 {
                                let n = w * 64 + word.trailing_zeros() as usize;
                                word &= word - 1;
                                let r = row[n] as usize;
                                let (u, d) = (2 * n as u32, 2 * n as u32 + 1);
                                let slots =
                                    u8::from(s <= u && u < e) | (u8::from(s <= d && d < e) << 1);
                                if pass == 0 {
                                    start[r + 1] += 1;
                                } else {
                                    entries[fill[r] as usize] = (id as u32, slots);
                                    fill[r] += 1;
                                }
                            }
                            w += 1;
                        }
                    };
                match one_parts.segments(VReg(id as u32)) {
                    Some(segs) => {
                        for s in segs {
                            visit(s.start, s.end, &mut fill, &mut entries);
                        }
                    }
                    None => {
                        let Some(iv) = input.intervals[id] else {
                            continue;
                        };
                        for s in iv.main_range().iter() {
                            visit(s.start, s.end, &mut fill, &mut entries);
                        }
                    }
                }
            }
            if pass == 0 {
                for r in 1..start.len() {
                    start[r] += start[r - 1];
                }
                entries = vec![(0, 0); start.last().copied().unwrap_or(0) as usize];
            }
        }
        LiveAt {
            row,
            start,
            entries,
        }
    }

    fn at(&self, n: u32) -> &[(u32, u8)] {
        match self.row.get(n as usize) {
            Some(&r) if r != u32::MAX => {
                &self.entries[self.start[r as usize] as usize..self.start[r as usize + 1] as usize]
            }
            _ => &[],
        }
    }
}

/// The next round after spilling, from the previous round's
/// `assignment` (whose registers are in `scratch.matrix`): assigns the
/// temporaries `new_temps` (ids) with eviction (see the module doc).
/// `None`: eviction could not place a temporary; run a full round.
pub(crate) fn continue_round<R: RegisterInfo>(
    ri: &R,
    input: &RoundInput<'_, R::Lanes>,
    reserved: &[Reg],
    scratch: &mut RoundScratch<R::Lanes>,
    mut assignment: Vec<Option<Reg>>,
    new_temps: std::ops::Range<usize>,
) -> Option<Round> {
    let t = ri.tables();
    assignment.resize(input.intervals.len(), None);
    let mut queue: Vec<u128> = new_temps
        .filter_map(|id| {
            let iv = input.intervals.get(id).copied().flatten()?;
            let v = VReg(id as u32);
            Some(queue_entry(queue_key(t, input, v, iv.class), id as u32))
        })
        .collect();
    queue.sort_unstable_by(|x, y| y.cmp(x));

    // The index of live ranges is built only for the instructions of the
    // temporaries that find no free register.
    let mut homeless: Vec<VReg> = Vec::new();
    let (matrix, one_parts) = scratch.split();
    let mut a = Assigner::new(ri, input, matrix, assignment, &[], &[]);
    a.reserved_units = reserved_units(t, reserved);
    for &e in &queue {
        let v = VReg(queued_id(e));
        let Some(iv) = input.intervals[v.index()] else {
            continue;
        };
        if !a.try_assign(&Item::direct(v, iv.class)) {
            homeless.push(v);
        }
    }
    if homeless.is_empty() {
        a.place_deferred();
        return Some(Round {
            assignment: a.assignment,
            failed: Vec::new(),
            evicted: 0,
        });
    }
    let mut insts: Vec<u32> = homeless
        .iter()
        .filter_map(|v| input.temps.get(v.index() - input.first_temp).map(|s| s.n))
        .collect();
    insts.sort_unstable();
    insts.dedup();
    let live_at = LiveAt::new(input, &one_parts, &insts);
    let mut evicted: Vec<VReg> = Vec::new();
    for &v in &homeless {
        if !evict_for(&mut a, &live_at, v, Moves::Temps, &mut evicted) {
            return None;
        }
    }
    a.place_deferred();
    let by_value = |v: &VReg| {
        let class = input.intervals[v.index()].map(|iv| iv.class);
        std::cmp::Reverse((
            class.map(|c| queue_key(t, input, *v, c)),
            std::cmp::Reverse(v.0),
        ))
    };
    let mut failed = Vec::new();
    let mut num_evicted = 0;
    // Moved temporaries may evict in turn (ranges only, never another
    // temporary): what they push out is assigned in the next pass.
    while !evicted.is_empty() {
        let mut batch = std::mem::take(&mut evicted);
        batch.sort_unstable_by_key(by_value);
        num_evicted += batch.len();
        for v in batch {
            let Some(iv) = input.intervals[v.index()] else {
                continue;
            };
            let is_temp = v.index() >= input.first_temp;
            if !is_temp && a.has_deferred() {
                a.place_deferred();
            }
            if a.assignment[v.index()].is_some() || a.try_assign(&Item::direct(v, iv.class)) {
                continue;
            }
            if !is_temp {
                failed.push(v);
            } else if !evict_for(&mut a, &live_at, v, Moves::RangesOnly, &mut evicted)
                && !regroup(&mut a, &live_at, v, by_value, &mut evicted)
            {
                // The instruction's temporaries found no registers even
                // placed again together: a full round places them.
                return None;
            }
        }
        a.place_deferred();
    }
    failed.sort_unstable();
    Some(Round {
        assignment: a.assignment,
        failed,
        evicted: num_evicted,
    })
}

/// Places temporary `v` and the other temporaries of its instruction
/// again, together: each loses its register, then they are assigned
/// most valuable first (the largest classes, which have the fewest
/// candidates), evicting ranges (not each other) where nothing is free.
/// A moved temporary can find every candidate held by the others, which
/// took the registers its class can use in an order that suited them.
fn regroup<R: RegisterInfo>(
    a: &mut Assigner<'_, R>,
    live_at: &LiveAt,
    v: VReg,
    by_value: impl Fn(&VReg) -> std::cmp::Reverse<(Option<QueueKey>, std::cmp::Reverse<u32>)>,
    evicted: &mut Vec<VReg>,
) -> bool {
    let mut group: Vec<VReg> = a.assigned_instruction_temps(v).collect();
    for &o in &group {
        a.unassign(o);
    }
    group.push(v);
    group.sort_unstable_by_key(&by_value);
    for o in group {
        let Some(iv) = a.input.intervals[o.index()] else {
            continue;
        };
        if !a.try_assign(&Item::direct(o, iv.class))
            && !evict_for(a, live_at, o, Moves::RangesOnly, evicted)
        {
            return false;
        }
    }
    true
}

/// What [`evict_for`] may take a register from besides the ranges live
/// at the instruction.
#[derive(Clone, Copy)]
enum Moves {
    /// Also the instruction's other temporaries (they move).
    Temps,
    /// Only ranges: for a temporary that was moved itself, so that two
    /// temporaries never take each other's register in turn.
    RangesOnly,
}

/// Makes room for temporary `v` by evicting the cheapest ranges live at
/// its instruction, and assigns it; the evicted ranges are added to
/// `evicted`. False when no register can be freed.
fn evict_for<R: RegisterInfo>(
    a: &mut Assigner<'_, R>,
    live_at: &LiveAt,
    v: VReg,
    moves: Moves,
    evicted: &mut Vec<VReg>,
) -> bool {
    let input = a.input;
    let t = a.ri.tables();
    let Some(site) = input.temps.get(v.index() - input.first_temp) else {
        return false;
    };
    let Some(iv) = input.intervals[v.index()] else {
        return true;
    };
    let Some(seg) = site.seg else {
        return true;
    };
    // Evictions for the temporaries before it may have freed a register.
    if a.try_assign(&Item::direct(v, iv.class)) {
        return true;
    }
    let n = site.n;
    let mine = u8::from(seg.start <= 2 * n && 2 * n < seg.end)
        | (u8::from(seg.start <= 2 * n + 1 && 2 * n + 1 < seg.end) << 1);
    let order = a.ri.allocation_order(iv.class);
    // The instruction's other temporaries with a register (the same for
    // every candidate).
    let others: Vec<VReg> = a.assigned_instruction_temps(v).collect();
    let mut best: Option<(f32, Reg, Vec<u32>)> = None;
    let mut blockers: Vec<u32> = Vec::new();
    'candidates: for &p in order {
        a.cache.clear();
        a.footprint(v, None, p);
        if a.fp
            .iter()
            .any(|(u, _)| a.reserved_units.get(u.index()).copied().unwrap_or(true))
        {
            continue;
        }
        blockers.clear();
        let mut cost = 0f32;
        for &(id, slots) in live_at.at(n) {
            if slots & mine == 0 {
                continue;
            }
            let Some(r) = a.assignment[id as usize] else {
                continue;
            };
            let shares = t.units(r).any(|u| a.fp.iter().any(|&(x, _)| x == u));
            if !shares {
                continue;
            }
            let w = input
                .weight
                .get(id as usize)
                .copied()
                .unwrap_or(f32::INFINITY);
            if input.unspillable.get(id as usize).copied().unwrap_or(true) || !w.is_finite() {
                continue 'candidates;
            }
            cost = cost.max(w);
            blockers.push(id);
        }
        // Temporaries of the same instruction are not in `live_at`: one
        // of them may hold every candidate (a reload of a single register
        // taking the only register each triple of a tiny class can use).
        // They move like any evicted range, after the temporary that
        // needs the register (they are assigned again first of the
        // evicted, being unspillable).
        for &o in &others {
            let Some(r) = a.assignment[o.index()] else {
                continue;
            };
            let Some(theirs) = input.temps.get(o.index() - input.first_temp) else {
                continue;
            };
            if super::temps::interfere(t, theirs, r, site, p) {
                match moves {
                    Moves::Temps => blockers.push(o.0),
                    Moves::RangesOnly => continue 'candidates,
                }
            }
        }
        // Nothing to evict: a full round's try found it held by what no
        // range owns.
        if !blockers.is_empty() && best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
            best = Some((cost, p, blockers.clone()));
        }
    }
    let Some((_, p, blockers)) = best else {
        return false;
    };
    for id in blockers {
        a.unassign(VReg(id));
        evicted.push(VReg(id));
    }
    a.cache.clear();
    a.take_if_free(&Item::direct(v, iv.class), p)
}
