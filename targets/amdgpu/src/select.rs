//! Instruction selection: generic limb code to GCN instructions, the unit
//! chosen by uniformity.
//!
//! The hardware facts served:
//! - A uniform value (an SGPR, class `SGPR_32`) is computed on the scalar
//!   ALU: `s_add_u32`/`s_addc_u32` chain their carry through `SCC`, a
//!   compare sets `SCC` and `s_cselect_b32` reads it.
//! - A divergent value (a VGPR, `VGPR_32`) is computed on the vector ALU.
//!   Its carries and compares are lane masks (`SGPR_64` on wave64,
//!   `SGPR_32` on wave32) that `v_addc_co_u32`/`v_add_co_ci_u32` and
//!   `v_cndmask_b32` read directly; a boolean wanted as a number is
//!   `v_cndmask_b32 d, 0, 1, mask`.
//! - A VALU instruction may read SGPRs, but only one distinct SGPR (or
//!   literal) on gfx9 and two on gfx10 go over the constant bus; the
//!   others are copied into VGPRs first.
//! - The scalar ALU cannot read VGPRs: a uniform value computed on the
//!   VALU (floats) comes back with `v_readfirstlane_b32`.
//! - `v_mad_u64_u32` takes and gives 64-bit register pairs: the
//!   accumulator is built with `REG_SEQUENCE`, the halves read as `sub0`
//!   and `sub1`.
//!
//! Booleans that are not used as numbers are left dead and removed at the
//! end ([`dead_code`]).

use regdesc_codegen::mir::{def, use_};
use std::collections::HashMap;

use regdesc_codegen::mir::instr::{BinOp, FloatFmt, IntPredicate, LimbOp};
use regdesc_codegen::mir::{
    MBlockId, MFunction, MInst, Opcode, Operand, RegOperand, RegRef, Sem, VReg,
};
use regdesc_codegen::target::TargetError;
use regdesc_runtime::{Reg, RegClass, SubRegIdx};

use crate::abi::KernargWord;
use crate::isa::{s_cmp_name, v_cmp_name, Isa, Kind};
use crate::Gfx;

mod memory;
mod widen;

/// The classes selection uses.
#[derive(Clone, Copy, Debug)]
pub struct Classes {
    pub sgpr: RegClass,
    pub vgpr: RegClass,
    /// An SGPR pair (`SGPR_64`): a 64-bit scalar operand.
    pub sgpr64: RegClass,
    /// A lane mask: `SGPR_64` on wave64, `SGPR_32` on wave32.
    pub mask: RegClass,
    pub vreg64: RegClass,
    pub sub0: SubRegIdx,
    pub sub1: SubRegIdx,
    pub scc: Reg,
    /// `s[4:5]`: a kernel's kernarg segment pointer.
    pub kernarg_ptr: Reg,
}

fn unsupported(f: &MFunction, what: &str) -> TargetError {
    TargetError::Unsupported {
        what: format!("@{}: {what}", f.name),
        span: None,
    }
}

struct Sel<'a> {
    isa: &'a Isa,
    cls: Classes,
    f: &'a mut MFunction,
    out: Vec<MInst>,
    /// A boolean's lane mask (divergent compares and carries).
    twin: HashMap<VReg, VReg>,
    /// Masks made from booleans in the current block.
    derived: HashMap<VReg, VReg>,
    /// The boolean `SCC` holds now.
    scc_holds: Option<VReg>,
    consts: HashMap<VReg, i64>,
    bus: usize,
    /// A kernel's kernarg words (by the register standing for each).
    kernargs: &'a [KernargWord],
    /// Instructions for the top of the entry block (the ids the hardware
    /// puts in `v0` and `s6`, read before anything can overwrite them).
    prologue: Vec<MInst>,
    ids: HashMap<&'static str, VReg>,
    /// VGPR copies of SGPR values made in the current block.
    vcopies: HashMap<VReg, VReg>,
    /// Address pairs built in the current block.
    addresses: HashMap<(VReg, VReg), VReg>,
    /// Addresses `(lo, hi)` computed as `p + K`: `(p.lo, p.hi, K)`.
    offsets: HashMap<(VReg, VReg), (VReg, VReg, i64)>,
    /// Per-lane addresses `base + id * 2^k` (see
    /// [`memory::lane_addresses`]): `(lo, hi)` to `(id, k, base.lo, base.hi)`.
    lanes: HashMap<(VReg, VReg), memory::LaneAddress>,
    /// `saddr` offsets (the work-item id shifted, made in the prologue).
    /// (The zero offset of a uniform address under `None`.)
    voffs: HashMap<Option<u32>, VReg>,
    /// `saddr` SGPR pairs made in the current block.
    spairs: HashMap<(VReg, VReg), VReg>,
    /// The defs of a kernel's loads no store can have written first
    /// ([`memory::unclobbered_loads`]).
    unclobbered: std::collections::HashSet<VReg>,
    /// Low bits of each value some use reads
    /// ([`regdesc_codegen::legalize::demanded_bits`]).
    demand: Vec<u32>,
    /// VALU values copied out of a `v_mad_u64_u32` pair: (pair, 0 for
    /// `sub0`, 1 for `sub1`).
    halves: HashMap<VReg, (VReg, u8)>,
    /// Values defined by `IMPLICIT_DEF` (no bit of them is read for its
    /// meaning: a MAD accumulator's high half where only the low half of
    /// the result is read).
    undefs: std::collections::HashSet<VReg>,
}

impl Sel<'_> {
    fn is_sgpr(&self, v: VReg) -> bool {
        self.f.class_of(v) != Some(self.cls.vgpr)
    }

    fn vreg(&mut self, rc: RegClass) -> VReg {
        self.f.new_vreg(rc)
    }

    /// Appends `op` with its explicit operands and the implicit ones its
    /// description names.
    fn emit(&mut self, op: Opcode, mut ops: Vec<Operand>) {
        let d = self.isa.instrs.desc(op);
        for r in &d.implicit_uses {
            ops.push(Operand::Reg(
                RegOperand::use_of(RegRef::Phys(*r), None).implicit_(),
            ));
        }
        let mut clobbers_scc = false;
        for r in &d.implicit_defs {
            clobbers_scc |= *r == self.cls.scc;
            ops.push(Operand::Reg(
                RegOperand::def_of(RegRef::Phys(*r), None).implicit_(),
            ));
        }
        if clobbers_scc {
            self.scc_holds = None;
        }
        self.out.push(MInst::new(op, ops));
    }

    /// The register holding the id the hardware puts in `v0` (`key`
    /// `V_WORKITEM_ID_X`) or `s6` (`S_WORKGROUP_ID_X`), read in the
    /// prologue.
    fn hw_id(&mut self, key: &'static str, rc: RegClass) -> VReg {
        if let Some(x) = self.ids.get(key) {
            return *x;
        }
        let x = self.vreg(rc);
        let op = self.op(key);
        let mut ops = vec![def(x)];
        for r in &self.isa.instrs.desc(op).implicit_uses {
            ops.push(Operand::Reg(
                RegOperand::use_of(RegRef::Phys(*r), None).implicit_(),
            ));
        }
        self.prologue.push(MInst::new(op, ops));
        self.ids.insert(key, x);
        x
    }

    fn op(&self, name: &str) -> Opcode {
        self.isa.op(name)
    }

    /// `v` readable by the scalar ALU.
    fn ssrc(&mut self, v: VReg) -> VReg {
        if self.is_sgpr(v) {
            return v;
        }
        let s = self.vreg(self.cls.sgpr);
        self.emit(self.op("V_READFIRSTLANE_B32"), vec![def(s), use_(v)]);
        s
    }

    /// `v` as a VALU source: an inline constant (-16..=64, no constant
    /// bus), on gfx10 one 32-bit literal per instruction (VOP3 takes a
    /// literal there, over a constant-bus slot), an SGPR while the constant
    /// bus has room, else a VGPR.
    fn vsrc(&mut self, v: VReg, used: &mut Vec<VReg>) -> Operand {
        if let Some(&c) = self.consts.get(&v) {
            let x = i64::from(c as u32 as i32);
            if crate::isa::is_inline_int(x) {
                return Operand::Imm(x);
            }
            let literal = |u: &VReg| self.consts.get(u).map(|&k| k as u32);
            let other = used.iter().find_map(literal);
            if self.isa.gfx.is_gfx10() && used.len() < self.bus && other.is_none() {
                used.push(v);
                return Operand::Imm(c);
            }
            if other == Some(c as u32) && used.contains(&v) {
                return Operand::Imm(c);
            }
        }
        if !self.is_sgpr(v) || used.contains(&v) {
            return use_(v);
        }
        if used.len() < self.bus {
            used.push(v);
            return use_(v);
        }
        use_(self.in_vgpr(v))
    }

    /// `v` as a SALU source: a constant (at most one 32-bit literal per
    /// instruction; `lit` says whether it is taken) or an SGPR.
    fn sop(&mut self, v: VReg, lit: &mut bool) -> Operand {
        if let Some(c) = self.consts.get(&v) {
            let x = i64::from(*c as u32 as i32);
            let inline = crate::isa::is_inline_int(x);
            if inline || !*lit {
                *lit |= !inline;
                return Operand::Imm(if inline { x } else { *c });
            }
        }
        use_(self.ssrc(v))
    }

    fn in_vgpr(&mut self, v: VReg) -> VReg {
        if !self.is_sgpr(v) {
            return v;
        }
        if let Some(d) = self.vcopies.get(&v) {
            return *d;
        }
        let d = self.vreg(self.cls.vgpr);
        // A constant is moved into the VGPR directly (its SGPR may die).
        match self.consts.get(&v) {
            Some(&c) => self.emit(self.op("V_MOV_B32_imm"), vec![def(d), Operand::Imm(c)]),
            None => self.emit(self.isa.instrs.copy, vec![def(d), use_(v)]),
        }
        self.vcopies.insert(v, d);
        d
    }

    /// `d = REG_SEQUENCE lo, sub0, hi, sub1`: a register pair from its
    /// halves.
    fn join_pair(&mut self, d: VReg, lo: VReg, hi: VReg) {
        self.join_pair_of(d, use_(lo), use_(hi));
    }

    /// The same of two register operands (an `undef` one: a half with no
    /// value).
    fn join_pair_of(&mut self, d: VReg, lo: Operand, hi: Operand) {
        self.emit(
            self.isa.instrs.reg_sequence,
            vec![
                def(d),
                lo,
                Operand::SubIdx(self.cls.sub0),
                hi,
                Operand::SubIdx(self.cls.sub1),
            ],
        );
    }

    /// `v` as one half of a register pair built by `REG_SEQUENCE`: a
    /// constant is materialized afresh (`v_mov_b32`), so that it can be
    /// written straight into the pair's half instead of copied there.
    fn part_of_pair(&mut self, v: VReg) -> VReg {
        match self.consts.get(&v) {
            Some(&c) => {
                let d = self.vreg(self.cls.vgpr);
                self.emit(self.op("V_MOV_B32_imm"), vec![def(d), Operand::Imm(c)]);
                d
            }
            None => self.in_vgpr(v),
        }
    }

    /// A VALU result for def `d`: `d` itself, or a VGPR read back into the
    /// SGPR `d` by [`Sel::finish_valu`].
    fn valu_def(&mut self, d: VReg) -> VReg {
        if self.is_sgpr(d) {
            self.vreg(self.cls.vgpr)
        } else {
            d
        }
    }

    fn finish_valu(&mut self, d: VReg, t: VReg) {
        if d != t {
            self.emit(self.op("V_READFIRSTLANE_B32"), vec![def(d), use_(t)]);
        }
    }

    /// The lane mask of boolean `c` (0 or 1 per lane).
    fn mask_of(&mut self, c: VReg) -> VReg {
        if let Some(m) = self.twin.get(&c).or_else(|| self.derived.get(&c)) {
            return *m;
        }
        let m = self.vreg(self.cls.mask);
        self.emit(
            self.op("V_CMP_NE_U32_imm"),
            vec![def(m), Operand::Imm(0), use_(c)],
        );
        self.derived.insert(c, m);
        m
    }

    /// Puts uniform boolean `c` into `SCC`.
    fn scc_of(&mut self, c: VReg) {
        if self.scc_holds == Some(c) {
            return;
        }
        let s = self.ssrc(c);
        self.emit(self.op("S_CMP_LG_U32_imm"), vec![use_(s), Operand::Imm(0)]);
        self.scc_holds = Some(c);
    }

    /// Defines uniform boolean `d` from `SCC` (removed when unused).
    fn bool_from_scc(&mut self, d: VReg) {
        self.emit(
            self.op("S_CSELECT_B32_imm"),
            vec![def(d), Operand::Imm(1), Operand::Imm(0)],
        );
        self.scc_holds = Some(d);
    }

    /// Defines divergent boolean `d` from mask `m` (removed when unused).
    fn bool_from_mask(&mut self, d: VReg, m: VReg) {
        let t = self.valu_def(d);
        self.emit(
            self.op("V_CNDMASK_B32_imm"),
            vec![def(t), Operand::Imm(0), Operand::Imm(1), use_(m)],
        );
        self.finish_valu(d, t);
        self.twin.insert(d, m);
    }

    fn salu2(&mut self, name: &str, d: VReg, a: VReg, b: VReg) {
        let mut lit = false;
        let (a, b) = (self.sop(a, &mut lit), self.sop(b, &mut lit));
        self.emit(self.op(name), vec![def(d), a, b]);
    }

    fn valu2(&mut self, name: &str, d: VReg, a: VReg, b: VReg) {
        let mut used = Vec::new();
        let (a, b) = (self.vsrc(a, &mut used), self.vsrc(b, &mut used));
        let t = self.valu_def(d);
        self.emit(self.op(name), vec![def(t), a, b]);
        self.finish_valu(d, t);
    }

    fn binary(&mut self, op: BinOp, d: VReg, a: VReg, b: VReg) {
        let uniform = self.is_sgpr(d);
        let name = match (op, uniform) {
            (BinOp::Add, true) => "S_ADD_U32",
            (BinOp::Sub, true) => "S_SUB_U32",
            (BinOp::Mul, true) => "S_MUL_I32",
            (BinOp::And, true) => "S_AND_B32",
            (BinOp::Or, true) => "S_OR_B32",
            (BinOp::Xor, true) => "S_XOR_B32",
            (BinOp::Shl, true) => "S_LSHL_B32",
            (BinOp::LShr, true) => "S_LSHR_B32",
            (BinOp::AShr, true) => "S_ASHR_I32",
            (BinOp::Add, false) => "V_ADD_U32_e64",
            (BinOp::Sub, false) => "V_SUB_U32_e64",
            (BinOp::Mul, false) => "V_MUL_LO_U32",
            (BinOp::And, false) => "V_AND_B32_e64",
            (BinOp::Or, false) => "V_OR_B32_e64",
            (BinOp::Xor, false) => "V_XOR_B32_e64",
            // Reversed: the amount first.
            (BinOp::Shl, false) => return self.valu2("V_LSHLREV_B32_E64", d, b, a),
            (BinOp::LShr, false) => return self.valu2("V_LSHRREV_B32_E64", d, b, a),
            (BinOp::AShr, false) => return self.valu2("V_ASHRREV_I32_E64", d, b, a),
        };
        if uniform {
            self.salu2(name, d, a, b);
        } else {
            self.valu2(name, d, a, b);
        }
    }

    fn compare(&mut self, p: IntPredicate, d: VReg, a: VReg, b: VReg) {
        if self.is_sgpr(d) && self.is_sgpr(a) && self.is_sgpr(b) {
            let op = self.op(&s_cmp_name(p));
            let mut lit = false;
            let (a, b) = (self.sop(a, &mut lit), self.sop(b, &mut lit));
            self.emit(op, vec![a, b]);
            self.bool_from_scc(d);
        } else {
            let m = self.vreg(self.cls.mask);
            let mut used = Vec::new();
            let (a, b) = (self.vsrc(a, &mut used), self.vsrc(b, &mut used));
            let op = self.op(&v_cmp_name(p));
            self.emit(op, vec![def(m), a, b]);
            self.bool_from_mask(d, m);
        }
    }

    fn select(&mut self, d: VReg, c: VReg, a: VReg, b: VReg) {
        if self.is_sgpr(d) && self.is_sgpr(c) {
            let mut lit = false;
            let (a, b) = (self.sop(a, &mut lit), self.sop(b, &mut lit));
            self.scc_of(c);
            self.emit(self.op("S_CSELECT_B32"), vec![def(d), a, b]);
        } else {
            let m = self.mask_of(c);
            let mut used = vec![m];
            let (b, a) = (self.vsrc(b, &mut used), self.vsrc(a, &mut used));
            let t = self.valu_def(d);
            self.emit(self.op("V_CNDMASK_B32_e64"), vec![def(t), b, a, use_(m)]);
            self.finish_valu(d, t);
        }
    }

    /// `G_UADDO`/`G_USUBO` (no carry in) and `G_UADDE`/`G_USUBE`.
    fn carry(&mut self, sub: bool, d: VReg, c: VReg, a: VReg, b: VReg, cin: Option<VReg>) {
        if self.is_sgpr(d) && self.is_sgpr(c) && cin.is_none_or(|x| self.is_sgpr(x)) {
            let mut lit = false;
            let (a, b) = (self.sop(a, &mut lit), self.sop(b, &mut lit));
            let name = match (sub, cin) {
                (false, None) => "S_ADD_U32",
                (true, None) => "S_SUB_U32",
                (false, Some(_)) => "S_ADDC_U32",
                (true, Some(_)) => "S_SUBB_U32",
            };
            if let Some(x) = cin {
                self.scc_of(x);
            }
            self.emit(self.op(name), vec![def(d), a, b]);
            self.bool_from_scc(c);
        } else {
            let m = self.vreg(self.cls.mask);
            let t = self.valu_def(d);
            match cin {
                None => {
                    let mut used = Vec::new();
                    let (a, b) = (self.vsrc(a, &mut used), self.vsrc(b, &mut used));
                    let name = if sub {
                        "V_SUB_CO_U32_e64"
                    } else {
                        "V_ADD_CO_U32_e64"
                    };
                    self.emit(self.op(name), vec![def(t), def(m), a, b]);
                }
                Some(x) => {
                    let mi = self.mask_of(x);
                    let mut used = vec![mi];
                    let (a, b) = (self.vsrc(a, &mut used), self.vsrc(b, &mut used));
                    let name = if sub {
                        "V_SUBB_U32_e64"
                    } else {
                        "V_ADDC_U32_e64"
                    };
                    self.emit(self.op(name), vec![def(t), def(m), a, b, use_(mi)]);
                }
            }
            self.finish_valu(d, t);
            self.bool_from_mask(c, m);
        }
    }

    /// `a * b + (chi:clo)` into `lo`, `hi` (`signed`: the factors as
    /// `i32`, `V_MAD_I64_I32` / `S_MUL_HI_I32`); the VALU form also gives
    /// the carry out of bit 63 as a lane mask.
    #[allow(clippy::too_many_arguments)]
    fn mad64(
        &mut self,
        lo: VReg,
        hi: VReg,
        a: VReg,
        b: VReg,
        clo: VReg,
        chi: VReg,
        signed: bool,
    ) -> Option<VReg> {
        let (mul_hi, mad) = if signed {
            ("S_MUL_HI_I32", "V_MAD_I64_I32")
        } else {
            ("S_MUL_HI_U32", "V_MAD_U64_U32")
        };
        if self.is_sgpr(lo) && self.is_sgpr(hi) {
            if self.consts.get(&clo) == Some(&0) && self.consts.get(&chi) == Some(&0) {
                self.salu2("S_MUL_I32", lo, a, b);
                self.salu2(mul_hi, hi, a, b);
                return None;
            }
            let (tl, th) = (self.vreg(self.cls.sgpr), self.vreg(self.cls.sgpr));
            self.salu2("S_MUL_I32", tl, a, b);
            self.salu2(mul_hi, th, a, b);
            let clo = self.sop(clo, &mut false);
            let chi = self.sop(chi, &mut false);
            self.emit(self.op("S_ADD_U32"), vec![def(lo), use_(tl), clo]);
            self.emit(self.op("S_ADDC_U32"), vec![def(hi), use_(th), chi]);
            return None;
        }
        let zero_acc = self.consts.get(&clo) == Some(&0) && self.consts.get(&chi) == Some(&0);
        let mut used = Vec::new();
        let (a, b) = (self.vsrc(a, &mut used), self.vsrc(b, &mut used));
        let p = self.vreg(self.cls.vreg64);
        let m = self.vreg(self.cls.mask);
        if zero_acc {
            self.emit(
                self.op(&format!("{mad}_imm")),
                vec![def(p), def(m), a, b, Operand::Imm(0)],
            );
        } else {
            // A chained MAD: the accumulator is the previous MAD's pair.
            let whole = match (self.halves.get(&clo), self.halves.get(&chi)) {
                (Some(&(pl, 0)), Some(&(ph, 1))) if pl == ph => Some(pl),
                _ => None,
            };
            // Uniform halves in SGPRs: the accumulator is their SGPR pair
            // when the constant bus has a slot left after the factors
            // (VOP3's src2 reads a 64-bit SGPR operand as one value).
            let scalar = whole.is_none()
                && used.len() < self.bus
                && [clo, chi]
                    .iter()
                    .all(|&x| self.is_sgpr(x) && !self.consts.contains_key(&x));
            // An undefined high half: no register holds it.
            let chi_undef = self.undefs.contains(&chi);
            let scalar = scalar && !chi_undef;
            let straddle = match (whole, self.halves.get(&clo), self.halves.get(&chi)) {
                (None, Some(&(pl, 1)), Some(&(ph, 0))) if pl != ph => self.straddle(pl, ph),
                (None, Some(&(pl, 1)), _) if chi_undef => self.over_undef(pl, chi),
                _ => None,
            };
            let acc = match (whole, straddle) {
                (Some(pair), _) | (None, Some(pair)) => pair,
                _ if scalar => self.vreg(self.cls.sgpr64),
                _ => self.vreg(self.cls.vreg64),
            };
            match whole.or(straddle) {
                Some(_) => {}
                None if scalar => self.join_pair(acc, clo, chi),
                None if chi_undef => {
                    let vl = self.part_of_pair(clo);
                    self.join_pair_of(acc, use_(vl), undef_use(chi));
                }
                None => {
                    let (vl, vh) = (self.part_of_pair(clo), self.part_of_pair(chi));
                    self.join_pair(acc, vl, vh);
                }
            }
            self.emit(self.op(mad), vec![def(p), def(m), a, b, use_(acc)]);
        }
        for (k, (d, sub)) in [(lo, self.cls.sub0), (hi, self.cls.sub1)]
            .into_iter()
            .enumerate()
        {
            if !self.is_sgpr(d) {
                self.halves.insert(d, (p, k as u8));
            }
            let t = self.valu_def(d);
            self.emit(
                self.isa.instrs.copy,
                vec![
                    def(t),
                    Operand::Reg(RegOperand::use_of(RegRef::Virt(p), Some(sub))),
                ],
            );
            self.finish_valu(d, t);
        }
        Some(m)
    }

    /// The accumulator `(x.hi, y.lo)` of two MAD pairs `x`, `y` as the
    /// middle pair of one four-register tuple `x:y` (`sub1_sub2` of a
    /// `REG_SEQUENCE x, sub0_sub1, y, sub2_sub3`), which coalescing turns
    /// into no instruction: the column chains' join of column 0's high
    /// half and the top column's seed (llc's GlobalISel output has the
    /// same register layout). The hardware fact served: a VGPR pair
    /// operand may start at any register, except where pairs must be
    /// even-aligned (gfx90a: then `None`, and the halves are copied).
    fn straddle(&mut self, x: VReg, y: VReg) -> Option<VReg> {
        self.middle_pair("VReg_128", use_(x), ("sub2_sub3", use_(y)))
    }

    /// The accumulator `(x.hi, undefined)` of a MAD whose high half no bit
    /// read depends on: the upper pair of a three-register tuple whose low
    /// pair is `x` (`sub1_sub2` of `REG_SEQUENCE x, sub0_sub1, undef u,
    /// sub2`), so that after coalescing the MAD reads `x`'s high register
    /// and whatever the register after it holds, a live value or not
    /// (`undef`: the lane has no value, so no register is kept for it).
    /// The hardware fact served: `v_mad_u64_u32`'s low half is `lo(a * b)
    /// + acc_lo`, whatever `acc_hi` is. Pairs that must be even-aligned
    /// (gfx90a) have `None`: `x.hi` is an odd register.
    fn over_undef(&mut self, x: VReg, u: VReg) -> Option<VReg> {
        self.middle_pair("VReg_96", use_(x), ("sub2", undef_use(u)))
    }

    /// The pair `sub1_sub2` of a tuple of class `rc` built from the pair
    /// `low` (`sub0_sub1`) and `high` (at its index), as a new 64-bit VGPR
    /// (`None` where pairs must be even-aligned: `sub1_sub2` is odd).
    fn middle_pair(&mut self, rc: &str, low: Operand, high: (&str, Operand)) -> Option<VReg> {
        use regdesc_runtime::RegisterInfo;
        if self.isa.gfx.needs_aligned_vgprs() {
            return None;
        }
        let t = crate::Gfx::Gfx900.tables();
        let rc = t.class_by_name(rc)?;
        let (lo, mid, hi) = (
            t.sub_reg_index_by_name("sub0_sub1")?,
            t.sub_reg_index_by_name("sub1_sub2")?,
            t.sub_reg_index_by_name(high.0)?,
        );
        let whole = self.vreg(rc);
        self.emit(
            self.isa.instrs.reg_sequence,
            vec![
                def(whole),
                low,
                Operand::SubIdx(lo),
                high.1,
                Operand::SubIdx(hi),
            ],
        );
        let acc = self.vreg(self.cls.vreg64);
        self.emit(
            self.isa.instrs.copy,
            vec![
                def(acc),
                Operand::Reg(RegOperand::use_of(RegRef::Virt(whole), Some(mid))),
            ],
        );
        Some(acc)
    }

    /// `lo, hi = (xh:xl) op k`: one 64-bit shift of the halves as a pair,
    /// the result's halves read as `sub0` and `sub1`. A uniform result on
    /// the SALU: the halves joined into an SGPR pair (`REG_SEQUENCE`),
    /// `s_lshl_b64`/`s_lshr_b64`/`s_ashr_i64`. Per lane: the VGPR pair a
    /// MAD or another 64-bit shift wrote the halves in (else joined),
    /// `v_lshlrev_b64`/`v_lshrrev_b64`/`v_ashrrev_i64` (the amount first).
    fn shift64(&mut self, op: BinOp, lo: VReg, hi: VReg, xl: VReg, xh: VReg, k: i64) {
        let scalar = self.is_sgpr(lo);
        let rc = if scalar {
            self.cls.sgpr64
        } else {
            self.cls.vreg64
        };
        let x = match (scalar, self.halves.get(&xl), self.halves.get(&xh)) {
            (false, Some(&(pl, 0)), Some(&(ph, 1))) if pl == ph => pl,
            _ => {
                let (xl, xh) = if scalar {
                    (self.ssrc(xl), self.ssrc(xh))
                } else {
                    (self.part_of_pair(xl), self.part_of_pair(xh))
                };
                let x = self.vreg(rc);
                self.join_pair(x, xl, xh);
                x
            }
        };
        let name = match (op, scalar) {
            (BinOp::Shl, true) => "S_LSHL_B64",
            (BinOp::LShr, true) => "S_LSHR_B64",
            (_, true) => "S_ASHR_I64",
            (BinOp::Shl, false) => "V_LSHLREV_B64",
            (BinOp::LShr, false) => "V_LSHRREV_B64",
            (_, false) => "V_ASHRREV_I64",
        };
        let p = self.vreg(rc);
        let ops = if scalar {
            vec![def(p), use_(x), Operand::Imm(k)]
        } else {
            vec![def(p), Operand::Imm(k), use_(x)]
        };
        self.emit(self.op(name), ops);
        for (half, (d, sub)) in [(lo, self.cls.sub0), (hi, self.cls.sub1)]
            .into_iter()
            .enumerate()
        {
            if !scalar {
                self.halves.insert(d, (p, half as u8));
            }
            self.emit(
                self.isa.instrs.copy,
                vec![
                    def(d),
                    Operand::Reg(RegOperand::use_of(RegRef::Virt(p), Some(sub))),
                ],
            );
        }
    }

    fn bfe(&mut self, signed: bool, d: VReg, a: VReg, w: i64) {
        if self.is_sgpr(d) {
            let a = self.ssrc(a);
            let name = if signed { "S_BFE_I32" } else { "S_BFE_U32" };
            self.emit(self.op(name), vec![def(d), use_(a), Operand::Imm(w << 16)]);
        } else {
            let name = if signed { "V_BFE_I32" } else { "V_BFE_U32" };
            self.emit(
                self.op(name),
                vec![def(d), use_(a), Operand::Imm(0), Operand::Imm(w)],
            );
        }
    }

    fn float(&mut self, name: &str, fmt: FloatFmt, d: VReg, a: VReg, b: VReg) {
        if fmt == FloatFmt::F16 && self.isa.gfx == Gfx::Gfx1030 {
            // gfx10 keeps the high half: clear it.
            let t = self.vreg(self.cls.vgpr);
            self.valu2(name, t, a, b);
            let u = self.valu_def(d);
            self.emit(
                self.op("V_AND_B32_imm"),
                vec![def(u), Operand::Imm(0xffff), use_(t)],
            );
            self.finish_valu(d, u);
        } else {
            self.valu2(name, d, a, b);
        }
    }

    fn inst(&mut self, i: MInst) -> Result<(), TargetError> {
        let sem = self.isa.instrs.desc(i.opcode).sem;
        let v = |k: usize| i.ops.get(k).and_then(Operand::vreg);
        let imm = |k: usize| match i.ops.get(k) {
            Some(Operand::Imm(x)) => Some(*x),
            _ => None,
        };
        let name = self.isa.instrs.name(i.opcode).to_string();
        let bad = |s: &Self| unsupported(s.f, &format!("the generic instruction `{name}`"));
        match sem {
            Sem::Copy => {
                let src = i
                    .ops
                    .get(1)
                    .and_then(Operand::reg)
                    .and_then(RegOperand::phys);
                match (
                    v(0),
                    src.and_then(|r| self.kernargs.iter().find(|w| w.reg == r)),
                ) {
                    (Some(d), Some(w)) => {
                        let w = *w;
                        self.kernarg(d, w);
                    }
                    _ => self.out.push(i),
                }
            }
            Sem::ImplicitDef => {
                if let Some(d) = v(0) {
                    self.undefs.insert(d);
                }
                self.out.push(i)
            }
            Sem::Phi | Sem::RegSequence => self.out.push(i),
            Sem::Branch | Sem::Return => self.out.push(i),
            Sem::MovImm => {
                let (Some(d), Some(x)) = (v(0), imm(1)) else {
                    return Err(bad(self));
                };
                let x = i64::from(x as u32);
                self.consts.insert(d, x);
                let op = if self.is_sgpr(d) {
                    "S_MOV_B32_imm"
                } else {
                    "V_MOV_B32_imm"
                };
                self.emit(self.op(op), vec![def(d), Operand::Imm(x)]);
            }
            Sem::Binary(op) => {
                let (Some(d), Some(a), Some(b)) = (v(0), v(1), v(2)) else {
                    return Err(bad(self));
                };
                self.binary(op, d, a, b);
            }
            Sem::Compare(p) => {
                let (Some(d), Some(a), Some(b)) = (v(0), v(1), v(2)) else {
                    return Err(bad(self));
                };
                self.compare(p, d, a, b);
            }
            Sem::Select => {
                let (Some(d), Some(c), Some(a), Some(b)) = (v(0), v(1), v(2), v(3)) else {
                    return Err(bad(self));
                };
                self.select(d, c, a, b);
            }
            Sem::CondBranch => {
                let (Some(c), Some(Operand::Block(t)), Some(Operand::Block(e))) =
                    (v(0), i.ops.get(1), i.ops.get(2))
                else {
                    return Err(bad(self));
                };
                let (t, e) = (*t, *e);
                if !self.is_sgpr(c) {
                    // Lowered to EXEC masking after PHI elimination (crate::cf).
                    let m = self.mask_of(c);
                    self.emit(
                        self.op("SI_BRCOND"),
                        vec![use_(m), Operand::Block(t), Operand::Block(e)],
                    );
                    return Ok(());
                }
                self.scc_of(c);
                self.emit(
                    self.op("S_CBRANCH_SCC1"),
                    vec![Operand::Block(t), Operand::Block(e)],
                );
            }
            Sem::Limb(l) => self.limb(l, &i, &name)?,
            Sem::Target(_) if i.opcode == self.op("G_AMD_MAD64_CO") => {
                let (Some(lo), Some(hi), Some(co), Some(a), Some(b), Some(cl), Some(ch)) =
                    (v(0), v(1), v(2), v(3), v(4), v(5), v(6))
                else {
                    return Err(bad(self));
                };
                match self.mad64(lo, hi, a, b, cl, ch, false) {
                    Some(m) => self.bool_from_mask(co, m),
                    None => return Err(bad(self)),
                }
            }
            Sem::Target(_) if i.opcode == self.op("G_AMD_MAD_I64_I32") => {
                let (Some(lo), Some(hi), Some(a), Some(b), Some(cl), Some(ch)) =
                    (v(0), v(1), v(2), v(3), v(4), v(5))
                else {
                    return Err(bad(self));
                };
                self.mad64(lo, hi, a, b, cl, ch, true);
            }
            Sem::Target(_) if matches!(self.isa.kind(i.opcode), Some(Kind::GShift64(_))) => {
                let (Some(Kind::GShift64(op)), Some(lo), Some(hi), Some(xl), Some(xh)) =
                    (self.isa.kind(i.opcode), v(0), v(1), v(2), v(3))
                else {
                    return Err(bad(self));
                };
                let Some(Operand::Imm(k)) = i.ops.get(4) else {
                    return Err(bad(self));
                };
                self.shift64(op, lo, hi, xl, xh, *k);
            }
            Sem::Target(_) if i.opcode == self.op("V_ALIGNBIT_B32") => {
                let (Some(d), Some(hi), Some(lo), Some(Operand::Imm(k))) =
                    (v(0), v(1), v(2), i.ops.get(3))
                else {
                    return Err(bad(self));
                };
                let k = *k;
                let mut used = Vec::new();
                let (hi, lo) = (self.vsrc(hi, &mut used), self.vsrc(lo, &mut used));
                self.emit(i.opcode, vec![def(d), hi, lo, Operand::Imm(k)]);
            }
            Sem::Target(_) if i.opcode == self.op("V_LSHL_ADD_U32") => {
                let (Some(d), Some(a), Some(Operand::Imm(k)), Some(c)) =
                    (v(0), v(1), i.ops.get(2), v(3))
                else {
                    return Err(bad(self));
                };
                let k = *k;
                let mut used = Vec::new();
                let (a, c) = (self.vsrc(a, &mut used), self.vsrc(c, &mut used));
                self.emit(i.opcode, vec![def(d), a, Operand::Imm(k), c]);
            }
            Sem::Target(_) if i.opcode == self.op("V_ADD3_U32") => {
                let (Some(d), Some(a), Some(b), Some(c)) = (v(0), v(1), v(2), v(3)) else {
                    return Err(bad(self));
                };
                let mut used = Vec::new();
                let (a, b, c) = (
                    self.vsrc(a, &mut used),
                    self.vsrc(b, &mut used),
                    self.vsrc(c, &mut used),
                );
                self.emit(i.opcode, vec![def(d), a, b, c]);
            }
            _ => return Err(bad(self)),
        }
        Ok(())
    }

    fn limb(&mut self, l: LimbOp, i: &MInst, name: &str) -> Result<(), TargetError> {
        let vs: Vec<Option<VReg>> = i.ops.iter().map(Operand::vreg).collect();
        let v = |k: usize| vs.get(k).copied().flatten();
        let imm = |k: usize| match i.ops.get(k) {
            Some(Operand::Imm(x)) => Some(*x),
            _ => None,
        };
        let bad = || unsupported(self.f, &format!("the generic instruction `{name}`"));
        match l {
            LimbOp::UAddO | LimbOp::USubO => {
                let (Some(d), Some(c), Some(a), Some(b)) = (v(0), v(1), v(2), v(3)) else {
                    return Err(bad());
                };
                self.carry(l == LimbOp::USubO, d, c, a, b, None);
            }
            LimbOp::UAddE | LimbOp::USubE => {
                let (Some(d), Some(c), Some(a), Some(b), Some(x)) = (v(0), v(1), v(2), v(3), v(4))
                else {
                    return Err(bad());
                };
                self.carry(l == LimbOp::USubE, d, c, a, b, Some(x));
            }
            LimbOp::UMulH | LimbOp::SMulH => {
                let (Some(d), Some(a), Some(b)) = (v(0), v(1), v(2)) else {
                    return Err(bad());
                };
                let signed = l == LimbOp::SMulH;
                if self.is_sgpr(d) {
                    let n = if signed {
                        "S_MUL_HI_I32"
                    } else {
                        "S_MUL_HI_U32"
                    };
                    self.salu2(n, d, a, b);
                } else {
                    let n = if signed {
                        "V_MUL_HI_I32"
                    } else {
                        "V_MUL_HI_U32"
                    };
                    self.valu2(n, d, a, b);
                }
            }
            LimbOp::Mad64 => {
                let (Some(lo), Some(hi), Some(a), Some(b), Some(cl), Some(ch)) =
                    (v(0), v(1), v(2), v(3), v(4), v(5))
                else {
                    return Err(bad());
                };
                self.mad64(lo, hi, a, b, cl, ch, false);
            }
            LimbOp::ZextInReg | LimbOp::SextInReg => {
                let (Some(d), Some(a), Some(w)) = (v(0), v(1), imm(2)) else {
                    return Err(bad());
                };
                self.bfe(l == LimbOp::SextInReg, d, a, w);
            }
            LimbOp::Float(op, fmt) => {
                let (Some(d), Some(a), Some(b)) = (v(0), v(1), v(2)) else {
                    return Err(bad());
                };
                let on = match op {
                    regdesc_codegen::mir::instr::FBinOp::FAdd => "ADD",
                    regdesc_codegen::mir::instr::FBinOp::FSub => "SUB",
                    regdesc_codegen::mir::instr::FBinOp::FMul => "MUL",
                };
                let t = if fmt == FloatFmt::F16 { "F16" } else { "F32" };
                self.float(&format!("V_{on}_{t}_E64"), fmt, d, a, b);
            }
            LimbOp::Load => {
                let (Some(d), Some(lo), Some(hi), Some(n)) = (v(0), v(1), v(2), imm(3)) else {
                    return Err(bad());
                };
                if n == 4 && self.is_sgpr(d) && self.unclobbered.contains(&d) {
                    if let Some((sp, off)) = self.uniform_address(lo, hi) {
                        self.emit(
                            self.op("S_LOAD_DWORD_GLOBAL"),
                            vec![def(d), use_(sp), Operand::Imm(off)],
                        );
                        return Ok(());
                    }
                }
                // The `saddr` form, or a VGPR pair address.
                let at = match self.lane_address(lo, hi) {
                    Some(a) => Ok(a),
                    None => Err(self.address(lo, hi)),
                };
                let t = self.valu_def(d);
                // Three bytes are a halfword and the byte above it: a dword
                // would read a byte past the value (zero-extended, `n` bytes
                // is the generic load's meaning).
                let parts: &[(i64, i64)] = if n == 3 { &[(2, 0), (1, 2)] } else { &[(n, 0)] };
                let mut got = Vec::with_capacity(parts.len());
                for &(size, byte) in parts {
                    let r = if parts.len() == 1 {
                        t
                    } else {
                        self.vreg(self.cls.vgpr)
                    };
                    match at {
                        Ok((voff, sp, off)) => {
                            let name = match size {
                                1 => "GLOBAL_LOAD_UBYTE_SADDR",
                                2 => "GLOBAL_LOAD_USHORT_SADDR",
                                _ => "GLOBAL_LOAD_DWORD_SADDR",
                            };
                            self.emit(
                                self.op(name),
                                vec![def(r), use_(voff), use_(sp), Operand::Imm(off + byte)],
                            );
                        }
                        Err((addr, off)) => {
                            let name = match size {
                                1 => "GLOBAL_LOAD_UBYTE",
                                2 => "GLOBAL_LOAD_USHORT",
                                _ => "GLOBAL_LOAD_DWORD",
                            };
                            self.emit(
                                self.op(name),
                                vec![def(r), use_(addr), Operand::Imm(off + byte)],
                            );
                        }
                    }
                    got.push(r);
                }
                if let [low, high] = got[..] {
                    let up = self.vreg(self.cls.vgpr);
                    self.emit(
                        self.op("V_LSHLREV_B32_E64"),
                        vec![def(up), Operand::Imm(16), use_(high)],
                    );
                    self.emit(self.op("V_OR_B32_e64"), vec![def(t), use_(low), use_(up)]);
                }
                self.finish_valu(d, t);
            }
            LimbOp::Store => {
                let (Some(x), Some(lo), Some(hi), Some(n)) = (v(0), v(1), v(2), imm(3)) else {
                    return Err(bad());
                };
                if let Some((voff, sp, off)) = self.lane_address(lo, hi) {
                    let name = match n {
                        1 => "GLOBAL_STORE_BYTE_SADDR",
                        2 => "GLOBAL_STORE_SHORT_SADDR",
                        _ => "GLOBAL_STORE_DWORD_SADDR",
                    };
                    let x = self.in_vgpr(x);
                    self.emit(
                        self.op(name),
                        vec![use_(voff), use_(x), use_(sp), Operand::Imm(off)],
                    );
                    return Ok(());
                }
                let (addr, off) = self.address(lo, hi);
                let x = self.in_vgpr(x);
                let op = match n {
                    1 => "GLOBAL_STORE_BYTE",
                    2 => "GLOBAL_STORE_SHORT",
                    _ => "GLOBAL_STORE_DWORD",
                };
                self.emit(self.op(op), vec![use_(addr), use_(x), Operand::Imm(off)]);
            }
            LimbOp::WorkitemId | LimbOp::WorkgroupId => {
                let Some(d) = v(0) else {
                    return Err(bad());
                };
                let (key, rc) = if l == LimbOp::WorkitemId {
                    ("V_WORKITEM_ID_X", self.cls.vgpr)
                } else {
                    ("S_WORKGROUP_ID_X", self.cls.sgpr)
                };
                let id = self.hw_id(key, rc);
                self.emit(self.isa.instrs.copy, vec![def(d), use_(id)]);
            }
            LimbOp::WorkgroupSize => {
                return Err(unsupported(
                    self.f,
                    &format!("`{name}` (the dispatch packet is not lowered)"),
                ))
            }
        }
        Ok(())
    }
}

/// Selects GCN instructions for `f` (generic, legalized, SSA) in place.
pub fn select(
    f: &mut MFunction,
    isa: &Isa,
    cls: Classes,
    kernargs: Option<&[KernargWord]>,
) -> Result<(), TargetError> {
    let bus = isa.gfx.constant_bus_limit();
    crate::combine::combine(f, isa, cls.vgpr);
    let blocks: Vec<MBlockId> = f.block_ids().collect();
    let mut sel = Sel {
        isa,
        cls,
        f,
        out: Vec::new(),
        twin: HashMap::new(),
        derived: HashMap::new(),
        scc_holds: None,
        consts: HashMap::new(),
        bus,
        kernargs: kernargs.unwrap_or(&[]),
        prologue: Vec::new(),
        ids: HashMap::new(),
        offsets: HashMap::new(),
        vcopies: HashMap::new(),
        addresses: HashMap::new(),
        halves: HashMap::new(),
        undefs: Default::default(),
        lanes: HashMap::new(),
        voffs: HashMap::new(),
        spairs: HashMap::new(),
        unclobbered: Default::default(),
        demand: Vec::new(),
    };
    // Only a narrow kernel argument asks (`Sel::kernarg`).
    if sel.kernargs.iter().any(|w| w.bits < 32) {
        sel.demand = regdesc_codegen::legalize::demanded_bits::demanded_bits(sel.f, &isa.instrs);
    }
    if kernargs.is_some() {
        sel.unclobbered = memory::unclobbered_loads(sel.f, isa);
    }
    sel.offsets = memory::address_offsets(sel.f, isa);
    sel.lanes = memory::lane_addresses(sel.f, isa, cls.sgpr);
    for b in blocks {
        let insts = std::mem::take(&mut sel.f.blocks[b].insts);
        sel.derived.clear();
        sel.vcopies.clear();
        sel.addresses.clear();
        sel.spairs.clear();
        sel.scc_holds = None;
        for i in insts {
            sel.inst(i)?;
        }
        sel.f.blocks[b].insts = std::mem::take(&mut sel.out);
    }
    let prologue = std::mem::take(&mut sel.prologue);
    if let Some(entry) = f.blocks.iter_mut().next() {
        entry.insts.splice(0..0, prologue);
        // The kernarg loads go first, what reads their results after them,
        // so that one wait (crate::waitcnt) covers them all.
        let load = isa.op("S_LOAD_DWORD");
        let ids = [isa.op("V_WORKITEM_ID_X"), isa.op("S_WORKGROUP_ID_X")];
        if let Some(k) = entry.insts.iter().rposition(|i| i.opcode == load) {
            let head: Vec<MInst> = entry.insts.drain(..=k).collect();
            let (loads, readers): (Vec<MInst>, Vec<MInst>) = head
                .into_iter()
                .partition(|i| i.opcode == load || ids.contains(&i.opcode));
            let mut front = loads;
            front.extend(readers);
            entry.insts.splice(0..0, front);
        }
    }
    // Dead argument words (the high limbs of a truncated product) go
    // before the widening counts the words it loads.
    dead_code(f, isa);
    memory::widen_kernarg_loads(f, isa, cls.sgpr, kernargs.unwrap_or(&[]));
    memory::pairs_of_tuples(f, isa);
    dead_code(f, isa);
    widen::widen_stores(f, isa);
    widen::widen_loads(f, isa);
    widen::widen_scalar_loads(f, isa);
    dead_code(f, isa);
    Ok(())
}

/// Removes instructions whose explicit defs are all unused virtual
/// registers and that have no other effect (no memory, no control, no
/// implicit def other than an `SCC` that nothing reads before it is
/// written again: the dead halves of combined adds, address arithmetic
/// whose offset went into the memory instruction).
pub fn dead_code(f: &mut MFunction, isa: &Isa) {
    let scc = isa.scc;
    loop {
        let mut uses: HashMap<VReg, usize> = HashMap::new();
        for b in &f.blocks {
            for i in &b.insts {
                for (_, r) in i.reg_ops() {
                    if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                        *uses.entry(v).or_default() += 1;
                    }
                }
            }
        }
        let mut changed = false;
        for b in f.blocks.iter_mut() {
            // Whether SCC is read after each instruction before being
            // written (SCC never lives across blocks: selection sets it
            // for the branch that reads it).
            let mut scc_live_after = vec![false; b.insts.len()];
            let mut live = false;
            for (k, i) in b.insts.iter().enumerate().rev() {
                scc_live_after[k] = live;
                let d = isa.instrs.desc(i.opcode);
                if d.implicit_defs.contains(&scc) {
                    live = false;
                }
                if d.implicit_uses.contains(&scc) {
                    live = true;
                }
            }
            let mut k = 0;
            b.insts.retain(|i| {
                let at = k;
                k += 1;
                let d = isa.instrs.desc(i.opcode);
                let only_scc = d.implicit_defs.iter().all(|r| *r == scc);
                let scc_dead = !d.implicit_defs.contains(&scc) || !scc_live_after[at];
                if d.num_defs == 0 || !only_scc || !scc_dead || d.is_terminator {
                    return true;
                }
                if matches!(d.sem, Sem::Limb(LimbOp::Store) | Sem::Return | Sem::Branch) {
                    return true;
                }
                let dead = i.ops[..d.num_defs.min(i.ops.len())].iter().all(|o| {
                    o.reg()
                        .and_then(RegOperand::vreg)
                        .is_some_and(|v| !uses.contains_key(&v))
                });
                changed |= dead;
                !dead
            });
        }
        if !changed {
            break;
        }
    }
}

/// A use of `v` that reads nothing (`undef`): a tuple part with no value.
fn undef_use(v: VReg) -> Operand {
    let mut r = RegOperand::use_of(RegRef::Virt(v), None);
    r.set_undef(true);
    Operand::Reg(r)
}
