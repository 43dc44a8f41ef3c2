//! Gen instructions as IGA writes them: the one model the emitter builds,
//! prints, and the simulator parses back and runs.
//!
//! The hardware fact served (PRM Vol 7 "Instruction Set Reference",
//! "Instruction Syntax"): a Gen instruction is
//! `[(pred)] op[.cond] (exec|Moffset) [(cond)flag] dst src0 [src1] {opts}`;
//! every register operand names a GRF (or an architecture register) with a
//! sub-register number in units of its type, a region
//! (`<vstride;width,hstride>` for sources, `<hstride>` for destinations)
//! and a type (`:ud`, `:d`, `:uw`, `:w`, `:f`, `:hf`). `(W)` is NoMask: the
//! instruction runs on every channel whatever the execution mask.

use std::fmt;

/// An operand type (PRM "Data Types": UD, D, UW, W, F, HF).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Ud,
    D,
    Uw,
    W,
    F,
    Hf,
}

impl Ty {
    /// Bytes of one element.
    pub fn size(self) -> u32 {
        match self {
            Ty::Ud | Ty::D | Ty::F => 4,
            Ty::Uw | Ty::W | Ty::Hf => 2,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::D | Ty::W)
    }

    pub fn name(self) -> &'static str {
        match self {
            Ty::Ud => "ud",
            Ty::D => "d",
            Ty::Uw => "uw",
            Ty::W => "w",
            Ty::F => "f",
            Ty::Hf => "hf",
        }
    }

    pub fn from_name(s: &str) -> Option<Ty> {
        Some(match s {
            "ud" => Ty::Ud,
            "d" => Ty::D,
            "uw" => Ty::Uw,
            "w" => Ty::W,
            "f" => Ty::F,
            "hf" => Ty::Hf,
            _ => return None,
        })
    }
}

/// A register file location: a GRF, the accumulator, or `null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegName {
    /// `rN.sub` (sub-register number in elements of the operand's type).
    Grf {
        nr: u8,
        sub: u8,
    },
    /// `accN.sub`.
    Acc {
        nr: u8,
        sub: u8,
    },
    /// The control register `cr0.sub` (PRM Vol 7 "Control Register":
    /// `cr0.0` holds the floating-point modes).
    Cr {
        sub: u8,
    },
    Null,
}

impl fmt::Display for RegName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegName::Grf { nr, sub } => write!(f, "r{nr}.{sub}"),
            RegName::Acc { nr, sub } => write!(f, "acc{nr}.{sub}"),
            RegName::Cr { sub } => write!(f, "cr0.{sub}"),
            RegName::Null => f.write_str("null"),
        }
    }
}

/// A source region `<vstride;width,hstride>` (PRM "Register Region").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    pub v: u8,
    pub w: u8,
    pub h: u8,
}

impl Region {
    /// `<0;1,0>`: one element for every channel (a uniform scalar).
    pub const SCALAR: Region = Region { v: 0, w: 1, h: 0 };
    /// `<8;8,1>`: contiguous elements.
    pub const PACKED: Region = Region { v: 8, w: 8, h: 1 };
    /// `<16;8,2>`: every other element (a word of each dword).
    pub const EVERY_OTHER: Region = Region { v: 16, w: 8, h: 2 };
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    Reg {
        reg: RegName,
        region: Region,
        ty: Ty,
        neg: bool,
    },
    /// An immediate, as its bits in the type.
    Imm { bits: u32, ty: Ty },
}

impl Src {
    /// The source with its negate modifier set to `neg` (an immediate
    /// is returned as it is).
    pub fn negated(self, neg: bool) -> Src {
        match self {
            Src::Reg {
                reg, region, ty, ..
            } => Src::Reg {
                reg,
                region,
                ty,
                neg,
            },
            imm => imm,
        }
    }

    pub fn ty(&self) -> Ty {
        match self {
            Src::Reg { ty, .. } | Src::Imm { ty, .. } => *ty,
        }
    }
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Src::Reg {
                reg,
                region,
                ty,
                neg,
            } => {
                let n = if *neg { "-" } else { "" };
                if *reg == RegName::Null {
                    return write!(
                        f,
                        "{n}null<{};{},{}>:{}",
                        region.v,
                        region.w,
                        region.h,
                        ty.name()
                    );
                }
                write!(
                    f,
                    "{n}{reg}<{};{},{}>:{}",
                    region.v,
                    region.w,
                    region.h,
                    ty.name()
                )
            }
            Src::Imm { bits, ty } => write!(f, "0x{bits:X}:{}", ty.name()),
        }
    }
}

/// A destination operand `reg<hstride>:type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dst {
    pub reg: RegName,
    pub h: u8,
    pub ty: Ty,
}

impl fmt::Display for Dst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reg {
            RegName::Null => write!(f, "null<{}>:{}", self.h, self.ty.name()),
            r => write!(f, "{r}<{}>:{}", self.h, self.ty.name()),
        }
    }
}

/// A flag sub-register `fN.M` (16 bits, one per channel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flag {
    pub nr: u8,
    pub sub: u8,
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "f{}.{}", self.nr, self.sub)
    }
}

/// A conditional modifier (PRM "Condition Modifier").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cond {
    pub fn name(self) -> &'static str {
        match self {
            Cond::Eq => "eq",
            Cond::Ne => "ne",
            Cond::Lt => "lt",
            Cond::Le => "le",
            Cond::Gt => "gt",
            Cond::Ge => "ge",
        }
    }

    pub fn from_name(s: &str) -> Option<Cond> {
        Some(match s {
            "eq" | "z" => Cond::Eq,
            "ne" | "nz" => Cond::Ne,
            "lt" => Cond::Lt,
            "le" => Cond::Le,
            "gt" => Cond::Gt,
            "ge" => Cond::Ge,
            _ => return None,
        })
    }
}

/// The opcodes the back end emits (PRM Vol 2a "Command Reference:
/// Instructions").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Mov,
    Add,
    Addc,
    Subb,
    Mul,
    Mach,
    And,
    Or,
    Xor,
    Not,
    Shl,
    Shr,
    Asr,
    Cmp,
    Sel,
    Jmpi,
    Nop,
}

impl Op {
    pub const ALL: [Op; 17] = [
        Op::Mov,
        Op::Add,
        Op::Addc,
        Op::Subb,
        Op::Mul,
        Op::Mach,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Not,
        Op::Shl,
        Op::Shr,
        Op::Asr,
        Op::Cmp,
        Op::Sel,
        Op::Jmpi,
        Op::Nop,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::Mov => "mov",
            Op::Add => "add",
            Op::Addc => "addc",
            Op::Subb => "subb",
            Op::Mul => "mul",
            Op::Mach => "mach",
            Op::And => "and",
            Op::Or => "or",
            Op::Xor => "xor",
            Op::Not => "not",
            Op::Shl => "shl",
            Op::Shr => "shr",
            Op::Asr => "asr",
            Op::Cmp => "cmp",
            Op::Sel => "sel",
            Op::Jmpi => "jmpi",
            Op::Nop => "nop",
        }
    }

    pub fn from_name(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.name() == s)
    }

    /// Sources the instruction reads.
    pub fn num_srcs(self) -> usize {
        match self {
            Op::Mov | Op::Not => 1,
            Op::Jmpi | Op::Nop => 0,
            _ => 2,
        }
    }
}

/// A predicate `(f0.0)`, `(~f0.0)`, or over all channels
/// `(f1.1.all16h)` / `(f1.1.any8h)` (PRM "Predication": predicate
/// control combines the flag bits of 8 or 16 channels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pred {
    pub flag: Flag,
    pub invert: bool,
    /// `(all, channels)`: `.allNh` or `.anyNh`.
    pub ctrl: Option<(bool, u8)>,
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.invert {
            f.write_str("~")?;
        }
        write!(f, "{}", self.flag)?;
        if let Some((all, n)) = self.ctrl {
            write!(f, ".{}{n}h", if all { "all" } else { "any" })?;
        }
        Ok(())
    }
}

/// Software scoreboard annotation (Gen12LP, PRM "Software Scoreboard"):
/// an in-order distance `@N`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Swsb {
    pub dist: Option<u8>,
}

/// One Gen instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    pub op: Op,
    /// NoMask `(W)`.
    pub nomask: bool,
    pub pred: Option<Pred>,
    /// Conditional modifier and the flag it writes.
    pub cond: Option<(Cond, Flag)>,
    pub exec: u8,
    /// Channel offset (`M0`, `M8`).
    pub offset: u8,
    pub dst: Option<Dst>,
    pub srcs: Vec<Src>,
    /// `{AccWrEn}`: also write the accumulator.
    pub acc_wr: bool,
    /// `jmpi`'s label.
    pub label: Option<String>,
    /// `{Switch}` thread control (Gen9/Gen11 writes to `cr0`).
    pub switch: bool,
    pub swsb: Swsb,
}

impl Inst {
    pub fn new(op: Op, exec: u8, dst: Dst, srcs: Vec<Src>) -> Inst {
        Inst {
            op,
            nomask: false,
            pred: None,
            cond: None,
            exec,
            offset: 0,
            dst: Some(dst),
            srcs,
            acc_wr: false,
            label: None,
            switch: false,
            swsb: Swsb::default(),
        }
    }
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.nomask, self.pred) {
            (true, Some(p)) => write!(f, "(W&{p}) ")?,
            (true, None) => f.write_str("(W) ")?,
            (false, Some(p)) => write!(f, "({p}) ")?,
            (false, None) => {}
        }
        write!(f, "{} ({}|M{})", self.op.name(), self.exec, self.offset)?;
        if let Some((c, fl)) = self.cond {
            write!(f, " ({}){fl}", c.name())?;
        }
        if let Some(l) = &self.label {
            write!(f, " {l}")?;
        }
        if let Some(d) = &self.dst {
            write!(f, " {d}")?;
        }
        for s in &self.srcs {
            write!(f, " {s}")?;
        }
        let mut opts = Vec::new();
        if self.acc_wr {
            opts.push("AccWrEn".to_string());
        }
        if self.switch {
            opts.push("Switch".to_string());
        }
        if let Some(d) = self.swsb.dist {
            opts.push(format!("@{d}"));
        }
        if !opts.is_empty() {
            write!(f, " {{{}}}", opts.join(", "))?;
        }
        Ok(())
    }
}

/// A line of a function's assembly: a label or an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Label(String),
    Inst(Inst),
}
