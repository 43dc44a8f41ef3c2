//! The simulator on assembly it did not emit: the shared bench's IGA
//! examples (`../shared/bench/intel/iga`, 64-bit adds as IGC writes
//! them). The SoA, AoS (accumulator as an `add` source, `<2>` regions) and
//! Gen9 `:q` forms run and give 64-bit sums; the forms outside the
//! simulated subset (`(ov)` flags) are errors naming the line, not panics.

mod common;

use std::path::Path;

use regdesc_codegen::rng::Rng;
use regdesc_intel::isa::Line;
use regdesc_intel::sim::{parse::parse, run, SimError, Thread};

fn example(name: &str) -> Option<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/bench/intel/iga")
        .join(name);
    let t = std::fs::read_to_string(&p).ok();
    if t.is_none() {
        assert!(
            !common::require_oracles(),
            "{} is missing and REGDESC_REQUIRE_ORACLES is set",
            p.display()
        );
        println!("SKIPPED: {} is missing", p.display());
    }
    t
}

fn lines(text: &str) -> Result<Vec<Line>, SimError> {
    Ok(parse(text)?.into_iter().map(|(_, l)| l).collect())
}

/// Runs `text` on random halves; `get(lane)` reads (a, b, c) back.
fn check_sum(
    text: &str,
    put: impl Fn(&mut Thread, u32, u64, u64),
    get: impl Fn(&Thread, u32) -> u64,
) {
    let code = lines(text).expect("the example parses");
    let mut rng = Rng::new(0xadd64);
    for _ in 0..200 {
        let mut t = Thread::new(0xff);
        let mut want = Vec::new();
        for lane in 0..8 {
            let (a, b) = (rng.next(), rng.next());
            put(&mut t, lane, a, b);
            want.push(a.wrapping_add(b));
        }
        run(&mut t, &code, 100).expect("runs");
        for (lane, w) in want.iter().enumerate() {
            assert_eq!(get(&t, lane as u32), *w, "lane {lane}");
        }
    }
}

fn ud(t: &Thread, nr: u32, k: u32) -> u64 {
    u64::from(t.read_ud((nr * 32 + k * 4) as usize))
}

fn put_ud(t: &mut Thread, nr: u32, k: u32, v: u32) {
    t.write_ud((nr * 32 + k * 4) as usize, v);
}

#[test]
fn soa_add64_through_the_accumulator() {
    let Some(text) = example("add64_acc.asm") else {
        return;
    };
    check_sum(
        &text,
        |t, l, a, b| {
            put_ud(t, 20, l, a as u32);
            put_ud(t, 21, l, (a >> 32) as u32);
            put_ud(t, 22, l, b as u32);
            put_ud(t, 23, l, (b >> 32) as u32);
        },
        |t, l| ud(t, 30, l) | ud(t, 31, l) << 32,
    );
}

#[test]
fn aos_add64_with_strided_regions() {
    let Some(text) = example("add64_aos.asm") else {
        return;
    };
    check_interleaved_sum(&text);
}

#[test]
fn native_qword_add_on_interleaved_qwords() {
    let Some(text) = example("add64_q.asm") else {
        return;
    };
    check_interleaved_sum(&text);
}

#[test]
fn forms_outside_the_subset_are_located_errors() {
    // `(ov)` flags, line 4.
    let Some(text) = example("add64_flag.asm") else {
        return;
    };
    match lines(&text) {
        Err(SimError::Parse { line, .. }) => assert_eq!(line, 4),
        other => panic!("add64_flag.asm: {other:?}"),
    }
}

/// [`check_sum`] with each lane's qword at dwords `2l`, `2l + 1` of
/// r20..r21 (the second addend at r22.., the sum at r30..).
fn check_interleaved_sum(text: &str) {
    let at = |base: u32, l: u32, hi: u32| (base + (2 * l + hi) / 8, (2 * l + hi) % 8);
    check_sum(
        text,
        |t, l, a, b| {
            for (base, v) in [(20, a), (22, b)] {
                let (nr, k) = at(base, l, 0);
                put_ud(t, nr, k, v as u32);
                let (nr, k) = at(base, l, 1);
                put_ud(t, nr, k, (v >> 32) as u32);
            }
        },
        |t, l| {
            let (nr, k) = at(30, l, 0);
            let (nh, kh) = at(30, l, 1);
            ud(t, nr, k) | ud(t, nh, kh) << 32
        },
    );
}
