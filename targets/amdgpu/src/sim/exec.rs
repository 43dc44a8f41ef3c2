//! Running instructions: the operand access every family shares (scalar
//! and vector registers, inline constants and literals, lane masks, with
//! the `s_waitcnt` checks of [`super::state`]) and the dispatch to the
//! families ([`super::salu`], [`super::valu`], [`super::sdwa`],
//! [`super::mem`]).
//!
//! # Constants (the "Scalar ALU Operands" and "Vector ALU" operand sections of
//! the Vega ISA (gfx9) and RDNA2 ISA (gfx1030) reference guides)
//!
//! Integers -16..=64 and the floating-point values ±0.5, ±1.0, ±2.0, ±4.0
//! and 1/(2π) are inline constants: a floating-point one is encoded in the
//! operand's format (binary16 for 16-bit operations, binary32 otherwise),
//! and an integer one is sign-extended to a 64-bit operand. Any other
//! value is a 32-bit literal; as a 64-bit operand the simulator extends it
//! the way it is written (a negative number sign-extended, a positive one
//! zero-extended), so the text means what it says.

use regdesc_codegen::interp::GlobalMemory;
use regdesc_codegen::source::Span;

use super::error::SimError;
use super::parse::{enc, Inst, Operand, Opnd, Program};
use super::state::Wave;
use super::{mem, salu, sdwa, valu};
use crate::Gfx;

/// The instruction families, each in its own module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Salu,
    Valu,
    Valu16,
    Mem,
}

/// The family of a mnemonic (without its encoding suffix), if modelled.
pub fn family(base: &str) -> Option<Family> {
    if salu::NAMES.contains(&base) {
        Some(Family::Salu)
    } else if valu::NAMES.contains(&base) || valu::is_vopc(base) {
        Some(Family::Valu)
    } else if sdwa::NAMES.contains(&base) {
        Some(Family::Valu16)
    } else if mem::NAMES.contains(&base) {
        Some(Family::Mem)
    } else {
        None
    }
}

/// What happens after an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Next,
    Jump(usize),
    /// `s_setpc_b64` to the return address, or `s_endpgm`.
    Return,
}

/// Where the kernarg segment and the dispatch packet live.
pub const KERNARG_BASE: u64 = 0x7f00_0000_0000;
pub const DISPATCH_BASE: u64 = 0x7e00_0000_0000;
/// The return address a plain function finds in `s[30:31]`.
pub const RETURN_ADDRESS: u64 = 0x7d00_0000_0000;

/// The kind of an immediate operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fp {
    /// Integer or 32-bit float operand: floats encode as binary32.
    B32,
    /// 16-bit operand: floats encode as binary16.
    B16,
}

/// The machine: a wave and the memories it sees.
pub struct Cpu<'a> {
    pub w: Wave,
    pub chip: Gfx,
    pub prog: &'a Program,
    pub mem: &'a mut GlobalMemory,
    pub kernarg: Vec<u8>,
    pub dispatch: Vec<u8>,
}

pub type Res<T> = Result<T, SimError>;

pub fn bad(span: &Span, what: impl Into<String>) -> SimError {
    SimError::BadOperand {
        span: span.clone(),
        what: what.into(),
    }
}

pub fn unsupported(span: &Span, what: impl Into<String>) -> SimError {
    SimError::Unsupported {
        span: span.clone(),
        what: what.into(),
    }
}

/// A 16-bit inline floating-point constant.
fn f16_inline(f: f64) -> Option<u32> {
    let a = f.abs();
    let mag = if a == 0.0 {
        0
    } else if a == 0.5 {
        0x3800
    } else if a == 1.0 {
        0x3c00
    } else if a == 2.0 {
        0x4000
    } else if a == 4.0 {
        0x4400
    } else if (a - 0.159_154_943_091_895_34).abs() < 1e-6 {
        0x3118
    } else {
        return None;
    };
    Some(if f.is_sign_negative() {
        mag | 0x8000
    } else {
        mag
    })
}

impl Cpu<'_> {
    pub fn op<'i>(&self, inst: &'i Inst, i: usize) -> Res<&'i Operand> {
        inst.ops.get(i).ok_or_else(|| {
            bad(
                &inst.span,
                format!("`{}` needs at least {} operands", inst.mnemonic, i + 1),
            )
        })
    }

    pub fn wave64(&self) -> bool {
        self.w.size == 64
    }

    /// Reads scalar register `r` (with the outstanding-load check).
    pub fn sreg(&self, r: u16, span: &Span) -> Res<u32> {
        if r == enc::NULL {
            return Ok(0);
        }
        self.w.check_s(r, span)?;
        self.w
            .sgpr
            .get(r as usize)
            .copied()
            .ok_or_else(|| bad(span, format!("no scalar register {r}")))
    }

    pub fn set_sreg(&mut self, r: u16, v: u32, span: &Span) -> Res<()> {
        if r == enc::NULL {
            return Ok(());
        }
        self.w.check_s(r, span)?;
        match self.w.sgpr.get_mut(r as usize) {
            Some(s) => {
                *s = v;
                Ok(())
            }
            None => Err(bad(span, format!("no scalar register {r}"))),
        }
    }

    /// A constant operand as 32 bits.
    pub fn imm32(&self, o: &Operand, fp: Fp) -> Res<u32> {
        match o.kind {
            Opnd::Int(v) => {
                if (-(1i64 << 31)..=i64::from(u32::MAX)).contains(&v) {
                    Ok(v as u32)
                } else {
                    Err(bad(&o.span, format!("{v} does not fit 32 bits")))
                }
            }
            Opnd::Float(f) => match fp {
                Fp::B16 => f16_inline(f)
                    .ok_or_else(|| bad(&o.span, format!("{f} is not a 16-bit inline constant"))),
                Fp::B32 => Ok((f as f32).to_bits()),
            },
            _ => Err(bad(&o.span, "expected a constant")),
        }
    }

    /// A scalar operand (register or constant) as 32 bits.
    pub fn s32_of(&self, o: &Operand, fp: Fp) -> Res<u32> {
        match o.kind {
            Opnd::Sreg { first, .. } => self.sreg(first, &o.span),
            Opnd::Scc => Ok(u32::from(self.w.scc)),
            Opnd::Int(_) | Opnd::Float(_) => self.imm32(o, fp),
            _ => Err(bad(&o.span, "expected a scalar register or a constant")),
        }
    }

    pub fn s32(&self, inst: &Inst, i: usize) -> Res<u32> {
        self.s32_of(self.op(inst, i)?, Fp::B32)
    }

    /// A scalar operand as 64 bits (a register pair or a constant).
    pub fn s64_of(&self, o: &Operand) -> Res<u64> {
        match o.kind {
            Opnd::Sreg { first, n: 2 } => {
                let lo = self.sreg(first, &o.span)?;
                let hi = self.sreg(first + 1, &o.span)?;
                Ok(u64::from(lo) | u64::from(hi) << 32)
            }
            Opnd::Sreg {
                first: enc::NULL, ..
            } => Ok(0),
            Opnd::Int(v) => Ok(v as u64),
            Opnd::Float(f) => Ok(f.to_bits()),
            _ => Err(bad(
                &o.span,
                "expected a 64-bit scalar operand (`s[n:n+1]`, `vcc`, `exec`, a constant)",
            )),
        }
    }

    pub fn s64(&self, inst: &Inst, i: usize) -> Res<u64> {
        self.s64_of(self.op(inst, i)?)
    }

    pub fn set_s32(&mut self, inst: &Inst, i: usize, v: u32) -> Res<()> {
        let o = self.op(inst, i)?;
        match o.kind {
            Opnd::Sreg { first, n: 1 } => self.set_sreg(first, v, &o.span),
            _ => Err(bad(&o.span, "expected a 32-bit scalar register")),
        }
    }

    pub fn set_s64(&mut self, inst: &Inst, i: usize, v: u64) -> Res<()> {
        let o = self.op(inst, i)?;
        match o.kind {
            Opnd::Sreg { first, n: 2 } => {
                self.set_sreg(first, v as u32, &o.span)?;
                self.set_sreg(first + 1, (v >> 32) as u32, &o.span)
            }
            Opnd::Sreg {
                first: enc::NULL, ..
            } => Ok(()),
            _ => Err(bad(&o.span, "expected a 64-bit scalar register pair")),
        }
    }

    /// A lane mask operand: 64 bits on wave64, 32 on wave32.
    pub fn mask(&self, inst: &Inst, i: usize) -> Res<u64> {
        let o = self.op(inst, i)?;
        if self.wave64() {
            self.s64_of(o)
        } else {
            self.s32_of(o, Fp::B32).map(u64::from)
        }
    }

    pub fn set_mask(&mut self, inst: &Inst, i: usize, m: u64) -> Res<()> {
        if self.wave64() {
            self.set_s64(inst, i, m)
        } else {
            self.set_s32(inst, i, m as u32)
        }
    }

    /// Operand `i` for `lane` as 32 bits (a VGPR, or a scalar broadcast).
    pub fn v32_of(&self, o: &Operand, lane: usize, fp: Fp) -> Res<u32> {
        match o.kind {
            Opnd::Vreg { first, .. } => {
                self.w.check_v(first, &o.span)?;
                self.vget(first, lane, &o.span)
            }
            _ => self.s32_of(o, fp),
        }
    }

    fn vget(&self, r: u16, lane: usize, span: &Span) -> Res<u32> {
        self.w
            .vgpr
            .get(r as usize)
            .and_then(|v| v.get(lane))
            .copied()
            .ok_or_else(|| bad(span, format!("no register v{r}")))
    }

    pub fn v32(&self, inst: &Inst, i: usize, lane: usize) -> Res<u32> {
        self.v32_of(self.op(inst, i)?, lane, Fp::B32)
    }

    /// Operand `i` for `lane` as 64 bits (a VGPR pair or a scalar operand).
    pub fn v64(&self, inst: &Inst, i: usize, lane: usize) -> Res<u64> {
        let o = self.op(inst, i)?;
        match o.kind {
            Opnd::Vreg { first, n: 2 } => {
                self.w.check_v(first, &o.span)?;
                self.w.check_v(first + 1, &o.span)?;
                let lo = self.vget(first, lane, &o.span)?;
                let hi = self.vget(first + 1, lane, &o.span)?;
                Ok(u64::from(lo) | u64::from(hi) << 32)
            }
            Opnd::Vreg { .. } => Err(bad(&o.span, "expected a VGPR pair")),
            _ => self.s64_of(o),
        }
    }

    /// Writes VGPR `r` of `lane`.
    pub fn vset(&mut self, r: u16, lane: usize, v: u32, span: &Span) -> Res<()> {
        self.w.check_v(r, span)?;
        match self
            .w
            .vgpr
            .get_mut(r as usize)
            .and_then(|x| x.get_mut(lane))
        {
            Some(x) => {
                *x = v;
                Ok(())
            }
            None => Err(bad(span, format!("no register v{r}"))),
        }
    }

    /// The first VGPR and count of operand `i`, which must be a VGPR range
    /// of `n` registers.
    pub fn vdst(&self, inst: &Inst, i: usize, n: u8) -> Res<u16> {
        let o = self.op(inst, i)?;
        match o.kind {
            Opnd::Vreg { first, n: m } if m == n => Ok(first),
            _ => Err(bad(
                &o.span,
                if n == 1 {
                    "expected a VGPR".to_string()
                } else {
                    format!("expected {n} VGPRs (`v[a:b]`)")
                },
            )),
        }
    }

    pub fn set_v32(&mut self, inst: &Inst, i: usize, lane: usize, v: u32) -> Res<()> {
        let r = self.vdst(inst, i, 1)?;
        self.vset(r, lane, v, &inst.ops[i].span)
    }

    pub fn set_v64(&mut self, inst: &Inst, i: usize, lane: usize, v: u64) -> Res<()> {
        let r = self.vdst(inst, i, 2)?;
        let span = inst.ops[i].span.clone();
        self.vset(r, lane, v as u32, &span)?;
        self.vset(r + 1, lane, (v >> 32) as u32, &span)
    }

    /// The active lanes.
    pub fn lanes(&self) -> Vec<usize> {
        self.w.active().collect()
    }

    /// Rejects modifiers other than `allowed`.
    pub fn only_mods(&self, inst: &Inst, allowed: &[&str]) -> Res<()> {
        match inst
            .mods
            .iter()
            .find(|m| !allowed.contains(&m.name.as_str()))
        {
            Some(m) => Err(unsupported(
                &m.span,
                format!("`{}` on `{}`", m.name, inst.mnemonic),
            )),
            None => Ok(()),
        }
    }

    /// Rejects `-`, `|x|` and (outside SDWA) `sext()` on every operand.
    pub fn plain_operands(&self, inst: &Inst) -> Res<()> {
        match inst
            .ops
            .iter()
            .find(|o| o.neg || o.abs || (o.sext && !inst.sdwa))
        {
            Some(o) => Err(unsupported(
                &o.span,
                format!("source modifiers on `{}`", inst.mnemonic),
            )),
            None => Ok(()),
        }
    }

    /// The instruction index a label names.
    pub fn label(&self, inst: &Inst, i: usize) -> Res<usize> {
        let o = self.op(inst, i)?;
        match &o.kind {
            Opnd::Label(l) => {
                self.prog
                    .labels
                    .get(l)
                    .copied()
                    .ok_or_else(|| SimError::UnknownLabel {
                        span: o.span.clone(),
                        label: l.clone(),
                    })
            }
            _ => Err(bad(&o.span, "expected a label")),
        }
    }

    /// Runs one instruction.
    pub fn step(&mut self, inst: &Inst) -> Res<Flow> {
        match inst.family {
            Family::Salu => salu::exec(self, inst),
            Family::Valu => valu::exec(self, inst).map(|()| Flow::Next),
            Family::Valu16 => sdwa::exec(self, inst).map(|()| Flow::Next),
            Family::Mem => mem::exec(self, inst).map(|()| Flow::Next),
        }
    }
}
