//! Simulation equals interpretation for the back end's own output: every
//! function of `targets/codegen/tests/fixtures/*.ll`, of
//! `../shared/bench/amdgpu/ll/*.ll` and of this crate's `tests/fixtures/`
//! that the back end compiles (the others are in `common::UNSUPPORTED`,
//! with their reasons), compiled for gfx900, gfx90a and gfx1030, is parsed
//! back from its assembly text by the simulator (`regdesc_amdgpu::sim`)
//! and run at 64 lanes (32 on gfx1030) on random edge-biased inputs
//! against the IR interpreter. `tests/sim_llc.rs` runs llc's output the
//! same way, so a misreading of the ISA shared by the back end and the
//! simulator shows as a disagreement there.
//!
//! `REGDESC_PROPTEST_CASES` sets the lanes compared per function and CPU
//! (default 256). A mismatch prints the `regdesc-cc sim` command that
//! reproduces it; the assembly is kept under the target directory
//! (`sim-own/`).

mod common;

use std::path::{Path, PathBuf};

use regdesc_amdgpu::sim::check::{compare, CheckConfig};
use regdesc_amdgpu::sim::{parse, Chip};
use regdesc_amdgpu::Gfx;
use regdesc_codegen::pipeline::{compile_function, Options};

fn out_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // target/<profile>/deps/sim_own-HASH
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir)
        .join("sim-own")
}

fn chip(gfx: Gfx) -> Chip {
    match gfx {
        Gfx::Gfx900 => Chip::Gfx900,
        Gfx::Gfx90a => Chip::Gfx90a,
        Gfx::Gfx1030 => Chip::Gfx1030,
    }
}

#[test]
fn own_output_simulates_to_the_interpreter() {
    let cases: usize = std::env::var("REGDESC_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let dir = out_dir();
    std::fs::create_dir_all(&dir).expect("an output directory under target/");
    let mut all = common::functions(&common::fixtures_dir(), true);
    all.extend(common::functions(&common::bench_dir(), false));
    all.extend(common::functions(&common::extra_dir(), true));
    let mut failures = Vec::new();
    let (mut runs, mut compared, mut skipped) = (0usize, 0usize, 0usize);
    for gfx in common::CPUS {
        let chip = chip(gfx);
        let target = common::target(gfx);
        for (file, f) in &all {
            if common::expected_unsupported(f).is_some() {
                continue;
            }
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
            let asm = match compile_function(f, &target, &Options::default()) {
                Ok(c) => c.asm.unwrap_or_default(),
                Err(e) => {
                    failures.push(format!("{} @{} ({name}): {e}", chip.name(), f.name));
                    continue;
                }
            };
            let asm_file = dir.join(format!("{name}.{}.{}.s", f.name, chip.name()));
            if let Err(e) = std::fs::write(&asm_file, &asm) {
                failures.push(format!("cannot write {}: {e}", asm_file.display()));
                continue;
            }
            let prog = match parse::parse(&asm) {
                Ok(p) => p,
                Err(e) => {
                    let src =
                        regdesc_codegen::Source::new(asm_file.display().to_string(), asm.as_str());
                    failures.push(e.render(&src, false));
                    continue;
                }
            };
            let cfg = CheckConfig {
                chip,
                lanes: chip.wave_size() as u32,
                inputs: cases,
                seed: 0x0bad_5eed ^ runs as u64,
                asm_file: asm_file.display().to_string(),
                ir_file: file.display().to_string(),
            };
            runs += 1;
            match compare(&prog, f, &cfg) {
                Ok(r) => {
                    compared += r.compared;
                    skipped += r.skipped;
                    if r.compared == 0 {
                        failures.push(format!(
                            "{} @{} ({name}): no input had a defined IR result",
                            chip.name(),
                            f.name
                        ));
                    }
                }
                Err(m) => failures.push(format!("{} @{} ({name}): {m}", chip.name(), f.name)),
            }
        }
    }
    println!(
        "{runs} compilations simulated: {compared} lanes compared, {skipped} skipped (IR result undefined)"
    );
    assert!(runs > 0, "nothing was simulated");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
