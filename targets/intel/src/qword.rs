//! Gen9's 64-bit integer ALU for message addresses: a 64-bit add whose
//! sum is a message's address is done on qwords.
//!
//! Hardware facts served:
//! - **Gen9 has `:q`/`:uq` integer types** (PRM Vol 2a "Data Types", "add";
//!   Gen11 and Gen12LP removed them, [`crate::target::Platform::has_int64_alu`]):
//!   `add (8) d:q a:q b:q` adds eight 64-bit values in one instruction. A
//!   qword operand of 8 channels spans 2 GRFs, the most one operand may
//!   span, so a SIMD16 add is two SIMD8 halves (`M0`, `M8`); the sources
//!   are read `<4;4,1>:q` (as IGC writes them) and a uniform qword
//!   `<0;1,0>:q`.
//! - **A64 scattered read of qwords** (PRM Vol 2d "Data Port 1", message
//!   type 0x10, element type 2 = qword, one element per address): the
//!   response is one qword per channel, lane-major — the same layout as
//!   the A64 address payload (a qword per channel, 2 GRFs per 8 channels).
//!
//! So where a loaded 64-bit value is added to a base and the sum is the
//! next message's address (`p + off[i]`, IGC's `ptroff`), the value is
//! loaded as qwords, `add:q` writes the address payload itself: one
//! instruction per 8 channels, no carry, no packing moves, where the SoA
//! halves take an add, a compare, a predicated add and two packing moves
//! per 8 channels.
//!
//! The pass runs after the split adds are formed ([`crate::iadd64_split`]).
//! It rewrites `lo, hi = iadd64_split4 a_lo, b_lo, a_hi, b_hi` when both
//! halves are read only by one `a64.addr` (the address payload) and each
//! addend is either the two dwords of a per-lane `a64.load.d2` read only
//! here (it becomes `a64.load.q`) or a uniform pair (packed once into a
//! qword by a uniform `a64.addr`, which address hoisting moves before the
//! first message); at least one addend must be a load. Anything else keeps
//! its dword halves.

use regdesc_codegen::mir::use_;
use std::collections::HashMap;

use regdesc_codegen::mir::{InstrSet, MFunction, MInst, Operand, RegOperand, RegRef, Sem, VReg};

use crate::iadd64_split::{Part, Split};
use crate::regs::classes;
use crate::select::memory::{T_ADDR, T_LOAD_D};

fn vreg(i: &MInst, k: usize) -> Option<VReg> {
    i.ops.get(k).and_then(Operand::vreg)
}

fn def(v: VReg, early_clobber: bool) -> Operand {
    let mut r = RegOperand::def_of(RegRef::Virt(v), None);
    r.set_early_clobber(early_clobber);
    Operand::Reg(r)
}

/// One addend of a rewritten add.
#[derive(Clone, Copy)]
enum Addend {
    /// The two dwords of the `a64.load.d2` at (block, index).
    Load(usize, usize),
    /// A uniform pair.
    Uniform(VReg, VReg),
}

/// Rewrites the 64-bit adds that feed message addresses into `add.q`
/// (see the module doc). Gen9 only (the caller asks the platform).
pub fn run(f: &mut MFunction, s: &InstrSet, simd: crate::target::Simd) {
    let target = |i: &MInst| match s.get(i.opcode).map(|d| d.sem) {
        Some(Sem::Target(id)) => Some(id),
        _ => None,
    };
    let (Some(load_q), Some(add_q), Some(addr)) = (
        s.by_name("a64.load.q"),
        s.by_name("add.q"),
        s.by_name("a64.addr"),
    ) else {
        return;
    };
    let split4 = Split {
        n: 4,
        part: Part::Pair,
    }
    .id();
    let ids: Vec<regdesc_codegen::mir::MBlockId> = f.block_ids().collect();
    // Readers of each virtual register: (block, index) of each read.
    let mut readers: HashMap<VReg, Vec<(usize, usize)>> = HashMap::new();
    // The `a64.load.d2` defining each dword.
    let mut loads: HashMap<VReg, (usize, usize)> = HashMap::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (k, i) in blk.insts.iter().enumerate() {
            for (_, r) in i.reg_ops() {
                if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                    readers.entry(v).or_default().push((b, k));
                }
            }
            let per_lane = |v: Option<VReg>| {
                v.and_then(|v| f.class_of(v))
                    .is_some_and(|c| c == classes::SIMD8_LANE || c == classes::SIMD16_LANE)
            };
            if target(i) == Some(T_LOAD_D + 1)
                && matches!(i.ops.get(3), Some(Operand::Imm(0)))
                && per_lane(vreg(i, 0))
                && per_lane(vreg(i, 1))
            {
                for d in [vreg(i, 0), vreg(i, 1)].into_iter().flatten() {
                    loads.insert(d, (b, k));
                }
            }
        }
    }
    let only = |v: VReg, at: (usize, usize)| readers.get(&v).is_some_and(|r| r == &[at]);
    // (block, index of the split) -> the rewrite: (addends, address def,
    // index of the a64.addr).
    let mut plans: Vec<(usize, usize, [Addend; 2], VReg, usize)> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (k, i) in blk.insts.iter().enumerate() {
            if target(i) != Some(split4) {
                continue;
            }
            let ops: Option<Vec<VReg>> = (0..6).map(|x| vreg(i, x)).collect();
            let Some(&[lo, hi, a_lo, b_lo, a_hi, b_hi]) = ops.as_deref() else {
                continue;
            };
            // Both halves read only by one a64.addr, as its (lo, hi).
            let Some(&[(ab, ak)]) = readers.get(&lo).map(Vec::as_slice) else {
                continue;
            };
            let a = &blk.insts[ak];
            if ab != b
                || !only(hi, (ab, ak))
                || target(a) != Some(T_ADDR)
                || vreg(a, 1) != Some(lo)
                || vreg(a, 2) != Some(hi)
            {
                continue;
            }
            let Some(pay) = vreg(a, 0) else { continue };
            let addend = |xl: VReg, xh: VReg| -> Option<Addend> {
                match (loads.get(&xl), loads.get(&xh)) {
                    (Some(&(lb, lk)), Some(&l2))
                        if (lb, lk) == l2
                            && vreg(&f.blocks[ids[lb]].insts[lk], 0) == Some(xl)
                            && vreg(&f.blocks[ids[lb]].insts[lk], 1) == Some(xh)
                            && only(xl, (b, k))
                            && only(xh, (b, k)) =>
                    {
                        Some(Addend::Load(lb, lk))
                    }
                    _ if f.class_of(xl) == Some(classes::GRF_D)
                        && f.class_of(xh) == Some(classes::GRF_D) =>
                    {
                        Some(Addend::Uniform(xl, xh))
                    }
                    _ => None,
                }
            };
            let (Some(x), Some(y)) = (addend(a_lo, a_hi), addend(b_lo, b_hi)) else {
                continue;
            };
            let is_load = |a: &Addend| matches!(a, Addend::Load(..));
            if !is_load(&x) && !is_load(&y) {
                continue;
            }
            plans.push((b, k, [x, y], pay, ak));
        }
    }
    if plans.is_empty() {
        return;
    }
    // The qword tuple class of this width (the address payload's).
    let tuple = match simd {
        crate::target::Simd::Simd8 => classes::SIMD8_Q,
        crate::target::Simd::Simd16 => classes::SIMD16_Q,
    };
    // Per block: index -> replacement (`None`: deleted).
    let mut edits: HashMap<(usize, usize), Vec<MInst>> = HashMap::new();
    for (b, k, addends, pay, ak) in plans {
        let mut before = Vec::new();
        let mut srcs = Vec::new();
        for x in addends {
            match x {
                Addend::Load(lb, lk) => {
                    let l = &f.blocks[ids[lb]].insts[lk];
                    let Some(p) = vreg(l, 2) else { continue };
                    let span = l.span.clone();
                    let q = f.new_vreg(tuple);
                    let mut mi = MInst::new(load_q, vec![def(q, false), use_(p), Operand::Imm(0)]);
                    mi.span = span;
                    edits.insert((lb, lk), vec![mi]);
                    srcs.push(q);
                }
                Addend::Uniform(xl, xh) => {
                    let q = f.new_vreg(classes::SIMD8_Q);
                    before.push(MInst::new(addr, vec![def(q, true), use_(xl), use_(xh)]));
                    srcs.push(q);
                }
            }
        }
        if srcs.len() != 2 {
            continue;
        }
        let mut sum = MInst::new(add_q, vec![def(pay, true), use_(srcs[0]), use_(srcs[1])]);
        sum.span = f.blocks[ids[b]].insts[k].span.clone();
        before.push(sum);
        edits.insert((b, k), before);
        edits.insert((b, ak), Vec::new());
    }
    for (b, blk) in f.blocks.iter_mut().enumerate() {
        let old = std::mem::take(&mut blk.insts);
        for (k, i) in old.into_iter().enumerate() {
            match edits.remove(&(b, k)) {
                Some(rep) => blk.insts.extend(rep),
                None => blk.insts.push(i),
            }
        }
    }
    crate::select::memory::hoist_addresses(f, s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::memory::{T_ADD_Q, T_LOAD_Q};

    #[test]
    fn the_qword_opcodes_exist() {
        let mut s = InstrSet::generic();
        crate::select::add_instructions(&mut s);
        assert!(s.by_name("a64.load.q").is_some());
        assert_eq!(
            s.by_name("add.q").and_then(|o| s.get(o)).map(|d| d.sem),
            Some(Sem::Target(T_ADD_Q))
        );
        assert_eq!(
            s.by_name("a64.load.q")
                .and_then(|o| s.get(o))
                .map(|d| d.sem),
            Some(Sem::Target(T_LOAD_Q))
        );
    }
}
