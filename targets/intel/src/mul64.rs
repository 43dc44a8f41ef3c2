//! The 32x32 → 64-bit product as one Gen instruction pair, and the pass
//! that splits the legalizer's multiply-adds into it plus a split add.
//!
//! The hardware fact served (PRM Vol 2a "mul", "mach"; Vol 7 "Accumulator
//! Registers"): `mul acc0 a b.lo16` then `mach hi a b {AccWrEn}` leave the
//! high half of the product in `hi` and the whole product in `acc0`, whose
//! low dword a `mov` reads back: both halves in 3 instructions (per SIMD8
//! chunk). The legalizer's `MAD64 a, b, clo, chi` (`a * b + chi:clo`, the
//! schoolbook column step of [`regdesc_codegen::legalize::MulPlan`]) is
//! that product and a 64-bit add; [`expand`] writes it so, as
//! `p_lo, p_hi = mul64 a, b` and the legalizer's own add pattern
//! (`addc`, `add`, `add`), for [`crate::iadd64_split`] to form the split
//! add — whose rewrite rules drop the add where the addend is known zero
//! (a column's first product). [`narrow`] then drops a product half no
//! one reads: `mul64` with only its high half read is `mach.u`
//! (`G_UMULH`), with only its low half the 32-bit `mul`.

use regdesc_codegen::mir::{def, use_};
use std::collections::HashSet;

use regdesc_codegen::mir::instr::{InstrDesc, LimbOp, OpKind};
use regdesc_codegen::mir::interp::{Bits, Flow, InterpError, MachineCx};
use regdesc_codegen::mir::{InstrSet, MFunction, MInst, Operand, Sem, VReg};

/// The [`Sem::Target`] number of `mul64`.
pub const MUL64: u16 = 0x200;

/// The [`Sem::Target`] number of `muladd32`.
pub const MULADD32: u16 = 0x201;

/// Adds `lo, hi = mul64 a, b` to `s` (the defs may share the sources'
/// registers: the emitter orders around it).
pub fn add_instructions(s: &mut InstrSet) {
    s.add(InstrDesc::new(
        "mul64",
        2,
        &[OpKind::Reg, OpKind::Reg],
        Sem::Target(MUL64),
    ));
}

/// Adds `d = muladd32 a, b, x` (`a * b + x` modulo 2^32) to `s`.
pub fn add_muladd(s: &mut InstrSet) {
    s.add(InstrDesc::new(
        "muladd32",
        1,
        &[OpKind::Reg, OpKind::Reg, OpKind::Reg],
        Sem::Target(MULADD32),
    ));
}

/// Runs `muladd32` in the machine interpreter (every active lane).
pub fn execute_muladd(cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
    let exec = cx.exec();
    for lane in (0..cx.lanes()).filter(|l| exec & (1u64 << l) != 0) {
        let a = cx.read(1, lane)?.to_u128() as u32;
        let b = cx.read(2, lane)?.to_u128() as u32;
        let x = cx.read(3, lane)?.to_u128() as u32;
        let v = a.wrapping_mul(b).wrapping_add(x);
        cx.write(0, lane, Bits::from_u128(32, u128::from(v)))?;
    }
    Ok(Flow::Next)
}

/// On Gen11, where `add` reads `acc0` as `src0` and a dword x dword
/// product's low half comes from the accumulator (`mul acc0`, `mach null`,
/// 3 instructions per SIMD8 chunk), `d = mul a, b` read only by
/// `e = add d, x` becomes `e = muladd32 a, b, x`: the `add` reads `acc0`
/// instead of a `mov` out of it (3 instructions, not 4). Only for values
/// of one SIMD8 chunk or uniform scalars (`one_chunk`): at SIMD16 the
/// full-width dword x word products are cheaper.
pub fn fuse_mul_add(f: &mut MFunction, s: &InstrSet, one_chunk: &dyn Fn(VReg) -> bool) {
    let (Some(mul), Some(add), Some(muladd)) =
        (s.by_name("mul"), s.by_name("add"), s.by_name("muladd32"))
    else {
        return;
    };
    let mut uses: std::collections::HashMap<VReg, usize> = std::collections::HashMap::new();
    for b in f.blocks.iter() {
        for i in &b.insts {
            for (_, r) in i.reg_ops() {
                if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                    *uses.entry(v).or_default() += 1;
                }
            }
        }
    }
    for b in f.blocks.iter_mut() {
        let mut k = 0;
        while k < b.insts.len() {
            let i = &b.insts[k];
            let d = i.ops.first().and_then(Operand::vreg);
            let fusable = i.opcode == mul
                && i.ops.len() == 3
                && d.is_some_and(|d| uses.get(&d) == Some(&1) && one_chunk(d));
            if !fusable {
                k += 1;
                continue;
            }
            let (Some(d), Some(a), Some(bb)) = (d, i.ops[1].vreg(), i.ops[2].vreg()) else {
                k += 1;
                continue;
            };
            // The add reading it, later in the block.
            let at = b.insts[k + 1..]
                .iter()
                .position(|u| u.opcode == add && u.ops.iter().skip(1).any(|o| o.vreg() == Some(d)))
                .map(|p| p + k + 1);
            let Some(at) = at else {
                k += 1;
                continue;
            };
            let u = &b.insts[at];
            let (Some(e), Some(p), Some(q)) = (u.ops[0].vreg(), u.ops[1].vreg(), u.ops[2].vreg())
            else {
                k += 1;
                continue;
            };
            let x = if p == d { q } else { p };
            if x == d {
                k += 1;
                continue;
            }
            let mut n = MInst::new(muladd, vec![def(e), use_(a), use_(bb), use_(x)]);
            n.span = u.span.clone();
            b.insts[at] = n;
            b.insts.remove(k);
        }
    }
}

/// Runs `mul64` in the machine interpreter (every active lane).
pub fn execute(cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
    let exec = cx.exec();
    for lane in (0..cx.lanes()).filter(|l| exec & (1u64 << l) != 0) {
        let a = cx.read(2, lane)?.to_u128() as u32;
        let b = cx.read(3, lane)?.to_u128() as u32;
        let p = u64::from(a) * u64::from(b);
        cx.write(0, lane, Bits::from_u128(32, u128::from(p as u32)))?;
        cx.write(1, lane, Bits::from_u128(32, u128::from(p >> 32)))?;
    }
    Ok(Flow::Next)
}

/// Every `lo, hi = mad64 a, b, clo, chi` of `f` (selected, SSA) becomes
/// `p_lo, p_hi = mul64 a, b; lo, c = addc p_lo, clo; s = add p_hi, chi;
/// hi = add s, c`.
pub fn expand(f: &mut MFunction, s: &InstrSet) {
    let (Some(mad), Some(mul64), Some(addc), Some(add)) = (
        s.by_name("mad64"),
        s.by_name("mul64"),
        s.by_name("addc"),
        s.by_name("add"),
    ) else {
        return;
    };
    debug_assert_eq!(s.desc(mad).sem, Sem::Limb(LimbOp::Mad64));
    for b in 0..f.blocks.len() {
        let id = regdesc_codegen::mir::MBlockId(b as u32);
        let old = std::mem::take(&mut f.blocks[id].insts);
        let mut out = Vec::with_capacity(old.len());
        for i in old {
            let vregs: Option<Vec<VReg>> = i.ops.iter().take(6).map(Operand::vreg).collect();
            let (true, Some(v)) = (i.opcode == mad && i.ops.len() == 6, vregs) else {
                out.push(i);
                continue;
            };
            let (lo, hi, a, bb, clo, chi) = (v[0], v[1], v[2], v[3], v[4], v[5]);
            let rc = f.class_of(lo);
            let Some(rc) = rc else {
                out.push(i);
                continue;
            };
            let (plo, phi, c, sum) = (
                f.new_vreg(rc),
                f.new_vreg(rc),
                f.new_vreg(rc),
                f.new_vreg(rc),
            );
            let span = i.span.clone();
            let mut seq = [
                MInst::new(mul64, vec![def(plo), def(phi), use_(a), use_(bb)]),
                MInst::new(addc, vec![def(lo), def(c), use_(plo), use_(clo)]),
                MInst::new(add, vec![def(sum), use_(phi), use_(chi)]),
                MInst::new(add, vec![def(hi), use_(sum), use_(c)]),
            ];
            for n in &mut seq {
                n.span = span.clone();
            }
            out.extend(seq);
        }
        f.blocks[id].insts = out;
    }
}

/// `mul64` with one half unread becomes the instruction for the other.
pub fn narrow(f: &mut MFunction, s: &InstrSet) {
    let (Some(mul64), Some(umulh), Some(mul)) =
        (s.by_name("mul64"), s.by_name("mach.u"), s.by_name("mul"))
    else {
        return;
    };
    let mut read: HashSet<VReg> = HashSet::new();
    for b in f.blocks.iter() {
        for i in &b.insts {
            for (_, r) in i.reg_ops() {
                if !r.is_def() {
                    read.extend(r.vreg());
                }
            }
        }
    }
    for b in f.blocks.iter_mut() {
        for i in &mut b.insts {
            if i.opcode != mul64 {
                continue;
            }
            let (Some(lo), Some(hi)) = (i.ops[0].vreg(), i.ops[1].vreg()) else {
                continue;
            };
            let keep = match (read.contains(&lo), read.contains(&hi)) {
                (false, true) => Some((umulh, 1)),
                (true, false) => Some((mul, 0)),
                _ => None,
            };
            if let Some((op, k)) = keep {
                let mut ops = vec![i.ops[k].clone()];
                ops.extend(i.ops[2..4].iter().cloned());
                i.opcode = op;
                i.ops = ops.into();
            }
        }
    }
}

/// Removes instructions whose results no one reads and that do nothing
/// else (the zero constants the rewrite rules leave behind, the address
/// arithmetic of merged accesses), to a fixed point.
pub fn remove_dead(f: &mut MFunction, s: &InstrSet) {
    regdesc_codegen::mir::dead_code::remove_unread(f, s, |_, d| is_pure(d.sem));
}

/// Whether a Gen instruction's meaning has no effect but its defs: the
/// generic arithmetic, the payload reads, this crate's arithmetic and the
/// address packing; not the memory messages.
pub fn is_pure(sem: Sem) -> bool {
    match sem {
        Sem::MovImm | Sem::Binary(_) | Sem::Compare(_) | Sem::Select | Sem::Copy => true,
        Sem::Target(id) => {
            id == MUL64
                || id == MULADD32
                || crate::iadd64_split::Split::from_id(id).is_some()
                || crate::select::memory::is_pure_target(id)
        }
        Sem::Limb(l) => !matches!(l, LimbOp::Load | LimbOp::Store),
        _ => false,
    }
}
