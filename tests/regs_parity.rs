//! Dump parity with llvm-tblgen's `-register-info-debug` on the corpus.

#[path = "regs_common/mod.rs"]
mod common;

use std::path::Path;

use regdesc_core::lanes::{LaneMode, Lanes};
use regdesc_core::regs::{dump::debug_dump, RegBank};

fn check_file(tool: &Path, file: &Path) -> Result<(), String> {
    let inc = vec![common::llvm_include(), file.parent().unwrap().to_path_buf()];
    let (ok, _, stderr) = common::tblgen(
        tool,
        &["-gen-register-info", "-register-info-debug", "-o", "/dev/null"],
        file,
        &inc,
    );
    if !ok {
        return Err(format!("llvm-tblgen failed on {}:\n{stderr}", file.display()));
    }
    let (warnings, expected) = common::split_warnings(&stderr);
    let (ok, json, err) = common::tblgen(tool, &["--dump-json"], file, &inc);
    if !ok {
        return Err(format!("dump-json failed: {err}"));
    }
    let rk = common::records_from_json(&json);
    let bank = RegBank::build(&rk).map_err(|e| format!("{}: {e}", file.display()))?;
    let lanes = Lanes::compute(&bank, LaneMode::Llvm);
    let got = debug_dump(&bank, &lanes);
    if got != expected {
        let dir = std::env::temp_dir().join("regdesc-parity");
        let _ = std::fs::create_dir_all(&dir);
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        let _ = std::fs::write(dir.join(format!("{stem}.expected")), &expected);
        let _ = std::fs::write(dir.join(format!("{stem}.got")), &got);
        return Err(format!(
            "{}: dump differs (see {}/{stem}.{{expected,got}})",
            file.display(),
            dir.display()
        ));
    }
    if bank.warnings() != warnings {
        return Err(format!(
            "{}: warnings differ:\nexpected {warnings:?}\ngot {:?}",
            file.display(),
            bank.warnings()
        ));
    }
    Ok(())
}

#[test]
fn corpus_dump_parity_via_json() {
    let Some(tool) = common::oracle() else {
        eprintln!("llvm-tblgen not on PATH: skipped");
        return;
    };
    let mut failures = Vec::new();
    let mut n = 0;
    for dir in ["tests/fixtures/regs", "examples"] {
        for f in common::fixtures(&common::manifest_dir().join(dir)) {
            n += 1;
            if let Err(e) = check_file(&tool, &f) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{} of {n} files differ:\n{}", failures.len(), failures.join("\n"));
}
