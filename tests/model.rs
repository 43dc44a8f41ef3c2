//! The consumer model (`regdesc_core::target`): its JSON for a small file
//! (an insta snapshot), and the properties LLVM gives classes it
//! synthesizes.

use regdesc_core::check::CheckOptions;
use regdesc_core::driver::{self, Input};
use regdesc_core::lanes::LaneMode;
use regdesc_core::target::{ClassOrigin, Reg, Target};

const SMALL: &str = "tests/fixtures/regs/model_small.td";

fn model(file: &str, mode: LaneMode) -> Target {
    let run = driver::target(
        &Input::file(file),
        &CheckOptions {
            mode,
            lane_bits: 64,
            ..Default::default()
        },
    );
    match run.target {
        Some(t) => t,
        None => panic!("{file}:\n{}", run.render(false)),
    }
}

fn names(t: &Target, regs: &[Reg]) -> Vec<String> {
    regs.iter().map(|&r| t.reg(r).name.clone()).collect()
}

#[test]
fn json_of_a_small_file() {
    let t = model(SMALL, LaneMode::Llvm);
    insta::assert_snapshot!("model_small_json", t.to_json());
}

#[test]
fn defined_class_properties() {
    let t = model(SMALL, LaneMode::Llvm);
    let gpr = t.class(t.class_by_name("GPR").unwrap());
    assert_eq!(
        gpr.allocation_orders
            .iter()
            .map(|o| names(&t, o))
            .collect::<Vec<_>>(),
        [
            vec!["R3", "R2", "R1", "R0", "SP"],
            vec!["R0", "R1"],
            vec!["R2", "R1", "R0", "SP", "R3"],
        ]
    );
    assert_eq!(gpr.allocation_priority, 3);
    assert_eq!(gpr.alt_order_select.trim(), "return 1;");
    assert!(gpr.allocatable);
    let spr = t.class(t.class_by_name("SPR").unwrap());
    assert!(!spr.allocatable);
    assert_eq!(t.class(t.class_by_name("LowGPR").unwrap()).copy_cost, 2);
    let r2 = t.reg(t.reg_by_name("R2").unwrap());
    assert_eq!(
        (r2.hw_encoding, r2.alt_names.as_slice()),
        (2, &["x2".to_string()][..])
    );
    // A tuple takes its first member's encoding.
    let pair = t.reg(t.reg_by_name("R2_R3").unwrap());
    assert_eq!(pair.hw_encoding, 2);
    assert_eq!(pair.tuple.as_deref(), Some("Pairs"));
}

#[test]
fn synthesized_classes_inherit_from_their_smallest_super_class() {
    let t = model(SMALL, LaneMode::Llvm);
    let c = t.class_by_name("HighGPR_and_OddGPR").unwrap();
    let rc = t.class(c);
    let (high, odd) = (
        t.class_by_name("HighGPR").unwrap(),
        t.class_by_name("OddGPR").unwrap(),
    );
    assert_eq!(rc.origin, ClassOrigin::Common { a: high, b: odd });
    // OddGPR comes last among its super-classes in LLVM's order.
    assert_eq!(rc.super_classes.last(), Some(&odd));
    assert_eq!(rc.allocation_priority, 7);
    assert_eq!(rc.copy_cost, 1);
    assert_eq!(
        rc.allocation_orders
            .iter()
            .map(|o| names(&t, o))
            .collect::<Vec<_>>(),
        [vec!["R3"], vec![]]
    );
    assert_eq!(rc.value_types, ["i32"]);
    assert!(t.is_sub_class(c, high) && t.is_sub_class(c, odd) && t.is_sub_class(c, c));
}

#[test]
fn queries_agree_with_the_tables() {
    let t = model(SMALL, LaneMode::Coverage);
    let (r0, r2) = (t.reg_by_name("R0").unwrap(), t.reg_by_name("R2").unwrap());
    let pair = t.reg_by_name("R0_R1").unwrap();
    let (lo, hi) = (
        t.index_by_name("lo").unwrap(),
        t.index_by_name("hi").unwrap(),
    );
    assert_eq!(t.sub_reg(pair, lo), Some(r0));
    assert_eq!(t.sub_reg_index(pair, r0), Some(lo));
    assert!(t.regs_overlap(pair, r0) && !t.regs_overlap(pair, r2));
    assert_eq!(names(&t, &t.aliases(r0)), ["R0", "R0_R1"]);
    assert!(!t.idx(lo).lane_mask.intersects(&t.idx(hi).lane_mask));
    // Unit lane masks: each unit of the pair carries its half's lanes.
    let p = t.reg(pair);
    assert_eq!(p.unit_lane_masks.len(), p.units.len());
    assert_eq!(p.unit_lane_masks[0], t.idx(lo).lane_mask);
}
