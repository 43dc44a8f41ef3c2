//! Everything the AMD back end emits assembles with LLVM's own assembler:
//! every function of `targets/codegen/tests/fixtures/*.ll` and of
//! `../shared/bench/amdgpu/ll/*.ll`, for gfx900, gfx90a and gfx1030, through
//! `llvm-mc-14 -triple=amdgcn-amd-amdhsa -mcpu=CPU -filetype=obj` (on
//! gfx90a this also checks that VGPR tuples are even-aligned). Without
//! `llvm-mc-14` the test is skipped with a message, unless
//! `REGDESC_REQUIRE_ORACLES` is set. Functions the back end does not
//! compile must fail with a located `Unsupported` error (never a panic).
//! The text is also checked for loads whose results are read before the
//! `s_waitcnt` that waits for them.

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

/// The 32-bit registers an operand names (`s6`, `v[2:3]` is v2 and v3).
fn regs_of(op: &str) -> Vec<String> {
    let op = op.trim();
    let kind = op.chars().next().unwrap_or(' ');
    if !matches!(kind, 's' | 'v') {
        return Vec::new();
    }
    let rest = &op[1..];
    if let Some(range) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let mut it = range.split(':').filter_map(|x| x.parse::<u32>().ok());
        if let (Some(a), Some(b)) = (it.next(), it.next()) {
            return (a..=b).map(|k| format!("{kind}{k}")).collect();
        }
    }
    if rest.parse::<u32>().is_ok() {
        return vec![op.to_string()];
    }
    Vec::new()
}

/// Checks that no register a load writes is read or written before the
/// `s_waitcnt` that waits for it (`lgkmcnt(0)` for `s_load`, `vmcnt(0)`
/// for `global_load`), in the order of the text.
fn waits_before_uses(asm: &str) -> Result<(), String> {
    let mut lgkm: Vec<String> = Vec::new();
    let mut vm: Vec<String> = Vec::new();
    for line in asm.lines() {
        let line = line.split(';').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('.') || line.ends_with(':') {
            continue;
        }
        let (m, ops) = line.split_once(' ').unwrap_or((line, ""));
        if m == "s_waitcnt" {
            if ops.contains("lgkmcnt(0)") {
                lgkm.clear();
            }
            if ops.contains("vmcnt(0)") {
                vm.clear();
            }
            continue;
        }
        let ops: Vec<&str> = ops.split(',').collect();
        let named: Vec<String> = ops.iter().flat_map(|o| regs_of(o)).collect();
        if let Some(r) = named.iter().find(|r| lgkm.contains(r) || vm.contains(r)) {
            return Err(format!("`{line}` uses {r} before its load is waited for"));
        }
        if m.starts_with("s_load") {
            lgkm.extend(regs_of(ops[0]));
        } else if m.starts_with("global_load") {
            vm.extend(regs_of(ops[0]));
        }
    }
    Ok(())
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
                    if let Err(e) = waits_before_uses(&asm) {
                        panic!("@{} for {}: {e}\n{asm}", f.name, t.cpu());
                    }
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
fn the_wait_check_catches_an_early_use() {
    let bad = "\ts_load_dword s6, s[4:5], 8\n\ts_bfe_u32 s7, s6, 0x80000\n";
    assert!(waits_before_uses(bad).is_err());
    let good =
        "\ts_load_dword s6, s[4:5], 8\n\ts_waitcnt lgkmcnt(0)\n\ts_bfe_u32 s7, s6, 0x80000\n";
    assert!(waits_before_uses(good).is_ok());
    let v = "\tglobal_load_dword v2, v[0:1], off\n\tv_add_u32_e64 v3, v2, v1\n";
    assert!(waits_before_uses(v).is_err());
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
