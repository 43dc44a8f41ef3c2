//! Machine IR: target instructions over virtual registers, the form in
//! which register allocation happens.
//!
//! The hardware fact this layer serves: a GPU register file is a set of
//! register *units* that registers of different sizes share (AMD's 16-bit
//! halves, 32-bit VGPRs and aligned 64-bit pairs; Intel's words, dwords and
//! SIMD tuples). A value's register class says which registers may hold it;
//! a sub-register operand (`%5.sub1`) names a part of a value through the
//! description's `SubRegIndex`. Every such fact is read from the generated
//! tables ([`regdesc_runtime::Tables`]); nothing here knows a target.
//!
//! The shape follows LLVM's `MachineInstr`: an instruction is an opcode
//! (described by an [`instr::InstrDesc`]: defs, operand kinds, tied
//! operands, early-clobber defs, implicit physical defs and uses) and a
//! list of operands — explicit defs first, then explicit uses, then
//! implicit operands. Virtual registers (`%N`) have a register class;
//! physical registers (`$NAME`) appear as implicit operands, fixed operands,
//! and after allocation.
//!
//! The passes, in pipeline order, one module each:
//!
//! - [`parse`] / [`print`]: the text form (like the body of LLVM's `.mir`
//!   files), for hand-written tests;
//! - [`verify`]: the machine verifier;
//! - [`phi_elim`]: PHI elimination (SSA to copies);
//! - [`two_addr`]: two-address lowering of tied operands and `REG_SEQUENCE`;
//! - [`slots`], [`liveness`]: instruction numbering and live intervals with
//!   lane masks (sub-register liveness);
//! - [`cfg`]: predecessors, dominators and loop depths;
//! - [`interp`]: a machine-IR interpreter, over virtual or physical
//!   registers, that checks the passes (same results before and after);
//! - [`crate::regalloc`]: the register allocator.

use regdesc_runtime::{Reg, RegClass, SubRegIdx};
pub use smallvec::{smallvec, SmallVec};

use crate::ir::Span;
use regdesc_index::IndexVec;

pub mod bits;
pub mod cfg;
pub mod classes;
pub mod dead_code;
pub mod instr;
pub mod interp;
pub mod liveness;
pub mod parse;
pub mod phi_elim;
pub mod print;
pub mod slots;
pub mod two_addr;
pub mod verify;
pub mod widths;

pub use instr::{InstrDesc, InstrSet, LimbOp, Opcode, Sem};

regdesc_index::define_index!(
    /// A virtual register, `%N`.
    pub struct VReg;
);
regdesc_index::define_index!(
    /// A machine basic block, `bb.N` (`bb.0` is the entry).
    pub struct MBlockId;
);
regdesc_index::define_index!(
    /// A stack slot, `%stack.N`.
    pub struct FrameIdx;
);

/// Which register an operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegRef {
    Virt(VReg),
    Phys(Reg),
}

/// A register operand and its flags (LLVM's `MachineOperand` of kind
/// register).
///
/// 12 bytes: the flags are bits of one byte and the tie one byte more, so
/// that an [`Operand`] is 16 bytes and an instruction with its usual four
/// operands inline is 88 (passes over a large function's machine code
/// read a quarter fewer cache lines than with a byte per flag).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegOperand {
    pub reg: RegRef,
    /// The part of the register read or written (`%5.sub1`); `None` for the
    /// whole register. Only virtual registers have one.
    pub sub: Option<SubRegIdx>,
    /// [`RegOperand::DEF`] and the other flag bits.
    flags: u8,
    /// On a use: the index of the def operand it is tied to;
    /// [`RegOperand::UNTIED`] when untied.
    tie: u8,
}

// One assertion per layout the comment above promises.
const _: () = assert!(std::mem::size_of::<RegOperand>() == 12);
const _: () = assert!(std::mem::size_of::<Operand>() == 16);
const _: () = assert!(std::mem::size_of::<MInst>() == 88);

/// `RegOperand`'s flag bits, each with its getter and setter.
macro_rules! reg_operand_flags {
    ($($(#[$doc:meta])* $bit:ident = $shift:literal: $get:ident, $set:ident;)*) => {
        impl RegOperand {
            $(
                const $bit: u8 = 1 << $shift;

                $(#[$doc])*
                pub fn $get(&self) -> bool {
                    self.flags & RegOperand::$bit != 0
                }

                #[doc = concat!("Sets or clears [`RegOperand::", stringify!($get), "`].")]
                pub fn $set(&mut self, on: bool) {
                    if on {
                        self.flags |= RegOperand::$bit;
                    } else {
                        self.flags &= !RegOperand::$bit;
                    }
                }
            )*
        }
    };
}

reg_operand_flags! {
    /// Whether the operand writes its register.
    DEF = 0: is_def, set_def;
    /// Not written in the instruction's syntax: an implicit def or use.
    IMPLICIT = 1: implicit, set_implicit;
    /// On a sub-register def: the other lanes are not kept (they become
    /// undefined). On a use: nothing is read.
    UNDEF = 2: undef, set_undef;
    /// On a def: the value is never read.
    DEAD = 3: dead, set_dead;
    /// On a use: the last read of the value (informational).
    KILL = 4: kill, set_kill;
    /// On a def: written before the instruction's uses are read, so it
    /// must not share a register with any of them.
    EARLY_CLOBBER = 5: early_clobber, set_early_clobber;
}

impl RegOperand {
    /// `tie` of an untied operand (no instruction has 255 operands).
    const UNTIED: u8 = u8::MAX;

    /// A plain explicit use.
    pub fn use_of(reg: RegRef, sub: Option<SubRegIdx>) -> RegOperand {
        RegOperand {
            reg,
            sub,
            flags: 0,
            tie: RegOperand::UNTIED,
        }
    }

    /// A plain explicit def.
    pub fn def_of(reg: RegRef, sub: Option<SubRegIdx>) -> RegOperand {
        RegOperand {
            flags: RegOperand::DEF,
            ..RegOperand::use_of(reg, sub)
        }
    }

    /// The operand, implicit.
    pub fn implicit_(mut self) -> RegOperand {
        self.set_implicit(true);
        self
    }

    /// On a use: the def operand (index) it must share a register with.
    pub fn tied_def(&self) -> Option<u8> {
        (self.tie != RegOperand::UNTIED).then_some(self.tie)
    }

    /// Ties the use to def operand `def` (`None`: unties it).
    pub fn set_tied_def(&mut self, def: Option<u8>) {
        debug_assert!(def != Some(RegOperand::UNTIED), "no operand 255");
        self.tie = def.unwrap_or(RegOperand::UNTIED);
    }

    pub fn vreg(&self) -> Option<VReg> {
        match self.reg {
            RegRef::Virt(v) => Some(v),
            RegRef::Phys(_) => None,
        }
    }

    pub fn phys(&self) -> Option<Reg> {
        match self.reg {
            RegRef::Phys(r) => Some(r),
            RegRef::Virt(_) => None,
        }
    }

    /// Whether the operand reads its register (uses that are not `undef`).
    pub fn reads(&self) -> bool {
        !self.is_def() && !self.undef()
    }
}

/// An operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Reg(RegOperand),
    /// An immediate: a 64-bit pattern, the widest any target's
    /// instructions encode (wider constants are split into limbs before
    /// they become operands). 64 bits rather than 128 keep an operand at 16
    /// bytes, so that an instruction's usual four operands sit inline in it.
    Imm(i64),
    /// A block (`%bb.N`): branch targets and PHI predecessors.
    Block(MBlockId),
    /// A stack slot (`%stack.N`).
    Frame(FrameIdx),
    /// A sub-register index as an operand (`%subreg.sub0`, in `REG_SEQUENCE`).
    SubIdx(SubRegIdx),
}

impl Operand {
    pub fn reg(&self) -> Option<&RegOperand> {
        match self {
            Operand::Reg(r) => Some(r),
            _ => None,
        }
    }

    pub fn reg_mut(&mut self) -> Option<&mut RegOperand> {
        match self {
            Operand::Reg(r) => Some(r),
            _ => None,
        }
    }

    pub fn vreg(&self) -> Option<VReg> {
        self.reg().and_then(RegOperand::vreg)
    }
}

/// How many operands an instruction holds without a heap block of its own:
/// 94 % of the instructions of the pipeline benchmark's functions have at
/// most four (a def, two sources and a flag), and reading them then costs
/// no second cache line elsewhere in memory.
pub const INLINE_OPERANDS: usize = 4;

/// An instruction's operands.
pub type Operands = SmallVec<[Operand; INLINE_OPERANDS]>;

/// A full def of the virtual register `v`.
pub fn def(v: VReg) -> Operand {
    Operand::Reg(RegOperand::def_of(RegRef::Virt(v), None))
}

/// A full use of the virtual register `v`.
pub fn use_(v: VReg) -> Operand {
    Operand::Reg(RegOperand::use_of(RegRef::Virt(v), None))
}

/// A machine instruction (88 bytes with its operands inline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MInst {
    pub opcode: Opcode,
    /// Explicit defs, explicit uses (and other explicit operands), then
    /// implicit register operands.
    pub ops: Operands,
    /// Where it was written, when it was read from text (boxed: only
    /// machine IR read from text has one).
    pub span: Option<Box<Span>>,
}

impl MInst {
    pub fn new(opcode: Opcode, ops: impl Into<Operands>) -> MInst {
        MInst {
            opcode,
            ops: ops.into(),
            span: None,
        }
    }

    /// Where it was written, when it was read from text.
    pub fn text_span(&self) -> Option<Span> {
        self.span.as_deref().cloned()
    }

    /// The register operands with their indices.
    pub fn reg_ops(&self) -> impl Iterator<Item = (usize, &RegOperand)> {
        self.ops
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.reg().map(|r| (i, r)))
    }

    /// The block operands (branch targets), in order.
    pub fn block_targets(&self) -> impl Iterator<Item = MBlockId> + '_ {
        self.ops.iter().filter_map(|o| match o {
            Operand::Block(b) => Some(*b),
            _ => None,
        })
    }
}

/// A machine basic block: its instructions, PHIs first and one terminator
/// last.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MBlock {
    pub insts: Vec<MInst>,
    /// The label, when read from text.
    pub span: Option<Span>,
}

/// A stack object (LLVM's frame object), in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameObject {
    pub size: u32,
    pub align: u32,
}

/// What is known to hold of a function (LLVM's `MachineFunctionProperties`);
/// the verifier checks them, passes keep them up to date.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Props {
    /// Every virtual register has exactly one def, a full one, that
    /// dominates its uses.
    pub ssa: bool,
    /// No `PHI` is left.
    pub no_phis: bool,
    /// Tied operands name the same register, and no `REG_SEQUENCE` is left.
    pub tied_lowered: bool,
    /// Every register operand is physical.
    pub no_vregs: bool,
}

/// A machine function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MFunction {
    pub name: String,
    /// `bb.0` is the entry.
    pub blocks: IndexVec<MBlockId, MBlock>,
    /// The class of each virtual register (`None`: the number is unused).
    pub vregs: IndexVec<VReg, Option<RegClass>>,
    pub frame: Vec<FrameObject>,
    pub props: Props,
    /// For each register `RET` reads (in its operand order), how many of
    /// its low bits the caller may read: the bits above a narrow result
    /// are undefined (LLVM's callable convention any-extends it), so an
    /// `i33`'s top limb returns one bit. Empty: every bit of each.
    pub ret_bits: Vec<u32>,
    /// The function's name, when read from text.
    pub span: Option<Span>,
}

impl MFunction {
    pub fn new(name: impl Into<String>) -> MFunction {
        MFunction {
            name: name.into(),
            blocks: IndexVec::new(),
            vregs: IndexVec::new(),
            frame: Vec::new(),
            props: Props::default(),
            ret_bits: Vec::new(),
            span: None,
        }
    }

    /// A new virtual register of class `rc`.
    pub fn new_vreg(&mut self, rc: RegClass) -> VReg {
        self.vregs.push(Some(rc))
    }

    pub fn class_of(&self, v: VReg) -> Option<RegClass> {
        self.vregs.get(v).copied().flatten()
    }

    /// A new stack slot.
    pub fn new_frame_object(&mut self, size: u32, align: u32) -> FrameIdx {
        self.frame.push(FrameObject { size, align });
        FrameIdx(self.frame.len() as u32 - 1)
    }

    pub fn block_ids(&self) -> impl Iterator<Item = MBlockId> {
        (0..self.blocks.len() as u32).map(MBlockId)
    }

    pub fn block(&self, b: MBlockId) -> &MBlock {
        &self.blocks[b]
    }

    /// Number of instructions.
    pub fn num_insts(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len()).sum()
    }

    /// The successors of `b`: the block operands of its last instruction.
    pub fn successors(&self, b: MBlockId) -> Vec<MBlockId> {
        let mut out: Vec<MBlockId> = Vec::new();
        if let Some(t) = self.blocks.get(b).and_then(|bb| bb.insts.last()) {
            for s in t.block_targets() {
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }
}
