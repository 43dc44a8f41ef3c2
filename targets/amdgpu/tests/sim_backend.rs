//! Simulation equals interpretation: regdesc's own AMD assembly (the
//! pipeline's `final` output, the text `regdesc-cc compile` writes), run
//! on the wave simulator, against the IR interpreter, for every function
//! the back end compiles (`common::functions`, `common::UNSUPPORTED`), on
//! gfx900, gfx90a (64 lanes) and gfx1030 (32 lanes), on
//! `REGDESC_PROPTEST_CASES` random inputs per function and CPU (256 by
//! default).
//!
//! The simulator keeps LLVM's calling convention: the bits above an `i1`,
//! `i8`, `i16` or `half` argument are undefined (it fills them with a
//! pattern), so code that reads them as zero fails here (the back end
//! clears them on entry: `Abi::narrow_args`).

mod common;

use regdesc_amdgpu::sim::check::{compare, CheckConfig};
use regdesc_amdgpu::sim::{parse, SimOptions};
use regdesc_codegen::pipeline::{compile_function, Options};
use regdesc_codegen::target::Target as _;

/// Functions of `tests/sim/*.ll` the back end refuses, and why.
const NOT_COMPILED: &[(&str, &str)] = &[(
    "many_args",
    "its 35 argument words need the stack; the back end passes arguments in registers only",
)];

#[test]
fn backend_output_simulates_to_the_interpreter() {
    let cases: usize = std::env::var("REGDESC_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let mut fns = common::functions(&common::fixtures_dir(), true);
    fns.extend(common::functions(&common::extra_dir(), false));
    fns.extend(common::functions(&common::bench_dir(), false));
    let sim_extra = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sim");
    fns.extend(common::functions(&sim_extra, false));
    let mut failures = Vec::new();
    let (mut runs, mut lanes, mut refused) = (0usize, 0usize, Vec::new());
    for gfx in common::CPUS {
        let t = common::target(gfx);
        for (path, f) in &fns {
            let code = match compile_function(f, &t, &Options::default()) {
                Ok(c) => c,
                Err(e) => {
                    if common::expected_unsupported(f).is_none()
                        && !NOT_COMPILED.iter().any(|(n, _)| *n == f.name)
                    {
                        refused.push(format!("{} @{} ({}): {e}", t.cpu(), f.name, path.display()));
                    }
                    continue;
                }
            };
            let Some(asm) = code.asm else {
                failures.push(format!("{} @{}: no assembly", t.cpu(), f.name));
                continue;
            };
            let prog = match parse::parse(&asm) {
                Ok(p) => p,
                Err(e) => {
                    let src = regdesc_codegen::Source::new(format!("@{}.s", f.name), asm.as_str());
                    failures.push(format!(
                        "{} @{}: {}",
                        t.cpu(),
                        f.name,
                        e.render(&src, false)
                    ));
                    continue;
                }
            };
            let cfg = CheckConfig {
                chip: gfx,
                lanes: t.wave_size(),
                inputs: cases,
                seed: 0x51a ^ u64::from(t.wave_size()),
                asm_file: format!("{}.{}.s", f.name, t.cpu()),
                ir_file: path.display().to_string(),
                options: SimOptions {
                    zero_narrow_args: false,
                    inreg_in_sgprs: false,
                },
            };
            runs += 1;
            match compare(&prog, f, &cfg) {
                Ok(r) => lanes += r.compared,
                Err(mm) => failures.push(format!("{} @{}: {mm}", t.cpu(), f.name)),
            }
        }
    }
    eprintln!(
        "sim_backend: {runs} function × CPU runs, {lanes} lanes compared, {} compile refusals outside UNSUPPORTED, {} failures",
        refused.len(),
        failures.len()
    );
    for r in &refused {
        eprintln!("not compiled: {r}");
    }
    for f in &failures {
        eprintln!("{}\n", f.chars().take(3000).collect::<String>());
    }
    assert!(
        failures.is_empty() && refused.is_empty(),
        "{} failures, {} unexpected refusals",
        failures.len(),
        refused.len()
    );
}
