//! A machine-IR interpreter, over virtual registers before allocation and
//! physical registers after: the check that a pass preserved a program's
//! meaning (same results before and after), at every stage of the
//! pipeline, for generic and target instructions alike.
//!
//! The hardware facts it models:
//!
//! - **Physical registers overlap.** Writing a 64-bit pair changes both
//!   32-bit registers under it, writing a 16-bit half changes the 32-bit
//!   register above it. The register file is stored as its *leaf*
//!   registers (those without sub-registers), each as wide as the
//!   sub-register index that names it; a register's bits are its leaves at
//!   their indices' offsets, all from the tables. (Registers related only
//!   by `Aliases`, not by sub-registers, are not modelled.) So a register
//!   allocator that puts two live values in overlapping registers changes
//!   the results. Implicit physical defs that an instruction's meaning does
//!   not cover (a clobber) are filled with garbage for the same reason.
//! - **A GPU runs lanes together.** A machine runs `lanes` lanes in
//!   lockstep under an execution mask: a register is either *per lane*
//!   (AMD's VGPRs, an Intel SIMD GRF region) or *scalar*, one value for all
//!   lanes (SGPRs, uniform GRF scalars, `EXEC` itself). Which is which the
//!   target says ([`TargetSemantics`]). An instruction with a per-lane
//!   operand runs for each lane whose execution bit is set and writes only
//!   those lanes; one with only scalar operands runs once. A branch reads
//!   a scalar condition: before the target has lowered divergent control
//!   flow, machine code runs one lane at a time ([`ExecModel::Threads`]).
//! - **Several results.** Instructions may write more than one register
//!   (a sum and its carry).
//! - **Memory.** Loads and stores go to the reference interpreter's
//!   [`GlobalMemory`], so machine code and IR share one memory model.
//!
//! Target instructions ([`Sem::Target`]) are run by the target's
//! [`TargetSemantics::execute`] through a [`MachineCx`]: the same
//! definitions serve the target's tests and its simulator.

use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use regdesc_runtime::{Reg, RegClass, RegisterInfo};

use crate::interp::GlobalMemory;
use crate::ir::types::Type;
pub use crate::mir::bits::Bits;
use crate::mir::instr::{BinOp, FloatFmt, IntPredicate, LimbOp};
use crate::mir::widths::{index_width, operand_width, phys_width};
use crate::mir::{InstrSet, MBlockId, MFunction, MInst, Operand, RegOperand, RegRef, Sem};
use crate::value::Value;

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

/// An error with no location yet (the machine adds it).
pub fn err(message: impl Into<String>) -> InterpError {
    InterpError {
        message: message.into(),
        at: None,
    }
}

/// How machine code runs several lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecModel {
    /// Each lane runs alone, start to end (a CPU thread; also every GPU
    /// target's code before its control flow is lowered to masks).
    Threads,
    /// All lanes run together under an execution mask (a GPU wave or an
    /// Intel EU thread).
    Wave,
}

/// What a target tells the machine about its registers and instructions.
pub trait TargetSemantics {
    /// Whether the registers of `rc` hold one value per lane.
    fn per_lane_class(&self, rc: RegClass) -> bool {
        let _ = rc;
        true
    }

    /// Whether physical register `r` holds one value per lane.
    fn per_lane_reg(&self, r: Reg) -> bool {
        let _ = r;
        true
    }

    /// Runs target instruction `id` ([`Sem::Target`]).
    fn execute(&self, id: u16, inst: &MInst, cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
        let _ = (inst, cx);
        Err(err(format!("target instruction {id} has no semantics")))
    }
}

/// Semantics for instruction sets with no target instructions: every
/// register per lane.
#[derive(Clone, Copy, Debug, Default)]
pub struct GenericSemantics;

impl TargetSemantics for GenericSemantics {}

/// What a target instruction's semantics see of the machine.
pub trait MachineCx {
    /// Lanes in the machine.
    fn lanes(&self) -> u32;
    /// The execution mask (bit `k`: lane `k` runs per-lane instructions).
    fn exec(&self) -> u64;
    fn set_exec(&mut self, mask: u64);
    /// Whether operand `k` of the current instruction is per lane.
    fn operand_per_lane(&self, k: usize) -> Result<bool, InterpError>;
    /// Operand `k` at `lane` (a scalar register ignores the lane; an
    /// immediate reads as its two's complement in 128 bits).
    fn read(&mut self, k: usize, lane: u32) -> Result<Bits, InterpError>;
    /// Writes operand `k` at `lane` (all lanes share a scalar register).
    fn write(&mut self, k: usize, lane: u32, v: Bits) -> Result<(), InterpError>;
    /// A physical register at `lane`.
    fn read_reg(&mut self, r: Reg, lane: u32) -> Result<Bits, InterpError>;
    fn write_reg(&mut self, r: Reg, lane: u32, v: Bits) -> Result<(), InterpError>;
    fn memory(&mut self) -> &mut GlobalMemory;
    /// The lane's work-item id.
    fn workitem_id(&self, lane: u32) -> u32;
    fn workgroup_id(&self) -> u32;
    fn workgroup_size(&self) -> u32;
}

/// Where control goes after an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    Next,
    Jump(MBlockId),
    /// The function returns (`RET`'s explicit operands are the results).
    Return,
}

/// The launch a machine runs: lanes, their ids, their starting registers.
#[derive(Clone, Debug)]
pub struct Env {
    /// Lanes run together.
    pub lanes: u32,
    /// Work-item id of each lane.
    pub workitems: Vec<u32>,
    pub workgroup_id: u32,
    pub workgroup_size: u32,
    /// Physical registers' values at entry: one value (scalar) or one per
    /// lane.
    pub init: Vec<(Reg, Vec<Bits>)>,
    /// What `ARG n` reads: per lane, the arguments.
    pub args: Vec<Vec<u128>>,
    pub max_steps: u64,
}

impl Env {
    /// One lane, no ids, `ARG n` reading `args`.
    pub fn single(args: &[u128], max_steps: u64) -> Env {
        Env {
            lanes: 1,
            workitems: vec![0],
            workgroup_id: 0,
            workgroup_size: 1,
            init: Vec::new(),
            args: vec![args.to_vec()],
            max_steps,
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The values of `RET`'s explicit operands, each one per lane.
    pub results: Vec<Vec<Bits>>,
    /// Instructions executed.
    pub steps: u64,
}

/// What a single-lane run produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SingleOutcome {
    pub results: Vec<Bits>,
    pub steps: u64,
}

/// Runs `f` on one lane with arguments `args` (read by `ARG n`), for at
/// most `max_steps` instructions, every register per lane.
pub fn run<R: RegisterInfo>(
    f: &MFunction,
    ri: &R,
    instrs: &InstrSet,
    args: &[u128],
    max_steps: u64,
) -> Result<SingleOutcome, InterpError> {
    let mut mem = GlobalMemory::new(0);
    let env = Env::single(args, max_steps);
    let o = run_machine(f, ri, instrs, &GenericSemantics, &env, &mut mem)?;
    Ok(SingleOutcome {
        results: o
            .results
            .into_iter()
            .map(|mut v| v.swap_remove(0))
            .collect(),
        steps: o.steps,
    })
}

/// Runs `f` with `env.lanes` lanes together, all active, sharing `mem`.
pub fn run_machine<R: RegisterInfo>(
    f: &MFunction,
    ri: &R,
    instrs: &InstrSet,
    sem: &dyn TargetSemantics,
    env: &Env,
    mem: &mut GlobalMemory,
) -> Result<Outcome, InterpError> {
    if env.lanes == 0 || env.lanes > 64 {
        return Err(err(format!(
            "{} lanes: a machine runs 1 to 64 lanes",
            env.lanes
        )));
    }
    let mut m = Machine {
        f,
        ri,
        instrs,
        sem,
        env,
        mem,
        exec: if env.lanes == 64 {
            u64::MAX
        } else {
            (1u64 << env.lanes) - 1
        },
        vregs: vec![None; f.vregs.len()],
        leaves: HashMap::new(),
        layouts: HashMap::new(),
        frame: vec![None; f.frame.len()],
        steps: 0,
        cur: None,
    };
    for (r, vals) in &env.init {
        if vals.len() == 1 {
            for lane in 0..env.lanes {
                m.write_phys(*r, lane, &vals[0])?;
            }
        } else {
            for (lane, v) in vals.iter().enumerate() {
                m.write_phys(*r, lane as u32, v)?;
            }
        }
    }
    m.run()
}

/// Values of one register: one (scalar) or one per lane.
type LaneVals = Vec<Bits>;

/// A physical register's leaf registers: (leaf, offset, width).
type Layout = Rc<[(Reg, u32, u32)]>;

struct Machine<'a, R: RegisterInfo> {
    f: &'a MFunction,
    ri: &'a R,
    instrs: &'a InstrSet,
    sem: &'a dyn TargetSemantics,
    env: &'a Env,
    mem: &'a mut GlobalMemory,
    exec: u64,
    vregs: Vec<Option<LaneVals>>,
    /// Leaf registers' contents (zero until written).
    leaves: HashMap<Reg, LaneVals>,
    /// Each physical register's leaves: (leaf, offset, width).
    layouts: HashMap<Reg, Layout>,
    frame: Vec<Option<LaneVals>>,
    steps: u64,
    /// The instruction being executed (for [`MachineCx`]).
    cur: Option<&'a MInst>,
}

fn pick(vals: &LaneVals, lane: u32) -> &Bits {
    if vals.len() == 1 {
        &vals[0]
    } else {
        &vals[lane as usize]
    }
}

impl<'a, R: RegisterInfo> Machine<'a, R> {
    fn run(&mut self) -> Result<Outcome, InterpError> {
        let mut b = MBlockId(0);
        let mut pred: Option<MBlockId> = None;
        loop {
            let f = self.f;
            let block = f
                .blocks
                .get(b)
                .ok_or_else(|| err(format!("no block bb.{}", b.0)))?;
            let mut k = 0;
            let at = |k: usize| {
                move |e: InterpError| InterpError {
                    at: Some((b, k)),
                    ..e
                }
            };
            // PHIs: read every incoming value, then write them all.
            let mut phi_values = Vec::new();
            while let Some(i) = block.insts.get(k) {
                if self.instrs.get(i.opcode).map(|d| d.sem) != Some(Sem::Phi) {
                    break;
                }
                let p = pred.ok_or_else(|| at(k)(err("PHI in the entry block")))?;
                let v = self.phi_input(i, p).map_err(at(k))?;
                phi_values.push((k, v));
                k += 1;
            }
            for (k, v) in phi_values {
                if let Some(def) = block.insts[k].ops.first().and_then(Operand::reg) {
                    self.write_all(def, v).map_err(at(k))?;
                }
            }
            let mut next = None;
            while let Some(i) = block.insts.get(k) {
                self.steps += 1;
                if self.steps > self.env.max_steps {
                    return Err(at(k)(err(format!(
                        "more than {} instructions executed",
                        self.env.max_steps
                    ))));
                }
                self.cur = Some(i);
                match self.exec(i).map_err(at(k))? {
                    Flow::Next => k += 1,
                    Flow::Jump(t) => {
                        next = Some(t);
                        break;
                    }
                    Flow::Return => {
                        let results = self.return_values(i).map_err(at(k))?;
                        return Ok(Outcome {
                            results,
                            steps: self.steps,
                        });
                    }
                }
            }
            let Some(t) = next else {
                return Err(at(k)(err("fell off the end of the block")));
            };
            pred = Some(b);
            b = t;
        }
    }

    fn lanes(&self) -> u32 {
        self.env.lanes
    }

    fn active(&self, lane: u32) -> bool {
        self.exec & (1u64 << lane) != 0
    }

    fn phi_input(&mut self, i: &MInst, p: MBlockId) -> Result<LaneVals, InterpError> {
        for pair in i.ops[1..].chunks(2) {
            if let [Operand::Reg(r), Operand::Block(q)] = pair {
                if *q == p {
                    return self.read_all(r);
                }
            }
        }
        Err(err(format!("PHI has no value for bb.{}", p.0)))
    }

    fn width(&self, r: &RegOperand) -> Result<u32, InterpError> {
        operand_width(self.ri, self.f, r).ok_or_else(|| err("operand width unknown"))
    }

    fn is_per_lane(&self, r: &RegOperand) -> bool {
        match r.reg {
            RegRef::Phys(p) => self.sem.per_lane_reg(p),
            RegRef::Virt(v) => self
                .f
                .class_of(v)
                .is_none_or(|c| self.sem.per_lane_class(c)),
        }
    }

    fn layout(&mut self, p: Reg) -> Result<Layout, InterpError> {
        if let Some(l) = self.layouts.get(&p) {
            return Ok(Rc::clone(l));
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
        let l: Layout = l.into();
        self.layouts.insert(p, Rc::clone(&l));
        Ok(l)
    }

    fn leaf_vals(&mut self, leaf: Reg, width: u32) -> &mut LaneVals {
        let n = if self.sem.per_lane_reg(leaf) {
            self.env.lanes as usize
        } else {
            1
        };
        self.leaves
            .entry(leaf)
            .or_insert_with(|| vec![Bits::zero(width); n])
    }

    fn read_phys(&mut self, p: Reg, lane: u32) -> Result<Bits, InterpError> {
        let w = phys_width(self.ri, p).ok_or_else(|| err("register size unknown"))?;
        let mut out = Bits::zero(w);
        for &(leaf, off, lw) in self.layout(p)?.iter() {
            let v = pick(self.leaf_vals(leaf, lw), lane);
            out.insert(off, v);
        }
        Ok(out)
    }

    fn write_phys(&mut self, p: Reg, lane: u32, v: &Bits) -> Result<(), InterpError> {
        for &(leaf, off, lw) in self.layout(p)?.iter() {
            let vals = self.leaf_vals(leaf, lw);
            let slot = if vals.len() == 1 {
                &mut vals[0]
            } else {
                &mut vals[lane as usize]
            };
            *slot = v.extract(off, lw);
        }
        Ok(())
    }

    /// Operand `r` at `lane`.
    fn read(&mut self, r: &RegOperand, lane: u32) -> Result<Bits, InterpError> {
        match r.reg {
            RegRef::Phys(p) => self.read_phys(p, lane),
            RegRef::Virt(v) => {
                let whole = self
                    .vregs
                    .get(v.index())
                    .and_then(Option::as_ref)
                    .map(|vals| pick(vals, lane).clone())
                    .ok_or_else(|| err(format!("%{} read before any def", v.0)))?;
                match r.sub {
                    None => Ok(whole),
                    Some(i) => {
                        let off = self
                            .ri
                            .tables()
                            .sub_reg_index_offset(i)
                            .ok_or_else(|| err("sub-register offset unknown"))?;
                        let w = self.width(r)?;
                        Ok(whole.extract(u32::from(off), w))
                    }
                }
            }
        }
    }

    /// Operand `r` in every lane (one value for a scalar register).
    fn read_all(&mut self, r: &RegOperand) -> Result<LaneVals, InterpError> {
        if self.is_per_lane(r) && self.lanes() > 1 {
            (0..self.lanes()).map(|l| self.read(r, l)).collect()
        } else {
            Ok(vec![self.read(r, 0)?])
        }
    }

    /// Writes operand `r` at `lane` (a scalar register: for every lane).
    fn write(&mut self, r: &RegOperand, lane: u32, v: Bits) -> Result<(), InterpError> {
        let lanes = self.lanes() as usize;
        let per_lane = self.is_per_lane(r);
        match r.reg {
            RegRef::Phys(p) => self.write_phys(p, lane, &v),
            RegRef::Virt(x) => {
                let rc = self
                    .f
                    .class_of(x)
                    .ok_or_else(|| err(format!("%{} has no class", x.0)))?;
                let full = crate::mir::widths::class_width(self.ri, rc)
                    .ok_or_else(|| err("class width unknown"))?;
                let off = match r.sub {
                    Some(i) => Some(
                        self.ri
                            .tables()
                            .sub_reg_index_offset(i)
                            .ok_or_else(|| err("sub-register offset unknown"))?,
                    ),
                    None => None,
                };
                let slot = self
                    .vregs
                    .get_mut(x.index())
                    .ok_or_else(|| err("virtual register out of range"))?;
                let n = if per_lane { lanes } else { 1 };
                let vals = slot.get_or_insert_with(|| vec![Bits::zero(full); n]);
                let target = if vals.len() == 1 {
                    &mut vals[0]
                } else {
                    &mut vals[lane as usize]
                };
                match off {
                    None => *target = v,
                    Some(off) => target.insert(u32::from(off), &v),
                }
                Ok(())
            }
        }
    }

    /// Writes values read with [`Machine::read_all`] (every lane, whatever
    /// the mask: PHI copies and spills move whole registers).
    fn write_all(&mut self, r: &RegOperand, vals: LaneVals) -> Result<(), InterpError> {
        if vals.len() == 1 {
            for lane in 0..self.lanes() {
                self.write(r, lane, vals[0].clone())?;
                if !self.is_per_lane(r) {
                    break;
                }
            }
            Ok(())
        } else if !self.is_per_lane(r) {
            Err(err("a per-lane value is written to a scalar register"))
        } else {
            for (lane, v) in vals.into_iter().enumerate() {
                self.write(r, lane as u32, v)?;
            }
            Ok(())
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
            Some(Operand::Imm(v)) => Ok(i128::from(*v)),
            _ => Err(err(format!("operand {k} is not an immediate"))),
        }
    }

    fn block(i: &MInst, k: usize) -> Result<MBlockId, InterpError> {
        match i.ops.get(k) {
            Some(Operand::Block(b)) => Ok(*b),
            _ => Err(err(format!("operand {k} is not a block"))),
        }
    }

    /// The lanes an instruction runs in: each active lane when a register
    /// operand is per lane, else once.
    fn run_lanes(&self, i: &MInst) -> Vec<u32> {
        let per_lane = self.lanes() > 1
            && i.ops
                .iter()
                .filter_map(Operand::reg)
                .filter(|r| !r.implicit())
                .any(|r| self.is_per_lane(r));
        if per_lane {
            (0..self.lanes()).filter(|&l| self.active(l)).collect()
        } else {
            vec![0]
        }
    }

    /// A scalar operand (a branch condition): the same in every active lane.
    fn uniform(&mut self, r: &RegOperand) -> Result<Bits, InterpError> {
        let vals = self.read_all(r)?;
        let mut active = (0..vals.len() as u32).filter(|&l| vals.len() == 1 || self.active(l));
        let first = active.next().unwrap_or(0);
        let v = pick(&vals, first).clone();
        if active.any(|l| pick(&vals, l) != &v) {
            return Err(err(
                "a branch condition differs between active lanes: divergent control flow \
                 must be lowered before the code runs as a wave",
            ));
        }
        Ok(v)
    }

    fn return_values(&mut self, i: &MInst) -> Result<Vec<LaneVals>, InterpError> {
        let mut out = Vec::new();
        for o in &i.ops {
            if let Operand::Reg(r) = o {
                if !r.implicit() && !r.is_def() {
                    let vals = self.read_all(r)?;
                    out.push(if vals.len() == 1 {
                        vec![vals[0].clone(); self.lanes() as usize]
                    } else {
                        vals
                    });
                }
            }
        }
        Ok(out)
    }

    fn exec(&mut self, i: &'a MInst) -> Result<Flow, InterpError> {
        let desc = self
            .instrs
            .get(i.opcode)
            .ok_or_else(|| err("unknown opcode"))?;
        let flow = match desc.sem {
            Sem::Phi => return Err(err("PHI after a non-PHI instruction")),
            Sem::Branch => Flow::Jump(Self::block(i, 0)?),
            Sem::CondBranch => {
                let c = self.uniform(Self::reg_op(i, 0)?)?;
                Flow::Jump(if c.is_zero() {
                    Self::block(i, 2)?
                } else {
                    Self::block(i, 1)?
                })
            }
            Sem::Return => Flow::Return,
            Sem::Nop => Flow::Next,
            Sem::Target(id) => {
                let sem = self.sem;
                sem.execute(id, i, self)?
            }
            Sem::Copy | Sem::StackStore | Sem::StackLoad | Sem::ImplicitDef => {
                self.move_whole(i, desc.sem)?;
                Flow::Next
            }
            _ => {
                for lane in self.run_lanes(i) {
                    self.exec_lane(i, desc.sem, lane)?;
                }
                Flow::Next
            }
        };
        // Clobbers: implicit defs the meaning does not write get garbage.
        if !matches!(desc.sem, Sem::Target(_)) {
            for o in &i.ops {
                if let Operand::Reg(r) = o {
                    if r.implicit() && r.is_def() {
                        if let RegRef::Phys(p) = r.reg {
                            let w = phys_width(self.ri, p).unwrap_or(64);
                            let g = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834u128
                                .wrapping_mul(u128::from(self.steps) | 1);
                            for lane in 0..self.lanes() {
                                self.write_phys(p, lane, &Bits::from_u128(w, g))?;
                            }
                        }
                    }
                }
            }
        }
        Ok(flow)
    }

    /// Copies, spills and `IMPLICIT_DEF`: whole registers, in the active
    /// lanes when the destination is per lane.
    fn move_whole(&mut self, i: &MInst, sem: Sem) -> Result<(), InterpError> {
        match sem {
            Sem::Copy => {
                let d = Self::reg_op(i, 0)?;
                let s = Self::reg_op(i, 1)?;
                if self.is_per_lane(d) {
                    for lane in 0..self.lanes() {
                        if self.active(lane) || self.lanes() == 1 {
                            let v = self.read(s, lane)?;
                            self.write(d, lane, v)?;
                        }
                    }
                } else {
                    let v = self.uniform(s)?;
                    self.write(d, 0, v)?;
                }
            }
            Sem::ImplicitDef => {
                let d = Self::reg_op(i, 0)?;
                if d.vreg().is_some() {
                    let w = self.width(d)?;
                    self.write_all(d, vec![Bits::zero(w)])?;
                }
            }
            Sem::StackStore => {
                let v = self.read_all(Self::reg_op(i, 0)?)?;
                let s = frame_of(i)?;
                let slot = self
                    .frame
                    .get_mut(s)
                    .ok_or_else(|| err("no such stack slot"))?;
                *slot = Some(v);
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
                self.write_all(d, v.into_iter().map(|b| b.extract(0, w)).collect())?;
            }
            _ => return Err(err("not a move")),
        }
        Ok(())
    }

    fn exec_lane(&mut self, i: &MInst, sem: Sem, lane: u32) -> Result<(), InterpError> {
        let rd = |m: &mut Self, k: usize| -> Result<Bits, InterpError> {
            let r = Self::reg_op(i, k)?;
            m.read(r, lane)
        };
        let wr = |m: &mut Self, k: usize, v: u128| -> Result<(), InterpError> {
            let d = Self::reg_op(i, k)?;
            let w = m.width(d)?;
            m.write(d, lane, Bits::from_u128(w, v))
        };
        match sem {
            Sem::RegSequence => {
                let d = Self::reg_op(i, 0)?;
                let mut v = Bits::zero(self.width(d)?);
                for pair in i.ops[1..].chunks(2) {
                    if let [Operand::Reg(r), Operand::SubIdx(s)] = pair {
                        if r.undef() {
                            continue;
                        }
                        let x = self.read(r, lane)?;
                        let off = self
                            .ri
                            .tables()
                            .sub_reg_index_offset(*s)
                            .ok_or_else(|| err("sub-register offset unknown"))?;
                        v.insert(u32::from(off), &x);
                    }
                }
                self.write(d, lane, v)?;
            }
            Sem::Arg => {
                let n = Self::imm(i, 1)?;
                let a = usize::try_from(n)
                    .ok()
                    .and_then(|n| self.env.args.get(lane as usize)?.get(n))
                    .copied()
                    .ok_or_else(|| err(format!("no argument {n}")))?;
                wr(self, 0, a)?;
            }
            Sem::MovImm => wr(self, 0, Self::imm(i, 1)? as u128)?,
            Sem::Binary(op) => {
                let w = self.width(Self::reg_op(i, 0)?)?;
                let a = rd(self, 1)?.to_u128();
                let b = rd(self, 2)?.to_u128();
                wr(self, 0, binary(op, w, a, b)?)?;
            }
            Sem::Compare(p) => {
                let wa = self.width(Self::reg_op(i, 1)?)?;
                if wa > 128 {
                    return Err(err(format!("{wa}-bit comparison")));
                }
                let a = rd(self, 1)?.to_u128();
                let b = rd(self, 2)?.to_u128();
                wr(self, 0, u128::from(compare(p, wa, a, b)))?;
            }
            Sem::Select => {
                let c = rd(self, 1)?;
                let v = if c.is_zero() {
                    rd(self, 3)?
                } else {
                    rd(self, 2)?
                };
                let d = Self::reg_op(i, 0)?;
                self.write(d, lane, v)?;
            }
            Sem::Limb(op) => self.limb(i, op, lane)?,
            _ => return Err(err("instruction kind not run per lane")),
        }
        Ok(())
    }

    fn limb(&mut self, i: &MInst, op: LimbOp, lane: u32) -> Result<(), InterpError> {
        let defs = self.instrs.get(i.opcode).map_or(0, |d| d.num_defs);
        let mut s = Vec::with_capacity(4);
        for o in &i.ops[defs.min(i.ops.len())..] {
            match o {
                Operand::Imm(v) => s.push(*v as u64),
                Operand::Reg(r) if !r.implicit() => s.push(self.read(r, lane)?.to_u128() as u64),
                _ => {}
            }
        }
        let src = |k: usize| -> Result<u64, InterpError> {
            s.get(k)
                .copied()
                .ok_or_else(|| err(format!("source {k} is missing")))
        };
        let lo32 = |v: u64| v & 0xffff_ffff;
        let outs: Vec<u64> = match op {
            LimbOp::UAddO => {
                let sum = lo32(src(0)?) + lo32(src(1)?);
                vec![lo32(sum), sum >> 32]
            }
            LimbOp::UAddE => {
                let sum = lo32(src(0)?) + lo32(src(1)?) + (src(2)? & 1);
                vec![lo32(sum), sum >> 32]
            }
            LimbOp::USubO => {
                let (a, b) = (lo32(src(0)?), lo32(src(1)?));
                vec![lo32(a.wrapping_sub(b)), u64::from(a < b)]
            }
            LimbOp::USubE => {
                let (a, b, c) = (lo32(src(0)?), lo32(src(1)?), src(2)? & 1);
                vec![
                    lo32(a.wrapping_sub(b).wrapping_sub(c)),
                    u64::from(a < b + c),
                ]
            }
            LimbOp::UMulH => vec![(lo32(src(0)?) * lo32(src(1)?)) >> 32],
            LimbOp::SMulH => {
                let (a, b) = (src(0)? as u32 as i32 as i64, src(1)? as u32 as i32 as i64);
                vec![lo32(((a * b) >> 32) as u64)]
            }
            LimbOp::Mad64 => {
                let acc = lo32(src(2)?) | (src(3)? << 32);
                let r = (lo32(src(0)?) * lo32(src(1)?)).wrapping_add(acc);
                vec![lo32(r), r >> 32]
            }
            LimbOp::ZextInReg => {
                let (a, w) = (src(0)?, src(1)?);
                vec![if w >= 64 { a } else { a & ((1u64 << w) - 1) }]
            }
            LimbOp::SextInReg => {
                let (a, w) = (src(0)?, src(1)?);
                if w == 0 || w > 32 {
                    return Err(err(format!("SEXT_INREG from {w} bits")));
                }
                let sh = 64 - w;
                vec![lo32((((a << sh) as i64) >> sh) as u64)]
            }
            LimbOp::Float(fop, fmt) => {
                let ty = match fmt {
                    FloatFmt::F16 => Type::Half,
                    FloatFmt::F32 => Type::Float,
                };
                let val = |v: u64| {
                    Value::from_bits(ty, crate::value::IntBits::from(v))
                        .ok_or_else(|| err("not a float"))
                };
                let (a, b) = (val(src(0)?)?, val(src(1)?)?);
                let r = crate::interp::ops::fbin(fop, Default::default(), &a, &b)
                    .map_err(|e| err(e.to_string()))?;
                vec![r.to_bits().as_limbs()[0]]
            }
            LimbOp::Load => {
                let addr = lo32(src(0)?) | (src(1)? << 32);
                let bytes = self
                    .mem
                    .read_bytes(addr, src(2)?)
                    .map_err(|e| err(e.to_string()))?;
                let mut v = 0u64;
                for (k, b) in bytes.iter().enumerate() {
                    v |= u64::from(*b) << (8 * k);
                }
                vec![v]
            }
            LimbOp::Store => {
                let v = src(0)?;
                let addr = lo32(src(1)?) | (src(2)? << 32);
                let n = src(3)?.min(8) as usize;
                self.mem
                    .write_bytes(addr, &v.to_le_bytes()[..n])
                    .map_err(|e| err(e.to_string()))?;
                Vec::new()
            }
            LimbOp::WorkitemId => vec![u64::from(
                self.env.workitems.get(lane as usize).copied().unwrap_or(0),
            )],
            LimbOp::WorkgroupId => vec![u64::from(self.env.workgroup_id)],
            LimbOp::WorkgroupSize => vec![u64::from(self.env.workgroup_size)],
        };
        for (k, v) in outs.into_iter().enumerate() {
            let d = Self::reg_op(i, k)?;
            let w = self.width(d)?;
            self.write(d, lane, Bits::from_u128(w, u128::from(v)))?;
        }
        Ok(())
    }
}

impl<R: RegisterInfo> MachineCx for Machine<'_, R> {
    fn lanes(&self) -> u32 {
        self.env.lanes
    }

    fn exec(&self) -> u64 {
        self.exec
    }

    fn set_exec(&mut self, mask: u64) {
        self.exec = mask;
    }

    fn operand_per_lane(&self, k: usize) -> Result<bool, InterpError> {
        let i = self.cur.ok_or_else(|| err("no instruction"))?;
        match i.ops.get(k) {
            Some(Operand::Reg(r)) => Ok(self.is_per_lane(r)),
            Some(_) => Ok(false),
            None => Err(err(format!("no operand {k}"))),
        }
    }

    fn read(&mut self, k: usize, lane: u32) -> Result<Bits, InterpError> {
        let i = self.cur.ok_or_else(|| err("no instruction"))?;
        match i.ops.get(k) {
            Some(Operand::Imm(v)) => Ok(Bits::from_u128(128, *v as u128)),
            Some(Operand::Reg(r)) => Machine::read(self, r, lane),
            _ => Err(err(format!("operand {k} is not readable"))),
        }
    }

    fn write(&mut self, k: usize, lane: u32, v: Bits) -> Result<(), InterpError> {
        let i = self.cur.ok_or_else(|| err("no instruction"))?;
        let r = Self::reg_op(i, k)?;
        let w = self.width(r)?;
        Machine::write(self, r, lane, v.extract(0, w))
    }

    fn read_reg(&mut self, r: Reg, lane: u32) -> Result<Bits, InterpError> {
        self.read_phys(r, lane)
    }

    fn write_reg(&mut self, r: Reg, lane: u32, v: Bits) -> Result<(), InterpError> {
        self.write_phys(r, lane, &v)
    }

    fn memory(&mut self) -> &mut GlobalMemory {
        self.mem
    }

    fn workitem_id(&self, lane: u32) -> u32 {
        self.env.workitems.get(lane as usize).copied().unwrap_or(0)
    }

    fn workgroup_id(&self) -> u32 {
        self.env.workgroup_id
    }

    fn workgroup_size(&self) -> u32 {
        self.env.workgroup_size
    }
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

fn compare(p: IntPredicate, w: u32, x: u128, y: u128) -> bool {
    let (sx, sy) = (sext(x, w), sext(y, w));
    p.holds(x.cmp(&y), sx.cmp(&sy))
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
    fn arithmetic_wraps() {
        assert_eq!(binary(BinOp::Add, 16, 0xffff, 2).ok(), Some(1));
        assert_eq!(binary(BinOp::AShr, 16, 0x8000, 15).ok(), Some(0xffff));
        assert_eq!(binary(BinOp::Shl, 32, 1, 33).ok(), Some(2));
        assert!(binary(BinOp::Add, 256, 1, 1).is_err());
    }

    #[test]
    fn signed_compare() {
        assert!(compare(IntPredicate::Slt, 32, 0xffff_ffff, 0));
        assert!(!compare(IntPredicate::Ult, 32, 0xffff_ffff, 0));
    }
}
