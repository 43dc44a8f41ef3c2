//! Copy coalescing (LLVM's `RegisterCoalescer`), including copies into and
//! out of register tuples.
//!
//! The hardware fact served: a copy between registers costs an instruction
//! (and on AMD a VALU slot per lane group); PHI elimination, two-address
//! lowering and tuple building (`REG_SEQUENCE`) make many. A copy's two
//! registers can become one when their live ranges do not interfere. For
//! a sub-register copy — `%x = COPY %t.sub1` out of a 64-bit pair, or
//! `%t.sub0 = COPY %a` into one — the narrow register becomes a part of
//! the wide one (`%x` is renamed `%t.sub1`), and the wide register's class
//! is narrowed to the registers whose `sub1` can hold what `%x` needed
//! (`matching_super_reg_class`: for a `%x` in a 32-bit class, any pair;
//! for an aligned-pair class, only even-aligned pairs). Classes of full
//! copies meet in their largest common sub-class.
//!
//! Interference is decided per lane, as Chaitin defined it: two registers
//! interfere when one is live (in the lanes the merge would share) where
//! the other is written — except at the copy itself, after which both hold
//! the same value. Copies are visited innermost loop first.

use regdesc_runtime::{LaneBits, LaneMask, RegClass, RegisterInfo, SubRegIdx};

use crate::mir::cfg::MCfg;
use crate::mir::liveness::{
    class_lanes, operand_lanes, segments_contain, union, LiveInterval, Liveness, Part, Segments,
};
use crate::mir::slots::Slots;
use crate::mir::SmallVec;
use crate::mir::{InstrSet, MBlockId, MFunction, MInst, Operand, RegRef, Sem, VReg};
use regdesc_index::IndexVec;

/// What one merged register knows during coalescing.
struct Info<L: LaneBits> {
    class: RegClass,
    /// Where it is written (slot, lanes).
    defs: SmallVec<[(u32, LaneMask<L>); 1]>,
    /// Where an `undef` sub-register def ends lanes it does not write
    /// (slot, those lanes, the def's operand).
    ends: Vec<(u32, LaneMask<L>, OperandAt)>,
    /// Lane sets and where they are live (may overlap after merges).
    parts: SmallVec<[(LaneMask<L>, Segments); 1]>,
    /// Sub-register indices its operands use.
    subs: Vec<SubRegIdx>,
}

impl<L: LaneBits> Info<L> {
    fn live_at(&self, slot: u32, lanes: LaneMask<L>) -> bool {
        self.parts
            .iter()
            .any(|(m, segs)| m.intersects(lanes) && segments_contain(segs, slot))
    }
}

/// What coalescing knows of each register, made from its live interval
/// when a copy or a sub-register operand first needs it: most registers
/// are neither, and making one for every register of a large function (a
/// 100k-instruction function has 400k) streamed twice its liveness
/// through memory.
struct Infos<L: LaneBits> {
    intervals: Vec<Option<crate::mir::liveness::LiveInterval<L>>>,
    /// Per register: its entry in `made`, [`UNMADE`], or [`GONE`] (merged
    /// into another).
    slot: Vec<u32>,
    made: Vec<Info<L>>,
}

const UNMADE: u32 = u32::MAX;
const GONE: u32 = u32::MAX - 1;

impl<L: LaneBits> Infos<L> {
    /// Makes `v`'s entry, when it has a class and a live interval.
    fn make(&mut self, f: &MFunction, v: VReg) {
        if self.slot.get(v.index()) != Some(&UNMADE) {
            return;
        }
        let iv = self.intervals.get_mut(v.index()).and_then(Option::take);
        let (Some(class), Some(iv)) = (f.class_of(v), iv) else {
            return;
        };
        self.slot[v.index()] = self.made.len() as u32;
        self.made.push(Info {
            class,
            defs: iv.defs,
            parts: iv
                .parts
                .into_iter()
                .map(|p| (p.lanes, p.segments))
                .collect(),
            subs: Vec::new(),
            ends: Vec::new(),
        });
    }

    fn get(&self, v: VReg) -> Option<&Info<L>> {
        match self.slot.get(v.index()) {
            Some(&k) if k < GONE => self.made.get(k as usize),
            _ => None,
        }
    }

    fn get_mut(&mut self, f: &MFunction, v: VReg) -> Option<&mut Info<L>> {
        self.make(f, v);
        match self.slot.get(v.index()) {
            Some(&k) if k < GONE => self.made.get_mut(k as usize),
            _ => None,
        }
    }

    /// `v`'s entry, which it no longer has (merged into another).
    fn take(&mut self, v: VReg) -> Option<Info<L>> {
        let k = *self.slot.get(v.index()).filter(|&&k| k < GONE)?;
        self.slot[v.index()] = GONE;
        let blank = Info {
            class: self.made[k as usize].class,
            defs: SmallVec::new(),
            ends: Vec::new(),
            parts: SmallVec::new(),
            subs: Vec::new(),
        };
        Some(std::mem::replace(&mut self.made[k as usize], blank))
    }
}

/// An operand: its instruction's number in the function, and its index.
type OperandAt = (u32, u32);

/// A copy between two virtual registers.
struct CopyInst {
    block: usize,
    index: usize,
    /// The def slot of the copy.
    slot: u32,
    depth: u32,
}

/// Coalesces the copies of `f` (which must have no PHIs and lowered tied
/// operands) using the liveness `live`. Returns the number of copies
/// removed.
pub fn coalesce<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    cfg: &MCfg,
    live: &Liveness<R::Lanes>,
) -> usize {
    coalesce_owned(f, ri, instrs, cfg, live.clone()).0
}

/// [`coalesce`], taking the liveness and returning the function's
/// liveness after coalescing ([`Liveness::after_removals`]: only the
/// registers coalescing changed are computed again).
pub fn coalesce_with_liveness<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    cfg: &MCfg,
    live: Liveness<R::Lanes>,
) -> (usize, Liveness<R::Lanes>) {
    let (n, _, live) = coalesce_owned(f, ri, instrs, cfg, live);
    (n, live)
}

/// [`coalesce`], also returning what puts `f` back as it was (the
/// allocator starts again without coalescing when the narrowed classes
/// leave an instruction unallocatable).
pub fn coalesce_undoable<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    cfg: &MCfg,
    live: &Liveness<R::Lanes>,
) -> (usize, Undo) {
    let (n, undo, _) = coalesce_owned(f, ri, instrs, cfg, live.clone());
    (n, undo)
}

/// What coalescing changed in a function, to put it back as it was: the
/// classes, the copies it removed and the register operands it renamed.
/// Far smaller than a copy of the function (a 100k-instruction function
/// is about 60 MB of instructions, each with its own operand list).
pub struct Undo {
    vregs: IndexVec<VReg, Option<RegClass>>,
    /// (block, index before coalescing, instruction), in order.
    removed: Vec<(usize, usize, MInst)>,
    /// (block, index before coalescing, operand, register, sub-register,
    /// undef) of each renamed register operand, as they were.
    operands: Vec<(u32, u32, u32, RegRef, Option<SubRegIdx>, bool)>,
}

impl Undo {
    /// Puts `f` back as it was before the coalescing that made this.
    pub fn restore(self, f: &mut MFunction) {
        f.vregs = self.vregs;
        let mut removed = self.removed.into_iter().peekable();
        for (bi, b) in f.blocks.iter_mut().enumerate() {
            if removed.peek().is_none_or(|r| r.0 != bi) {
                continue;
            }
            let kept = std::mem::take(&mut b.insts);
            let mut insts = Vec::with_capacity(kept.len());
            let mut kept = kept.into_iter();
            loop {
                match removed.next_if(|r| r.0 == bi && r.1 == insts.len()) {
                    Some((_, _, i)) => insts.push(i),
                    None => match kept.next() {
                        Some(i) => insts.push(i),
                        None => break,
                    },
                }
            }
            b.insts = insts;
        }
        for (bi, k, o, reg, sub, undef) in self.operands {
            let r = f
                .blocks
                .get_mut(MBlockId(bi))
                .and_then(|b| b.insts.get_mut(k as usize))
                .and_then(|i| i.ops.get_mut(o as usize))
                .and_then(Operand::reg_mut);
            if let Some(r) = r {
                r.reg = reg;
                r.sub = sub;
                r.set_undef(undef);
            }
        }
    }
}

/// [`coalesce`], taking the liveness (its intervals become the merged
/// registers' without a copy); what it takes to undo it, and the liveness
/// of the function after it.
pub(crate) fn coalesce_owned<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    cfg: &MCfg,
    live: Liveness<R::Lanes>,
) -> (usize, Undo, Liveness<R::Lanes>) {
    let t = ri.tables();
    let mut undo = Undo {
        vregs: f.vregs.clone(),
        removed: Vec::new(),
        operands: Vec::new(),
    };
    let n = f.vregs.len();
    let Liveness {
        slots,
        vregs: intervals,
        units,
        undefined,
    } = live;
    // Registers whose events coalescing changes (their intervals are
    // computed again after it).
    let mut dirty = vec![false; n];
    let mut info = Infos {
        intervals,
        slot: vec![UNMADE; n],
        made: Vec::new(),
    };
    let mut copies: Vec<CopyInst> = Vec::new();
    let mut num = 0u32;
    for (bi, b) in f.blocks.iter().enumerate() {
        let depth = cfg.loop_depth(crate::mir::MBlockId(bi as u32));
        for (k, i) in b.insts.iter().enumerate() {
            for (o, r) in i.reg_ops() {
                if let (Some(v), Some(s)) = (r.vreg(), r.sub) {
                    if let Some(x) = info.get_mut(f, v) {
                        if !x.subs.contains(&s) {
                            x.subs.push(s);
                        }
                        if r.is_def() && r.undef() {
                            let ends = class_lanes(t, x.class) & !operand_lanes(t, x.class, r.sub);
                            x.ends.push((Slots::def_slot(num), ends, (num, o as u32)));
                        }
                    }
                }
            }
            if instrs.get(i.opcode).is_some_and(|d| d.sem == Sem::Copy) {
                let both_virtual = i.ops.len() == 2 && i.ops.iter().all(|o| o.vreg().is_some());
                if both_virtual {
                    copies.push(CopyInst {
                        block: bi,
                        index: k,
                        slot: Slots::def_slot(num),
                        depth,
                    });
                }
            }
            num += 1;
        }
    }
    copies.sort_by_key(|c| (std::cmp::Reverse(c.depth), c.block, c.index));

    // rep[v] = (w, k): v is w's k part.
    let mut rep: Vec<(VReg, Option<SubRegIdx>)> = (0..n).map(|v| (VReg(v as u32), None)).collect();
    let find =
        |rep: &mut Vec<(VReg, Option<SubRegIdx>)>, v: VReg| -> Option<(VReg, Option<SubRegIdx>)> {
            let mut path = Vec::new();
            let mut cur = (v, None::<SubRegIdx>);
            loop {
                let (p, k) = *rep.get(cur.0.index())?;
                if p == cur.0 {
                    break;
                }
                path.push(cur.0);
                // cur = p:k:cur.1
                cur = (p, compose(t, k, cur.1)?);
            }
            // Path compression, nearest the root first: every visited
            // register points at the root.
            for &x in path.iter().rev() {
                let (p, k) = rep[x.index()];
                let (r, kr) = rep[p.index()];
                if r != p {
                    rep[x.index()] = (r, compose(t, kr, k)?);
                }
            }
            Some(cur)
        };

    let mut removed: Vec<(usize, usize)> = Vec::new();
    // `undef` defs that a merge leaves with a value live across them in
    // lanes they would end: they lose the flag (they write their lanes
    // and leave the others as they are).
    let mut keep_lanes: Vec<OperandAt> = Vec::new();
    // Instructions whose defs are gone (the copies removed so far).
    let mut dead_def = vec![false; num as usize];
    for c in &copies {
        let inst = &f.blocks[MBlockId::new(c.block)].insts[c.index];
        let (Some(dst), Some(src)) = (inst.ops[0].reg(), inst.ops[1].reg()) else {
            continue;
        };
        let (Some(dv), Some(sv)) = (dst.vreg(), src.vreg()) else {
            continue;
        };
        let (dsub, ssub) = (dst.sub, src.sub);
        let Some((d, dk)) = find(&mut rep, dv) else {
            continue;
        };
        let Some((s, sk)) = find(&mut rep, sv) else {
            continue;
        };
        let (Some(d_sub), Some(s_sub)) = (compose(t, dk, dsub), compose(t, sk, ssub)) else {
            continue;
        };
        if d == s {
            if d_sub == s_sub {
                removed.push((c.block, c.index));
            }
            continue;
        }
        // N (narrow) goes into W (wide) as its k part.
        let (nv, wv, k, n_is_dst) = match (d_sub, s_sub) {
            (None, None) => (d, s, None, true),
            (None, Some(k)) => (d, s, Some(k), true),
            (Some(k), None) => (s, d, Some(k), false),
            (Some(_), Some(_)) => continue,
        };
        info.make(f, nv);
        info.make(f, wv);
        let (Some(ni), Some(wi)) = (info.get(nv), info.get(wv)) else {
            continue;
        };
        let new_class = match k {
            None => t.common_sub_class(wi.class, ni.class),
            Some(k) => t.matching_super_reg_class(wi.class, ni.class, k),
        };
        let Some(new_class) = new_class else { continue };
        if !t.is_allocatable(new_class) || ri.allocation_order(new_class).is_empty() {
            continue;
        }
        // Every part N's operands name must exist in the new class.
        let mut mapped_subs = Vec::new();
        let mut ok = true;
        for &j in &ni.subs {
            match compose(t, k, Some(j)) {
                Some(Some(c)) if t.sub_class_with_sub_reg(new_class, c) == Some(new_class) => {
                    mapped_subs.push(c)
                }
                _ => ok = false,
            }
        }
        if let Some(k) = k {
            if t.sub_class_with_sub_reg(new_class, k) != Some(new_class) {
                ok = false;
            }
        }
        if !ok {
            continue;
        }
        let map = |m: LaneMask<R::Lanes>| t.compose_lane_mask(k, m);
        // Chaitin's test, per lane, skipping the copy's own def.
        let skip_n = |slot: u32| (n_is_dst && slot == c.slot) || dead_def[(slot / 2) as usize];
        let skip_w = |slot: u32| (!n_is_dst && slot == c.slot) || dead_def[(slot / 2) as usize];
        let interferes = ni
            .defs
            .iter()
            .any(|&(p, m)| !skip_n(p) && wi.live_at(p, map(m)))
            || wi.defs.iter().any(|&(q, m)| {
                !skip_w(q)
                    && ni
                        .parts
                        .iter()
                        .any(|(l, segs)| map(*l).intersects(m) && segments_contain(segs, q))
            });
        if interferes {
            continue;
        }
        // An `undef` def of one where the other is live in the lanes it
        // ends is not interference (it does not write them), but merged
        // it must no longer end them. N's own defs lose the flag anyway
        // when N becomes a part of W.
        let mut keep: SmallVec<[OperandAt; 2]> = SmallVec::new();
        keep.extend(
            wi.ends
                .iter()
                .filter(|&&(q, e, _)| {
                    !skip_w(q)
                        && ni
                            .parts
                            .iter()
                            .any(|(l, segs)| map(*l).intersects(e) && segments_contain(segs, q))
                })
                .map(|&(_, _, at)| at),
        );
        if k.is_none() {
            keep.extend(
                ni.ends
                    .iter()
                    .filter(|&&(p, e, _)| !skip_n(p) && wi.live_at(p, e))
                    .map(|&(_, _, at)| at),
            );
        }
        // Merge.
        let Some(ni) = info.take(nv) else {
            continue;
        };
        let Some(wi) = info.get_mut(f, wv) else {
            continue;
        };
        wi.class = new_class;
        dead_def[(c.slot / 2) as usize] = true;
        wi.defs.extend(ni.defs.iter().map(|&(p, m)| (p, map(m))));
        if k.is_none() {
            wi.ends.extend(ni.ends.iter().copied());
        }
        wi.ends.retain(|e| !keep.contains(&e.2));
        keep_lanes.extend(keep);
        for (l, segs) in ni.parts {
            let l = map(l);
            match wi.parts.iter_mut().find(|(m, _)| *m == l) {
                Some((_, mine)) => *mine = union(&[mine.as_slice(), segs.as_slice()]),
                None => wi.parts.push((l, segs)),
            }
        }
        for s in mapped_subs.into_iter().chain(k) {
            if !wi.subs.contains(&s) {
                wi.subs.push(s);
            }
        }
        rep[nv.index()] = (wv, k);
        dirty[nv.index()] = true;
        dirty[wv.index()] = true;
        removed.push((c.block, c.index));
    }

    // Rewrite operands to representatives.
    let mut count = 0;
    removed.sort_unstable();
    keep_lanes.sort_unstable();
    let mut num = 0u32;
    // The numbers of the instructions removed, before.
    let mut gone: Vec<u32> = Vec::new();
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        let first = num;
        for (ki, i) in b.insts.iter_mut().enumerate() {
            for (oi, o) in i.ops.iter_mut().enumerate() {
                let Operand::Reg(r) = o else { continue };
                let RegRef::Virt(v) = r.reg else { continue };
                let was = (bi as u32, ki as u32, oi as u32, r.reg, r.sub, r.undef());
                if r.undef() && keep_lanes.binary_search(&(num, oi as u32)).is_ok() {
                    r.set_undef(false);
                }
                let renamed = match find(&mut rep, v) {
                    Some((w, k)) if w != v => compose(t, k, r.sub).map(|sub| (w, k, sub)),
                    _ => None,
                };
                if let Some((w, k, sub)) = renamed {
                    r.reg = RegRef::Virt(w);
                    if k.is_some() {
                        // As a part of a wider register, a def that dropped the
                        // other lanes would drop the wider register's too.
                        r.set_undef(r.undef() & (!r.is_def()));
                    }
                    r.sub = sub;
                }
                if (r.reg, r.sub, r.undef()) != (was.3, was.4, was.5) {
                    undo.operands.push(was);
                    dirty[v.index()] = true;
                    if let Some(w) = r.vreg() {
                        dirty[w.index()] = true;
                    }
                }
            }
            num += 1;
        }
        // In place: instructions move only behind a removed copy.
        let mut k = 0;
        b.insts.retain(|i| {
            let drop = removed.binary_search(&(bi, k)).is_ok()
                || (instrs.get(i.opcode).is_some_and(|d| d.sem == Sem::Copy)
                    && i.ops.len() == 2
                    && matches!((i.ops[0].reg(), i.ops[1].reg()), (Some(a), Some(b)) if a.reg == b.reg && a.sub == b.sub && a.vreg().is_some()));
            if drop {
                count += 1;
                undo.removed.push((bi, k, i.clone()));
                gone.push(first + k as u32);
                for v in i.ops.iter().filter_map(Operand::vreg) {
                    if let Some(d) = dirty.get_mut(v.index()) {
                        *d = true;
                    }
                }
            }
            k += 1;
            !drop
        });
    }
    // Registers merged into others have no class; a register that took
    // others in has its narrowed one.
    for (v, &k) in info.slot.iter().enumerate() {
        match k {
            UNMADE => {}
            GONE => f.vregs[VReg::new(v)] = None,
            k => f.vregs[VReg::new(v)] = Some(info.made[k as usize].class),
        }
    }
    // The intervals of the registers it did not change: as liveness made
    // them (read back from what coalescing made of them, unchanged).
    let mut kept: Vec<Option<LiveInterval<R::Lanes>>> = Vec::with_capacity(n);
    for (v, &changed) in dirty.iter().enumerate() {
        let iv = match info.slot[v] {
            _ if changed => None,
            UNMADE => info.intervals.get_mut(v).and_then(Option::take),
            GONE => None,
            k => info.made.get_mut(k as usize).map(|x| LiveInterval {
                class: x.class,
                parts: std::mem::take(&mut x.parts)
                    .into_iter()
                    .map(|(lanes, segments)| Part { lanes, segments })
                    .collect(),
                defs: std::mem::take(&mut x.defs),
            }),
        };
        kept.push(iv);
    }
    let before = Liveness {
        slots,
        vregs: kept,
        units,
        undefined,
    };
    let live = before.after_removals(f, ri, cfg, &gone, &dirty);
    (count, undo, live)
}

/// `R:a:b` as an index of `R` (`None` for the register itself); `None`
/// when the tables have no such index.
fn compose<L: LaneBits>(
    t: &regdesc_runtime::Tables<L>,
    a: Option<SubRegIdx>,
    b: Option<SubRegIdx>,
) -> Option<Option<SubRegIdx>> {
    match (a, b) {
        (None, x) | (x, None) => Some(x),
        (Some(a), Some(b)) => t.compose_sub_reg_indices(a, b).map(Some),
    }
}
