//! The Gen simulator running the emitted assembly against the reference
//! IR interpreter: every supported function of the fixtures and of the AMD
//! bench, for gen9, gen11 and gen12lp at SIMD8 and SIMD16, on random inputs
//! (`REGDESC_PROPTEST_CASES` per function, platform and width; 300 by
//! default). Unsupported functions are listed with their reason.

mod common;

use regdesc_codegen::differential::random_value;
use regdesc_codegen::interp::{self, GlobalMemory, LaneArg, Launch};
use regdesc_codegen::rng::Rng;
use regdesc_codegen::value::{ScalarValue, Value};
use regdesc_intel::sim::sim_intel;

/// Equal bits, or NaN against NaN (LLVM leaves NaN bits unspecified, so
/// NaNs compare by class only; Gen's default NaN is `0x7FC00000`).
fn same(a: &Option<Value>, b: &Option<Value>) -> bool {
    fn nan(s: &ScalarValue) -> bool {
        match s {
            ScalarValue::Half(h) => h.is_nan(),
            ScalarValue::Float(f) => f.is_nan(),
            ScalarValue::Int(_) => false,
        }
    }
    fn scalar_same(x: &ScalarValue, y: &ScalarValue) -> bool {
        let bits = |s: &ScalarValue| match s {
            ScalarValue::Half(h) => u64::from(h.to_bits()),
            ScalarValue::Float(f) => u64::from(f.to_bits()),
            ScalarValue::Int(i) => Value::Int(*i).to_bits().as_limbs()[0],
        };
        (nan(x) && nan(y)) || bits(x) == bits(y)
    }
    match (a, b) {
        (None, None) => true,
        (Some(Value::Vec2(x)), Some(Value::Vec2(y))) => {
            scalar_same(&x[0], &y[0]) && scalar_same(&x[1], &y[1])
        }
        (Some(Value::Half(x)), Some(Value::Half(y))) => {
            (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
        }
        (Some(Value::Float(x)), Some(Value::Float(y))) => {
            (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits()
        }
        (Some(x), Some(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

#[test]
fn simulation_equals_interpretation() {
    let mods = common::modules();
    let (compiled, rejected) = common::compile_all(&mods);
    for (name, e) in &rejected {
        println!("unsupported: {name}: {e}");
    }
    let n = common::inputs();
    let mut total = 0usize;
    let mut skipped = 0usize;
    for c in &compiled {
        let f = c.f;
        let width = u32::from(c.simd.lanes());
        let mut rng = Rng::new(0x1e7e1 ^ u64::from(width));
        // A partial thread, a full one, and two threads (the second
        // partial), in turn.
        let shapes = [width - 1, width, 2 * width + 3];
        let launches = n.div_ceil(width as usize);
        for k in 0..launches {
            let lanes = shapes[k % shapes.len()];
            let args: Vec<LaneArg> = f
                .params
                .iter()
                .map(|p| {
                    let ty = f.value(*p).ty;
                    if f.cconv.is_kernel() {
                        LaneArg::Uniform(random_value(&mut rng, ty))
                    } else {
                        LaneArg::PerLane((0..lanes).map(|_| random_value(&mut rng, ty)).collect())
                    }
                })
                .collect();
            let launch = Launch {
                lanes,
                args,
                first_workitem: 0,
                workgroup_id: 0,
                workgroup_size: None,
                max_steps: 100_000,
            };
            let mut mem = GlobalMemory::new(0);
            let Ok(want) = interp::run(f, &launch, &mut mem) else {
                skipped += lanes as usize;
                continue;
            };
            let got = sim_intel(&c.asm, f, &launch).unwrap_or_else(|e| {
                panic!(
                    "{} @{} {:?} {:?}: simulation failed: {e}\n{}",
                    c.file, f.name, c.platform, c.simd, c.asm
                )
            });
            for (w, g) in want.iter().zip(&got) {
                if !same(&w.ret, &g.ret) {
                    let args: Vec<String> = launch
                        .args
                        .iter()
                        .map(|a| {
                            a.for_lane(w.lane)
                                .map_or_else(String::new, |v| format!("--arg \"{} {v}\"", v.ty()))
                        })
                        .collect();
                    panic!(
                        "{} @{} on {:?} {:?}, lane {}: IR {:?}, simulator {:?}\n  args: {}\n{}",
                        c.file,
                        f.name,
                        c.platform,
                        c.simd,
                        w.lane,
                        w.ret.map(|v| v.to_string()),
                        g.ret.map(|v| v.to_string()),
                        args.join(" "),
                        c.asm
                    );
                }
                total += 1;
            }
        }
    }
    println!(
        "{} compiled (function x platform x SIMD), {total} lanes compared, {skipped} skipped (no defined IR result), 0 mismatches; {} functions unsupported",
        compiled.len(),
        rejected.len()
    );
    assert!(!compiled.is_empty());
}
