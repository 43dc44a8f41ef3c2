//! The emitted assembly against IGA (`iga64`): every function the test
//! suite compiles, for each platform and SIMD width,
//!
//! - assembles with `iga64 -a -Wall -p=9|11|12p1` with no warnings;
//! - round-trips: `iga64 -a` then `-d` gives back the same instructions;
//! - on Gen12LP, carries the SWSB annotations `iga64 -Xauto-deps` computes
//!   for the same instructions (ignoring a trailing `sync.nop`);
//! - on Gen11 and Gen12LP, has no `:q`/`:uq` operand (IGA accepts them
//!   silently there, but those platforms have no 64-bit integer ALU).
//!
//! Without `iga64` on the PATH the IGA tests skip with a message; with
//! `REGDESC_REQUIRE_ORACLES=1` that is a failure.

mod common;

use std::path::Path;
use std::process::Command;

use regdesc_intel::Platform;

fn iga_present() -> bool {
    Command::new("iga64").arg("--help").output().is_ok()
}

fn skip_or_fail() -> bool {
    if iga_present() {
        return false;
    }
    if common::require_oracles() {
        panic!("iga64 is not on the PATH and REGDESC_REQUIRE_ORACLES is set");
    }
    println!("SKIPPED: iga64 is not on the PATH (install libigc-tools)");
    true
}

/// A directory of its own for one check, removed when it is dropped.
fn tmp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("regdesc-intel-iga-")
        .tempdir()
        .expect("temp dir")
}

/// Runs iga64; (success, stdout, stderr).
fn iga(args: &[&str]) -> (bool, String, String) {
    let o = Command::new("iga64")
        .args(args)
        .output()
        .expect("iga64 runs");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Instruction lines, whitespace collapsed, labels and jump targets
/// dropped (IGA renames labels and omits `jmpi`'s execution size).
fn insts(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|l| !l.is_empty() && !l.ends_with(':'))
        .map(|l| {
            let l = l.replace(", ", ",");
            let toks: Vec<&str> = l.split_whitespace().collect();
            if let Some(k) = toks.iter().position(|t| *t == "jmpi") {
                return toks[..=k].join(" ");
            }
            toks.join(" ")
        })
        .collect()
}

/// The `{@N}` of each instruction (0 for none).
fn swsb(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            l.split('{')
                .nth(1)
                .map(|o| {
                    o.trim_end_matches('}')
                        .split(',')
                        .filter(|x| x.starts_with('@') || x.starts_with('$'))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .unwrap_or_default()
        })
        .collect()
}

fn strip_swsb(text: &str) -> String {
    text.lines()
        .map(|l| {
            let l = l.replace(", @", " @");
            match l.split_once(" {@") {
                Some((a, _)) => a.to_string(),
                None => match l.split_once(" @") {
                    Some((a, _)) => format!("{a}}}"),
                    None => l,
                },
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn check_one(asm: &str, p: Platform, what: &str, n: usize) {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let src = tmp(&format!("f{n}.asm"));
    let bin = tmp(&format!("f{n}.bin"));
    std::fs::write(&src, asm).expect("temp file");
    let pa = format!("-p={}", p.iga());
    let (ok, _, err) = iga(&["-a", "-Wall", &pa, path(&src), "-o", path(&bin)]);
    assert!(
        ok && err.trim().is_empty(),
        "{what}: iga64 -a -Wall {pa}:\n{err}\n{asm}"
    );
    let (ok, dis, err) = iga(&["-d", &pa, path(&bin)]);
    assert!(ok, "{what}: iga64 -d: {err}");
    let mine = insts(asm);
    let back = insts(&dis);
    assert_eq!(
        mine, back,
        "{what}: round trip through iga64 changed the instructions"
    );
    if p == Platform::Gen12lp {
        let plain = tmp(&format!("f{n}.plain.asm"));
        std::fs::write(&plain, strip_swsb(asm)).expect("temp file");
        let auto = tmp(&format!("f{n}.auto.bin"));
        let (ok, _, err) = iga(&["-a", &pa, "-Xauto-deps", path(&plain), "-o", path(&auto)]);
        assert!(ok, "{what}: iga64 -Xauto-deps: {err}");
        let (_, dis, _) = iga(&["-d", &pa, path(&auto)]);
        let mut theirs = insts(&dis);
        if theirs.last().is_some_and(|l| l.contains("sync.nop")) {
            theirs.pop();
        }
        assert_eq!(
            swsb(&mine),
            swsb(&theirs),
            "{what}: SWSB differs from iga64 -Xauto-deps\nmine:\n{}\nIGA:\n{}",
            mine.join("\n"),
            theirs.join("\n")
        );
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

#[test]
fn every_function_assembles_without_warnings_and_round_trips() {
    if skip_or_fail() {
        return;
    }
    let mods = common::modules();
    let (compiled, _) = common::compile_all(&mods);
    for (n, c) in compiled.iter().enumerate() {
        let what = format!("{} @{} {:?} {:?}", c.file, c.f.name, c.platform, c.simd);
        check_one(&c.asm, c.platform, &what, n);
    }
    println!(
        "{} functions x platforms x SIMD widths assembled, 0 warnings",
        compiled.len()
    );
}

#[test]
fn no_qword_operands_on_gen11_and_gen12lp() {
    let mods = common::modules();
    let (compiled, _) = common::compile_all(&mods);
    for c in compiled.iter().filter(|c| c.platform != Platform::Gen9) {
        for l in c.asm.lines() {
            assert!(
                !l.contains(":q") && !l.contains(":uq"),
                "{} @{} {:?}: a 64-bit operand: {l}",
                c.file,
                c.f.name,
                c.platform
            );
        }
    }
}
