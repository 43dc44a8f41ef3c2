//! The 64-bit arithmetic of issue 17: the seed's split-add rewrite rules
//! (each rule, and the pass on machine IR with literal zeros), the SIMD16
//! 64-bit add's instruction count, and 64/128-bit functions in loops and
//! under divergent branches (`tests/fixtures/loops64.ll`, also a fixture) simulated against the
//! interpreter and assembled by `iga64 -Wall`. The functions of
//! `tests/fixtures/alu64.ll` go through `iga.rs`, `sim_differential.rs` and
//! `machine.rs` with every other fixture.

mod common;

use std::path::Path;
use std::process::Command;

use regdesc_codegen::differential::random_value;
use regdesc_codegen::interp::{self, GlobalMemory, LaneArg, Launch};
use regdesc_codegen::mir::parse::parse_mir;
use regdesc_codegen::mir::print::print_function;
use regdesc_codegen::pipeline::{compile_function, Options, Stage};
use regdesc_codegen::read_module;
use regdesc_codegen::rng::Rng;
use regdesc_codegen::source::Source;
use regdesc_codegen::target::Target;
use regdesc_intel::iadd64_split::{rewrite, Expr, Split};
use regdesc_intel::regs::Intel;
use regdesc_intel::sim::sim_intel;
use regdesc_intel::{Gen, Platform, Simd};

fn show(e: &Expr<&str>) -> String {
    match e {
        Expr::Split { n, hi, srcs } => format!(
            "iadd64_split{n}_{} {}",
            if *hi { "hi" } else { "lo" },
            srcs.join(", ")
        ),
        Expr::Add(a, b) => format!("iadd {a}, {b}"),
        Expr::Pass(a) => (*a).to_string(),
        Expr::Zero => "0".to_string(),
    }
}

#[test]
fn each_rewrite_rule_of_the_seed() {
    let zero = |s: &&str| *s == "0";
    let cases: [(u8, bool, &[&str]); 22] = [
        // A zero high source: the next smaller form.
        (4, true, &["a", "b", "0", "c"]),
        (4, false, &["a", "b", "0", "c"]),
        (4, true, &["a", "b", "c", "0"]),
        (4, false, &["a", "b", "c", "0"]),
        (3, true, &["a", "b", "0"]),
        (3, false, &["a", "b", "0"]),
        (4, true, &["a", "b", "0", "0"]),
        // A zero low source: no carry.
        (4, true, &["a", "0", "b", "c"]),
        (4, false, &["a", "0", "b", "c"]),
        (3, true, &["a", "0", "b"]),
        (3, false, &["a", "0", "b"]),
        (2, true, &["a", "0"]),
        (2, false, &["a", "0"]),
        // The low sources commute.
        (4, true, &["0", "a", "b", "c"]),
        (3, true, &["0", "a", "b"]),
        (2, true, &["0", "a"]),
        (2, false, &["0", "a"]),
        // Both.
        (4, true, &["a", "0", "b", "0"]),
        (4, true, &["a", "0", "0", "0"]),
        (4, false, &["0", "0", "b", "c"]),
        // Nothing to rewrite.
        (4, true, &["a", "b", "c", "d"]),
        (2, true, &["a", "b"]),
    ];
    let mut out = String::new();
    for (n, hi, srcs) in cases {
        let e = Expr::Split {
            n,
            hi,
            srcs: srcs.to_vec(),
        };
        let r = rewrite(e.clone(), &zero);
        out.push_str(&format!("{:<32} -> {}\n", show(&e), show(&r)));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn split_semantics_are_the_seeds() {
    for sp in Split::ALL {
        for (a, b, x, y) in [
            (u32::MAX, 1, 7, 9),
            (5, 6, u32::MAX, 1),
            (0x8000_0000, 0x8000_0000, 0, 0),
        ] {
            let (lo, hi) = sp.eval(&[a, b, x, y][..usize::from(sp.n)]);
            let c = u32::from(a.wrapping_add(b) < b);
            assert_eq!(lo, a.wrapping_add(b), "{}", sp.name());
            let want = match sp.n {
                4 => c.wrapping_add(x).wrapping_add(y),
                3 => c.wrapping_add(x),
                _ => c,
            };
            assert_eq!(hi, want, "{}", sp.name());
        }
    }
}

/// `iadd64_split::run` on selected machine IR with literal zero sources.
fn split_pass(body: &str) -> String {
    let g = Gen::new(Platform::Gen11, Simd::Simd8);
    let text = format!("function @f {{\nbb.0:\n{body}}}\n");
    let mut fs = parse_mir(Source::new("t.mir", text.as_str()), &Intel, g.instrs())
        .unwrap_or_else(|d| panic!("{}", d.render(false)));
    let mut f = fs.remove(0);
    g.after_select(&mut f).expect("the SSA passes run");
    print_function(&f, &Intel, g.instrs())
}

const ARGS: &str = "  %0:SIMD8_LANE = COPY $L8_R1\n  %1:SIMD8_LANE = COPY $L8_R2\n  %2:SIMD8_LANE = COPY $L8_R3\n  %3:SIMD8_LANE = COPY $L8_R4\n  %9:SIMD8_LANE = MOVI 0\n";

fn add64(alo: u32, blo: u32, ahi: u32, bhi: u32) -> String {
    format!(
        "{ARGS}  %4:SIMD8_LANE, %5:SIMD8_LANE = addc %{alo}, %{blo}\n  %6:SIMD8_LANE = add %{ahi}, %{bhi}\n  %7:SIMD8_LANE = add %6, %5\n  ret %4, %7\n"
    )
}

#[test]
fn the_pass_on_machine_ir() {
    let mut out = String::new();
    for (what, body) in [
        ("a 64-bit add: one split4 pair", add64(0, 2, 1, 3)),
        ("a_hi = 0: split3", add64(0, 2, 9, 3)),
        ("both high halves 0: split2", add64(0, 2, 9, 9)),
        ("b_lo = 0: no carry", add64(0, 9, 1, 3)),
        ("a_lo = 0 (commuted): no carry", add64(9, 2, 1, 3)),
        (
            "only the high half read: split4_hi",
            format!(
                "{ARGS}  %4:SIMD8_LANE, %5:SIMD8_LANE = addc %0, %2\n  %6:SIMD8_LANE = add %1, %3\n  %7:SIMD8_LANE = add %6, %5\n  ret %7\n"
            ),
        ),
        (
            "only the low half read: a 32-bit add",
            format!(
                "{ARGS}  %4:SIMD8_LANE, %5:SIMD8_LANE = addc %0, %2\n  %6:SIMD8_LANE = add %1, %3\n  %7:SIMD8_LANE = add %6, %5\n  ret %4\n"
            ),
        ),
        (
            "a carry read as a value: split2",
            format!("{ARGS}  %4:SIMD8_LANE, %5:SIMD8_LANE = addc %0, %2\n  ret %4, %5\n"),
        ),
        (
            "a multiply-add with a zero addend: the product alone",
            format!(
                "{ARGS}  %4:SIMD8_LANE, %5:SIMD8_LANE = mad64 %0, %2, %9, %9\n  ret %4, %5\n"
            ),
        ),
        (
            "a multiply-add whose low half is not read: mach",
            format!(
                "{ARGS}  %4:SIMD8_LANE, %5:SIMD8_LANE = mad64 %0, %2, %9, %9\n  ret %5\n"
            ),
        ),
        (
            "a multiply-add: the product and a split4 pair",
            format!(
                "{ARGS}  %4:SIMD8_LANE, %5:SIMD8_LANE = mad64 %0, %2, %1, %3\n  ret %4, %5\n"
            ),
        ),
    ] {
        out.push_str(&format!("; {what}\n{}\n", split_pass(&body)));
    }
    insta::assert_snapshot!(out);
}

fn instructions(asm: &str) -> Vec<&str> {
    asm.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.ends_with(':'))
        .collect()
}

#[test]
fn a_simd16_64_bit_add_takes_four_instructions_and_no_mov() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(here.join("tests/fixtures/alu64.ll")).expect("fixture");
    let src = "define i64 @add64(i64 %a, i64 %b) {\n  %r = add i64 %a, %b\n  ret i64 %r\n}\n";
    let m = read_module("add64.ll", src).expect("parses");
    for p in Platform::ALL {
        let asm = compile_function(
            &m.functions[0],
            &Gen::new(p, Simd::Simd16),
            &Options::default(),
        )
        .expect("compiles")
        .asm
        .unwrap_or_default();
        let insts = instructions(&asm);
        assert!(
            insts.len() <= 4,
            "{p:?}: {} instructions\n{asm}",
            insts.len()
        );
        assert!(
            insts.iter().all(|l| !l.starts_with("mov")),
            "{p:?}: a mov\n{asm}"
        );
        assert!(insts.iter().all(|l| l.contains("(16|M0)")), "{p:?}\n{asm}");
    }
    // SIMD8 on Gen9/Gen11: the accumulator, 3 instructions.
    for p in [Platform::Gen9, Platform::Gen11] {
        let asm = compile_function(
            &m.functions[0],
            &Gen::new(p, Simd::Simd8),
            &Options::default(),
        )
        .expect("compiles")
        .asm
        .unwrap_or_default();
        assert_eq!(instructions(&asm).len(), 3, "{p:?}\n{asm}");
        assert!(asm.contains("acc0.0<8;8,1>:ud"), "{asm}");
    }
    // The fixture's add of a zero-extended dword is a split3: 3 at SIMD16.
    let m = read_module("alu64.ll", &text).expect("parses");
    let f = m
        .functions
        .iter()
        .find(|f| f.name == "add64_zext_lo")
        .expect("@add64_zext_lo");
    for p in [Platform::Gen11, Platform::Gen12lp] {
        let asm = compile_function(f, &Gen::new(p, Simd::Simd16), &Options::default())
            .expect("compiles")
            .asm
            .unwrap_or_default();
        assert!(instructions(&asm).len() <= 3, "{p:?}\n{asm}");
    }
    let _ = Stage::Final;
}

fn iga_present() -> bool {
    Command::new("iga64").arg("--help").output().is_ok()
}

#[test]
fn loops_and_divergent_branches_simulate_and_assemble() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = here.join("tests/fixtures/loops64.ll");
    let text = std::fs::read_to_string(&path).expect("tests/fixtures/loops64.ll");
    let m = read_module("loops.ll", &text).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let iga = iga_present();
    if !iga && common::require_oracles() {
        panic!("iga64 is not on the PATH and REGDESC_REQUIRE_ORACLES is set");
    }
    let tmp = tempfile::Builder::new()
        .prefix("regdesc-intel-alu64-")
        .tempdir()
        .expect("temp dir");
    let dir = tmp.path();
    let mut lanes_compared = 0usize;
    for f in &m.functions {
        for p in Platform::ALL {
            for s in common::SIMDS {
                let asm = compile_function(f, &Gen::new(p, s), &Options::default())
                    .unwrap_or_else(|e| panic!("@{} {p:?} {s:?}: {e}", f.name))
                    .asm
                    .unwrap_or_default();
                if iga {
                    let file = dir.join(format!("{}_{}_{}.asm", f.name, p.name(), s.lanes()));
                    std::fs::write(&file, &asm).expect("temp file");
                    let o = Command::new("iga64")
                        .args(["-a", "-Wall", &format!("-p={}", p.iga())])
                        .arg(&file)
                        .args(["-o", "/dev/null"])
                        .output()
                        .expect("iga64 runs");
                    let err = String::from_utf8_lossy(&o.stderr);
                    assert!(
                        o.status.success() && err.trim().is_empty(),
                        "@{} {p:?} {s:?}: {err}\n{asm}",
                        f.name
                    );
                }
                let width = u32::from(s.lanes());
                let mut rng = Rng::new(0xa1u64 ^ u64::from(width));
                for k in 0..common::inputs().div_ceil(width as usize) {
                    let lanes = [width, width - 3, 2 * width + 1][k % 3];
                    let args: Vec<LaneArg> = f
                        .params
                        .iter()
                        .map(|p| {
                            let ty = f.value(*p).ty;
                            LaneArg::PerLane(
                                (0..lanes).map(|_| random_value(&mut rng, ty)).collect(),
                            )
                        })
                        .collect();
                    let launch = Launch {
                        lanes,
                        args,
                        first_workitem: 0,
                        workgroup_id: 0,
                        workgroup_size: None,
                        max_steps: 100_000,
                    };
                    let Ok(want) = interp::run(f, &launch, &mut GlobalMemory::new(0)) else {
                        continue;
                    };
                    let got = sim_intel(&asm, f, &launch)
                        .unwrap_or_else(|e| panic!("@{} {p:?} {s:?}: {e}\n{asm}", f.name));
                    for (w, g) in want.iter().zip(&got) {
                        assert_eq!(
                            w.ret.map(|v| v.to_bits()),
                            g.ret.map(|v| v.to_bits()),
                            "@{} {p:?} {s:?} lane {}\n{asm}",
                            f.name,
                            w.lane
                        );
                        lanes_compared += 1;
                    }
                }
            }
        }
    }
    println!("{lanes_compared} lanes compared, 0 mismatches");
    assert!(lanes_compared > 0);
}
