//! Times each stage of `regdesc dump` and `regdesc check` in one process,
//! repeating the stages after evaluation so their figures are stable:
//! the best of N runs of the register bank, both lane modes, the dump and
//! the whole of `check` (bank, lanes and lints).
//!
//! `cargo run --release --example stage_times -- [-n RUNS] [-I DIR]... FILE`
//!
//! With `-s STAGE` (`bank`, `lanes`, `dump`, `check`), runs only that
//! stage (after one evaluation), for profilers: `perf record` or
//! `valgrind --tool=callgrind --toggle-collect=...`.

use std::path::PathBuf;
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use regdesc_core::lanes::{LaneMode, Lanes};
use regdesc_core::regs::RegBank;
use regdesc_core::syntax::{self, LoadOptions};
use regdesc_core::{check, eval, regs};

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        last = Some(v);
    }
    (best, last.expect("at least one run"))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut include_dirs = Vec::new();
    let mut runs = 5usize;
    let mut only: Option<String> = None;
    let mut file = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "-I" => include_dirs.push(PathBuf::from(args.next().expect("-I DIR"))),
            "-n" => runs = args.next().and_then(|n| n.parse().ok()).expect("-n RUNS"),
            "-s" => only = args.next(),
            _ => file = Some(PathBuf::from(a)),
        }
    }
    let file = file.expect("usage: stage_times [-n RUNS] [-s STAGE] [-I DIR]... FILE");
    let opts = LoadOptions {
        include_dirs,
        defines: Vec::new(),
        builtin_files: regdesc_core::prelude::builtin_files(),
    };
    let t = Instant::now();
    let (_loaded, out) = match syntax::load_file_then(&file, &opts, eval::evaluate) {
        Ok((l, Ok(out))) => (l, out),
        _ => {
            eprintln!("stage_times: {} does not load and evaluate", file.display());
            std::process::exit(1);
        }
    };
    let eval_ms = t.elapsed().as_secs_f64() * 1e3;
    let rk = &out.records;
    let check_opts = check::CheckOptions {
        mode: LaneMode::Coverage,
        lane_bits: 64,
    };
    let build = || RegBank::build(rk).unwrap_or_else(|e| panic!("bank: {e}"));
    if let Some(stage) = only {
        let bank = build();
        for _ in 0..runs {
            match stage.as_str() {
                "bank" => drop(build()),
                "lanes" => drop(Lanes::compute(&bank, LaneMode::Llvm)),
                "dump" => {
                    let l = Lanes::compute(&bank, LaneMode::Llvm);
                    drop(regs::dump::debug_dump(&bank, &l))
                }
                "check" => drop(check::check(rk, &check_opts)),
                _ => panic!("unknown stage {stage}"),
            }
        }
        return;
    }
    let (bank_ms, bank) = best(runs, build);
    let (llvm_ms, lanes) = best(runs, || Lanes::compute(&bank, LaneMode::Llvm));
    let (cov_ms, _) = best(runs, || Lanes::compute(&bank, LaneMode::Coverage));
    let (dump_ms, text) = best(runs, || regs::dump::debug_dump(&bank, &lanes));
    let (check_ms, _) = best(runs, || check::check(rk, &check_opts));
    println!(
        "{}: {} registers, {} classes, {} indices, dump {} bytes",
        file.display(),
        bank.registers.len(),
        bank.classes.len(),
        bank.sub_reg_indices.len(),
        text.len()
    );
    println!(
        "sub-register entries {}, composed entries {}, class members {}",
        bank.registers
            .iter()
            .map(|r| r.sub_regs.len())
            .sum::<usize>(),
        bank.sub_reg_indices
            .iter()
            .map(|i| i.composed.len())
            .sum::<usize>(),
        bank.classes.iter().map(|c| c.members.len()).sum::<usize>()
    );
    println!("load+evaluate (once)   {eval_ms:8.2} ms");
    println!("bank                   {bank_ms:8.2} ms");
    println!("lanes llvm             {llvm_ms:8.2} ms");
    println!("lanes coverage         {cov_ms:8.2} ms");
    println!("dump                   {dump_ms:8.2} ms");
    println!("check (bank+lanes+lints) {check_ms:6.2} ms");
    println!(
        "  lints (check - bank - both lanes) {:6.2} ms",
        check_ms - bank_ms - llvm_ms - cov_ms
    );
}
