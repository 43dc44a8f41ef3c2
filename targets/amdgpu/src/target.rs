//! [`Amdgpu`]: the GCN back end as a [`Target`], for gfx900 and gfx90a
//! (wave64) and gfx1030 (wave32).
//!
//! The hardware facts served here: which class a value lives in by its
//! uniformity (`SGPR_32` for uniform values, `VGPR_32` for divergent
//! ones), how many lanes a wave runs (64 on gfx9, 32 on gfx10), which
//! registers the calling convention keeps from the allocator
//! ([`crate::abi`]), and the order of the back end's passes: selection
//! ([`crate::select`]), divergent control flow ([`crate::cf`]), copies after allocation ([`crate::copies`]),
//! emission ([`crate::emit`]).

use regdesc_codegen::ir::{BinOp, Function};
use regdesc_codegen::legalize::{Limb, MirBuilder, MulPlan};
use regdesc_codegen::mir::interp::{ExecModel, TargetSemantics};
use regdesc_codegen::mir::{InstrSet, MFunction};
use regdesc_codegen::regalloc::SpillHook;
use regdesc_codegen::target::{Abi, Target, TargetError};
use regdesc_runtime::{Reg, RegClass, RegisterInfo};

use std::cell::RefCell;
use std::collections::HashMap;

use crate::abi::KernargWord;
use crate::isa::Isa;
use crate::select::Classes;
use crate::semantics::GcnSemantics;
use crate::Gfx;

/// The AMD GCN back end for one subtarget.
pub struct Amdgpu {
    pub gfx: Gfx,
    sem: GcnSemantics,
    cls: Classes,
    /// Each kernel's kernarg words, by function name: [`Target::abi`]
    /// computes them, selection reads them.
    kernargs: RefCell<HashMap<String, Vec<KernargWord>>>,
}

fn class(name: &str) -> Result<RegClass, TargetError> {
    Gfx::Gfx900
        .tables()
        .class_by_name(name)
        .ok_or_else(|| TargetError::Unsupported {
            what: format!("the register description has no class {name}"),
            span: None,
        })
}

impl Amdgpu {
    /// The back end for `gfx`.
    pub fn new(gfx: Gfx) -> Amdgpu {
        let t = Gfx::Gfx900.tables();
        let reg = |n: &str| t.reg_by_name(n);
        let idx = |n: &str| t.sub_reg_index_by_name(n);
        // The description is compiled in; its names are known to exist
        // (tests/regs.rs checks them).
        let (Some(scc), Some(v0), Some(s6), Some(s45), Some(sub0), Some(sub1)) = (
            reg("SCC"),
            reg("VGPR0"),
            reg("SGPR6"),
            reg("SGPR4_SGPR5"),
            idx("sub0"),
            idx("sub1"),
        ) else {
            unreachable!("SIRegisterInfo.td defines SCC, VGPR0, SGPR6, SGPR4_SGPR5, sub0 and sub1")
        };
        let (Ok(sgpr), Ok(vgpr), Ok(sgpr64), Ok(vreg64)) = (
            class("SGPR_32"),
            class("VGPR_32"),
            class("SGPR_64"),
            class("VReg_64"),
        ) else {
            unreachable!("SIRegisterInfo.td defines SGPR_32, VGPR_32, SGPR_64 and VReg_64")
        };
        let mask = if gfx == Gfx::Gfx1030 { sgpr } else { sgpr64 };
        Amdgpu {
            gfx,
            sem: GcnSemantics {
                isa: Isa::new(gfx, scc, v0, s6),
                scc,
            },
            cls: Classes {
                sgpr,
                vgpr,
                sgpr64,
                mask,
                vreg64,
                sub0,
                sub1,
                scc,
                kernarg_ptr: s45,
            },
            kernargs: RefCell::new(HashMap::new()),
        }
    }

    /// The `-mcpu` name.
    pub fn cpu(&self) -> &'static str {
        self.gfx.name()
    }

    pub fn isa(&self) -> &Isa {
        &self.sem.isa
    }

    pub fn classes(&self) -> Classes {
        self.cls
    }

    fn lane_shift_ops(&self) -> crate::lane_shift::LaneShiftOps {
        crate::lane_shift::LaneShiftOps {
            alignbit: self.isa().op("V_ALIGNBIT_B32"),
            pairs: self.shift_ops(),
            aligned_pairs: self.gfx.needs_aligned_vgprs(),
        }
    }

    fn shift_ops(&self) -> crate::shift64::ShiftOps {
        crate::shift64::ShiftOps {
            shl: self.isa().op("G_AMD_SHL64"),
            lshr: self.isa().op("G_AMD_LSHR64"),
            ashr: self.isa().op("G_AMD_ASHR64"),
        }
    }
}

impl Target for Amdgpu {
    type Regs = Gfx;

    fn name(&self) -> &str {
        self.cpu()
    }

    fn regs(&self) -> &Gfx {
        &self.gfx
    }

    fn instrs(&self) -> &InstrSet {
        &self.sem.isa.instrs
    }

    fn semantics(&self) -> &dyn TargetSemantics {
        &self.sem
    }

    fn exec_model(&self) -> ExecModel {
        ExecModel::Wave
    }

    /// 64 lanes on gfx9, 32 on gfx10 (wave32).
    fn wave_size(&self) -> u32 {
        self.gfx.wave_size() as u32
    }

    fn value_class(&self, uniform: bool) -> RegClass {
        if uniform {
            self.cls.sgpr
        } else {
            self.cls.vgpr
        }
    }

    fn abi(&self, f: &Function) -> Result<Abi, TargetError> {
        let abi = crate::abi::abi(f)?;
        crate::support::check(f)?;
        if f.cconv.is_kernel() {
            let (words, _) = crate::abi::kernel_layout(f)?;
            self.kernargs.borrow_mut().insert(f.name.clone(), words);
        }
        Ok(abi)
    }

    /// A partial last word of an aligned load is read whole (the scalar
    /// and vector memory units load dwords; llc 19's GlobalISel loads an
    /// `i41` with one `s_load_dwordx2` and clears the bits above).
    fn whole_word_loads(&self) -> bool {
        true
    }

    /// The multiply cascade ([`crate::legalize_wide_mul`]).
    fn lower_mul(&self, plan: &MulPlan, b: &mut MirBuilder<'_>) -> Option<Vec<Limb>> {
        let facts = crate::legalize_wide_mul::MulFacts {
            constant_bus: self.gfx.constant_bus_limit(),
            aligned_pairs: self.gfx.needs_aligned_vgprs(),
            // `abi` noted each kernel's argument words.
            kernel: self.kernargs.borrow().contains_key(&b.f.name),
        };
        let ops = crate::legalize_wide_mul::MadOps {
            shift: self.shift_ops(),
            carry: self.isa().op("G_AMD_MAD64_CO"),
            signed: self.isa().op("G_AMD_MAD_I64_I32"),
            lane_shift: self.lane_shift_ops(),
        };
        crate::legalize_wide_mul::lower_mul(plan, b, ops, facts)
    }

    /// Uniform shifts as 64-bit SALU shifts ([`crate::shift64`]), per-lane
    /// ones as funnel shifts and one 64-bit VALU shift
    /// ([`crate::lane_shift`]).
    fn lower_shift(
        &self,
        op: BinOp,
        x: &[Limb],
        amount: Limb,
        w: u32,
        b: &mut MirBuilder<'_>,
    ) -> Option<Vec<Limb>> {
        crate::shift64::lower_shift(op, x, amount, w, b, self.shift_ops())
            .or_else(|| crate::lane_shift::lower_shift(op, x, amount, w, b, self.lane_shift_ops()))
    }

    fn select(&self, f: &mut MFunction) -> Result<(), TargetError> {
        let words = self.kernargs.borrow().get(&f.name).cloned();
        crate::select::select(f, self.isa(), self.cls, words.as_deref())
    }

    /// Word products as `v_mul_i32_i24` ([`crate::mul_i24`]), then the
    /// SDWA peephole ([`crate::sdwa_peephole`]).
    fn after_select(&self, f: &mut MFunction) -> Result<(), TargetError> {
        crate::mul_i24::run(f, self.isa(), self.cls);
        crate::sdwa_peephole::run(f, self.isa(), self.cls.vgpr);
        crate::pk_mov::run(f, &self.isa().instrs, self.gfx);
        Ok(())
    }

    /// SDWA preserve merge ([`crate::sdwa_preserve_merge`]), then EXEC
    /// masking ([`crate::cf`]).
    fn after_phi_elim(&self, f: &mut MFunction) -> Result<(), TargetError> {
        crate::sdwa_preserve_merge::merge(f, self.isa());
        crate::cf::lower_control_flow(f, self.isa(), self.cls)
    }

    fn spill_hook(&self) -> &dyn SpillHook {
        self
    }

    fn reserved(&self, f: &Function) -> Vec<Reg> {
        let mut r = crate::abi::reserved(f.cconv.is_kernel());
        r.extend(crate::spill::spill_vgprs());
        r
    }

    fn lower_copies(&self, f: &mut MFunction) -> Result<(), TargetError> {
        crate::copy_forward::forward_copies(f, self.isa(), &self.gfx);
        crate::copies::lower_copies(f, self.isa(), &self.gfx)
    }

    fn before_emit(&self, f: &mut MFunction) -> Result<(), TargetError> {
        crate::waitcnt::insert_waits(f, self.isa(), &self.gfx);
        Ok(())
    }

    fn emit(&self, f: &MFunction, ir: &Function) -> Result<String, TargetError> {
        crate::emit::emit(self, f, ir)
    }

    fn per_lane_class_of(&self, rc: RegClass) -> RegClass {
        if rc == self.cls.sgpr {
            self.cls.vgpr
        } else {
            rc
        }
    }
}
