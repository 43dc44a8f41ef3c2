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
//! So `v_mad_i64_i32 p, _, bfe_i32(x, 0, w1), bfe_i32(y, 0, w2), 0` whose
//! extensions have no other reader becomes `v_mul_i32_i24` and
//! `v_ashrrev_i32`: two instructions for three once the peephole folds
//! the extensions (LLVM 14's `v_mul_i32_i24_sdwa` for `sext i16` factors).

use std::collections::{HashMap, HashSet};

use regdesc_codegen::mir::{def, use_, MFunction, MInst, Operand, VReg};

use crate::isa::{Isa, Kind};
use crate::sdwa::SdwaOp;
use crate::select::Classes;

/// The widest sign extension folded (a word: `sext(v) WORD_0`).
const MAX_WIDTH: i64 = 16;

/// Rewrites the multiplies on `f`; does nothing on a chip without the
/// SDWA form of `v_mul_i32_i24`.
pub fn run(f: &mut MFunction, isa: &Isa, cls: Classes) {
    if isa.sdwa(SdwaOp::MulI24).is_none() {
        return;
    }
    let mad = isa.op("V_MAD_I64_I32_imm");
    let mut uses: HashMap<VReg, usize> = HashMap::new();
    // Registers defined as `v_bfe_i32 x, 0, w` with `w <= 16`.
    let mut narrow: HashSet<VReg> = HashSet::new();
    for b in f.blocks.iter() {
        for i in &b.insts {
            if let Some(v) = narrow_ext(isa, i) {
                narrow.insert(v);
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
                    r.vreg().filter(|v| r.sub.is_none() && narrow.contains(v))
                };
                let (a, b) = (ext(i.ops.get(2)), ext(i.ops.get(3)));
                let readers = |v: VReg| uses.get(&v).copied().unwrap_or(0);
                let mask = i.ops.get(1).and_then(Operand::vreg);
                match (a, b, mask, i.ops.get(4)) {
                    (Some(a), Some(b), Some(m), Some(Operand::Imm(0))) => {
                        let own = if a == b { 2 } else { 1 };
                        readers(a) == own && readers(b) == own && readers(m) == 0
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
            let (lo, hi) = (f.new_vreg(cls.vgpr), f.new_vreg(cls.vgpr));
            let new = vec![
                MInst::new(isa.op("V_MUL_I32_I24_e64"), vec![def(lo), use_(a), use_(b)]),
                MInst::new(
                    isa.op("V_ASHRREV_I32_E64"),
                    vec![def(hi), Operand::Imm(31), use_(lo)],
                ),
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

/// The register `d` defines when it is `v_bfe_i32 x, 0, w` with
/// `w <= 16`.
fn narrow_ext(isa: &Isa, d: &MInst) -> Option<VReg> {
    let v = d.ops.first().and_then(Operand::vreg)?;
    match (isa.kind(d.opcode)?, d.ops.get(2), d.ops.get(3)) {
        (Kind::VBfe { signed: true }, Some(Operand::Imm(0)), Some(Operand::Imm(w)))
            if (1..=MAX_WIDTH).contains(w) =>
        {
            Some(v)
        }
        _ => None,
    }
}
