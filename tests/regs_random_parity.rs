//! Dump parity with llvm-tblgen on random register files (tuples, tuples of
//! tuples, halves, artificial registers, aliases, composed indices, set
//! operators). Files llvm-tblgen rejects or crashes on are skipped.

#[path = "regs_common/mod.rs"]
mod common;
#[path = "regs_common/gen.rs"]
mod gen;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use regdesc_core::lanes::{LaneMode, Lanes};
use regdesc_core::regs::{dump::debug_dump, RegBank};
use regdesc_core::syntax::{self, LoadOptions};
use regdesc_core::{eval, prelude};

#[test]
fn random_files_dump_like_llvm_tblgen() {
    let Some(tool) = common::oracle() else {
        eprintln!("llvm-tblgen not on PATH: skipped");
        return;
    };
    let dir = std::env::temp_dir().join(format!("regdesc-random-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut runner = TestRunner::new(Config {
        cases: std::env::var("REGDESC_RANDOM_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(40),
        failure_persistence: None,
        ..Config::default()
    });
    let compared = std::cell::Cell::new(0u32);
    let result = runner.run(&gen::spec(), |s| {
        let text = gen::td(&s);
        let file = dir.join("random.td");
        std::fs::write(&file, &text).unwrap();
        std::env::set_var("REGDESC_TBLGEN_TIMEOUT", "20");
        let (ok, _, stderr) = common::tblgen(
            &tool,
            &[
                "-gen-register-info",
                "-register-info-debug",
                "-o",
                "/dev/null",
            ],
            &file,
            &[common::llvm_include()],
        );
        let opts = LoadOptions {
            include_dirs: Vec::new(),
            defines: Vec::new(),
            builtin_files: prelude::builtin_files(),
        };
        let loaded = syntax::load_str("random.td", &text, &opts)
            .map_err(|(_, d)| TestCaseError::fail(format!("{d:?}")))?;
        let out = eval::evaluate(&loaded).map_err(|d| TestCaseError::fail(format!("{d:?}")))?;
        let bank = RegBank::build(&out.records);
        if !ok {
            // llvm-tblgen rejected it: regdesc must reject it too unless
            // llvm-tblgen crashed or ran out of lanes.
            if stderr.contains("error:") && !stderr.contains("Ran out of lanemask bits") {
                prop_assert!(
                    bank.is_err(),
                    "llvm-tblgen rejected, regdesc accepted:\n{stderr}\n{text}"
                );
            }
            return Ok(());
        }
        let bank = bank.map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let (warnings, expected) = common::split_warnings(&stderr);
        let got = debug_dump(&bank, &Lanes::compute(&bank, LaneMode::Llvm));
        if got != expected {
            let _ = std::fs::write(dir.join("expected.txt"), &expected);
            let _ = std::fs::write(dir.join("got.txt"), &got);
        }
        prop_assert!(got == expected, "dump differs ({}):\n{text}", dir.display());
        prop_assert_eq!(bank.warnings(), warnings);
        compared.set(compared.get() + 1);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        compared.get() >= 10,
        "only {} files compared",
        compared.get()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
