//! Differential test against llvm-tblgen 14 on LLVM's own `.td` files.
//!
//! Every `.td` under `llvm-config-14 --includedir` is given to
//! `llvm-tblgen --print-records -I <includedir>`. For each file it accepts on
//! its own (among them `llvm/IR/Intrinsics.td` and `llvm/Target/Target.td`),
//! `regdesc records -I <includedir>` must print the same bytes. Files that
//! llvm-tblgen rejects on their own (fragments meant to be included from
//! elsewhere) must be rejected by regdesc too. Both tools run from the same
//! directory with the same arguments.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{first_difference, llvm_include_dir, llvm_tblgen, run_limited, Ran};

const LIMIT: Duration = Duration::from_secs(300);

/// Files llvm-tblgen 14 accepts on their own; the corpus run must find them.
const MUST_BE_ACCEPTED: &[&str] = &["llvm/IR/Intrinsics.td", "llvm/Target/Target.td"];

struct Corpus {
    include: PathBuf,
    /// (path relative to the include dir, llvm-tblgen's run)
    files: Vec<(String, Ran)>,
}

/// Runs llvm-tblgen over the whole corpus (once per test binary).
fn corpus() -> Option<&'static Corpus> {
    static CORPUS: std::sync::OnceLock<Option<Corpus>> = std::sync::OnceLock::new();
    CORPUS
        .get_or_init(|| {
            let tblgen = llvm_tblgen()?;
            let include = llvm_include_dir()?;
            let files = common::files_with_extension(&include, "td")
                .into_iter()
                .map(|path| {
                    let rel = relative(&path, &include);
                    let mut cmd = Command::new(&tblgen);
                    cmd.arg("--print-records")
                        .arg("-I")
                        .arg(&include)
                        .arg(&path);
                    let ran = run_limited(cmd, LIMIT)
                        .unwrap_or_else(|e| panic!("llvm-tblgen on {rel}: {e}"));
                    (rel, ran)
                })
                .collect();
            Some(Corpus { include, files })
        })
        .as_ref()
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

fn run_regdesc(include: &Path, rel: &str) -> Result<Ran, String> {
    let mut cmd = common::regdesc();
    cmd.arg("records")
        .arg("-I")
        .arg(include)
        .arg(include.join(rel));
    run_limited(cmd, LIMIT)
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().take(n).collect::<Vec<_>>().join("\n")
}

#[test]
fn accepted_files_print_identically() {
    let Some(corpus) = corpus() else {
        return;
    };
    let accepted: Vec<&(String, Ran)> = corpus.files.iter().filter(|(_, r)| r.success).collect();
    for must in MUST_BE_ACCEPTED {
        assert!(
            accepted.iter().any(|(rel, _)| rel == must),
            "llvm-tblgen did not accept {must} from {} on its own",
            corpus.include.display()
        );
    }
    let mut failures = Vec::new();
    for (rel, llvm) in &accepted {
        let started = std::time::Instant::now();
        match run_regdesc(&corpus.include, rel) {
            Err(e) => failures.push(format!("{rel}: {e}")),
            Ok(ours) if !ours.success => failures.push(format!(
                "{rel}: regdesc rejects it (exit {:?}), llvm-tblgen accepts it\n{}",
                ours.code,
                first_lines(&ours.stderr_str(), 20)
            )),
            Ok(ours) => {
                if let Some(diff) = first_difference(&llvm.stdout_str(), &ours.stdout_str()) {
                    failures.push(format!(
                        "{rel}: output differs (- llvm-tblgen, + regdesc)\n{diff}"
                    ));
                } else {
                    eprintln!("{rel}: identical ({:.2?})", started.elapsed());
                }
            }
        }
    }
    if !failures.is_empty() {
        panic!(
            "{} of {} files llvm-tblgen accepts differ:\n\n{}",
            failures.len(),
            accepted.len(),
            failures.join("\n")
        );
    }
}

#[test]
fn rejected_files_are_rejected() {
    let Some(corpus) = corpus() else {
        return;
    };
    let rejected: Vec<&(String, Ran)> = corpus.files.iter().filter(|(_, r)| !r.success).collect();
    let mut failures = Vec::new();
    for (rel, llvm) in &rejected {
        match run_regdesc(&corpus.include, rel) {
            Err(e) => failures.push(format!("{rel}: {e}")),
            Ok(ours) if ours.success => failures.push(format!(
                "{rel}: regdesc accepts it; llvm-tblgen says:\n{}",
                first_lines(&llvm.stderr_str(), 4)
            )),
            // The CLI reports errors with exit status 1; anything else
            // (a panic's 101, a signal) is a crash, not a rejection.
            Ok(ours) if ours.code != Some(1) => failures.push(format!(
                "{rel}: regdesc crashed (exit {:?}) instead of reporting an error\n{}",
                ours.code,
                first_lines(&ours.stderr_str(), 20)
            )),
            Ok(_) => {}
        }
    }
    if !failures.is_empty() {
        panic!(
            "{} of {} files llvm-tblgen rejects are accepted by regdesc:\n\n{}",
            failures.len(),
            rejected.len(),
            failures.join("\n")
        );
    }
}
