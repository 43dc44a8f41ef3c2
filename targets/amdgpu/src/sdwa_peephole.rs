//! The SDWA peephole on selected SSA code (after the facts of LLVM's
//! `SIPeepholeSDWA` and of seed 001, its `UNUSED_PRESERVE` extension).
//!
//! The hardware facts served ([`crate::sdwa`]): a VOP1/VOP2 instruction
//! in SDWA form reads a byte or word of each source and writes its result
//! into a byte or word of its destination, so the shifts and masks that
//! extract and insert 16-bit halves (and bytes) around it cost nothing:
//!
//! - **sources**: `x >> 16` (and `>> 24`, an arithmetic shift as
//!   `sext(...)`, `v_bfe_u32/i32` of a byte or word, `x & 0xffff`, `x &
//!   0xff`) read by an SDWA-capable instruction becomes `x` with
//!   `src_sel:WORD_1` (`BYTE_3`, ...);
//! - **destinations**: `v << 16` (`<< 24`, `(v << 8) & 0xffff`,
//!   `v & 0xffff`, `v_bfe_i32 v, 0, 16`, ...) of such an instruction's
//!   single-use result becomes the instruction with `dst_sel:WORD_1
//!   dst_unused:UNUSED_PAD` (`BYTE_1`, `WORD_0`, `UNUSED_SEXT`, ...); a
//!   result of an instruction without an SDWA form is placed by one
//!   `v_mov_b32_sdwa` when that replaces two instructions;
//! - **preserve**: `x | y`, where `x` writes only a field `F` (an SDWA
//!   result with `UNUSED_PAD`, or a plain 16-bit operation, whose written
//!   bits are its result's sub-register's, from the register description's
//!   lane masks: [`SubWords`]) and `y` is zero inside `F`, is `x`'s
//!   operation with `dst_unused:UNUSED_PRESERVE`, keeping `y` outside `F`.
//!   `y` is an implicit use tied to the def (SSA cannot say "this
//!   register, changed"; [`crate::sdwa_preserve_merge`] makes it real
//!   after PHI elimination). Beyond LLVM, `y` need not be SDWA: its known
//!   zeros suffice, and a mask that only clears bits inside `F` is
//!   dropped (`(c & 0xffff) | (h << 16)` preserves `c` itself).
//!
//! Each change keeps every value's demanded bits, so the analyses
//! ([`crate::sdwa_bits`]) are recomputed between rounds and the rounds
//! repeat until nothing changes (the fixed point seed 001 asks for: an
//! SDWA instruction made in one round is what the next round's preserve
//! pattern matches). Masks made redundant by a 16-bit operation's known
//! zeros, or by what their readers demand, are bypassed first.
//!
//! Every instruction a pattern matches is in the block of the instruction
//! it rewrites, so moving a computation there cannot read a value a lane
//! changed in between (divergent loops exit lanes at different times).

use std::collections::{HashMap, HashSet};

use regdesc_codegen::mir::instr::{BinOp, FloatFmt};
use regdesc_codegen::mir::{MBlockId, MFunction, MInst, Operand, RegOperand, RegRef, VReg};
use regdesc_runtime::RegClass;

use crate::isa::{Isa, Kind};
use crate::sdwa::{self, mask, SdwaOp, Sel, Unused};
use crate::sdwa_bits::{analyze, low_run, Facts, SubWords};

/// Rounds before giving up on a fixed point (each round changes
/// something, and every change removes or narrows an instruction).
const MAX_ROUNDS: usize = 64;

/// Runs the peephole on `f` (selected, SSA). Returns the number of rounds
/// that changed something.
pub fn run(f: &mut MFunction, isa: &Isa, vgpr: RegClass) -> usize {
    let p = Peep {
        isa,
        vgpr,
        words: SubWords::new(vgpr),
        bus: if isa.gfx.is_gfx10() { 2 } else { 1 },
    };
    let mut rounds = 0;
    for _ in 0..MAX_ROUNDS {
        let facts = analyze(f, isa, &p.words);
        // Placements before preserves (which need SDWA results), preserves
        // before source selectors (which would make the `v_or_b32` SDWA).
        let changed = p.bypass(f, &facts)
            || p.apply(f, |r| p.dst_patterns(r, &facts))
            || p.apply(f, |r| p.preserve(r, &facts))
            || {
                let folds = p.source_folds(f, &facts);
                p.apply(f, |r| p.src_patterns(r, &facts, Some(&folds)))
            };
        if !changed {
            break;
        }
        rounds += 1;
        crate::select::dead_code(f, isa);
    }
    rounds
}

struct Peep<'a> {
    isa: &'a Isa,
    vgpr: RegClass,
    words: SubWords,
    /// SGPRs an instruction may read (the constant bus).
    bus: usize,
}

/// An instruction as an SDWA instruction: its operation, sources,
/// selectors, destination field, and preserved value.
#[derive(Clone, Debug)]
struct Form {
    op: SdwaOp,
    srcs: Vec<Operand>,
    sels: Vec<(Sel, bool)>,
    dst_sel: Sel,
    unused: Unused,
    preserved: Option<Operand>,
    /// Not yet SDWA.
    plain: bool,
}

impl Form {
    /// Whether source `k` is read whole (no selector applies yet).
    fn unselected(&self, k: usize) -> bool {
        match self.sels.get(k) {
            Some((Sel::Dword, false)) => true,
            Some((Sel::Word0, false)) => self.op.result_width() == 16,
            _ => false,
        }
    }

    /// Whether the result is the operation's, unplaced and zero-extended.
    fn unplaced(&self) -> bool {
        self.dst_sel == default_dst(self.op)
            && self.unused == Unused::Pad
            && self.preserved.is_none()
    }

    /// Distinct registers read.
    fn num_reg_srcs(&self) -> usize {
        let mut v: Vec<VReg> = self.srcs.iter().filter_map(Operand::vreg).collect();
        v.sort();
        v.dedup();
        v.len()
    }
}

/// The destination field of an unplaced result: the operation's width.
fn default_dst(op: SdwaOp) -> Sel {
    if op.result_width() == 16 {
        Sel::Word0
    } else {
        Sel::Dword
    }
}

fn use_of(o: &Operand) -> Operand {
    match o {
        Operand::Reg(r) => Operand::Reg(RegOperand::use_of(r.reg, r.sub)),
        o => o.clone(),
    }
}

/// The (offset, width) sels that start at `offset`, widest first.
fn sels_at(offset: u32) -> impl Iterator<Item = Sel> {
    let mut v: Vec<Sel> = Sel::ALL
        .into_iter()
        .filter(|s| s.offset() == offset && *s != Sel::Dword)
        .collect();
    v.sort_by_key(|s| std::cmp::Reverse(s.width()));
    v.into_iter()
}

/// A preserve candidate's rank (lower first): the registers its
/// instruction reads (moving fewer reads to the `v_or_b32` frees its
/// sources' registers sooner), then the later def.
type PreserveScore = (usize, std::cmp::Reverse<usize>);

/// A rewrite: the instruction at (block, index) becomes `inst`.
type Rewrite = (MBlockId, usize, MInst);

impl Peep<'_> {
    fn kind(&self, i: &MInst) -> Option<Kind> {
        self.isa.kind(i.opcode)
    }

    fn is_vgpr(&self, f: &MFunction, v: VReg) -> bool {
        f.class_of(v) == Some(self.vgpr)
    }

    /// The VGPR def of `i` (operand 0).
    fn vdef(&self, f: &MFunction, i: &MInst) -> Option<VReg> {
        let r = i.ops.first()?.reg()?;
        let v = r.vreg().filter(|_| r.is_def() && r.sub.is_none())?;
        self.is_vgpr(f, v).then_some(v)
    }

    /// A whole virtual VGPR read by operand `o`.
    fn vuse(&self, f: &MFunction, o: Option<&Operand>) -> Option<VReg> {
        let r = o?.reg()?;
        let v = r.vreg().filter(|_| !r.is_def() && r.sub.is_none())?;
        self.is_vgpr(f, v).then_some(v)
    }

    /// `v`'s def when it is in block `b`.
    fn def_in<'f>(
        &self,
        f: &'f MFunction,
        facts: &Facts,
        v: VReg,
        b: MBlockId,
    ) -> Option<(usize, &'f MInst)> {
        let (db, k) = *facts.def_at.get(&v)?;
        (db == b).then(|| f.blocks[b].insts.get(k).map(|i| (k, i)))?
    }

    /// `i` as `x & m` or `v_bfe_u32 x, 0, w` (`m` = the low `w` bits).
    fn as_mask(&self, f: &MFunction, facts: &Facts, i: &MInst) -> Option<(VReg, u32)> {
        match self.kind(i)? {
            Kind::VBfe { signed: false } => {
                let w = facts.const_of(i.ops.get(3)?)?;
                (facts.const_of(i.ops.get(2)?)? == 0 && w < 32)
                    .then_some((self.vuse(f, i.ops.get(1))?, mask(w)))
            }
            Kind::VBin(BinOp::And) => {
                let (a, b) = (i.ops.get(1)?, i.ops.get(2)?);
                match (facts.const_of(a), facts.const_of(b)) {
                    (Some(c), None) => Some((self.vuse(f, Some(b))?, c)),
                    (None, Some(c)) => Some((self.vuse(f, Some(a))?, c)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `i` as a shift of `x` by a constant: (op, amount, x).
    fn as_shift(&self, f: &MFunction, facts: &Facts, i: &MInst) -> Option<(BinOp, u32, VReg)> {
        let Kind::VBinRev(op) = self.kind(i)? else {
            return None;
        };
        Some((
            op,
            facts.const_of(i.ops.get(1)?)? & 31,
            self.vuse(f, i.ops.get(2))?,
        ))
    }

    /// `i` as a field extraction `v_bfe_u32/i32 x, off, w`.
    fn as_bfe(&self, f: &MFunction, facts: &Facts, i: &MInst) -> Option<(bool, VReg, u32, u32)> {
        let Kind::VBfe { signed } = self.kind(i)? else {
            return None;
        };
        let off = facts.const_of(i.ops.get(2)?)?;
        let w = facts.const_of(i.ops.get(3)?)?;
        Some((signed, self.vuse(f, i.ops.get(1))?, off, w))
    }

    /// A source the SDWA encoding takes: a register (VGPRs freely, SGPRs
    /// counted against the constant bus) or an inline constant.
    fn encodable(&self, f: &MFunction, srcs: &[Operand]) -> bool {
        let mut sgprs: Vec<VReg> = Vec::new();
        for o in srcs {
            match o {
                Operand::Imm(x) if crate::isa::is_inline_int(*x) => {}
                Operand::Reg(r) if r.sub.is_none() && !r.is_def() => match r.reg {
                    RegRef::Virt(v) if self.is_vgpr(f, v) => {}
                    RegRef::Virt(v) => {
                        if !sgprs.contains(&v) {
                            sgprs.push(v);
                        }
                    }
                    RegRef::Phys(_) => return false,
                },
                _ => return false,
            }
        }
        sgprs.len() <= self.bus
    }

    /// `i` as an SDWA instruction, when this chip has its SDWA form;
    /// `narrow`: a 32-bit multiply may become `v_mul_lo_u16` (its result's
    /// readers look at the low 16 bits only).
    fn form_of(&self, f: &MFunction, i: &MInst, narrow: bool) -> Option<Form> {
        let kind = self.kind(i)?;
        let ops = |r: std::ops::RangeInclusive<usize>| -> Option<Vec<Operand>> {
            r.map(|k| i.ops.get(k).map(use_of)).collect()
        };
        let (op, srcs) = match kind {
            Kind::Sdwa(op) => {
                let fl = sdwa::fields(op, i)?;
                let form = Form {
                    op,
                    srcs: ops(1..=op.num_srcs())?,
                    sels: fl.src.clone(),
                    dst_sel: fl.dst_sel,
                    unused: fl.unused,
                    preserved: fl.preserved.and_then(|k| i.ops.get(k)).map(use_of),
                    plain: false,
                };
                return Some(form);
            }
            Kind::VBin(op @ (BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor)) => {
                (SdwaOp::Int32(op), ops(1..=2)?)
            }
            Kind::VBin(BinOp::Mul) if narrow => (SdwaOp::Int16(BinOp::Mul), ops(1..=2)?),
            Kind::VBinRev(op) => (SdwaOp::Int32(op), ops(1..=2)?),
            Kind::VFloat(op, FloatFmt::F16) => (SdwaOp::F16(op), ops(1..=2)?),
            Kind::VMov => (SdwaOp::Mov, ops(1..=1)?),
            Kind::VMulI24 => (SdwaOp::MulI24, ops(1..=2)?),
            Kind::VMulHiI24 => (SdwaOp::MulHiI24, ops(1..=2)?),
            _ => return None,
        };
        self.isa.sdwa(op)?;
        if !self.encodable(f, &srcs) {
            return None;
        }
        Some(Form {
            op,
            sels: vec![(Sel::Dword, false); srcs.len()],
            srcs,
            dst_sel: default_dst(op),
            unused: Unused::Pad,
            preserved: None,
            plain: true,
        })
    }

    /// The SDWA instruction `form` defining `d`.
    fn build(&self, form: &Form, d: VReg) -> Option<MInst> {
        let opc = self.isa.sdwa(form.op)?;
        let mut ops = vec![Operand::Reg(RegOperand::def_of(RegRef::Virt(d), None))];
        ops.extend(form.srcs.iter().map(use_of));
        ops.extend(sdwa::field_operands(form.dst_sel, form.unused, &form.sels));
        if let Some(p) = &form.preserved {
            let Operand::Reg(r) = use_of(p) else {
                return None;
            };
            let mut r = r.implicit_();
            r.set_tied_def(Some(0));
            ops.push(Operand::Reg(r));
        }
        Some(MInst::new(opc, ops))
    }

    /// Collects rewrites with `find` (each instruction once, no value in
    /// two rewrites) and applies them. Whether any applied.
    fn apply(
        &self,
        f: &mut MFunction,
        find: impl Fn(Root<'_>) -> Option<(MInst, Vec<VReg>)>,
    ) -> bool {
        let mut touched: HashSet<VReg> = HashSet::new();
        let mut out: Vec<Rewrite> = Vec::new();
        for b in f.blocks.ids() {
            for (k, i) in f.blocks[b].insts.iter().enumerate() {
                let Some(d) = self.vdef(f, i) else { continue };
                let Some((new, involved)) = find(Root { f, b, i, d }) else {
                    continue;
                };
                if involved.iter().any(|v| touched.contains(v)) || touched.contains(&d) {
                    continue;
                }
                touched.extend(involved);
                touched.insert(d);
                out.push((b, k, new));
            }
        }
        let changed = !out.is_empty();
        for (b, k, i) in out {
            f.blocks[b].insts[k] = i;
        }
        changed
    }

    /// Values equal to one of their sources on every bit read: a mask
    /// whose readers demand only bits it keeps, or that keeps every bit
    /// its source may have set; `x | y` and `x ^ y` where `y` is zero on
    /// every bit read. Their readers read the source instead: in the
    /// value's own block always, elsewhere when the source is defined in
    /// that block too (a lane cannot have changed it in between).
    fn bypass(&self, f: &mut MFunction, facts: &Facts) -> bool {
        // value -> (source, block of the value, source defined there too)
        let mut subst: HashMap<VReg, (VReg, MBlockId, bool)> = HashMap::new();
        // Values equal to their source on every bit, not only on the bits
        // read: the source's new readers may read more of it than before.
        let mut exact: HashSet<VReg> = HashSet::new();
        for b in f.blocks.ids() {
            for i in &f.blocks[b].insts {
                let Some(d) = self.vdef(f, i) else { continue };
                let dd = facts.demanded(d);
                let (x, whole) = match (self.as_mask(f, facts, i), self.kind(i)) {
                    (Some((x, m)), _) if facts.nz(x) & !m == 0 => (Some(x), true),
                    (Some((x, m)), _) if dd & !m == 0 => (Some(x), false),
                    (_, Some(Kind::VBin(BinOp::Or | BinOp::Xor))) => {
                        let x = [(1, 2), (2, 1)].into_iter().find_map(|(k, o)| {
                            let zero = i.ops.get(o).is_some_and(|o| facts.nz_of(o) & dd == 0);
                            zero.then(|| self.vuse(f, i.ops.get(k))).flatten()
                        });
                        (x, false)
                    }
                    _ => (None, false),
                };
                if let Some(x) = x.filter(|x| *x != d) {
                    let same = facts.def_at.get(&x).map(|p| p.0) == Some(b);
                    subst.insert(d, (x, b, same));
                    if whole {
                        exact.insert(d);
                    }
                }
            }
        }
        // An exact bypass gives its source readers that may read more of it
        // than the value's readers did, which may undo a demand-based
        // bypass anywhere upstream: a round applies only the exact ones
        // when there are any (demand-based ones never add demand).
        if !exact.is_empty() {
            subst.retain(|d, _| exact.contains(d));
        }
        let mut changed = false;
        for ub in f.blocks.ids().collect::<Vec<_>>() {
            for i in f.blocks[ub].insts.iter_mut() {
                let phi = i.opcode == self.isa.instrs.phi;
                for o in i.ops.iter_mut() {
                    let Some(r) = o.reg_mut().filter(|r| !r.is_def() && r.sub.is_none()) else {
                        continue;
                    };
                    let RegRef::Virt(mut v) = r.reg else { continue };
                    for _ in 0..=subst.len() {
                        match subst.get(&v) {
                            Some(&(x, db, same)) if same || (ub == db && !phi) => v = x,
                            _ => break,
                        }
                    }
                    if r.reg != RegRef::Virt(v) {
                        r.reg = RegRef::Virt(v);
                        changed = true;
                    }
                }
            }
        }
        changed
    }

    /// Destination patterns: a shift or mask of a single-use result
    /// places it with `dst_sel`.
    fn dst_patterns(&self, r: Root<'_>, facts: &Facts) -> Option<(MInst, Vec<VReg>)> {
        let (f, b, i, d) = (r.f, r.b, r.i, r.d);
        let mut chain = Vec::new();
        // (base, shift, mask, sign-extending width)
        let (v, k, m, sext) = if let Some((BinOp::Shl, k, v)) = self.as_shift(f, facts, i) {
            (v, k, u32::MAX, None)
        } else if let Some((t, m)) = self.as_mask(f, facts, i) {
            match self
                .def_in(f, facts, t, b)
                .and_then(|(_, ti)| self.as_shift(f, facts, ti))
            {
                Some((BinOp::Shl, k, v)) if facts.single_use(t) => {
                    chain.push(t);
                    (v, k, m, None)
                }
                _ => (t, 0, m, None),
            }
        } else if let Some((true, v, 0, w)) = self.as_bfe(f, facts, i) {
            (v, 0, u32::MAX, Some(w))
        } else {
            return None;
        };
        let (_, vi) = self.def_in(f, facts, v, b)?;
        let dres = facts.demanded(d);
        // The placed operation: v's own (single use, not placed yet), a
        // narrowed multiply, or a v_mov_b32 of v.
        // A result already placed at bit 0 (UNUSED_PAD) moves to a field
        // no wider.
        let own = facts
            .single_use(v)
            .then(|| {
                self.form_of(f, vi, false)
                    .or_else(|| self.form_of(f, vi, true))
            })
            .flatten()
            .filter(|fm| {
                fm.unplaced()
                    || (fm.dst_sel.offset() == 0
                        && fm.unused == Unused::Pad
                        && fm.preserved.is_none())
            });
        let candidates: Vec<Form> = match own {
            Some(form) => vec![form],
            None if !chain.is_empty() => {
                let mov = Form {
                    op: SdwaOp::Mov,
                    srcs: vec![Operand::Reg(RegOperand::use_of(RegRef::Virt(v), None))],
                    sels: vec![(Sel::Dword, false)],
                    dst_sel: Sel::Dword,
                    unused: Unused::Pad,
                    preserved: None,
                    plain: true,
                };
                self.isa.sdwa(SdwaOp::Mov)?;
                vec![mov]
            }
            None => return None,
        };
        let nzv = facts.nz(v);
        for mut form in candidates {
            let rw = form.op.result_width();
            let fits = |s: &Sel| s.width() <= form.dst_sel.width();
            let chosen = match sext {
                Some(w) => Sel::of_field(0, w)
                    .filter(|s| s.width() <= rw && fits(s))
                    .map(|s| (s, Unused::Sext)),
                None => sels_at(k)
                    .find(|s| fits(s) && placement_exact(nzv, k, m, dres, s.width().min(rw)))
                    .map(|s| (s, Unused::Pad)),
            };
            let Some((sel, unused)) = chosen else {
                continue;
            };
            form.dst_sel = sel;
            form.unused = unused;
            let mut involved = chain.clone();
            involved.push(v);
            return Some((self.build(&form, d)?, involved));
        }
        None
    }

    /// Source patterns: a source that is a byte or word of another value
    /// is read through a selector.
    fn src_patterns(
        &self,
        r: Root<'_>,
        facts: &Facts,
        folds: Option<&HashMap<VReg, usize>>,
    ) -> Option<(MInst, Vec<VReg>)> {
        let (f, b, i, d) = (r.f, r.b, r.i, r.d);
        let dres = facts.demanded(d);
        let mut form = self.form_of(f, i, false).or_else(|| {
            (dres & !0xffff == 0)
                .then(|| self.form_of(f, i, true))
                .flatten()
        })?;
        // What the operation reads of its result, in its own bits.
        let rd = match form.unused {
            _ if form.plain => dres,
            Unused::Sext => mask(form.dst_sel.width()),
            _ => (dres >> form.dst_sel.offset()) & mask(form.dst_sel.width()),
        };
        let mut involved = Vec::new();
        for s in 0..form.srcs.len() {
            if !form.unselected(s) {
                continue;
            }
            let Some(u) = self.vuse(f, form.srcs.get(s)) else {
                continue;
            };
            if folds.is_some_and(|n| n.get(&u) < facts.uses.get(&u)) {
                continue;
            }
            let Some((_, ui)) = self.def_in(f, facts, u, b) else {
                continue;
            };
            let du = self.src_demand(&form, s, rd, facts);
            let Some((x, sel, sext)) = self.selected(f, facts, ui, du, form.op.takes_sext()) else {
                continue;
            };
            form.srcs[s] = Operand::Reg(RegOperand::use_of(RegRef::Virt(x), None));
            form.sels[s] = (sel, sext);
            involved.push(u);
        }
        if involved.is_empty() {
            return None;
        }
        Some((self.build(&form, d)?, involved))
    }

    /// Per value, how many of its reads [`Peep::src_patterns`] can turn
    /// into a selector of its source. A read turned so saves nothing while
    /// the value has other readers (its def stays, and its source lives on
    /// beside it, which may cost a copy): only values all of whose reads
    /// fold are folded (a word of a shift amount that many shifts read
    /// is; a sign extension that an add reads too is not).
    fn source_folds(&self, f: &MFunction, facts: &Facts) -> HashMap<VReg, usize> {
        let mut n: HashMap<VReg, usize> = HashMap::new();
        for b in f.blocks.ids() {
            for i in &f.blocks[b].insts {
                let Some(d) = self.vdef(f, i) else { continue };
                if let Some((_, involved)) = self.src_patterns(Root { f, b, i, d }, facts, None) {
                    for u in involved {
                        *n.entry(u).or_default() += 1;
                    }
                }
            }
        }
        n
    }

    /// The bits of source `s` (read whole) that `form` reads when the bits
    /// `rd` of its operation's result are read.
    fn src_demand(&self, form: &Form, s: usize, rd: u32, facts: &Facts) -> u32 {
        let amount = || {
            form.srcs
                .first()
                .and_then(|o| facts.const_of(o))
                .map(|a| a & 31)
        };
        match form.op {
            SdwaOp::Int16(BinOp::Add | BinOp::Sub | BinOp::Mul) => low_run(rd) & 0xffff,
            SdwaOp::Int16(_) | SdwaOp::F16(_) => 0xffff,
            SdwaOp::Mov => rd,
            SdwaOp::MulI24 | SdwaOp::MulHiI24 => mask(24),
            SdwaOp::Int32(BinOp::And | BinOp::Or | BinOp::Xor) => rd,
            SdwaOp::Int32(BinOp::Add | BinOp::Sub) => low_run(rd),
            SdwaOp::Int32(_) if s == 0 => 31,
            SdwaOp::Int32(BinOp::Shl) => amount().map_or(u32::MAX, |a| rd >> a),
            SdwaOp::Int32(BinOp::LShr) => amount().map_or(u32::MAX, |a| rd << a),
            SdwaOp::Int32(_) => u32::MAX,
        }
    }

    /// `ui` (a source's def) as a selector of one of its own sources,
    /// exact on the bits `du` read: (source, selector, sign-extended).
    fn selected(
        &self,
        f: &MFunction,
        facts: &Facts,
        ui: &MInst,
        du: u32,
        sext_ok: bool,
    ) -> Option<(VReg, Sel, bool)> {
        if let Some((op, k, x)) = self.as_shift(f, facts, ui) {
            return match op {
                BinOp::LShr => sels_at(k)
                    .find(|s| du & (facts.nz(x) >> k) & !mask(s.width()) == 0)
                    .map(|s| (x, s, false)),
                BinOp::AShr => sels_at(k).find_map(|s| {
                    if sext_ok && k + s.width() == 32 {
                        Some((x, s, true))
                    } else if du & !mask(s.width()) == 0 {
                        Some((x, s, false))
                    } else {
                        None
                    }
                }),
                _ => None,
            };
        }
        if let Some((signed, x, off, w)) = self.as_bfe(f, facts, ui) {
            let s = Sel::of_field(off, w).filter(|s| *s != Sel::Dword)?;
            return match (signed, sext_ok) {
                (false, _) => Some((x, s, false)),
                (true, true) => Some((x, s, true)),
                (true, false) => (du & !mask(w) == 0).then_some((x, s, false)),
            };
        }
        let (x, m) = self.as_mask(f, facts, ui)?;
        let w = 32 - m.leading_zeros();
        let s = Sel::of_field(0, w).filter(|s| m == mask(w) && *s != Sel::Dword)?;
        Some((x, s, false))
    }

    /// The preserve pattern: `x | y` with `x` writing only a field `y` is
    /// zero in.
    fn preserve(&self, r: Root<'_>, facts: &Facts) -> Option<(MInst, Vec<VReg>)> {
        let (f, b, i, d) = (r.f, r.b, r.i, r.d);
        if self.kind(i)? != Kind::VBin(BinOp::Or) {
            return None;
        }
        let (a, c) = (self.vuse(f, i.ops.get(1))?, self.vuse(f, i.ops.get(2))?);
        let dres = facts.demanded(d);
        let mut best: Option<(PreserveScore, Form, VReg, VReg)> = None;
        for (x, y) in [(a, c), (c, a)] {
            if x == y || !facts.single_use(x) {
                continue;
            }
            let Some((xk, xi)) = self.def_in(f, facts, x, b) else {
                continue;
            };
            let Some(mut form) = self.form_of(f, xi, false) else {
                continue;
            };
            // The field x writes: its dst_sel, or for a plain 16-bit
            // operation the bits of the sub-register its result fills.
            let field = if !form.plain {
                if form.unused != Unused::Pad
                    || form.preserved.is_some()
                    || form.dst_sel == Sel::Dword
                {
                    continue;
                }
                form.dst_sel
            } else if form.op.result_width() == 16 {
                let bits = self.words.half_result_bits();
                match Sel::of_field(bits.trailing_zeros(), bits.count_ones()) {
                    Some(s) if s != Sel::Dword => s,
                    _ => continue,
                }
            } else {
                continue;
            };
            let fb = field.bits();
            if facts.nz(x) & !fb & dres != 0 || facts.nz(y) & fb & dres != 0 {
                continue;
            }
            let kept = self.simplify_kept(f, facts, y, b, !fb & dres);
            form.dst_sel = field;
            form.unused = Unused::Preserve;
            form.preserved = Some(Operand::Reg(RegOperand::use_of(RegRef::Virt(kept), None)));
            let score = (form.num_reg_srcs(), std::cmp::Reverse(xk));
            if best.as_ref().is_none_or(|(s, ..)| score < *s) {
                best = Some((score, form, x, y));
            }
        }
        let (_, form, x, y) = best?;
        Some((self.build(&form, d)?, vec![x, y]))
    }

    /// `y` with the masks dropped that only clear bits no one reads
    /// (`demand`: the bits of `y` the preserve keeps and someone reads).
    /// Each mask is in block `b`, so its source is read where it was.
    fn simplify_kept(
        &self,
        f: &MFunction,
        facts: &Facts,
        mut y: VReg,
        b: MBlockId,
        demand: u32,
    ) -> VReg {
        while let Some((_, yi)) = self.def_in(f, facts, y, b) {
            match self.as_mask(f, facts, yi) {
                Some((z, m)) if demand & !m == 0 => y = z,
                _ => break,
            }
        }
        y
    }
}

/// The instruction a pattern may rewrite: `i` in block `b`, defining `d`.
#[derive(Clone, Copy)]
struct Root<'a> {
    f: &'a MFunction,
    b: MBlockId,
    i: &'a MInst,
    d: VReg,
}

/// Whether `(v << k) & m` equals `v`'s low `we` bits placed at bit `k`
/// (zeros elsewhere) on the bits `demanded`, given that `v` may be
/// non-zero only at `nz`.
fn placement_exact(nz: u32, k: u32, m: u32, demanded: u32, we: u32) -> bool {
    (k..32).all(|p| {
        let q = p - k;
        if demanded >> p & 1 == 0 || nz >> q & 1 == 0 {
            return true;
        }
        let kept = m >> p & 1 == 1;
        kept == (q < we)
    })
}

#[cfg(test)]
mod tests {
    use super::placement_exact;

    #[test]
    fn placements() {
        // v << 16: the low word of v in WORD_1.
        assert!(placement_exact(u32::MAX, 16, u32::MAX, u32::MAX, 16));
        // (v << 8) & 0xffff: BYTE_1.
        assert!(placement_exact(u32::MAX, 8, 0xffff, u32::MAX, 8));
        // v << 8 keeps bits of v above its low byte: not BYTE_1...
        assert!(!placement_exact(u32::MAX, 8, u32::MAX, u32::MAX, 8));
        // ...unless they are known zeros.
        assert!(placement_exact(0xff, 8, u32::MAX, u32::MAX, 8));
        // v & 0xffff of a value with garbage above: WORD_0.
        assert!(placement_exact(u32::MAX, 0, 0xffff, u32::MAX, 16));
    }
}
