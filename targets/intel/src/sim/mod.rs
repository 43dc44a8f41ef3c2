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
//! ([`float`]). Send messages are not simulated, so IGC's kernels (which
//! load their arguments with sends) are out of reach; the parser reads
//! IGA's disassembly of the integer subset. The SIMD width is read from the assembly:
//! the largest execution size plus channel offset of the function's
//! instructions that are not NoMask.

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
pub mod parse;

pub use exec::Thread;

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
            SimError::Launch(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SimError {}

/// The lines of function `name` in a parsed file: from its label to the
/// next label that is not one of its own (`NAME_...`).
pub fn function_lines(file: &[(usize, Line)], name: &str) -> Result<Vec<Line>, SimError> {
    let label = label_of(name);
    let own = format!("{label}_");
    let start = file
        .iter()
        .position(|(_, l)| matches!(l, Line::Label(x) if *x == label))
        .ok_or_else(|| SimError::NoFunction {
            name: label.clone(),
        })?;
    let mut out = vec![Line::Label(label.clone())];
    for (_, l) in &file[start + 1..] {
        if let Line::Label(x) = l {
            if !x.starts_with(&own) {
                break;
            }
        }
        out.push(l.clone());
    }
    Ok(out)
}

/// The SIMD width of a function's code.
pub fn simd_of(lines: &[Line]) -> Simd {
    let w = lines
        .iter()
        .filter_map(|l| match l {
            Line::Inst(i) if !i.nomask => Some(u32::from(i.exec) + u32::from(i.offset)),
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

/// Runs `lines` on `t` from the top, for at most `max_steps` instructions.
pub fn run(t: &mut Thread, lines: &[Line], max_steps: u64) -> Result<u64, SimError> {
    let mut pc = 0;
    let mut steps = 0u64;
    while let Some(l) = lines.get(pc) {
        pc += 1;
        let i: &Inst = match l {
            Line::Label(_) | Line::Sync(_) => continue,
            Line::Inst(i) => i,
            Line::Send(s) => {
                return Err(SimError::Exec {
                    inst: s.to_string(),
                    message: "send messages are not simulated".to_string(),
                })
            }
        };
        steps += 1;
        if steps > max_steps {
            return Err(SimError::Steps { max: max_steps });
        }
        if let exec::Next::Jump(label) = exec::execute(t, i)? {
            pc = lines
                .iter()
                .position(|x| matches!(x, Line::Label(y) if *y == label))
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
    let file = parse::parse(asm)?;
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
        let steps = run(&mut t, &lines, launch.max_steps.saturating_mul(64))?;
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
