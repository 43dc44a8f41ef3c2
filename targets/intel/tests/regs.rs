//! The Intel Gen register file (`IntelGRF.td`) through `regdesc!`: uniform
//! scalars and SIMD vectors alias through shared register units, multi-GRF
//! vectors are aligned, the architecture registers are in no allocatable
//! class, and `check` is clean in coverage mode.

use regdesc_core::check::CheckOptions;
use regdesc_core::diag::Severity;
use regdesc_core::driver::{self, Input};
use regdesc_core::lanes::LaneMode;
use regdesc_intel::regs::{classes, regs as r, sub_regs, Intel};
use regdesc_runtime::{Reg, RegUnit, RegisterInfo};

/// What `regdesc check` needs in llvm mode (llvm-tblgen's lane count), and
/// in coverage mode; the README's lane table gives the same figures.
const LLVM_LANES: u32 = 64;
const COVERAGE_LANES: u32 = 64;

fn units(x: Reg) -> Vec<RegUnit> {
    Intel.tables().units(x).collect()
}

fn shares_units(a: Reg, b: Reg) -> bool {
    let ub = units(b);
    units(a).iter().any(|u| ub.contains(u))
}

#[test]
fn uniform_dword_overlaps_the_simd8_vector_of_its_grf_only() {
    let t = Intel.tables();
    assert_eq!(t.asm_name(r::R5_D2), "r5.2<0;1,0>:d");
    assert!(t.contains(classes::GRF_D, r::R5_D2));
    // The SIMD8 dword vector covering r5 is r5 itself.
    assert!(t.contains(classes::SIMD8_D, r::R5));
    assert_eq!(t.sub_reg(r::R5, sub_regs::d2), Some(r::R5_D2));
    assert!(t.regs_overlap(r::R5_D2, r::R5));
    assert!(!t.regs_overlap(r::R5_D2, r::R6));
    assert!(shares_units(r::R5_D2, r::R5));
    assert!(!shares_units(r::R5_D2, r::R6));
    // Its words are w4 and w5 of the GRF, and it is half of r5.1:q.
    let words: Vec<Reg> = t.sub_regs(r::R5_D2).collect();
    assert_eq!(words, vec![r::R5_W4, r::R5_W5]);
    assert_eq!(t.sub_reg(r::R5_Q1, sub_regs::d0), Some(r::R5_D2));
    assert_eq!(t.sub_reg(r::R5, sub_regs::w4), Some(r::R5_W4));
    // SIMD8 word vectors are GRF halves: r5.2:d lies in the first.
    assert!(t.contains(classes::SIMD8_W, r::R5_H0));
    assert!(t.regs_overlap(r::R5_D2, r::R5_H0));
    assert!(!t.regs_overlap(r::R5_D2, r::R5_H1));
}

#[test]
fn simd8_qword_vectors_span_two_grfs() {
    let t = Intel.tables();
    let v = r::R4_R5;
    assert!(t.contains(classes::SIMD8_Q, v));
    assert_eq!(t.sub_reg(v, sub_regs::g0), Some(r::R4));
    assert_eq!(t.sub_reg(v, sub_regs::g1), Some(r::R5));
    assert!(t.regs_overlap(v, r::R4) && t.regs_overlap(v, r::R5));
    assert!(!t.regs_overlap(v, r::R3) && !t.regs_overlap(v, r::R6));
    assert!(t.regs_overlap(v, r::R5_D2));
    let mut u = units(r::R4);
    u.extend(units(r::R5));
    assert_eq!(units(v), u);
    assert_eq!(
        t.spill_info(classes::SIMD8_Q, Default::default()).reg_size,
        512
    );
    for c in t.members(classes::SIMD8_Q) {
        let lo = t.sub_reg(c, sub_regs::g0).unwrap();
        let hi = t.sub_reg(c, sub_regs::g1).unwrap();
        assert!(t.contains(classes::SIMD8_D, lo) && t.contains(classes::SIMD8_D, hi));
    }
}

/// The GRF number of a GRF (`r17` -> 17).
fn grf_number(x: Reg) -> u16 {
    let t = Intel.tables();
    t.asm_name(x)[1..].parse().unwrap()
}

#[test]
fn simd16_dword_vectors_are_even_aligned_grf_pairs() {
    let t = Intel.tables();
    assert_eq!(t.num_members(classes::SIMD16_D), 64);
    assert_eq!(
        t.spill_info(classes::SIMD16_D, Default::default()).reg_size,
        512
    );
    for v in t.members(classes::SIMD16_D) {
        let lo = grf_number(t.sub_reg(v, sub_regs::g0).unwrap());
        let hi = grf_number(t.sub_reg(v, sub_regs::g1).unwrap());
        assert_eq!(lo % 2, 0, "{}", t.name(v));
        assert_eq!(hi, lo + 1, "{}", t.name(v));
        assert!(t.contains(classes::SIMD8_Q, v));
    }
    assert!(t.reg_by_name("R5_R6").is_none());
    // SIMD16 qword vectors: four GRFs, 4-aligned.
    assert_eq!(t.num_members(classes::SIMD16_Q), 32);
    for v in t.members(classes::SIMD16_Q) {
        let g: Vec<u16> = [sub_regs::g0, sub_regs::g1, sub_regs::g2, sub_regs::g3]
            .iter()
            .map(|&i| grf_number(t.sub_reg(v, i).unwrap()))
            .collect();
        assert_eq!(g[0] % 4, 0, "{}", t.name(v));
        assert_eq!(g, vec![g[0], g[0] + 1, g[0] + 2, g[0] + 3]);
    }
    // ... and a pair of SIMD8 qword vectors.
    assert_eq!(t.sub_reg(r::R4_R5_R6_R7, sub_regs::p0), Some(r::R4_R5));
    assert_eq!(t.sub_reg(r::R4_R5_R6_R7, sub_regs::p1), Some(r::R6_R7));
    assert_eq!(t.sub_reg(r::R4_R5_R6_R7, sub_regs::g2), Some(r::R6));
    assert!(t.regs_overlap(r::R4_R5_R6_R7, r::R6_R7));
    assert!(!t.regs_overlap(r::R4_R5_R6_R7, r::R8_R9));
}

#[test]
fn scalars_and_vectors_share_units() {
    let t = Intel.tables();
    // A word has four units: one per byte, and one shared with each lane
    // view over it (SIMD8 and SIMD16); a GRF has 64.
    assert_eq!(units(r::R5_W1).len(), 4);
    assert_eq!(units(r::R5).len(), 64);
    assert_eq!(units(r::R4_R5_R6_R7).len(), 256);
    // r5.3:b is the high byte of r5.1:w: one unit, shared with the word,
    // the dword, the qword, the half, the GRF and every vector over r5.
    assert_eq!(units(r::R5_B3).len(), 1);
    let chain = [
        r::R5_W1,
        r::R5_D0,
        r::R5_Q0,
        r::R5_H0,
        r::R5,
        r::R4_R5,
        r::R4_R5_R6_R7,
    ];
    for x in chain {
        assert!(shares_units(r::R5_B3, x), "{}", t.name(x));
        assert!(t.regs_overlap(r::R5_B3, x), "{}", t.name(x));
        let ux = units(x);
        assert!(
            units(r::R5_W1).iter().all(|u| ux.contains(u)),
            "{}",
            t.name(x)
        );
    }
    // Bytes of one word do not overlap each other; they overlap nothing
    // outside their word.
    assert!(!t.regs_overlap(r::R5_B2, r::R5_B3));
    assert!(!t.regs_overlap(r::R5_B3, r::R5_W0));
    assert!(!t.regs_overlap(r::R5_B3, r::R5_D1));
    assert!(!t.regs_overlap(r::R5_B3, r::R6));
    // The word's units are its bytes' and the lane views' (which alias
    // the word, not its bytes).
    let mut both = units(r::R5_B2);
    both.extend(units(r::R5_B3));
    let word = units(r::R5_W1);
    assert!(both.iter().all(|u| word.contains(u)));
    assert_eq!(word.len(), both.len() + 2);
    assert!(t.contains(classes::GRF_B, r::R5_B3));
    assert_eq!(t.asm_name(r::R5_B3), "r5.3<0;1,0>:b");
    // A uniform qword and the SIMD16 word vector of its GRF.
    assert!(t.contains(classes::SIMD16_W, r::R5));
    assert!(t.regs_overlap(r::R5_Q3, r::R5) && !t.regs_overlap(r::R5_Q3, r::R4));
}

#[test]
fn architecture_registers_are_in_no_allocatable_class() {
    let t = Intel.tables();
    let arch = [
        r::ACC0,
        r::ACC1,
        r::F0_0,
        r::F0_1,
        r::F1_0,
        r::F1_1,
        r::F0,
        r::F1,
        r::NULL,
        r::A0,
    ];
    for x in arch {
        let mut any = false;
        for c in t.all_classes() {
            if t.contains(c, x) {
                any = true;
                assert!(!t.is_allocatable(c), "{} in {}", t.name(x), t.class_name(c));
            }
        }
        assert!(any, "{} is in a class", t.name(x));
        for g in t.members(classes::GRF) {
            assert!(
                !t.regs_overlap(x, g),
                "{} overlaps {}",
                t.name(x),
                t.name(g)
            );
        }
    }
    // Flags: f0.0 and f0.1 are the 16-bit halves of f0.
    assert_eq!(t.sub_reg(r::F0, sub_regs::w0), Some(r::F0_0));
    assert_eq!(t.sub_reg(r::F0, sub_regs::w1), Some(r::F0_1));
    assert_eq!(t.asm_name(r::F1_1), "f1.1");
    assert!(!t.regs_overlap(r::F0, r::F1));
    // Every GRF register is in an allocatable class.
    for c in [
        classes::GRF_B,
        classes::GRF_W,
        classes::GRF_D,
        classes::GRF_Q,
    ] {
        assert!(t.is_allocatable(c));
    }
}

fn check(mode: LaneMode) -> regdesc_core::check::CheckReport {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/IntelGRF.td");
    let run = driver::check(
        &Input::file(file),
        &CheckOptions {
            mode,
            lane_bits: 64,
            ..CheckOptions::default()
        },
    );
    assert!(run.records.is_some(), "{}", run.render(false));
    run.check.expect("check always reports")
}

#[test]
fn check_is_clean_in_coverage_mode() {
    let report = check(LaneMode::Coverage);
    assert!(!report.has_errors());
    // No error and no warning; the one note says the built-in Target.td
    // prelude was used (none when LLVM's own is on the include path).
    let problems: Vec<&str> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Note)
        .map(|d| d.code)
        .collect();
    assert!(problems.is_empty(), "diagnostics: {problems:?}");
    assert!(report
        .diagnostics
        .iter()
        .all(|d| d.code == "regdesc::syntax::builtin_include"));
    let s = report.summary.expect("figures");
    assert_eq!(s.lanes_coverage, COVERAGE_LANES);
    assert_eq!(s.lanes_llvm, LLVM_LANES);
    assert_eq!(
        s.widest_class,
        Some(("SIMD16_Q".to_string(), COVERAGE_LANES))
    );
}

#[test]
fn llvm_mode_needs_the_readme_figure() {
    // llvm-tblgen 14 fills its 64-bit LaneBitmask exactly (its generated
    // masks go up to 0xFFFFFFFFFFFFFFFF), so llvm mode fits too.
    let report = check(LaneMode::Llvm);
    assert!(!report.has_errors());
    let s = report.summary.expect("figures");
    assert_eq!(s.lanes_llvm, LLVM_LANES);
    // The generated tables (coverage mode) use exactly the coverage lanes.
    let t = Intel.tables();
    let used = t
        .all_sub_reg_indices()
        .map(|i| t.sub_reg_index_lane_mask(i))
        .fold(regdesc_intel::regs::LaneMask::NONE, |a, b| a | b);
    assert_eq!(used.count(), COVERAGE_LANES);
}

/// The back end's per-lane values live in the lane views of SIMD vectors
/// (`SIMD8_LANE`, `SIMD16_LANE`): 32-bit registers that alias every word
/// of their GRF (pair), so the allocator keeps them apart from uniform
/// scalars and other vectors through the tables alone.
#[test]
fn lane_views_overlap_every_register_of_their_grfs() {
    let t = Intel.tables();
    let l8 = t.reg_by_name("L8_R5").unwrap();
    let l16 = t.reg_by_name("L16_R4").unwrap();
    assert!(t.contains(classes::SIMD8_LANE, l8));
    assert!(t.contains(classes::SIMD16_LANE, l16));
    assert_eq!(t.members(classes::SIMD8_LANE).count(), 128);
    assert_eq!(t.members(classes::SIMD16_LANE).count(), 64);
    for x in [r::R5, r::R5_D2, r::R5_W15, r::R5_Q3, r::R5_H1, r::R4_R5] {
        assert!(shares_units(l8, x), "L8_R5 and {}", t.name(x));
    }
    for x in [r::R6, r::R4_D0, r::R5_D7, r::R6_D0, r::R3_D7] {
        assert_eq!(
            shares_units(l8, x),
            t.name(x).starts_with("R5"),
            "L8_R5 and {}",
            t.name(x)
        );
    }
    for x in [r::R4, r::R5, r::R4_D3, r::R5_W9, r::R4_R5] {
        assert!(shares_units(l16, x), "L16_R4 and {}", t.name(x));
    }
    assert!(!shares_units(l16, r::R6_D0) && !shares_units(l16, r::R3_D7));
    // SIMD8 and SIMD16 views never hold values in the same function (a
    // function has one SIMD width), so they need no shared unit.
    assert!(!shares_units(l8, l16));
}
