//! Allocation time on generated functions of about 1k, 10k and 100k
//! machine instructions (the random programs of the allocator's property
//! tests, over the AMD-like register file: branches, loops, 16-bit halves,
//! pairs and triples, PHIs eliminated and tied operands lowered before the
//! clock starts). Timed: coalescing, liveness, assignment with spill
//! rounds, rewriting — `regalloc::allocate`.
//!
//! `cargo bench -p regdesc-codegen --bench regalloc`; `bash bench/regalloc.sh`
//! times the same functions beside `llc` (`benches/regalloc_vs_llc.rs`).

// As in `regdesc-cc`: the passes make and drop many small vectors (an
// operand list per machine instruction), which mimalloc serves much faster
// than the system allocator, and without its growing consolidation cost.
// (See `regdesc_alloc` for its options.)
regdesc_alloc::global_allocator!(whole_arenas);

#[path = "../tests/mir_support/mod.rs"]
mod mir_support;

use mir_support::{amd, amd_instrs};
use regdesc_codegen::regalloc::{self, AllocOptions, GenericSpill};

fn main() {
    divan::main();
}

#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 10, sample_size = 1)]
fn allocate(bencher: divan::Bencher, n: usize) {
    let instrs = amd_instrs();
    let (f, _) = mir_support::sized_function(n, &instrs);
    let hook = GenericSpill { instrs: &instrs };
    // One run outside the clock, for the figures beside the times.
    let mut g = f.clone();
    match regalloc::allocate(&mut g, &amd::AMDLike, &instrs, &hook, &AllocOptions::default()) {
        Ok(s) => eprintln!(
            "n={n}: {} instructions, {} blocks, {} virtual registers in; {} coalesced, {} spilled in {} rounds, {} instructions out; {:?}",
            f.num_insts(),
            f.blocks.len(),
            f.vregs.len(),
            s.coalesced,
            s.spilled,
            s.rounds,
            g.num_insts(),
            s.time
        ),
        Err(e) => panic!("n={n}: {e}"),
    }
    bencher.with_inputs(|| f.clone()).bench_values(|mut g| {
        regalloc::allocate(
            &mut g,
            &amd::AMDLike,
            &instrs,
            &hook,
            &AllocOptions::default(),
        )
        .map(|s| s.spilled)
    });
}
