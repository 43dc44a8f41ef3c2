//! The split 64-bit add (seeds 000/003, Mesa's `iadd64_split[234]_(hi|lo)`)
//! and the pass that forms it after selection.
//!
//! The hardware fact served: Gen11 and Gen12LP have no 64-bit integer ALU
//! (Gen9's `:q` needs interleaved qwords, which per-lane SoA halves are
//! not), so a 64-bit add is 32-bit adds plus a carry — and the carry can
//! come from the accumulator (`addc {AccWrEn}`, SIMD8 only) or from a flag
//! (`cmp.l:ud`, any width). Which is cheaper depends on the platform and
//! the SIMD width ([`crate::emit`]'s carry lowering chooses by count);
//! this pass gives it the whole 64-bit add to choose for.
//!
//! # The opcodes
//!
//! `iadd64_splitN_lo` and `iadd64_splitN_hi` take `N` 32-bit sources: the
//! low halves of both addends, then the high halves there are (`N - 2` of
//! them). With `c = (src0 + src1 < src1)`, the carry out of the low half:
//!
//! | opcode | result |
//! |---|---|
//! | `iadd64_split4_hi a_lo, b_lo, a_hi, b_hi` | `c + a_hi + b_hi` |
//! | `iadd64_split3_hi a_lo, b_lo, a_hi` | `c + a_hi` |
//! | `iadd64_split2_hi a_lo, b_lo` | `c` (a `uadd_carry`) |
//! | `iadd64_splitN_lo ...` | `a_lo + b_lo` |
//!
//! The matched pair `lo, hi = iadd64_splitN ...` defines both halves and
//! computes the carry once ("matched hi/lo pairs share their carry
//! computation").
//!
//! # The pass
//!
//! The legalizer leaves a 64-bit add as `lo, c = addc a_lo, b_lo`,
//! `s = add a_hi, b_hi`, `hi = add s, c` (with the known-zero high halves
//! already folded away). [`run`] matches that into `iadd64_split4` (or
//! `split3` when the high halves' sum is not a single-use `add`), a lone
//! `addc` into `iadd64_split2` (its carry is `split2_hi`), and applies the
//! seed's rewrite rules ([`rewrite`]): a zero high source drops to the next
//! smaller form; a zero low source leaves no carry, so the high half is a
//! plain 32-bit add or a pass-through and the low half the other source.
//! (The seed writes `iadd64_split4_lo a, 0, b, c -> c`; the low half of
//! `a + 0` is `a`, which is what this pass does.) A half nobody reads is
//! not computed: a lone `_lo` is a plain `add`, a lone `_hi` is emitted
//! without its low result.

use std::collections::HashMap;

use regdesc_codegen::mir::instr::{InstrDesc, OpKind};
use regdesc_codegen::mir::interp::{Bits, Flow, InterpError, MachineCx};
use regdesc_codegen::mir::{
    InstrSet, MBlockId, MFunction, MInst, Opcode, Operand, RegOperand, RegRef, Sem, VReg,
};

/// The first [`Sem::Target`] number of the split opcodes.
const TARGET_BASE: u16 = 0x100;

/// Which half a split opcode writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Lo,
    Hi,
    /// Both: `lo, hi = iadd64_splitN ...`.
    Pair,
}

/// One of the split opcodes: `N` sources (2, 3 or 4) and the half it
/// writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Split {
    pub n: u8,
    pub part: Part,
}

impl Split {
    /// The six opcodes of the seed and the three pairs.
    pub const ALL: [Split; 9] = {
        let p = [Part::Lo, Part::Hi, Part::Pair];
        let mut out = [Split {
            n: 2,
            part: Part::Lo,
        }; 9];
        let mut k = 0;
        while k < 9 {
            out[k] = Split {
                n: 4 - (k / 3) as u8,
                part: p[k % 3],
            };
            k += 1;
        }
        out
    };

    pub fn name(self) -> String {
        match self.part {
            Part::Lo => format!("iadd64_split{}_lo", self.n),
            Part::Hi => format!("iadd64_split{}_hi", self.n),
            Part::Pair => format!("iadd64_split{}", self.n),
        }
    }

    /// Its [`Sem::Target`] number.
    pub fn id(self) -> u16 {
        let k = Split::ALL.iter().position(|s| *s == self).unwrap_or(0);
        TARGET_BASE + k as u16
    }

    pub fn from_id(id: u16) -> Option<Split> {
        id.checked_sub(TARGET_BASE)
            .and_then(|k| Split::ALL.get(usize::from(k)).copied())
    }

    /// Explicit defs.
    pub fn defs(self) -> usize {
        if self.part == Part::Pair {
            2
        } else {
            1
        }
    }

    /// `(lo, hi)` of the 64-bit sum the sources describe.
    pub fn eval(self, srcs: &[u32]) -> (u32, u32) {
        let get = |k: usize| srcs.get(k).copied().unwrap_or(0);
        let (lo, c) = get(0).overflowing_add(get(1));
        let mut hi = u32::from(c);
        for k in 2..usize::from(self.n) {
            hi = hi.wrapping_add(get(k));
        }
        (lo, hi)
    }
}

/// Adds the split opcodes to `s`.
pub fn add_instructions(s: &mut InstrSet) {
    for sp in Split::ALL {
        let ops = vec![OpKind::Reg; usize::from(sp.n)];
        s.add(InstrDesc::new(
            &sp.name(),
            sp.defs(),
            &ops,
            Sem::Target(sp.id()),
        ));
    }
}

/// Runs split opcode `sp` in the machine interpreter (every active lane).
pub fn execute(sp: Split, cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
    let defs = sp.defs();
    let exec = cx.exec();
    for lane in (0..cx.lanes()).filter(|l| exec & (1u64 << l) != 0) {
        let mut srcs = Vec::with_capacity(usize::from(sp.n));
        for k in 0..usize::from(sp.n) {
            srcs.push(cx.read(defs + k, lane)?.to_u128() as u32);
        }
        let (lo, hi) = sp.eval(&srcs);
        let b = |v: u32| Bits::from_u128(32, u128::from(v));
        match sp.part {
            Part::Lo => cx.write(0, lane, b(lo))?,
            Part::Hi => cx.write(0, lane, b(hi))?,
            Part::Pair => {
                cx.write(0, lane, b(lo))?;
                cx.write(1, lane, b(hi))?;
            }
        }
    }
    Ok(Flow::Next)
}

/// A value in the rewrite rules: what one half of a split add becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr<T> {
    /// `iadd64_split{n}_{lo|hi} srcs...`.
    Split { n: u8, hi: bool, srcs: Vec<T> },
    /// A 32-bit `add`.
    Add(T, T),
    /// The source itself.
    Pass(T),
    /// The constant 0.
    Zero,
}

/// The seed's rewrite rules on one half, to a fixed point (`zero` says
/// whether a source is known to be 0). Sources 0 and 1 commute.
pub fn rewrite<T: Clone>(mut e: Expr<T>, zero: &dyn Fn(&T) -> bool) -> Expr<T> {
    loop {
        let next = match &e {
            Expr::Split { n, hi, srcs } => {
                let (n, hi) = (*n, *hi);
                let mut s = srcs.clone();
                if zero(&s[0]) {
                    s.swap(0, 1);
                }
                if zero(&s[1]) {
                    // No carry out of `a + 0`.
                    let a = s[0].clone();
                    Some(match (hi, n) {
                        (false, _) => Expr::Pass(a),
                        (true, 4) => Expr::Add(s[2].clone(), s[3].clone()),
                        (true, 3) => Expr::Pass(s[2].clone()),
                        (true, _) => Expr::Zero,
                    })
                } else if let Some(k) = (2..s.len()).find(|&k| zero(&s[k])) {
                    // A zero high source: the next smaller form.
                    s.remove(k);
                    Some(Expr::Split {
                        n: n - 1,
                        hi,
                        srcs: s,
                    })
                } else if s.len() != srcs.len() || zero(&srcs[0]) {
                    Some(Expr::Split { n, hi, srcs: s })
                } else {
                    None
                }
            }
            Expr::Add(a, b) => match (zero(a), zero(b)) {
                (true, true) => Some(Expr::Zero),
                (true, false) => Some(Expr::Pass(b.clone())),
                (false, true) => Some(Expr::Pass(a.clone())),
                (false, false) => None,
            },
            Expr::Pass(a) if zero(a) => Some(Expr::Zero),
            _ => None,
        };
        match next {
            Some(n) => e = n,
            None => return e,
        }
    }
}

/// Where each vreg is defined and how often it is read.
struct DefUse {
    def: HashMap<VReg, (usize, usize)>,
    uses: HashMap<VReg, Vec<(usize, usize)>>,
}

impl DefUse {
    fn of(f: &MFunction) -> DefUse {
        let mut def = HashMap::new();
        let mut uses: HashMap<VReg, Vec<(usize, usize)>> = HashMap::new();
        for (b, block) in f.blocks.iter().enumerate() {
            for (k, i) in block.insts.iter().enumerate() {
                for (_, r) in i.reg_ops() {
                    let Some(v) = r.vreg() else { continue };
                    if r.is_def() {
                        def.insert(v, (b, k));
                    } else {
                        uses.entry(v).or_default().push((b, k));
                    }
                }
            }
        }
        DefUse { def, uses }
    }

    fn uses(&self, v: VReg) -> &[(usize, usize)] {
        self.uses.get(&v).map_or(&[], Vec::as_slice)
    }
}

fn def_op(v: VReg) -> Operand {
    Operand::Reg(RegOperand::def_of(RegRef::Virt(v), None))
}

fn use_op(v: VReg) -> Operand {
    Operand::Reg(RegOperand::use_of(RegRef::Virt(v), None))
}

/// Register sources of `i` after its `defs` defs (`None` if any is not a
/// plain virtual register use).
fn vreg_srcs(i: &MInst, defs: usize) -> Option<Vec<VReg>> {
    i.ops[defs..]
        .iter()
        .map(|o| match o {
            Operand::Reg(r) if !r.is_def() && r.sub.is_none() => r.vreg(),
            _ => None,
        })
        .collect()
}

/// The opcodes the pass reads and writes.
struct Ops {
    addc: Opcode,
    add: Opcode,
    copy: Opcode,
    movi: Opcode,
}

/// One rewrite the pass does: the instructions to remove, where the new
/// ones go and what they are.
struct Edit {
    block: usize,
    remove: Vec<usize>,
    at: usize,
    insts: Vec<MInst>,
}

/// Forms the split adds of `f` (selected, SSA) — see the module docs.
pub fn run(f: &mut MFunction, s: &InstrSet) {
    let (Some(addc), Some(add), Some(movi)) =
        (s.by_name("addc"), s.by_name("add"), s.by_name("mov.imm"))
    else {
        return;
    };
    let ops = Ops {
        addc,
        add,
        copy: s.copy,
        movi,
    };
    let du = DefUse::of(f);
    let is_zero = |v: &VReg| {
        du.def.get(v).is_some_and(|&(b, k)| {
            let i = &f.blocks[MBlockId(b as u32)].insts[k];
            s.get(i.opcode).map(|d| d.sem) == Some(Sem::MovImm)
                && matches!(i.ops.get(1), Some(Operand::Imm(0)))
        })
    };
    // Instructions an earlier match took: each goes into one match only
    // (an `add` that is one 64-bit add's high half cannot also be the next
    // one's high-half sum, whose carry source it no longer has).
    let mut claimed: std::collections::HashSet<(usize, usize)> = std::collections::HashSet::new();
    let mut edits: Vec<Edit> = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        for (k, i) in block.insts.iter().enumerate() {
            if i.opcode != ops.addc || claimed.contains(&(b, k)) {
                continue;
            }
            let (Some(lo), Some(c), Some(src)) = (
                i.ops.first().and_then(Operand::vreg),
                i.ops.get(1).and_then(Operand::vreg),
                vreg_srcs(i, 2),
            ) else {
                continue;
            };
            let lo_used = !du.uses(lo).is_empty();
            let mut srcs = src.clone();
            let mut remove = vec![k];
            let mut at = k;
            let mut hi = c;
            // The carry's one reader `hi = add x, c`, in this block.
            if let [(ub, uk)] = du.uses(c) {
                let u = &block.insts[*uk];
                let early_lo_use = du.uses(lo).iter().any(|&(lb, lk)| lb == b && lk <= *uk);
                if *ub == b
                    && *uk > k
                    && u.opcode == ops.add
                    && !early_lo_use
                    && !claimed.contains(&(b, *uk))
                {
                    if let (Some(h), Some(us)) = (u.ops[0].vreg(), vreg_srcs(u, 1)) {
                        let x = if us[1] == c { us[0] } else { us[1] };
                        if us.len() == 2 && (us[0] == c) != (us[1] == c) {
                            hi = h;
                            remove.push(*uk);
                            at = *uk;
                            srcs.push(x);
                            // `x = add a_hi, b_hi`, read only here.
                            if let (Some(&(xb, xk)), [_]) = (du.def.get(&x), du.uses(x)) {
                                let xi = &f.blocks[MBlockId(xb as u32)].insts[xk];
                                if xb == b && xi.opcode == ops.add && !claimed.contains(&(xb, xk)) {
                                    if let Some(xs) = vreg_srcs(xi, 1) {
                                        srcs.pop();
                                        srcs.extend(xs);
                                        remove.push(xk);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            let hi_used = !du.uses(hi).is_empty();
            let n = srcs.len() as u8;
            let lo_e = rewrite(
                Expr::Split {
                    n,
                    hi: false,
                    srcs: srcs.clone(),
                },
                &is_zero,
            );
            let hi_e = rewrite(
                Expr::Split {
                    n,
                    hi: true,
                    srcs: srcs.clone(),
                },
                &is_zero,
            );
            let mut insts = Vec::new();
            let paired = matches!((&lo_e, &hi_e),
                (Expr::Split { n: a, srcs: x, .. }, Expr::Split { n: b, srcs: y, .. }) if a == b && x == y);
            if paired && lo_used && hi_used {
                if let Expr::Split { n, srcs, .. } = &lo_e {
                    let sp = Split {
                        n: *n,
                        part: Part::Pair,
                    };
                    let mut o = vec![def_op(lo), def_op(hi)];
                    o.extend(srcs.iter().map(|v| use_op(*v)));
                    insts.push(MInst::new(s.op(&sp.name()), o));
                }
            } else {
                if lo_used {
                    insts.push(materialize(&ops, s, lo, &lo_e));
                }
                if hi_used {
                    insts.push(materialize(&ops, s, hi, &hi_e));
                }
            }
            for n in &mut insts {
                n.span = i.span.clone();
            }
            claimed.extend(remove.iter().map(|&r| (b, r)));
            edits.push(Edit {
                block: b,
                remove,
                at,
                insts,
            });
        }
    }
    // Rebuild each edited block once: removed instructions go, the new
    // ones take the place of the instruction they replace.
    let mut by_block: HashMap<usize, Vec<Edit>> = HashMap::new();
    for e in edits {
        by_block.entry(e.block).or_default().push(e);
    }
    for (b, es) in by_block {
        let mut removed = vec![false; f.blocks[MBlockId(b as u32)].insts.len()];
        let mut inserts: HashMap<usize, Vec<MInst>> = HashMap::new();
        for e in es {
            for k in e.remove {
                removed[k] = true;
            }
            inserts.entry(e.at).or_default().extend(e.insts);
        }
        let old = std::mem::take(&mut f.blocks[MBlockId(b as u32)].insts);
        let mut out = Vec::with_capacity(old.len());
        for (k, i) in old.into_iter().enumerate() {
            if let Some(n) = inserts.remove(&k) {
                out.extend(n);
            }
            if !removed[k] {
                out.push(i);
            }
        }
        f.blocks[MBlockId(b as u32)].insts = out;
    }
}

/// The instruction defining `d` as `e`.
fn materialize(ops: &Ops, s: &InstrSet, d: VReg, e: &Expr<VReg>) -> MInst {
    match e {
        Expr::Split { n, hi, srcs } => {
            let mut o = vec![def_op(d)];
            if *hi {
                o.extend(srcs.iter().map(|v| use_op(*v)));
                let sp = Split {
                    n: *n,
                    part: Part::Hi,
                };
                MInst::new(s.op(&sp.name()), o)
            } else {
                // The low half alone is a 32-bit add.
                o.extend(srcs[..2].iter().map(|v| use_op(*v)));
                MInst::new(ops.add, o)
            }
        }
        Expr::Add(a, b) => MInst::new(ops.add, vec![def_op(d), use_op(*a), use_op(*b)]),
        Expr::Pass(a) => MInst::new(ops.copy, vec![def_op(d), use_op(*a)]),
        Expr::Zero => MInst::new(ops.movi, vec![def_op(d), Operand::Imm(0)]),
    }
}
