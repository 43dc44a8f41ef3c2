//! Kernels: the payload layout against what `ocloc` reports for the same
//! OpenCL kernels, and the A64 messages as IGA decodes them.
//!
//! - For each bench kernel (`../shared/bench/intel/*.cl`) and two probes,
//!   `ocloc compile ... --format zebin` gives the zeInfo
//!   `payload_arguments`; the stateless pointer and by-value arguments and
//!   the enqueued local size must sit at the cross-thread offsets
//!   [`regdesc_intel::abi::kernel_layout`] gives the `.ll` kernel of the
//!   same signature.
//! - The emitted sends disassemble (`iga64 -d`) as `a64 dword gathering
//!   read` / `a64 dword scattering write` / `end of thread`.
//!
//! Without `ocloc`/`iga64` the tests skip with a message; with
//! `REGDESC_REQUIRE_ORACLES=1` that is a failure.

mod common;

use std::path::Path;
use std::process::Command;

use regdesc_codegen::pipeline::{compile_function, Options};
use regdesc_codegen::read_module;
use regdesc_intel::abi::kernel_layout;
use regdesc_intel::{Gen, Platform, Simd};

fn present(tool: &str) -> bool {
    let ok = Command::new(tool).arg("--help").output().is_ok();
    if !ok {
        assert!(
            !common::require_oracles(),
            "{tool} is not on the PATH and REGDESC_REQUIRE_ORACLES is set"
        );
        println!("SKIPPED: {tool} is not on the PATH");
    }
    ok
}

/// The `.ze_info` section of a zebin (ELF64).
fn ze_info(bin: &[u8]) -> Option<String> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(bin.get(o..o + 2)?.try_into().ok()?));
    let u32_at = |o: usize| Some(u32::from_le_bytes(bin.get(o..o + 4)?.try_into().ok()?));
    let u64_at = |o: usize| Some(u64::from_le_bytes(bin.get(o..o + 8)?.try_into().ok()?));
    let shoff = u64_at(0x28)? as usize;
    let (shentsize, shnum, shstrndx) = (
        usize::from(u16_at(0x3a)?),
        usize::from(u16_at(0x3c)?),
        usize::from(u16_at(0x3e)?),
    );
    let sec = |k: usize| {
        let b = shoff + k * shentsize;
        Some((
            u32_at(b)? as usize,
            u64_at(b + 0x18)? as usize,
            u64_at(b + 0x20)? as usize,
        ))
    };
    let (_, stroff, _) = sec(shstrndx)?;
    for k in 0..shnum {
        let (name, off, size) = sec(k)?;
        let n = &bin[stroff + name..];
        let n = &n[..n.iter().position(|b| *b == 0)?];
        if n == b".ze_info" {
            return String::from_utf8(bin.get(off..off + size)?.to_vec()).ok();
        }
    }
    None
}

/// (arg_type, offset, arg_index) of each payload argument with a size.
fn payload_args(info: &str) -> Vec<(String, u32, Option<usize>)> {
    let mut out = Vec::new();
    let mut cur: Option<(String, u32, u32, Option<usize>, String)> = None;
    let flush = |c: &mut Option<(String, u32, u32, Option<usize>, String)>,
                 out: &mut Vec<(String, u32, Option<usize>)>| {
        if let Some((t, o, s, i, m)) = c.take() {
            if s > 0 && m != "stateful" {
                out.push((t, o, i));
            }
        }
    };
    for l in info.lines() {
        let l = l.trim();
        if let Some(t) = l.strip_prefix("- arg_type:") {
            flush(&mut cur, &mut out);
            cur = Some((t.trim().to_string(), 0, 0, None, String::new()));
        } else if let Some(c) = cur.as_mut() {
            let num = |s: &str| s.trim().parse::<u32>().unwrap_or(0);
            if let Some(v) = l.strip_prefix("offset:") {
                c.1 = num(v);
            } else if let Some(v) = l.strip_prefix("size:") {
                c.2 = num(v);
            } else if let Some(v) = l.strip_prefix("arg_index:") {
                c.3 = Some(num(v) as usize);
            } else if let Some(v) = l.strip_prefix("addrmode:") {
                c.4 = v.trim().to_string();
            } else if !l.starts_with("addrspace:") && !l.starts_with("access_type:") {
                flush(&mut cur, &mut out);
            }
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// The OpenCL kernels and their `.ll` signatures (bodies irrelevant to
/// the layout; each calls get_global_id as the bench kernels do).
const PROBES: [(&str, &str); 3] = [
    (
        "__kernel void p(__global const ulong *a, __global const ulong *b, __global ulong *c) { size_t i = get_global_id(0); c[i] = a[i] + b[i]; }",
        "ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c",
    ),
    (
        "__kernel void p(uint n, __global uint *a) { size_t i = get_global_id(0); a[i] += n; }",
        "i32 %n, ptr addrspace(1) %a",
    ),
    (
        "__kernel void p(__global ulong *a, __global ulong *b, __global ulong *c, __global ulong *d, __global ulong *e) { size_t i = get_global_id(0); a[i] = b[i] + c[i] + d[i] + e[i]; }",
        "ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, ptr addrspace(1) %d, ptr addrspace(1) %e",
    ),
];

#[test]
fn the_payload_layout_is_what_ocloc_reports() {
    if !present("ocloc") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("regdesc-intel-ocloc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut checked = 0;
    for (n, (cl, sig)) in PROBES.iter().enumerate() {
        let src = dir.join(format!("p{n}.cl"));
        std::fs::write(&src, cl).expect("temp file");
        for dev in ["skl", "icllp", "tgllp"] {
            let out = format!("p{n}_{dev}");
            let st = Command::new("ocloc")
                .current_dir(&dir)
                .args(["compile", "-q", "-file"])
                .arg(&src)
                .args(["-device", dev, "--format", "zebin", "-output", &out])
                .args([
                    "-options",
                    "-cl-std=CL1.2 -cl-intel-greater-than-4GB-buffer-required",
                ])
                .output()
                .expect("ocloc runs");
            assert!(
                st.status.success(),
                "ocloc: {}",
                String::from_utf8_lossy(&st.stderr)
            );
            let bin = std::fs::read_dir(&dir)
                .expect("dir")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| {
                    p.file_name()
                        .and_then(|f| f.to_str())
                        .is_some_and(|f| f.starts_with(&out) && f.ends_with(".bin"))
                })
                .expect("ocloc wrote a binary");
            let info = ze_info(&std::fs::read(&bin).expect("binary")).expect(".ze_info");
            let ll = format!(
                "define spir_kernel void @p({sig}) {{\n  %i = call i64 @_Z13get_global_idj(i32 0)\n  ret void\n}}\ndeclare i64 @_Z13get_global_idj(i32)\n"
            );
            let m = read_module("p.ll", &ll).expect("parses");
            let k = kernel_layout(&m.functions[0]).expect("a kernel layout");
            let mut seen_enq = false;
            for (ty, off, idx) in payload_args(&info) {
                match (ty.as_str(), idx) {
                    ("arg_bypointer" | "arg_byvalue", Some(i)) => {
                        assert_eq!(k.arg_offsets[i], off, "{cl} on {dev}: argument {i}");
                    }
                    ("enqueued_local_size", _) => {
                        assert_eq!(k.enqueued_local_size, Some(off), "{cl} on {dev}");
                        seen_enq = true;
                    }
                    ("global_id_offset", _) => assert_eq!(off, 0),
                    _ => {}
                }
            }
            assert!(seen_enq, "{dev}: ocloc reports an enqueued local size");
            // The per-thread payload: the local ids, 3 GRFs at SIMD8/16
            // (IGC chose SIMD32 here: 6 GRFs).
            assert!(info.contains("arg_type:        local_id"), "{info}");
            checked += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{checked} kernel x device layouts equal to ocloc's zeInfo");
}

#[test]
fn sends_disassemble_as_a64_messages() {
    if !present("iga64") {
        return;
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(here.join("../codegen/tests/fixtures/spir_kernel.ll"))
        .expect("fixture");
    let m = read_module("spir_kernel.ll", &text).expect("parses");
    let dir = std::env::temp_dir().join(format!("regdesc-intel-sends-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for p in Platform::ALL {
        for s in [Simd::Simd8, Simd::Simd16] {
            let c = compile_function(&m.functions[0], &Gen::new(p, s), &Options::default())
                .expect("add64 compiles");
            let asm = c.asm.unwrap_or_default();
            let dis = assemble_and_decode(&dir, p, &asm);
            let count = |what: &str| dis.lines().filter(|l| l.contains(what)).count();
            // a and b: one 2-dword message each; c: one write; the EOT.
            assert_eq!(count("a64 dword gathering read"), 2, "{dis}");
            assert_eq!(count("a64 dword scattering write"), 1, "{dis}");
            assert_eq!(count("end of thread"), 1, "{dis}");
            let rd = if s == Simd::Simd16 { "rd:4" } else { "rd:2" };
            assert_eq!(count(rd), 2, "{p:?} {s:?}: two dwords per lane\n{dis}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Gen9's native 64-bit add ([`regdesc_intel::qword`]): ptroff's
/// `base + off[i]` loads `off[i]` as qwords and adds the base with one
/// `add:q` per 8 channels straight into the next message's address, so
/// between its first and last message ptroff runs exactly those adds; on
/// Gen11/Gen12LP (no 64-bit ALU) no `:q` appears. iga64 decodes the qword
/// message and accepts the code with no warning.
#[test]
fn ptroff_adds_its_offset_with_add_q_on_gen9_only() {
    if !present("iga64") {
        return;
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(here.join("../codegen/tests/fixtures/spir_kernel.ll"))
        .expect("fixture");
    let m = read_module("spir_kernel.ll", &text).expect("parses");
    let f = m.function("ptroff").expect("ptroff");
    let dir = std::env::temp_dir().join(format!("regdesc-intel-qword-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for p in Platform::ALL {
        for s in [Simd::Simd8, Simd::Simd16] {
            let asm = compile_function(f, &Gen::new(p, s), &Options::default())
                .expect("ptroff compiles")
                .asm
                .unwrap_or_default();
            let dis = assemble_and_decode(&dir, p, &asm);
            let qword = asm.lines().filter(|l| l.contains(":q")).count();
            if p != Platform::Gen9 {
                assert_eq!(qword, 0, "{p:?} {s:?}\n{asm}");
                continue;
            }
            assert_eq!(
                dis.lines()
                    .filter(|l| l.contains("a64 qword gathering read"))
                    .count(),
                1,
                "{dis}"
            );
            // The window: the lines between the first and the last send
            // are the adds, one per 8 channels.
            let lines: Vec<&str> = asm.lines().map(str::trim).collect();
            let sends: Vec<usize> = (0..lines.len())
                .filter(|k| lines[*k].starts_with("send"))
                .collect();
            let window = &lines[sends[0] + 1..sends[sends.len() - 1]];
            let adds: Vec<&&str> = window.iter().filter(|l| !l.starts_with("send")).collect();
            assert_eq!(adds.len(), usize::from(s.lanes() / 8), "{asm}");
            assert!(
                adds.iter()
                    .all(|l| l.starts_with("add (8|M") && l.contains(":q")),
                "{asm}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Assembles `asm` for `p` with `iga64 -Wall` (which must accept it with
/// no output) and returns iga64's disassembly of the binary.
fn assemble_and_decode(dir: &Path, p: Platform, asm: &str) -> String {
    let (src, bin) = (dir.join("k.asm"), dir.join("k.bin"));
    std::fs::write(&src, asm).expect("temp file");
    let pa = format!("-p={}", p.iga());
    let ok = Command::new("iga64")
        .args(["-a", "-Wall", &pa])
        .arg(&src)
        .arg("-o")
        .arg(&bin)
        .output()
        .expect("iga64");
    assert!(ok.status.success() && ok.stderr.is_empty(), "{asm}");
    let dis = Command::new("iga64")
        .args(["-d", &pa])
        .arg(&bin)
        .output()
        .expect("iga64");
    String::from_utf8_lossy(&dis.stdout).into_owned()
}
