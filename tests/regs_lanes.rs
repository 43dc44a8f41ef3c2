//! Lane mask invariants on random register files (proptest), in both modes:
//! for every register R and indices I, J valid in R,
//! * masks intersect iff R:I and R:J share a register unit;
//! * mask(I) ⊆ mask(J) iff units(R:I) ⊆ units(R:J);
//! * composing through I maps mask(J) to the mask of I∘J, and reverse
//!   composing maps it back;
//! * llvm and coverage agree on which pairs overlap.

use proptest::prelude::*;

use regdesc_core::lanes::{LaneMode, Lanes};
use regdesc_core::regs::RegBank;
use regdesc_core::syntax::{self, LoadOptions};
use regdesc_core::{eval, prelude};

#[derive(Clone, Debug)]
struct Spec {
    regs: u32,
    halves: bool,
    /// (width, stride) of each tuple definition over the base registers.
    tuples: Vec<(u32, u32)>,
    /// Tuples of pairs (width 2 over the first tuple def, if it is a pair).
    nested: bool,
    /// Declare the second half at offset 0 (a wrong offset).
    wrong_offset: bool,
    /// Classes: (start, len) slices of the base registers.
    slices: Vec<(u32, u32)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        4u32..24,
        any::<bool>(),
        prop::collection::vec((2u32..5, 1u32..4), 0..4),
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::collection::vec((0u32..8, 1u32..8), 0..4),
    )
        .prop_map(|(regs, halves, mut tuples, nested, wrong_offset, slices)| {
            // One tuple definition per width (two would build the same
            // registers twice), and no quads next to pairs of pairs.
            let mut seen = Vec::new();
            tuples.retain(|&(w, _)| {
                let fresh = !seen.contains(&w);
                seen.push(w);
                fresh
            });
            let nested = nested && !seen.contains(&4) && tuples.first().is_some_and(|t| t.0 == 2);
            if nested {
                // Pairs of pairs need disjoint pairs.
                tuples[0].1 = 2;
            }
            Spec {
                regs,
                halves,
                tuples,
                nested,
                wrong_offset,
                slices,
            }
        })
}

fn td(s: &Spec) -> String {
    let mut t = String::from("include \"llvm/Target/Target.td\"\nlet Namespace = \"P\" in {\n");
    for k in 0..8 {
        t += &format!("def sub{k} : SubRegIndex<32, {}>;\n", 32 * k);
    }
    t += "def psub0 : SubRegIndex<64, 0>;\ndef psub1 : SubRegIndex<64, 64>;\n";
    t += "def lo16 : SubRegIndex<16, 0>;\n";
    t += &format!(
        "def hi16 : SubRegIndex<16, {}>;\n}}\n",
        if s.wrong_offset { 0 } else { 16 }
    );
    t += "class PReg<string n> : Register<n> { let Namespace = \"P\"; }\n";
    if s.halves {
        t += &format!("foreach i = 0-{} in {{\n", s.regs - 1);
        t += "  def L#i : PReg<\"l\"#i>;\n  def H#i : PReg<\"h\"#i>;\n";
        t += "  def R#i : PReg<\"r\"#i> { let SubRegs = [!cast<Register>(\"L\"#i), !cast<Register>(\"H\"#i)]; let SubRegIndices = [lo16, hi16]; let CoveredBySubRegs = 1; }\n}\n";
    } else {
        t += &format!("foreach i = 0-{} in def R#i : PReg<\"r\"#i>;\n", s.regs - 1);
    }
    t += &format!(
        "def GPR : RegisterClass<\"P\", [i32], 32, (sequence \"R%u\", 0, {})>;\n",
        s.regs - 1
    );
    for (n, &(w, stride)) in s.tuples.iter().enumerate() {
        let idx: Vec<String> = (0..w).map(|k| format!("sub{k}")).collect();
        let lists: Vec<String> = (0..w)
            .map(|k| format!("(decimate (shl GPR, {k}), {stride})"))
            .collect();
        t += &format!(
            "def T{n} : RegisterTuples<[{}], [{}]>;\n",
            idx.join(", "),
            lists.join(", ")
        );
        t += &format!(
            "def TC{n} : RegisterClass<\"P\", [untyped], 32, (add T{n})> {{ let Size = {}; }}\n",
            32 * w
        );
    }
    if s.nested && s.tuples.first().is_some_and(|&(w, _)| w == 2) {
        t += "def N0 : RegisterTuples<[psub0, psub1], [(decimate TC0, 2), (decimate (shl TC0, 1), 2)]>;\n";
        t += "def NC0 : RegisterClass<\"P\", [untyped], 32, (add N0)> { let Size = 128; }\n";
    }
    for (n, &(a, l)) in s.slices.iter().enumerate() {
        let a = a.min(s.regs - 1);
        let b = (a + l).min(s.regs - 1);
        t +=
            &format!("def S{n} : RegisterClass<\"P\", [i32], 32, (sequence \"R%u\", {a}, {b})>;\n");
    }
    t += "def PInstrInfo : InstrInfo;\ndef P : Target { let InstructionSet = PInstrInfo; }\n";
    t
}

fn bank_of(text: &str) -> RegBank {
    let opts = LoadOptions {
        include_dirs: Vec::new(),
        defines: Vec::new(),
        builtin_files: prelude::builtin_files(),
    };
    let loaded = syntax::load_str("random.td", text, &opts)
        .unwrap_or_else(|(_, d)| panic!("load: {d:?}\n{text}"));
    let out = eval::evaluate(&loaded).unwrap_or_else(|d| panic!("eval: {d:?}\n{text}"));
    RegBank::build(&out.records).unwrap_or_else(|e| panic!("bank: {e}\n{text}"))
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
    fn lane_invariants(s in spec()) {
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
