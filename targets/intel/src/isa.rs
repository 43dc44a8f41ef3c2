//! Gen instructions as IGA writes them: the one model the emitter builds,
//! prints, and the simulator parses back and runs.
//!
//! The hardware fact served (PRM Vol 7 "Instruction Set Reference",
//! "Instruction Syntax"): a Gen instruction is
//! `[(pred)] op[.cond] (exec|Moffset) [(cond)flag] dst src0 [src1] {opts}`;
//! every register operand names a GRF (or an architecture register) with a
//! sub-register number in units of its type, a region
//! (`<vstride;width,hstride>` for sources, `<hstride>` for destinations)
//! and a type (`:ud`, `:d`, `:uw`, `:w`, `:f`, `:hf`; `:q`, `:uq` on Gen9,
//! whose integer ALU has 64-bit types). `(W)` is NoMask: the
//! instruction runs on every channel whatever the execution mask.

use std::fmt;

/// An operand type (PRM "Data Types": UD, D, UW, W, F, HF; Q and UQ, the
/// 64-bit integers of Gen9's ALU, which Gen11 and Gen12LP lack).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Q,
    Uq,
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
            Ty::Q | Ty::Uq => 8,
            Ty::Ud | Ty::D | Ty::F => 4,
            Ty::Uw | Ty::W | Ty::Hf => 2,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::Q | Ty::D | Ty::W)
    }

    pub fn name(self) -> &'static str {
        match self {
            Ty::Q => "q",
            Ty::Uq => "uq",
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
            "q" => Ty::Q,
            "uq" => Ty::Uq,
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
/// an in-order distance `@N`, and a scoreboard token (SBID): a send
/// allocates one (`$N`), an instruction waits for a send's response
/// (`$N.dst`) or for it to have read its payload (`$N.src`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Swsb {
    pub dist: Option<u8>,
    pub token: Option<Token>,
}

/// The token part of an SWSB annotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Token {
    /// `$N` on a send: the token it sets.
    Set(u8),
    /// `$N.dst`: wait until send N has written its response.
    Dst(u8),
    /// `$N.src`: wait until send N has read its payload.
    Src(u8),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Set(n) => write!(f, "${n}"),
            Token::Dst(n) => write!(f, "${n}.dst"),
            Token::Src(n) => write!(f, "${n}.src"),
        }
    }
}

impl Swsb {
    /// The annotation's options (`@N`, `$N...`), in IGA's order.
    pub fn opts(&self) -> Vec<String> {
        let mut o = Vec::new();
        if let Some(d) = self.dist {
            o.push(format!("@{d}"));
        }
        if let Some(t) = self.token {
            o.push(t.to_string());
        }
        o
    }
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
        opts.extend(self.swsb.opts());
        if !opts.is_empty() {
            write!(f, " {{{}}}", opts.join(", "))?;
        }
        Ok(())
    }
}

/// A message to a shared function (PRM Vol 2a "send", "sends"; Vol 2d
/// "Message Descriptor"): `mlen` payload GRFs from `src0`, `ex_mlen` more
/// from `src1` (a split send), `rlen` response GRFs into `dst`. Printed
/// as IGA disassembles it on each platform: Gen9/Gen11 `send (16|M0) r40
/// r32 0xC 0x084415FF`, `sends (16|M0) null:ud r32 r36 0x10C 0x080695FF`
/// (ExDesc holds the SFID in bits 3:0 and `ex_mlen` in bits 9:6); Gen12LP
/// `send.dc1 (16|M0) r40 r32 null 0x0 0x084415FF` (the SFID is the
/// mnemonic's suffix, ExDesc keeps `ex_mlen`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendInst {
    /// Gen12LP syntax.
    pub gen12: bool,
    pub nomask: bool,
    pub pred: Option<Pred>,
    pub exec: u8,
    pub offset: u8,
    /// The shared function (ExDesc bits 3:0 on Gen9/Gen11).
    pub sfid: u8,
    /// First response GRF (`None`: `null`).
    pub dst: Option<u8>,
    pub src0: u8,
    /// The split send's second payload.
    pub src1: Option<u8>,
    pub mlen: u8,
    pub ex_mlen: u8,
    pub rlen: u8,
    pub desc: u32,
    pub eot: bool,
    pub swsb: Swsb,
}

impl SendInst {
    /// IGA's Gen12 mnemonic suffix of a shared function.
    fn sfid_name(sfid: u8) -> &'static str {
        match sfid {
            7 => "ts",
            0xA => "dc0",
            0xC => "dc1",
            _ => "null",
        }
    }

    /// The GRFs the payload occupies (`src0`'s then `src1`'s).
    pub fn payload_grfs(&self) -> Vec<u8> {
        let mut v: Vec<u8> = (0..self.mlen).map(|k| self.src0 + k).collect();
        if let Some(s) = self.src1 {
            v.extend((0..self.ex_mlen).map(|k| s + k));
        }
        v
    }

    /// The GRFs the response writes.
    pub fn response_grfs(&self) -> Vec<u8> {
        match self.dst {
            Some(d) => (0..self.rlen).map(|k| d + k).collect(),
            None => Vec::new(),
        }
    }
}

impl fmt::Display for SendInst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.nomask, self.pred) {
            (true, Some(p)) => write!(f, "(W&{p}) ")?,
            (true, None) => f.write_str("(W) ")?,
            (false, Some(p)) => write!(f, "({p}) ")?,
            (false, None) => {}
        }
        let dst = self.dst.map_or("null".to_string(), |d| format!("r{d}"));
        if self.gen12 {
            let src1 = self.src1.map_or("null".to_string(), |s| format!("r{s}"));
            let ex = u32::from(self.ex_mlen) << 6;
            write!(
                f,
                "send.{} ({}|M{}) {dst} r{} {src1} 0x{ex:X} 0x{:08X}",
                Self::sfid_name(self.sfid),
                self.exec,
                self.offset,
                self.src0,
                self.desc
            )?;
        } else {
            let ex =
                u32::from(self.sfid) | (u32::from(self.ex_mlen) << 6) | (u32::from(self.eot) << 5);
            match self.src1 {
                Some(s) => write!(
                    f,
                    "sends ({}|M{}) {dst}:ud r{} r{s} 0x{ex:X} 0x{:08X}",
                    self.exec, self.offset, self.src0, self.desc
                )?,
                None => write!(
                    f,
                    "send ({}|M{}) {dst} r{} 0x{ex:X} 0x{:08X}",
                    self.exec, self.offset, self.src0, self.desc
                )?,
            }
        }
        let mut opts = Vec::new();
        if self.eot {
            opts.push("EOT".to_string());
        }
        opts.extend(self.swsb.opts());
        if !opts.is_empty() {
            write!(f, " {{{}}}", opts.join(","))?;
        }
        Ok(())
    }
}

/// A line of a function's assembly: a label, an instruction, a send, or
/// Gen12LP's `sync.nop` carrying a token wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Label(String),
    Inst(Inst),
    Send(SendInst),
    /// `(W) sync.nop null {$N.dst}`.
    Sync(Swsb),
}
