//! What each GCN instruction of [`crate::isa`] does, for the machine
//! interpreter ([`TargetSemantics`]): the one definition the back end's
//! tests run.
//!
//! The hardware facts served:
//! - SGPRs (and `EXEC`, `VCC`, `SCC`, `M0`) hold one value per wave,
//!   VGPRs one per lane. A scalar instruction runs once; a vector one runs
//!   in the lanes whose `EXEC` bit is set and leaves the others alone.
//! - A vector compare or carry writes a lane mask: one bit per lane, zero
//!   for inactive lanes.
//! - Shifts use the low 5 bits of the amount; `s_bfe` packs the field as
//!   `(width << 16) | offset`.
//! - On gfx10 a 16-bit VALU result leaves the register's high half alone;
//!   the interpreter fills it with garbage so code that relies on it
//!   (instead of masking) fails its tests.

use regdesc_codegen::interp::ops::fbin;
use regdesc_codegen::ir::Type;
use regdesc_codegen::mir::instr::{BinOp, FloatFmt, IntPredicate};
use regdesc_codegen::mir::interp::{err, Bits, Flow, InterpError, MachineCx, TargetSemantics};
use regdesc_codegen::mir::{MInst, Operand};
use regdesc_codegen::value::Value;
use regdesc_runtime::{Reg, RegClass, RegisterInfo};

use crate::isa::{Isa, Kind};
use crate::Gfx;

/// The semantics of one subtarget's instructions.
pub struct GcnSemantics {
    pub isa: Isa,
    pub scc: Reg,
}

/// Whether a register is a VGPR (or a part or tuple of VGPRs): bit 8 of
/// its operand number.
pub fn is_vgpr(r: Reg) -> bool {
    Gfx::Gfx900.tables().hw_encoding(r) & 0x100 != 0
}

/// Whether the registers of `rc` are VGPRs.
pub fn is_vgpr_class(rc: RegClass) -> bool {
    let t = Gfx::Gfx900.tables();
    t.members(rc).next().is_some_and(is_vgpr)
}

fn u32_of(b: &Bits) -> u64 {
    b.to_u128() as u64 & 0xffff_ffff
}

fn b32(v: u64) -> Bits {
    Bits::from_u128(32, u128::from(v & 0xffff_ffff))
}

fn sext32(v: u64) -> i64 {
    v as u32 as i32 as i64
}

/// `v_mad_u64_u32` / `v_mad_i64_i32` on 32-bit factors `a`, `b` and a
/// 64-bit accumulator `c`: the low 64 bits and the carry out. Unsigned:
/// bit 64 of the 128-bit sum. Signed: `{D1, D0} = 65'B(65'I(a.i32) *
/// 65'I(b.i32) + 65'I(c.i64))` (the ISA manual's pseudocode), so `D1` is
/// bit 64 of the exact sum, which always fits in 65 bits: its sign.
pub fn mad64(a: u64, b: u64, c: u64, signed: bool) -> (u64, bool) {
    if signed {
        let p = i128::from(sext32(a)) * i128::from(sext32(b)) + i128::from(c as i64);
        (p as u64, (p >> 64) & 1 == 1)
    } else {
        let p = u128::from(a & 0xffff_ffff) * u128::from(b & 0xffff_ffff) + u128::from(c);
        (p as u64, p >> 64 != 0)
    }
}

fn holds(p: IntPredicate, a: u64, b: u64) -> bool {
    let (sa, sb) = (sext32(a), sext32(b));
    p.holds(a.cmp(&b), sa.cmp(&sb))
}

fn bin(op: BinOp, a: u64, b: u64) -> u64 {
    let sh = (b & 31) as u32;
    let r = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << sh,
        BinOp::LShr => a >> sh,
        BinOp::AShr => (sext32(a) >> sh) as u64,
    };
    r & 0xffff_ffff
}

/// A 64-bit shift by the amount's low 6 bits (`s_lshl_b64` and the
/// others read no more of it).
fn shift64(op: BinOp, x: u64, amount: u64) -> u64 {
    let sh = (amount & 63) as u32;
    match op {
        BinOp::Shl => x << sh,
        BinOp::LShr => x >> sh,
        _ => ((x as i64) >> sh) as u64,
    }
}

fn bfe(a: u64, off: u64, w: u64, signed: bool) -> u64 {
    let (off, w) = (off & 31, w & 31);
    if w == 0 {
        return 0;
    }
    let f = (a >> off) & ((1u64 << w) - 1);
    if signed && (f >> (w - 1)) & 1 == 1 {
        (f | !((1u64 << w) - 1)) & 0xffff_ffff
    } else {
        f
    }
}

fn mul_hi(a: u64, b: u64, signed: bool) -> u64 {
    if signed {
        ((sext32(a) * sext32(b)) >> 32) as u64 & 0xffff_ffff
    } else {
        (a * b) >> 32
    }
}

fn block(i: &MInst, k: usize) -> Result<Flow, InterpError> {
    match i.ops.get(k) {
        Some(Operand::Block(b)) => Ok(Flow::Jump(*b)),
        _ => Err(err(format!("operand {k} is not a block"))),
    }
}

fn active_lanes(cx: &dyn MachineCx) -> impl Iterator<Item = u32> {
    let exec = cx.exec();
    (0..cx.lanes()).filter(move |l| exec & (1u64 << l) != 0)
}

impl GcnSemantics {
    fn set_scc(&self, cx: &mut dyn MachineCx, v: bool) -> Result<(), InterpError> {
        cx.write_reg(self.scc, 0, Bits::from_u128(1, u128::from(v)))
    }

    fn scc(&self, cx: &mut dyn MachineCx) -> Result<bool, InterpError> {
        Ok(!cx.read_reg(self.scc, 0)?.is_zero())
    }

    fn wave_mask(&self, cx: &dyn MachineCx) -> u64 {
        let lanes = if self.isa.gfx == Gfx::Gfx1030 {
            cx.lanes().min(32)
        } else {
            cx.lanes()
        };
        if lanes >= 64 {
            u64::MAX
        } else {
            (1u64 << lanes) - 1
        }
    }

    /// Runs `f` on the active lanes, writing its value to operand `d`.
    fn per_lane(
        cx: &mut dyn MachineCx,
        d: usize,
        f: &mut dyn FnMut(&mut dyn MachineCx, u32) -> Result<u64, InterpError>,
    ) -> Result<(), InterpError> {
        let lanes: Vec<u32> = active_lanes(cx).collect();
        for lane in lanes {
            let v = f(cx, lane)?;
            cx.write(d, lane, Bits::from_u128(64, u128::from(v)))?;
        }
        Ok(())
    }

    /// Runs `f` on the active lanes; bit `lane` of the mask operand `m` is
    /// its result (inactive lanes 0).
    fn lane_bits(
        cx: &mut dyn MachineCx,
        m: usize,
        f: &mut dyn FnMut(&mut dyn MachineCx, u32) -> Result<bool, InterpError>,
    ) -> Result<(), InterpError> {
        let lanes: Vec<u32> = active_lanes(cx).collect();
        let mut mask = 0u64;
        for lane in lanes {
            if f(cx, lane)? {
                mask |= 1u64 << lane;
            }
        }
        cx.write(m, 0, Bits::from_u128(64, u128::from(mask)))
    }

    fn run(&self, kind: Kind, i: &MInst, cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
        let rd = |cx: &mut dyn MachineCx, k: usize, lane: u32| -> Result<u64, InterpError> {
            Ok(u32_of(&cx.read(k, lane)?))
        };
        match kind {
            Kind::SMov => {
                let v = cx.read(1, 0)?;
                cx.write(0, 0, v)?;
            }
            Kind::SBin(op) => {
                let (a, b) = (rd(cx, 1, 0)?, rd(cx, 2, 0)?);
                let d = bin(op, a, b);
                cx.write(0, 0, b32(d))?;
                match op {
                    BinOp::Add => self.set_scc(cx, a + b > 0xffff_ffff)?,
                    BinOp::Sub => self.set_scc(cx, a < b)?,
                    BinOp::Mul => {}
                    _ => self.set_scc(cx, d != 0)?,
                }
            }
            Kind::SShift64(op) => {
                let x = cx.read(1, 0)?.to_u128() as u64;
                let d = shift64(op, x, rd(cx, 2, 0)?);
                cx.write(0, 0, Bits::from_u128(64, u128::from(d)))?;
                self.set_scc(cx, d != 0)?;
            }
            Kind::GShift64(op) => {
                let lanes: Vec<u32> = active_lanes(cx).collect();
                for lane in lanes {
                    let x = rd(cx, 2, lane)? | (rd(cx, 3, lane)? << 32);
                    let d = shift64(op, x, rd(cx, 4, lane)?);
                    cx.write(0, lane, b32(d))?;
                    cx.write(1, lane, b32(d >> 32))?;
                }
            }
            Kind::SCarry { sub } => {
                let (a, b) = (rd(cx, 1, 0)?, rd(cx, 2, 0)?);
                let c = u64::from(self.scc(cx)?);
                let (d, out) = if sub {
                    (a.wrapping_sub(b).wrapping_sub(c), a < b + c)
                } else {
                    (a + b + c, a + b + c > 0xffff_ffff)
                };
                cx.write(0, 0, b32(d))?;
                self.set_scc(cx, out)?;
            }
            Kind::SMulHi { signed } => {
                let (a, b) = (rd(cx, 1, 0)?, rd(cx, 2, 0)?);
                cx.write(0, 0, b32(mul_hi(a, b, signed)))?;
            }
            Kind::SBfe { signed } => {
                let (a, f) = (rd(cx, 1, 0)?, rd(cx, 2, 0)?);
                let d = bfe(a, f & 0x1f, (f >> 16) & 0x7f, signed);
                cx.write(0, 0, b32(d))?;
                self.set_scc(cx, d != 0)?;
            }
            Kind::SCselect => {
                let k = if self.scc(cx)? { 1 } else { 2 };
                let v = rd(cx, k, 0)?;
                cx.write(0, 0, b32(v))?;
            }
            Kind::SCmp(p) => {
                let (a, b) = (rd(cx, 0, 0)?, rd(cx, 1, 0)?);
                self.set_scc(cx, holds(p, a, b))?;
            }
            Kind::VReadFirstLane => {
                let lane = active_lanes(cx).next().unwrap_or(0);
                let v = rd(cx, 1, lane)?;
                cx.write(0, 0, b32(v))?;
            }
            Kind::VMov => Self::per_lane(cx, 0, &mut |cx, l| rd(cx, 1, l))?,
            Kind::VMov64 => {
                Self::per_lane(cx, 0, &mut |cx, l| Ok(cx.read(1, l)?.to_u128() as u64))?
            }
            Kind::VBin(op) => Self::per_lane(cx, 0, &mut |cx, l| {
                Ok(bin(op, rd(cx, 1, l)?, rd(cx, 2, l)?))
            })?,
            Kind::VAdd3 => Self::per_lane(cx, 0, &mut |cx, l| {
                Ok((rd(cx, 1, l)? + rd(cx, 2, l)? + rd(cx, 3, l)?) & 0xffff_ffff)
            })?,
            Kind::VLshlAdd => Self::per_lane(cx, 0, &mut |cx, l| {
                let shifted = (rd(cx, 1, l)? << (rd(cx, 2, l)? & 31)) & 0xffff_ffff;
                Ok((shifted + rd(cx, 3, l)?) & 0xffff_ffff)
            })?,
            Kind::VAlignBit => Self::per_lane(cx, 0, &mut |cx, l| {
                let wide = rd(cx, 1, l)? << 32 | rd(cx, 2, l)?;
                Ok((wide >> (rd(cx, 3, l)? & 31)) & 0xffff_ffff)
            })?,
            Kind::VBinRev(op) => Self::per_lane(cx, 0, &mut |cx, l| {
                Ok(bin(op, rd(cx, 2, l)?, rd(cx, 1, l)?))
            })?,
            Kind::VShift64(op) => Self::per_lane(cx, 0, &mut |cx, l| {
                let x = cx.read(2, l)?.to_u128() as u64;
                Ok(shift64(op, x, rd(cx, 1, l)?))
            })?,
            Kind::VCarryOut { sub } | Kind::VCarryInOut { sub } => {
                let cin = matches!(kind, Kind::VCarryInOut { .. });
                let mask_in = if cin { rd_mask(cx, 4)? } else { 0 };
                let lanes: Vec<u32> = active_lanes(cx).collect();
                let mut out = 0u64;
                for lane in lanes {
                    let (a, b) = (rd(cx, 2, lane)?, rd(cx, 3, lane)?);
                    let c = (mask_in >> lane) & 1;
                    let (d, o) = if sub {
                        (a.wrapping_sub(b).wrapping_sub(c), a < b + c)
                    } else {
                        (a + b + c, a + b + c > 0xffff_ffff)
                    };
                    cx.write(0, lane, b32(d))?;
                    if o {
                        out |= 1u64 << lane;
                    }
                }
                cx.write(1, 0, Bits::from_u128(64, u128::from(out)))?;
            }
            Kind::VMulHi { signed } => Self::per_lane(cx, 0, &mut |cx, l| {
                Ok(mul_hi(rd(cx, 1, l)?, rd(cx, 2, l)?, signed))
            })?,
            Kind::VMulI24 => Self::per_lane(cx, 0, &mut |cx, l| {
                Ok(u64::from(crate::sdwa::mul_i24(
                    rd(cx, 1, l)? as u32,
                    rd(cx, 2, l)? as u32,
                )))
            })?,
            Kind::VMulHiI24 => Self::per_lane(cx, 0, &mut |cx, l| {
                Ok(u64::from(crate::sdwa::mul_hi_i24(
                    rd(cx, 1, l)? as u32,
                    rd(cx, 2, l)? as u32,
                )))
            })?,
            Kind::VMad64 { signed } => {
                let lanes: Vec<u32> = active_lanes(cx).collect();
                let mut out = 0u64;
                for lane in lanes {
                    let (a, b) = (rd(cx, 2, lane)?, rd(cx, 3, lane)?);
                    let c = cx.read(4, lane)?.to_u128() as u64;
                    let (p, co) = mad64(a, b, c, signed);
                    cx.write(0, lane, Bits::from_u128(64, u128::from(p)))?;
                    if co {
                        out |= 1u64 << lane;
                    }
                }
                cx.write(1, 0, Bits::from_u128(64, u128::from(out)))?;
            }
            Kind::GMadI64 => {
                let lanes: Vec<u32> = active_lanes(cx).collect();
                for lane in lanes {
                    let (a, b) = (rd(cx, 2, lane)?, rd(cx, 3, lane)?);
                    let c = rd(cx, 4, lane)? | (rd(cx, 5, lane)? << 32);
                    let (p, _) = mad64(a, b, c, true);
                    cx.write(0, lane, b32(p))?;
                    cx.write(1, lane, b32(p >> 32))?;
                }
            }
            Kind::GMad64Co => {
                let lanes: Vec<u32> = active_lanes(cx).collect();
                for lane in lanes {
                    let (a, b) = (rd(cx, 3, lane)?, rd(cx, 4, lane)?);
                    let c = rd(cx, 5, lane)? | (rd(cx, 6, lane)? << 32);
                    let p = u128::from(a * b) + u128::from(c);
                    cx.write(0, lane, b32(p as u64 & 0xffff_ffff))?;
                    cx.write(1, lane, b32((p >> 32) as u64 & 0xffff_ffff))?;
                    cx.write(2, lane, b32((p >> 64) as u64))?;
                }
            }
            Kind::VBfe { signed } => Self::per_lane(cx, 0, &mut |cx, l| {
                Ok(bfe(rd(cx, 1, l)?, rd(cx, 2, l)?, rd(cx, 3, l)?, signed))
            })?,
            Kind::VCndmask => {
                let m = rd_mask(cx, 3)?;
                Self::per_lane(cx, 0, &mut |cx, l| {
                    rd(cx, if (m >> l) & 1 == 1 { 2 } else { 1 }, l)
                })?
            }
            Kind::VCmp(p) => Self::lane_bits(cx, 0, &mut |cx, l| {
                Ok(holds(p, rd(cx, 1, l)?, rd(cx, 2, l)?))
            })?,
            Kind::VFloat(op, fmt) => {
                let (ty, bits) = match fmt {
                    FloatFmt::F16 => (Type::Half, 16),
                    FloatFmt::F32 => (Type::Float, 32),
                };
                let keep_high = fmt == FloatFmt::F16 && self.isa.gfx == Gfx::Gfx1030;
                Self::per_lane(cx, 0, &mut |cx, l| {
                    let val = |v: u64| {
                        let v = if bits == 16 { v & 0xffff } else { v };
                        Value::from_bits(ty, regdesc_codegen::value::IntBits::from(v))
                            .ok_or_else(|| err("not a float"))
                    };
                    let (a, b) = (val(rd(cx, 1, l)?)?, val(rd(cx, 2, l)?)?);
                    let r = fbin(op, Default::default(), &a, &b).map_err(|e| err(e.to_string()))?;
                    let r = r.to_bits().as_limbs()[0];
                    Ok(if keep_high { r | 0xdead_0000 } else { r })
                })?
            }
            Kind::SMask(op) => {
                let (a, b) = (rd_mask(cx, 1)?, rd_mask(cx, 2)?);
                let d = op.apply(a, b);
                cx.write(0, 0, Bits::from_u128(64, u128::from(d)))?;
                self.set_scc(cx, d != 0)?;
            }
            Kind::GetExec => {
                let e = cx.exec();
                cx.write(0, 0, Bits::from_u128(64, u128::from(e)))?;
            }
            Kind::SetExec => {
                let e = rd_mask(cx, 0)? & self.wave_mask(cx);
                cx.set_exec(e);
            }
            Kind::ZeroMask => cx.write(0, 0, Bits::from_u128(64, 0))?,
            Kind::SCselectMask => {
                let v = if self.scc(cx)? { rd_mask(cx, 1)? } else { 0 };
                cx.write(0, 0, Bits::from_u128(64, u128::from(v)))?;
            }
            Kind::MaskNonZero => {
                let v = rd_mask(cx, 0)?;
                self.set_scc(cx, v != 0)?;
            }
            Kind::SiBrcond => {
                let (m, e) = (rd_mask(cx, 0)?, cx.exec());
                return match (m & e == e, m & e == 0) {
                    (true, _) => block(i, 1),
                    (_, true) => block(i, 2),
                    _ => Err(err(
                        "a divergent branch runs before control flow is lowered (stage post-phi)",
                    )),
                };
            }
            Kind::SCbranchScc { on } => {
                let k = if self.scc(cx)? == on { 0 } else { 1 };
                return block(i, k);
            }
            Kind::SCbranchExecz => {
                let k = if cx.exec() == 0 { 0 } else { 1 };
                return block(i, k);
            }
            Kind::GlobalLoad(n) | Kind::GlobalLoadSaddrNarrow(n) => {
                let saddr = matches!(kind, Kind::GlobalLoadSaddrNarrow(_));
                let lanes: Vec<u32> = active_lanes(cx).collect();
                for lane in lanes {
                    // The VGPR pair plus the offset, or the SGPR pair plus
                    // the VGPR's 32-bit offset plus the offset.
                    let addr = if saddr {
                        let base = cx.read(2, 0)?.to_u128() as u64;
                        let off = cx.read(3, 0)?.to_u128() as u64;
                        base.wrapping_add(rd(cx, 1, lane)?).wrapping_add(off)
                    } else {
                        let off = cx.read(2, lane)?.to_u128() as u64;
                        (cx.read(1, lane)?.to_u128() as u64).wrapping_add(off)
                    };
                    let bytes = cx
                        .memory()
                        .read_bytes(addr, u64::from(n))
                        .map_err(|e| err(e.to_string()))?;
                    let mut v = 0u64;
                    for (k, b) in bytes.iter().enumerate() {
                        v |= u64::from(*b) << (8 * k);
                    }
                    cx.write(0, lane, b32(v))?;
                }
            }
            Kind::GlobalStore(n) | Kind::GlobalStoreSaddrNarrow(n) => {
                let saddr = matches!(kind, Kind::GlobalStoreSaddrNarrow(_));
                let lanes: Vec<u32> = active_lanes(cx).collect();
                for lane in lanes {
                    let addr = if saddr {
                        let base = cx.read(2, 0)?.to_u128() as u64;
                        let off = cx.read(3, 0)?.to_u128() as u64;
                        base.wrapping_add(rd(cx, 0, lane)?).wrapping_add(off)
                    } else {
                        let off = cx.read(2, lane)?.to_u128() as u64;
                        (cx.read(0, lane)?.to_u128() as u64).wrapping_add(off)
                    };
                    let v = rd(cx, 1, lane)?;
                    cx.memory()
                        .write_bytes(addr, &v.to_le_bytes()[..n as usize])
                        .map_err(|e| err(e.to_string()))?;
                }
            }
            Kind::GlobalStoreWide(n) => {
                let lanes: Vec<u32> = active_lanes(cx).collect();
                for lane in lanes {
                    let off = cx.read(2, lane)?.to_u128() as u64;
                    let addr = (cx.read(0, lane)?.to_u128() as u64).wrapping_add(off);
                    let v = cx.read(1, lane)?;
                    let bytes: Vec<u8> = v.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    cx.memory()
                        .write_bytes(addr, &bytes[..4 * usize::from(n)])
                        .map_err(|e| err(e.to_string()))?;
                }
            }
            Kind::GlobalStoreSaddr(n) => {
                let lanes: Vec<u32> = active_lanes(cx).collect();
                let base = cx.read(2, 0)?.to_u128() as u64;
                let off = cx.read(3, 0)?.to_u128() as u64;
                for lane in lanes {
                    let voff = rd(cx, 0, lane)?;
                    let addr = base.wrapping_add(voff).wrapping_add(off);
                    let v = cx.read(1, lane)?;
                    let bytes: Vec<u8> = v.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    cx.memory()
                        .write_bytes(addr, &bytes[..4 * usize::from(n)])
                        .map_err(|e| err(e.to_string()))?;
                }
            }
            Kind::GlobalLoadWide(n) | Kind::GlobalLoadSaddr(n) => {
                let saddr = matches!(kind, Kind::GlobalLoadSaddr(_));
                let lanes: Vec<u32> = active_lanes(cx).collect();
                let (base, off) = if saddr {
                    let base = cx.read(2, 0)?.to_u128() as u64;
                    (base, cx.read(3, 0)?.to_u128() as u64)
                } else {
                    (0, cx.read(2, 0)?.to_u128() as u64)
                };
                for lane in lanes {
                    // saddr: the SGPR pair plus the zero-extended 32-bit
                    // VGPR offset; otherwise the VGPR pair's 64 bits.
                    let a = if saddr {
                        base.wrapping_add(rd(cx, 1, lane)?)
                    } else {
                        cx.read(1, lane)?.to_u128() as u64
                    };
                    let bytes = cx
                        .memory()
                        .read_bytes(a.wrapping_add(off), 4 * u64::from(n))
                        .map_err(|e| err(e.to_string()))?;
                    let mut v = Bits::zero(32 * u32::from(n));
                    for (k, b) in bytes.iter().enumerate() {
                        v.words[k / 8] |= u64::from(*b) << (8 * (k % 8));
                    }
                    cx.write(0, lane, v)?;
                }
            }
            Kind::Wait => {}
            Kind::KernargLoad => {
                let off = rd(cx, 2, 0)?;
                let w = rd(cx, 3, 0)?;
                cx.write(0, 0, b32(w << (8 * (off & 3))))?;
            }
            Kind::KernargLoadWide(n) => {
                let n = u32::from(n);
                let mut v = Bits::zero(32 * n);
                for k in 0..n {
                    let w = rd(cx, 3 + k as usize, 0)?;
                    v.words[(k / 2) as usize] |= w << (32 * (k % 2));
                }
                cx.write(0, 0, v)?;
            }
            Kind::ScalarLoad(n) => {
                let base = cx.read(1, 0)?.to_u128() as u64;
                let off = cx.read(2, 0)?.to_u128() as u64;
                let bytes = cx
                    .memory()
                    .read_bytes(base.wrapping_add(off), 4 * u64::from(n))
                    .map_err(|e| err(e.to_string()))?;
                let mut v = Bits::zero(32 * u32::from(n));
                for (k, b) in bytes.iter().enumerate() {
                    v.words[k / 8] |= u64::from(*b) << (8 * (k % 8));
                }
                cx.write(0, 0, v)?;
            }
            Kind::WriteLane | Kind::ReadLane => {
                let lane = rd(cx, 2, 0)? as u32;
                if lane >= cx.lanes() {
                    return Err(err(format!(
                        "an SGPR spill uses lane {lane}: run with the wave's lanes"
                    )));
                }
                if kind == Kind::WriteLane {
                    let v = cx.read(1, 0)?;
                    cx.write(0, lane, v)?;
                } else {
                    let v = cx.read(1, lane)?;
                    cx.write(0, 0, v)?;
                }
            }
            Kind::WorkitemId => {
                Self::per_lane(cx, 0, &mut |cx, l| Ok(u64::from(cx.workitem_id(l))))?
            }
            Kind::WorkgroupId => {
                let g = cx.workgroup_id();
                cx.write(0, 0, b32(u64::from(g)))?;
            }
            Kind::Sdwa(op) => {
                let f = crate::sdwa::fields(op, i).ok_or_else(|| err("malformed SDWA operands"))?;
                let keep = match (f.unused, f.preserved) {
                    (crate::sdwa::Unused::Preserve, None) => {
                        return Err(err("UNUSED_PRESERVE without its preserved operand"))
                    }
                    (crate::sdwa::Unused::Preserve, Some(k)) => Some(k),
                    _ => None,
                };
                let n = op.num_srcs();
                Self::per_lane(cx, 0, &mut |cx, l| {
                    let mut srcs = Vec::with_capacity(n);
                    for k in 1..=n {
                        srcs.push(rd(cx, k, l)? as u32);
                    }
                    let old = match keep {
                        Some(k) => rd(cx, k, l)? as u32,
                        None => 0,
                    };
                    Ok(u64::from(crate::sdwa::eval(op, &f, &srcs, old)))
                })?
            }
        }
        Ok(Flow::Next)
    }
}

/// A lane-mask operand (scalar, 32 or 64 bits).
fn rd_mask(cx: &mut dyn MachineCx, k: usize) -> Result<u64, InterpError> {
    Ok(cx.read(k, 0)?.to_u128() as u64)
}

impl TargetSemantics for GcnSemantics {
    fn per_lane_class(&self, rc: RegClass) -> bool {
        is_vgpr_class(rc)
    }

    fn per_lane_reg(&self, r: Reg) -> bool {
        is_vgpr(r)
    }

    fn execute(&self, id: u16, inst: &MInst, cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
        let def = self
            .isa
            .defs
            .get(usize::from(id))
            .ok_or_else(|| err(format!("no GCN instruction {id}")))?;
        self.run(def.kind, inst, cx)
    }
}
