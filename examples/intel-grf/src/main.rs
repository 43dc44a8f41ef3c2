//! An example target crate: `regdesc!` turns the seed's word-based Intel
//! GRF description (`examples/intel_grf.td`) into Rust tables at compile
//! time, and the program asks them a few of the questions a code generator
//! asks.
//!
//! Run it with `cargo run -p intel-grf-example`.

use regdesc_runtime::RegisterInfo;

regdesc_macros::regdesc!(include "../intel_grf.td", lanes = coverage);

/// The SIMD16 variant in LLVM's own lane assignment: 78 lanes, more than
/// LLVM's 64-bit `LaneBitmask` holds, so its `LaneMask` is a `u128`.
mod simd16 {
    regdesc_macros::regdesc!(include "../intel_grf_simd16.td", lanes = llvm, lane_bits = 128);
}

/// The lanes the SIMD16 description uses: the union of its indices' masks.
fn simd16_lanes() -> u32 {
    let t = simd16::IntelGPU.tables();
    t.all_sub_reg_indices()
        .map(|i| t.sub_reg_index_lane_mask(i))
        .fold(simd16::LaneMask::NONE, |a, b| a | b)
        .count()
}

fn main() {
    let t = IntelGPU.tables();
    println!(
        "{} registers, {} sub-register indices, {} classes, {} register units",
        t.num_regs(),
        t.num_sub_reg_indices(),
        t.num_classes(),
        t.num_units()
    );

    // A SIMD8 dword tuple: its dword lanes and the words of its third lane.
    let r = t
        .members(classes::RegD_SIMD8)
        .next()
        .expect("RegD_SIMD8 has registers");
    let d2 = t
        .sub_reg(r, sub_regs::subd2)
        .expect("a SIMD8 tuple has a subd2");
    print!("{}: subd2 = {}, words:", t.name(r), t.name(d2));
    for w in t.sub_regs(d2) {
        print!(" {}", t.name(w));
    }
    println!();

    // Register units, overlap and class membership.
    let units: Vec<String> = t.units(d2).map(|u| format!("{u:?}")).collect();
    println!("{} units: {}", t.name(d2), units.join(", "));
    println!(
        "{} overlaps {}: {}; RegD_SIMD8 contains it: {}; RegD_Uniform contains it: {}",
        t.name(r),
        t.name(d2),
        t.regs_overlap(r, d2),
        t.contains(classes::RegD_SIMD8, r),
        t.contains(classes::RegD_Uniform, r)
    );

    // The lane masks, composed through an index.
    let lm = t.sub_reg_index_lane_mask(sub_regs::subd2);
    println!(
        "lanes of subd2: {lm:?}; covering lanes: {:?}",
        t.covering_lanes()
    );
    let c = t
        .compose_sub_reg_indices(sub_regs::subd2, sub_regs::w1)
        .map(|i| t.sub_reg_index_name(i));
    println!("subd2 then w1 = {c:?}");

    // Register pressure: what a SIMD8 dword tuple costs, and where it counts.
    let sets: Vec<String> = t
        .class_pressure_sets(classes::RegD_SIMD8)
        .map(|p| {
            format!(
                "{} (limit {})",
                t.pressure_set_name(p),
                t.pressure_set_limit(p)
            )
        })
        .collect();
    let (weight, limit) = t.class_weight(classes::RegD_SIMD8);
    println!(
        "RegD_SIMD8: weight {weight} of {limit}; pressure sets: {}",
        sets.join(", ")
    );

    println!(
        "intel_grf_simd16.td in llvm mode: {} lanes in a {}-bit LaneMask",
        simd16_lanes(),
        8 * std::mem::size_of::<simd16::LaneBits>()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simd8_tuples_are_word_pairs_sixteen_words_apart() {
        let t = IntelGPU.tables();
        let r = t
            .members(classes::RegD_SIMD8)
            .next()
            .expect("a SIMD8 tuple");
        let d1 = t.sub_reg(r, sub_regs::subd1).expect("subd1");
        assert_eq!(t.name(d1), "Rw2_Rw3");
        assert_eq!(t.units(r).count(), 16);
        assert!(!t.contains(classes::RegD_Uniform, r));
        assert!(t.contains(classes::RegD_Uniform, d1));
    }

    #[test]
    fn simd16_needs_78_lanes_in_llvm_mode() {
        assert_eq!(simd16_lanes(), 78);
        assert_eq!(std::mem::size_of::<simd16::LaneBits>(), 16);
    }
}
