//! Floating-point instructions of the simulator: `mov` conversions
//! between `:f` and `:hf`, `add` and `mul` on `:f`.
//!
//! Hardware facts (PRM Vol 7 "Floating Point Modes", IEEE mode, and
//! "Control Register"): results are rounded to nearest even; a NaN source
//! is returned quieted (src0 first), an invalid operation gives the
//! default NaN `0x7FC00000`; denormal sources and results are flushed to
//! zero unless `cr0.0` keeps them (bit 7 for `:f`, bit 10 for `:hf`);
//! a `:f` to `:hf` `mov` rounds to nearest even.

use half::f16;

use crate::isa::{Dst, Inst, Op, RegName, Src, Ty};
use crate::regions::GRF_BYTES;
use crate::sim::exec::{element, grf_byte, Thread, CR0_HF_DENORM, CR0_SP_DENORM};
use crate::sim::SimError;

fn flush(t: &Thread, v: f32, ty: Ty) -> f32 {
    let keep = match ty {
        Ty::Hf => t.cr0 & CR0_HF_DENORM != 0,
        _ => t.cr0 & CR0_SP_DENORM != 0,
    };
    let tiny = match ty {
        Ty::Hf => v != 0.0 && v.abs() < 6.103_515_6e-5,
        _ => v.is_subnormal(),
    };
    if tiny && !keep {
        0.0f32.copysign(v)
    } else {
        v
    }
}

fn to_f32(bits: u32, ty: Ty) -> Option<f32> {
    match ty {
        Ty::F | Ty::Ud | Ty::D => Some(f32::from_bits(bits)),
        Ty::Hf | Ty::Uw | Ty::W => Some(f16::from_bits(bits as u16).to_f32()),
        // 64-bit integer operands of float instructions are not simulated.
        Ty::Q | Ty::Uq => None,
    }
}

fn read(t: &Thread, s: &Src, ch: u32) -> Option<f32> {
    let (bits, ty, neg) = match s {
        Src::Imm { bits, ty } => (*bits, *ty, false),
        Src::Reg {
            reg: RegName::Grf { nr, sub },
            region,
            ty,
            neg,
        } => {
            let byte = grf_byte(*nr, *sub, element(region, ch), *ty);
            (t.read_elem(byte, *ty) as u32, *ty, *neg)
        }
        Src::Reg { .. } => return None,
    };
    let v = flush(t, to_f32(bits, ty)?, ty);
    Some(if neg { -v } else { v })
}

fn quiet(v: f32) -> f32 {
    f32::from_bits(v.to_bits() | 0x0040_0000)
}

/// Runs a floating-point `i` on `t`.
pub fn execute(t: &mut Thread, i: &Inst, d: Dst) -> Result<(), SimError> {
    let bad = |m: &str| SimError::Exec {
        inst: i.to_string(),
        message: m.to_string(),
    };
    if !matches!(i.op, Op::Mov | Op::Add | Op::Mul) {
        return Err(bad("only mov, add and mul are simulated on floats"));
    }
    if !matches!(d.ty, Ty::F | Ty::Hf) {
        return Err(bad("a float result needs an :f or :hf destination"));
    }
    let RegName::Grf { nr, sub } = d.reg else {
        return Err(bad("float destinations are GRFs"));
    };
    let mut out = Vec::new();
    for ch in 0..u32::from(i.exec) {
        let channel = u32::from(i.offset) + ch;
        let enabled = i.nomask || (t.dmask >> channel) & 1 != 0;
        if i.pred.is_some() && channel >= 16 {
            return Err(bad(
                "predication of channels 16 and up (SIMD32) is not simulated",
            ));
        }
        let on = i
            .pred
            .is_none_or(|p| ((t.flag(p.flag) >> channel) & 1 != 0) != p.invert);
        if !enabled || !on {
            continue;
        }
        let a = i
            .srcs
            .first()
            .and_then(|s| read(t, s, ch))
            .ok_or_else(|| bad("a float source must be a GRF or an immediate"))?;
        let b = match i.srcs.get(1) {
            Some(s) => read(t, s, ch).ok_or_else(|| bad("bad float source"))?,
            None => 0.0,
        };
        let r = match i.op {
            Op::Add => a + b,
            Op::Mul => a * b,
            _ => a,
        };
        let r = if r.is_nan() {
            if a.is_nan() {
                quiet(a)
            } else if b.is_nan() && i.op != Op::Mov {
                quiet(b)
            } else {
                f32::from_bits(0x7FC0_0000)
            }
        } else {
            r
        };
        out.push((ch, r));
    }
    for (ch, r) in out {
        let byte = u32::from(nr) * GRF_BYTES + (u32::from(sub) + ch * u32::from(d.h)) * d.ty.size();
        let bits = match d.ty {
            Ty::Hf => {
                let h = f16::from_f32(r);
                let h = if t.cr0 & CR0_HF_DENORM == 0
                    && !h.is_normal()
                    && h.is_finite()
                    && h.to_f32() != 0.0
                {
                    f16::from_f32(0.0f32.copysign(r))
                } else {
                    h
                };
                i128::from(h.to_bits())
            }
            _ => i128::from(flush(t, r, Ty::F).to_bits()),
        };
        t.write_elem(byte as usize, d.ty, bits);
    }
    Ok(())
}
