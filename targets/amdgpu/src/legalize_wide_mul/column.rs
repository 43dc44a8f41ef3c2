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
    // The addend's top limb starts the top column's chain, whose sum
    // then replaces it in column n - 2's accumulator (no add).
    let top_addend = limb(&addend, n - 1);
    let top = top_column(plan, b, pure, top_addend);
    let seeded_with_addend =
        matches!(top, TopColumn::Seed(_)) && matches!(top_addend, Limb::Reg(_));
    // carries[k]: carry bits (0/1 values) that belong to column k.
    let mut carries: Vec<Vec<Limb>> = vec![Vec::new(); n + 2];
    let mut r = vec![Limb::Const(0); n];
    // The accumulator of column 0.
    let mut lo = limb(&addend, 0);
    let mut hi = match top {
        TopColumn::Seed(t) if n == 2 => t,
        _ => limb(&addend, 1),
    };
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
            hi = if seeded_with_addend {
                *t
            } else {
                b.add(hi, *t)
            };
        }
    }
    // Column n - 1: what the last chain left (its carries were counted
    // into it), plus the low products when they were not a seed.
    r[n - 1] = match top {
        TopColumn::Seed(_) => lo,
        TopColumn::Products(p, low_halves, negated) => {
            let mut vals = vec![lo];
            vals.extend(p);
            vals.extend(std::iter::repeat_n(r[0], low_halves));
            let s = sum(b, &vals);
            negated.into_iter().fold(s, |s, x| b.sub(s, x))
        }
    };
    r
}

/// A 64-bit product (or multiply-add) whose top column comes after column
/// 0's MAD, as a MAD chain on `(hi, anything)`: `v_mad_u64_u32`'s low half
/// is `lo(x * y) + acc_lo` whatever the accumulator's high half holds, so
/// `r_1 = hi(a_0 b_0 + c) + lo(a_0 b_1) + ...` is one MAD per top product,
/// where the plain products take a `v_mul_lo_u32` each and the adds after
/// them (`zext i16` times an `i63`: 2 against 3, llc 19's 2). The pair
/// `(hi, anything)` is the high register of column 0's MAD pair and the one
/// after it, so the top MADs read the factors after column 0 wrote its
/// pair: where that pair is the result registers over a factor the
/// factor's limb is copied first, which [`super::cost`] counts.
pub(super) fn top_after_chains(plan: &MulPlan, b: &mut impl Sink) -> Vec<Limb> {
    let addend = plan.addend.clone().unwrap_or_default();
    let (fa, fb) = (&plan.a, &plan.b);
    let (mut lo, mut hi) = (limb(&addend, 0), limb(&addend, 1));
    for &(i, j) in &plan.columns[0] {
        (lo, hi) = b.mad(limb(fa, i), limb(fb, j), lo, hi);
    }
    let r0 = lo;
    let mut acc = (hi, b.undef());
    for &(i, j) in &plan.columns[1] {
        acc = b.mad(limb(fa, i), limb(fb, j), acc.0, acc.1);
    }
    vec![r0, acc.0]
}

/// Whether [`top_after_chains`] lowers `plan`: two limbs with top products
/// and at most one MAD in column 0 (more would carry into the top limb).
pub(super) fn top_after_applies(plan: &MulPlan) -> bool {
    plan.limbs == 2 && plan.columns[0].len() <= 1 && !plan.columns[1].is_empty()
}

/// How the top column's partial products enter the sum.
enum TopColumn {
    /// Their sum, added into the accumulator of column `n - 2` (so the
    /// last chain's high half is the top limb).
    Seed(Limb),
    /// Plain low products, summed with what the last chain left, how
    /// many more products are column 0's low half (`r0`), and the values
    /// whose product with the limb `0xffff_ffff` (that is, `-1`) is
    /// subtracted instead (`v_sub_u32`, where a multiply and an add would
    /// be two: a 64-bit multiply-add by `-5` 5 against 4, llc 14's 4).
    Products(Vec<Limb>, usize, Vec<Limb>),
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
///
/// A register `acc` (the addend's top limb) starts the chain, so the
/// seed holds it: `r_1 = lo(a_1 b_0 + c_1) + hi(a_0 b_0 + c_0)` is then
/// two MADs, the top one first on `(c_1, anything)` and column 0's on
/// `(c_0, seed)`, where the plain product takes a `v_mul_lo_u32` and an
/// add after column 0's MAD (a 64-bit multiply-add by a `zext i32`: 2
/// against 3 on gfx1030, llc 19's 2 on SGPR arguments). Not where pairs
/// start at even registers (gfx90a): there `(c_0, seed)` is a pair only
/// when the addend arrived at an even VGPR and the seed's MAD pair lands
/// over `c_1`, and otherwise costs two copies (measured over 17 seeds of
/// `gen_wide_mul_shapes.py`: 26 multiply-adds longer on gfx90a). Nor
/// where the seed's pair would land over another argument (a second
/// addend after `c`: it would be moved) or over an SGPR (a uniform
/// addend: the pair would be copied).
fn top_column(
    plan: &MulPlan,
    b: &mut impl Sink,
    pure: Option<(Limb, Limb)>,
    acc: Limb,
) -> TopColumn {
    let n = plan.limbs;
    let (fa, fb) = (&plan.a, &plan.b);
    let col = &plan.columns[n - 1];
    let acc_reg = matches!(acc, Limb::Reg(_));
    let two_limb_seed = n == 2
        && acc_reg
        && !b.aligned_pairs()
        && b.pair_fits_over(acc)
        && !col.is_empty()
        && !negate_wins(plan, pure, b);
    if !two_limb_seed && (n < 3 || col.is_empty() || (col.len() < 2 && n > 3)) {
        // `a_i * b_j` and `a_j * b_i` of a square are one product.
        let mut done: Vec<((Limb, Limb), Limb)> = Vec::new();
        let mut products = Vec::with_capacity(col.len());
        let mut low_halves = 0;
        let mut negated = Vec::new();
        let negate = negate_wins(plan, pure, b);
        for &(i, j) in col {
            let (x, y) = (limb(fa, i), limb(fb, j));
            if pure.is_some_and(|f| f == (x, y) || f == (y, x)) {
                low_halves += 1;
                continue;
            }
            match (x, y) {
                (Limb::Const(u32::MAX), v) | (v, Limb::Const(u32::MAX)) if negate => {
                    negated.push(v);
                    continue;
                }
                _ => {}
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
        return TopColumn::Products(products, low_halves, negated);
    }
    if let (&[(i, j)], false) = (&col[..], n == 2) {
        // One product (a three-limb product of a one-limb factor): its low
        // half seeds column 1's chain, whose high half is then `r_2`. Where
        // no result returns over a factor (a kernel's stored tuple), it is
        // a MAD's low half, so that column 1's accumulator is the middle
        // pair of column 0's MAD pair and this one (`straddle` in
        // `select.rs`: no copy where pairs start anywhere; an `i96` kernel
        // times a loaded `i32` 10 against 9, llc 19 GlobalISel's 9). Over
        // a factor the two pairs would have to sit side by side in the
        // factor's registers, and the plain product takes one register.
        let (x, y) = (limb(fa, i), limb(fb, j));
        if !plan.result_over_factor {
            let hi = if acc_reg { b.undef() } else { Limb::Const(0) };
            return TopColumn::Seed(b.mad(x, y, acc, hi).0);
        }
        let p = b.mul(x, y);
        return TopColumn::Seed(if acc_reg { b.add(p, acc) } else { p });
    }
    let (mut lo, mut hi) = if acc_reg {
        (acc, b.undef())
    } else {
        (Limb::Const(0), Limb::Const(0))
    };
    for &(i, j) in col {
        (lo, hi) = b.mad(limb(fa, i), limb(fb, j), lo, hi);
    }
    TopColumn::Seed(lo)
}

/// Whether the plain top products by the limb `0xffff_ffff` are
/// subtracted ([`TopColumn::Products`]). The sum of `m` values is
/// `(m - 1) / 2` rounded up `v_add3_u32`s, so with `p` products, `k` of
/// them by that limb, and `l` more terms, the products cost `p + (p + l)
/// / 2` (rounded up) and the subtractions `p - k + (p - k + l) / 2 + k`:
/// fewer only when they leave an odd number of terms behind (one product,
/// by `-1`: one `v_sub_u32` against a multiply and an add). The value
/// subtracted is read last, so where the result returns over a factor
/// and the value is a factor limb as it arrived (which may then be moved
/// away) the saving must be two; a value computed here (the sign limb of
/// a `sext i32`) goes where the allocator likes (a `sext i32` times
/// `0xffff_ffff`: 3, llc's 3, against 4).
fn negate_wins(plan: &MulPlan, pure: Option<(Limb, Limb)>, b: &impl Sink) -> bool {
    let col = &plan.columns[plan.limbs - 1];
    let factors = |&(i, j): &(usize, usize)| (limb(&plan.a, i), limb(&plan.b, j));
    let is_pure = |f: (Limb, Limb)| pure.is_some_and(|p| p == f || p == (f.1, f.0));
    let l = col.iter().filter(|p| is_pure(factors(p))).count();
    let p = col.len() - l;
    let k = col
        .iter()
        .map(factors)
        .filter(|&f| !is_pure(f) && (f.0 == Limb::Const(u32::MAX) || f.1 == Limb::Const(u32::MAX)))
        .count();
    let products = p + (p + l).div_ceil(2);
    let subtracted = (p - k) + (p - k + l).div_ceil(2) + k;
    let arrived = col.iter().map(factors).any(|(x, y)| {
        (x == Limb::Const(u32::MAX) && b.arrived(y)) || (y == Limb::Const(u32::MAX) && b.arrived(x))
    });
    let need = if plan.result_over_factor && arrived {
        2
    } else {
        1
    };
    subtracted + need <= products
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
