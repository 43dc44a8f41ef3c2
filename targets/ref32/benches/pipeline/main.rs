//! Back-end pipeline time per stage (issue 13): `compile_function` with
//! ref32 on generated LLVM IR functions of about 1k, 10k and 100k
//! instructions ([`gen`]: straight-line `i32`/`i64`/`i128` arithmetic,
//! diamonds and counted loops with PHIs; seed fixed).
//!
//! `bash bench/pipeline.sh` runs it (`cargo bench -p regdesc-ref32 --bench
//! pipeline`). For each size it compiles the function several times (30
//! below 5k instructions, 15 below 50k, 5 above; `REGDESC_BENCH_RUNS`
//! overrides) and prints:
//!
//! - the IR instructions, and the machine instructions after `legalize`
//!   and after `final` (spill code included);
//! - each stage's time (`Compiled::times`: legalize, select, ssa,
//!   phi-elim, post-phi, two-addr, alloc, final with emission), the
//!   fastest of the runs for each stage, and the total of the
//!   fastest whole run (reading the IR is not timed); and, timed apart,
//!   the uniformity analysis `legalize` starts with
//!   (`Uniformity::analyze`, part of the `legalize` figure); and a
//!   control: one walk over every operand of every instruction of the
//!   legalized function (as `legalize` laid it out in memory), the least
//!   a pass over the machine code costs, to tell memory effects from
//!   algorithmic growth; and the minor page faults of a compile (fresh
//!   zeroed pages from the system; the fewest of the runs);
//! - the growth of each stage and of the total from one size to the next,
//!   with `!` where it exceeds 12x per tenfold of IR instructions (the
//!   bound for a step of r times the instructions is 12^log10(r): 11.9x
//!   for 9.9 times).
//!
//! Before the clock, each function is compiled once with the machine
//! verifier after every stage and (up to 20k IR instructions) its machine
//! code after `final` is run against the IR interpreter on a few inputs.
//!
//! The IR files are left in `target/pipeline-bench/f{n}.ll`.
//! `REGDESC_BENCH_SIZES=1000,10000` picks the sizes.

mod gen;

// As in `regdesc-cc`: the passes make and drop many small vectors (an
// operand list per machine instruction), which mimalloc serves much faster
// than the system allocator, and without its growing consolidation cost.
// (See `regdesc_alloc` for its options.)
regdesc_alloc::global_allocator!(whole_arenas);

use std::path::Path;
use std::time::{Duration, Instant};

use regdesc_codegen::differential::{compare, DiffConfig};
use regdesc_codegen::ir::cfg::Cfg;
use regdesc_codegen::ir::Function;
use regdesc_codegen::mir::cfg::MCfg;
use regdesc_codegen::mir::liveness::Liveness;
use regdesc_codegen::mir::{MFunction, Operand as MOperand, VReg};
use regdesc_codegen::pipeline::{compile_function, Options, Stage};
use regdesc_codegen::read_module;
use regdesc_codegen::target::Target as _;
use regdesc_codegen::uniformity::Uniformity;
use regdesc_ref32::Ref32;

/// The generator's seed.
const SEED: u64 = 13;
/// The default reach of long-range operands: one of the last 32 values
/// of their type (see `gen.rs`).
const REACH: usize = 32;
/// The bound the acceptance point sets on growth per tenfold size.
const BOUND: f64 = 12.0;

struct Row {
    ir_insts: usize,
    legalized: usize,
    final_insts: usize,
    /// Per stage (in [`Stage::ALL`] order), the fastest run.
    stages: [Duration; 8],
    /// `Uniformity::analyze` alone (inside `legalize`), the fastest run.
    uniformity: Duration,
    /// The control walk over the legalized function, the fastest run.
    walk: Duration,
    total: Duration,
    runs: usize,
    /// The allocator's phases (coalescing, liveness, assignment, spill
    /// code, rewriting), each the fastest run, and what it spilled.
    alloc_phases: [Duration; 5],
    spilled: usize,
    rounds: usize,
    /// Minor page faults of a compile (the fewest of the runs): memory
    /// the process got from the system as fresh zeroed pages.
    faults: u64,
}

/// The process's minor page faults so far (`/proc/self/stat`, field 10);
/// 0 where there is no such file.
fn minor_faults() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    // The fields after the command name (which is in parentheses).
    let Some(rest) = stat.rfind(')').map(|k| &stat[k + 1..]) else {
        return 0;
    };
    rest.split_whitespace()
        .nth(7)
        .and_then(|x| x.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let sizes: Vec<usize> = std::env::var("REGDESC_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let runs_override: Option<usize> = std::env::var("REGDESC_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok());
    // How far back long-range operands reach (see gen.rs): `scope` for any
    // value in scope, else a count of values.
    let reach = match std::env::var("REGDESC_BENCH_REACH").ok().as_deref() {
        Some("scope") => gen::Reach::Scope,
        Some(r) => match r.parse() {
            Ok(k) => gen::Reach::Last(k),
            Err(_) => panic!("REGDESC_BENCH_REACH: `scope` or a count, not `{r}`"),
        },
        None => gen::Reach::Last(REACH),
    };
    println!("long-range operands: {reach:?}");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/pipeline-bench");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create {}: {e}", dir.display());
    }
    let target = Ref32::new();
    let mut rows = Vec::new();
    for &n in &sizes {
        let g = gen::generate(n, SEED, reach);
        let file = dir.join(match reach {
            gen::Reach::Scope => format!("f{n}-scope.ll"),
            gen::Reach::Last(r) => format!("f{n}-reach{r}.ll"),
        });
        if let Err(e) = std::fs::write(&file, &g.text) {
            panic!("cannot write {}: {e}", file.display());
        }
        let name = file.display().to_string();
        let module = match read_module(&name, &g.text) {
            Ok(m) => m,
            Err(d) => panic!("the generated IR does not read:\n{}", d.render(false)),
        };
        let Some(f) = module.function("f") else {
            panic!("{name} has no @f");
        };
        if f.insts.len() != g.insts {
            panic!(
                "{name}: the reader has {} instructions, the generator counted {}",
                f.insts.len(),
                g.insts
            );
        }
        let legalize_only = Options {
            stop_after: Some(Stage::Legalize),
            ..Options::default()
        };
        let legalized = match compile_function(f, &target, &legalize_only) {
            Ok(c) => c.mir,
            Err(e) => panic!("{name}: {e}"),
        };
        eprintln!(
            "n={n}: {} IR instructions in {} blocks ({name}), {} machine instructions after legalize",
            f.insts.len(),
            f.blocks.len(),
            legalized.num_insts()
        );
        check(f, &target, &name);
        live_length(f, &target);
        // What the uniformity analysis works through (see BENCHMARKS.md).
        let uni = Uniformity::analyze(f);
        let cfg = Cfg::new(f);
        eprintln!(
            "  {} divergent branches, {} cycles ({} blocks in them, nested ones counted in each)",
            uni.divergent_branches().len(),
            cfg.cycles().len(),
            cfg.cycles().iter().map(|c| c.blocks.len()).sum::<usize>()
        );
        let runs = runs_override.unwrap_or(match n {
            0..5_000 => 30,
            5_000..50_000 => 15,
            _ => 5,
        });
        let mut stages = [Duration::MAX; 8];
        let mut total = Duration::MAX;
        let mut final_insts = 0;
        let mut uniformity = Duration::MAX;
        let mut walk = Duration::MAX;
        let mut alloc_phases = [Duration::MAX; 5];
        let (mut spilled, mut rounds) = (0, 0);
        let mut faults = u64::MAX;
        for _ in 0..runs.max(1) {
            let start = Instant::now();
            std::hint::black_box(walk_operands(&legalized));
            walk = walk.min(start.elapsed());
            let start = Instant::now();
            std::hint::black_box(Uniformity::analyze(f));
            uniformity = uniformity.min(start.elapsed());
            let faults_before = minor_faults();
            let start = Instant::now();
            let c = match compile_function(f, &target, &Options::default()) {
                Ok(c) => c,
                Err(e) => panic!("{name}: {e}"),
            };
            let t = start.elapsed();
            faults = faults.min(minor_faults().saturating_sub(faults_before));
            total = total.min(t);
            final_insts = c.mir.num_insts();
            if let Some(a) = &c.alloc {
                let t = &a.time;
                let phases = [
                    t.coalescing,
                    t.liveness,
                    t.assignment,
                    t.spilling,
                    t.rewriting,
                ];
                for (best, d) in alloc_phases.iter_mut().zip(phases) {
                    *best = (*best).min(d);
                }
                (spilled, rounds) = (a.spilled, a.rounds);
            }
            for (stage, d) in &c.times {
                if let Some(k) = Stage::ALL.iter().position(|s| s == stage) {
                    stages[k] = stages[k].min(*d);
                }
            }
            eprintln!("  run: {} ms", ms(t));
        }
        rows.push(Row {
            ir_insts: f.insts.len(),
            legalized: legalized.num_insts(),
            final_insts,
            stages,
            uniformity,
            walk,
            total,
            runs: runs.max(1),
            alloc_phases,
            spilled,
            rounds,
            faults,
        });
    }
    print_tables(&rows);
}

/// Before timing (not timed): one compile with the machine verifier after
/// every stage and, up to 20k IR instructions, the machine code after
/// `final` against the IR interpreter on a few random inputs.
fn check(f: &Function, target: &Ref32, name: &str) {
    let verified = Options {
        verify_each: true,
        ..Options::default()
    };
    if let Err(e) = compile_function(f, target, &verified) {
        panic!("{name}: {e}");
    }
    if f.insts.len() > 20_000 {
        eprintln!("  machine verifier after every stage: no complaints");
        return;
    }
    let cfg = DiffConfig {
        stage: Stage::Final,
        lanes: 4,
        inputs: 16,
        seed: SEED,
        file: name.to_string(),
    };
    match compare(target, f, &cfg) {
        Ok(r) => eprintln!(
            "  machine verifier after every stage: no complaints; {} lanes run after `final`, same results as the IR interpreter",
            r.compared
        ),
        Err(e) => panic!("{name}: the compiled code differs from the IR interpreter: {e}"),
    }
}

/// What the allocator works through: the values' summed live length
/// (slots) and segments, and the values live at once on average, in the
/// function the allocator is given (after two-address lowering).
fn live_length(f: &Function, target: &Ref32) {
    let to_two_addr = Options {
        stop_after: Some(Stage::TwoAddr),
        ..Options::default()
    };
    let m = match compile_function(f, target, &to_two_addr) {
        Ok(c) => c.mir,
        Err(e) => panic!("{e}"),
    };
    let live = Liveness::compute(&m, target.regs(), &MCfg::new(&m));
    let (mut length, mut segments) = (0u64, 0usize);
    for v in 0..m.vregs.len() {
        if let Some(i) = live.interval(VReg(v as u32)) {
            length += u64::from(i.size());
            segments += i.main_range().len();
        }
    }
    let slots = 2 * m.num_insts() as u64;
    eprintln!(
        "  live length {length} slots in {segments} segments over {} values: {:.1} values live at once on average",
        m.vregs.len(),
        length as f64 / slots.max(1) as f64
    );
}

/// The control: reads every operand of every instruction once.
fn walk_operands(f: &MFunction) -> usize {
    let mut n = 0usize;
    for b in &f.blocks {
        for i in &b.insts {
            n = n.wrapping_add(usize::from(i.opcode.0));
            for o in &i.ops {
                if let MOperand::Reg(r) = o {
                    n = n.wrapping_add(usize::from(r.is_def()));
                }
            }
        }
    }
    n
}

/// Milliseconds, with three decimals below 10 ms.
fn ms(d: Duration) -> String {
    let x = d.as_secs_f64() * 1e3;
    if x < 10.0 {
        format!("{x:.3}")
    } else {
        format!("{x:.1}")
    }
}

/// `b / a`, marked `!` past [`BOUND`] per tenfold of `size_ratio`.
fn growth(a: Duration, b: Duration, size_ratio: f64) -> String {
    // Below a microsecond (select, ssa and post-phi do nothing on ref32)
    // a ratio is the timer's noise.
    if a < Duration::from_micros(1) {
        return "-".into();
    }
    let g = b.as_secs_f64() / a.as_secs_f64();
    let bound = BOUND.powf(size_ratio.log10());
    format!("{g:.1}x{}", if g > bound { " !" } else { "" })
}

fn print_tables(rows: &[Row]) {
    let names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
    println!("\ncompile_function with ref32: time per stage in ms (fastest of the runs for each stage; total: fastest whole run)\n");
    println!(
        "| IR instrs | machine instrs after legalize | after final | runs | {} | total | uniformity (in legalize) | walk (control) | page faults |",
        names.join(" | ")
    );
    println!("| ---: | ---: | ---: | ---: |{}", " ---: |".repeat(12));
    for r in rows {
        let stages: Vec<String> = r.stages.iter().map(|d| ms(*d)).collect();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.ir_insts,
            r.legalized,
            r.final_insts,
            r.runs,
            stages.join(" | "),
            ms(r.total),
            ms(r.uniformity),
            ms(r.walk),
            r.faults
        );
    }
    println!("\nthe allocator's phases in ms (fastest run of each)\n");
    println!(
        "| IR instrs | coalesce | liveness | assign | spill code | rewrite | spilled (rounds) |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in rows {
        let p: Vec<String> = r.alloc_phases.iter().map(|d| ms(*d)).collect();
        println!(
            "| {} | {} | {} ({}) |",
            r.ir_insts,
            p.join(" | "),
            r.spilled,
            r.rounds
        );
    }
    println!(
        "\ngrowth from one size to the next (`!`: more than {BOUND}x per tenfold of IR instructions)\n"
    );
    println!(
        "| sizes | IR instrs | bound | {} | total | uniformity | legalize without uniformity | walk (control) |",
        names.join(" | ")
    );
    println!("| --- | ---: |{}", " ---: |".repeat(13));
    for w in rows.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let ratio = b.ir_insts as f64 / a.ir_insts as f64;
        let stages: Vec<String> = a
            .stages
            .iter()
            .zip(&b.stages)
            .map(|(x, y)| growth(*x, *y, ratio))
            .collect();
        println!(
            "| {} -> {} | {ratio:.1}x | {:.1}x | {} | {} | {} | {} | {} |",
            a.ir_insts,
            b.ir_insts,
            BOUND.powf(ratio.log10()),
            stages.join(" | "),
            growth(a.total, b.total, ratio),
            growth(a.uniformity, b.uniformity, ratio),
            growth(
                a.stages[0].saturating_sub(a.uniformity),
                b.stages[0].saturating_sub(b.uniformity),
                ratio
            ),
            growth(a.walk, b.walk, ratio)
        );
    }
}
