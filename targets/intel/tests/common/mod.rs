//! What the Intel tests share: the functions they compile, and how.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use regdesc_codegen::ir::{Function, Module};
use regdesc_codegen::pipeline::{compile_function, Options, PipelineError};
use regdesc_codegen::read_module;
use regdesc_intel::{Gen, Platform, Simd};

pub const SIMDS: [Simd; 2] = [Simd::Simd8, Simd::Simd16];

/// Functions the back end does not compile, and why: (file, function,
/// the construct the error names). They all need the kernel payload ABI
/// (work-item ids) or global memory (A64 stateless sends), the next Intel
/// issue's.
pub const UNSUPPORTED: [(&str, &str, &str); 13] = [
    ("kernel_memory.ll", "scale", "work-item"),
    ("kernel_memory.ll", "add_i128", "work-item"),
    ("kernel_memory.ll", "count_down", "work-item"),
    ("mul128_uniform.ll", "mul128_uniform", "global memory"),
    ("mul128_uniform.ll", "mul128_uniform", "global memory"),
    ("opencl_typed.ll", "bitcast", "work-item"),
    ("opencl_typed.ll", "mulhi", "work-item"),
    ("opencl_typed.ll", "layouts", "work-item"),
    ("spir_kernel.ll", "add64", "work-item"),
    ("spir_kernel.ll", "ptroff", "work-item"),
    ("uniformity.ll", "diamond", "work-item"),
    ("uniformity.ll", "uniform_loop", "work-item"),
    ("uniformity.ll", "divergent_exit", "work-item"),
];

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "ll"));
    v.sort();
    v
}

/// The modules of the fixtures and of the AMD bench (when present).
pub fn modules() -> Vec<(String, Module)> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        here.join("../codegen/tests/fixtures"),
        here.join("../../../shared/bench/amdgpu/ll"),
        here.join("tests/fixtures"),
    ] {
        for p in files(&dir) {
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            let name = p.display().to_string();
            match read_module(&name, &text) {
                Ok(m) => out.push((name, m)),
                Err(d) => panic!("{}", d.render(false)),
            }
        }
    }
    out
}

/// Whether `(file, function, error)` is on the [`UNSUPPORTED`] list.
pub fn expected_unsupported(file: &str, name: &str, error: &str) -> bool {
    UNSUPPORTED
        .iter()
        .any(|(f, n, what)| file.ends_with(&format!("/{f}")) && *n == name && error.contains(what))
}

/// One compiled function.
pub struct Compiled<'a> {
    pub file: String,
    pub f: &'a Function,
    pub platform: Platform,
    pub simd: Simd,
    pub asm: String,
}

/// Compiles every function for every platform and SIMD width; functions
/// the back end rejects are returned with their error.
pub fn compile_all(mods: &[(String, Module)]) -> (Vec<Compiled<'_>>, Vec<(String, PipelineError)>) {
    let mut ok = Vec::new();
    let mut rejected = Vec::new();
    for (file, m) in mods {
        for f in &m.functions {
            for p in Platform::ALL {
                for s in SIMDS {
                    let g = Gen::new(p, s);
                    match compile_function(f, &g, &Options::default()) {
                        Ok(c) => ok.push(Compiled {
                            file: file.clone(),
                            f,
                            platform: p,
                            simd: s,
                            asm: c.asm.unwrap_or_default(),
                        }),
                        Err(e) => {
                            let msg = e.to_string();
                            assert!(
                                expected_unsupported(file, &f.name, &msg),
                                "{file}: @{} on {p:?} {s:?} is not on the UNSUPPORTED list: {msg}",
                                f.name
                            );
                            if p == Platform::Gen9 && s == Simd::Simd8 {
                                rejected.push((format!("{file}: @{}", f.name), e));
                            }
                        }
                    }
                }
            }
        }
    }
    (ok, rejected)
}

/// Whether the oracles are required.
pub fn require_oracles() -> bool {
    std::env::var_os("REGDESC_REQUIRE_ORACLES").is_some()
}

/// Random inputs per function, platform and SIMD width
/// (`REGDESC_PROPTEST_CASES`; 300 by default, 10,000 for the acceptance
/// run).
pub fn inputs() -> usize {
    std::env::var("REGDESC_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}
