//! The `regdesc` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

// The evaluator makes and drops millions of small values; mimalloc handles
// that pattern markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use regdesc_core::lanes::LaneMode;
use regdesc_core::syntax::{self, LoadOptions};
use regdesc_core::{check, diag, eval};

#[derive(Parser)]
#[command(
    name = "regdesc",
    version,
    about = "TableGen register descriptions, computed like LLVM and checked"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct InputArgs {
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define a preprocessor macro.
    #[arg(short = 'D', value_name = "NAME")]
    define: Vec<String>,
    /// The TableGen file to read.
    file: PathBuf,
}

#[derive(Subcommand)]
enum Command {
    /// Print every record, exactly as `llvm-tblgen --print-records` does.
    Records(InputArgs),
    /// Print the register bank as `llvm-tblgen -gen-register-info
    /// -register-info-debug` does on stderr.
    Dump {
        #[command(flatten)]
        input: InputArgs,
        /// Lane mask assignment: `llvm` (bit-exact) or `coverage`.
        #[arg(long, default_value = "llvm", value_parser = parse_lanes)]
        lanes: LaneMode,
    },
    /// Check a register file: summary, lane budget, and every problem found.
    Check {
        #[command(flatten)]
        input: InputArgs,
        /// Lane mask assignment to check the budget against.
        #[arg(long, default_value = "coverage", value_parser = parse_lanes)]
        lanes: LaneMode,
        /// The lane budget (LLVM's LaneBitmask is 64 bits wide).
        #[arg(long = "lane-bits", default_value_t = 64)]
        lane_bits: u32,
        /// Output format.
        #[arg(long, default_value = "human", value_parser = ["human", "json"])]
        format: String,
    },
}

fn parse_lanes(s: &str) -> Result<LaneMode, String> {
    s.parse()
}

/// With `REGDESC_TIMINGS=1`, prints how long each stage took to stderr.
struct Timings {
    on: bool,
    last: std::time::Instant,
}

impl Timings {
    fn new() -> Self {
        Timings {
            on: std::env::var_os("REGDESC_TIMINGS").is_some_and(|v| v == "1"),
            last: std::time::Instant::now(),
        }
    }

    fn lap(&mut self, stage: &str) {
        let now = std::time::Instant::now();
        if self.on {
            eprintln!(
                "regdesc: {stage:>8}: {:8.2} ms",
                (now - self.last).as_secs_f64() * 1e3
            );
        }
        self.last = now;
    }
}

fn load_options(args: &InputArgs) -> LoadOptions {
    LoadOptions {
        include_dirs: args.include.clone(),
        defines: args.define.clone(),
        builtin_files: regdesc_core::prelude::builtin_files(),
    }
}

/// Writes to stdout in one go; a closed pipe (`| head`) is not an error.
fn write_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Colors only when a person is reading stderr.
fn color() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Dump { input, lanes } => run_dump(&input, lanes),
        Command::Check {
            input,
            lanes,
            lane_bits,
            format,
        } => run_check(&input, lanes, lane_bits, &format),
        Command::Records(args) => {
            let mut t = Timings::new();
            let (loaded, out) = match load_and_evaluate(&args) {
                Ok(x) => x,
                Err(code) => return code,
            };
            t.lap("parse+evaluate");
            let text = eval::print_records(&out.records);
            t.lap("print");
            write_stdout(&text);
            t.lap("write");
            // The process is about to exit: skip tearing down the record
            // graph and the ASTs (hundreds of thousands of nodes).
            std::mem::forget(out);
            std::mem::forget(loaded);
            ExitCode::SUCCESS
        }
    }
}

/// Loads and evaluates (parsing later files while earlier ones evaluate);
/// renders every diagnostic so far to stderr.
fn load_and_evaluate(args: &InputArgs) -> Result<(syntax::Loaded, eval::EvalOutput), ExitCode> {
    let opts = load_options(args);
    match syntax::load_file_then(&args.file, &opts, eval::evaluate) {
        Ok((loaded, evaluated)) => {
            let mut diags = loaded.diagnostics.clone();
            let result = match evaluated {
                Ok(out) => {
                    diags.extend(out.diagnostics.iter().cloned());
                    Ok(out)
                }
                Err(errs) => {
                    diags.extend(errs);
                    Err(ExitCode::from(1))
                }
            };
            if !diags.is_empty() {
                eprint!("{}", diag::render(&loaded.sources, &diags, color()));
            }
            result.map(|out| (loaded, out))
        }
        Err((sources, diags)) => {
            eprint!("{}", diag::render(&sources, &diags, color()));
            Err(ExitCode::from(1))
        }
    }
}

fn run_dump(args: &InputArgs, mode: LaneMode) -> ExitCode {
    let mut t = Timings::new();
    let (loaded, out) = match load_and_evaluate(args) {
        Ok(x) => x,
        Err(code) => return code,
    };
    t.lap("evaluate");
    let eval_warnings: Vec<_> = out
        .diagnostics
        .iter()
        .filter(|d| d.severity != diag::Severity::Note)
        .cloned()
        .collect();
    if !eval_warnings.is_empty() {
        eprint!("{}", diag::render(&loaded.sources, &eval_warnings, color()));
    }
    let bank = match regdesc_core::regs::RegBank::build(&out.records) {
        Ok(b) => b,
        Err(e) => {
            eprint!(
                "{}",
                diag::render(&loaded.sources, &[e.to_diagnostic()], color())
            );
            return ExitCode::from(1);
        }
    };
    t.lap("bank");
    for w in bank.warnings() {
        eprintln!("warning: {w}");
    }
    let lanes = regdesc_core::lanes::Lanes::compute(&bank, mode);
    t.lap("lanes");
    let text = regdesc_core::regs::dump::debug_dump(&bank, &lanes);
    t.lap("dump");
    write_stdout(&text);
    t.lap("write");
    std::mem::forget(bank);
    std::mem::forget(out);
    std::mem::forget(loaded);
    ExitCode::SUCCESS
}

fn run_check(args: &InputArgs, mode: LaneMode, lane_bits: u32, format: &str) -> ExitCode {
    let (loaded, out) = match load_and_evaluate(args) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let opts = check::CheckOptions { mode, lane_bits };
    let mut report = check::check(&out.records, &opts);
    report.builtin_prelude = loaded
        .diagnostics
        .iter()
        .any(|d| d.code == "regdesc::syntax::builtin_include");
    let failed = report.has_errors();
    if format == "json" {
        write_stdout(&check::to_json(&report, &loaded.sources));
    } else {
        write_stdout(&check::render_summary(&report));
        if !report.diagnostics.is_empty() {
            eprint!(
                "{}",
                diag::render(&loaded.sources, &report.diagnostics, color())
            );
        }
    }
    std::mem::forget(out);
    std::mem::forget(loaded);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
