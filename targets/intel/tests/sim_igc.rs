//! The simulator reads the ISA as Intel's own compiler does: IGC's code for
//! the six bench kernels (`../shared/bench/intel/*.cl`), compiled by `ocloc`
//! in the `-sl` configuration of `gen.sh`
//! (`-cl-intel-greater-than-4GB-buffer-required`: A64 stateless
//! addressing) for skl (Gen9: its `:q` ALU code and qword messages),
//! icllp (Gen11) and tgllp (Gen12LP) and disassembled by
//! `iga64 -d -p=9|11|12p1`, runs at IGC's SIMD32 with the payload laid out as
//! ocloc's zeInfo says ([`regdesc_intel::sim::igc`]), and every work-item's
//! results equal the IR interpreter's on clang-14's `.ll` of the kernel.
//!
//! Per kernel and platform: 1,024 work-items (global ids 0..N in four
//! launches with work-group sizes 64, 48, 128 and 16, so whole, partial and
//! half-empty SIMD32 threads), inputs random and biased to carries out of
//! the low 32 bits. The kernel code is the same bytes as `gen.sh`'s
//! patch-token binaries (checked here): ocloc is asked for a zebin only
//! because its `.ze_info` is the readable form of the payload layout.
//!
//! ocloc's outputs are cached under the target directory (keyed by the
//! kernel source). `SIM_IGC_CASE=kernel/platform/launch` runs one case.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use regdesc_codegen::interp::{self, GlobalMemory, LaneArg, Launch};
use regdesc_codegen::read_module;
use regdesc_codegen::rng::Rng;
use regdesc_codegen::value::Value;
use regdesc_intel::sim::igc::{run_kernel, Dispatch, KernelInfo};
use regdesc_intel::sim::parse::parse_program;
use regdesc_intel::sim::Stmt;

const KERNELS: [(&str, &[(u64, bool)]); 6] = [
    ("add64", &[(8, false), (8, false), (8, true)]),
    ("mul64", &[(8, false), (8, false), (8, true)]),
    ("mulhi64", &[(8, false), (8, false), (8, true), (8, true)]),
    ("bitcast", &[(8, false), (4, true), (4, true)]),
    (
        "bitcast_add",
        &[(8, false), (8, false), (4, true), (4, true)],
    ),
    ("ptroff", &[(4, false), (8, false), (4, true)]),
];

/// (device, IGA platform).
const PLATFORMS: [(&str, &str); 3] = [("skl", "9"), ("icllp", "11"), ("tgllp", "12p1")];

/// (global size, work-group size): 1,024 work-items in all.
const LAUNCHES: [(u32, u32); 4] = [(256, 64), (240, 48), (256, 128), (272, 16)];

fn tool(name: &str) -> Option<PathBuf> {
    let ok = Command::new(name)
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success() || !o.stdout.is_empty() || !o.stderr.is_empty());
    ok.then(|| PathBuf::from(name))
}

fn tools() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let t = (tool("ocloc"), tool("iga64"), tool("clang-14"));
    match t {
        (Some(o), Some(i), Some(c)) => Some((o, i, c)),
        missing => {
            assert!(
                !common::require_oracles(),
                "ocloc, iga64 or clang-14 is missing ({missing:?}) and REGDESC_REQUIRE_ORACLES is set"
            );
            println!("SKIPPED: ocloc, iga64 or clang-14 is missing");
            None
        }
    }
}

fn bench() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/intel")
}

fn run(cmd: &mut Command, what: &str) -> Vec<u8> {
    let o = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        o.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// The sections of an ELF64 little-endian file, by name.
fn elf_sections(b: &[u8]) -> Vec<(String, Vec<u8>)> {
    let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes")) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes")) as usize;
    assert_eq!(&b[..4], b"\x7fELF", "a zebin is an ELF file");
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let header = |i: usize| {
        let h = shoff + i * shentsize;
        (u32_at(h), u64_at(h + 0x18), u64_at(h + 0x20))
    };
    let (_, stroff, _) = header(shstrndx);
    (0..shnum)
        .map(|i| {
            let (name, off, size) = header(i);
            let n = &b[stroff + name..];
            let end = n.iter().position(|c| *c == 0).unwrap_or(0);
            (
                String::from_utf8_lossy(&n[..end]).into_owned(),
                b[off..off + size].to_vec(),
            )
        })
        .collect()
}

/// IGC's assembly and zeInfo for `kernel` on `device` (cached).
fn igc(
    tools: &(PathBuf, PathBuf, PathBuf),
    kernel: &str,
    device: &str,
    plat: &str,
) -> (String, String) {
    // One test at a time in the cache (both tests of this file read it).
    static CACHE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _lock = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let (ocloc, iga, _) = tools;
    let src = std::fs::read_to_string(bench().join(format!("{kernel}.cl"))).expect("kernel source");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sim-igc/{kernel}-{device}"));
    let cached = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    if cached("source.cl").as_deref() == Some(src.as_str()) {
        if let (Some(a), Some(z)) = (cached("kernel.asm"), cached("ze_info.yaml")) {
            return (a, z);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("cache dir");
    std::fs::write(dir.join(format!("{kernel}.cl")), &src).expect("write source");
    let opts = "-cl-std=CL1.2 -cl-intel-greater-than-4GB-buffer-required";
    let compile = |out: &str, extra: &[&str]| {
        run(
            Command::new(ocloc)
                .current_dir(&dir)
                .args([
                    "compile",
                    "-q",
                    "-file",
                    &format!("{kernel}.cl"),
                    "-device",
                    device,
                ])
                .args(["-options", opts, "-output", out])
                .args(extra),
            "ocloc compile",
        );
        let bin = std::fs::read_dir(&dir)
            .expect("ocloc output")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| {
                p.extension().is_some_and(|e| e == "bin")
                    && p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{out}_")))
            })
            .expect("ocloc wrote a .bin");
        bin
    };
    let zebin = std::fs::read(compile("ze", &["--format", "zebin"])).expect("zebin");
    let sections = elf_sections(&zebin);
    let get = |name: &str| {
        sections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
            .unwrap_or_else(|| panic!("the zebin has no {name}"))
    };
    let text = get(&format!(".text.{kernel}"));
    let ze = String::from_utf8(get(".ze_info")).expect("zeInfo is text");
    // gen.sh's binary (patch tokens): the same kernel bytes.
    let pt = compile("pt", &[]);
    run(
        Command::new(ocloc)
            .current_dir(&dir)
            .args(["disasm", "-file"])
            .arg(&pt)
            .args(["-device", device, "-dump", "dis"]),
        "ocloc disasm",
    );
    let heap =
        std::fs::read(dir.join(format!("dis/{kernel}_KernelHeap.dat"))).expect("kernel heap");
    assert!(
        heap.len() >= text.len()
            && heap[..text.len()] == text[..]
            && heap[text.len()..].iter().all(|b| *b == 0),
        "{kernel} {device}: the zebin's code differs from gen.sh's patch-token kernel heap"
    );
    std::fs::write(dir.join("kernel.bin"), &text).expect("write code");
    let asm = run(
        Command::new(iga)
            .arg("-d")
            .arg(format!("-p={plat}"))
            .arg(dir.join("kernel.bin")),
        "iga64 -d",
    );
    // As gen.sh does: the padding after the end of thread decodes as `illegal`.
    let asm: String = String::from_utf8_lossy(&asm)
        .lines()
        .filter(|l| l.trim() != "illegal")
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.join("kernel.asm"), &asm).expect("write asm");
    std::fs::write(dir.join("ze_info.yaml"), &ze).expect("write zeInfo");
    std::fs::write(dir.join("source.cl"), &src).expect("write key");
    (asm, ze)
}

fn clang_ll(clang: &Path, kernel: &str) -> String {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sim-igc/{kernel}.ll"));
    let _ = std::fs::create_dir_all(out.parent().expect("dir"));
    run(
        Command::new(clang)
            .args(["-cc1", "-triple", "spir64", "-O2", "-cl-std=CL1.2"])
            .args(["-finclude-default-header", "-emit-llvm"])
            .arg(bench().join(format!("{kernel}.cl")))
            .arg("-o")
            .arg(&out),
        "clang-14",
    );
    std::fs::read_to_string(out).expect("the .ll")
}

/// A random 64-bit value biased to the edges of the 32-bit halves.
fn biased(rng: &mut Rng) -> u64 {
    let small = rng.next() % 4;
    match rng.next() % 8 {
        0 => u64::from(u32::MAX - small as u32),
        1 => u64::MAX - small,
        2 => 0xFFFF_FFFF_0000_0000 | small,
        3 => small,
        4 => (1 << 63) | (rng.next() & 0xFFFF_FFFF),
        _ => rng.next(),
    }
}

/// Buffers for one launch: addresses and initial memory.
fn buffers(bufs: &[(u64, bool)], ptroff: bool, n: u64, rng: &mut Rng) -> (Vec<u64>, Vec<u8>) {
    let mut addrs = Vec::new();
    let mut at = 256u64;
    for (bytes, _) in bufs {
        addrs.push(at);
        at += (bytes * n).next_multiple_of(256);
    }
    let mut mem = vec![0u8; at as usize];
    for lane in 0..n {
        let a = biased(rng);
        // The second addend carries out of the low half half of the time.
        let b = if rng.next().is_multiple_of(2) {
            let lo = (!(a as u32)).wrapping_add(1 + (rng.next() % 1000) as u32);
            (rng.next() & !0xFFFF_FFFF) | u64::from(lo)
        } else {
            biased(rng)
        };
        let mut vals = if ptroff {
            // A dword-aligned byte offset into `base`.
            vec![a, 4 * (rng.next() % n)]
        } else {
            vec![a, b]
        }
        .into_iter();
        for (k, (bytes, out)) in bufs.iter().enumerate() {
            let at = (addrs[k] + lane * bytes) as usize;
            let v = if *out {
                rng.next()
            } else {
                vals.next().unwrap_or(0)
            };
            mem[at..at + *bytes as usize].copy_from_slice(&v.to_le_bytes()[..*bytes as usize]);
        }
    }
    (addrs, mem)
}

fn read(mem: &[u8], at: u64, bytes: u64) -> u64 {
    let mut v = [0u8; 8];
    v[..bytes as usize].copy_from_slice(&mem[at as usize..(at + bytes) as usize]);
    u64::from_le_bytes(v)
}

/// Runs `prog` (with payload `info`) on the [`LAUNCHES`] and compares the
/// output buffers with the interpreter's run of `f`; returns the
/// work-items run. `device` names the case (`SIM_IGC_CASE`).
#[allow(clippy::too_many_arguments)]
fn run_cases(
    kernel: &str,
    device: &str,
    f: &regdesc_codegen::ir::Function,
    prog: &[Stmt],
    info: &KernelInfo,
    bufs: &[(u64, bool)],
    only: &Option<String>,
    mismatches: &mut Vec<String>,
) -> u64 {
    let mut items = 0u64;
    for (li, (global, local)) in LAUNCHES.iter().enumerate() {
        let case = format!("{kernel}/{device}/{li}");
        if only.as_ref().is_some_and(|o| *o != case) {
            continue;
        }
        let n = u64::from(*global);
        let mut rng = Rng::new(0x1_9c + (li as u64) * 7919 + kernel.len() as u64 * 104_729);
        let (addrs, init) = buffers(bufs, kernel == "ptroff", n, &mut rng);
        let mut want = GlobalMemory::from_bytes(init.clone());
        let launch = Launch::lanes(
            *global,
            addrs
                .iter()
                .map(|a| LaneArg::Uniform(Value::Ptr(*a)))
                .collect(),
        );
        interp::run(f, &launch, &mut want).unwrap_or_else(|e| panic!("{case}: interpreter: {e}"));
        let mut got = GlobalMemory::from_bytes(init.clone());
        let d = Dispatch {
            global: *global,
            local: *local,
            args: addrs.iter().map(|a| a.to_le_bytes().to_vec()).collect(),
        };
        run_kernel(prog, info, &d, &mut got, 1_000_000)
            .unwrap_or_else(|e| panic!("{case}: simulator: {e}"));
        for lane in 0..n {
            for (k, (bytes, out)) in bufs.iter().enumerate() {
                if !out {
                    continue;
                }
                let at = addrs[k] + lane * bytes;
                let (w, g) = (
                    read(want.bytes(), at, *bytes),
                    read(got.bytes(), at, *bytes),
                );
                if w != g {
                    let ins: Vec<String> = bufs
                        .iter()
                        .enumerate()
                        .filter(|(_, (_, o))| !o)
                        .map(|(j, (b, _))| format!("{:#x}", read(&init, addrs[j] + lane * b, *b)))
                        .collect();
                    mismatches.push(format!(
                        "{case} global id {lane}, argument {k}: interpreter {w:#x}, simulated {g:#x} (inputs {})\n  reproduce: SIM_IGC_CASE={case} cargo test --release -p regdesc-intel --test sim_igc -- --nocapture",
                        ins.join(", ")
                    ));
                }
            }
        }
        assert_eq!(got.bytes().len(), want.bytes().len());
        items += n;
    }
    items
}

#[test]
fn igc_kernels_agree_with_the_interpreter() {
    let Some(tools) = tools() else { return };
    let only = std::env::var("SIM_IGC_CASE").ok();
    let mut total = 0u64;
    let mut mismatches = Vec::new();
    let mut rows = Vec::new();
    for (kernel, bufs) in KERNELS {
        let ll = clang_ll(&tools.2, kernel);
        let m = read_module(&format!("{kernel}.ll"), &ll)
            .unwrap_or_else(|e| panic!("{kernel}.ll: {}", e.render(false)));
        let f = m.function(kernel).expect("the kernel");
        for (device, plat) in PLATFORMS {
            let (asm, ze) = igc(&tools, kernel, device, plat);
            let info = KernelInfo::from_ze_info(&ze, kernel)
                .unwrap_or_else(|e| panic!("{kernel} {device}: zeInfo: {e}"));
            let prog: Vec<Stmt> = parse_program(&asm)
                .unwrap_or_else(|e| panic!("{kernel} {device}: {e}"))
                .into_iter()
                .map(|(_, s)| s)
                .collect();
            // Our decoding of every send against IGA's own comment.
            for s in prog.iter().filter_map(|s| match s {
                Stmt::Send(x) => Some(x),
                _ => None,
            }) {
                let msg = s.message().unwrap_or_else(|e| panic!("{}: {e}", s.text));
                if let Some(note) = &s.note {
                    assert!(
                        note.contains(&msg.iga_name()),
                        "{kernel} {device}: `{}` decodes as {}, IGA says `{note}`",
                        s.text,
                        msg.iga_name()
                    );
                }
            }
            let items = run_cases(
                kernel,
                device,
                f,
                &prog,
                &info,
                bufs,
                &only,
                &mut mismatches,
            );
            total += items;
            rows.push(format!(
                "{kernel:<12} {device:<6} SIMD{} {items} work-items",
                info.simd
            ));
        }
    }
    println!("{}", rows.join("\n"));
    println!("{total} work-items, {} mismatches", mismatches.len());
    assert_no_mismatches(&mismatches);
}

/// The back end's own kernels run the same way: each of the six kernels
/// compiled by regdesc for gen9, gen11 and gen12lp at SIMD8 and SIMD16
/// (gen9 with its qword messages and `add:q`, [`regdesc_intel::qword`]),
/// with the payload ocloc reports for the kernel (the layout the back end
/// reads, `tests/kernels.rs`) at the back end's SIMD width and one GRF of
/// local ids per dimension, agrees with the interpreter on every
/// work-item of the four launches.
#[test]
fn regdesc_kernels_agree_with_the_interpreter() {
    use regdesc_codegen::pipeline::{compile_function, Options};
    use regdesc_intel::target::{Gen, Platform, Simd};
    let Some(tools) = tools() else { return };
    let only = std::env::var("SIM_IGC_CASE").ok();
    let mut total = 0u64;
    let mut mismatches = Vec::new();
    let devices = [
        ("skl", "9", Platform::Gen9),
        ("icllp", "11", Platform::Gen11),
        ("tgllp", "12p1", Platform::Gen12lp),
    ];
    for (kernel, bufs) in KERNELS {
        let ll = clang_ll(&tools.2, kernel);
        let m = read_module(&format!("{kernel}.ll"), &ll)
            .unwrap_or_else(|e| panic!("{kernel}.ll: {}", e.render(false)));
        let f = m.function(kernel).expect("the kernel");
        for (device, plat, platform) in devices {
            let (_, ze) = igc(&tools, kernel, device, plat);
            for simd in [Simd::Simd8, Simd::Simd16] {
                let mut info = KernelInfo::from_ze_info(&ze, kernel)
                    .unwrap_or_else(|e| panic!("{kernel} {device}: zeInfo: {e}"));
                info.simd = u32::from(simd.lanes());
                info.local_id_bytes = 3 * 32;
                let asm = compile_function(f, &Gen::new(platform, simd), &Options::default())
                    .unwrap_or_else(|e| panic!("{kernel} {platform:?} {simd:?}: {e}"))
                    .asm
                    .unwrap_or_default();
                let prog: Vec<Stmt> = parse_program(&asm)
                    .unwrap_or_else(|e| panic!("{kernel} {device}: {e}\n{asm}"))
                    .into_iter()
                    .map(|(_, s)| s)
                    .collect();
                let label = format!("regdesc-{device}-simd{}", simd.lanes());
                total += run_cases(
                    kernel,
                    &label,
                    f,
                    &prog,
                    &info,
                    bufs,
                    &only,
                    &mut mismatches,
                );
            }
        }
    }
    println!(
        "regdesc's kernels: {total} work-items, {} mismatches",
        mismatches.len()
    );
    assert_no_mismatches(&mismatches);
    assert!(total > 0);
}

/// Fails with the first 20 mismatches, if any.
fn assert_no_mismatches(mismatches: &[String]) {
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
}
