//! A machine-IR interpreter, over virtual registers before allocation and
//! physical registers after: the check that a pass preserved a program's
//! meaning (same results before and after).
//!
//! The hardware fact it models: physical registers overlap. Writing a
//! 64-bit pair changes both 32-bit registers under it, writing a 16-bit
//! half changes the 32-bit register above it. The register file is stored
//! as its *leaf* registers (those without sub-registers), each as wide as
//! the sub-register index that names it; a register's bits are its leaves
//! at their indices' offsets, all from the tables. (Registers related only
//! by `Aliases`, not by sub-registers, are not modelled.) So a register
//! allocator that puts two live values in overlapping registers changes
//! the results — which is what the allocator's tests look for. Implicit
//! physical defs that an instruction's meaning does not cover (a clobber)
//! are filled with garbage for the same reason.

use std::collections::HashMap;
use std::fmt;

use regdesc_runtime::{Reg, RegisterInfo};

use crate::mir::instr::{BinOp, CmpOp};
use crate::mir::widths::{index_width, operand_width, phys_width};
use crate::mir::{InstrSet, MBlockId, MFunction, MInst, Operand, RegOperand, RegRef, Sem};

/// A value of `width` bits, little-endian 64-bit words.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Bits {
    pub width: u32,
    pub words: Vec<u64>,
}

impl Bits {
    pub fn zero(width: u32) -> Bits {
        Bits {
            width,
            words: vec![0; width.div_ceil(64) as usize],
        }
    }

    /// `v` wrapped to `width` bits.
    pub fn from_u128(width: u32, v: u128) -> Bits {
        let mut b = Bits::zero(width);
        for (k, w) in b.words.iter_mut().enumerate().take(2) {
            *w = (v >> (64 * k)) as u64;
        }
        b.mask();
        b
    }

    /// The low 128 bits.
    pub fn to_u128(&self) -> u128 {
        let lo = self.words.first().copied().unwrap_or(0) as u128;
        let hi = self.words.get(1).copied().unwrap_or(0) as u128;
        lo | (hi << 64)
    }

    fn mask(&mut self) {
        let rem = self.width % 64;
        if rem != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << rem) - 1;
            }
        }
    }

    fn bit(&self, i: u32) -> bool {
        self.words
            .get((i / 64) as usize)
            .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    fn set_bit(&mut self, i: u32, v: bool) {
        if let Some(w) = self.words.get_mut((i / 64) as usize) {
            if v {
                *w |= 1 << (i % 64);
            } else {
                *w &= !(1 << (i % 64));
            }
        }
    }

    /// Bits `offset..offset + width`.
    pub fn extract(&self, offset: u32, width: u32) -> Bits {
        let mut out = Bits::zero(width);
        if offset.is_multiple_of(64) {
            let start = (offset / 64) as usize;
            for (k, w) in out.words.iter_mut().enumerate() {
                *w = self.words.get(start + k).copied().unwrap_or(0);
            }
            out.mask();
            return out;
        }
        for i in 0..width {
            out.set_bit(i, self.bit(offset + i));
        }
        out
    }

    /// Writes `v` at `offset`.
    pub fn insert(&mut self, offset: u32, v: &Bits) {
        for i in 0..v.width.min(self.width.saturating_sub(offset)) {
            self.set_bit(offset + i, v.bit(i));
        }
    }

    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "i{} 0x", self.width)?;
        for (k, w) in self.words.iter().enumerate().rev() {
            if k + 1 == self.words.len() {
                write!(f, "{w:x}")?;
            } else {
                write!(f, "{w:016x}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpError {
    pub message: String,
    /// Block and instruction index.
    pub at: Option<(MBlockId, usize)>,
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((b, k)) => write!(f, "bb.{}, instruction {k}: {}", b.0, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for InterpError {}

fn err(message: impl Into<String>) -> InterpError {
    InterpError {
        message: message.into(),
        at: None,
    }
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The values of `RET`.
    pub results: Vec<Bits>,
    /// Instructions executed.
    pub steps: u64,
}

/// Runs `f` with arguments `args` (read by `ARG n`), for at most
/// `max_steps` instructions.
pub fn run<R: RegisterInfo>(
    f: &MFunction,
    ri: &R,
    instrs: &InstrSet,
    args: &[u128],
    max_steps: u64,
) -> Result<Outcome, InterpError> {
    let mut m = Machine {
        f,
        ri,
        instrs,
        args,
        vregs: vec![None; f.vregs.len()],
        leaves: HashMap::new(),
        layouts: HashMap::new(),
        frame: vec![None; f.frame.len()],
        steps: 0,
    };
    m.run(max_steps)
}

struct Machine<'a, R: RegisterInfo> {
    f: &'a MFunction,
    ri: &'a R,
    instrs: &'a InstrSet,
    args: &'a [u128],
    vregs: Vec<Option<Bits>>,
    /// Leaf registers' contents (zero until written).
    leaves: HashMap<Reg, Bits>,
    /// Each physical register's leaves: (leaf, offset, width).
    layouts: HashMap<Reg, Vec<(Reg, u32, u32)>>,
    frame: Vec<Option<Bits>>,
    steps: u64,
}

impl<R: RegisterInfo> Machine<'_, R> {
    fn run(&mut self, max_steps: u64) -> Result<Outcome, InterpError> {
        let mut b = MBlockId(0);
        let mut pred: Option<MBlockId> = None;
        loop {
            let block = self
                .f
                .blocks
                .get(b.index())
                .ok_or_else(|| err(format!("no block bb.{}", b.0)))?;
            let mut k = 0;
            // PHIs: read every incoming value, then write them all.
            let mut phi_values = Vec::new();
            while let Some(i) = block.insts.get(k) {
                if self.instrs.get(i.opcode).map(|d| d.sem) != Some(Sem::Phi) {
                    break;
                }
                let p = pred.ok_or_else(|| err("PHI in the entry block"))?;
                let v = self.phi_input(i, p).map_err(|e| InterpError {
                    at: Some((b, k)),
                    ..e
                })?;
                phi_values.push((k, v));
                k += 1;
            }
            for (k, v) in phi_values {
                let def = block.insts[k].ops.first().and_then(Operand::reg);
                if let Some(def) = def {
                    self.write(def, v).map_err(|e| InterpError {
                        at: Some((b, k)),
                        ..e
                    })?;
                }
            }
            let mut next = None;
            while let Some(i) = block.insts.get(k) {
                self.steps += 1;
                if self.steps > max_steps {
                    return Err(InterpError {
                        message: format!("more than {max_steps} instructions executed"),
                        at: Some((b, k)),
                    });
                }
                match self.exec(i).map_err(|e| InterpError {
                    at: Some((b, k)),
                    ..e
                })? {
                    Flow::Next => k += 1,
                    Flow::Jump(t) => {
                        next = Some(t);
                        break;
                    }
                    Flow::Return(results) => {
                        return Ok(Outcome {
                            results,
                            steps: self.steps,
                        })
                    }
                }
            }
            let Some(t) = next else {
                return Err(InterpError {
                    message: "fell off the end of the block".into(),
                    at: Some((b, k)),
                });
            };
            pred = Some(b);
            b = t;
        }
    }

    fn phi_input(&mut self, i: &MInst, p: MBlockId) -> Result<Bits, InterpError> {
        for pair in i.ops[1..].chunks(2) {
            if let [Operand::Reg(r), Operand::Block(q)] = pair {
                if *q == p {
                    return self.read(r);
                }
            }
        }
        Err(err(format!("PHI has no value for bb.{}", p.0)))
    }

    fn width(&self, r: &RegOperand) -> Result<u32, InterpError> {
        operand_width(self.ri, self.f, r).ok_or_else(|| err("operand width unknown"))
    }

    fn layout(&mut self, p: Reg) -> Result<Vec<(Reg, u32, u32)>, InterpError> {
        if let Some(l) = self.layouts.get(&p) {
            return Ok(l.clone());
        }
        let t = self.ri.tables();
        let name = t.name(p);
        let mut l = Vec::new();
        if t.sub_regs(p).next().is_none() {
            let w =
                phys_width(self.ri, p).ok_or_else(|| err(format!("size of ${name} unknown")))?;
            l.push((p, 0, w));
        } else {
            for (i, s) in t.sub_regs_with_indices(p) {
                if t.sub_regs(s).next().is_some() {
                    continue;
                }
                let (Some(off), Some(w)) = (t.sub_reg_index_offset(i), index_width(self.ri, i))
                else {
                    return Err(err(format!(
                        "${name}: sub-register index {} has no fixed offset",
                        t.sub_reg_index_name(i)
                    )));
                };
                l.push((s, u32::from(off), w));
            }
        }
        self.layouts.insert(p, l.clone());
        Ok(l)
    }

    fn read_phys(&mut self, p: Reg) -> Result<Bits, InterpError> {
        let w = phys_width(self.ri, p).ok_or_else(|| err("register size unknown"))?;
        let mut out = Bits::zero(w);
        for (leaf, off, lw) in self.layout(p)? {
            let v = self.leaves.entry(leaf).or_insert_with(|| Bits::zero(lw));
            out.insert(off, v);
        }
        Ok(out)
    }

    fn write_phys(&mut self, p: Reg, v: &Bits) -> Result<(), InterpError> {
        for (leaf, off, lw) in self.layout(p)? {
            self.leaves.insert(leaf, v.extract(off, lw));
        }
        Ok(())
    }

    fn read(&mut self, r: &RegOperand) -> Result<Bits, InterpError> {
        match r.reg {
            RegRef::Phys(p) => self.read_phys(p),
            RegRef::Virt(v) => {
                let whole = self
                    .vregs
                    .get(v.index())
                    .cloned()
                    .flatten()
                    .ok_or_else(|| err(format!("%{} read before any def", v.0)))?;
                match r.sub {
                    None => Ok(whole),
                    Some(i) => {
                        let t = self.ri.tables();
                        let off = t
                            .sub_reg_index_offset(i)
                            .ok_or_else(|| err("sub-register offset unknown"))?;
                        let w = self.width(r)?;
                        Ok(whole.extract(u32::from(off), w))
                    }
                }
            }
        }
    }

    fn write(&mut self, r: &RegOperand, v: Bits) -> Result<(), InterpError> {
        match r.reg {
            RegRef::Phys(p) => self.write_phys(p, &v),
            RegRef::Virt(x) => {
                let rc = self
                    .f
                    .class_of(x)
                    .ok_or_else(|| err(format!("%{} has no class", x.0)))?;
                let full = crate::mir::widths::class_width(self.ri, rc)
                    .ok_or_else(|| err("class width unknown"))?;
                let slot = self
                    .vregs
                    .get_mut(x.index())
                    .ok_or_else(|| err("virtual register out of range"))?;
                match r.sub {
                    None => *slot = Some(v),
                    Some(i) => {
                        let off = self
                            .ri
                            .tables()
                            .sub_reg_index_offset(i)
                            .ok_or_else(|| err("sub-register offset unknown"))?;
                        let whole = slot.get_or_insert_with(|| Bits::zero(full));
                        whole.insert(u32::from(off), &v);
                    }
                }
                Ok(())
            }
        }
    }

    fn reg_op(i: &MInst, k: usize) -> Result<&RegOperand, InterpError> {
        i.ops
            .get(k)
            .and_then(Operand::reg)
            .ok_or_else(|| err(format!("operand {k} is not a register")))
    }

    fn imm(i: &MInst, k: usize) -> Result<i128, InterpError> {
        match i.ops.get(k) {
            Some(Operand::Imm(v)) => Ok(*v),
            _ => Err(err(format!("operand {k} is not an immediate"))),
        }
    }

    fn block(i: &MInst, k: usize) -> Result<MBlockId, InterpError> {
        match i.ops.get(k) {
            Some(Operand::Block(b)) => Ok(*b),
            _ => Err(err(format!("operand {k} is not a block"))),
        }
    }

    fn exec(&mut self, i: &MInst) -> Result<Flow, InterpError> {
        let desc = self
            .instrs
            .get(i.opcode)
            .ok_or_else(|| err("unknown opcode"))?;
        let sem = desc.sem;
        let flow = match sem {
            Sem::Copy => {
                let v = self.read(Self::reg_op(i, 1)?)?;
                self.write(Self::reg_op(i, 0)?, v)?;
                Flow::Next
            }
            Sem::Phi => return Err(err("PHI after a non-PHI instruction")),
            Sem::RegSequence => {
                let d = Self::reg_op(i, 0)?;
                let mut v = Bits::zero(self.width(d)?);
                for pair in i.ops[1..].chunks(2) {
                    if let [Operand::Reg(r), Operand::SubIdx(s)] = pair {
                        if r.undef {
                            continue;
                        }
                        let x = self.read(r)?;
                        let off = self
                            .ri
                            .tables()
                            .sub_reg_index_offset(*s)
                            .ok_or_else(|| err("sub-register offset unknown"))?;
                        v.insert(u32::from(off), &x);
                    }
                }
                self.write(d, v)?;
                Flow::Next
            }
            Sem::ImplicitDef => {
                let d = Self::reg_op(i, 0)?;
                if d.vreg().is_some() {
                    let w = self.width(d)?;
                    self.write(d, Bits::zero(w))?;
                }
                Flow::Next
            }
            Sem::Arg => {
                let d = Self::reg_op(i, 0)?;
                let n = Self::imm(i, 1)?;
                let a = usize::try_from(n)
                    .ok()
                    .and_then(|n| self.args.get(n))
                    .ok_or_else(|| err(format!("no argument {n}")))?;
                let w = self.width(d)?;
                self.write(d, Bits::from_u128(w, *a))?;
                Flow::Next
            }
            Sem::MovImm => {
                let d = Self::reg_op(i, 0)?;
                let w = self.width(d)?;
                let v = Bits::from_u128(w, Self::imm(i, 1)? as u128);
                self.write(d, v)?;
                Flow::Next
            }
            Sem::Binary(op) => {
                let d = Self::reg_op(i, 0)?;
                let w = self.width(d)?;
                let a = self.read(Self::reg_op(i, 1)?)?;
                let b = self.read(Self::reg_op(i, 2)?)?;
                let v = binary(op, w, a.to_u128(), b.to_u128())?;
                self.write(d, Bits::from_u128(w, v))?;
                Flow::Next
            }
            Sem::Compare(op) => {
                let d = Self::reg_op(i, 0)?;
                let ra = Self::reg_op(i, 1)?;
                let wa = self.width(ra)?;
                let a = self.read(ra)?;
                let b = self.read(Self::reg_op(i, 2)?)?;
                if wa > 128 {
                    return Err(err(format!("{wa}-bit comparison")));
                }
                let (x, y) = (a.to_u128(), b.to_u128());
                let r = match op {
                    CmpOp::Eq => x == y,
                    CmpOp::Ne => x != y,
                    CmpOp::Ult => x < y,
                    CmpOp::Slt => sext(x, wa) < sext(y, wa),
                };
                let w = self.width(d)?;
                self.write(d, Bits::from_u128(w, r as u128))?;
                Flow::Next
            }
            Sem::Select => {
                let c = self.read(Self::reg_op(i, 1)?)?;
                let v = if c.is_zero() {
                    self.read(Self::reg_op(i, 3)?)?
                } else {
                    self.read(Self::reg_op(i, 2)?)?
                };
                self.write(Self::reg_op(i, 0)?, v)?;
                Flow::Next
            }
            Sem::Branch => Flow::Jump(Self::block(i, 0)?),
            Sem::CondBranch => {
                let c = self.read(Self::reg_op(i, 0)?)?;
                Flow::Jump(if c.is_zero() {
                    Self::block(i, 2)?
                } else {
                    Self::block(i, 1)?
                })
            }
            Sem::Return => {
                let mut out = Vec::new();
                for o in &i.ops {
                    if let Operand::Reg(r) = o {
                        if !r.implicit && !r.is_def {
                            out.push(self.read(r)?);
                        }
                    }
                }
                Flow::Return(out)
            }
            Sem::StackStore => {
                let v = self.read(Self::reg_op(i, 0)?)?;
                let s = frame_of(i)?;
                let slot = self
                    .frame
                    .get_mut(s)
                    .ok_or_else(|| err("no such stack slot"))?;
                *slot = Some(v);
                Flow::Next
            }
            Sem::StackLoad => {
                let s = frame_of(i)?;
                let v = self
                    .frame
                    .get(s)
                    .cloned()
                    .flatten()
                    .ok_or_else(|| err(format!("%stack.{s} read before it is written")))?;
                let d = Self::reg_op(i, 0)?;
                let w = self.width(d)?;
                self.write(d, v.extract(0, w))?;
                Flow::Next
            }
            Sem::Nop => Flow::Next,
        };
        // Clobbers: implicit defs the meaning does not write get garbage.
        for o in &i.ops {
            if let Operand::Reg(r) = o {
                if r.implicit && r.is_def {
                    if let RegRef::Phys(p) = r.reg {
                        let w = phys_width(self.ri, p).unwrap_or(64);
                        let g = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834u128
                            .wrapping_mul(u128::from(self.steps) | 1);
                        self.write_phys(p, &Bits::from_u128(w, g))?;
                    }
                }
            }
        }
        Ok(flow)
    }
}

enum Flow {
    Next,
    Jump(MBlockId),
    Return(Vec<Bits>),
}

fn frame_of(i: &MInst) -> Result<usize, InterpError> {
    i.ops
        .iter()
        .find_map(|o| match o {
            Operand::Frame(s) => Some(s.0 as usize),
            _ => None,
        })
        .ok_or_else(|| err("no stack slot operand"))
}

fn sext(v: u128, w: u32) -> i128 {
    if w == 0 || w >= 128 {
        return v as i128;
    }
    let shift = 128 - w;
    ((v << shift) as i128) >> shift
}

fn binary(op: BinOp, w: u32, a: u128, b: u128) -> Result<u128, InterpError> {
    if w > 128 || w == 0 {
        return Err(err(format!("{w}-bit arithmetic")));
    }
    let mask = if w == 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    };
    let (a, b) = (a & mask, b & mask);
    let sh = (b % u128::from(w)) as u32;
    Ok(mask
        & match op {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Shl => a << sh,
            BinOp::LShr => a >> sh,
            BinOp::AShr => (sext(a, w) >> sh) as u128,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_extract_insert() {
        let mut b = Bits::zero(96);
        b.insert(32, &Bits::from_u128(32, 0xdead_beef));
        assert_eq!(b.extract(32, 32).to_u128(), 0xdead_beef);
        assert_eq!(b.extract(48, 16).to_u128(), 0xdead);
        assert_eq!(b.extract(0, 32).to_u128(), 0);
        assert_eq!(
            format!("{}", Bits::from_u128(16, 0x0001_ffff)),
            "i16 0xffff"
        );
    }

    #[test]
    fn arithmetic_wraps() {
        assert_eq!(binary(BinOp::Add, 16, 0xffff, 2).ok(), Some(1));
        assert_eq!(binary(BinOp::AShr, 16, 0x8000, 15).ok(), Some(0xffff));
        assert_eq!(binary(BinOp::Shl, 32, 1, 33).ok(), Some(2));
        assert!(binary(BinOp::Add, 256, 1, 1).is_err());
    }
}
