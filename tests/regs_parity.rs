//! Dump parity: `regdesc dump --lanes llvm` against what llvm-tblgen 14's
//! `-gen-register-info -register-info-debug` prints on stderr (warnings
//! included, in place), on the register corpus (`tests/fixtures/regs`) and
//! the examples, with the real Target.td and with regdesc's built-in prelude.

mod common;

use std::path::{Path, PathBuf};

fn check_file(tool: &Path, llvm_inc: &Path, file: &Path) -> Result<(), String> {
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let with_target_td = [llvm_inc.to_path_buf(), dir.clone()];
    let (ok, expected) = common::tblgen_register_info_debug(tool, file, &with_target_td)?;
    if !ok {
        return Err(format!(
            "llvm-tblgen failed on {}:\n{expected}",
            file.display()
        ));
    }
    for (what, incs) in [
        ("Target.td", with_target_td.to_vec()),
        ("prelude", vec![dir.clone()]),
    ] {
        let got = common::regdesc_register_info_debug(&common::input(file, &incs))
            .map_err(|e| format!("{} ({what}): {e}", file.display()))?;
        if let Some(diff) = common::first_difference(&expected, &got) {
            return Err(format!("{} ({what}): dump differs\n{diff}", file.display()));
        }
    }
    Ok(())
}

#[test]
fn corpus_dump_parity() {
    let (Some(tool), Some(llvm_inc)) = (common::llvm_tblgen(), common::llvm_include_dir()) else {
        return;
    };
    let mut failures = Vec::new();
    let mut n = 0;
    for dir in ["tests/fixtures/regs", "examples"] {
        let files: Vec<PathBuf> =
            common::files_with_extension(&common::repo_root().join(dir), "td");
        for f in files {
            // Files past LLVM's 64 lanes make llvm-tblgen fail: not parity material.
            if f.to_string_lossy().contains("simd16") {
                continue;
            }
            n += 1;
            if let Err(e) = check_file(&tool, &llvm_inc, &f) {
                failures.push(e);
            }
        }
    }
    assert!(n >= 19, "corpus too small: {n}");
    assert!(
        failures.is_empty(),
        "{} of {n} files differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
