//! Instruction semantics checked by hand on small programs: `@f(i32 a,
//! i32 b)` with `a` in v0 and `b` in v1, its result in v0.

use regdesc_amdgpu::sim::{simulate, Gfx};
use regdesc_codegen::interp::{GlobalMemory, LaneArg, Launch};
use regdesc_codegen::read_module;
use regdesc_codegen::value::Value;

const IR: &str = "define i32 @f(i32 %a, i32 %b) {\n  ret i32 %a\n}\n";

fn run(chip: Gfx, body: &str, a: u32, b: u32) -> Result<u32, String> {
    let m = read_module("f.ll", IR).map_err(|d| d.to_string())?;
    let f = m.function("f").ok_or("no @f")?;
    let asm = format!("f:\n{body}\n\ts_setpc_b64 s[30:31]\n");
    let args = vec![
        LaneArg::Uniform(Value::int(32, i128::from(a))),
        LaneArg::Uniform(Value::int(32, i128::from(b))),
    ];
    let mut mem = GlobalMemory::new(0);
    let r =
        simulate(chip, &asm, f, &Launch::lanes(1, args), &mut mem).map_err(|e| e.to_string())?;
    match r.first().and_then(|l| l.ret).and_then(|v| v.as_int()) {
        Some(v) => Ok(v.low_u64() as u32),
        None => Err("no result".into()),
    }
}

#[test]
fn permutes_and_bitfields() {
    let g = Gfx::Gfx900;
    // v_perm_b32: selector bytes 0-3 pick from src1, 4-7 from src0, 12 is
    // zero, 13+ is 0xff.
    assert_eq!(
        run(
            g,
            "\tv_perm_b32 v0, v0, v1, 0x0c0d0500",
            0x4433_2211,
            0x8877_6655
        ),
        Ok(0x00ff_2255)
    );
    // Sign bytes: 9 is v1's bit 31, 11 is v0's bit 31.
    assert_eq!(
        run(
            g,
            "\tv_mov_b32_e32 v2, 0x0b0a0908\n\tv_perm_b32 v0, v0, v1, v2",
            0x8000_0000,
            0x0000_8000
        ),
        Ok(0xff00_00ff)
    );
    assert_eq!(
        run(
            g,
            "\tv_alignbit_b32 v0, v0, v1, 8",
            0x1122_3344,
            0x5566_7788
        ),
        Ok(0x4455_6677)
    );
    assert_eq!(
        run(
            g,
            "\tv_alignbyte_b32 v0, v0, v1, 3",
            0x1122_3344,
            0x5566_7788
        ),
        Ok(0x2233_4455)
    );
    assert_eq!(
        run(g, "\tv_bfe_i32 v0, v0, 4, 8", 0x0000_0f80, 0),
        Ok(0xffff_fff8)
    );
    assert_eq!(run(g, "\tv_bfe_u32 v0, v0, 4, 8", 0x0000_0f80, 0), Ok(0xf8));
    assert_eq!(
        run(
            g,
            "\tv_bfi_b32 v0, 0xff00, v0, v1",
            0x1234_5678,
            0xabcd_ef01
        ),
        Ok(0xabcd_5601)
    );
    // s_bfe_u32: offset in bits 4:0, width in 22:16.
    assert_eq!(
        run(
            g,
            "\tv_readfirstlane_b32 s4, v0\n\ts_bfe_u32 s4, s4, 0x80004\n\tv_mov_b32_e32 v0, s4",
            0xabcd,
            0
        ),
        Ok(0xbc)
    );
}

#[test]
fn carries_and_wide_multiply() {
    let g = Gfx::Gfx900;
    // 0xffffffff + 1: carry into the high word.
    let body = "\tv_add_co_u32_e32 v0, vcc, v0, v1\n\tv_addc_co_u32_e64 v0, s[4:5], 0, 0, vcc";
    assert_eq!(run(g, body, u32::MAX, 1), Ok(1));
    // v_mad_u64_u32: 0xffffffff^2 + (2^64 - 1) carries out of 64 bits.
    let body = "\tv_mov_b32_e32 v2, -1\n\tv_mov_b32_e32 v3, -1\n\tv_mad_u64_u32 v[4:5], s[6:7], v0, v1, v[2:3]\n\tv_cndmask_b32_e64 v0, 0, 1, s[6:7]";
    assert_eq!(run(g, body, u32::MAX, u32::MAX), Ok(1));
    let body = "\tv_mov_b32_e32 v2, 0\n\tv_mov_b32_e32 v3, 0\n\tv_mad_u64_u32 v[4:5], null, v0, v1, v[2:3]\n\tv_mov_b32_e32 v0, v5";
    assert_eq!(run(Gfx::Gfx1030, body, u32::MAX, 3), Ok(2));
    // Borrow chains: 0 - 1 borrows.
    let body = "\tv_sub_co_u32_e32 v0, vcc, v0, v1\n\tv_subb_co_u32_e32 v0, vcc, 0, 0, vcc";
    assert_eq!(run(g, body, 0, 1), Ok(u32::MAX));
    let body = "\tv_readfirstlane_b32 s4, v0\n\ts_sub_u32 s4, s4, 1\n\ts_subb_u32 s5, 0, 0\n\tv_mov_b32_e32 v0, s5";
    assert_eq!(run(g, body, 0, 0), Ok(u32::MAX));
    assert_eq!(run(g, "\tv_mul_hi_u32 v0, v0, v1", 0x8000_0000, 6), Ok(3));
    assert_eq!(
        run(g, "\tv_mul_hi_i32 v0, v0, v1", 0x8000_0000, 6),
        Ok(0xffff_fffd)
    );
}

#[test]
fn sixteen_bit_results_by_generation() {
    // gfx9 zeroes the high half of a 16-bit result; gfx10 keeps it.
    let body = "\tv_add_u16_e32 v0, v0, v1";
    assert_eq!(run(Gfx::Gfx900, body, 0x1234_ffff, 2), Ok(0x0000_0001));
    assert_eq!(
        run(Gfx::Gfx1030, "\tv_add_nc_u16 v0, v0, v1", 0x1234_ffff, 2),
        Ok(0x1234_0001)
    );
    // gfx9's v_mad_u16 keeps it; v_mad_legacy_u16 zeroes it.
    assert_eq!(
        run(Gfx::Gfx900, "\tv_mad_u16 v0, v0, v1, 1", 0x1234_0003, 5),
        Ok(0x1234_0010)
    );
    assert_eq!(
        run(
            Gfx::Gfx900,
            "\tv_mad_legacy_u16 v0, v0, v1, 1",
            0x1234_0003,
            5
        ),
        Ok(0x10)
    );
    // op_sel: high halves in, high half out.
    assert_eq!(
        run(
            Gfx::Gfx900,
            "\tv_add_u16_e64 v0, v0, v1 op_sel:[1,1,1]",
            0x0005_1111,
            0x0007_2222
        ),
        Ok(0x000c_1111)
    );
    // Packed: op_sel_hi:[1,0] applies the constant to both halves.
    assert_eq!(
        run(
            Gfx::Gfx900,
            "\tv_pk_add_u16 v0, v0, 1 op_sel_hi:[1,0]",
            0x0001_ffff,
            0
        ),
        Ok(0x0002_0000)
    );
    assert_eq!(
        run(
            Gfx::Gfx900,
            "\tv_pk_add_f16 v0, v0, 1.0 op_sel_hi:[1,0]",
            0x3c00_4000,
            0
        ),
        Ok(0x4000_4200)
    );
    // SDWA: WORD_1 sources, WORD_1 destination, the low half zeroed.
    let body = "\tv_add_f16_sdwa v0, v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_1";
    assert_eq!(
        run(Gfx::Gfx900, body, 0x3c00_1234, 0x3c00_5678),
        Ok(0x4000_0000)
    );
}

#[test]
fn scalar_flags_and_masks() {
    let g = Gfx::Gfx900;
    let body = "\tv_readfirstlane_b32 s4, v0\n\tv_readfirstlane_b32 s5, v1\n\ts_cmp_lt_i32 s4, s5\n\ts_cselect_b32 s6, 1, 2\n\tv_mov_b32_e32 v0, s6";
    assert_eq!(run(g, body, (-3i32) as u32, 2), Ok(1));
    assert_eq!(run(g, body, 3, 2), Ok(2));
    let body = "\tv_readfirstlane_b32 s4, v0\n\ts_cmpk_lt_i32 s4, 0xfff0\n\ts_cselect_b32 s6, 1, 2\n\tv_mov_b32_e32 v0, s6";
    assert_eq!(run(g, body, (-17i32) as u32, 0), Ok(1));
    // A branch on SCC.
    let body = "\tv_readfirstlane_b32 s4, v0\n\ts_cmp_eq_u32 s4, 0\n\ts_cbranch_scc1 .L1\n\tv_mov_b32_e32 v0, 7\n.L1:";
    assert_eq!(run(g, body, 0, 0), Ok(0));
    assert_eq!(run(g, body, 5, 0), Ok(7));
    // v_cmpx on gfx10 writes EXEC only: the move runs in no lane.
    let body = "\ts_mov_b32 s4, exec_lo\n\tv_cmpx_eq_u32_e32 0, v0\n\tv_mov_b32_e32 v0, 9\n\ts_mov_b32 exec_lo, s4";
    assert_eq!(run(Gfx::Gfx1030, body, 1, 0), Ok(1));
    assert_eq!(run(Gfx::Gfx1030, body, 0, 0), Ok(9));
}

#[test]
fn narrow_arguments_have_undefined_high_bits() {
    use regdesc_amdgpu::sim::{simulate_with, SimOptions};
    // Returns the high half of the i16 argument's register as an i16.
    let ir = "define i16 @f(i16 %a) {\n  ret i16 %a\n}\n";
    let asm = "f:\n\tv_lshrrev_b32_e32 v0, 16, v0\n\ts_setpc_b64 s[30:31]\n";
    let Ok(m) = read_module("f.ll", ir) else {
        panic!("bad IR");
    };
    let Some(f) = m.function("f") else {
        panic!("no @f");
    };
    let high = |zero: bool| {
        let launch = Launch::lanes(1, vec![LaneArg::Uniform(Value::int(16, 5))]);
        let opts = SimOptions {
            zero_narrow_args: zero,
            inreg_in_sgprs: false,
        };
        simulate_with(
            Gfx::Gfx900,
            asm,
            f,
            &launch,
            &mut GlobalMemory::new(0),
            opts,
        )
        .ok()
        .and_then(|r| r.first().and_then(|l| l.ret))
        .and_then(|v| v.as_int())
        .map(|v| v.low_u64())
    };
    assert_ne!(high(false), Some(0));
    assert_eq!(high(true), Some(0));
}

/// The 24-bit multiplies read the low 24 bits of each factor, signed:
/// `v_mul_i32_i24` the low 32 bits of the 48-bit product, `v_mul_hi_i32_i24`
/// the high 16 sign-extended, `v_mad_i32_i24` adds a 32-bit third operand.
/// (The sign limb `0xffffffff` is `-1`; llc 14's wide multiplies use these
/// on it, see `sim_llc.rs`.)
#[test]
fn i24_multiplies() {
    let g = Gfx::Gfx900;
    assert_eq!(
        run(
            g,
            "\tv_mul_i32_i24_e32 v0, v0, v1",
            0xffff_ffff,
            0xffff_fffb
        ),
        Ok(5)
    );
    // Bits above 24 are ignored: 0x0180_0000 is -2^23.
    assert_eq!(
        run(g, "\tv_mul_i32_i24_e32 v0, v0, v1", 0x0180_0000, 2),
        Ok(0xff00_0000)
    );
    assert_eq!(
        run(
            g,
            "\tv_mul_hi_i32_i24_e32 v0, v0, v1",
            0x007f_ffff,
            0x007f_ffff
        ),
        Ok(0x3fff)
    );
    // -2^23 * 2^23 - 1 ... negative: the high half is sign-extended.
    assert_eq!(
        run(
            g,
            "\tv_mul_hi_i32_i24_e32 v0, v0, v1",
            0x0080_0000,
            0x007f_ffff
        ),
        Ok(0xffff_c000)
    );
    assert_eq!(
        run(g, "\tv_mul_hi_i32_i24_e32 v0, -5, v0", 0xffff_ffff, 0),
        Ok(0)
    );
    assert_eq!(
        run(g, "\tv_mad_i32_i24 v0, v0, -5, v1", 0xffff_ffff, 7),
        Ok(12)
    );
}
