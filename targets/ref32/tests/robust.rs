//! The pipeline never panics: every fixture, mutated line by line (a line
//! dropped, a width changed), is either rejected by the reader with a
//! located error or compiled for ref32 and run, each step ending in a
//! result or an error value.

use std::path::Path;

use regdesc_codegen::differential::{compare, DiffConfig};
use regdesc_codegen::pipeline::{compile_function, Options, Stage};
use regdesc_codegen::read_module;
use regdesc_ref32::Ref32;

fn mutants(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for k in 0..lines.len() {
        let mut v = lines.clone();
        v.remove(k);
        out.push(v.join("\n"));
        for (from, to) in [
            ("i32", "i17"),
            ("i64", "i96"),
            ("i128", "i192"),
            ("i16", "i8"),
        ] {
            if lines[k].contains(from) {
                let mut v = lines.clone();
                let changed = lines[k].replace(from, to);
                v[k] = &changed;
                out.push(v.join("\n"));
            }
        }
    }
    out
}

#[test]
fn mutated_fixtures_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/tests/fixtures");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == "ll"));
    paths.sort();
    assert!(!paths.is_empty());
    let target = Ref32::new();
    let (mut compiled, mut rejected) = (0, 0);
    for p in paths {
        let text = std::fs::read_to_string(&p).expect("fixture");
        for m in mutants(&text) {
            let Ok(module) = read_module("mutant.ll", &m) else {
                rejected += 1;
                continue;
            };
            for f in &module.functions {
                let opts = Options {
                    verify_each: true,
                    ..Options::default()
                };
                if compile_function(f, &target, &opts).is_ok() {
                    compiled += 1;
                    let cfg = DiffConfig {
                        stage: Stage::Final,
                        lanes: 2,
                        inputs: 4,
                        seed: 3,
                        file: "mutant.ll".into(),
                    };
                    // Mutants are real programs: machine code must still
                    // agree with the interpreter.
                    if let Err(e) = compare(&target, f, &cfg) {
                        panic!("@{} of a mutant of {}: {e}\n{m}", f.name, p.display());
                    }
                }
            }
        }
    }
    println!("{compiled} functions compiled, {rejected} mutants rejected by the reader");
    assert!(compiled > 100);
}
