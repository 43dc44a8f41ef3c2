//! The calling convention: LLVM's default for callable AMDGPU functions
//! (`CC_AMDGPU_Func` / `RetCC_AMDGPU_Func`), so the output compares one to
//! one with `llc`.
//!
//! The hardware and ABI facts served:
//! - Arguments are split into 32-bit words (low first; `<2 x i16>` and
//!   `<2 x half>` packed in one; above `i1`..`i16` and `half` the bits are
//!   undefined, and legalization clears them on entry) and passed in `v0`,
//!   `v1`, ... (at most 31 words, `v0..v30`: `v31` brings the packed
//!   work-item ids, and LLVM passes further words on the stack, which this
//!   back end does not); the result comes back in `v0`, `v1`, ... (at
//!   most 32 words).
//! - `inreg` changes nothing: LLVM 14 passes such arguments in VGPRs like
//!   the others. LLVM 18 and later pass them in SGPRs, one value per wave;
//!   measured over the random shapes of `gen_wide_mul_shapes.py` (17
//!   seeds), that convention made 52 function-CPU pairs longer than the
//!   best llc against 13 for this one (a uniform product still needs its
//!   `v_mov_b32`s into the result VGPRs, where llc 14 makes one VALU MAD).
//!   The simulator runs llc 19's code with `SimOptions::inreg_in_sgprs`.
//! - The return address arrives in `s[30:31]` and the function returns
//!   with `s_setpc_b64 s[30:31]`.
//! - `s[0:3]` hold the scratch resource descriptor, `s32` the stack
//!   pointer, `s33` the frame pointer; `s30..s105` and the VGPRs
//!   `v40..v47`, `v56..v63`, ... (8 of every 16 from `v40`) are
//!   callee-saved. A leaf function that saves nothing leaves all of them
//!   alone: they are reserved.
//! - Kernels (`amdgpu_kernel`, `spir_kernel`) take their arguments from
//!   the kernarg segment, whose address the hardware puts in `s[4:5]`
//!   (after the private segment buffer in `s[0:3]`; `s6` is the work-group
//!   id, `v0` the work-item id). Each argument sits at its ABI alignment
//!   (pointers and `i64`/`i128` at 8, `i32` and `float` at 4, `i16` and
//!   `half` at 2); `s_load_dword` reads whole aligned dwords, so a
//!   narrower argument is extracted with `s_bfe_u32`.
//!
//! The machine interpreter has no kernarg segment: the calling convention
//! names a register (`s40` and up, never allocated) for each 32-bit word
//! of a kernel's arguments, the test driver puts the word there, and the
//! kernarg load reads it from there in the interpreter
//! ([`crate::semantics`]); the assembly loads it from memory.

use regdesc_codegen::ir::{Function, Span, Type};
use regdesc_codegen::legalize::words_of;
use regdesc_codegen::target::{Abi, NarrowArgs, TargetError, WordLoc};
use regdesc_runtime::{Reg, RegisterInfo};

use crate::Gfx;

/// VGPRs that carry arguments (`v31` holds the packed work-item ids).
pub const ARG_VGPRS: usize = 31;

/// VGPRs that carry the result.
pub const RET_VGPRS: usize = 32;

/// `VGPRk`.
pub fn vgpr(k: usize) -> Option<Reg> {
    Gfx::Gfx900.tables().reg_by_name(&format!("VGPR{k}"))
}

/// The index `k` of `VGPRk`, for a VGPR.
pub fn vgpr_index(r: Reg) -> Option<usize> {
    Gfx::Gfx900
        .tables()
        .name(r)
        .strip_prefix("VGPR")?
        .parse()
        .ok()
}

fn sgpr(k: usize) -> Option<Reg> {
    Gfx::Gfx900.tables().reg_by_name(&format!("SGPR{k}"))
}

fn words(
    what: String,
    n: usize,
    first: usize,
    available: usize,
    span: &Span,
) -> Result<Vec<WordLoc>, TargetError> {
    (first..first + n)
        .map(|k| {
            vgpr(k)
                .filter(|_| k < available)
                .map(WordLoc::Reg)
                .ok_or_else(|| TargetError::AbiOverflow {
                    what: what.clone(),
                    words: first + n,
                    available,
                    span: span.clone(),
                })
        })
        .collect()
}

/// Where `f`'s arguments and result live.
pub fn abi(f: &Function) -> Result<Abi, TargetError> {
    if f.cconv.is_kernel() {
        let (words, _) = kernel_layout(f)?;
        let mut args: Vec<Vec<WordLoc>> = vec![Vec::new(); f.params.len()];
        for w in words {
            args[w.arg].push(WordLoc::Reg(w.reg));
        }
        return Ok(Abi {
            args,
            ret: Vec::new(),
            narrow_args: NarrowArgs::Undefined,
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
            ARG_VGPRS,
            &def.span,
        )?);
        next += w;
    }
    let ret = words(
        format!("the result (`{}`)", f.ret_ty),
        words_of(f.ret_ty),
        0,
        RET_VGPRS,
        &f.span,
    )?;
    Ok(Abi {
        args,
        ret,
        narrow_args: NarrowArgs::Undefined,
    })
}

/// Registers a plain function must not allocate: the scratch descriptor,
/// the return address, the stack and frame pointers, the callee-saved
/// SGPRs and VGPRs, `VCC`, `EXEC`, `M0`.
///
/// A kernel has no caller: it keeps only the private segment buffer
/// (`s[0:3]`) and the SGPRs past the 102 that gfx9 addresses
/// (`s102..s105`), and may use every other SGPR and VGPR. Its kernarg
/// stand-ins (`s40` and up, see [`kernel_layout`]) are live only until
/// the kernarg loads that read them, at the top of the entry block, and
/// the allocator sees those reads.
pub fn reserved(kernel: bool) -> Vec<Reg> {
    let t = Gfx::Gfx900.tables();
    let mut out: Vec<Reg> = if kernel {
        (0..4).chain(102..106).filter_map(sgpr).collect()
    } else {
        (0..4).chain(30..106).filter_map(sgpr).collect()
    };
    if !kernel {
        for base in (40..256).step_by(16) {
            out.extend((base..base + 8).filter_map(vgpr));
        }
    }
    out.extend(
        ["VCC", "EXEC", "M0"]
            .iter()
            .filter_map(|n| t.reg_by_name(n)),
    );
    out
}

/// The first register standing for a kernarg word in the interpreter.
pub const KERNARG_REG0: usize = 40;

/// One 32-bit word of a kernel's arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernargWord {
    /// The argument it belongs to.
    pub arg: usize,
    /// The register standing for it ([`KERNARG_REG0`] and up).
    pub reg: Reg,
    /// Its byte offset in the kernarg segment.
    pub offset: u32,
    /// How many of its bits are the argument's (32 for whole dwords).
    pub bits: u32,
}

/// A kernel argument's alignment in the kernarg segment (LLVM 14's
/// AMDGPU data layout: `i128` aligns like `i64`).
fn align_of(ty: Type) -> u64 {
    match ty {
        Type::Ptr => 8,
        Type::Vec2(_) => ty.store_size().next_power_of_two().min(16),
        _ => ty.store_size().next_power_of_two().clamp(1, 8),
    }
}

/// The kernarg segment's size for `bytes` of arguments: rounded up to
/// 16 bytes. The hardware fact served: the HSA runtime allocates the
/// kernarg segment 16-byte aligned and in 16-byte units (llc's segment
/// also runs on past the arguments, into its hidden ones), so a scalar
/// load may read the padding after the last argument: one
/// `s_load_dwordx8` can take arguments that end 4 bytes short of it.
pub fn kernarg_segment_size(bytes: u64) -> u64 {
    bytes.div_ceil(16) * 16
}

/// The words of `f`'s arguments in the kernarg segment, and the size of
/// the arguments (the segment's is [`kernarg_segment_size`] of it).
pub fn kernel_layout(f: &Function) -> Result<(Vec<KernargWord>, u32), TargetError> {
    let mut out = Vec::new();
    let mut off = 0u64;
    let available = 106 - KERNARG_REG0;
    for (n, p) in f.params.iter().enumerate() {
        let def = f.value(*p);
        let (size, a) = (def.ty.store_size(), align_of(def.ty));
        off = off.div_ceil(a) * a;
        for k in 0..words_of(def.ty) as u64 {
            let reg = sgpr(KERNARG_REG0 + out.len())
                .filter(|_| out.len() < available)
                .ok_or_else(|| TargetError::AbiOverflow {
                    what: format!(
                        "kernel argument {} (`{}`) and those before it",
                        n + 1,
                        def.ty
                    ),
                    words: out.len() + 1,
                    available,
                    span: def.span.clone(),
                })?;
            let bits = ((size - 4 * k).min(4) * 8) as u32;
            out.push(KernargWord {
                arg: n,
                reg,
                offset: (off + 4 * k) as u32,
                bits,
            });
        }
        // LLVM advances by the allocation size: the store size rounded up
        // to the alignment (`i160` takes 24 bytes, `i24` 4).
        off += size.div_ceil(a) * a;
    }
    Ok((out, off as u32))
}
