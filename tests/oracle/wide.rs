//! The oracle's queries on descriptions over 64 lanes in `llvm` mode, where
//! LLVM 14 cannot build tables (its `LaneBitmask` has 64 bits): property
//! tests of regdesc's generated tables (through `regdesc!`, so with a
//! `u128` lane mask) against the register bank's own data in the consumer
//! model (`driver::target`): sub-register maps, units, super-registers,
//! class members, index composition and lane masks, and the relations
//! LLVM's tables satisfy among them.

use proptest::prelude::*;
use regdesc_core::check::CheckOptions;
use regdesc_core::lanes::LaneMode;
use regdesc_core::target::{self as model, Target};
use regdesc_runtime::{LaneBits, LaneMask, Reg, RegClass, SubRegIdx, Tables};

mod simd16 {
    regdesc_macros::regdesc!(
        include "examples/intel_grf_simd16.td",
        lanes = llvm,
        lane_bits = 128
    );
}

mod bytes_simd16 {
    regdesc_macros::regdesc!(
        include "examples/intel_grf_bytes_simd16.td",
        lanes = llvm,
        lane_bits = 128
    );
}

/// The model of `file`, in `llvm` lane mode.
fn model_of(file: &str) -> Target {
    let input = super::common::input(&super::common::repo_root().join(file), &[]);
    let opts = CheckOptions {
        mode: LaneMode::Llvm,
        lane_bits: 128,
        ..Default::default()
    };
    let run = regdesc_core::driver::target(&input, &opts);
    let rendered = run.render(false);
    run.target
        .unwrap_or_else(|| panic!("{file} has no model:\n{rendered}"))
}

fn simd16_model() -> &'static Target {
    static M: std::sync::OnceLock<Target> = std::sync::OnceLock::new();
    M.get_or_init(|| model_of("examples/intel_grf_simd16.td"))
}

fn bytes_model() -> &'static Target {
    static M: std::sync::OnceLock<Target> = std::sync::OnceLock::new();
    M.get_or_init(|| model_of("examples/intel_grf_bytes_simd16.td"))
}

fn reg(m: model::Reg) -> Reg {
    Reg::new(m.0 as u16 + 1)
}

fn idx(m: model::SubRegIdx) -> SubRegIdx {
    SubRegIdx::new(m.0 as u16 + 1)
}

fn class(m: model::RegClass) -> RegClass {
    RegClass(m.0 as u16)
}

/// A model lane mask as the tables' (`u128`) mask.
fn mask(m: &regdesc_core::lanes::LaneMask) -> LaneMask<u128> {
    LaneMask(u128::from(m.word(0)) | (u128::from(m.word(1)) << 64))
}

fn lanes_of(m: LaneMask<u128>) -> Vec<u32> {
    m.lanes().collect()
}

/// Every query of one register against the model.
fn check_register<L: LaneBits>(
    t: &Tables<L>,
    m: &Target,
    r: usize,
    to_mask: impl Fn(LaneMask<L>) -> LaneMask<u128>,
) -> Result<(), TestCaseError> {
    let mr = model::Reg(r as u32);
    let (rr, desc) = (reg(mr), m.reg(mr));
    prop_assert_eq!(t.name(rr), desc.name.as_str());
    prop_assert_eq!(t.hw_encoding(rr), desc.hw_encoding);
    prop_assert_eq!(t.is_artificial(rr), desc.artificial);
    // Sub-registers: by index, in LLVM's order, and each one's index.
    for (k, mi) in (0..m.sub_reg_indices.len()).map(|k| (k, model::SubRegIdx(k as u32))) {
        let expected = m.sub_reg(mr, mi).map(reg);
        prop_assert_eq!(t.sub_reg(rr, idx(mi)), expected, "index {}", k);
    }
    let pre: Vec<Reg> = m.sub_regs_pre_order(mr).into_iter().map(reg).collect();
    prop_assert_eq!(t.sub_regs(rr).collect::<Vec<_>>(), pre.clone());
    for (i, s) in t.sub_regs_with_indices(rr) {
        prop_assert_eq!(t.sub_reg(rr, i), Some(s));
    }
    let supers: Vec<Reg> = desc.super_regs.iter().copied().map(reg).collect();
    prop_assert_eq!(t.super_regs(rr).collect::<Vec<_>>(), supers.clone());
    for &s in &supers {
        prop_assert!(t.sub_regs(s).any(|x| x == rr));
    }
    // Units and their lane masks.
    let units: Vec<u16> = desc.units.iter().map(|u| u.0 as u16).collect();
    prop_assert_eq!(t.units(rr).map(|u| u.0).collect::<Vec<_>>(), units);
    let masks: Vec<LaneMask<u128>> = t.unit_lane_masks(rr).map(|(_, l)| to_mask(l)).collect();
    let expected: Vec<LaneMask<u128>> = desc.unit_lane_masks.iter().map(mask).collect();
    prop_assert_eq!(masks, expected);
    for s in &pre {
        prop_assert!(t.units(*s).all(|u| t.units(rr).any(|v| v == u)));
    }
    // Aliases are the registers sharing a unit.
    let mut aliases: Vec<Reg> = t.aliases(rr, true).collect();
    aliases.sort();
    aliases.dedup();
    let expected: Vec<Reg> = m.aliases(mr).into_iter().map(reg).collect();
    prop_assert_eq!(&aliases, &expected);
    Ok(())
}

/// `regs_overlap` of `a` and `b`, or with `alias = Some(k)` of `a` and its
/// `k`th alias in the model (random pairs rarely overlap).
fn check_pair<L: LaneBits>(
    t: &Tables<L>,
    m: &Target,
    a: usize,
    b: usize,
    alias: Option<usize>,
) -> Result<(), TestCaseError> {
    let ma = model::Reg(a as u32);
    let mb = match alias {
        Some(k) => {
            let all = m.aliases(ma);
            all[k % all.len()]
        }
        None => model::Reg(b as u32),
    };
    let overlap = m.regs_overlap(ma, mb);
    prop_assert_eq!(t.regs_overlap(reg(ma), reg(mb)), overlap);
    prop_assert_eq!(t.aliases(reg(ma), true).any(|x| x == reg(mb)), overlap);
    Ok(())
}

fn check_class_member<L: LaneBits>(
    t: &Tables<L>,
    m: &Target,
    c: usize,
    r: usize,
) -> Result<(), TestCaseError> {
    let (mc, mr) = (model::RegClass(c as u32), model::Reg(r as u32));
    let desc = m.class(mc);
    prop_assert_eq!(t.contains(class(mc), reg(mr)), desc.contains(mr));
    // matching_super_reg: an answer has `r` at the index and is in the
    // class; no answer means no such super-register.
    for mi in (0..m.sub_reg_indices.len()).map(|k| model::SubRegIdx(k as u32)) {
        let found = t.matching_super_reg(reg(mr), idx(mi), class(mc));
        let expected = m
            .reg(mr)
            .super_regs
            .iter()
            .copied()
            .find(|&s| desc.contains(s) && m.sub_reg(s, mi) == Some(mr))
            .map(reg);
        prop_assert_eq!(found, expected);
    }
    Ok(())
}

/// Composition of indices and of lane masks against the model's tables.
fn check_indices<L: LaneBits>(
    t: &Tables<L>,
    m: &Target,
    a: usize,
    to_mask: impl Fn(LaneMask<L>) -> LaneMask<u128>,
    from_mask: impl Fn(LaneMask<u128>) -> LaneMask<L>,
) -> Result<(), TestCaseError> {
    let ma = model::SubRegIdx(a as u32);
    let desc = m.idx(ma);
    prop_assert_eq!(
        to_mask(t.sub_reg_index_lane_mask(idx(ma))),
        mask(&desc.lane_mask)
    );
    for mb in (0..m.sub_reg_indices.len()).map(|k| model::SubRegIdx(k as u32)) {
        prop_assert_eq!(
            t.compose_sub_reg_indices(idx(ma), idx(mb)),
            m.compose(ma, mb).map(idx)
        );
    }
    // The lane map: each lane of R:a's sub-register goes to its lane in R,
    // and reverse composition brings it back.
    for &(from, to) in &desc.lane_map {
        let one = from_mask(LaneMask::lane(from));
        let up = to_mask(t.compose_lane_mask(Some(idx(ma)), one));
        prop_assert_eq!(
            lanes_of(up),
            vec![to],
            "lane {} through {}",
            from,
            desc.name.clone()
        );
        let back = t.reverse_compose_lane_mask(Some(idx(ma)), from_mask(LaneMask::lane(to)));
        prop_assert_eq!(lanes_of(to_mask(back)), vec![from]);
    }
    Ok(())
}

fn check_classes<L: LaneBits>(
    t: &Tables<L>,
    m: &Target,
    a: usize,
    b: usize,
) -> Result<(), TestCaseError> {
    let (ma, mb) = (model::RegClass(a as u32), model::RegClass(b as u32));
    prop_assert_eq!(
        t.has_sub_class_eq(class(ma), class(mb)),
        m.is_sub_class(mb, ma)
    );
    let common = m
        .class(ma)
        .sub_classes
        .iter()
        .copied()
        .find(|&c| m.is_sub_class(c, mb))
        .map(class);
    prop_assert_eq!(t.common_sub_class(class(ma), class(mb)), common);
    for &(i, c) in &m.class(ma).sub_class_with_sub_reg {
        prop_assert_eq!(t.sub_class_with_sub_reg(class(ma), idx(i)), Some(class(c)));
    }
    Ok(())
}

fn u128_mask(m: LaneMask<u128>) -> LaneMask<u128> {
    m
}

macro_rules! wide_properties {
    ($module:ident, $tables:expr, $model:expr) => {
        mod $module {
            use super::*;

            fn sizes() -> (usize, usize, usize) {
                let m = $model;
                (m.registers.len(), m.sub_reg_indices.len(), m.classes.len())
            }

            #[test]
            fn tables_have_the_model_shape() {
                let (t, m) = ($tables, $model);
                assert!(
                    m.num_lanes > 64,
                    "not a wide description: {} lanes",
                    m.num_lanes
                );
                assert_eq!(t.num_lanes, m.num_lanes);
                assert_eq!(t.num_regs(), m.registers.len());
                assert_eq!(t.num_sub_reg_indices(), m.sub_reg_indices.len());
                assert_eq!(t.num_classes(), m.classes.len());
                assert_eq!(t.num_units(), m.units.len());
                assert_eq!(t.covering_lanes(), !mask(&m.uncovered_lanes));
                for (c, desc) in m.classes.iter().enumerate() {
                    let rc = RegClass(c as u16);
                    assert_eq!(
                        t.class_lane_mask(rc),
                        mask(&desc.lane_mask),
                        "{}",
                        desc.name
                    );
                    let members: Vec<Reg> = desc.members.iter().copied().map(reg).collect();
                    assert_eq!(t.members(rc).collect::<Vec<_>>(), members, "{}", desc.name);
                }
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(256))]

                #[test]
                fn registers(r in 0..sizes().0) {
                    check_register($tables, $model, r, u128_mask)?;
                }

                #[test]
                fn register_pairs(
                    a in 0..sizes().0,
                    b in 0..sizes().0,
                    alias in proptest::option::of(0..64usize),
                ) {
                    check_pair($tables, $model, a, b, alias)?;
                }

                #[test]
                fn class_members(c in 0..sizes().2, r in 0..sizes().0) {
                    check_class_member($tables, $model, c, r)?;
                }

                #[test]
                fn indices(a in 0..sizes().1) {
                    check_indices($tables, $model, a, u128_mask, u128_mask)?;
                }

                #[test]
                fn class_pairs(a in 0..sizes().2, b in 0..sizes().2) {
                    check_classes($tables, $model, a, b)?;
                }
            }
        }
    };
}

wide_properties!(
    intel_grf_simd16,
    &super::simd16::TABLES,
    super::simd16_model()
);
wide_properties!(
    intel_grf_bytes_simd16,
    &super::bytes_simd16::TABLES,
    super::bytes_model()
);
