//! One Gen hardware thread and what each instruction does to it.
//!
//! Sections cited are of the Intel Graphics PRM, Vol 2a "Command
//! Reference: Instructions" (per-instruction pages) and Vol 7 "3D-Media-
//! GPGPU" ("Execution Size", "Register Region", "Accumulator Registers",
//! "Flag Register", "Predication"), the same for Skylake, Ice Lake and
//! Tiger Lake for the instructions here.

use crate::isa::{Cond, Inst, Op, RegName, Src, Ty};
use crate::regions::GRF_BYTES;
use crate::sim::SimError;

/// The state of one hardware thread.
#[derive(Clone, Debug)]
pub struct Thread {
    /// 128 GRFs of 32 bytes (little-endian elements).
    pub grf: Vec<u8>,
    /// The accumulator, per channel (`acc0` channels 0..8, `acc1` 8..16),
    /// wider than a dword as the hardware's (PRM Vol 7 "Accumulator
    /// Registers": integer accumulators hold 33 bits and more; `mach`
    /// keeps the 64-bit product).
    pub acc: [i128; 16],
    /// `f0.0`, `f0.1`, `f1.0`, `f1.1`: one bit per channel.
    pub flags: [u16; 4],
    /// Channels dispatched (the execution mask at thread start).
    pub dmask: u32,
    /// `cr0.0`: the floating-point modes (PRM Vol 7 "Control Register";
    /// zero at thread start: denormals flushed).
    pub cr0: u32,
}

/// `cr0.0` bit: single-precision denormals kept (not flushed to zero).
pub const CR0_SP_DENORM: u32 = 1 << 7;
/// `cr0.0` bit: half-precision denormals kept.
pub const CR0_HF_DENORM: u32 = 1 << 10;

impl Thread {
    pub fn new(dmask: u32) -> Thread {
        Thread {
            grf: vec![0; 128 * GRF_BYTES as usize],
            acc: [0; 16],
            flags: [0; 4],
            dmask,
            cr0: 0,
        }
    }

    pub fn read_ud(&self, byte: usize) -> u32 {
        let mut b = [0u8; 4];
        if let Some(s) = self.grf.get(byte..byte + 4) {
            b.copy_from_slice(s);
        }
        u32::from_le_bytes(b)
    }

    pub fn write_ud(&mut self, byte: usize, v: u32) {
        if let Some(s) = self.grf.get_mut(byte..byte + 4) {
            s.copy_from_slice(&v.to_le_bytes());
        }
    }

    pub(crate) fn read_elem(&self, byte: usize, ty: Ty) -> i128 {
        let bits: u64 = match ty.size() {
            2 => {
                let mut b = [0u8; 2];
                if let Some(s) = self.grf.get(byte..byte + 2) {
                    b.copy_from_slice(s);
                }
                u64::from(u16::from_le_bytes(b))
            }
            8 => u64::from(self.read_ud(byte)) | u64::from(self.read_ud(byte + 4)) << 32,
            _ => u64::from(self.read_ud(byte)),
        };
        extend(bits, ty)
    }

    pub(crate) fn write_elem(&mut self, byte: usize, ty: Ty, v: i128) {
        match ty.size() {
            2 => {
                if let Some(s) = self.grf.get_mut(byte..byte + 2) {
                    s.copy_from_slice(&(v as u16).to_le_bytes());
                }
            }
            8 => {
                self.write_ud(byte, v as u32);
                self.write_ud(byte + 4, (v >> 32) as u32);
            }
            _ => self.write_ud(byte, v as u32),
        }
    }

    pub(crate) fn flag(&self, f: crate::isa::Flag) -> u16 {
        self.flags[usize::from(f.nr * 2 + f.sub) & 3]
    }

    fn set_flag_bit(&mut self, f: crate::isa::Flag, ch: u32, on: bool) {
        let k = usize::from(f.nr * 2 + f.sub) & 3;
        if on {
            self.flags[k] |= 1 << ch;
        } else {
            self.flags[k] &= !(1 << ch);
        }
    }
}

/// An element's bits as a number of its type (PRM "Data Types").
fn extend(bits: u64, ty: Ty) -> i128 {
    match ty {
        Ty::Uq => i128::from(bits),
        Ty::Q => i128::from(bits as i64),
        Ty::Ud | Ty::F => i128::from(bits as u32),
        Ty::D => i128::from(bits as u32 as i32),
        Ty::Uw | Ty::Hf => i128::from(bits as u16),
        Ty::W => i128::from(bits as u16 as i16),
    }
}

/// The region element channel `ch` reads (PRM Vol 7 "Register Region").
pub fn element(region: &crate::isa::Region, ch: u32) -> u32 {
    let w = u32::from(region.w.max(1));
    (ch / w) * u32::from(region.v) + (ch % w) * u32::from(region.h)
}

/// The byte of element `el` from `rNR.SUB` in elements of `ty`.
pub fn grf_byte(nr: u8, sub: u8, el: u32, ty: Ty) -> usize {
    (u32::from(nr) * GRF_BYTES + (u32::from(sub) + el) * ty.size()) as usize
}

/// Source `s` at channel `ch` (PRM Vol 7 "Register Region": element
/// `(ch / width) * vstride + (ch % width) * hstride` from the
/// sub-register; a negated source modifier negates the value).
fn read_src(t: &Thread, s: &Src, ch: u32) -> i128 {
    match s {
        Src::Imm { bits, ty } => extend(u64::from(*bits), *ty),
        Src::Reg {
            reg,
            region,
            ty,
            neg,
        } => {
            let el = element(region, ch);
            let v = match reg {
                RegName::Grf { nr, sub } => t.read_elem(grf_byte(*nr, *sub, el, *ty), *ty),
                RegName::Acc { nr, sub } => {
                    let k = (usize::from(*nr) * 8 + usize::from(*sub) + el as usize) & 15;
                    let raw = t.acc[k];
                    // Read through the type: a dword view of the accumulator.
                    extend(raw as u64 & 0xffff_ffff, *ty)
                }
                RegName::Cr { .. } => i128::from(t.cr0),
                RegName::Null => 0,
            };
            if *neg {
                -v
            } else {
                v
            }
        }
    }
}

fn cond_holds(c: Cond, a: i128, b: i128) -> bool {
    match c {
        Cond::Eq => a == b,
        Cond::Ne => a != b,
        Cond::Lt => a < b,
        Cond::Le => a <= b,
        Cond::Gt => a > b,
        Cond::Ge => a >= b,
    }
}

/// Where control goes after an instruction.
pub enum Next {
    Fall,
    Jump(String),
}

/// Runs `i` on `t`.
pub fn execute(t: &mut Thread, i: &Inst) -> Result<Next, SimError> {
    let bad = |m: &str| SimError::Exec {
        inst: i.to_string(),
        message: m.to_string(),
    };
    if i.op == Op::Jmpi {
        // jmpi (PRM Vol 2a "jmpi"): a jump of the whole thread; with a
        // predicate, taken when channel 0's flag bit (for NoMask exec size
        // 1) says so, or with predicate control (PRM "Predication",
        // `.allNh`/`.anyNh`) when all or any of the first N bits are set.
        let taken = match i.pred {
            None => true,
            Some(p) => match p.ctrl {
                None => (t.flag(p.flag) & 1 != 0) != p.invert,
                Some(_) if p.invert => {
                    return Err(bad("an inverted all/any predicate is not simulated"))
                }
                Some((all, n)) => {
                    let mask = if n >= 16 { 0xffff } else { (1u16 << n) - 1 };
                    let bits = t.flag(p.flag) & mask;
                    if all {
                        bits == mask
                    } else {
                        bits != 0
                    }
                }
            },
        };
        let l = i.label.clone().ok_or_else(|| bad("jmpi without a label"))?;
        return Ok(if taken { Next::Jump(l) } else { Next::Fall });
    }
    if i.op == Op::Nop {
        return Ok(Next::Fall);
    }
    let d = i.dst.ok_or_else(|| bad("no destination"))?;
    let is_float = |t: Ty| matches!(t, Ty::F | Ty::Hf);
    // A raw move (PRM Vol 2a "mov": source and destination of one type, no
    // source modifier) copies the bits, NaNs and denormals included; IGC
    // moves integer data as `:f` this way.
    let raw_mov = i.op == Op::Mov
        && matches!(i.srcs.as_slice(), [Src::Reg { ty, neg: false, .. }] if *ty == d.ty);
    if !raw_mov && (is_float(d.ty) || i.srcs.iter().any(|s| is_float(s.ty()))) {
        return crate::sim::float::execute(t, i, d).map(|()| Next::Fall);
    }
    // Gen9's 64-bit integer types (PRM Vol 2a "add", "mov", "shl"...,
    // "Data Types" Q/UQ): an operation with a qword operand computes on
    // 64 bits (shift counts: the low 6 bits). The carry/borrow and
    // multiply macros (`addc`, `subb`, `mul`, `mach`) on qwords are not
    // simulated.
    let wide = d.ty.size() == 8 || i.srcs.iter().any(|s| s.ty().size() == 8);
    if wide && matches!(i.op, Op::Addc | Op::Subb | Op::Mul | Op::Mach) {
        return Err(bad("this instruction on 64-bit types is not simulated"));
    }
    let exec = u32::from(i.exec);
    let mut results = Vec::with_capacity(exec as usize);
    for ch in 0..exec {
        let channel = u32::from(i.offset) + ch;
        // Execution mask (PRM Vol 7 "Execution Mask"): dispatched
        // channels, all of them under NoMask; predication (PRM
        // "Predication") further disables channels, except for `sel`,
        // which it selects for.
        let enabled = i.nomask || (t.dmask >> channel) & 1 != 0;
        if i.pred.is_some() && channel >= 16 {
            return Err(bad(
                "predication of channels 16 and up (SIMD32) is not simulated",
            ));
        }
        let pbit = i
            .pred
            .map(|p| ((t.flag(p.flag) >> channel) & 1 != 0) != p.invert);
        if !enabled || (i.op != Op::Sel && pbit == Some(false)) {
            continue;
        }
        let a = i.srcs.first().map_or(0, |s| read_src(t, s, ch));
        let b = i.srcs.get(1).map_or(0, |s| read_src(t, s, ch));
        let ua = a as u32;
        let ub = b as u32;
        let (qa, qb) = (a as u64, b as u64);
        let acc_in = t.acc[(ch & 15) as usize];
        let (val, acc_out): (i128, Option<i128>) = match i.op {
            // mov (PRM "mov"): the source converted to the destination type.
            Op::Mov => (a, None),
            // add (PRM "add"): the sum, wrapped to the destination type.
            Op::Add => (a + b, Some(a + b)),
            // addc (PRM "addc"): dword sum; the carry out goes to the
            // accumulator (needs AccWrEn).
            Op::Addc => {
                let s = u64::from(ua) + u64::from(ub);
                (i128::from(s as u32), Some(i128::from(s >> 32)))
            }
            // subb (PRM "subb"): dword difference; the borrow goes to the
            // accumulator.
            Op::Subb => (i128::from(ua.wrapping_sub(ub)), Some(i128::from(ua < ub))),
            // mul (PRM "mul"): the full product of the typed sources,
            // truncated to the destination (the accumulator keeps it).
            Op::Mul => (a * b, Some(a * b)),
            // mach (PRM "mach"): accumulator + src0 * (src1's high 16 bits,
            // typed) << 16, completing the 32x32 product started by
            // `mul acc0, src0, src1.lo16`. With AccWrEn the destination
            // gets the high 32 bits and the accumulator the whole; without
            // it the destination gets the low 32 bits (the 32x32->32
            // multiply macro `mul acc0` + `mach dst` that IGC emits on
            // Gen11/Gen12LP, which have no 32x32 multiplier: IGC's mul64
            // and get_global_id code only agree with the interpreter this
            // way, see tests/sim_igc.rs).
            Op::Mach => {
                let hi16 = if i.srcs.get(1).is_some_and(|s| s.ty().signed()) {
                    i128::from((ub >> 16) as u16 as i16)
                } else {
                    i128::from(ub >> 16)
                };
                let full = acc_in + ((a * hi16) << 16);
                if i.acc_wr {
                    (full >> 32, Some(full))
                } else {
                    (full, None)
                }
            }
            Op::And if wide => (i128::from(qa & qb), None),
            Op::Or if wide => (i128::from(qa | qb), None),
            Op::Xor if wide => (i128::from(qa ^ qb), None),
            Op::Not if wide => (i128::from(!qa), None),
            Op::Shl if wide => (i128::from(qa.wrapping_shl(ub & 63)), None),
            Op::Shr if wide => (i128::from(qa >> (ub & 63)), None),
            Op::Asr if wide => (i128::from((qa as i64) >> (ub & 63)), None),
            Op::And => (i128::from(ua & ub), None),
            Op::Or => (i128::from(ua | ub), None),
            Op::Xor => (i128::from(ua ^ ub), None),
            Op::Not => (i128::from(!ua), None),
            // shl/shr/asr (PRM "shl", "shr", "asr"): the shift count is
            // the low 5 bits of src1 for dword operands.
            Op::Shl => (i128::from(ua.wrapping_shl(ub & 31)), None),
            Op::Shr => (i128::from(ua >> (ub & 31)), None),
            Op::Asr => (i128::from((ua as i32) >> (ub & 31)), None),
            // cmp (PRM "cmp"): the flag bit is src0 <cond> src1 on the
            // typed values; the destination gets all ones or zero.
            Op::Cmp => {
                let c = i.cond.ok_or_else(|| bad("cmp needs a condition"))?.0;
                (if cond_holds(c, a, b) { -1 } else { 0 }, None)
            }
            // sel (PRM "sel"): src0 where the predicate holds, else src1.
            Op::Sel => (if pbit.unwrap_or(true) { a } else { b }, None),
            Op::Jmpi | Op::Nop => (0, None),
        };
        results.push((ch, channel, val, acc_out));
    }
    for (ch, channel, val, acc_out) in results {
        match d.reg {
            RegName::Grf { nr, sub } => {
                let byte = u32::from(nr) * GRF_BYTES
                    + (u32::from(sub) + ch * u32::from(d.h)) * d.ty.size();
                t.write_elem(byte as usize, d.ty, val);
            }
            // An accumulator destination keeps the full value.
            RegName::Acc { nr, sub } => {
                let k = (usize::from(nr) * 8 + usize::from(sub) + ch as usize) & 15;
                t.acc[k] = acc_out.unwrap_or(val);
            }
            RegName::Cr { .. } => t.cr0 = val as u32,
            RegName::Null => {}
        }
        if i.acc_wr {
            if let Some(v) = acc_out {
                t.acc[(ch & 15) as usize] = v;
            }
        }
        if let Some((c, f)) = i.cond {
            if channel >= 16 {
                return Err(bad(
                    "flags of channels 16 and up (SIMD32) are not simulated",
                ));
            }
            // Conditional modifier (PRM "Condition Modifier"): cmp's flag
            // is its comparison; others compare the result with zero.
            let on = if i.op == Op::Cmp {
                val != 0
            } else {
                cond_holds(c, val, 0)
            };
            t.set_flag_bit(f, channel, on);
        }
    }
    Ok(Next::Fall)
}
