//! The GCN instructions the back end selects, as [`InstrDesc`]s with an
//! assembly template and a meaning ([`Kind`]) the machine interpreter runs
//! ([`crate::semantics`]).
//!
//! The hardware facts served:
//! - GCN has two ALUs. The scalar ALU (`s_*`) computes one value per wave
//!   in SGPRs and reports carries and comparisons in `SCC`; the vector ALU
//!   (`v_*`) computes one value per lane in VGPRs, under `EXEC`, and
//!   reports carries and comparisons as a lane mask (64 bits on wave64
//!   gfx9, 32 bits on wave32 gfx10) in an SGPR pair or an SGPR.
//! - The VOP3 (`_e64`) encodings name the carry-out and the mask of
//!   `v_add_co_u32`, `v_cndmask_b32`, `v_cmp_*` explicitly, so any SGPR
//!   (pair) can hold them, not only `VCC`.
//! - gfx10 renamed the carry-in adds (`v_addc_co_u32` became
//!   `v_add_co_ci_u32`) and the carry-less add (`v_add_u32` became
//!   `v_add_nc_u32`); the shifts by a VGPR amount take the amount first
//!   (`v_lshlrev_b32 d, amount, value`).
//!
//! An instruction's explicit operands are kept in assembly order, so the
//! template's `{k}` is explicit operand `k`.

/// Whether `x` is one of GCN's inline integer constants (-16..=64): an
/// operand encoded in the instruction itself, with no literal dword and
/// no constant-bus read.
pub fn is_inline_int(x: i64) -> bool {
    (-16..=64).contains(&x)
}

use regdesc_codegen::mir::instr::{BinOp, FBinOp, FloatFmt, InstrDesc, IntPredicate, OpKind};
use regdesc_codegen::mir::{InstrSet, Opcode, Sem};
use regdesc_runtime::Reg;

use crate::sdwa::SdwaOp;
use crate::Gfx;

/// What an instruction does (for [`crate::semantics`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `s_mov_b32`/`s_mov_b64 d, s` (register or immediate).
    SMov,
    /// `v_pk_mov_b32 d, s, s op_sel:[0,1]`: a 64-bit register pair per lane.
    VMov64,
    /// A scalar ALU op. `SCC`: the carry (`s_add_u32`), the borrow
    /// (`s_sub_u32`), nothing (`s_mul_i32`), else whether `d` is not zero.
    SBin(BinOp),
    /// `s_lshl_b64`/`s_lshr_b64`/`s_ashr_i64 d64, s64, amount`: a shift of
    /// an SGPR pair by the amount's low 6 bits; `SCC` = result not zero.
    SShift64(BinOp),
    /// `G_AMD_SHL64`/`G_AMD_LSHR64`/`G_AMD_ASHR64 lo, hi, xlo, xhi, k`: a
    /// 64-bit shift by the constant `k` on 32-bit halves before selection
    /// ([`crate::shift64`], [`crate::lane_shift`]), `SShift64` or
    /// `VShift64` after.
    GShift64(BinOp),
    /// `s_addc_u32`/`s_subb_u32 d, a, b`: with `SCC` in and out.
    SCarry { sub: bool },
    /// `s_mul_hi_u32`/`s_mul_hi_i32`.
    SMulHi { signed: bool },
    /// `s_bfe_u32`/`s_bfe_i32 d, a, (width << 16) | offset`.
    SBfe { signed: bool },
    /// `s_cselect_b32 d, a, b`: `SCC ? a : b`.
    SCselect,
    /// `s_cmp_* a, b`: `SCC` = the predicate.
    SCmp(IntPredicate),
    /// `v_readfirstlane_b32 s, v`: the first active lane's value.
    VReadFirstLane,
    /// `v_mov_b32 d, s` per lane.
    VMov,
    /// A vector ALU op per lane, sources in order.
    VBin(BinOp),
    /// `v_add3_u32 d, a, b, c`.
    VAdd3,
    /// `v_alignbit_b32 d, hi, lo, k`: `(hi:lo) >> k` truncated to 32 bits
    /// (a funnel shift; [`crate::lane_shift`]).
    VAlignBit,
    /// `v_lshl_add_u32 d, a, k, c`: `(a << k) + c` ([`crate::combine`]).
    VLshlAdd,
    /// `v_lshlrev_b32 d, amount, value` and the other reversed shifts.
    VBinRev(BinOp),
    /// `v_lshlrev_b64`/`v_lshrrev_b64`/`v_ashrrev_i64 d64, amount, s64`:
    /// a VGPR pair per lane shifted by the amount's low 6 bits.
    VShift64(BinOp),
    /// `v_add_co_u32`/`v_sub_co_u32 d, mask, a, b`: carry/borrow mask out.
    VCarryOut { sub: bool },
    /// `v_addc_co_u32 d, mask, a, b, mask_in` (and the borrow form).
    VCarryInOut { sub: bool },
    /// `v_mul_hi_u32`/`v_mul_hi_i32`.
    VMulHi { signed: bool },
    /// `v_mul_i32_i24 d, a, b`: the low 32 bits of the product of the
    /// sources' low 24 bits as signed numbers.
    VMulI24,
    /// `v_mul_hi_i32_i24 d, a, b`: the high 32 bits of the 48-bit product
    /// of the sources' low 24 bits as signed numbers (sign-extended).
    VMulHiI24,
    /// `v_mad_u64_u32 d64, mask, a, b, c64`: the mask is the carry out of
    /// bit 63. `v_mad_i64_i32` (`signed`) multiplies the factors as `i32`
    /// and adds the accumulator as `i64`; its mask is bit 64 of the exact
    /// 65-bit sum (the sum's sign).
    VMad64 { signed: bool },
    /// `G_AMD_MAD64_CO lo, hi, carry, a, b, clo, chi`: the multiply
    /// cascade's MAD before selection ([`crate::legalize_wide_mul`]), on
    /// 32-bit values; `carry` is 0 or 1.
    GMad64Co,
    /// `G_AMD_MAD_I64_I32 lo, hi, a, b, clo, chi`: `sext(a) * sext(b) +
    /// (chi:clo)` on 64 bits ([`crate::legalize_wide_mul`]'s signed
    /// factors), `V_MAD_I64_I32` or `S_MUL_I32` + `S_MUL_HI_I32` after
    /// selection.
    GMadI64,
    /// `v_bfe_u32`/`v_bfe_i32 d, a, offset, width`.
    VBfe { signed: bool },
    /// `v_cndmask_b32 d, f, t, mask`: `mask[lane] ? t : f`.
    VCndmask,
    /// `v_cmp_* mask, a, b`: each active lane's bit, inactive lanes 0.
    VCmp(IntPredicate),
    /// A float op; on gfx10 a 16-bit result leaves the high half of the
    /// register as it was (modelled as garbage).
    VFloat(FBinOp, FloatFmt),
    /// `s_and_b64`/`s_or_b64`/`s_xor_b64`/`s_andn2_b64` (or `_b32` on wave32)
    /// on lane masks; `SCC` = result not zero.
    SMask(MaskOp),
    /// `s_mov_b64 d, exec`.
    GetExec,
    /// `s_mov_b64 exec, s`.
    SetExec,
    /// `s_mov_b64 d, 0`.
    ZeroMask,
    /// `s_cselect_b64 d, s, 0`: `SCC ? s : 0`.
    SCselectMask,
    /// `s_cmp_lg_u64 s, 0`: `SCC` = the mask is not empty.
    MaskNonZero,
    /// `SI_BRCOND mask, T, F`: a divergent branch before control flow is
    /// lowered: to T when every active lane's bit is set, to F when none
    /// is (anything else is an error: the code needs EXEC masking).
    SiBrcond,
    /// `s_cbranch_scc1/scc0 T` (then `s_branch F`).
    SCbranchScc { on: bool },
    /// `s_cbranch_execz T` (then `s_branch F`).
    SCbranchExecz,
    /// `global_load_* d, v[lo:hi], off offset:K` (bytes, zero-extended).
    GlobalLoad(u32),
    /// `global_store_* v[lo:hi], v, off offset:K`.
    GlobalStore(u32),
    /// `global_store_dwordx{2,4} v[lo:hi], v[..], off offset:K`: that many
    /// dwords of a VGPR tuple.
    GlobalStoreWide(u8),
    /// `global_store_dwordx{2,4} voff, v[..], s[lo:hi] offset:K`: the
    /// address is the SGPR pair plus the VGPR's 32-bit offset (the `saddr`
    /// form, for a uniform address).
    GlobalStoreSaddr(u8),
    /// `global_load_dwordx{2,3,4} v[..], v[lo:hi], off offset:K`: that many
    /// dwords into a VGPR tuple.
    GlobalLoadWide(u8),
    /// `global_load_dword{,x2,x3,x4} v[..], voff, s[lo:hi] offset:K`: that
    /// many dwords from the SGPR pair plus the VGPR's 32-bit offset.
    GlobalLoadSaddr(u8),
    /// `global_load_ubyte/ushort v, voff, s[lo:hi] offset:K`: that many
    /// bytes, zero-extended, from the SGPR pair plus the VGPR's offset.
    GlobalLoadSaddrNarrow(u32),
    /// `global_store_byte/short voff, v, s[lo:hi] offset:K`: the low bytes
    /// of `v` to the SGPR pair plus the VGPR's offset.
    GlobalStoreSaddrNarrow(u32),
    /// `s_waitcnt`: nothing to the interpreter.
    Wait,
    /// `s_load_dword d, s[4:5], offset`: the kernarg dword holding the
    /// argument byte `offset` (the operand is the argument's offset, the
    /// assembly its dword's). The interpreter reads the word from the
    /// register the calling convention names (an implicit use), shifted to
    /// the offset's byte in the dword.
    KernargLoad,
    /// `s_load_dwordx{2,4,8} d, s[4:5], offset`: that many consecutive
    /// kernarg dwords from a dword-aligned offset; the interpreter reads
    /// them from the registers of the implicit uses, in order.
    KernargLoadWide(u8),
    /// `s_load_dword{,x2,x4,x8,x16} s[..], s[lo:hi], offset`: that many
    /// dwords of global memory at the SGPR pair plus the offset, into
    /// scalar registers, through the scalar cache (a uniform load no
    /// store of the kernel can have written first, see
    /// [`crate::select`]).
    ScalarLoad(u8),
    /// `v_writelane_b32 v, s, N`: lane N of `v` (whatever `EXEC` is).
    WriteLane,
    /// `v_readlane_b32 s, v, N`.
    ReadLane,
    /// `v_mov_b32 d, v0`: the work-item id the hardware puts in `v0`.
    WorkitemId,
    /// `s_mov_b32 d, s6`: the work-group id the hardware puts in `s6`.
    WorkgroupId,
    /// An SDWA instruction ([`crate::sdwa`]): the operation, its sources
    /// through selectors, its result placed by `dst_sel`/`dst_unused`.
    Sdwa(SdwaOp),
}

/// A bitwise op on lane masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskOp {
    And,
    Or,
    Xor,
    AndN2,
}

impl MaskOp {
    pub fn apply(self, a: u64, b: u64) -> u64 {
        match self {
            MaskOp::And => a & b,
            MaskOp::Or => a | b,
            MaskOp::Xor => a ^ b,
            MaskOp::AndN2 => a & !b,
        }
    }
}

/// One instruction of the table.
#[derive(Clone, Debug)]
pub struct Def {
    pub kind: Kind,
    /// Assembly, `{k}` standing for explicit operand `k`.
    pub asm: String,
}

/// The instruction table of one subtarget.
#[derive(Clone, Debug)]
pub struct Isa {
    pub instrs: InstrSet,
    /// Indexed by the `Sem::Target` number.
    pub defs: Vec<Def>,
    pub gfx: Gfx,
    /// The scalar condition code.
    pub scc: Reg,
}

fn pred_suffix(p: IntPredicate) -> (&'static str, &'static str) {
    use IntPredicate::*;
    match p {
        Eq => ("eq", "u32"),
        Ne => ("lg", "u32"),
        Ugt => ("gt", "u32"),
        Uge => ("ge", "u32"),
        Ult => ("lt", "u32"),
        Ule => ("le", "u32"),
        Sgt => ("gt", "i32"),
        Sge => ("ge", "i32"),
        Slt => ("lt", "i32"),
        Sle => ("le", "i32"),
    }
}

/// The scalar compare's mnemonic (`s_cmp_lg_u32`).
pub fn s_cmp_name(p: IntPredicate) -> String {
    let (c, t) = pred_suffix(p);
    format!("S_CMP_{}_{}", c, t).to_uppercase()
}

/// The vector compare's name (`V_CMP_NE_U32_E64`).
pub fn v_cmp_name(p: IntPredicate) -> String {
    let (c, t) = pred_suffix(p);
    let c = if c == "lg" { "ne" } else { c };
    format!("V_CMP_{}_{}_E64", c, t).to_uppercase()
}

struct Builder {
    instrs: InstrSet,
    defs: Vec<Def>,
    scc: Reg,
    /// Implicit uses of the next instruction added.
    extra_uses: Vec<Reg>,
}

impl Builder {
    /// Adds `name` (the MIR name) with `defs` defs, operand kinds `ops`,
    /// meaning `kind`, assembly `asm`; `scc`: (reads, writes).
    fn add(
        &mut self,
        name: &str,
        defs: usize,
        ops: &[OpKind],
        kind: Kind,
        asm: &str,
        scc: (bool, bool),
    ) -> Opcode {
        let id = self.defs.len() as u16;
        let mut d = InstrDesc::new(name, defs, ops, Sem::Target(id));
        if scc.0 {
            d = d.implicit_use(self.scc);
        }
        if scc.1 {
            d = d.implicit_def(self.scc);
        }
        if matches!(
            kind,
            Kind::SCbranchScc { .. } | Kind::SCbranchExecz | Kind::SiBrcond
        ) {
            d.is_terminator = true;
        }
        for r in &self.extra_uses {
            d = d.implicit_use(*r);
        }
        d.multiply_add = matches!(kind, Kind::GMad64Co | Kind::GMadI64);
        // ALU sources may be registers or constants.
        if matches!(
            kind,
            Kind::SBin(_)
                | Kind::SShift64(_)
                | Kind::SCarry { .. }
                | Kind::SMulHi { .. }
                | Kind::SCselect
                | Kind::SCmp(_)
                | Kind::VBin(_)
                | Kind::VBinRev(_)
                | Kind::VShift64(_)
                | Kind::VAdd3
                | Kind::VAlignBit
                | Kind::VLshlAdd
                | Kind::VCarryOut { .. }
                | Kind::VCarryInOut { .. }
                | Kind::VMulHi { .. }
                | Kind::VMulI24
                | Kind::VMulHiI24
                | Kind::VMad64 { .. }
                | Kind::VCndmask
                | Kind::VCmp(_)
                | Kind::Sdwa(_)
        ) {
            d.operands.clear();
            d = d.variadic();
        }
        self.defs.push(Def {
            kind,
            asm: asm.to_string(),
        });
        self.instrs.add(d)
    }
}

impl Isa {
    /// The table for `gfx`; `v0` and `s6` are the registers the hardware
    /// puts a kernel's work-item and work-group ids in.
    pub fn new(gfx: Gfx, scc: Reg, v0: Reg, s6: Reg) -> Isa {
        use OpKind::{Block as B, Imm as I, Reg as R};
        let mut b = Builder {
            instrs: InstrSet::generic(),
            defs: Vec::new(),
            scc,
            extra_uses: Vec::new(),
        };
        let gfx10 = gfx == Gfx::Gfx1030;
        let (w, exec) = if gfx10 {
            ("b32", "exec_lo")
        } else {
            ("b64", "exec")
        };
        // Scalar ALU.
        b.add(
            "S_MOV_B32",
            1,
            &[R],
            Kind::SMov,
            "s_mov_b32 {0}, {1}",
            (false, false),
        );
        b.add(
            "S_MOV_B32_imm",
            1,
            &[I],
            Kind::SMov,
            "s_mov_b32 {0}, {1}",
            (false, false),
        );
        b.add(
            "S_MOV_B64",
            1,
            &[R],
            Kind::SMov,
            "s_mov_b64 {0}, {1}",
            (false, false),
        );
        for (name, kind, scc) in [
            ("s_add_u32", Kind::SBin(BinOp::Add), true),
            ("s_sub_u32", Kind::SBin(BinOp::Sub), true),
            ("s_mul_i32", Kind::SBin(BinOp::Mul), false),
            ("s_and_b32", Kind::SBin(BinOp::And), true),
            ("s_or_b32", Kind::SBin(BinOp::Or), true),
            ("s_xor_b32", Kind::SBin(BinOp::Xor), true),
            ("s_lshl_b32", Kind::SBin(BinOp::Shl), true),
            ("s_lshr_b32", Kind::SBin(BinOp::LShr), true),
            ("s_ashr_i32", Kind::SBin(BinOp::AShr), true),
            ("s_lshl_b64", Kind::SShift64(BinOp::Shl), true),
            ("s_lshr_b64", Kind::SShift64(BinOp::LShr), true),
            ("s_ashr_i64", Kind::SShift64(BinOp::AShr), true),
        ] {
            b.add(
                &name.to_uppercase(),
                1,
                &[R, R],
                kind,
                &format!("{name} {{0}}, {{1}}, {{2}}"),
                (false, scc),
            );
        }
        for (name, op) in [
            ("G_AMD_SHL64", BinOp::Shl),
            ("G_AMD_LSHR64", BinOp::LShr),
            ("G_AMD_ASHR64", BinOp::AShr),
        ] {
            b.add(
                name,
                2,
                &[R, R, I],
                Kind::GShift64(op),
                &format!("; {name} {{0}}, {{1}}, {{2}}, {{3}}, {{4}}"),
                (false, false),
            );
        }
        b.add(
            "S_ADDC_U32",
            1,
            &[R, R],
            Kind::SCarry { sub: false },
            "s_addc_u32 {0}, {1}, {2}",
            (true, true),
        );
        b.add(
            "S_SUBB_U32",
            1,
            &[R, R],
            Kind::SCarry { sub: true },
            "s_subb_u32 {0}, {1}, {2}",
            (true, true),
        );
        b.add(
            "S_MUL_HI_U32",
            1,
            &[R, R],
            Kind::SMulHi { signed: false },
            "s_mul_hi_u32 {0}, {1}, {2}",
            (false, false),
        );
        b.add(
            "S_MUL_HI_I32",
            1,
            &[R, R],
            Kind::SMulHi { signed: true },
            "s_mul_hi_i32 {0}, {1}, {2}",
            (false, false),
        );
        b.add(
            "S_BFE_U32",
            1,
            &[R, I],
            Kind::SBfe { signed: false },
            "s_bfe_u32 {0}, {1}, {2}",
            (false, true),
        );
        b.add(
            "S_BFE_I32",
            1,
            &[R, I],
            Kind::SBfe { signed: true },
            "s_bfe_i32 {0}, {1}, {2}",
            (false, true),
        );
        b.add(
            "S_CSELECT_B32",
            1,
            &[R, R],
            Kind::SCselect,
            "s_cselect_b32 {0}, {1}, {2}",
            (true, false),
        );
        b.add(
            "S_CSELECT_B32_imm",
            1,
            &[I, I],
            Kind::SCselect,
            "s_cselect_b32 {0}, {1}, {2}",
            (true, false),
        );
        for p in IntPredicate::ALL {
            let n = s_cmp_name(p);
            let asm = format!("{} {{0}}, {{1}}", n.to_lowercase());
            b.add(&n, 0, &[R, R], Kind::SCmp(p), &asm, (false, true));
        }
        b.add(
            "S_CMP_LG_U32_imm",
            0,
            &[R, I],
            Kind::SCmp(IntPredicate::Ne),
            "s_cmp_lg_u32 {0}, {1}",
            (false, true),
        );
        // Vector ALU.
        b.add(
            "V_READFIRSTLANE_B32",
            1,
            &[R],
            Kind::VReadFirstLane,
            "v_readfirstlane_b32 {0}, {1}",
            (false, false),
        );
        b.add(
            "V_MOV_B32_e32",
            1,
            &[R],
            Kind::VMov,
            "v_mov_b32_e32 {0}, {1}",
            (false, false),
        );
        // gfx90a: a VGPR pair from an SGPR or VGPR pair (`crate::pk_mov`).
        b.add(
            "V_PK_MOV_B32",
            1,
            &[R],
            Kind::VMov64,
            "v_pk_mov_b32 {0}, {1}, {1} op_sel:[0,1]",
            (false, false),
        );
        b.add(
            "V_MOV_B32_imm",
            1,
            &[I],
            Kind::VMov,
            "v_mov_b32_e32 {0}, {1}",
            (false, false),
        );
        let (add, sub) = if gfx10 {
            ("v_add_nc_u32_e64", "v_sub_nc_u32_e64")
        } else {
            ("v_add_u32_e64", "v_sub_u32_e64")
        };
        for (mir, name, op) in [
            ("V_ADD_U32_e64", add, BinOp::Add),
            ("V_SUB_U32_e64", sub, BinOp::Sub),
            ("V_MUL_LO_U32", "v_mul_lo_u32", BinOp::Mul),
            ("V_AND_B32_e64", "v_and_b32_e64", BinOp::And),
            ("V_OR_B32_e64", "v_or_b32_e64", BinOp::Or),
            ("V_XOR_B32_e64", "v_xor_b32_e64", BinOp::Xor),
        ] {
            b.add(
                mir,
                1,
                &[R, R],
                Kind::VBin(op),
                &format!("{name} {{0}}, {{1}}, {{2}}"),
                (false, false),
            );
        }
        b.add(
            "V_AND_B32_imm",
            1,
            &[I, R],
            Kind::VBin(BinOp::And),
            "v_and_b32_e32 {0}, {1}, {2}",
            (false, false),
        );
        // The reversed shifts (amount first), 32-bit and of a VGPR pair.
        for (name, kind, ops) in [
            ("v_lshlrev_b32_e64", Kind::VBinRev(BinOp::Shl), &[R, R]),
            ("v_lshrrev_b32_e64", Kind::VBinRev(BinOp::LShr), &[R, R]),
            ("v_ashrrev_i32_e64", Kind::VBinRev(BinOp::AShr), &[R, R]),
            ("v_lshlrev_b64", Kind::VShift64(BinOp::Shl), &[I, R]),
            ("v_lshrrev_b64", Kind::VShift64(BinOp::LShr), &[I, R]),
            ("v_ashrrev_i64", Kind::VShift64(BinOp::AShr), &[I, R]),
        ] {
            b.add(
                &name.to_uppercase(),
                1,
                ops,
                kind,
                &format!("{name} {{0}}, {{1}}, {{2}}"),
                (false, false),
            );
        }
        let (addc, subb) = if gfx10 {
            ("v_add_co_ci_u32_e64", "v_sub_co_ci_u32_e64")
        } else {
            ("v_addc_co_u32_e64", "v_subb_co_u32_e64")
        };
        b.add(
            "V_ADD_CO_U32_e64",
            2,
            &[R, R],
            Kind::VCarryOut { sub: false },
            "v_add_co_u32_e64 {0}, {1}, {2}, {3}",
            (false, false),
        );
        b.add(
            "V_SUB_CO_U32_e64",
            2,
            &[R, R],
            Kind::VCarryOut { sub: true },
            "v_sub_co_u32_e64 {0}, {1}, {2}, {3}",
            (false, false),
        );
        b.add(
            "V_ADDC_U32_e64",
            2,
            &[R, R, R],
            Kind::VCarryInOut { sub: false },
            &format!("{addc} {{0}}, {{1}}, {{2}}, {{3}}, {{4}}"),
            (false, false),
        );
        b.add(
            "V_SUBB_U32_e64",
            2,
            &[R, R, R],
            Kind::VCarryInOut { sub: true },
            &format!("{subb} {{0}}, {{1}}, {{2}}, {{3}}, {{4}}"),
            (false, false),
        );
        b.add(
            "V_ADD3_U32",
            1,
            &[R, R, R],
            Kind::VAdd3,
            "v_add3_u32 {0}, {1}, {2}, {3}",
            (false, false),
        );
        b.add(
            "V_LSHL_ADD_U32",
            1,
            &[R, I, R],
            Kind::VLshlAdd,
            "v_lshl_add_u32 {0}, {1}, {2}, {3}",
            (false, false),
        );
        b.add(
            "V_ALIGNBIT_B32",
            1,
            &[R, R, I],
            Kind::VAlignBit,
            "v_alignbit_b32 {0}, {1}, {2}, {3}",
            (false, false),
        );
        b.add(
            "V_MUL_HI_U32",
            1,
            &[R, R],
            Kind::VMulHi { signed: false },
            "v_mul_hi_u32 {0}, {1}, {2}",
            (false, false),
        );
        b.add(
            "V_MUL_HI_I32",
            1,
            &[R, R],
            Kind::VMulHi { signed: true },
            "v_mul_hi_i32 {0}, {1}, {2}",
            (false, false),
        );
        b.add(
            "V_MUL_I32_I24_e64",
            1,
            &[R, R],
            Kind::VMulI24,
            "v_mul_i32_i24_e64 {0}, {1}, {2}",
            (false, false),
        );
        b.add(
            "V_MUL_HI_I32_I24_e64",
            1,
            &[R, R],
            Kind::VMulHiI24,
            "v_mul_hi_i32_i24_e64 {0}, {1}, {2}",
            (false, false),
        );
        for (name, asm, signed) in [
            ("V_MAD_U64_U32", "v_mad_u64_u32", false),
            ("V_MAD_I64_I32", "v_mad_i64_i32", true),
        ] {
            b.add(
                name,
                2,
                &[R, R, R],
                Kind::VMad64 { signed },
                &format!("{asm} {{0}}, {{1}}, {{2}}, {{3}}, {{4}}"),
                (false, false),
            );
            b.add(
                &format!("{name}_imm"),
                2,
                &[R, R, I],
                Kind::VMad64 { signed },
                &format!("{asm} {{0}}, {{1}}, {{2}}, {{3}}, {{4}}"),
                (false, false),
            );
        }
        b.add(
            "G_AMD_MAD_I64_I32",
            2,
            &[R, R, R, R],
            Kind::GMadI64,
            "; G_AMD_MAD_I64_I32 {0}, {1}, {2}, {3}, {4}, {5}",
            (false, false),
        );
        b.add(
            "G_AMD_MAD64_CO",
            3,
            &[R, R, R, R],
            Kind::GMad64Co,
            "; G_AMD_MAD64_CO {0}, {1}, {2}, {3}, {4}, {5}, {6}",
            (false, false),
        );
        b.add(
            "V_BFE_U32",
            1,
            &[R, I, I],
            Kind::VBfe { signed: false },
            "v_bfe_u32 {0}, {1}, {2}, {3}",
            (false, false),
        );
        b.add(
            "V_BFE_I32",
            1,
            &[R, I, I],
            Kind::VBfe { signed: true },
            "v_bfe_i32 {0}, {1}, {2}, {3}",
            (false, false),
        );
        b.add(
            "V_CNDMASK_B32_e64",
            1,
            &[R, R, R],
            Kind::VCndmask,
            "v_cndmask_b32_e64 {0}, {1}, {2}, {3}",
            (false, false),
        );
        b.add(
            "V_CNDMASK_B32_imm",
            1,
            &[I, I, R],
            Kind::VCndmask,
            "v_cndmask_b32_e64 {0}, {1}, {2}, {3}",
            (false, false),
        );
        for p in IntPredicate::ALL {
            let n = v_cmp_name(p);
            let asm = format!("{} {{0}}, {{1}}, {{2}}", n.to_lowercase());
            b.add(&n, 1, &[R, R], Kind::VCmp(p), &asm, (false, false));
        }
        b.add(
            "V_CMP_NE_U32_imm",
            1,
            &[I, R],
            Kind::VCmp(IntPredicate::Ne),
            "v_cmp_ne_u32_e64 {0}, {1}, {2}",
            (false, false),
        );
        for (op, on) in [
            (FBinOp::FAdd, "add"),
            (FBinOp::FSub, "sub"),
            (FBinOp::FMul, "mul"),
        ] {
            for (fmt, t) in [(FloatFmt::F16, "f16"), (FloatFmt::F32, "f32")] {
                let name = format!("v_{on}_{t}_e64");
                b.add(
                    &name.to_uppercase(),
                    1,
                    &[R, R],
                    Kind::VFloat(op, fmt),
                    &format!("{name} {{0}}, {{1}}, {{2}}"),
                    (false, false),
                );
            }
        }
        // SDWA forms (crate::sdwa): the assembly is built from the operands.
        for op in SdwaOp::all() {
            if op.mnemonic(gfx).is_some() {
                b.add(&op.mir_name(), 1, &[], Kind::Sdwa(op), "", (false, false));
            }
        }
        // Lane masks and EXEC.
        for (name, op) in [
            ("and", MaskOp::And),
            ("or", MaskOp::Or),
            ("xor", MaskOp::Xor),
            ("andn2", MaskOp::AndN2),
        ] {
            let asm = format!("s_{name}_{w} {{0}}, {{1}}, {{2}}");
            b.add(
                &format!("S_{}_MASK", name.to_uppercase()),
                1,
                &[R, R],
                Kind::SMask(op),
                &asm,
                (false, true),
            );
        }
        let cmp = if gfx10 {
            "s_cmp_lg_u32"
        } else {
            "s_cmp_lg_u64"
        };
        b.add(
            "S_GET_EXEC",
            1,
            &[],
            Kind::GetExec,
            &format!("s_mov_{w} {{0}}, {exec}"),
            (false, false),
        );
        b.add(
            "S_SET_EXEC",
            0,
            &[R],
            Kind::SetExec,
            &format!("s_mov_{w} {exec}, {{0}}"),
            (false, false),
        );
        b.add(
            "S_ZERO_MASK",
            1,
            &[],
            Kind::ZeroMask,
            &format!("s_mov_{w} {{0}}, 0"),
            (false, false),
        );
        b.add(
            "S_CSELECT_MASK",
            1,
            &[R],
            Kind::SCselectMask,
            &format!("s_cselect_{w} {{0}}, {{1}}, 0"),
            (true, false),
        );
        b.add(
            "S_CMP_MASK_NZ",
            0,
            &[R],
            Kind::MaskNonZero,
            &format!("{cmp} {{0}}, 0"),
            (false, true),
        );
        b.add(
            "SI_BRCOND",
            0,
            &[R, B, B],
            Kind::SiBrcond,
            "; SI_BRCOND {0}, {1}, {2}",
            (false, false),
        );
        // Branches: `s_cbranch_* T` then `s_branch F` unless F comes next.
        b.add(
            "S_CBRANCH_SCC1",
            0,
            &[B, B],
            Kind::SCbranchScc { on: true },
            "s_cbranch_scc1 {0}",
            (true, false),
        );
        b.add(
            "S_CBRANCH_SCC0",
            0,
            &[B, B],
            Kind::SCbranchScc { on: false },
            "s_cbranch_scc0 {0}",
            (true, false),
        );
        b.add(
            "S_CBRANCH_EXECZ",
            0,
            &[B, B],
            Kind::SCbranchExecz,
            "s_cbranch_execz {0}",
            (false, false),
        );
        // Memory.
        for (n, ld, st) in [
            (1, "ubyte", "byte"),
            (2, "ushort", "short"),
            (4, "dword", "dword"),
        ] {
            b.add(
                &format!("GLOBAL_LOAD_{}", ld.to_uppercase()),
                1,
                &[R, I],
                Kind::GlobalLoad(n),
                &format!("global_load_{ld} {{0}}, {{1}}, off offset:{{2}}"),
                (false, false),
            );
            b.add(
                &format!("GLOBAL_STORE_{}", st.to_uppercase()),
                0,
                &[R, R, I],
                Kind::GlobalStore(n),
                &format!("global_store_{st} {{0}}, {{1}}, off offset:{{2}}"),
                (false, false),
            );
            if n < 4 {
                b.add(
                    &format!("GLOBAL_LOAD_{}_SADDR", ld.to_uppercase()),
                    1,
                    &[R, R, I],
                    Kind::GlobalLoadSaddrNarrow(n),
                    &format!("global_load_{ld} {{0}}, {{1}}, {{2}} offset:{{3}}"),
                    (false, false),
                );
                b.add(
                    &format!("GLOBAL_STORE_{}_SADDR", st.to_uppercase()),
                    0,
                    &[R, R, R, I],
                    Kind::GlobalStoreSaddrNarrow(n),
                    &format!("global_store_{st} {{0}}, {{1}}, {{2}} offset:{{3}}"),
                    (false, false),
                );
            }
        }
        for n in [2u8, 3, 4] {
            b.add(
                &format!("GLOBAL_STORE_DWORDX{n}"),
                0,
                &[R, R, I],
                Kind::GlobalStoreWide(n),
                &format!("global_store_dwordx{n} {{0}}, {{1}}, off offset:{{2}}"),
                (false, false),
            );
        }
        for n in [2u8, 3, 4] {
            b.add(
                &format!("GLOBAL_LOAD_DWORDX{n}"),
                1,
                &[R, I],
                Kind::GlobalLoadWide(n),
                &format!("global_load_dwordx{n} {{0}}, {{1}}, off offset:{{2}}"),
                (false, false),
            );
        }
        for (n, suffix) in [(1u8, ""), (2, "X2"), (3, "X3"), (4, "X4")] {
            let lower = suffix.to_lowercase();
            b.add(
                &format!("GLOBAL_LOAD_DWORD{suffix}_SADDR"),
                1,
                &[R, R, I],
                Kind::GlobalLoadSaddr(n),
                &format!("global_load_dword{lower} {{0}}, {{1}}, {{2}} offset:{{3}}"),
                (false, false),
            );
        }
        b.add(
            "GLOBAL_STORE_DWORD_SADDR",
            0,
            &[R, R, R, I],
            Kind::GlobalStoreSaddr(1),
            "global_store_dword {0}, {1}, {2} offset:{3}",
            (false, false),
        );
        for n in [2u8, 3, 4] {
            b.add(
                &format!("GLOBAL_STORE_DWORDX{n}_SADDR"),
                0,
                &[R, R, R, I],
                Kind::GlobalStoreSaddr(n),
                &format!("global_store_dwordx{n} {{0}}, {{1}}, {{2}} offset:{{3}}"),
                (false, false),
            );
        }
        b.add(
            "S_WAITCNT_VM",
            0,
            &[],
            Kind::Wait,
            "s_waitcnt vmcnt(0)",
            (false, false),
        );
        b.add(
            "S_WAITCNT_LGKM",
            0,
            &[],
            Kind::Wait,
            "s_waitcnt lgkmcnt(0)",
            (false, false),
        );
        b.add(
            "S_LOAD_DWORD",
            1,
            &[R, I],
            Kind::KernargLoad,
            "s_load_dword {0}, {1}, {2}",
            (false, false),
        );
        for (n, suffix) in [(1u8, ""), (2, "X2"), (4, "X4"), (8, "X8"), (16, "X16")] {
            let lower = suffix.to_lowercase();
            b.add(
                &format!("S_LOAD_DWORD{suffix}_GLOBAL"),
                1,
                &[R, I],
                Kind::ScalarLoad(n),
                &format!("s_load_dword{lower} {{0}}, {{1}}, {{2}}"),
                (false, false),
            );
        }
        for n in [2u8, 4, 8, 16] {
            b.add(
                &format!("S_LOAD_DWORDX{n}"),
                1,
                &[R, I],
                Kind::KernargLoadWide(n),
                &format!("s_load_dwordx{n} {{0}}, {{1}}, {{2}}"),
                (false, false),
            );
        }
        b.add(
            "V_WRITELANE_B32",
            1,
            &[R, I],
            Kind::WriteLane,
            "v_writelane_b32 {0}, {1}, {2}",
            (false, false),
        );
        b.add(
            "V_READLANE_B32",
            1,
            &[R, I],
            Kind::ReadLane,
            "v_readlane_b32 {0}, {1}, {2}",
            (false, false),
        );
        b.extra_uses = vec![v0];
        b.add(
            "V_WORKITEM_ID_X",
            1,
            &[],
            Kind::WorkitemId,
            "v_mov_b32_e32 {0}, v0",
            (false, false),
        );
        b.extra_uses = vec![s6];
        b.add(
            "S_WORKGROUP_ID_X",
            1,
            &[],
            Kind::WorkgroupId,
            "s_mov_b32 {0}, s6",
            (false, false),
        );
        b.extra_uses.clear();
        Isa {
            instrs: b.instrs,
            defs: b.defs,
            gfx,
            scc,
        }
    }

    /// The opcode named `name` (an opcode this table defines).
    pub fn op(&self, name: &str) -> Opcode {
        self.instrs.op(name)
    }

    /// The opcode of `op`'s SDWA form, when this chip has one.
    pub fn sdwa(&self, op: SdwaOp) -> Option<Opcode> {
        op.mnemonic(self.gfx)?;
        self.instrs.by_name(&op.mir_name())
    }

    /// What `op` does, when it is a GCN instruction.
    pub fn kind(&self, op: Opcode) -> Option<Kind> {
        self.def(op).map(|d| d.kind)
    }

    /// The table entry of `op`, when it is a GCN instruction.
    pub fn def(&self, op: Opcode) -> Option<&Def> {
        match self.instrs.get(op)?.sem {
            Sem::Target(id) => self.defs.get(usize::from(id)),
            _ => None,
        }
    }
}
