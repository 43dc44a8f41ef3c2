//! The column chains (product scanning) of [`super::lower_mul`]: one MAD
//! chain per result column, each on the accumulator the previous column
//! left ([`column_chains`]; module doc of [`super`]).

use regdesc_codegen::legalize::{Limb, MulPlan};

use super::sink::Sink;
use super::{limb, sum};

/// Divergent factors: one MAD chain per column (module doc).
pub(super) fn column_chains(plan: &MulPlan, b: &mut impl Sink) -> Vec<Limb> {
    let n = plan.limbs;
    let addend = plan.addend.clone().unwrap_or_default();
    let (fa, fb) = (&plan.a, &plan.b);
    // The top column first (its factors then die before the chains write
    // the result registers).
    // A 64-bit product whose column 0 is one MAD on a zero accumulator: a
    // top product of the same two factors (a constant whose limbs are
    // equal: `a0 * c1 == a0 * c0`) is that MAD's low half, `r0`.
    let pure =
        (n == 2 && plan.columns[0].len() == 1 && addend.iter().all(|l| *l == Limb::Const(0)))
            .then(|| plan.columns[0][0])
            .map(|(i, j)| (limb(fa, i), limb(fb, j)));
    let top = top_column(plan, b, pure);
    // carries[k]: carry bits (0/1 values) that belong to column k.
    let mut carries: Vec<Vec<Limb>> = vec![Vec::new(); n + 2];
    let mut r = vec![Limb::Const(0); n];
    // The accumulator of column 0.
    let mut lo = limb(&addend, 0);
    let mut hi = limb(&addend, 1);
    for k in 0..n - 1 {
        // Column k + 1's carries (from chain k - 1) join the high half;
        // the top column wraps, so its carries are plain adds.
        for c in std::mem::take(&mut carries[k + 1]) {
            let counter = k + 2 == n || limb(&addend, k + 1) == Limb::Const(0);
            hi = add_carry(b, hi, c, &mut carries[k + 2], counter);
        }
        for &(i, j) in &plan.columns[k] {
            let (x, y) = (limb(fa, i), limb(fb, j));
            let small = hi == Limb::Const(0);
            if small || k + 2 >= n {
                (lo, hi) = b.mad(x, y, lo, hi);
            } else {
                let (l, h, c) = b.mad_carry(x, y, lo, hi);
                (lo, hi) = (l, h);
                carries[k + 2].push(c);
            }
        }
        r[k] = lo;
        lo = hi;
        hi = limb(&addend, k + 2);
        if let (TopColumn::Seed(t), true) = (&top, k + 3 == n) {
            hi = b.add(hi, *t);
        }
    }
    // Column n - 1: what the last chain left (its carries were counted
    // into it), plus the low products when they were not a seed.
    r[n - 1] = match top {
        TopColumn::Seed(_) => lo,
        TopColumn::Products(p, low_halves) => {
            let mut vals = vec![lo];
            vals.extend(p);
            vals.extend(std::iter::repeat_n(r[0], low_halves));
            sum(b, &vals)
        }
    };
    r
}

/// How the top column's partial products enter the sum.
enum TopColumn {
    /// Their sum, added into the accumulator of column `n - 2` (so the
    /// last chain's high half is the top limb).
    Seed(Limb),
    /// Plain low products, summed with what the last chain left, and how
    /// many more products are column 0's low half (`r0`).
    Products(Vec<Limb>, usize),
}

/// The top column's partial products. From three limbs on they are one
/// MAD chain whose low half only is read (`v_mad_u64_u32`'s low half is
/// `lo(a * b) + acc_lo` whatever the high half of the accumulator holds,
/// so the chain's own high half is the "junk" half the next MAD reads):
/// `m` products take `m` instructions, where `v_mul_lo_u32` and
/// `v_add3_u32` take `m + m / 2`, and the sum seeds column `n - 2`'s
/// counter instead of being added at the end. Two limbs (a 64-bit
/// multiply) keep the plain products: there the seed would land in
/// column 0's accumulator, which is a constant pair otherwise; a product
/// of the factors `pure` (column 0's only MAD, on a zero accumulator) is
/// that MAD's low half and is not multiplied again.
fn top_column(plan: &MulPlan, b: &mut impl Sink, pure: Option<(Limb, Limb)>) -> TopColumn {
    let n = plan.limbs;
    let (fa, fb) = (&plan.a, &plan.b);
    let col = &plan.columns[n - 1];
    if n < 3 || col.is_empty() || (col.len() < 2 && n > 3) {
        // `a_i * b_j` and `a_j * b_i` of a square are one product.
        let mut done: Vec<((Limb, Limb), Limb)> = Vec::new();
        let mut products = Vec::with_capacity(col.len());
        let mut low_halves = 0;
        for &(i, j) in col {
            let (x, y) = (limb(fa, i), limb(fb, j));
            if pure.is_some_and(|f| f == (x, y) || f == (y, x)) {
                low_halves += 1;
                continue;
            }
            let p = match done.iter().find(|(f, _)| *f == (x, y) || *f == (y, x)) {
                Some(&(_, p)) => p,
                None => {
                    let p = b.mul(x, y);
                    done.push(((x, y), p));
                    p
                }
            };
            products.push(p);
        }
        return TopColumn::Products(products, low_halves);
    }
    if let [(i, j)] = col[..] {
        // One product (a three-limb product of a one-limb factor): its low
        // half seeds column 1's chain, whose high half is then `r_2`.
        return TopColumn::Seed(b.mul(limb(fa, i), limb(fb, j)));
    }
    let (mut lo, mut hi) = (Limb::Const(0), Limb::Const(0));
    for &(i, j) in col {
        (lo, hi) = b.mad(limb(fa, i), limb(fb, j), lo, hi);
    }
    TopColumn::Seed(lo)
}

/// `hi + c` for carry bit `c`: a counter that cannot overflow when it
/// started at zero (`counter`), else a carry-in add whose own carry goes
/// to the next column.
fn add_carry(b: &mut impl Sink, hi: Limb, c: Limb, next: &mut Vec<Limb>, counter: bool) -> Limb {
    if counter {
        return b.add(hi, c);
    }
    let (s, co) = b.uadde(hi, Limb::Const(0), c);
    if co != Limb::Const(0) {
        next.push(co);
    }
    s
}
