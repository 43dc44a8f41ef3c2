//! The fixture runner for `tests/fixtures/{pass,fail}` (see
//! `tests/fixtures/README.md` for the fixture format).
//!
//! - pass: `regdesc records` prints exactly the checked-in `NAME.records`,
//!   and (when llvm-tblgen 14 is on PATH) so does llvm-tblgen, which keeps
//!   the references fresh.
//! - fail: regdesc rejects the file, its first error starts at the
//!   fixture's `ERROR-AT`, its rendered diagnostics match the insta
//!   snapshot `tests/snapshots/fixtures__NAME.snap`, and llvm-tblgen rejects
//!   it too (unless the fixture says `// ORACLE: skip`).
//!
//! Each test checks every fixture and then fails once, listing all of them.

mod common;

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use common::{
    first_difference, fixtures, llvm_include_dir, llvm_tblgen, repo_root, run_limited, Fixture,
};
use regdesc_core::diag::{self, Diagnostic};
use regdesc_core::driver::{self, Input, Prelude};
use regdesc_core::source::SourceMap;

const PASS_DIR: &str = "tests/fixtures/pass";
const FAIL_DIR: &str = "tests/fixtures/fail";
const SNAPSHOT_DIR: &str = "tests/snapshots";
/// Fail-fixture snapshots are `tests/snapshots/fixtures__NAME.snap`.
const SNAPSHOT_PREFIX: &str = "fixtures__";
const REGEN: &str = "bash tests/fixtures/regen.sh";

/// Time allowed for one tool run on one fixture.
const TOOL_LIMIT: Duration = Duration::from_secs(120);
/// Time allowed for one in-process load + evaluate of a fail fixture. The
/// bounded-recursion and huge-foreach fixtures must be refused well within it.
const EVAL_LIMIT: Duration = Duration::from_secs(60);

/// Fails with every problem found, one block per fixture.
fn report(what: &str, checked: usize, failures: Vec<String>) {
    if failures.is_empty() {
        eprintln!("{what}: all {checked} fixtures ok");
        return;
    }
    let mut msg = format!("{what}: {} of {checked} fixtures failed\n", failures.len());
    for f in &failures {
        msg.push_str("\n==== ");
        msg.push_str(f.trim_end());
        msg.push('\n');
    }
    panic!("{msg}");
}

/// The LLVM include directory when `f` needs it. `Err(())` means skip the
/// fixture (the oracle rule already printed why, or panicked if required).
fn llvm_include_for(f: &Fixture) -> Result<Option<std::path::PathBuf>, ()> {
    if f.needs_llvm_include() {
        llvm_include_dir().map(Some).ok_or(())
    } else {
        Ok(None)
    }
}

fn reference_path(f: &Fixture) -> std::path::PathBuf {
    f.path.with_extension("records")
}

#[test]
fn pass_fixtures_match_references() {
    let all = fixtures(PASS_DIR);
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &all {
        let Ok(llvm_inc) = llvm_include_for(f) else {
            continue;
        };
        checked += 1;
        let reference = match std::fs::read_to_string(repo_root().join(reference_path(f))) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!(
                    "{}: no reference {} ({e}); run `{REGEN}`",
                    f.path.display(),
                    reference_path(f).display()
                ));
                continue;
            }
        };
        let mut cmd = common::regdesc();
        cmd.arg("records")
            .args(f.tool_args(llvm_inc.as_deref()))
            .arg(&f.path);
        match run_limited(cmd, TOOL_LIMIT) {
            Err(e) => failures.push(format!("{}: {e}", f.path.display())),
            Ok(ran) if !ran.success => failures.push(format!(
                "{}: regdesc records exited with {:?}\n{}",
                f.path.display(),
                ran.code,
                ran.stderr_str()
            )),
            Ok(ran) => {
                if let Some(diff) = first_difference(&reference, &ran.stdout_str()) {
                    failures.push(format!(
                        "{}: regdesc output differs from {} (- expected, + regdesc)\n{diff}",
                        f.path.display(),
                        reference_path(f).display()
                    ));
                }
            }
        }
    }
    report("pass fixtures (regdesc vs reference)", checked, failures);
}

#[test]
fn pass_references_are_fresh() {
    let Some(tblgen) = llvm_tblgen() else {
        return;
    };
    let all = fixtures(PASS_DIR);
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &all {
        let Ok(llvm_inc) = llvm_include_for(f) else {
            continue;
        };
        checked += 1;
        let reference =
            std::fs::read_to_string(repo_root().join(reference_path(f))).unwrap_or_default();
        let mut cmd = std::process::Command::new(&tblgen);
        cmd.arg("--print-records")
            .args(f.tool_args(llvm_inc.as_deref()))
            .arg(&f.path);
        match run_limited(cmd, TOOL_LIMIT) {
            Err(e) => failures.push(format!("{}: {e}", f.path.display())),
            Ok(ran) if !ran.success => failures.push(format!(
                "{}: llvm-tblgen rejects this pass fixture (exit {:?})\n{}",
                f.path.display(),
                ran.code,
                ran.stderr_str()
            )),
            Ok(ran) => {
                if let Some(diff) = first_difference(&reference, &ran.stdout_str()) {
                    failures.push(format!(
                        "{}: the checked-in {} is stale (- reference, + llvm-tblgen); \
                         run `{REGEN}`\n{diff}",
                        f.path.display(),
                        reference_path(f).display()
                    ));
                }
            }
        }
    }
    report(
        "pass fixtures (llvm-tblgen vs reference)",
        checked,
        failures,
    );
}

#[test]
fn fail_fixtures_are_rejected_by_llvm_tblgen() {
    let Some(tblgen) = llvm_tblgen() else {
        return;
    };
    let all = fixtures(FAIL_DIR);
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &all {
        if f.oracle_skip.is_some() {
            eprintln!(
                "{}: not run through llvm-tblgen (ORACLE: skip)",
                f.path.display()
            );
            continue;
        }
        let Ok(llvm_inc) = llvm_include_for(f) else {
            continue;
        };
        checked += 1;
        let mut cmd = std::process::Command::new(&tblgen);
        cmd.arg("--print-records")
            .args(f.tool_args(llvm_inc.as_deref()))
            .arg(&f.path);
        match run_limited(cmd, TOOL_LIMIT) {
            Err(e) => failures.push(format!("{}: {e}", f.path.display())),
            Ok(ran) if ran.success => failures.push(format!(
                "{}: llvm-tblgen accepts this fail fixture",
                f.path.display()
            )),
            Ok(_) => {}
        }
    }
    report("fail fixtures (llvm-tblgen rejects)", checked, failures);
}

/// Address-space cap for `regdesc records` on a fail fixture, in KiB.
const CLI_MEMORY_KIB: u64 = 4 << 20;

/// `regdesc records` on `f` must exit with status 1 (an error was
/// reported), within [`TOOL_LIMIT`] and [`CLI_MEMORY_KIB`].
fn cli_rejects(f: &Fixture, llvm_inc: Option<&Path>) -> Result<(), String> {
    let mut cmd = std::process::Command::new("bash");
    cmd.arg("-c")
        .arg(format!("ulimit -v {CLI_MEMORY_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_regdesc"))
        .arg("records")
        .args(f.tool_args(llvm_inc))
        .arg(&f.path);
    let ran = run_limited(cmd, TOOL_LIMIT)?;
    match ran.code {
        Some(1) => Ok(()),
        Some(0) => Err("`regdesc records` accepted this fail fixture".into()),
        code => Err(format!(
            "`regdesc records` crashed (exit {code:?}; memory capped at {} GiB) \
             instead of reporting an error:\n{}",
            CLI_MEMORY_KIB >> 20,
            ran.stderr_str()
                .lines()
                .take(20)
                .collect::<Vec<_>>()
                .join("\n")
        )),
    }
}

/// What one in-process run of a fail fixture produced.
struct Rejection {
    sources: SourceMap,
    diags: Vec<Diagnostic>,
}

/// Loads and evaluates `f` in-process. `Ok(None)`: regdesc accepted it.
fn evaluate_in_process(f: &Fixture, llvm_inc: Option<&Path>) -> Result<Option<Rejection>, String> {
    let (include_dirs, defines) = f.include_dirs_and_defines(llvm_inc);
    let mut input = Input::file(f.path.clone());
    input.include_dirs = include_dirs;
    input.defines = defines;
    input.prelude = Prelude::Off;
    let (tx, rx) = mpsc::channel();
    // A thread of its own: a generous stack for deep (but bounded)
    // recursion, and a time limit so a hang fails instead of blocking.
    let spawned = std::thread::Builder::new()
        .name(format!("fail fixture {}", f.name))
        .stack_size(256 << 20)
        .spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| {
                let run = driver::records(&input);
                run.failed.map(|_| Rejection {
                    sources: run.sources,
                    diags: run.diagnostics,
                })
            }));
            let _ = tx.send(result.map_err(|p| panic_message(&*p)));
        });
    if let Err(e) = spawned {
        return Err(format!("cannot start a thread: {e}"));
    }
    match rx.recv_timeout(EVAL_LIMIT) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(msg)) => Err(format!("regdesc panicked: {msg}")),
        Err(_) => Err(format!(
            "regdesc did not finish within {EVAL_LIMIT:?} (a missing bound?)"
        )),
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// Makes the rendering independent of the machine: absolute paths to the
/// repository or the LLVM include directory become placeholders.
fn normalize(rendered: &str, llvm_inc: Option<&Path>) -> String {
    let mut out = rendered.replace(&format!("{}/", repo_root().display()), "");
    if let Some(dir) = llvm_inc {
        out = out.replace(&dir.display().to_string(), common::LLVM_INCLUDE_PLACEHOLDER);
    }
    out
}

#[test]
fn fail_fixtures_are_rejected_at_the_right_place() {
    let all = fixtures(FAIL_DIR);
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &all {
        let Ok(llvm_inc) = llvm_include_for(f) else {
            continue;
        };
        checked += 1;
        let Some(want) = f.error_at else {
            failures.push(format!(
                "{}: the first line must be `// ERROR-AT: LINE:COL`",
                f.path.display()
            ));
            continue;
        };
        // First through the command line, in a child process with a memory
        // cap: a missing bound (huge foreach, runaway recursion) then fails
        // this fixture instead of exhausting the machine in-process.
        if let Err(e) = cli_rejects(f, llvm_inc.as_deref()) {
            failures.push(format!("{}: {e}", f.path.display()));
            continue;
        }
        let rejection = match evaluate_in_process(f, llvm_inc.as_deref()) {
            Err(e) => {
                failures.push(format!("{}: {e}", f.path.display()));
                continue;
            }
            Ok(None) => {
                failures.push(format!(
                    "{}: regdesc accepted this fail fixture",
                    f.path.display()
                ));
                continue;
            }
            Ok(Some(r)) => r,
        };
        let mut problems = Vec::new();

        // The first error's primary span starts at ERROR-AT, in the fixture.
        match rejection.diags.iter().find(|d| d.is_error()) {
            None => problems.push("rejected, but with no error diagnostic".to_string()),
            Some(d) => match d.span {
                None => problems.push(format!("first error has no span: {}", d.message)),
                Some(span) => {
                    let file = &rejection.sources.file(span.file).path;
                    let at = rejection.sources.line_col(span.file, span.start);
                    if !same_file(file, &f.path) {
                        problems.push(format!(
                            "first error ({}) is in {}, expected {}",
                            d.message,
                            file.display(),
                            f.path.display()
                        ));
                    } else if at != want {
                        problems.push(format!(
                            "first error ({}) starts at {}:{}, expected ERROR-AT {}:{}",
                            d.message, at.0, at.1, want.0, want.1
                        ));
                    }
                }
            },
        }

        // The rendered diagnostics match the snapshot.
        let rendered = normalize(
            &diag::render(&rejection.sources, &rejection.diags, false),
            llvm_inc.as_deref(),
        );
        let name = format!("{SNAPSHOT_PREFIX}{}", f.name);
        let input = repo_root().join(&f.path);
        let snap = catch_unwind(AssertUnwindSafe(|| {
            insta::with_settings!({
                prepend_module_to_snapshot => false,
                omit_expression => true,
                input_file => input,
            }, {
                insta::assert_snapshot!(name, rendered);
            });
        }));
        if let Err(p) = snap {
            problems.push(format!(
                "diagnostics differ from {SNAPSHOT_DIR}/{SNAPSHOT_PREFIX}{}.snap ({}); review with \
                 `cargo insta review` or accept with `INSTA_UPDATE=always cargo test --test fixtures`",
                f.name,
                panic_message(&*p).lines().next().unwrap_or("")
            ));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{}:\n  {}",
                f.path.display(),
                problems.join("\n  ")
            ));
        }
    }
    report("fail fixtures (regdesc rejects)", checked, failures);
}

fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(repo_root().join(p)).ok();
    a == b || (canon(a).is_some() && canon(a) == canon(b))
}

/// The acceptance inventory: enough fixtures, each well-formed, no orphan
/// snapshots, and every bang operator and statement form of TableGen 14
/// exercised by some pass fixture.
#[test]
fn fixture_inventory() {
    let pass = fixtures(PASS_DIR);
    let fail = fixtures(FAIL_DIR);
    let mut problems = Vec::new();
    if pass.len() < 45 {
        problems.push(format!("only {} pass fixtures (want >= 45)", pass.len()));
    }
    if fail.len() < 32 {
        problems.push(format!("only {} fail fixtures (want >= 32)", fail.len()));
    }
    for f in &pass {
        if !repo_root().join(reference_path(f)).is_file() {
            problems.push(format!(
                "{}: no {}; run `{REGEN}`",
                f.path.display(),
                reference_path(f).display()
            ));
        }
        if f.error_at.is_some() {
            problems.push(format!(
                "{}: a pass fixture with ERROR-AT",
                f.path.display()
            ));
        }
    }
    for f in &fail {
        if !f.text.starts_with("// ERROR-AT:") || f.error_at.is_none() {
            problems.push(format!(
                "{}: the first line must be `// ERROR-AT: LINE:COL`",
                f.path.display()
            ));
        }
        if let Some((line, col)) = f.error_at {
            let text = f.text.lines().nth(line.wrapping_sub(1)).unwrap_or("");
            if col == 0 || col > text.chars().count() {
                problems.push(format!(
                    "{}: ERROR-AT {line}:{col} is not on a character",
                    f.path.display()
                ));
            } else if text.chars().nth(col - 1).is_some_and(char::is_whitespace) {
                problems.push(format!(
                    "{}: ERROR-AT {line}:{col} points at whitespace, not a token",
                    f.path.display()
                ));
            }
        }
        if f.oracle_skip.as_deref() == Some("") {
            problems.push(format!(
                "{}: `// ORACLE: skip` must say why",
                f.path.display()
            ));
        }
    }

    // Orphan references and snapshots.
    let pass_names: BTreeSet<&str> = pass.iter().map(|f| f.name.as_str()).collect();
    let fail_names: BTreeSet<&str> = fail.iter().map(|f| f.name.as_str()).collect();
    for (dir, ext, prefix, names) in [
        (PASS_DIR, "records", "", &pass_names),
        (SNAPSHOT_DIR, "snap", SNAPSHOT_PREFIX, &fail_names),
    ] {
        for p in common::files_with_extension(&repo_root().join(dir), ext) {
            let stem = p
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let Some(name) = stem.strip_prefix(prefix) else {
                continue;
            };
            if !names.contains(name) {
                problems.push(format!("{}: no fixture of that name", p.display()));
            }
        }
    }

    // Coverage of the language by the pass fixtures.
    let corpus: String = pass.iter().map(|f| f.text.as_str()).collect();
    for op in BANG_OPERATORS {
        if !corpus.contains(&format!("!{op}(")) && !corpus.contains(&format!("!{op}<")) {
            problems.push(format!("no pass fixture uses !{op}"));
        }
    }
    for form in LANGUAGE_FORMS {
        if !corpus.contains(form) {
            problems.push(format!("no pass fixture contains `{form}`"));
        }
    }
    assert!(
        problems.is_empty(),
        "fixture inventory:\n  {}",
        problems.join("\n  ")
    );
}

/// Every bang operator llvm-tblgen 14 accepts. (`!exists` came later; a fail
/// fixture checks that it is rejected like llvm-tblgen 14 does.)
const BANG_OPERATORS: &[&str] = &[
    "add",
    "and",
    "cast",
    "con",
    "cond",
    "dag",
    "empty",
    "eq",
    "filter",
    "find",
    "foldl",
    "foreach",
    "ge",
    "getdagop",
    "getop",
    "gt",
    "head",
    "if",
    "interleave",
    "isa",
    "le",
    "listconcat",
    "listsplat",
    "lt",
    "mul",
    "ne",
    "not",
    "or",
    "setdagop",
    "setop",
    "shl",
    "size",
    "sra",
    "srl",
    "strconcat",
    "sub",
    "subst",
    "substr",
    "tail",
    "xor",
];

/// Source forms that some pass fixture must contain.
const LANGUAGE_FORMS: &[&str] = &[
    "include \"",
    "#define ",
    "#ifdef ",
    "#ifndef ",
    "#else",
    "#endif",
    "// ARGS: -D",
    "class ",
    "def ",
    "def : ",
    "defm ",
    "defm : ",
    "multiclass ",
    "NAME",
    "defset ",
    "defvar ",
    "foreach ",
    " = 0-15 in",
    " = 0...31 in",
    "if ",
    " then",
    "else",
    "assert ",
    "let ",
    " in {",
    "{12-0} = regIdx",
    "field ",
    "bit ",
    "bits<",
    "int ",
    "string ",
    "code ",
    "dag ",
    "list<",
    "0x",
    "0b",
    "\\\"",
    "\\n",
    "[{",
    "= ?",
    "]<int>",
    ":$",
    "#",
    "/*",
    "@LLVM_INCLUDE@",
    "include \"llvm/Target/Target.td\"",
    "HwMode",
];
