//! ref32 against the reference interpreter: every function of
//! `targets/codegen/tests/fixtures/*.ll` and of `../shared/bench/amdgpu/ll/*.ll`,
//! compiled up to `legalize`, `alloc` and `final`, on random inputs at 1, 8
//! and 16 lanes (`REGDESC_PROPTEST_CASES` inputs per function, stage and
//! lane count; 300 by default, 10,000 for the acceptance run). A mismatch
//! prints the `regdesc-cc run` command that reproduces it.

use std::path::{Path, PathBuf};

use regdesc_codegen::differential::{compare, DiffConfig};
use regdesc_codegen::pipeline::Stage;
use regdesc_codegen::read_module;
use regdesc_ref32::Ref32;

fn inputs() -> usize {
    std::env::var("REGDESC_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "ll"));
    v.sort();
    v
}

fn run_dir(dir: &Path, required: bool) {
    let list = files(dir);
    if list.is_empty() {
        if required || std::env::var_os("REGDESC_REQUIRE_ORACLES").is_some() {
            panic!("no .ll files in {}", dir.display());
        }
        println!("SKIPPED: no .ll files in {}", dir.display());
        return;
    }
    let target = Ref32::new();
    let n = inputs();
    let mut total = 0;
    let mut functions = 0;
    for path in list {
        let text = std::fs::read_to_string(&path).expect("readable fixture");
        let m = read_module(&path.display().to_string(), &text)
            .unwrap_or_else(|d| panic!("{}", d.render(false)));
        for f in &m.functions {
            functions += 1;
            for stage in [Stage::Legalize, Stage::Alloc, Stage::Final] {
                for lanes in [1, 8, 16] {
                    let cfg = DiffConfig {
                        stage,
                        lanes,
                        inputs: n,
                        seed: 0x5eed ^ u64::from(lanes),
                        file: path.display().to_string(),
                    };
                    match compare(&target, f, &cfg) {
                        Ok(r) => total += r.compared,
                        Err(e) => panic!("@{} at {stage}, {lanes} lanes: {e}", f.name),
                    }
                }
            }
        }
    }
    println!("{functions} functions, {total} lanes compared, 0 mismatches");
}

#[test]
fn fixtures_match_the_interpreter() {
    run_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/tests/fixtures"),
        true,
    );
}

#[test]
fn amdgpu_bench_functions_match_the_interpreter() {
    run_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/amdgpu/ll"),
        false,
    );
}
