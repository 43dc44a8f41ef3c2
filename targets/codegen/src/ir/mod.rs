//! The IR: functions of the LLVM IR subset in SSA form.
//!
//! A [`Module`] keeps its source text so that every later stage (verifier,
//! interpreter, uniformity, the targets) can point into it. Inside a
//! [`Function`], values, blocks and instructions live in vectors and are
//! named by index ([`ValueId`], [`BlockId`], [`InstId`]); a block lists its
//! instructions in order and ends with its terminator.

pub mod cfg;
pub mod gep;
pub(crate) mod literals;
pub mod parse;
pub mod print;
pub(crate) mod syntax_error;
pub use crate::types;
pub mod verify;

pub use crate::source::{Source, Span};
pub use gep::{GepIndex, GepStep, GepType};
use regdesc_index::IndexVec;
pub use types::{Scalar, Type};

use crate::value::Value;

regdesc_index::define_index!(
    /// A value defined in a function: an argument or an instruction result.
    pub struct ValueId;
);
regdesc_index::define_index!(
    /// A block of a function, in source order (0 is the entry).
    pub struct BlockId;
);
regdesc_index::define_index!(
    /// An instruction of a function.
    pub struct InstId;
);

/// A parsed module: its functions, in source order.
#[derive(Clone, Debug)]
pub struct Module {
    pub source: Source,
    pub functions: Vec<Function>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}

/// How a function is called, which decides where its arguments live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallingConv {
    /// A callable function: arguments arrive per lane (in VGPRs on AMD).
    Plain,
    /// `amdgpu_kernel`: arguments are the same for every lane (kernarg
    /// segment, SGPRs).
    AmdgpuKernel,
    /// `spir_kernel`: an OpenCL kernel, arguments uniform too.
    SpirKernel,
}

impl CallingConv {
    pub fn is_kernel(self) -> bool {
        self != CallingConv::Plain
    }

    /// The keyword, empty for plain functions.
    pub fn keyword(self) -> &'static str {
        match self {
            CallingConv::Plain => "",
            CallingConv::AmdgpuKernel => "amdgpu_kernel",
            CallingConv::SpirKernel => "spir_kernel",
        }
    }
}

/// One function definition.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub cconv: CallingConv,
    pub ret_ty: Type,
    /// The arguments, in order (their [`ValueDef::kind`] is [`ValueKind::Arg`]).
    pub params: Vec<ValueId>,
    /// Each argument's attributes that change how it is passed (beside
    /// `params`, in the same order).
    pub param_attrs: Vec<ParamAttrs>,
    pub values: IndexVec<ValueId, ValueDef>,
    /// In source order; the first is the entry block.
    pub blocks: IndexVec<BlockId, Block>,
    pub insts: IndexVec<InstId, Inst>,
    /// The `@name` in the header.
    pub span: Span,
}

/// The attributes of an argument that change how it is passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParamAttrs {
    /// `inreg`: the caller passes the argument in a scalar register where
    /// the target has them (LLVM's AMDGPU convention since LLVM 18: SGPRs,
    /// one value per wave), so it is uniform there.
    pub inreg: bool,
}

/// What defines a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// The n-th argument.
    Arg(u32),
    Inst(InstId),
}

#[derive(Clone, Debug)]
pub struct ValueDef {
    /// The name without `%` (numbers for unnamed values).
    pub name: String,
    pub ty: Type,
    pub kind: ValueKind,
    /// Where it is defined.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Block {
    /// The label without `%` (a number for unlabelled blocks).
    pub name: String,
    pub insts: Vec<InstId>,
    /// The label, or the first instruction of an unlabelled block.
    pub span: Span,
}

/// An operand: a value of the function or a constant, with the type the
/// instruction gives it and where it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub ty: Type,
    pub kind: OperandKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind {
    Value(ValueId),
    /// Boxed: a constant is 96 bytes, a value id 4, and constants are the
    /// rarer operand; inline, every operand of every instruction would
    /// carry the constant's size (an instruction was 400 bytes).
    Const(Box<Value>),
}

impl Operand {
    pub fn value(&self) -> Option<ValueId> {
        match self.kind {
            OperandKind::Value(v) => Some(v),
            OperandKind::Const(_) => None,
        }
    }

    /// The constant, when the operand is one.
    pub fn constant(&self) -> Option<&Value> {
        match &self.kind {
            OperandKind::Value(_) => None,
            OperandKind::Const(c) => Some(c),
        }
    }
}

/// `add`, `sub`, `mul`, `and`, `or`, `xor`, `shl`, `lshr`, `ashr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
}

/// `fadd`, `fsub`, `fmul`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FBinOp {
    FAdd,
    FSub,
    FMul,
}

/// The poison-generating flags of integer instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IntFlags {
    pub nuw: bool,
    pub nsw: bool,
    pub exact: bool,
}

/// Fast-math flags. Only `nnan` and `ninf` change what the interpreter
/// does (they make a NaN or infinite operand or result poison); the others
/// (`nsz`, `arcp`, `contract`, `afn`, `reassoc`) only allow other results,
/// and the interpreter computes the exact IEEE one. They are kept for printing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FastMath {
    bits: u8,
}

/// `icmp` predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntPredicate {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

/// `zext`, `sext`, `trunc`, `bitcast`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    ZExt,
    SExt,
    Trunc,
    Bitcast,
}

/// The functions a call may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `i32 @llvm.amdgcn.workitem.id.x()`: the lane's work-item id.
    WorkitemIdX,
    /// `i32 @llvm.amdgcn.workgroup.id.x()`: the work-group id.
    WorkgroupIdX,
    /// OpenCL's `get_global_id(i32 dim)` (`@get_global_id` or its SPIR
    /// mangling `@_Z13get_global_idj`), returning `i64` or `i32`.
    GetGlobalId { mangled: bool },
    /// OpenCL's `mul_hi(x, y)` on a scalar integer type: the high `bits`
    /// bits of the `2 * bits`-bit product, signed or unsigned operands
    /// (`_Z6mul_himm` is `mul_hi(ulong, ulong)`; see [`Builtin::MUL_HI`]).
    MulHi { signed: bool, bits: u16 },
}

impl Builtin {
    pub fn name(self) -> &'static str {
        match self {
            Builtin::WorkitemIdX => "llvm.amdgcn.workitem.id.x",
            Builtin::WorkgroupIdX => "llvm.amdgcn.workgroup.id.x",
            Builtin::GetGlobalId { mangled: true } => "_Z13get_global_idj",
            Builtin::GetGlobalId { mangled: false } => "get_global_id",
            Builtin::MulHi { signed, bits } => Self::MUL_HI
                .iter()
                .find(|(_, s, b)| *s == signed && *b == bits)
                .map_or("mul_hi", |(n, _, _)| n),
        }
    }

    /// The SPIR (Itanium) manglings of OpenCL's scalar `mul_hi`: name,
    /// signed, width (`c`/`h` char, `s`/`t` short, `i`/`j` int, `l`/`m`
    /// long, the unsigned letter second).
    pub const MUL_HI: [(&'static str, bool, u16); 8] = [
        ("_Z6mul_hicc", true, 8),
        ("_Z6mul_hihh", false, 8),
        ("_Z6mul_hiss", true, 16),
        ("_Z6mul_hitt", false, 16),
        ("_Z6mul_hiii", true, 32),
        ("_Z6mul_hijj", false, 32),
        ("_Z6mul_hill", true, 64),
        ("_Z6mul_himm", false, 64),
    ];

    /// The builtin a call names, if any.
    pub fn from_name(name: &str) -> Option<Builtin> {
        match name {
            "llvm.amdgcn.workitem.id.x" => Some(Builtin::WorkitemIdX),
            "llvm.amdgcn.workgroup.id.x" => Some(Builtin::WorkgroupIdX),
            "get_global_id" => Some(Builtin::GetGlobalId { mangled: false }),
            "_Z13get_global_idj" => Some(Builtin::GetGlobalId { mangled: true }),
            _ => Self::MUL_HI
                .iter()
                .find(|(n, _, _)| *n == name)
                .map(|&(_, signed, bits)| Builtin::MulHi { signed, bits }),
        }
    }
}

/// An instruction's operation and operands.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Bin {
        op: BinOp,
        flags: IntFlags,
        lhs: Operand,
        rhs: Operand,
    },
    FBin {
        op: FBinOp,
        fmf: FastMath,
        lhs: Operand,
        rhs: Operand,
    },
    ICmp {
        pred: IntPredicate,
        lhs: Operand,
        rhs: Operand,
    },
    Select {
        cond: Operand,
        on_true: Operand,
        on_false: Operand,
    },
    Cast {
        op: CastOp,
        val: Operand,
        to: Type,
    },
    ExtractElement {
        vec: Operand,
        index: Operand,
    },
    InsertElement {
        vec: Operand,
        elt: Operand,
        index: Operand,
    },
    Phi {
        ty: Type,
        incoming: Vec<PhiIncoming>,
    },
    Load {
        ty: Type,
        ptr: Operand,
        align: Option<u64>,
    },
    Store {
        val: Operand,
        ptr: Operand,
        align: Option<u64>,
    },
    /// `getelementptr [inbounds] ELEM, ptr addrspace(1) BASE, iN I0, ...`:
    /// `BASE + Σ step(Ik)` (see [`gep`]: the first index scales by
    /// `alloc_size(ELEM)`, the others walk into the aggregate). Never empty.
    Gep {
        elem: GepType,
        inbounds: bool,
        base: Operand,
        indices: Vec<GepIndex>,
    },
    Call {
        callee: Builtin,
        ret_ty: Type,
        args: Vec<Operand>,
    },
    Br {
        target: BlockId,
    },
    CondBr {
        cond: Operand,
        on_true: BlockId,
        on_false: BlockId,
    },
    Ret {
        val: Option<Operand>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct PhiIncoming {
    pub val: Operand,
    pub block: BlockId,
    /// The `%label` of the entry.
    pub block_span: Span,
}

#[derive(Clone, Debug)]
pub struct Inst {
    pub op: Op,
    pub result: Option<ValueId>,
    pub block: BlockId,
    pub span: Span,
}

impl Op {
    pub fn is_terminator(&self) -> bool {
        matches!(self, Op::Br { .. } | Op::CondBr { .. } | Op::Ret { .. })
    }

    /// The operands, in the order they are written.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Op::Bin { lhs, rhs, .. } | Op::FBin { lhs, rhs, .. } | Op::ICmp { lhs, rhs, .. } => {
                vec![lhs, rhs]
            }
            Op::Select {
                cond,
                on_true,
                on_false,
            } => vec![cond, on_true, on_false],
            Op::Cast { val, .. } => vec![val],
            Op::ExtractElement { vec, index } => vec![vec, index],
            Op::InsertElement { vec, elt, index } => vec![vec, elt, index],
            Op::Phi { incoming, .. } => incoming.iter().map(|i| &i.val).collect(),
            Op::Load { ptr, .. } => vec![ptr],
            Op::Store { val, ptr, .. } => vec![val, ptr],
            Op::Gep { base, indices, .. } => std::iter::once(base)
                .chain(indices.iter().map(|i| &i.index))
                .collect(),
            Op::Call { args, .. } => args.iter().collect(),
            Op::Br { .. } => Vec::new(),
            Op::CondBr { cond, .. } => vec![cond],
            Op::Ret { val } => val.iter().collect(),
        }
    }

    /// The successor blocks of a terminator, in order (empty otherwise).
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Op::Br { target } => vec![*target],
            Op::CondBr {
                on_true, on_false, ..
            } => vec![*on_true, *on_false],
            _ => Vec::new(),
        }
    }

    /// The LLVM opcode name.
    pub fn opcode(&self) -> &'static str {
        match self {
            Op::Bin { op, .. } => op.name(),
            Op::FBin { op, .. } => op.name(),
            Op::ICmp { .. } => "icmp",
            Op::Select { .. } => "select",
            Op::Cast { op, .. } => op.name(),
            Op::ExtractElement { .. } => "extractelement",
            Op::InsertElement { .. } => "insertelement",
            Op::Phi { .. } => "phi",
            Op::Load { .. } => "load",
            Op::Store { .. } => "store",
            Op::Gep { .. } => "getelementptr",
            Op::Call { .. } => "call",
            Op::Br { .. } | Op::CondBr { .. } => "br",
            Op::Ret { .. } => "ret",
        }
    }
}

impl BinOp {
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::LShr => "lshr",
            BinOp::AShr => "ashr",
        }
    }

    /// Every operation, in LLVM's opcode order.
    pub const ALL: [BinOp; 9] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::LShr,
        BinOp::AShr,
    ];

    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.name() == s)
    }
}

impl FBinOp {
    pub fn name(self) -> &'static str {
        match self {
            FBinOp::FAdd => "fadd",
            FBinOp::FSub => "fsub",
            FBinOp::FMul => "fmul",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        [FBinOp::FAdd, FBinOp::FSub, FBinOp::FMul]
            .into_iter()
            .find(|o| o.name() == s)
    }
}

impl IntPredicate {
    pub const ALL: [IntPredicate; 10] = [
        IntPredicate::Eq,
        IntPredicate::Ne,
        IntPredicate::Ugt,
        IntPredicate::Uge,
        IntPredicate::Ult,
        IntPredicate::Ule,
        IntPredicate::Sgt,
        IntPredicate::Sge,
        IntPredicate::Slt,
        IntPredicate::Sle,
    ];

    pub fn name(self) -> &'static str {
        match self {
            IntPredicate::Eq => "eq",
            IntPredicate::Ne => "ne",
            IntPredicate::Ugt => "ugt",
            IntPredicate::Uge => "uge",
            IntPredicate::Ult => "ult",
            IntPredicate::Ule => "ule",
            IntPredicate::Sgt => "sgt",
            IntPredicate::Sge => "sge",
            IntPredicate::Slt => "slt",
            IntPredicate::Sle => "sle",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Whether the predicate holds of two values given their unsigned and
    /// signed order.
    pub fn holds(self, unsigned: std::cmp::Ordering, signed: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self {
            IntPredicate::Eq => unsigned == Equal,
            IntPredicate::Ne => unsigned != Equal,
            IntPredicate::Ugt => unsigned == Greater,
            IntPredicate::Uge => unsigned != Less,
            IntPredicate::Ult => unsigned == Less,
            IntPredicate::Ule => unsigned != Greater,
            IntPredicate::Sgt => signed == Greater,
            IntPredicate::Sge => signed != Less,
            IntPredicate::Slt => signed == Less,
            IntPredicate::Sle => signed != Greater,
        }
    }
}

impl CastOp {
    pub fn name(self) -> &'static str {
        match self {
            CastOp::ZExt => "zext",
            CastOp::SExt => "sext",
            CastOp::Trunc => "trunc",
            CastOp::Bitcast => "bitcast",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        [CastOp::ZExt, CastOp::SExt, CastOp::Trunc, CastOp::Bitcast]
            .into_iter()
            .find(|o| o.name() == s)
    }
}

/// The fast-math keywords other than `fast`, in LLVM's printing order.
pub const FAST_MATH_WORDS: [&str; 7] =
    ["reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"];

impl FastMath {
    const ALL: u8 = (1 << FAST_MATH_WORDS.len()) - 1;

    /// Records a keyword (`fast` or one of [`FAST_MATH_WORDS`]).
    pub fn add(&mut self, word: &str) {
        if word == "fast" {
            self.bits = Self::ALL;
        } else if let Some(i) = FAST_MATH_WORDS.iter().position(|w| *w == word) {
            self.bits |= 1 << i;
        }
    }

    fn has(self, word: &str) -> bool {
        FAST_MATH_WORDS
            .iter()
            .position(|w| *w == word)
            .is_some_and(|i| self.bits & (1 << i) != 0)
    }

    pub fn nnan(self) -> bool {
        self.has("nnan")
    }

    pub fn ninf(self) -> bool {
        self.has("ninf")
    }

    /// The keywords as LLVM prints them (`fast` when all are set).
    pub fn words(self) -> Vec<&'static str> {
        if self.bits == Self::ALL {
            return vec!["fast"];
        }
        FAST_MATH_WORDS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.bits & (1 << i) != 0)
            .map(|(_, w)| *w)
            .collect()
    }
}

impl Function {
    pub fn value(&self, v: ValueId) -> &ValueDef {
        &self.values[v]
    }

    /// Whether argument `n` (0-based) is marked `inreg`.
    pub fn is_inreg(&self, n: usize) -> bool {
        self.param_attrs.get(n).is_some_and(|a| a.inreg)
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b]
    }

    pub fn inst(&self, i: InstId) -> &Inst {
        &self.insts[i]
    }

    pub fn entry(&self) -> BlockId {
        BlockId(0)
    }

    /// The block's terminator, if its last instruction is one.
    pub fn terminator(&self, b: BlockId) -> Option<&Inst> {
        let last = *self.block(b).insts.last()?;
        let inst = self.inst(last);
        inst.op.is_terminator().then_some(inst)
    }

    /// The successors of a block, in branch order.
    pub fn successors(&self, b: BlockId) -> Vec<BlockId> {
        self.terminator(b)
            .map(|t| t.op.successors())
            .unwrap_or_default()
    }

    /// The instruction defining `v`, if it is not an argument.
    pub fn def_inst(&self, v: ValueId) -> Option<InstId> {
        match self.value(v).kind {
            ValueKind::Inst(i) => Some(i),
            ValueKind::Arg(_) => None,
        }
    }

    /// The block defining `v` (the entry block for arguments).
    pub fn def_block(&self, v: ValueId) -> BlockId {
        match self.value(v).kind {
            ValueKind::Inst(i) => self.inst(i).block,
            ValueKind::Arg(_) => self.entry(),
        }
    }

    pub fn block_ids(&self) -> impl Iterator<Item = BlockId> {
        (0..self.blocks.len() as u32).map(BlockId)
    }

    pub fn inst_ids(&self) -> impl Iterator<Item = InstId> {
        (0..self.insts.len() as u32).map(InstId)
    }

    pub fn value_ids(&self) -> impl Iterator<Item = ValueId> {
        (0..self.values.len() as u32).map(ValueId)
    }
}
