//! `regdesc-cc`: the driver of regdesc's GPU code generators.
//!
//! - `regdesc-cc run FILE.ll --fn NAME --arg "i64 5" ...` runs a function
//!   with the reference interpreter and prints its return value as an LLVM
//!   constant on the last line of stdout.
//! - `regdesc-cc check FILE.ll` parses, verifies and prints the uniformity
//!   of every value.
//! - `regdesc-cc compile --target T FILE.ll -o OUT` will drive the Intel Gen
//!   and AMD GCN back ends; it reports that they are not available yet.
//!
//! # The pass pipeline of the two targets (design)
//!
//! Both back ends share one pipeline; only instruction selection, the
//! register tables and the target hooks differ.
//!
//! 1. **Read and verify** the IR subset (`regdesc_codegen::read_module`).
//! 2. **Uniformity** (`regdesc_codegen::uniformity`): computed once on the IR
//!    and carried, per value and per branch, into every later step. This is
//!    what LLVM's GlobalISel legalizer lacks (D124844 cannot choose between
//!    SALU and VALU sequences for `G_MUL`): here legalization sees it.
//! 3. **Wide-integer legalization** into 32-bit limbs, before selection:
//!    every `iN` with N > 32 becomes N/32 limbs (`i16`/`half` stay
//!    sub-dword values with their lane position), `add`/`sub` become carry
//!    chains, `mul` becomes a cascade of 32x32->64 multiply-adds with the
//!    odd and even partial products accumulated separately (AMD's
//!    `V_MAD_U64_U32` wants an even-aligned accumulator pair), shifts become
//!    funnel shifts per limb. The legalizer asks uniformity whether a value
//!    is uniform, and emits scalar (SALU, SGPR) sequences for uniform values
//!    and vector (VALU, VGPR) ones for divergent values; on Intel, uniform
//!    values get scalar GRF regions and divergent ones SIMD-width tuples.
//! 4. **Instruction selection** into machine IR whose operands are virtual
//!    registers typed by register classes from the generated tables (with
//!    sub-register indices, implicit operands, tied operands and
//!    early-clobber). The class of each virtual register follows from its
//!    width and its uniformity (SGPR vs VGPR, scalar vs SIMD GRF tuple).
//! 5. **SSA machine passes** (peepholes such as the SDWA matcher that marks
//!    `UNUSED_PRESERVE` candidates with an implicit use of the preserved
//!    register).
//! 6. **PHI elimination**, then a **post-PHI-elimination pass slot**: the
//!    first non-SSA point, where passes that cannot be expressed in SSA run
//!    (the SDWA preserve merge of the seed: it rewrites the preserved
//!    register into the destination with sub-register, lane-mask-aware
//!    liveness).
//! 7. **Two-address lowering** of tied operands.
//! 8. **Liveness with lane masks**, then **register allocation** driven by
//!    the tables (register units for interference, class orders and
//!    alignment, sub-register liveness, coalescing, spilling through a
//!    target hook).
//! 9. **Emission** of assembly for `llvm-mc` (AMD) or IGA (Intel).
//!
//! Steps 6–8 exist, target-neutral and driven by the generated register
//! tables: `regdesc_codegen::mir` (machine IR, its text form and verifier,
//! PHI elimination, two-address lowering, lane liveness) and
//! `regdesc_codegen::regalloc`. Steps 3–5 and 9 belong to the targets,
//! which are not written yet: `compile` says so and exits with status 2.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use regdesc_codegen::cli_values::{parse_arg, parse_mem_dump, parse_mem_init};
use regdesc_codegen::interp::{self, GlobalMemory, LaneArg, Launch};
use regdesc_codegen::ir::{Function, Module, Source};
use regdesc_codegen::uniformity::{report::report, Uniformity};
use regdesc_codegen::value::Value;
use regdesc_codegen::{read_module, Diag, Diagnostics};

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
    about = "Run, check (and, with the targets, compile) functions in regdesc's LLVM IR subset"
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
    /// Compile for a GPU target (the targets' instruction selection is not available yet).
    Compile {
        file: PathBuf,
        /// `amdgcn` or `intel-gen`.
        #[arg(long)]
        target: String,
        #[arg(short = 'o')]
        output: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    file: PathBuf,
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
        Cmd::Compile { target, .. } => Err(Failure {
            status: 2,
            text: format!(
                "error: `regdesc-cc compile --target {target}` is not available yet: the Intel Gen and \
                 AMD GCN back ends (legalization, instruction selection, emission) are not written; the \
                 machine IR and register allocator they build on are (`regdesc_codegen::mir`, \
                 `regdesc_codegen::regalloc`)\nhelp: `regdesc-cc check` and `regdesc-cc run` work on the same input today\n"
            ),
        }),
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

fn run(a: &RunArgs, color: bool) -> Result<String, Failure> {
    let m = load(&a.file, color)?;
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
    let results = interp::run(f, &launch, &mut mem).map_err(|e| {
        diagnostics(
            &Diagnostics::new(m.source.clone(), vec![e.to_diag()]),
            color,
            1,
        )
    })?;
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
