//! Spill code: SGPRs spill into lanes of a VGPR.
//!
//! The hardware fact served: `v_writelane_b32 v, s, N` writes an SGPR's
//! value into lane N of a VGPR whatever `EXEC` is, and
//! `v_readlane_b32 s, v, N` reads it back, so an SGPR needs no memory to
//! be spilled (LLVM's `SILowerSGPRSpills` does the same). The lanes come
//! from [`SPILL_VGPRS`] (`v240..v247`, caller-saved, kept from the
//! allocator): two lanes per stack slot, so a 64-bit lane mask fits. VGPRs
//! would need scratch memory, which is not lowered: they keep the generic
//! spill code, and emission refuses it.

use regdesc_codegen::mir::{FrameIdx, MFunction, MInst, Operand, RegOperand, RegRef, VReg};
use regdesc_codegen::regalloc::{SpillError, SpillHook};
use regdesc_runtime::{Reg, RegClass, RegisterInfo};

use crate::semantics::is_vgpr_class;
use regdesc_codegen::target::Target;

use crate::{Amdgpu, Gfx};

/// The VGPRs whose lanes hold spilled SGPRs.
pub const SPILL_VGPRS: std::ops::Range<usize> = 240..248;

/// The spill VGPRs.
pub fn spill_vgprs() -> Vec<Reg> {
    let t = Gfx::Gfx900.tables();
    SPILL_VGPRS
        .filter_map(|k| t.reg_by_name(&format!("VGPR{k}")))
        .collect()
}

impl Amdgpu {
    /// The VGPR and lane of dword `k` of stack slot `slot`.
    fn lane_of(
        &self,
        f: &MFunction,
        rc: RegClass,
        slot: FrameIdx,
        k: u32,
    ) -> Result<(Reg, u32), SpillError> {
        // A slot takes one lane per dword, after the lanes of the slots
        // before it.
        let n = f.frame[..slot.0 as usize]
            .iter()
            .map(|o| o.size.div_ceil(4).max(1))
            .sum::<u32>()
            + k;
        let w = self.wave_size();
        let regs = spill_vgprs();
        let what = || SpillError::Hook {
            class: Gfx::Gfx900.tables().class_name(rc).to_string(),
            why: format!(
                "@{}: more SGPR spill slots than {} lanes of v{}..v{}",
                f.name,
                regs.len() as u32 * w,
                SPILL_VGPRS.start,
                SPILL_VGPRS.end - 1
            ),
        };
        let r = regs.get((n / w) as usize).copied().ok_or_else(what)?;
        Ok((r, n % w))
    }

    /// The dword parts of a value of class `rc`: `None` for a 32-bit
    /// class, else its `sub0`, `sub1`, ... (`None` for a class of no
    /// whole dwords).
    fn parts(&self, rc: RegClass) -> Option<Vec<Option<regdesc_runtime::SubRegIdx>>> {
        let t = Gfx::Gfx900.tables();
        let n = self.gfx.spill_info(rc).reg_size / 32;
        match n {
            0 => None,
            1 => Some(vec![None]),
            _ => (0..n)
                .map(|k| t.sub_reg_index_by_name(&format!("sub{k}")).map(Some))
                .collect(),
        }
    }

    /// Scalar classes (SGPRs, their tuples, lane masks) spill into lanes.
    fn spillable_sgpr(&self, rc: RegClass) -> bool {
        !is_vgpr_class(rc)
    }
}

impl Amdgpu {
    /// `v_writelane_b32` (store) or `v_readlane_b32` (load) of each dword
    /// of `v`; `None` for a class that does not spill into lanes.
    fn lane_moves(
        &self,
        f: &MFunction,
        v: VReg,
        rc: RegClass,
        slot: FrameIdx,
        store: bool,
    ) -> Result<Option<Vec<MInst>>, SpillError> {
        let Some(parts) = self.parts(rc).filter(|_| self.spillable_sgpr(rc)) else {
            return Ok(None);
        };
        let op = self.isa().op(if store {
            "V_WRITELANE_B32"
        } else {
            "V_READLANE_B32"
        });
        let mut out = Vec::new();
        for (k, sub) in parts.into_iter().enumerate() {
            let (r, lane) = self.lane_of(f, rc, slot, k as u32)?;
            let vgpr = RegRef::Phys(r);
            let (d, s) = if store {
                (
                    RegOperand::def_of(vgpr, None),
                    RegOperand::use_of(RegRef::Virt(v), sub),
                )
            } else {
                let mut d = RegOperand::def_of(RegRef::Virt(v), sub);
                d.set_undef(k == 0 && sub.is_some());
                (d, RegOperand::use_of(vgpr, None))
            };
            out.push(MInst::new(
                op,
                vec![
                    Operand::Reg(d),
                    Operand::Reg(s),
                    Operand::Imm(i64::from(lane)),
                ],
            ));
        }
        Ok(Some(out))
    }
}

impl SpillHook for Amdgpu {
    fn store(
        &self,
        f: &MFunction,
        v: VReg,
        rc: RegClass,
        slot: FrameIdx,
    ) -> Result<Vec<MInst>, SpillError> {
        match self.lane_moves(f, v, rc, slot, true)? {
            Some(m) => Ok(m),
            None => self.isa().instrs.store(f, v, rc, slot),
        }
    }

    fn load(
        &self,
        f: &MFunction,
        v: VReg,
        rc: RegClass,
        slot: FrameIdx,
    ) -> Result<Vec<MInst>, SpillError> {
        match self.lane_moves(f, v, rc, slot, false)? {
            Some(m) => Ok(m),
            None => self.isa().instrs.load(f, v, rc, slot),
        }
    }
}
