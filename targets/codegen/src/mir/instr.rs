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

/// A two-operand integer operation, on the width of the def.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    /// Shifts take the shift amount modulo the width.
    Shl,
    LShr,
    AShr,
}

/// A comparison producing 1 or 0 in the width of the def.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Ult,
    Slt,
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
    /// `d = OP a, b`.
    Binary(BinOp),
    /// `d = CMP a, b`.
    Compare(CmpOp),
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
            ("CMPEQ", CmpOp::Eq),
            ("CMPNE", CmpOp::Ne),
            ("CMPULT", CmpOp::Ult),
            ("CMPSLT", CmpOp::Slt),
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
