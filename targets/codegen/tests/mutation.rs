//! Mutated fixtures (tokens deleted, duplicated, swapped) never make the
//! reader, verifier, printer, uniformity analysis or interpreter panic or
//! hang: every input is either accepted and runs (within a step limit) or
//! gets located errors. 64 cases by default; `REGDESC_PROPTEST_CASES=N`.

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use proptest::prelude::*;
use regdesc_codegen::interp::{self, GlobalMemory, LaneArg, Launch};
use regdesc_codegen::ir::print::module_text;
use regdesc_codegen::uniformity::{report::report, Uniformity};
use regdesc_codegen::value::Value;

/// The fixture texts, split into tokens: runs of name characters, single
/// punctuation characters, and runs of blanks.
fn corpus() -> Vec<Vec<String>> {
    let mut files = support::ll_files("tests/fixtures");
    files.extend(support::ll_files("tests/bad"));
    files
        .iter()
        .map(|p| tokens(&std::fs::read_to_string(p).unwrap_or_default()))
        .collect()
}

fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let class = |c: char| {
        if c.is_alphanumeric() || "%@_.-$".contains(c) {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    for c in text.chars() {
        match out.last_mut() {
            Some(last) if class(c) != 2 && last.chars().last().map(class) == Some(class(c)) => {
                last.push(c)
            }
            _ => out.push(c.to_string()),
        }
    }
    out
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize),
}

fn mutate(tokens: &[String], muts: &[Mutation]) -> String {
    let mut t = tokens.to_vec();
    for m in muts {
        if t.is_empty() {
            break;
        }
        match *m {
            Mutation::Delete(i) => {
                t.remove(i % t.len());
            }
            Mutation::Duplicate(i) => {
                let i = i % t.len();
                let dup = t[i].clone();
                t.insert(i, dup);
            }
            Mutation::Swap(i) => {
                let i = i % t.len();
                let j = (i + 1) % t.len();
                t.swap(i, j);
            }
        }
    }
    t.concat()
}

/// Everything a tool does with a module, on one input.
fn exercise(text: &str) {
    let Ok(m) = regdesc_codegen::read_module("mutant.ll", text) else {
        return;
    };
    let printed = module_text(&m);
    assert!(
        regdesc_codegen::read_module("printed.ll", &printed).is_ok(),
        "the printed form of an accepted module does not read back:\n{printed}"
    );
    for f in &m.functions {
        let u = Uniformity::analyze(f);
        let _ = report(f, &u);
        let args = f
            .params
            .iter()
            .map(|p| LaneArg::Uniform(Value::zero(f.value(*p).ty).unwrap_or(Value::Ptr(0))))
            .collect();
        let mut launch = Launch::lanes(2, args);
        launch.max_steps = 20_000;
        let mut mem = GlobalMemory::new(256);
        let _ = interp::run(f, &launch, &mut mem);
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        any::<usize>().prop_map(Mutation::Swap),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: support::proptest_cases(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_fixtures_never_panic_or_hang(
        file in any::<usize>(),
        muts in prop::collection::vec(mutation(), 1..6),
    ) {
        let corpus = corpus();
        let text = mutate(&corpus[file % corpus.len()], &muts);
        let start = Instant::now();
        exercise(&text);
        prop_assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
    }
}

#[test]
fn every_single_token_deletion_of_a_fixture_is_handled() {
    // Exhaustive over one small fixture: no panic whichever token goes.
    let path = support::manifest_dir().join("tests/fixtures/sdwa_hi_f16.ll");
    let toks = tokens(&std::fs::read_to_string(path).unwrap_or_default());
    for i in 0..toks.len() {
        exercise(&mutate(&toks, &[Mutation::Delete(i)]));
    }
}
