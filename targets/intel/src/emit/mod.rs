//! Emission: allocated machine IR to IGA assembly, one label per function
//! (and one per jump target).
//!
//! Hardware facts served (PRM Vol 7, "Execution Size", "Accumulator
//! Registers", "Register Region"): a per-lane value is a dword vector
//! (`rN<1>:ud` written, `rN.0<8;8,1>:ud` read; two GRFs at SIMD16), a
//! uniform value a dword scalar (`rN.k<0;1,0>:ud`, written by a NoMask
//! `(W) ... (1|M0)` instruction). The accumulator holds 8 dword channels,
//! so instructions that use it (`addc`, `subb`, `mul`/`mach`) run in SIMD8
//! chunks at SIMD16: `(8|M0)` on the first GRF of each operand, `(8|M8)`
//! on the second. Every instruction passes [`crate::regions::check`]
//! before it is printed; on Gen12LP [`crate::swsb`] annotates the result.
//!
//! # Control flow
//!
//! Uniform branches are `jmpi` (with a `(W) cmp` and a `(W&f0.0)`
//! predicate when conditional). A function with a divergent branch is run
//! by **predication over a per-lane block number** instead of Gen's SIMD
//! control-flow instructions: the vector `PC` (`r118..r119`) holds each
//! lane's next block (the block count once it returns). The blocks are
//! laid out in order; each starts with `(W) cmp (ne)f1.1 null PC k` and
//! `(W&f1.1.allNh) jmpi` over itself when no lane is there; its per-lane
//! instructions run under `(~f1.1)`; its terminator writes the successor
//! into `PC` for its lanes. After the last block, `(W&f1.1.anyNh) jmpi`
//! goes round again while a lane has not returned. Each lane so runs its
//! own path through the CFG (loops with divergent exits included), and
//! every value of such a function is per lane (see [`crate::select`]).

use std::collections::HashSet;

use regdesc_codegen::ir::Function;
use regdesc_codegen::mir::instr::IntPredicate;
use regdesc_codegen::mir::{LimbOp, MBlockId, MFunction, MInst, Operand, Sem};
use regdesc_codegen::target::TargetError;
use regdesc_runtime::{Reg, RegisterInfo};

use crate::abi::{PC_GRF, SCRATCH_GRF};
use crate::isa::{Cond, Dst, Flag, Inst, Line, Op, Pred, RegName, Region, Src, Ty};
use crate::regs::Intel;
use crate::target::{Gen, Platform};

mod carry;
mod cf;
mod limb;
mod send;

/// Where a value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// A per-lane dword vector starting at GRF `nr`.
    Lane(u8),
    /// A uniform dword scalar `rN.k`.
    Scalar(u8, u8),
}

/// The location of physical register `r` (its name in the tables).
pub fn loc_of(r: Reg) -> Option<Loc> {
    let name = Intel.tables().name(r);
    if let Some(n) = name
        .strip_prefix("L8_R")
        .or_else(|| name.strip_prefix("L16_R"))
    {
        return n.parse().ok().map(Loc::Lane);
    }
    let rest = name.strip_prefix('R')?;
    let (nr, k) = rest.split_once("_D")?;
    Some(Loc::Scalar(nr.parse().ok()?, k.parse().ok()?))
}

/// A legal IGA label from a function name.
pub fn label_of(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, '_');
    }
    s
}

const F0: Flag = Flag { nr: 0, sub: 0 };

fn unsupported(f: &MFunction, what: String) -> TargetError {
    TargetError::Unsupported {
        what: format!("@{}: {what}", f.name),
        span: None,
    }
}

/// How one instruction runs: its execution size, offset and mask.
#[derive(Clone, Copy)]
struct Chunk {
    exec: u8,
    offset: u8,
    /// GRFs to add to per-lane operands.
    shift: u8,
    nomask: bool,
}

struct Em<'a> {
    gen: &'a Gen,
    f: &'a MFunction,
    out: Vec<Line>,
    /// The function branches on per-lane conditions: per-lane
    /// instructions run under [`BLOCK_MASK`], branches set [`PC_GRF`].
    divergent: bool,
}

/// The lanes running the current block, in divergent functions:
/// `(~f1.1)`, set by `cmp (ne)f1.1 null PC k`.
const BLOCK_MASK: Pred = Pred {
    flag: F1_1,
    invert: true,
    ctrl: None,
};

const F1_1: Flag = Flag { nr: 1, sub: 1 };

impl Em<'_> {
    /// The physical register of operand `k`.
    fn phys(&self, i: &MInst, k: usize) -> Result<Reg, TargetError> {
        i.ops
            .get(k)
            .and_then(Operand::reg)
            .and_then(|r| r.phys())
            .ok_or_else(|| {
                unsupported(
                    self.f,
                    format!(
                        "`{}` operand {k} is not an allocated register",
                        self.name(i)
                    ),
                )
            })
    }

    fn loc(&self, i: &MInst, k: usize) -> Result<Loc, TargetError> {
        let r = self.phys(i, k)?;
        loc_of(r).ok_or_else(|| {
            unsupported(
                self.f,
                format!(
                    "`{}` operand {k}: register `{}` is neither a lane vector nor a dword scalar",
                    self.name(i),
                    Intel.tables().name(r)
                ),
            )
        })
    }

    fn name(&self, i: &MInst) -> String {
        self.gen.instrs.name(i.opcode).to_string()
    }

    fn imm(&self, i: &MInst, k: usize) -> Result<u32, TargetError> {
        match i.ops.get(k) {
            Some(Operand::Imm(v)) => Ok((*v as u128 & 0xffff_ffff) as u32),
            _ => Err(unsupported(
                self.f,
                format!("`{}` operand {k} is not an immediate", self.name(i)),
            )),
        }
    }

    /// A scratch vector (or scalar) `k` (0..4).
    fn tmp(&self, k: u8, lane: bool) -> Loc {
        if lane {
            Loc::Lane(SCRATCH_GRF + 2 * k)
        } else {
            Loc::Scalar(SCRATCH_GRF + 2 * k, 0)
        }
    }

    /// Whole-width chunk for a def at `d` (per lane or uniform).
    fn full(&self, d: Loc) -> Vec<Chunk> {
        match d {
            Loc::Lane(_) => vec![Chunk {
                exec: self.gen.simd.lanes(),
                offset: 0,
                shift: 0,
                nomask: false,
            }],
            Loc::Scalar(..) => vec![Chunk {
                exec: 1,
                offset: 0,
                shift: 0,
                nomask: true,
            }],
        }
    }

    /// SIMD8 chunks for instructions that use the accumulator.
    fn acc_chunks(&self, d: Loc) -> Vec<Chunk> {
        match d {
            Loc::Lane(_) => (0..self.gen.simd.grfs())
                .map(|c| Chunk {
                    exec: 8,
                    offset: 8 * c,
                    shift: c,
                    nomask: false,
                })
                .collect(),
            Loc::Scalar(..) => self.full(d),
        }
    }

    fn dst(c: Chunk, l: Loc, ty: Ty) -> Dst {
        match l {
            Loc::Lane(nr) => Dst {
                reg: RegName::Grf {
                    nr: nr + c.shift,
                    sub: 0,
                },
                h: 1,
                ty,
            },
            Loc::Scalar(nr, k) => Dst {
                reg: RegName::Grf {
                    nr,
                    sub: k * (4 / ty.size() as u8),
                },
                h: 1,
                ty,
            },
        }
    }

    fn src(c: Chunk, l: Loc, ty: Ty) -> Src {
        match l {
            Loc::Lane(nr) => Src::Reg {
                reg: RegName::Grf {
                    nr: nr + c.shift,
                    sub: 0,
                },
                region: Region::PACKED,
                ty,
                neg: false,
            },
            Loc::Scalar(nr, k) => Src::Reg {
                reg: RegName::Grf { nr, sub: k },
                region: Region::SCALAR,
                ty,
                neg: false,
            },
        }
    }

    /// The low (`hi = false`) or high 16 bits of each dword, as `:uw`.
    fn src_word(c: Chunk, l: Loc, hi: bool) -> Src {
        let h = u8::from(hi);
        match l {
            Loc::Lane(nr) => Src::Reg {
                reg: RegName::Grf {
                    nr: nr + c.shift,
                    sub: h,
                },
                region: Region::EVERY_OTHER,
                ty: Ty::Uw,
                neg: false,
            },
            Loc::Scalar(nr, k) => Src::Reg {
                reg: RegName::Grf { nr, sub: 2 * k + h },
                region: Region::SCALAR,
                ty: Ty::Uw,
                neg: false,
            },
        }
    }

    /// The low 16 bits of each dword, as `:hf`.
    fn src_half(c: Chunk, l: Loc) -> Src {
        match Self::src_word(c, l, false) {
            Src::Reg {
                reg, region, neg, ..
            } => Src::Reg {
                reg,
                region,
                ty: Ty::Hf,
                neg,
            },
            imm => imm,
        }
    }

    fn acc_dst(ty: Ty) -> Dst {
        Dst {
            reg: RegName::Acc { nr: 0, sub: 0 },
            h: 1,
            ty,
        }
    }

    fn acc_src(c: Chunk) -> Src {
        Src::Reg {
            reg: RegName::Acc { nr: 0, sub: 0 },
            region: if c.exec == 1 {
                Region::SCALAR
            } else {
                Region::PACKED
            },
            ty: Ty::Ud,
            neg: false,
        }
    }

    fn imm_src(bits: u32) -> Src {
        Src::Imm { bits, ty: Ty::Ud }
    }

    fn push(&mut self, c: Chunk, op: Op, dst: Dst, srcs: Vec<Src>) -> &mut Inst {
        let mut i = Inst::new(op, c.exec, dst, srcs);
        i.offset = c.offset;
        i.nomask = c.nomask;
        // A predicated instruction's condition modifier must write the
        // predicate's flag, so `cmp` runs unmasked (into null or scratch).
        if self.divergent && !c.nomask && op != Op::Cmp {
            i.pred = Some(BLOCK_MASK);
        }
        self.out.push(Line::Inst(i));
        match self.out.last_mut() {
            Some(Line::Inst(i)) => i,
            _ => unreachable!("an instruction was just pushed"),
        }
    }

    fn alu(&mut self, c: Chunk, op: Op, d: Loc, a: Src, b: Option<Src>) -> &mut Inst {
        let mut srcs = vec![a];
        srcs.extend(b);
        self.push(c, op, Self::dst(c, d, Ty::Ud), srcs)
    }

    fn inst(&mut self, i: &MInst, next: Option<MBlockId>, last: bool) -> Result<(), TargetError> {
        let d = self.gen.instrs.desc(i.opcode).clone();
        let ud = Ty::Ud;
        match d.sem {
            Sem::ImplicitDef | Sem::Phi => Ok(()),
            Sem::Copy => {
                let (dl, sl) = (self.loc(i, 0)?, self.loc(i, 1)?);
                if dl == sl {
                    return Ok(());
                }
                for c in self.full(dl) {
                    self.alu(c, Op::Mov, dl, Self::src(c, sl, ud), None);
                }
                Ok(())
            }
            Sem::MovImm => {
                let dl = self.loc(i, 0)?;
                let v = self.imm(i, 1)?;
                for c in self.full(dl) {
                    self.alu(c, Op::Mov, dl, Self::imm_src(v), None);
                }
                Ok(())
            }
            Sem::Binary(op) => {
                let (dl, al, bl) = (self.loc(i, 0)?, self.loc(i, 1)?, self.loc(i, 2)?);
                use regdesc_codegen::mir::instr::BinOp as B;
                for c in self.full(dl) {
                    let (a, b) = (Self::src(c, al, ud), Self::src(c, bl, ud));
                    match op {
                        B::Add => {
                            self.alu(c, Op::Add, dl, a, Some(b));
                        }
                        B::Sub => {
                            let nb = b.negated(true);
                            self.alu(c, Op::Add, dl, a, Some(nb));
                        }
                        B::Mul => self.mul32(c, dl, al, bl),
                        B::And => {
                            self.alu(c, Op::And, dl, a, Some(b));
                        }
                        B::Or => {
                            self.alu(c, Op::Or, dl, a, Some(b));
                        }
                        B::Xor => {
                            self.alu(c, Op::Xor, dl, a, Some(b));
                        }
                        B::Shl => {
                            self.alu(c, Op::Shl, dl, a, Some(b));
                        }
                        B::LShr => {
                            self.alu(c, Op::Shr, dl, a, Some(b));
                        }
                        B::AShr => {
                            let ad = Self::src(c, al, Ty::D);
                            self.push(c, Op::Asr, Self::dst(c, dl, Ty::D), vec![ad, b]);
                        }
                    }
                }
                Ok(())
            }
            Sem::Compare(p) => {
                let (dl, al, bl) = (self.loc(i, 0)?, self.loc(i, 1)?, self.loc(i, 2)?);
                let (cond, ty) = match p {
                    IntPredicate::Eq => (Cond::Eq, Ty::Ud),
                    IntPredicate::Ne => (Cond::Ne, Ty::Ud),
                    IntPredicate::Ult => (Cond::Lt, Ty::Ud),
                    IntPredicate::Ule => (Cond::Le, Ty::Ud),
                    IntPredicate::Ugt => (Cond::Gt, Ty::Ud),
                    IntPredicate::Uge => (Cond::Ge, Ty::Ud),
                    IntPredicate::Slt => (Cond::Lt, Ty::D),
                    IntPredicate::Sle => (Cond::Le, Ty::D),
                    IntPredicate::Sgt => (Cond::Gt, Ty::D),
                    IntPredicate::Sge => (Cond::Ge, Ty::D),
                };
                let to = if self.divergent {
                    self.tmp(3, true)
                } else {
                    dl
                };
                for c in self.full(dl) {
                    let i = self.push(
                        c,
                        Op::Cmp,
                        Self::dst(c, to, ty),
                        vec![Self::src(c, al, ty), Self::src(c, bl, ty)],
                    );
                    i.cond = Some((cond, F0));
                    self.alu(c, Op::And, dl, Self::src(c, to, ud), Some(Self::imm_src(1)));
                }
                Ok(())
            }
            Sem::Select => {
                let (dl, cl, al, bl) = (
                    self.loc(i, 0)?,
                    self.loc(i, 1)?,
                    self.loc(i, 2)?,
                    self.loc(i, 3)?,
                );
                for c in self.full(dl) {
                    let n = Dst {
                        reg: RegName::Null,
                        h: 1,
                        ty: ud,
                    };
                    let i = self.push(c, Op::Cmp, n, vec![Self::src(c, cl, ud), Self::imm_src(0)]);
                    i.cond = Some((Cond::Ne, F0));
                    // Under a block mask the predicate selects into
                    // scratch, and a masked mov writes the result.
                    let to = if self.divergent {
                        self.tmp(3, true)
                    } else {
                        dl
                    };
                    let s = self.alu(
                        c,
                        Op::Sel,
                        to,
                        Self::src(c, al, ud),
                        Some(Self::src(c, bl, ud)),
                    );
                    s.pred = Some(Pred {
                        flag: F0,
                        invert: false,
                        ctrl: None,
                    });
                    if self.divergent {
                        self.alu(c, Op::Mov, dl, Self::src(c, to, ud), None);
                    }
                }
                Ok(())
            }
            Sem::Limb(LimbOp::WorkitemId | LimbOp::WorkgroupId | LimbOp::WorkgroupSize) => {
                self.payload(i)
            }
            Sem::Limb(l) => self.limb(i, l),
            Sem::Target(crate::mul64::MUL64) => self.mul64(i),
            Sem::Target(crate::mul64::MULADD32) => self.muladd32(i),
            Sem::Target(id) => match crate::iadd64_split::Split::from_id(id) {
                Some(sp) => self.split(i, sp),
                None => self.target_op(i, id),
            },
            Sem::Branch | Sem::CondBranch | Sem::Return if self.divergent => self.set_pc(i, d.sem),
            Sem::Branch => {
                let t = i.block_targets().next();
                if t != next {
                    if let Some(t) = t {
                        self.jump(t, None);
                    }
                }
                Ok(())
            }
            Sem::CondBranch => {
                let cl = self.loc(i, 0)?;
                let mut ts = i.block_targets();
                let (Some(t), Some(e)) = (ts.next(), ts.next()) else {
                    return Err(unsupported(
                        self.f,
                        "a conditional branch with no targets".into(),
                    ));
                };
                let Loc::Scalar(..) = cl else {
                    return Err(unsupported(
                        self.f,
                        "a divergent branch (only uniform branches are supported)".into(),
                    ));
                };
                let c = self.full(cl)[0];
                let n = Dst {
                    reg: RegName::Null,
                    h: 1,
                    ty: ud,
                };
                let ci = self.push(c, Op::Cmp, n, vec![Self::src(c, cl, ud), Self::imm_src(0)]);
                ci.cond = Some((Cond::Ne, F0));
                self.jump(t, Some(F0));
                if Some(e) != next {
                    self.jump(e, None);
                }
                Ok(())
            }
            Sem::Return => {
                if !last {
                    let l = format!("{}_ret", label_of(&self.f.name));
                    self.jump_label(l, None);
                }
                Ok(())
            }
            _ => Err(unsupported(
                self.f,
                format!("`{}` has no Gen emission", self.name(i)),
            )),
        }
    }
}

/// The label of block `b` of function `name`.
pub fn block_label(name: &str, b: MBlockId) -> String {
    format!("{}_bb{}", label_of(name), b.0)
}

/// The Gen instructions of allocated function `f` (a kernel ends with
/// the end-of-thread message).
pub fn lines(gen: &Gen, f: &MFunction, kernel: bool) -> Result<Vec<Line>, TargetError> {
    let mut targets: HashSet<MBlockId> = HashSet::new();
    for b in &f.blocks {
        for i in &b.insts {
            targets.extend(i.block_targets());
        }
    }
    let divergent = f.blocks.iter().flat_map(|b| &b.insts).any(|i| {
        gen.instrs.desc(i.opcode).sem == Sem::CondBranch
            && i.ops
                .first()
                .and_then(Operand::reg)
                .and_then(|r| r.phys())
                .and_then(loc_of)
                .is_some_and(|l| matches!(l, Loc::Lane(_)))
    });
    let mut em = Em {
        gen,
        f,
        out: vec![Line::Label(label_of(&f.name))],
        divergent,
    };
    let n = f.blocks.len();
    let floats = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| matches!(gen.instrs.desc(i.opcode).sem, Sem::Limb(LimbOp::Float(..))));
    if floats {
        // IEEE denormals for :f and :hf (cr0.0 bits 7 and 10; a thread
        // starts flushing them). Gen9/Gen11 need {Switch} on a cr0 write.
        let mut i = Inst::new(
            Op::Or,
            1,
            Dst {
                reg: RegName::Cr { sub: 0 },
                h: 1,
                ty: Ty::Ud,
            },
            vec![
                Src::Reg {
                    reg: RegName::Cr { sub: 0 },
                    region: Region::SCALAR,
                    ty: Ty::Ud,
                    neg: false,
                },
                Em::imm_src(crate::sim::exec::CR0_SP_DENORM | crate::sim::exec::CR0_HF_DENORM),
            ],
        );
        i.nomask = true;
        i.switch = gen.platform != Platform::Gen12lp;
        em.out.push(Line::Inst(i));
    }
    if divergent {
        // Every dispatched lane starts in block 0; the others are done.
        let all = Chunk {
            exec: gen.simd.lanes(),
            offset: 0,
            shift: 0,
            nomask: true,
        };
        let pc = Loc::Lane(PC_GRF);
        em.alu(all, Op::Mov, pc, Em::imm_src(n as u32), None);
        em.divergent = false;
        em.alu(
            Chunk {
                nomask: false,
                ..all
            },
            Op::Mov,
            pc,
            Em::imm_src(0),
            None,
        );
        em.divergent = true;
    }
    for (k, b) in f.blocks.iter().enumerate() {
        let id = MBlockId(k as u32);
        if divergent {
            em.out.push(Line::Label(block_label(&f.name, id)));
            em.block_check(Cond::Ne, k as u32);
            let skip = if k + 1 < n {
                block_label(&f.name, MBlockId(k as u32 + 1))
            } else {
                format!("{}_disp", label_of(&f.name))
            };
            let p = em.all_lanes(true);
            em.jump_if(skip, p);
        } else if targets.contains(&id) && k > 0 {
            em.out.push(Line::Label(block_label(&f.name, id)));
        }
        let next = (k + 1 < n).then_some(MBlockId(k as u32 + 1));
        for i in &b.insts {
            if gen.instrs.desc(i.opcode).sem == Sem::StackStore
                || gen.instrs.desc(i.opcode).sem == Sem::StackLoad
            {
                return Err(unsupported(
                    f,
                    "a spill (the function needs more GRFs than r1..r117 hold; scratch memory is not supported)"
                        .into(),
                ));
            }
            em.inst(i, next, k + 1 == n)?;
        }
    }
    if divergent {
        // Round the blocks again while a lane has not returned.
        em.out
            .push(Line::Label(format!("{}_disp", label_of(&f.name))));
        em.block_check(Cond::Ne, n as u32);
        let p = em.all_lanes(false);
        em.jump_if(block_label(&f.name, MBlockId(0)), p);
    }
    let ret = format!("{}_ret", label_of(&f.name));
    let jumps_to_ret = em
        .out
        .iter()
        .any(|l| matches!(l, Line::Inst(i) if i.label.as_deref() == Some(ret.as_str())));
    if jumps_to_ret {
        em.out.push(Line::Label(ret));
    }
    if kernel {
        em.end_of_thread();
    }
    // Labels only where a jump lands (a fall-through needs none).
    let func = label_of(&f.name);
    let used: HashSet<String> = em
        .out
        .iter()
        .filter_map(|l| match l {
            Line::Inst(i) => i.label.clone(),
            Line::Label(_) | Line::Send(_) | Line::Sync(_) => None,
        })
        .collect();
    let mut out: Vec<Line> = em
        .out
        .into_iter()
        .filter(|l| !matches!(l, Line::Label(x) if *x != func && !used.contains(x)))
        .collect();
    for l in &out {
        if let Line::Inst(i) = l {
            crate::regions::check(i, gen.platform).map_err(|e| unsupported(f, e.to_string()))?;
        }
    }
    if gen.platform == Platform::Gen12lp {
        let sends = out.iter().any(|l| matches!(l, Line::Send(s) if !s.eot));
        let jumps = out
            .iter()
            .any(|l| matches!(l, Line::Inst(i) if i.label.is_some()));
        if sends && jumps {
            return Err(unsupported(
                f,
                "global memory in a function with jumps on Gen12LP (send tokens are tracked along straight-line code only)".into(),
            ));
        }
        crate::swsb::annotate(&mut out);
    }
    Ok(out)
}

/// IGA text of `lines`.
pub fn text(lines: &[Line]) -> String {
    let mut s = String::new();
    for l in lines {
        match l {
            Line::Label(l) => {
                s.push_str(l);
                s.push_str(":\n");
            }
            Line::Inst(i) => {
                s.push_str("        ");
                s.push_str(&i.to_string());
                s.push('\n');
            }
            Line::Send(i) => {
                s.push_str("        ");
                s.push_str(&i.to_string());
                s.push('\n');
            }
            Line::Sync(w) => {
                s.push_str("        (W) sync.nop null {");
                s.push_str(&w.opts().join(","));
                s.push_str("}\n");
            }
        }
    }
    s
}

/// IGA text of allocated function `f` (compiled from `ir`).
pub fn emit(gen: &Gen, f: &MFunction, ir: &Function) -> Result<String, TargetError> {
    Ok(text(&lines(gen, f, ir.cconv.is_kernel())?))
}
