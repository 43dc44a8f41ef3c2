//! A wave simulator for AMD GCN assembly (gfx900, gfx90a: wave64; gfx1030:
//! wave32), to check compiled code — regdesc's or `llc`'s — against the
//! reference interpreter (`regdesc_codegen::interp`).
//!
//! It reads assembly text ([`parse`]), sets up a wave the way the calling
//! convention or the kernel descriptor says, runs it ([`exec`], with one
//! module per instruction family: [`salu`], [`valu`], [`sdwa`], [`mem`])
//! and gives each lane's result in the interpreter's form
//! ([`LaneResult`]), sharing its [`GlobalMemory`].
//!
//! # Calling conventions
//!
//! - **Plain functions** (LLVM's default callable convention): the
//!   arguments' 32-bit words, low first, in `v0`, `v1`, ...; the result's
//!   words in `v0`, ...; the return address in `s[30:31]`, reached with
//!   `s_setpc_b64`. The bits above a narrow argument (`i1`, `i8`, `i16`,
//!   `half`) in its register are undefined: the simulator fills them with
//!   a pattern, so code that assumes zeros there fails. Words past `v30`
//!   go on the stack, a dword each from the stack pointer; `v31` holds the
//!   packed work-item ids (x in bits 9:0). The stack pointer `s32` and frame pointer `s33` start at
//!   0 in each lane's private memory.
//! - **`amdgpu_kernel`**: the user SGPRs the descriptor enables
//!   (`.amdhsa_user_sgpr_*`: private segment buffer (4), dispatch pointer
//!   (2), queue pointer (2), kernarg segment pointer (2), dispatch id (2),
//!   flat scratch init (2), private segment size (1), in that order from
//!   `s0`), then the system SGPRs (`.amdhsa_system_sgpr_workgroup_id_x`
//!   ...) from `.amdhsa_user_sgpr_count`; the work-item id in `v0` (y and z,
//!   when enabled, are 0: launches are 1-D). The kernarg segment holds the
//!   arguments at their ABI alignment (1, 2, 4, or 8 bytes for 64 bits
//!   and wider), as LLVM lays them out. Kernel arguments must be the same
//!   in every lane of a wave.
//! - Launches with more lanes than a wave run one wave after another,
//!   sharing memory; lanes past the launch's end are not live.
//!
//! The signature (argument and result types) comes from the IR function
//! the assembly was compiled from.
//!
//! # Not modelled
//!
//! Calls (`s_swappc_b64`), LDS and GDS (`ds_*`), images, DPP, AGPRs
//! (`v_accvgpr_*`), `f64` and fused multiply-adds (`v_fma_*`, `v_mac_*`),
//! conversions (`v_cvt_*`), float compares, `clamp` and `neg_lo`/`neg_hi`.
//! Each is rejected with a located error ([`SimError`]), never run wrongly.
//! Floating-point NaN results follow the reference interpreter's rule
//! (LLVM leaves their bits unspecified); see [`valu`].

pub mod check;
pub mod error;
pub mod exec;
pub mod mem;
pub mod parse;
pub mod salu;
pub mod sdwa;
pub mod state;
pub mod valu;

use regdesc_codegen::execute::{value_words, words_value};
use regdesc_codegen::interp::{GlobalMemory, LaneResult, Launch};
use regdesc_codegen::ir::{Function, Scalar, Type};
use regdesc_codegen::value::Value;

pub use crate::Gfx;
pub use error::SimError;
use exec::{Cpu, Flow, DISPATCH_BASE, KERNARG_BASE, RETURN_ADDRESS};
use parse::{enc, KernelDesc, Program};
use state::Wave;

/// How the simulator sets up a call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimOptions {
    /// Zero the bits above a narrow plain-function argument (`i1`, `i8`,
    /// `i16`, `half`) instead of filling them with a pattern. LLVM's
    /// convention leaves those bits undefined, so only code that assumes a
    /// zero-extending caller needs this.
    pub zero_narrow_args: bool,
    /// Pass `inreg` arguments of plain functions in SGPRs, one value per
    /// wave, as LLVM 18 and later do ([`INREG_SGPRS`]; llc 19's code),
    /// instead of in VGPRs like the others, as LLVM 14 and regdesc do.
    pub inreg_in_sgprs: bool,
}

/// Parses `asm` and runs function `f` (its label in the text) with
/// `launch`, on `mem`.
pub fn simulate(
    chip: Gfx,
    asm: &str,
    f: &Function,
    launch: &Launch,
    mem: &mut GlobalMemory,
) -> Result<Vec<LaneResult>, SimError> {
    simulate_with(chip, asm, f, launch, mem, SimOptions::default())
}

/// [`simulate`] with options.
pub fn simulate_with(
    chip: Gfx,
    asm: &str,
    f: &Function,
    launch: &Launch,
    mem: &mut GlobalMemory,
    opts: SimOptions,
) -> Result<Vec<LaneResult>, SimError> {
    let prog = parse::parse(asm)?;
    run_with(chip, &prog, f, launch, mem, opts)
}

/// Runs function `f` of a parsed program.
pub fn run(
    chip: Gfx,
    prog: &Program,
    f: &Function,
    launch: &Launch,
    mem: &mut GlobalMemory,
) -> Result<Vec<LaneResult>, SimError> {
    run_with(chip, prog, f, launch, mem, SimOptions::default())
}

/// [`run`] with options.
pub fn run_with(
    chip: Gfx,
    prog: &Program,
    f: &Function,
    launch: &Launch,
    mem: &mut GlobalMemory,
    opts: SimOptions,
) -> Result<Vec<LaneResult>, SimError> {
    let entry = *prog
        .labels
        .get(&f.name)
        .ok_or_else(|| SimError::NoFunction {
            name: f.name.clone(),
        })?;
    if launch.args.len() != f.params.len() {
        return Err(SimError::Launch {
            what: format!(
                "@{} takes {} arguments, {} given",
                f.name,
                f.params.len(),
                launch.args.len()
            ),
        });
    }
    let kernel = f.cconv.is_kernel();
    let desc = prog.kernels.get(&f.name).cloned().unwrap_or_default();
    let size = if kernel && desc.settings.get("wavefront_size32") == Some(&0) {
        64
    } else {
        chip.wave_size()
    };
    let mut out = Vec::with_capacity(launch.lanes as usize);
    let mut first = 0u32;
    while first < launch.lanes {
        let n = (launch.lanes - first).min(size as u32);
        let lanes: Vec<u32> = (first..first + n).collect();
        let mut cpu = Cpu {
            w: Wave::new(size, n as usize),
            chip,
            prog,
            mem: &mut *mem,
            kernarg: Vec::new(),
            dispatch: Vec::new(),
        };
        cpu.w.pc = entry;
        cpu.w.set_exec(cpu.w.live);
        if kernel {
            setup_kernel(&mut cpu, f, &desc, launch, &lanes)?;
        } else {
            setup_function(&mut cpu, f, launch, &lanes, opts)?;
        }
        let steps = execute(&mut cpu, launch.max_steps)?;
        for (k, &lane) in lanes.iter().enumerate() {
            let ret = match f.ret_ty {
                Type::Void => None,
                ty => {
                    let words: Vec<u32> = (0..words_of(ty)).map(|r| cpu.w.vgpr[r][k]).collect();
                    Some(words_value(ty, &words).ok_or_else(|| SimError::Launch {
                        what: format!("cannot build a `{ty}` from v0..v{}", words.len()),
                    })?)
                }
            };
            out.push(LaneResult {
                lane,
                workitem_id: launch.first_workitem.wrapping_add(lane),
                ret,
                steps,
            });
        }
        if f.ret_ty != Type::Void {
            let span = prog
                .insts
                .get(cpu.w.pc)
                .map(|i| i.span.clone())
                .unwrap_or(0..0);
            for r in 0..words_of(f.ret_ty) {
                cpu.w.check_v(r as u16, &span)?;
            }
        }
        first += n;
    }
    Ok(out)
}

/// The number of 32-bit words of a value of `ty`.
fn words_of(ty: Type) -> usize {
    (ty.bits() as usize).div_ceil(32)
}

/// Runs the wave until it returns; gives the number of instructions run.
fn execute(cpu: &mut Cpu, max_steps: u64) -> Result<u64, SimError> {
    let mut steps = 0u64;
    loop {
        let Some(inst) = cpu.prog.insts.get(cpu.w.pc) else {
            return Err(SimError::BadControl {
                span: cpu.prog.insts.last().map(|i| i.span.clone()),
                what: "control ran past the last instruction".into(),
            });
        };
        if steps >= max_steps {
            return Err(SimError::Steps {
                span: inst.span.clone(),
                limit: max_steps,
            });
        }
        steps += 1;
        match cpu.step(inst)? {
            Flow::Next => cpu.w.pc += 1,
            Flow::Jump(to) => cpu.w.pc = to,
            Flow::Return => return Ok(steps),
        }
    }
}

/// The SGPRs that carry `inreg` arguments of a plain function in LLVM 18
/// and later (`CC_AMDGPU_Func`'s `CCIfInReg`), in order: `s[0:3]` hold the
/// scratch descriptor, `s[4:5]` and `s[8:15]` the inputs the fixed ABI
/// reserves (read off llc 19's code on gfx9 and gfx10). Past them LLVM
/// passes the words in VGPRs; the simulator refuses such a function.
pub const INREG_SGPRS: [usize; 16] = [6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29];

/// Puts `inreg` argument `n` in the SGPRs from the `first`-th of
/// [`INREG_SGPRS`]; gives the next one free. The argument is one
/// value for the wave: lanes that disagree are refused.
fn setup_sgpr_arg(
    cpu: &mut Cpu,
    f: &Function,
    launch: &Launch,
    lanes: &[u32],
    n: usize,
    first: usize,
) -> Result<usize, SimError> {
    let mut words: Option<Vec<u32>> = None;
    for &lane in lanes {
        let w = value_words(&arg(f, launch, n, lane)?);
        match &words {
            Some(seen) if *seen != w => {
                return Err(SimError::Launch {
                    what: format!(
                        "argument {} of @{} is `inreg`, passed in SGPRs: give it one value for all lanes",
                        n + 1,
                        f.name
                    ),
                })
            }
            Some(_) => {}
            None => words = Some(w),
        }
    }
    let words = words.unwrap_or_default();
    for (k, w) in words.iter().enumerate() {
        let s = INREG_SGPRS.get(first + k).ok_or_else(|| SimError::Launch {
            what: format!(
                "@{}'s `inreg` arguments take more than the {} SGPRs of the convention",
                f.name,
                INREG_SGPRS.len()
            ),
        })?;
        cpu.w.sgpr[*s] = *w;
    }
    Ok(first + words.len())
}

/// The value lane `lane` passes for argument `n`.
fn arg(f: &Function, launch: &Launch, n: usize, lane: u32) -> Result<Value, SimError> {
    let a = &launch.args[n];
    let v = a.for_lane(lane).ok_or_else(|| SimError::Launch {
        what: format!("argument {} has no value for lane {lane}", n + 1),
    })?;
    let want = f.value(f.params[n]).ty;
    if v.ty() != want {
        return Err(SimError::Launch {
            what: format!(
                "argument {} of @{} has type `{want}`, given `{v}`",
                n + 1,
                f.name
            ),
        });
    }
    Ok(v)
}

fn setup_function(
    cpu: &mut Cpu,
    f: &Function,
    launch: &Launch,
    lanes: &[u32],
    opts: SimOptions,
) -> Result<(), SimError> {
    let mut reg = 0usize;
    let mut sreg = 0usize;
    for n in 0..f.params.len() {
        if f.is_inreg(n) && opts.inreg_in_sgprs {
            sreg = setup_sgpr_arg(cpu, f, launch, lanes, n, sreg)?;
            continue;
        }
        let mut width = 0;
        for (k, &lane) in lanes.iter().enumerate() {
            let v = arg(f, launch, n, lane)?;
            let mut words = value_words(&v);
            if let (Some(w), Some(bits @ 1..=31), false) = (
                words.first_mut(),
                Some(v.ty().bits()),
                opts.zero_narrow_args,
            ) {
                *w |= undefined_bits(lane) & !((1u32 << bits) - 1);
            }
            width = words.len();
            for (i, w) in words.into_iter().enumerate() {
                let r = reg + i;
                if r < 31 {
                    cpu.w.vgpr[r][k] = w;
                } else {
                    // Past v30: the next dword of the caller's stack frame.
                    let at = 4 * (r as u64 - 31);
                    let slot = cpu
                        .w
                        .scratch_mut(k, at, 4)
                        .ok_or_else(|| SimError::Launch {
                            what: format!(
                                "@{}'s stack arguments do not fit private memory",
                                f.name
                            ),
                        })?;
                    slot.copy_from_slice(&w.to_le_bytes());
                }
            }
        }
        reg += width;
    }
    // v31: the packed work-item ids (x, y << 10, z << 20; y = z = 0).
    for (k, &lane) in lanes.iter().enumerate() {
        cpu.w.vgpr[31][k] = launch.first_workitem.wrapping_add(lane) & 0x3ff;
    }
    let s = &mut cpu.w.sgpr;
    s[30] = RETURN_ADDRESS as u32;
    s[31] = (RETURN_ADDRESS >> 32) as u32;
    s[32] = 0;
    s[33] = 0;
    Ok(())
}

/// What the simulator puts in the bits of an argument register above a
/// narrow argument (`i1`, `i8`, `i16`, `half`): LLVM's convention leaves
/// them undefined, so code that assumes zeros (or a sign) there shows it.
fn undefined_bits(lane: u32) -> u32 {
    0x9e37_79b9u32
        .wrapping_mul(lane.wrapping_add(1))
        .rotate_left(lane % 32)
}

/// The ABI alignment of a kernel argument (LLVM's AMDGPU data layout).
fn abi_align(ty: Type) -> u64 {
    match ty {
        Type::Int(w) if w <= 8 => 1,
        Type::Int(w) if w <= 16 => 2,
        Type::Int(w) if w <= 32 => 4,
        Type::Half => 2,
        Type::Float => 4,
        Type::Vec2(Scalar::Int(w)) if w <= 16 => 4,
        Type::Vec2(Scalar::Half) => 4,
        _ => 8,
    }
}

/// The kernarg segment: the arguments at LLVM's offsets.
pub fn kernarg_segment(values: &[Value]) -> Vec<u8> {
    let mut seg = Vec::new();
    for v in values {
        let ty = v.ty();
        let align = abi_align(ty);
        let at = (seg.len() as u64).div_ceil(align) * align;
        seg.resize(at as usize, 0);
        seg.extend_from_slice(&v.to_le_bytes());
        let alloc = ty.store_size().div_ceil(align) * align;
        seg.resize((at + alloc) as usize, 0);
    }
    // Hidden arguments and scalar loads past the end read zeros.
    seg.resize(seg.len() + 256, 0);
    seg
}

fn setup_kernel(
    cpu: &mut Cpu,
    f: &Function,
    desc: &KernelDesc,
    launch: &Launch,
    lanes: &[u32],
) -> Result<(), SimError> {
    let mut values = Vec::new();
    for n in 0..f.params.len() {
        let v = arg(f, launch, n, lanes[0])?;
        for &l in &lanes[1..] {
            if arg(f, launch, n, l)? != v {
                return Err(SimError::Launch {
                    what: format!(
                        "argument {} of kernel @{} differs between lanes of a wave",
                        n + 1,
                        f.name
                    ),
                });
            }
        }
        values.push(v);
    }
    cpu.kernarg = kernarg_segment(&values);
    let wg_size = launch.workgroup_size.unwrap_or(launch.lanes);
    let mut packet = vec![0u8; 64];
    packet[4..6].copy_from_slice(&(wg_size as u16).to_le_bytes());
    packet[6..8].copy_from_slice(&1u16.to_le_bytes());
    packet[8..10].copy_from_slice(&1u16.to_le_bytes());
    let grid = wg_size.wrapping_mul(launch.workgroup_id + 1);
    packet[12..16].copy_from_slice(&grid.to_le_bytes());
    packet[16..20].copy_from_slice(&1u32.to_le_bytes());
    packet[20..24].copy_from_slice(&1u32.to_le_bytes());
    packet[40..48].copy_from_slice(&KERNARG_BASE.to_le_bytes());
    cpu.dispatch = packet;
    let mut s = 0usize;
    fn put(sgpr: &mut [u32; enc::SCALARS], s: &mut usize, words: &[u32]) {
        for w in words {
            if *s < 106 {
                sgpr[*s] = *w;
            }
            *s += 1;
        }
    }
    let sg = &mut cpu.w.sgpr;
    let split = |a: u64| [a as u32, (a >> 32) as u32];
    for (name, words) in [
        ("user_sgpr_private_segment_buffer", vec![0, 0, 0, 0]),
        ("user_sgpr_dispatch_ptr", split(DISPATCH_BASE).to_vec()),
        ("user_sgpr_queue_ptr", vec![0, 0]),
        (
            "user_sgpr_kernarg_segment_ptr",
            split(KERNARG_BASE).to_vec(),
        ),
        ("user_sgpr_dispatch_id", vec![0, 0]),
        ("user_sgpr_flat_scratch_init", vec![0, 0]),
        ("user_sgpr_private_segment_size", vec![0]),
    ] {
        if desc.get(name) != 0 {
            put(sg, &mut s, &words);
        }
    }
    if let Some(&count) = desc.settings.get("user_sgpr_count") {
        s = count as usize;
    }
    for (name, word) in [
        ("system_sgpr_workgroup_id_x", launch.workgroup_id),
        ("system_sgpr_workgroup_id_y", 0),
        ("system_sgpr_workgroup_id_z", 0),
        ("system_sgpr_workgroup_info", 0),
        ("system_sgpr_private_segment_wavefront_offset", 0),
    ] {
        if desc.get(name) != 0 {
            put(sg, &mut s, &[word]);
        }
    }
    for (k, &lane) in lanes.iter().enumerate() {
        cpu.w.vgpr[0][k] = launch.first_workitem.wrapping_add(lane);
    }
    Ok(())
}
