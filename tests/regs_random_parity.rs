//! Dump and `GenRegisterInfo.inc` parity with llvm-tblgen on random
//! register files (tuples, tuples of tuples, halves, artificial registers,
//! aliases, composed indices, set operators). Files llvm-tblgen rejects must be rejected by regdesc too,
//! unless llvm-tblgen crashed or ran out of lane-mask bits.
//!
//! llvm-tblgen 14 never finishes on some of these files (two registers
//! aliasing a third, under tuples: it keeps reweighing register units);
//! such a case is skipped after [`ORACLE_LIMIT`], and regdesc must still
//! finish on it (it runs in-process, after the oracle).

mod common;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use std::time::Duration;

use common::gen;

/// How long llvm-tblgen gets on one random file (it takes well under a
/// second when it finishes at all).
const ORACLE_LIMIT: Duration = Duration::from_secs(10);
use regdesc_core::driver::{self, Input};
use regdesc_core::lanes::LaneMode;

#[test]
fn random_files_dump_like_llvm_tblgen() {
    let (Some(tool), Some(llvm_inc)) = (common::llvm_tblgen(), common::llvm_include_dir()) else {
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
    let oracle_hung = std::cell::Cell::new(0u32);
    let result = runner.run(&gen::spec(), |s| {
        let text = gen::td(&s);
        let file = dir.join("random.td");
        std::fs::write(&file, &text).unwrap();
        let oracle = common::tblgen_register_info_within(
            &tool,
            &file,
            std::slice::from_ref(&llvm_inc),
            ORACLE_LIMIT,
        );
        let run = driver::bank(&Input::text("random.td", text.clone()), LaneMode::Llvm);
        let (ok, stderr, inc) = match oracle {
            Ok(answer) => answer,
            Err(e) if common::is_timeout(&e) => {
                oracle_hung.set(oracle_hung.get() + 1);
                return Ok(());
            }
            Err(e) => return Err(TestCaseError::fail(e)),
        };
        if !ok {
            // llvm-tblgen rejected it: regdesc must reject it too unless
            // llvm-tblgen crashed or ran out of lanes.
            if stderr.contains("error:") && !stderr.contains("Ran out of lanemask bits") {
                prop_assert!(
                    run.failed.is_some(),
                    "llvm-tblgen rejected, regdesc accepted:\n{stderr}\n{text}"
                );
            }
            return Ok(());
        }
        let got = run
            .register_info_debug()
            .ok_or_else(|| TestCaseError::fail(format!("{}\n{text}", run.render(false))))?;
        if got != stderr {
            let _ = std::fs::write(dir.join("expected.txt"), &stderr);
            let _ = std::fs::write(dir.join("got.txt"), &got);
        }
        prop_assert!(got == stderr, "dump differs ({}):\n{text}", dir.display());
        let (Some(rk), Some(bank), Some(lanes)) = (&run.records, &run.bank, &run.lanes) else {
            return Err(TestCaseError::fail("no bank"));
        };
        let ours = regdesc_core::llvm_format::register_info_inc(rk, bank, lanes)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        // The pressure functions are held to llvm-tblgen by
        // tests/pressure_sets.rs; here the rest of the file must match.
        let (ours, inc) = (without_pressure(&ours), without_pressure(&inc));
        if ours != inc {
            let _ = std::fs::write(dir.join("expected.inc"), &inc);
            let _ = std::fs::write(dir.join("got.inc"), &ours);
        }
        prop_assert!(ours == inc, ".inc differs ({}):\n{text}", dir.display());
        compared.set(compared.get() + 1);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "{} files compared, {} skipped: llvm-tblgen did not finish within {ORACLE_LIMIT:?}",
        compared.get(),
        oracle_hung.get()
    );
    assert!(
        compared.get() >= 10,
        "only {} files compared",
        compared.get()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `GenRegisterInfo.inc` without its register pressure functions (from
/// `getRegClassWeight` to `getRegUnitPressureSets`).
fn without_pressure(inc: &str) -> String {
    let start = inc.find("/// Get the weight in units of pressure for this register class.");
    let end = inc.find("/// Returns a -1 terminated array of pressure set IDs\nconst int *");
    match (start, end) {
        (Some(a), Some(b)) if a < b => {
            let after = inc[b..].find("}\n\n").map_or(inc.len(), |e| b + e);
            // Skip both pressure-set lookups: the second one ends the part.
            let after = inc[after + 3..]
                .find("}\n\n")
                .map_or(inc.len(), |e| after + 3 + e);
            format!("{}{}", &inc[..a], &inc[after..])
        }
        _ => inc.to_string(),
    }
}
