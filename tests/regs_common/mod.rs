//! Helpers of the register-bank tests: the llvm-tblgen oracle and fixtures.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `llvm-tblgen` oracle, or `None` (skip) unless `REGDESC_REQUIRE_ORACLES=1`.
pub fn oracle() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("llvm-tblgen"))
            .find(|p| p.is_file())
    });
    if found.is_none() && std::env::var("REGDESC_REQUIRE_ORACLES").as_deref() == Ok("1") {
        panic!("llvm-tblgen not found on PATH and REGDESC_REQUIRE_ORACLES=1");
    }
    found
}

/// The include directory holding the real `llvm/Target/Target.td`.
pub fn llvm_include() -> PathBuf {
    if let Some(p) = std::env::var_os("REGDESC_LLVM_INCLUDE") {
        return PathBuf::from(p);
    }
    PathBuf::from("/usr/include/llvm-14")
}

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs llvm-tblgen; returns (success, stdout, stderr).
pub fn tblgen(
    tool: &Path,
    args: &[&str],
    file: &Path,
    includes: &[PathBuf],
) -> (bool, String, String) {
    let mut cmd = Command::new(tool);
    cmd.args(args);
    for i in includes {
        cmd.arg("-I").arg(i);
    }
    cmd.arg(file);
    let out = cmd.output().expect("run llvm-tblgen");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Removes llvm-tblgen's `warning: ...` lines (and what follows them on
/// the same diagnostic) from its stderr, returning (warnings, rest).
pub fn split_warnings(stderr: &str) -> (Vec<String>, String) {
    let mut warnings = Vec::new();
    let mut rest = String::new();
    for line in stderr.lines() {
        if let Some(w) = line.strip_prefix("warning: ") {
            warnings.push(w.to_string());
        } else {
            rest.push_str(line);
            rest.push('\n');
        }
    }
    (warnings, rest)
}

/// Every `.td` fixture in a folder, sorted.
pub fn fixtures(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "td"));
    v.sort();
    v
}
