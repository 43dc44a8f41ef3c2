//! The translation itself: each IR instruction to generic limb code.

use std::collections::HashSet;

use crate::ir::{
    BinOp, BlockId, Builtin, CastOp, Function, GepStep, InstId, IntPredicate, Op, Operand,
    OperandKind, Scalar, Span, Type, ValueId,
};
use crate::legalize::demand::Demand;
use crate::legalize::known_bits::KnownBits;
use crate::legalize::mul::{lower_generic, MulPlan};
use crate::legalize::sign_split::lower_sign_split;
use crate::legalize::wide::{self, limbs_of};
use crate::legalize::{words_of, LegalizeError, Limb, MirBuilder};
use crate::mir::instr::FloatFmt;
use crate::mir::{smallvec, MBlockId, MFunction, MInst, Operand as MOperand, RegOperand, RegRef};
use crate::target::{NarrowArgs, Target, WordLoc};
use crate::uniformity::Uniformity;
use crate::value::Value;

type Res<T> = Result<T, LegalizeError>;

/// A value's limbs, inline up to four.
type Limbs = crate::mir::SmallVec<[Limb; 4]>;

/// Legalizes `f` for `target`: generic machine IR in SSA form whose
/// values are 32-bit registers of the target's classes.
pub fn legalize<T: Target>(f: &Function, uni: &Uniformity, target: &T) -> Res<MFunction> {
    let abi = target.abi(f)?;
    let order = reverse_post_order(f);
    let kb = KnownBits::analyze(f, &order);
    let b = MirBuilder::new(
        &f.name,
        f.blocks.len(),
        target.instrs(),
        target.value_class(false),
        target.value_class(true),
    )?;
    let mut cx = Lower {
        f,
        target,
        uni,
        kb,
        demand: Demand::analyze(f),
        b,
        vals: vec![None; f.values.len()],
        fused: fusable_muls(f),
        phis: Vec::new(),
        over_result: over_result(f, &abi.args, &abi.ret),
        narrow: abi.narrow_args,
        returned: returned_values(f),
    };
    // Arguments: copies out of the registers the calling convention names.
    for (p, locs) in f.params.iter().zip(&abi.args) {
        cx.b.uniform = uni.is_uniform(*p);
        let mut limbs: Vec<Limb> = locs
            .iter()
            .map(|WordLoc::Reg(r)| cx.b.copy_from_phys(*r))
            .collect();
        // A narrow value lives zero-extended in its register; where the
        // convention leaves the bits above it undefined, clear them.
        let bits = f.value(*p).ty.bits();
        if abi.narrow_args == NarrowArgs::Undefined && bits < 32 {
            if let [one] = limbs.as_mut_slice() {
                *one = cx.b.zext_inreg(*one, bits);
            }
        }
        cx.vals[p.index()] = Some(limbs.into());
    }
    // Unreachable blocks after the reachable ones (a flag per block: a
    // search of `order` for each block is quadratic).
    let mut reached = vec![false; f.blocks.len()];
    for b in &order {
        reached[b.index()] = true;
    }
    let rest: Vec<BlockId> = f.block_ids().filter(|b| !reached[b.index()]).collect();
    for bid in order.iter().chain(&rest) {
        cx.b.block = MBlockId(bid.0);
        for &i in &f.block(*bid).insts {
            cx.inst(i, &abi.ret)?;
        }
    }
    cx.fill_phis()?;
    let mut out = cx.b.f;
    crate::legalize::demanded_bits::remove_undemanded_extensions(&mut out, target.instrs());
    out.props.ssa = true;
    Ok(out)
}

fn reverse_post_order(f: &Function) -> Vec<BlockId> {
    let mut seen = vec![false; f.blocks.len()];
    let mut post = Vec::new();
    let mut stack = vec![(f.entry(), 0usize)];
    if f.blocks.is_empty() {
        return post;
    }
    seen[0] = true;
    while let Some((b, k)) = stack.pop() {
        let succs = f.successors(b);
        if let Some(&s) = succs.get(k) {
            stack.push((b, k + 1));
            if !seen[s.index()] {
                seen[s.index()] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    post.reverse();
    post
}

/// Multiplies wider than 32 bits whose only use is an `add` of the same
/// type: they are lowered as part of the add (a multiply-add cascade).
fn fusable_muls(f: &Function) -> HashSet<ValueId> {
    let mut uses = vec![0u32; f.values.len()];
    for inst in &f.insts {
        for o in inst.op.operands() {
            if let Some(v) = o.value() {
                uses[v.index()] += 1;
            }
        }
    }
    let mut out = HashSet::new();
    for inst in &f.insts {
        let Op::Bin {
            op: BinOp::Add,
            lhs,
            rhs,
            ..
        } = &inst.op
        else {
            continue;
        };
        if !matches!(lhs.ty, Type::Int(w) if w > 32) {
            continue;
        }
        for o in [lhs, rhs] {
            let Some(v) = o.value() else { continue };
            let is_mul = f
                .def_inst(v)
                .is_some_and(|d| matches!(f.inst(d).op, Op::Bin { op: BinOp::Mul, .. }));
            if is_mul && uses[v.index()] == 1 && Some(v) != inst.result {
                out.insert(v);
                break;
            }
        }
    }
    out
}

/// The arguments whose first word arrives in the register of the
/// result's first word ([`MulPlan::result_over_factor`]).
fn over_result(f: &Function, args: &[Vec<WordLoc>], ret: &[WordLoc]) -> HashSet<ValueId> {
    let Some(first) = ret.first() else {
        return HashSet::new();
    };
    f.params
        .iter()
        .zip(args)
        .filter(|(_, locs)| locs.first() == Some(first))
        .map(|(p, _)| *p)
        .collect()
}

/// The values some `ret` returns, and the values a returned `trunc`
/// truncates (their low limbs go to the return registers as they are).
fn returned_values(f: &Function) -> HashSet<ValueId> {
    let mut out: HashSet<ValueId> = HashSet::new();
    let mut work: Vec<ValueId> = f
        .insts
        .iter()
        .filter_map(|i| match &i.op {
            Op::Ret { val: Some(v) } => v.value(),
            _ => None,
        })
        .collect();
    while let Some(v) = work.pop() {
        if !out.insert(v) {
            continue;
        }
        if let Some(Op::Cast {
            op: CastOp::Trunc,
            val,
            ..
        }) = f.def_inst(v).map(|d| &f.inst(d).op)
        {
            work.extend(val.value());
        }
    }
    out
}

struct Lower<'a, T: Target> {
    f: &'a Function,
    target: &'a T,
    uni: &'a Uniformity,
    kb: KnownBits,
    demand: Demand,
    b: MirBuilder<'a>,
    /// Each value's limbs (inline up to an `i128`: `get` copies them for
    /// every use).
    vals: Vec<Option<Limbs>>,
    fused: HashSet<ValueId>,
    /// PHIs to complete: (block, instruction index, IR instruction).
    phis: Vec<(MBlockId, usize, InstId)>,
    /// The arguments that arrive in the registers the result returns in.
    over_result: HashSet<ValueId>,
    /// The values `ret` returns.
    returned: HashSet<ValueId>,
    /// What the convention leaves above a narrow argument or result.
    narrow: NarrowArgs,
}

impl<T: Target> Lower<'_, T> {
    fn get(&mut self, o: &Operand) -> Res<Limbs> {
        match &o.kind {
            OperandKind::Const(c) => Ok(const_limbs(c, o.ty).into()),
            OperandKind::Value(v) => {
                self.vals[v.index()]
                    .clone()
                    .ok_or(LegalizeError::UnreachableUse {
                        span: o.span.clone(),
                    })
            }
        }
    }

    fn set(&mut self, v: ValueId, limbs: Vec<Limb>) {
        // Every limb whose bits are all known is a constant.
        let k = self.kb.of(self.f, v);
        let limbs = if k.width > 0 {
            limbs
                .into_iter()
                .enumerate()
                .map(|(i, l)| k.limb(i).map_or(l, Limb::Const))
                .collect()
        } else {
            limbs
        };
        self.vals[v.index()] = Some(limbs.into());
    }

    fn unsupported(&self, what: impl Into<String>, span: &Span) -> LegalizeError {
        LegalizeError::Unsupported {
            what: what.into(),
            span: span.clone(),
        }
    }

    fn inst(&mut self, i: InstId, ret_locs: &[WordLoc]) -> Res<()> {
        let f = self.f;
        let inst = f.inst(i);
        self.b.uniform = match inst.result {
            Some(r) => self.uni.is_uniform(r),
            None => !self.uni.is_divergent_inst(i),
        };
        if let Some(r) = inst.result {
            if self.fused.contains(&r) {
                return Ok(());
            }
        }
        let span = &inst.span;
        let out = match &inst.op {
            Op::Bin { op, lhs, rhs, .. } => self.bin(*op, lhs, rhs, span, inst.result)?,
            Op::FBin { op, lhs, rhs, .. } => {
                let (x, y) = (self.get(lhs)?, self.get(rhs)?);
                match lhs.ty {
                    Type::Half => vec![self.b.float(*op, FloatFmt::F16, x[0], y[0])],
                    Type::Float => vec![self.b.float(*op, FloatFmt::F32, x[0], y[0])],
                    Type::Vec2(Scalar::Half) => {
                        let (xe, ye) = (self.elements(&x, lhs.ty), self.elements(&y, lhs.ty));
                        let e0 = self.b.float(*op, FloatFmt::F16, xe[0][0], ye[0][0]);
                        let e1 = self.b.float(*op, FloatFmt::F16, xe[1][0], ye[1][0]);
                        self.pack(vec![vec![e0], vec![e1]], lhs.ty)
                    }
                    t => return Err(self.unsupported(format!("`{}` on `{t}`", op.name()), span)),
                }
            }
            Op::ICmp { pred, lhs, rhs } => {
                let w = match lhs.ty {
                    Type::Int(w) => u32::from(w),
                    Type::Ptr => 64,
                    t => return Err(self.unsupported(format!("`icmp` on `{t}`"), span)),
                };
                let (x, y) = (self.get(lhs)?, self.get(rhs)?);
                vec![wide::icmp(&mut self.b, *pred, &x, &y, w)]
            }
            Op::Select {
                cond,
                on_true,
                on_false,
            } => {
                let c = self.get(cond)?[0];
                let (x, y) = (self.get(on_true)?, self.get(on_false)?);
                x.iter()
                    .zip(&y)
                    .map(|(a, b)| self.b.select(c, *a, *b))
                    .collect()
            }
            Op::Cast { op, val, to } => self.cast(*op, val, *to, span)?,
            Op::ExtractElement { vec, index } => {
                let v = self.get(vec)?;
                let e = self.elements(&v, vec.ty);
                let idx = self.get(index)?[0];
                let c = self.b.icmp(IntPredicate::Ne, idx, Limb::Const(0));
                e[0].iter()
                    .zip(&e[1])
                    .map(|(a, b)| self.b.select(c, *b, *a))
                    .collect()
            }
            Op::InsertElement { vec, elt, index } => {
                let v = self.get(vec)?;
                let mut e = self.elements(&v, vec.ty);
                let x = self.get(elt)?;
                let idx = self.get(index)?[0];
                let c = self.b.icmp(IntPredicate::Ne, idx, Limb::Const(0));
                for (k, el) in e.iter_mut().enumerate() {
                    let hit = if k == 0 {
                        self.b.bin(BinOp::Xor, c, Limb::Const(1))
                    } else {
                        c
                    };
                    *el = el
                        .iter()
                        .zip(&x)
                        .map(|(old, new)| self.b.select(hit, *new, *old))
                        .collect();
                }
                self.pack(e, vec.ty)
            }
            Op::Phi { ty, .. } => {
                let r = inst
                    .result
                    .ok_or_else(|| self.unsupported("a phi without a result", span))?;
                let k = self.kb.of(f, r);
                let mut limbs = Vec::new();
                let mut first = None;
                for n in 0..words_of(*ty) {
                    if k.width > 0 {
                        if let Some(c) = k.limb(n) {
                            limbs.push(Limb::Const(c));
                            continue;
                        }
                    }
                    let d = self.b.new_reg();
                    let at = self.b.f.blocks[self.b.block].insts.len();
                    first.get_or_insert(at);
                    self.b.push(
                        self.b.ops.phi,
                        smallvec![MOperand::Reg(RegOperand::def_of(RegRef::Virt(d), None))],
                    );
                    limbs.push(Limb::Reg(d));
                }
                if let Some(at) = first {
                    self.phis.push((self.b.block, at, i));
                }
                limbs
            }
            Op::Load { ty, ptr, align } => {
                let p = self.get(ptr)?;
                let size = ty.store_size();
                // The alignment the access may assume: the IR's, else the
                // type's ABI alignment (an integer's store size rounded up
                // to a power of two, at most 8).
                let align = align.unwrap_or_else(|| size.next_power_of_two().clamp(1, 8));
                // (Integers only: their bits above the width are cleared
                // after; a `half`'s are not.)
                let whole =
                    self.target.whole_word_loads() && align >= 4 && matches!(ty, Type::Int(_));
                let mut out = Vec::new();
                for k in 0..words_of(*ty) as u64 {
                    let n = if whole {
                        4
                    } else {
                        (size - 4 * k).min(4) as u32
                    };
                    let (lo, hi) = self.address(&p, 4 * k);
                    out.push(self.b.load(lo, hi, n));
                }
                // An integer of a width that is not whole bytes (`i33`)
                // loads whole bytes, and a partial word read whole
                // ([`Target::whole_word_loads`]) more: the bits above the
                // width are cleared, as in every value (the memory's bits
                // there are not the value's; demanded bits drops the mask
                // no use reads).
                match *ty {
                    Type::Int(w) if w % 8 != 0 || (whole && size % 4 != 0) => {
                        wide::canonical(&mut self.b, out, u32::from(w))
                    }
                    _ => out,
                }
            }
            Op::Store { val, ptr, .. } => {
                let p = self.get(ptr)?;
                let v = self.get(val)?;
                let size = val.ty.store_size();
                for (k, l) in v.iter().enumerate() {
                    let k = k as u64;
                    let n = (size - 4 * k).min(4) as u32;
                    let (lo, hi) = self.address(&p, 4 * k);
                    self.b.store(*l, lo, hi, n);
                }
                Vec::new()
            }
            Op::Gep { base, indices, .. } => {
                let mut p = self.get(base)?;
                for i in indices {
                    p = match i.step {
                        GepStep::Field(0) => p,
                        GepStep::Field(off) => {
                            let c = [Limb::Const(off as u32), Limb::Const((off >> 32) as u32)];
                            wide::add(&mut self.b, &p, &c, 64).into()
                        }
                        GepStep::Scaled(size) => {
                            let Type::Int(w) = i.index.ty else {
                                return Err(self.unsupported("a non-integer index", span));
                            };
                            let idx = self.get(&i.index)?;
                            // Sign-extended, unless known non-negative.
                            let signed = !i
                                .index
                                .value()
                                .is_some_and(|v| self.kb.of(f, v).non_negative());
                            let idx64 = wide::resize(&mut self.b, &idx, u32::from(w), 64, signed);
                            let scale =
                                vec![Limb::Const(size as u32), Limb::Const((size >> 32) as u32)];
                            // A signed index of up to 32 bits is the sign
                            // extension of its low limb.
                            let plan =
                                MulPlan::new(idx64, scale, Some(p.into_vec()), 2, self.b.uniform)
                                    .with_sext32(signed && w <= 32, false);
                            self.mul(&plan).into()
                        }
                    };
                }
                p.into_vec()
            }
            Op::Call {
                callee,
                ret_ty,
                args,
            } => self.call(*callee, *ret_ty, args, span)?,
            Op::Br { target } => {
                self.b.push(
                    self.b.ops.br,
                    smallvec![MOperand::Block(MBlockId(target.0))],
                );
                Vec::new()
            }
            Op::CondBr {
                cond,
                on_true,
                on_false,
            } => {
                let c = self.get(cond)?[0];
                let c = self.b.reg(c);
                self.b.push(
                    self.b.ops.brcond,
                    vec![
                        MOperand::Reg(RegOperand::use_of(RegRef::Virt(c), None)),
                        MOperand::Block(MBlockId(on_true.0)),
                        MOperand::Block(MBlockId(on_false.0)),
                    ],
                );
                Vec::new()
            }
            Op::Ret { val } => {
                let mut uses = Vec::new();
                if let Some(v) = val {
                    let limbs = self.get(v)?;
                    let bits = v.ty.bits();
                    // Every `ret` returns the same type: the caller's
                    // demand, for `demanded_bits`.
                    let mut ret_bits = Vec::new();
                    for (k, (l, WordLoc::Reg(r))) in limbs.iter().zip(ret_locs).enumerate() {
                        // The bits above a narrow result are as undefined
                        // as a narrow argument's (LLVM's callable
                        // convention any-extends both): its extension in
                        // register is not made for the return.
                        let low = bits.saturating_sub(32 * k as u32).min(32);
                        let l = if self.narrow == NarrowArgs::Undefined {
                            // A result of one limb keeps its extensions (the
                            // SDWA peephole reads a byte's `and` as its
                            // select), wider ones read their width only.
                            ret_bits.push(if bits > 32 { low } else { 32 });
                            self.b.low_bits_of(*l, low)
                        } else {
                            *l
                        };
                        self.b.copy_to_phys(*r, l);
                        uses.push(MOperand::Reg(RegOperand::use_of(RegRef::Phys(*r), None)));
                    }
                    self.b.f.ret_bits = ret_bits;
                }
                self.b.push(self.b.ops.ret, uses);
                Vec::new()
            }
        };
        if let Some(r) = inst.result {
            self.set(r, out);
        }
        Ok(())
    }

    fn mul(&mut self, plan: &MulPlan) -> Vec<Limb> {
        let target = self.target;
        let mut lower = |p: &MulPlan, b: &mut MirBuilder<'_>| {
            target
                .lower_mul(p, b)
                .unwrap_or_else(|| lower_generic(p, b))
        };
        if let Some(r) = lower_sign_split(plan, &mut self.b, &mut lower) {
            return r;
        }
        lower(plan, &mut self.b)
    }

    /// The product of non-negative factors whose significant bits add up
    /// to at most 32 (a `zext i12` times 427): one 32-bit multiply, the
    /// limbs above known zero, where the plan would take a 64-bit product
    /// (a MAD, or `mul` and `mach`).
    fn narrow_product(&mut self, a: &Operand, b: &Operand, x: &[Limb], y: &[Limb]) -> Option<Limb> {
        let (p, q) = (self.kb.active_bits(a)?, self.kb.active_bits(b)?);
        if p + q > 32 || x.is_empty() || y.is_empty() {
            return None;
        }
        Some(self.b.bin(BinOp::Mul, x[0], y[0]))
    }

    /// How many low limbs operand `o` (of `len` limbs) is the sign
    /// extension of, by its sign bits ([`MulPlan::sign_limbs`]).
    fn sign_limbs(&self, o: &Operand, len: usize) -> usize {
        let Type::Int(w) = o.ty else {
            return len;
        };
        let needed = u32::from(w) + 1 - self.kb.sign_bits(o).min(u32::from(w));
        (needed.div_ceil(32).max(1) as usize).min(len)
    }

    /// `p + offset` as (low, high) address limbs.
    fn address(&mut self, p: &[Limb], offset: u64) -> (Limb, Limb) {
        if offset == 0 {
            return (p[0], p[1]);
        }
        let off = [
            Limb::Const(offset as u32),
            Limb::Const((offset >> 32) as u32),
        ];
        let a = wide::add(&mut self.b, p, &off, 64);
        (a[0], a[1])
    }

    fn bin(
        &mut self,
        op: BinOp,
        lhs: &Operand,
        rhs: &Operand,
        span: &Span,
        result: Option<ValueId>,
    ) -> Res<Vec<Limb>> {
        match lhs.ty {
            Type::Int(w) => {
                // The low limbs the result's uses read (a multiply builds
                // only their columns).
                let full = limbs_of(u32::from(w));
                let keep = result
                    .map(|r| self.demand.of(r))
                    .filter(|&k| k > 0)
                    .map_or(full, |k| k.min(full));
                if op == BinOp::Add {
                    // A fused multiply-add: the product is one operand.
                    for (m, other) in [(lhs, rhs), (rhs, lhs)] {
                        let Some(v) = m.value() else { continue };
                        if !self.fused.contains(&v) {
                            continue;
                        }
                        let Some(Op::Bin { lhs: a, rhs: b, .. }) =
                            self.f.def_inst(v).map(|d| &self.f.inst(d).op)
                        else {
                            continue;
                        };
                        let (x, y, mut z) = (self.get(a)?, self.get(b)?, self.get(other)?);
                        z.truncate(keep);
                        if let Some(p) = self.narrow_product(a, b, &x, &y) {
                            let p = pad(vec![p], keep);
                            let r = pad(wide::add(&mut self.b, &p, &z, 32 * keep as u32), full);
                            return Ok(wide::canonical(&mut self.b, r, u32::from(w)));
                        }
                        let narrow = self.kb.fits_i32(a) || self.kb.fits_i32(b);
                        if !narrow {
                            if let Some(r) = self.power_addend(&x, &y, &z, keep) {
                                let r = pad(r, full);
                                return Ok(wide::canonical(&mut self.b, r, u32::from(w)));
                            }
                        }
                        let uniform = self.uni.is_uniform(v);
                        let over = self.result_over_factor(result, [a, b]);
                        let signs = (self.sign_limbs(a, x.len()), self.sign_limbs(b, y.len()));
                        let plan = MulPlan::new(
                            x.into_vec(),
                            y.into_vec(),
                            Some(z.into_vec()),
                            keep,
                            uniform,
                        )
                        .with_sext32(self.kb.fits_i32(a), self.kb.fits_i32(b))
                        .with_sign_limbs(signs.0, signs.1)
                        .with_result_over_factor(over);
                        let r = pad(self.mul(&plan), full);
                        return Ok(wide::canonical(&mut self.b, r, u32::from(w)));
                    }
                }
                let (x, y) = (self.get(lhs)?, self.get(rhs)?);
                if op == BinOp::Mul && x.len() > 1 {
                    if let Some(p) = self.narrow_product(lhs, rhs, &x, &y) {
                        let r = pad(vec![p], x.len());
                        return Ok(wide::canonical(&mut self.b, r, u32::from(w)));
                    }
                    // Not for a factor of one limb, or sign-extended from
                    // one (one multiply-add, `v_mad_i64_i32`, or the sign
                    // limb's product subtracted).
                    let narrow = [lhs, rhs]
                        .iter()
                        .any(|o| o.value().is_some() && self.kb.fits_i32(o));
                    if !narrow {
                        if let Some(p) = self.mul_by_shifts(&x, &y, u32::from(w)) {
                            return Ok(p);
                        }
                    }
                    let sext = [self.kb.fits_i32(lhs), self.kb.fits_i32(rhs)];
                    let over = self.result_over_factor(result, [lhs, rhs]);
                    let signs = [self.sign_limbs(lhs, x.len()), self.sign_limbs(rhs, y.len())];
                    let plan = MulPlan::new(
                        x.to_vec(),
                        y.to_vec(),
                        None,
                        keep.min(x.len()),
                        self.b.uniform,
                    )
                    .with_sext32(sext[0], sext[1])
                    .with_sign_limbs(signs[0], signs[1])
                    .with_result_over_factor(over);
                    let r = pad(self.mul(&plan), x.len());
                    return Ok(wide::canonical(&mut self.b, r, u32::from(w)));
                }
                Ok(self.int_bin(op, &x, &y, u32::from(w), keep))
            }
            Type::Vec2(Scalar::Int(w)) => {
                let (x, y) = (self.get(lhs)?, self.get(rhs)?);
                let (xe, ye) = (self.elements(&x, lhs.ty), self.elements(&y, lhs.ty));
                let e = (0..2)
                    .map(|k| self.int_bin(op, &xe[k], &ye[k], u32::from(w), limbs_of(u32::from(w))))
                    .collect();
                Ok(self.pack(e, lhs.ty))
            }
            t => Err(self.unsupported(format!("`{}` on `{t}`", op.name()), span)),
        }
    }

    /// `x op y` on `w`-bit limbs; a multiply computes only the low `keep`
    /// limbs (the others are zero: no use reads them).
    fn int_bin(&mut self, op: BinOp, x: &[Limb], y: &[Limb], w: u32, keep: usize) -> Vec<Limb> {
        let b = &mut self.b;
        match op {
            BinOp::And | BinOp::Or | BinOp::Xor => {
                x.iter().zip(y).map(|(a, c)| b.bin(op, *a, *c)).collect()
            }
            BinOp::Add => wide::add(b, x, y, w),
            BinOp::Sub => wide::sub(b, x, y, w),
            BinOp::Mul if x.len() == 1 => {
                let r = b.bin(BinOp::Mul, x[0], y[0]);
                wide::canonical(b, vec![r], w)
            }
            BinOp::Mul => self.wide_mul(x, y, w, keep),
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                let own = match x.len() {
                    1 => None,
                    _ => self.target.lower_shift(op, x, y[0], w, b),
                };
                own.unwrap_or_else(|| wide::shift(b, op, x, y[0], w))
            }
        }
    }

    /// `x * y` by shifts where one factor is a constant of a
    /// [`wide::ShiftForm`] (the target's shifts, as a `shl` of the IR).
    fn mul_by_shifts(&mut self, x: &[Limb], y: &[Limb], w: u32) -> Option<Vec<Limb>> {
        let (x, form) = match (wide::shift_form(y), wide::shift_form(x)) {
            (Some(f), _) => (x, f),
            (None, Some(f)) => (y, f),
            (None, None) => return None,
        };
        if x.len() < 2 || x[1..].iter().all(|l| *l == Limb::Const(0)) {
            return None;
        }
        let n = x.len();
        let shl = |cx: &mut Self, k: u32| {
            if k >= w {
                vec![Limb::Const(0); n]
            } else {
                cx.int_bin(BinOp::Shl, x, &[Limb::Const(k)], w, n)
            }
        };
        Some(match form {
            wide::ShiftForm::Shl(k) => shl(self, k),
            // Per lane, from two limbs above `k`, `x * 2^k` with `x` as the
            // addend: the multiply cascade's chains take the addend's limbs
            // as accumulators, so each limb of the shifted value costs one
            // multiply-add with its carry (an `i128` times `2^70 + 1`: a
            // MAD and AMD's `v_lshl_add_u32`, 2, where the shifts and the
            // add take 4). One limb is one shift-and-add.
            wide::ShiftForm::ShlAdd(k) if !self.b.uniform && n >= 2 + (k / 32) as usize => {
                let mut c = vec![Limb::Const(0); n];
                c[(k / 32) as usize] = Limb::Const(1 << (k % 32));
                let plan = MulPlan::new(x.to_vec(), c, Some(x.to_vec()), n, false);
                let r = pad(self.mul(&plan), n);
                wide::canonical(&mut self.b, r, w)
            }
            wide::ShiftForm::ShlAdd(k) => {
                let s = shl(self, k);
                wide::add(&mut self.b, x, &s, w)
            }
            wide::ShiftForm::ShlSub(k) => {
                let s = shl(self, k);
                wide::sub(&mut self.b, &s, x, w)
            }
        })
    }

    /// `x * c + z` with a constant `c = 2^k ± 1` (`k ≥ 32`; not a whole
    /// number of limbs for `+`, those are
    /// [`crate::legalize::lower_shifted_sum`]'s; more than one limb for `-`)
    /// as the product by shifts ([`Lower::mul_by_shifts`]: `x * 2^k ± x`,
    /// the shifted value read before the sum writes over the factor) and
    /// then one add chain: an `i128` times `2^70 + 1` plus an `i128` is 7
    /// (llc 14's plan), where the cascade on the constant's two limbs took
    /// 11. `None`: no such constant, or a factor of one limb (its MADs are
    /// shorter). Only the low `keep` limbs are computed.
    fn power_addend(
        &mut self,
        x: &[Limb],
        y: &[Limb],
        z: &[Limb],
        keep: usize,
    ) -> Option<Vec<Limb>> {
        let form = wide::shift_form(y).or_else(|| wide::shift_form(x))?;
        // `2^32 - 1` is one limb: a MAD per factor limb takes it and the
        // addend (an `i64` dot product with it: 8, the shifts 10).
        if !matches!(form, wide::ShiftForm::ShlAdd(k) if k % 32 != 0)
            && !matches!(form, wide::ShiftForm::ShlSub(k) if k > 32)
        {
            return None;
        }
        let n = keep.min(x.len()).min(y.len());
        let w = 32 * n as u32;
        let p = self.mul_by_shifts(&x[..n], &y[..n], w)?;
        let zk: Vec<Limb> = (0..n)
            .map(|i| z.get(i).copied().unwrap_or(Limb::Const(0)))
            .collect();
        Some(wide::add(&mut self.b, &p, &zk, w))
    }

    /// [`MulPlan::result_over_factor`] for `result` and the factors (an
    /// extended argument keeps the argument's registers for its low limbs).
    fn result_over_factor(&self, result: Option<ValueId>, factors: [&Operand; 2]) -> bool {
        let arrived = |v: ValueId| {
            let v = match self.f.def_inst(v).map(|d| &self.f.inst(d).op) {
                Some(Op::Cast {
                    op: CastOp::ZExt | CastOp::SExt,
                    val,
                    ..
                }) => val.value(),
                _ => Some(v),
            };
            v.is_some_and(|v| self.over_result.contains(&v))
        };
        result.is_some_and(|r| self.returned.contains(&r))
            && factors.iter().any(|o| o.value().is_some_and(arrived))
    }

    /// A multiply of `w`-bit limbs; only the low `keep` limbs are computed.
    fn wide_mul(&mut self, x: &[Limb], y: &[Limb], w: u32, keep: usize) -> Vec<Limb> {
        let keep = keep.min(x.len());
        let plan = MulPlan::new(x.to_vec(), y.to_vec(), None, keep, self.b.uniform);
        let r = pad(self.mul(&plan), x.len());
        wide::canonical(&mut self.b, r, w)
    }

    /// The two elements of a vector value, each as limbs.
    fn elements(&mut self, v: &[Limb], ty: Type) -> Vec<Vec<Limb>> {
        let Type::Vec2(s) = ty else {
            return vec![v.to_vec(), Vec::new()];
        };
        if s.bits() <= 16 {
            let w = s.bits();
            let e0 = self.b.zext_inreg(v[0], w);
            let e1 = self.b.bin(BinOp::LShr, v[0], Limb::Const(w));
            vec![vec![e0], vec![e1]]
        } else {
            vec![vec![v[0]], vec![v[1]]]
        }
    }

    /// The inverse of [`Lower::elements`] (elements canonical).
    fn pack(&mut self, e: Vec<Vec<Limb>>, ty: Type) -> Vec<Limb> {
        let Type::Vec2(s) = ty else {
            return e.into_iter().next().unwrap_or_default();
        };
        if s.bits() <= 16 {
            let hi = self.b.bin(BinOp::Shl, e[1][0], Limb::Const(s.bits()));
            vec![self.b.bin(BinOp::Or, e[0][0], hi)]
        } else {
            vec![e[0][0], e[1][0]]
        }
    }

    fn cast(&mut self, op: CastOp, val: &Operand, to: Type, span: &Span) -> Res<Vec<Limb>> {
        let v = self.get(val)?;
        match (op, val.ty, to) {
            (CastOp::Bitcast, _, _) => Ok(v.into_vec()),
            (_, Type::Int(a), Type::Int(b)) => Ok(wide::resize(
                &mut self.b,
                &v,
                u32::from(a),
                u32::from(b),
                op == CastOp::SExt,
            )),
            (_, Type::Vec2(Scalar::Int(a)), Type::Vec2(Scalar::Int(b))) => {
                let e = self.elements(&v, val.ty);
                let out = e
                    .iter()
                    .map(|x| {
                        wide::resize(
                            &mut self.b,
                            x,
                            u32::from(a),
                            u32::from(b),
                            op == CastOp::SExt,
                        )
                    })
                    .collect();
                Ok(self.pack(out, to))
            }
            _ => {
                Err(self.unsupported(format!("`{}` from `{}` to `{to}`", op.name(), val.ty), span))
            }
        }
    }

    fn call(
        &mut self,
        callee: Builtin,
        ret: Type,
        args: &[Operand],
        span: &Span,
    ) -> Res<Vec<Limb>> {
        if let Builtin::MulHi { signed, bits } = callee {
            return self.mul_hi(signed, u32::from(bits), args, span);
        }
        let ops = self.b.ops.clone();
        let id = match callee {
            Builtin::MulHi { .. } => Vec::new(),
            Builtin::WorkitemIdX => vec![self.b.nullary(ops.workitem_id), Limb::Const(0)],
            Builtin::WorkgroupIdX => vec![self.b.nullary(ops.workgroup_id), Limb::Const(0)],
            Builtin::GetGlobalId { .. } => {
                let dim = match args.first() {
                    Some(a) => self.get(a)?[0],
                    None => {
                        return Err(self.unsupported("`get_global_id` without a dimension", span))
                    }
                };
                let wg = self.b.nullary(ops.workgroup_id);
                let size = self.b.nullary(ops.workgroup_size);
                let wi = self.b.nullary(ops.workitem_id);
                let (lo, hi) = self.b.mad64(wg, size, wi, Limb::Const(0));
                let is_x = self.b.icmp(IntPredicate::Eq, dim, Limb::Const(0));
                vec![
                    self.b.select(is_x, lo, Limb::Const(0)),
                    self.b.select(is_x, hi, Limb::Const(0)),
                ]
            }
        };
        match ret {
            Type::Int(w) => Ok(wide::resize(&mut self.b, &id, 64, u32::from(w), false)),
            t => Err(self.unsupported(format!("`@{}` returning `{t}`", callee.name()), span)),
        }
    }

    /// OpenCL's `mul_hi` on `w`-bit operands: both extended to `2w` bits
    /// (sign- or zero-), multiplied through the legalizer's column plan
    /// (whose top columns are the `umulh`s of the limb products), and the
    /// high `w` bits kept.
    fn mul_hi(&mut self, signed: bool, w: u32, args: &[Operand], span: &Span) -> Res<Vec<Limb>> {
        let [x, y] = args else {
            return Err(self.unsupported("`mul_hi` without two operands", span));
        };
        let (x, y) = (self.get(x)?, self.get(y)?);
        let b = &mut self.b;
        let x2 = wide::resize(b, &x, w, 2 * w, signed);
        let y2 = wide::resize(b, &y, w, 2 * w, signed);
        let p = self.int_bin(BinOp::Mul, &x2, &y2, 2 * w, usize::MAX);
        let b = &mut self.b;
        let hi = wide::shift(b, BinOp::LShr, &p, Limb::Const(w), 2 * w);
        Ok(wide::resize(b, &hi, 2 * w, w, false))
    }

    /// Fills the PHIs' operands; constants are materialized at the end of
    /// the predecessor.
    fn fill_phis(&mut self) -> Res<()> {
        let f = self.f;
        for (blk, at, i) in std::mem::take(&mut self.phis) {
            let inst = f.inst(i);
            let Op::Phi { incoming, .. } = &inst.op else {
                continue;
            };
            let r = inst.result.ok_or(LegalizeError::UnreachableUse {
                span: inst.span.clone(),
            })?;
            let mine = self.vals[r.index()].clone().unwrap_or_default();
            let mut ins = Vec::new();
            for e in incoming {
                ins.push((self.get(&e.val)?, MBlockId(e.block.0)));
            }
            let mut k = at;
            for (n, l) in mine.iter().enumerate() {
                let Limb::Reg(_) = l else { continue };
                let mut ops = vec![self.b.f.blocks[blk].insts[k].ops[0].clone()];
                for (limbs, pred) in &ins {
                    let src = match limbs[n] {
                        Limb::Reg(v) => v,
                        Limb::Const(c) => {
                            self.b.uniform = self.uni.is_uniform(r);
                            let d = self.b.new_reg();
                            let inst = MInst::new(
                                self.b.ops.movi,
                                vec![
                                    MOperand::Reg(RegOperand::def_of(RegRef::Virt(d), None)),
                                    MOperand::Imm(i64::from(c)),
                                ],
                            );
                            self.b.insert_before_terminator(*pred, inst);
                            d
                        }
                    };
                    ops.push(MOperand::Reg(RegOperand::use_of(RegRef::Virt(src), None)));
                    ops.push(MOperand::Block(*pred));
                }
                self.b.f.blocks[blk].insts[k].ops = ops.into();
                k += 1;
            }
        }
        Ok(())
    }
}

/// The limbs of a constant of type `ty`.
/// `r` extended by zero limbs to `n` limbs.
fn pad(mut r: Vec<Limb>, n: usize) -> Vec<Limb> {
    r.resize(n.max(r.len()), Limb::Const(0));
    r
}

fn const_limbs(c: &Value, ty: Type) -> Vec<Limb> {
    let bits = c.to_bits();
    let limbs = bits.as_limbs();
    (0..words_of(ty))
        .map(|k| Limb::Const((limbs[k / 2] >> (32 * (k % 2))) as u32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_limbs() {
        let v = Value::int(64, -2);
        assert_eq!(
            const_limbs(&v, Type::Int(64)),
            vec![Limb::Const(0xffff_fffe), Limb::Const(0xffff_ffff)]
        );
    }
}
