//! Query speed of regdesc's generated tables (divan), then the same loops
//! against LLVM 14's `MCRegisterInfo` in the oracle's C++ harness, in the
//! same run, with the ratio (BENCHMARKS.md, "Query speed").
//!
//! `bash bench/queries.sh` builds both sides for LLVM 14's AMDGPU and runs
//! this with `REGDESC_BENCH_ORACLE` naming the C++ harness binary. Without
//! it, only the divan benchmarks run.

use divan::counter::ItemsCount;
use divan::Bencher;
use regdesc_bench::tables::LaneBits;
use regdesc_bench::tables::TABLES;
use regdesc_bench::Loops;

fn loops() -> &'static Loops<LaneBits> {
    static LOOPS: std::sync::OnceLock<Loops<LaneBits>> = std::sync::OnceLock::new();
    LOOPS.get_or_init(|| Loops::new(&TABLES))
}

#[divan::bench]
fn sub_reg(b: Bencher) {
    let l = loops();
    b.counter(ItemsCount::new(l.sub_reg_queries()))
        .bench(|| l.sub_reg());
}

#[divan::bench]
fn reg_units(b: Bencher) {
    let l = loops();
    b.counter(ItemsCount::new(l.reg_units_queries()))
        .bench(|| l.reg_units());
}

#[divan::bench]
fn regs_overlap(b: Bencher) {
    let l = loops();
    b.counter(ItemsCount::new(l.regs_overlap_queries()))
        .bench(|| l.regs_overlap());
}

#[divan::bench]
fn class_contains(b: Bencher) {
    let l = loops();
    b.counter(ItemsCount::new(l.class_contains_queries()))
        .bench(|| l.class_contains());
}

/// The C++ harness's `bench NAME NS QUERIES` lines.
fn llvm_times(oracle: &str, rounds: u32) -> Result<Vec<(String, f64, usize)>, String> {
    let out = std::process::Command::new(oracle)
        .args(["--bench", &rounds.to_string()])
        .output()
        .map_err(|e| format!("cannot run {oracle}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{oracle} --bench failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if let ["bench", name, ns, n] = f[..] {
            let ns = ns.parse().map_err(|_| format!("bad line {line:?}"))?;
            let n = n.parse().map_err(|_| format!("bad line {line:?}"))?;
            v.push((name.to_string(), ns, n));
        }
    }
    Ok(v)
}

fn compare() {
    let Some(oracle) = std::env::var_os("REGDESC_BENCH_ORACLE") else {
        println!("\n(set REGDESC_BENCH_ORACLE to the oracle harness binary to compare with LLVM 14; bench/queries.sh does)");
        return;
    };
    let oracle = oracle.to_string_lossy().into_owned();
    let rounds = 20;
    let llvm = match llvm_times(&oracle, rounds) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let ours = loops().time_all(rounds);
    println!(
        "\n{} ({} registers, {} indices, {} classes): ns per query, best of {rounds} rounds",
        TABLES.target,
        TABLES.num_regs(),
        TABLES.num_sub_reg_indices(),
        TABLES.num_classes()
    );
    println!(
        "{:<16} {:>10} {:>10} {:>14} {:>12}",
        "query", "LLVM 14", "regdesc", "regdesc/LLVM", "queries"
    );
    for (name, ns, n) in ours {
        match llvm.iter().find(|(m, _, _)| m == name) {
            Some((_, l, ln)) if *ln == n => {
                println!("{name:<16} {l:>10.2} {ns:>10.2} {:>13.2}x {n:>12}", ns / l);
            }
            Some((_, _, ln)) => {
                println!("{name:<16} query counts differ: LLVM {ln}, regdesc {n}");
            }
            None => println!("{name:<16} (no LLVM figure)"),
        }
    }
}

fn main() {
    divan::main();
    compare();
}
