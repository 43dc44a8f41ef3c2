//! Products of sign-extended bytes and words as `v_mul_i32_i24` (on
//! selected SSA code, before the SDWA peephole).
//!
//! The hardware facts served:
//! - `v_mul_i32_i24` multiplies the low 24 bits of its sources as signed
//!   numbers and is a VOP2 instruction, so it has an SDWA form whose
//!   sources may be `sext(v) src_sel:WORD_0` (or a byte): the sign
//!   extensions of its factors cost nothing ([`crate::sdwa_peephole`]
//!   folds them), where `v_mad_i64_i32` (VOP3) needs each factor
//!   extended by its own `v_bfe_i32`.
//! - The product of a signed `w1`-bit and a signed `w2`-bit number fits
//!   in `w1 + w2 - 1` signed bits: with `w1, w2 <= 16` it is an `i32`, so
//!   its 64-bit value is the 32-bit product and its sign
//!   (`v_ashrrev_i32 31`).
//!
//! - `v_mul_hi_i32_i24` (VOP2 too) gives the high 32 bits of that 48-bit
//!   product, and a factor of exactly 24 bits needs no extension at all.
//!
//! So `v_mad_i64_i32 p, _, bfe_i32(x, 0, w1), bfe_i32(y, 0, w2), 0` whose
//! extensions have no other reader becomes `v_mul_i32_i24` and
//! `v_ashrrev_i32` (the product fits an `i32`) or `v_mul_hi_i32_i24`:
//! two instructions for three once the peephole folds the extensions
//! (LLVM 14's `v_mul_i32_i24_sdwa` for `sext i16` factors; llc 19's
//! `v_mul_hi_i32_i24_sdwa` beside it for a `sext i24` times a `sext i8`).
//! A factor wider than a word is rewritten only where that counts fewer:
//! its extension stays unless it is 24 bits wide.

use std::collections::HashMap;

use regdesc_codegen::mir::{def, use_, MFunction, MInst, Operand, VReg};

use crate::isa::{Isa, Kind};
use crate::sdwa::SdwaOp;
use crate::select::Classes;

/// The widest sign extension the SDWA peephole folds (a word:
/// `sext(v) WORD_0`).
const SDWA_WIDTH: i64 = 16;

/// The width of the multiplier's signed sources.
const MAX_WIDTH: i64 = 24;

/// Rewrites the multiplies on `f`; does nothing on a chip without the
/// SDWA form of `v_mul_i32_i24`.
pub fn run(f: &mut MFunction, isa: &Isa, cls: Classes) {
    if isa.sdwa(SdwaOp::MulI24).is_none() {
        return;
    }
    let mad = isa.op("V_MAD_I64_I32_imm");
    let mut uses: HashMap<VReg, usize> = HashMap::new();
    // Registers defined as `v_bfe_i32 x, 0, w` with `w <= 24` or
    // `v_bfe_u32 x, 0, w` with `w <= 23`: (x, w, signed).
    let mut narrow: HashMap<VReg, Ext> = HashMap::new();
    for b in f.blocks.iter() {
        for i in &b.insts {
            if let Some((v, e)) = narrow_ext(isa, i) {
                narrow.insert(v, e);
            }
            for (_, r) in i.reg_ops() {
                if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                    *uses.entry(v).or_default() += 1;
                }
            }
        }
    }
    let blocks: Vec<_> = f.blocks.ids().collect();
    for bi in blocks {
        let mut k = 0;
        while k < f.blocks[bi].insts.len() {
            let i = &f.blocks[bi].insts[k];
            let fits = i.opcode == mad && {
                let ext = |o: Option<&Operand>| {
                    let r = o?.reg()?;
                    r.vreg()
                        .filter(|v| r.sub.is_none() && narrow.contains_key(v))
                };
                let (a, b) = (ext(i.ops.get(2)), ext(i.ops.get(3)));
                let ext_of = |v: Option<VReg>| v.and_then(|v| narrow.get(&v).copied());
                let (ea, eb) = (ext_of(a), ext_of(b));
                // Past a word, or with a zero extension, the extensions the
                // peephole does not fold stay: two multiplies and those
                // against the MAD and its two extensions.
                let kept = |e: Option<Ext>| {
                    e.map_or(1, |e| {
                        i64::from(e.w != 8 && e.w != 16 && !(e.signed && e.w == MAX_WIDTH))
                    })
                };
                let signed_words = [ea, eb]
                    .iter()
                    .all(|e| e.is_some_and(|e| e.signed && e.w <= SDWA_WIDTH));
                let cheaper = signed_words || 2 + kept(ea) + kept(eb) < 3;
                let readers = |v: VReg| uses.get(&v).copied().unwrap_or(0);
                let mask = i.ops.get(1).and_then(Operand::vreg);
                match (a, b, mask, i.ops.get(4)) {
                    (Some(a), Some(b), Some(m), Some(Operand::Imm(0))) => {
                        let own = if a == b { 2 } else { 1 };
                        readers(a) == own && readers(b) == own && readers(m) == 0 && cheaper
                    }
                    _ => false,
                }
            };
            let (Some(p), Some(a), Some(b), true) = (
                i.ops.first().and_then(Operand::vreg),
                i.ops.get(2).and_then(Operand::vreg),
                i.ops.get(3).and_then(Operand::vreg),
                fits,
            ) else {
                k += 1;
                continue;
            };
            // A 24-bit signed factor as it is (the multiplier reads 24
            // bits); a `w`-bit zero extension is a `w + 1`-bit signed
            // number.
            let source = |v: VReg| match narrow.get(&v) {
                Some(&Ext {
                    x,
                    w: MAX_WIDTH,
                    signed: true,
                }) => (x, MAX_WIDTH),
                Some(&Ext { w, signed, .. }) => (v, if signed { w } else { w + 1 }),
                None => (v, 32),
            };
            let ((a, wa), (b, wb)) = (source(a), source(b));
            let (lo, hi) = (f.new_vreg(cls.vgpr), f.new_vreg(cls.vgpr));
            // A `w1`-bit times a `w2`-bit signed number fits `w1 + w2 - 1`
            // bits: its high half is the low half's sign when that is 32.
            let high = if wa + wb - 1 <= 32 {
                MInst::new(
                    isa.op("V_ASHRREV_I32_E64"),
                    vec![def(hi), Operand::Imm(31), use_(lo)],
                )
            } else {
                MInst::new(
                    isa.op("V_MUL_HI_I32_I24_e64"),
                    vec![def(hi), use_(a), use_(b)],
                )
            };
            let new = vec![
                MInst::new(isa.op("V_MUL_I32_I24_e64"), vec![def(lo), use_(a), use_(b)]),
                high,
                MInst::new(
                    isa.instrs.reg_sequence,
                    vec![
                        def(p),
                        use_(lo),
                        Operand::SubIdx(cls.sub0),
                        use_(hi),
                        Operand::SubIdx(cls.sub1),
                    ],
                ),
            ];
            f.blocks[bi].insts.splice(k..=k, new);
            k += 3;
        }
    }
}

/// A narrow extension `v_bfe_i32 x, 0, w` / `v_bfe_u32 x, 0, w`.
#[derive(Clone, Copy, Debug)]
struct Ext {
    x: VReg,
    w: i64,
    signed: bool,
}

/// The register `d` defines and its extension, when `d` is `v_bfe_i32 x,
/// 0, w` with `w <= 24` or `v_bfe_u32 x, 0, w` with `w <= 23` (a value
/// the multiplier's signed 24 bits hold).
fn narrow_ext(isa: &Isa, d: &MInst) -> Option<(VReg, Ext)> {
    let v = d.ops.first().and_then(Operand::vreg)?;
    let x = d
        .ops
        .get(1)
        .and_then(|o| o.reg())
        .filter(|r| r.sub.is_none())?;
    match (isa.kind(d.opcode)?, d.ops.get(2), d.ops.get(3)) {
        (Kind::VBfe { signed }, Some(Operand::Imm(0)), Some(&Operand::Imm(w)))
            if w >= 1 && w + i64::from(!signed) <= MAX_WIDTH =>
        {
            let x = x.vreg()?;
            Some((v, Ext { x, w, signed }))
        }
        _ => None,
    }
}
