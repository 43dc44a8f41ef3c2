//! The target-neutral back-end layer of regdesc's GPU code generators
//! (Intel Gen and AMD GCN): a reader for a documented subset of LLVM IR
//! text, an SSA verifier, a reference interpreter, a uniformity
//! (divergence) analysis, wide-integer legalization, machine IR, a
//! register allocator driven by the generated tables, a machine
//! interpreter, the [`target::Target`] interface and the
//! [`pipeline`] that chains them.
//!
//! ```
//! use regdesc_codegen::{interp, read_module, uniformity::Uniformity, value::Value};
//!
//! let m = read_module("add.ll", "define i64 @add(i64 %a, i64 %b) {\n  %r = add i64 %a, %b\n  ret i64 %r\n}\n")
//!     .map_err(|e| e.render(false))?;
//! let f = m.function("add").ok_or("no @add")?;
//! let mut mem = interp::GlobalMemory::new(0);
//! let out = interp::run(f, &interp::Launch::single(vec![Value::int(64, 5), Value::int(64, -3)]), &mut mem)
//!     .map_err(|e| e.to_string())?;
//! assert_eq!(out[0].ret.map(|v| v.to_string()).as_deref(), Some("i64 2"));
//! let u = Uniformity::analyze(f);
//! assert!(u.is_divergent(f.params[0])); // plain functions get their arguments per lane
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The accepted subset of LLVM IR
//!
//! The text is LLVM 14's assembly syntax, with opaque or typed pointers. Anything
//! outside this list is rejected with a located error (`file:line:col`, a
//! label, a help line), never a panic.
//!
//! | construct | accepted | notes |
//! |---|---|---|
//! | top level | `define`; `declare`, `target datalayout/triple`, `source_filename`, `attributes #N = {...}`, metadata (`!N = ...`, `!name = ...`), comments | everything but `define` is accepted and ignored; global variables, named types, `module asm` are rejected |
//! | functions | plain (callable, `spir_func`), `amdgpu_kernel`, `spir_kernel` | linkage, visibility, `dso_local`, `unnamed_addr`, return and parameter attributes (`noundef`, `align N`, `dereferenceable(N)`, ...), `#N`, `!kernel_arg_* !N`, `section`, `align` are ignored; other calling conventions and varargs are rejected |
//! | types | `iN` (N from 1 to 512: `i1` `i8` `i16` `i32` `i64` `i96` `i128` `i192` `i256` `i512` ...) `half` `float` `<2 x i16>` `<2 x half>` `<2 x i32>` `ptr addrspace(1)` (also written as LLVM 14's typed `T addrspace(1)*`, read as opaque); `void` as a return type | no wider integers, `double`, arrays and structs as values, pointers in other address spaces (`ptr`, `i32*`) |
//! | names | `%name`, `%"quoted"`, numbered `%0` `%1` ..., unnamed values and blocks (numbered in order, as LLVM does) | forward references allowed |
//! | blocks | labels `name:` / `5:`, blocks started implicitly after a terminator | every block ends with `br` or `ret` |
//! | `phi` | `phi T [ v, %bb ], ...` | one entry per predecessor edge; at the top of the block |
//! | `br`, `ret` | `br label %b`, `br i1 %c, label %t, label %f`, `ret T v`, `ret void` | no `switch`, `unreachable`, ... |
//! | integer arithmetic | `add` `sub` `mul` `and` `or` `xor` `shl` `lshr` `ashr` on integers and `<2 x i16>`/`<2 x i32>` | `nuw`/`nsw` on add, sub, mul, shl; `exact` on lshr, ashr |
//! | comparisons | `icmp eq/ne/ugt/uge/ult/ule/sgt/sge/slt/sle` on integers and pointers | vector `icmp` (`<2 x i1>`) is rejected |
//! | `select` | `select i1 %c, T %a, T %b` | any type |
//! | casts | `zext` `sext` `trunc` (also element-wise `<2 x i16>` <-> `<2 x i32>`), `bitcast` between types of equal size (`half`<->`i16`, `i32`<->`<2 x i16>`<->`<2 x half>`<->`float`, `i64`<->`<2 x i32>`) | no `ptrtoint`, `fpext`, ... |
//! | vectors | `extractelement`, `insertelement` with an integer index | |
//! | floating point | `fadd` `fsub` `fmul` on `half`, `float`, `<2 x half>` | fast-math flags accepted (see the interpreter for `nnan`/`ninf`) |
//! | memory | `load T, ptr addrspace(1) %p`, `store T %v, ptr addrspace(1) %p` (`, align N` accepted), `getelementptr [inbounds] T, ptr addrspace(1) %p, iN %i, ...` (further indices walk into vector, array and literal struct types `T`, struct fields by constant; see `ir::gep`) | no `volatile`, atomics, `alloca`, named struct types |
//! | calls | `call i32 @llvm.amdgcn.workitem.id.x()`, `call i32 @llvm.amdgcn.workgroup.id.x()`, `call i64 @_Z13get_global_idj(i32 0)` / `@get_global_id` (also returning `i32`), OpenCL's scalar `mul_hi` (`@_Z6mul_himm` and the other 7 manglings) | `tail`, call attributes, `#N` accepted; any other callee is rejected |
//! | constants | decimal integers (wrapped to the width, as LLVM does), `true`/`false`, `1.5`/`1.0e+10` and `0x...` (a double's bits) for `float`/`half` when exact, `0xH3C00` for `half`, `<T a, T b>`, `zeroinitializer`, `null` | `undef`/`poison` are rejected: the subset is poison-free; no constant expressions |
//! | metadata and attributes | `, !tbaa !5` after instructions, `#N` after calls | ignored |
//!
//! # Stages
//!
//! - [`ir`]: the data structures, the pest grammar and builder ([`ir::parse`]),
//!   the CFG with dominators, post-dominators and cycles ([`ir::cfg`]), the
//!   SSA verifier ([`ir::verify`]) and a printer ([`ir::print`]).
//! - [`interp`]: runs a function over N lanes with LLVM's semantics.
//! - [`uniformity`]: which values and branches are uniform across lanes.
//! - [`value`]: values and their LLVM constant text.
//! - [`legalize`]: IR to generic machine IR on 32-bit limbs.
//! - [`mir`], [`regalloc`]: machine IR, its passes and interpreter, and the
//!   register allocator.
//! - [`target`], [`pipeline`]: the back-end interface and the driver every
//!   tool calls; [`execute`] and [`differential`] run machine code against
//!   the IR.
//! - [`source`], [`diag`]: source texts, and located diagnostics rendered
//!   with miette.

pub mod cli_values;
pub mod diag;
pub mod differential;
pub mod execute;
pub mod interp;
pub mod ir;
pub mod legalize;
pub mod mir;
pub mod pipeline;
pub mod regalloc;
pub mod rng;
pub mod source;
pub mod target;
pub mod tree_order;
pub mod types;
pub mod uniformity;
pub mod value;

pub use diag::{Diag, Diagnostics};
pub use ir::{Module, Source};

/// Parses and verifies a module: the way every tool reads its input.
pub fn read_module(name: &str, text: &str) -> Result<Module, Diagnostics> {
    let m = ir::parse::parse_module(Source::new(name, text))?;
    ir::verify::verify_module(&m)?;
    Ok(m)
}
