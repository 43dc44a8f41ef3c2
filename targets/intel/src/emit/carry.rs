//! Emission of the split 64-bit adds ([`crate::iadd64_split`]): the carry
//! out of the low half from the accumulator or from a flag, whichever
//! takes fewer instructions for the platform and SIMD width.
//!
//! Hardware facts served:
//!
//! - **Accumulator** (PRM Vol 2a "addc"; Vol 7 "Accumulator Registers"):
//!   `addc {AccWrEn}` leaves the carry in `acc0`, which holds 8 dword
//!   channels, so it runs in SIMD8 chunks. Gen9 and Gen11 read `acc0` as
//!   `src0` of `add` (`iga64 -Wall -p=9|11` accept
//!   `add (8|M0) r10.0<1>:ud acc0.0<8;8,1>:ud r12.0<8;8,1>:ud`, and reject
//!   `acc0` as `src1`); Gen12LP copies it out with a `mov` first
//!   ([`crate::regions`]).
//! - **Flag** (PRM Vol 2a "cmp"; Vol 7 "Flag Register", "Predication"):
//!   the carry out of a 32-bit add is `sum < addend` compared unsigned,
//!   `cmp (lt)f0.0 :ud`, at any execution size (16 bits of `f0.0`); a
//!   predicated `(f0.0) add hi hi 1` adds it. This back end relies on the
//!   comparison, not on the `.o` conditional modifier: the PRM defines
//!   `.o` as the result overflowing its type, and does not spell out that
//!   an unsigned dword add's overflow is its carry. `cmp` also writes its
//!   destination as all ones where it holds, so `add hi base -mask` adds
//!   the carry with no predicate (functions with divergent branches
//!   predicate every instruction by the block mask, and the high half of
//!   a `split3` may not sit in `base`'s register).
//!
//! # The cost model
//!
//! Each way (flag first, as it runs at the full SIMD width; then the
//! accumulator) is generated in each order that keeps every source
//! readable until its last read (high half first, low half first, or the
//! low half into scratch with a `mov` at the end); the valid candidate
//! with the fewest instructions is emitted, the flag winning a tie. Per
//! thread, for a pair:
//!
//! | | split4 | split3 | split2 |
//! |---|---|---|---|
//! | flag, SIMD8 or SIMD16 | 4 (`add`, `add`, `cmp`, `(f0.0) add`) | 3 | 3 (`add`, `cmp`, `and`) |
//! | acc0, Gen9/Gen11, SIMD8 | 3 (`add`, `addc`, `add acc0`) | 2 | 2 (`addc`, `mov acc0`) |
//! | acc0, Gen9/Gen11, SIMD16 | 5 | 4 | 4 |
//! | acc0, Gen12LP, SIMD8 | 4 (`add`, `addc`, `mov acc0`, `add`) | 3 | 2 |
//! | acc0, Gen12LP, SIMD16 | 6 | 5 | 4 |
//!
//! So the flag wins at SIMD16 everywhere and ties on Gen12LP SIMD8 split4;
//! the accumulator wins at SIMD8 on Gen9 and Gen11 (and for split2 at
//! SIMD8). Gen9's native `add :q` is never cheaper for these values: the
//! halves are separate SoA vectors, and interleaving them into qwords and
//! back costs 6 `mov`s (per SIMD8) around the one `add`, where the
//! carries above cost 3 or 4 instructions in all.

use regdesc_codegen::mir::MInst;
use regdesc_codegen::target::TargetError;

use super::{Chunk, Em, Loc, F0};
use crate::iadd64_split::{Part, Split};
use crate::isa::{Cond, Dst, Inst, Line, Op, Pred, RegName, Src, Ty};
use crate::swsb::{dst_bytes, src_bytes};
use crate::target::Platform;

/// Where the carry comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarrySource {
    Acc,
    Flag,
}

/// In which order the halves are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    HiFirst,
    LoFirst,
    /// The low half into scratch, moved into place last.
    Scratch,
}

/// The operands of one split add.
#[derive(Clone, Copy)]
struct Operands {
    lo: Option<Loc>,
    hi: Option<Loc>,
    a: Loc,
    b: Loc,
    /// The high halves of the addends there are.
    x: Option<Loc>,
    y: Option<Loc>,
}

/// A candidate sequence: the instructions, and for each the sources it
/// reads that must still hold the split add's operands.
pub(super) struct Cand {
    pub(super) insts: Vec<Inst>,
    pub(super) orig: Vec<Vec<Src>>,
}

impl Cand {
    /// Whether no instruction overwrites an operand a later one reads.
    pub(super) fn valid(&self) -> bool {
        let mut written: Vec<u32> = Vec::new();
        for (i, orig) in self.insts.iter().zip(&self.orig) {
            for s in orig {
                if src_bytes(s, i.exec).iter().any(|b| written.contains(b)) {
                    return false;
                }
            }
            if let Some(d) = &i.dst {
                written.extend(dst_bytes(d, i.exec));
            }
        }
        true
    }
}

const UD: Ty = Ty::Ud;

fn null() -> Dst {
    Dst {
        reg: RegName::Null,
        h: 1,
        ty: UD,
    }
}

impl Em<'_> {
    /// Appends `i`, recording which of its sources are the operands.
    pub(super) fn step(
        &mut self,
        cand: &mut Cand,
        c: Chunk,
        op: Op,
        dst: Dst,
        srcs: Vec<Src>,
        orig: &[Src],
    ) {
        let mark = self.out.len();
        self.push(c, op, dst, srcs);
        if let Some(Line::Inst(i)) = self.out.drain(mark..).next() {
            cand.insts.push(i);
            cand.orig.push(orig.to_vec());
        }
    }

    pub(super) fn last(cand: &mut Cand) -> Option<&mut Inst> {
        cand.insts.last_mut()
    }

    pub(super) fn split(&mut self, i: &MInst, sp: Split) -> Result<(), TargetError> {
        let defs = sp.defs();
        let (lo, hi) = match sp.part {
            Part::Lo => (Some(self.loc(i, 0)?), None),
            Part::Hi => (None, Some(self.loc(i, 0)?)),
            Part::Pair => (Some(self.loc(i, 0)?), Some(self.loc(i, 1)?)),
        };
        let src = |k: usize| self.loc(i, defs + k);
        let o = Operands {
            lo,
            hi,
            a: src(0)?,
            b: src(1)?,
            x: if sp.n >= 3 { Some(src(2)?) } else { None },
            y: if sp.n >= 4 { Some(src(3)?) } else { None },
        };
        if hi.is_none() {
            // The low half alone: a 32-bit add.
            let Some(lo) = lo else { return Ok(()) };
            for c in self.full(lo) {
                self.alu(
                    c,
                    Op::Add,
                    lo,
                    Self::src(c, o.a, UD),
                    Some(Self::src(c, o.b, UD)),
                );
            }
            return Ok(());
        }
        let mut best: Option<(Cand, CarrySource)> = None;
        for way in [CarrySource::Flag, CarrySource::Acc] {
            for order in [Order::HiFirst, Order::LoFirst, Order::Scratch] {
                let Some(c) = self.candidate(&o, sp.n, way, order) else {
                    continue;
                };
                if !c.valid() {
                    continue;
                }
                if best
                    .as_ref()
                    .is_none_or(|(b, _)| c.insts.len() < b.insts.len())
                {
                    best = Some((c, way));
                }
            }
        }
        let Some((cand, _)) = best else {
            return Err(super::unsupported(
                self.f,
                format!("`{}`: no carry sequence fits its registers", self.name(i)),
            ));
        };
        self.out.extend(cand.insts.into_iter().map(Line::Inst));
        Ok(())
    }

    /// One way and order of computing `o` (`None`: it does not apply).
    fn candidate(&mut self, o: &Operands, n: u8, way: CarrySource, order: Order) -> Option<Cand> {
        let hi = o.hi?;
        let lane = matches!(hi, Loc::Lane(_));
        // Where the low sum goes: the low half, or scratch.
        let sum = match (o.lo, order) {
            (Some(lo), Order::HiFirst | Order::LoFirst) => Some(lo),
            (_, Order::Scratch) => Some(self.tmp(0, lane)),
            // No low half: scratch (flag) or null (accumulator).
            (None, _) => (way == CarrySource::Flag).then(|| self.tmp(0, lane)),
        };
        if o.lo.is_none() && order == Order::Scratch {
            return None;
        }
        let mut cand = Cand {
            insts: Vec::new(),
            orig: Vec::new(),
        };
        match way {
            CarrySource::Flag => self.flag(&mut cand, o, n, order, sum?, hi)?,
            CarrySource::Acc => self.acc(&mut cand, o, n, order, sum, hi)?,
        }
        if let (Order::Scratch, Some(lo), Some(s)) = (order, o.lo, sum) {
            for c in self.full(lo) {
                let src = Self::src(c, s, UD);
                self.step(&mut cand, c, Op::Mov, Self::dst(c, lo, UD), vec![src], &[]);
            }
        }
        Some(cand)
    }

    /// `add hi = x + y` (split4) over `chunks`.
    fn high_sum(&mut self, cand: &mut Cand, o: &Operands, chunks: &[Chunk], hi: Loc) {
        let (Some(x), Some(y)) = (o.x, o.y) else {
            return;
        };
        for &c in chunks {
            let (sx, sy) = (Self::src(c, x, UD), Self::src(c, y, UD));
            self.step(
                cand,
                c,
                Op::Add,
                Self::dst(c, hi, UD),
                vec![sx, sy],
                &[sx, sy],
            );
        }
    }

    fn flag(
        &mut self,
        cand: &mut Cand,
        o: &Operands,
        n: u8,
        order: Order,
        sum: Loc,
        hi: Loc,
    ) -> Option<()> {
        // The addend the sum is compared with: one the sum did not
        // overwrite.
        let other = if sum != o.b {
            o.b
        } else if sum != o.a {
            o.a
        } else {
            return None;
        };
        let full = self.full(hi);
        let lane = matches!(hi, Loc::Lane(_));
        // The carry is added by predication when the base is already in
        // `hi` (split4 after its high sum, split3 in place) and no block
        // mask predicates the function; otherwise by the compare's mask.
        let in_place = n == 4 || (n == 3 && o.x == Some(hi));
        let predicate = in_place && !self.divergent && n >= 3;
        if n == 4 && order == Order::HiFirst {
            self.high_sum(cand, o, &full, hi);
        }
        if n < 4 && order == Order::HiFirst {
            // Only split4 has a high-first order.
            return None;
        }
        let mask = self.tmp(3, lane);
        for &c in &full {
            let (sa, sb) = (Self::src(c, o.a, UD), Self::src(c, o.b, UD));
            self.step(
                cand,
                c,
                Op::Add,
                Self::dst(c, sum, UD),
                vec![sa, sb],
                &[sa, sb],
            );
            let so = Self::src(c, other, UD);
            let cmp_dst = if predicate {
                null()
            } else if n == 2 && !self.divergent {
                Self::dst(c, hi, UD)
            } else {
                Self::dst(c, mask, UD)
            };
            self.step(
                cand,
                c,
                Op::Cmp,
                cmp_dst,
                vec![Self::src(c, sum, UD), so],
                &[so],
            );
            if let Some(i) = Self::last(cand) {
                i.cond = Some((Cond::Lt, F0));
            }
        }
        if n == 4 && order != Order::HiFirst {
            self.high_sum(cand, o, &full, hi);
        }
        for &c in &full {
            let d = Self::dst(c, hi, UD);
            if predicate {
                // split3 in place reads `x` itself.
                let sh = Self::src(c, hi, UD);
                let orig = if n == 3 { vec![sh] } else { vec![] };
                self.step(cand, c, Op::Add, d, vec![sh, Self::imm_src(1)], &orig);
                if let Some(i) = Self::last(cand) {
                    i.pred = Some(Pred {
                        flag: F0,
                        invert: false,
                        ctrl: None,
                    });
                }
            } else if n == 2 {
                let t = if self.divergent { mask } else { hi };
                let st = Self::src(c, t, UD);
                self.step(cand, c, Op::And, d, vec![st, Self::imm_src(1)], &[]);
            } else {
                let m = Self::src(c, mask, UD).negated(true);
                let (base, orig) = if n == 4 {
                    (Self::src(c, hi, UD), vec![])
                } else {
                    let sx = Self::src(c, o.x?, UD);
                    (sx, vec![sx])
                };
                self.step(cand, c, Op::Add, d, vec![base, m], &orig);
            }
        }
        Some(())
    }

    fn acc(
        &mut self,
        cand: &mut Cand,
        o: &Operands,
        n: u8,
        order: Order,
        sum: Option<Loc>,
        hi: Loc,
    ) -> Option<()> {
        let full = self.full(hi);
        let chunks = self.acc_chunks(hi);
        let lane = matches!(hi, Loc::Lane(_));
        // Gen12LP reads the accumulator only through `mov`.
        let via_mov = self.gen.platform == Platform::Gen12lp;
        let t = self.tmp(1, lane);
        if n < 4 && order == Order::HiFirst {
            return None;
        }
        if n == 4 && order == Order::HiFirst {
            self.high_sum(cand, o, &full, hi);
        }
        for &c in &chunks {
            let (sa, sb) = (Self::src(c, o.a, UD), Self::src(c, o.b, UD));
            let d = sum.map_or_else(null, |s| Self::dst(c, s, UD));
            self.step(cand, c, Op::Addc, d, vec![sa, sb], &[sa, sb]);
            if let Some(i) = Self::last(cand) {
                i.acc_wr = true;
            }
            let acc = Self::acc_src(c);
            let dh = Self::dst(c, hi, UD);
            match n {
                2 => self.step(cand, c, Op::Mov, dh, vec![acc], &[]),
                _ if via_mov => self.step(cand, c, Op::Mov, Self::dst(c, t, UD), vec![acc], &[]),
                3 => {
                    let sx = Self::src(c, o.x?, UD);
                    self.step(cand, c, Op::Add, dh, vec![acc, sx], &[sx]);
                }
                _ => {
                    if order != Order::HiFirst {
                        self.high_sum(cand, o, &[c], hi);
                    }
                    let sh = Self::src(c, hi, UD);
                    self.step(cand, c, Op::Add, dh, vec![acc, sh], &[]);
                }
            }
        }
        if via_mov && n >= 3 {
            if n == 4 && order != Order::HiFirst {
                self.high_sum(cand, o, &full, hi);
            }
            for &c in &full {
                let (base, orig) = if n == 4 {
                    (Self::src(c, hi, UD), vec![])
                } else {
                    let sx = Self::src(c, o.x?, UD);
                    (sx, vec![sx])
                };
                let st = Self::src(c, t, UD);
                self.step(
                    cand,
                    c,
                    Op::Add,
                    Self::dst(c, hi, UD),
                    vec![base, st],
                    &orig,
                );
            }
        }
        Some(())
    }
}

impl Em<'_> {
    /// `d, c = addc.cin a, b, cin` (`G_UADDE`, defs early-clobber): the
    /// accumulator (`addc`, `mov c acc0`, `addc`, then `add c acc0 c` on
    /// Gen9/Gen11 or `mov`, `or` on Gen12LP, per SIMD8 chunk) or flags at
    /// full width (`add`, `cmp (lt)` into a mask, `add` of the carry in,
    /// `cmp (lt)`, and `c = -mask1 - mask2`: the two carries are never
    /// both set), whichever is fewer instructions, the flags on a tie.
    pub(super) fn addc_cin(&mut self, i: &MInst) -> Result<(), TargetError> {
        let (dl, cl, al, bl, inl) = (
            self.loc(i, 0)?,
            self.loc(i, 1)?,
            self.loc(i, 2)?,
            self.loc(i, 3)?,
            self.loc(i, 4)?,
        );
        let lane = matches!(dl, Loc::Lane(_));
        let mut flag = Cand {
            insts: Vec::new(),
            orig: Vec::new(),
        };
        let (m1, m2) = (self.tmp(3, lane), self.tmp(2, lane));
        for c in self.full(dl) {
            let (a, b, cin) = (
                Self::src(c, al, UD),
                Self::src(c, bl, UD),
                Self::src(c, inl, UD),
            );
            let d = Self::dst(c, dl, UD);
            let sd = Self::src(c, dl, UD);
            self.step(&mut flag, c, Op::Add, d, vec![a, b], &[]);
            self.step(
                &mut flag,
                c,
                Op::Cmp,
                Self::dst(c, m1, UD),
                vec![sd, b],
                &[],
            );
            if let Some(x) = Self::last(&mut flag) {
                x.cond = Some((Cond::Lt, F0));
            }
            self.step(&mut flag, c, Op::Add, d, vec![sd, cin], &[]);
            self.step(
                &mut flag,
                c,
                Op::Cmp,
                Self::dst(c, m2, UD),
                vec![sd, cin],
                &[],
            );
            if let Some(x) = Self::last(&mut flag) {
                x.cond = Some((Cond::Lt, F0));
            }
            let (n1, n2) = (
                Self::src(c, m1, UD).negated(true),
                Self::src(c, m2, UD).negated(true),
            );
            self.step(
                &mut flag,
                c,
                Op::Add,
                Self::dst(c, cl, UD),
                vec![n1, n2],
                &[],
            );
        }
        let mut acc = Cand {
            insts: Vec::new(),
            orig: Vec::new(),
        };
        let t = self.tmp(0, lane);
        let via_mov = self.gen.platform == Platform::Gen12lp;
        for c in self.acc_chunks(dl) {
            let (a, b, cin) = (
                Self::src(c, al, UD),
                Self::src(c, bl, UD),
                Self::src(c, inl, UD),
            );
            let (d, sd) = (Self::dst(c, dl, UD), Self::src(c, dl, UD));
            let (dc, sc) = (Self::dst(c, cl, UD), Self::src(c, cl, UD));
            self.step(&mut acc, c, Op::Addc, d, vec![a, b], &[]);
            if let Some(x) = Self::last(&mut acc) {
                x.acc_wr = true;
            }
            self.step(&mut acc, c, Op::Mov, dc, vec![Self::acc_src(c)], &[]);
            self.step(&mut acc, c, Op::Addc, d, vec![sd, cin], &[]);
            if let Some(x) = Self::last(&mut acc) {
                x.acc_wr = true;
            }
            if via_mov {
                let st = Self::src(c, t, UD);
                self.step(
                    &mut acc,
                    c,
                    Op::Mov,
                    Self::dst(c, t, UD),
                    vec![Self::acc_src(c)],
                    &[],
                );
                self.step(&mut acc, c, Op::Or, dc, vec![sc, st], &[]);
            } else {
                self.step(&mut acc, c, Op::Add, dc, vec![Self::acc_src(c), sc], &[]);
            }
        }
        let best = if acc.insts.len() < flag.insts.len() {
            acc
        } else {
            flag
        };
        self.out.extend(best.insts.into_iter().map(Line::Inst));
        Ok(())
    }
}
