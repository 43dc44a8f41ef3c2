//! Runs compiled machine code with the reference interpreter's launch
//! ([`crate::interp::Launch`]) and gives its results in the same form
//! ([`crate::interp::LaneResult`]), so machine code at any stage can be
//! compared with the IR, value for value.
//!
//! Arguments are split into 32-bit words (low first, vector element 0
//! low) and placed where the target's calling convention puts them
//! ([`crate::target::Abi`]); the words `RET` returns are put back
//! together into a value of the function's return type. Generic machine IR
//! runs one lane at a time; selected code runs as the target says
//! ([`crate::target::Target::exec_model`]).

use crate::value::IntBits;

use crate::interp::{GlobalMemory, LaneResult, Launch};
use crate::ir::{Function, Type};
use crate::legalize::words_of;
use crate::mir::interp::{run_machine, Bits, Env, ExecModel, InterpError};
use crate::pipeline::Compiled;
use crate::target::{NarrowArgs, Target, TargetError, WordLoc};
use crate::value::Value;

/// Why machine code could not be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The launch does not fit the function.
    Launch(String),
    Target(TargetError),
    /// The machine stopped (an error in the code, a bad address, too many
    /// steps).
    Machine {
        lane: Option<u32>,
        error: InterpError,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Launch(m) => write!(f, "{m}"),
            RunError::Target(e) => write!(f, "{e}"),
            RunError::Machine {
                lane: Some(l),
                error,
            } => write!(f, "machine code, lane {l}: {error}"),
            RunError::Machine { lane: None, error } => write!(f, "machine code: {error}"),
        }
    }
}

impl std::error::Error for RunError {}

/// The 32-bit words of a value.
pub fn value_words(v: &Value) -> Vec<u32> {
    let bits = v.to_bits();
    let limbs = bits.as_limbs();
    (0..words_of(v.ty()))
        .map(|k| (limbs[k / 2] >> (32 * (k % 2))) as u32)
        .collect()
}

/// The value of type `ty` made of `words`.
pub fn words_value(ty: Type, words: &[u32]) -> Option<Value> {
    let mut bits = IntBits::ZERO;
    for (k, w) in words.iter().enumerate().take(IntBits::BITS / 32) {
        bits |= IntBits::from(*w) << (32 * k);
    }
    if let Type::Int(w) = ty {
        if usize::from(w) < IntBits::BITS {
            bits &= (IntBits::from(1u8) << usize::from(w)) - IntBits::from(1u8);
        }
    }
    Value::from_bits(ty, bits)
}

/// Runs `code` (compiled from `f` for `target`) with `launch`, sharing
/// `mem` as the reference interpreter does.
pub fn run_compiled<T: Target>(
    target: &T,
    f: &Function,
    code: &Compiled,
    launch: &Launch,
    mem: &mut GlobalMemory,
) -> Result<Vec<LaneResult>, RunError> {
    if launch.args.len() != f.params.len() {
        return Err(RunError::Launch(format!(
            "@{} takes {} arguments, {} given",
            f.name,
            f.params.len(),
            launch.args.len()
        )));
    }
    let abi = target.abi(f).map_err(RunError::Target)?;
    let model = if code.stage.is_selected() {
        target.exec_model()
    } else {
        ExecModel::Threads
    };
    let wg_size = launch.workgroup_size.unwrap_or(launch.lanes);
    let lane_words = |lane: u32| -> Result<Vec<Vec<u32>>, RunError> {
        launch
            .args
            .iter()
            .enumerate()
            .map(|(n, a)| {
                a.for_lane(lane).map(|v| value_words(&v)).ok_or_else(|| {
                    RunError::Launch(format!("argument {} has no value for lane {lane}", n + 1))
                })
            })
            .collect()
    };
    let groups: Vec<Vec<u32>> = match model {
        ExecModel::Threads => (0..launch.lanes).map(|l| vec![l]).collect(),
        ExecModel::Wave => (0..launch.lanes)
            .collect::<Vec<u32>>()
            .chunks(target.wave_size().clamp(1, 64) as usize)
            .map(<[u32]>::to_vec)
            .collect(),
    };
    let mut out = Vec::with_capacity(launch.lanes as usize);
    for lanes in groups {
        let mut init: Vec<(regdesc_runtime::Reg, Vec<Bits>)> = Vec::new();
        let words: Vec<Vec<Vec<u32>>> = lanes
            .iter()
            .map(|&l| lane_words(l))
            .collect::<Result<_, _>>()?;
        for (n, locs) in abi.args.iter().enumerate() {
            // Bits the convention leaves undefined above a narrow argument
            // get a pattern (a different one per lane), so that code
            // reading them disagrees with the IR.
            let width = f.params.get(n).map_or(32, |p| f.value(*p).ty.bits());
            let junk = match abi.narrow_args {
                NarrowArgs::Undefined if width < 32 => !0u32 << width,
                _ => 0,
            };
            for (k, WordLoc::Reg(r)) in locs.iter().enumerate() {
                let vals = words
                    .iter()
                    .zip(&lanes)
                    .map(|(w, &l)| {
                        let word = w[n].get(k).copied().unwrap_or(0);
                        let pattern = 0xA5C3_5A3Cu32.rotate_left(l.wrapping_mul(7) % 32);
                        Bits::from_u128(32, u128::from(word | (pattern & junk)))
                    })
                    .collect();
                init.push((*r, vals));
            }
        }
        let env = Env {
            lanes: lanes.len() as u32,
            workitems: lanes
                .iter()
                .map(|l| launch.first_workitem.wrapping_add(*l))
                .collect(),
            workgroup_id: launch.workgroup_id,
            workgroup_size: wg_size,
            init,
            args: Vec::new(),
            max_steps: launch.max_steps,
        };
        let o = run_machine(
            &code.mir,
            target.regs(),
            target.instrs(),
            target.semantics(),
            &env,
            mem,
        )
        .map_err(|error| RunError::Machine {
            lane: (lanes.len() == 1).then_some(lanes[0]),
            error,
        })?;
        for (k, &lane) in lanes.iter().enumerate() {
            let words: Vec<u32> = o
                .results
                .iter()
                .map(|vals| vals.get(k).map_or(0, |b| b.to_u128() as u32))
                .collect();
            let ret = match f.ret_ty {
                Type::Void => None,
                ty => Some(words_value(ty, &words).ok_or_else(|| {
                    RunError::Launch(format!("cannot build a `{ty}` from the returned registers"))
                })?),
            };
            out.push(LaneResult {
                lane,
                workitem_id: launch.first_workitem.wrapping_add(lane),
                ret,
                steps: o.steps,
            });
        }
    }
    Ok(out)
}
