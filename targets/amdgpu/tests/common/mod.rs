//! What the AMD back end's tests share: the functions they compile (every
//! function of `targets/codegen/tests/fixtures/*.ll` and of
//! `../shared/bench/amdgpu/ll/*.ll`), the three CPUs, and the functions
//! the back end does not compile yet, each with the reason its
//! `TargetError::Unsupported` gives.

#![allow(dead_code)]

pub mod llc;

use std::path::{Path, PathBuf};

use regdesc_amdgpu::{Amdgpu, Gfx};
use regdesc_codegen::ir::Function;
use regdesc_codegen::read_module;

pub const CPUS: [Gfx; 3] = [Gfx::Gfx900, Gfx::Gfx90a, Gfx::Gfx1030];

/// Functions outside what the back end compiles, and why (a word of the
/// error message).
pub const UNSUPPORTED: &[(&str, &str)] = &[
    // get_global_id: the work-group size is in the dispatch packet.
    ("add64@spir_kernel", "dispatch packet"),
    ("ptroff@spir_kernel", "dispatch packet"),
    ("bitcast@spir_kernel", "dispatch packet"),
    ("mulhi@spir_kernel", "dispatch packet"),
    ("layouts@spir_kernel", "dispatch packet"),
];

/// The key a function has in [`UNSUPPORTED`] (kernels named like plain
/// functions elsewhere get their calling convention added).
pub fn key(f: &Function) -> String {
    match f.cconv {
        regdesc_codegen::ir::CallingConv::SpirKernel => format!("{}@spir_kernel", f.name),
        _ => f.name.clone(),
    }
}

/// The reason `f` is expected not to compile.
pub fn expected_unsupported(f: &Function) -> Option<&'static str> {
    let k = key(f);
    UNSUPPORTED.iter().find(|(n, _)| *n == k).map(|(_, r)| *r)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "ll"));
    v.sort();
    v
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/tests/fixtures")
}

/// This crate's own functions (odd widths, 16-bit halves, loops with
/// several divergent exits, kernels with narrow arguments).
pub fn extra_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/amdgpu/ll")
}

/// [`bench_dir`] when it exists; without it a test fails when
/// `REGDESC_REQUIRE_ORACLES` is set, else it is skipped with a message
/// (`None`).
pub fn bench_dir_or_skip() -> Option<PathBuf> {
    let dir = bench_dir();
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("REGDESC_REQUIRE_ORACLES").is_some() {
        panic!("no benchmark directory {}", dir.display());
    }
    println!("SKIPPED: no {}", dir.display());
    None
}

/// Every function of the `.ll` files of `dir`, with its file. An empty
/// `dir` fails when `required` or when `REGDESC_REQUIRE_ORACLES` is set,
/// else it is skipped with a message.
pub fn functions(dir: &Path, required: bool) -> Vec<(PathBuf, Function)> {
    let list = files(dir);
    if list.is_empty() {
        if required || std::env::var_os("REGDESC_REQUIRE_ORACLES").is_some() {
            panic!("no .ll files in {}", dir.display());
        }
        println!("SKIPPED: no .ll files in {}", dir.display());
        return Vec::new();
    }
    let mut out = Vec::new();
    for path in list {
        let text = std::fs::read_to_string(&path).expect("readable fixture");
        let m = read_module(&path.display().to_string(), &text)
            .unwrap_or_else(|d| panic!("{}", d.render(false)));
        for f in m.functions {
            out.push((path.clone(), f));
        }
    }
    out
}

pub fn target(gfx: Gfx) -> Amdgpu {
    Amdgpu::new(gfx)
}
