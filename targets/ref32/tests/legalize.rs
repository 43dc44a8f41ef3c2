//! Wide-integer legalization through ref32: every opcode at every width
//! (the usual ones and odd ones) against the reference interpreter, known
//! bits, mul+add fusion, the 32-bit width guarantee, and the verifier
//! catching a broken pass at the next stage boundary.

use regdesc_codegen::differential::{compare, DiffConfig};
use regdesc_codegen::ir::{Function, Module};
use regdesc_codegen::mir::{MBlockId, MFunction, Operand, RegOperand, RegRef};
use regdesc_codegen::pipeline::{compile_function, Options, PipelineError, Stage};
use regdesc_codegen::read_module;
use regdesc_codegen::target::Target;
use regdesc_ref32::Ref32;

const WIDTHS: [u32; 12] = [1, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 448];
const BIN: [&str; 9] = [
    "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr",
];
const PREDS: [&str; 10] = [
    "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
];

fn inputs() -> usize {
    std::env::var("REGDESC_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200)
}

/// One function per opcode and width.
fn opcode_module() -> String {
    let mut s = String::new();
    for w in WIDTHS {
        let t = format!("i{w}");
        for op in BIN {
            s.push_str(&format!(
                "define {t} @{op}_{w}({t} %a, {t} %b) {{\n  %r = {op} {t} %a, %b\n  ret {t} %r\n}}\n"
            ));
        }
        for p in PREDS {
            s.push_str(&format!(
                "define i1 @icmp_{p}_{w}({t} %a, {t} %b) {{\n  %r = icmp {p} {t} %a, %b\n  ret i1 %r\n}}\n"
            ));
        }
        s.push_str(&format!(
            "define {t} @select_{w}(i1 %c, {t} %a, {t} %b) {{\n  %r = select i1 %c, {t} %a, {t} %b\n  ret {t} %r\n}}\n"
        ));
        for v in WIDTHS {
            let u = format!("i{v}");
            let op = match v.cmp(&w) {
                std::cmp::Ordering::Greater => ["zext", "sext"].as_slice(),
                std::cmp::Ordering::Less => ["trunc"].as_slice(),
                std::cmp::Ordering::Equal => ["bitcast"].as_slice(),
            };
            for o in op {
                s.push_str(&format!(
                    "define {u} @{o}_{w}_{v}({t} %a) {{\n  %r = {o} {t} %a to {u}\n  ret {u} %r\n}}\n"
                ));
            }
        }
    }
    s.push_str(
        "define <2 x i32> @bitcast_64_v2(i64 %a) {\n  %r = bitcast i64 %a to <2 x i32>\n  ret <2 x i32> %r\n}\n\
         define i64 @bitcast_v2_64(<2 x i32> %a) {\n  %r = bitcast <2 x i32> %a to i64\n  ret i64 %r\n}\n",
    );
    s
}

fn module(name: &str, text: &str) -> Module {
    read_module(name, text).unwrap_or_else(|d| panic!("{}", d.render(false)))
}

#[test]
fn every_opcode_at_every_width_matches_the_interpreter() {
    let m = module("opcodes.ll", &opcode_module());
    let target = Ref32::new();
    let mut compared = 0;
    for f in &m.functions {
        for stage in [Stage::Legalize, Stage::Final] {
            let cfg = DiffConfig {
                stage,
                lanes: 4,
                inputs: inputs(),
                seed: 7,
                file: "opcodes.ll".into(),
            };
            match compare(&target, f, &cfg) {
                Ok(r) => compared += r.compared,
                Err(e) => panic!("@{} at {stage}: {e}", f.name),
            }
        }
    }
    println!("{} functions, {compared} lanes compared", m.functions.len());
    assert!(m.functions.len() > 250);
}

/// Legalized machine IR of the only function of `text`.
fn legalized(text: &str) -> (MFunction, Ref32) {
    let m = module("t.ll", text);
    let f: &Function = &m.functions[0];
    let target = Ref32::new();
    let opts = Options {
        stop_after: Some(Stage::Legalize),
        ..Options::default()
    };
    match compile_function(f, &target, &opts) {
        Ok(c) => (c.mir, target),
        Err(e) => panic!("{e}"),
    }
}

fn count(f: &MFunction, t: &Ref32, names: &[&str]) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| names.contains(&t.instrs().name(i.opcode)))
        .count()
}

const MULS: [&str; 4] = ["G_MAD64", "MUL", "G_UMULH", "G_SMULH"];

/// The worklists of demanded limbs (on the IR) and demanded bits (on the
/// legalized code) find the same demands as passes to a fixed point, on
/// every function of the shared fixtures and of the opcode module (narrow
/// and odd widths keep extensions in register).
#[test]
fn demand_worklists_equal_the_fixed_points() {
    use regdesc_codegen::legalize::demand::Demand;
    use regdesc_codegen::legalize::demanded_bits::{demanded_bits, demanded_bits_by_passes};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/tests/fixtures");
    let mut files: Vec<(String, String)> = vec![("opcodes.ll".into(), opcode_module())];
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        files.push((p.display().to_string(), text));
    }
    let target = Ref32::new();
    let opts = Options {
        stop_after: Some(Stage::Legalize),
        ..Options::default()
    };
    let (mut functions, mut below_32) = (0, 0);
    for (name, text) in &files {
        let m = module(name, text);
        for f in &m.functions {
            let Ok(c) = compile_function(f, &target, &opts) else {
                continue;
            };
            let limbs = Demand::analyze(f);
            assert_eq!(
                limbs,
                Demand::analyze_by_passes(f),
                "{name} @{} (limbs)",
                f.name
            );
            let fast = demanded_bits(&c.mir, target.instrs());
            let slow = demanded_bits_by_passes(&c.mir, target.instrs());
            assert_eq!(fast, slow, "{name} @{}", f.name);
            functions += 1;
            below_32 += fast.iter().filter(|&&n| n > 0 && n < 32).count();
        }
    }
    assert!(functions > 500, "only {functions} functions legalized");
    // Narrow demands are there to be found, not only 0 and 32.
    assert!(
        below_32 > 100,
        "only {below_32} registers with a narrow demand"
    );
}

#[test]
fn known_zero_limbs_are_not_multiplied() {
    let (f, t) = legalized(
        "define i128 @m(i32 %a, i64 %b) {\n  %x = zext i32 %a to i128\n  %y = zext i64 %b to i128\n  %r = mul i128 %x, %y\n  ret i128 %r\n}\n",
    );
    assert_eq!(
        count(&f, &t, &MULS),
        2,
        "a 32x64-bit product takes 2 limb multiplies"
    );
    // A full 128x128 multiply keeps its 10 partial products.
    let (f, t) =
        legalized("define i128 @m(i128 %a, i128 %b) {\n  %r = mul i128 %a, %b\n  ret i128 %r\n}\n");
    assert_eq!(count(&f, &t, &MULS), 10);
    // Masked limbs are known zero too.
    let (f, t) = legalized(
        "define i64 @m(i64 %a, i64 %b) {\n  %x = and i64 %a, 4294967295\n  %r = mul i64 %x, %b\n  ret i64 %r\n}\n",
    );
    assert_eq!(count(&f, &t, &MULS), 2);
}

#[test]
fn sign_extended_factors_multiply_their_low_limbs() {
    // `sext i64` times `i256`: the low two limbs times the other factor
    // (2 x 8 columns, 15 partial products) and one masked subtraction,
    // instead of the sign limbs' partial products too (36).
    let (f, t) = legalized(
        "define i256 @m(i64 %a, i256 %b) {\n  %x = sext i64 %a to i256\n  %r = mul i256 %x, %b\n  ret i256 %r\n}\n",
    );
    assert_eq!(count(&f, &t, &MULS), 15);
    // Both sign-extended: the low limbs' product (4) and two subtractions.
    let (f, t) = legalized(
        "define i256 @m(i64 %a, i64 %b) {\n  %x = sext i64 %a to i256\n  %y = sext i64 %b to i256\n  %r = mul i256 %x, %y\n  ret i256 %r\n}\n",
    );
    assert_eq!(count(&f, &t, &MULS), 4);
    // A negative constant is the sign extension of its low limb: `-5` as
    // an `i224` times a `zext i96` takes the 3 products of `-5`'s low limb.
    let (f, t) = legalized(
        "define i224 @m(i96 %a) {\n  %x = zext i96 %a to i224\n  %r = mul i224 %x, -5\n  ret i224 %r\n}\n",
    );
    assert_eq!(count(&f, &t, &MULS), 3);
    // Up to three limbs nothing is split.
    let (f, t) = legalized(
        "define i96 @m(i32 %a, i96 %b) {\n  %x = sext i32 %a to i96\n  %r = mul i96 %x, %b\n  ret i96 %r\n}\n",
    );
    assert_eq!(count(&f, &t, &MULS), 6);
}

#[test]
fn a_truncated_multiply_builds_only_the_demanded_columns() {
    // Only the low two limbs of the product are read: 3 partial products
    // (a0*b0, a0*b1, a1*b0) instead of the 10 of the whole i128.
    let (f, t) = legalized(
        "define i64 @m(i128 %a, i128 %b) {\n  %r = mul i128 %a, %b\n  %t = trunc i128 %r to i64\n  ret i64 %t\n}\n",
    );
    assert_eq!(count(&f, &t, &MULS), 3);
    // Through an add (a fused multiply-add) and a bitwise operation too.
    let (f, t) = legalized(
        "define i32 @m(i128 %a, i128 %b, i128 %c) {\n  %p = mul i128 %a, %b\n  %s = add i128 %p, %c\n  %x = xor i128 %s, %c\n  %t = trunc i128 %x to i32\n  ret i32 %t\n}\n",
    );
    assert_eq!(count(&f, &t, &MULS), 1);
    // Another use reading every limb keeps the whole multiply.
    let (f, t) = legalized(
        "define i64 @m(i128 %a, i128 %b, ptr addrspace(1) %p) {\n  %r = mul i128 %a, %b\n  store i128 %r, ptr addrspace(1) %p\n  %t = trunc i128 %r to i64\n  ret i64 %t\n}\n",
    );
    assert_eq!(count(&f, &t, &MULS), 10);
}

fn body_size(f: &MFunction, t: &Ref32) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| !["COPY", "RET", "MOVI"].contains(&t.instrs().name(i.opcode)))
        .count()
}

#[test]
fn a_multiply_feeding_one_add_is_fused() {
    let (mad, t) = legalized(
        "define i128 @m(i128 %a, i128 %b, i128 %c) {\n  %p = mul i128 %a, %b\n  %r = add i128 %p, %c\n  ret i128 %r\n}\n",
    );
    let (mul, _) =
        legalized("define i128 @m(i128 %a, i128 %b) {\n  %r = mul i128 %a, %b\n  ret i128 %r\n}\n");
    let (add, _) =
        legalized("define i128 @m(i128 %a, i128 %b) {\n  %r = add i128 %a, %b\n  ret i128 %r\n}\n");
    let fused = body_size(&mad, &t);
    let separate = body_size(&mul, &t) + body_size(&add, &t);
    assert!(
        fused < separate,
        "fused multiply-add: {fused} instructions, multiply then add: {separate}"
    );
    // Not fused when the product has another use.
    let (two, _) = legalized(
        "define i128 @m(i128 %a, i128 %b, i128 %c, ptr addrspace(1) %p) {\n  %m = mul i128 %a, %b\n  store i128 %m, ptr addrspace(1) %p\n  %r = add i128 %m, %c\n  ret i128 %r\n}\n",
    );
    assert!(count(&two, &t, &["G_UADDE"]) >= 2);
}

#[test]
fn no_value_is_wider_than_32_bits_after_legalization() {
    fn widen(f: &mut MFunction) {
        let rc = regdesc_ref32::regs::classes::GPR64;
        let v = f.new_vreg(rc);
        f.blocks[MBlockId(0)].insts.insert(
            0,
            regdesc_codegen::mir::MInst::new(
                regdesc_codegen::mir::InstrSet::generic().implicit_def,
                vec![Operand::Reg(RegOperand::def_of(RegRef::Virt(v), None))],
            ),
        );
    }
    let m = module("t.ll", "define i64 @f(i64 %a) {\n  ret i64 %a\n}\n");
    let opts = Options {
        stop_after: Some(Stage::Legalize),
        inject: Some((Stage::Legalize, widen)),
        ..Options::default()
    };
    match compile_function(&m.functions[0], &Ref32::new(), &opts) {
        Err(PipelineError::Verify { stage, diags, .. }) => {
            assert_eq!(stage, Stage::Legalize);
            assert!(
                diags
                    .iter()
                    .any(|d| d.message.contains("wider than 32 bits")),
                "{diags:?}"
            );
        }
        other => panic!("expected a width error, got {other:?}"),
    }
}

#[test]
fn a_broken_pass_is_caught_at_the_next_stage_boundary() {
    /// Drops the first instruction that defines a virtual register.
    fn drop_a_def(f: &mut MFunction) {
        for b in &mut f.blocks {
            if let Some(k) = b.insts.iter().position(|i| {
                i.ops
                    .first()
                    .and_then(Operand::reg)
                    .is_some_and(|r| r.is_def() && r.vreg().is_some())
            }) {
                b.insts.remove(k);
                return;
            }
        }
    }
    let m = module(
        "t.ll",
        "define i64 @f(i64 %a, i64 %b) {\n  %r = add i64 %a, %b\n  ret i64 %r\n}\n",
    );
    let opts = Options {
        verify_each: true,
        inject: Some((Stage::Select, drop_a_def)),
        ..Options::default()
    };
    let err = compile_function(&m.functions[0], &Ref32::new(), &opts).err();
    let Some(PipelineError::Verify { stage, diags, .. }) = &err else {
        panic!("expected the verifier to stop the pipeline, got {err:?}");
    };
    assert_eq!(*stage, Stage::Select);
    let text: Vec<String> = err
        .iter()
        .flat_map(|e| e.to_diags())
        .map(|d| d.message.clone())
        .collect();
    insta::assert_snapshot!(text.join("\n"));
    assert!(!diags.is_empty());
}
