//! The Intel Gen back end (Gen9 `skl`, Gen11 `icllp`, Gen12LP `tgllp`):
//! its register description, instruction selection at SIMD8 and SIMD16,
//! emission in IGA syntax, Gen12LP software scoreboard annotations, and a
//! Gen simulator ([`sim`]) that runs the emitted assembly.
//!
//! | module | hardware fact it serves |
//! |---|---|
//! | [`target`] | platforms and SIMD widths; the [`Target`](regdesc_codegen::target::Target) implementation |
//! | [`abi`] | the thread payload shape: arguments preloaded per channel from `r1`; a kernel's payload as IGC lays it out (`r0` group id, `r1..r3` local ids, cross-thread data from `r4`, as `ocloc` reports) |
//! | [`select`] | Gen's integer instructions, carries through `acc0`, `mul`/`mach`; [`select::memory`]: global accesses as A64 scattered messages, the payload reads |
//! | [`iadd64_split`] | no 64-bit integer ALU on Gen11/Gen12LP: the seed's split 64-bit adds, formed after selection |
//! | [`mul64`] | `mul acc0` + `mach` give both halves of a 32x32 product: the legalizer's multiply-adds as that product and a split add |
//! | [`emit`] | execution size, NoMask scalars, SIMD8 chunks for the accumulator; control flow (`jmpi` for uniform branches, predication over a per-lane block number for divergent ones) |
//! | [`regions`] | region rules and the two-GRF operand limit |
//! | [`swsb`] | Gen12LP's software scoreboard: in-order distances and send tokens |
//! | [`isa`] | IGA's instruction syntax, shared by emitter and simulator |
//! | [`sim`] | what each emitted instruction does (PRM citations) |
//!
//! # Register ABI of plain functions
//!
//! A function is compiled for SIMD8 or SIMD16 ([`target::Simd`]); each
//! channel (lane) is one invocation.
//!
//! - `r0` is the thread header and never allocated; `r118..r119` hold the
//!   per-lane block number of functions with divergent branches
//!   ([`emit`]); `r120..r127` are the emitter's scratch GRFs.
//! - Arguments are split into 32-bit words, low word first (a 64-bit value
//!   is two separate halves, its low half first; `i1`/`i8`/`i16`/`half`
//!   are zero-extended to a dword).
//! - **Uniform arguments** (a kernel's) come first, as dword scalars packed
//!   in GRF order: `r1.0`, `r1.1`, ... `r1.7`, `r2.0`, ...
//! - **Per-lane arguments** follow, one word per vector, SoA: at SIMD8 word
//!   `k` of an argument is the GRF `rN` (channel `c` at `rN.c:ud`), at
//!   SIMD16 the even-aligned pair `rN`, `rN+1` (channel `c` at
//!   `rN.c`, `c < 8`, or `rN+1.(c-8)`). Vectors start at the first GRF
//!   after the scalars (`r1` for a plain function).
//! - **Results** are left the same way, per lane, from `r1` on: word `k`
//!   of the result in `r(1+k)` at SIMD8, `r(2+2k)`..`r(3+2k)` at SIMD16
//!   (vectors are even-aligned there, so the first is `r2`).
//! - Arguments and results use GRFs up to `r117` at most.
//!
//! [`abi::assign`] computes this per function; the simulator uses it to
//! preload arguments and read results.
//!
//! # Using it
//!
//! ```text
//! regdesc-cc compile --target gen11 FILE.ll -o OUT.asm [--simd 8|16]
//! regdesc-cc run --target gen12lp --after final FILE.ll --fn F --arg "i64 5" --lanes 8
//! regdesc-cc sim --target gen11 OUT.asm --ir FILE.ll --fn F --arg "i64 5" [--lanes N]
//! ```
//!
//! Without `--simd` the width is chosen by register pressure
//! ([`default_simd`]). Kernels (`spir_kernel`, `amdgpu_kernel`) read their
//! arguments and ids from the thread payload ([`abi`]) and reach global
//! memory through A64 stateless sends ([`select::memory`]). Not supported
//! (a located `target::unsupported` error naming the construct): global
//! memory and ids outside a kernel, sends in functions with jumps on
//! Gen12LP (tokens are tracked along straight-line code), spills.

//! # The register description
//!
//! One hardware thread's
//! register file, written as `IntelGRF.td` and expanded by `regdesc!` in
//! coverage lane mode.
//!
//! This is the answer to the llvm-dev thread "How to describe the
//! RegisterInfo?", whose Intel GPU description ran out of TableGen's lane
//! mask bits: model one hardware thread, with uniform and per-lane (SIMD)
//! registers that alias each other through shared register units.
//!
//! # The register file
//!
//! 128 general registers (GRFs) `r0..r127` of 32 bytes each. Registers are
//! named as Intel's assembly writes the regions they stand for:
//!
//! | class | what | registers | bits |
//! | --- | --- | --- | --- |
//! | `GRF_B` | uniform byte (`i8`) | `R5_B3` = `r5.3<0;1,0>:b` | 8 |
//! | `GRF_W` | uniform word (`i16`, `f16`) | `R5_W3` = `r5.3<0;1,0>:w` | 16 |
//! | `GRF_D` | uniform dword (`i32`, `f32`) | `R5_D2` = `r5.2<0;1,0>:d` | 32 |
//! | `GRF_Q` | uniform qword (`i64`, `f64`) | `R5_Q1` = `r5.1<0;1,0>:q` | 64 |
//! | `SIMD8_W` | SIMD8 word vector (`v8i16`, `v8f16`) | half a GRF: `R5_H0` = `r5.0<8;8,1>:w`, `R5_H1` = `r5.8<8;8,1>:w` | 128 |
//! | `SIMD8_D`, `SIMD16_W`, `GRF` | SIMD8 dword, SIMD16 word vector | a GRF: `R5` = `r5` | 256 |
//! | `SIMD8_Q`, `SIMD16_D` | SIMD8 qword, SIMD16 dword vector | an even-aligned GRF pair: `R4_R5` | 512 |
//! | `SIMD16_Q` | SIMD16 qword vector (`v16i64`, `v16f64`) | a 4-aligned GRF quad: `R4_R5_R6_R7` | 1024 |
//!
//! The sub-register indices are named after the sub-register number Intel
//! writes, relative to the GRF: `w0..w15`, `d0..d7`, `q0..q3`, and `h0`,
//! `h1` for the halves; `g0..g3` are the GRFs of a multi-GRF vector and
//! `p0`, `p1` the GRF pairs of a quad
//! (`sub_reg(R5, d2) == R5_D2`, `sub_reg(R4_R5, g1) == R5`,
//! `sub_reg(R4_R5_R6_R7, p1) == R6_R7`). No index is synthesized with a
//! concatenated name; compositions across GRFs are `g1_then_d2` and so on.
//!
//! The architecture registers are in classes that are not allocatable
//! (`isAllocatable = 0`) and alias no GRF: `acc0`, `acc1` (class `ACC`),
//! the flag registers `f0`, `f1` (class `FLAG`) whose 16-bit halves
//! `f0.0`, `f0.1`, `f1.0`, `f1.1` (class `FLAG16`) are their `w0`/`w1`
//! sub-registers, `null` (`NULLREG`) and the address register `a0`
//! (`ADDR`).
//!
//! # Units and lanes
//!
//! The widest register, a SIMD16 qword vector, is 1024 bits. With byte
//! sub-registers every byte of it would need a lane of its own: 128 lanes
//! (`examples/intel_grf_bytes_simd16.td`), past the 64 a `u64` lane mask
//! holds. So the sub-register hierarchy stops at 16-bit words (GRF = 2
//! halves = 4 qwords = 8 dwords = 16 words), which gives 64 word positions
//! in a SIMD16 qword vector: 64 lanes in llvm mode (what
//! llvm-tblgen 14 would need), 64 in coverage mode.
//!
//! Bytes are still registers: each byte register is an ad hoc alias
//! (`Aliases`) of the word holding it. TableGen gives every alias edge a
//! register unit that both registers own, so a word has two units (its low
//! and its high byte), every register containing the word inherits both,
//! and a byte shares its unit with its word, dword, qword, half, GRF and
//! every vector over that GRF, but not with the other byte of its word.
//! Interference (which goes through units) is byte-exact; lane masks (which
//! go through sub-register indices) are word-exact, so writing a byte is a
//! partial write of a word lane, as it is for the hardware's byte-granular
//! regions anyway. Byte registers have no sub-register index and cost no
//! lane.
//!
//! Multi-GRF vectors are aligned (pairs on even GRFs, quads on multiples of
//! four): a SIMD16 qword vector is a pair of SIMD8 qword vectors (its
//! `p0`, `p1`), and a pair never straddles two quads.

/// The generated register tables (`IntelGRF.td`, coverage lanes).
pub mod regs {
    regdesc_macros::regdesc!(include "IntelGRF.td", lanes = coverage);
}

pub mod abi;
pub mod emit;
pub mod iadd64_split;
pub mod isa;
pub mod mul64;
pub mod qword;
pub mod regions;
pub mod select;
pub mod sim;
pub mod swsb;
pub mod target;

pub use target::{default_simd, Gen, Platform, Simd};
