//! Real-target parity: LLVM 14's own target descriptions against
//! llvm-tblgen 14, from the LLVM source corpus ([`common::llvm_src`], built
//! by `tests/corpus/prepare.sh`).
//!
//! Register files: each wrapper `tests/fixtures/real_targets/<T>-regs.td`
//! includes Target.td, the few records its register file needs from the
//! target's main `.td`, and the target's `*RegisterInfo.td`. With
//! `-I <llvm include> -I <corpus>/llvm/lib/Target/<T>`:
//!
//! - `--print-records` prints what [`driver::records`] and
//!   [`regdesc_core::llvm_format::print_records`] print;
//! - llvm-tblgen's whole stderr under `-gen-register-info
//!   -register-info-debug` (warnings, then the dump) is what
//!   [`Run::register_info_debug`] gives, with the real Target.td and with
//!   regdesc's built-in prelude standing in for it (no LLVM include dir).
//!
//! (The targets' whole descriptions, X86.td and the like, are compared in
//! `tests/llvm_tablegen_tests.rs`.) Jobs run on parallel threads;
//! `--nocapture` shows each one's timings.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use regdesc_core::driver::{self, Run};
use regdesc_core::lanes::LaneMode;

/// Where the wrappers are, relative to the repository root.
const WRAPPERS: &str = "tests/fixtures/real_targets";

/// Targets whose wrapper must exist (every other wrapper in [`WRAPPERS`]
/// runs too).
const REQUIRED_WRAPPERS: &[&str] = &[
    "AArch64", "AMDGPU", "ARM", "Hexagon", "Mips", "PowerPC", "RISCV", "Sparc", "SystemZ", "X86",
];

/// Wrappers known to differ, with the reason. Their differences are shown
/// without failing the test; a known failure that passes fails it, so that
/// its entry gets removed.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

/// What is fixed for the whole run: the oracle and where things are.
struct Setup {
    tblgen: PathBuf,
    llvm_include: PathBuf,
    targets_dir: PathBuf,
}

/// How long each step of one job took.
type Timings = Vec<(&'static str, Duration)>;

/// A finished job: its label, timings and verdict.
type Outcome = (String, Timings, Result<(), String>);

/// The targets that have a wrapper, sorted.
fn wrapped_targets() -> Vec<String> {
    common::files_with_extension(&common::repo_root().join(WRAPPERS), "td")
        .iter()
        .filter_map(|p| p.file_name()?.to_str()?.strip_suffix("-regs.td"))
        .map(str::to_string)
        .collect()
}

/// Runs `f`, recording how long it took as `step`.
fn timed<T>(t: &mut Timings, step: &'static str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    t.push((step, start.elapsed()));
    out
}

/// llvm-tblgen's `--print-records` output for `file`.
fn tblgen_records(setup: &Setup, file: &Path, includes: &[PathBuf]) -> Result<String, String> {
    let mut cmd = Command::new(&setup.tblgen);
    cmd.arg("--print-records");
    for dir in includes {
        cmd.arg("-I").arg(dir);
    }
    cmd.arg(file);
    let ran = common::run_limited(cmd, common::tblgen_limit())?;
    if !ran.success {
        return Err(format!(
            "llvm-tblgen --print-records rejects {}:\n{}",
            file.display(),
            ran.stderr_str()
        ));
    }
    Ok(ran.stdout_str())
}

/// The first of a failed run's diagnostics (a front-end error can cascade
/// into thousands), rendered.
fn first_error(run: &Run) -> String {
    let first = run
        .diagnostics
        .iter()
        .position(|d| d.is_error())
        .unwrap_or(0);
    let shown = run.diagnostics.get(first..=first).unwrap_or_default();
    let more = run.diagnostics.len().saturating_sub(first + 1);
    let mut text = regdesc_core::diag::render(&run.sources, shown, false);
    if more > 0 {
        text.push_str(&format!("... and {more} more diagnostics\n"));
    }
    text
}

fn same(what: &str, expected: &str, got: &str) -> Result<(), String> {
    match common::first_difference(expected, got) {
        None => Ok(()),
        Some(diff) => Err(format!("{what} differs (- llvm-tblgen, + regdesc)\n{diff}")),
    }
}

/// `--print-records` parity for `file`.
fn check_records(
    setup: &Setup,
    file: &Path,
    includes: &[PathBuf],
    t: &mut Timings,
) -> Result<(), String> {
    let expected = timed(t, "tblgen records", || {
        tblgen_records(setup, file, includes)
    })?;
    let run = timed(t, "records", || {
        driver::records(&common::input(file, includes))
    });
    let got = timed(t, "print", || {
        run.records
            .as_ref()
            .map(regdesc_core::llvm_format::print_records)
    })
    .ok_or_else(|| format!("regdesc records fails:\n{}", first_error(&run)))?;
    same("--print-records", &expected, &got)
}

/// Records and register-info parity for one wrapper.
fn check_wrapper(setup: &Setup, target: &str, t: &mut Timings) -> Result<(), String> {
    let file = common::repo_root()
        .join(WRAPPERS)
        .join(format!("{target}-regs.td"));
    let target_dir = setup.targets_dir.join(target);
    let with_target_td = vec![setup.llvm_include.clone(), target_dir.clone()];
    let with_prelude = vec![target_dir];

    check_records(setup, &file, &with_target_td, t)?;

    let (ok, expected) = timed(t, "tblgen dump", || {
        common::tblgen_register_info_debug(&setup.tblgen, &file, &with_target_td)
    })?;
    if !ok {
        return Err(format!(
            "llvm-tblgen -gen-register-info rejects the wrapper:\n{expected}"
        ));
    }
    if !expected.contains("RegisterClass ") {
        return Err(format!(
            "llvm-tblgen printed no register classes:\n{expected}"
        ));
    }
    for (what, includes) in [("Target.td", &with_target_td), ("prelude", &with_prelude)] {
        let step = if what == "prelude" {
            "dump (prelude)"
        } else {
            "dump"
        };
        let run = timed(t, step, || {
            driver::bank(&common::input(&file, includes), LaneMode::Llvm)
        });
        if what == "prelude" && !run.used_builtin_prelude() {
            return Err("the built-in prelude was not used without the LLVM include dir".into());
        }
        let got = run
            .register_info_debug()
            .ok_or_else(|| format!("regdesc dump ({what}) fails:\n{}", first_error(&run)))?;
        same(&format!("register-info dump ({what})"), &expected, &got)?;
    }
    Ok(())
}

fn show_timings(t: &Timings) -> String {
    t.iter()
        .map(|(step, d)| format!("{step} {:.2}s", d.as_secs_f64()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn real_targets_match_llvm_tblgen() {
    let (Some(tblgen), Some(llvm_include), Some(src)) = (
        common::llvm_tblgen(),
        common::llvm_include_dir(),
        common::llvm_src(),
    ) else {
        return;
    };
    let setup = Setup {
        tblgen,
        llvm_include,
        targets_dir: src.join("llvm/lib/Target"),
    };
    let wrapped = wrapped_targets();
    for required in REQUIRED_WRAPPERS {
        assert!(
            wrapped.iter().any(|t| t == required),
            "no wrapper {WRAPPERS}/{required}-regs.td"
        );
    }
    // The biggest job first, so that the threads finish together.
    let mut jobs = wrapped;
    jobs.sort_by_key(|t| t != "AMDGPU");
    let labels: Vec<String> = jobs.iter().map(|t| format!("{t}-regs.td")).collect();
    for (known, _) in KNOWN_FAILURES {
        assert!(
            labels.iter().any(|l| l == known),
            "KNOWN_FAILURES names {known}, which is not a job"
        );
    }

    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map_or(2, usize::from)
        .min(jobs.len());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(target) = jobs.get(i) else { break };
                let mut t = Timings::new();
                let result = check_wrapper(&setup, target, &mut t);
                results.lock().unwrap_or_else(|e| e.into_inner()).push((
                    format!("{target}-regs.td"),
                    t,
                    result,
                ));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by(|a, b| a.0.cmp(&b.0));

    let mut failures = Vec::new();
    let mut known_failures = 0;
    for (label, t, result) in &results {
        let known = KNOWN_FAILURES.iter().find(|(k, _)| k == label);
        let verdict = match (result, known) {
            (Ok(()), None) => "identical",
            (Err(e), None) => {
                failures.push(format!("{label}: {e}"));
                "DIFFERS"
            }
            (Err(e), Some((_, why))) => {
                known_failures += 1;
                eprintln!("{label}: known failure ({why}):\n{e}");
                "known failure"
            }
            (Ok(()), Some(_)) => {
                failures.push(format!(
                    "{label} now matches llvm-tblgen: remove it from KNOWN_FAILURES"
                ));
                "identical, but listed in KNOWN_FAILURES"
            }
        };
        eprintln!("{label:<28} {verdict:<14} {}", show_timings(t));
    }
    eprintln!(
        "{} jobs ({known_failures} known failures) on {threads} threads in {:.2?}",
        results.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {} real-target wrappers differ from llvm-tblgen:\n\n{}",
        failures.len(),
        results.len(),
        failures.join("\n\n")
    );
}

/// Issue 18: LLVM's AMDGPU mixes 32- and 64-bit registers in `SReg_1` and
/// `SReg_1_XEXEC` on purpose. With a `// regdesc: allow(class_size_mismatch)`
/// marker on each class's line, the real file checks clean and the summary
/// counts both findings as allowed.
#[test]
fn amdgpu_with_allow_markers_checks_clean() {
    let (Some(src), Some(include)) = (common::llvm_src(), common::llvm_include_dir()) else {
        return;
    };
    let amdgpu = src.join("llvm/lib/Target/AMDGPU");
    let text = std::fs::read_to_string(amdgpu.join("SIRegisterInfo.td")).unwrap();
    let mut marked = 0;
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("def SReg_1 : ") || l.starts_with("def SReg_1_XEXEC : ") {
                marked += 1;
                format!("{l} // regdesc: allow(class_size_mismatch)\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert_eq!(marked, 2, "SReg_1 and SReg_1_XEXEC not found");
    let dir = std::env::temp_dir().join(format!("regdesc-allow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SIRegisterInfo.td"), text).unwrap();
    let mut input =
        driver::Input::file(common::repo_root().join("tests/fixtures/real_targets/AMDGPU-regs.td"));
    input.include_dirs = vec![dir.clone(), include, amdgpu];
    let run = driver::check(&input, &regdesc_core::check::CheckOptions::default());
    let _ = std::fs::remove_dir_all(&dir);
    let report = run.check.as_ref().unwrap();
    assert!(report.diagnostics.is_empty(), "{}", run.render(false));
    assert_eq!(report.allowed.len(), 2);
    let summary = report.render_summary();
    assert!(
        summary.contains("allowed:                     2 (class_size_mismatch)"),
        "{summary}"
    );
    // Without the markers, the same two findings are warnings.
    let mut input =
        driver::Input::file(common::repo_root().join("tests/fixtures/real_targets/AMDGPU-regs.td"));
    input.include_dirs = vec![
        common::llvm_include_dir().unwrap(),
        src.join("llvm/lib/Target/AMDGPU"),
    ];
    let run = driver::check(&input, &regdesc_core::check::CheckOptions::default());
    let codes: Vec<&str> = run
        .check
        .unwrap()
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, ["regdesc::check::class_size_mismatch"; 2]);
}
