//! The simulator agrees with an independent compiler: every function of
//! `../shared/bench/amdgpu/ll/*.ll`, of `targets/codegen/tests/fixtures/*.ll`
//! of `tests/sim/*.ll` (more: i96/i192, halves, vectors, kernels) and of
//! `tests/fixtures/wide_mul.ll` (per-lane wide factors, `saddr` accesses),
//! compiled by `llc-14` and `llc-19` for gfx900, gfx90a and gfx1030 (`-O2`,
//! as `gen_table.py` runs them), simulates to the IR interpreter's results
//! on random edge-biased inputs, at 64 lanes (32 on gfx1030). Each llc's
//! own convention holds for `inreg` arguments: VGPRs for llc 14, SGPRs
//! (one value for all lanes) for llc 19.
//!
//! `REGDESC_PROPTEST_CASES` sets the inputs per function and compilation
//! (default 256). A missing llc is skipped with a message, or fails under
//! `REGDESC_REQUIRE_ORACLES=1`. llc's output is cached under the target
//! directory (`sim-llc-cache/`), keyed by the llc, the chip and the file.

mod common;

use std::path::PathBuf;

use common::llc::{cache_dir, compile, llc};
use regdesc_amdgpu::sim::check::{compare, CheckConfig};
use regdesc_amdgpu::sim::{parse, Gfx};
use regdesc_codegen::read_module;

/// Whole files llc does not compile, and why.
const LLC_FAILS: &[(&str, &str)] = &[
    (
        "spir_kernel.ll",
        "llc (14 and 19) aborts: `Unsupported calling convention` for spir_kernel/spir_func calls on amdgcn",
    ),
    (
        "opencl_typed.ll",
        "clang-14's spir64 kernels: typed pointers (llc-14 -opaque-pointers rejects them) and spir_kernel/spir_func calls (llc-19 aborts on amdgcn)",
    ),
];

/// Functions not simulated: (llc version or "*", function, reason).
const NOT_SIMULATED: &[(&str, &str, &str)] = &[
    // llc 14's code for these sign-extended factors times a constant or a
    // sign-extended factor multiplies the sign limb with
    // `v_mul_hi_i32_i24`/`v_mad_i32_i24` and gets the high limbs wrong for
    // negative factors (by its own ISA: the simulator's i24 semantics agree
    // with the interpreter in `sim_semantics.rs`, and llc 19's code for the
    // same functions simulates right).
    ("14", "s11_f20_160_sext64_const128", LLC14_I24),
    ("14", "s11_f26_192_sext64_sext32_mad", LLC14_I24),
    ("14", "s12_f25_192_sext64_const32", LLC14_I24),
    ("14", "s12_f28_192_sext64_const32_mad_u", LLC14_I24),
    ("14", "s12_f36_224_sext128_const32_mad", LLC14_I24),
];

const LLC14_I24: &str = "llc 14 miscompiles the sign limb's i24 products";

fn inputs() -> Vec<PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        root.join("../../../shared/bench/amdgpu/ll"),
        root.join("../codegen/tests/fixtures"),
        root.join("tests/sim"),
    ] {
        let mut here: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        here.retain(|p| p.extension().is_some_and(|e| e == "ll"));
        here.sort();
        files.extend(here);
    }
    // The wide multiplies beyond the benchmark: llc's `saddr` loads and
    // stores, `global_load_dwordx3`/`x4` of per-lane factors.
    files.push(root.join("tests/fixtures/wide_mul.ll"));
    files
}

#[test]
fn llc_output_simulates_to_the_interpreter() {
    let cases: usize = std::env::var("REGDESC_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let require = std::env::var("REGDESC_REQUIRE_ORACLES").is_ok_and(|v| v == "1");
    let mut llcs = Vec::new();
    for v in [14, 19] {
        match llc(v) {
            Some(p) => llcs.push((v, p)),
            None if require => panic!("llc-{v} is missing and REGDESC_REQUIRE_ORACLES=1"),
            None => eprintln!("skipping llc-{v}: not installed"),
        }
    }
    let files = inputs();
    assert!(!files.is_empty() || !require, "no input files found");
    let mut failures = Vec::new();
    let (mut runs, mut compared, mut skipped) = (0usize, 0usize, 0usize);
    let mut functions = std::collections::BTreeSet::new();
    for file in &files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let Ok(text) = std::fs::read_to_string(file) else {
            failures.push(format!("{}: cannot read", file.display()));
            continue;
        };
        let m = match read_module(&file.display().to_string(), &text) {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!("{}: {d}", file.display()));
                continue;
            }
        };
        for (version, llc) in &llcs {
            for chip in Gfx::ALL {
                let asm = match compile(llc, *version, chip.name(), file, &text) {
                    Ok(a) => a,
                    Err(e) => {
                        if !LLC_FAILS.iter().any(|(f, _)| *f == name) {
                            failures.push(format!("llc-{version} {} {name}: {e}", chip.name()));
                        }
                        continue;
                    }
                };
                let asm_file = cache_dir().join(format!("{name}.{version}.{}.s", chip.name()));
                let _ = std::fs::write(&asm_file, &asm);
                let prog = match parse::parse(&asm) {
                    Ok(p) => p,
                    Err(e) => {
                        failures.push(format!(
                            "llc-{version} {} {name}: {}",
                            chip.name(),
                            e.render(
                                &regdesc_codegen::Source::new(
                                    asm_file.display().to_string(),
                                    asm.as_str()
                                ),
                                false
                            )
                        ));
                        continue;
                    }
                };
                for f in &m.functions {
                    if NOT_SIMULATED
                        .iter()
                        .any(|(v, n, _)| *n == f.name && (*v == "*" || *v == version.to_string()))
                    {
                        continue;
                    }
                    let cfg = CheckConfig {
                        chip,
                        lanes: chip.wave_size() as u32,
                        inputs: cases,
                        seed: 0x5eed ^ (*version as u64) << 8,
                        asm_file: asm_file.display().to_string(),
                        ir_file: file.display().to_string(),
                        // LLVM 14 passes `inreg` arguments in VGPRs,
                        // LLVM 19 in SGPRs.
                        options: regdesc_amdgpu::sim::SimOptions {
                            inreg_in_sgprs: *version == 19,
                            ..Default::default()
                        },
                    };
                    runs += 1;
                    functions.insert(format!("{}:{}", file.display(), f.name));
                    match compare(&prog, f, &cfg) {
                        Ok(r) => {
                            compared += r.compared;
                            skipped += r.skipped;
                            if r.compared == 0 {
                                failures.push(format!(
                                    "llc-{version} {} @{} ({name}): no input had a defined IR result",
                                    chip.name(),
                                    f.name
                                ));
                            } else if r.skipped > 0 {
                                eprintln!(
                                    "llc-{version} {} @{} ({name}): {} of {} lanes skipped (IR undefined)",
                                    chip.name(),
                                    f.name,
                                    r.skipped,
                                    r.skipped + r.compared
                                );
                            }
                        }
                        Err(mm) => failures.push(format!(
                            "llc-{version} {} @{} ({name}): {mm}",
                            chip.name(),
                            f.name
                        )),
                    }
                }
            }
        }
    }
    eprintln!(
        "sim_llc: {} functions, {runs} function × chip × llc runs, {compared} lanes compared, {skipped} skipped (IR undefined), {} failures",
        functions.len(),
        failures.len()
    );
    for f in &failures {
        eprintln!("{}\n", truncate(f));
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

fn truncate(s: &str) -> String {
    s.lines()
        .map(|l| {
            if l.len() > 600 {
                format!("{}…", &l[..600])
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
