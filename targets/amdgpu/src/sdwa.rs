//! SDWA (sub-dword addressing): the operand selectors of the `VOP_SDWA`
//! encoding, which instructions have it on which chip, and what an SDWA
//! instruction computes. The back end's peephole
//! ([`crate::sdwa_peephole`]), its interpreter semantics
//! ([`crate::semantics`]) and its emission ([`crate::emit`]) share these
//! facts.
//!
//! The hardware facts served (the `VOP_SDWA` microcode format of the Vega
//! (gfx9) and RDNA2 (gfx1030) ISA guides):
//! - a VOP1 or VOP2 instruction in SDWA form reads each source through a
//!   selector (`src0_sel`, `src1_sel`): a byte (`BYTE_0`..`BYTE_3`), a
//!   word (`WORD_0`, `WORD_1`) or the whole `DWORD`, zero-extended, or
//!   sign-extended when the source is written `sext(v1)` (integer
//!   operations only);
//! - it writes the low bits of its result into the field `dst_sel` names;
//!   `dst_unused` says what the rest of the register becomes: zeros
//!   (`UNUSED_PAD`), the field's sign above it and zeros below
//!   (`UNUSED_SEXT`), or the register's previous bits
//!   (`UNUSED_PRESERVE`, a read of the destination);
//! - the SDWA operands are VGPRs, SGPRs or inline constants (gfx9 and
//!   gfx10), never a literal, within the constant-bus limit;
//! - gfx9 has SDWA forms of the 16-bit integer VOP2 operations
//!   (`v_add_u16`, `v_mul_lo_u16`, `v_lshlrev_b16`, ...); gfx10 made
//!   those VOP3-only (`v_add_nc_u16`), so they have none there. The
//!   half-precision VOP2 operations (`v_add_f16`, ...), the 32-bit ones
//!   and `v_mov_b32` have SDWA forms on both (llvm-mc 14 accepts each form
//!   this module names on its chips: `tests/assemble.rs`).
//!
//! In machine IR an SDWA instruction's explicit operands are the def, the
//! sources, then four (VOP2) or three (VOP1) immediates: `dst_sel`,
//! `dst_unused`, `src0_sel`(, `src1_sel`), each the field's hardware
//! encoding ([`Sel::encoding`], [`Unused`]), a source selector with
//! [`SEXT`] added when sign-extended. An `UNUSED_PRESERVE` instruction
//! has one more, implicit, use: the value whose bits outside the field it
//! keeps, tied to the def (after [`crate::sdwa_preserve_merge`] and
//! two-address lowering it names the def's own register).

use regdesc_codegen::interp::ops::fbin;
use regdesc_codegen::ir::Type;
use regdesc_codegen::mir::instr::{BinOp, FBinOp};
use regdesc_codegen::mir::{MInst, Operand};
use regdesc_codegen::value::Value;

use crate::Gfx;

/// A part of a dword that an SDWA operand selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sel {
    Byte0,
    Byte1,
    Byte2,
    Byte3,
    Word0,
    Word1,
    Dword,
}

/// Added to a source selector's encoding: the source is sign-extended.
pub const SEXT: i64 = 8;

impl Sel {
    pub const ALL: [Sel; 7] = [
        Sel::Byte0,
        Sel::Byte1,
        Sel::Byte2,
        Sel::Byte3,
        Sel::Word0,
        Sel::Word1,
        Sel::Dword,
    ];

    /// The `SDWA_SEL` field value (0..6).
    pub fn encoding(self) -> i64 {
        self as i64
    }

    pub fn from_encoding(x: i64) -> Option<Sel> {
        Sel::ALL.into_iter().find(|s| s.encoding() == x)
    }

    /// The first bit of the field.
    pub fn offset(self) -> u32 {
        match self {
            Sel::Byte0 | Sel::Word0 | Sel::Dword => 0,
            Sel::Byte1 => 8,
            Sel::Byte2 | Sel::Word1 => 16,
            Sel::Byte3 => 24,
        }
    }

    /// The field's width in bits.
    pub fn width(self) -> u32 {
        match self {
            Sel::Byte0 | Sel::Byte1 | Sel::Byte2 | Sel::Byte3 => 8,
            Sel::Word0 | Sel::Word1 => 16,
            Sel::Dword => 32,
        }
    }

    /// The field's bits in the dword.
    pub fn bits(self) -> u32 {
        mask(self.width()) << self.offset()
    }

    /// The selector of the field `[offset, offset + width)`.
    pub fn of_field(offset: u32, width: u32) -> Option<Sel> {
        Sel::ALL
            .into_iter()
            .find(|s| s.offset() == offset && s.width() == width)
    }

    /// The assembler's name (`WORD_1`).
    pub fn name(self) -> &'static str {
        match self {
            Sel::Byte0 => "BYTE_0",
            Sel::Byte1 => "BYTE_1",
            Sel::Byte2 => "BYTE_2",
            Sel::Byte3 => "BYTE_3",
            Sel::Word0 => "WORD_0",
            Sel::Word1 => "WORD_1",
            Sel::Dword => "DWORD",
        }
    }

    /// The field of `x`, zero- or sign-extended.
    pub fn read(self, x: u32, sext: bool) -> u32 {
        let (o, w) = (self.offset(), self.width());
        let v = (x >> o) & mask(w);
        if sext && w < 32 && (v >> (w - 1)) & 1 == 1 {
            v | !mask(w)
        } else {
            v
        }
    }
}

/// The low `w` bits.
pub fn mask(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1u32 << w) - 1
    }
}

/// What the bits of the destination outside `dst_sel` become.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unused {
    Pad,
    Sext,
    Preserve,
}

impl Unused {
    /// The `DST_UNUSED` field value.
    pub fn encoding(self) -> i64 {
        match self {
            Unused::Pad => 0,
            Unused::Sext => 1,
            Unused::Preserve => 2,
        }
    }

    pub fn from_encoding(x: i64) -> Option<Unused> {
        [Unused::Pad, Unused::Sext, Unused::Preserve]
            .into_iter()
            .find(|u| u.encoding() == x)
    }

    pub fn name(self) -> &'static str {
        match self {
            Unused::Pad => "UNUSED_PAD",
            Unused::Sext => "UNUSED_SEXT",
            Unused::Preserve => "UNUSED_PRESERVE",
        }
    }
}

/// `r`'s low bits placed in `sel`'s field of a dword whose other bits
/// `unused` chooses (`old`: the destination's previous value).
pub fn place(r: u32, sel: Sel, unused: Unused, old: u32) -> u32 {
    let (o, w) = (sel.offset(), sel.width());
    let field = r & mask(w);
    let placed = field << o;
    match unused {
        Unused::Pad => placed,
        Unused::Preserve => (old & !sel.bits()) | placed,
        Unused::Sext => {
            if w < 32 && (field >> (w - 1)) & 1 == 1 {
                placed | !(sel.bits() | mask(o))
            } else {
                placed
            }
        }
    }
}

/// The operation an SDWA instruction performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SdwaOp {
    /// A 32-bit VOP2 operation: `Add`, `Sub`, `And`, `Or`, `Xor`, and the
    /// reversed shifts (`Shl` is `v_lshlrev_b32`: the amount is src0).
    Int32(BinOp),
    /// A 16-bit integer VOP2 operation (gfx9): `Add`, `Sub`, `Mul`
    /// (`v_mul_lo_u16`), and the reversed 16-bit shifts.
    Int16(BinOp),
    /// A half-precision VOP2 operation.
    F16(FBinOp),
    /// `v_mul_i32_i24` (VOP2): the sources' low 24 bits as signed
    /// numbers multiplied, the product's low 32 bits.
    MulI24,
    /// `v_mul_hi_i32_i24` (VOP2): the high 32 bits of that product.
    MulHiI24,
    /// `v_mov_b32` (VOP1).
    Mov,
}

/// `v_mul_i32_i24`: the low 32 bits of the product of the low 24 bits of
/// `a` and `b` as signed numbers.
pub fn mul_i24(a: u32, b: u32) -> u32 {
    let s24 = |x: u32| ((x << 8) as i32) >> 8;
    s24(a).wrapping_mul(s24(b)) as u32
}

/// `v_mul_hi_i32_i24`: the high 32 bits of the 48-bit product of the low
/// 24 bits of `a` and `b` as signed numbers.
pub fn mul_hi_i24(a: u32, b: u32) -> u32 {
    let s24 = |x: u32| i64::from(((x << 8) as i32) >> 8);
    ((s24(a) * s24(b)) >> 32) as u32
}

impl SdwaOp {
    /// Every operation this module knows (the chip decides which exist).
    pub fn all() -> Vec<SdwaOp> {
        let mut v = Vec::new();
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
            BinOp::Shl,
            BinOp::LShr,
            BinOp::AShr,
        ] {
            v.push(SdwaOp::Int32(op));
        }
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Shl,
            BinOp::LShr,
            BinOp::AShr,
        ] {
            v.push(SdwaOp::Int16(op));
        }
        for op in [FBinOp::FAdd, FBinOp::FSub, FBinOp::FMul] {
            v.push(SdwaOp::F16(op));
        }
        v.push(SdwaOp::MulI24);
        v.push(SdwaOp::MulHiI24);
        v.push(SdwaOp::Mov);
        v
    }

    /// The mnemonic without `_sdwa` on `gfx`, or `None` when `gfx` has no
    /// SDWA form of it.
    pub fn mnemonic(self, gfx: Gfx) -> Option<String> {
        let gfx10 = gfx.is_gfx10();
        Some(match self {
            SdwaOp::Int32(op) => match op {
                BinOp::Add if gfx10 => "v_add_nc_u32".into(),
                BinOp::Add => "v_add_u32".into(),
                BinOp::Sub if gfx10 => "v_sub_nc_u32".into(),
                BinOp::Sub => "v_sub_u32".into(),
                BinOp::And => "v_and_b32".into(),
                BinOp::Or => "v_or_b32".into(),
                BinOp::Xor => "v_xor_b32".into(),
                BinOp::Shl => "v_lshlrev_b32".into(),
                BinOp::LShr => "v_lshrrev_b32".into(),
                BinOp::AShr => "v_ashrrev_i32".into(),
                BinOp::Mul => return None,
            },
            SdwaOp::Int16(_) if gfx10 => return None,
            SdwaOp::Int16(op) => match op {
                BinOp::Add => "v_add_u16".into(),
                BinOp::Sub => "v_sub_u16".into(),
                BinOp::Mul => "v_mul_lo_u16".into(),
                BinOp::Shl => "v_lshlrev_b16".into(),
                BinOp::LShr => "v_lshrrev_b16".into(),
                BinOp::AShr => "v_ashrrev_i16".into(),
                _ => return None,
            },
            SdwaOp::F16(op) => format!("v_{}_f16", op.name().trim_start_matches('f')),
            SdwaOp::MulI24 => "v_mul_i32_i24".into(),
            SdwaOp::MulHiI24 => "v_mul_hi_i32_i24".into(),
            SdwaOp::Mov => "v_mov_b32".into(),
        })
    }

    /// The machine-IR opcode name (the same on every chip): gfx9's
    /// mnemonic, upper case, with `_sdwa`.
    pub fn mir_name(self) -> String {
        let base = self
            .mnemonic(Gfx::Gfx900)
            .unwrap_or_else(|| format!("v_{self:?}"));
        format!("{}_sdwa", base.to_uppercase())
    }

    /// Sources: 1 (VOP1) or 2 (VOP2).
    pub fn num_srcs(self) -> usize {
        if self == SdwaOp::Mov {
            1
        } else {
            2
        }
    }

    /// Bits of the result that the operation computes (the rest is 0).
    pub fn result_width(self) -> u32 {
        match self {
            SdwaOp::Int16(_) | SdwaOp::F16(_) => 16,
            _ => 32,
        }
    }

    /// Whether `sext(...)` applies to its sources (integer operations).
    pub fn takes_sext(self) -> bool {
        !matches!(self, SdwaOp::F16(_))
    }

    /// The operation on the selected sources.
    pub fn compute(self, a: u32, b: u32) -> u32 {
        match self {
            SdwaOp::Mov => a,
            SdwaOp::MulI24 => mul_i24(a, b),
            SdwaOp::MulHiI24 => mul_hi_i24(a, b),
            SdwaOp::Int32(op) => match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::And => a & b,
                BinOp::Or => a | b,
                BinOp::Xor => a ^ b,
                BinOp::Shl => b << (a & 31),
                BinOp::LShr => b >> (a & 31),
                BinOp::AShr => ((b as i32) >> (a & 31)) as u32,
            },
            SdwaOp::Int16(op) => {
                let (x, y) = (a as u16, b as u16);
                u32::from(match op {
                    BinOp::Add => x.wrapping_add(y),
                    BinOp::Sub => x.wrapping_sub(y),
                    BinOp::Mul => x.wrapping_mul(y),
                    BinOp::Shl => y << (x & 15),
                    BinOp::LShr => y >> (x & 15),
                    BinOp::AShr => ((y as i16) >> (x & 15)) as u16,
                    BinOp::And => x & y,
                    BinOp::Or => x | y,
                    BinOp::Xor => x ^ y,
                })
            }
            SdwaOp::F16(op) => {
                let half = |v: u32| {
                    Value::from_bits(
                        Type::Half,
                        regdesc_codegen::value::IntBits::from(v & 0xffff),
                    )
                };
                match (half(a), half(b)) {
                    (Some(x), Some(y)) => fbin(op, Default::default(), &x, &y)
                        .map(|r| r.to_bits().as_limbs()[0] as u32 & 0xffff)
                        .unwrap_or(0),
                    _ => 0,
                }
            }
        }
    }
}

/// A source selector operand's value.
pub fn src_sel_imm(sel: Sel, sext: bool) -> i64 {
    sel.encoding() + if sext { SEXT } else { 0 }
}

/// A source selector operand: the field and whether it is sign-extended.
pub fn decode_src_sel(x: i64) -> Option<(Sel, bool)> {
    Some((Sel::from_encoding(x & 7)?, x & SEXT != 0))
}

/// The SDWA operands of an instruction of `op`, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields {
    pub dst_sel: Sel,
    pub unused: Unused,
    /// Per source: its selector and whether it is sign-extended.
    pub src: Vec<(Sel, bool)>,
    /// Operand index of the preserved value (an implicit use tied to the
    /// def), when `unused` is `UNUSED_PRESERVE`.
    pub preserved: Option<usize>,
}

/// Index of `dst_sel` among `op`'s explicit operands (after the def and
/// the sources).
pub fn dst_sel_index(op: SdwaOp) -> usize {
    1 + op.num_srcs()
}

/// Reads the SDWA immediates of `i`, an instruction of `op`.
pub fn fields(op: SdwaOp, i: &MInst) -> Option<Fields> {
    let imm = |k: usize| match i.ops.get(k) {
        Some(Operand::Imm(x)) => Some(*x),
        _ => None,
    };
    let k = dst_sel_index(op);
    let dst_sel = Sel::from_encoding(imm(k)?)?;
    let unused = Unused::from_encoding(imm(k + 1)?)?;
    let mut src = Vec::new();
    for s in 0..op.num_srcs() {
        src.push(decode_src_sel(imm(k + 2 + s)?)?);
    }
    let preserved = i.ops.iter().position(|o| {
        o.reg()
            .is_some_and(|r| r.implicit() && !r.is_def() && r.tied_def() == Some(0))
    });
    Some(Fields {
        dst_sel,
        unused,
        src,
        preserved,
    })
}

/// The SDWA immediates, in operand order.
pub fn field_operands(dst_sel: Sel, unused: Unused, src: &[(Sel, bool)]) -> Vec<Operand> {
    let mut v = vec![
        Operand::Imm(dst_sel.encoding()),
        Operand::Imm(unused.encoding()),
    ];
    v.extend(src.iter().map(|&(s, x)| Operand::Imm(src_sel_imm(s, x))));
    v
}

/// The assembly of an SDWA instruction of `op` on `gfx`, from its
/// operands' text (`regs[0]` the def, then the sources).
pub fn asm(op: SdwaOp, gfx: Gfx, regs: &[String], f: &Fields) -> Option<String> {
    let name = op.mnemonic(gfx)?;
    let mut s = format!("{name}_sdwa {}", regs.first()?);
    for (k, &(_, sext)) in f.src.iter().enumerate() {
        let r = regs.get(k + 1)?;
        if sext {
            s.push_str(&format!(", sext({r})"));
        } else {
            s.push_str(&format!(", {r}"));
        }
    }
    s.push_str(&format!(
        " dst_sel:{} dst_unused:{}",
        f.dst_sel.name(),
        f.unused.name()
    ));
    for (k, (sel, _)) in f.src.iter().enumerate() {
        s.push_str(&format!(" src{k}_sel:{}", sel.name()));
    }
    Some(s)
}

/// What an SDWA instruction writes, from its sources' raw values and the
/// destination's previous value (read only under `UNUSED_PRESERVE`).
pub fn eval(op: SdwaOp, f: &Fields, srcs: &[u32], old: u32) -> u32 {
    let sel = |k: usize| {
        let (s, x) = f.src.get(k).copied().unwrap_or((Sel::Dword, false));
        s.read(srcs.get(k).copied().unwrap_or(0), x)
    };
    let r = op.compute(sel(0), sel(1));
    place(r, f.dst_sel, f.unused, old)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_and_placement() {
        assert_eq!(Sel::Word1.read(0x8001_1234, false), 0x8001);
        assert_eq!(Sel::Word1.read(0x8001_1234, true), 0xffff_8001);
        assert_eq!(Sel::Byte1.read(0x0000_8000, true), 0xffff_ff80);
        assert_eq!(Sel::of_field(8, 8), Some(Sel::Byte1));
        assert_eq!(place(0x1ab, Sel::Byte1, Unused::Pad, 0xffff_ffff), 0xab00);
        assert_eq!(
            place(0x1ab, Sel::Byte1, Unused::Preserve, 0x1234_5678),
            0x1234_ab78
        );
        // The field's sign above it, zeros below.
        assert_eq!(
            place(0x80, Sel::Byte1, Unused::Sext, 0x1234_5678),
            0xffff_8000
        );
        assert_eq!(place(0x7f, Sel::Word0, Unused::Sext, 0xffff_ffff), 0x7f);
    }

    #[test]
    fn chips_have_their_forms() {
        assert_eq!(
            SdwaOp::Int16(BinOp::Mul).mnemonic(Gfx::Gfx900).as_deref(),
            Some("v_mul_lo_u16")
        );
        assert_eq!(SdwaOp::Int16(BinOp::Mul).mnemonic(Gfx::Gfx1030), None);
        assert_eq!(
            SdwaOp::F16(FBinOp::FAdd).mnemonic(Gfx::Gfx1030).as_deref(),
            Some("v_add_f16")
        );
        assert_eq!(
            SdwaOp::Int32(BinOp::Add).mnemonic(Gfx::Gfx1030).as_deref(),
            Some("v_add_nc_u32")
        );
    }
}
