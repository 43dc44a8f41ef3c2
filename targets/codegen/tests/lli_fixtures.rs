//! The interpreter against `lli-14` on every `; RUN:` line of the
//! hand-written fixtures (`tests/fixtures/*.ll`): wide integers, phis in
//! loops, `i16`/`half` bit tricks, kernels over global memory.

#[path = "support/mod.rs"]
mod support;

#[test]
fn fixtures_match_lli() {
    let files = support::ll_files("tests/fixtures");
    assert!(files.len() >= 10, "fixtures missing: {files:?}");
    let cases: Vec<_> = files
        .iter()
        .flat_map(|f| support::fixture_cases(f))
        .collect();
    assert!(cases.len() >= 40, "only {} RUN lines", cases.len());
    // Every case must run in the interpreter, oracle or not.
    for c in &cases {
        if let Err(e) = support::interp_output(c) {
            panic!("{}: {e}", c.name);
        }
    }
    let Some(lli) = support::lli() else { return };
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| support::compare(&lli, c).err())
        .collect();
    eprintln!("compared {} fixture runs with lli-14", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
