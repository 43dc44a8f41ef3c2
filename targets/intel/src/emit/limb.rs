//! Emission of the generic limb opcodes: carries and borrows through
//! `acc0` (`addc`/`subb`), 32x32 products through `mul acc0` + `mach`,
//! the 64-bit multiply-add, zero and sign extension in a register, and
//! `:f`/`:hf` arithmetic.
//!
//! Hardware facts served (PRM Vol 2a "addc", "subb", "mul", "mach"; Vol 7
//! "Accumulator Registers"): the accumulator holds 8 dword channels, so
//! these run in SIMD8 chunks (`(8|M0)`, `(8|M8)`); the carry or borrow
//! and the low half of a `mach` product are read back with `mov acc0`.

use regdesc_codegen::mir::instr::{FBinOp, FloatFmt};
use regdesc_codegen::mir::{LimbOp, MInst};
use regdesc_codegen::target::TargetError;

use super::carry::Cand;
use super::{unsupported, Chunk, Em, Loc};
use crate::isa::{Dst, Line, Op, RegName, Src, Ty};
use crate::target::Platform;

impl Em<'_> {
    /// The low 32 bits of `a * b` in chunk `c` (of the def's full width).
    ///
    /// Gen9 multiplies dword by dword (PRM Vol 2a "mul": the destination
    /// gets the low dword); Gen11 and Gen12LP do not, and take the product
    /// from two dword x word products (`mul`, `mul`, `shl`, `add`) or,
    /// where fewer instructions, from the accumulator (`mul acc0`,
    /// `mach null {AccWrEn}`, `mov`: 3 per SIMD8 chunk).
    pub(super) fn mul32(&mut self, c: Chunk, dl: Loc, al: Loc, bl: Loc) {
        let ud = Ty::Ud;
        let (a, b) = (Self::src(c, al, ud), Self::src(c, bl, ud));
        if self.gen.platform == Platform::Gen9 {
            self.alu(c, Op::Mul, dl, a, Some(b));
            return;
        }
        let chunks = self.acc_chunks(dl);
        if 3 * chunks.len() < 4 {
            for c in chunks {
                let a = Self::src(c, al, ud);
                self.push(
                    c,
                    Op::Mul,
                    Self::acc_dst(ud),
                    vec![a, Self::src_word(c, bl, false)],
                );
                let n = Dst {
                    reg: RegName::Null,
                    h: 1,
                    ty: ud,
                };
                self.push(c, Op::Mach, n, vec![a, Self::src(c, bl, ud)])
                    .acc_wr = true;
                self.alu(c, Op::Mov, dl, Self::acc_src(c), None);
            }
            return;
        }
        // dword x dword low half from two dword x word products.
        let t = self.tmp(0, matches!(dl, Loc::Lane(_)));
        self.alu(c, Op::Mul, t, a, Some(Self::src_word(c, bl, false)));
        self.alu(c, Op::Mul, dl, a, Some(Self::src_word(c, bl, true)));
        self.alu(
            c,
            Op::Shl,
            dl,
            Self::src(c, dl, ud),
            Some(Self::imm_src(16)),
        );
        self.alu(
            c,
            Op::Add,
            dl,
            Self::src(c, dl, ud),
            Some(Self::src(c, t, ud)),
        );
    }

    /// `d = muladd32 a, b, x` ([`crate::mul64::fuse_mul_add`], Gen11):
    /// `mul acc0`, `mach null {AccWrEn}`, `add d acc0 x` per SIMD8 chunk.
    pub(super) fn muladd32(&mut self, i: &MInst) -> Result<(), TargetError> {
        let ud = Ty::Ud;
        let (dl, al, bl, xl) = (
            self.loc(i, 0)?,
            self.loc(i, 1)?,
            self.loc(i, 2)?,
            self.loc(i, 3)?,
        );
        let n = Dst {
            reg: RegName::Null,
            h: 1,
            ty: ud,
        };
        for c in self.acc_chunks(dl) {
            let a = Self::src(c, al, ud);
            self.push(
                c,
                Op::Mul,
                Self::acc_dst(ud),
                vec![a, Self::src_word(c, bl, false)],
            );
            self.push(c, Op::Mach, n, vec![a, Self::src(c, bl, ud)])
                .acc_wr = true;
            self.alu(c, Op::Add, dl, Self::acc_src(c), Some(Self::src(c, xl, ud)));
        }
        Ok(())
    }

    /// `lo, hi = mul64 a, b` ([`crate::mul64`]): `mul acc0`, `mach hi`,
    /// `mov lo acc0` per SIMD8 chunk. The defs may share registers with
    /// the sources (each chunk reads its sources before writing); where a
    /// chunk's write would reach a source a later chunk reads (a uniform
    /// source inside a def's GRFs at SIMD16), the halves go through
    /// scratch and are moved into place last.
    pub(super) fn mul64(&mut self, i: &MInst) -> Result<(), TargetError> {
        let (lo, hi, al, bl) = (
            self.loc(i, 0)?,
            self.loc(i, 1)?,
            self.loc(i, 2)?,
            self.loc(i, 3)?,
        );
        let lane = matches!(lo, Loc::Lane(_));
        for direct in [true, false] {
            let (l, h) = if direct {
                (lo, hi)
            } else {
                (self.tmp(0, lane), self.tmp(1, lane))
            };
            let mut cand = Cand {
                insts: Vec::new(),
                orig: Vec::new(),
            };
            for c in self.acc_chunks(lo) {
                let (a, b) = (Self::src(c, al, Ty::Ud), Self::src(c, bl, Ty::Ud));
                let bw = Self::src_word(c, bl, false);
                self.step(
                    &mut cand,
                    c,
                    Op::Mul,
                    Self::acc_dst(Ty::Ud),
                    vec![a, bw],
                    &[a, bw],
                );
                self.step(
                    &mut cand,
                    c,
                    Op::Mach,
                    Self::dst(c, h, Ty::Ud),
                    vec![a, b],
                    &[a, b],
                );
                if let Some(m) = Self::last(&mut cand) {
                    m.acc_wr = true;
                }
                let acc = Self::acc_src(c);
                self.step(
                    &mut cand,
                    c,
                    Op::Mov,
                    Self::dst(c, l, Ty::Ud),
                    vec![acc],
                    &[],
                );
            }
            if !direct {
                for c in self.full(lo) {
                    for (d, t) in [(lo, l), (hi, h)] {
                        let st = Self::src(c, t, Ty::Ud);
                        self.step(
                            &mut cand,
                            c,
                            Op::Mov,
                            Self::dst(c, d, Ty::Ud),
                            vec![st],
                            &[],
                        );
                    }
                }
            }
            if cand.valid() || !direct {
                self.out.extend(cand.insts.into_iter().map(Line::Inst));
                break;
            }
        }
        Ok(())
    }

    pub(super) fn limb(&mut self, i: &MInst, l: LimbOp) -> Result<(), TargetError> {
        let ud = Ty::Ud;
        match l {
            LimbOp::UAddE => self.addc_cin(i),
            LimbOp::UAddO | LimbOp::USubO | LimbOp::USubE => {
                let (dl, cl, al, bl) = (
                    self.loc(i, 0)?,
                    self.loc(i, 1)?,
                    self.loc(i, 2)?,
                    self.loc(i, 3)?,
                );
                let op = if matches!(l, LimbOp::UAddO | LimbOp::UAddE) {
                    Op::Addc
                } else {
                    Op::Subb
                };
                let cin = match l {
                    LimbOp::UAddE | LimbOp::USubE => Some(self.loc(i, 4)?),
                    _ => None,
                };
                let lane = matches!(dl, Loc::Lane(_));
                for c in self.acc_chunks(dl) {
                    self.alu(c, op, dl, Self::src(c, al, ud), Some(Self::src(c, bl, ud)))
                        .acc_wr = true;
                    self.alu(c, Op::Mov, cl, Self::acc_src(c), None);
                    if let Some(inl) = cin {
                        let t = self.tmp(0, lane);
                        self.alu(c, op, dl, Self::src(c, dl, ud), Some(Self::src(c, inl, ud)))
                            .acc_wr = true;
                        self.alu(c, Op::Mov, t, Self::acc_src(c), None);
                        self.alu(
                            c,
                            Op::Or,
                            cl,
                            Self::src(c, cl, ud),
                            Some(Self::src(c, t, ud)),
                        );
                    }
                }
                Ok(())
            }
            LimbOp::UMulH | LimbOp::SMulH => {
                let (dl, al, bl) = (self.loc(i, 0)?, self.loc(i, 1)?, self.loc(i, 2)?);
                let ty = if l == LimbOp::SMulH { Ty::D } else { Ty::Ud };
                for c in self.acc_chunks(dl) {
                    self.push(
                        c,
                        Op::Mul,
                        Self::acc_dst(ty),
                        vec![Self::src(c, al, ty), Self::src_word(c, bl, false)],
                    );
                    self.push(
                        c,
                        Op::Mach,
                        Self::dst(c, dl, ty),
                        vec![Self::src(c, al, ty), Self::src(c, bl, ty)],
                    )
                    .acc_wr = true;
                }
                Ok(())
            }
            LimbOp::Mad64 => {
                let (lo, hi, al, bl, clo, chi) = (
                    self.loc(i, 0)?,
                    self.loc(i, 1)?,
                    self.loc(i, 2)?,
                    self.loc(i, 3)?,
                    self.loc(i, 4)?,
                    self.loc(i, 5)?,
                );
                let t = self.tmp(0, matches!(lo, Loc::Lane(_)));
                for c in self.acc_chunks(lo) {
                    self.push(
                        c,
                        Op::Mul,
                        Self::acc_dst(ud),
                        vec![Self::src(c, al, ud), Self::src_word(c, bl, false)],
                    );
                    self.alu(
                        c,
                        Op::Mach,
                        hi,
                        Self::src(c, al, ud),
                        Some(Self::src(c, bl, ud)),
                    )
                    .acc_wr = true;
                    self.alu(c, Op::Mov, lo, Self::acc_src(c), None);
                    self.alu(
                        c,
                        Op::Addc,
                        lo,
                        Self::src(c, lo, ud),
                        Some(Self::src(c, clo, ud)),
                    )
                    .acc_wr = true;
                    self.alu(c, Op::Mov, t, Self::acc_src(c), None);
                    self.alu(
                        c,
                        Op::Add,
                        hi,
                        Self::src(c, hi, ud),
                        Some(Self::src(c, chi, ud)),
                    );
                    self.alu(
                        c,
                        Op::Add,
                        hi,
                        Self::src(c, hi, ud),
                        Some(Self::src(c, t, ud)),
                    );
                }
                Ok(())
            }
            LimbOp::Float(op, fmt) => {
                let (dl, al, bl) = (self.loc(i, 0)?, self.loc(i, 1)?, self.loc(i, 2)?);
                let gop = if op == FBinOp::FMul { Op::Mul } else { Op::Add };
                let neg = op == FBinOp::FSub;
                let lane = matches!(dl, Loc::Lane(_));
                for c in self.full(dl) {
                    let negate = |s: Src| s.negated(neg);
                    if fmt == FloatFmt::F32 {
                        let (a, b) = (Self::src(c, al, Ty::F), Self::src(c, bl, Ty::F));
                        self.push(c, gop, Self::dst(c, dl, Ty::F), vec![a, negate(b)]);
                        continue;
                    }
                    let (t0, t1, t2) = (self.tmp(0, lane), self.tmp(1, lane), self.tmp(2, lane));
                    let f = Ty::F;
                    self.push(c, Op::Mov, Self::dst(c, t0, f), vec![Self::src_half(c, al)]);
                    self.push(c, Op::Mov, Self::dst(c, t1, f), vec![Self::src_half(c, bl)]);
                    let (a, b) = (Self::src(c, t0, f), Self::src(c, t1, f));
                    self.push(c, gop, Self::dst(c, t0, f), vec![a, negate(b)]);
                    let mut h = Self::dst(c, t2, Ty::Hf);
                    h.h = 2;
                    self.push(c, Op::Mov, h, vec![Self::src(c, t0, f)]);
                    self.alu(
                        c,
                        Op::And,
                        dl,
                        Self::src(c, t2, ud),
                        Some(Self::imm_src(0xFFFF)),
                    );
                }
                Ok(())
            }
            LimbOp::ZextInReg | LimbOp::SextInReg => {
                let (dl, al) = (self.loc(i, 0)?, self.loc(i, 1)?);
                let w = self.imm(i, 2)?.min(32);
                for c in self.full(dl) {
                    let a = Self::src(c, al, ud);
                    if w >= 32 {
                        self.alu(c, Op::Mov, dl, a, None);
                    } else if l == LimbOp::ZextInReg {
                        let mask = if w == 0 { 0 } else { u32::MAX >> (32 - w) };
                        self.alu(c, Op::And, dl, a, Some(Self::imm_src(mask)));
                    } else if w == 0 {
                        self.alu(c, Op::Mov, dl, Self::imm_src(0), None);
                    } else {
                        self.alu(c, Op::Shl, dl, a, Some(Self::imm_src(32 - w)));
                        self.push(
                            c,
                            Op::Asr,
                            Self::dst(c, dl, Ty::D),
                            vec![Self::src(c, dl, Ty::D), Self::imm_src(32 - w)],
                        );
                    }
                }
                Ok(())
            }
            _ => Err(unsupported(
                self.f,
                format!("`{}` has no Gen emission", self.name(i)),
            )),
        }
    }
}
