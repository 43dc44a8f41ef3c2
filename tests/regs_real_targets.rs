//! Dump parity on real LLVM target register files, when a local corpus is
//! available: `REGDESC_LLVM_REAL` (default `/work/llvm-real`) holding one
//! directory per target with a `wrap.td` (Target.td + stubs + the target's
//! register file). Nothing of LLVM's is in this repository; without the
//! corpus the test skips. Targets llvm-tblgen 14 rejects are skipped.

#[path = "regs_common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};

use regdesc_core::lanes::{LaneMode, Lanes};
use regdesc_core::regs::{dump::debug_dump, RegBank};
use regdesc_core::syntax::{self, LoadOptions};
use regdesc_core::{eval, prelude};

fn wraps(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && p.file_name().is_none_or(|n| n != "_raw") {
                dirs.push(p);
            } else if p.file_name().is_some_and(|n| n == "wrap.td") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn real_targets_dump_like_llvm_tblgen() {
    let root = PathBuf::from(
        std::env::var("REGDESC_LLVM_REAL").unwrap_or_else(|_| "/work/llvm-real".into()),
    );
    if !root.is_dir() {
        eprintln!("no real-target corpus at {}: skipped", root.display());
        return;
    }
    let Some(tool) = common::oracle() else {
        eprintln!("llvm-tblgen not on PATH: skipped");
        return;
    };
    let mut failures = Vec::new();
    let mut compared = 0;
    for wrap in wraps(&root) {
        let dir = wrap.parent().unwrap().to_path_buf();
        let (ok, _, stderr) = common::tblgen(
            &tool,
            &[
                "-gen-register-info",
                "-register-info-debug",
                "-o",
                "/dev/null",
            ],
            &wrap,
            &[common::llvm_include(), dir.clone()],
        );
        if !ok {
            continue;
        }
        let (_, expected) = common::split_warnings(&stderr);
        for incs in [vec![common::llvm_include(), dir.clone()], vec![dir.clone()]] {
            let opts = LoadOptions {
                include_dirs: incs,
                defines: Vec::new(),
                builtin_files: prelude::builtin_files(),
            };
            let got = syntax::load_file(&wrap, &opts)
                .map_err(|(_, d)| format!("load: {d:?}"))
                .and_then(|l| eval::evaluate(&l).map_err(|d| format!("eval: {d:?}")))
                .and_then(|o| RegBank::build(&o.records).map_err(|e| format!("bank: {e}")))
                .map(|b| debug_dump(&b, &Lanes::compute(&b, LaneMode::Llvm)));
            match got {
                Ok(g) if g == expected => {}
                Ok(_) => failures.push(format!("{}: dump differs", dir.display())),
                Err(e) => failures.push(format!(
                    "{}: {}",
                    dir.display(),
                    e.chars().take(400).collect::<String>()
                )),
            }
        }
        compared += 1;
    }
    eprintln!("{compared} real targets compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
