//! Differential test against llvm-tblgen 14 on the LLVM 14 source corpus
//! (`common::llvm_src()`, see `tests/corpus/prepare.sh`):
//!
//! - LLVM's own TableGen tests, every `.td` under `llvm/test/TableGen`, run
//!   once per distinct set of `-D` macros their `RUN:` lines give
//!   llvm-tblgen (and once with none), with
//!   `-I <llvm include dir> -I <the file's dir>`. Both tools must accept or
//!   both reject; when both accept, `regdesc records` must print what
//!   `llvm-tblgen --print-records` prints, byte for byte.
//! - The same files' register banks: where llvm-tblgen accepts
//!   `-gen-register-info -register-info-debug`, `regdesc dump --lanes llvm`
//!   must print on stdout what llvm-tblgen prints on stderr. Where it
//!   rejects them, regdesc must reject them too.
//! - The full target descriptions, every `llvm/lib/Target/*/*.td` that
//!   defines a `Target` (X86.td, AMDGPU.td, R600.td, PPC.td, ...), run from
//!   the target's directory with `-I <llvm include dir> -I .`: the records
//!   must be identical.
//!
//! Both tools run through their command lines with a time limit
//! (llvm-tblgen loops on a few inputs), on as many threads as the machine
//! has cores. The counts print with `--nocapture`.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use common::{first_difference, llvm_include_dir, llvm_src, llvm_tblgen, run_limited, Ran};

/// Per run of one tool on one TableGen test.
const TEST_LIMIT: Duration = Duration::from_secs(60);
/// Per run of one tool on one full target.
const TARGET_LIMIT: Duration = Duration::from_secs(300);

/// Register-info errors of llvm-tblgen 14 that `regdesc dump` does not
/// report: these files' banks would be accepted by regdesc and rejected by
/// llvm-tblgen. None: every such file must be rejected by both.
const DUMP_KNOWN_ACCEPTED: &[(&str, &str)] = &[];

/// Everything the tests need: the oracle, the include directory, the corpus.
struct Env {
    tblgen: PathBuf,
    include: PathBuf,
    src: PathBuf,
}

fn env() -> Option<Env> {
    Some(Env {
        tblgen: llvm_tblgen()?,
        include: llvm_include_dir()?,
        src: llvm_src()?,
    })
}

/// One file to run, with the macros to define.
#[derive(Clone, Debug)]
struct Job {
    file: PathBuf,
    defines: Vec<String>,
}

impl Job {
    /// The file relative to `base`, with its macros: `foo.td -DERROR1`.
    fn describe(&self, base: &Path) -> String {
        let mut s = self
            .file
            .strip_prefix(base)
            .unwrap_or(&self.file)
            .display()
            .to_string();
        for d in &self.defines {
            s.push_str(" -D");
            s.push_str(d);
        }
        s
    }

    /// `-I <include> -I <dir> -D...`, the arguments both tools get before
    /// the file.
    fn args(&self, include: &Path, dir: &Path) -> Vec<String> {
        let mut args = vec![
            "-I".to_string(),
            include.display().to_string(),
            "-I".to_string(),
            dir.display().to_string(),
        ];
        args.extend(self.defines.iter().map(|d| format!("-D{d}")));
        args
    }
}

/// The distinct sets of macros the `RUN:` lines of `text` define for
/// llvm-tblgen (`// RUN: not llvm-tblgen -DERROR1 %s 2>&1 | FileCheck ...`),
/// always including the empty set. `-D` options of other commands on the
/// line (FileCheck's `-DFILE=%s`) do not count.
fn define_sets(text: &str) -> BTreeSet<Vec<String>> {
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let Some((_, run)) = line.split_once("RUN:") else {
            continue;
        };
        let run = run.trim_end();
        match run.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head);
                pending.push(' ');
            }
            None => {
                pending.push_str(run);
                commands.push(std::mem::take(&mut pending));
            }
        }
    }
    if !pending.is_empty() {
        commands.push(pending);
    }
    let mut sets = BTreeSet::from([Vec::new()]);
    for command in &commands {
        for segment in command.split('|') {
            let tokens: Vec<&str> = segment.split_whitespace().collect();
            if !tokens.iter().any(|t| t.ends_with("llvm-tblgen")) {
                continue;
            }
            let mut defines = Vec::new();
            let mut it = tokens.iter();
            while let Some(t) = it.next() {
                if *t == "-D" {
                    defines.extend(it.next().map(|d| d.to_string()));
                } else if let Some(d) = t.strip_prefix("-D") {
                    defines.push(d.to_string());
                }
            }
            defines.sort();
            defines.dedup();
            sets.insert(defines);
        }
    }
    sets
}

/// Runs `f` on every item, on as many threads as there are cores; the
/// results are in the items' order.
fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(k) else { break };
                let r = f(item);
                results.lock().unwrap_or_else(|p| p.into_inner())[k] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.expect("every item was processed"))
        .collect()
}

/// Every TableGen test, once per set of macros.
fn tablegen_jobs(env: &Env) -> Vec<Job> {
    let root = env.src.join("llvm/test/TableGen");
    let files = common::files_with_extension(&root, "td");
    assert!(
        files.len() > 200,
        "only {} .td files under {}",
        files.len(),
        root.display()
    );
    let mut jobs = Vec::new();
    for file in files {
        let text = std::fs::read(&file)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        for defines in define_sets(&text) {
            jobs.push(Job {
                file: file.clone(),
                defines,
            });
        }
    }
    jobs
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().take(n).collect::<Vec<_>>().join("\n")
}

/// How one file compared.
enum Outcome {
    Identical,
    BothReject,
    /// llvm-tblgen did not finish: nothing to compare against.
    OracleTimedOut,
    /// A listed difference that another branch fixes.
    KnownException,
    Failure(String),
}

/// Compares `regdesc records` with `llvm-tblgen --print-records`.
fn compare_records(llvm: Result<Ran, String>, ours: Result<Ran, String>, what: &str) -> Outcome {
    let llvm = match llvm {
        Ok(r) => r,
        Err(e) if e.contains("did not finish") => return Outcome::OracleTimedOut,
        Err(e) => return Outcome::Failure(format!("{what}: llvm-tblgen: {e}")),
    };
    let ours = match ours {
        Ok(r) => r,
        Err(e) => return Outcome::Failure(format!("{what}: regdesc: {e}")),
    };
    match (llvm.success, ours.success) {
        (true, true) => match first_difference(&llvm.stdout_str(), &ours.stdout_str()) {
            None => Outcome::Identical,
            Some(diff) => Outcome::Failure(format!(
                "{what}: records differ (- llvm-tblgen, + regdesc)\n{diff}"
            )),
        },
        (true, false) => Outcome::Failure(format!(
            "{what}: regdesc rejects it (exit {:?}), llvm-tblgen accepts it\n{}",
            ours.code,
            first_lines(&ours.stderr_str(), 20)
        )),
        (false, true) => Outcome::Failure(format!(
            "{what}: regdesc accepts it, llvm-tblgen rejects it:\n{}",
            first_lines(&llvm.stderr_str(), 6)
        )),
        // The CLI reports errors with exit status 1; anything else (a
        // panic's 101, a signal) is a crash, not a rejection.
        (false, false) if ours.code != Some(1) => Outcome::Failure(format!(
            "{what}: regdesc crashed (exit {:?})\n{}",
            ours.code,
            first_lines(&ours.stderr_str(), 20)
        )),
        (false, false) => Outcome::BothReject,
    }
}

/// Tallies outcomes, prints the counts, and fails with every failure.
fn report(title: &str, outcomes: Vec<Outcome>) {
    let (mut identical, mut both_reject, mut timed_out, mut known) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for o in outcomes {
        match o {
            Outcome::Identical => identical += 1,
            Outcome::BothReject => both_reject += 1,
            Outcome::OracleTimedOut => timed_out += 1,
            Outcome::KnownException => known += 1,
            Outcome::Failure(f) => failures.push(f),
        }
    }
    eprintln!(
        "{title}: {identical} identical, {both_reject} rejected by both, {} differ, \
         {known} known exceptions, {timed_out} where llvm-tblgen timed out",
        failures.len()
    );
    if !failures.is_empty() {
        panic!(
            "{title}: {} runs differ from llvm-tblgen 14:\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

#[test]
fn tablegen_tests_print_records_identically() {
    let Some(env) = env() else { return };
    let root = env.src.join("llvm/test/TableGen");
    let jobs = tablegen_jobs(&env);
    let outcomes = parallel_map(&jobs, |job| {
        let dir = job.file.parent().unwrap_or(Path::new("."));
        let args = job.args(&env.include, dir);
        let mut llvm = Command::new(&env.tblgen);
        llvm.arg("--print-records").args(&args).arg(&job.file);
        let mut ours = common::regdesc();
        ours.arg("records").args(&args).arg(&job.file);
        compare_records(
            run_limited(llvm, TEST_LIMIT),
            run_limited(ours, TEST_LIMIT),
            &job.describe(&root),
        )
    });
    report("llvm/test/TableGen, records", outcomes);
}

/// `regdesc tblgen -gen-register-info` writes llvm-tblgen's
/// `GenRegisterInfo.inc` byte for byte on every TableGen test (once per
/// `-D` set) llvm-tblgen accepts, and rejects the others.
#[test]
fn tablegen_tests_write_register_info_identically() {
    let Some(env) = env() else { return };
    let root = env.src.join("llvm/test/TableGen");
    let jobs = tablegen_jobs(&env);
    let outcomes = parallel_map(&jobs, |job| {
        let dir = job.file.parent().unwrap_or(Path::new("."));
        let args = job.args(&env.include, dir);
        let mut llvm = Command::new(&env.tblgen);
        llvm.arg("-gen-register-info").args(&args).arg(&job.file);
        let mut ours = common::regdesc();
        ours.args(["tblgen", "-gen-register-info"])
            .args(&args)
            .arg(&job.file);
        compare_records(
            run_limited(llvm, TEST_LIMIT),
            run_limited(ours, TEST_LIMIT),
            &job.describe(&root),
        )
    });
    report("llvm/test/TableGen, GenRegisterInfo.inc", outcomes);
}

/// Splits a register dump into its `warning:` lines (sorted) and the rest.
fn split_warnings(s: &str) -> (Vec<&str>, String) {
    let mut warnings = Vec::new();
    let mut rest = String::new();
    for line in s.split_inclusive('\n') {
        if line.starts_with("warning:") {
            warnings.push(line.trim_end());
        } else {
            rest.push_str(line);
        }
    }
    warnings.sort_unstable();
    (warnings, rest)
}

#[test]
fn tablegen_tests_dump_registers_identically() {
    let Some(env) = env() else { return };
    let root = env.src.join("llvm/test/TableGen");
    let jobs = tablegen_jobs(&env);
    let outcomes = parallel_map(&jobs, |job| {
        let what = job.describe(&root);
        let dir = job.file.parent().unwrap_or(Path::new("."));
        let args = job.args(&env.include, dir);
        let mut llvm = Command::new(&env.tblgen);
        llvm.args(["-gen-register-info", "-register-info-debug"])
            .args(&args)
            .arg(&job.file)
            .args(["-o", "/dev/null"]);
        let llvm = match run_limited(llvm, TEST_LIMIT) {
            Ok(r) => r,
            Err(e) if e.contains("did not finish") => return Outcome::OracleTimedOut,
            Err(e) => return Outcome::Failure(format!("{what}: llvm-tblgen: {e}")),
        };
        let mut ours = common::regdesc();
        ours.args(["dump", "--lanes", "llvm"])
            .args(&args)
            .arg(&job.file);
        let ours = match run_limited(ours, TEST_LIMIT) {
            Ok(r) => r,
            Err(e) => return Outcome::Failure(format!("{what}: regdesc: {e}")),
        };
        if !llvm.success {
            let name = job.file.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let known = DUMP_KNOWN_ACCEPTED.iter().any(|(f, _)| *f == name);
            return match (ours.success, ours.code) {
                (true, _) if known => Outcome::KnownException,
                (true, _) => Outcome::Failure(format!(
                    "{what}: regdesc dumps a bank llvm-tblgen rejects:\n{}",
                    first_lines(&llvm.stderr_str(), 6)
                )),
                (false, Some(1)) => Outcome::BothReject,
                (false, code) => Outcome::Failure(format!(
                    "{what}: regdesc dump crashed (exit {code:?})\n{}",
                    first_lines(&ours.stderr_str(), 20)
                )),
            };
        }
        if !ours.success {
            return Outcome::Failure(format!(
                "{what}: regdesc dump fails (exit {:?}), llvm-tblgen accepts it\n{}",
                ours.code,
                first_lines(&ours.stderr_str(), 20)
            ));
        }
        // llvm-tblgen prints its warnings among the dump's lines (on
        // stderr); regdesc prints them on stderr or in place. The dump
        // must match line for line without them, and the warnings as a set.
        let llvm_text = llvm.stderr_str();
        let (llvm_warnings, llvm_dump) = split_warnings(&llvm_text);
        let ours_out = ours.stdout_str();
        let ours_err = ours.stderr_str();
        let (mut our_warnings, our_dump) = split_warnings(&ours_out);
        our_warnings.extend(split_warnings(&ours_err).0);
        our_warnings.sort_unstable();
        if let Some(diff) = first_difference(&llvm_dump, &our_dump) {
            return Outcome::Failure(format!(
                "{what}: register dumps differ (- llvm-tblgen stderr, + regdesc stdout)\n{diff}"
            ));
        }
        if llvm_warnings != our_warnings {
            return Outcome::Failure(format!(
                "{what}: warnings differ\nllvm-tblgen:\n{}\nregdesc:\n{}",
                llvm_warnings.join("\n"),
                our_warnings.join("\n")
            ));
        }
        Outcome::Identical
    });
    report("llvm/test/TableGen, register dumps", outcomes);
}

/// The `.td` files of `llvm/lib/Target/*/` that define a `Target` record:
/// each target's full description (two for AMDGPU: AMDGPU.td and R600.td).
fn full_targets(src: &Path) -> Vec<PathBuf> {
    let base = src.join("llvm/lib/Target");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&base)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", base.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut targets = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "td"))
            .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(defines_target)))
            .collect();
        files.sort();
        targets.extend(files);
    }
    targets
}

/// `def X86 : Target {` and the like.
fn defines_target(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("def ") else {
        return false;
    };
    let Some((name, parents)) = rest.split_once(':') else {
        return false;
    };
    let parent = parents.trim_start();
    !name.trim().is_empty()
        && parent.starts_with("Target")
        && parent["Target".len()..]
            .trim_start()
            .starts_with(['{', ';', '<'])
}

#[test]
fn full_targets_print_records_identically() {
    let Some(env) = env() else { return };
    let targets = full_targets(&env.src);
    assert!(
        targets.len() >= 20,
        "found only {} target descriptions under {}",
        targets.len(),
        env.src.join("llvm/lib/Target").display()
    );
    let base = env.src.join("llvm/lib/Target");
    let outcomes = parallel_map(&targets, |file| {
        let what = file
            .strip_prefix(&base)
            .unwrap_or(file)
            .display()
            .to_string();
        let dir = file.parent().unwrap_or(Path::new("."));
        let name = file.file_name().unwrap_or_default();
        let args = ["-I", &env.include.display().to_string(), "-I", "."].map(String::from);
        let mut llvm = Command::new(&env.tblgen);
        llvm.arg("--print-records").args(&args).arg(name);
        let mut ours = common::regdesc();
        ours.arg("records").args(&args).arg(name);
        let started = std::time::Instant::now();
        let outcome = compare_records(
            common::run_limited_in(llvm, dir, TARGET_LIMIT),
            common::run_limited_in(ours, dir, TARGET_LIMIT),
            &what,
        );
        eprintln!("{what}: {:.1?}", started.elapsed());
        outcome
    });
    report("llvm/lib/Target, full targets", outcomes);
}

/// `regdesc tblgen -gen-register-info` on every target's full description
/// (X86.td, AMDGPU.td, ...): llvm-tblgen's `GenRegisterInfo.inc`, byte for
/// byte (callee-saved register masks, DWARF tables and all).
#[test]
fn full_targets_write_register_info_identically() {
    let Some(env) = env() else { return };
    let targets = full_targets(&env.src);
    let base = env.src.join("llvm/lib/Target");
    let outcomes = parallel_map(&targets, |file| {
        let what = file
            .strip_prefix(&base)
            .unwrap_or(file)
            .display()
            .to_string();
        let dir = file.parent().unwrap_or(Path::new("."));
        let name = file.file_name().unwrap_or_default();
        let args = ["-I", &env.include.display().to_string(), "-I", "."].map(String::from);
        let mut llvm = Command::new(&env.tblgen);
        llvm.arg("-gen-register-info").args(&args).arg(name);
        let mut ours = common::regdesc();
        ours.args(["tblgen", "-gen-register-info"])
            .args(&args)
            .arg(name);
        compare_records(
            common::run_limited_in(llvm, dir, TARGET_LIMIT),
            common::run_limited_in(ours, dir, TARGET_LIMIT),
            &what,
        )
    });
    report(
        "llvm/lib/Target, full targets, GenRegisterInfo.inc",
        outcomes,
    );
}

#[test]
fn run_lines_give_the_define_sets() {
    let text = "// RUN: llvm-tblgen %s | FileCheck %s\n\
                // RUN: not llvm-tblgen -DERROR1 %s 2>&1 | FileCheck -DFILE=%s --check-prefix=ERROR1 %s\n\
                // RUN: not llvm-tblgen -D ERROR2 -DB -DA \\\n\
                // RUN:   %s 2>&1 | FileCheck %s\n\
                // RUN: FileCheck -DFILE=%s %s < %t\n";
    let sets: Vec<Vec<String>> = define_sets(text).into_iter().collect();
    let want: Vec<Vec<String>> = vec![
        vec![],
        vec!["A".into(), "B".into(), "ERROR2".into()],
        vec!["ERROR1".into()],
    ];
    assert_eq!(sets, want);
}

#[test]
fn target_definitions_are_recognised() {
    assert!(defines_target("def X86 : Target {"));
    assert!(defines_target("def AMDGPU : Target {"));
    assert!(defines_target("def Foo:Target;"));
    assert!(!defines_target("def X86InstrInfo : InstrInfo;"));
    assert!(!defines_target("def TargetFoo : TargetOpcode {"));
    assert!(!defines_target("class Target {"));
}
