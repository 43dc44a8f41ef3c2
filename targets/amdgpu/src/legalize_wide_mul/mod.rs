//! Wide multiplies (and multiply-adds) the GCN way: [`lower_mul`], the
//! AMD back end's [`regdesc_codegen::target::Target::lower_mul`].
//!
//! The hardware facts served (seed 002, D124844, and the gaps it left):
//! - `v_mad_u64_u32 d64, carry, a, b, c64` multiplies two 32-bit factors
//!   and adds a 64-bit accumulator in one VALU instruction, and reports the
//!   carry out of bit 63 as a lane mask. A product of `n`-limb values
//!   truncated to `n` limbs is the schoolbook sum of partial products
//!   `a_i * b_j` in column `i + j`; every column below the top one needs
//!   the 64-bit product.
//! - A chain of MADs can feed its 64-bit result into the next MAD's
//!   accumulator with no instruction in between. A MAD whose accumulator
//!   is below `2^32` (a zero-extended 32-bit accumulator, or the constant
//!   0) cannot carry out: `(2^32-1)^2 + 2^32-1 < 2^64`.
//! - `v_addc_co_u32` (gfx9) / `v_add_co_ci_u32` (gfx10) add a carry mask
//!   into a register in one instruction; `v_cndmask_b32 d, 0, 1, mask`
//!   turns the first carry of a column into a number. A counter of carries
//!   never overflows (there are fewer than `2^32` of them).
//! - `v_mul_lo_u32` gives the low 32 bits of a product; the top column
//!   needs nothing else, and `v_add3_u32` sums three values.
//! - The scalar unit has `s_mul_i32` and `s_mul_hi_u32` (low and high
//!   halves, no multiply-add) and `s_add_u32`/`s_addc_u32`, whose carry
//!   runs through `SCC` from one instruction to the next.
//!
//! # Divergent factors: split chains (the odd/even split of D124844)
//!
//! From three limbs on in functions and on gfx90a (`split_chains`,
//! chosen by `split_wins`; with a fused addend from five limbs, or three
//! on gfx90a): column `j`'s
//! products accumulate in their own pair `(j, j + 1)` starting from zero,
//! so the pairs of even columns tile one number and those of odd columns
//! another; both (and the top column's low sum) are added at the end, which
//! writes the result registers. Every pair starts at an even register
//! whatever its column (gfx90a's rule for 64-bit VGPR operands), the
//! factor limbs in the result registers are read before any of them is
//! written (no `v_mov`), and a chain's carries become the counters in the
//! accumulator of a later chain (one instruction per carry). A fused
//! addend's limb pairs are the even chains' accumulators; where pairs may
//! start at any register they are the odd chains' instead
//! (`split::odd_addend_chains`, chosen by `odd_addend_wins`), so that chain 0
//! comes last and writes the result registers after the first factor's
//! last read. An addend that arrived at an odd VGPR on gfx90a is added
//! after the product (`misaligned_addend`): its pairs would be copied.
//!
//! # A fused addend after the product, and the count that chooses
//!
//! llc adds the addend after the product (its MADs start from zero
//! accumulators, so they need no carries), which beats the fused chains
//! where their carries, the counters' accumulators and the factor moves
//! cost more than the addend's adds: on gfx90a, whose even-aligned pairs
//! the fused split chains pay for, and where a factor limb repeats (a
//! sign limb's products are one MAD on a zero accumulator). The product
//! here is the split chains of the factors alone with one change
//! (`split::low_addend_chains`): chain 0, emitted last, takes the
//! addend's low pair as its accumulator, and its carry (into column 2) is
//! the carry-in of the adds of the other limbs, `n - 2` of them. Which
//! plan runs is counted, not guessed: the chains are written once,
//! generic over where they go (`sink::Sink`), and `sink::Count` runs
//! both plans and counts the instructions they would select to (carries
//! that become numbers, accumulator halves that need a `v_mov_b32`,
//! SGPR reads past the constant bus, copies of factor limbs the result
//! overwrites); `chains` keeps the shorter (its doc has the measurements).
//!
//! # Otherwise: column chains (product scanning)
//!
//! Column `k` (`k < n - 1`) is one chain of MADs on the accumulator
//! `(x_k, x_{k+1})`: `x_k` is the high half the chain of column `k - 1`
//! left, `x_{k+1}` the number of carries that chain produced (they belong
//! to column `k + 1`) plus the addend's limb. The chain's result is the
//! final limb `r_k` and the next chain's `x_{k+1}`; its carries go to
//! column `k + 2`. The accumulator pair of column `k + 1` is the high half
//! of column `k`'s result and the register above it, so no copy joins them
//! when the counter is placed there. The first MAD of a chain whose
//! accumulator high half is known zero (column 1 of a plain multiply) has
//! no carry; carries past the top limb are not computed. The top column is
//! a MAD chain whose low half only is read (`top_column`), its sum the
//! seed of column `n - 2`'s counter; it is emitted first,
//! because their factors then die before the chains write the result
//! registers (the calling convention returns the product where the first
//! factor arrived). Known-zero limbs have no partial products
//! ([`MulPlan::columns`]); a fused addend (`MulPlan::addend`) is the
//! accumulator of column 0 and the base of each column's counter.
//!
//! # Constant factors of 0/1 limbs: adds
//!
//! A factor whose limbs are the constants 0 and 1 (`x * (2^32 + 1)`)
//! multiplies by adding shifted copies of the other factor
//! ([`lower_shifted_sum`]): `v_add_co_u32`/`v_addc_co_u32` (or
//! `s_add_u32`/`s_addc_u32`) chains, one instruction per limb, where a
//! MAD by 1 would also be one per limb plus the carries between columns.
//!
//! Uniform factors times a constant power of two (an element size of a
//! uniform address) are shifts ([`lower_pow2_shift`]): the SALU has no
//! multiply-add, and `s_lshl_b64` ([`crate::shift64`]) makes two of the
//! product's limbs in one instruction, `s_lshl_b32`/`s_ashr_i32` one,
//! where `s_mul_i32`/`s_mul_hi_u32` need the adds between them. Per-lane factors keep the MAD, which takes the
//! addend too.
//!
//! # Sign-extended factors: `V_MAD_I64_I32`
//!
//! When both factors are sign-extended 32-bit values
//! ([`MulPlan::sext32`], from the legalizer's sign-bit counts: `sext i32`,
//! `ashr` by 32 or more, small constants), their product is the signed
//! 64-bit product of the low limbs, sign-extended: one `v_mad_i64_i32`
//! (with a 64-bit addend as its accumulator), or `s_mul_i32` +
//! `s_mul_hi_i32` on uniform factors, where the schoolbook needs the
//! partial products of the sign limbs (the "sign corrections") too.
//! Wider results take the high half's sign (`v_ashrrev_i32 31`) for the
//! limbs above, and a wider addend is added after. Factors sign-extended
//! from more limbs reach this lowering already split by the shared
//! legalizer (`regdesc_codegen::legalize::sign_split`): their low limbs'
//! product, with the sign corrections subtracted after.
//!
//! # Uniform factors: VALU MADs on SGPRs, or scalar rows
//!
//! When both factors are uniform a cost model (`valu_wins`) chooses.
//! `v_mad_u64_u32` may read its factors from SGPRs (one per instruction
//! on gfx9, where the other factor's limbs are copied into VGPRs once;
//! two on gfx10), and multiplies and adds a partial product in one
//! instruction, so from three limbs on the split chains on the VALU are
//! fewer instructions (the values are per-lane registers holding the same
//! value in every lane; with a fused addend the column chains); LLVM 14's
//! best `mul128_uniform` also mixes VALU MADs in. Otherwise (64 bits)
//! the multiply runs on the SALU: each partial product is `s_mul_i32` (low) and `s_mul_hi_u32`
//! (high, below the top column), and the partial products are added as
//! multi-limb numbers, one `s_add_u32`/`s_addc_u32` carry-in chain per
//! number (row `i`'s low halves, row `i`'s high halves), the carry never
//! leaving `SCC`. A multiply-add on uniform factors is added as one more
//! number. Uniform multiplies wider than 128 bits that stay scalar keep
//! the generic lowering (see `MAX_SCALAR_ROW_LIMBS`).

use regdesc_codegen::ir::BinOp;
use regdesc_codegen::legalize::{
    lower_pow2_shift, lower_shifted_sum, power_of_two, Limb, MirBuilder, MulPlan,
};
use regdesc_codegen::mir::Opcode;
use regdesc_codegen::mir::{def, use_};

mod column;
mod sink;
mod split;
use column::{column_chains, top_after_applies, top_after_chains};
use sink::{Build, Count, Sink};
use split::{low_addend_chains, odd_addend_chains, split_chains};

fn limb(v: &[Limb], k: usize) -> Limb {
    v.get(k).copied().unwrap_or(Limb::Const(0))
}

/// The widest uniform multiply (in 32-bit limbs) lowered as SALU rows.
const MAX_SCALAR_ROW_LIMBS: usize = 4;

/// The wide multiply of `plan` as limbs (`None`: the generic lowering, for
/// a multiply the cascade does not improve).
pub fn lower_mul(
    plan: &MulPlan,
    b: &mut MirBuilder<'_>,
    ops: MadOps,
    facts: MulFacts,
) -> Option<Vec<Limb>> {
    if plan.limbs < 2 {
        return None;
    }
    if let Some(r) = lower_shifted_sum(plan, b) {
        return Some(r);
    }
    // Uniform factors times a power of two: the SALU's 64-bit shifts
    // (`shift64`). Per-lane ones: a funnel shift per limb (`lane_shift`),
    // where the MADs need an add per limb besides (`i128` times `2^27` 4
    // against 8; a `sext i64` times 128 as `i256` 8 against 12, llc 11).
    // One per-lane product is one MAD (both result limbs at once, where the
    // shifts would be two); an addend keeps the MADs (their accumulator
    // takes it: an address's base), unless the shifts and the adds after
    // them count fewer ([`pow2_shift_wins`]).
    if plan.uniform
        || (plan.addend.is_none() && plan.partial_products() > 1)
        || pow2_shift_wins(plan, b, facts)
    {
        let shl = |x: &[Limb], s: u32, b: &mut MirBuilder<'_>| {
            let amount = Limb::Const(s);
            let w = 32 * x.len() as u32;
            if plan.uniform {
                crate::shift64::lower_shift(BinOp::Shl, x, amount, w, b, ops.shift)
            } else {
                crate::lane_shift::lower_shift(BinOp::Shl, x, amount, w, b, ops.lane_shift)
            }
        };
        if let Some(r) = lower_pow2_shift(plan, b, &shl) {
            return Some(r);
        }
    }
    if let Some(r) = misaligned_addend(plan, b, ops, facts) {
        return Some(r);
    }
    if plan.signed_32x32() {
        return Some(signed_32x32(plan, b, ops.signed));
    }
    if let Some(r) = signed_by_narrow(plan, b, ops.signed, facts) {
        return Some(r);
    }
    // gfx10's VOP3 takes a literal operand: each product keeps its own.
    let shared = (facts.constant_bus < 2)
        .then(|| share_literals(plan, b))
        .flatten();
    let plan = shared.as_ref().unwrap_or(plan);
    // A per-lane addend makes the sum per-lane anyway: the MADs add it
    // where the scalar rows would add it after, limb by limb on the VALU.
    let lane_addend = plan
        .addend
        .as_ref()
        .is_some_and(|a| a.iter().any(|l| !b.is_uniform(*l)));
    if plan.uniform && (valu_wins(plan, facts) || lane_addend) {
        // Uniform factors on the VALU: the values are per-lane registers
        // (the same in every lane), their factors SGPRs read over the
        // constant bus. What follows the multiply takes the uniformity
        // it had: per-lane where the addend is (a sign correction
        // subtracted on the SALU would read one lane of the sum).
        let was = b.uniform;
        b.uniform = false;
        let rule = if split_wins(plan, facts) {
            Chains::Split
        } else {
            Chains::Column
        };
        let r = chains(plan, b, ops, facts, rule);
        b.uniform = was;
        return Some(r);
    }
    // Wider uniform multiplies keep the generic lowering (a `s_mul_i32`,
    // `s_mul_hi_u32`, `s_add_u32`, `s_addc_u32` group per partial product):
    // the rows' longer SCC chains keep more SGPRs live at once. (Where the
    // cost model puts them on the VALU, above, they never get here; with
    // rows up to 16 limbs no function of the fixtures changes.)
    if plan.uniform && plan.limbs > MAX_SCALAR_ROW_LIMBS {
        return None;
    }
    if plan.uniform {
        return Some(scalar_rows(plan, b));
    }
    let rule = lane_rule(plan, facts, b);
    Some(chains(plan, b, ops, facts, rule))
}

/// The chains of a per-lane multiply by the rules of [`odd_addend_wins`]
/// and [`split_wins`].
fn lane_rule(plan: &MulPlan, facts: MulFacts, b: &MirBuilder<'_>) -> Chains {
    if odd_addend_wins(plan, facts, b) {
        Chains::OddAddend
    } else if split_wins(plan, facts) {
        Chains::Split
    } else {
        Chains::Column
    }
}

/// Whether a per-lane factor times a power of two `2^(32 m + k)` plus an
/// addend takes fewer instructions as a shift and an add chain than as
/// MADs. The shift is a funnel per result limb from `m` up (none when
/// `k` is 0), one fewer for the 64-bit shift of the lowest pair (on
/// gfx90a only when it lands on an even pair); the add
/// chain one per limb from `m` up. Each MAD on the addend's pairs may
/// carry into the next chain, and every carry is an instruction more: an
/// `i217` times `2^59` plus an `i217` is 12 that way against 19 (llc 13),
/// where an `i64` keeps its MAD and `v_lshl_add_u32` (2 against 3). A
/// product in the top limb alone is one `v_lshl_add_u32`.
fn pow2_shift_wins(plan: &MulPlan, b: &MirBuilder<'_>, facts: MulFacts) -> bool {
    if plan.uniform || plan.addend.is_none() {
        return false;
    }
    let (x, sext, s) = match (power_of_two(&plan.b), power_of_two(&plan.a)) {
        (Some(s), _) => (&plan.a, plan.sext32[0], s),
        (None, Some(s)) => (&plan.b, plan.sext32[1], s),
        (None, None) => return false,
    };
    let (n, m, k) = (plan.limbs, (s / 32) as usize, s % 32);
    if sext || m >= n {
        return false;
    }
    let reg = |i: Option<usize>| i.is_some_and(|i| matches!(x.get(i), Some(Limb::Reg(_))));
    let shifts = match k {
        0 => 0,
        _ => {
            let funnels = (m..n)
                .filter(|&i| reg(Some(i - m)) || reg((i - m).checked_sub(1)))
                .count();
            let pair =
                n - m >= 2 && (!facts.aligned_pairs || m % 2 == 0) && reg(Some(0)) && reg(Some(1));
            funnels - usize::from(pair)
        }
    };
    // The add chain runs from the addend's first nonzero limb at or above
    // `m` (the product's limbs below `m` are zero: no carry comes up) to
    // the top; none when the addend has no limb there (`sext i96` times
    // `2^123` plus 853 as `i160`: the shifted limbs and the addend's side
    // by side, 5 against 7, llc's 5).
    let addend = plan.addend.as_deref().unwrap_or(&[]);
    let adds = (m..n)
        .find(|&i| limb(addend, i) != Limb::Const(0))
        .map_or(0, |first| n - first);
    // The top limb alone: one `v_lshl_add_u32` (or add).
    let by_shifts = if m + 1 == n { 1 } else { shifts + adds };
    let rule = lane_rule(plan, facts, b);
    let mut by_mads = cost(plan, b, facts, rule);
    if plan.limbs >= 3 {
        by_mads = by_mads.min(cost(plan, b, facts, Chains::LowAddend));
    }
    // The top limb alone ties to the shift: the MAD's count leaves out
    // the moves its pair may need (`i64` times `2^33` plus an `i64`: 2
    // against 3). Elsewhere a tie keeps the MADs, whose top column the
    // combines shorten further (`v_lshl_add_u32` on a MAD's high half).
    by_shifts < by_mads || (m + 1 == n && by_shifts == by_mads)
}

/// The MAD chains of a multiply (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chains {
    /// [`column_chains`].
    Column,
    /// [`split_chains`].
    Split,
    /// [`odd_addend_chains`].
    OddAddend,
    /// [`low_addend_chains`].
    LowAddend,
    /// [`top_after_chains`].
    TopAfter,
}

fn emit(plan: &MulPlan, b: &mut impl Sink, kind: Chains) -> Vec<Limb> {
    match kind {
        Chains::Column => column_chains(plan, b),
        Chains::Split => split_chains(plan, b),
        Chains::OddAddend => odd_addend_chains(plan, b),
        Chains::LowAddend => low_addend_chains(plan, b),
        Chains::TopAfter => top_after_chains(plan, b),
    }
}

/// Instructions of `kind`'s chains for `plan` ([`Count`]), with the
/// copies of factor limbs the result would overwrite.
fn cost(plan: &MulPlan, b: &MirBuilder<'_>, facts: MulFacts, kind: Chains) -> usize {
    let mut count = Count::new(plan, b, facts);
    let r = emit(plan, &mut count, kind);
    let moves = if plan.result_over_factor {
        count.moves(&r)
    } else {
        0
    };
    count.instrs + moves
}

/// The chains `rule` chose (the rules of [`split_wins`] and
/// [`odd_addend_wins`]), or, for a fused addend from three limbs on, the
/// addend after the product ([`low_addend_chains`], llc's plan: MADs on
/// zero accumulators, then carry chains) where [`cost`] counts fewer
/// instructions for it; a tie keeps `rule`. The fused chains save the
/// addend's adds but pay for them: each MAD on an addend pair may carry,
/// and each carry is a `v_cndmask_b32` or an add into a later chain,
/// whose accumulator may then need a `v_mov_b32` for its other half; a
/// chain that comes before chain 0's last read of a factor limb in the
/// result registers moves it away; and a factor limb that several columns
/// share (a sign limb) is multiplied once only on a zero accumulator. The
/// addend after the product pays `n - 2` adds (chain 0 takes the
/// addend's low pair). Which wins, measured (fused / after):
/// - gfx90a, where the fused chains take the addend's even pairs: the
///   addend after, from three limbs (`mad96` 10 / 9, `mad128` 18 / 16,
///   `mad160` 28 / 25, `mad224` 52 / 50) to seven; from eight the fused
///   chains tie or win (`mad256` 66 / 66, `mad320` 102 / 103), and so do
///   kernels whose addend is uniform (an SGPR pair is a free accumulator,
///   where an add of an SGPR limb with a carry-in reads two SGPRs:
///   `mad160_lanes_uniform_addend` 37 / 39);
/// - where pairs start anywhere (gfx900, gfx1030), the fused chains,
///   whose odd chains take the addend (`mad96` 7 / 9, `mad256` 64 / 66),
///   unless a factor limb repeats: an `i128` of a `zext i32` times a
///   `sext i32` plus an addend 10 / 8 (llc 19 GlobalISel 10), a `sext
///   i64` times a `zext i32` as `i192` 16 / 13.
fn chains(
    plan: &MulPlan,
    b: &mut MirBuilder<'_>,
    ops: MadOps,
    facts: MulFacts,
    rule: Chains,
) -> Vec<Limb> {
    let kind = if plan.addend.is_some() && plan.limbs >= 3 {
        let fused = cost(plan, b, facts, rule);
        let after = cost(plan, b, facts, Chains::LowAddend);
        if after < fused {
            Chains::LowAddend
        } else {
            rule
        }
    } else if rule == Chains::Column
        && top_after_wins(plan, b, facts)
        && cost(plan, b, facts, Chains::TopAfter) < cost(plan, b, facts, rule)
    {
        Chains::TopAfter
    } else {
        rule
    };
    let mut sink = Build {
        b,
        mad_co: ops.carry,
        aligned_pairs: facts.aligned_pairs,
    };
    emit(plan, &mut sink, kind)
}

/// Whether [`top_after_chains`] may replace the column chains of a 64-bit
/// product: no addend (column 0's accumulator would be the addend's pair
/// and a constant half, a `v_mov_b32`; llc 19 adds it after instead), and
/// where the result returns over a factor (also truncated), no top
/// product reads a factor limb that arrived in the result registers
/// (column 0's MAD writes them first: the limb would be copied away, and
/// `i64 * i64` takes 5 that way against the plain products' 4). Not where pairs start at even
/// registers (gfx90a): there `(hi, anything)` starts at an odd one and is
/// copied (`i64 * i64` in a kernel 10 against 9).
fn top_after_wins(plan: &MulPlan, b: &MirBuilder<'_>, facts: MulFacts) -> bool {
    if !top_after_applies(plan) || plan.addend.is_some() || facts.aligned_pairs {
        return false;
    }
    let over = |l: Limb| {
        b.arrival(l)
            .and_then(crate::abi::vgpr_index)
            .is_some_and(|k| k < plan.limbs)
    };
    !plan.result_over_factor
        || plan.columns[1]
            .iter()
            .all(|&(i, j)| !over(limb(&plan.a, i)) && !over(limb(&plan.b, j)))
}

/// A fused addend that arrived at an odd VGPR where `v_mad_u64_u32`'s
/// 64-bit operands start at even ones (gfx90a): every limb pair of it
/// would be copied to an even pair first, and the copies push the first
/// factor's limbs out of the result registers as well (`mad64` of a
/// `zext i32` factor: 7 against llc's 5; an `i160` times 3: 21 against
/// 14). The product is built alone and the addend added after it, one
/// 32-bit add per limb (`None`: the addend is aligned, or none).
fn misaligned_addend(
    plan: &MulPlan,
    b: &mut MirBuilder<'_>,
    ops: MadOps,
    facts: MulFacts,
) -> Option<Vec<Limb>> {
    let addend = plan.addend.as_ref()?;
    let first = b.arrival(*addend.first()?)?;
    if !facts.aligned_pairs || crate::abi::vgpr_index(first)? % 2 == 0 {
        return None;
    }
    let mut alone = plan.clone();
    alone.addend = None;
    // The sum, not the product, goes to the result registers.
    alone.result_over_factor = false;
    let w = 32 * plan.limbs as u32;
    // 64 bits: the addend's high limb (then at an even VGPR) starts the
    // top column's MAD chain, whose low half is the high limb added after
    // column 0's MAD: `(p0, p1) + (c0, lo(a1 b0 + c1))`, two MADs and two
    // adds where the plain top product takes a `v_mul_lo_u32` and an add
    // more (a 64-bit multiply-add by a `zext i32`: 4, llc 19's 4 on SGPR
    // arguments, against 5).
    if let (2, [c0, c1 @ Limb::Reg(_), ..], false) = (plan.limbs, addend.as_slice(), plan.uniform) {
        // (Sign-extended 32-bit factors keep their `v_mad_i64_i32`.)
        if !plan.columns[1].is_empty() && !plan.signed_32x32() {
            let (mut t, mut junk) = (*c1, b.undef());
            for &(i, j) in &plan.columns[1] {
                (t, junk) = b.mad64(limb(&plan.a, i), limb(&plan.b, j), t, junk);
            }
            let z = Limb::Const(0);
            let (p0, p1) = match plan.columns[0][..] {
                [(i, j)] => b.mad64(limb(&plan.a, i), limb(&plan.b, j), z, z),
                _ => (z, z),
            };
            return Some(regdesc_codegen::legalize::wide::add(
                b,
                &[p0, p1],
                &[*c0, t],
                w,
            ));
        }
    }
    let product = lower_mul(&alone, b, ops, facts)
        .unwrap_or_else(|| regdesc_codegen::legalize::lower_generic(&alone, b));
    Some(regdesc_codegen::legalize::wide::add(b, &product, addend, w))
}

/// Per-lane factors: a constant limb that is not an inline constant and
/// that two or more partial products read is moved into a register once
/// (`v_mad_u64_u32` and `v_mul_lo_u32` are VOP3, which take no literal on
/// gfx9, so every use would otherwise get its own `v_mov_b32`). `None`:
/// nothing to share (uniform factors keep their literals: the SALU
/// instructions take a 32-bit literal for free).
fn share_literals(plan: &MulPlan, b: &mut MirBuilder<'_>) -> Option<MulPlan> {
    if plan.uniform {
        return None;
    }
    let uses = |c: Limb| {
        plan.columns
            .iter()
            .flatten()
            .filter(|&&(i, j)| limb(&plan.a, i) == c || limb(&plan.b, j) == c)
            .count()
    };
    let mut out = plan.clone();
    // Every limb of one value reads the one register.
    let mut made: Vec<(u32, Limb)> = Vec::new();
    for side in [&mut out.a, &mut out.b] {
        for l in side.iter_mut() {
            let Limb::Const(c) = *l else { continue };
            if crate::isa::is_inline_int(i64::from(c as i32)) || uses(*l) < 2 {
                continue;
            }
            *l = match made.iter().find(|(v, _)| *v == c) {
                Some(&(_, r)) => r,
                None => {
                    let r = Limb::Reg(b.reg(*l));
                    made.push((c, r));
                    r
                }
            };
        }
    }
    (!made.is_empty()).then_some(out)
}

/// The legalize-level pseudos the lowering emits.
#[derive(Clone, Copy, Debug)]
pub struct MadOps {
    /// The 64-bit shifts of a uniform multiply by a power of two.
    pub shift: crate::shift64::ShiftOps,
    /// `G_AMD_MAD64_CO`: unsigned, with the carry out as a value.
    pub carry: Opcode,
    /// `G_AMD_MAD_I64_I32`: signed factors, no carry.
    pub signed: Opcode,
    /// The funnel and 64-bit shifts of a per-lane multiply by a power of
    /// two.
    pub lane_shift: crate::lane_shift::LaneShiftOps,
}

/// Both factors sign-extended 32-bit values (module doc): one signed
/// 32x32 multiply-add of the low limbs, its sign above, then the rest of
/// a wider addend.
fn signed_32x32(plan: &MulPlan, b: &mut MirBuilder<'_>, mad_i64: Opcode) -> Vec<Limb> {
    let n = plan.limbs;
    let (x, y) = (limb(&plan.a, 0), limb(&plan.b, 0));
    let addend = plan.addend.as_deref();
    // A 64-bit addend is the MAD's accumulator (the low 64 bits of the
    // sum do not depend on how it reads the accumulator's sign).
    let (clo, chi) = match addend {
        Some(a) if n == 2 => (limb(a, 0), limb(a, 1)),
        _ => (Limb::Const(0), Limb::Const(0)),
    };
    let (lo, hi) = if x == Limb::Const(0) || y == Limb::Const(0) {
        (clo, chi)
    } else {
        signed_mad(b, mad_i64, [x, y, clo, chi])
    };
    let mut p = vec![lo, hi];
    if n > 2 {
        let sign = b.bin(BinOp::AShr, hi, Limb::Const(31));
        p.resize(n, sign);
        if let Some(a) = addend {
            let a: Vec<Limb> = (0..n).map(|k| limb(a, k)).collect();
            p = regdesc_codegen::legalize::wide::add(b, &p, &a, 32 * n as u32);
        }
    }
    p
}

/// A per-lane factor sign-extended from two limbs (`sext i41`, `sext
/// i64`) times a non-negative one-limb factor below `2^31` (`zext i25`),
/// three limbs or more, no addend: `x = x0 + x1 * 2^32` with `x1` signed,
/// so `x * y = x0 * y + (x1 * y) * 2^32`, and `x1 * y + hi(x0 * y)` fits in
/// 64 signed bits (`|x1 * y| < 2^62`). One `v_mad_u64_u32` for `x0 * y`,
/// one `v_mad_i64_i32` on its high half for limbs 1 and 2, and the sign of
/// limb 2 above: where the schoolbook multiplies the sign limb by `y` for
/// two more columns and adds them (`sext i41 * zext i25` as `i128`: 6
/// against 9, llc 19 GlobalISel's 8, llc 14's `v_mad_i64_i32` plan 8).
/// Not where pairs start at even registers (gfx90a): the second MAD's
/// accumulator, the first's high register and the one after it, is then
/// copied (10 against llc's 9).
fn signed_by_narrow(
    plan: &MulPlan,
    b: &mut MirBuilder<'_>,
    mad_i64: Opcode,
    facts: MulFacts,
) -> Option<Vec<Limb>> {
    if plan.uniform || plan.addend.is_some() || plan.limbs < 3 || facts.aligned_pairs {
        return None;
    }
    let narrow =
        |v: &[Limb], sext32: bool| sext32 && v.iter().skip(1).all(|l| *l == Limb::Const(0));
    let (x, y) = if plan.sign_limbs[0] == 2 && narrow(&plan.b, plan.sext32[1]) {
        (&plan.a, limb(&plan.b, 0))
    } else if plan.sign_limbs[1] == 2 && narrow(&plan.a, plan.sext32[0]) {
        (&plan.b, limb(&plan.a, 0))
    } else {
        return None;
    };
    let (x0, x1) = (limb(x, 0), limb(x, 1));
    if !matches!(x1, Limb::Reg(_)) || !matches!(y, Limb::Reg(_)) {
        return None;
    }
    let (r0, h) = b.mad64(x0, y, Limb::Const(0), Limb::Const(0));
    let (r1, r2) = signed_mad(b, mad_i64, [x1, y, h, Limb::Const(0)]);
    let mut r = vec![r0, r1, r2];
    if plan.limbs > 3 {
        let sign = b.bin(BinOp::AShr, r2, Limb::Const(31));
        r.resize(plan.limbs, sign);
    }
    Some(r)
}

/// `G_AMD_MAD_I64_I32 lo, hi, x, y, clo, chi`: `sext(x) * sext(y) +
/// (chi:clo)` on 64 bits.
fn signed_mad(
    b: &mut MirBuilder<'_>,
    mad_i64: Opcode,
    [x, y, clo, chi]: [Limb; 4],
) -> (Limb, Limb) {
    let regs = [x, y, clo, chi].map(|l| b.reg(l));
    let (dl, dh) = (b.new_reg(), b.new_reg());
    let mut o = vec![def(dl), def(dh)];
    o.extend(regs.into_iter().map(use_));
    b.push(mad_i64, o);
    (Limb::Reg(dl), Limb::Reg(dh))
}

/// The subtarget facts the multiply lowering reads.
#[derive(Clone, Copy, Debug)]
pub struct MulFacts {
    /// Distinct SGPRs one VALU instruction may read (one on gfx9, two on
    /// gfx10): a `v_mad_u64_u32` on two SGPR factors copies one of them
    /// into a VGPR on gfx9.
    pub constant_bus: usize,
    /// `v_mad_u64_u32`'s 64-bit operands start at an even register
    /// (gfx90a): a column chain's accumulator, one register above the
    /// previous column's, is copied on every odd column.
    pub aligned_pairs: bool,
    /// The function is a kernel: it returns nothing, so no product has to
    /// end in the registers its first factor arrived in.
    pub kernel: bool,
}

/// Instructions of [`scalar_rows`] at least: every partial product below
/// the top column is two multiplies (`s_mul_i32`, `s_mul_hi_u32`), a top
/// one is one, and each add (carries ride in `SCC` for free) joins two
/// of those values, until one is left per limb.
fn salu_estimate(plan: &MulPlan) -> usize {
    let n = plan.limbs;
    let values: usize = (0..n)
        .map(|k| plan.columns[k].len() * if k + 1 < n { 2 } else { 1 })
        .sum();
    values + values.saturating_sub(n)
}

/// Instructions of [`split_chains`] on SGPR factors: one MAD per partial
/// product, one instruction per carry (chain `j` from column 1 to `n - 3`
/// carries on each MAD but its first), `n - 1` final additions, and where
/// one VALU instruction reads one SGPR only, a copy of each limb of the
/// second factor into a VGPR.
fn valu_estimate(plan: &MulPlan, facts: MulFacts) -> usize {
    let n = plan.limbs;
    let mads: usize = plan.columns.iter().map(Vec::len).sum();
    let carries: usize = (1..n.saturating_sub(2))
        .map(|j| plan.columns[j].len().saturating_sub(1))
        .sum();
    let copies = if facts.constant_bus < 2 {
        plan.b.iter().filter(|l| **l != Limb::Const(0)).count()
    } else {
        0
    };
    mads + carries + (n - 1) + copies
}

/// Uniform factors: whether `v_mad_u64_u32` on the SGPR factors
/// ([`split_chains`] with per-lane values) is fewer instructions than the
/// SALU rows. The MAD multiplies and adds in one instruction where the
/// SALU needs a multiply per half and an add per value, so from 3 limbs
/// on the VALU wins (an `i128`: 14 on gfx10, 18 on gfx9 with the factor's
/// copies, against at least 28), even when a scalar user then reads each
/// limb back (`v_readfirstlane_b32`, 4 more); a result stored to memory
/// needs VGPRs anyway, which the SALU rows pay one `v_mov` per limb for.
/// A fused addend takes the column chains on the VALU (`mad128` on
/// uniform factors: 44 on gfx9, 38 on gfx10, where the scalar rows took
/// 54). For 64 bits the SALU's 6 match llc's and stay scalar. Not
/// counted: a product whose high limbs are dead (the scalar rows lose
/// their instructions to dead-code removal, a MAD chain does not) and
/// whose users are scalar (one `v_readfirstlane_b32` per limb); there the
/// SALU would be shorter.
fn valu_wins(plan: &MulPlan, facts: MulFacts) -> bool {
    plan.limbs >= 3 && valu_estimate(plan, facts) < salu_estimate(plan)
}

/// Whether [`odd_addend_chains`] is chosen: a fused addend, pairs that may
/// start at any register, three or more limbs, and
/// - an odd number of limbs: the odd chains' pairs cover the addend
///   (`mad160` 25 against 28 on gfx900, llc 19 GlobalISel's 26; `mad96` 7
///   against 9). In a kernel (no result returned over a factor) only from
///   five limbs on and with a per-lane addend: a uniform addend's pairs
///   are free SGPR accumulators of the even split chains (`kmad224` 60
///   against 66 on gfx1030), and three limbs keep the column chains
///   (`kmad96` 16 against 17);
/// - an even number when the result returns over a factor
///   ([`MulPlan::result_over_factor`]: the split chains move the factor's
///   low limbs away first; `mad128` 16 against 17, `mad192` 36 against 38).
///   Otherwise the addend's top limb, which no odd pair reaches, costs the
///   saving back and more (`mad128_inplace` 25 against 24).
fn odd_addend_wins(plan: &MulPlan, facts: MulFacts, b: &MirBuilder<'_>) -> bool {
    let n = plan.limbs;
    let Some(addend) = &plan.addend else {
        return false;
    };
    let scalar_addend = addend.iter().all(|l| b.is_uniform(*l));
    !facts.aligned_pairs
        && n >= 3
        && match n % 2 {
            1 => !facts.kernel || (n >= 5 && !scalar_addend),
            _ => plan.result_over_factor,
        }
}

/// Whether [`split_chains`] is chosen over [`column_chains`]. Column
/// chains need no final additions, but every factor limb `a_k` is read
/// after `r_k` (which takes its register) is written, so `n - 1` limbs
/// are moved away first, and every chain from column 2 on may carry on
/// its first MAD; on aligned hardware every odd column's accumulator is
/// also copied (`v_mad_u64_u32`'s 64-bit operands start at an even
/// register on gfx90a, and column `k`'s pair is one register above column
/// `k - 1`'s). Split chains write the result registers only in the
/// final additions (`n - 1` instructions) and start most chains from a
/// zero accumulator: from 3 limbs on the split is shorter (`mul96` 8
/// against 9 on gfx900, `mul128` 14 against 15, `mul256` 60 against 63;
/// on gfx90a 14 against 21 and 60 against 79). With a fused addend the
/// even chains start from the addend's limb pairs, their first MAD may
/// carry, chain 0 is no longer last (its carry feeds chain 1) and an odd
/// chain's accumulator may need a zero low half: the column chains stay
/// shorter by one up to 4 limbs where pairs may start anywhere (`mad128`
/// 17 against 18 on gfx900), the split wins on gfx90a (18 against 23)
/// and from 5 limbs (`mad256` 66 against 123 on gfx900, where the column
/// chains' carry-in adds keep many lane masks live).
///
/// In a kernel nothing returns the product, so the column chains need no
/// moves (their results go to registers of their own, which the
/// allocator joins into the stored tuple) and, with no addend, they win
/// at every width where pairs may start anywhere: `mul96_lane` 11 against
/// 13 (llc 19 GlobalISel's 11), `mul128_lanes` 19 against 20, `mul256_lane`
/// 64 against 68 on gfx900. On gfx90a the odd columns' copies still make
/// them longer (`mul96_lane` 15 against 13).
fn split_wins(plan: &MulPlan, facts: MulFacts) -> bool {
    // (The same where a function's product is not returned as it is: a
    // multiply-subtract, `i96` 11 against 13, llc 19 GlobalISel's 11.)
    let unmoved = facts.kernel || !plan.result_over_factor;
    if unmoved && !facts.aligned_pairs && plan.addend.is_none() {
        return false;
    }
    // Three limbs, one product per column (a one-limb factor), where pairs
    // may start anywhere: each column chain is one MAD, the top product
    // seeds column 1's, and no final addition is needed (`i96` times a
    // `zext i32` 4 against 5; on gfx90a column 1's pair is odd: 7 against
    // 5).
    if plan.limbs == 3 && !facts.aligned_pairs && plan.columns.iter().all(|c| c.len() <= 1) {
        return false;
    }
    match plan.addend {
        None => plan.limbs >= 3,
        Some(_) => plan.limbs >= 5 || (facts.aligned_pairs && plan.limbs >= 3),
    }
}

/// The sum of `vals` (32-bit, wrapping), as adds the selection combines
/// into `v_add3_u32`.
fn sum(b: &mut impl Sink, vals: &[Limb]) -> Limb {
    let mut acc = Limb::Const(0);
    for v in vals {
        acc = b.add(acc, *v);
    }
    acc
}

/// Uniform factors: SALU rows added as multi-limb numbers (module doc).
/// Each product is computed right before the add that takes it (the
/// multiplies do not touch SCC, so the chain keeps its carry there), which
/// keeps the scalar registers live at once to the factors, the sum and one
/// product.
fn scalar_rows(plan: &MulPlan, b: &mut MirBuilder<'_>) -> Vec<Limb> {
    let n = plan.limbs;
    let (fa, fb) = (&plan.a, &plan.b);
    let mut acc: Vec<Limb> = match &plan.addend {
        Some(add) => (0..n).map(|k| limb(add, k)).collect(),
        None => vec![Limb::Const(0); n],
    };
    let rows = fa.len().min(n);
    for i in 0..rows {
        if limb(fa, i) == Limb::Const(0) {
            continue;
        }
        for high in [false, true] {
            // The number's limbs: the factor pair of each position.
            let mut num: Vec<Option<(Limb, Limb)>> = vec![None; n];
            for (k, col) in plan.columns.iter().enumerate() {
                for &(pi, j) in col {
                    let at = if high { k + 1 } else { k };
                    if pi == i && at < n {
                        num[at] = Some((limb(fa, i), limb(fb, j)));
                    }
                }
            }
            acc = add_number(b, &acc, &num, high);
        }
    }
    acc
}

/// `acc + num`, where `num`'s limbs are products (low or high halves)
/// computed in place: one add and a carry-in chain from the first limb
/// where both are present.
fn add_number(
    b: &mut MirBuilder<'_>,
    acc: &[Limb],
    num: &[Option<(Limb, Limb)>],
    high: bool,
) -> Vec<Limb> {
    let n = acc.len();
    let mut out = Vec::with_capacity(n);
    let mut carry = Limb::Const(0);
    let mut chained = false;
    for k in 0..n {
        let y = match num[k] {
            Some((x, z)) if high => b.umulh(x, z),
            Some((x, z)) => b.bin(BinOp::Mul, x, z),
            None => Limb::Const(0),
        };
        if !chained && (acc[k] == Limb::Const(0) || y == Limb::Const(0)) {
            out.push(if acc[k] == Limb::Const(0) { y } else { acc[k] });
            continue;
        }
        chained = true;
        // The top limb's carry out is not needed (and `s_addc_u32` keeps
        // the chain in SCC where two adds would break it).
        let (s, c) = b.uadde(acc[k], y, carry);
        out.push(s);
        carry = if k + 1 == n { Limb::Const(0) } else { c };
    }
    out
}
