//! `ref32`: regdesc's reference back end, and the smallest example of how
//! to write one.
//!
//! The machine: 64 32-bit registers `r0..r63`, even-aligned pairs and
//! 4-aligned quads over them, and a carry flag (`ref32.td`, expanded by
//! `regdesc!`). Its instructions are the generic limb opcodes of
//! [`regdesc_codegen::mir::InstrSet::generic`] (`G_UADDO`, `G_MAD64`, ...)
//! plus carry-flag adds and subtracts ([`select`]): instruction selection
//! sends carry chains through `$CF` and keeps the rest as legalized, and
//! its assembly is machine IR text. Each lane runs as a thread of its own
//! ([`ExecModel::Threads`]).
//!
//! It exercises everything the GPU back ends share with no GPU in the
//! way: legalization, PHI elimination, two-address lowering, register
//! allocation from the tables, spilling, the machine interpreter and the
//! differential driver.
//!
//! # Calling convention
//!
//! Arguments are split into 32-bit words (low word first; `<2 x i16>` and
//! `<2 x half>` packed in one, element 0 low; `i1`/`i8`/`i16`/`half`
//! zero-extended) and passed in `r0`, `r1`, ... in order; at most 32 words.
//! The result's words come back in `r0`, `r1`, ... Kernels use the same
//! convention (their arguments are uniform values).

use regdesc_codegen::ir::Function;
use regdesc_codegen::legalize::words_of;
use regdesc_codegen::mir::interp::{ExecModel, TargetSemantics};
use regdesc_codegen::mir::print::print_function;
use regdesc_codegen::mir::{InstrSet, MFunction};
use regdesc_codegen::regalloc::SpillHook;
use regdesc_codegen::target::{Abi, NarrowArgs, Target, TargetError, WordLoc};
use regdesc_runtime::{Reg, RegClass, RegisterInfo};

pub mod select;

/// The generated register tables.
pub mod regs {
    regdesc_macros::regdesc!(include "ref32.td");
}

/// Registers the calling convention passes words in.
pub const ARG_REGS: usize = 32;

/// The reference target.
pub struct Ref32 {
    instrs: InstrSet,
    sem: select::FlagSemantics,
    cf: Reg,
}

impl Default for Ref32 {
    fn default() -> Self {
        Self::new()
    }
}

impl Ref32 {
    pub fn new() -> Ref32 {
        let cf = regs::regs::CF;
        let mut instrs = InstrSet::generic();
        select::add_instructions(&mut instrs, cf);
        Ref32 {
            instrs,
            sem: select::FlagSemantics { cf },
            cf,
        }
    }

    fn gpr(k: usize) -> Option<Reg> {
        regs::Ref32.tables().reg_by_name(&format!("R{k}"))
    }

    fn words(
        &self,
        what: String,
        n: usize,
        first: usize,
        span: &regdesc_codegen::ir::Span,
    ) -> Result<Vec<WordLoc>, TargetError> {
        (first..first + n)
            .map(|k| {
                Self::gpr(k)
                    .filter(|_| k < ARG_REGS)
                    .map(WordLoc::Reg)
                    .ok_or_else(|| TargetError::AbiOverflow {
                        what: what.clone(),
                        words: first + n,
                        available: ARG_REGS,
                        span: span.clone(),
                    })
            })
            .collect()
    }
}

impl Target for Ref32 {
    type Regs = regs::Ref32;

    fn name(&self) -> &str {
        "ref32"
    }

    fn regs(&self) -> &regs::Ref32 {
        &regs::Ref32
    }

    fn instrs(&self) -> &InstrSet {
        &self.instrs
    }

    fn semantics(&self) -> &dyn TargetSemantics {
        &self.sem
    }

    fn exec_model(&self) -> ExecModel {
        ExecModel::Threads
    }

    fn value_class(&self, _uniform: bool) -> RegClass {
        regs::classes::GPR32
    }

    fn abi(&self, f: &Function) -> Result<Abi, TargetError> {
        let mut args = Vec::new();
        let mut next = 0;
        for (n, p) in f.params.iter().enumerate() {
            let def = f.value(*p);
            let w = words_of(def.ty);
            args.push(self.words(
                format!("argument {} (`{}`) and those before it", n + 1, def.ty),
                w,
                next,
                &def.span,
            )?);
            next += w;
        }
        let ret = self.words(
            format!("the result (`{}`)", f.ret_ty),
            words_of(f.ret_ty),
            0,
            &f.span,
        )?;
        Ok(Abi {
            args,
            ret,
            narrow_args: NarrowArgs::ZeroExtended,
        })
    }

    fn select(&self, f: &mut MFunction) -> Result<(), TargetError> {
        // The generic limb opcodes are ref32's instructions; carry chains
        // go through the flag.
        select::select_flags(f, &self.instrs, self.cf);
        Ok(())
    }

    fn spill_hook(&self) -> &dyn SpillHook {
        &self.instrs
    }

    fn emit(&self, f: &MFunction, ir: &Function) -> Result<String, TargetError> {
        let mut out = format!(
            "# ref32 assembly of @{} (machine IR after allocation)\n",
            ir.name
        );
        out.push_str(&print_function(f, &regs::Ref32, &self.instrs));
        Ok(out)
    }
}
