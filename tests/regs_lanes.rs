//! Lane mask invariants on random register files (proptest), in both modes:
//! for every register R and indices I, J valid in R,
//! * masks intersect iff R:I and R:J share a register unit;
//! * mask(I) ⊆ mask(J) iff units(R:I) ⊆ units(R:J);
//! * composing through I maps mask(J) to the mask of I∘J, and reverse
//!   composing maps it back;
//! * llvm and coverage agree on which pairs overlap.

use proptest::prelude::*;

mod common;
use common::gen::{spec, td};

use regdesc_core::driver::{self, Input};
use regdesc_core::lanes::{LaneMode, Lanes};
use regdesc_core::regs::RegBank;

fn bank_of(text: &str) -> RegBank {
    let run = driver::bank(&Input::text("random.td", text), LaneMode::Llvm);
    match run.bank {
        Some(bank) => bank,
        None => panic!("{}\n{text}", run.render(false)),
    }
}

fn subset(a: &[u32], b: &[u32]) -> bool {
    a.iter().all(|x| b.binary_search(x).is_ok())
}

fn intersect(a: &[u32], b: &[u32]) -> bool {
    a.iter().any(|x| b.binary_search(x).is_ok())
}

fn check_invariants(bank: &RegBank, lanes: &Lanes) -> Result<(), String> {
    for reg in &bank.registers {
        let subs: Vec<(u32, u32)> = reg.sub_regs.iter().map(|(&i, &s)| (i, s)).collect();
        for &(i, ri) in &subs {
            let (mi, ui) = (lanes.of_index(i), &bank.reg(ri).units);
            for &(j, rj) in &subs {
                let (mj, uj) = (lanes.of_index(j), &bank.reg(rj).units);
                if mi.intersects(mj) != intersect(ui, uj) {
                    return Err(format!(
                        "{:?}: {}: {} and {} intersect {} vs units {}",
                        lanes.mode,
                        reg.name,
                        bank.idx(i).name,
                        bank.idx(j).name,
                        mi.intersects(mj),
                        intersect(ui, uj)
                    ));
                }
                if mi.is_subset_of(mj) != subset(ui, uj) {
                    return Err(format!(
                        "{:?}: {}: {} ⊆ {} is {} vs units {}",
                        lanes.mode,
                        reg.name,
                        bank.idx(i).name,
                        bank.idx(j).name,
                        mi.is_subset_of(mj),
                        subset(ui, uj)
                    ));
                }
            }
            // Composition through i: for J valid in R:I, K names R:I:J in R.
            let sub = bank.reg(ri);
            for (&j, &rj) in &sub.sub_regs {
                let Some(k) = reg.sub_reg_index(rj) else {
                    continue;
                };
                let composed = lanes.compose(bank, i, lanes.of_index(j));
                if &composed != lanes.of_index(k) {
                    return Err(format!(
                        "{:?}: {}: compose({}, mask({})) = {:?} but mask({}) = {:?}",
                        lanes.mode,
                        reg.name,
                        bank.idx(i).name,
                        bank.idx(j).name,
                        composed,
                        bank.idx(k).name,
                        lanes.of_index(k)
                    ));
                }
                let back = lanes.reverse_compose(bank, i, lanes.of_index(k));
                if &back != lanes.of_index(j) {
                    return Err(format!(
                        "{:?}: {}: reverse({}, mask({})) = {:?} but mask({}) = {:?}",
                        lanes.mode,
                        reg.name,
                        bank.idx(i).name,
                        bank.idx(k).name,
                        back,
                        bank.idx(j).name,
                        lanes.of_index(j)
                    ));
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn lane_invariants(mut s in spec()) {
        // Ad hoc aliases make sub-registers overlap outside the sub-register
        // structure, which no lane assignment can express (LLVM notes this too);
        // `check` reports them. The invariants are for alias-free files.
        s.aliases.clear();
        let text = td(&s);
        let bank = bank_of(&text);
        let llvm = Lanes::compute(&bank, LaneMode::Llvm);
        let cov = Lanes::compute(&bank, LaneMode::Coverage);
        prop_assert!(cov.num_lanes <= llvm.num_lanes);
        check_invariants(&bank, &llvm).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        check_invariants(&bank, &cov).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        // llvm and coverage agree on which pairs overlap.
        for reg in &bank.registers {
            for &i in reg.sub_regs.keys() {
                for &j in reg.sub_regs.keys() {
                    prop_assert_eq!(
                        llvm.of_index(i).intersects(llvm.of_index(j)),
                        cov.of_index(i).intersects(cov.of_index(j)),
                        "{}: {} / {}", reg.name, bank.idx(i).name, bank.idx(j).name
                    );
                }
            }
        }
    }
}

#[test]
fn seed_word_file_shares_lanes() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/intel_grf.td"
    ))
    .unwrap();
    let bank = bank_of(&text);
    let cov = Lanes::compute(&bank, LaneMode::Coverage);
    let idx = |n: &str| {
        bank.sub_reg_indices
            .iter()
            .position(|i| i.name == n)
            .unwrap() as u32
    };
    assert_eq!(cov.of_index(idx("subd1_then_w0")), cov.of_index(idx("w2")));
    assert_eq!(cov.of_index(idx("subd1_then_w1")), cov.of_index(idx("w3")));
    check_invariants(&bank, &cov).unwrap();
    check_invariants(&bank, &Lanes::compute(&bank, LaneMode::Llvm)).unwrap();
}
