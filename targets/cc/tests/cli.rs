//! `regdesc-cc` end to end: `run` prints the return value as an LLVM
//! constant on the last line, `check` prints uniformity (insta snapshots),
//! `compile` and `run --target` drive the back-end pipeline, and bad input gets located
//! errors and the documented exit statuses.

use std::path::Path;
use std::process::Command;

/// Runs `regdesc-cc` in `targets/` so that file names in output are stable.
fn cc(args: &[&str]) -> (i32, String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_regdesc-cc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("regdesc-cc runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn last_line(s: &str) -> &str {
    s.lines().last().unwrap_or("")
}

const MIXED: &str = "cc/tests/inputs/mixed.ll";

#[test]
fn run_prints_the_return_value_on_the_last_line() {
    let (code, out, err) = cc(&[
        "run",
        MIXED,
        "--fn",
        "widen_mul",
        "--arg",
        "i64 5",
        "--arg",
        "i32 -3",
    ]);
    assert_eq!(code, 0, "{err}");
    // -15 * 2^64 + -15
    assert_eq!(last_line(&out), "i128 -276701161105643274255");
    let (_, out, _) = cc(&[
        "run",
        MIXED,
        "--fn",
        "hadd",
        "--arg",
        "half 0xH3C00",
        "--arg",
        "half 0xH3800",
    ]);
    assert_eq!(last_line(&out), "half 0xH3E00");
    let (_, out, _) = cc(&[
        "run",
        MIXED,
        "--fn",
        "fmul",
        "--arg",
        "float 1.5",
        "--arg",
        "float -2.0",
    ]);
    assert_eq!(last_line(&out), "float -3.000000e+00");
    let (_, out, _) = cc(&[
        "run",
        MIXED,
        "--fn",
        "fmul",
        "--arg",
        "float 0x3FB99999A0000000",
        "--arg",
        "float 1.0",
    ]);
    assert_eq!(last_line(&out), "float 0x3FB99999A0000000");
    let (_, out, _) = cc(&[
        "run",
        "codegen/tests/fixtures/mul256.ll",
        "--arg",
        "i256 -1",
        "--arg",
        "i256 -1",
    ]);
    assert_eq!(last_line(&out), "i256 1");
}

#[test]
fn run_over_lanes_with_ids_and_memory() {
    let (code, out, err) = cc(&[
        "run",
        MIXED,
        "--fn",
        "ids",
        "--lanes",
        "3",
        "--workitem",
        "4",
        "--workgroup",
        "2",
        "--workgroup-size",
        "8",
        "--arg",
        "ptr addrspace(1) 0",
        "--mem-size",
        "64",
        "--dump-mem",
        "32: 3 x i64",
    ]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("run_ids", out);
    let (code, out, err) = cc(&[
        "run",
        MIXED,
        "--fn",
        "lanes",
        "--lanes",
        "2",
        "--arg",
        "<2 x i16> <i16 7, i16 0> | <i16 -1, i16 0>",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "lane 0: <2 x i16> <i16 7, i16 0>\nlane 1: <2 x i16> <i16 -1, i16 1>\n"
    );
    let (code, out, _) = cc(&[
        "run",
        "codegen/tests/fixtures/kernel_memory.ll",
        "--fn",
        "add_i128",
        "--lanes",
        "2",
        "--arg",
        "ptr addrspace(1) 0",
        "--arg",
        "ptr addrspace(1) 32",
        "--arg",
        "ptr addrspace(1) 64",
        "--mem",
        "32: i128 -1, i128 5, i128 1, i128 18446744073709551615",
        "--dump-mem",
        "0: 2 x i128",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "mem[0]: i128 0, i128 18446744073709551620\nlane 0: void\nlane 1: void\n"
    );
}

#[test]
fn check_prints_uniformity() {
    for (name, file) in [
        ("check_uniformity", "codegen/tests/fixtures/uniformity.ll"),
        (
            "check_kernel_memory",
            "codegen/tests/fixtures/kernel_memory.ll",
        ),
        ("check_spir_kernel", "codegen/tests/fixtures/spir_kernel.ll"),
        (
            "check_sdwa_preserve",
            "codegen/tests/fixtures/sdwa_preserve.ll",
        ),
    ] {
        let (code, out, err) = cc(&["check", file]);
        assert_eq!(code, 0, "{err}");
        insta::assert_snapshot!(name, out);
    }
}

#[test]
fn compile_for_ref32_prints_assembly_and_stages() {
    let (code, out, err) = cc(&[
        "compile",
        "--target",
        "ref32",
        "codegen/tests/fixtures/add64.ll",
        "--print-after",
        "legalize",
        "--verify-each",
        "--time-passes",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("# ref32 assembly of @add64"), "{out}");
    assert!(out.contains("G_UADDO $R"), "{out}");
    assert!(err.contains("after legalize ***"), "{err}");
    assert!(err.contains("# time: @add64 legalize"), "{err}");
}

#[test]
fn run_on_a_target_prints_what_run_prints() {
    let args = [
        "codegen/tests/fixtures/mul128.ll",
        "--fn",
        "mul128",
        "--lanes",
        "2",
        "--arg",
        "i128 18446744073709551617 | -5",
        "--arg",
        "i128 18446744073709551615 | 7",
    ];
    let (_, expected, _) = cc(&[&["run"][..], &args[..]].concat());
    for stage in [
        "legalize", "select", "phi-elim", "two-addr", "alloc", "final",
    ] {
        let (code, out, err) = cc(&[
            &["run", "--target", "ref32", "--after", stage][..],
            &args[..],
        ]
        .concat());
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, expected, "after {stage}");
    }
}

#[test]
fn bad_targets_and_stages_are_errors() {
    let (code, out, err) = cc(&["compile", "--target", "amdgcn", MIXED, "--color", "never"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("unknown target `amdgcn`") && err.contains("ref32"),
        "{err}"
    );
    let (code, _, err) = cc(&[
        "run", "--target", "ref32", "--after", "nowhere", MIXED, "--fn", "hadd",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown stage `nowhere`"), "{err}");
}

#[test]
fn errors_are_located_with_the_documented_status() {
    // Bad IR: status 1, file:line:col.
    let (code, _, err) = cc(&[
        "check",
        "codegen/tests/bad/unsupported_sdiv.ll",
        "--color",
        "never",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("[codegen/tests/bad/unsupported_sdiv.ll:2:8]"),
        "{err}"
    );
    // Poison at run time: status 1, located at the instruction.
    let (code, _, err) = cc(&[
        "run", MIXED, "--fn", "shift", "--arg", "i32 1", "--arg", "i32 32",
    ]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("run_poison", err);
    // A loop that never ends stops at the step limit.
    let (code, _, err) = cc(&[
        "run",
        MIXED,
        "--fn",
        "spin",
        "--arg",
        "i32 0",
        "--max-steps",
        "1000",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("more than 1000 instructions executed"),
        "{err}"
    );
    // Bad option values: status 2, located in the option's text.
    let (code, _, err) = cc(&[
        "run",
        MIXED,
        "--fn",
        "shift",
        "--arg",
        "i32 1",
        "--arg",
        "float 0.1",
    ]);
    assert_eq!(code, 2);
    insta::assert_snapshot!("bad_arg", err);
    let (code, _, err) = cc(&["run", MIXED, "--fn", "shift", "--arg", "i32 1"]);
    assert_eq!(code, 1);
    assert!(err.contains("takes 2 arguments, 1 given"), "{err}");
    let (code, _, err) = cc(&["run", MIXED, "--fn", "nope"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no function `@nope`") && err.contains("@widen_mul"),
        "{err}"
    );
    let (code, _, _) = cc(&[
        "run",
        MIXED,
        "--fn",
        "shift",
        "--lanes",
        "2",
        "--arg",
        "i32 1 | 2 | 3",
        "--arg",
        "i32 0",
    ]);
    assert_eq!(code, 2);
}

#[test]
fn run_help_documents_values_memory_and_lanes() {
    let (code, out, _) = cc(&["run", "--help"]);
    assert_eq!(code, 0);
    for needle in [
        "--mem",
        "--dump-mem",
        "--lanes",
        "--workitem",
        "get_global_id",
        "last line",
        "0xH3C00",
    ] {
        assert!(out.contains(needle), "run --help lacks {needle}");
    }
}
