//! Instruction descriptions (LLVM's `MCInstrDesc`): what a target tells the
//! target-neutral passes about each opcode.
//!
//! The hardware facts served: which operands an instruction writes, which
//! def must share a register with a use (two-address encodings such as
//! AMD's `V_MAC_F32` or Intel's accumulating `mad`), which defs are written
//! before the uses are read (early-clobber: the result must not overlap a
//! source), and which physical registers it reads or writes without naming
//! them (AMD's `SCC`/`VCC`/`EXEC`, Intel's flag registers).
//!
//! An [`InstrSet`] is data: a target builds one from
//! [`InstrSet::generic`] (the target-independent opcodes and a small
//! executable instruction set the tests and the interpreter use) and adds
//! its own descriptions. Each description also carries its meaning
//! ([`Sem`]) so that the machine-IR interpreter can run any instruction set
//! built this way.

use std::collections::HashMap;

use regdesc_runtime::{Reg, Tables};

/// An opcode: an index into an [`InstrSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Opcode(pub u16);

/// The kind of an explicit operand after the defs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Reg,
    Imm,
    Block,
    Frame,
}

pub use crate::ir::{BinOp, FBinOp, IntPredicate};

/// A floating-point format the limb opcodes compute in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatFmt {
    /// IEEE binary16 in the low 16 bits of a 32-bit register.
    F16,
    /// IEEE binary32.
    F32,
}

/// The generic limb opcodes: what wide-integer legalization lowers the IR
/// to (GlobalISel's `G_UADDO`, `G_UADDE`, `G_UMULH`, ... on 32-bit
/// registers), before a target selects its own instructions.
///
/// The hardware fact served: Gen11/Gen12LP and GCN have 32-bit integer
/// ALUs with a carry (AMD's `VCC`/`SCC`, Intel's `acc0` or a flag) and a
/// 32x32 multiply giving either half (AMD's `V_MAD_U64_U32` gives both,
/// plus a 64-bit accumulator). Every wider operation is a sequence of these.
/// Values narrower than 32 bits (`i1`, `i8`, `i16`, `half`) are kept
/// zero-extended in a 32-bit register; carries and borrows are 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimbOp {
    /// `d, c = UADDO a, b`: sum and carry out.
    UAddO,
    /// `d, c = UADDE a, b, cin`: sum with carry in, and carry out.
    UAddE,
    /// `d, b = USUBO a, b`: difference and borrow out.
    USubO,
    /// `d, b = USUBE a, b, bin`: difference with borrow in, and borrow out.
    USubE,
    /// `d = UMULH a, b`: the high 32 bits of the unsigned 64-bit product.
    UMulH,
    /// `d = SMULH a, b`: the high 32 bits of the signed 64-bit product.
    SMulH,
    /// `lo, hi = MAD64 a, b, clo, chi`: `a * b + (chi:clo)` modulo 2^64,
    /// unsigned 32x32 factors and a 64-bit accumulator.
    Mad64,
    /// `d = ZEXT_INREG a, W`: the low W bits of `a`.
    ZextInReg,
    /// `d = SEXT_INREG a, W`: bit W-1 of `a` copied into the bits above it.
    SextInReg,
    /// `d = FADD/FSUB/FMUL a, b` in a float format, with the reference
    /// interpreter's IEEE and NaN rules.
    Float(FBinOp, FloatFmt),
    /// `d = LOAD lo, hi, N`: N bytes (1, 2 or 4) at the 64-bit address
    /// `hi:lo`, zero-extended.
    Load,
    /// `STORE v, lo, hi, N`: the low N bytes of `v` at address `hi:lo`.
    Store,
    /// `d = WORKITEM_ID`: the lane's work-item id.
    WorkitemId,
    /// `d = WORKGROUP_ID`.
    WorkgroupId,
    /// `d = WORKGROUP_SIZE`: the launch's work-group size.
    WorkgroupSize,
}

/// What an instruction does, for the interpreter and for the passes that
/// need to recognise copies, PHIs and branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sem {
    /// `d = COPY s`.
    Copy,
    /// `d = PHI v1, %bb.1, v2, %bb.2, ...`.
    Phi,
    /// `d = REG_SEQUENCE v1, %subreg.i1, v2, %subreg.i2, ...`.
    RegSequence,
    /// `d = IMPLICIT_DEF`: an undefined value (zero in the interpreter).
    ImplicitDef,
    /// `d = ARG n`: the function's n-th argument.
    Arg,
    /// `d = MOVI imm`.
    MovImm,
    /// `d = OP a, b` on the width of the def (shift amounts modulo it).
    Binary(BinOp),
    /// `d = CMP a, b`: 1 or 0 in the width of the def.
    Compare(IntPredicate),
    /// `d = SELECT c, a, b`: `a` when `c` is not zero.
    Select,
    /// `BR %bb.N`.
    Branch,
    /// `BRCOND c, %bb.T, %bb.F`: to T when `c` is not zero.
    CondBranch,
    /// `RET v1, v2, ...`.
    Return,
    /// `SPILL_STORE v, %stack.N`.
    StackStore,
    /// `d = SPILL_LOAD %stack.N`.
    StackLoad,
    /// Nothing but its implicit operands (whose defs get garbage).
    Nop,
    /// A generic limb opcode.
    Limb(LimbOp),
    /// A target instruction: the target's semantics run it
    /// (`crate::mir::interp::TargetSemantics`); the number is the target's.
    Target(u16),
}

/// What the passes know of an opcode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrDesc {
    pub name: String,
    /// Explicit defs (register operands `0..num_defs`).
    pub num_defs: usize,
    /// Kinds of the explicit operands after the defs.
    pub operands: Vec<OpKind>,
    /// Further explicit operands of any kind may follow (`PHI`, `RET`,
    /// `REG_SEQUENCE`).
    pub variadic: bool,
    /// `(use operand, def operand)` pairs that must name the same register.
    pub tied: Vec<(usize, usize)>,
    /// Defs written before the uses are read.
    pub early_clobber: Vec<usize>,
    /// Physical registers written without being named.
    pub implicit_defs: Vec<Reg>,
    /// Physical registers read without being named.
    pub implicit_uses: Vec<Reg>,
    pub is_terminator: bool,
    /// A target's 64-bit multiply-add `lo, hi[, carry] = a * b + (chi:clo)`
    /// (its defs first, then the four uses): the demanded bits of its
    /// operands follow from its results' as for [`LimbOp::Mad64`].
    pub multiply_add: bool,
    pub sem: Sem,
}

impl InstrDesc {
    /// A description with `num_defs` defs and the given operand kinds.
    pub fn new(name: &str, num_defs: usize, operands: &[OpKind], sem: Sem) -> InstrDesc {
        InstrDesc {
            name: name.to_string(),
            num_defs,
            operands: operands.to_vec(),
            variadic: false,
            tied: Vec::new(),
            early_clobber: Vec::new(),
            implicit_defs: Vec::new(),
            implicit_uses: Vec::new(),
            is_terminator: matches!(sem, Sem::Branch | Sem::CondBranch | Sem::Return),
            multiply_add: false,
            sem,
        }
    }

    pub fn variadic(mut self) -> InstrDesc {
        self.variadic = true;
        self
    }

    /// Ties use operand `use_op` to def operand `def_op`.
    pub fn tie(mut self, use_op: usize, def_op: usize) -> InstrDesc {
        self.tied.push((use_op, def_op));
        self
    }

    pub fn early_clobber(mut self, def_op: usize) -> InstrDesc {
        self.early_clobber.push(def_op);
        self
    }

    pub fn implicit_def(mut self, r: Reg) -> InstrDesc {
        self.implicit_defs.push(r);
        self
    }

    pub fn implicit_use(mut self, r: Reg) -> InstrDesc {
        self.implicit_uses.push(r);
        self
    }

    /// The def operand use operand `i` is tied to.
    pub fn tied_def_of(&self, i: usize) -> Option<usize> {
        self.tied.iter().find(|&&(u, _)| u == i).map(|&(_, d)| d)
    }

    /// Number of explicit operands before the variadic tail.
    pub fn num_fixed_operands(&self) -> usize {
        self.num_defs + self.operands.len()
    }
}

/// The opcodes of one instruction set.
#[derive(Clone, Debug)]
pub struct InstrSet {
    descs: Vec<InstrDesc>,
    by_name: HashMap<String, Opcode>,
    /// The generic opcodes the passes create.
    pub copy: Opcode,
    pub phi: Opcode,
    pub reg_sequence: Opcode,
    pub implicit_def: Opcode,
    pub spill_store: Opcode,
    pub spill_load: Opcode,
}

impl InstrSet {
    /// The target-independent opcodes (`COPY`, `PHI`, `REG_SEQUENCE`,
    /// `IMPLICIT_DEF`, `SPILL_STORE`, `SPILL_LOAD`) and a small executable
    /// instruction set over them:
    ///
    /// | opcode | form | meaning |
    /// |---|---|---|
    /// | `ARG` | `%d = ARG n` | argument `n` |
    /// | `MOVI` | `%d = MOVI imm` | the immediate, wrapped to the width |
    /// | `ADD` `SUB` `MUL` `AND` `OR` `XOR` `SHL` `LSHR` `ASHR` | `%d = OP %a, %b` | on the width of `%d` |
    /// | `ADD2` `SUB2` `XOR2` | `%d = OP %a(tied-def 0), %b` | two-address forms: `%a` is tied to `%d` |
    /// | `MULX` | `early-clobber %d = MULX %a, %b` | a multiply whose result must not overlap its sources |
    /// | `CMPEQ` `CMPNE` `CMPULT` `CMPSLT` | `%d = OP %a, %b` | 1 or 0 |
    /// | `SELECT` | `%d = SELECT %c, %a, %b` | `%a` when `%c` is not zero |
    /// | `BR` | `BR %bb.N` | jump |
    /// | `BRCOND` | `BRCOND %c, %bb.T, %bb.F` | to T when `%c` is not zero |
    /// | `RET` | `RET %a, %b, ...` | return the values |
    /// | `G_ICMP_EQ` ... `G_ICMP_SLE` | `%d = OP %a, %b` | every `icmp` predicate, 1 or 0 |
    /// | `G_UADDO` `G_UADDE` `G_USUBO` `G_USUBE` `G_UMULH` `G_SMULH` `G_MAD64` `G_ZEXT_INREG` `G_SEXT_INREG` `G_LOAD` `G_STORE` `G_WORKITEM_ID` `G_WORKGROUP_ID` `G_WORKGROUP_SIZE` `G_FADD_F16` ... `G_FMUL_F32` | see [`LimbOp`] | the generic limb opcodes legalization produces |
    ///
    /// A target adds opcodes with [`InstrSet::add`].
    pub fn generic() -> InstrSet {
        use OpKind::*;
        let mut s = InstrSet {
            descs: Vec::new(),
            by_name: HashMap::new(),
            copy: Opcode(0),
            phi: Opcode(0),
            reg_sequence: Opcode(0),
            implicit_def: Opcode(0),
            spill_store: Opcode(0),
            spill_load: Opcode(0),
        };
        s.copy = s.add(InstrDesc::new("COPY", 1, &[Reg], Sem::Copy));
        s.phi = s.add(InstrDesc::new("PHI", 1, &[], Sem::Phi).variadic());
        s.reg_sequence = s.add(InstrDesc::new("REG_SEQUENCE", 1, &[], Sem::RegSequence).variadic());
        s.implicit_def = s.add(InstrDesc::new("IMPLICIT_DEF", 1, &[], Sem::ImplicitDef));
        s.spill_store = s.add(InstrDesc::new(
            "SPILL_STORE",
            0,
            &[Reg, Frame],
            Sem::StackStore,
        ));
        s.spill_load = s.add(InstrDesc::new("SPILL_LOAD", 1, &[Frame], Sem::StackLoad));
        s.add(InstrDesc::new("ARG", 1, &[Imm], Sem::Arg));
        s.add(InstrDesc::new("MOVI", 1, &[Imm], Sem::MovImm));
        for (name, op) in [
            ("ADD", BinOp::Add),
            ("SUB", BinOp::Sub),
            ("MUL", BinOp::Mul),
            ("AND", BinOp::And),
            ("OR", BinOp::Or),
            ("XOR", BinOp::Xor),
            ("SHL", BinOp::Shl),
            ("LSHR", BinOp::LShr),
            ("ASHR", BinOp::AShr),
        ] {
            s.add(InstrDesc::new(name, 1, &[Reg, Reg], Sem::Binary(op)));
        }
        for (name, op) in [
            ("ADD2", BinOp::Add),
            ("SUB2", BinOp::Sub),
            ("XOR2", BinOp::Xor),
        ] {
            s.add(InstrDesc::new(name, 1, &[Reg, Reg], Sem::Binary(op)).tie(1, 0));
        }
        s.add(InstrDesc::new("MULX", 1, &[Reg, Reg], Sem::Binary(BinOp::Mul)).early_clobber(0));
        for (name, op) in [
            ("CMPEQ", IntPredicate::Eq),
            ("CMPNE", IntPredicate::Ne),
            ("CMPULT", IntPredicate::Ult),
            ("CMPSLT", IntPredicate::Slt),
        ] {
            s.add(InstrDesc::new(name, 1, &[Reg, Reg], Sem::Compare(op)));
        }
        s.add(InstrDesc::new("SELECT", 1, &[Reg, Reg, Reg], Sem::Select));
        s.add(InstrDesc::new("BR", 0, &[Block], Sem::Branch));
        s.add(InstrDesc::new(
            "BRCOND",
            0,
            &[Reg, Block, Block],
            Sem::CondBranch,
        ));
        s.add(InstrDesc::new("RET", 0, &[], Sem::Return).variadic());
        for p in IntPredicate::ALL {
            let name = format!("G_ICMP_{}", p.name().to_uppercase());
            s.add(InstrDesc::new(&name, 1, &[Reg, Reg], Sem::Compare(p)));
        }
        for (name, defs, ops, op) in [
            ("G_UADDO", 2, &[Reg, Reg][..], LimbOp::UAddO),
            ("G_UADDE", 2, &[Reg, Reg, Reg], LimbOp::UAddE),
            ("G_USUBO", 2, &[Reg, Reg], LimbOp::USubO),
            ("G_USUBE", 2, &[Reg, Reg, Reg], LimbOp::USubE),
            ("G_UMULH", 1, &[Reg, Reg], LimbOp::UMulH),
            ("G_SMULH", 1, &[Reg, Reg], LimbOp::SMulH),
            ("G_MAD64", 2, &[Reg, Reg, Reg, Reg], LimbOp::Mad64),
            ("G_ZEXT_INREG", 1, &[Reg, Imm], LimbOp::ZextInReg),
            ("G_SEXT_INREG", 1, &[Reg, Imm], LimbOp::SextInReg),
            ("G_LOAD", 1, &[Reg, Reg, Imm], LimbOp::Load),
            ("G_STORE", 0, &[Reg, Reg, Reg, Imm], LimbOp::Store),
            ("G_WORKITEM_ID", 1, &[], LimbOp::WorkitemId),
            ("G_WORKGROUP_ID", 1, &[], LimbOp::WorkgroupId),
            ("G_WORKGROUP_SIZE", 1, &[], LimbOp::WorkgroupSize),
        ] {
            s.add(InstrDesc::new(name, defs, ops, Sem::Limb(op)));
        }
        for op in [FBinOp::FAdd, FBinOp::FSub, FBinOp::FMul] {
            for (suffix, fmt) in [("F16", FloatFmt::F16), ("F32", FloatFmt::F32)] {
                let name = format!("G_{}_{suffix}", op.name().to_uppercase());
                s.add(InstrDesc::new(
                    &name,
                    1,
                    &[Reg, Reg],
                    Sem::Limb(LimbOp::Float(op, fmt)),
                ));
            }
        }
        s
    }

    /// Adds (or replaces, by name) a description.
    pub fn add(&mut self, d: InstrDesc) -> Opcode {
        if let Some(&op) = self.by_name.get(&d.name) {
            self.descs[op.0 as usize] = d;
            return op;
        }
        let op = Opcode(self.descs.len() as u16);
        self.by_name.insert(d.name.clone(), op);
        self.descs.push(d);
        op
    }

    /// The description of `op` (opcodes come from this set).
    pub fn desc(&self, op: Opcode) -> &InstrDesc {
        &self.descs[op.0 as usize]
    }

    pub fn get(&self, op: Opcode) -> Option<&InstrDesc> {
        self.descs.get(op.0 as usize)
    }

    pub fn by_name(&self, name: &str) -> Option<Opcode> {
        self.by_name.get(name).copied()
    }

    /// The opcode named `name`; panics when there is none (for code that
    /// builds instructions of a known set).
    pub fn op(&self, name: &str) -> Opcode {
        match self.by_name(name) {
            Some(op) => op,
            None => panic!("no opcode {name} in the instruction set"),
        }
    }

    pub fn name(&self, op: Opcode) -> &str {
        self.get(op).map_or("<bad opcode>", |d| d.name.as_str())
    }

    pub fn len(&self) -> usize {
        self.descs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.descs.is_empty()
    }

    /// A description that writes the physical register named `reg` of
    /// `tables` as a clobber: `NAME` with no explicit operand (a stand-in
    /// for instructions that write fixed registers, such as AMD's
    /// `SCC`-setting scalar ALU ops). `None` when there is no such register.
    pub fn clobber_of<L: regdesc_runtime::LaneBits>(
        name: &str,
        tables: &Tables<L>,
        reg: &str,
    ) -> Option<InstrDesc> {
        let r = tables.reg_by_name(reg)?;
        Some(InstrDesc::new(name, 0, &[], Sem::Nop).implicit_def(r))
    }
}
