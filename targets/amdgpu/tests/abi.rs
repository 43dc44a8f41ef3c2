//! The calling conventions: plain functions' words in `v0..`, kernels'
//! kernarg offsets and sizes as `llc -mtriple=amdgcn-amd-amdhsa` lays
//! them out (`scale`: `s_load_dword s4, s[4:5], 0x10` for `%k`, kernarg
//! size 20; `mul128_uniform`: `i128` at 8 and 24, size 40).

use regdesc_amdgpu::abi::{abi, kernel_layout};
use regdesc_codegen::read_module;
use regdesc_codegen::target::{TargetError, WordLoc};
use regdesc_runtime::RegisterInfo;

fn function(text: &str, name: &str) -> regdesc_codegen::ir::Function {
    let m = read_module("test.ll", text).unwrap_or_else(|d| panic!("{}", d.render(false)));
    m.function(name).cloned().expect("the function")
}

#[test]
fn plain_functions_pass_words_in_vgprs() {
    let f = function(
        "define i64 @f(i32 %a, i64 %b) {\n  %x = zext i32 %a to i64\n  %r = add i64 %x, %b\n  ret i64 %r\n}\n",
        "f",
    );
    let a = abi(&f).expect("an ABI");
    let t = regdesc_amdgpu::Gfx::Gfx900.tables();
    let names =
        |w: &[WordLoc]| -> Vec<&str> { w.iter().map(|WordLoc::Reg(r)| t.asm_name(*r)).collect() };
    assert_eq!(names(&a.args[0]), ["v0"]);
    assert_eq!(names(&a.args[1]), ["v1", "v2"]);
    assert_eq!(names(&a.ret), ["v0", "v1"]);
}

#[test]
fn too_many_argument_words_is_a_located_error() {
    // 32 words: LLVM passes 31 in v0..v30 (v31 brings the work-item ids).
    let f = function(
        "define i32 @f(i256 %a, i256 %b, i256 %c, i256 %d) {\n  ret i32 0\n}\n",
        "f",
    );
    assert!(matches!(
        abi(&f),
        Err(TargetError::AbiOverflow {
            words: 32,
            available: 31,
            ..
        })
    ));
}

#[test]
fn kernarg_offsets_follow_llc() {
    let f = function(
        "define amdgpu_kernel void @scale(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %k) {\n  ret void\n}\n",
        "scale",
    );
    let (words, size) = kernel_layout(&f).expect("a layout");
    let offs: Vec<u32> = words.iter().map(|w| w.offset).collect();
    assert_eq!(offs, [0, 4, 8, 12, 16]);
    assert_eq!(size, 20);
    let f = function(
        "define amdgpu_kernel void @m(ptr addrspace(1) %out, i128 %a, i128 %b) {\n  ret void\n}\n",
        "m",
    );
    let (words, size) = kernel_layout(&f).expect("a layout");
    assert_eq!(words[2].offset, 8);
    assert_eq!(words[6].offset, 24);
    assert_eq!(size, 40);
    let f = function(
        "define amdgpu_kernel void @n(i8 %a, i16 %b, half %h, i32 %k) {\n  ret void\n}\n",
        "n",
    );
    let (words, size) = kernel_layout(&f).expect("a layout");
    let got: Vec<(u32, u32)> = words.iter().map(|w| (w.offset, w.bits)).collect();
    assert_eq!(got, [(0, 8), (2, 16), (4, 16), (8, 32)]);
    assert_eq!(size, 12);
}

/// Odd widths take their allocation size, not their store size: llc 14
/// puts `k`'s arguments at 0, 8, 32, 40 and 72 (`.amdhsa_kernarg_size 76`).
/// Advancing by the store size put `%b` at 28 and everything after it
/// 4 bytes early.
#[test]
fn kernarg_offsets_skip_the_padding_of_odd_widths() {
    let f = function(
        "define amdgpu_kernel void @k(ptr addrspace(1) %out, i160 %a, i24 %b, i200 %c, i32 %d) {\n  ret void\n}\n",
        "k",
    );
    let (words, size) = kernel_layout(&f).expect("a layout");
    let first = |arg: usize| words.iter().find(|w| w.arg == arg).map(|w| w.offset);
    let offs: Vec<Option<u32>> = (0..5).map(first).collect();
    assert_eq!(offs, [Some(0), Some(8), Some(32), Some(40), Some(72)]);
    assert_eq!(size, 76);
    let b = words.iter().find(|w| w.arg == 2).expect("%b's word");
    assert_eq!(b.bits, 24);
}
