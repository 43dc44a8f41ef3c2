//! `regdesc check`: figures on the examples, JSON shape, and one snapshot per
//! diagnostic kind (rendered without color).

use std::path::Path;

use regdesc_core::check::{CheckOptions, CheckReport};
use regdesc_core::driver::{self, Input};
use regdesc_core::lanes::LaneMode;
use regdesc_core::source::SourceMap;

fn run(file: &str, mode: LaneMode, lane_bits: u32) -> (CheckReport, SourceMap) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let run = driver::check(
        &Input::file(path),
        &CheckOptions {
            mode,
            lane_bits,
            ..Default::default()
        },
    );
    assert!(
        run.records.is_some(),
        "{file} did not evaluate:\n{}",
        run.render(false)
    );
    let report = run.check.expect("check always reports");
    (report, run.sources)
}

/// Summary plus rendered diagnostics, with the absolute path made relative.
fn rendered(file: &str, mode: LaneMode) -> String {
    let (report, sources) = run(file, mode, 64);
    let mut text = report.render_summary();
    text.push_str(&regdesc_core::diag::render(
        &sources,
        &report.diagnostics,
        false,
    ));
    text.replace(env!("CARGO_MANIFEST_DIR"), "")
        .replace("\\", "/")
}

fn codes(r: &CheckReport) -> Vec<&'static str> {
    r.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn intel_grf_figures() {
    let (r, _) = run("examples/intel_grf.td", LaneMode::Coverage, 64);
    let s = r.summary.clone().unwrap();
    assert_eq!((s.lanes_llvm, s.lanes_coverage), (46, 32));
    assert_eq!(s.registers_defined, 2048);
    assert_eq!(s.widest_class, Some(("RegQ_SIMD8".to_string(), 32)));
    assert!(!r.has_errors());
}

#[test]
fn intel_grf_simd16_figures() {
    let (r, _) = run("examples/intel_grf_simd16.td", LaneMode::Coverage, 64);
    let s = r.summary.clone().unwrap();
    assert!(s.lanes_llvm > 64, "llvm lanes {}", s.lanes_llvm);
    assert_eq!(s.lanes_llvm, 78);
    assert_eq!(s.lanes_coverage, 64);
    assert!(!r.has_errors(), "coverage fits in 64: {:?}", codes(&r));
    let (r, _) = run("examples/intel_grf_simd16.td", LaneMode::Llvm, 64);
    assert!(r.has_errors());
    assert_eq!(codes(&r), vec!["regdesc::check::lane_budget"]);
}

#[test]
fn intel_grf_bytes_works() {
    let (r, _) = run(
        "examples/intel_grf_bytes_simd16.td",
        LaneMode::Coverage,
        128,
    );
    let s = r.summary.clone().unwrap();
    assert_eq!(s.lanes_coverage, 128);
    assert_eq!(s.lanes_llvm, 128);
    assert!(!r.has_errors());
    let (r, _) = run("examples/intel_grf_bytes_simd16.td", LaneMode::Coverage, 64);
    assert!(r.has_errors());
}

#[test]
fn json_shape() {
    let (r, sources) = run(
        "tests/fixtures/regs_check/offset_wrong_high_half.td",
        LaneMode::Coverage,
        64,
    );
    let v: serde_json::Value = serde_json::from_str(&r.to_json(&sources)).unwrap();
    for key in [
        "registers",
        "classes",
        "sub_reg_indices",
        "units",
        "lanes",
        "diagnostics",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["lanes"]["llvm"], 2);
    assert_eq!(v["lanes"]["coverage"], 2);
    let d = &v["diagnostics"][0];
    assert_eq!(d["severity"], "warning");
    assert_eq!(d["code"], "regdesc::check::offset_conflict");
    assert_eq!(d["line"], 7);
    assert_eq!(d["column"], 5);
    assert!(d["file"]
        .as_str()
        .unwrap()
        .ends_with("offset_wrong_high_half.td"));
}

#[test]
fn clean_file_has_no_diagnostics() {
    let (r, _) = run("tests/fixtures/regs_check/clean.td", LaneMode::Coverage, 64);
    assert!(r.diagnostics.is_empty(), "{:?}", codes(&r));
}

macro_rules! snap {
    ($name:ident, $file:expr, $mode:expr, $code:expr) => {
        #[test]
        fn $name() {
            let (r, _) = run($file, $mode, 64);
            assert!(codes(&r).contains(&$code), "{:?}", codes(&r));
            insta::assert_snapshot!(stringify!($name), rendered($file, $mode));
        }
    };
}

snap!(
    snap_lane_budget,
    "examples/intel_grf_simd16.td",
    LaneMode::Llvm,
    "regdesc::check::lane_budget"
);
snap!(
    snap_lane_sharing,
    "examples/intel_grf.td",
    LaneMode::Coverage,
    "regdesc::check::lane_sharing"
);
snap!(
    snap_duplicate_register,
    "tests/fixtures/regs_check/duplicate_tuples.td",
    LaneMode::Coverage,
    "regdesc::check::duplicate_register"
);
snap!(
    snap_offset_conflict,
    "tests/fixtures/regs_check/offset_wrong_high_half.td",
    LaneMode::Coverage,
    "regdesc::check::offset_conflict"
);
snap!(
    snap_offset_out_of_range,
    "tests/fixtures/regs_check/offset_out_of_range.td",
    LaneMode::Coverage,
    "regdesc::check::offset_out_of_range"
);
snap!(
    snap_offset_out_of_range_simd8_scalar_types,
    "tests/fixtures/regs_check/simd8_scalar_types.td",
    LaneMode::Coverage,
    "regdesc::check::offset_out_of_range"
);

/// Issue 18: SIMD8 tuple classes declared with scalar types (`[i64, f64],
/// 64`) have 76 indices past their declared size; `check` reports each
/// class once (with the count and the first few), not each index.
#[test]
fn out_of_range_is_one_finding_per_class() {
    let (r, _) = run(
        "tests/fixtures/regs_check/simd8_scalar_types.td",
        LaneMode::Coverage,
        64,
    );
    let found: Vec<&str> = r
        .diagnostics
        .iter()
        .filter(|d| d.code == "regdesc::check::offset_out_of_range")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].starts_with("register class RegD_SIMD8 declares 32-bit registers, but 25 "));
    assert!(found[1].starts_with("register class RegQ_SIMD8 declares 64-bit registers, but 51 "));
}

/// `allow` silences a lint (counted in the summary), `deny` makes its
/// warnings errors.
#[test]
fn allow_and_deny() {
    let file = "tests/fixtures/regs_check/class_size_mismatch.td";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let opts = |allow: &[&str], deny: &[&str]| CheckOptions {
        allow: allow.iter().map(|s| s.to_string()).collect(),
        deny: deny.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let run = driver::check(&Input::file(&path), &opts(&["class_size_mismatch"], &[]));
    let report = run.check.as_ref().unwrap();
    assert!(report.diagnostics.is_empty(), "{:?}", codes(report));
    assert_eq!(report.allowed.len(), 1);
    assert!(!run.has_errors());
    let run = driver::check(
        &Input::file(&path),
        &opts(&[], &["regdesc::check::class_size_mismatch"]),
    );
    assert!(run.has_errors());
    assert!(run.check.unwrap().diagnostics[0].is_error());
}

snap!(
    snap_ambiguous_composition,
    "tests/fixtures/regs_check/ambiguous_composition.td",
    LaneMode::Coverage,
    "regdesc::check::ambiguous_composition"
);
snap!(
    snap_class_size_mismatch,
    "tests/fixtures/regs_check/class_size_mismatch.td",
    LaneMode::Coverage,
    "regdesc::check::class_size_mismatch"
);
snap!(
    snap_unused_index,
    "tests/fixtures/regs_check/unused_index.td",
    LaneMode::Coverage,
    "regdesc::check::unused_index"
);

/// Issue 6: a file declaring `subd0..subd15` whose SIMD8 tuples use only
/// `subd0..subd7`. Unused indices take no coverage lane.
#[test]
fn unused_indices_take_no_coverage_lane() {
    let file = "tests/fixtures/regs_check/unused_simd_indices.td";
    let (r, _) = run(file, LaneMode::Coverage, 64);
    let s = r.summary.clone().unwrap();
    assert_eq!(s.lanes_coverage, 64);
    assert!(!r.has_errors(), "{:?}", codes(&r));
    let warnings: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.severity == regdesc_core::diag::Severity::Warning)
        .collect();
    assert_eq!(warnings.len(), 1, "{:?}", codes(&r));
    assert_eq!(warnings[0].code, "regdesc::check::unused_index");
    for i in 8..16 {
        assert!(
            warnings[0].message.contains(&format!("subd{i}")),
            "{}",
            warnings[0].message
        );
    }
    // LLVM gives them lanes: over budget, and they are the first cause.
    let (r, _) = run(file, LaneMode::Llvm, 64);
    assert!(r.has_errors());
    let budget = r
        .diagnostics
        .iter()
        .find(|d| d.code == "regdesc::check::lane_budget")
        .expect("lane budget error");
    let help = budget.help.as_deref().unwrap_or("");
    let first_cause = help.lines().find(|l| l.trim_start().starts_with("- "));
    assert!(
        first_cause.is_some_and(|l| l.contains("no register uses") && l.contains("subd8")),
        "{help}"
    );
    insta::assert_snapshot!(
        "unused_simd_indices_coverage",
        rendered(file, LaneMode::Coverage)
    );
    insta::assert_snapshot!("unused_simd_indices_llvm", rendered(file, LaneMode::Llvm));
}

#[test]
fn shared_units_are_not_duplicate_registers() {
    // RAX-over-EAX and W/X sequence pairs share units but are distinct
    // registers; llvm-tblgen accepts them, so `check` must not report them.
    let (r, _) = run(
        "tests/fixtures/regs_check/shared_units_not_duplicates.td",
        LaneMode::Coverage,
        64,
    );
    assert!(
        !codes(&r).contains(&"regdesc::check::duplicate_register"),
        "{:?}",
        codes(&r)
    );
    assert!(
        !codes(&r).contains(&"regdesc::check::class_size_mismatch"),
        "{:?}",
        codes(&r)
    );
}
