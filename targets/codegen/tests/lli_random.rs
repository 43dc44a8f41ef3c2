//! The interpreter against `lli-14` on random programs of the subset
//! (`support/gen.rs`): straight-line functions and counted loops with phis
//! and a diamond. 64 cases of each by default (about 5 s with lli);
//! `REGDESC_PROPTEST_CASES=N` runs N of each.

#[path = "support/mod.rs"]
mod support;

use proptest::prelude::*;
use regdesc_codegen::interp::Launch;
use support::gen::{self, Gen};

fn case(
    name: &str,
    text: String,
    params: &[regdesc_codegen::ir::types::Type],
    seed: u64,
    lanes: u32,
) -> support::Case {
    let mut launch = Launch::lanes(lanes, gen::random_args(seed, params, lanes));
    launch.first_workitem = (seed % 61) as u32;
    support::Case {
        name: name.to_string(),
        text,
        func: "f".to_string(),
        launch,
        memory: gen::random_memory(seed),
    }
}

fn check(c: &support::Case) -> Result<(), TestCaseError> {
    // The generated programs are valid and poison-free: the interpreter
    // must run them, with or without lli.
    if let Err(e) = support::interp_output(c) {
        return Err(TestCaseError::fail(format!("{}: {e}\n{}", c.name, c.text)));
    }
    match support::lli() {
        Some(lli) => support::compare(&lli, c).map_err(TestCaseError::fail),
        None => Ok(()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: support::proptest_cases(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn straight_line_programs_match_lli(seed in any::<u64>(), size in 1usize..40, lanes in 1u32..3) {
        let (text, params) = Gen::straight(seed, size);
        check(&case("straight", text, &params, seed, lanes))?;
    }

    #[test]
    fn loop_programs_match_lli(seed in any::<u64>(), size in 1usize..40, lanes in 1u32..3) {
        let (text, params) = Gen::looped(seed, size);
        check(&case("loop", text, &params, seed, lanes))?;
    }
}

/// Prints one generated program: `SEED=.. SIZE=.. KIND=straight|loop cargo test --test lli_random dump -- --ignored --nocapture`.
#[test]
#[ignore]
fn dump() {
    let var = |k: &str| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let (seed, size) = (var("SEED"), var("SIZE") as usize);
    let lanes = var("LANES").max(1) as u32;
    let (text, params) = if std::env::var("KIND").is_ok_and(|k| k == "loop") {
        Gen::looped(seed, size)
    } else {
        Gen::straight(seed, size)
    };
    println!("{text}");
    if let Some(lli) = support::lli() {
        let c = case("dump", text, &params, seed, lanes);
        println!("{:?}", support::compare(&lli, &c).err());
    }
}
