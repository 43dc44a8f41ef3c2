//! Selected and allocated Gen code on the shared machine interpreter
//! (what `regdesc-cc run --target gen11 --after final` runs) against the
//! IR interpreter, through the shared differential driver, at the
//! `select` and `final` stages (`REGDESC_PROPTEST_CASES` inputs; 300 by
//! default).

mod common;

use regdesc_codegen::differential::{compare, DiffConfig, DiffError};
use regdesc_codegen::pipeline::Stage;
use regdesc_intel::{Gen, Platform};

#[test]
fn selected_code_matches_the_ir_on_the_machine_interpreter() {
    let mods = common::modules();
    let mut compared = 0;
    for (file, m) in &mods {
        for f in &m.functions {
            for p in Platform::ALL {
                for s in common::SIMDS {
                    let g = Gen::new(p, s);
                    for stage in [Stage::Select, Stage::Final] {
                        let cfg = DiffConfig {
                            stage,
                            lanes: u32::from(s.lanes()),
                            inputs: common::inputs(),
                            seed: 0x6e11,
                            file: file.clone(),
                        };
                        match compare(&g, f, &cfg) {
                            Ok(r) => compared += r.compared,
                            Err(DiffError::Compile(e))
                                if common::expected_unsupported(file, &f.name, &e.to_string()) => {}
                            Err(e) => panic!("{file} @{} {p:?} {s:?} {stage}: {e}", f.name),
                        }
                    }
                }
            }
        }
    }
    println!("{compared} lanes compared, 0 mismatches");
    assert!(compared > 0);
}
