//! Memory and the kernel ABI in selection: kernarg loads, addresses and
//! their immediate offsets (the hardware facts in [`crate::abi`] and
//! [`crate::isa`]: `s_load_dword` reads aligned dwords of the kernarg
//! segment, `global_load`/`global_store` take a 64-bit VGPR address and a
//! 12-bit immediate offset).

use std::collections::HashMap;

use regdesc_codegen::mir::instr::LimbOp;
use regdesc_codegen::mir::{MFunction, MInst, Operand, RegOperand, RegRef, Sem, VReg};

use super::{def, use_, Sel};
use crate::abi::KernargWord;
use crate::isa::Isa;

impl Sel<'_> {
    /// A 64-bit address in a VGPR pair, and an immediate offset: `p + K`
    /// with a small constant K is `p` and K (the instruction adds it).
    pub(super) fn address(&mut self, lo: VReg, hi: VReg) -> (VReg, i128) {
        let (lo, hi, off) = match self.offsets.get(&(lo, hi)) {
            Some(&(plo, phi, k)) => (plo, phi, k),
            None => (lo, hi, 0),
        };
        if let Some(a) = self.addresses.get(&(lo, hi)) {
            return (*a, off);
        }
        let key = (lo, hi);
        let (lo, hi) = (self.in_vgpr(lo), self.in_vgpr(hi));
        let a = self.vreg(self.cls.vreg64);
        self.addresses.insert(key, a);
        self.emit(
            self.isa.instrs.reg_sequence,
            vec![
                def(a),
                use_(lo),
                Operand::SubIdx(self.cls.sub0),
                use_(hi),
                Operand::SubIdx(self.cls.sub1),
            ],
        );
        (a, off)
    }

    /// Kernel argument word `w` into `d`: `s_load_dword` from the kernarg
    /// segment (the aligned dword holding it), `s_bfe_u32` for a narrower
    /// argument.
    pub(super) fn kernarg(&mut self, d: VReg, w: KernargWord) {
        let full = w.bits >= 32 && w.offset.is_multiple_of(4);
        let t = if full && self.is_sgpr(d) {
            d
        } else {
            self.vreg(self.cls.sgpr)
        };
        self.out.push(MInst::new(
            self.op("S_LOAD_DWORD"),
            vec![
                def(t),
                Operand::Reg(RegOperand::use_of(RegRef::Phys(self.cls.kernarg_ptr), None)),
                Operand::Imm(i128::from(w.offset)),
                Operand::Reg(RegOperand {
                    implicit: true,
                    ..RegOperand::use_of(RegRef::Phys(w.reg), None)
                }),
            ],
        ));
        let u = if full {
            t
        } else {
            let u = if self.is_sgpr(d) {
                d
            } else {
                self.vreg(self.cls.sgpr)
            };
            let field = (i128::from(w.bits.min(32)) << 16) | i128::from(8 * (w.offset % 4));
            self.emit(
                self.op("S_BFE_U32"),
                vec![def(u), use_(t), Operand::Imm(field)],
            );
            u
        };
        if u != d {
            self.emit(self.isa.instrs.copy, vec![def(d), use_(u)]);
        }
    }
}

/// Addresses of the form `p + K` (`lo, c = G_UADDO p.lo, K` and
/// `hi = G_UADDE p.hi, 0, c`) with K small enough for the memory
/// instructions' immediate offset (12 bits, unsigned here).
pub(super) fn address_offsets(
    f: &MFunction,
    isa: &Isa,
) -> HashMap<(VReg, VReg), (VReg, VReg, i128)> {
    let s = &isa.instrs;
    let mut consts: HashMap<VReg, i128> = HashMap::new();
    let mut lows: HashMap<VReg, (VReg, VReg, i128)> = HashMap::new();
    let mut out = HashMap::new();
    let v = |i: &MInst, k: usize| i.ops.get(k).and_then(Operand::vreg);
    for b in &f.blocks {
        for i in &b.insts {
            match s.desc(i.opcode).sem {
                Sem::MovImm => {
                    if let (Some(d), Some(Operand::Imm(x))) = (v(i, 0), i.ops.get(1)) {
                        consts.insert(d, *x);
                    }
                }
                Sem::Limb(LimbOp::UAddO) => {
                    if let (Some(d), Some(c), Some(a), Some(k)) =
                        (v(i, 0), v(i, 1), v(i, 2), v(i, 3))
                    {
                        if let Some(&x) = consts.get(&k).filter(|x| (0..2048).contains(*x)) {
                            lows.insert(c, (d, a, x));
                        }
                    }
                }
                Sem::Limb(LimbOp::UAddE) => {
                    if let (Some(h), Some(a), Some(z), Some(c)) =
                        (v(i, 0), v(i, 2), v(i, 3), v(i, 4))
                    {
                        if let (Some(&(lo, plo, k)), Some(0)) = (lows.get(&c), consts.get(&z)) {
                            out.insert((lo, h), (plo, a, k));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}
