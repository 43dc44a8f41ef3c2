//! The calling convention: LLVM's default for callable AMDGPU functions
//! (`CC_AMDGPU_Func` / `RetCC_AMDGPU_Func`), so the output compares one to
//! one with `llc`.
//!
//! The hardware and ABI facts served:
//! - Arguments are split into 32-bit words (low first; `<2 x i16>` and
//!   `<2 x half>` packed in one; `i1`..`i16` and `half` zero-extended) and
//!   passed in `v0`, `v1`, ... (at most 32 words, `v0..v31`); the result
//!   comes back in `v0`, `v1`, ...
//! - The return address arrives in `s[30:31]` and the function returns
//!   with `s_setpc_b64 s[30:31]`.
//! - `s[0:3]` hold the scratch resource descriptor, `s32` the stack
//!   pointer, `s33` the frame pointer; `s30..s105` and the VGPRs
//!   `v40..v47`, `v56..v63`, ... (8 of every 16 from `v40`) are
//!   callee-saved. A leaf function that saves nothing leaves all of them
//!   alone: they are reserved.
//! - `amdgpu_kernel` functions take their arguments from the kernarg
//!   segment; this back end does not lower that yet.

use regdesc_codegen::ir::{Function, Span};
use regdesc_codegen::legalize::words_of;
use regdesc_codegen::target::{Abi, TargetError, WordLoc};
use regdesc_runtime::{Reg, RegisterInfo};

use crate::Gfx;

/// VGPRs that carry arguments and results.
pub const ARG_VGPRS: usize = 32;

fn vgpr(k: usize) -> Option<Reg> {
    Gfx::Gfx900.tables().reg_by_name(&format!("VGPR{k}"))
}

fn sgpr(k: usize) -> Option<Reg> {
    Gfx::Gfx900.tables().reg_by_name(&format!("SGPR{k}"))
}

fn words(what: String, n: usize, first: usize, span: &Span) -> Result<Vec<WordLoc>, TargetError> {
    (first..first + n)
        .map(|k| {
            vgpr(k)
                .filter(|_| k < ARG_VGPRS)
                .map(WordLoc::Reg)
                .ok_or_else(|| TargetError::AbiOverflow {
                    what: what.clone(),
                    words: first + n,
                    available: ARG_VGPRS,
                    span: span.clone(),
                })
        })
        .collect()
}

/// Where `f`'s arguments and result live.
pub fn abi(f: &Function) -> Result<Abi, TargetError> {
    if f.cconv.is_kernel() {
        return Err(TargetError::Unsupported {
            what: format!(
                "kernel @{}: arguments in the kernarg segment (`amdgpu_kernel`) are not lowered yet",
                f.name
            ),
            span: Some(f.span.clone()),
        });
    }
    let mut args = Vec::new();
    let mut next = 0;
    for (n, p) in f.params.iter().enumerate() {
        let def = f.value(*p);
        let w = words_of(def.ty);
        args.push(words(
            format!("argument {} (`{}`) and those before it", n + 1, def.ty),
            w,
            next,
            &def.span,
        )?);
        next += w;
    }
    let ret = words(
        format!("the result (`{}`)", f.ret_ty),
        words_of(f.ret_ty),
        0,
        &f.span,
    )?;
    Ok(Abi { args, ret })
}

/// Registers a plain function must not allocate: the scratch descriptor,
/// the return address, the stack and frame pointers, the callee-saved
/// SGPRs and VGPRs, `VCC`, `EXEC`, `M0`.
pub fn reserved() -> Vec<Reg> {
    let t = Gfx::Gfx900.tables();
    let mut out: Vec<Reg> = (0..4).chain(30..106).filter_map(sgpr).collect();
    for base in (40..256).step_by(16) {
        out.extend((base..base + 8).filter_map(vgpr));
    }
    out.extend(
        ["VCC", "EXEC", "M0"]
            .iter()
            .filter_map(|n| t.reg_by_name(n)),
    );
    out
}
