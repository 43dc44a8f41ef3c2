//! `regdesc tblgen`: llvm-tblgen's command line, for build rules that call
//! either tool.
//!
//! Options are spelled as llvm-tblgen spells them (one or two dashes,
//! `-o FILE` or `-o=FILE`, `-I DIR` or `-IDIR`, likewise `-D`), and
//! clap cannot parse `-gen-register-info` as one flag, so this module reads
//! the arguments itself. Actions: `-gen-register-info` (the `.inc`; with
//! `-register-info-debug` also the dump on stderr) and `-print-records`
//! (the default, as in llvm-tblgen). The output is written through a
//! temporary file and a rename, and not at all when unchanged (so
//! `--write-if-changed` is always in effect); `-d FILE` writes a Makefile
//! dependency line.

use std::path::PathBuf;
use std::process::ExitCode;

use regdesc_core::driver::{self, Run};
use regdesc_core::lanes::LaneMode;
use regdesc_core::{diag, llvm_format};

use crate::{color, finish, print_timings};

const USAGE: &str = "\
usage: regdesc tblgen [-gen-register-info [-register-info-debug] [--lanes llvm|coverage] | -print-records]
                      [-I DIR]... [-D NAME]... [-o OUT] [-d DEPFILE] [--write-if-changed]
                      [--no-warn-on-unused-template-args] [FILE.td | -]";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    PrintRecords,
    RegisterInfo,
}

/// The parsed command line.
#[derive(Debug)]
struct Args {
    action: Action,
    debug: bool,
    lanes: LaneMode,
    include: Vec<PathBuf>,
    define: Vec<String>,
    output: Option<PathBuf>,
    depfile: Option<PathBuf>,
    warn_unused_template_args: bool,
    file: Option<PathBuf>,
}

/// Why the command line was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum ArgsError {
    #[error("option '{0}' needs a value")]
    MissingValue(String),
    #[error("unknown option '{0}'")]
    Unknown(String),
    #[error("{0}")]
    Lanes(String),
    #[error("more than one input file: '{0}'")]
    TwoFiles(String),
    #[error("the option -d must be used together with -o")]
    DepfileWithoutOutput,
}

fn parse(args: &[String]) -> Result<Args, ArgsError> {
    let mut a = Args {
        action: Action::PrintRecords,
        debug: false,
        lanes: LaneMode::Llvm,
        include: Vec::new(),
        define: Vec::new(),
        output: None,
        depfile: None,
        warn_unused_template_args: true,
        file: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "-" || !arg.starts_with('-') {
            if let Some(f) = &a.file {
                return Err(ArgsError::TwoFiles(format!("{}', '{arg}", f.display())));
            }
            a.file = Some(PathBuf::from(arg));
            continue;
        }
        let flag = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (flag, None),
        };
        let mut value = |inline: Option<String>| -> Result<String, ArgsError> {
            inline
                .or_else(|| it.next().cloned())
                .ok_or_else(|| ArgsError::MissingValue(arg.clone()))
        };
        match name {
            "gen-register-info" => a.action = Action::RegisterInfo,
            "print-records" => a.action = Action::PrintRecords,
            "register-info-debug" => a.debug = true,
            "write-if-changed" => {}
            "no-warn-on-unused-template-args" => a.warn_unused_template_args = false,
            "lanes" => a.lanes = value(inline)?.parse().map_err(ArgsError::Lanes)?,
            "o" => a.output = Some(PathBuf::from(value(inline)?)),
            "d" => a.depfile = Some(PathBuf::from(value(inline)?)),
            "I" => a.include.push(PathBuf::from(value(inline)?)),
            "D" => a.define.push(value(inline)?),
            // Prefix options: -IDIR, -DNAME, and -oFILE.
            _ if flag.starts_with('I') && !arg.starts_with("--") => {
                a.include.push(PathBuf::from(&flag[1..]))
            }
            _ if flag.starts_with('D') && !arg.starts_with("--") => {
                a.define.push(flag[1..].to_string())
            }
            _ => return Err(ArgsError::Unknown(arg.clone())),
        }
    }
    if a.depfile.is_some() && a.output.as_ref().is_none_or(|o| o.as_os_str() == "-") {
        return Err(ArgsError::DepfileWithoutOutput);
    }
    Ok(a)
}

pub fn run(args: &[String]) -> ExitCode {
    if args
        .iter()
        .any(|a| a == "-help" || a == "--help" || a == "-h")
    {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let args = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("regdesc tblgen: {e}\n{USAGE}");
            return ExitCode::from(1);
        }
    };
    let mut input = crate::make_input(args.file.as_deref(), &args.include, &args.define);
    input.warn_unused_template_args = args.warn_unused_template_args;
    let start = std::time::Instant::now();
    let run = match args.action {
        Action::PrintRecords => {
            regdesc_alloc::return_freed_memory_at_once();
            driver::records(&input)
        }
        Action::RegisterInfo => driver::register_info(&input, args.lanes),
    };
    let start_out = std::time::Instant::now();
    // What the output is written from; `None` when a stage failed.
    let inc = match (&run.records, &run.bank, &run.lanes) {
        _ if run.failed.is_some() => None,
        (Some(rk), Some(bank), Some(lanes)) if args.action == Action::RegisterInfo => {
            match llvm_format::IncWriter::new(rk, bank, lanes) {
                Ok(w) => Some(Ok(w)),
                Err(e) => {
                    let mut run = run;
                    run.diagnostics.push(e.to_diagnostic());
                    run.failed = Some(driver::Stage::Bank);
                    eprint!("{}", run.render(color()));
                    return finish(run, ExitCode::from(1));
                }
            }
        }
        (Some(rk), _, _) if args.action == Action::PrintRecords => Some(Err(rk)),
        _ => None,
    };
    let Some(output_from) = inc else {
        eprint!("{}", run.render(color()));
        return finish(run, ExitCode::from(1));
    };
    // llvm-tblgen's warnings, in its format, on stderr.
    let warnings: Vec<diag::Diagnostic> = run
        .diagnostics
        .iter()
        .filter(|d| d.severity == diag::Severity::Warning)
        .cloned()
        .collect();
    let mut err = diag::render_llvm(&run.sources, &warnings);
    if let (Some(bank), Action::RegisterInfo) = (&run.bank, args.action) {
        for w in bank.warnings() {
            err.push_str("warning: ");
            err.push_str(&w);
            err.push('\n');
        }
    }
    eprint!("{err}");
    if args.debug && args.action == Action::RegisterInfo {
        if let (Some(bank), Some(lanes)) = (&run.bank, &run.lanes) {
            use std::io::Write;
            let mut e = std::io::stderr().lock();
            let _ = llvm_format::write_debug_dump(&mut e, bank, lanes).and_then(|()| e.flush());
        }
    }
    let output = args.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    if let Some(dep) = &args.depfile {
        if let Err(e) = write_depfile(dep, &output, &run) {
            eprintln!("regdesc tblgen: error opening {}: {e}", dep.display());
            return finish(run, ExitCode::from(1));
        }
    }
    // The text goes out as it is produced.
    let write = |out: &mut dyn std::io::Write| match &output_from {
        Ok(inc) => inc.write(out),
        Err(rk) => llvm_format::write_records(rk, &mut &mut *out).and_then(|()| out.flush()),
    };
    let written = if output.as_os_str() == "-" {
        // A closed pipe (`| head`) is not an error.
        let _ = write(&mut std::io::stdout().lock());
        Ok(())
    } else {
        crate::write_streamed_if_changed(&output, write)
    };
    if let Err(e) = written {
        eprintln!("regdesc tblgen: error opening {}: {e}", output.display());
        return finish(run, ExitCode::from(1));
    }
    let out_time = start_out.elapsed();
    print_timings(&run, &[("output", out_time), ("total", start.elapsed())]);
    finish(run, ExitCode::SUCCESS)
}

/// `OUT: DEP...`: every file read besides the input, in path order.
fn write_depfile(
    dep: &std::path::Path,
    output: &std::path::Path,
    run: &Run,
) -> std::io::Result<()> {
    let mut deps: Vec<String> = run
        .sources
        .files
        .iter()
        .skip(1)
        .filter(|f| !f.builtin)
        .map(|f| f.path.display().to_string())
        .collect();
    deps.sort();
    deps.dedup();
    let mut line = format!("{}:", output.display());
    for d in deps {
        line.push(' ');
        line.push_str(&d);
    }
    line.push('\n');
    std::fs::write(dep, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Result<Args, ArgsError> {
        parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn llvm_spellings() {
        let a = args(&[
            "-gen-register-info",
            "-I",
            "a",
            "-Ib",
            "--I=c",
            "-DX",
            "-D",
            "Y",
            "f.td",
            "-o",
            "out.inc",
            "--write-if-changed",
            "-d",
            "out.d",
        ])
        .unwrap();
        assert_eq!(a.action, Action::RegisterInfo);
        assert_eq!(a.include, [PathBuf::from("a"), "b".into(), "c".into()]);
        assert_eq!(a.define, ["X", "Y"]);
        assert_eq!(a.output, Some(PathBuf::from("out.inc")));
        assert_eq!(a.file, Some(PathBuf::from("f.td")));
        let a = args(&["--gen-register-info", "--lanes=coverage", "-o=x"]).unwrap();
        assert_eq!(a.lanes, LaneMode::Coverage);
        assert_eq!(a.output, Some(PathBuf::from("x")));
        assert_eq!(
            args(&["-bogus"]).unwrap_err(),
            ArgsError::Unknown("-bogus".into())
        );
        assert_eq!(
            args(&["-d", "x.d"]).unwrap_err(),
            ArgsError::DepfileWithoutOutput
        );
        assert!(matches!(args(&["-o"]), Err(ArgsError::MissingValue(_))));
    }
}
