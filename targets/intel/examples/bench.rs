//! The Intel back end's benchmark (BENCHMARKS.md): for every function of
//! the AMD bench (`../shared/bench/amdgpu/ll`, or the fixtures when it is
//! missing) that the back end compiles, per platform and SIMD width,
//! instructions per 8 lanes, GRFs used, and compile time (the median of
//! 9 runs of the whole pipeline).
//!
//! `cargo run --release -p regdesc-intel --example bench`

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use regdesc_codegen::pipeline::{compile_function, Options};
use regdesc_codegen::read_module;
use regdesc_intel::isa::Line;
use regdesc_intel::sim::parse::parse;
use regdesc_intel::swsb::{dst_bytes, src_bytes};
use regdesc_intel::{Gen, Platform, Simd};

fn main() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dir = here.join("../../../shared/bench/amdgpu/ll");
    if !dir.is_dir() {
        dir = here.join("../codegen/tests/fixtures");
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "ll"));
    files.sort();
    println!(
        "| function | platform | SIMD | instructions | per 8 lanes | GRFs used | compile time |"
    );
    println!("|---|---|---|---|---|---|---|");
    for p in files {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let Ok(m) = read_module(&p.display().to_string(), &text) else {
            continue;
        };
        for f in &m.functions {
            for platform in Platform::ALL {
                for simd in [Simd::Simd8, Simd::Simd16] {
                    let g = Gen::new(platform, simd);
                    let mut times: Vec<Duration> = Vec::new();
                    let mut asm = None;
                    for _ in 0..9 {
                        let t = Instant::now();
                        let r = compile_function(f, &g, &Options::default());
                        times.push(t.elapsed());
                        asm = r.ok().and_then(|c| c.asm);
                    }
                    let Some(asm) = asm else {
                        continue;
                    };
                    times.sort();
                    let Ok(lines) = parse(&asm) else {
                        continue;
                    };
                    let mut n = 0usize;
                    let mut grfs = BTreeSet::new();
                    for (_, l) in &lines {
                        if let Line::Inst(i) = l {
                            n += 1;
                            for s in &i.srcs {
                                grfs.extend(src_bytes(s, i.exec).into_iter().map(|b| b / 32));
                            }
                            if let Some(d) = &i.dst {
                                grfs.extend(dst_bytes(d, i.exec).into_iter().map(|b| b / 32));
                            }
                        }
                    }
                    let per8 = n as f64 / f64::from(simd.lanes() / 8);
                    println!(
                        "| @{} | {} | {} | {n} | {per8:.1} | {} | {:.2} ms |",
                        f.name,
                        platform.name(),
                        simd.lanes(),
                        grfs.len(),
                        times[times.len() / 2].as_secs_f64() * 1e3
                    );
                }
            }
        }
    }
}
