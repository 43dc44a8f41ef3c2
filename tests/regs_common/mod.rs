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

/// Runs llvm-tblgen; returns (success, stdout, stderr). llvm-tblgen 14 can
/// loop forever on some inputs (artificial registers in odd classes): after
/// `REGDESC_TBLGEN_TIMEOUT` seconds (default 120) it is killed and the run
/// counts as a failure with stderr `timeout`.
pub fn tblgen(
    tool: &Path,
    args: &[&str],
    file: &Path,
    includes: &[PathBuf],
) -> (bool, String, String) {
    use std::io::Read;
    use std::process::Stdio;
    let mut cmd = Command::new(tool);
    cmd.args(args);
    for i in includes {
        cmd.arg("-I").arg(i);
    }
    cmd.arg(file).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run llvm-tblgen");
    let (mut out, mut err) = (
        child.stdout.take().expect("stdout"),
        child.stderr.take().expect("stderr"),
    );
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let limit = std::env::var("REGDESC_TBLGEN_TIMEOUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120u64);
    let start = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if start.elapsed().as_secs() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let out = String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned();
    let err = String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned();
    match status {
        Some(st) => (st.success(), out, err),
        None => (false, out, "timeout".to_string()),
    }
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
