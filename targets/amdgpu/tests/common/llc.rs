//! llc as an oracle: where llc 14 and 19 are, and their assembly for a
//! file and a CPU (`-O2`, as `gen_table.py` runs them), cached under the
//! target directory (`sim-llc-cache/`), keyed by the llc, the CPU and the
//! text. Used by `sim_llc.rs` and `sdwa.rs`.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The llc of LLVM `version`, when installed.
pub fn llc(version: u32) -> Option<PathBuf> {
    [
        PathBuf::from(format!("/usr/lib/llvm-{version}/bin/llc")),
        PathBuf::from(format!("/usr/bin/llc-{version}")),
    ]
    .into_iter()
    .find(|p| p.exists())
}

/// The installed llcs of LLVM 14 and 19; a missing one fails under
/// `REGDESC_REQUIRE_ORACLES=1`, else it is skipped with a message.
pub fn llcs() -> Vec<(u32, PathBuf)> {
    let require = std::env::var("REGDESC_REQUIRE_ORACLES").is_ok_and(|v| v == "1");
    let mut out = Vec::new();
    for v in [14, 19] {
        match llc(v) {
            Some(p) => out.push((v, p)),
            None if require => panic!("llc-{v} is missing and REGDESC_REQUIRE_ORACLES=1"),
            None => eprintln!("skipping llc-{v}: not installed"),
        }
    }
    out
}

pub fn cache_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // target/<profile>/deps/TEST-HASH
    let profile = exe.parent().and_then(Path::parent).map(Path::to_path_buf);
    profile
        .unwrap_or_else(std::env::temp_dir)
        .join("sim-llc-cache")
}

/// llc's assembly for `file` (whose text is `text`) on `cpu`, or its
/// error message.
pub fn compile(
    llc: &Path,
    version: u32,
    cpu: &str,
    file: &Path,
    text: &str,
) -> Result<String, String> {
    let mut h = DefaultHasher::new();
    (llc, cpu, text).hash(&mut h);
    let dir = cache_dir();
    let out = dir.join(format!("{version}-{cpu}-{:016x}.s", h.finish()));
    if let Ok(s) = std::fs::read_to_string(&out) {
        return Ok(s);
    }
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let tmp = dir.join(format!(
        "{version}-{cpu}-{:016x}.tmp{}",
        h.finish(),
        std::process::id()
    ));
    let mut cmd = Command::new(llc);
    cmd.args(["-mtriple=amdgcn-amd-amdhsa", &format!("-mcpu={cpu}"), "-O2"]);
    if version == 14 {
        cmd.arg("-opaque-pointers");
    }
    cmd.arg(file).arg("-o").arg(&tmp);
    let o = cmd.output().map_err(|e| e.to_string())?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        return Err(err
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or("llc failed")
            .to_string());
    }
    std::fs::rename(&tmp, &out).map_err(|e| e.to_string())?;
    std::fs::read_to_string(&out).map_err(|e| e.to_string())
}
