//! The `regdesc` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

// The evaluator makes and drops millions of small values; mimalloc handles
// that pattern markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use regdesc_core::syntax::{self, LoadOptions};
use regdesc_core::{diag, eval};

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

fn load(args: &InputArgs) -> Result<syntax::Loaded, ExitCode> {
    let opts = LoadOptions {
        include_dirs: args.include.clone(),
        defines: args.define.clone(),
        builtin_files: Vec::new(),
    };
    match syntax::load_file(&args.file, &opts) {
        Ok(loaded) => Ok(loaded),
        Err((sources, diags)) => {
            eprint!("{}", diag::render(&sources, &diags, color()));
            Err(ExitCode::from(1))
        }
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
        Command::Records(args) => {
            let mut t = Timings::new();
            let loaded = match load(&args) {
                Ok(l) => l,
                Err(code) => return code,
            };
            t.lap("parse");
            let evaluated = eval::evaluate(&loaded);
            t.lap("evaluate");
            match evaluated {
                Ok(out) => {
                    if !out.diagnostics.is_empty() {
                        eprint!(
                            "{}",
                            diag::render(&loaded.sources, &out.diagnostics, color())
                        );
                    }
                    let text = eval::print_records(&out.records);
                    t.lap("print");
                    write_stdout(&text);
                    t.lap("write");
                    // The process is about to exit: skip tearing down the
                    // record graph and the ASTs (hundreds of thousands of nodes).
                    std::mem::forget(out);
                    std::mem::forget(loaded);
                    ExitCode::SUCCESS
                }
                Err(diags) => {
                    eprint!("{}", diag::render(&loaded.sources, &diags, color()));
                    ExitCode::from(1)
                }
            }
        }
    }
}
