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

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use regdesc_runtime::{LaneMask, Reg, RegClass, RegUnit, RegisterInfo, SubRegIdx};

use crate::mir::cfg::MCfg;
use crate::mir::liveness::{LiveInterval, Liveness, Segment};
use crate::mir::{InstrSet, MBlockId, MFunction, RegRef, Sem, VReg};
use crate::regalloc::matrix::{Matrix, Owner};

/// The outcome of one round.
pub struct Round {
    /// The register of each virtual register (those with a live interval).
    pub assignment: Vec<Option<Reg>>,
    /// Registers that found none.
    pub failed: Vec<VReg>,
}

/// A copy partner: the other register and the parts each side names.
#[derive(Clone, Copy)]
struct Hint {
    other: RegRef,
    mine: Option<SubRegIdx>,
    theirs: Option<SubRegIdx>,
}

struct Assigner<'a, R: RegisterInfo> {
    ri: &'a R,
    f: &'a MFunction,
    live: &'a Liveness<R::Lanes>,
    matrix: Matrix,
    reserved_units: Vec<bool>,
    weight: Vec<f32>,
    unspillable: &'a [bool],
    assignment: Vec<Option<Reg>>,
    hints: Vec<Vec<Hint>>,
    queue: BinaryHeap<((bool, u8, u32), Reverse<u32>)>,
}

/// Spill weights (LLVM's): uses and defs, each weighted by `8^loop depth`,
/// divided by the interval's length in instructions (plus a constant so
/// that short intervals do not all look alike).
pub fn spill_weights<R: RegisterInfo>(
    f: &MFunction,
    cfg: &MCfg,
    live: &Liveness<R::Lanes>,
) -> Vec<f32> {
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
    freq.iter()
        .enumerate()
        .map(|(v, &fr)| match live.interval(VReg(v as u32)) {
            Some(iv) => fr / (iv.size() as f32 / 2.0 + 4.0),
            None => 0.0,
        })
        .collect()
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
    let t = ri.tables();
    let mut matrix = Matrix::new(t.num_units());
    for (u, segs) in &live.units {
        matrix.insert(*u, segs, Owner::Fixed);
    }
    let mut reserved_units = vec![false; t.num_units()];
    for &r in reserved {
        for u in t.units(r) {
            if let Some(x) = reserved_units.get_mut(u.index()) {
                *x = true;
            }
        }
    }
    let mut weight = spill_weights::<R>(f, cfg, live);
    for (v, w) in weight.iter_mut().enumerate() {
        if unspillable.get(v).copied().unwrap_or(false) {
            *w = f32::INFINITY;
        }
    }
    let n = f.vregs.len();
    let mut a = Assigner {
        ri,
        f,
        live,
        matrix,
        reserved_units,
        weight,
        unspillable,
        assignment: vec![None; n],
        hints: hints(f, instrs),
        queue: BinaryHeap::new(),
    };
    for v in 0..n {
        if live.vregs.get(v).is_some_and(Option::is_some) {
            a.enqueue(VReg(v as u32));
        }
    }
    let mut failed = Vec::new();
    while let Some((_, Reverse(v))) = a.queue.pop() {
        let v = VReg(v);
        if a.assignment[v.index()].is_some() {
            continue;
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

/// Each register's copy partners.
fn hints(f: &MFunction, instrs: &InstrSet) -> Vec<Vec<Hint>> {
    let mut out: Vec<Vec<Hint>> = vec![Vec::new(); f.vregs.len()];
    for b in &f.blocks {
        for i in &b.insts {
            if instrs.get(i.opcode).is_none_or(|d| d.sem != Sem::Copy) {
                continue;
            }
            let (Some(d), Some(s)) = (
                i.ops.first().and_then(|o| o.reg()),
                i.ops.get(1).and_then(|o| o.reg()),
            ) else {
                continue;
            };
            if let Some(v) = d.vreg() {
                out[v.index()].push(Hint {
                    other: s.reg,
                    mine: d.sub,
                    theirs: s.sub,
                });
            }
            if let Some(v) = s.vreg() {
                out[v.index()].push(Hint {
                    other: d.reg,
                    mine: s.sub,
                    theirs: d.sub,
                });
            }
        }
    }
    out
}

impl<R: RegisterInfo> Assigner<'_, R> {
    fn class(&self, v: VReg) -> Option<RegClass> {
        self.f.class_of(v)
    }

    fn enqueue(&mut self, v: VReg) {
        let t = self.ri.tables();
        let prio = self.class(v).map_or(0, |c| t.allocation_priority(c));
        let w = self.weight[v.index()];
        let unspillable = self.unspillable.get(v.index()).copied().unwrap_or(false);
        self.queue
            .push(((unspillable, prio, w.max(0.0).to_bits()), Reverse(v.0)));
    }

    /// The units of `p` and, for each, which entry of `cache` says where
    /// `iv` occupies it (lanes a unit does not cover, or that are dead,
    /// leave it free; such units are left out).
    fn footprint(
        &self,
        iv: &LiveInterval<R::Lanes>,
        p: Reg,
        cache: &mut Vec<(LaneMask<R::Lanes>, Vec<Segment>)>,
        out: &mut Vec<(RegUnit, usize)>,
    ) {
        let t = self.ri.tables();
        out.clear();
        for (u, m) in t.unit_lane_masks(p) {
            let lanes = if m.is_none() { LaneMask::ALL } else { m };
            let k = match cache.iter().position(|(l, _)| *l == lanes) {
                Some(k) => k,
                None => {
                    cache.push((lanes, iv.segments_for(lanes)));
                    cache.len() - 1
                }
            };
            if !cache[k].1.is_empty() {
                out.push((u, k));
            }
        }
    }

    fn hinted(&self, v: VReg, rc: RegClass) -> Vec<Reg> {
        let t = self.ri.tables();
        let mut out = Vec::new();
        for h in self.hints.get(v.index()).map_or(&[][..], Vec::as_slice) {
            let p = match h.other {
                RegRef::Phys(p) => p,
                RegRef::Virt(o) => match self.assignment.get(o.index()).copied().flatten() {
                    Some(p) => p,
                    None => continue,
                },
            };
            let target = match h.theirs {
                None => Some(p),
                Some(s) => t.sub_reg(p, s),
            };
            let Some(target) = target else { continue };
            let mine = match h.mine {
                None => Some(target),
                Some(s) => t.matching_super_reg(target, s, rc),
            };
            if let Some(r) = mine.filter(|&r| t.contains(rc, r)) {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
        out
    }

    fn try_assign(&mut self, v: VReg) -> bool {
        let Some(iv) = self.live.interval(v) else {
            return true;
        };
        let Some(rc) = self.class(v) else {
            return false;
        };
        let order = self.ri.allocation_order(rc);
        let mut cache = Vec::new();
        let candidates: Vec<Reg> = self
            .hinted(v, rc)
            .into_iter()
            .chain(order.iter().copied())
            .collect();
        // A free register.
        let mut fp = Vec::new();
        for &p in &candidates {
            if !order.contains(&p) {
                continue;
            }
            self.footprint(iv, p, &mut cache, &mut fp);
            let reserved = fp
                .iter()
                .any(|(u, _)| self.reserved_units.get(u.index()).copied().unwrap_or(true));
            if !reserved && fp.iter().all(|&(u, k)| self.matrix.is_free(u, &cache[k].1)) {
                for &(u, k) in &fp {
                    self.matrix.insert(u, &cache[k].1, Owner::Virt(v));
                }
                self.assignment[v.index()] = Some(p);
                return true;
            }
        }
        false
    }
}
