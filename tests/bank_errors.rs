//! Register descriptions llvm-tblgen 14's `-gen-register-info` does not get
//! through (it reports an error, crashes or never finishes): regdesc rejects
//! each with a located diagnostic (an insta snapshot) and exit status 1 from
//! both `regdesc dump` and `regdesc check`. Where llvm-tblgen is on `PATH`,
//! its failure is checked too.

mod common;

use std::process::Command;
use std::time::Duration;

use regdesc_core::check::CheckOptions;
use regdesc_core::driver::{self, Input};
use regdesc_core::lanes::LaneMode;

const DIR: &str = "tests/fixtures/bank_errors";

/// How llvm-tblgen fails on a fixture.
#[derive(Debug, PartialEq, Eq)]
enum Llvm {
    /// An error with this text (exit status 1, or an abort through
    /// `report_fatal_error`).
    Error(&'static str),
    /// A crash (a signal).
    Crash,
    /// Still running after the limit.
    Hang,
}

/// `regdesc dump` and `regdesc check` fail with `code`; the rendered
/// diagnostic of `dump` is the snapshot `name`.
fn rejects(name: &str, code: &str, llvm: Llvm) {
    let file = format!("{DIR}/{name}.td");
    let path = common::repo_root().join(&file);
    for sub in ["dump", "check"] {
        let mut cmd = common::regdesc();
        cmd.arg(sub).arg(&file);
        let ran = common::run_limited(cmd, Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("regdesc {sub} {file}: {e}"));
        assert_eq!(
            ran.code,
            Some(1),
            "regdesc {sub} {file} must fail:\n{}",
            ran.stderr_str()
        );
        assert!(
            ran.stderr_str().contains(code),
            "regdesc {sub} {file} must report {code}:\n{}",
            ran.stderr_str()
        );
    }
    // With the built-in Target.td (its note aside).
    let run = driver::bank(&Input::file(&path), LaneMode::Llvm);
    let errors: Vec<_> = run
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    assert_eq!(errors.iter().map(|d| d.code).collect::<Vec<_>>(), [code]);
    assert!(errors[0].span.is_some(), "{code} is not located");
    let checked = driver::check(
        &Input::file(&path),
        &CheckOptions {
            mode: LaneMode::Llvm,
            lane_bits: 64,
            ..Default::default()
        },
    );
    assert!(checked.diagnostics.iter().any(|d| d.code == code));
    let rendered = regdesc_core::diag::render(&run.sources, &errors, false)
        .replace(env!("CARGO_MANIFEST_DIR"), "")
        .replace('\\', "/");
    insta::assert_snapshot!(name, rendered);

    let (Some(tool), Some(inc)) = (common::llvm_tblgen(), common::llvm_include_dir()) else {
        return;
    };
    let mut cmd = Command::new(tool);
    cmd.args(["-gen-register-info", "-o", "/dev/null", "-I"])
        .arg(inc)
        .arg(&file);
    let got = match common::run_limited(cmd, Duration::from_secs(5)) {
        Err(e) if e.contains("did not finish") => Llvm::Hang,
        Err(e) => panic!("llvm-tblgen on {file}: {e}"),
        Ok(r) => {
            assert!(!r.success, "llvm-tblgen accepts {file}");
            match &llvm {
                Llvm::Error(text) if r.stderr_str().contains(text) => Llvm::Error(text),
                _ if r.code.is_none() => Llvm::Crash,
                _ => panic!("llvm-tblgen on {file}:\n{}", r.stderr_str()),
            }
        }
    };
    assert_eq!(got, llvm, "llvm-tblgen on {file}");
}

#[test]
fn no_pressure_set() {
    rejects(
        "empty_pressure_sets",
        "regdesc::regs::empty_pressure_sets",
        Llvm::Error("RegUnitSets cannot be empty!"),
    );
}

#[test]
fn pressure_set_without_units() {
    rejects(
        "empty_unit_set",
        "regdesc::regs::empty_unit_set",
        Llvm::Crash,
    );
}

#[test]
fn unit_weights_that_never_settle() {
    rejects(
        "unit_weights_never_settle",
        "regdesc::regs::unit_weights",
        Llvm::Hang,
    );
}

#[test]
fn hw_mode_select_lists_of_different_lengths() {
    // Reported before the missing Target def, as llvm-tblgen does.
    rejects(
        "hw_mode_select_length",
        "regdesc::regs::hw_mode_select",
        Llvm::Error("the lists Modes and Objects should have the same size"),
    );
}
