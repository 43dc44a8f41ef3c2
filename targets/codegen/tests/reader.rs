//! The reader and printer: every fixture and every benchmark function of
//! `shared/bench/amdgpu/ll` reads and verifies; printing is a fixed point
//! of read-then-print and gives text `llvm-as` accepts; constants print as
//! `llvm-dis` prints them.

#[path = "support/mod.rs"]
mod support;

use std::process::Command;
use std::time::Duration;

use regdesc_codegen::ir::print::module_text;
use regdesc_codegen::ir::types::{Scalar, Type};
use regdesc_codegen::read_module;
use regdesc_codegen::value::{IntBits, ScalarValue, Value};

fn read(path: &std::path::Path) -> regdesc_codegen::Module {
    let text = std::fs::read_to_string(path).expect("readable");
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    read_module(&name, &text).unwrap_or_else(|e| panic!("{}", e.render(false)))
}

#[test]
fn printing_is_a_fixed_point() {
    for path in support::ll_files("tests/fixtures") {
        let once = module_text(&read(&path));
        let m2 = read_module("printed.ll", &once).unwrap_or_else(|e| {
            panic!(
                "{}: printed text does not read back:\n{}\n{once}",
                path.display(),
                e.render(false)
            )
        });
        assert_eq!(module_text(&m2), once, "{}", path.display());
    }
}

fn tool(names: &[&str]) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|n| {
        std::env::split_paths(&path)
            .map(|d| d.join(n))
            .find(|p| p.is_file())
    })
}

fn llvm_tools() -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    match (tool(&["llvm-as-14"]), tool(&["llvm-dis-14"])) {
        (Some(a), Some(d)) => Some((a, d)),
        _ => {
            if support::oracles_required() {
                panic!("llvm-as-14/llvm-dis-14 are not on PATH, and REGDESC_REQUIRE_ORACLES=1 makes a missing oracle a failure");
            }
            eprintln!("SKIPPED: llvm-as-14/llvm-dis-14 are not on PATH");
            None
        }
    }
}

/// `llvm-as | llvm-dis` of `text`.
fn round_trip_llvm(text: &str, what: &str) -> Option<String> {
    let (as_, dis) = llvm_tools()?;
    let dir = std::env::temp_dir().join("regdesc-codegen-llvm");
    std::fs::create_dir_all(&dir).ok()?;
    let src = dir.join(format!("{what}-{}.ll", std::process::id()));
    let bc = src.with_extension("bc");
    std::fs::write(&src, text).ok()?;
    let (ok, _, err) = support::run_with_timeout(
        Command::new(&as_)
            .arg("-opaque-pointers")
            .arg(&src)
            .arg("-o")
            .arg(&bc),
        Duration::from_secs(60),
    )
    .expect("llvm-as runs");
    assert!(ok, "llvm-as rejects {what}:\n{err}\n{text}");
    let (ok, out, err) = support::run_with_timeout(
        Command::new(&dis)
            .arg("-opaque-pointers")
            .arg(&bc)
            .arg("-o")
            .arg("-"),
        Duration::from_secs(60),
    )
    .expect("llvm-dis runs");
    assert!(ok, "llvm-dis: {err}");
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&bc);
    Some(out)
}

#[test]
fn printed_fixtures_are_valid_llvm() {
    let mut all = String::new();
    for (n, path) in support::ll_files("tests/fixtures").iter().enumerate() {
        // Rename the functions apart so that one module holds them all.
        let text = module_text(&read(path)).replace(" @", &format!(" @m{n}_"));
        let text = text
            .replace(&format!("@m{n}_llvm."), "@llvm.")
            .replace(&format!("@m{n}__Z13"), "@_Z13")
            .replace(&format!("@m{n}__Z6mul_hi"), "@_Z6mul_hi");
        all.push_str(
            &text
                .lines()
                .filter(|l| !l.starts_with("declare"))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        all.push('\n');
    }
    all.push_str("declare i32 @llvm.amdgcn.workitem.id.x()\ndeclare i32 @llvm.amdgcn.workgroup.id.x()\ndeclare i64 @_Z13get_global_idj(i32)\n");
    for (name, _, bits) in regdesc_codegen::ir::Builtin::MUL_HI {
        all.push_str(&format!("declare i{bits} @{name}(i{bits}, i{bits})\n"));
    }
    let _ = round_trip_llvm(&all, "fixtures");
}

#[test]
fn benchmark_functions_read() {
    // shared/ sits beside the repository (CI clones it there).
    let dir = support::manifest_dir().join("../../../shared/bench/amdgpu/ll");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("SKIPPED: {} not found", dir.display());
        return;
    };
    let mut n = 0;
    for e in entries.flatten() {
        if e.path().extension().is_some_and(|x| x == "ll") {
            let m = read(&e.path());
            assert!(!m.functions.is_empty());
            n += 1;
        }
    }
    assert!(n >= 8, "only {n} benchmark files");
}

fn sample_values() -> Vec<Value> {
    let mut v = Vec::new();
    for w in [1u16, 8, 16, 32, 64, 128, 256] {
        for x in [
            0i128,
            1,
            -1,
            42,
            -42,
            i128::MAX,
            i128::MIN,
            12345678901234567890,
        ] {
            v.push(Value::int(w, x));
        }
        v.push(Value::Int(regdesc_codegen::value::IntValue::new(
            w,
            IntBits::MAX,
        )));
        v.push(Value::Int(regdesc_codegen::value::IntValue::new(
            w,
            IntBits::from(1u8) << (w as usize - 1),
        )));
    }
    for f in [
        0.0f32,
        -0.0,
        1.0,
        1.5,
        -2.25,
        0.1,
        1.0e10,
        16777216.0,
        3.4028235e38,
        1.0e-45,
        f32::MIN_POSITIVE,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        123.456,
        1.0e-10,
        65504.0,
    ] {
        v.push(Value::Float(f));
    }
    v.push(Value::Float(f32::from_bits(0xFFC0_0001)));
    for h in [
        0u16, 0x8000, 0x3C00, 0x7BFF, 0x0001, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x1234,
    ] {
        v.push(Value::Half(half::f16::from_bits(h)));
    }
    let s16 = |x: i128| ScalarValue::Int(regdesc_codegen::value::IntValue::from_i128(16, x));
    let s32 = |x: i128| ScalarValue::Int(regdesc_codegen::value::IntValue::from_i128(32, x));
    v.push(Value::Vec2([s16(1), s16(-1)]));
    v.push(Value::Vec2([s16(0), s16(0)]));
    v.push(Value::Vec2([s32(-7), s32(i32::MAX as i128)]));
    v.push(Value::Vec2([
        ScalarValue::Half(half::f16::ONE),
        ScalarValue::Half(half::f16::NEG_ONE),
    ]));
    v.push(Value::zero(Type::Vec2(Scalar::Half)).expect("zero"));
    v.push(Value::Ptr(0));
    v
}

#[test]
fn constants_print_as_llvm_dis_prints_them() {
    let values = sample_values();
    let mut text = String::new();
    for (n, v) in values.iter().enumerate() {
        text.push_str(&format!("define {} @c{n}() {{\n  ret {v}\n}}\n", v.ty()));
    }
    // Our reader reads back what it printed.
    let m = read_module("constants.ll", &text).unwrap_or_else(|e| panic!("{}", e.render(false)));
    assert_eq!(m.functions.len(), values.len());
    let Some(out) = round_trip_llvm(&text, "constants") else {
        return;
    };
    let rets: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("ret "))
        .collect();
    assert_eq!(rets.len(), values.len());
    for (v, r) in values.iter().zip(rets) {
        assert_eq!(v.to_string(), r, "llvm-dis prints {v:?} as `{r}`");
    }
}
