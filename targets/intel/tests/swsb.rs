//! Gen12LP in-order distances at block boundaries, probed against
//! `iga64 -Xauto-deps`: a writer 10 instructions back is waited for
//! (`@7`) and one 11 back has retired, except for the first instruction
//! after a `jmpi`, which still waits for a writer 11 back. `swsb::annotate`
//! must give IGA's annotation on every probe.

mod common;

use std::process::Command;

use regdesc_intel::isa::Line;
use regdesc_intel::sim::parse::parse;
use regdesc_intel::swsb::annotate;

/// `mov r14` (the writer), `fillers` moves to other registers with a jump
/// inserted before filler `jump_at` (a label after it), then the reader.
fn probe(fillers: usize, jump_at: Option<usize>) -> String {
    let mut s = String::from("        mov (16|M0) r14.0<1>:ud 0x1:ud\n");
    for k in 0..=fillers {
        if Some(k) == jump_at {
            s.push_str("        (W) cmp (16|M0) (ne)f1.1 null<1>:ud r50.0<8;8,1>:ud 0x0:ud\n");
            s.push_str("        (W&f1.1.all16h) jmpi (1|M0) far\n");
            s.push_str("mid:\n");
        }
        if k < fillers {
            s.push_str(&format!(
                "        mov (16|M0) r{}.0<1>:ud 0x2:ud\n",
                20 + 2 * k
            ));
        }
    }
    s.push_str("        add (16|M0) r10.0<1>:ud r14.0<8;8,1>:ud r8.0<8;8,1>:ud\n");
    s.push_str("far:\n        mov (16|M0) r90.0<1>:ud 0x2:ud\n");
    s
}

/// The reader's distance by `swsb::annotate`.
fn ours(text: &str) -> Option<u8> {
    let mut lines: Vec<Line> = parse(text)
        .expect("probe parses")
        .into_iter()
        .map(|(_, l)| l)
        .collect();
    annotate(&mut lines);
    lines.iter().find_map(|l| match l {
        Line::Inst(i) if i.dst.is_some_and(|d| d.to_string().starts_with("r10.")) => {
            Some(i.swsb.dist)
        }
        _ => None,
    })?
}

/// The reader's distance by `iga64 -Xauto-deps`.
fn iga(text: &str, n: usize) -> Option<u8> {
    let tmp = tempfile::Builder::new()
        .prefix("regdesc-intel-swsb-")
        .tempdir()
        .expect("temp dir");
    let dir = tmp.path();
    let src = dir.join(format!("p{n}.asm"));
    let bin = dir.join(format!("p{n}.bin"));
    std::fs::write(&src, text).expect("temp file");
    let ok = Command::new("iga64")
        .args(["-a", "-p=12p1", "-Xauto-deps"])
        .arg(&src)
        .arg("-o")
        .arg(&bin)
        .status()
        .expect("iga64 runs")
        .success();
    assert!(ok, "iga64 rejected the probe:\n{text}");
    let out = Command::new("iga64")
        .args(["-d", "-p=12p1"])
        .arg(&bin)
        .output()
        .expect("iga64 runs");
    let dis = String::from_utf8_lossy(&out.stdout);
    let line = dis
        .lines()
        .find(|l| l.contains("r10.0<1>"))
        .expect("reader in the disassembly");
    line.split("{@")
        .nth(1)
        .and_then(|t| t.split('}').next())
        .and_then(|d| d.parse().ok())
}

#[test]
fn distances_across_jumps_match_iga() {
    if Command::new("iga64").arg("--help").output().is_err() {
        assert!(
            !common::require_oracles(),
            "iga64 is not on the PATH and REGDESC_REQUIRE_ORACLES is set"
        );
        println!("SKIPPED: iga64 is not on the PATH (install libigc-tools)");
        return;
    }
    let mut n = 0;
    for fillers in [7, 8, 9, 10] {
        let mut jumps: Vec<Option<usize>> = vec![None];
        jumps.extend((0..=fillers).map(Some));
        for jump_at in jumps {
            let text = probe(fillers, jump_at);
            n += 1;
            assert_eq!(
                ours(&text),
                iga(&text, n),
                "fillers {fillers}, jump before filler {jump_at:?}:\n{text}"
            );
        }
    }
}
