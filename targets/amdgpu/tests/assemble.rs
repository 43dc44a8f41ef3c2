//! Everything the AMD back end emits assembles with LLVM's own assembler:
//! every function of `targets/codegen/tests/fixtures/*.ll` and of
//! `../shared/bench/amdgpu/ll/*.ll`, for gfx900, gfx90a and gfx1030, through
//! `llvm-mc-14 -triple=amdgcn-amd-amdhsa -mcpu=CPU -filetype=obj` (on
//! gfx90a this also checks that VGPR tuples are even-aligned). Without
//! `llvm-mc-14` the test is skipped with a message, unless
//! `REGDESC_REQUIRE_ORACLES` is set. Functions the back end does not
//! compile must fail with a located `Unsupported` error (never a panic).

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use regdesc_codegen::pipeline::{compile_function, Options, PipelineError};
use regdesc_codegen::target::TargetError;

fn llvm_mc() -> Option<String> {
    for c in ["llvm-mc-14", "/usr/lib/llvm-14/bin/llvm-mc"] {
        if Command::new(c).arg("--version").output().is_ok() {
            return Some(c.to_string());
        }
    }
    if std::env::var_os("REGDESC_REQUIRE_ORACLES").is_some() {
        panic!("llvm-mc-14 is required (REGDESC_REQUIRE_ORACLES) but not found");
    }
    None
}

fn assemble(mc: &str, cpu: &str, asm: &str) -> Result<(), String> {
    let mut child = Command::new(mc)
        .args([
            "-triple=amdgcn-amd-amdhsa",
            &format!("-mcpu={cpu}"),
            "-filetype=obj",
            "-o",
            "/dev/null",
        ])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(asm.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn is_located_unsupported(e: &PipelineError) -> Option<String> {
    match e {
        PipelineError::Legalize(regdesc_codegen::legalize::LegalizeError::Target(
            TargetError::Unsupported {
                what,
                span: Some(_),
            },
        )) => Some(what.clone()),
        PipelineError::Target {
            error: TargetError::Unsupported { what, .. },
            ..
        } => Some(what.clone()),
        _ => None,
    }
}

fn run_dir(dir: &Path, required: bool) {
    let fns = common::functions(dir, required);
    let Some(mc) = llvm_mc() else {
        println!("SKIPPED: llvm-mc-14 not found");
        return;
    };
    for gfx in common::CPUS {
        let t = common::target(gfx);
        let (mut ok, mut refused) = (0, 0);
        for (_, f) in &fns {
            match (
                compile_function(f, &t, &Options::default()),
                common::expected_unsupported(f),
            ) {
                (Ok(c), None) => {
                    let asm = c.asm.unwrap_or_default();
                    if let Err(e) = assemble(&mc, t.cpu(), &asm) {
                        panic!(
                            "@{} for {}: llvm-mc rejects it:\n{e}\n{asm}",
                            f.name,
                            t.cpu()
                        );
                    }
                    ok += 1;
                }
                (Ok(_), Some(why)) => {
                    panic!(
                        "@{} compiles now: remove it from UNSUPPORTED ({why})",
                        f.name
                    )
                }
                (Err(e), Some(why)) => {
                    let what = is_located_unsupported(&e)
                        .unwrap_or_else(|| panic!("@{}: not an Unsupported error: {e}", f.name));
                    assert!(what.contains(why), "@{}: {what} (expected: {why})", f.name);
                    refused += 1;
                }
                (Err(e), None) => panic!("@{} for {}: {e}", f.name, t.cpu()),
            }
        }
        println!(
            "{}: {ok} functions assemble with llvm-mc; {refused} unsupported",
            t.cpu()
        );
    }
}

#[test]
fn fixtures_assemble() {
    run_dir(&common::fixtures_dir(), true);
}

#[test]
fn amdgpu_bench_functions_assemble() {
    run_dir(&common::bench_dir(), false);
}

#[test]
fn extra_functions_assemble() {
    run_dir(&common::extra_dir(), true);
}
