//! Where the chains of [`super::lower_mul`] go: into the function
//! ([`Build`]), or into a count of the instructions they would select to
//! ([`Count`]), so that the cost model can lower a multiply two ways and
//! keep the shorter.
//!
//! The count's rules (the selection and allocation facts it models):
//! - every MAD, multiply and add is one instruction; an add whose operand
//!   is a carry reads it as `v_addc`'s carry-in, and a carry read any other
//!   way (a MAD's accumulator half, the second carry of an add) is one
//!   `v_cndmask_b32` first;
//! - a MAD's 64-bit accumulator is free when it is the constant 0, a pair
//!   one earlier MAD wrote, or two registers the allocator can place side
//!   by side; a constant half next to a register is one `v_mov_b32`, and
//!   so is a MAD's low half as the high half (that MAD's pair cannot move
//!   up by one); where pairs start at even registers (gfx90a), an
//!   accumulator starting at an odd one (the high half of a pair, or an
//!   argument that arrived at an odd VGPR) is one copy;
//! - an instruction reads at most `constant_bus` SGPRs (a uniform input,
//!   a carry-in lane mask, an SGPR accumulator pair); each read past that
//!   is a `v_mov_b32` of a uniform input into a VGPR, which later reads
//!   then take;
//! - where the result returns over a factor ([`MulPlan::result_over_factor`]),
//!   a factor limb that arrived in result register `k` and is read after
//!   result limb `k` is written is one copy ([`Count::moves`]).
//!
//! Constants fold as [`MirBuilder`] folds them, so both sinks see the same
//! chains.

use regdesc_codegen::ir::BinOp;
use regdesc_codegen::legalize::{Limb, MirBuilder, MulPlan};
use regdesc_codegen::mir::{def, use_, Opcode, VReg};

/// The operations the chains emit.
pub(super) trait Sink {
    /// `x * y + (hi:lo)` as (low, high) halves.
    fn mad(&mut self, x: Limb, y: Limb, lo: Limb, hi: Limb) -> (Limb, Limb);
    /// The same and the carry out of bit 63 (0 or 1).
    fn mad_carry(&mut self, x: Limb, y: Limb, lo: Limb, hi: Limb) -> (Limb, Limb, Limb);
    /// A 32-bit sum, wrapping.
    fn add(&mut self, a: Limb, b: Limb) -> Limb;
    /// A 32-bit difference, wrapping.
    fn sub(&mut self, a: Limb, b: Limb) -> Limb;
    /// The low 32 bits of a product.
    fn mul(&mut self, a: Limb, b: Limb) -> Limb;
    /// Sum with carry in, and carry out.
    fn uadde(&mut self, a: Limb, b: Limb, c: Limb) -> (Limb, Limb);
    /// A value no bit read depends on (an accumulator's high half when
    /// only the MAD's low half is read).
    fn undef(&mut self) -> Limb;
    /// Whether 64-bit VGPR operands start at even registers (gfx90a).
    fn aligned_pairs(&self) -> bool;
    /// Whether `l` is a value as it arrived (an argument's register).
    fn arrived(&self, l: Limb) -> bool;
    /// Whether a MAD pair may be written over `acc`'s register and the
    /// one after it: `acc` is per lane, and it arrived in no register or
    /// in one after which no argument arrived (that one would be moved).
    fn pair_fits_over(&self, acc: Limb) -> bool;
}

/// [`Sink::pair_fits_over`] from where `acc` arrived (its VGPR index) and
/// whether VGPR `k` holds an argument.
fn pair_fits(uniform: bool, at: Option<usize>, argument_in: impl Fn(usize) -> bool) -> bool {
    !uniform && at.is_none_or(|k| !argument_in(k + 1))
}

/// The chains into the function, `mad_carry` as the legalize-level pseudo
/// `G_AMD_MAD64_CO`.
pub(super) struct Build<'b, 'a> {
    pub b: &'b mut MirBuilder<'a>,
    pub mad_co: Opcode,
    pub aligned_pairs: bool,
}

impl Sink for Build<'_, '_> {
    fn mad(&mut self, x: Limb, y: Limb, lo: Limb, hi: Limb) -> (Limb, Limb) {
        self.b.mad64(x, y, lo, hi)
    }

    fn mad_carry(&mut self, x: Limb, y: Limb, lo: Limb, hi: Limb) -> (Limb, Limb, Limb) {
        let b = &mut *self.b;
        let (x, y, lo, hi) = (b.reg(x), b.reg(y), b.reg(lo), b.reg(hi));
        let (dl, dh, dc) = (b.new_reg(), b.new_reg(), b.new_reg());
        b.push(
            self.mad_co,
            vec![
                def(dl),
                def(dh),
                def(dc),
                use_(x),
                use_(y),
                use_(lo),
                use_(hi),
            ],
        );
        (Limb::Reg(dl), Limb::Reg(dh), Limb::Reg(dc))
    }

    fn add(&mut self, a: Limb, b: Limb) -> Limb {
        self.b.bin(BinOp::Add, a, b)
    }

    fn sub(&mut self, a: Limb, b: Limb) -> Limb {
        self.b.bin(BinOp::Sub, a, b)
    }

    fn mul(&mut self, a: Limb, b: Limb) -> Limb {
        self.b.bin(BinOp::Mul, a, b)
    }

    fn uadde(&mut self, a: Limb, b: Limb, c: Limb) -> (Limb, Limb) {
        self.b.uadde(a, b, c)
    }

    fn undef(&mut self) -> Limb {
        self.b.undef()
    }

    fn aligned_pairs(&self) -> bool {
        self.aligned_pairs
    }

    fn arrived(&self, l: Limb) -> bool {
        self.b.arrival(l).is_some()
    }

    fn pair_fits_over(&self, acc: Limb) -> bool {
        let at = self.b.arrival(acc).and_then(crate::abi::vgpr_index);
        pair_fits(self.b.is_uniform(acc), at, |k| {
            crate::abi::vgpr(k).is_some_and(|r| self.b.arrived_in(r))
        })
    }
}

/// What a value of the count is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An input of the multiply (a factor or addend limb): the VGPR it
    /// arrived in, or whether it is an SGPR (uniform; `false` once it was
    /// copied into a VGPR).
    Input(Option<usize>, bool),
    /// A 32-bit result.
    Plain,
    /// A carry not yet in a register (a lane mask).
    Carry,
    /// Half `1` (high) or `0` of the pair that MAD number `.0` wrote.
    Half(usize, u8),
}

/// The count: instructions the chains would select to, and the order
/// they read and write values in (for [`Count::moves`]).
pub(super) struct Count {
    pub instrs: usize,
    aligned_pairs: bool,
    constant_bus: usize,
    /// Per value of the count (`VReg` ids from `first`), what it is.
    kinds: Vec<Kind>,
    first: u32,
    /// The inputs by register ([`Kind::Input`]).
    inputs: Vec<(VReg, Kind)>,
    /// Per instruction: the values it reads.
    reads: Vec<Vec<Limb>>,
    /// Per value of the count: the instruction that wrote it.
    written: Vec<usize>,
    mads: usize,
    /// The VGPRs some argument of the function arrived in.
    argument_vgprs: Vec<usize>,
}

impl Count {
    /// A count for `plan`'s inputs (`b` knows where they arrived).
    pub fn new(plan: &MulPlan, b: &MirBuilder<'_>, facts: super::MulFacts) -> Count {
        let mut inputs: Vec<(VReg, Kind)> = Vec::new();
        let addend = plan.addend.as_deref().unwrap_or(&[]);
        for l in plan.a.iter().chain(&plan.b).chain(addend) {
            if let Limb::Reg(v) = *l {
                if !inputs.iter().any(|(r, _)| *r == v) {
                    let at = b.arrival(*l).and_then(crate::abi::vgpr_index);
                    inputs.push((v, Kind::Input(at, b.is_uniform(*l))));
                }
            }
        }
        // The count's own values are numbered past every register of the
        // function, so that none equals an input.
        let first = b.f.vregs.len() as u32;
        let argument_vgprs = (0..crate::abi::ARG_VGPRS)
            .filter(|&k| crate::abi::vgpr(k).is_some_and(|r| b.arrived_in(r)))
            .collect();
        Count {
            argument_vgprs,
            instrs: 0,
            aligned_pairs: facts.aligned_pairs,
            constant_bus: facts.constant_bus,
            kinds: Vec::new(),
            first,
            inputs,
            reads: Vec::new(),
            written: Vec::new(),
            mads: 0,
        }
    }

    fn kind(&self, l: Limb) -> Option<Kind> {
        let Limb::Reg(v) = l else { return None };
        match v.0.checked_sub(self.first) {
            Some(i) => self.kinds.get(i as usize).copied(),
            None => self.inputs.iter().find(|(r, _)| *r == v).map(|&(_, k)| k),
        }
    }

    fn value(&mut self, kind: Kind) -> Limb {
        let id = self.first + self.kinds.len() as u32;
        self.kinds.push(kind);
        self.written.push(self.reads.len());
        Limb::Reg(VReg(id))
    }

    /// One instruction reading `reads`; a carry among them that is not a
    /// carry-in (`carry_in`: the one an add may take) is a `v_cndmask_b32`
    /// first, and then a number.
    fn instr(&mut self, reads: &[Limb], carry_in: Option<Limb>) {
        self.instr_acc(reads, carry_in, None);
    }

    /// [`Count::instr`] with a 64-bit accumulator operand (one SGPR pair
    /// read where it is uniform).
    fn instr_acc(&mut self, reads: &[Limb], carry_in: Option<Limb>, acc: Option<(Limb, Limb)>) {
        let (lo, hi) = acc.unwrap_or((Limb::Const(0), Limb::Const(0)));
        for &l in reads.iter().chain([&lo, &hi]) {
            if Some(l) != carry_in && self.kind(l) == Some(Kind::Carry) {
                self.instrs += 1;
                self.retype(l, Kind::Plain);
            }
        }
        let mut sgprs: Vec<Limb> = reads
            .iter()
            .copied()
            .filter(|l| matches!(self.kind(*l), Some(Kind::Input(_, true))))
            .collect();
        sgprs.dedup();
        let scalar = |l: Limb| matches!(self.kind(l), Some(Kind::Input(_, true)));
        let bus = sgprs.len()
            + usize::from(carry_in.is_some_and(|c| self.kind(c) == Some(Kind::Carry)))
            + usize::from(scalar(lo) || scalar(hi));
        // The last uniform inputs read are copied (a MAD's second factor,
        // an add's addend limb).
        for &l in sgprs
            .iter()
            .rev()
            .take(bus.saturating_sub(self.constant_bus))
        {
            self.instrs += 1;
            self.retype(l, Kind::Input(None, false));
        }
        self.instrs += 1;
        let mut all = reads.to_vec();
        all.extend([lo, hi]);
        self.reads.push(all);
    }

    fn retype(&mut self, l: Limb, kind: Kind) {
        let Limb::Reg(v) = l else { return };
        match v.0.checked_sub(self.first) {
            Some(i) => {
                if let Some(k) = self.kinds.get_mut(i as usize) {
                    *k = kind;
                }
            }
            None => {
                if let Some((_, k)) = self.inputs.iter_mut().find(|(r, _)| *r == v) {
                    *k = kind;
                }
            }
        }
    }

    /// Instructions that build the accumulator pair `(lo, hi)`.
    fn pair_cost(&self, lo: Limb, hi: Limb) -> usize {
        match (lo, hi) {
            (Limb::Const(0), Limb::Const(0)) => 0,
            (Limb::Const(l), Limb::Const(h)) => usize::from(l > 64 || h != 0) * 2,
            (Limb::Const(_), _) | (_, Limb::Const(_)) => 1,
            _ => {
                let (kl, kh) = (self.kind(lo), self.kind(hi));
                match (kl, kh) {
                    (Some(Kind::Half(m, 0)), Some(Kind::Half(n, 1))) if m == n => 0,
                    // The middle pair of two MAD pairs (`straddle` in
                    // `select.rs`).
                    (Some(Kind::Half(_, 1)), Some(Kind::Half(_, 0))) => {
                        usize::from(self.aligned_pairs)
                    }
                    (_, Some(Kind::Half(_, 0))) => 1,
                    (Some(Kind::Half(_, 1)), _) if self.aligned_pairs => 1,
                    (Some(Kind::Input(Some(at), _)), _) if self.aligned_pairs && at % 2 == 1 => 1,
                    _ => 0,
                }
            }
        }
    }

    fn mad_pair(&mut self, x: Limb, y: Limb, lo: Limb, hi: Limb) -> (Limb, Limb) {
        self.instrs += self.pair_cost(lo, hi);
        self.instr_acc(&[x, y], None, Some((lo, hi)));
        let m = self.mads;
        self.mads += 1;
        (self.value(Kind::Half(m, 0)), self.value(Kind::Half(m, 1)))
    }

    /// Copies the allocator makes where the result returns over a factor
    /// (`plan.result_over_factor`): per result limb `k`, one when the
    /// input that arrived in VGPR `k` is read after VGPR `k` is written:
    /// by `result[k]`, or by the high half of a MAD whose low half is
    /// `result[k - 1]` (the pair goes where that limb returns).
    pub fn moves(&self, result: &[Limb]) -> usize {
        (0..result.len())
            .filter(|&k| {
                let below = k
                    .checked_sub(1)
                    .filter(|&j| matches!(self.kind(result[j]), Some(Kind::Half(_, 0))))
                    .and_then(|j| self.written_at(result[j]));
                let own = self.written_at(result[k]);
                let Some(done) = own.into_iter().chain(below).min() else {
                    return false;
                };
                self.inputs.iter().any(|&(v, kind)| {
                    matches!(kind, Kind::Input(Some(at), _) if at == k)
                        && self
                            .reads
                            .iter()
                            .enumerate()
                            .any(|(t, r)| t > done && r.contains(&Limb::Reg(v)))
                })
            })
            .count()
    }

    fn written_at(&self, l: Limb) -> Option<usize> {
        let Limb::Reg(v) = l else { return None };
        let i = v.0.checked_sub(self.first)?;
        self.written.get(i as usize).copied()
    }
}

impl Sink for Count {
    fn mad(&mut self, x: Limb, y: Limb, lo: Limb, hi: Limb) -> (Limb, Limb) {
        match (x, y, lo, hi) {
            (Limb::Const(0), ..) | (_, Limb::Const(0), ..) => (lo, hi),
            (Limb::Const(a), Limb::Const(b), Limb::Const(l), Limb::Const(h)) => {
                let r = u64::from(a) * u64::from(b) + (u64::from(l) | (u64::from(h) << 32));
                (Limb::Const(r as u32), Limb::Const((r >> 32) as u32))
            }
            _ => self.mad_pair(x, y, lo, hi),
        }
    }

    fn mad_carry(&mut self, x: Limb, y: Limb, lo: Limb, hi: Limb) -> (Limb, Limb, Limb) {
        let (l, h) = self.mad_pair(x, y, lo, hi);
        (l, h, self.value(Kind::Carry))
    }

    fn add(&mut self, a: Limb, b: Limb) -> Limb {
        match (a, b) {
            (Limb::Const(x), Limb::Const(y)) => Limb::Const(x.wrapping_add(y)),
            (Limb::Const(0), x) | (x, Limb::Const(0)) => x,
            _ => {
                let carry_in = [b, a]
                    .into_iter()
                    .find(|l| self.kind(*l) == Some(Kind::Carry));
                self.instr(&[a, b], carry_in);
                self.value(Kind::Plain)
            }
        }
    }

    fn sub(&mut self, a: Limb, b: Limb) -> Limb {
        match (a, b) {
            (Limb::Const(x), Limb::Const(y)) => Limb::Const(x.wrapping_sub(y)),
            (x, Limb::Const(0)) => x,
            _ => {
                self.instr(&[a, b], None);
                self.value(Kind::Plain)
            }
        }
    }

    fn mul(&mut self, a: Limb, b: Limb) -> Limb {
        match (a, b) {
            (Limb::Const(x), Limb::Const(y)) => Limb::Const(x.wrapping_mul(y)),
            (Limb::Const(0), _) | (_, Limb::Const(0)) => Limb::Const(0),
            (Limb::Const(1), x) | (x, Limb::Const(1)) => x,
            _ => {
                self.instr(&[a, b], None);
                self.value(Kind::Plain)
            }
        }
    }

    fn uadde(&mut self, a: Limb, b: Limb, c: Limb) -> (Limb, Limb) {
        match (a, b, c) {
            (Limb::Const(x), Limb::Const(y), Limb::Const(z)) => {
                let s = u64::from(x) + u64::from(y) + u64::from(z);
                (Limb::Const(s as u32), Limb::Const((s >> 32) as u32))
            }
            (x, Limb::Const(0), Limb::Const(0)) | (Limb::Const(0), x, Limb::Const(0)) => {
                (x, Limb::Const(0))
            }
            (Limb::Const(0), Limb::Const(0), c) => (c, Limb::Const(0)),
            _ => {
                self.instr(&[a, b, c], Some(c));
                (self.value(Kind::Plain), self.value(Kind::Carry))
            }
        }
    }

    fn undef(&mut self) -> Limb {
        self.value(Kind::Plain)
    }

    fn aligned_pairs(&self) -> bool {
        self.aligned_pairs
    }

    fn arrived(&self, l: Limb) -> bool {
        self.inputs
            .iter()
            .any(|&(v, kind)| Limb::Reg(v) == l && matches!(kind, Kind::Input(Some(_), _)))
    }

    fn pair_fits_over(&self, acc: Limb) -> bool {
        let (at, uniform) = match self.kind(acc) {
            Some(Kind::Input(at, uniform)) => (at, uniform),
            _ => (None, false),
        };
        pair_fits(uniform, at, |k| self.argument_vgprs.contains(&k))
    }
}
