//! The register ABI of plain functions (documented in the crate docs),
//! and the thread payload of kernels.
//!
//! Hardware fact served: a Gen thread starts with its payload in GRFs —
//! `r0` is the thread header, the rest is data the dispatcher preloads per
//! channel (SoA: one GRF per dword of each channel at SIMD8, two at
//! SIMD16). This ABI follows that shape so output can be checked with no
//! memory: arguments preloaded from `r1` on, results left in GRFs.
//!
//! # Kernels (`spir_kernel`, `amdgpu_kernel`)
//!
//! A kernel reads what the OpenCL runtime loads for IGC's kernel of the
//! same signature, so the two are interchangeable. The layout is what
//! `ocloc` reports (its zeInfo `payload_arguments` and
//! `per_thread_payload_arguments`, from `ocloc compile -file K.cl -device
//! icllp -options "-cl-std=CL1.2 -cl-intel-greater-than-4GB-buffer-required"
//! --format zebin`, section `.ze_info`; the same on skl and tgllp, and for
//! kernels forced to SIMD8 or SIMD16 with `intel_reqd_sub_group_size`):
//!
//! | GRF | what | zeInfo |
//! |---|---|---|
//! | `r0` | thread header: `r0.1` is the work-group id X (`r0.6`, `r0.7`: Y, Z) | (the dispatcher's, PRM Vol 7 "GPGPU thread payload") |
//! | `r1`, `r2`, `r3` | local ids X, Y, Z: one `:uw` per channel, one GRF each at SIMD8 and SIMD16 | `local_id`, offset 0, size 96 |
//! | `r4`... | cross-thread data, from byte 0 of `r4`: | |
//! | `r4.0`..`r4.2` | global work offset X, Y, Z (dwords) | `global_id_offset`, 0, 12 |
//! | `r4.3`..`r4.5` | local size X, Y, Z | `local_size`, 12, 12 |
//! | from `r5.0` | the explicit arguments: pointers first, then by-value arguments, each in source order at its natural alignment (pointers and 64-bit values at 8, 32-bit at 4) | `arg_bypointer` (`addrmode: stateless`), `arg_byvalue`, from offset 32 |
//! | after them | enqueued local size X, Y, Z, at 4-byte alignment, moved to the next GRF when it would straddle one (kernels calling `get_global_id`) | `enqueued_local_size`, 12 bytes |
//!
//! Checked against ocloc's reports: three pointers put the enqueued local
//! size at 64 (56 + 12 would straddle `r6`), four at 64, five at 72, a
//! pointer and a `uint` at 44; `(uint n, global uint *a)` puts `a` at 32
//! and `n` at 40. `get_global_id(0)` is `global offset X + group id X *
//! enqueued local size X + local id X`, as IGC computes it (the
//! interpreter's launches have no global offset: the simulator's payload
//! holds 0 there).

use regdesc_codegen::ir::Function;
use regdesc_codegen::legalize::words_of;
use regdesc_codegen::target::{Abi, NarrowArgs, TargetError, WordLoc};
use regdesc_codegen::uniformity::Uniformity;
use regdesc_runtime::{Reg, RegisterInfo};

use crate::regs::Intel;
use crate::target::Simd;

/// The first GRF the emitter uses for its scratch values (`r120..r127`).
pub const SCRATCH_GRF: u8 = 120;

/// The per-lane block number of functions with divergent branches
/// (`r118..r119`, see [`crate::emit`]).
pub const PC_GRF: u8 = 118;

/// The last GRF arguments and results may use.
pub const LAST_ABI_GRF: u8 = PC_GRF - 1;

/// `r0` (the thread header), the block-number vector and the emitter's
/// scratch GRFs.
pub fn reserved() -> Vec<Reg> {
    let t = Intel.tables();
    std::iter::once(0u8)
        .chain(PC_GRF..=127)
        .filter_map(|n| t.reg_by_name(&format!("R{n}")))
        .collect()
}

/// The per-lane register of the vector starting at GRF `nr`.
pub fn lane_reg(simd: Simd, nr: u8) -> Option<Reg> {
    let name = match simd {
        Simd::Simd8 => format!("L8_R{nr}"),
        Simd::Simd16 => format!("L16_R{nr}"),
    };
    Intel.tables().reg_by_name(&name)
}

/// The uniform dword scalar `rN.k`.
pub fn scalar_reg(nr: u8, k: u8) -> Option<Reg> {
    Intel.tables().reg_by_name(&format!("R{nr}_D{k}"))
}

struct Alloc {
    simd: Simd,
    /// The next free dword for uniform scalars (GRF, dword).
    scalar: Option<(u8, u8)>,
    /// The next free GRF.
    next: u8,
}

impl Alloc {
    fn word(&mut self, uniform: bool) -> Option<Reg> {
        if uniform {
            let (nr, k) = match self.scalar {
                Some((nr, k)) if k < 8 => (nr, k),
                _ => {
                    let nr = self.next;
                    self.next = self.next.checked_add(1)?;
                    (nr, 0)
                }
            };
            self.scalar = Some((nr, k + 1));
            return (nr <= LAST_ABI_GRF).then(|| scalar_reg(nr, k)).flatten();
        }
        let g = self.simd.grfs();
        let nr = self.next.div_ceil(g) * g;
        self.next = nr.checked_add(g)?;
        (nr + g - 1 <= LAST_ABI_GRF)
            .then(|| lane_reg(self.simd, nr))
            .flatten()
    }
}

fn overflow(what: String, words: usize, span: &regdesc_codegen::ir::Span) -> TargetError {
    TargetError::AbiOverflow {
        what,
        words,
        available: usize::from(LAST_ABI_GRF),
        span: span.clone(),
    }
}

/// Where `f`'s arguments and result live at `simd`.
pub fn assign(f: &Function, simd: Simd) -> Result<Abi, TargetError> {
    if f.cconv.is_kernel() {
        let k = kernel_layout(f)?;
        return Ok(Abi {
            args: k.args,
            ret: Vec::new(),
            narrow_args: NarrowArgs::ZeroExtended,
        });
    }
    let uni = Uniformity::analyze(f);
    let mut a = Alloc {
        simd,
        scalar: None,
        next: 1,
    };
    let mut args = Vec::new();
    let mut used = 0;
    // Uniform arguments first, packed as dword scalars.
    let mut slots: Vec<Option<Vec<WordLoc>>> = vec![None; f.params.len()];
    for pass_uniform in [true, false] {
        for (n, p) in f.params.iter().enumerate() {
            if uni.is_uniform(*p) != pass_uniform {
                continue;
            }
            let def = f.value(*p);
            let w = words_of(def.ty);
            used += w;
            let mut locs = Vec::new();
            for _ in 0..w {
                let r = a.word(pass_uniform).ok_or_else(|| {
                    overflow(
                        format!("argument {} (`{}`) and those before it", n + 1, def.ty),
                        used,
                        &def.span,
                    )
                })?;
                locs.push(WordLoc::Reg(r));
            }
            slots[n] = Some(locs);
        }
    }
    for s in slots {
        args.push(s.unwrap_or_default());
    }
    // Results: per lane, from r1 on.
    let mut r = Alloc {
        simd,
        scalar: None,
        next: 1,
    };
    let words = words_of(f.ret_ty);
    let mut ret = Vec::new();
    for _ in 0..words {
        let reg = r
            .word(false)
            .ok_or_else(|| overflow(format!("the result (`{}`)", f.ret_ty), words, &f.span))?;
        ret.push(WordLoc::Reg(reg));
    }
    Ok(Abi {
        args,
        ret,
        narrow_args: NarrowArgs::ZeroExtended,
    })
}

/// The first GRF of the local ids (X, then Y and Z).
pub const LOCAL_ID_GRF: u8 = 1;

/// The first GRF of a kernel's cross-thread data (after `r0` and the
/// three local-id GRFs).
pub const CROSS_THREAD_GRF: u8 = 4;

/// Bytes of cross-thread data before the explicit arguments (global
/// offset, local size, and padding to the GRF).
const ARGS_OFFSET: u32 = 32;

/// Where a kernel's payload puts each thing (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelLayout {
    /// Each argument's dwords, as uniform scalars in the cross-thread data.
    pub args: Vec<Vec<WordLoc>>,
    /// Byte offset of each argument in the cross-thread data.
    pub arg_offsets: Vec<u32>,
    /// Byte offset of the enqueued local size X (kernels calling
    /// `get_global_id`).
    pub enqueued_local_size: Option<u32>,
    /// Bytes of cross-thread data.
    pub size: u32,
}

/// The dword scalar at byte `offset` of the cross-thread data.
pub fn cross_thread_reg(offset: u32) -> Option<Reg> {
    let nr = u32::from(CROSS_THREAD_GRF) + offset / 32;
    let nr = u8::try_from(nr).ok().filter(|n| *n <= LAST_ABI_GRF)?;
    scalar_reg(nr, ((offset % 32) / 4) as u8)
}

/// The global offset X (`r4.0`).
pub const GLOBAL_OFFSET: u32 = 0;

/// `offset` rounded up to `align`, then to the next GRF when `size`
/// bytes there would straddle one.
fn place(offset: u32, size: u32, align: u32) -> u32 {
    let o = offset.div_ceil(align) * align;
    if size <= 32 && o / 32 != (o + size - 1) / 32 {
        o.div_ceil(32) * 32
    } else {
        o
    }
}

/// The payload layout of kernel `f`.
pub fn kernel_layout(f: &Function) -> Result<KernelLayout, TargetError> {
    use regdesc_codegen::ir::{Builtin, Op};
    use regdesc_codegen::types::Type;
    let mut order: Vec<usize> = Vec::new();
    for pass_ptr in [true, false] {
        for (n, p) in f.params.iter().enumerate() {
            if (f.value(*p).ty == Type::Ptr) == pass_ptr {
                order.push(n);
            }
        }
    }
    let mut offsets = vec![0u32; f.params.len()];
    let mut args: Vec<Vec<WordLoc>> = vec![Vec::new(); f.params.len()];
    let mut at = ARGS_OFFSET;
    for n in order {
        let def = f.value(f.params[n]);
        let (size, align) = match def.ty {
            Type::Ptr => (8, 8),
            Type::Int(32) | Type::Float => (4, 4),
            Type::Int(64) => (8, 8),
            Type::Int(128) => (16, 8),
            t => {
                return Err(TargetError::Unsupported {
                    what: format!(
                        "@{}: a kernel argument of type `{t}` (the payload holds pointers and 32-, 64- and 128-bit integers)",
                        f.name
                    ),
                    span: Some(def.span.clone()),
                })
            }
        };
        let o = place(at, size, align);
        offsets[n] = o;
        for k in 0..size / 4 {
            let r = cross_thread_reg(o + 4 * k).ok_or_else(|| {
                overflow(
                    format!("kernel argument {} (`{}`)", n + 1, def.ty),
                    ((o + size) / 4) as usize,
                    &def.span,
                )
            })?;
            args[n].push(WordLoc::Reg(r));
        }
        at = o + size;
    }
    let global_id = f.insts.iter().any(|i| {
        matches!(
            &i.op,
            Op::Call {
                callee: Builtin::GetGlobalId { .. },
                ..
            }
        )
    });
    let enqueued_local_size = global_id.then(|| place(at, 12, 4));
    if let Some(e) = enqueued_local_size {
        at = e + 12;
    }
    if cross_thread_reg(at.saturating_sub(4)).is_none() {
        return Err(overflow(
            "the kernel's cross-thread data".to_string(),
            (at / 4) as usize,
            &f.span,
        ));
    }
    Ok(KernelLayout {
        args,
        arg_offsets: offsets,
        enqueued_local_size,
        size: at,
    })
}
