//! The `regdesc` command line: a thin shell over `regdesc_core::driver`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use regdesc_core::check::CheckOptions;
use regdesc_core::driver::{self, Input, Run, Source};
use regdesc_core::lanes::LaneMode;
use regdesc_core::{diag, llvm_format};

mod tblgen;

// mimalloc, without purging and with huge pages: the evaluator makes and
// drops millions of small values (see `regdesc_alloc`).
regdesc_alloc::global_allocator!();

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
    /// Accepted for llvm-tblgen compatibility: do not warn about unused
    /// template arguments.
    #[arg(long = "no-warn-on-unused-template-args")]
    no_warn_unused_template_args: bool,
    /// The TableGen file to read; `-` or none reads standard input.
    file: Option<PathBuf>,
}

impl InputArgs {
    fn input(&self) -> Input {
        let mut input = make_input(self.file.as_deref(), &self.include, &self.define);
        input.warn_unused_template_args = !self.no_warn_unused_template_args;
        input
    }
}

/// What to read: `file` (`-` or none is standard input), with include
/// directories and defines.
pub(crate) fn make_input(
    file: Option<&std::path::Path>,
    include: &[PathBuf],
    define: &[String],
) -> Input {
    let source = match file {
        None => Source::Stdin,
        Some(p) if p.as_os_str() == "-" => Source::Stdin,
        Some(p) => Source::File(p.to_path_buf()),
    };
    let mut input = Input::new(source);
    input.include_dirs = include.to_vec();
    input.defines = define.to_vec();
    input.release_memory = Some(regdesc_alloc::release_freed_memory);
    input
}

/// Which findings of `check` are deliberate, and which must fail.
#[derive(clap::Args, Clone, Default)]
struct SilenceArgs {
    /// Silence a diagnostic code (`class_size_mismatch` or its full
    /// `regdesc::check::...` code); counted as allowed in the summary. A
    /// `// regdesc: allow(CODE)` comment on a record's line does the same
    /// for that record.
    #[arg(long, value_name = "CODE")]
    allow: Vec<String>,
    /// Make a code's warnings errors.
    #[arg(long, value_name = "CODE")]
    deny: Vec<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum DumpFormat {
    /// llvm-tblgen's `-register-info-debug` stream.
    Llvm,
    /// The consumer model (registers, indices, classes, units, lanes) as JSON.
    Json,
    /// What llvm-tblgen's register-info tables say about register pressure
    /// (sets with names and limits, class and unit weights and sets), one
    /// line per item.
    Pressure,
}

#[derive(Clone, Copy, ValueEnum)]
enum DocFormat {
    /// A static site: index, one page per class, indices, register groups.
    Html,
    /// One Markdown file, for pasting into a README.
    Markdown,
}

#[derive(Subcommand)]
enum Command {
    /// Print every record, exactly as `llvm-tblgen --print-records` does.
    Records(InputArgs),
    /// Print what `llvm-tblgen -gen-register-info -register-info-debug`
    /// prints on stderr (its warnings, then the register bank), or the
    /// consumer model as JSON.
    Dump {
        #[command(flatten)]
        input: InputArgs,
        /// Lane mask assignment: `llvm` (bit-exact) or `coverage`.
        #[arg(long, default_value = "llvm", value_parser = parse_lanes)]
        lanes: LaneMode,
        /// Output format.
        #[arg(long, value_enum, default_value = "llvm")]
        format: DumpFormat,
    },
    /// Write the Rust tables of a register file (what `regdesc!` expands to).
    Emit {
        #[command(flatten)]
        input: InputArgs,
        /// Lane mask assignment.
        #[arg(long, default_value = "coverage", value_parser = parse_lanes)]
        lanes: LaneMode,
        /// The lane budget: more lanes than this is an error (the generated
        /// `LaneMask` is as wide as the lanes need, up to any width).
        #[arg(long = "lane-bits", default_value_t = 64)]
        lane_bits: u32,
        #[command(flatten)]
        silence: SilenceArgs,
        /// Link the rustdoc of generated items to a `regdesc doc` site here.
        #[arg(long = "doc-url", value_name = "URL")]
        doc_url: Option<String>,
        /// Where to write the Rust file (replaced atomically; left untouched
        /// when unchanged).
        #[arg(short = 'o', value_name = "OUT.rs")]
        output: PathBuf,
        /// Write nothing; exit 1 when OUT.rs is not what would be written
        /// (a staleness check for checked-in generated files).
        #[arg(long)]
        check: bool,
    },
    /// Write documentation: a static HTML site with SVG layouts (works from
    /// file://), or one Markdown file.
    Doc {
        #[command(flatten)]
        input: InputArgs,
        /// Where to write: the site's directory; for `--format markdown`, a
        /// `.md` file, a directory (gets `index.md`) or `-` (stdout).
        #[arg(short = 'o', value_name = "DIR")]
        output: PathBuf,
        /// The lane mode shown first and checked against the budget (masks
        /// of both modes are shown).
        #[arg(long, default_value = "coverage", value_parser = parse_lanes)]
        lanes: LaneMode,
        /// The lane budget the check reports against.
        #[arg(long = "lane-bits", default_value_t = 64)]
        lane_bits: u32,
        #[command(flatten)]
        silence: SilenceArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "html")]
        format: DocFormat,
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
        #[command(flatten)]
        silence: SilenceArgs,
        /// Output format: a summary and rendered diagnostics, or one JSON
        /// object (always printed, whatever stage failed).
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
}

fn parse_lanes(s: &str) -> Result<LaneMode, String> {
    s.parse()
}

/// With `REGDESC_TIMINGS=1`, prints how long each step took to stderr.
pub(crate) fn print_timings(run: &Run, more: &[(&str, std::time::Duration)]) {
    if std::env::var_os("REGDESC_TIMINGS").is_some_and(|v| v == "1") {
        for (stage, t) in run
            .timings
            .iter()
            .map(|(s, t)| (*s, *t))
            .chain(more.iter().copied())
        {
            eprintln!("regdesc: {stage:>8}: {:8.2} ms", t.as_secs_f64() * 1e3);
        }
    }
}

/// Writes to stdout in one go; a closed pipe (`| head`) is not an error.
pub(crate) fn write_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Colors only when a person is reading stderr.
pub(crate) fn color() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

fn exit_code(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Ends the process without tearing down the record graph and the bank
/// (hundreds of thousands of nodes): the process is about to exit anyway.
pub(crate) fn finish(run: Run, code: ExitCode) -> ExitCode {
    std::mem::forget(run);
    code
}

fn main() -> ExitCode {
    #[cfg(not(target_os = "linux"))]
    configure_allocator();
    // llvm-tblgen's spelling (`-gen-register-info`) is not clap's.
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == "tblgen") {
        return tblgen::run(&args[2..]);
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Records(args) => run_records(&args),
        Command::Dump {
            input,
            lanes,
            format: DumpFormat::Llvm,
        } => run_dump(&input, lanes),
        Command::Dump {
            input,
            lanes,
            format: DumpFormat::Json,
        } => run_dump_json(&input, lanes),
        Command::Dump {
            input,
            lanes,
            format: DumpFormat::Pressure,
        } => run_dump_pressure(&input, lanes),
        Command::Emit {
            input,
            lanes,
            lane_bits,
            silence,
            doc_url,
            output,
            check,
        } => run_emit(
            &input,
            CheckOptions {
                mode: lanes,
                lane_bits,
                allow: silence.allow,
                deny: silence.deny,
            },
            doc_url,
            &output,
            check,
        ),
        Command::Doc {
            input,
            output,
            lanes,
            lane_bits,
            silence,
            format,
        } => run_doc(
            &input,
            CheckOptions {
                mode: lanes,
                lane_bits,
                allow: silence.allow,
                deny: silence.deny,
            },
            format,
            &output,
        ),
        Command::Check {
            input,
            lanes,
            lane_bits,
            silence,
            format,
        } => run_check(
            &input,
            CheckOptions {
                mode: lanes,
                lane_bits,
                allow: silence.allow,
                deny: silence.deny,
            },
            format,
        ),
    }
}

fn run_records(args: &InputArgs) -> ExitCode {
    regdesc_alloc::return_freed_memory_at_once();
    let run = driver::records(&args.input());
    if !run.diagnostics.is_empty() {
        eprint!("{}", run.render(color()));
    }
    let Some(records) = &run.records else {
        return finish(run, ExitCode::from(1));
    };
    let start = std::time::Instant::now();
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        // A closed pipe (`regdesc records ... | head`) ends the output
        // quietly, as the whole-string write did.
        let _ = llvm_format::write_records(records, &mut out).and_then(|()| out.flush());
    }
    print_timings(&run, &[("print", start.elapsed())]);
    finish(run, ExitCode::SUCCESS)
}

fn run_dump(args: &InputArgs, mode: LaneMode) -> ExitCode {
    let run = driver::bank(&args.input(), mode);
    let start = std::time::Instant::now();
    let written = {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        run.write_register_info_debug(&mut out)
            .map(|r| r.and_then(|()| out.flush()))
    };
    match written {
        None => {
            eprint!("{}", run.render(color()));
            return finish(run, ExitCode::from(1));
        }
        // A closed pipe (`regdesc dump ... | head`) is not an error.
        Some(Err(e)) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("regdesc: cannot write the dump: {e}");
            return finish(run, ExitCode::from(1));
        }
        Some(_) => {}
    }
    // Notes (the built-in prelude) are regdesc's own: stderr.
    let notes: Vec<diag::Diagnostic> = run
        .diagnostics
        .iter()
        .filter(|d| d.severity == diag::Severity::Note)
        .cloned()
        .collect();
    if !notes.is_empty() {
        eprint!("{}", diag::render(&run.sources, &notes, color()));
    }
    print_timings(&run, &[("dump", start.elapsed())]);
    finish(run, ExitCode::SUCCESS)
}

fn run_dump_pressure(args: &InputArgs, mode: LaneMode) -> ExitCode {
    let run = driver::bank(&args.input(), mode);
    if !run.diagnostics.is_empty() {
        eprint!("{}", run.render(color()));
    }
    let Some(bank) = &run.bank else {
        return finish(run, ExitCode::from(1));
    };
    write_stdout(&bank.pressure.to_text(bank));
    print_timings(&run, &[]);
    finish(run, ExitCode::SUCCESS)
}

fn run_dump_json(args: &InputArgs, mode: LaneMode) -> ExitCode {
    // The model of the whole file: no lane budget.
    let opts = CheckOptions {
        mode,
        lane_bits: u32::MAX,
        ..Default::default()
    };
    let run = driver::target(&args.input(), &opts);
    if !run.diagnostics.is_empty() {
        eprint!("{}", run.render(color()));
    }
    let Some(target) = &run.target else {
        return finish(run, ExitCode::from(1));
    };
    write_stdout(&target.to_json());
    print_timings(&run, &[]);
    finish(run, ExitCode::SUCCESS)
}

fn run_emit(
    args: &InputArgs,
    opts: CheckOptions,
    doc_url: Option<String>,
    output: &std::path::Path,
    check: bool,
) -> ExitCode {
    let run = driver::target(&args.input(), &opts);
    let errors: Vec<diag::Diagnostic> = run
        .diagnostics
        .iter()
        .filter(|d| d.severity != diag::Severity::Note)
        .cloned()
        .collect();
    if !errors.is_empty() {
        eprint!("{}", diag::render(&run.sources, &errors, color()));
    }
    let Some(target) = &run.target else {
        return finish(run, ExitCode::from(1));
    };
    let emit_opts = regdesc_core::emit::EmitOptions {
        min_lane_bits: 32,
        doc_url,
    };
    // The command line that regenerates the file, in its header.
    let command: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--check")
        .map(|a| {
            if a.contains([' ', '"', '\'']) {
                format!("{a:?}")
            } else {
                a
            }
        })
        .collect();
    let header = format!("generated by `regdesc {}`, do not edit", command.join(" "));
    let text = match regdesc_core::emit::file(target, &emit_opts, &header) {
        Ok(t) => t,
        Err(e) => {
            eprint!(
                "{}",
                diag::render(&run.sources, &[e.to_diagnostic()], color())
            );
            return finish(run, ExitCode::from(1));
        }
    };
    if check {
        if std::fs::read(output).is_ok_and(|old| old == text.as_bytes()) {
            return finish(run, ExitCode::SUCCESS);
        }
        eprintln!(
            "regdesc: {} is stale: regenerate it with `regdesc {}`",
            output.display(),
            command.join(" ")
        );
        return finish(run, ExitCode::from(1));
    }
    if let Err(e) = write_if_changed(output, &text) {
        eprintln!("regdesc: cannot write {}: {e}", output.display());
        return finish(run, ExitCode::from(1));
    }
    finish(run, ExitCode::SUCCESS)
}

/// Writes `text` to `path` through a temporary file and a rename, and not
/// at all when the file already holds it (build systems see no change).
pub(crate) fn write_if_changed(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    // Only a file of the same length can hold the text: read no other.
    let same_len = std::fs::metadata(path).is_ok_and(|m| m.len() == text.len() as u64);
    if same_len && std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(());
    }
    let tmp = temp_path(path);
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// [`write_if_changed`] for text that `write` produces a chunk at a time:
/// it goes to a temporary file beside `path`, which then replaces `path`
/// unless `path` already holds the same bytes (then `path` is left alone,
/// as llvm-tblgen's `--write-if-changed` leaves it).
pub(crate) fn write_streamed_if_changed(
    path: &std::path::Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let tmp = temp_path(path);
    let written = std::fs::File::create(&tmp).and_then(|mut f| write(&mut f));
    let unchanged = written.is_ok() && same_contents(&tmp, path);
    if written.is_err() || unchanged {
        let _ = std::fs::remove_file(&tmp);
        return written;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Whether files `a` and `b` exist and hold the same bytes (only files of
/// the same length are read).
fn same_contents(a: &std::path::Path, b: &std::path::Path) -> bool {
    let len = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).ok();
    match (len(a), len(b)) {
        (Some(x), Some(y)) if x == y => matches!(
            (std::fs::read(a), std::fs::read(b)),
            (Ok(x), Ok(y)) if x == y
        ),
        _ => false,
    }
}

/// The temporary file a write to `path` goes through: beside it, so that
/// the rename stays on one file system.
fn temp_path(path: &std::path::Path) -> std::path::PathBuf {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out.rs".into());
    dir.join(format!(".{name}.{}.tmp", std::process::id()))
}

fn run_doc(
    args: &InputArgs,
    opts: CheckOptions,
    format: DocFormat,
    output: &std::path::Path,
) -> ExitCode {
    let input = args.input();
    let run = driver::target_both_modes(&input, &opts);
    let (Some(target), Some(other), Some(check)) = (&run.target, &run.other_target, &run.check)
    else {
        // No model: the description cannot be documented; say why.
        eprint!("{}", run.render(color()));
        return finish(run, ExitCode::from(1));
    };
    let doc_input = regdesc_core::doc::DocInput {
        target,
        other,
        check,
        sources: &run.sources,
        source_name: driver::source_name(&input.source).display().to_string(),
    };
    let start = std::time::Instant::now();
    let mut steps: Vec<(&str, std::time::Duration)> = Vec::new();
    let written = match format {
        DocFormat::Html => {
            let site = regdesc_core::doc::site(&doc_input);
            steps.push(("render", start.elapsed()));
            let start = std::time::Instant::now();
            let done = site
                .write(output)
                .map(|()| format!("{} files, {} bytes", site.files.len(), site.size()));
            steps.push(("write", start.elapsed()));
            done
        }
        DocFormat::Markdown => {
            let text = regdesc_core::doc::markdown(&doc_input);
            if output.as_os_str() == "-" {
                write_stdout(&text);
                Ok(String::new())
            } else {
                let path = if output.extension().is_some_and(|e| e == "md") {
                    output.to_path_buf()
                } else {
                    output.join("index.md")
                };
                path.parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::write(&path, &text))
                    .map(|()| format!("{}, {} bytes", path.display(), text.len()))
            }
        }
    };
    if steps.is_empty() {
        steps.push(("doc", start.elapsed()));
    }
    match written {
        Ok(what) => {
            let counts = [diag::Severity::Error, diag::Severity::Warning]
                .map(|s| check.diagnostics.iter().filter(|d| d.severity == s).count());
            if !what.is_empty() {
                eprintln!(
                    "regdesc: wrote {what} to {}; check: {} errors, {} warnings (shown in the docs)",
                    output.display(),
                    counts[0],
                    counts[1]
                );
            }
            print_timings(&run, &steps);
            finish(run, ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("regdesc: cannot write {}: {e}", output.display());
            finish(run, ExitCode::from(1))
        }
    }
}

fn run_check(args: &InputArgs, opts: CheckOptions, format: Format) -> ExitCode {
    let run = driver::check(&args.input(), &opts);
    let failed = run.has_errors();
    if let Some(report) = &run.check {
        match format {
            Format::Json => write_stdout(&report.to_json(&run.sources)),
            Format::Human => {
                write_stdout(&report.render_summary());
                if !run.diagnostics.is_empty() {
                    eprint!("{}", run.render(color()));
                }
            }
        }
    }
    print_timings(&run, &[]);
    finish(run, exit_code(failed))
}
