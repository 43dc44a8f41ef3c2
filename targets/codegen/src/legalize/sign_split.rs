//! Factors that are sign extensions of fewer limbs (`sext i64 to i256`,
//! `ashr`, negative constants such as `-5`): their high limbs are all
//! copies of the sign, so every partial product with one of them is
//! either zero or the other factor negated, and a schoolbook multiply
//! spends a multiply-add on each. Writing `x = xl - sx * 2^(32m)` (`xl`
//! the low `m` limbs, unsigned; `sx` the sign bit), the product is
//!
//! `x * y = xl * yl - sy * (xl << 32k) - sx * (y << 32m)`
//!
//! (`y = yl - sy * 2^(32k)` likewise, `y` in the last term whole): the
//! multiply of the low limbs, whose high limbs are then known zero, and one
//! subtraction per sign-extended factor of the other factor masked by the
//! sign limb (`0` or `0xffffffff`), one `and` and one subtract-with-borrow
//! per limb. A fused addend stays in the multiply.

use crate::ir::BinOp;
use crate::legalize::mul::MulPlan;
use crate::legalize::{wide, Limb, MirBuilder};

fn limb(v: &[Limb], k: usize) -> Limb {
    v.get(k).copied().unwrap_or(Limb::Const(0))
}

/// The plan's factors with their sign limbs cleared, and how many limbs
/// each keeps (`None`: not split), when splitting saves instructions.
fn split_of(plan: &MulPlan) -> Option<(MulPlan, [Option<usize>; 2])> {
    let n = plan.limbs;
    if plan.signed_32x32() {
        // One signed 32x32 multiply (`V_MAD_I64_I32`) is the whole product.
        return None;
    }
    // A factor whose sign limb is known zero is zero-extended: its high
    // limbs have no partial products already.
    let split = |from: usize, v: &[Limb]| {
        (from < v.len().min(n) && v[from] != Limb::Const(0)).then_some(from)
    };
    let m = [
        split(plan.sign_limbs[0], &plan.a),
        split(plan.sign_limbs[1], &plan.b),
    ];
    if m == [None, None] {
        return None;
    }
    // Partial products that read a sign limb, against the corrections: a
    // subtraction per limb from the shift up, and an `and` per distinct
    // limb of the other factor unless the sign is known to be set.
    let saved = plan
        .columns
        .iter()
        .flatten()
        .filter(|&&(i, j)| m[0].is_some_and(|ma| i >= ma) || m[1].is_some_and(|mb| j >= mb))
        .count();
    let cost = |at: Option<usize>, sign: &[Limb], other: &[Limb]| {
        let Some(at) = at else { return 0 };
        let ands = if sign[at] == Limb::Const(u32::MAX) {
            0
        } else {
            let mut seen: Vec<Limb> = other[..other.len().min(n - at)]
                .iter()
                .filter(|l| !matches!(l, Limb::Const(_)))
                .copied()
                .collect();
            seen.dedup();
            seen.len()
        };
        (n - at) + ands
    };
    // Up to three limbs the target's own handling of the few sign
    // products (constants, top-column products) is as short: `i96` times
    // `-1234567` is one instruction longer split.
    if n < 4 || saved <= cost(m[0], &plan.a, &plan.b) + cost(m[1], &plan.b, &plan.a) {
        return None;
    }
    let low = |v: &[Limb], keep: Option<usize>| -> Vec<Limb> {
        let mut v = v.to_vec();
        if let Some(k) = keep {
            for l in &mut v[k..] {
                *l = Limb::Const(0);
            }
        }
        v
    };
    let mut p = MulPlan::new(
        low(&plan.a, m[0]),
        low(&plan.b, m[1]),
        plan.addend.clone(),
        n,
        plan.uniform,
    )
    .with_result_over_factor(plan.result_over_factor);
    // The low parts are unsigned: no sign fact carries over (`sext32` is
    // false in a new plan).
    p.sign_limbs = [p.a.len(), p.b.len()];
    Some((p, m))
}

/// The product of `plan` with its sign-extended factors split (module
/// doc): `lower` builds the multiply of the low limbs. `None`: no factor
/// is split, or splitting would not save instructions.
pub fn lower_sign_split(
    plan: &MulPlan,
    b: &mut MirBuilder<'_>,
    lower: &mut dyn FnMut(&MulPlan, &mut MirBuilder<'_>) -> Vec<Limb>,
) -> Option<Vec<Limb>> {
    let (low, m) = split_of(plan)?;
    let n = plan.limbs;
    let mut r = lower(&low, b);
    r.resize(n, Limb::Const(0));
    // - sy * (xl << 32 mb): x's low limbs (all of x when it is not split).
    if let Some(mb) = m[1] {
        let sign = limb(&plan.b, mb);
        let xl: Vec<Limb> = (0..n - mb).map(|j| limb(&low.a, j)).collect();
        subtract_masked(b, &mut r, mb, &xl, sign);
    }
    // - sx * (y << 32 ma): the whole of y, sign limbs included.
    if let Some(ma) = m[0] {
        let sign = limb(&plan.a, ma);
        let y: Vec<Limb> = (0..n - ma).map(|j| limb(&plan.b, j)).collect();
        subtract_masked(b, &mut r, ma, &y, sign);
    }
    Some(r)
}

/// `r -= (v & sign) << 32 at`, on the limbs of `r` from `at` up.
fn subtract_masked(b: &mut MirBuilder<'_>, r: &mut [Limb], at: usize, v: &[Limb], sign: Limb) {
    if sign == Limb::Const(0) {
        return;
    }
    // One `and` per distinct limb (the sign limbs of `v` repeat).
    let mut done: Vec<(Limb, Limb)> = Vec::new();
    let masked: Vec<Limb> = v
        .iter()
        .map(|&l| match done.iter().find(|(x, _)| *x == l) {
            Some(&(_, m)) => m,
            None => {
                let m = b.bin(BinOp::And, l, sign);
                done.push((l, m));
                m
            }
        })
        .collect();
    // Zero limbs at the bottom subtract nothing and borrow nothing.
    let first = masked.iter().position(|l| *l != Limb::Const(0));
    let Some(first) = first else {
        return;
    };
    let from = at + first;
    let top = &r[from..];
    let w = 32 * top.len() as u32;
    let d = wide::sub(b, top, &masked[first..], w);
    r[from..].copy_from_slice(&d);
}
