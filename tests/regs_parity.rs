//! Dump parity: `regdesc dump --lanes llvm` against llvm-tblgen 14's
//! `-gen-register-info -register-info-debug` (stderr) on the register corpus
//! (`tests/fixtures/regs`) and the examples, with the real Target.td and with
//! regdesc's built-in prelude.

#[path = "regs_common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};

use regdesc_core::lanes::{LaneMode, Lanes};
use regdesc_core::regs::{dump::debug_dump, RegBank};
use regdesc_core::syntax::{self, LoadOptions};
use regdesc_core::{eval, prelude};

/// (stdout dump, warnings) through the real pipeline.
fn regdesc_dump(file: &Path, includes: Vec<PathBuf>) -> Result<(String, Vec<String>), String> {
    let opts = LoadOptions {
        include_dirs: includes,
        defines: Vec::new(),
        builtin_files: prelude::builtin_files(),
    };
    let loaded = syntax::load_file(file, &opts).map_err(|(_, d)| format!("load: {d:?}"))?;
    let out = eval::evaluate(&loaded).map_err(|d| format!("eval: {d:?}"))?;
    let bank = RegBank::build(&out.records).map_err(|e| format!("bank: {e}"))?;
    let lanes = Lanes::compute(&bank, LaneMode::Llvm);
    Ok((debug_dump(&bank, &lanes), bank.warnings()))
}

fn check_file(tool: &Path, file: &Path) -> Result<(), String> {
    let dir = file.parent().unwrap().to_path_buf();
    let (ok, _, stderr) = common::tblgen(
        tool,
        &[
            "-gen-register-info",
            "-register-info-debug",
            "-o",
            "/dev/null",
        ],
        file,
        &[common::llvm_include(), dir.clone()],
    );
    if !ok {
        return Err(format!(
            "llvm-tblgen failed on {}:\n{stderr}",
            file.display()
        ));
    }
    let (warnings, expected) = common::split_warnings(&stderr);
    for (what, incs) in [
        ("Target.td", vec![common::llvm_include(), dir.clone()]),
        ("prelude", vec![dir.clone()]),
    ] {
        let (got, got_warnings) =
            regdesc_dump(file, incs).map_err(|e| format!("{}: {e}", file.display()))?;
        if got != expected {
            let tmp = std::env::temp_dir().join("regdesc-parity");
            let _ = std::fs::create_dir_all(&tmp);
            let stem = file.file_stem().unwrap().to_string_lossy().to_string();
            let _ = std::fs::write(tmp.join(format!("{stem}.expected")), &expected);
            let _ = std::fs::write(tmp.join(format!("{stem}.{what}.got")), &got);
            return Err(format!(
                "{} ({what}): dump differs (see {}/{stem}.*)",
                file.display(),
                tmp.display()
            ));
        }
        if got_warnings != warnings {
            return Err(format!(
                "{} ({what}): warnings differ:\nexpected {warnings:?}\ngot {got_warnings:?}",
                file.display()
            ));
        }
    }
    Ok(())
}

#[test]
fn corpus_dump_parity() {
    let Some(tool) = common::oracle() else {
        eprintln!("llvm-tblgen not on PATH: skipped");
        return;
    };
    let mut failures = Vec::new();
    let mut n = 0;
    for dir in ["tests/fixtures/regs", "examples"] {
        for f in common::fixtures(&common::manifest_dir().join(dir)) {
            // Files past LLVM's 64 lanes make llvm-tblgen fail: not parity material.
            if f.to_string_lossy().contains("simd16") {
                continue;
            }
            n += 1;
            if let Err(e) = check_file(&tool, &f) {
                failures.push(e);
            }
        }
    }
    assert!(n >= 19, "corpus too small: {n}");
    assert!(
        failures.is_empty(),
        "{} of {n} files differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
