//! The simulator against the reference interpreter on random inputs:
//! the check behind "the simulator agrees with an independent compiler"
//! (llc's assembly) and, for regdesc's own back end, "simulation equals
//! interpretation".
//!
//! Inputs come from [`regdesc_codegen::differential::random_value`]
//! (biased to 0, ±1, the extremes and limb-carry patterns); for functions
//! with floating-point values, inputs and memory hold no NaN (see
//! [`nan_free_word`]), infinities and all other values stay. Plain
//! functions get a value per lane, kernels the same value in every lane.
//! Each pointer argument points to a region of its own, [`REGION`] bytes,
//! in a global memory filled with random words; memory is compared after
//! each launch. A launch on which the IR has no defined result (poison, an
//! out-of-bounds access) is skipped and counted. The first mismatch is
//! given as the `regdesc-cc sim` command that reproduces it.

use std::fmt;

use regdesc_codegen::differential::random_value;
use regdesc_codegen::execute::{value_words, words_value};
use regdesc_codegen::interp::{self, GlobalMemory, LaneArg, LaneResult, Launch};
use regdesc_codegen::ir::{Function, Type};
use regdesc_codegen::rng::Rng;
use regdesc_codegen::value::Value;

use super::parse::Program;
use super::SimError;
use crate::Gfx;

/// Bytes of global memory each pointer argument gets (64 lanes of 64-byte
/// elements, `i512`, past a work-item offset of up to 4, and room to
/// spare).
pub const REGION: u64 = 8192;

/// What to compare.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    pub chip: Gfx,
    /// Lanes per launch.
    pub lanes: u32,
    /// Lanes to compare in all.
    pub inputs: usize,
    pub seed: u64,
    /// The assembly and IR file names, for the reproducing command.
    pub asm_file: String,
    pub ir_file: String,
    pub options: super::SimOptions,
}

/// What a comparison found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    pub compared: usize,
    pub skipped: usize,
}

/// A disagreement, or a simulation that failed.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub command: String,
    pub expected: String,
    pub got: String,
    pub error: Option<SimError>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "simulator and IR interpreter disagree\n  reproduce: {}\n  IR interpreter:\n{}\n  simulator:\n{}",
            self.command, self.expected, self.got
        )
    }
}

/// The most instructions a lane may execute in the IR: inputs that need
/// more (a loop counting to a random 32-bit bound) are replaced.
const MAX_STEPS: u64 = 20_000;

/// The most instructions the simulated wave may execute (it runs every
/// lane's path).
const WAVE_STEPS: u64 = 2_000_000;

/// New random values tried for a lane whose IR result is undefined.
const RETRIES: usize = 20;

/// Random arguments for `f`: a value per parameter, pointers to their own
/// regions.
fn random_args(rng: &mut Rng, f: &Function) -> Vec<LaneArg> {
    let nan_free = uses_floats(f);
    let mut ptr_k = 0;
    f.params
        .iter()
        .map(|p| {
            let ty = f.value(*p).ty;
            if ty == Type::Ptr {
                ptr_k += 1;
                LaneArg::Uniform(Value::Ptr(REGION * (ptr_k - 1)))
            } else {
                let v = random_value(rng, ty);
                LaneArg::Uniform(if nan_free { without_nans(v) } else { v })
            }
        })
        .collect()
}

/// Whether `f` has a floating-point value anywhere.
fn uses_floats(f: &Function) -> bool {
    f.values.iter().any(|v| v.ty.is_fp_or_fp_vector())
}

/// `w` with every binary16 half and the binary32 word that is a NaN made an
/// infinity. LLVM leaves the bits of a NaN result unspecified, and the
/// reference interpreter returns the first NaN operand, so where two NaNs
/// meet the result depends on an operand order llc may commute. With no
/// NaN among the inputs, every NaN is the default NaN of an invalid
/// operation (`inf - inf`, `0 * inf`), and NaN results still compare bit
/// for bit.
pub fn nan_free_word(w: u32) -> u32 {
    let mut w = w;
    for shift in [0, 16] {
        let h = (w >> shift) & 0xffff;
        if h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 {
            w &= !(0x3ff << shift);
        }
    }
    if w & 0x7f80_0000 == 0x7f80_0000 && w & 0x7f_ffff != 0 {
        w &= !0x7f_ffff;
    }
    w
}

/// `v` with its words made NaN-free ([`nan_free_word`]).
fn without_nans(v: Value) -> Value {
    let words: Vec<u32> = value_words(&v).into_iter().map(nan_free_word).collect();
    words_value(v.ty(), &words).unwrap_or(v)
}

/// Compares `f` simulated from `prog` with the IR interpreter.
pub fn compare(
    prog: &Program,
    f: &Function,
    cfg: &CheckConfig,
) -> Result<CheckReport, Box<Mismatch>> {
    let mut rng = Rng::new(cfg.seed);
    let mut report = CheckReport::default();
    let lanes = cfg.lanes.max(1);
    let ptrs = f
        .params
        .iter()
        .filter(|p| f.value(**p).ty == Type::Ptr)
        .count() as u64;
    let mem_size = (REGION * ptrs.max(1)) as usize;
    for _ in 0..cfg.inputs.div_ceil(lanes as usize) {
        let words: Vec<u32> = (0..mem_size / 4)
            .map(|_| rng.next() as u32)
            .map(|w| if uses_floats(f) { nan_free_word(w) } else { w })
            .collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let first_workitem = rng.below(4) as u32;
        let workgroup_id = rng.below(3) as u32;
        let launch_of = |args: Vec<LaneArg>, lanes: u32, first_workitem: u32| Launch {
            lanes,
            args,
            first_workitem,
            workgroup_id,
            workgroup_size: Some(cfg.lanes.max(1)),
            max_steps: MAX_STEPS,
        };
        // Values with a defined result: a lane (or a kernel's launch) whose
        // IR run fails gets new values, a few times.
        let defined = |args: Vec<LaneArg>, lanes: u32, first: u32| {
            let mut mem = GlobalMemory::from_bytes(bytes.clone());
            interp::run(f, &launch_of(args, lanes, first), &mut mem).is_ok()
        };
        let args: Vec<LaneArg> = if f.cconv.is_kernel() {
            let mut a = random_args(&mut rng, f);
            for _ in 0..RETRIES {
                if defined(a.clone(), lanes, first_workitem) {
                    break;
                }
                a = random_args(&mut rng, f);
            }
            a
        } else {
            let mut per_lane: Vec<Vec<Value>> = vec![Vec::new(); f.params.len()];
            for lane in 0..lanes {
                let mut a = random_args(&mut rng, f);
                for _ in 0..RETRIES {
                    if defined(a.clone(), 1, first_workitem + lane) {
                        break;
                    }
                    a = random_args(&mut rng, f);
                }
                for (p, v) in per_lane.iter_mut().zip(&a) {
                    p.extend(v.for_lane(0));
                }
            }
            // Pointers, and `inreg` arguments where they come in SGPRs,
            // are one value for the wave: lane 0's.
            f.params
                .iter()
                .zip(per_lane)
                .enumerate()
                .map(|(n, (p, vs))| {
                    let uniform = f.value(*p).ty == Type::Ptr
                        || (f.is_inreg(n) && cfg.options.inreg_in_sgprs);
                    match vs.first() {
                        Some(v) if uniform => LaneArg::Uniform(*v),
                        _ => LaneArg::PerLane(vs),
                    }
                })
                .collect()
        };
        let launch = launch_of(args, lanes, first_workitem);
        let mut mem_ir = GlobalMemory::from_bytes(bytes.clone());
        let Ok(expected) = interp::run(f, &launch, &mut mem_ir) else {
            report.skipped += lanes as usize;
            continue;
        };
        let mut mem_sim = GlobalMemory::from_bytes(bytes);
        let wave_launch = Launch {
            max_steps: WAVE_STEPS,
            ..launch.clone()
        };
        let got = super::run_with(cfg.chip, prog, f, &wave_launch, &mut mem_sim, cfg.options);
        let same = match &got {
            Ok(g) => {
                g.iter().map(|r| r.ret).eq(expected.iter().map(|r| r.ret)) && mem_ir == mem_sim
            }
            Err(_) => false,
        };
        if !same {
            let sim_results = got.as_ref().map(Vec::as_slice).unwrap_or(&[]);
            let lanes_differ: Vec<usize> = (0..expected.len())
                .filter(|&k| sim_results.get(k).map(|r| r.ret) != Some(expected[k].ret))
                .take(8)
                .collect();
            let bytes_differ: Vec<usize> = (0..mem_ir.len().max(mem_sim.len()))
                .filter(|&a| mem_ir.bytes().get(a) != mem_sim.bytes().get(a))
                .take(16)
                .collect();
            return Err(Box::new(Mismatch {
                command: command(cfg, f, &launch, &words),
                expected: show(&expected, &lanes_differ, &mem_ir, &bytes_differ),
                got: match &got {
                    Ok(g) => show(g, &lanes_differ, &mem_sim, &bytes_differ),
                    Err(e) => format!("    error: {e}"),
                },
                error: got.err(),
            }));
        }
        report.compared += lanes as usize;
    }
    Ok(report)
}

/// The results of the lanes, and the memory bytes, that differ.
fn show(r: &[LaneResult], lanes: &[usize], mem: &GlobalMemory, bytes: &[usize]) -> String {
    let mut s: Vec<String> = lanes
        .iter()
        .filter_map(|&k| r.get(k))
        .map(|x| {
            format!(
                "    lane {}: {}",
                x.lane,
                x.ret.map_or("void".to_string(), |v| v.to_string())
            )
        })
        .collect();
    if !bytes.is_empty() {
        let b: Vec<String> = bytes
            .iter()
            .map(|&a| {
                format!(
                    "[{a}]={}",
                    mem.bytes()
                        .get(a)
                        .map_or("-".to_string(), |v| v.to_string())
                )
            })
            .collect();
        s.push(format!("    memory bytes: {}", b.join(" ")));
    }
    s.join("\n")
}

/// `TYPE VALUE` for `--arg` (pointers as `ptr addrspace(1) N`).
fn typed(v: &Value) -> String {
    match v {
        Value::Ptr(p) => format!("ptr addrspace(1) {p}"),
        v => v.to_string(),
    }
}

/// The value part of [`typed`].
fn untyped(v: &Value) -> String {
    let t = typed(v);
    let ty = if v.ty() == Type::Ptr {
        "ptr addrspace(1)".to_string()
    } else {
        v.ty().to_string()
    };
    t.strip_prefix(&format!("{ty} "))
        .map_or(t.clone(), str::to_string)
}

/// The `regdesc-cc sim` command that replays one launch.
fn command(cfg: &CheckConfig, f: &Function, l: &Launch, mem: &[u32]) -> String {
    let mut c = format!(
        "regdesc-cc sim --target {}{} {} --ir {} --fn {} --lanes {} --workitem {} --workgroup {}",
        cfg.chip.name(),
        [
            (cfg.options.zero_narrow_args, " --zero-narrow-args"),
            (cfg.options.inreg_in_sgprs, " --inreg-in-sgprs"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, flag)| *flag)
        .collect::<String>(),
        cfg.asm_file,
        cfg.ir_file,
        f.name,
        l.lanes,
        l.first_workitem,
        l.workgroup_id
    );
    for a in &l.args {
        let text = match a {
            LaneArg::Uniform(v) => typed(v),
            LaneArg::PerLane(vs) => {
                let mut parts: Vec<String> = vs.iter().map(untyped).collect();
                if let (Some(first), Some(v)) = (parts.first_mut(), vs.first()) {
                    *first = typed(v);
                }
                parts.join(" | ")
            }
        };
        c.push_str(&format!(" --arg \"{text}\""));
    }
    let words: Vec<String> = mem.iter().map(|w| format!("i32 {}", *w as i32)).collect();
    c.push_str(&format!(
        " --mem-size {} --mem \"0: {}\"",
        mem.len() * 4,
        words.join(", ")
    ));
    c
}
