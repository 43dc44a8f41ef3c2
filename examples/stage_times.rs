//! Times each stage of `regdesc dump` and `regdesc check` in one process,
//! repeating the stages after evaluation so their figures are stable:
//! the best of N runs of evaluation, the register bank, both lane modes,
//! the dump and the lints of `check`.
//!
//! `cargo run --release --example stage_times -- [-n RUNS] [-I DIR]... FILE`
//!
//! With `-s STAGE` (`eval`, `bank`, `lanes`, `dump`, `check`), runs only that
//! stage N times (after one evaluation), for profilers such as `perf record`.

use std::path::PathBuf;
use std::process::exit;
use std::time::Instant;

// As in `regdesc`.
regdesc_alloc::global_allocator!();

use regdesc_core::check::{self, CheckOptions};
use regdesc_core::driver::{self, Input};
use regdesc_core::lanes::{LaneMode, Lanes};
use regdesc_core::llvm_format::debug_dump;
use regdesc_core::regs::RegBank;

/// The best wall time of `runs` calls of `f` in milliseconds, and the last
/// value.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let t = Instant::now();
    let mut last = f();
    best = best.min(t.elapsed().as_secs_f64() * 1e3);
    for _ in 1..runs {
        let t = Instant::now();
        last = f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (best, last)
}

fn usage() -> ! {
    eprintln!("usage: stage_times [-n RUNS] [-s STAGE] [-I DIR]... FILE");
    exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut include_dirs = Vec::new();
    let mut runs = 5usize;
    let mut only: Option<String> = None;
    let mut file = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "-I" => include_dirs.push(PathBuf::from(args.next().unwrap_or_else(|| usage()))),
            "-n" => {
                runs = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "-s" => only = args.next(),
            _ => file = Some(PathBuf::from(a)),
        }
    }
    let Some(file) = file else { usage() };
    let mut input = Input::file(&file);
    input.include_dirs = include_dirs;
    let (eval_ms, run) = best(
        if only.as_deref() == Some("eval") {
            runs
        } else {
            1
        },
        || driver::records(&input),
    );
    let Some(rk) = run.records.as_ref() else {
        eprint!("{}", run.render(false));
        exit(1)
    };
    let bank = match RegBank::build(rk) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("stage_times: the register bank fails: {e}");
            exit(1)
        }
    };
    let check_opts = CheckOptions::default();
    if let Some(stage) = only {
        for _ in 0..runs {
            match stage.as_str() {
                "eval" => return,
                "bank" => drop(RegBank::build(rk)),
                "lanes" => drop(Lanes::compute(&bank, LaneMode::Llvm)),
                "dump" => drop(debug_dump(&bank, &Lanes::compute(&bank, LaneMode::Llvm))),
                "check" => drop(check::check(rk, &bank, None, &check_opts)),
                _ => usage(),
            }
        }
        return;
    }
    let (bank_ms, _) = best(runs, || RegBank::build(rk));
    let (llvm_ms, lanes) = best(runs, || Lanes::compute(&bank, LaneMode::Llvm));
    let (cov_ms, _) = best(runs, || Lanes::compute(&bank, LaneMode::Coverage));
    let (dump_ms, text) = best(runs, || debug_dump(&bank, &lanes));
    let (check_ms, _) = best(runs, || check::check(rk, &bank, None, &check_opts));
    println!(
        "{}: {} registers, {} classes, {} indices, dump {} bytes",
        file.display(),
        bank.registers.len(),
        bank.classes.len(),
        bank.sub_reg_indices.len(),
        text.len()
    );
    println!("load+evaluate          {eval_ms:8.2} ms");
    println!("bank                   {bank_ms:8.2} ms");
    println!("lanes llvm             {llvm_ms:8.2} ms");
    println!("lanes coverage         {cov_ms:8.2} ms");
    println!("dump                   {dump_ms:8.2} ms");
    println!("check lints (+lanes)   {check_ms:8.2} ms");
}
