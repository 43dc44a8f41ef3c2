//! Wide multiplies (and multiply-adds) as 32-bit limb products.
//!
//! The hardware fact served: GPUs multiply 32x32 bits at a time; AMD's
//! `V_MAD_U64_U32` gives the 64-bit product plus a 64-bit accumulator in
//! one instruction, Intel's `mul`/`mach` give the halves. A product of
//! `n`-limb values truncated to `n` limbs is a schoolbook sum of partial
//! products `a_i * b_j` in column `i + j`; seed 002 (D124844) builds AMD's
//! multiply from chains of those per column.
//!
//! The legalizer describes the multiply as a [`MulPlan`]: the factors'
//! limbs (known-zero limbs are [`Limb::Const`]`(0)`), the addend of a fused
//! multiply-add, the uniformity of the factors and the surviving partial
//! products by column. A target may lower the plan its own way
//! ([`crate::target::Target::lower_mul`], e.g. AMD's odd/even chains or
//! SALU carry-in chains); otherwise [`lower_generic`] runs: row by row,
//! each partial product a `MAD64` whose accumulator is the column so far,
//! the row's carry added in, the top column by plain 32-bit multiplies.

use crate::ir::BinOp;
use crate::legalize::{Limb, MirBuilder};

/// A wide multiply (or multiply-add) in limb form: `result = a * b +
/// addend`, truncated to `limbs` limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MulPlan {
    pub a: Vec<Limb>,
    pub b: Vec<Limb>,
    /// A fused addend (the other operand of the single `add` the product
    /// feeds), as many limbs as the result.
    pub addend: Option<Vec<Limb>>,
    /// Limbs of the result.
    pub limbs: usize,
    /// Whether the factors are the same in every lane (a target may put
    /// the multiply on its scalar unit).
    pub uniform: bool,
    /// Per result column `k`, the partial products `(i, j)` with `i + j =
    /// k` whose factors are not known zero.
    pub columns: Vec<Vec<(usize, usize)>>,
    /// Per factor (`a`, `b`): whether it is the sign extension of its low
    /// limb (its sign bits, [`crate::legalize::known_bits`]): its higher
    /// limbs are all copies of limb 0's sign, and a signed 32x32 multiply
    /// of the low limbs is the whole product.
    pub sext32: [bool; 2],
    /// The result is the function's return value and a factor arrived in
    /// the registers the calling convention returns it in (the first
    /// argument's, where the first result limb goes): a lowering that
    /// writes a low result limb before that factor's last read makes the
    /// register allocator move the factor's limbs first.
    pub result_over_factor: bool,
    /// Per factor: how many low limbs it is the sign extension of (its
    /// limb count when it is not one); [`crate::legalize::sign_split`]
    /// multiplies those limbs only.
    pub sign_limbs: [usize; 2],
}

impl MulPlan {
    pub fn new(
        a: Vec<Limb>,
        b: Vec<Limb>,
        addend: Option<Vec<Limb>>,
        limbs: usize,
        uniform: bool,
    ) -> MulPlan {
        let mut columns = vec![Vec::new(); limbs];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                if i + j < limbs && *x != Limb::Const(0) && *y != Limb::Const(0) {
                    columns[i + j].push((i, j));
                }
            }
        }
        let (a_len, b_len) = (a.len(), b.len());
        MulPlan {
            a,
            b,
            addend,
            limbs,
            uniform,
            columns,
            sext32: [false; 2],
            result_over_factor: false,
            sign_limbs: [a_len, b_len],
        }
    }

    /// The plan with the factors' sign-extension facts
    /// ([`MulPlan::sext32`]).
    pub fn with_sext32(mut self, a: bool, b: bool) -> MulPlan {
        self.sext32 = [a, b];
        self
    }

    /// The plan with [`MulPlan::sign_limbs`].
    pub fn with_sign_limbs(mut self, a: usize, b: usize) -> MulPlan {
        self.sign_limbs = [a, b];
        self
    }

    /// The plan with [`MulPlan::result_over_factor`].
    pub fn with_result_over_factor(mut self, yes: bool) -> MulPlan {
        self.result_over_factor = yes;
        self
    }

    /// Whether both factors are sign-extended 32-bit values: the product
    /// is their signed 64-bit product, sign-extended.
    pub fn signed_32x32(&self) -> bool {
        self.sext32 == [true, true]
    }

    /// How many 32x32 multiplies the plan needs at least (one per partial
    /// product).
    pub fn partial_products(&self) -> usize {
        self.columns.iter().map(Vec::len).sum()
    }
}

/// A factor that is a constant whose 32-bit limbs are each 0 or 1 (`x *
/// (2^32 + 1)`, `x * 1`): the product is the sum of copies of the other
/// factor shifted by whole limbs, one carry chain of 32-bit adds per limb
/// of 1 past the first (the first is the factor itself, a fused addend
/// the start of the sum), where the partial products would each be a
/// 32x32 multiply. The copies shifted furthest are added first: they
/// read the factor's low limbs, which arrive where the result returns, so
/// every chain reads its limbs before a later one writes over them (an
/// `i384` times `2^288 + 1` plus an addend: no copies). Copies whose
/// nonzero limbs do not meet are one value with no add at all (a `zext
/// i16` times `2^32 + 1` is the limb twice), so each chain adds a group
/// of such copies (plus an addend: 2 adds, where a chain per copy took
/// 3). `None` when neither factor is such a constant.
pub fn lower_shifted_sum(plan: &MulPlan, b: &mut MirBuilder<'_>) -> Option<Vec<Limb>> {
    let ones = |v: &[Limb]| {
        v.iter()
            .all(|l| matches!(l, Limb::Const(0) | Limb::Const(1)))
    };
    let (x, k) = if ones(&plan.b) {
        (&plan.a, &plan.b)
    } else if ones(&plan.a) {
        (&plan.b, &plan.a)
    } else {
        return None;
    };
    let n = plan.limbs;
    let limb = |v: &[Limb], i: usize| v.get(i).copied().unwrap_or(Limb::Const(0));
    let mut acc: Vec<Limb> = (0..n)
        .map(|i| {
            plan.addend
                .as_deref()
                .map_or(Limb::Const(0), |a| limb(a, i))
        })
        .collect();
    let mut groups: Vec<Vec<Limb>> = Vec::new();
    for (s, l) in k.iter().enumerate().take(n).rev() {
        if *l != Limb::Const(1) {
            continue;
        }
        let copy: Vec<Limb> = (0..n)
            .map(|i| {
                if i < s {
                    Limb::Const(0)
                } else {
                    limb(x, i - s)
                }
            })
            .collect();
        let zero = Limb::Const(0);
        let disjoint = |g: &[Limb]| g.iter().zip(&copy).all(|(p, q)| *p == zero || *q == zero);
        match groups.last_mut() {
            Some(g) if disjoint(g) => {
                for (p, q) in g.iter_mut().zip(&copy) {
                    if *q != zero {
                        *p = *q;
                    }
                }
            }
            _ => groups.push(copy),
        }
    }
    for g in &groups {
        acc = add_limbs(b, &acc, g);
    }
    Some(acc)
}

/// `x + y` on limbs (wrapping): one carry-in chain, the top limb's
/// carry out unread (on the SALU the chain's carry stays in `SCC`). A top
/// limb with no carry in is a plain add, which a target may fuse with
/// the shift or product that feeds it (AMD's `v_lshl_add_u32`).
fn add_limbs(b: &mut MirBuilder<'_>, x: &[Limb], y: &[Limb]) -> Vec<Limb> {
    let mut carry = Limb::Const(0);
    let n = x.len().min(y.len());
    x.iter()
        .zip(y)
        .enumerate()
        .map(|(i, (&p, &q))| {
            if i + 1 == n && carry == Limb::Const(0) {
                return b.bin(BinOp::Add, p, q);
            }
            let (s, c) = b.uadde(p, q, carry);
            carry = c;
            s
        })
        .collect()
}

/// The shift `2^s` when `v` is that constant (one limb a power of two,
/// the others zero).
pub fn power_of_two(v: &[Limb]) -> Option<u32> {
    let mut s = None;
    for (i, l) in v.iter().enumerate() {
        match *l {
            Limb::Const(0) => {}
            Limb::Const(c) if c.is_power_of_two() && s.is_none() => {
                s = Some(32 * i as u32 + c.trailing_zeros());
            }
            _ => return None,
        }
    }
    s
}

/// A target's shift of a whole value left by `s` bits (`None`: limb by
/// limb), for [`lower_pow2_shift`].
pub type WholeShift<'a> = dyn Fn(&[Limb], u32, &mut MirBuilder<'_>) -> Option<Vec<Limb>> + 'a;

/// A factor that is a constant power of two `2^s` (an element size of an
/// address, `x * 8`): the product is the other factor shifted left by
/// `s`, two shifts and an or per limb, where a sign-extended 32-bit
/// factor ([`MulPlan::sext32`]) gives the limb above its own in one
/// arithmetic shift (`x0 >> (32 - s)` with its sign) and the sign above
/// that. Otherwise `shl` may shift the whole `n`-limb factor the target's
/// way (as [`crate::target::Target::lower_shift`] does; `None`: the limb
/// shifts above). A fused addend is added after. For a target whose
/// multiplies cost more than shifts (a scalar unit with no multiply-add);
/// `None` when neither factor is such a constant.
pub fn lower_pow2_shift(
    plan: &MulPlan,
    b: &mut MirBuilder<'_>,
    shl: &WholeShift<'_>,
) -> Option<Vec<Limb>> {
    let (x, sext, s) = match (power_of_two(&plan.b), power_of_two(&plan.a)) {
        (Some(s), _) => (&plan.a, plan.sext32[0], s),
        (None, Some(s)) => (&plan.b, plan.sext32[1], s),
        (None, None) => return None,
    };
    let n = plan.limbs;
    let (m, k) = ((s / 32) as usize, s % 32);
    let limb = |v: &[Limb], i: usize| v.get(i).copied().unwrap_or(Limb::Const(0));
    let whole: Vec<Limb> = (0..n).map(|i| limb(x, i)).collect();
    let shifted = if sext { None } else { shl(&whole, s, b) };
    let r = match shifted {
        Some(r) => r,
        None => limb_shifts(b, &whole, sext, m, k),
    };
    Some(match plan.addend.as_deref() {
        Some(a) => {
            let a: Vec<Limb> = (0..n).map(|i| limb(a, i)).collect();
            add_limbs(b, &a, &r)
        }
        None => r,
    })
}

/// `x << (32 m + k)` limb by limb (`k < 32`): two shifts and an or per
/// limb, or for a sign-extended 32-bit `x` one arithmetic shift for the
/// limb above its own and the sign above that.
fn limb_shifts(b: &mut MirBuilder<'_>, x: &[Limb], sext: bool, m: usize, k: u32) -> Vec<Limb> {
    let n = x.len();
    let limb = |v: &[Limb], i: usize| v.get(i).copied().unwrap_or(Limb::Const(0));
    let mut sign = None;
    let mut r = Vec::with_capacity(n);
    for i in 0..n {
        let l = if i < m {
            Limb::Const(0)
        } else if k == 0 {
            limb(x, i - m)
        } else if sext && i - m >= 1 {
            let x0 = limb(x, 0);
            if i - m == 1 {
                b.bin(BinOp::AShr, x0, Limb::Const(32 - k))
            } else {
                *sign.get_or_insert_with(|| b.bin(BinOp::AShr, x0, Limb::Const(31)))
            }
        } else {
            let j = i - m;
            let up = b.bin(BinOp::Shl, limb(x, j), Limb::Const(k));
            let down = match j {
                0 => Limb::Const(0),
                _ => b.bin(BinOp::LShr, limb(x, j - 1), Limb::Const(32 - k)),
            };
            b.bin(BinOp::Or, up, down)
        };
        r.push(l);
    }
    r
}

/// The generic lowering: one `MAD64` per partial product below the top
/// column, one `MUL` per partial product in it.
pub fn lower_generic(plan: &MulPlan, b: &mut MirBuilder<'_>) -> Vec<Limb> {
    let n = plan.limbs;
    let zero = Limb::Const(0);
    let mut r: Vec<Limb> = match &plan.addend {
        Some(add) => (0..n)
            .map(|k| add.get(k).copied().unwrap_or(zero))
            .collect(),
        None => vec![zero; n],
    };
    let limb = |v: &[Limb], k: usize| v.get(k).copied().unwrap_or(Limb::Const(0));
    for i in 0..n {
        let ai = limb(&plan.a, i);
        if ai == zero {
            continue;
        }
        let mut carry = zero;
        for j in 0..n - i {
            let k = i + j;
            let bj = limb(&plan.b, j);
            if k == n - 1 {
                let p = b.bin(BinOp::Mul, ai, bj);
                let t = b.bin(BinOp::Add, r[k], p);
                r[k] = b.bin(BinOp::Add, t, carry);
                break;
            }
            if bj == zero {
                if carry == zero {
                    continue;
                }
                let (s, c) = b.uaddo(r[k], carry);
                r[k] = s;
                carry = c;
                continue;
            }
            // a_i * b_j + r[k] + carry < 2^64: one MAD whose 64-bit
            // accumulator is r[k] + carry (one add with carry out when
            // both are there).
            let (lo, hi) = if r[k] == zero {
                b.mad64(ai, bj, carry, zero)
            } else if carry == zero {
                b.mad64(ai, bj, r[k], zero)
            } else {
                let (s, c) = b.uaddo(r[k], carry);
                b.mad64(ai, bj, s, c)
            };
            r[k] = lo;
            carry = hi;
        }
    }
    r
}
