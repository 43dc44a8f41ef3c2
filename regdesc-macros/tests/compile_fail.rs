//! `regdesc!` at compile time: each file in `ui/` is compiled by trybuild.
//! The `pass_*` files must build and run (their `main` asserts on the
//! tables); every other file must fail with the message its `.stderr`
//! snapshot holds, at the span it shows. `TRYBUILD=overwrite` refreshes
//! the snapshots.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass_*.rs");
    t.compile_fail("tests/ui/fail_*.rs");
}
