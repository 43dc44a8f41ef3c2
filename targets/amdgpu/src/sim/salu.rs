//! The scalar unit: SOP1, SOP2, SOPK, SOPC and SOPP.
//!
//! Follows the Vega ISA (gfx9) chapter "Scalar ALU Operations" and the
//! SOP2/SOPK/SOP1/SOPC/SOPP opcode tables of its "Instructions" chapter,
//! and the same chapter and tables of the RDNA2 ISA (gfx1030), which agree
//! on everything here (branches: chapter "Program Flow Control"). SCC: carries out of `s_add_u32`/`s_addc_u32`, borrows of
//! `s_sub_u32`/`s_subb_u32`, signed overflow of `s_add_i32`/`s_sub_i32`,
//! "result is not zero" for the bitwise operations, shifts and
//! `*_saveexec`, the comparison result for SOPC. `s_mul_*`, `s_mov*`,
//! `s_cselect*` and `s_movk`/`s_mulk` leave SCC alone.

use super::error::SimError;
use super::exec::{bad, Cpu, Flow, Res};
use super::parse::{Inst, Opnd};
use super::state::Counter;

/// The scalar instructions the simulator models.
pub const NAMES: &[&str] = &[
    // SOP1
    "s_mov_b32",
    "s_mov_b64",
    "s_cmov_b32",
    "s_cmov_b64",
    "s_not_b32",
    "s_not_b64",
    "s_brev_b32",
    "s_sext_i32_i8",
    "s_sext_i32_i16",
    "s_abs_i32",
    "s_and_saveexec_b64",
    "s_or_saveexec_b64",
    "s_xor_saveexec_b64",
    "s_andn2_saveexec_b64",
    "s_orn2_saveexec_b64",
    "s_and_saveexec_b32",
    "s_or_saveexec_b32",
    "s_xor_saveexec_b32",
    "s_andn2_saveexec_b32",
    "s_orn2_saveexec_b32",
    "s_setpc_b64",
    // SOP2
    "s_add_u32",
    "s_addc_u32",
    "s_sub_u32",
    "s_subb_u32",
    "s_add_i32",
    "s_sub_i32",
    "s_mul_i32",
    "s_mul_hi_u32",
    "s_mul_hi_i32",
    "s_and_b32",
    "s_and_b64",
    "s_or_b32",
    "s_or_b64",
    "s_xor_b32",
    "s_xor_b64",
    "s_andn2_b32",
    "s_andn2_b64",
    "s_orn2_b32",
    "s_orn2_b64",
    "s_nand_b32",
    "s_nand_b64",
    "s_nor_b32",
    "s_nor_b64",
    "s_xnor_b32",
    "s_xnor_b64",
    "s_lshl_b32",
    "s_lshl_b64",
    "s_lshr_b32",
    "s_lshr_b64",
    "s_ashr_i32",
    "s_ashr_i64",
    "s_cselect_b32",
    "s_cselect_b64",
    "s_min_i32",
    "s_min_u32",
    "s_max_i32",
    "s_max_u32",
    "s_bfe_u32",
    "s_bfe_i32",
    "s_bfe_u64",
    "s_bfe_i64",
    "s_bfm_b32",
    "s_lshl1_add_u32",
    "s_lshl2_add_u32",
    "s_lshl3_add_u32",
    "s_lshl4_add_u32",
    "s_pack_ll_b32_b16",
    "s_pack_lh_b32_b16",
    "s_pack_hh_b32_b16",
    // SOPK
    "s_movk_i32",
    "s_addk_i32",
    "s_mulk_i32",
    "s_cmovk_i32",
    "s_waitcnt_vscnt",
    // SOPC
    "s_cmpk_eq_i32",
    "s_cmpk_lg_i32",
    "s_cmpk_gt_i32",
    "s_cmpk_ge_i32",
    "s_cmpk_lt_i32",
    "s_cmpk_le_i32",
    "s_cmpk_eq_u32",
    "s_cmpk_lg_u32",
    "s_cmpk_gt_u32",
    "s_cmpk_ge_u32",
    "s_cmpk_lt_u32",
    "s_cmpk_le_u32",
    "s_cmp_eq_i32",
    "s_cmp_lg_i32",
    "s_cmp_gt_i32",
    "s_cmp_ge_i32",
    "s_cmp_lt_i32",
    "s_cmp_le_i32",
    "s_cmp_eq_u32",
    "s_cmp_lg_u32",
    "s_cmp_gt_u32",
    "s_cmp_ge_u32",
    "s_cmp_lt_u32",
    "s_cmp_le_u32",
    "s_cmp_eq_u64",
    "s_cmp_lg_u64",
    "s_bitcmp0_b32",
    "s_bitcmp1_b32",
    // SOPP
    "s_branch",
    "s_cbranch_scc0",
    "s_cbranch_scc1",
    "s_cbranch_vccz",
    "s_cbranch_vccnz",
    "s_cbranch_execz",
    "s_cbranch_execnz",
    "s_waitcnt",
    "s_endpgm",
    "s_nop",
    "s_clause",
    "s_setprio",
    "s_sleep",
    "s_inst_prefetch",
    "s_code_end",
];

fn bits64(base: &str) -> bool {
    base.ends_with("_b64") || base.ends_with("_i64") || base.ends_with("_u64")
}

/// A 32-bit or 64-bit bitwise operation.
fn bitwise(op: &str, a: u64, b: u64) -> Option<u64> {
    Some(match op {
        "and" => a & b,
        "or" => a | b,
        "xor" => a ^ b,
        "andn2" => a & !b,
        "orn2" => a | !b,
        "nand" => !(a & b),
        "nor" => !(a | b),
        "xnor" => !(a ^ b),
        _ => return None,
    })
}

pub fn exec(c: &mut Cpu, inst: &Inst) -> Res<Flow> {
    let base = inst.base.as_str();
    if let Some(f) = sopp(c, inst)? {
        return Ok(f);
    }
    if base != "s_waitcnt_vscnt" {
        c.plain_operands(inst)?;
        c.only_mods(inst, &[])?;
    }
    if let Some(rest) = base.strip_prefix("s_cmp_") {
        return sopc(c, inst, rest, false).map(|()| Flow::Next);
    }
    if let Some(rest) = base.strip_prefix("s_cmpk_") {
        return sopc(c, inst, rest, true).map(|()| Flow::Next);
    }
    if let Some(rest) = base
        .strip_suffix("_saveexec_b64")
        .or(base.strip_suffix("_saveexec_b32"))
    {
        let rest = rest.trim_start_matches("s_");
        let exec = c.w.exec();
        let src = c.mask(inst, 1)?;
        let new =
            bitwise(rest, src, exec).ok_or_else(|| bad(&inst.name_span, "unknown saveexec"))?;
        let new = new & c.w.full();
        c.set_mask(inst, 0, exec)?;
        c.w.set_exec(new);
        c.w.scc = new != 0;
        return Ok(Flow::Next);
    }
    if base == "s_setpc_b64" {
        let to = c.s64(inst, 0)?;
        if to == super::exec::RETURN_ADDRESS {
            return Ok(Flow::Return);
        }
        return Err(SimError::BadControl {
            span: Some(inst.span.clone()),
            what: format!("`s_setpc_b64` to {to:#x}, which is not the return address"),
        });
    }
    let wide = bits64(base);
    let name = base.trim_start_matches("s_");
    let op = name.rsplit_once('_').map_or(name, |(a, _)| a);
    if bitwise(op, 0, 0).is_some() {
        if wide {
            let (a, b) = (c.s64(inst, 1)?, c.s64(inst, 2)?);
            let r = bitwise(op, a, b).unwrap_or(0);
            c.set_s64(inst, 0, r)?;
            c.w.scc = r != 0;
        } else {
            let (a, b) = (c.s32(inst, 1)?, c.s32(inst, 2)?);
            let r = bitwise(op, u64::from(a), u64::from(b)).unwrap_or(0) as u32;
            c.set_s32(inst, 0, r)?;
            c.w.scc = r != 0;
        }
        return Ok(Flow::Next);
    }
    match base {
        "s_mov_b32" | "s_movk_i32" => {
            let v = c.s32(inst, 1)?;
            let v = if base == "s_movk_i32" {
                i32::from(v as u16 as i16) as u32
            } else {
                v
            };
            c.set_s32(inst, 0, v)?;
        }
        "s_mov_b64" => {
            let v = c.s64(inst, 1)?;
            c.set_s64(inst, 0, v)?;
        }
        "s_cmov_b32" | "s_cmovk_i32" => {
            if c.w.scc {
                let v = c.s32(inst, 1)?;
                c.set_s32(inst, 0, v)?;
            }
        }
        "s_cmov_b64" => {
            if c.w.scc {
                let v = c.s64(inst, 1)?;
                c.set_s64(inst, 0, v)?;
            }
        }
        "s_not_b32" | "s_brev_b32" | "s_sext_i32_i8" | "s_sext_i32_i16" | "s_abs_i32" => {
            let a = c.s32(inst, 1)?;
            let r = match base {
                "s_not_b32" => !a,
                "s_brev_b32" => a.reverse_bits(),
                "s_sext_i32_i8" => a as u8 as i8 as i32 as u32,
                "s_sext_i32_i16" => a as u16 as i16 as i32 as u32,
                _ => (a as i32).unsigned_abs(),
            };
            c.set_s32(inst, 0, r)?;
            if base == "s_not_b32" || base == "s_abs_i32" {
                c.w.scc = r != 0;
            }
        }
        "s_not_b64" => {
            let r = !c.s64(inst, 1)?;
            c.set_s64(inst, 0, r)?;
            c.w.scc = r != 0;
        }
        "s_addk_i32" | "s_mulk_i32" => {
            let a = c.s32(inst, 0)?;
            let k = i32::from(c.s32(inst, 1)? as u16 as i16);
            let r = if base == "s_addk_i32" {
                let (r, o) = (a as i32).overflowing_add(k);
                c.w.scc = o;
                r
            } else {
                (a as i32).wrapping_mul(k)
            };
            c.set_s32(inst, 0, r as u32)?;
        }
        "s_lshl_b64" | "s_lshr_b64" | "s_ashr_i64" => {
            let a = c.s64(inst, 1)?;
            let s = c.s32(inst, 2)? & 63;
            let r = match base {
                "s_lshl_b64" => a << s,
                "s_lshr_b64" => a >> s,
                _ => ((a as i64) >> s) as u64,
            };
            c.set_s64(inst, 0, r)?;
            c.w.scc = r != 0;
        }
        "s_bfe_u64" | "s_bfe_i64" => {
            let a = c.s64(inst, 1)?;
            let b = c.s32(inst, 2)?;
            let (off, width) = (b & 63, ((b >> 16) & 0x7f).min(64));
            let v = a >> off;
            let r = if width == 0 {
                0
            } else if base == "s_bfe_u64" {
                if width == 64 {
                    v
                } else {
                    v & ((1u64 << width) - 1)
                }
            } else {
                ((v << (64 - width)) as i64 >> (64 - width)) as u64
            };
            c.set_s64(inst, 0, r)?;
            c.w.scc = r != 0;
        }
        "s_cselect_b64" => {
            let v = if c.w.scc {
                c.s64(inst, 1)?
            } else {
                c.s64(inst, 2)?
            };
            c.set_s64(inst, 0, v)?;
        }
        _ => sop2_32(c, inst, base)?,
    }
    Ok(Flow::Next)
}

/// The 32-bit SOP2 operations.
fn sop2_32(c: &mut Cpu, inst: &Inst, base: &str) -> Res<()> {
    let a = c.s32(inst, 1)?;
    let b = c.s32(inst, 2)?;
    let (wa, wb) = (u64::from(a), u64::from(b));
    let cin = u64::from(c.w.scc);
    let mut scc = None;
    let r: u32 = match base {
        "s_add_u32" | "s_addc_u32" => {
            let s = wa + wb + if base == "s_addc_u32" { cin } else { 0 };
            scc = Some(s >> 32 != 0);
            s as u32
        }
        "s_sub_u32" | "s_subb_u32" => {
            let sub = wb + if base == "s_subb_u32" { cin } else { 0 };
            scc = Some(sub > wa);
            a.wrapping_sub(sub as u32)
        }
        "s_add_i32" => {
            let (r, o) = (a as i32).overflowing_add(b as i32);
            scc = Some(o);
            r as u32
        }
        "s_sub_i32" => {
            let (r, o) = (a as i32).overflowing_sub(b as i32);
            scc = Some(o);
            r as u32
        }
        "s_mul_i32" => a.wrapping_mul(b),
        "s_mul_hi_u32" => ((wa * wb) >> 32) as u32,
        "s_mul_hi_i32" => ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
        "s_lshl_b32" => a << (b & 31),
        "s_lshr_b32" => a >> (b & 31),
        "s_ashr_i32" => ((a as i32) >> (b & 31)) as u32,
        "s_cselect_b32" => {
            if c.w.scc {
                a
            } else {
                b
            }
        }
        "s_min_i32" | "s_max_i32" => {
            let (x, y) = (a as i32, b as i32);
            scc = Some(if base == "s_min_i32" { x < y } else { x > y });
            if base == "s_min_i32" {
                x.min(y) as u32
            } else {
                x.max(y) as u32
            }
        }
        "s_min_u32" | "s_max_u32" => {
            scc = Some(if base == "s_min_u32" { a < b } else { a > b });
            if base == "s_min_u32" {
                a.min(b)
            } else {
                a.max(b)
            }
        }
        "s_bfe_u32" | "s_bfe_i32" => {
            let off = b & 31;
            let width = (b >> 16) & 0x7f;
            let r = if width == 0 {
                0
            } else if base == "s_bfe_u32" {
                let v = u64::from(a) >> off;
                (v & ((1u64 << width.min(32)) - 1)) as u32
            } else {
                let w = width.min(32);
                let v = (u64::from(a) >> off) as u32;
                ((v << (32 - w)) as i32 >> (32 - w)) as u32
            };
            scc = Some(r != 0);
            r
        }
        "s_bfm_b32" => (((1u64 << (a & 31)) - 1) << (b & 31)) as u32,
        "s_lshl1_add_u32" | "s_lshl2_add_u32" | "s_lshl3_add_u32" | "s_lshl4_add_u32" => {
            let k = u32::from(base.as_bytes()[6] - b'0');
            let s = (wa << k) + wb;
            scc = Some(s >> 32 != 0);
            s as u32
        }
        "s_pack_ll_b32_b16" => (a & 0xffff) | (b << 16),
        "s_pack_lh_b32_b16" => (a & 0xffff) | (b & 0xffff_0000),
        "s_pack_hh_b32_b16" => (a >> 16) | (b & 0xffff_0000),
        _ => {
            return Err(SimError::UnknownInstruction {
                span: inst.name_span.clone(),
                mnemonic: inst.mnemonic.clone(),
            })
        }
    };
    c.set_s32(inst, 0, r)?;
    if let Some(s) = scc {
        c.w.scc = s;
    }
    Ok(())
}

/// SOPC: `s_cmp_{eq,lg,gt,ge,lt,le}_{i32,u32}`, `s_cmp_{eq,lg}_u64`; and
/// SOPK's `s_cmpk_*` (`k`), whose 16-bit constant is sign-extended for
/// `i32` and zero-extended for `u32`.
fn sopc(c: &mut Cpu, inst: &Inst, rest: &str, k: bool) -> Res<()> {
    let (cond, ty) = rest.split_once('_').unwrap_or((rest, ""));
    let ord = if ty == "u64" {
        c.s64(inst, 0)?.cmp(&c.s64(inst, 1)?)
    } else {
        let (a, mut b) = (c.s32(inst, 0)?, c.s32(inst, 1)?);
        if k {
            b = if ty == "i32" {
                i32::from(b as u16 as i16) as u32
            } else {
                b & 0xffff
            };
        }
        if ty == "i32" {
            (a as i32).cmp(&(b as i32))
        } else {
            a.cmp(&b)
        }
    };
    use std::cmp::Ordering::*;
    c.w.scc = match cond {
        "eq" => ord == Equal,
        "lg" => ord != Equal,
        "gt" => ord == Greater,
        "ge" => ord != Less,
        "lt" => ord == Less,
        _ => ord != Greater,
    };
    Ok(())
}

/// A `s_waitcnt` count: `N` or `0xN`.
fn count(inst: &Inst, v: Option<&str>) -> Res<usize> {
    let t = v.unwrap_or("");
    let n = match t.strip_prefix("0x") {
        Some(h) => usize::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    };
    n.ok_or_else(|| bad(&inst.span, format!("`{t}` is not a count")))
}

/// SOPP (and `s_waitcnt_vscnt`, a SOPK): branches, waits, the end.
fn sopp(c: &mut Cpu, inst: &Inst) -> Res<Option<Flow>> {
    let base = inst.base.as_str();
    let taken = match base {
        "s_branch" => true,
        "s_cbranch_scc0" => !c.w.scc,
        "s_cbranch_scc1" => c.w.scc,
        "s_cbranch_vccz" => c.w.vcc() & c.w.full() == 0,
        "s_cbranch_vccnz" => c.w.vcc() & c.w.full() != 0,
        "s_cbranch_execz" => c.w.exec() == 0,
        "s_cbranch_execnz" => c.w.exec() != 0,
        "s_endpgm" | "s_code_end" => return Ok(Some(Flow::Return)),
        "s_nop" | "s_clause" | "s_setprio" | "s_sleep" | "s_inst_prefetch" => {
            return Ok(Some(Flow::Next))
        }
        "s_waitcnt" => {
            waitcnt(c, inst)?;
            return Ok(Some(Flow::Next));
        }
        "s_waitcnt_vscnt" => {
            let n = match c.op(inst, 1)?.kind {
                Opnd::Int(n) => usize::try_from(n).unwrap_or(0),
                _ => return Err(bad(&inst.span, "expected `s_waitcnt_vscnt null, N`")),
            };
            c.w.wait(Counter::Vs, n);
            return Ok(Some(Flow::Next));
        }
        _ => return Ok(None),
    };
    let target = c.label(inst, 0)?;
    Ok(Some(if taken {
        Flow::Jump(target)
    } else {
        Flow::Next
    }))
}

/// `s_waitcnt vmcnt(N) expcnt(N) lgkmcnt(N)`, or its encoded immediate
/// (the SOPP table's `S_WAITCNT`: on gfx9 vmcnt in bits 3:0 and 15:14,
/// lgkmcnt in 11:8; on gfx10 lgkmcnt in 13:8).
fn waitcnt(c: &mut Cpu, inst: &Inst) -> Res<()> {
    if let Some(o) = inst.ops.first() {
        let Opnd::Int(v) = o.kind else {
            return Err(bad(&o.span, "expected counters or an encoded count"));
        };
        let v = v as u64 as usize;
        let vm = (v & 0xf) | ((v >> 14) & 3) << 4;
        let lgkm = if c.chip.is_gfx10() {
            (v >> 8) & 0x3f
        } else {
            (v >> 8) & 0xf
        };
        c.w.wait(Counter::Vm, vm);
        c.w.wait(Counter::Lgkm, lgkm);
        return Ok(());
    }
    for m in &inst.mods {
        let n = count(inst, m.value.as_deref())?;
        match m.name.as_str() {
            "vmcnt" => c.w.wait(Counter::Vm, n),
            "lgkmcnt" => c.w.wait(Counter::Lgkm, n),
            "vscnt" => c.w.wait(Counter::Vs, n),
            "expcnt" => {}
            _ => {
                return Err(super::exec::unsupported(
                    &m.span,
                    format!("`{}` on s_waitcnt", m.name),
                ))
            }
        }
    }
    Ok(())
}
