//! The allocator on random programs (`mir_support/gen.rs`) over two
//! register files written as `.td` and expanded by `regdesc!`: a toy one
//! (eight 32-bit registers, a narrower class, a flag register) and an
//! AMD-like one (VGPRs of 16-bit halves, any and even-aligned 64-bit
//! pairs, triples). For every program:
//!
//! - the verifier accepts it after every pass;
//! - PHI elimination, two-address lowering, coalescing with spilling, and
//!   rewriting to physical registers leave the results of the machine-IR
//!   interpreter unchanged (the interpreter stores the physical register
//!   file as overlapping leaves, so a wrong overlap changes results);
//! - no def shares a register unit with a value live across it, nor an
//!   early-clobber def with a value it reads (`mir_support/check.rs`,
//!   with its own lane liveness);
//! - every register is in its class's allocation order (which is how
//!   even-aligned pairs stay aligned) and has the sub-registers its
//!   operands name;
//! - the allocated program, run by the machine-IR interpreter, gives the
//!   same results as the program's LLVM IR twin (`mir_support/llvm_ir.rs`)
//!   run by the IR interpreter, `regdesc_codegen::interp`;
//! - on a sample, `lli-14` runs the LLVM IR twin to the same results as
//!   the IR interpreter (skipped without `lli-14`, a failure under
//!   `REGDESC_REQUIRE_ORACLES=1`).
//!
//! 96 cases of each by default (16 for `lli-14`);
//! `REGDESC_PROPTEST_CASES=N` runs N.

#[path = "mir_support/mod.rs"]
mod mir_support;
#[path = "support/mod.rs"]
mod support;

use mir_support::gen::{self, Spec};
use mir_support::llvm_ir;
use mir_support::{amd, toy};
use proptest::prelude::*;
use regdesc_codegen::mir::InstrSet;
use regdesc_codegen::regalloc::AllocOptions;
use regdesc_runtime::RegisterInfo;

fn cases(default: u32) -> u32 {
    std::env::var("REGDESC_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn check<R: RegisterInfo>(
    spec: &Spec<R>,
    instrs: &InstrSet,
    seed: u64,
    size: usize,
    opts: &AllocOptions,
) -> Result<(), TestCaseError> {
    let g = gen::generate(spec, instrs, seed, size).map_err(TestCaseError::fail)?;
    let args = gen::args(seed, g.n_args);
    let fail = |e: String| TestCaseError::fail(format!("{e}\n--- input ---\n{}", g.text));
    let p = mir_support::pipeline(&g.function, &spec.ri, instrs, &args, opts).map_err(fail)?;
    let allocated = mir_support::run(&p.allocated, &spec.ri, instrs, &args).map_err(fail)?;
    let reference = llvm_ir::run_ir(&g.ir, &args).map_err(fail)?;
    llvm_ir::same_results(&allocated, &reference).map_err(|e| {
        fail(format!(
            "after allocation: {e}\n--- LLVM IR ---\n{}\n--- allocated ---\n{}",
            g.ir.text,
            regdesc_codegen::mir::print::print_function(&p.allocated, &spec.ri, instrs)
        ))
    })
}

/// `lli-14` and the IR interpreter agree on a program's LLVM IR twin.
fn check_lli<R: RegisterInfo>(
    spec: &Spec<R>,
    instrs: &InstrSet,
    seed: u64,
    size: usize,
) -> Result<(), TestCaseError> {
    let Some(lli) = support::lli() else {
        return Ok(());
    };
    let g = gen::generate(spec, instrs, seed, size).map_err(TestCaseError::fail)?;
    let args = gen::args(seed, g.n_args);
    let case = support::Case {
        name: format!("regalloc-{seed}"),
        text: g.ir.text.clone(),
        func: "f".into(),
        launch: g.ir.launch(&args),
        memory: vec![0; g.ir.memory_size()],
    };
    support::compare(&lli, &case).map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(96),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn toy_programs_allocate_correctly(seed in any::<u64>(), size in 1usize..60) {
        let spec = Spec::new(toy::Toy, "R2");
        check(&spec, &mir_support::toy_instrs(), seed, size, &AllocOptions::default())?;
    }

    #[test]
    fn amd_like_programs_allocate_correctly(seed in any::<u64>(), size in 1usize..60) {
        let spec = Spec::new(amd::AMDLike, "V1");
        check(&spec, &mir_support::amd_instrs(), seed, size, &AllocOptions::default())?;
    }

    #[test]
    fn amd_like_programs_allocate_with_a_reserved_register(seed in any::<u64>(), size in 1usize..40) {
        let spec = Spec::with_reserved(amd::AMDLike, "V1", &["V7"]);
        let t = spec.ri.tables();
        let opts = AllocOptions {
            reserved: t.reg_by_name("V7").into_iter().collect(),
            ..AllocOptions::default()
        };
        check(&spec, &mir_support::amd_instrs(), seed, size, &opts)?;
    }

    #[test]
    fn programs_allocate_without_coalescing(seed in any::<u64>(), size in 1usize..40) {
        let opts = AllocOptions { coalesce: false, ..AllocOptions::default() };
        let spec = Spec::new(amd::AMDLike, "V1");
        check(&spec, &mir_support::amd_instrs(), seed, size, &opts)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(16),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn toy_llvm_ir_twins_match_lli(seed in any::<u64>(), size in 1usize..60) {
        check_lli(&Spec::new(toy::Toy, "R2"), &mir_support::toy_instrs(), seed, size)?;
    }

    #[test]
    fn amd_like_llvm_ir_twins_match_lli(seed in any::<u64>(), size in 1usize..60) {
        check_lli(&Spec::new(amd::AMDLike, "V1"), &mir_support::amd_instrs(), seed, size)?;
    }
}

/// The random programs are not too easy: over 200 of them the allocator
/// spills, reloads and coalesces copies (the property tests above
/// would pass vacuously otherwise).
#[test]
fn random_programs_exercise_spilling_and_coalescing() {
    let instrs = mir_support::amd_instrs();
    let spec = Spec::new(amd::AMDLike, "V1");
    let mut total = regdesc_codegen::regalloc::AllocStats::default();
    let mut dynamic = 0i64;
    for seed in 0..200u64 {
        let (text, n) = gen::program(&spec, seed, 40);
        let f = mir_support::parse_one(&text, &spec.ri, &instrs);
        let p = mir_support::pipeline(
            &f,
            &spec.ri,
            &instrs,
            &gen::args(seed, n),
            &AllocOptions::default(),
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        total.spilled += p.stats.spilled;
        total.reloads += p.stats.reloads;
        total.stores += p.stats.stores;
        total.coalesced += p.stats.coalesced;
        total.copies_removed += p.stats.copies_removed;
        total.rounds += p.stats.rounds;
        total.incremental_rounds += p.stats.incremental_rounds;
        total.evicted += p.stats.evicted;
        let steps = |g: &regdesc_codegen::mir::MFunction| {
            regdesc_codegen::mir::interp::run(g, &spec.ri, &instrs, &gen::args(seed, n), 1 << 30)
                .map(|o| o.steps)
                .unwrap_or(0)
        };
        dynamic += steps(&p.allocated) as i64 - steps(&f) as i64;
    }
    println!("dynamic overhead (instructions executed after allocation minus before): {dynamic}");
    println!("{total:?}");
    assert!(total.spilled > 0 && total.reloads > 0, "{total:?}");
    assert!(total.coalesced > 100, "{total:?}");
    // The spill rounds after the first place their temporaries into the
    // previous assignment, evicting (and the results above are checked
    // against the interpreter through those rounds too).
    assert!(
        total.incremental_rounds > 0 && total.evicted > 0,
        "{total:?}"
    );
}

/// Undoing coalescing gives back the function exactly (the allocator
/// relies on it instead of keeping a copy of the function: when the
/// narrowed classes leave an instruction unallocatable it starts again
/// from the function as it was).
#[test]
fn undoing_coalescing_gives_back_the_function() {
    use regdesc_codegen::mir::{phi_elim, two_addr};
    let spec = Spec::new(amd::AMDLike, "V1");
    let instrs = mir_support::amd_instrs();
    let mut coalesced = 0;
    for seed in 0..200u64 {
        let (text, _) = gen::program(&spec, seed, 40);
        let mut f = mir_support::parse_one(&text, &spec.ri, &instrs);
        phi_elim::eliminate_phis(&mut f, &instrs);
        two_addr::lower_two_address(&mut f, &spec.ri, &instrs).expect("two-address");
        let original = f.clone();
        let cfg = regdesc_codegen::mir::cfg::MCfg::new(&f);
        let live = regdesc_codegen::mir::liveness::Liveness::compute(&f, &spec.ri, &cfg);
        let (n, undo) = regdesc_codegen::regalloc::coalesce::coalesce_undoable(
            &mut f, &spec.ri, &instrs, &cfg, &live,
        );
        coalesced += n;
        undo.restore(&mut f);
        assert!(f == original, "seed {seed}: not restored");
    }
    assert!(coalesced > 100, "{coalesced}");
}

/// The liveness coalescing hands on (only the registers it changed
/// computed again, the others renumbered: `Liveness::after_removals`) is
/// the liveness computed from scratch on the coalesced function, on random
/// programs over both register files and on the allocation bench's
/// generated functions.
#[test]
fn liveness_after_coalescing_is_computed_liveness() {
    use regdesc_codegen::mir::cfg::MCfg;
    use regdesc_codegen::mir::liveness::Liveness;
    use regdesc_codegen::mir::{phi_elim, two_addr, MFunction};
    use regdesc_codegen::regalloc::coalesce::coalesce_with_liveness;
    fn same<R: RegisterInfo>(mut f: MFunction, ri: &R, instrs: &InstrSet, what: &str) -> usize {
        let cfg = MCfg::new(&f);
        let live = Liveness::compute(&f, ri, &cfg);
        let (n, after) = coalesce_with_liveness(&mut f, ri, instrs, &cfg, live);
        let computed = Liveness::compute(&f, ri, &cfg);
        assert!(
            after == computed,
            "{what}: liveness after coalescing differs"
        );
        n
    }
    fn random<R: RegisterInfo>(spec: &Spec<R>, instrs: &InstrSet, what: &str) -> usize {
        let mut coalesced = 0;
        for seed in 0..cases(200) as u64 {
            for size in [12, 40] {
                let (text, _) = gen::program(spec, seed, size);
                let mut f = mir_support::parse_one(&text, &spec.ri, instrs);
                phi_elim::eliminate_phis(&mut f, instrs);
                two_addr::lower_two_address(&mut f, &spec.ri, instrs).expect("two-address");
                coalesced += same(
                    f,
                    &spec.ri,
                    instrs,
                    &format!("{what} seed {seed} size {size}"),
                );
            }
        }
        coalesced
    }
    let amd_instrs = mir_support::amd_instrs();
    let mut coalesced = random(
        &Spec::new(toy::Toy, "R2"),
        &mir_support::toy_instrs(),
        "toy",
    );
    coalesced += random(&Spec::new(amd::AMDLike, "V1"), &amd_instrs, "amd");
    for n in [1_000, 10_000] {
        let (f, _) = mir_support::sized_function(n, &amd_instrs);
        coalesced += same(
            f,
            &amd::AMDLike,
            &amd_instrs,
            &format!("sized function {n}"),
        );
    }
    assert!(coalesced > 1000, "{coalesced}");
}

/// Prints one case's stages: `REGDESC_SEED=... REGDESC_SIZE=... cargo test
/// --release -p regdesc-codegen --test regalloc_props -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_one_case() {
    use regdesc_codegen::mir::print::print_function;
    use regdesc_codegen::mir::{phi_elim, two_addr};
    let seed: u64 = std::env::var("REGDESC_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let size: usize = std::env::var("REGDESC_SIZE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let spec = Spec::new(amd::AMDLike, "V1");
    let instrs = mir_support::amd_instrs();
    let (text, _) = gen::program(&spec, seed, size);
    println!("{text}");
    let mut f = mir_support::parse_one(&text, &spec.ri, &instrs);
    phi_elim::eliminate_phis(&mut f, &instrs);
    two_addr::lower_two_address(&mut f, &spec.ri, &instrs).expect("two-address");
    println!(
        "--- two-address ---\n{}",
        print_function(&f, &spec.ri, &instrs)
    );
    let cfg = regdesc_codegen::mir::cfg::MCfg::new(&f);
    let live = regdesc_codegen::mir::liveness::Liveness::compute(&f, &spec.ri, &cfg);
    regdesc_codegen::regalloc::coalesce::coalesce(&mut f, &spec.ri, &instrs, &cfg, &live);
    println!(
        "--- coalesced ---\n{}",
        print_function(&f, &spec.ri, &instrs)
    );
    let hook = regdesc_codegen::regalloc::GenericSpill { instrs: &instrs };
    let opts = AllocOptions {
        coalesce: false,
        ..AllocOptions::default()
    };
    match regdesc_codegen::regalloc::assign(&mut f, &spec.ri, &instrs, &hook, &opts) {
        Ok(a) => {
            let t = spec.ri.tables();
            for (v, r) in a.assignment.iter().enumerate() {
                if let Some(r) = r {
                    println!("%{v} -> {}", t.name(*r));
                }
            }
            println!("{:?}", a.stats);
        }
        Err(e) => println!("{e}"),
    }
    println!(
        "--- allocated ---\n{}",
        print_function(&f, &spec.ri, &instrs)
    );
}
