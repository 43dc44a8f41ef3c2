//! Register allocation time against `llc` on the same functions: the
//! generated programs of `benches/regalloc.rs` (about 1k, 10k and 100k
//! machine instructions over the AMD-like register file), and their LLVM
//! IR twins (`tests/mir_support/llvm_ir.rs`) compiled by
//! `llc -O2 -mtriple=amdgcn -mcpu=gfx900` (LLVM 14).
//!
//! `bash bench/regalloc.sh` runs it (`cargo bench -p regdesc-codegen
//! --bench regalloc_vs_llc`). For each size it prints:
//!
//! - regdesc: `regalloc::allocate` (coalescing, liveness, assignment with
//!   spill rounds, rewriting) on the machine function, PHIs eliminated and
//!   tied operands lowered before the clock starts; best of several runs,
//!   and the phases of that run;
//! - llc, twice: with the default `-O2` pipeline, and with
//!   `-amdgpu-scalar-ir-passes=0` (the same without the IR-level scalar
//!   passes AMDGPU adds before instruction selection — LICM among them,
//!   whose time grows steeply on these functions). For each: the whole
//!   `llc -time-passes` process (IR parsing, IR passes, instruction
//!   selection, scheduling, register allocation, emission), best of three
//!   runs (one at 100k), and from that run the wall time of its register
//!   allocation passes: `Greedy Register Allocator` and `Virtual Register
//!   Rewriter` (every run of them: LLVM 14's AMDGPU back end runs the
//!   allocator more than once), and with `Simple Register Coalescing`,
//!   `Live Interval Analysis` and `Live Register Matrix`, the set
//!   regdesc's time covers; and how many machine instructions llc
//!   allocates (the body of its MIR at `-stop-before=greedy`, a separate
//!   run) and emits (the assembly of the timed run, in
//!   `target/regalloc-bench/f{n}.s` and `f{n}.noscalar.s`), with the
//!   time per instruction on each side (regdesc: `allocate`'s time over
//!   the instructions it is given; llc: Greedy + rewriter over the
//!   instructions Greedy is given);
//! - the growth of each figure from one size to the next.
//!
//! An `llc` run is stopped after `REGDESC_LLC_LIMIT` seconds (600 by
//! default) and shown as such. The IR files are left in
//! `target/regalloc-bench/`. Without `llc` (LLVM 14 with the AMDGPU
//! target) on `PATH` (or in `$LLC`) only regdesc's side is printed.
//! `REGDESC_BENCH_SIZES=1000,10000` picks the sizes.

#[path = "../tests/mir_support/mod.rs"]
mod mir_support;

// As in `regdesc-cc`: the passes make and drop many small vectors (an
// operand list per machine instruction), which mimalloc serves much faster
// than the system allocator, and without its growing consolidation cost.
// (See `regdesc_alloc` for its options.)
regdesc_alloc::global_allocator!(whole_arenas);

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mir_support::{amd, amd_instrs};
use regdesc_codegen::regalloc::{self, AllocOptions, GenericSpill, PhaseTimes};

/// `llc`'s pass rows that do what `regalloc::allocate` does.
const RA_CORE: [&str; 2] = ["Greedy Register Allocator", "Virtual Register Rewriter"];
const RA_SUPPORT: [&str; 3] = [
    "Simple Register Coalescing",
    "Live Interval Analysis",
    "Live Register Matrix",
];

/// The `llc` configurations timed: a label and the extra options.
const LLC_CONFIGS: [(&str, &[&str]); 2] = [
    ("llc -O2", &[]),
    (
        "llc -O2 -amdgpu-scalar-ir-passes=0",
        &["-amdgpu-scalar-ir-passes=0"],
    ),
];

struct Row {
    n: usize,
    ir_insts: usize,
    ours: Duration,
    phases: PhaseTimes,
    spilled: usize,
    rounds: usize,
    /// Per configuration; `None`: stopped at the time limit.
    llc: Vec<Option<LlcTimes>>,
}

#[derive(Clone, Copy)]
struct LlcTimes {
    total: Duration,
    ra_core: Duration,
    ra_all: Duration,
    /// Machine instructions when the first `Greedy Register Allocator`
    /// starts (what llc allocates), from a run with `-stop-before=greedy`.
    allocated: usize,
    /// Instructions in the assembly emitted.
    emitted: usize,
}

fn main() {
    let sizes: Vec<usize> = std::env::var("REGDESC_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/regalloc-bench");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create {}: {e}", dir.display());
    }
    let limit = Duration::from_secs(
        std::env::var("REGDESC_LLC_LIMIT")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(600),
    );
    let llc = find_llc();
    if llc.is_none() {
        eprintln!("llc (LLVM 14, AMDGPU) not found: set LLC or PATH; timing regdesc only");
    }
    let instrs = amd_instrs();
    let hook = GenericSpill { instrs: &instrs };
    let mut rows = Vec::new();
    for &n in &sizes {
        let (f, g) = mir_support::sized_function(n, &instrs);
        let file = dir.join(format!("f{n}.ll"));
        if let Err(e) = std::fs::write(&file, &g.ir.text) {
            panic!("cannot write {}: {e}", file.display());
        }
        let ir_insts = g.ir.text.lines().filter(|l| l.starts_with("  ")).count();
        eprintln!(
            "n={n}: {} machine instructions ({} blocks, {} virtual registers), {ir_insts} IR instructions in {}",
            f.num_insts(),
            f.blocks.len(),
            f.vregs.len(),
            file.display()
        );
        let runs = if n >= 100_000 { 5 } else { 9 };
        let mut best: Option<(Duration, PhaseTimes, usize, usize)> = None;
        for _ in 0..runs {
            let mut h = f.clone();
            let start = Instant::now();
            let s = match regalloc::allocate(
                &mut h,
                &amd::AMDLike,
                &instrs,
                &hook,
                &AllocOptions::default(),
            ) {
                Ok(s) => s,
                Err(e) => panic!("n={n}: {e}"),
            };
            let t = start.elapsed();
            if best.is_none_or(|(b, _, _, _)| t < b) {
                best = Some((t, s.time, s.spilled, s.rounds));
            }
        }
        let Some((ours, phases, spilled, rounds)) = best else {
            continue;
        };
        let llc_runs = if n >= 100_000 { 1 } else { 3 };
        let mut llc_times = Vec::new();
        if let Some(llc) = llc.as_deref() {
            for (label, extra) in LLC_CONFIGS {
                let t = time_llc(llc, extra, &file, llc_runs, limit);
                match t {
                    Some(t) => eprintln!("  {label}: {}", ms(t.total)),
                    None => eprintln!("  {label}: stopped after {} s", limit.as_secs()),
                }
                llc_times.push(t);
            }
        }
        rows.push(Row {
            n: f.num_insts(),
            ir_insts,
            ours,
            phases,
            spilled,
            rounds,
            llc: llc_times,
        });
    }
    print_tables(&rows, limit);
}

/// `$LLC`, or `llc` on `PATH`, when it is LLVM 14 with the AMDGPU target.
fn find_llc() -> Option<PathBuf> {
    let llc = std::env::var_os("LLC").map_or_else(|| PathBuf::from("llc"), PathBuf::from);
    let out = Command::new(&llc).arg("--version").output().ok()?;
    let v = String::from_utf8_lossy(&out.stdout);
    (v.contains("LLVM version 14.") && v.contains("amdgcn")).then_some(llc)
}

/// The fastest of `runs` runs with `-time-passes`: its wall time, and the
/// wall time of its register allocation rows; `None` when a run takes
/// longer than `limit` (it is stopped).
fn time_llc(
    llc: &Path,
    extra: &[&str],
    file: &Path,
    runs: usize,
    limit: Duration,
) -> Option<LlcTimes> {
    let mut best: Option<(Duration, String)> = None;
    for _ in 0..runs.max(1) {
        let (t, report) = run_llc(llc, extra, file, limit)?;
        if best.as_ref().is_none_or(|(b, _)| t < *b) {
            best = Some((t, report));
        }
    }
    let (total, report) = best?;
    let ra_core = pass_wall_time(&report, &RA_CORE);
    let emitted = std::fs::read_to_string(file.with_extension(asm_name(extra)))
        .map_or(0, |s| count_asm_instructions(&s));
    Some(LlcTimes {
        total,
        ra_core,
        ra_all: ra_core + pass_wall_time(&report, &RA_SUPPORT),
        allocated: instructions_before_greedy(llc, extra, file),
        emitted,
    })
}

/// The extension of the assembly file a configuration writes.
fn asm_name(extra: &[&str]) -> &'static str {
    if extra.is_empty() {
        "s"
    } else {
        "noscalar.s"
    }
}

/// Instruction lines of an assembly listing (not labels, directives or
/// comments).
fn count_asm_instructions(asm: &str) -> usize {
    asm.lines()
        .filter(|l| {
            let t = l.trim_start();
            l.starts_with(char::is_whitespace)
                && t.starts_with(|c: char| c.is_ascii_lowercase())
                && !t.starts_with('.')
        })
        .count()
}

/// The machine instructions of `file` as llc's first register allocator
/// gets them: the body of `-stop-before=greedy`'s MIR, without block
/// labels, successor and live-in lists and comments. 0 when it fails.
fn instructions_before_greedy(llc: &Path, extra: &[&str], file: &Path) -> usize {
    let out = Command::new(llc)
        .args([
            "-O2",
            "-mtriple=amdgcn",
            "-mcpu=gfx900",
            "-opaque-pointers",
            "-stop-before=greedy",
            "-o",
            "-",
        ])
        .args(extra)
        .arg(file)
        .stderr(Stdio::null())
        .output();
    let Ok(out) = out else { return 0 };
    let mir = String::from_utf8_lossy(&out.stdout);
    let mut in_body = false;
    let mut count = 0;
    for line in mir.lines() {
        if line.starts_with("body:") {
            in_body = true;
            continue;
        }
        if !in_body || line.starts_with("...") || line.starts_with("---") {
            in_body &= !(line.starts_with("...") || line.starts_with("---"));
            continue;
        }
        let t = line.trim_start();
        let skip = t.is_empty()
            || t.starts_with("bb.")
            || t.starts_with("successors:")
            || t.starts_with("liveins:")
            || t.starts_with(';');
        count += usize::from(!skip);
    }
    count
}

/// One `llc -time-passes` run: its wall time and its report, or `None`
/// past `limit`.
fn run_llc(llc: &Path, extra: &[&str], file: &Path, limit: Duration) -> Option<(Duration, String)> {
    let start = Instant::now();
    let spawned = Command::new(llc)
        .args([
            "-O2",
            "-mtriple=amdgcn",
            "-mcpu=gfx900",
            "-opaque-pointers",
            "-time-passes",
            "-o",
        ])
        .arg(file.with_extension(asm_name(extra)))
        .args(extra)
        .arg(file)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => panic!("cannot run llc: {e}"),
    };
    let mut stderr = child.stderr.take()?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => panic!("waiting for llc: {e}"),
        }
    };
    let t = start.elapsed();
    let report = reader.join().unwrap_or_default();
    if !status.success() {
        panic!("llc failed on {}:\n{report}", file.display());
    }
    Some((t, report))
}

/// The summed wall time of the `-time-passes` rows named `names` (the
/// last `seconds (percent%)` column of a row is its wall time).
fn pass_wall_time(report: &str, names: &[&str]) -> Duration {
    let mut sum = 0.0f64;
    for line in report.lines() {
        let Some(close) = line.rfind(')') else {
            continue;
        };
        // A pass that runs more than once has rows `Name #2`, `Name #3`.
        let name = line[close + 1..].trim();
        let base = match name.rsplit_once(" #") {
            Some((b, k)) if k.chars().all(|c| c.is_ascii_digit()) => b,
            _ => name,
        };
        if !names.contains(&base) {
            continue;
        }
        let secs = line[..close]
            .split_whitespace()
            .filter_map(|w| w.parse::<f64>().ok())
            .next_back();
        sum += secs.unwrap_or(0.0);
    }
    Duration::from_secs_f64(sum)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Microseconds per instruction.
fn per_instr(d: Duration, n: usize) -> String {
    if n == 0 {
        return "-".into();
    }
    format!("{:.2}", d.as_secs_f64() * 1e6 / n as f64)
}

fn growth(a: Duration, b: Duration) -> String {
    if a.is_zero() {
        return "-".into();
    }
    format!("{:.1}x", b.as_secs_f64() / a.as_secs_f64())
}

fn print_tables(rows: &[Row], limit: Duration) {
    println!("regdesc: regalloc::allocate on the machine function (best run)\n");
    println!("| machine instrs | IR instrs | allocate | coalesce / liveness / assign / spill / rewrite | spilled (rounds) |");
    println!("| ---: | ---: | ---: | --- | ---: |");
    for r in rows {
        let p = &r.phases;
        println!(
            "| {} | {} | {} | {} / {} / {} / {} / {} | {} ({}) |",
            r.n,
            r.ir_insts,
            ms(r.ours),
            ms(p.coalescing),
            ms(p.liveness),
            ms(p.assignment),
            ms(p.spilling),
            ms(p.rewriting),
            r.spilled,
            r.rounds,
        );
    }
    let configs = rows.first().map_or(0, |r| r.llc.len());
    for (c, (label, _)) in LLC_CONFIGS.iter().enumerate().take(configs) {
        println!("\n{label} -mtriple=amdgcn -mcpu=gfx900 on the LLVM IR twin\n");
        println!(
            "| machine instrs | total | Greedy + rewriter | + coalescer, live intervals, matrix | llc instrs at Greedy / emitted | µs per instr: llc Greedy + rewriter / regdesc allocate |"
        );
        println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
        for r in rows {
            match r.llc.get(c).copied().flatten() {
                Some(l) => println!(
                    "| {} | {} | {} | {} | {} / {} | {} / {} |",
                    r.n,
                    ms(l.total),
                    ms(l.ra_core),
                    ms(l.ra_all),
                    l.allocated,
                    l.emitted,
                    per_instr(l.ra_core, l.allocated),
                    per_instr(r.ours, r.n),
                ),
                None => println!(
                    "| {} | > {} s (stopped) | - | - | - | - |",
                    r.n,
                    limit.as_secs()
                ),
            }
        }
    }
    println!("\ngrowth from one size to the next\n");
    let mut head = String::from("| sizes | instrs | regdesc allocate |");
    let mut rule = String::from("| --- | ---: | ---: |");
    for (label, _) in LLC_CONFIGS.iter().take(configs) {
        head.push_str(&format!(" {label} total | {label} Greedy + rewriter |"));
        rule.push_str(" ---: | ---: |");
    }
    println!("{head}\n{rule}");
    for w in rows.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let mut line = format!(
            "| {} -> {} | {:.1}x | {} |",
            a.n,
            b.n,
            b.n as f64 / a.n as f64,
            growth(a.ours, b.ours)
        );
        for c in 0..configs {
            match (
                a.llc.get(c).copied().flatten(),
                b.llc.get(c).copied().flatten(),
            ) {
                (Some(x), Some(y)) => line.push_str(&format!(
                    " {} | {} |",
                    growth(x.total, y.total),
                    growth(x.ra_core, y.ra_core)
                )),
                _ => line.push_str(" - | - |"),
            }
        }
        println!("{line}");
    }
}
