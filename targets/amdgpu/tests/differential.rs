//! The AMD back end against the reference interpreter: every function of
//! `targets/codegen/tests/fixtures/*.ll` and of
//! `../shared/bench/amdgpu/ll/*.ll` that the back end compiles, at stage
//! `final`, for gfx900 and gfx90a (64 lanes) and gfx1030 (32 lanes), on
//! `REGDESC_PROPTEST_CASES` random inputs per function and CPU (300 by
//! default, 10,000 for the acceptance run). A mismatch prints the
//! `regdesc-cc run` command that reproduces it. Functions the back end
//! does not compile must fail with the `Unsupported` error that
//! `common::UNSUPPORTED` names.

mod common;

use std::path::Path;

use regdesc_codegen::differential::{compare, DiffConfig, DiffError};
use regdesc_codegen::pipeline::{PipelineError, Stage};
use regdesc_codegen::target::TargetError;

fn inputs() -> usize {
    std::env::var("REGDESC_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

fn run_dir(dir: &Path, required: bool) {
    let fns = common::functions(dir, required);
    let n = inputs();
    for gfx in common::CPUS {
        let t = common::target(gfx);
        let (mut total, mut compiled, mut refused) = (0, 0, 0);
        for (path, f) in &fns {
            let cfg = DiffConfig {
                stage: Stage::Final,
                lanes: t.wave_size(),
                inputs: n,
                seed: 0xa3d ^ u64::from(t.wave_size()),
                file: path.display().to_string(),
            };
            match (compare(&t, f, &cfg), common::expected_unsupported(f)) {
                (Ok(r), None) => {
                    total += r.compared;
                    compiled += 1;
                }
                (Ok(_), Some(why)) => panic!(
                    "@{} compiles for {} now: remove it from UNSUPPORTED ({why})",
                    f.name,
                    t.cpu()
                ),
                (
                    Err(DiffError::Compile(PipelineError::Target {
                        error: TargetError::Unsupported { what, .. },
                        ..
                    })),
                    Some(why),
                )
                | (
                    Err(DiffError::Compile(PipelineError::Legalize(
                        regdesc_codegen::legalize::LegalizeError::Target(
                            TargetError::Unsupported { what, .. },
                        ),
                    ))),
                    Some(why),
                ) => {
                    assert!(what.contains(why), "@{}: {what} (expected: {why})", f.name);
                    refused += 1;
                }
                (Err(e), _) => panic!("@{} on {}: {e}", f.name, t.cpu()),
            }
        }
        println!(
            "{}: {compiled} functions, {total} lanes compared, 0 mismatches; {refused} unsupported",
            t.cpu()
        );
    }
}

#[test]
fn fixtures_match_the_interpreter() {
    run_dir(&common::fixtures_dir(), true);
}

#[test]
fn amdgpu_bench_functions_match_the_interpreter() {
    run_dir(&common::bench_dir(), false);
}

#[test]
fn extra_functions_match_the_interpreter() {
    run_dir(&common::extra_dir(), true);
}
