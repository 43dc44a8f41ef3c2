//! The vector unit on 32- and 64-bit values: VOP1, VOP2, VOP3 (VOP3a and
//! VOP3b, the carry-out forms) and VOPC.
//!
//! Follows the Vega ISA (gfx9) chapter "Vector ALU Operations" and the
//! VOP2, VOP1, VOPC and VOP3 opcode tables of its "Instructions" chapter,
//! and the same chapter and tables of the RDNA2 ISA (gfx1030):
//!
//! - Each instruction runs on the lanes set in EXEC; the others keep their
//!   registers. A lane-mask result (a compare, a carry out) has 0 in the
//!   bits of inactive lanes.
//! - Carries: `v_add_co_u32`/`v_sub_co_u32`/`v_subrev_co_u32` write a carry
//!   (borrow) mask; `v_addc_co_u32`/`v_subb_co_u32`/`v_subbrev_co_u32`
//!   (gfx9) and `v_add_co_ci_u32`/`v_sub_co_ci_u32`/`v_subrev_co_ci_u32`
//!   (gfx10) also read one. `v_add_u32`/`v_sub_u32` (gfx9) and
//!   `v_add_nc_u32` (gfx10) have no carry.
//! - `v_cmpx_*` also writes EXEC; on gfx10 it writes only EXEC.
//! - `v_mad_u64_u32 vdst, sdst, a, b, c`: `a * b + c` on 64 bits, the carry
//!   of the addition in `sdst`.
//! - `v_perm_b32`: each selector byte picks a byte of `{src0, src1}`
//!   (0–7), a sign (8–11), 0 (12) or 0xff (13+).
//! - Floating point (`v_add_f32`, ...): IEEE binary32, round to nearest
//!   even, denormals kept (the mode llc's kernels and functions run in).
//!   LLVM leaves NaN bits unspecified; the simulator gives the NaN the
//!   reference interpreter gives (`regdesc_codegen::interp::ops`), so
//!   results compare bit for bit.

use regdesc_codegen::interp::ops::fbin;
use regdesc_codegen::ir::{FBinOp, FastMath, Type};
use regdesc_codegen::value::{IntBits, Value};

use super::error::SimError;
use super::exec::{bad, Cpu, Res};
use super::parse::{Inst, Opnd};
use super::sdwa;

/// The vector instructions on 32/64-bit values the simulator models.
pub const NAMES: &[&str] = &[
    // VOP1
    "v_mov_b32",
    "v_accvgpr_write_b32",
    "v_accvgpr_read_b32",
    "v_not_b32",
    "v_bfrev_b32",
    "v_readfirstlane_b32",
    "v_ffbh_u32",
    "v_ffbl_b32",
    // VOP2 / VOP3 two-source
    "v_add_u32",
    "v_add_nc_u32",
    "v_sub_u32",
    "v_sub_nc_u32",
    "v_subrev_u32",
    "v_subrev_nc_u32",
    "v_and_b32",
    "v_or_b32",
    "v_xor_b32",
    "v_xnor_b32",
    "v_lshlrev_b32",
    "v_lshrrev_b32",
    "v_ashrrev_i32",
    "v_mul_lo_u32",
    "v_mul_hi_u32",
    "v_mul_hi_i32",
    "v_mul_u32_u24",
    "v_mul_hi_u32_u24",
    "v_mul_i32_i24",
    "v_mul_hi_i32_i24",
    "v_min_u32",
    "v_max_u32",
    "v_min_i32",
    "v_max_i32",
    "v_bfm_b32",
    "v_add_f32",
    "v_sub_f32",
    "v_subrev_f32",
    "v_mul_f32",
    "v_readlane_b32",
    "v_writelane_b32",
    "v_add_i32",
    "v_sub_i32",
    "v_add_nc_i32",
    "v_sub_nc_i32",
    // carries
    "v_add_co_u32",
    "v_sub_co_u32",
    "v_subrev_co_u32",
    "v_addc_co_u32",
    "v_subb_co_u32",
    "v_subbrev_co_u32",
    "v_add_co_ci_u32",
    "v_sub_co_ci_u32",
    "v_subrev_co_ci_u32",
    "v_cndmask_b32",
    // VOP3 three-source
    "v_add3_u32",
    "v_lshl_or_b32",
    "v_lshl_add_u32",
    "v_add_lshl_u32",
    "v_or3_b32",
    "v_and_or_b32",
    "v_xad_u32",
    "v_xor3_b32",
    "v_bfe_u32",
    "v_bfe_i32",
    "v_bfi_b32",
    "v_alignbit_b32",
    "v_alignbyte_b32",
    "v_perm_b32",
    "v_mad_u32_u24",
    "v_mad_i32_i24",
    "v_min3_u32",
    "v_max3_u32",
    "v_min3_i32",
    "v_max3_i32",
    "v_med3_u32",
    "v_med3_i32",
    // 64-bit
    "v_lshlrev_b64",
    "v_lshrrev_b64",
    "v_ashrrev_i64",
    "v_mad_u64_u32",
    "v_mad_i64_i32",
];

/// Whether `base` is a modelled VOPC compare:
/// `v_cmp[x]_{eq,ne,lt,le,gt,ge}_{u,i}{16,32,64}`.
pub fn is_vopc(base: &str) -> bool {
    let Some(rest) = base.strip_prefix("v_cmpx_").or(base.strip_prefix("v_cmp_")) else {
        return false;
    };
    let Some((cond, ty)) = rest.split_once('_') else {
        return false;
    };
    ["eq", "ne", "lt", "le", "gt", "ge"].contains(&cond)
        && ["u16", "i16", "u32", "i32", "u64", "i64"].contains(&ty)
}

/// `op` on two floats of `ty` given as bits, with the reference
/// interpreter's NaN rule.
pub fn fop(op: FBinOp, ty: Type, a: u32, b: u32) -> u32 {
    let v = |x: u32| Value::from_bits(ty, IntBits::from(x));
    match (v(a), v(b)) {
        (Some(x), Some(y)) => fbin(op, FastMath::default(), &x, &y)
            .map(|r| r.to_bits().as_limbs()[0] as u32)
            .unwrap_or(0),
        _ => 0,
    }
}

/// A binary32 source with its `-` and `|x|` modifiers applied.
fn fsrc(c: &Cpu, inst: &Inst, i: usize, lane: usize) -> Res<u32> {
    let o = c.op(inst, i)?;
    let mut v = sdwa::src(c, inst, i, lane)?;
    if o.abs {
        v &= 0x7fff_ffff;
    }
    if o.neg {
        v ^= 0x8000_0000;
    }
    Ok(v)
}

fn two(base: &str, a: u32, b: u32) -> Option<u32> {
    let (wa, wb) = (u64::from(a), u64::from(b));
    let s24 = |x: u32| i64::from(((x << 8) as i32) >> 8);
    Some(match base {
        "v_add_u32" | "v_add_nc_u32" | "v_add_i32" | "v_add_nc_i32" => a.wrapping_add(b),
        "v_sub_u32" | "v_sub_nc_u32" | "v_sub_i32" | "v_sub_nc_i32" => a.wrapping_sub(b),
        "v_subrev_u32" | "v_subrev_nc_u32" => b.wrapping_sub(a),
        "v_and_b32" => a & b,
        "v_or_b32" => a | b,
        "v_xor_b32" => a ^ b,
        "v_xnor_b32" => !(a ^ b),
        "v_lshlrev_b32" => b << (a & 31),
        "v_lshrrev_b32" => b >> (a & 31),
        "v_ashrrev_i32" => ((b as i32) >> (a & 31)) as u32,
        "v_mul_lo_u32" => a.wrapping_mul(b),
        "v_mul_hi_u32" => ((wa * wb) >> 32) as u32,
        "v_mul_hi_i32" => ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
        "v_mul_u32_u24" => (wa & 0xff_ffff).wrapping_mul(wb & 0xff_ffff) as u32,
        "v_mul_hi_u32_u24" => (((wa & 0xff_ffff) * (wb & 0xff_ffff)) >> 32) as u32,
        "v_mul_i32_i24" => (s24(a) * s24(b)) as u32,
        "v_mul_hi_i32_i24" => ((s24(a) * s24(b)) >> 32) as u32,
        "v_min_u32" => a.min(b),
        "v_max_u32" => a.max(b),
        "v_min_i32" => (a as i32).min(b as i32) as u32,
        "v_max_i32" => (a as i32).max(b as i32) as u32,
        "v_bfm_b32" => (((1u64 << (a & 31)) - 1) << (b & 31)) as u32,
        "v_add_f32" => fop(FBinOp::FAdd, Type::Float, a, b),
        "v_sub_f32" => fop(FBinOp::FSub, Type::Float, a, b),
        "v_subrev_f32" => fop(FBinOp::FSub, Type::Float, b, a),
        "v_mul_f32" => fop(FBinOp::FMul, Type::Float, a, b),
        _ => return None,
    })
}

fn perm(a: u32, b: u32, sel: u32) -> u32 {
    let src = u64::from(a) << 32 | u64::from(b);
    let mut out = 0u32;
    for i in 0..4 {
        let s = (sel >> (8 * i)) & 0xff;
        let byte = match s {
            0..=7 => (src >> (8 * s)) as u8,
            8 => (b >> 15 & 1) as u8 * 0xff,
            9 => (b >> 31 & 1) as u8 * 0xff,
            10 => (a >> 15 & 1) as u8 * 0xff,
            11 => (a >> 31 & 1) as u8 * 0xff,
            12 => 0,
            _ => 0xff,
        };
        out |= u32::from(byte) << (8 * i);
    }
    out
}

fn three(base: &str, a: u32, b: u32, c: u32) -> Option<u32> {
    let med = |x: i64, y: i64, z: i64| x.max(y).min(x.min(y).max(z));
    Some(match base {
        "v_add3_u32" => a.wrapping_add(b).wrapping_add(c),
        "v_lshl_or_b32" => (a << (b & 31)) | c,
        "v_lshl_add_u32" => (a << (b & 31)).wrapping_add(c),
        "v_add_lshl_u32" => a.wrapping_add(b) << (c & 31),
        "v_or3_b32" => a | b | c,
        "v_and_or_b32" => (a & b) | c,
        "v_xad_u32" => (a ^ b).wrapping_add(c),
        "v_xor3_b32" => a ^ b ^ c,
        "v_bfe_u32" | "v_bfe_i32" => {
            let (off, w) = (b & 31, c & 31);
            if w == 0 {
                0
            } else if base == "v_bfe_u32" {
                (a >> off) & ((1u32 << w) - 1)
            } else {
                (((a >> off) << (32 - w)) as i32 >> (32 - w)) as u32
            }
        }
        "v_bfi_b32" => (a & b) | (!a & c),
        "v_alignbit_b32" => ((u64::from(a) << 32 | u64::from(b)) >> (c & 31)) as u32,
        "v_alignbyte_b32" => ((u64::from(a) << 32 | u64::from(b)) >> (8 * (c & 3))) as u32,
        "v_perm_b32" => perm(a, b, c),
        "v_mad_u32_u24" => (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c),
        "v_mad_i32_i24" => {
            let s = |x: u32| ((x << 8) as i32) >> 8;
            s(a).wrapping_mul(s(b)).wrapping_add(c as i32) as u32
        }
        "v_min3_u32" => a.min(b).min(c),
        "v_max3_u32" => a.max(b).max(c),
        "v_min3_i32" => (a as i32).min(b as i32).min(c as i32) as u32,
        "v_max3_i32" => (a as i32).max(b as i32).max(c as i32) as u32,
        "v_med3_u32" => med(a.into(), b.into(), c.into()) as u32,
        "v_med3_i32" => med((a as i32).into(), (b as i32).into(), (c as i32).into()) as u32,
        _ => return None,
    })
}

pub fn exec(c: &mut Cpu, inst: &Inst) -> Res<()> {
    let base = inst.base.as_str();
    let float = base.ends_with("_f32");
    if inst.sdwa {
        sdwa::check_mods(c, inst)?;
    } else {
        c.only_mods(inst, &[])?;
    }
    // Float operations and v_cndmask_b32 (VOP3) take `-` and `|x|`.
    if !float && base != "v_cndmask_b32" {
        c.plain_operands(inst)?;
    }
    if base.starts_with("v_cmp") {
        return vopc(c, inst, base);
    }
    match base {
        "v_readfirstlane_b32" => {
            let lane = c.w.active().next().unwrap_or(0);
            let v = c.v32(inst, 1, lane)?;
            return c.set_s32(inst, 0, v);
        }
        "v_readlane_b32" => {
            let lane = (c.s32(inst, 2)? as usize) % c.w.size;
            let v = c.v32(inst, 1, lane)?;
            return c.set_s32(inst, 0, v);
        }
        "v_writelane_b32" => {
            let lane = (c.s32(inst, 2)? as usize) % c.w.size;
            let v = c.s32(inst, 1)?;
            return c.set_v32(inst, 0, lane, v);
        }
        "v_lshlrev_b64" | "v_lshrrev_b64" | "v_ashrrev_i64" => {
            for l in c.lanes() {
                let s = c.v32(inst, 1, l)? & 63;
                let x = c.v64(inst, 2, l)?;
                let r = match base {
                    "v_lshlrev_b64" => x << s,
                    "v_lshrrev_b64" => x >> s,
                    _ => ((x as i64) >> s) as u64,
                };
                c.set_v64(inst, 0, l, r)?;
            }
            return Ok(());
        }
        "v_mad_u64_u32" | "v_mad_i64_i32" => return mad64(c, inst, base),
        "v_cndmask_b32" => {
            let m = c.mask(inst, 3)?;
            for l in c.lanes() {
                let v = if m >> l & 1 == 1 {
                    fsrc(c, inst, 2, l)?
                } else {
                    fsrc(c, inst, 1, l)?
                };
                sdwa::dst(c, inst, l, v)?;
            }
            return Ok(());
        }
        _ => {}
    }
    if let Some(k) = carry_kind(base) {
        return carry(c, inst, k);
    }
    if matches!(
        base,
        "v_mov_b32"
            | "v_accvgpr_write_b32"
            | "v_accvgpr_read_b32"
            | "v_not_b32"
            | "v_bfrev_b32"
            | "v_ffbh_u32"
            | "v_ffbl_b32"
    ) {
        for l in c.lanes() {
            let a = sdwa::src(c, inst, 1, l)?;
            let r = match base {
                // Moves between VGPRs and accumulation VGPRs too.
                "v_mov_b32" | "v_accvgpr_write_b32" | "v_accvgpr_read_b32" => a,
                "v_not_b32" => !a,
                "v_bfrev_b32" => a.reverse_bits(),
                "v_ffbh_u32" => {
                    if a == 0 {
                        u32::MAX
                    } else {
                        a.leading_zeros()
                    }
                }
                _ => {
                    if a == 0 {
                        u32::MAX
                    } else {
                        a.trailing_zeros()
                    }
                }
            };
            sdwa::dst(c, inst, l, r)?;
        }
        return Ok(());
    }
    if two(base, 0, 0).is_some() {
        for l in c.lanes() {
            let (a, b) = if float {
                (fsrc(c, inst, 1, l)?, fsrc(c, inst, 2, l)?)
            } else {
                (sdwa::src(c, inst, 1, l)?, sdwa::src(c, inst, 2, l)?)
            };
            let r = two(base, a, b).unwrap_or(0);
            sdwa::dst(c, inst, l, r)?;
        }
        return Ok(());
    }
    if three(base, 0, 0, 0).is_some() {
        for l in c.lanes() {
            let (a, b, d) = (c.v32(inst, 1, l)?, c.v32(inst, 2, l)?, c.v32(inst, 3, l)?);
            let r = three(base, a, b, d).unwrap_or(0);
            c.set_v32(inst, 0, l, r)?;
        }
        return Ok(());
    }
    Err(SimError::UnknownInstruction {
        span: inst.name_span.clone(),
        mnemonic: inst.mnemonic.clone(),
    })
}

/// The carry instructions: (subtract, reversed, reads a carry).
fn carry_kind(base: &str) -> Option<(bool, bool, bool)> {
    Some(match base {
        "v_add_co_u32" => (false, false, false),
        "v_sub_co_u32" => (true, false, false),
        "v_subrev_co_u32" => (true, true, false),
        "v_addc_co_u32" | "v_add_co_ci_u32" => (false, false, true),
        "v_subb_co_u32" | "v_sub_co_ci_u32" => (true, false, true),
        "v_subbrev_co_u32" | "v_subrev_co_ci_u32" => (true, true, true),
        _ => return None,
    })
}

fn carry(c: &mut Cpu, inst: &Inst, (sub, rev, cin): (bool, bool, bool)) -> Res<()> {
    let m_in = if cin { c.mask(inst, 4)? } else { 0 };
    let mut out = 0u64;
    for l in c.lanes() {
        let (mut a, mut b) = (u64::from(c.v32(inst, 2, l)?), u64::from(c.v32(inst, 3, l)?));
        if rev {
            std::mem::swap(&mut a, &mut b);
        }
        let k = m_in >> l & 1;
        let (r, co) = if sub {
            let s = b + k;
            (a.wrapping_sub(s) as u32, s > a)
        } else {
            let s = a + b + k;
            (s as u32, s >> 32 != 0)
        };
        c.set_v32(inst, 0, l, r)?;
        out |= u64::from(co) << l;
    }
    c.set_mask(inst, 1, out)
}

fn mad64(c: &mut Cpu, inst: &Inst, base: &str) -> Res<()> {
    let mut out = 0u64;
    for l in c.lanes() {
        let (a, b, d) = (c.v32(inst, 2, l)?, c.v32(inst, 3, l)?, c.v64(inst, 4, l)?);
        // The ISA manual: the unsigned carry is bit 64 of the 128-bit sum;
        // the signed one bit 64 of the exact sum (`{D1, D0} =
        // 65'B(65'I(S0.i32) * 65'I(S1.i32) + 65'I(S2.i64))`), its sign.
        let (r, co) =
            crate::semantics::mad64(u64::from(a), u64::from(b), d, base == "v_mad_i64_i32");
        c.set_v64(inst, 0, l, r)?;
        out |= u64::from(co) << l;
    }
    c.set_mask(inst, 1, out)
}

/// VOPC: `v_cmp[x]_{eq,ne,lt,le,gt,ge}_{u,i}{16,32,64}`.
fn vopc(c: &mut Cpu, inst: &Inst, base: &str) -> Res<()> {
    let cmpx = base.starts_with("v_cmpx_");
    let rest = base
        .trim_start_matches("v_cmpx_")
        .trim_start_matches("v_cmp_");
    let (cond, ty) = rest.split_once('_').unwrap_or((rest, ""));
    // gfx10's v_cmpx writes only EXEC and has no destination operand.
    let no_dst = cmpx && c.chip.is_gfx10();
    let s = usize::from(!no_dst);
    if no_dst && inst.ops.len() != 2 {
        return Err(bad(&inst.span, "gfx10 `v_cmpx` takes two sources"));
    }
    let mut out = 0u64;
    for l in c.lanes() {
        let ord = match ty {
            "u64" | "i64" => {
                let (a, b) = (c.v64(inst, s, l)?, c.v64(inst, s + 1, l)?);
                if ty == "i64" {
                    (a as i64).cmp(&(b as i64))
                } else {
                    a.cmp(&b)
                }
            }
            _ => {
                let (a, b) = (sdwa::src(c, inst, s, l)?, sdwa::src(c, inst, s + 1, l)?);
                match ty {
                    "u16" => (a as u16).cmp(&(b as u16)),
                    "i16" => (a as i16).cmp(&(b as i16)),
                    "i32" => (a as i32).cmp(&(b as i32)),
                    _ => a.cmp(&b),
                }
            }
        };
        use std::cmp::Ordering::*;
        let t = match cond {
            "eq" => ord == Equal,
            "ne" => ord != Equal,
            "lt" => ord == Less,
            "le" => ord != Greater,
            "gt" => ord == Greater,
            _ => ord != Less,
        };
        out |= u64::from(t) << l;
    }
    if !no_dst {
        match c.op(inst, 0)?.kind {
            Opnd::Sreg { .. } => c.set_mask(inst, 0, out)?,
            _ => {
                return Err(bad(
                    &inst.ops[0].span,
                    "a compare writes a lane mask (`vcc`, `s[n:n+1]`)",
                ))
            }
        }
    }
    if cmpx {
        c.w.set_exec(out);
    }
    Ok(())
}
