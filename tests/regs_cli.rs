//! The `dump` and `check` subcommands end to end: exit codes, streams, JSON.

use std::process::Command;

fn regdesc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_regdesc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run regdesc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_clean_exits_zero() {
    let (code, out, _) = regdesc(&["check", "examples/intel_grf.td"]);
    assert_eq!(code, 0);
    assert!(out.contains("lanes (llvm):             46"), "{out}");
    assert!(out.contains("lanes (coverage):         32"), "{out}");
}

#[test]
fn check_over_budget_exits_one() {
    let (code, _, err) = regdesc(&["check", "examples/intel_grf_simd16.td", "--lanes", "llvm"]);
    assert_eq!(code, 1);
    assert!(err.contains("lane budget exceeded"), "{err}");
    let (code, _, _) = regdesc(&[
        "check",
        "examples/intel_grf_simd16.td",
        "--lane-bits",
        "128",
        "--lanes",
        "llvm",
    ]);
    assert_eq!(code, 0);
}

#[test]
fn check_json_is_one_object() {
    let (code, out, _) = regdesc(&[
        "check",
        "tests/fixtures/regs_check/duplicate_tuples.td",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v["lanes"].is_null());
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "regdesc::check::duplicate_register",
            "regdesc::regs::sub_regs"
        ]
    );
    assert_eq!(v["diagnostics"][0]["line"], 20);
}

#[test]
fn dump_with_prelude_and_wide_masks() {
    let (code, out, err) = regdesc(&["dump", "examples/intel_grf_simd16.td", "--lanes", "llvm"]);
    assert_eq!(code, 0, "{err}");
    // 78 lanes: masks print with 32 hex digits.
    let line = out.lines().find(|l| l.starts_with("\tLaneMask: ")).unwrap();
    assert_eq!(line.len(), "\tLaneMask: ".len() + 32);
    let (code, out, _) = regdesc(&[
        "dump",
        "examples/intel_grf_simd16.td",
        "--lanes",
        "coverage",
    ]);
    assert_eq!(code, 0);
    let line = out.lines().find(|l| l.starts_with("\tLaneMask: ")).unwrap();
    assert_eq!(line.len(), "\tLaneMask: ".len() + 16);
}

#[test]
fn dump_reports_bank_errors() {
    let (code, out, err) = regdesc(&["dump", "tests/fixtures/regs_check/duplicate_tuples.td"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("No SubRegIndex for"), "{err}");
}
