//! Memory instructions: SMEM, FLAT/GLOBAL and MUBUF (private memory).
//!
//! Follows the Vega ISA (gfx9) chapters "Scalar Memory Operations",
//! "Flat Memory Instructions" (its "Global" and "Scratch" sections) and
//! "Vector Memory Operations" (MUBUF, swizzled private buffers), and the
//! RDNA2 ISA's (gfx1030) chapters of the same names, with the SMEM,
//! FLAT/GLOBAL and MUBUF opcode tables of both guides' "Instructions"
//! chapters.
//!
//! - Address map: global memory (`addrspace(1)`, the reference
//!   interpreter's [`regdesc_codegen::interp::GlobalMemory`]) from 0; the
//!   kernarg segment at [`super::exec::KERNARG_BASE`] and the dispatch
//!   packet at [`super::exec::DISPATCH_BASE`], both read-only.
//! - `s_load_dword{,x2,x4,x8,x16} sdst, sbase, offset`: `sbase + offset`.
//! - `global_*` with `saddr` = `off`: a 64-bit address in a VGPR pair;
//!   otherwise `saddr` (64-bit, scalar) plus a 32-bit VGPR offset. `flat_*`:
//!   a 64-bit address in a VGPR pair, into global memory. `offset:N` adds.
//! - `buffer_*` on the private segment (the only buffer llc's functions
//!   use): lane addresses are `soffset / wave size + (offen ? vaddr : 0) +
//!   offset` in the lane's own private memory, the swizzled layout of the
//!   scratch buffer seen from one lane.
//! - A load's registers are written at issue and stay pending until an
//!   `s_waitcnt` retires it ([`super::state`]): `lgkmcnt` for SMEM,
//!   `vmcnt` for vector loads (and gfx9 stores), `vscnt` for gfx10 stores.
//! - `_d16` loads write the low half, `_d16_hi` the high half, keeping
//!   the other; `_d16_hi` stores store the high half.

use super::error::SimError;
use super::exec::{bad, Cpu, Res, DISPATCH_BASE, KERNARG_BASE};
use super::parse::{Inst, Opnd};
use super::state::Counter;

/// The memory instructions the simulator models.
pub const NAMES: &[&str] = &[
    "s_load_dword",
    "s_load_dwordx2",
    "s_load_dwordx4",
    "s_load_dwordx8",
    "s_load_dwordx16",
    "global_load_dword",
    "global_load_dwordx2",
    "global_load_dwordx3",
    "global_load_dwordx4",
    "global_load_ubyte",
    "global_load_sbyte",
    "global_load_ushort",
    "global_load_sshort",
    "global_load_short_d16",
    "global_load_short_d16_hi",
    "global_load_ubyte_d16",
    "global_load_ubyte_d16_hi",
    "global_load_sbyte_d16",
    "global_load_sbyte_d16_hi",
    "global_store_dword",
    "global_store_dwordx2",
    "global_store_dwordx3",
    "global_store_dwordx4",
    "global_store_byte",
    "global_store_short",
    "global_store_byte_d16_hi",
    "global_store_short_d16_hi",
    "flat_load_dword",
    "flat_load_dwordx2",
    "flat_load_dwordx3",
    "flat_load_dwordx4",
    "flat_load_ubyte",
    "flat_load_sbyte",
    "flat_load_ushort",
    "flat_load_sshort",
    "flat_store_dword",
    "flat_store_dwordx2",
    "flat_store_dwordx3",
    "flat_store_dwordx4",
    "flat_store_byte",
    "flat_store_short",
    "buffer_load_dword",
    "buffer_load_dwordx2",
    "buffer_load_dwordx3",
    "buffer_load_dwordx4",
    "buffer_load_ubyte",
    "buffer_load_sbyte",
    "buffer_load_ushort",
    "buffer_load_sshort",
    "buffer_load_short_d16",
    "buffer_load_short_d16_hi",
    "buffer_load_ubyte_d16",
    "buffer_load_ubyte_d16_hi",
    "buffer_store_dword",
    "buffer_store_dwordx2",
    "buffer_store_dwordx3",
    "buffer_store_dwordx4",
    "buffer_store_byte",
    "buffer_store_short",
    "buffer_store_byte_d16_hi",
    "buffer_store_short_d16_hi",
];

/// The data shape of a vector memory access.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Bytes per lane.
    bytes: usize,
    /// Sign-extend a byte/short load.
    signed: bool,
    /// `_d16`: write (or store) 16 bits; `hi`: the high half.
    d16: bool,
    hi: bool,
}

fn shape(kind: &str) -> Option<Shape> {
    let s = |bytes, signed, d16, hi| Shape {
        bytes,
        signed,
        d16,
        hi,
    };
    Some(match kind {
        "dword" => s(4, false, false, false),
        "dwordx2" => s(8, false, false, false),
        "dwordx3" => s(12, false, false, false),
        "dwordx4" => s(16, false, false, false),
        "ubyte" | "byte" => s(1, false, false, false),
        "sbyte" => s(1, true, false, false),
        "ushort" | "short" => s(2, false, false, false),
        "sshort" => s(2, true, false, false),
        "short_d16" => s(2, false, true, false),
        "short_d16_hi" => s(2, false, true, true),
        "ubyte_d16" => s(1, false, true, false),
        "ubyte_d16_hi" | "byte_d16_hi" => s(1, false, true, true),
        "sbyte_d16" => s(1, true, true, false),
        "sbyte_d16_hi" => s(1, true, true, true),
        _ => return None,
    })
}

fn offset(inst: &Inst) -> Res<i64> {
    match inst.modifier("offset") {
        None => Ok(0),
        Some(m) => {
            let t = m.value.as_deref().unwrap_or("");
            let v = match t.strip_prefix("0x") {
                Some(h) => i64::from_str_radix(h, 16).ok(),
                None => t.parse().ok(),
            };
            v.ok_or_else(|| bad(&m.span, format!("`{t}` is not an offset")))
        }
    }
}

pub fn exec(c: &mut Cpu, inst: &Inst) -> Res<()> {
    let base = inst.base.clone();
    c.plain_operands(inst)?;
    if let Some(kind) = base.strip_prefix("s_load_") {
        c.only_mods(inst, &["glc", "dlc"])?;
        return smem(c, inst, kind);
    }
    let (seg, rest) = base.split_once('_').unwrap_or(("", ""));
    let (store, kind) = match rest.split_once('_') {
        Some(("load", k)) => (false, k),
        Some(("store", k)) => (true, k),
        _ => return Err(bad(&inst.name_span, "not a load or store")),
    };
    let sh = shape(kind).ok_or_else(|| bad(&inst.name_span, "unknown access size"))?;
    c.only_mods(
        inst,
        &["offset", "offen", "glc", "slc", "dlc", "sc0", "sc1", "nt"],
    )?;
    let off = offset(inst)?;
    // Operand positions: loads `vdst, addr...`, stores `addr..., vdata` (global/flat)
    // or `vdata, addr...` (buffer).
    let (data, addr_at) = match (seg, store) {
        ("buffer", _) | (_, false) => (0, 1),
        _ => (1, 0),
    };
    let mut addrs = Vec::new();
    for l in c.lanes() {
        let a = match seg {
            "buffer" => buffer_addr(c, inst, l, off)?,
            "flat" => c.v64(inst, addr_at, l)?.wrapping_add(off as u64),
            _ => global_addr(c, inst, addr_at, l, off)?,
        };
        addrs.push((l, a));
    }
    let regs = sh.bytes.div_ceil(4) as u8;
    if store {
        for &(l, a) in &addrs {
            let mut bytes = Vec::with_capacity(sh.bytes);
            let first = c.vdst(inst, data, regs)?;
            for k in 0..regs {
                let v = c.v32(&reg_inst(inst, data, first + u16::from(k)), data, l)?;
                let v = if sh.hi { v >> 16 } else { v };
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            bytes.truncate(sh.bytes);
            write(c, inst, seg, l, a, &bytes)?;
        }
        let counter = if c.chip.is_gfx10() {
            Counter::Vs
        } else {
            Counter::Vm
        };
        c.w.issue(counter, &inst.span);
        return Ok(());
    }
    let first = c.vdst(inst, data, regs)?;
    let id = c.w.issue(Counter::Vm, &inst.span);
    let span = inst.ops[data].span.clone();
    for &(l, a) in &addrs {
        let bytes = read(c, inst, seg, l, a, sh.bytes)?;
        let mut words = [0u32; 4];
        for (k, b) in bytes.iter().enumerate() {
            words[k / 4] |= u32::from(*b) << (8 * (k % 4));
        }
        if sh.bytes < 4 && sh.signed {
            let bits = 8 * sh.bytes as u32;
            words[0] = ((words[0] << (32 - bits)) as i32 >> (32 - bits)) as u32;
        }
        if sh.d16 {
            let old = c.w.vgpr.get(first as usize).map_or(0, |v| v[l]);
            let v = words[0] & 0xffff;
            words[0] = if sh.hi {
                (old & 0xffff) | v << 16
            } else {
                (old & 0xffff_0000) | v
            };
        }
        for k in 0..regs {
            c.vset(first + u16::from(k), l, words[k as usize], &span)?;
        }
    }
    for k in 0..regs {
        c.w.pend_v(first + u16::from(k), Counter::Vm, id);
    }
    Ok(())
}

/// `inst` with operand `i` narrowed to the single VGPR `r` (to read one
/// register of a data tuple).
fn reg_inst(inst: &Inst, i: usize, r: u16) -> Inst {
    let mut one = inst.clone();
    if let Some(o) = one.ops.get_mut(i) {
        o.kind = Opnd::Vreg { first: r, n: 1 };
    }
    one
}

/// `global_*` addresses: `vaddr` is operand `at`, `saddr` operand 2.
fn global_addr(c: &Cpu, inst: &Inst, at: usize, lane: usize, off: i64) -> Res<u64> {
    let saddr = c.op(inst, 2)?;
    let a = if saddr.kind == Opnd::Off {
        c.v64(inst, at, lane)?
    } else {
        let base = c.s64(inst, 2)?;
        base.wrapping_add(u64::from(c.v32(inst, at, lane)?))
    };
    Ok(a.wrapping_add(off as u64))
}

fn buffer_addr(c: &Cpu, inst: &Inst, lane: usize, off: i64) -> Res<u64> {
    // buffer_*: vdata, vaddr|off, srsrc, soffset
    let soff = c.s32(inst, 3)?;
    if !(soff as usize).is_multiple_of(c.w.size) {
        return Err(bad(
            &inst.ops[3].span,
            "a private-segment offset must be a multiple of the wave size",
        ));
    }
    let v = if inst.has_flag("offen") {
        c.v32(inst, 1, lane)?
    } else {
        0
    };
    Ok((u64::from(soff) / c.w.size as u64)
        .wrapping_add(u64::from(v))
        .wrapping_add(off as u64))
}

fn fault(inst: &Inst, lane: usize, detail: String) -> SimError {
    SimError::Memory {
        span: inst.span.clone(),
        lane: Some(lane as u32),
        detail,
    }
}

fn read(c: &mut Cpu, inst: &Inst, seg: &str, lane: usize, a: u64, n: usize) -> Res<Vec<u8>> {
    if seg == "buffer" {
        return c
            .w
            .scratch_mut(lane, a, n)
            .map(|s| s.to_vec())
            .ok_or_else(|| {
                fault(
                    inst,
                    lane,
                    format!("private address {a:#x} is out of range"),
                )
            });
    }
    read_global(c, a, n).map_err(|d| fault(inst, lane, d))
}

/// `n` bytes at `a` in the kernarg segment, the dispatch packet or global
/// memory.
fn read_global(c: &Cpu, a: u64, n: usize) -> Result<Vec<u8>, String> {
    for (start, seg) in [(KERNARG_BASE, &c.kernarg), (DISPATCH_BASE, &c.dispatch)] {
        if a >= start && a < start + (1 << 32) {
            let lo = (a - start) as usize;
            return seg
                .get(lo..lo + n)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| format!("read of {n} bytes at {a:#x} past the end of a segment"));
        }
    }
    c.mem
        .read_bytes(a, n as u64)
        .map(<[u8]>::to_vec)
        .map_err(|e| e.to_string())
}

fn write(c: &mut Cpu, inst: &Inst, seg: &str, lane: usize, a: u64, data: &[u8]) -> Res<()> {
    if seg == "buffer" {
        let s = c.w.scratch_mut(lane, a, data.len()).ok_or_else(|| {
            fault(
                inst,
                lane,
                format!("private address {a:#x} is out of range"),
            )
        })?;
        s.copy_from_slice(data);
        return Ok(());
    }
    c.mem
        .write_bytes(a, data)
        .map_err(|e| fault(inst, lane, e.to_string()))
}

fn smem(c: &mut Cpu, inst: &Inst, kind: &str) -> Res<()> {
    let n: u8 = match kind {
        "dword" => 1,
        "dwordx2" => 2,
        "dwordx4" => 4,
        "dwordx8" => 8,
        _ => 16,
    };
    let dst = c.op(inst, 0)?;
    let (first, span) = match dst.kind {
        Opnd::Sreg { first, n: m } if m == n => (first, dst.span.clone()),
        _ => return Err(bad(&dst.span, format!("expected {n} SGPRs"))),
    };
    let base = c.s64(inst, 1)?;
    let off = match c.op(inst, 2)?.kind {
        Opnd::Int(v) => v as u64,
        _ => u64::from(c.s32(inst, 2)?),
    };
    let a = base.wrapping_add(off) & !3;
    let bytes = read_global(c, a, 4 * n as usize).map_err(|detail| SimError::Memory {
        span: inst.span.clone(),
        lane: None,
        detail,
    })?;
    let id = c.w.issue(Counter::Lgkm, &inst.span);
    for k in 0..n {
        let at = 4 * k as usize;
        let w = bytes
            .get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        c.set_sreg(first + u16::from(k), w, &span)?;
        c.w.pend_s(first + u16::from(k), Counter::Lgkm, id);
    }
    Ok(())
}
