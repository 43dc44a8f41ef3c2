//! An interference checker independent of the allocator's liveness: plain
//! iterative dataflow over instructions with lane masks, then, at every
//! def, the units the written lanes occupy must not meet the units of
//! anything else live after the instruction (or, for an early-clobber
//! def, read by it). Also checks that every register is in its class's
//! allocation order and has every sub-register its operands name.

use std::collections::BTreeMap;

use regdesc_codegen::mir::print::print_inst;
use regdesc_codegen::mir::{InstrSet, MBlockId, MFunction, RegOperand, RegRef, VReg};
use regdesc_runtime::{LaneMask, Reg, RegUnit, RegisterInfo};

/// A live thing: a virtual register or a unit held by a physical operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    V(VReg),
    U(RegUnit),
}

type Live<L> = BTreeMap<Key, LaneMask<L>>;

/// The lanes of `r`: for an `undef` sub-register def, every lane when
/// `ended` (its other lanes' value ends there), else only the lanes it
/// writes (the other lanes' register is not written, so a value live
/// across it may be there).
fn lanes<R: RegisterInfo>(
    ri: &R,
    f: &MFunction,
    r: &RegOperand,
    ended: bool,
) -> LaneMask<R::Lanes> {
    let t = ri.tables();
    let Some(v) = r.vreg() else {
        return LaneMask::ALL;
    };
    let Some(rc) = f.class_of(v) else {
        return LaneMask::ALL;
    };
    let full = t.class_lane_mask(rc);
    let full = if full.is_none() { LaneMask::ALL } else { full };
    match r.sub {
        Some(i) if !(ended && r.is_def() && r.undef()) => t.sub_reg_index_lane_mask(i) & full,
        _ => full,
    }
}

fn add<L: regdesc_runtime::LaneBits>(live: &mut Live<L>, k: Key, m: LaneMask<L>) {
    let e = live.entry(k).or_insert(LaneMask::NONE);
    *e |= m;
}

fn kill<L: regdesc_runtime::LaneBits>(live: &mut Live<L>, k: Key, m: LaneMask<L>) {
    if let Some(e) = live.get_mut(&k) {
        *e &= !m;
        if e.is_none() {
            live.remove(&k);
        }
    }
}

fn keys<R: RegisterInfo>(
    ri: &R,
    f: &MFunction,
    r: &RegOperand,
    ended: bool,
) -> Vec<(Key, LaneMask<R::Lanes>)> {
    match r.reg {
        RegRef::Virt(v) => vec![(Key::V(v), lanes(ri, f, r, ended))],
        RegRef::Phys(p) => ri
            .tables()
            .units(p)
            .map(|u| (Key::U(u), LaneMask::ALL))
            .collect(),
    }
}

/// What is live after each instruction, per block.
fn live_after<R: RegisterInfo>(f: &MFunction, ri: &R) -> Vec<Vec<Live<R::Lanes>>> {
    let n = f.blocks.len();
    let succs: Vec<Vec<MBlockId>> = f.block_ids().map(|b| f.successors(b)).collect();
    let mut live_in: Vec<Live<R::Lanes>> = vec![BTreeMap::new(); n];
    let mut after: Vec<Vec<Live<R::Lanes>>> = vec![Vec::new(); n];
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            let mut live: Live<R::Lanes> = BTreeMap::new();
            for s in &succs[b] {
                for (k, m) in &live_in[s.index()] {
                    add(&mut live, *k, *m);
                }
            }
            let insts = &f.blocks[MBlockId::new(b)].insts;
            let mut per = vec![BTreeMap::new(); insts.len()];
            for (k, i) in insts.iter().enumerate().rev() {
                per[k] = live.clone();
                for (_, r) in i.reg_ops().filter(|(_, r)| r.is_def()) {
                    for (key, m) in keys(ri, f, r, true) {
                        kill(&mut live, key, m);
                    }
                }
                for (_, r) in i.reg_ops().filter(|(_, r)| r.reads()) {
                    for (key, m) in keys(ri, f, r, true) {
                        add(&mut live, key, m);
                    }
                }
            }
            after[b] = per;
            if live != live_in[b] {
                live_in[b] = live;
                changed = true;
            }
        }
        if !changed {
            return after;
        }
    }
}

/// The units `lanes` of a value in register `p` occupy.
fn units_of<R: RegisterInfo>(ri: &R, p: Reg, lanes: LaneMask<R::Lanes>) -> Vec<RegUnit> {
    ri.tables()
        .unit_lane_masks(p)
        .filter(|(_, m)| m.is_none() || m.intersects(lanes))
        .map(|(u, _)| u)
        .collect()
}

fn occupied<R: RegisterInfo>(
    ri: &R,
    assignment: &[Option<Reg>],
    key: Key,
    lanes: LaneMask<R::Lanes>,
) -> Vec<RegUnit> {
    match key {
        Key::U(u) => vec![u],
        Key::V(v) => match assignment.get(v.index()).copied().flatten() {
            Some(p) => units_of(ri, p, lanes),
            None => Vec::new(),
        },
    }
}

/// Checks an assignment of `f` (before rewriting).
pub fn check_allocation<R: RegisterInfo>(
    f: &MFunction,
    ri: &R,
    instrs: &InstrSet,
    assignment: &[Option<Reg>],
    reserved: &[Reg],
) -> Result<(), String> {
    let t = ri.tables();
    // Classes, orders, sub-registers.
    for b in &f.blocks {
        for i in &b.insts {
            for (_, r) in i.reg_ops() {
                let Some(v) = r.vreg() else { continue };
                let rc = f.class_of(v).ok_or(format!("%{} has no class", v.0))?;
                let p = assignment
                    .get(v.index())
                    .copied()
                    .flatten()
                    .ok_or(format!("%{} has no register", v.0))?;
                if !t.contains(rc, p) || !ri.allocation_order(rc).contains(&p) {
                    return Err(format!(
                        "%{} of class {} got ${}, not in its allocation order",
                        v.0,
                        t.class_name(rc),
                        t.name(p)
                    ));
                }
                if reserved.iter().any(|&x| t.regs_overlap(x, p)) {
                    return Err(format!(
                        "%{} got ${}, which overlaps a reserved register",
                        v.0,
                        t.name(p)
                    ));
                }
                if let Some(s) = r.sub {
                    if t.sub_reg(p, s).is_none() {
                        return Err(format!("${} has no {}", t.name(p), t.sub_reg_index_name(s)));
                    }
                }
            }
        }
    }
    // Interference at defs.
    let after = live_after(f, ri);
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.insts.iter().enumerate() {
            let live = &after[bi][k];
            for (_, d) in i.reg_ops().filter(|(_, r)| r.is_def()) {
                // The units the def writes: an `undef` sub-register def
                // writes only its lanes.
                let mine: Vec<(Key, LaneMask<R::Lanes>)> = keys(ri, f, d, false);
                let mut mine_units: Vec<RegUnit> = Vec::new();
                for (key, m) in &mine {
                    mine_units.extend(occupied(ri, assignment, *key, *m));
                }
                let mut others: Vec<(Key, LaneMask<R::Lanes>)> = live
                    .iter()
                    .filter(|(k, _)| !mine.iter().any(|(x, _)| x == *k))
                    .map(|(k, m)| (*k, *m))
                    .collect();
                if d.early_clobber() {
                    for (_, u) in i.reg_ops().filter(|(_, r)| r.reads()) {
                        others.extend(keys(ri, f, u, true));
                    }
                }
                for (key, m) in others {
                    let theirs = occupied(ri, assignment, key, m);
                    if let Some(u) = theirs.iter().find(|u| mine_units.contains(u)) {
                        return Err(format!(
                            "bb.{bi}, instruction {k} `{}`: its def shares unit {u:?} with {key:?} (lanes {m:?}), live across it",
                            print_inst(f, i, ri, instrs)
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}
