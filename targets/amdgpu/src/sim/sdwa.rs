//! 16-bit vector operations, SDWA operand selection and packed (VOP3P)
//! math.
//!
//! # SDWA (the `VOP_SDWA` microcode format of the Vega ISA (gfx9) and RDNA2
//! ISA (gfx1030) "Microcode Formats" chapters: `DST_SEL`, `DST_UNUSED`,
//! `SRC0_SEL`, `SRC0_SEXT`, ...)
//!
//! `src0_sel`/`src1_sel` pick a byte (`BYTE_0`..`BYTE_3`), a word
//! (`WORD_0`, `WORD_1`) or the whole `DWORD` of a source, zero-extended,
//! or sign-extended under `sext(...)`. `dst_sel` says where the low bits
//! of the result go; `dst_unused` what the rest of the destination
//! becomes: `UNUSED_PAD` zeros, `UNUSED_SEXT` the sign of the written
//! field above it (zeros below), `UNUSED_PRESERVE` the destination's
//! previous bits. Unwritten selectors default to `DWORD` and
//! `UNUSED_PRESERVE`, as in LLVM's assembler.
//!
//! # 16-bit results outside SDWA
//!
//! On gfx9 the VOP1/VOP2/VOP3 16-bit operations write the result
//! zero-extended to 32 bits, except `v_mad_u16`/`v_mad_i16` (the gfx9
//! opcodes, which keep the high half, unlike the `_legacy` ones); on
//! gfx10 every 16-bit operation keeps the high half (LLVM's
//! `GCNSubtarget::zeroesHigh16BitsOfDest` records the same facts). VOP3
//! `op_sel:[a,b,(c,)d]` takes a source's high half, and `d` writes the high
//! half keeping the low one.
//!
//! # Packed math (the "Packed Math" section of the "Vector ALU Operations"
//! chapter and the `VOP3P` format of the Vega and RDNA2 ISA guides)
//!
//! The low result half reads each source's half chosen by `op_sel`
//! (default low), the high result half the half chosen by `op_sel_hi`
//! (default high). An inline constant sits in the low half of a 32-bit
//! value (so `op_sel_hi:[..,0]` applies it to both halves).
//! `v_pk_mov_b32` (gfx90a) moves the `op_sel`-chosen dwords of two 64-bit
//! sources into a VGPR pair.

use regdesc_codegen::ir::{FBinOp, Type};

use super::error::SimError;
use super::exec::{bad, unsupported, Cpu, Fp, Res};
use super::parse::{Inst, Modifier};
use super::valu::fop;

/// The 16-bit and packed instructions the simulator models.
pub const NAMES: &[&str] = &[
    "v_add_u16",
    "v_add_i16",
    "v_sub_i16",
    "v_add_nc_i16",
    "v_sub_nc_i16",
    "v_add_nc_u16",
    "v_sub_u16",
    "v_sub_nc_u16",
    "v_subrev_u16",
    "v_mul_lo_u16",
    "v_lshlrev_b16",
    "v_lshrrev_b16",
    "v_ashrrev_i16",
    "v_min_u16",
    "v_max_u16",
    "v_min_i16",
    "v_max_i16",
    "v_add_f16",
    "v_sub_f16",
    "v_subrev_f16",
    "v_mul_f16",
    "v_mad_u16",
    "v_mad_legacy_u16",
    "v_mad_i16",
    "v_mad_legacy_i16",
    "v_pack_b32_f16",
    "v_pk_add_u16",
    "v_pk_sub_u16",
    "v_pk_add_i16",
    "v_pk_sub_i16",
    "v_pk_mul_lo_u16",
    "v_pk_lshlrev_b16",
    "v_pk_lshrrev_b16",
    "v_pk_ashrrev_i16",
    "v_pk_add_f16",
    "v_pk_mul_f16",
    "v_pk_min_u16",
    "v_pk_max_u16",
    "v_pk_min_i16",
    "v_pk_max_i16",
    "v_pk_mov_b32",
];

/// A selected part of a dword: bit offset and width.
fn sel(m: Option<&Modifier>) -> Res<(u32, u32)> {
    let Some(m) = m else {
        return Ok((0, 32));
    };
    Ok(match m.value.as_deref().unwrap_or("") {
        "BYTE_0" => (0, 8),
        "BYTE_1" => (8, 8),
        "BYTE_2" => (16, 8),
        "BYTE_3" => (24, 8),
        "WORD_0" => (0, 16),
        "WORD_1" => (16, 16),
        "DWORD" => (0, 32),
        v => return Err(bad(&m.span, format!("`{v}` is not a selector"))),
    })
}

fn mask(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1 << w) - 1
    }
}

/// Checks the modifiers of an SDWA instruction.
pub fn check_mods(c: &Cpu, inst: &Inst) -> Res<()> {
    c.only_mods(inst, &["dst_sel", "dst_unused", "src0_sel", "src1_sel"])
}

/// Source operand `i` of `lane`, through the SDWA selector if SDWA.
pub fn src(c: &Cpu, inst: &Inst, i: usize, lane: usize) -> Res<u32> {
    let o = c.op(inst, i)?;
    let fp = if inst.base.contains("16") {
        Fp::B16
    } else {
        Fp::B32
    };
    let raw = c.v32_of(o, lane, fp)?;
    if !inst.sdwa {
        return Ok(raw);
    }
    let name = format!("src{}_sel", i.saturating_sub(1));
    let (off, w) = sel(inst.modifier(&name))?;
    let v = (raw >> off) & mask(w);
    Ok(if o.sext && w < 32 && v >> (w - 1) & 1 == 1 {
        v | !mask(w)
    } else {
        v
    })
}

/// Writes `r` to the destination VGPR (operand 0) of `lane`, through the
/// SDWA `dst_sel`/`dst_unused` if SDWA.
pub fn dst(c: &mut Cpu, inst: &Inst, lane: usize, r: u32) -> Res<()> {
    if !inst.sdwa {
        return c.set_v32(inst, 0, lane, r);
    }
    let (off, w) = sel(inst.modifier("dst_sel"))?;
    let field = r & mask(w);
    let placed = field << off;
    let fmask = mask(w) << off;
    let v = match inst.modifier("dst_unused") {
        Some(m) if m.value.as_deref() == Some("UNUSED_PAD") => placed,
        Some(m) if m.value.as_deref() == Some("UNUSED_SEXT") => {
            if w < 32 && field >> (w - 1) & 1 == 1 {
                placed | !(fmask | mask(off))
            } else {
                placed
            }
        }
        Some(m) if m.value.as_deref() != Some("UNUSED_PRESERVE") => {
            return Err(bad(
                &m.span,
                "`dst_unused` is UNUSED_PAD, UNUSED_SEXT or UNUSED_PRESERVE",
            ))
        }
        _ => {
            let old = c.v32(inst, 0, lane)?;
            (old & !fmask) | placed
        }
    };
    c.set_v32(inst, 0, lane, v)
}

/// `op_sel:[..]` / `op_sel_hi:[..]` as bits, or `default` for each.
fn op_sel(inst: &Inst, name: &str, default: bool) -> Res<Vec<bool>> {
    match inst.modifier(name) {
        None => Ok(vec![default; 4]),
        Some(m) => {
            let t = m.value.as_deref().unwrap_or("");
            let inner = t.strip_prefix('[').and_then(|r| r.strip_suffix(']'));
            let inner = inner.ok_or_else(|| bad(&m.span, "expected `[0,1,...]`"))?;
            inner
                .split(',')
                .map(|b| match b.trim() {
                    "0" => Ok(false),
                    "1" => Ok(true),
                    _ => Err(bad(&m.span, "expected 0 or 1")),
                })
                .collect()
        }
    }
}

fn f16_src(c: &Cpu, inst: &Inst, i: usize, lane: usize, hi: bool) -> Res<u32> {
    let o = c.op(inst, i)?;
    let raw = src(c, inst, i, lane)?;
    let mut v = if hi { raw >> 16 } else { raw } & 0xffff;
    if inst.base.contains("_f16") {
        if o.abs {
            v &= 0x7fff;
        }
        if o.neg {
            v ^= 0x8000;
        }
    } else if o.abs || o.neg {
        return Err(unsupported(
            &o.span,
            "source modifiers on an integer operation",
        ));
    }
    Ok(v)
}

/// A 16-bit binary operation (the name without its `v_`/`v_pk_` prefix).
fn op16(name: &str, a: u32, b: u32) -> Option<u32> {
    let (a16, b16) = (a as u16, b as u16);
    Some(u32::from(match name {
        "add_u16" | "add_nc_u16" | "add_i16" | "add_nc_i16" => a16.wrapping_add(b16),
        "sub_u16" | "sub_nc_u16" | "sub_i16" | "sub_nc_i16" => a16.wrapping_sub(b16),
        "subrev_u16" => b16.wrapping_sub(a16),
        "mul_lo_u16" => a16.wrapping_mul(b16),
        "lshlrev_b16" => b16 << (a16 & 15),
        "lshrrev_b16" => b16 >> (a16 & 15),
        "ashrrev_i16" => ((b16 as i16) >> (a16 & 15)) as u16,
        "min_u16" => a16.min(b16),
        "max_u16" => a16.max(b16),
        "min_i16" => (a16 as i16).min(b16 as i16) as u16,
        "max_i16" => (a16 as i16).max(b16 as i16) as u16,
        "add_f16" => fop(FBinOp::FAdd, Type::Half, a, b) as u16,
        "sub_f16" => fop(FBinOp::FSub, Type::Half, a, b) as u16,
        "subrev_f16" => fop(FBinOp::FSub, Type::Half, b, a) as u16,
        "mul_f16" => fop(FBinOp::FMul, Type::Half, a, b) as u16,
        _ => return None,
    }))
}

pub fn exec(c: &mut Cpu, inst: &Inst) -> Res<()> {
    let base = inst.base.as_str();
    if base == "v_pk_mov_b32" {
        c.only_mods(inst, &["op_sel"])?;
        let s = op_sel(inst, "op_sel", false)?;
        for l in c.lanes() {
            let (a, b) = (c.v64(inst, 1, l)?, c.v64(inst, 2, l)?);
            let lo = if s[0] { a >> 32 } else { a & 0xffff_ffff };
            let hi = if s.get(1).copied().unwrap_or(false) {
                b >> 32
            } else {
                b & 0xffff_ffff
            };
            c.set_v64(inst, 0, l, lo | hi << 32)?;
        }
        return Ok(());
    }
    if let Some(name) = base.strip_prefix("v_pk_") {
        c.only_mods(inst, &["op_sel", "op_sel_hi"])?;
        let lo_sel = op_sel(inst, "op_sel", false)?;
        let hi_sel = op_sel(inst, "op_sel_hi", true)?;
        let pick = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(false);
        for l in c.lanes() {
            let lo = op16(
                name,
                f16_src(c, inst, 1, l, pick(&lo_sel, 0))?,
                f16_src(c, inst, 2, l, pick(&lo_sel, 1))?,
            );
            let hi = op16(
                name,
                f16_src(c, inst, 1, l, pick(&hi_sel, 0))?,
                f16_src(c, inst, 2, l, pick(&hi_sel, 1))?,
            );
            let (Some(lo), Some(hi)) = (lo, hi) else {
                return Err(SimError::UnknownInstruction {
                    span: inst.name_span.clone(),
                    mnemonic: inst.mnemonic.clone(),
                });
            };
            c.set_v32(inst, 0, l, (lo & 0xffff) | hi << 16)?;
        }
        return Ok(());
    }
    if inst.sdwa {
        check_mods(c, inst)?;
    } else {
        c.only_mods(inst, &["op_sel"])?;
    }
    let sels = op_sel(inst, "op_sel", false)?;
    let nsrc = if base.starts_with("v_mad") { 3 } else { 2 };
    if inst.modifier("op_sel").is_some() && sels.len() != nsrc + 1 {
        return Err(bad(
            &inst.span,
            format!("`op_sel` needs {} bits here", nsrc + 1),
        ));
    }
    let dst_hi = inst.modifier("op_sel").is_some() && sels[nsrc];
    let preserve = c.chip.is_gfx10() || matches!(base, "v_mad_u16" | "v_mad_i16") || dst_hi;
    let name = base.trim_start_matches("v_");
    for l in c.lanes() {
        let a = f16_src(c, inst, 1, l, sels[0])?;
        let b = f16_src(c, inst, 2, l, sels[1])?;
        let r = if nsrc == 3 {
            let d = f16_src(c, inst, 3, l, sels[2])?;
            let p = (a as u16).wrapping_mul(b as u16).wrapping_add(d as u16);
            u32::from(p)
        } else if base == "v_pack_b32_f16" {
            // Writes both halves: no 16-bit destination rule applies.
            c.set_v32(inst, 0, l, a | b << 16)?;
            continue;
        } else {
            op16(name, a, b).ok_or_else(|| SimError::UnknownInstruction {
                span: inst.name_span.clone(),
                mnemonic: inst.mnemonic.clone(),
            })?
        };
        if inst.sdwa {
            dst(c, inst, l, r)?;
        } else if preserve {
            let old = c.v32(inst, 0, l)?;
            let v = if dst_hi {
                (old & 0xffff) | r << 16
            } else {
                (old & 0xffff_0000) | r
            };
            c.set_v32(inst, 0, l, v)?;
        } else {
            c.set_v32(inst, 0, l, r & 0xffff)?;
        }
    }
    Ok(())
}
