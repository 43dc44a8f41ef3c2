//! The machine-IR passes on hand-written input (`tests/mir/*.mir`, the
//! AMD-like register file): the text form round-trips, every fixture
//! allocated gives the results of its LLVM IR twin under the IR
//! interpreter, PHI elimination and two-address lowering produce the
//! expected code, liveness tracks lanes, and the allocator keeps what the
//! tables demand (sub-register liveness freeing a dead half, copies into
//! and out of tuples coalesced, aligned pairs, clobbers and early-clobber
//! defs respected, spilling and its failure modes).

#[path = "mir_support/mod.rs"]
mod mir_support;

use mir_support::{amd, amd_instrs, llvm_ir, parse_one, pipeline, toy, toy_instrs};
use regdesc_codegen::ir::Source;
use regdesc_codegen::mir::cfg::MCfg;
use regdesc_codegen::mir::liveness::{Liveness, Segment};
use regdesc_codegen::mir::parse::parse_mir;
use regdesc_codegen::mir::print::print_function;
use regdesc_codegen::mir::MBlockId;
use regdesc_codegen::mir::{phi_elim, two_addr, MFunction, Operand, RegRef, VReg};
use regdesc_codegen::regalloc::{self, AllocError, AllocOptions, GenericSpill};
use regdesc_runtime::RegisterInfo;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mir")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn amd_fixture(name: &str) -> MFunction {
    parse_one(&fixture(name), &amd::AMDLike, &amd_instrs())
}

/// An AMD-like fixture through the whole pipeline (checked against its
/// interpretation at every stage), and its allocated text.
fn allocated(name: &str) -> (mir_support::Pipeline, String) {
    let instrs = amd_instrs();
    let p = pipeline(
        &amd_fixture(name),
        &amd::AMDLike,
        &instrs,
        &[41],
        &AllocOptions::default(),
    )
    .expect("ok");
    let text = print_function(&p.allocated, &amd::AMDLike, &instrs);
    (p, text)
}

fn no_coalescing() -> AllocOptions {
    AllocOptions {
        coalesce: false,
        ..AllocOptions::default()
    }
}

#[test]
fn every_fixture_round_trips_and_survives_the_pipeline() {
    let instrs = amd_instrs();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mir");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/mir")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".mir"))
        .collect();
    names.sort();
    assert!(names.len() >= 4);
    for name in names {
        let f = amd_fixture(&name);
        let printed = print_function(&f, &amd::AMDLike, &instrs);
        let again = parse_one(&printed, &amd::AMDLike, &instrs);
        assert_eq!(
            print_function(&again, &amd::AMDLike, &instrs),
            printed,
            "{name}: print is not a fixed point"
        );
        let args = [0x1234_5678_9abc_def0_1122_3344, 77];
        let ir = llvm_ir::to_llvm_ir(&f, &amd::AMDLike, &instrs)
            .unwrap_or_else(|e| panic!("{name}: no LLVM IR twin: {e}"));
        let reference = llvm_ir::run_ir(&ir, &args).unwrap_or_else(|e| panic!("{name}: {e}"));
        for opts in [AllocOptions::default(), no_coalescing()] {
            let p = pipeline(&f, &amd::AMDLike, &instrs, &args, &opts)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let got = mir_support::run(&p.allocated, &amd::AMDLike, &instrs, &args)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            llvm_ir::same_results(&got, &reference)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{}", ir.text));
        }
    }
}

#[test]
fn phi_elimination_copies_through_a_fresh_register() {
    let instrs = amd_instrs();
    let mut f = amd_fixture("loop_phis.mir");
    assert!(f.props.ssa && !f.props.no_phis);
    assert_eq!(phi_elim::eliminate_phis(&mut f, &instrs), 3);
    let text = print_function(&f, &amd::AMDLike, &instrs);
    let expected_bb1_start =
        "bb.1:\n  %5:VGPR_32 = COPY %12\n  %7:VReg_64 = COPY %13\n  %9:VGPR_LO16 = COPY %14\n";
    assert!(text.contains(expected_bb1_start), "{text}");
    // Each predecessor sets the fresh registers before its branch.
    assert!(
        text.contains("  %12:VGPR_32 = COPY %2\n  %13:VReg_64 = COPY %0\n  %14:VGPR_LO16 = COPY %1\n  BR %bb.1\n"),
        "{text}"
    );
    assert!(
        text.contains("  %12:VGPR_32 = COPY %6\n  %13:VReg_64 = COPY %8\n  %14:VGPR_LO16 = COPY %10\n  BRCOND %11, %bb.1, %bb.2\n"),
        "{text}"
    );
    assert!(f.props.no_phis && !f.props.ssa);
}

#[test]
fn two_address_lowering_copies_the_tied_source_and_splits_reg_sequence() {
    let instrs = amd_instrs();
    let mut f = amd_fixture("tuple_copies.mir");
    two_addr::lower_two_address(&mut f, &amd::AMDLike, &instrs).expect("lowered");
    let text = print_function(&f, &amd::AMDLike, &instrs);
    assert!(
        text.contains(
            "  undef %3.sub0:VReg_64_Align2 = COPY %1\n  %3.sub1:VReg_64_Align2 = COPY %2\n"
        ),
        "{text}"
    );
    let mut g = amd_fixture("loop_phis.mir");
    phi_elim::eliminate_phis(&mut g, &instrs);
    two_addr::lower_two_address(&mut g, &amd::AMDLike, &instrs).expect("lowered");
    let text = print_function(&g, &amd::AMDLike, &instrs);
    // The tied use is copied into the def first; the untied read of the
    // same register still sees the old value (a copy of it).
    assert!(
        text.contains("  %8:VReg_64 = COPY %7\n  %8:VReg_64 = ADD2 %8(tied-def 0), %7\n"),
        "{text}"
    );
    assert!(g.props.tied_lowered);
    mir_support::verify(&g, &amd::AMDLike, &instrs).expect("valid");
}

#[test]
fn liveness_tracks_the_lanes_of_a_pair_separately() {
    let instrs = amd_instrs();
    let f = amd_fixture("dead_high_half.mir");
    let cfg = MCfg::new(&f);
    let live = Liveness::compute(&f, &amd::AMDLike, &cfg);
    let t = amd::AMDLike.tables();
    let iv = live.interval(VReg(0)).expect("%0 is live");
    // Two parts, sub0 and sub1 (each two 16-bit lanes).
    assert_eq!(iv.parts.len(), 2, "{iv:?}");
    let lo = t.sub_reg_index_lane_mask(amd::sub_regs::sub0);
    let hi = t.sub_reg_index_lane_mask(amd::sub_regs::sub1);
    // Defined at instruction 0 (slot 1); sub1 read last by instruction 1
    // (slot 2), sub0 by instruction 12 (slot 24).
    assert_eq!(
        iv.segments_for(hi).as_slice(),
        [Segment { start: 1, end: 3 }]
    );
    assert_eq!(
        iv.segments_for(lo).as_slice(),
        [Segment { start: 1, end: 25 }]
    );
    assert!(live.undefined.is_empty());
    let _ = instrs;
}

#[test]
fn a_dead_half_frees_its_register() {
    let instrs = amd_instrs();
    let f = amd_fixture("dead_high_half.mir");
    let p = pipeline(
        &f,
        &amd::AMDLike,
        &instrs,
        &[0xdead_beef_0000_0001],
        &no_coalescing(),
    )
    .expect("allocates");
    assert_eq!(
        p.stats.spilled, 0,
        "twelve VGPRs suffice when sub1's register is reused"
    );
}

#[test]
fn copies_into_and_out_of_tuples_coalesce_away() {
    let (p, text) = allocated("tuple_copies.mir");
    assert!(!text.contains("COPY"), "copies left:\n{text}");
    assert!(p.stats.coalesced >= 3, "{:?}", p.stats);
    // The pairs are even-aligned: their low register has an even encoding.
    let t = amd::AMDLike.tables();
    for b in &p.allocated.blocks {
        for i in &b.insts {
            for (_, r) in i.reg_ops() {
                if let RegRef::Phys(x) = r.reg {
                    if t.contains(amd::classes::VReg_64, x) {
                        let lo = t.sub_reg(x, amd::sub_regs::sub0).expect("sub0");
                        assert_eq!(
                            t.hw_encoding(lo) % 2,
                            0,
                            "{} is not even-aligned",
                            t.name(x)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_part_live_across_the_tuples_undef_def_joins_the_tuple() {
    let instrs = amd_instrs();
    let f = amd_fixture("tuple_part_across_undef.mir");
    let mut g = f.clone();
    phi_elim::eliminate_phis(&mut g, &instrs);
    two_addr::lower_two_address(&mut g, &amd::AMDLike, &instrs).expect("lowered");
    let lowered = print_function(&g, &amd::AMDLike, &instrs);
    assert!(
        lowered.contains("undef %4.sub0:VReg_64_Align2 = COPY %2.sub0")
            && lowered.contains("%4.sub1:VReg_64_Align2 = COPY %3"),
        "{lowered}"
    );
    // %3 is live across `undef %4.sub0 = COPY %2.sub0`, which ends %4.sub1
    // without writing it: %3 becomes %4.sub1 and its copy goes. The sub0
    // copy stays (%2 is still live), and keeps writing sub0 only.
    let cfg = MCfg::new(&g);
    let live = Liveness::compute(&g, &amd::AMDLike, &cfg);
    regalloc::coalesce::coalesce(&mut g, &amd::AMDLike, &instrs, &cfg, &live);
    let text = print_function(&g, &amd::AMDLike, &instrs);
    assert!(
        text.contains("%4.sub1:VReg_64_Align2 = SUB %1.sub0, %2.sub1")
            && text.contains("  %4.sub0:VReg_64_Align2 = COPY %2.sub0"),
        "{text}"
    );
    assert_eq!(text.matches("COPY").count(), 1, "{text}");
    pipeline(&f, &amd::AMDLike, &instrs, &[41], &AllocOptions::default()).expect("ok");
}

#[test]
fn a_tuple_placed_first_leaves_its_partner_the_register_that_joins_them() {
    let (_, text) = allocated("tuple_from_dying_pair.mir");
    // `%6.sub0 = COPY %3.sub0` is the one copy coalescing cannot join
    // (both sides are parts); the tuple and the pair share its register.
    assert!(!text.contains("COPY"), "copies left:\n{text}");
}

#[test]
fn clobbered_and_early_clobber_registers_are_avoided() {
    let instrs = amd_instrs();
    let f = amd_fixture("clobbers.mir");
    let t = amd::AMDLike.tables();
    let v3 = t.reg_by_name("V3").expect("V3");
    for opts in [AllocOptions::default(), no_coalescing()] {
        let mut g = f.clone();
        phi_elim::eliminate_phis(&mut g, &instrs);
        two_addr::lower_two_address(&mut g, &amd::AMDLike, &instrs).expect("lowered");
        let hook = GenericSpill { instrs: &instrs };
        let a = regalloc::assign(&mut g, &amd::AMDLike, &instrs, &hook, &opts).expect("assigned");
        // %0 and %1 are live across CLOBBER: neither may touch V3.
        for v in [0, 1] {
            let r = a.assignment[v].expect("assigned");
            assert!(!t.regs_overlap(r, v3), "%{v} got {}", t.name(r));
        }
        // MULX's result overlaps neither source.
        let r2 = a.assignment[2].expect("assigned");
        let r0 = a.assignment[0].expect("assigned");
        let r1 = t
            .sub_reg(a.assignment[1].expect("assigned"), amd::sub_regs::sub1)
            .expect("sub1");
        assert!(!t.regs_overlap(r2, r0) && !t.regs_overlap(r2, r1));
    }
}

#[test]
fn too_many_live_values_spill_and_still_compute_the_same() {
    // Twelve 32-bit values live at once in a file of eight.
    let instrs = toy_instrs();
    let mut text = String::from("function @spill {\nbb.0:\n  %0:GPR = ARG 0\n");
    for k in 1..12 {
        text.push_str(&format!("  %{k}:GPR = ADD %{}, %0\n", k - 1));
    }
    let mut acc = 0;
    for k in 1..12 {
        text.push_str(&format!("  %{}:GPR = XOR %{acc}, %{k}\n", 11 + k));
        acc = 11 + k;
    }
    text.push_str(&format!("  RET %{acc}\n}}\n"));
    let f = parse_one(&text, &toy::Toy, &instrs);
    let p = pipeline(&f, &toy::Toy, &instrs, &[5], &AllocOptions::default()).expect("ok");
    assert!(
        p.stats.spilled > 0 && p.stats.reloads > 0 && p.stats.stores > 0,
        "{:?}",
        p.stats
    );
    assert!(!p.allocated.frame.is_empty());
    assert_eq!(
        p.allocated.frame[0].size, 4,
        "spill size of GPR from the tables"
    );
}

#[test]
fn an_instruction_needing_more_registers_than_exist_is_an_error() {
    // RET of nine values that are all live at once: eight registers.
    let instrs = toy_instrs();
    let mut text = String::from("function @f {\nbb.0:\n");
    for k in 0..9 {
        text.push_str(&format!("  %{k}:GPR = ARG {k}\n"));
    }
    let list: Vec<String> = (0..9).map(|k| format!("%{k}")).collect();
    text.push_str(&format!("  RET {}\n}}\n", list.join(", ")));
    let mut f = parse_one(&text, &toy::Toy, &instrs);
    let hook = GenericSpill { instrs: &instrs };
    let e = regalloc::allocate(&mut f, &toy::Toy, &instrs, &hook, &AllocOptions::default())
        .expect_err("cannot allocate");
    assert!(matches!(e, AllocError::OutOfRegisters { .. }), "{e}");
    assert!(e.to_string().contains("ran out of registers"), "{e}");
}

#[test]
fn unlowered_input_and_unallocatable_classes_are_errors() {
    let instrs = amd_instrs();
    let hook = GenericSpill { instrs: &instrs };
    let mut f = amd_fixture("loop_phis.mir");
    let e = regalloc::allocate(
        &mut f,
        &amd::AMDLike,
        &instrs,
        &hook,
        &AllocOptions::default(),
    )
    .expect_err("PHIs");
    assert!(matches!(e, AllocError::NotLowered(_)));
    let text = "function @f {\nbb.0:\n  %0:SReg_SCC = ARG 0\n  RET %0\n}\n";
    let mut g = parse_one(text, &amd::AMDLike, &instrs);
    let e = regalloc::allocate(
        &mut g,
        &amd::AMDLike,
        &instrs,
        &hook,
        &AllocOptions::default(),
    )
    .expect_err("SCC is not allocatable");
    assert!(matches!(e, AllocError::NoAllocatableRegister { .. }), "{e}");
}

#[test]
fn allocation_orders_come_from_the_tables() {
    // GPRLow's order is R3, R2, R1, R0: a lone value gets R3.
    let instrs = toy_instrs();
    let f = parse_one(
        "function @f {\nbb.0:\n  %0:GPRLow = ARG 0\n  RET %0\n}\n",
        &toy::Toy,
        &instrs,
    );
    let p = pipeline(&f, &toy::Toy, &instrs, &[9], &AllocOptions::default()).expect("ok");
    let t = toy::Toy.tables();
    let ret = p.allocated.blocks[MBlockId(0)].insts.last().expect("RET");
    let Some(Operand::Reg(r)) = ret.ops.first() else {
        panic!("RET operand")
    };
    assert_eq!(r.reg, RegRef::Phys(t.reg_by_name("R3").expect("R3")));
}

#[test]
fn physical_register_names_ignore_case() {
    let instrs = amd_instrs();
    let fs = parse_mir(
        Source::new(
            "t.mir",
            "function @f {\nbb.0:\n  %0:VGPR_32 = COPY $v1\n  RET %0\n}\n",
        ),
        &amd::AMDLike,
        &instrs,
    )
    .expect("parses");
    let t = amd::AMDLike.tables();
    let Some(Operand::Reg(r)) = fs[0].blocks[MBlockId(0)].insts[0].ops.get(1) else {
        panic!("operand")
    };
    assert_eq!(r.reg, RegRef::Phys(t.reg_by_name("V1").expect("V1")));
}
