//! The random differential driver every target's tests use: a function's
//! machine code at a chosen stage against the reference interpreter on the
//! IR, on many random inputs biased to the values that break wide
//! arithmetic (0, 1, -1, the signed minimum and maximum, limbs of all ones
//! next to limbs of zeros, so carries and borrows ripple across limbs,
//! and small numbers for shift amounts and indices).
//!
//! Plain functions get a value per lane; kernels get uniform arguments.
//! Pointer arguments point into a region of their own in a global memory
//! filled with random words, so kernels load and store real data; the
//! whole memory is compared after each launch. An input on which the IR
//! itself has no defined result (poison, an out-of-bounds access) is
//! skipped and counted. The first mismatch is reported as the
//! `regdesc-cc run` command that reproduces it.

use std::fmt;

use crate::value::IntBits;

use crate::execute::run_compiled;
use crate::interp::{self, GlobalMemory, LaneArg, Launch};
use crate::ir::{Function, Scalar, Type};
use crate::pipeline::{compile_function, Options, PipelineError, Stage};
use crate::rng::Rng;
use crate::target::Target;
use crate::value::{IntValue, ScalarValue, Value};

/// Bytes of global memory each pointer argument gets at least.
pub const REGION: u64 = 256;

/// Bytes each pointer argument gets in a launch of `lanes` lanes: room for
/// a kernel that indexes a 64-byte element (an `i512`) by its work-item id,
/// starting at work-item 3 at most, so that per-lane accesses are compared
/// rather than skipped as out of bounds.
pub fn region(lanes: u32) -> u64 {
    (64 * (u64::from(lanes) + 4))
        .next_power_of_two()
        .max(REGION)
}

/// What to compare.
#[derive(Clone, Debug)]
pub struct DiffConfig {
    /// The stage whose machine code runs.
    pub stage: Stage,
    /// Lanes per launch.
    pub lanes: u32,
    /// Inputs (lanes) to compare in all.
    pub inputs: usize,
    pub seed: u64,
    /// The file the function came from, for the reproducing command.
    pub file: String,
}

/// What a comparison found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiffReport {
    /// Lanes whose results were compared.
    pub compared: usize,
    /// Lanes of launches skipped because the IR has no defined result.
    pub skipped: usize,
}

/// Why a comparison failed.
#[derive(Clone, Debug)]
pub enum DiffError {
    Compile(PipelineError),
    /// Machine code and IR disagree.
    Mismatch {
        command: String,
        expected: String,
        got: String,
    },
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiffError::Compile(e) => write!(f, "compilation failed: {e}"),
            DiffError::Mismatch {
                command,
                expected,
                got,
            } => write!(
                f,
                "machine code and IR disagree\n  reproduce: {command}\n  IR interpreter:\n{expected}\n  machine code:\n{got}"
            ),
        }
    }
}

impl std::error::Error for DiffError {}

/// Compiles `f` for `target` up to `cfg.stage` and compares it with the IR
/// on `cfg.inputs` random inputs.
pub fn compare<T: Target>(
    target: &T,
    f: &Function,
    cfg: &DiffConfig,
) -> Result<DiffReport, DiffError> {
    let opts = Options {
        stop_after: Some(cfg.stage),
        ..Options::default()
    };
    let code = compile_function(f, target, &opts).map_err(DiffError::Compile)?;
    let mut rng = Rng::new(cfg.seed);
    let mut report = DiffReport::default();
    let lanes = cfg.lanes.max(1);
    let ptrs = f
        .params
        .iter()
        .filter(|p| f.value(**p).ty == Type::Ptr)
        .count() as u64;
    let region = region(lanes);
    let mem_size = (region * ptrs.max(1)) as usize;
    let launches = cfg.inputs.div_ceil(lanes as usize);
    for _ in 0..launches {
        let mut ptr_k = 0;
        let args: Vec<LaneArg> = f
            .params
            .iter()
            .map(|p| {
                let ty = f.value(*p).ty;
                if ty == Type::Ptr {
                    ptr_k += 1;
                    LaneArg::Uniform(Value::Ptr(region * (ptr_k - 1)))
                } else if f.cconv.is_kernel() {
                    LaneArg::Uniform(random_value(&mut rng, ty))
                } else {
                    LaneArg::PerLane((0..lanes).map(|_| random_value(&mut rng, ty)).collect())
                }
            })
            .collect();
        let words: Vec<u32> = (0..mem_size / 4).map(|_| rng.next() as u32).collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let launch = Launch {
            lanes,
            args,
            first_workitem: rng.below(4) as u32,
            workgroup_id: rng.below(3) as u32,
            workgroup_size: None,
            max_steps: 200_000,
        };
        let mut mem_ir = GlobalMemory::from_bytes(bytes.clone());
        let Ok(expected) = interp::run(f, &launch, &mut mem_ir) else {
            report.skipped += lanes as usize;
            continue;
        };
        let mut mem_mc = GlobalMemory::from_bytes(bytes);
        let got = run_compiled(target, f, &code, &launch, &mut mem_mc);
        let same = match &got {
            Ok(g) => {
                g.len() == expected.len()
                    && g.iter().zip(&expected).all(|(a, b)| a.ret == b.ret)
                    && mem_ir == mem_mc
            }
            Err(_) => false,
        };
        if !same {
            let show = |r: &[interp::LaneResult], mem: &GlobalMemory| {
                let mut s: Vec<String> = r
                    .iter()
                    .map(|x| {
                        format!(
                            "    lane {}: {}",
                            x.lane,
                            x.ret.map_or("void".to_string(), |v| v.to_string())
                        )
                    })
                    .collect();
                s.push(format!("    memory: {:?}", mem.bytes()));
                s.join("\n")
            };
            let got_text = match &got {
                Ok(g) => show(g, &mem_mc),
                Err(e) => format!("    {e}"),
            };
            return Err(DiffError::Mismatch {
                command: command(target.name(), cfg, f, &launch, &words),
                expected: show(&expected, &mem_ir),
                got: got_text,
            });
        }
        report.compared += lanes as usize;
    }
    Ok(report)
}

/// The `regdesc-cc run` command that replays one launch on machine code.
fn command(target: &str, cfg: &DiffConfig, f: &Function, l: &Launch, mem: &[u32]) -> String {
    let mut c = format!(
        "regdesc-cc run --target {target} --after {} {} --fn {} --lanes {} --workitem {} --workgroup {}",
        cfg.stage, cfg.file, f.name, l.lanes, l.first_workitem, l.workgroup_id
    );
    for a in &l.args {
        let text = match a {
            LaneArg::Uniform(v) => arg_text(v),
            LaneArg::PerLane(vs) => {
                let mut parts = vec![arg_text(&vs[0])];
                parts.extend(vs[1..].iter().map(|v| {
                    let t = arg_text(v);
                    t.split_once(' ').map_or(t.clone(), |(_, rest)| {
                        if v.ty() == Type::Ptr {
                            t.rsplit(' ').next().unwrap_or(rest).to_string()
                        } else {
                            rest.to_string()
                        }
                    })
                }));
                parts.join(" | ")
            }
        };
        c.push_str(&format!(" --arg \"{text}\""));
    }
    if !mem.is_empty() {
        let words: Vec<String> = mem.iter().map(|w| format!("i32 {}", *w as i32)).collect();
        c.push_str(&format!(
            " --mem-size {} --mem \"0: {}\"",
            mem.len() * 4,
            words.join(", ")
        ));
    }
    c
}

fn arg_text(v: &Value) -> String {
    match v {
        Value::Ptr(p) => format!("ptr addrspace(1) {p}"),
        v => v.to_string(),
    }
}

/// A random value of `ty`, biased to the edges.
pub fn random_value(rng: &mut Rng, ty: Type) -> Value {
    match ty {
        Type::Int(w) => Value::Int(random_int(rng, u32::from(w))),
        Type::Half | Type::Float => random_scalar(
            rng,
            if ty == Type::Half {
                Scalar::Half
            } else {
                Scalar::Float
            },
        )
        .value(),
        Type::Vec2(s) => Value::Vec2([random_scalar(rng, s), random_scalar(rng, s)]),
        Type::Ptr => Value::Ptr(0),
        Type::Void => Value::Int(IntValue::zero(1)),
    }
}

fn random_scalar(rng: &mut Rng, s: Scalar) -> ScalarValue {
    match s {
        Scalar::Int(w) => ScalarValue::Int(random_int(rng, u32::from(w))),
        Scalar::Half => {
            let specials = [
                0u16, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x7bff,
            ];
            let bits = if rng.chance(30) {
                rng.pick(&specials)
            } else {
                rng.next() as u16
            };
            ScalarValue::Half(half::f16::from_bits(bits))
        }
        Scalar::Float => {
            let specials = [
                0u32,
                0x8000_0000,
                0x3f80_0000,
                0xbf80_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                1,
            ];
            let bits = if rng.chance(30) {
                rng.pick(&specials)
            } else {
                rng.next() as u32
            };
            ScalarValue::Float(f32::from_bits(bits))
        }
    }
}

/// A random `w`-bit integer: edge values, small numbers, and limbs of all
/// zeros, all ones or random bits (carries across limbs).
pub fn random_int(rng: &mut Rng, w: u32) -> IntValue {
    let w16 = w as u16;
    let one = IntBits::from(1u8);
    // Random 64-bit limbs drawn: four up to i256 (the sequence the seeds
    // of existing reproductions were drawn with), one per limb above.
    let drawn = (w.div_ceil(64) as usize).clamp(4, IntBits::LIMBS);
    let bits = match rng.below(10) {
        0 => IntBits::ZERO,
        1 => one,
        2 => IntBits::MAX,
        3 => one << (w as usize - 1),
        4 => (one << (w as usize - 1)) - one,
        5 | 6 => IntBits::from(rng.below(2 * w as usize + 2)),
        7 => {
            // 2^(32k) - 1 or 2^(32k): a carry across limb k.
            let k = 32 * (1 + rng.below(w.div_ceil(32) as usize));
            let p = if k >= IntBits::BITS {
                IntBits::ZERO
            } else {
                one << k
            };
            if rng.chance(50) {
                p.wrapping_sub(one)
            } else {
                p
            }
        }
        8 => {
            let mut limbs = [0u64; IntBits::LIMBS];
            for l in limbs.iter_mut().take(drawn) {
                let lo = match rng.below(3) {
                    0 => 0,
                    1 => 0xffff_ffff,
                    _ => rng.next() & 0xffff_ffff,
                };
                let hi = match rng.below(3) {
                    0 => 0,
                    1 => 0xffff_ffff,
                    _ => rng.next() & 0xffff_ffff,
                };
                *l = lo | (hi << 32);
            }
            IntBits::from_limbs(limbs)
        }
        _ => {
            let mut limbs = [0u64; IntBits::LIMBS];
            for l in limbs.iter_mut().take(drawn) {
                *l = rng.next();
            }
            IntBits::from_limbs(limbs)
        }
    };
    let bits = if rng.chance(10) {
        // A small negative number.
        IntBits::ZERO.wrapping_sub(IntBits::from(rng.below(4) + 1))
    } else {
        bits
    };
    IntValue::new(w16, bits)
}
