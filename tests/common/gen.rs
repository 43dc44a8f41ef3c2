//! Random register files for property tests (valid for llvm-tblgen too).

use proptest::prelude::*;

#[derive(Clone, Debug)]
pub struct Spec {
    pub regs: u32,
    pub halves: bool,
    pub artificial_hi: bool,
    pub covered: bool,
    /// (width, stride) of each tuple definition over the base registers.
    pub tuples: Vec<(u32, u32)>,
    /// Tuples of pairs (width 2 over the first tuple def, if it is a pair).
    pub nested: bool,
    /// Declare the second half at offset 0 (a wrong offset).
    pub wrong_offset: bool,
    /// Ad hoc aliases between base registers: (a, b).
    pub aliases: Vec<(u32, u32)>,
    /// Classes: (operator, a, b) over the base registers.
    pub classes: Vec<(u8, u32, u32)>,
    /// Use a ComposedSubRegIndex for the pair-of-pairs halves.
    pub composed: bool,
}

pub fn spec() -> impl Strategy<Value = Spec> {
    (
        (4u32..20, any::<bool>(), any::<bool>(), any::<bool>()),
        prop::collection::vec((2u32..5, 1u32..4), 0..4),
        (any::<bool>(), prop::bool::weighted(0.2), any::<bool>()),
        prop::collection::vec((0u32..20, 0u32..20), 0..3),
        prop::collection::vec((0u8..7, 0u32..20, 1u32..8), 0..5),
    )
        .prop_map(
            |(
                (regs, halves, artificial_hi, covered),
                mut tuples,
                (nested, wrong_offset, composed),
                aliases,
                classes,
            )| {
                // One tuple definition per width (two would build the same
                // registers twice), and no quads next to pairs of pairs.
                let mut seen = Vec::new();
                tuples.retain(|&(w, _)| {
                    let fresh = !seen.contains(&w);
                    seen.push(w);
                    fresh
                });
                let nested =
                    nested && !seen.contains(&4) && tuples.first().is_some_and(|t| t.0 == 2);
                if nested {
                    tuples[0].1 = 2;
                }
                let aliases = aliases
                    .into_iter()
                    .map(|(a, b)| (a % regs, b % regs))
                    .filter(|(a, b)| b < a)
                    .collect();
                Spec {
                    regs,
                    halves,
                    artificial_hi: halves && artificial_hi,
                    covered,
                    tuples,
                    nested,
                    wrong_offset,
                    aliases,
                    classes,
                    composed,
                }
            },
        )
}

pub fn td(s: &Spec) -> String {
    let mut t = String::from("include \"llvm/Target/Target.td\"\nlet Namespace = \"P\" in {\n");
    for k in 0..8 {
        t += &format!("def sub{k} : SubRegIndex<32, {}>;\n", 32 * k);
    }
    t += "def psub0 : SubRegIndex<64, 0>;\ndef psub1 : SubRegIndex<64, 64>;\n";
    if s.composed {
        t += "def psub1_sub0 : ComposedSubRegIndex<psub1, sub0>;\n";
    }
    t += "def lo16 : SubRegIndex<16, 0>;\n";
    t += &format!(
        "def hi16 : SubRegIndex<16, {}>;\n}}\n",
        if s.wrong_offset { 0 } else { 16 }
    );
    t += "class PReg<string n> : Register<n> { let Namespace = \"P\"; }\n";
    let n = s.regs;
    if s.halves {
        t += &format!("foreach i = 0-{} in {{\n", n - 1);
        t += "  def L#i : PReg<\"l\"#i>;\n";
        if s.artificial_hi {
            t += "  def H#i : PReg<\"\"> { let isArtificial = 1; }\n";
        } else {
            t += "  def H#i : PReg<\"h\"#i>;\n";
        }
        t += &format!(
            "  def R#i : PReg<\"r\"#i> {{ let SubRegs = [!cast<Register>(\"L\"#i), !cast<Register>(\"H\"#i)]; let SubRegIndices = [lo16, hi16]; let CoveredBySubRegs = {}; }}\n}}\n",
            s.covered as u8
        );
    } else {
        for i in 0..n {
            let al: Vec<String> = s
                .aliases
                .iter()
                .filter(|(a, _)| *a == i)
                .map(|(_, b)| format!("R{b}"))
                .collect();
            if al.is_empty() {
                t += &format!("def R{i} : PReg<\"r{i}\">;\n");
            } else {
                t += &format!(
                    "def R{i} : PReg<\"r{i}\"> {{ let Aliases = [{}]; }}\n",
                    al.join(", ")
                );
            }
        }
    }
    t += &format!(
        "def GPR : RegisterClass<\"P\", [i32], 32, (sequence \"R%u\", 0, {})>;\n",
        n - 1
    );
    for (k, &(w, stride)) in s.tuples.iter().enumerate() {
        let idx: Vec<String> = (0..w).map(|k| format!("sub{k}")).collect();
        let lists: Vec<String> = (0..w)
            .map(|k| format!("(decimate (shl GPR, {k}), {stride})"))
            .collect();
        t += &format!(
            "def T{k} : RegisterTuples<[{}], [{}]>;\n",
            idx.join(", "),
            lists.join(", ")
        );
        t += &format!(
            "def TC{k} : RegisterClass<\"P\", [untyped], 32, (add T{k})> {{ let Size = {}; }}\n",
            32 * w
        );
        t += &format!("def TCA{k} : RegisterClass<\"P\", [untyped], 32, (decimate (rotl T{k}, 1), 2)> {{ let Size = {}; }}\n", 32 * w);
    }
    if s.nested {
        t += "def N0 : RegisterTuples<[psub0, psub1], [(decimate TC0, 2), (decimate (shl TC0, 1), 2)]>;\n";
        t += "def NC0 : RegisterClass<\"P\", [untyped], 32, (add N0)> { let Size = 128; }\n";
    }
    for (k, &(op, a, l)) in s.classes.iter().enumerate() {
        let a = a % n;
        let b = (a + l).min(n - 1);
        let seq = format!("(sequence \"R%u\", {a}, {b})");
        let expr = match op {
            0 => seq,
            1 => format!("(sub GPR, {seq})"),
            2 => format!("(and GPR, (decimate GPR, {}))", l.max(1)),
            3 => format!("(rotr {seq}, {l})"),
            4 => format!("(interleave {seq}, (trunc GPR, {l}))"),
            5 => format!("(add (shl GPR, {a}), R0)"),
            _ => format!("(trunc (rotl GPR, {a}), {l})"),
        };
        let size = if op == 6 { 64 } else { 32 };
        t += &format!("def S{k} : RegisterClass<\"P\", [i32], {size}, {expr}>;\n");
    }
    t += "def PInstrInfo : InstrInfo;\ndef P : Target { let InstructionSet = PInstrInfo; }\n";
    t
}
