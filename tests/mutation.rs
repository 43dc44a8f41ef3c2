//! Robustness: mutated pass fixtures must never make the front end panic
//! or hang. Each case takes a pass fixture, splits it crudely into tokens,
//! deletes, duplicates or swaps tokens, then loads, evaluates and renders
//! diagnostics in-process, in a thread of its own with a time limit.
//! Errors are fine; panics and hangs are failures.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::Duration;

use proptest::prelude::*;
use regdesc_core::check::CheckOptions;
use regdesc_core::driver::{self, Input, Prelude, Source};

/// How long one mutated input may take to go through every stage and render.
const CASE_LIMIT: Duration = Duration::from_secs(5);

/// A pass fixture cut into tokens: runs of identifier characters, runs of
/// whitespace, and single other characters. Joining them gives the text back.
struct Seed {
    name: String,
    tokens: Vec<String>,
    /// Indices of the tokens that are not whitespace (the ones mutated).
    solid: Vec<usize>,
    include_dirs: Vec<PathBuf>,
    defines: Vec<String>,
}

fn tokenize(text: &str) -> Vec<String> {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Word,
        Space,
        Other,
    }
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            Class::Word
        } else if c.is_whitespace() {
            Class::Space
        } else {
            Class::Other
        }
    };
    let mut tokens: Vec<String> = Vec::new();
    let mut last = None;
    for c in text.chars() {
        let k = class(c);
        match tokens.last_mut() {
            Some(t) if k != Class::Other && last == Some(k) => t.push(c),
            _ => tokens.push(c.to_string()),
        }
        last = Some(k);
    }
    tokens
}

/// The pass fixtures usable in-process without LLVM's own files.
fn seeds() -> &'static [Seed] {
    static SEEDS: OnceLock<Vec<Seed>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        common::fixtures("tests/fixtures/pass")
            .into_iter()
            .filter(|f| !f.needs_llvm_include())
            .map(|f| {
                let (include_dirs, defines) = f.include_dirs_and_defines(None);
                let include_dirs = include_dirs
                    .into_iter()
                    .map(|d| common::repo_root().join(d))
                    .collect();
                let tokens = tokenize(&f.text);
                let solid = (0..tokens.len())
                    .filter(|&i| !tokens[i].trim().is_empty())
                    .collect();
                Seed {
                    name: f.path.to_string_lossy().into_owned(),
                    tokens,
                    solid,
                    include_dirs,
                    defines,
                }
            })
            .collect()
    })
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
    ]
}

/// Applies the mutations (indices taken modulo the number of solid tokens).
fn mutate(seed: &Seed, mutations: &[Mutation]) -> String {
    let mut tokens = seed.tokens.clone();
    let mut solid = seed.solid.clone();
    for m in mutations {
        if solid.is_empty() {
            break;
        }
        let pick = |i: usize| solid[i % solid.len()];
        match *m {
            Mutation::Delete(i) => {
                let at = pick(i);
                tokens[at].clear();
                solid.retain(|&s| s != at);
            }
            Mutation::Duplicate(i) => {
                let at = pick(i);
                let copy = tokens[at].clone();
                tokens[at].push_str(&copy);
            }
            Mutation::Swap(a, b) => {
                let (a, b) = (pick(a), pick(b));
                tokens.swap(a, b);
            }
        }
    }
    tokens.concat()
}

/// Runs every stage of `regdesc check` on `text` and renders the results;
/// `Err` on a panic or a hang.
fn run_front_end(seed: &Seed, text: String) -> Result<(), String> {
    let mut input = Input::new(Source::Text {
        // Loaded under the fixture's own name, as if it were the file.
        name: seed.name.clone(),
        text,
    });
    input.include_dirs = seed.include_dirs.clone();
    input.defines = seed.defines.clone();
    input.prelude = Prelude::Off;
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                // Every stage, as `regdesc check` runs it, then the outputs.
                let run = driver::check(&input, &CheckOptions::default());
                let _ = run.render(false);
                let _ = run.render(true);
                if let Some(report) = &run.check {
                    let _ = report.to_json(&run.sources);
                }
                if let Some(records) = &run.records {
                    let _ = regdesc_core::llvm_format::print_records(records);
                }
            }));
            let _ = tx.send(outcome.is_ok());
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    match rx.recv_timeout(CASE_LIMIT) {
        Ok(true) => Ok(()),
        Ok(false) => Err("the front end panicked (message above)".into()),
        Err(_) => Err(format!(
            "the front end did not finish within {CASE_LIMIT:?}"
        )),
    }
}

proptest! {
    // 256 cases by default; PROPTEST_CASES=N for a longer hunt.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        max_shrink_iters: 256,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_fixtures_never_panic_or_hang(
        which in any::<usize>(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let seeds = seeds();
        prop_assert!(!seeds.is_empty(), "no pass fixtures found");
        let seed = &seeds[which % seeds.len()];
        let text = mutate(seed, &mutations);
        if let Err(e) = run_front_end(seed, text.clone()) {
            prop_assert!(false, "{} mutated by {:?}: {}\n--- input ---\n{}", seed.name, mutations, e, text);
        }
    }
}

#[test]
fn tokenizer_round_trips_every_fixture() {
    for seed in seeds() {
        let original = std::fs::read_to_string(common::repo_root().join(&seed.name)).unwrap();
        assert_eq!(seed.tokens.concat(), original, "{}", seed.name);
        assert!(!seed.solid.is_empty(), "{}", seed.name);
    }
}
