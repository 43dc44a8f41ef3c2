//! A Gen simulator: runs the IGA assembly the back end emits, one
//! hardware thread per SIMD8 or SIMD16 group of lanes, and gives results in
//! the reference interpreter's form, so `regdesc-cc sim` prints exactly
//! what `regdesc-cc run` prints.
//!
//! Covered (PRM sections cited in [`exec`]): execution size and channel
//! offset, NoMask, source regions and destination strides, the `ud`, `d`,
//! `uw`, `w` types, the accumulator with `addc`/`subb` carries and
//! `mul`/`mach` products, flags from conditional modifiers, predication,
//! `sel`, `jmpi` with `.allNh`/`.anyNh` predicate control, `cr0.0`
//! floating-point modes and `:f`/`:hf` `mov`/`add`/`mul`
//! ([`float`]), and the A64 stateless data-port `send`s on a
//! [`GlobalMemory`] shared with the IR interpreter ([`send`]). Up to 32
//! channels (IGC's SIMD32 code, in SIMD16/SIMD8 pieces at channel offsets
//! M0..M24). [`igc`] runs IGC's own kernels with the payload ocloc
//! describes. The SIMD width of the back end's code is read from the
//! assembly: the largest execution size plus channel offset of the
//! function's instructions that are not NoMask.

use std::fmt;

use regdesc_codegen::execute::{value_words, words_value};
use regdesc_codegen::interp::{LaneResult, Launch};
use regdesc_codegen::ir::{Function, Type};
use regdesc_codegen::target::{TargetError, WordLoc};

use crate::abi;
use crate::emit::{label_of, loc_of, Loc};
use crate::isa::{Inst, Line};
use crate::regions::GRF_BYTES;
use crate::target::Simd;

pub mod exec;
pub mod float;
pub mod igc;
pub mod parse;
pub mod send;

pub use exec::Thread;
use regdesc_codegen::interp::GlobalMemory;

/// A line of a program the simulator runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Label(String),
    Inst(Inst),
    /// A `send`/`sends` ([`send`]).
    Send(send::Send),
    /// Gen12 `sync.*`: a wait on a scoreboard token, which the in-order
    /// simulator has no need for.
    Sync,
}

impl Stmt {
    /// The statement of an emitted line. A send is read back from the
    /// text the emitter prints for it, so the simulator decodes the
    /// emitter's sends exactly as it decodes IGC's.
    pub fn of_line(l: Line) -> Result<Stmt, SimError> {
        Ok(match l {
            Line::Label(x) => Stmt::Label(x),
            Line::Inst(i) => Stmt::Inst(i),
            Line::Sync(_) => Stmt::Sync,
            Line::Send(s) => {
                let text = format!("        {s}\n");
                parse::parse_program(&text)?
                    .into_iter()
                    .map(|(_, st)| st)
                    .find(|st| matches!(st, Stmt::Send(_)))
                    .ok_or_else(|| SimError::Exec {
                        inst: s.to_string(),
                        message: "the send does not read back".to_string(),
                    })?
            }
        })
    }
}

/// Why a simulation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// A line the simulator cannot read.
    Parse {
        line: usize,
        text: String,
        message: String,
    },
    /// The assembly has no label for the function.
    NoFunction { name: String },
    /// An instruction the simulator cannot run as written.
    Exec { inst: String, message: String },
    /// A jump to a label the function does not define.
    NoLabel { label: String },
    /// More instructions ran than allowed.
    Steps { max: u64 },
    /// The function's ABI (from its IR).
    Abi(TargetError),
    /// The launch does not fit the function.
    Launch(String),
    /// A kernel's payload description (zeInfo) the simulator cannot lay out.
    Payload(String),
}

impl SimError {
    /// The error's code.
    pub fn code(&self) -> &'static str {
        match self {
            SimError::Parse { .. } => "sim::parse",
            SimError::NoFunction { .. } => "sim::no-function",
            SimError::Exec { .. } => "sim::exec",
            SimError::NoLabel { .. } => "sim::no-label",
            SimError::Steps { .. } => "sim::steps",
            SimError::Abi(_) => "sim::abi",
            SimError::Launch(_) => "sim::launch",
            SimError::Payload(_) => "sim::payload",
        }
    }

    /// What to do about it.
    pub fn help(&self) -> &'static str {
        match self {
            SimError::Parse { .. } | SimError::Exec { .. } => {
                "the simulator runs the integer subset regdesc-cc's Intel back end emits"
            }
            SimError::NoFunction { .. } => {
                "give the IR the assembly was compiled from, and the function with --fn"
            }
            SimError::NoLabel { .. } => "jumps stay inside their function",
            SimError::Steps { .. } => "raise --max-steps, or look for a loop that never exits",
            SimError::Abi(_) | SimError::Launch(_) => "check the --arg values against the IR",
            SimError::Payload(_) => {
                "the simulator lays out r0, local ids, global offsets, local sizes and stateless buffer or by-value arguments"
            }
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Parse {
                line,
                text,
                message,
            } => write!(f, "line {line}: {message}: `{text}`"),
            SimError::NoFunction { name } => write!(f, "no label `{name}:` in the assembly"),
            SimError::Exec { inst, message } => write!(f, "`{inst}`: {message}"),
            SimError::NoLabel { label } => write!(f, "jump to `{label}`, which is not defined"),
            SimError::Steps { max } => write!(f, "more than {max} instructions executed"),
            SimError::Abi(e) => write!(f, "{e}"),
            SimError::Launch(m) | SimError::Payload(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SimError {}

/// The lines of function `name` in a parsed file: from its label to the
/// next label that is not one of its own (`NAME_...`).
pub fn function_lines(file: &[(usize, Stmt)], name: &str) -> Result<Vec<Stmt>, SimError> {
    let label = label_of(name);
    let own = format!("{label}_");
    let start = file
        .iter()
        .position(|(_, l)| matches!(l, Stmt::Label(x) if *x == label))
        .ok_or_else(|| SimError::NoFunction {
            name: label.clone(),
        })?;
    let mut out = vec![Stmt::Label(label.clone())];
    for (_, l) in &file[start + 1..] {
        if let Stmt::Label(x) = l {
            if !x.starts_with(&own) {
                break;
            }
        }
        out.push(l.clone());
    }
    Ok(out)
}

/// The SIMD width of a function's code.
pub fn simd_of(lines: &[Stmt]) -> Simd {
    let w = lines
        .iter()
        .filter_map(|l| match l {
            Stmt::Inst(i) if !i.nomask => Some(u32::from(i.exec) + u32::from(i.offset)),
            Stmt::Send(s) if !s.nomask => Some(u32::from(s.exec) + u32::from(s.offset)),
            _ => None,
        })
        .max()
        .unwrap_or(8);
    if w > 8 {
        Simd::Simd16
    } else {
        Simd::Simd8
    }
}

/// A kernel (`spir_kernel`) launched as the IR interpreter runs it: the
/// payload the back end reads ([`abi::kernel_layout`], IGC's layout) is
/// loaded as [`igc::load_payload`] loads IGC's, with `r0.1` the launch's
/// work-group id, the enqueued local size its work-group size and the
/// local ids its work-item ids, so that `get_global_id` agrees with the
/// interpreter's. Arguments are uniform, at least 32 bits wide.
fn sim_kernel(
    lines: &[Stmt],
    simd: Simd,
    f: &Function,
    launch: &Launch,
    mem: &mut GlobalMemory,
) -> Result<Vec<LaneResult>, SimError> {
    let layout = abi::kernel_layout(f).map_err(SimError::Abi)?;
    let mut args = vec![
        igc::PayloadArg::GlobalIdOffset {
            offset: abi::GLOBAL_OFFSET,
        },
        igc::PayloadArg::LocalSize { offset: 12 },
    ];
    if let Some(offset) = layout.enqueued_local_size {
        args.push(igc::PayloadArg::EnqueuedLocalSize { offset });
    }
    let mut bytes = Vec::new();
    for (k, a) in launch.args.iter().enumerate() {
        let first = a.for_lane(0).ok_or_else(|| {
            SimError::Launch(format!("argument {} has no value for lane 0", k + 1))
        })?;
        if (1..launch.lanes).any(|l| a.for_lane(l).as_ref() != Some(&first)) {
            return Err(SimError::Launch(format!(
                "kernel argument {} differs between lanes: a kernel's arguments are uniform",
                k + 1
            )));
        }
        let ty = f.value(f.params[k]).ty;
        if ty.bits() < 32 {
            return Err(SimError::Launch(format!(
                "kernel argument {} (`{ty}`) is narrower than a dword: not simulated",
                k + 1
            )));
        }
        let b: Vec<u8> = value_words(&first)
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let (index, offset, size) = (k as u32, layout.arg_offsets[k], b.len() as u32);
        args.push(if ty == Type::Ptr {
            igc::PayloadArg::Pointer {
                index,
                offset,
                size,
            }
        } else {
            igc::PayloadArg::Value {
                index,
                offset,
                size,
            }
        });
        bytes.push(b);
    }
    let width = u32::from(simd.lanes());
    let info = igc::KernelInfo {
        name: f.name.clone(),
        simd: width,
        args,
        // One GRF of `:uw` local ids per dimension at SIMD8 and SIMD16.
        local_id_bytes: 3 * GRF_BYTES,
    };
    let d = igc::Dispatch {
        global: launch.lanes,
        local: launch.workgroup_size.unwrap_or(launch.lanes),
        args: bytes,
    };
    let mut out = Vec::new();
    let mut first = 0;
    while first < launch.lanes {
        let n = (launch.lanes - first).min(width);
        let mut t = Thread::new(if n >= 32 { u32::MAX } else { (1u32 << n) - 1 });
        let local = launch.first_workitem.wrapping_add(first);
        igc::load_payload(&mut t, &info, &d, launch.workgroup_id, local, n)?;
        let steps = run_program(&mut t, lines, mem, launch.max_steps.saturating_mul(64))?;
        for lane in 0..n {
            out.push(LaneResult {
                lane: first + lane,
                workitem_id: local.wrapping_add(lane),
                ret: None,
                steps,
            });
        }
        first += n;
    }
    Ok(out)
}

/// Runs `lines` on `t` from the top, for at most `max_steps` instructions
/// (sends access an empty memory).
pub fn run(t: &mut Thread, lines: &[Line], max_steps: u64) -> Result<u64, SimError> {
    let prog: Vec<Stmt> = lines
        .iter()
        .cloned()
        .map(Stmt::of_line)
        .collect::<Result<_, _>>()?;
    run_program(t, &prog, &mut GlobalMemory::new(0), max_steps)
}

/// Runs `prog` on `t` from the top until its end or an end-of-thread send,
/// for at most `max_steps` instructions; sends access `mem`.
pub fn run_program(
    t: &mut Thread,
    prog: &[Stmt],
    mem: &mut GlobalMemory,
    max_steps: u64,
) -> Result<u64, SimError> {
    let mut pc = 0;
    let mut steps = 0u64;
    while let Some(l) = prog.get(pc) {
        pc += 1;
        if matches!(l, Stmt::Label(_)) {
            continue;
        }
        steps += 1;
        if steps > max_steps {
            return Err(SimError::Steps { max: max_steps });
        }
        let i: &Inst = match l {
            Stmt::Label(_) | Stmt::Sync => continue,
            Stmt::Send(s) => match send::execute(t, s, mem)? {
                send::Flow::Continue => continue,
                send::Flow::End => break,
            },
            Stmt::Inst(i) => i,
        };
        if let exec::Next::Jump(label) = exec::execute(t, i)? {
            pc = prog
                .iter()
                .position(|x| matches!(x, Stmt::Label(y) if *y == label))
                .ok_or(SimError::NoLabel { label })?;
        }
    }
    Ok(steps)
}

fn byte_of(loc: Loc, lane: u32) -> usize {
    match loc {
        Loc::Lane(nr) => (u32::from(nr) * GRF_BYTES + lane * 4) as usize,
        Loc::Scalar(nr, k) => (u32::from(nr) * GRF_BYTES + u32::from(k) * 4) as usize,
    }
}

fn word_locs(locs: &[WordLoc]) -> Result<Vec<Loc>, SimError> {
    locs.iter()
        .map(|WordLoc::Reg(r)| {
            loc_of(*r).ok_or_else(|| SimError::Launch("an ABI register has no GRF".to_string()))
        })
        .collect()
}

/// Simulates function `f` (its IR) compiled into `asm` with `launch`:
/// one thread per SIMD-width group of lanes, arguments preloaded and
/// results read as the ABI says ([`crate::abi`]).
pub fn sim_intel(asm: &str, f: &Function, launch: &Launch) -> Result<Vec<LaneResult>, SimError> {
    sim_intel_mem(asm, f, launch, &mut GlobalMemory::new(0))
}

/// [`sim_intel`] with a global memory for the code's sends (A64 stateless
/// messages, [`send`]): the same memory the IR interpreter runs on.
pub fn sim_intel_mem(
    asm: &str,
    f: &Function,
    launch: &Launch,
    mem: &mut GlobalMemory,
) -> Result<Vec<LaneResult>, SimError> {
    let file = parse::parse_program(asm)?;
    let lines = function_lines(&file, &f.name)?;
    let simd = simd_of(&lines);
    if launch.args.len() != f.params.len() {
        return Err(SimError::Launch(format!(
            "@{} takes {} arguments, {} given",
            f.name,
            f.params.len(),
            launch.args.len()
        )));
    }
    if f.cconv.is_kernel() {
        return sim_kernel(&lines, simd, f, launch, mem);
    }
    let abi = abi::assign(f, simd).map_err(SimError::Abi)?;
    let args: Vec<Vec<Loc>> = abi
        .args
        .iter()
        .map(|l| word_locs(l))
        .collect::<Result<_, _>>()?;
    let ret = word_locs(&abi.ret)?;
    let width = u32::from(simd.lanes());
    let mut out = Vec::new();
    let mut first = 0;
    while first < launch.lanes {
        let n = (launch.lanes - first).min(width);
        let mut t = Thread::new(if n >= 32 { u32::MAX } else { (1u32 << n) - 1 });
        for lane in 0..n {
            for (k, a) in launch.args.iter().enumerate() {
                let v = a.for_lane(first + lane).ok_or_else(|| {
                    SimError::Launch(format!(
                        "argument {} has no value for lane {}",
                        k + 1,
                        first + lane
                    ))
                })?;
                for (w, loc) in value_words(&v).iter().zip(&args[k]) {
                    t.write_ud(byte_of(*loc, lane), *w);
                }
            }
        }
        // A thread runs every lane's path (and, in divergent code, the
        // block checks of each round): 64 times a lane's budget.
        let steps = run_program(&mut t, &lines, mem, launch.max_steps.saturating_mul(64))?;
        for lane in 0..n {
            let words: Vec<u32> = ret.iter().map(|l| t.read_ud(byte_of(*l, lane))).collect();
            let value = match f.ret_ty {
                Type::Void => None,
                ty => Some(words_value(ty, &words).ok_or_else(|| {
                    SimError::Launch(format!("cannot build a `{ty}` from the result GRFs"))
                })?),
            };
            out.push(LaneResult {
                lane: first + lane,
                workitem_id: launch.first_workitem.wrapping_add(first + lane),
                ret: value,
                steps,
            });
        }
        first += n;
    }
    Ok(out)
}
