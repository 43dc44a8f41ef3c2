//! The simulator's diagnostics (snapshots) and a few semantics checked by
//! hand: SDWA `dst_unused`, out-of-order scalar loads, EXEC masking.

use regdesc_amdgpu::sim::{simulate, Gfx};
use regdesc_codegen::interp::{GlobalMemory, LaneArg, Launch};
use regdesc_codegen::value::Value;
use regdesc_codegen::{read_module, Source};

/// Simulates `asm`'s @f (signature from `ir`) on `lanes` lanes with
/// per-lane i32 arguments; gives the rendered error or the results.
fn sim(
    chip: Gfx,
    ir: &str,
    asm: &str,
    args: Vec<LaneArg>,
    lanes: u32,
) -> Result<Vec<String>, String> {
    let m = read_module("f.ll", ir).map_err(|d| d.render(false))?;
    let f = m.function("f").ok_or("no @f")?;
    let mut mem = GlobalMemory::new(64);
    let launch = Launch::lanes(lanes, args);
    simulate(chip, asm, f, &launch, &mut mem)
        .map(|r| {
            r.iter()
                .map(|x| x.ret.map_or("void".into(), |v| v.to_string()))
                .collect()
        })
        .map_err(|e| e.render(&Source::new("f.s", asm), false))
}

const I32_FN: &str = "define i32 @f(i32 %a, i32 %b) {\n  ret i32 %a\n}\n";
const LOAD_FN: &str =
    "define i32 @f(ptr addrspace(1) %p) {\n  %v = load i32, ptr addrspace(1) %p\n  ret i32 %v\n}\n";

fn i32s(v: &[i32]) -> LaneArg {
    LaneArg::PerLane(v.iter().map(|x| Value::int(32, i128::from(*x))).collect())
}

fn err(chip: Gfx, ir: &str, asm: &str, args: Vec<LaneArg>) -> String {
    match sim(chip, ir, asm, args, 1) {
        Ok(r) => format!("unexpected success: {r:?}"),
        Err(e) => e,
    }
}

#[test]
fn unknown_instruction() {
    let asm = "f:\n\tv_frobnicate_b32 v0, v1\n\ts_setpc_b64 s[30:31]\n";
    insta::assert_snapshot!(err(Gfx::Gfx900, I32_FN, asm, vec![i32s(&[1]), i32s(&[2])]));
}

#[test]
fn read_before_waitcnt() {
    let asm = "f:\n\ts_waitcnt vmcnt(0) lgkmcnt(0)\n\tglobal_load_dword v2, v[0:1], off\n\tv_add_u32_e32 v0, 1, v2\n\ts_waitcnt vmcnt(0)\n\ts_setpc_b64 s[30:31]\n";
    let p = LaneArg::Uniform(Value::Ptr(8));
    insta::assert_snapshot!(err(Gfx::Gfx900, LOAD_FN, asm, vec![p]));
}

#[test]
fn returned_before_waitcnt() {
    let asm = "f:\n\tglobal_load_dword v0, v[0:1], off\n\ts_setpc_b64 s[30:31]\n";
    let p = LaneArg::Uniform(Value::Ptr(8));
    insta::assert_snapshot!(err(Gfx::Gfx1030, LOAD_FN, asm, vec![p]));
}

#[test]
fn bad_operand() {
    let asm = "f:\n\ts_mov_b32 s0, v[0:1]\n\ts_setpc_b64 s[30:31]\n";
    insta::assert_snapshot!(err(Gfx::Gfx900, I32_FN, asm, vec![i32s(&[1]), i32s(&[2])]));
}

#[test]
fn unknown_label_and_missing_function() {
    let asm = "f:\n\ts_branch .LBB0_7\n";
    insta::assert_snapshot!(err(Gfx::Gfx900, I32_FN, asm, vec![i32s(&[1]), i32s(&[2])]));
    insta::assert_snapshot!(err(
        Gfx::Gfx900,
        I32_FN,
        "g:\n\ts_setpc_b64 s[30:31]\n",
        vec![i32s(&[1]), i32s(&[2])]
    ));
}

#[test]
fn sdwa_dst_unused() {
    // v0 = 0x1234_8001, v1 = 0x0000_00ff; result of v_add_u16 = 0x8100.
    let run = |unused: &str| {
        let asm = format!(
            "f:\n\tv_add_u16_sdwa v0, v0, v1 dst_sel:BYTE_1 dst_unused:{unused} src0_sel:WORD_0 src1_sel:BYTE_0\n\ts_setpc_b64 s[30:31]\n"
        );
        sim(
            Gfx::Gfx900,
            I32_FN,
            &asm,
            vec![i32s(&[0x1234_8001]), i32s(&[0xff])],
            1,
        )
    };
    // 0x8001 + 0xff = 0x8100: its low byte 0x00 goes to byte 1.
    assert_eq!(run("UNUSED_PAD"), Ok(vec!["i32 0".to_string()]));
    assert_eq!(
        run("UNUSED_PRESERVE"),
        Ok(vec![format!("i32 {}", 0x1234_0001)])
    );
    let asm = "f:\n\tv_mov_b32_sdwa v0, v0 dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:BYTE_1\n\ts_setpc_b64 s[30:31]\n";
    // Byte 1 of 0x0000_8000 is 0x80; WORD_0 gets 0x0080, bit 15 clear: no sign.
    assert_eq!(
        sim(
            Gfx::Gfx900,
            I32_FN,
            asm,
            vec![i32s(&[0x8000]), i32s(&[0])],
            1
        ),
        Ok(vec!["i32 128".to_string()])
    );
    let asm = "f:\n\tv_mov_b32_sdwa v0, sext(v0) dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:BYTE_1\n\ts_setpc_b64 s[30:31]\n";
    assert_eq!(
        sim(
            Gfx::Gfx900,
            I32_FN,
            asm,
            vec![i32s(&[0x8000]), i32s(&[0])],
            1
        ),
        Ok(vec!["i32 -128".to_string()])
    );
}

#[test]
fn exec_masking_and_wave32() {
    // Lanes with a < b take b; the others keep a.
    let asm = "f:\n\tv_cmp_lt_i32_e32 vcc_lo, v0, v1\n\ts_and_saveexec_b32 s4, vcc_lo\n\tv_mov_b32_e32 v0, v1\n\ts_or_b32 exec_lo, exec_lo, s4\n\ts_setpc_b64 s[30:31]\n";
    let r = sim(
        Gfx::Gfx1030,
        I32_FN,
        asm,
        vec![i32s(&[1, 5, -3]), i32s(&[2, 4, -4])],
        3,
    );
    assert_eq!(
        r,
        Ok(vec![
            "i32 2".to_string(),
            "i32 5".to_string(),
            "i32 -3".to_string()
        ])
    );
}

#[test]
fn scalar_loads_return_out_of_order() {
    // Two outstanding s_loads: lgkmcnt(1) does not say which one is back.
    let ir = "define amdgpu_kernel void @f(ptr addrspace(1) %p, i32 %k) {\n  store i32 %k, ptr addrspace(1) %p\n  ret void\n}\n";
    let asm = "f:\n\ts_load_dwordx2 s[0:1], s[4:5], 0x0\n\ts_load_dword s2, s[4:5], 0x8\n\ts_waitcnt lgkmcnt(1)\n\tv_mov_b32_e32 v1, s2\n\ts_endpgm\n\t.amdhsa_kernel f\n\t\t.amdhsa_user_sgpr_private_segment_buffer 1\n\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1\n\t.end_amdhsa_kernel\n";
    let args = vec![
        LaneArg::Uniform(Value::Ptr(0)),
        LaneArg::Uniform(Value::int(32, 7)),
    ];
    insta::assert_snapshot!(err(Gfx::Gfx900, ir, asm, args));
}

/// Mangled llc output (characters dropped, operands swapped, lines moved,
/// numbers changed) gives a result or an error, never a panic.
#[test]
fn mangled_assembly_never_panics() {
    use regdesc_codegen::rng::Rng;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = [
        (
            "tests/sim/kernel_memory.gfx900.s",
            "../codegen/tests/fixtures/kernel_memory.ll",
            Gfx::Gfx900,
        ),
        (
            "tests/sim/half_bits.gfx1030.s",
            "../codegen/tests/fixtures/half_bits.ll",
            Gfx::Gfx1030,
        ),
        (
            "tests/sim/wide_shifts.gfx90a.s",
            "../codegen/tests/fixtures/wide_shifts.ll",
            Gfx::Gfx90a,
        ),
    ];
    let mut rng = Rng::new(14);
    let mut errors = 0;
    for (asm, ir, chip) in cases {
        let asm = std::fs::read_to_string(dir.join(asm)).unwrap_or_default();
        let ir = std::fs::read_to_string(dir.join(ir)).unwrap_or_default();
        let Ok(m) = read_module("f.ll", &ir) else {
            panic!("cannot read the IR");
        };
        let lines: Vec<&str> = asm.lines().collect();
        let tokens: Vec<&str> = asm
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .collect();
        for _ in 0..150 {
            let mut ls: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            for _ in 0..1 + rng.below(3) {
                let k = rng.below(ls.len());
                let l = ls[k].clone();
                ls[k] = match rng.below(5) {
                    0 if !l.is_empty() => {
                        let at = rng.below(l.len());
                        l.char_indices()
                            .filter(|(i, _)| *i != at)
                            .map(|(_, c)| c)
                            .collect()
                    }
                    1 => {
                        let t = rng.pick(&tokens);
                        let words: Vec<&str> = l.split(' ').collect();
                        let w = rng.below(words.len());
                        words
                            .iter()
                            .enumerate()
                            .map(|(i, x)| if i == w { t } else { x })
                            .collect::<Vec<_>>()
                            .join(" ")
                    }
                    2 => ls[rng.below(ls.len())].clone(),
                    3 => l.replace(|c: char| c.is_ascii_digit(), &rng.below(300).to_string()),
                    _ => String::new(),
                };
            }
            let text = ls.join("\n");
            for f in &m.functions {
                let args = f
                    .params
                    .iter()
                    .map(|p| match f.value(*p).ty {
                        regdesc_codegen::ir::Type::Ptr => LaneArg::Uniform(Value::Ptr(0)),
                        ty => LaneArg::Uniform(regdesc_codegen::differential::random_value(
                            &mut rng, ty,
                        )),
                    })
                    .collect();
                let mut launch = Launch::lanes(chip.wave_size() as u32, args);
                launch.max_steps = 20_000;
                let mut mem = GlobalMemory::new(4096);
                if simulate(chip, &text, f, &launch, &mut mem).is_err() {
                    errors += 1;
                }
            }
        }
    }
    assert!(errors > 0, "mangling never produced an error");
}

/// A wrong program is caught, and the report is the `regdesc-cc sim`
/// command that replays it.
#[test]
fn mismatch_gives_a_reproducing_command() {
    use regdesc_amdgpu::sim::check::{compare, CheckConfig};
    let ir = "define i64 @f(i64 %a, i64 %b) {\n  %r = add i64 %a, %b\n  ret i64 %r\n}\n";
    // The high half forgets the carry.
    let asm = "f:\n\tv_add_co_u32_e32 v0, vcc, v0, v2\n\tv_add_u32_e32 v1, v1, v3\n\ts_setpc_b64 s[30:31]\n";
    let m = read_module("f.ll", ir).map_err(|d| d.render(false));
    let f = m.as_ref().ok().and_then(|m| m.function("f"));
    let prog = regdesc_amdgpu::sim::parse::parse(asm);
    let (Some(f), Ok(prog)) = (f, prog) else {
        panic!("cannot read the test input");
    };
    let cfg = CheckConfig {
        chip: Gfx::Gfx900,
        lanes: 64,
        inputs: 256,
        seed: 1,
        asm_file: "f.s".into(),
        ir_file: "f.ll".into(),
        options: Default::default(),
    };
    let Err(mm) = compare(&prog, f, &cfg) else {
        panic!("the missing carry went unnoticed");
    };
    assert!(
        mm.command
            .starts_with("regdesc-cc sim --target gfx900 f.s --ir f.ll --fn f --lanes 64"),
        "{}",
        mm.command
    );
    assert!(mm.expected.contains("lane "), "{}", mm.expected);
    assert!(mm.error.is_none());
}
