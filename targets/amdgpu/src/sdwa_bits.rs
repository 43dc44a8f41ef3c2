//! Bit facts about selected SSA code, for the SDWA peephole
//! ([`crate::sdwa_peephole`]): which bits of a 32-bit value may be
//! non-zero (known zeros), and which bits of it any reader looks at
//! (demanded bits).
//!
//! The hardware facts served:
//! - a 16-bit VALU result occupies the low half of its VGPR: the
//!   sub-register the description names `lo16`. On gfx9 the rest is
//!   zero (VOP1/VOP2/VOP3 16-bit results are zero-extended); on gfx10 it
//!   is what the register held. The bits of that part come from the
//!   register tables ([`SubWords`]: each 16-bit sub-register of
//!   `VGPR_32` with its lane mask and its bit range), not from a constant
//!   written here;
//! - an SDWA result with `UNUSED_PAD` is zero outside its `dst_sel` field;
//!   with `UNUSED_PRESERVE` it is the preserved value there;
//! - a 16-bit operation reads the low 16 bits of its sources; an SDWA
//!   source reads the field its selector names.
//!
//! Both analyses are conservative: a value they know nothing about may
//! have any bit set and is read entirely.

use std::collections::HashMap;

use regdesc_codegen::mir::instr::{BinOp, FloatFmt};
use regdesc_codegen::mir::{MBlockId, MFunction, MInst, Operand, Sem, VReg};
use regdesc_runtime::{LaneMask, RegClass, RegisterInfo};

use crate::isa::{Isa, Kind};
use crate::sdwa::{self, mask, Sel, Unused};
use crate::Gfx;

type Lanes = LaneMask<<Gfx as RegisterInfo>::Lanes>;

/// The sub-registers of a 32-bit VGPR narrower than it: their lanes and
/// bits, read from the register description.
#[derive(Clone, Debug)]
pub struct SubWords {
    parts: Vec<(Lanes, u32)>,
}

impl SubWords {
    /// The parts of `vgpr` (`VGPR_32`): every sub-register index its
    /// registers have, with the index's lane mask and bit range.
    pub fn new(vgpr: RegClass) -> SubWords {
        let t = Gfx::Gfx900.tables();
        let mut parts = Vec::new();
        for i in t.all_sub_reg_indices() {
            if t.sub_class_with_sub_reg(vgpr, i) != Some(vgpr) {
                continue;
            }
            let (Some(off), Some(size)) = (t.sub_reg_index_offset(i), t.sub_reg_index_size(i))
            else {
                continue;
            };
            let (off, size) = (u32::from(off), u32::from(size));
            if off + size <= 32 && size < 32 {
                parts.push((t.sub_reg_index_lane_mask(i), mask(size) << off));
            }
        }
        SubWords { parts }
    }

    /// The lanes of the part a 16-bit result is written to: the one
    /// holding bit 0, 16 bits wide.
    pub fn low_half(&self) -> Option<Lanes> {
        self.parts
            .iter()
            .find(|(_, b)| *b == mask(16))
            .map(|(l, _)| *l)
    }

    /// The bits of the parts whose lanes lie within `lanes`.
    pub fn bits_of(&self, lanes: Lanes) -> u32 {
        self.parts
            .iter()
            .filter(|(l, _)| l.any() && l.is_subset_of(lanes))
            .fold(0, |acc, (_, b)| acc | b)
    }

    /// The bits a 16-bit VALU result may make non-zero: its part's bits.
    pub fn half_result_bits(&self) -> u32 {
        self.low_half().map_or(u32::MAX, |l| self.bits_of(l))
    }
}

/// `mask` up to and including its highest set bit (what an add, subtract
/// or multiply reads of its sources to compute those bits).
pub fn low_run(m: u32) -> u32 {
    mask(32 - m.leading_zeros())
}

/// What the peephole knows of one function (recomputed after changes).
pub struct Facts {
    /// Where each virtual register is defined: (block, index).
    pub def_at: HashMap<VReg, (MBlockId, usize)>,
    /// How many operands read each virtual register.
    pub uses: HashMap<VReg, usize>,
    /// Values that are constants (`v_mov_b32`/`s_mov_b32` of an immediate).
    pub consts: HashMap<VReg, u32>,
    /// Bits that may be non-zero.
    nz: HashMap<VReg, u32>,
    /// Bits some reader looks at.
    demanded: HashMap<VReg, u32>,
}

impl Facts {
    pub fn nz(&self, v: VReg) -> u32 {
        self.nz.get(&v).copied().unwrap_or(u32::MAX)
    }

    pub fn demanded(&self, v: VReg) -> u32 {
        self.demanded.get(&v).copied().unwrap_or(0)
    }

    pub fn single_use(&self, v: VReg) -> bool {
        self.uses.get(&v) == Some(&1)
    }

    /// The value of an operand when it is a constant.
    pub fn const_of(&self, o: &Operand) -> Option<u32> {
        match o {
            Operand::Imm(x) => Some(*x as u32),
            Operand::Reg(r) if r.sub.is_none() => {
                r.vreg().and_then(|v| self.consts.get(&v).copied())
            }
            _ => None,
        }
    }

    /// The non-zero bits of an operand (constant or register).
    pub fn nz_of(&self, o: &Operand) -> u32 {
        match (self.const_of(o), o) {
            (Some(c), _) => c,
            (None, Operand::Reg(r)) if r.sub.is_none() => r.vreg().map_or(u32::MAX, |v| self.nz(v)),
            _ => u32::MAX,
        }
    }

    pub fn def<'f>(&self, f: &'f MFunction, v: VReg) -> Option<&'f MInst> {
        let (b, k) = self.def_at.get(&v)?;
        f.blocks[*b].insts.get(*k)
    }
}

/// Computes the facts of `f` (selected, SSA).
pub fn analyze(f: &MFunction, isa: &Isa, words: &SubWords) -> Facts {
    let mut facts = Facts {
        def_at: HashMap::new(),
        uses: HashMap::new(),
        consts: HashMap::new(),
        nz: HashMap::new(),
        demanded: HashMap::new(),
    };
    for b in f.blocks.ids() {
        for (k, i) in f.blocks[b].insts.iter().enumerate() {
            for (_, r) in i.reg_ops() {
                match (r.is_def(), r.vreg()) {
                    (true, Some(v)) => {
                        facts.def_at.insert(v, (b, k));
                    }
                    (false, Some(v)) if r.reads() => *facts.uses.entry(v).or_default() += 1,
                    _ => {}
                }
            }
            if let (Some(Kind::SMov | Kind::VMov), Some(d), Some(Operand::Imm(x))) = (
                isa.kind(i.opcode),
                i.ops.first().and_then(Operand::vreg),
                i.ops.get(1),
            ) {
                facts.consts.insert(d, *x as u32);
            }
        }
    }
    // Known zeros, forwards in block order (a value read before its def
    // is reached, through a PHI, is unknown).
    let half = words.half_result_bits();
    for b in f.blocks.ids() {
        for i in &f.blocks[b].insts {
            let Some(d) = i
                .ops
                .first()
                .and_then(Operand::reg)
                .filter(|r| r.is_def() && r.sub.is_none())
                .and_then(|r| r.vreg())
            else {
                continue;
            };
            let nz = known_nonzero(&facts, isa, i, half);
            facts.nz.insert(d, nz);
        }
    }
    // Demanded bits, backwards to a fixed point.
    for _ in 0..16 {
        let mut changed = false;
        for b in f.blocks.ids().collect::<Vec<_>>().into_iter().rev() {
            for i in f.blocks[b].insts.iter().rev() {
                let dres = i
                    .ops
                    .first()
                    .and_then(Operand::reg)
                    .filter(|r| r.is_def())
                    .and_then(|r| r.vreg())
                    .map_or(u32::MAX, |d| facts.demanded(d));
                for (k, r) in i.reg_ops() {
                    let Some(v) = r.vreg().filter(|_| r.reads()) else {
                        continue;
                    };
                    let m = if r.sub.is_some() {
                        u32::MAX
                    } else {
                        demand_of_use(&facts, isa, i, k, dres)
                    };
                    let e = facts.demanded.entry(v).or_default();
                    if *e | m != *e {
                        *e |= m;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return facts;
        }
    }
    // No fixed point: everything is read.
    for v in facts.def_at.keys() {
        facts.demanded.insert(*v, u32::MAX);
    }
    facts
}

/// A constant shift amount of operand `k`.
fn amount(facts: &Facts, i: &MInst, k: usize) -> Option<u32> {
    i.ops.get(k).and_then(|o| facts.const_of(o)).map(|x| x & 31)
}

fn known_nonzero(facts: &Facts, isa: &Isa, i: &MInst, half: u32) -> u32 {
    let op = |k: usize| i.ops.get(k).map_or(u32::MAX, |o| facts.nz_of(o));
    match isa.instrs.desc(i.opcode).sem {
        Sem::Copy => return op(1),
        Sem::Target(_) => {}
        _ => return u32::MAX,
    }
    let Some(kind) = isa.kind(i.opcode) else {
        return u32::MAX;
    };
    match kind {
        Kind::SMov | Kind::VMov => op(1),
        Kind::VBin(BinOp::And) => op(1) & op(2),
        Kind::VBin(BinOp::Or | BinOp::Xor) => op(1) | op(2),
        Kind::VBinRev(s) => match (amount(facts, i, 1), s) {
            (Some(k), BinOp::Shl) => op(2) << k,
            (Some(k), BinOp::LShr) => op(2) >> k,
            (Some(k), BinOp::AShr) => ((op(2) as i32) >> k) as u32,
            _ => u32::MAX,
        },
        Kind::VBfe { signed } => match (
            amount(facts, i, 2),
            i.ops.get(3).and_then(|o| facts.const_of(o)),
        ) {
            (Some(off), Some(w)) if w > 0 && w < 32 => {
                let f = (op(1) >> off) & mask(w);
                if signed && (f >> (w - 1)) & 1 == 1 {
                    f | !mask(w)
                } else {
                    f
                }
            }
            _ => u32::MAX,
        },
        // gfx9 zero-extends a 16-bit result; gfx10 keeps the high half.
        Kind::VFloat(_, FloatFmt::F16) if !isa.gfx.is_gfx10() => half,
        Kind::VCndmask => op(1) | op(2),
        Kind::GlobalLoad(n) | Kind::GlobalLoadSaddrNarrow(n) if n < 4 => mask(8 * n),
        Kind::Sdwa(s) => {
            let Some(f) = sdwa::fields(s, i) else {
                return u32::MAX;
            };
            let w = f.dst_sel.width().min(s.result_width());
            let field = mask(w) << f.dst_sel.offset();
            match f.unused {
                Unused::Pad => field,
                Unused::Sext if w == f.dst_sel.width() => !mask(f.dst_sel.offset()),
                Unused::Sext => field,
                Unused::Preserve => {
                    let kept = f.preserved.map_or(u32::MAX, op);
                    field | (kept & !f.dst_sel.bits())
                }
            }
        }
        _ => u32::MAX,
    }
}

/// The bits of operand `k` of `i` that `i` reads, given that the bits
/// `dres` of its result are read.
pub fn demand_of_use(facts: &Facts, isa: &Isa, i: &MInst, k: usize, dres: u32) -> u32 {
    match isa.instrs.desc(i.opcode).sem {
        Sem::Copy if i.ops.first().and_then(Operand::vreg).is_some() => return dres,
        Sem::Phi => return dres,
        Sem::Target(_) => {}
        _ => return u32::MAX,
    }
    let Some(kind) = isa.kind(i.opcode) else {
        return u32::MAX;
    };
    let other = |k: usize| if k == 1 { 2 } else { 1 };
    match kind {
        Kind::VMov => dres,
        Kind::VBin(BinOp::And) => {
            dres & i
                .ops
                .get(other(k))
                .and_then(|o| facts.const_of(o))
                .unwrap_or(u32::MAX)
        }
        Kind::VBin(BinOp::Or | BinOp::Xor) => dres,
        Kind::VBin(BinOp::Add | BinOp::Sub | BinOp::Mul) | Kind::VAdd3 => low_run(dres),
        Kind::VBinRev(s) if k == 2 => match (amount(facts, i, 1), s) {
            (Some(a), BinOp::Shl) => dres >> a,
            (Some(a), BinOp::LShr) => dres << a,
            (Some(a), BinOp::AShr) => {
                let top = if a > 0 && dres & !mask(32 - a) != 0 {
                    1 << 31
                } else {
                    0
                };
                (dres << a) | top
            }
            _ => u32::MAX,
        },
        Kind::VBinRev(_) if k == 1 => 31,
        Kind::VMulI24 | Kind::VMulHiI24 if k <= 2 => mask(24),
        Kind::VBfe { .. } if k == 1 => {
            match (
                amount(facts, i, 2),
                i.ops.get(3).and_then(|o| facts.const_of(o)),
            ) {
                (Some(off), Some(w)) if w < 32 => mask(w) << off,
                _ => u32::MAX,
            }
        }
        Kind::VFloat(_, FloatFmt::F16) if k <= 2 => 0xffff,
        Kind::Sdwa(s) => {
            let Some(f) = sdwa::fields(s, i) else {
                return u32::MAX;
            };
            let n = s.num_srcs();
            if Some(k) == f.preserved {
                return dres & !f.dst_sel.bits();
            }
            if k == 0 || k > n {
                return u32::MAX;
            }
            // The result bits read, as bits of the operation's result.
            let (off, w) = (f.dst_sel.offset(), f.dst_sel.width());
            let r = match f.unused {
                Unused::Sext => mask(w),
                _ => (dres >> off) & mask(w),
            };
            let sel_demand = match s {
                sdwa::SdwaOp::Int16(BinOp::Add | BinOp::Sub | BinOp::Mul) => low_run(r) & 0xffff,
                sdwa::SdwaOp::Int16(_) | sdwa::SdwaOp::F16(_) => 0xffff,
                sdwa::SdwaOp::Mov => r,
                sdwa::SdwaOp::MulI24 | sdwa::SdwaOp::MulHiI24 => mask(24),
                sdwa::SdwaOp::Int32(BinOp::And | BinOp::Or | BinOp::Xor) => r,
                sdwa::SdwaOp::Int32(BinOp::Add | BinOp::Sub) => low_run(r),
                sdwa::SdwaOp::Int32(_) => u32::MAX,
            };
            let (sel, sext) = f.src.get(k - 1).copied().unwrap_or((Sel::Dword, false));
            let mut m = (sel_demand & mask(sel.width())) << sel.offset();
            if sext && sel_demand & !mask(sel.width()) != 0 {
                m |= 1 << (sel.offset() + sel.width() - 1);
            }
            m
        }
        _ => u32::MAX,
    }
}
