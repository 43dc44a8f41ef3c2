//! `regdesc-cc`: the driver of regdesc's GPU code generators.
//!
//! - `regdesc-cc run FILE.ll --fn NAME --arg "i64 5" ...` runs a function
//!   with the reference interpreter and prints its return value as an LLVM
//!   constant on the last line of stdout.
//! - `regdesc-cc check FILE.ll` parses, verifies and prints the uniformity
//!   of every value.
//! - `regdesc-cc compile --target T FILE.ll -o OUT` compiles every
//!   function (or `--fn F`) through the back-end pipeline
//!   (`regdesc_codegen::pipeline`): `--print-after STAGE` prints machine IR
//!   after a stage, `--verify-each` verifies between stages, `--time-passes`
//!   prints each stage's time on stderr.
//! - `regdesc-cc run --target T --after STAGE ...` compiles the function up
//!   to STAGE and runs the machine code on the machine interpreter, printing
//!   exactly what `run` prints without `--target`, so `diff` compares them.
//! - `regdesc-cc sim --target gfx900|gfx90a|gfx1030 OUT.s --ir FILE.ll --fn F
//!   --arg ...` runs AMD GCN assembly (regdesc's or llc's) on the wave
//!   simulator (`regdesc_amdgpu::sim`), the signature coming from the IR
//!   it was compiled from, and prints exactly what `run` prints.
//!
//! - `regdesc-cc sim --target gen9|gen11|gen12lp OUT.asm --ir FILE.ll ...`
//!   runs Intel Gen assembly on the Gen simulator (`regdesc_intel::sim`;
//!   the SIMD width is read from the assembly), printing what `run` prints.
//!
//! Targets: `ref32` (the reference back end, `targets/ref32`); `gfx900`,
//! `gfx90a`, `gfx1030` (the AMD GCN back end, `targets/amdgpu`); `gen9`,
//! `gen11`, `gen12lp` (the Intel Gen back end, `targets/intel`, with
//! `--simd 8|16`; by default SIMD16 unless register pressure asks for
//! SIMD8).

// The back-end passes make and drop many small vectors (an operand list per
// machine instruction); mimalloc serves that much faster than the system
// allocator, whose consolidation cost grows with the heap.
// (See `regdesc_alloc` for its options.)
regdesc_alloc::global_allocator!(whole_arenas);

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use regdesc_amdgpu::{Amdgpu, Gfx};
use regdesc_codegen::cli_values::{parse_arg, parse_mem_dump, parse_mem_init};
use regdesc_codegen::execute::run_compiled;
use regdesc_codegen::interp::LaneResult;
use regdesc_codegen::interp::{self, GlobalMemory, LaneArg, Launch};
use regdesc_codegen::ir::{Function, Module, Source};
use regdesc_codegen::pipeline::{compile_function, Options, Stage};
use regdesc_codegen::target::Target;
use regdesc_codegen::uniformity::{report::report, Uniformity};
use regdesc_codegen::value::Value;
use regdesc_codegen::{read_module, Diag, Diagnostics};
use regdesc_ref32::Ref32;

/// The `--target` names.
const TARGETS: [&str; 7] = [
    "ref32", "gfx900", "gfx90a", "gfx1030", "gen9", "gen11", "gen12lp",
];

/// `--simd 8|16` for Intel targets; without it, the width register
/// pressure chooses (`regdesc_intel::default_simd`).
fn intel_simd(target: &str, simd: Option<u32>, funcs: &[&Function]) -> Option<u32> {
    match (regdesc_intel::Platform::from_name(target), simd) {
        (Some(p), None) => Some(u32::from(regdesc_intel::default_simd(p, funcs).lanes())),
        _ => simd,
    }
}

/// `--simd 8|16` (Intel targets).
fn simd_option(simd: Option<u32>) -> Result<regdesc_intel::Simd, Failure> {
    match simd {
        None => Ok(regdesc_intel::Simd::Simd16),
        Some(n) => regdesc_intel::Simd::from_lanes(n).ok_or_else(|| Failure {
            status: 2,
            text: format!("error: --simd {n}: the SIMD width is 8 or 16\n"),
        }),
    }
}

/// Something to do with a target, whichever it is.
trait WithTarget {
    type Out;
    fn call<T: Target>(self, t: &T) -> Self::Out;
}

/// Runs `k` with the target named `name`.
fn with_target<K: WithTarget>(name: &str, simd: Option<u32>, k: K) -> Result<K::Out, Failure> {
    match name {
        "ref32" => Ok(k.call(&Ref32::new())),
        "gfx900" => Ok(k.call(&Amdgpu::new(Gfx::Gfx900))),
        "gfx90a" => Ok(k.call(&Amdgpu::new(Gfx::Gfx90a))),
        "gfx1030" => Ok(k.call(&Amdgpu::new(Gfx::Gfx1030))),
        "gen9" | "gen11" | "gen12lp" => {
            let simd = simd_option(simd)?;
            match regdesc_intel::Platform::from_name(name) {
                Some(p) => Ok(k.call(&regdesc_intel::Gen::new(p, simd))),
                None => Err(Failure {
                    status: 1,
                    text: format!("error: unknown Intel platform `{name}`\n"),
                }),
            }
        }
        _ => {
            let d = Diag::new(
                "cli::target",
                format!("unknown target `{name}`"),
                0..name.len(),
            )
            .label("not a target")
            .help(format!("the targets are {}", TARGETS.join(", ")));
            let src = Source::new("<--target>", name);
            Err(Failure {
                status: 1,
                text: Diagnostics::new(src, vec![d]).render(false),
            })
        }
    }
}

const RUN_HELP: &str = "\
Values are written as LLVM constants with their type:
  --arg \"i64 5\"   --arg \"i128 -3\"   --arg \"i1 true\"   --arg \"half 0xH3C00\"
  --arg \"float 1.5\"   --arg \"<2 x i16> <i16 1, i16 -1>\"
  --arg \"ptr addrspace(1) 16\"   (a byte address in global memory; `null` is 0)
One value per lane, for --lanes N, separated by `|`:
  --arg \"i32 0 | 7 | -1 | 3\"

Global memory (addrspace(1)) is one zero-filled, little-endian byte array
starting at address 0 (--mem-size bytes, grown to fit --mem and --dump-mem):
  --mem \"16: i32 1, i32 2, half 0xH3C00\"   stores the values one after the other from byte 16
  --dump-mem \"16: 4 x i32\"                 prints 4 i32 from byte 16 after the run

Lanes run one after the other, lane 0 first, sharing memory. Lane k has
work-item id (llvm.amdgcn.workitem.id.x) W+k for --workitem W; every lane has
work-group id (llvm.amdgcn.workgroup.id.x) --workgroup G; get_global_id(0) is
G * --workgroup-size (default: --lanes) + the work-item id.

Output: each --dump-mem as `mem[ADDR]: T v, T v, ...`, then the return value
as an LLVM constant (`i128 12345`, `half 0xH3C00`, `float 1.500000e+00`,
`void`) on the last line; with --lanes N > 1 one line per lane, `lane K: ...`.
Exit status: 0 on success, 1 for bad IR or a run-time error (poison such as
a shift by the width or more, an out-of-bounds access, too many steps),
2 for bad options.";

#[derive(Parser)]
#[command(
    name = "regdesc-cc",
    version,
    about = "Run, check and compile functions in regdesc's LLVM IR subset"
)]
struct Cli {
    /// Colour diagnostics (default: when stderr is a terminal).
    #[arg(long, global = true, value_parser = ["auto", "always", "never"], default_value = "auto")]
    color: String,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a function with the reference interpreter.
    #[command(after_long_help = RUN_HELP)]
    Run(RunArgs),
    /// Parse, verify and print the uniformity of every value.
    Check {
        file: PathBuf,
        /// Only this function (default: all).
        #[arg(long = "fn")]
        function: Option<String>,
    },
    /// Compile for a target through the back-end pipeline.
    Compile(CompileArgs),
    /// Simulate AMD GCN assembly (regdesc's or llc's) of a function of an
    /// IR file; prints what `run` prints.
    #[command(after_long_help = RUN_HELP)]
    Sim(SimArgs),
}

#[derive(clap::Args)]
struct SimArgs {
    /// The assembly file.
    asm: PathBuf,
    /// The target it was compiled for: gfx900, gfx90a, gfx1030 (AMD), or
    /// gen9, gen11, gen12lp (Intel; the SIMD width comes from the
    /// assembly).
    #[arg(long)]
    target: String,
    /// The IR file the assembly was compiled from (the signature).
    #[arg(long)]
    ir: PathBuf,
    /// Zero the bits above i1/i8/i16/half arguments of plain functions
    /// (LLVM's convention leaves them undefined; the simulator fills them
    /// with a pattern unless this is given).
    #[arg(long)]
    zero_narrow_args: bool,
    /// Take `inreg` arguments of plain functions from SGPRs, one value for
    /// all lanes, as LLVM 18 and later pass them (llc 19's code); without
    /// it they come in VGPRs, as LLVM 14 and `regdesc-cc compile` pass them.
    #[arg(long)]
    inreg_in_sgprs: bool,
    #[command(flatten)]
    run: RunOptions,
}

#[derive(clap::Args)]
struct CompileArgs {
    file: PathBuf,
    /// The target: ref32, gfx900, gfx90a, gfx1030, gen9, gen11, gen12lp.
    #[arg(long)]
    target: String,
    /// SIMD width for Intel targets (8 or 16; default: by register
    /// pressure).
    #[arg(long)]
    simd: Option<u32>,
    /// Where to write the assembly (default: stdout).
    #[arg(short = 'o')]
    output: Option<PathBuf>,
    /// Only this function (default: all).
    #[arg(long = "fn")]
    function: Option<String>,
    /// Print machine IR after a stage (legalize, select, ssa, phi-elim,
    /// post-phi, two-addr, alloc, final); repeatable.
    #[arg(long = "print-after")]
    print_after: Vec<String>,
    /// Run the machine verifier after every stage.
    #[arg(long)]
    verify_each: bool,
    /// Print each stage's time on stderr.
    #[arg(long)]
    time_passes: bool,
}

#[derive(clap::Args)]
struct RunArgs {
    file: PathBuf,
    #[command(flatten)]
    opts: RunOptions,
    /// Compile for this target and run the machine code instead of the IR.
    #[arg(long)]
    target: Option<String>,
    /// With --target: the stage whose machine code runs (legalize,
    /// select, ssa, phi-elim, post-phi, two-addr, alloc, final).
    #[arg(long, default_value = "final")]
    after: String,
    /// With an Intel --target: the SIMD width (8 or 16).
    #[arg(long)]
    simd: Option<u32>,
}

/// What `run` and `sim` share: the function, its arguments, the launch and
/// memory.
#[derive(clap::Args)]
struct RunOptions {
    /// The function to run (default: the only function of the module).
    #[arg(long = "fn")]
    function: Option<String>,
    /// An argument, in order: `TYPE VALUE`, or `TYPE V0 | V1 | ...` per lane.
    #[arg(long = "arg", allow_hyphen_values = true)]
    args: Vec<String>,
    /// Number of lanes (invocations).
    #[arg(long, default_value_t = 1)]
    lanes: u32,
    /// Work-item id of lane 0.
    #[arg(long, default_value_t = 0)]
    workitem: u32,
    /// Work-group id of every lane.
    #[arg(long, default_value_t = 0)]
    workgroup: u32,
    /// Work-group size for get_global_id (default: --lanes).
    #[arg(long)]
    workgroup_size: Option<u32>,
    /// Initialise global memory: `ADDR: TYPE VALUE, ...`.
    #[arg(long = "mem")]
    mem: Vec<String>,
    /// Size of global memory in bytes.
    #[arg(long, default_value_t = 4096)]
    mem_size: usize,
    /// Print memory after the run: `ADDR: COUNT x TYPE`.
    #[arg(long = "dump-mem")]
    dump_mem: Vec<String>,
    /// Most instructions one lane may execute.
    #[arg(long, default_value_t = interp::DEFAULT_MAX_STEPS)]
    max_steps: u64,
}

/// How a command failed: the exit status and what to print on stderr.
struct Failure {
    status: u8,
    text: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = match cli.color.as_str() {
        "always" => true,
        "never" => false,
        _ => std::io::stderr().is_terminal(),
    };
    let result = match cli.cmd {
        Cmd::Run(a) => run(&a, color),
        Cmd::Check { file, function } => check(&file, function.as_deref(), color),
        Cmd::Compile(a) => compile(&a, color),
        Cmd::Sim(a) => sim(&a, color),
    };
    match result {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(f) => {
            eprint!("{}", f.text);
            ExitCode::from(f.status)
        }
    }
}

fn diagnostics(d: &Diagnostics, color: bool, status: u8) -> Failure {
    Failure {
        status,
        text: d.render(color),
    }
}

fn load(file: &PathBuf, color: bool) -> Result<Module, Failure> {
    let text = std::fs::read_to_string(file).map_err(|e| Failure {
        status: 1,
        text: format!("error: cannot read {}: {e}\n", file.display()),
    })?;
    read_module(&file.display().to_string(), &text).map_err(|d| diagnostics(&d, color, 1))
}

fn pick<'m>(m: &'m Module, name: Option<&str>) -> Result<&'m Function, Failure> {
    let names: Vec<String> = m.functions.iter().map(|f| format!("@{}", f.name)).collect();
    let found = match name {
        Some(n) => m.function(n.trim_start_matches('@')),
        None if m.functions.len() == 1 => m.functions.first(),
        None => None,
    };
    found.ok_or_else(|| Failure {
        status: 2,
        text: match name {
            Some(n) => format!(
                "error: no function `@{}` in {}\nhelp: the module defines {}\n",
                n.trim_start_matches('@'),
                m.source.name,
                if names.is_empty() { "no functions".to_string() } else { names.join(", ") }
            ),
            None => format!(
                "error: {} defines {} functions; choose one with --fn\nhelp: the module defines {}\n",
                m.source.name,
                names.len(),
                names.join(", ")
            ),
        },
    })
}

fn check(file: &PathBuf, name: Option<&str>, color: bool) -> Result<String, Failure> {
    let m = load(file, color)?;
    let funcs: Vec<&Function> = match name {
        Some(_) => vec![pick(&m, name)?],
        None => m.functions.iter().collect(),
    };
    let mut out = String::new();
    for (n, f) in funcs.into_iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        out.push_str(&report(f, &Uniformity::analyze(f)));
    }
    Ok(out)
}

/// Parses one option value; errors point into the option's text.
fn option_value<T>(
    what: &str,
    text: &str,
    color: bool,
    parse: impl Fn(&Source, &str) -> Result<T, Diagnostics>,
) -> Result<T, Failure> {
    let src = Source::new(format!("<{what}>"), text);
    parse(&src, text).map_err(|d| diagnostics(&d, color, 2))
}

fn option_error(what: &str, text: &str, d: Diag, color: bool) -> Failure {
    let src = Source::new(format!("<{what}>"), text);
    diagnostics(&Diagnostics::new(src, vec![d]), color, 2)
}

/// How `run` or `sim` executes the function.
type Executor<'e> = dyn FnOnce(&Module, &Function, &Launch, &mut GlobalMemory) -> Result<Vec<LaneResult>, Failure>
    + 'e;

fn run(a: &RunArgs, color: bool) -> Result<String, Failure> {
    run_with(
        &a.file,
        &a.opts,
        color,
        Box::new(|m, f, launch, mem| match &a.target {
            None => interp::run(f, launch, mem).map_err(|e| {
                diagnostics(
                    &Diagnostics::new(m.source.clone(), vec![e.to_diag()]),
                    color,
                    1,
                )
            }),
            Some(t) => {
                let stage = stage_named(&a.after)?;
                with_target(
                    t,
                    intel_simd(t, a.simd, &[f]),
                    RunOnTarget {
                        m,
                        f,
                        stage,
                        launch,
                        mem,
                        color,
                    },
                )?
            }
        }),
    )
}

/// `sim`: an assembly file on its target's simulator: AMD GCN's wave
/// simulator (`regdesc_amdgpu::sim`) or the Gen simulator
/// (`regdesc_intel::sim`).
fn sim(a: &SimArgs, color: bool) -> Result<String, Failure> {
    let text = std::fs::read_to_string(&a.asm).map_err(|e| Failure {
        status: 1,
        text: format!("error: cannot read {}: {e}\n", a.asm.display()),
    })?;
    if regdesc_intel::Platform::from_name(&a.target).is_some() {
        return run_with(
            &a.ir,
            &a.run,
            color,
            Box::new(|_, f, launch, mem| {
                regdesc_intel::sim::sim_intel_mem(&text, f, launch, mem).map_err(|e| Failure {
                    status: 1,
                    text: format!("error[{}]: {e}\nhelp: {}\n", e.code(), e.help()),
                })
            }),
        );
    }
    let chip = regdesc_amdgpu::sim::Gfx::from_name(&a.target).ok_or_else(|| Failure {
        status: 2,
        text: format!(
            "error: no simulator for target `{}`\nhelp: the simulated targets are gfx900, gfx90a, gfx1030, gen9, gen11, gen12lp\n",
            a.target
        ),
    })?;
    let src = Source::new(a.asm.display().to_string(), text.as_str());
    run_with(
        &a.ir,
        &a.run,
        color,
        Box::new(|_, f, launch, mem| {
            let opts = regdesc_amdgpu::sim::SimOptions {
                zero_narrow_args: a.zero_narrow_args,
                inreg_in_sgprs: a.inreg_in_sgprs,
            };
            regdesc_amdgpu::sim::simulate_with(chip, &text, f, launch, mem, opts).map_err(|e| {
                Failure {
                    status: 1,
                    text: e.render(&src, color),
                }
            })
        }),
    )
}

/// Reads the IR, sets up the launch and memory from the options, runs `exec`
/// and prints the dumps and results.
fn run_with(
    file: &PathBuf,
    a: &RunOptions,
    color: bool,
    exec: Box<Executor<'_>>,
) -> Result<String, Failure> {
    let m = load(file, color)?;
    let f = pick(&m, a.function.as_deref())?;
    if a.lanes == 0 {
        return Err(Failure {
            status: 2,
            text: "error: --lanes must be at least 1\n".to_string(),
        });
    }
    let mut args = Vec::new();
    for (n, text) in a.args.iter().enumerate() {
        let what = format!("--arg {}", n + 1);
        let (ty, arg) = option_value(&what, text, color, parse_arg)?;
        if let LaneArg::PerLane(v) = &arg {
            if v.len() != a.lanes as usize {
                let d = Diag::new(
                    "cli::lanes",
                    format!("{} values given for {} lanes", v.len(), a.lanes),
                    0..text.len(),
                )
                .label("one value per lane")
                .help("give one value for all lanes, or exactly --lanes values separated by `|`");
                return Err(option_error(&what, text, d, color));
            }
        }
        if let Some(p) = f.params.get(n) {
            let want = f.value(*p).ty;
            if ty != want {
                let d = Diag::new(
                    "cli::type",
                    format!(
                        "argument {} of @{} has type `{want}`, given `{ty}`",
                        n + 1,
                        f.name
                    ),
                    0..text.len(),
                )
                .label(format!("expected `{want}`"));
                return Err(option_error(&what, text, d, color));
            }
        }
        args.push(arg);
    }
    let mut mem = GlobalMemory::new(a.mem_size);
    let mut inits = Vec::new();
    for (n, text) in a.mem.iter().enumerate() {
        let (addr, values) =
            option_value(&format!("--mem {}", n + 1), text, color, parse_mem_init)?;
        let end = addr + values.iter().map(|v| v.ty().store_size()).sum::<u64>();
        mem.ensure_size(end as usize);
        inits.push((addr, values));
    }
    let mut dumps = Vec::new();
    for (n, text) in a.dump_mem.iter().enumerate() {
        let (addr, count, ty) = option_value(
            &format!("--dump-mem {}", n + 1),
            text,
            color,
            parse_mem_dump,
        )?;
        let end = count
            .checked_mul(ty.store_size())
            .and_then(|s| s.checked_add(addr))
            .filter(|e| *e <= 1 << 32)
            .ok_or_else(|| Failure {
                status: 2,
                text: format!("error: --dump-mem \"{text}\" reaches past 4 GiB\n"),
            })?;
        mem.ensure_size(end as usize);
        dumps.push((addr, count, ty));
    }
    for (addr, values) in inits {
        let mut at = addr;
        for v in values {
            mem.store(&v, at).map_err(|e| Failure {
                status: 2,
                text: format!("error: --mem: {e}\n"),
            })?;
            at += v.ty().store_size();
        }
    }
    let launch = Launch {
        lanes: a.lanes,
        args,
        first_workitem: a.workitem,
        workgroup_id: a.workgroup,
        workgroup_size: a.workgroup_size,
        max_steps: a.max_steps,
    };
    let results = exec(&m, f, &launch, &mut mem)?;
    let mut out = String::new();
    for (addr, count, ty) in dumps {
        let mut vals = Vec::new();
        for k in 0..count {
            match mem.load(ty, addr + k * ty.store_size()) {
                Ok(v) => vals.push(v.to_string()),
                Err(e) => {
                    return Err(Failure {
                        status: 2,
                        text: format!("error: --dump-mem: {e}\n"),
                    })
                }
            }
        }
        out.push_str(&format!("mem[{addr}]: {}\n", vals.join(", ")));
    }
    let text = |v: &Option<Value>| v.map_or_else(|| "void".to_string(), |v| v.to_string());
    if results.len() == 1 {
        out.push_str(&format!("{}\n", text(&results[0].ret)));
    } else {
        for r in &results {
            out.push_str(&format!("lane {}: {}\n", r.lane, text(&r.ret)));
        }
    }
    Ok(out)
}

fn stage_named(name: &str) -> Result<Stage, Failure> {
    Stage::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
        Failure {
            status: 2,
            text: format!(
                "error: unknown stage `{name}`\nhelp: the stages are {}\n",
                names.join(", ")
            ),
        }
    })
}

fn pipeline_failure(
    m: &Module,
    e: &regdesc_codegen::pipeline::PipelineError,
    color: bool,
) -> Failure {
    diagnostics(&Diagnostics::new(m.source.clone(), e.to_diags()), color, 1)
}

/// `run --target`: compile up to a stage, run the machine code.
struct RunOnTarget<'a> {
    m: &'a Module,
    f: &'a Function,
    stage: Stage,
    launch: &'a Launch,
    mem: &'a mut GlobalMemory,
    color: bool,
}

impl WithTarget for RunOnTarget<'_> {
    type Out = Result<Vec<LaneResult>, Failure>;

    fn call<T: Target>(self, t: &T) -> Self::Out {
        let opts = Options {
            stop_after: Some(self.stage),
            ..Options::default()
        };
        let code = compile_function(self.f, t, &opts)
            .map_err(|e| pipeline_failure(self.m, &e, self.color))?;
        run_compiled(t, self.f, &code, self.launch, self.mem).map_err(|e| Failure {
            status: 1,
            text: format!("error: {e}\n"),
        })
    }
}

/// `compile`: every function (or one) to assembly.
struct CompileOnTarget<'a> {
    m: &'a Module,
    funcs: Vec<&'a Function>,
    opts: Options,
    time_passes: bool,
    color: bool,
}

impl WithTarget for CompileOnTarget<'_> {
    type Out = Result<(String, String), Failure>;

    fn call<T: Target>(self, t: &T) -> Self::Out {
        let mut asm = String::new();
        let mut info = String::new();
        for f in self.funcs {
            let code = compile_function(f, t, &self.opts)
                .map_err(|e| pipeline_failure(self.m, &e, self.color))?;
            for (stage, text) in &code.printed {
                info.push_str(&format!(
                    "# *** machine IR of @{} after {stage} ***\n{text}\n",
                    f.name
                ));
            }
            if self.time_passes {
                for (stage, d) in &code.times {
                    info.push_str(&format!(
                        "# time: @{} {stage:<9} {:>10.3} ms\n",
                        f.name,
                        d.as_secs_f64() * 1e3
                    ));
                }
            }
            if let Some(a) = &code.asm {
                asm.push_str(a);
                asm.push('\n');
            }
        }
        Ok((asm, info))
    }
}

fn compile(a: &CompileArgs, color: bool) -> Result<String, Failure> {
    let m = load(&a.file, color)?;
    let funcs: Vec<&Function> = match &a.function {
        Some(_) => vec![pick(&m, a.function.as_deref())?],
        None => m.functions.iter().collect(),
    };
    let mut print_after = Vec::new();
    for s in &a.print_after {
        print_after.push(stage_named(s)?);
    }
    let opts = Options {
        print_after,
        verify_each: a.verify_each,
        ..Options::default()
    };
    let simd = intel_simd(&a.target, a.simd, &funcs);
    let (asm, info) = with_target(
        &a.target,
        simd,
        CompileOnTarget {
            m: &m,
            funcs,
            opts,
            time_passes: a.time_passes,
            color,
        },
    )??;
    eprint!("{info}");
    match &a.output {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(p, asm).map_err(|e| Failure {
                status: 1,
                text: format!("error: cannot write {}: {e}\n", p.display()),
            })?;
            Ok(String::new())
        }
        _ => Ok(asm),
    }
}
