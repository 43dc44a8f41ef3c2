//! The multiply cascade's instruction counts (issue 16), by
//! `../shared/bench/amdgpu/gen_table.py`'s rule (every instruction line but
//! `s_waitcnt*`, `s_setpc_b64` and `s_nop`):
//!
//! - `bench_counts`: the benchmark's multiplies on each CPU, as a table
//!   (a change in either direction shows here; update the table and
//!   BENCHMARKS.md together);
//! - `wide_multiplies_are_no_longer_than_llc`: the functions of
//!   `tests/fixtures/wide_mul.ll` (odd limb counts, zero- and sign-extended
//!   factors, multiply-adds), the random shapes of the shared
//!   `wide_mul_shapes.ll` and the random kernels of
//!   `tests/fixtures/kernel_mul_shapes.ll`, and the shapes random hunting
//!   found (`tests/fixtures/wide_mul_found.ll`), and the wide shifts and
//!   multiplies by powers of two of `tests/fixtures/wide_shifts.ll`,
//!   against the best of llc 14 and llc 19
//!   (SelectionDAG and GlobalISel, `-O2`) run in the test. Where regdesc is longer the
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
    ("mad64", [3, 4, 3]),
    ("mul128", [14, 14, 14]),
    ("mul256", [60, 60, 60]),
    ("mul128_uniform", [21, 23, 17]),
];

#[test]
fn bench_counts() {
    let Some(dir) = common::bench_dir_or_skip() else {
        return;
    };
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

/// Functions of the fixtures (`wide_mul.ll`, `kernel_mul_shapes.ll`,
/// `wide_mul_found.ll` ...) and the shared fixtures'
/// `wide_mul_shapes.ll` where regdesc is
/// longer than the best llc (14 and 19, SelectionDAG and GlobalISel), on
/// one CPU, and why. A shape that becomes longer goes here with its
/// reason, or gets fixed; one that stops being longer fails the test.
const LONGER: &[(&str, &str, &str)] = &[
    (
        "s11_f2_64_sext32_const32_mad_u",
        "gfx90a",
        "`inreg` arguments: LLVM 19 passes them in SGPRs from s6 and the addend in v[0:1]; regdesc keeps LLVM 14's convention (addend in v[1:2], odd), where llc 14 takes 4 like regdesc",
    ),
    ("zext12_times_427", "gfx900", NARROW_LITERAL),
    ("zext12_times_427", "gfx90a", NARROW_LITERAL),
];

/// Why `wide_mul_found.ll`'s narrow product by a constant is longer.
const NARROW_LITERAL: &str = "a zext i12 times 427 (wide_mul_found.ll): one 32-bit multiply on both sides, but llc's v_mul_u32_u24 is VOP2 and takes the literal, where regdesc's v_mul_lo_u32 (VOP3 on gfx9) needs a v_mov_b32 first; gfx1030's VOP3 takes it";

/// llc's assembly for `file` on `cpu` (`-O2`, SelectionDAG or
/// `-global-isel`). Where GlobalISel fails on the file (llc 19 crashes in
/// `AMDGPURegBankSelect` on some of gfx90a's functions, llc 14 on some
/// widths), each function is compiled alone and the ones it takes are
/// kept: a failing configuration has no count for that function.
fn llc(version: u32, cpu: &str, file: &Path, global_isel: bool) -> Option<String> {
    let bin = format!("/usr/lib/llvm-{version}/bin/llc");
    if !Path::new(&bin).exists() {
        if std::env::var_os("REGDESC_REQUIRE_ORACLES").is_some() {
            panic!("{bin} is missing");
        }
        println!("SKIPPED: {bin} is missing");
        return None;
    }
    let run = |input: &Path| {
        let mut cmd = Command::new(&bin);
        cmd.args(["-mtriple=amdgcn-amd-amdhsa", &format!("-mcpu={cpu}"), "-O2"]);
        if version == 14 {
            cmd.arg("-opaque-pointers");
        }
        if global_isel {
            cmd.arg("-global-isel");
        }
        cmd.arg(input).args(["-o", "-"]).output().expect("llc runs")
    };
    let out = run(file);
    if out.status.success() {
        return Some(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    assert!(
        global_isel,
        "{bin}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(file).expect("the fixture");
    let decls: String = text
        .lines()
        .filter(|l| l.starts_with("declare"))
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = std::env::temp_dir().join(format!("regdesc-wide-mul-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let mut asm = String::new();
    let mut body = String::new();
    for l in text.lines() {
        if l.starts_with("define") || !body.is_empty() {
            body.push_str(l);
            body.push('\n');
        }
        if l == "}" && !body.is_empty() {
            let one = dir.join(format!("{version}-{cpu}.ll"));
            std::fs::write(&one, format!("{body}{decls}")).expect("a temporary file");
            let out = run(&one);
            if out.status.success() {
                asm.push_str(&String::from_utf8_lossy(&out.stdout));
            }
            body.clear();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Some(asm)
}

/// The body of `name` in llc's output (from its label to `s_setpc_b64`,
/// or `s_endpgm` for a kernel).
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
            let t = l.trim_start();
            if t.starts_with("s_setpc_b64") || t.starts_with("s_endpgm") {
                break;
            }
        }
    }
    out
}

#[test]
fn wide_multiplies_are_no_longer_than_llc() {
    let mut fns = common::functions(&common::extra_dir(), true);
    fns.extend(common::functions(&common::fixtures_dir(), true));
    let mut longer = Vec::new();
    for path in [
        common::extra_dir().join("wide_mul.ll"),
        common::fixtures_dir().join("wide_mul_shapes.ll"),
        common::extra_dir().join("kernel_mul_shapes.ll"),
        common::extra_dir().join("wide_mul_found.ll"),
        common::extra_dir().join("wide_shifts.ll"),
    ] {
        let names: Vec<String> = fns
            .iter()
            .filter(|(p, _)| *p == path)
            .map(|(_, f)| f.name.clone())
            .collect();
        assert!(names.len() >= 5, "the functions of {}", path.display());
        if !no_longer_than_llc(&path, &names, &mut longer) {
            return;
        }
    }
    let mut expected: Vec<(String, String)> = LONGER
        .iter()
        .map(|(n, c, _)| (n.to_string(), c.to_string()))
        .collect();
    longer.sort();
    expected.sort();
    assert_eq!(
        longer, expected,
        "longer than llc (LONGER lists the known ones)"
    );
}

/// Compares the functions `names` of `path` with llc's on every CPU and
/// notes where regdesc is longer (`false`: an llc is missing).
fn no_longer_than_llc(path: &Path, names: &[String], longer: &mut Vec<(String, String)>) -> bool {
    for gfx in common::CPUS {
        let cpu = gfx.name();
        let mut outputs = Vec::new();
        for version in [14, 19] {
            for global_isel in [false, true] {
                let Some(asm) = llc(version, cpu, path, global_isel) else {
                    return false;
                };
                outputs.push(asm);
            }
        }
        for name in names {
            let (mine, _) = ours(path, name, gfx);
            // A configuration that failed on the function has no count.
            let best = outputs
                .iter()
                .map(|asm| count(&function_of(asm, name)))
                .filter(|&n| n > 0)
                .min()
                .unwrap_or(0);
            assert!(best > 0, "llc's @{name} on {cpu}");
            println!("{cpu} @{name}: regdesc {mine}, best llc {best}");
            if mine > best {
                longer.push((name.clone(), cpu.to_string()));
            }
        }
    }
    true
}

/// The instruction lines of `asm` whose mnemonic is `op`.
fn lines_of<'a>(asm: &'a str, op: &str) -> Vec<&'a str> {
    asm.lines()
        .filter(|l| l.split_whitespace().next() == Some(op))
        .collect()
}

/// The split chains: on every CPU no factor limb is moved (`v_mov_b32`)
/// in `mul128` and `mul256`, and on gfx90a every 64-bit operand of
/// `v_mad_u64_u32` starts at an even register with no copy to get there.
#[test]
fn split_chains_move_nothing() {
    let Some(dir) = common::bench_dir_or_skip() else {
        return;
    };
    for name in ["mul128", "mul256"] {
        let path = dir.join(format!("{name}.ll"));
        for gfx in common::CPUS {
            let (_, asm) = ours(&path, name, gfx);
            assert!(
                lines_of(&asm, "v_mov_b32_e32").is_empty(),
                "@{name} on {}:\n{asm}",
                gfx.name()
            );
            for l in lines_of(&asm, "v_mad_u64_u32") {
                for pair in l.split('[').skip(1) {
                    let lo: u32 = pair
                        .split(':')
                        .next()
                        .and_then(|x| x.parse().ok())
                        .unwrap_or_else(|| panic!("a register pair in {l}"));
                    if gfx == regdesc_amdgpu::Gfx::Gfx90a && l.contains(&format!("v[{lo}:")) {
                        assert_eq!(lo % 2, 0, "{l} on gfx90a");
                    }
                }
            }
        }
    }
}

/// Uniform factors: the cost model puts an `i128` multiply on
/// `v_mad_u64_u32` reading the SGPR factors (two SGPRs per MAD on gfx10)
/// and keeps a 64-bit one on the SALU.
#[test]
fn uniform_multiplies_choose_their_unit() {
    let dir = common::bench_dir();
    let extra = common::extra_dir().join("extra.ll");
    for gfx in common::CPUS {
        if dir.is_dir() {
            let (_, asm) = ours(&dir.join("mul128_uniform.ll"), "mul128_uniform", gfx);
            let mads = lines_of(&asm, "v_mad_u64_u32");
            assert_eq!(mads.len(), 10, "{asm}");
            assert!(lines_of(&asm, "s_mul_hi_u32").is_empty(), "{asm}");
            let two_sgprs = mads.iter().any(|l| {
                let ops: Vec<&str> = l.split(',').map(str::trim).collect();
                ops.len() >= 4 && ops[2].starts_with('s') && ops[3].starts_with('s')
            });
            assert_eq!(two_sgprs, gfx.is_gfx10(), "{asm}");
        }
        let (_, asm) = ours(&extra, "mul64_uniform", gfx);
        assert!(lines_of(&asm, "v_mad_u64_u32").is_empty(), "{asm}");
        assert_eq!(lines_of(&asm, "s_mul_hi_u32").len(), 1, "{asm}");
    }
}

/// The edge pair of a per-lane wide shift is one 64-bit VALU shift, an
/// arithmetic shift past the top limb shifts the top pair by `32 + s`,
/// and a wide multiply-add by a power of two is shifts and adds where the
/// MADs would count more (`tests/fixtures/wide_shifts.ll`).
#[test]
fn wide_shifts_use_the_64_bit_valu_shifts() {
    use regdesc_amdgpu::Gfx;
    let path = common::extra_dir().join("wide_shifts.ll");
    for gfx in common::CPUS {
        for (name, op) in [
            ("shl64_5", "v_lshlrev_b64"),
            ("lshr64_5", "v_lshrrev_b64"),
            ("ashr64_5", "v_ashrrev_i64"),
            ("ashr64_40", "v_ashrrev_i64"),
            ("mul64_32", "v_lshlrev_b64"),
        ] {
            let (n, asm) = ours(&path, name, gfx);
            assert_eq!(
                (n, lines_of(&asm, op).len()),
                (1, 1),
                "@{name} on {gfx:?}:\n{asm}"
            );
        }
        // Two funnels below the top pair's shift, the sign in its high half.
        let (n, asm) = ours(&path, "ashr128_37", gfx);
        assert_eq!(n, 3, "@ashr128_37 on {gfx:?}:\n{asm}");
        // The shift and the add chain, no MAD (llc 13 on every CPU).
        let (n, asm) = ours(&path, "mad217_pow2_59", gfx);
        assert!(n <= 13, "@mad217_pow2_59 on {gfx:?}: {n}\n{asm}");
        assert!(lines_of(&asm, "v_mad_u64_u32").is_empty(), "{asm}");
    }
    // An i64 keeps its MAD and v_lshl_add_u32.
    let (n, _) = ours(&path, "mad64_pow2_5", Gfx::Gfx900);
    assert_eq!(n, 2);
}

#[test]
fn the_counting_rule_is_gen_tables() {
    let asm = "f:\n\ts_waitcnt vmcnt(0)\n\tv_add_u32_e64 v0, v0, v1 ; c\n\t.p2align 2\n\ts_nop 0\n\ts_setpc_b64 s[30:31]\n\ts_endpgm\n";
    assert_eq!(count(asm), 2);
    let _ = common::target(regdesc_amdgpu::Gfx::Gfx900).cpu();
}

/// Every function of `wide_mul.ll`, compiled, runs on the wave simulator
/// to the interpreter's results with no launch skipped: the per-lane
/// kernels (a `saddr` load or store at `id * 2^k` from an SGPR base, one
/// `global_load_dwordx2/x3/x4` per value, wide kernarg loads reading dead
/// dwords) are exercised on every lane, not lost to an out-of-bounds
/// launch.
#[test]
fn wide_mul_functions_simulate_on_every_lane() {
    use regdesc_amdgpu::sim::check::{compare, CheckConfig};
    use regdesc_amdgpu::sim::{parse, SimOptions};
    use regdesc_codegen::target::Target as _;
    let path = common::extra_dir().join("wide_mul.ll");
    let fns: Vec<_> = common::functions(&common::extra_dir(), false)
        .into_iter()
        .filter(|(p, _)| *p == path)
        .collect();
    for gfx in common::CPUS {
        let t = common::target(gfx);
        for (_, f) in &fns {
            let (_, asm) = ours(&path, &f.name, gfx);
            let prog = parse::parse(&asm).unwrap_or_else(|e| panic!("@{}: {e:?}", f.name));
            let cfg = CheckConfig {
                chip: gfx,
                lanes: t.wave_size(),
                inputs: 4 * t.wave_size() as usize,
                seed: 0x16f,
                asm_file: format!("{}.{}.s", f.name, t.cpu()),
                ir_file: path.display().to_string(),
                options: SimOptions {
                    zero_narrow_args: false,
                    inreg_in_sgprs: false,
                },
            };
            let r =
                compare(&prog, f, &cfg).unwrap_or_else(|m| panic!("{} @{}: {m}", t.cpu(), f.name));
            assert_eq!(r.skipped, 0, "{} @{}: launches skipped", t.cpu(), f.name);
            assert!(r.compared > 0, "{} @{}", t.cpu(), f.name);
        }
    }
}

/// `targets/codegen/tests/fixtures/wide_mul_shapes.ll` is what its
/// generator writes; when it is stale,
/// `python3 targets/codegen/tests/fixtures/gen_wide_mul_shapes.py`
/// regenerates it.
#[test]
fn wide_mul_shapes_is_generated() {
    let dir = common::fixtures_dir();
    let out = Command::new("python3")
        .arg(dir.join("gen_wide_mul_shapes.py"))
        .arg("--stdout")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = String::from_utf8_lossy(&out.stdout);
    let kept = std::fs::read_to_string(dir.join("wide_mul_shapes.ll")).expect("the fixture");
    assert!(
        fresh == kept,
        "wide_mul_shapes.ll is stale: run python3 targets/codegen/tests/fixtures/gen_wide_mul_shapes.py"
    );
}
