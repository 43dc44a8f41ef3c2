//! The split chains (D124844's odd/even split) of [`super::lower_mul`]:
//! one MAD chain per column on its own register pair, the chains of one
//! parity tiling a number, the numbers added at the end
//! ([`split_chains`]), and the same with a fused addend on the odd chains
//! ([`odd_addend_chains`]).

use regdesc_codegen::legalize::{Limb, MulPlan};

use super::sink::Sink;
use super::{limb, sum};

/// The largest accumulator a MAD may take without a carry out of bit
/// 63: `(2^32 - 1)^2 + (2^33 - 2) = 2^64 - 1`.
const NO_CARRY_ACC: u64 = (1 << 33) - 2;

/// Divergent factors, split chains (D124844's odd/even split, module
/// doc): one MAD chain per column `j < n - 1` on its own pair `(j, j +
/// 1)`, so chains of one parity tile a number and the two numbers (and
/// the top column's low sum) are added at the end. Every pair starts at
/// an even register whatever the column, and no result register is
/// written before the last additions, so no factor limb is moved.
///
/// Carries out of chain `j` belong to column `j + 2`. Chain `j`'s
/// accumulator takes column `j`'s carries as a counter in its low half
/// and, when the low half is not zero anyway, column `j + 1`'s in its high
/// half (the alternative, a zero high half, is one `v_mov` too; a high
/// half of at most 1 with a small low half cannot make the first MAD
/// carry). The top column's carries are added in the last addition.
/// Chain 0 is emitted last: it writes the pair holding `r_0`, where the
/// first factor's two lowest limbs arrived. A fused addend's limb pairs
/// are the accumulators of the even chains (they tile it; its top limb,
/// for an odd number of limbs, joins the last addition), and the odd
/// chains take both counters.
pub(super) fn split_chains(plan: &MulPlan, b: &mut impl Sink) -> Vec<Limb> {
    split_chains_on(plan, b, None).0
}

/// A fused addend after the product ([`split_chains`] of the factors
/// alone), except its lowest two limbs: they are the accumulator of chain
/// 0, which is emitted last, and its carry (out of bit 63, into column 2)
/// is the carry-in of the addition of the addend's other limbs, which
/// starts at column 2 (module doc).
pub(super) fn low_addend_chains(plan: &MulPlan, b: &mut impl Sink) -> Vec<Limb> {
    let n = plan.limbs;
    let addend: Vec<Limb> = (0..n)
        .map(|k| {
            plan.addend
                .as_deref()
                .map_or(Limb::Const(0), |a| limb(a, k))
        })
        .collect();
    let mut alone = plan.clone();
    alone.addend = None;
    let (mut r, mut cy) = split_chains_on(&alone, b, Some((addend[0], addend[1])));
    for k in 2..n {
        (r[k], cy) = b.uadde(r[k], addend[k], cy);
    }
    r
}

/// [`split_chains`], chain 0 on the accumulator `low` when given (then
/// with no addend in `plan`), and chain 0's carry into column 2 when it
/// is not added in (with `low` only).
fn split_chains_on(
    plan: &MulPlan,
    b: &mut impl Sink,
    low: Option<(Limb, Limb)>,
) -> (Vec<Limb>, Limb) {
    let n = plan.limbs;
    // carries[k]: carry bits (0/1 values) that belong to column k.
    let mut carries: Vec<Vec<Limb>> = vec![Vec::new(); n + 2];
    // pairs[j]: chain j's (low, high) halves.
    let mut pairs = vec![(Limb::Const(0), Limb::Const(0)); n - 1];
    let mut memo = Products::new();
    let addend = plan.addend.as_deref();
    // Chain 0 last when it carries into no later chain: with no addend,
    // or with three limbs, where its carries belong to the top column
    // (added in the last addition) and chain 1 takes no counter.
    let order: Vec<usize> = match addend {
        Some(_) if n > 3 => (0..n - 1).collect(),
        _ => (1..n - 1).chain(std::iter::once(0)).collect(),
    };
    // The top column's sum, right before chain 0 (which writes the first
    // factor's registers), after the chains whose products it may reuse.
    let mut top = None;
    for j in order {
        if j == 0 {
            top = Some(top_sum(plan, b, &memo));
        }
        let base = match addend {
            Some(a) if j % 2 == 0 => Some((limb(a, j), limb(a, j + 1))),
            _ if j == 0 => low,
            _ => None,
        };
        // With an addend the even chains take its limbs, so an odd chain
        // takes column j + 1's carries whatever its low half (the top
        // column's are added in the last addition instead).
        let hi_always = addend.is_some() && j + 2 < n;
        pairs[j] = split_chain(plan, b, &mut carries, &mut memo, j, base, hi_always);
    }
    // Chain 0 came last: with `low`, its carries are all that column 2
    // holds now.
    let low_carry = match low {
        Some(_) => {
            let c = std::mem::take(&mut carries[2]);
            sum(b, &c)
        }
        None => Limb::Const(0),
    };
    let top = top.unwrap_or(Limb::Const(0));
    let mut r = vec![pairs[0].0];
    r.extend(add_columns(b, &pairs, top, &mut carries, 1, Limb::Const(0)));
    if let (Some(a), true) = (addend, (n - 1).is_multiple_of(2)) {
        // The addend's top limb when no even chain's pair reaches it.
        r[n - 1] = b.add(r[n - 1], limb(a, n - 1));
    }
    (r, low_carry)
}

/// The final additions from column `from` up, the first taking the carry
/// `cy`: column `k` holds chain `k`'s low half (the top sum for `k = n -
/// 1`) and chain `k - 1`'s high half. Only the top column's carries are
/// left in `carries` (the chains took the others); the top limb wraps, so
/// they are plain adds.
fn add_columns(
    b: &mut impl Sink,
    pairs: &[(Limb, Limb)],
    top: Limb,
    carries: &mut [Vec<Limb>],
    from: usize,
    mut cy: Limb,
) -> Vec<Limb> {
    let n = pairs.len() + 1;
    let mut r = Vec::with_capacity(n - from);
    for k in from..n {
        let own = if k + 1 == n { top } else { pairs[k].0 };
        let (mut s, c) = b.uadde(own, pairs[k - 1].1, cy);
        cy = c;
        for c in std::mem::take(&mut carries[k]) {
            s = b.add(s, c);
        }
        r.push(s);
    }
    r
}

/// The top column's sum of low products: one MAD chain whose low half
/// only is read, or a plain product.
fn top_sum(plan: &MulPlan, b: &mut impl Sink, memo: &Products) -> Limb {
    let (fa, fb) = (&plan.a, &plan.b);
    let col = &plan.columns[plan.limbs - 1];
    let factors = |&(i, j): &(usize, usize)| (limb(fa, i), limb(fb, j));
    // A product a chain already made on a zero accumulator: its low half
    // starts the sum (the top column reads low halves only).
    let (made, start) = col
        .iter()
        .enumerate()
        .find_map(|(k, p)| {
            let (x, y) = factors(p);
            made_product(memo, x, y).map(|pair| (Some(k), Some(pair)))
        })
        .unwrap_or((None, None));
    let rest = col.iter().enumerate().filter(|(k, _)| Some(*k) != made);
    if col.len() >= 2 {
        let (mut lo, mut hi) = start.unwrap_or((Limb::Const(0), Limb::Const(0)));
        for (_, p) in rest {
            let (x, y) = factors(p);
            (lo, hi) = b.mad(x, y, lo, hi);
        }
        lo
    } else {
        let mut p: Vec<Limb> = start.map(|(lo, _)| lo).into_iter().collect();
        for (_, q) in rest {
            let (x, y) = factors(q);
            p.push(b.mul(x, y));
        }
        sum(b, &p)
    }
}

/// A fused addend where register pairs may start anywhere (gfx9 but
/// gfx90a, gfx10): the split chains of [`split_chains`] with the addend
/// on the odd chains instead, so that chain 0 comes last and writes the
/// result registers `(r_0, r_1)` after every other read of the first
/// factor's limbs (which arrived there). Odd chain `j` starts from the
/// addend's pair `(c_j, c_{j+1})`, in the registers where it arrived; even
/// chains from 2 on take the counters of their two columns' carries;
/// chain 0's accumulator is `(c_0, ` chain 1's low half`)`, the two
/// registers where `c_0` and `c_1` arrived, so its MAD adds column 1's sum
/// too and gives `r_0` and `r_1` at once. Its carry belongs to column 2
/// and is the carry-in of the final additions, which start there.
pub(super) fn odd_addend_chains(plan: &MulPlan, b: &mut impl Sink) -> Vec<Limb> {
    let n = plan.limbs;
    let (fa, fb) = (&plan.a, &plan.b);
    let addend = plan.addend.as_deref().unwrap_or(&[]);
    // The top column first here: after the chains it reuses their
    // products but lengthens `mad96` (8 against 7) by where it then lives.
    let top = top_sum(plan, b, &Products::new());
    let mut carries: Vec<Vec<Limb>> = vec![Vec::new(); n + 2];
    let mut pairs = vec![(Limb::Const(0), Limb::Const(0)); n - 1];
    let mut memo = Products::new();
    if n.is_multiple_of(2) {
        // No odd chain's pair reaches the addend's top limb: it starts the
        // counter of the top column's carries, the high half of the last
        // (even) chain's accumulator.
        carries[n - 1].push(limb(addend, n - 1));
    }
    for (j, pair) in pairs.iter_mut().enumerate().skip(1) {
        let base = (j % 2 == 1).then(|| (limb(addend, j), limb(addend, j + 1)));
        *pair = split_chain(plan, b, &mut carries, &mut memo, j, base, true);
    }
    // Chain 0, last: column 0's product on (c_0, chain 1's low half).
    let (mut lo, mut hi) = (limb(addend, 0), pairs[1].0);
    let mut cy = Limb::Const(0);
    for &(i, k) in &plan.columns[0] {
        let (l, h, c) = b.mad_carry(limb(fa, i), limb(fb, k), lo, hi);
        (lo, hi) = (l, h);
        cy = if cy == Limb::Const(0) {
            c
        } else {
            b.add(cy, c)
        };
    }
    let mut r = vec![lo, hi];
    r.extend(add_columns(b, &pairs, top, &mut carries, 2, cy));
    r
}

/// Chain `j` of [`split_chains`]: its accumulator (the addend's limbs
/// `base`, or the counters of the carries of columns `j` and, when the low
/// half is not zero or `hi_always`, `j + 1`), then column `j`'s products;
/// its own carries go to `carries[j + 2]` (none past the top column).
fn split_chain(
    plan: &MulPlan,
    b: &mut impl Sink,
    carries: &mut [Vec<Limb>],
    memo: &mut Products,
    j: usize,
    base: Option<(Limb, Limb)>,
    hi_always: bool,
) -> (Limb, Limb) {
    let n = plan.limbs;
    let (fa, fb) = (&plan.a, &plan.b);
    let ((mut lo, lo_max), (mut hi, hi_max)) = match base {
        Some((l, h)) => ((l, limb_max(l)), (h, limb_max(h))),
        None => {
            let lo = counter(b, std::mem::take(&mut carries[j]));
            let hi = if lo.0 != Limb::Const(0) || hi_always {
                counter(b, std::mem::take(&mut carries[j + 1]))
            } else {
                (Limb::Const(0), 0)
            };
            (lo, hi)
        }
    };
    let mut acc_max = lo_max.saturating_add(hi_max.saturating_mul(1 << 32));
    for &(i, k) in &plan.columns[j] {
        let (x, y) = (limb(fa, i), limb(fb, k));
        if (lo, hi) == (Limb::Const(0), Limb::Const(0)) {
            // A product alone on a zero accumulator: the same factors'
            // product is one MAD however many chains start with it (a
            // sign limb repeats in every column above the factor).
            (lo, hi) = match made_product(memo, x, y) {
                Some(p) => p,
                None => {
                    let p = b.mad(x, y, lo, hi);
                    memo.push(((x, y), p));
                    p
                }
            };
        } else if j + 2 >= n || acc_max <= NO_CARRY_ACC {
            (lo, hi) = b.mad(x, y, lo, hi);
        } else {
            let (l, h, c) = b.mad_carry(x, y, lo, hi);
            (lo, hi) = (l, h);
            carries[j + 2].push(c);
        }
        acc_max = u64::MAX;
    }
    (lo, hi)
}

/// The 64-bit products on a zero accumulator made so far, by factors.
type Products = Vec<((Limb, Limb), (Limb, Limb))>;

/// The product of `x` and `y` (either order) in `memo`.
fn made_product(memo: &Products, x: Limb, y: Limb) -> Option<(Limb, Limb)> {
    memo.iter()
        .find(|(f, _)| *f == (x, y) || *f == (y, x))
        .map(|&(_, p)| p)
}

/// The largest value of `l`.
fn limb_max(l: Limb) -> u64 {
    match l {
        Limb::Const(c) => u64::from(c),
        Limb::Reg(_) => u64::from(u32::MAX),
    }
}

/// A counter of carry bits (0/1 values) and its largest value.
fn counter(b: &mut impl Sink, bits: Vec<Limb>) -> (Limb, u64) {
    let max = bits.len() as u64;
    let mut acc = Limb::Const(0);
    for c in bits {
        acc = b.add(acc, c);
    }
    (acc, max)
}
