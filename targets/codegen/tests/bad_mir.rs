//! Bad machine IR (`tests/mir_bad/*.mir`, over the AMD-like register
//! file): each gets located errors — `file:line:col`, a label — from the
//! reader or the verifier; the rendered diagnostics are insta snapshots.
//! And a proptest over mutated fixtures: whatever the text, reading,
//! verifying and (when it verifies) the whole pipeline end in a result
//! or a located error, never a panic.

#[path = "mir_support/mod.rs"]
mod mir_support;

use mir_support::{amd, amd_instrs};
use proptest::prelude::*;
use regdesc_codegen::ir::Source;
use regdesc_codegen::mir::parse::parse_mir;
use regdesc_codegen::mir::verify::verify_parsed;
use regdesc_codegen::mir::{interp, phi_elim, two_addr};
use regdesc_codegen::regalloc::{self, AllocOptions, GenericSpill};

fn files(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .expect("directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mir"))
        .collect();
    out.sort();
    out
}

/// Reads and verifies; the rendered errors, if any.
fn read(name: &str, text: &str) -> Result<Vec<regdesc_codegen::mir::MFunction>, String> {
    let instrs = amd_instrs();
    let source = Source::new(name, text);
    let fs = parse_mir(source.clone(), &amd::AMDLike, &instrs).map_err(|e| {
        for d in &e.diags {
            assert!(d.span.is_some(), "{name}: unlocated: {}", d.message);
            assert!(!d.label.is_empty(), "{name}: no label: {}", d.message);
        }
        e.render(false)
    })?;
    for f in &fs {
        verify_parsed(f, &amd::AMDLike, &instrs, &source).map_err(|e| {
            for d in &e.diags {
                assert!(d.span.is_some(), "{name}: unlocated: {}", d.message);
            }
            e.render(false)
        })?;
    }
    Ok(fs)
}

#[test]
fn bad_machine_ir_gets_located_errors() {
    let paths = files("tests/mir_bad");
    assert!(paths.len() >= 20, "bad inputs missing: {}", paths.len());
    for path in paths {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).expect("readable");
        let Err(rendered) = read(&name, &text) else {
            panic!("{name} was accepted");
        };
        assert!(
            rendered.contains(&format!("[{name}:")),
            "{name}: no file:line:col in\n{rendered}"
        );
        let stem = name.trim_end_matches(".mir").to_string();
        insta::assert_snapshot!(stem, rendered);
    }
}

/// The mutation: replace, insert or delete a few characters, drawn from
/// the text's own and from the syntax's punctuation.
fn mutate(text: &str, edits: &[(usize, u8, u8)]) -> String {
    const ALPHABET: &[u8] = b"%$:.,=()\n 0123456789abVGPRsubhiloundefimplct-_";
    let mut bytes: Vec<u8> = text.bytes().collect();
    for &(at, kind, ch) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        let c = ALPHABET[ch as usize % ALPHABET.len()];
        match kind % 3 {
            0 => bytes[at] = c,
            1 => bytes.insert(at, c),
            _ => {
                bytes.remove(at);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("REGDESC_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_machine_ir_never_panics(
        file in 0usize..4,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..4),
    ) {
        let paths = files("tests/mir");
        let text = std::fs::read_to_string(&paths[file % paths.len()]).expect("readable");
        let text = mutate(&text, &edits);
        let Ok(fs) = read("mutated.mir", &text) else { return Ok(()) };
        let instrs = amd_instrs();
        for mut f in fs {
            let _ = interp::run(&f, &amd::AMDLike, &instrs, &[1, 2, 3], 10_000);
            phi_elim::eliminate_phis(&mut f, &instrs);
            if two_addr::lower_two_address(&mut f, &amd::AMDLike, &instrs).is_err() {
                continue;
            }
            let hook = GenericSpill { instrs: &instrs };
            let _ = regalloc::allocate(&mut f, &amd::AMDLike, &instrs, &hook, &AllocOptions::default());
            let _ = interp::run(&f, &amd::AMDLike, &instrs, &[1, 2, 3], 10_000);
        }
    }
}
