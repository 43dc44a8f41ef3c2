//! The emitter's operand rules and the back end's errors: a rule broken
//! is an error naming the instruction; a construct the back end does not
//! compile is a located `target::unsupported` error naming it, never a
//! panic.

mod common;

use regdesc_codegen::legalize::LegalizeError;
use regdesc_codegen::pipeline::{compile_function, Options, PipelineError};
use regdesc_codegen::read_module;
use regdesc_codegen::target::TargetError;
use regdesc_intel::isa::{Dst, Inst, Op, RegName, Region, Src, Ty};
use regdesc_intel::regions::check;
use regdesc_intel::{Gen, Platform};

fn src(nr: u8, region: Region, ty: Ty) -> Src {
    Src::Reg {
        reg: RegName::Grf { nr, sub: 0 },
        region,
        ty,
        neg: false,
    }
}

fn dst(nr: u8, h: u8, ty: Ty) -> Dst {
    Dst {
        reg: RegName::Grf { nr, sub: 0 },
        h,
        ty,
    }
}

#[test]
fn a_strided_simd16_source_over_two_grfs_is_an_error_naming_the_instruction() {
    // <16;8,2>:ud at SIMD16 reads 4 GRFs; IGA accepts it.
    let i = Inst::new(
        Op::Mov,
        16,
        dst(10, 1, Ty::Ud),
        vec![src(20, Region::EVERY_OTHER, Ty::Ud)],
    );
    let e = check(&i, Platform::Gen11).unwrap_err();
    assert!(e
        .to_string()
        .contains("mov (16|M0) r10.0<1>:ud r20.0<16;8,2>:ud"));
    assert!(e.rule.contains("spans 4 GRFs"), "{e}");
    // The word view of the same dwords is fine.
    let ok = Inst::new(
        Op::Mov,
        16,
        dst(10, 1, Ty::Ud),
        vec![src(20, Region::EVERY_OTHER, Ty::Uw)],
    );
    assert!(check(&ok, Platform::Gen11).is_ok());
}

#[test]
fn a_strided_destination_over_two_grfs_is_an_error() {
    let i = Inst::new(
        Op::Mov,
        16,
        dst(10, 2, Ty::Ud),
        vec![src(20, Region::PACKED, Ty::Ud)],
    );
    let e = check(&i, Platform::Gen9).unwrap_err();
    assert!(e.rule.contains("destination spans 4 GRFs"), "{e}");
}

#[test]
fn the_accumulator_is_read_by_mov_and_as_src0_of_add_before_gen12lp() {
    let acc = Src::Reg {
        reg: RegName::Acc { nr: 0, sub: 0 },
        region: Region::PACKED,
        ty: Ty::Ud,
        neg: false,
    };
    let r12 = src(12, Region::PACKED, Ty::Ud);
    // iga64 -Wall -p=9|11 accept acc0 as src0 of add (the carry added in).
    let add = Inst::new(Op::Add, 8, dst(10, 1, Ty::Ud), vec![acc, r12]);
    assert!(check(&add, Platform::Gen9).is_ok());
    assert!(check(&add, Platform::Gen11).is_ok());
    let e = check(&add, Platform::Gen12lp).unwrap_err();
    assert!(e.rule.contains("Gen12LP"), "{e}");
    // ... and reject it as src1.
    let add1 = Inst::new(Op::Add, 8, dst(10, 1, Ty::Ud), vec![r12, acc]);
    for p in Platform::ALL {
        assert!(check(&add1, p).is_err(), "{p:?}");
    }
    let xor = Inst::new(Op::Xor, 8, dst(10, 1, Ty::Ud), vec![acc, r12]);
    for p in Platform::ALL {
        assert!(check(&xor, p).is_err(), "{p:?}");
    }
    let mov = Inst::new(Op::Mov, 8, dst(10, 1, Ty::Ud), vec![acc]);
    assert!(check(&mov, Platform::Gen12lp).is_ok());
}

#[test]
fn region_shape_rules() {
    let bad_width = Inst::new(
        Op::Mov,
        8,
        dst(10, 1, Ty::Ud),
        vec![src(20, Region { v: 8, w: 16, h: 1 }, Ty::Ud)],
    );
    assert!(check(&bad_width, Platform::Gen9).is_err());
    let bad_vstride = Inst::new(
        Op::Mov,
        8,
        dst(10, 1, Ty::Ud),
        vec![src(20, Region { v: 4, w: 8, h: 1 }, Ty::Ud)],
    );
    assert!(check(&bad_vstride, Platform::Gen9).is_err());
    let scalar_stride = Inst::new(
        Op::Mov,
        8,
        dst(10, 1, Ty::Ud),
        vec![src(20, Region { v: 0, w: 1, h: 1 }, Ty::Ud)],
    );
    assert!(check(&scalar_stride, Platform::Gen9).is_err());
}

#[test]
fn unsupported_constructs_are_named_errors_not_panics() {
    // Global memory outside a kernel (whose payload would bring the
    // pointer) is refused at the store.
    let text = "define void @k(ptr addrspace(1) %out, i32 %v) {\n  store i32 %v, ptr addrspace(1) %out\n  ret void\n}\n";
    let m = read_module("k.ll", text).expect("parses");
    for p in Platform::ALL {
        for s in common::SIMDS {
            let e = compile_function(&m.functions[0], &Gen::new(p, s), &Options::default())
                .expect_err("global memory is not supported");
            let (what, span) = match &e {
                PipelineError::Legalize(LegalizeError::Target(TargetError::Unsupported {
                    what,
                    span,
                })) => (what.clone(), span.clone()),
                other => panic!("unexpected error: {other}"),
            };
            assert!(
                what.contains("global memory") && what.contains("@k"),
                "{what}"
            );
            // Located at the store.
            let at = span.expect("a location");
            assert!(text[at].starts_with("store"));
            let d = e.to_diags();
            assert_eq!(d[0].code, "target::unsupported");
        }
    }
}

#[test]
fn no_function_needs_the_unsupported_list_beyond_memory_with_jumps_on_gen12lp() {
    let mods = common::modules();
    let (_, rejected) = common::compile_all(&mods);
    // compile_all asserts each rejection is on the list; here the list
    // has no stale entry.
    assert_eq!(rejected.len(), common::UNSUPPORTED.len());
}
