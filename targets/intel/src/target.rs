//! The Gen target: one [`Gen`] per platform and SIMD width, implementing
//! the shared back-end layer's [`Target`].
//!
//! Hardware facts served: Gen9 (Skylake, `skl`), Gen11 (Ice Lake LP,
//! `icllp`) and Gen12LP (Tiger Lake LP, `tgllp`) share one register file
//! (128 GRFs of 32 bytes per hardware thread) and the integer instructions
//! this back end uses; a kernel is compiled for a SIMD width (8 or 16
//! channels per thread). Gen11 and Gen12LP have no 64-bit integer ALU, so
//! 64-bit values live in separate low and high dword halves on every
//! platform (the legalizer's 32-bit limbs); Gen9 alone adds `:q` (its
//! 64-bit integer ALU, [`Platform::has_int64_alu`]) where a 64-bit add
//! feeds a message address ([`crate::qword`]). Gen12LP alone needs software
//! scoreboard annotations ([`crate::swsb`]).

use regdesc_codegen::ir::Function;
use regdesc_codegen::mir::interp::{ExecModel, Flow, InterpError, MachineCx, TargetSemantics};
use regdesc_codegen::mir::{InstrSet, MFunction, MInst};
use regdesc_codegen::regalloc::SpillHook;
use regdesc_codegen::target::{Abi, Target, TargetError};
use regdesc_runtime::{Reg, RegClass, RegisterInfo};

use crate::regs::{classes, Intel};

/// A Gen platform, named as IGA's `-p` option and ocloc's `-device` know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Platform {
    /// Gen9, Skylake (`-p=9`, `skl`).
    Gen9,
    /// Gen11, Ice Lake LP (`-p=11`, `icllp`).
    Gen11,
    /// Gen12LP, Tiger Lake LP (`-p=12p1`, `tgllp`).
    Gen12lp,
}

impl Platform {
    pub const ALL: [Platform; 3] = [Platform::Gen9, Platform::Gen11, Platform::Gen12lp];

    /// The `--target` name.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Gen9 => "gen9",
            Platform::Gen11 => "gen11",
            Platform::Gen12lp => "gen12lp",
        }
    }

    pub fn from_name(s: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Whether the ALU has 64-bit integer types (`:q`/`:uq`; PRM Vol 2a
    /// "Data Types"): Gen9 has them, Gen11 and Gen12LP removed them.
    pub fn has_int64_alu(self) -> bool {
        self == Platform::Gen9
    }

    /// IGA's `-p=` value.
    pub fn iga(self) -> &'static str {
        match self {
            Platform::Gen9 => "9",
            Platform::Gen11 => "11",
            Platform::Gen12lp => "12p1",
        }
    }
}

/// Channels per hardware thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Simd {
    Simd8,
    Simd16,
}

impl Simd {
    pub fn lanes(self) -> u8 {
        match self {
            Simd::Simd8 => 8,
            Simd::Simd16 => 16,
        }
    }

    /// GRFs a per-lane dword vector takes.
    pub fn grfs(self) -> u8 {
        self.lanes() / 8
    }

    pub fn from_lanes(n: u32) -> Option<Simd> {
        match n {
            8 => Some(Simd::Simd8),
            16 => Some(Simd::Simd16),
            _ => None,
        }
    }
}

/// The Gen back end for one platform and SIMD width.
pub struct Gen {
    pub platform: Platform,
    pub simd: Simd,
    name: String,
    pub(crate) instrs: InstrSet,
    sem: LaneSemantics,
    /// Kernels' payload layouts, by function name, from [`Target::abi`]
    /// (which sees the IR) for selection (which does not).
    kernels: std::sync::Mutex<std::collections::BTreeMap<String, crate::abi::KernelLayout>>,
}

impl Gen {
    pub fn new(platform: Platform, simd: Simd) -> Gen {
        let mut instrs = InstrSet::generic();
        crate::select::add_instructions(&mut instrs);
        crate::iadd64_split::add_instructions(&mut instrs);
        crate::mul64::add_instructions(&mut instrs);
        crate::mul64::add_muladd(&mut instrs);
        Gen {
            platform,
            simd,
            name: platform.name().to_string(),
            instrs,
            sem: LaneSemantics,
            kernels: Default::default(),
        }
    }

    /// The class of per-lane 32-bit values at this SIMD width.
    pub fn lane_class(&self) -> RegClass {
        match self.simd {
            Simd::Simd8 => classes::SIMD8_LANE,
            Simd::Simd16 => classes::SIMD16_LANE,
        }
    }
}

/// Which registers hold a value per lane, for the machine interpreter:
/// the lane views of SIMD vectors (`SIMD8_LANE`, `SIMD16_LANE`); uniform
/// scalars (`GRF_D`, ...) hold one value for all lanes. Every instruction
/// the back end selects has a generic meaning ([`regdesc_codegen::mir::Sem`]),
/// so nothing else is needed.
pub struct LaneSemantics;

impl TargetSemantics for LaneSemantics {
    fn per_lane_class(&self, rc: RegClass) -> bool {
        rc == classes::SIMD8_LANE || rc == classes::SIMD16_LANE
    }

    fn per_lane_reg(&self, r: Reg) -> bool {
        let t = Intel.tables();
        t.contains(classes::SIMD8_LANE, r) || t.contains(classes::SIMD16_LANE, r)
    }

    /// The split 64-bit adds ([`crate::iadd64_split`]), `mul64`
    /// ([`crate::mul64`]) and the memory instructions
    /// ([`crate::select::memory`]).
    fn execute(&self, id: u16, inst: &MInst, cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
        if id == crate::mul64::MUL64 {
            return crate::mul64::execute(cx);
        }
        if id == crate::mul64::MULADD32 {
            return crate::mul64::execute_muladd(cx);
        }
        match crate::iadd64_split::Split::from_id(id) {
            Some(sp) => crate::iadd64_split::execute(sp, cx),
            None => crate::select::memory::execute(id, inst, cx),
        }
    }
}

impl Target for Gen {
    type Regs = Intel;

    fn name(&self) -> &str {
        &self.name
    }

    fn regs(&self) -> &Intel {
        &Intel
    }

    fn instrs(&self) -> &InstrSet {
        &self.instrs
    }

    fn semantics(&self) -> &dyn TargetSemantics {
        &self.sem
    }

    fn exec_model(&self) -> ExecModel {
        // Selected code keeps the generic control flow (a branch per
        // lane); the lowering to masks happens at emission. Each lane may
        // run alone in the machine interpreter.
        ExecModel::Threads
    }

    fn value_class(&self, uniform: bool) -> RegClass {
        if uniform {
            classes::GRF_D
        } else {
            self.lane_class()
        }
    }

    fn abi(&self, f: &Function) -> Result<Abi, TargetError> {
        // The IR is seen here first: constructs the back end cannot
        // compile are reported at their source location.
        unsupported_in(f)?;
        if f.cconv.is_kernel() {
            let k = crate::abi::kernel_layout(f)?;
            if let Ok(mut m) = self.kernels.lock() {
                m.insert(f.name.clone(), k);
            }
        }
        crate::abi::assign(f, self.simd)
    }

    fn select(&self, f: &mut MFunction) -> Result<(), TargetError> {
        let layout = self
            .kernels
            .lock()
            .ok()
            .and_then(|m| m.get(&f.name).cloned());
        crate::select::select(
            f,
            &self.instrs,
            self.lane_class(),
            layout.as_ref(),
            self.simd,
        )
    }

    fn lower_mul(
        &self,
        plan: &regdesc_codegen::legalize::MulPlan,
        b: &mut regdesc_codegen::legalize::MirBuilder<'_>,
    ) -> Option<Vec<regdesc_codegen::legalize::Limb>> {
        crate::select::memory::lower_scaled_index(plan, b)
    }

    fn after_select(&self, f: &mut MFunction) -> Result<(), TargetError> {
        crate::mul64::expand(f, &self.instrs);
        crate::iadd64_split::run(f, &self.instrs);
        crate::mul64::narrow(f, &self.instrs);
        crate::mul64::remove_dead(f, &self.instrs);
        if self.platform.has_int64_alu() {
            crate::qword::run(f, &self.instrs, self.simd);
        }
        if self.platform == Platform::Gen11 {
            let classes = f.vregs.clone();
            let one_chunk = |v: regdesc_codegen::mir::VReg| {
                classes
                    .get(v)
                    .copied()
                    .flatten()
                    .is_some_and(|c| c == classes::SIMD8_LANE || c == classes::GRF_D)
            };
            crate::mul64::fuse_mul_add(f, &self.instrs, &one_chunk);
        }
        Ok(())
    }

    fn spill_hook(&self) -> &dyn SpillHook {
        &self.instrs
    }

    fn reserved(&self, _: &Function) -> Vec<Reg> {
        crate::abi::reserved()
    }

    fn emit(&self, f: &MFunction, ir: &Function) -> Result<String, TargetError> {
        crate::emit::emit(self, f, ir)
    }
}

/// The SIMD width used when none is asked for, chosen by register
/// pressure: SIMD16 (twice the lanes per thread) when every function of
/// `funcs` compiles at SIMD16 within the GRFs, otherwise SIMD8, whose
/// per-lane values take half the registers.
pub fn default_simd(platform: Platform, funcs: &[&Function]) -> Simd {
    let g = Gen::new(platform, Simd::Simd16);
    let opts = regdesc_codegen::pipeline::Options::default();
    let fits = funcs
        .iter()
        .all(|f| regdesc_codegen::pipeline::compile_function(f, &g, &opts).is_ok());
    if fits {
        Simd::Simd16
    } else {
        Simd::Simd8
    }
}

/// The first construct of `f` the back end does not compile, located.
fn unsupported_in(f: &Function) -> Result<(), TargetError> {
    use regdesc_codegen::ir::Op;
    for i in &f.insts {
        let what = match &i.op {
            Op::Load { .. } | Op::Store { .. } | Op::Call { .. } if !f.cconv.is_kernel() => {
                "global memory and work-item ids outside a kernel (a kernel's payload brings its arguments and ids)"
            }
            Op::Load { ty, align, .. } if align.is_some_and(|a| a < ty.store_size().min(4)) => {
                "an under-aligned global load (A64 dword messages need dword alignment)"
            }
            Op::Store { val, align, .. } if align.is_some_and(|a| a < val.ty.store_size().min(4)) => {
                "an under-aligned global store (A64 dword messages need dword alignment)"
            }
            _ => continue,
        };
        return Err(TargetError::Unsupported {
            what: format!("@{}: {what}", f.name),
            span: Some(i.span.clone()),
        });
    }
    Ok(())
}
