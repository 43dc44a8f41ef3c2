//! The runtime's queries over checked-in generated tables
//! (`tests/generated/amdgpu_like.rs`, from `tests/fixtures/regs/amdgpu_like.td`:
//! 32-bit VGPRs and SGPRs with 16-bit halves, tuples, even-aligned tuple
//! classes). The root package's `tests/generated.rs` fails when the file
//! is stale. Every query is compared with LLVM's own tables by the oracle
//! test; these check the facts a code generator leans on, by name.

#[allow(dead_code, clippy::all)]
mod generated {
    include!("generated/amdgpu_like.rs");
}

use generated::{classes, regs, sub_regs, T};
use regdesc_runtime::RegisterInfo;

#[test]
fn names_and_lookup() {
    let t = T.tables();
    assert_eq!(t.name(regs::VGPR0_VGPR1), "VGPR0_VGPR1");
    assert_eq!(t.asm_name(regs::VGPR3), "v3");
    assert_eq!(t.reg_by_name("VGPR3"), Some(regs::VGPR3));
    assert_eq!(t.reg_by_name("nope"), None);
    assert!(t.is_artificial(regs::SGPR0_HI16));
    assert!(!t.is_artificial(regs::SGPR0_LO16));
    assert_eq!(
        t.class_by_name("VReg_64_Align2"),
        Some(classes::VReg_64_Align2)
    );
}

#[test]
fn sub_registers_and_super_registers() {
    let t = T.tables();
    let pair = regs::VGPR0_VGPR1;
    assert_eq!(t.sub_reg(pair, sub_regs::sub1), Some(regs::VGPR1));
    assert_eq!(
        t.sub_reg(regs::VGPR1, sub_regs::hi16),
        Some(regs::VGPR1_HI16)
    );
    assert_eq!(t.sub_reg_index(pair, regs::VGPR1), Some(sub_regs::sub1));
    assert_eq!(t.sub_reg(regs::VGPR1, sub_regs::sub1), None);
    // Composition: sub1 then hi16 is the pair's high half of its high dword.
    let c = t
        .compose_sub_reg_indices(sub_regs::sub1, sub_regs::hi16)
        .expect("sub1 composes with hi16");
    assert_eq!(t.sub_reg(pair, c), Some(regs::VGPR1_HI16));
    let subs: Vec<_> = t.sub_regs(pair).collect();
    assert!(subs.contains(&regs::VGPR0_LO16) && subs.contains(&regs::VGPR1));
    assert!(!subs.contains(&pair));
    assert_eq!(t.sub_regs_inclusive(pair).next(), Some(pair));
    let supers: Vec<_> = t.super_regs(regs::VGPR1).collect();
    assert!(supers.contains(&regs::VGPR0_VGPR1) && supers.contains(&regs::VGPR1_VGPR2));
    assert_eq!(
        t.matching_super_reg(regs::VGPR2, sub_regs::sub0, classes::VReg_64_Align2),
        Some(regs::VGPR2_VGPR3)
    );
    // VGPR1 starts no even-aligned pair.
    assert_eq!(
        t.matching_super_reg(regs::VGPR1, sub_regs::sub0, classes::VReg_64_Align2),
        None
    );
}

#[test]
fn units_aliases_and_overlap() {
    let t = T.tables();
    // A VGPR is two 16-bit units; a pair is four.
    assert_eq!(t.units(regs::VGPR1).count(), 2);
    assert_eq!(t.units(regs::VGPR0_VGPR1).count(), 4);
    assert!(t.regs_overlap(regs::VGPR0_VGPR1, regs::VGPR1_VGPR2));
    assert!(t.regs_overlap(regs::VGPR1_HI16, regs::VGPR0_VGPR1));
    assert!(!t.regs_overlap(regs::VGPR0_VGPR1, regs::VGPR2_VGPR3));
    assert!(!t.regs_overlap(regs::VGPR1_LO16, regs::VGPR1_HI16));
    let aliases: Vec<_> = t.aliases(regs::VGPR1, true).collect();
    assert!(aliases.contains(&regs::VGPR1));
    assert!(aliases.contains(&regs::VGPR0_VGPR1));
    assert!(aliases.contains(&regs::VGPR1_HI16));
    assert!(!t.aliases(regs::VGPR1, false).any(|r| r == regs::VGPR1));
    for u in t.units(regs::VGPR1_HI16) {
        assert_eq!(t.unit_roots(u).collect::<Vec<_>>(), vec![regs::VGPR1_HI16]);
    }
}

#[test]
fn classes_and_alignment() {
    let t = T.tables();
    let aligned = classes::VReg_64_Align2;
    assert!(t.contains(aligned, regs::VGPR2_VGPR3));
    assert!(!t.contains(aligned, regs::VGPR1_VGPR2));
    assert!(t.contains(classes::VReg_64, regs::VGPR1_VGPR2));
    assert!(t.has_sub_class_eq(classes::VReg_64, aligned));
    assert!(!t.has_sub_class_eq(aligned, classes::VReg_64));
    assert_eq!(t.common_sub_class(classes::VReg_64, aligned), Some(aligned));
    // Every aligned pair starts at an even VGPR.
    let vgprs: Vec<_> = t.members(classes::VGPR_32).collect();
    for pair in t.members(aligned) {
        let first = t.sub_reg(pair, sub_regs::sub0).expect("a pair has a sub0");
        let at = vgprs
            .iter()
            .position(|&r| r == first)
            .expect("sub0 is a VGPR");
        assert_eq!(at % 2, 0, "{} is not even-aligned", t.name(pair));
    }
    assert_eq!(t.num_members(aligned), vgprs.len() / 2);
    let order = T.allocation_order(aligned);
    assert_eq!(order.len(), t.num_members(aligned));
    assert_eq!(order.first(), Some(&regs::VGPR0_VGPR1));
    let info = T.spill_info(classes::VReg_64);
    assert_eq!(
        (info.reg_size, info.spill_size, info.spill_alignment),
        (64, 64, 32)
    );
    // The VGPRs with a sub1 form a class: the sub-class with sub-register.
    let with_sub1 = t
        .sub_class_with_sub_reg(classes::VS_64, sub_regs::sub1)
        .expect("VS_64 has sub1");
    assert!(t.has_sub_class_eq(classes::VS_64, with_sub1));
    assert_eq!(
        t.matching_super_reg_class(classes::VReg_64, classes::VGPR_32, sub_regs::sub0),
        Some(classes::VReg_64)
    );
}

#[test]
fn lane_masks() {
    let t = T.tables();
    let lo = t.sub_reg_index_lane_mask(sub_regs::lo16);
    let hi = t.sub_reg_index_lane_mask(sub_regs::hi16);
    assert!(!lo.intersects(hi) && lo.any() && hi.any());
    let c = t
        .compose_sub_reg_indices(sub_regs::sub1, sub_regs::hi16)
        .expect("sub1 composes with hi16");
    assert_eq!(
        t.compose_lane_mask(Some(sub_regs::sub1), hi),
        t.sub_reg_index_lane_mask(c)
    );
    assert_eq!(
        t.reverse_compose_lane_mask(Some(sub_regs::sub1), t.sub_reg_index_lane_mask(c)),
        hi
    );
    let pair_lanes = t.class_lane_mask(classes::VReg_64);
    assert_eq!(
        pair_lanes & t.sub_reg_index_lane_mask(c),
        t.sub_reg_index_lane_mask(c)
    );
}

#[test]
fn member_sets_and_unit_lists_agree_with_the_walks() {
    let t = T.tables();
    for c in t.all_classes() {
        let set = t.member_set(c);
        let members: Vec<_> = t.members(c).collect();
        for r in t.all_regs() {
            assert_eq!(set.contains(r), members.contains(&r), "{}", t.name(r));
            assert_eq!(t.contains(c, r), members.contains(&r));
        }
    }
    // Unit lists: ascending and as long as they say. Every list here is
    // consecutive (counted up without reading the differences); lists with
    // gaps are compared with LLVM's on the real targets by the oracle test.
    let mut consecutive = 0;
    for r in t.all_regs() {
        let units: Vec<_> = t.units(r).collect();
        assert_eq!(units.len(), t.units(r).len());
        assert!(units.windows(2).all(|w| w[0].0 < w[1].0), "{}", t.name(r));
        for &u in &units {
            assert!(t
                .unit_roots(u)
                .any(|root| t.sub_regs_inclusive(r).any(|s| s == root)));
        }
        if units.last().map(|u| u.0) == units.first().map(|u| u.0 + units.len() as u16 - 1) {
            consecutive += 1;
        }
    }
    assert_eq!(consecutive, t.all_regs().count());
}
