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
    assert!(out.contains("lanes (llvm):               46"), "{out}");
    assert!(out.contains("lanes (coverage):           32"), "{out}");
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
    let diags: Vec<&serde_json::Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] != "note")
        .collect();
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(
        codes,
        [
            "regdesc::check::duplicate_register",
            "regdesc::regs::sub_regs"
        ]
    );
    assert_eq!(diags[0]["line"], 20);
}

/// Runs regdesc with `stdin` as its standard input.
fn regdesc_stdin(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_regdesc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run regdesc");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_json_when_parsing_fails() {
    for (text, line) in [("def A {\n  int x = ;\n}\n", 2), ("def B : Nope;\n", 1)] {
        let (code, out, err) = regdesc_stdin(&["check", "--format", "json", "-"], text);
        assert_eq!(code, 1, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
        assert!(v["registers"].is_null() && v["lanes"].is_null(), "{out}");
        let d = &v["diagnostics"][0];
        assert_eq!(d["severity"], "error", "{out}");
        assert_eq!(d["file"], "<stdin>", "{out}");
        assert_eq!(d["line"], line, "{out}");
    }
}

#[test]
fn reads_standard_input_like_llvm_tblgen() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/regs/basic_pair.td"),
    )
    .unwrap();
    let (code, from_file, _) = regdesc(&["records", "tests/fixtures/regs/basic_pair.td"]);
    assert_eq!(code, 0);
    for args in [&["records", "-"][..], &["records"][..]] {
        let (code, out, err) = regdesc_stdin(args, &text);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, from_file);
    }
}

#[test]
fn unused_template_argument_warnings_can_be_turned_off() {
    let text = "class C<int x> { int y = 1; }\ndef D : C<1>;\n";
    let (code, _, err) = regdesc_stdin(&["records", "-"], text);
    assert_eq!(code, 0);
    assert!(err.contains("unused template argument: C:x"), "{err}");
    let (code, _, err) =
        regdesc_stdin(&["records", "--no-warn-on-unused-template-args", "-"], text);
    assert_eq!(code, 0);
    assert!(!err.contains("unused template argument"), "{err}");
}

#[test]
fn dump_prints_front_end_warnings_as_llvm_does() {
    let text = "include \"llvm/Target/Target.td\"\nclass C<int x> { int y = 1; }\n\
                def R0 : Register<\"r0\">;\n\
                def RC : RegisterClass<\"X\", [i32], 32, (add R0)>;\n\
                def T : Target;\n";
    let (code, out, err) = regdesc_stdin(&["dump", "-"], text);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "<stdin>:2:13: warning: unused template argument: C:x\n\
             class C<int x> { int y = 1; }\n            ^\nRegisterClass RC:\n"
        ),
        "{out}"
    );
}

#[test]
fn dump_needs_one_target_like_llvm_tblgen() {
    let text = "include \"llvm/Target/Target.td\"\ndef R0 : Register<\"r0\">;\n\
                def RC : RegisterClass<\"X\", [i32], 32, (add R0)>;\n";
    let (code, out, err) = regdesc_stdin(&["dump", "-"], text);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("No 'Target' subclasses defined!"), "{err}");
    // `check` reads a register file on its own.
    let (code, _, err) = regdesc_stdin(&["check", "-"], text);
    assert_eq!(code, 0, "{err}");
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

#[test]
fn check_allow_and_deny_flags() {
    let file = "tests/fixtures/regs_check/class_size_mismatch.td";
    let (code, out, err) = regdesc(&["check", file, "--allow", "class_size_mismatch"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("allowed:                     1 (class_size_mismatch)"),
        "{out}"
    );
    assert!(
        !err.contains("regdesc::check::class_size_mismatch"),
        "{err}"
    );
    let (code, _, err) = regdesc(&["check", file, "--deny", "class_size_mismatch"]);
    assert_eq!(code, 1);
    assert!(err.contains("regdesc::check::class_size_mismatch"), "{err}");
}

/// `regdesc tblgen` takes llvm-tblgen's options, writes the `.inc` only when
/// it changed, and fails with the lane-budget diagnostic over 64 lanes.
#[test]
fn tblgen_writes_if_changed_and_refuses_wide_files() {
    let dir = std::env::temp_dir().join(format!("regdesc-tblgen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("Intel.inc");
    let out_s = out.to_str().unwrap();
    let dep = dir.join("Intel.inc.d");
    let args = [
        "tblgen",
        "-gen-register-info",
        "examples/intel_grf.td",
        "-o",
        out_s,
        "-d",
        dep.to_str().unwrap(),
        "--write-if-changed",
    ];
    let (code, _, err) = regdesc(&args);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("#ifdef GET_REGINFO_TARGET_DESC"));
    assert!(std::fs::read_to_string(&dep)
        .unwrap()
        .starts_with(&format!("{out_s}:")));
    let before = std::fs::metadata(&out).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (code, _, _) = regdesc(&args);
    assert_eq!(code, 0);
    assert_eq!(std::fs::metadata(&out).unwrap().modified().unwrap(), before);
    // 78 lanes in llvm mode: LLVM's 64-bit masks cannot hold them.
    let (code, _, err) = regdesc(&[
        "tblgen",
        "-gen-register-info",
        "examples/intel_grf_simd16.td",
        "-o",
        out_s,
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("regdesc::check::lane_budget"), "{err}");
    // 64 lanes in coverage mode.
    let (code, _, err) = regdesc(&[
        "tblgen",
        "-gen-register-info",
        "--lanes",
        "coverage",
        "examples/intel_grf_simd16.td",
        "-o",
        out_s,
    ]);
    assert_eq!(code, 0, "{err}");
    // 128 lanes even in coverage mode.
    let (code, _, err) = regdesc(&[
        "tblgen",
        "-gen-register-info",
        "--lanes=coverage",
        "examples/intel_grf_bytes_simd16.td",
        "-o",
        out_s,
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("regdesc::check::lane_budget"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
