//! Building generic machine IR: one method per generic limb opcode, with
//! the folding every lowering wants (constants, identities), so that
//! known-zero limbs cost nothing.

use crate::mir::{def, use_};
use regdesc_index::IndexVec;
use regdesc_runtime::RegClass;

use crate::ir::{BinOp, FBinOp, IntPredicate};
use crate::legalize::{LegalizeError, Limb};
use crate::mir::instr::FloatFmt;
use crate::mir::{
    smallvec, InstrSet, MBlock, MBlockId, MFunction, MInst, Opcode, Operand, Operands, RegOperand,
    RegRef, VReg,
};
use regdesc_runtime::Reg;

/// The generic opcodes the legalizer emits, looked up once.
#[derive(Clone, Debug)]
pub struct GenericOps {
    pub copy: Opcode,
    pub phi: Opcode,
    pub movi: Opcode,
    pub bin: [Opcode; 9],
    pub icmp: [Opcode; 10],
    pub select: Opcode,
    pub br: Opcode,
    pub brcond: Opcode,
    pub ret: Opcode,
    pub uaddo: Opcode,
    pub uadde: Opcode,
    pub usubo: Opcode,
    pub usube: Opcode,
    pub umulh: Opcode,
    pub smulh: Opcode,
    pub mad64: Opcode,
    pub zext_inreg: Opcode,
    pub sext_inreg: Opcode,
    pub load: Opcode,
    pub store: Opcode,
    pub workitem_id: Opcode,
    pub workgroup_id: Opcode,
    pub workgroup_size: Opcode,
    /// FADD, FSUB, FMUL by F16, F32.
    pub float: [[Opcode; 2]; 3],
}

pub(crate) const BIN_OPS: [BinOp; 9] = BinOp::ALL;

impl GenericOps {
    /// The generic opcode of the 32-bit operation `op`.
    pub fn bin_opcode(&self, op: BinOp) -> Opcode {
        self.bin[BIN_OPS.iter().position(|o| *o == op).unwrap_or(0)]
    }

    /// The generic opcodes of `instrs` (every set built from
    /// [`InstrSet::generic`] has them).
    pub fn of(instrs: &InstrSet) -> Result<GenericOps, LegalizeError> {
        let op = |name: &str| {
            instrs
                .by_name(name)
                .ok_or_else(|| LegalizeError::MissingOpcode(name.to_string()))
        };
        let mut bin = [Opcode(0); 9];
        for (k, b) in BIN_OPS.iter().enumerate() {
            bin[k] = op(&b.name().to_uppercase())?;
        }
        let mut icmp = [Opcode(0); 10];
        for (k, p) in IntPredicate::ALL.iter().enumerate() {
            icmp[k] = op(&format!("G_ICMP_{}", p.name().to_uppercase()))?;
        }
        let mut float = [[Opcode(0); 2]; 3];
        for (k, f) in ["FADD", "FSUB", "FMUL"].iter().enumerate() {
            float[k] = [op(&format!("G_{f}_F16"))?, op(&format!("G_{f}_F32"))?];
        }
        Ok(GenericOps {
            copy: instrs.copy,
            phi: instrs.phi,
            movi: op("MOVI")?,
            bin,
            icmp,
            select: op("SELECT")?,
            br: op("BR")?,
            brcond: op("BRCOND")?,
            ret: op("RET")?,
            uaddo: op("G_UADDO")?,
            uadde: op("G_UADDE")?,
            usubo: op("G_USUBO")?,
            usube: op("G_USUBE")?,
            umulh: op("G_UMULH")?,
            smulh: op("G_SMULH")?,
            mad64: op("G_MAD64")?,
            zext_inreg: op("G_ZEXT_INREG")?,
            sext_inreg: op("G_SEXT_INREG")?,
            load: op("G_LOAD")?,
            store: op("G_STORE")?,
            workitem_id: op("G_WORKITEM_ID")?,
            workgroup_id: op("G_WORKGROUP_ID")?,
            workgroup_size: op("G_WORKGROUP_SIZE")?,
            float,
        })
    }
}

/// Builds generic machine IR into one function, block by block. Values
/// are [`Limb`]s: a register or a known 32-bit constant.
pub struct MirBuilder<'a> {
    pub f: MFunction,
    pub ops: GenericOps,
    pub instrs: &'a InstrSet,
    /// The block instructions go into.
    pub block: MBlockId,
    /// Whether new values are uniform (chooses their class).
    pub uniform: bool,
    /// Class of per-lane and of uniform 32-bit values.
    classes: [RegClass; 2],
    /// The physical register each argument word's copy reads
    /// ([`MirBuilder::arrival`]).
    arrivals: std::collections::HashMap<VReg, Reg>,
    /// Per register made here, what its making says of its top bits
    /// ([`HighBits`]); registers past the end are unknown.
    high: IndexVec<VReg, HighBits>,
}

/// What is known of a 32-bit register's top bits by the instruction that
/// made it: how many copies of the sign bit lead it (at least 1), and how
/// many leading bits are zero. A sign limb (`ashr x, 31`) is all copies,
/// so extending it in register again, or taking its sign again, is the
/// same register (a `sext i63` of a `sext i32`'s limbs would otherwise
/// take two more instructions per limb).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HighBits {
    pub sign: u8,
    pub zeros: u8,
}

impl HighBits {
    fn of_const(c: u32) -> HighBits {
        HighBits {
            sign: (c as i32).leading_zeros().max((c as i32).leading_ones()) as u8,
            zeros: c.leading_zeros() as u8,
        }
    }
}

impl<'a> MirBuilder<'a> {
    pub fn new(
        name: &str,
        blocks: usize,
        instrs: &'a InstrSet,
        per_lane: RegClass,
        uniform: RegClass,
    ) -> Result<MirBuilder<'a>, LegalizeError> {
        let mut f = MFunction::new(name);
        f.blocks = vec![MBlock::default(); blocks.max(1)].into();
        Ok(MirBuilder {
            f,
            ops: GenericOps::of(instrs)?,
            instrs,
            block: MBlockId(0),
            uniform: false,
            classes: [per_lane, uniform],
            arrivals: std::collections::HashMap::new(),
            high: IndexVec::new(),
        })
    }

    /// A new 32-bit register in the current uniformity's class.
    pub fn new_reg(&mut self) -> VReg {
        let rc = self.classes[usize::from(self.uniform)];
        self.f.new_vreg(rc)
    }

    /// Whether `l` is the same in every lane: a constant, or a register
    /// of the uniform class.
    pub fn is_uniform(&self, l: Limb) -> bool {
        match l {
            Limb::Const(_) => true,
            Limb::Reg(v) => self.f.class_of(v) == Some(self.classes[1]),
        }
    }

    /// A 32-bit register whose value nothing reads for its meaning
    /// (`IMPLICIT_DEF`): the high half of an accumulator whose high half
    /// does not reach the bits read, placed wherever the allocator likes.
    pub fn undef(&mut self) -> Limb {
        let d = self.new_reg();
        self.push(self.instrs.implicit_def, vec![def(d)]);
        Limb::Reg(d)
    }

    /// Appends an instruction to the current block.
    pub fn push(&mut self, op: Opcode, ops: impl Into<Operands>) {
        self.f.blocks[self.block].insts.push(MInst::new(op, ops));
    }

    /// Inserts an instruction into `b` before its terminator.
    pub fn insert_before_terminator(&mut self, b: MBlockId, inst: MInst) {
        let insts = &mut self.f.blocks[b].insts;
        let at = insts.len().saturating_sub(1);
        insts.insert(at, inst);
    }

    /// `l` in a register (a constant gets a `MOVI`).
    pub fn reg(&mut self, l: Limb) -> VReg {
        match l {
            Limb::Reg(v) => v,
            Limb::Const(c) => {
                let d = self.new_reg();
                self.push(self.ops.movi, smallvec![def(d), Operand::Imm(i64::from(c))]);
                d
            }
        }
    }

    fn op1(&mut self, op: Opcode, srcs: &[Limb], imms: &[i64]) -> Limb {
        let mut ops = Operands::new();
        let d = self.new_reg();
        ops.push(def(d));
        for s in srcs {
            let r = self.reg(*s);
            ops.push(use_(r));
        }
        ops.extend(imms.iter().map(|i| Operand::Imm(*i)));
        self.push(op, ops);
        Limb::Reg(d)
    }

    fn op2(&mut self, op: Opcode, srcs: &[Limb]) -> (Limb, Limb) {
        let (d0, d1) = (self.new_reg(), self.new_reg());
        let mut ops: Operands = smallvec![def(d0), def(d1)];
        for s in srcs {
            let r = self.reg(*s);
            ops.push(use_(r));
        }
        self.push(op, ops);
        (Limb::Reg(d0), Limb::Reg(d1))
    }

    /// A 32-bit operation (shift amounts modulo 32).
    pub fn bin(&mut self, op: BinOp, a: Limb, b: Limb) -> Limb {
        use Limb::Const as C;
        match (op, a, b) {
            (_, C(x), C(y)) => return C(fold(op, x, y)),
            (BinOp::Add | BinOp::Or | BinOp::Xor, C(0), x)
            | (
                BinOp::Add
                | BinOp::Sub
                | BinOp::Or
                | BinOp::Xor
                | BinOp::Shl
                | BinOp::LShr
                | BinOp::AShr,
                x,
                C(0),
            )
            | (BinOp::Mul, x, C(1))
            | (BinOp::Mul, C(1), x)
            | (BinOp::And, x, C(u32::MAX))
            | (BinOp::And, C(u32::MAX), x) => return x,
            (BinOp::Mul | BinOp::And, C(0), _)
            | (BinOp::Mul | BinOp::And, _, C(0))
            | (BinOp::Shl | BinOp::LShr | BinOp::AShr, C(0), _) => return C(0),
            // A register of sign copies only.
            (BinOp::AShr, x, C(_)) if self.high_bits(x).sign >= 32 => return x,
            _ => {}
        }
        let d = self.op1(self.ops.bin_opcode(op), &[a, b], &[]);
        let (x, y) = (self.high_bits(a), self.high_bits(b));
        let known = match (op, b) {
            (BinOp::AShr, C(k)) if k < 32 => HighBits {
                sign: (u32::from(x.sign) + k).min(32) as u8,
                zeros: if x.zeros > 0 {
                    (u32::from(x.zeros) + k).min(32) as u8
                } else {
                    0
                },
            },
            (BinOp::LShr, C(k)) if k < 32 => {
                let zeros = (u32::from(x.zeros) + k).min(32) as u8;
                HighBits {
                    sign: zeros.max(1),
                    zeros,
                }
            }
            (BinOp::And, _) => {
                let zeros = x.zeros.max(y.zeros);
                HighBits {
                    sign: zeros.max(1),
                    zeros,
                }
            }
            _ => HighBits::default(),
        };
        self.know(d, known)
    }

    /// What is known of `a`'s top bits ([`HighBits`]).
    pub fn high_bits(&self, a: Limb) -> HighBits {
        match a {
            Limb::Const(c) => HighBits::of_const(c),
            Limb::Reg(v) => {
                let h = self.high.get(v).copied().unwrap_or_default();
                HighBits {
                    sign: h.sign.max(1),
                    zeros: h.zeros,
                }
            }
        }
    }

    /// Records `h` for the register `d` (which this builder just made).
    fn know(&mut self, d: Limb, h: HighBits) -> Limb {
        if let Limb::Reg(v) = d {
            if h != HighBits::default() {
                while self.high.len() <= v.index() {
                    self.high.push(HighBits::default());
                }
                self.high[v] = h;
            }
        }
        d
    }

    /// 1 when the predicate holds, else 0.
    pub fn icmp(&mut self, p: IntPredicate, a: Limb, b: Limb) -> Limb {
        if let (Limb::Const(x), Limb::Const(y)) = (a, b) {
            let (sx, sy) = (x as i32, y as i32);
            let r = p.holds(x.cmp(&y), sx.cmp(&sy));
            return Limb::Const(u32::from(r));
        }
        let k = IntPredicate::ALL.iter().position(|q| *q == p).unwrap_or(0);
        self.op1(self.ops.icmp[k], &[a, b], &[])
    }

    /// `c ? a : b` (`c` is 0 or 1).
    pub fn select(&mut self, c: Limb, a: Limb, b: Limb) -> Limb {
        match c {
            Limb::Const(0) => b,
            Limb::Const(_) => a,
            _ if a == b => a,
            _ => self.op1(self.ops.select, &[c, a, b], &[]),
        }
    }

    /// Sum and carry (0 or 1).
    pub fn uaddo(&mut self, a: Limb, b: Limb) -> (Limb, Limb) {
        match (a, b) {
            (Limb::Const(x), Limb::Const(y)) => {
                let (s, c) = x.overflowing_add(y);
                (Limb::Const(s), Limb::Const(u32::from(c)))
            }
            (x, Limb::Const(0)) | (Limb::Const(0), x) => (x, Limb::Const(0)),
            _ => self.op2(self.ops.uaddo, &[a, b]),
        }
    }

    /// Sum with carry in, and carry out.
    pub fn uadde(&mut self, a: Limb, b: Limb, c: Limb) -> (Limb, Limb) {
        match c {
            Limb::Const(0) => self.uaddo(a, b),
            _ => match (a, b) {
                (Limb::Const(0), Limb::Const(0)) => (c, Limb::Const(0)),
                _ => self.op2(self.ops.uadde, &[a, b, c]),
            },
        }
    }

    /// Difference and borrow (0 or 1).
    pub fn usubo(&mut self, a: Limb, b: Limb) -> (Limb, Limb) {
        match (a, b) {
            (Limb::Const(x), Limb::Const(y)) => {
                let (s, c) = x.overflowing_sub(y);
                (Limb::Const(s), Limb::Const(u32::from(c)))
            }
            (x, Limb::Const(0)) => (x, Limb::Const(0)),
            _ => self.op2(self.ops.usubo, &[a, b]),
        }
    }

    /// Difference with borrow in, and borrow out.
    pub fn usube(&mut self, a: Limb, b: Limb, c: Limb) -> (Limb, Limb) {
        match c {
            Limb::Const(0) => self.usubo(a, b),
            _ => self.op2(self.ops.usube, &[a, b, c]),
        }
    }

    /// `a * b + (chi:clo)` as (low, high) 32-bit halves.
    pub fn mad64(&mut self, a: Limb, b: Limb, clo: Limb, chi: Limb) -> (Limb, Limb) {
        match (a, b) {
            (Limb::Const(0), _) | (_, Limb::Const(0)) => (clo, chi),
            (Limb::Const(x), Limb::Const(y)) => {
                let p = u64::from(x) * u64::from(y);
                if let (Limb::Const(l), Limb::Const(h)) = (clo, chi) {
                    let r = p.wrapping_add(u64::from(l) | (u64::from(h) << 32));
                    return (Limb::Const(r as u32), Limb::Const((r >> 32) as u32));
                }
                // A constant product (`2 * 8`, an element's offset) is an
                // add of a constant: `p + K`, which a target may fold into
                // its memory offsets.
                let (lo, c) = self.uaddo(clo, Limb::Const(p as u32));
                let (hi, _) = self.uadde(chi, Limb::Const((p >> 32) as u32), c);
                (lo, hi)
            }
            _ => self.op2(self.ops.mad64, &[a, b, clo, chi]),
        }
    }

    /// The high 32 bits of the unsigned product.
    pub fn umulh(&mut self, a: Limb, b: Limb) -> Limb {
        match (a, b) {
            (Limb::Const(0), _)
            | (_, Limb::Const(0))
            | (Limb::Const(1), _)
            | (_, Limb::Const(1)) => Limb::Const(0),
            (Limb::Const(x), Limb::Const(y)) => {
                Limb::Const(((u64::from(x) * u64::from(y)) >> 32) as u32)
            }
            _ => self.op1(self.ops.umulh, &[a, b], &[]),
        }
    }

    /// The high 32 bits of the signed product.
    pub fn smulh(&mut self, a: Limb, b: Limb) -> Limb {
        self.op1(self.ops.smulh, &[a, b], &[])
    }

    /// The low `w` bits.
    pub fn zext_inreg(&mut self, a: Limb, w: u32) -> Limb {
        if w >= 32 {
            return a;
        }
        let a = self.low_bits_of(a, w);
        if u32::from(self.high_bits(a).zeros) >= 32 - w {
            return a;
        }
        match a {
            Limb::Const(c) => Limb::Const(c & ((1u32 << w) - 1)),
            _ => {
                let d = self.op1(self.ops.zext_inreg, &[a], &[i64::from(w)]);
                let top = (32 - w) as u8;
                self.know(
                    d,
                    HighBits {
                        sign: top,
                        zeros: top,
                    },
                )
            }
        }
    }

    /// `a` for a use that reads only its low `bits` bits: the source of
    /// a zero or sign extension in register (`G_ZEXT_INREG`,
    /// `G_SEXT_INREG`) of at least that width, which only changes the
    /// bits above (a narrow result's, where the calling convention leaves
    /// those bits undefined; a narrow store's are left to
    /// [`crate::legalize::demanded_bits`]). Looks back a few
    /// instructions of the current block, where such an extension is made.
    pub fn low_bits_of(&self, a: Limb, bits: u32) -> Limb {
        let Limb::Reg(v) = a else { return a };
        let insts = &self.f.blocks[self.block].insts;
        for i in insts.iter().rev().take(64) {
            if i.ops.first().and_then(Operand::vreg) != Some(v) {
                continue;
            }
            if i.opcode != self.ops.zext_inreg && i.opcode != self.ops.sext_inreg {
                return a;
            }
            return match (i.ops.get(1).and_then(Operand::vreg), i.ops.get(2)) {
                (Some(src), Some(Operand::Imm(w))) if *w >= i64::from(bits) => Limb::Reg(src),
                _ => a,
            };
        }
        a
    }

    /// Bit `w - 1` copied upwards.
    pub fn sext_inreg(&mut self, a: Limb, w: u32) -> Limb {
        if w >= 32 {
            return a;
        }
        // Only the low `w` bits of `a` are read.
        let a = self.low_bits_of(a, w);
        if u32::from(self.high_bits(a).sign) > 32 - w {
            return a;
        }
        match a {
            Limb::Const(c) => {
                let sh = 32 - w;
                Limb::Const((((c << sh) as i32) >> sh) as u32)
            }
            _ => {
                let d = self.op1(self.ops.sext_inreg, &[a], &[i64::from(w)]);
                let sign = (33 - w) as u8;
                self.know(d, HighBits { sign, zeros: 0 })
            }
        }
    }

    pub fn float(&mut self, op: FBinOp, fmt: FloatFmt, a: Limb, b: Limb) -> Limb {
        let k = match op {
            FBinOp::FAdd => 0,
            FBinOp::FSub => 1,
            FBinOp::FMul => 2,
        };
        let f = usize::from(fmt == FloatFmt::F32);
        self.op1(self.ops.float[k][f], &[a, b], &[])
    }

    /// `n` bytes at address `hi:lo`, zero-extended.
    pub fn load(&mut self, lo: Limb, hi: Limb, n: u32) -> Limb {
        self.op1(self.ops.load, &[lo, hi], &[i64::from(n)])
    }

    /// The low `n` bytes of `v` at address `hi:lo`.
    pub fn store(&mut self, v: Limb, lo: Limb, hi: Limb, n: u32) {
        let ops: Operands = [v, lo, hi]
            .iter()
            .map(|l| {
                let r = self.reg(*l);
                use_(r)
            })
            .chain([Operand::Imm(i64::from(n))])
            .collect();
        self.push(self.ops.store, ops);
    }

    /// A value with no operand (`G_WORKITEM_ID` ...).
    pub fn nullary(&mut self, op: Opcode) -> Limb {
        self.op1(op, &[], &[])
    }

    /// The physical register `l` was copied from on entry (an argument
    /// word), if any: where the calling convention put it.
    pub fn arrival(&self, l: Limb) -> Option<Reg> {
        match l {
            Limb::Reg(v) => self.arrivals.get(&v).copied(),
            Limb::Const(_) => None,
        }
    }

    /// Whether some argument word arrived in physical register `r`.
    pub fn arrived_in(&self, r: Reg) -> bool {
        self.arrivals.values().any(|&a| a == r)
    }

    /// `%d = COPY $r`.
    pub fn copy_from_phys(&mut self, r: Reg) -> Limb {
        let d = self.new_reg();
        self.arrivals.insert(d, r);
        self.push(
            self.ops.copy,
            vec![
                def(d),
                Operand::Reg(RegOperand::use_of(RegRef::Phys(r), None)),
            ],
        );
        Limb::Reg(d)
    }

    /// `$r = COPY l`.
    pub fn copy_to_phys(&mut self, r: Reg, l: Limb) {
        let s = self.reg(l);
        self.push(
            self.ops.copy,
            vec![
                Operand::Reg(RegOperand::def_of(RegRef::Phys(r), None)),
                use_(s),
            ],
        );
    }
}

/// A 32-bit operation on constants (shift amounts modulo 32).
pub(crate) fn fold(op: BinOp, x: u32, y: u32) -> u32 {
    let sh = y % 32;
    match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::Shl => x << sh,
        BinOp::LShr => x >> sh,
        BinOp::AShr => ((x as i32) >> sh) as u32,
    }
}
