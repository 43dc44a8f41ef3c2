//! The multiply cascade's instruction counts (issue 16), by
//! `../shared/bench/amdgpu/gen_table.py`'s rule (every instruction line but
//! `s_waitcnt*`, `s_setpc_b64` and `s_nop`):
//!
//! - `bench_counts`: the benchmark's multiplies on each CPU, as a table
//!   (a change in either direction shows here; update the table and
//!   BENCHMARKS.md together);
//! - `wide_multiplies_are_no_longer_than_llc`: the functions of
//!   `tests/fixtures/wide_mul.ll` (odd limb counts, zero- and sign-extended
//!   factors, multiply-adds) against the best of llc 14 and llc 19
//!   (SelectionDAG, `-O2`) run in the test. Where regdesc is longer the
//!   function is in `LONGER` with the reason; an entry that stops being
//!   longer fails, so the list stays true. Simulation against
//!   interpretation of the same functions is `sim_backend.rs` and
//!   `differential.rs` (they read every fixture).

mod common;

use std::path::Path;
use std::process::Command;

use regdesc_codegen::pipeline::{compile_function, Options};

/// gen_table.py's counting rule.
fn count(asm: &str) -> usize {
    asm.lines()
        .filter_map(|l| {
            let s = l.split(';').next().unwrap_or("");
            if !s.starts_with(char::is_whitespace) || s.trim_start().starts_with('.') {
                return None;
            }
            let op = s.split_whitespace().next()?;
            op.chars()
                .next()
                .filter(char::is_ascii_lowercase)
                .map(|_| op.to_string())
        })
        .filter(|op| !(op.starts_with("s_waitcnt") || op == "s_setpc_b64" || op == "s_nop"))
        .count()
}

fn ours(path: &Path, name: &str, gfx: regdesc_amdgpu::Gfx) -> (usize, String) {
    let fns = common::functions(path.parent().expect("a directory"), true);
    let (_, f) = fns
        .iter()
        .find(|(p, f)| p == path && f.name == name)
        .unwrap_or_else(|| panic!("@{name} in {}", path.display()));
    let t = common::target(gfx);
    let code = compile_function(f, &t, &Options::default())
        .unwrap_or_else(|e| panic!("@{name} on {}: {e}", t.cpu()));
    let asm = code.asm.expect("assembly");
    (count(&asm), asm)
}

/// (function, gfx900, gfx90a, gfx1030).
const BENCH: &[(&str, [usize; 3])] = &[
    ("add64", [2, 2, 2]),
    ("mul64", [4, 4, 4]),
    ("mad64", [4, 4, 4]),
    ("mul128", [14, 14, 14]),
    ("mul256", [60, 60, 60]),
    ("mul128_uniform", [27, 24, 22]),
];

#[test]
fn bench_counts() {
    let dir = common::bench_dir();
    if !dir.is_dir() {
        if std::env::var_os("REGDESC_REQUIRE_ORACLES").is_some() {
            panic!("no benchmark directory {}", dir.display());
        }
        println!("SKIPPED: no {}", dir.display());
        return;
    }
    let mut got = Vec::new();
    for (name, want) in BENCH {
        let path = dir.join(format!("{name}.ll"));
        let mut row = [0; 3];
        for (k, gfx) in common::CPUS.into_iter().enumerate() {
            row[k] = ours(&path, name, gfx).0;
        }
        got.push((*name, row));
        println!("{name}: {row:?} (expected {want:?})");
    }
    let want: Vec<(&str, [usize; 3])> = BENCH.to_vec();
    assert_eq!(got, want);
}

/// Functions of `wide_mul.ll` where regdesc is longer than the best llc,
/// on one CPU, and why.
/// (None since the top column became a MAD chain seeding the last
/// column's counter: `mad128` on gfx90a was the one.)
const LONGER: &[(&str, &str, &str)] = &[];

fn llc(version: u32, cpu: &str, file: &Path) -> Option<String> {
    let bin = format!("/usr/lib/llvm-{version}/bin/llc");
    if !Path::new(&bin).exists() {
        if std::env::var_os("REGDESC_REQUIRE_ORACLES").is_some() {
            panic!("{bin} is missing");
        }
        println!("SKIPPED: {bin} is missing");
        return None;
    }
    let out = Command::new(&bin)
        .args(["-mtriple=amdgcn-amd-amdhsa", &format!("-mcpu={cpu}"), "-O2"])
        .arg(file)
        .args(["-o", "-"])
        .output()
        .expect("llc runs");
    assert!(
        out.status.success(),
        "{bin}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The body of `name` in llc's output (from its label to `s_setpc_b64`).
fn function_of(asm: &str, name: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for l in asm.lines() {
        if l.starts_with(&format!("{name}:")) {
            inside = true;
        }
        if inside {
            out.push_str(l);
            out.push('\n');
            if l.trim_start().starts_with("s_setpc_b64") {
                break;
            }
        }
    }
    out
}

#[test]
fn wide_multiplies_are_no_longer_than_llc() {
    let path = common::extra_dir().join("wide_mul.ll");
    let fns = common::functions(&common::extra_dir(), true);
    let names: Vec<String> = fns
        .iter()
        .filter(|(p, _)| *p == path)
        .map(|(_, f)| f.name.clone())
        .collect();
    assert!(names.len() >= 7, "the functions of {}", path.display());
    let mut longer = Vec::new();
    for gfx in common::CPUS {
        let cpu = gfx.name();
        let (Some(l14), Some(l19)) = (llc(14, cpu, &path), llc(19, cpu, &path)) else {
            return;
        };
        for name in &names {
            let (mine, _) = ours(&path, name, gfx);
            let best = count(&function_of(&l14, name)).min(count(&function_of(&l19, name)));
            assert!(best > 0, "llc's @{name} on {cpu}");
            println!("{cpu} @{name}: regdesc {mine}, best llc {best}");
            if mine > best {
                longer.push((name.clone(), cpu.to_string()));
            }
        }
    }
    let expected: Vec<(String, String)> = LONGER
        .iter()
        .map(|(n, c, _)| (n.to_string(), c.to_string()))
        .collect();
    assert_eq!(
        longer, expected,
        "longer than llc (LONGER lists the known ones)"
    );
}

#[test]
fn the_counting_rule_is_gen_tables() {
    let asm = "f:\n\ts_waitcnt vmcnt(0)\n\tv_add_u32_e64 v0, v0, v1 ; c\n\t.p2align 2\n\ts_nop 0\n\ts_setpc_b64 s[30:31]\n\ts_endpgm\n";
    assert_eq!(count(asm), 2);
    let _ = common::target(regdesc_amdgpu::Gfx::Gfx900).cpu();
}
