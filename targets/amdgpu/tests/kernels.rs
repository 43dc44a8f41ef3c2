//! What a kernel may do that a callable function may not, in the back
//! end's output (that the output assembles and computes what the IR
//! computes is `assemble.rs`, `differential.rs` and `sim_backend.rs`,
//! which run every function of `tests/fixtures/`):
//! - A kernel has no caller, so every SGPR but the private segment
//!   buffer and `s102..s105` is its own: 16 argument words load in two
//!   `s_load_dwordx8`s instead of sixteen `s_load_dword`s, and SGPR
//!   tuples of any size spill into VGPR lanes when even that is not
//!   enough.
//! - A uniform load that no store of the kernel can precede reads through
//!   the scalar cache (`s_load_dword`, LLVM's `amdgpu.noclobber`), joined
//!   into `s_load_dwordx2`.. where the dwords are consecutive; after a
//!   store, or in a loop that stores, it stays a vector load.

mod common;

use regdesc_amdgpu::Gfx;
use regdesc_codegen::pipeline::{compile_function, Options};
use regdesc_codegen::read_module;

/// The back end's assembly of `name` in `tests/fixtures/extra.ll`.
fn ours(name: &str, gfx: Gfx) -> String {
    let path = common::extra_dir().join("extra.ll");
    let text = std::fs::read_to_string(&path).expect("readable .ll");
    let m = read_module(&path.display().to_string(), &text).expect("valid IR");
    let f = m.function(name).expect("the function");
    compile_function(f, &common::target(gfx), &Options::default())
        .unwrap_or_else(|e| panic!("@{name} on {gfx:?}: {e}"))
        .asm
        .expect("assembly")
}

/// The mnemonics of `asm`'s instructions.
fn mnemonics(asm: &str) -> Vec<&str> {
    asm.lines()
        .filter(|l| l.starts_with('\t') && !l.trim_start().starts_with('.'))
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

const CPUS: [Gfx; 3] = [Gfx::Gfx900, Gfx::Gfx90a, Gfx::Gfx1030];

#[test]
fn uniform_loads_no_store_precedes_read_the_scalar_cache() {
    for gfx in CPUS {
        let asm = ours("uniform_load_noclobber", gfx);
        let m = mnemonics(&asm);
        assert!(
            !m.iter().any(|x| x.starts_with("global_load")),
            "{gfx:?}: a vector load of a uniform, unclobbered address:\n{asm}"
        );
        // The kernarg tuple, then `in[4]` and the joined `in[0..2]`.
        assert_eq!(
            m.iter().filter(|x| x.starts_with("s_load_dword")).count(),
            3,
            "{gfx:?}:\n{asm}"
        );
        assert!(m.contains(&"s_load_dwordx2"), "{gfx:?}:\n{asm}");
    }
}

#[test]
fn uniform_loads_after_a_store_stay_vector_loads() {
    for gfx in CPUS {
        for name in ["uniform_load_after_store", "uniform_load_in_storing_loop"] {
            let asm = ours(name, gfx);
            let m = mnemonics(&asm);
            assert!(
                m.iter().any(|x| x.starts_with("global_load")),
                "{gfx:?} @{name}: a store may come first, so not the scalar cache:\n{asm}"
            );
            // Only the kernarg segment is read through the scalar cache.
            for l in asm.lines().filter(|l| l.contains("s_load_dword")) {
                assert!(l.contains(", s[4:5],"), "{gfx:?} @{name}: {l}");
            }
        }
    }
}

#[test]
fn kernels_load_many_argument_words_wide() {
    for gfx in CPUS {
        // Four i256 arguments and a pointer: 34 words, three loads.
        let asm = ours("uniform_i256_pressure", gfx);
        let loads: Vec<&str> = mnemonics(&asm)
            .into_iter()
            .filter(|x| x.starts_with("s_load_dword"))
            .collect();
        assert_eq!(
            loads,
            ["s_load_dwordx2", "s_load_dwordx16", "s_load_dwordx16"],
            "{gfx:?}:\n{asm}"
        );
    }
}

#[test]
fn scalar_tuples_spill_into_lanes() {
    for gfx in CPUS {
        // Twelve i256 values live at once: more than a kernel's SGPRs.
        let asm = ours("uniform_i256_pressure", gfx);
        let m = mnemonics(&asm);
        assert!(m.contains(&"v_writelane_b32"), "{gfx:?}:\n{asm}");
        assert!(m.contains(&"v_readlane_b32"), "{gfx:?}:\n{asm}");
        // SGPRs a callable function must keep for its caller are used.
        assert!(
            asm.contains("s40") || asm.contains("s[40:"),
            "{gfx:?}: no SGPR above s29:\n{asm}"
        );
    }
}
