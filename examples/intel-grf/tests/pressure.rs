//! The register pressure tables `regdesc!` emits answer what the consumer
//! model holds (which `tests/pressure_sets.rs` checks against llvm-tblgen
//! 14): set names and limits, class weights and sets, unit weights and sets.

use regdesc_core::check::CheckOptions;
use regdesc_core::driver::{self, Input};
use regdesc_core::lanes::LaneMode;
use regdesc_runtime::{PressureSet, RegClass, RegUnit, RegisterInfo};

regdesc_macros::regdesc!(include "../intel_grf.td", lanes = coverage);

#[test]
fn emitted_pressure_tables_match_the_model() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../intel_grf.td");
    let run = driver::target(
        &Input::file(file),
        &CheckOptions {
            mode: LaneMode::Coverage,
            lane_bits: 64,
            ..Default::default()
        },
    );
    let model = run.target.expect("the model of intel_grf.td");
    let t = IntelGPU.tables();
    assert!(!model.pressure_sets.is_empty());
    assert_eq!(t.num_pressure_sets(), model.pressure_sets.len());
    for (i, p) in model.pressure_sets.iter().enumerate() {
        let id = PressureSet(i as u16);
        assert_eq!(t.pressure_set_name(id), p.name);
        assert_eq!(t.pressure_set_limit(id), p.limit);
    }
    let ids = |v: &[regdesc_core::target::PressureSet]| -> Vec<u16> {
        v.iter().map(|p| p.0 as u16).collect()
    };
    for (i, c) in model.classes.iter().enumerate() {
        let id = RegClass(i as u16);
        assert_eq!(t.class_weight(id), (c.weight, c.weight_limit), "{}", c.name);
        let sets: Vec<u16> = t.class_pressure_sets(id).map(|p| p.0).collect();
        assert_eq!(sets, ids(&c.pressure_sets), "{}", c.name);
    }
    for (i, u) in model.units.iter().enumerate() {
        let id = RegUnit(i as u16);
        assert_eq!(t.unit_weight(id), u.weight, "unit {i}");
        let sets: Vec<u16> = t.unit_pressure_sets(id).map(|p| p.0).collect();
        assert_eq!(sets, ids(&u.pressure_sets), "unit {i}");
    }
}
