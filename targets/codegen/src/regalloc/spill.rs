//! Spilling: the target hook that stores and reloads a register, and the
//! rewriting that sends a value through its stack slot ("spill
//! everywhere").
//!
//! The hardware fact served: when the register file is full, a value lives
//! in memory between its uses, and how to get it there is the target's
//! business — AMD spills VGPRs to scratch with `BUFFER_STORE_DWORD` (or to
//! the lanes of another register), Intel to scratch with `send`. The
//! allocator asks the [`SpillHook`] for the instructions (LLVM's
//! `storeRegToStackSlot` / `loadRegFromStackSlot`); the slot's size and
//! alignment are the class's spill size and alignment from the tables.
//!
//! Each instruction that reads a spilled register gets a reload into a new
//! short-lived register just before it, each that writes it a store just
//! after; one new register serves both when an instruction reads and
//! writes it (tied operands). A sub-register def that keeps the other
//! lanes reloads first. The new registers are never spilled again.

use regdesc_runtime::{RegClass, RegisterInfo};

use crate::mir::liveness::{class_lanes, operand_lanes, Liveness};
use crate::mir::slots::Slots;
use crate::mir::{FrameIdx, InstrSet, MFunction, MInst, Operand, RegOperand, RegRef, VReg};

/// Why a register could not be spilled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpillError {
    /// The target's hook has no instructions for this class.
    Hook { class: String, why: String },
    /// The value is defined by its block's terminator: no store can follow.
    DefinedByTerminator { vreg: VReg, opcode: String },
}

impl std::fmt::Display for SpillError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpillError::Hook { class, why } => {
                write!(f, "the target cannot spill class {class}: {why}")
            }
            SpillError::DefinedByTerminator { vreg, opcode } => write!(
                f,
                "cannot spill %{}: {opcode} defines it and ends its block",
                vreg.0
            ),
        }
    }
}

impl std::error::Error for SpillError {}

/// How a target stores a register to a stack slot and loads it back.
pub trait SpillHook {
    /// Instructions storing all of `v` (of class `rc`) to `slot`.
    fn store(
        &self,
        f: &MFunction,
        v: VReg,
        rc: RegClass,
        slot: FrameIdx,
    ) -> Result<Vec<MInst>, SpillError>;
    /// Instructions loading all of `v` (of class `rc`) from `slot`.
    fn load(
        &self,
        f: &MFunction,
        v: VReg,
        rc: RegClass,
        slot: FrameIdx,
    ) -> Result<Vec<MInst>, SpillError>;
}

/// The generic hook every instruction set has: `SPILL_STORE %v,
/// %stack.N` and `%v = SPILL_LOAD %stack.N`, which the machine-IR
/// interpreter runs. A target without spill instructions of its own
/// returns its [`InstrSet`] as its [`SpillHook`].
impl SpillHook for InstrSet {
    fn store(
        &self,
        _f: &MFunction,
        v: VReg,
        _rc: RegClass,
        slot: FrameIdx,
    ) -> Result<Vec<MInst>, SpillError> {
        Ok(vec![MInst::new(
            self.spill_store,
            vec![
                Operand::Reg(RegOperand::use_of(RegRef::Virt(v), None)),
                Operand::Frame(slot),
            ],
        )])
    }

    fn load(
        &self,
        _f: &MFunction,
        v: VReg,
        _rc: RegClass,
        slot: FrameIdx,
    ) -> Result<Vec<MInst>, SpillError> {
        Ok(vec![MInst::new(
            self.spill_load,
            vec![
                Operand::Reg(RegOperand::def_of(RegRef::Virt(v), None)),
                Operand::Frame(slot),
            ],
        )])
    }
}

/// [`InstrSet`]'s generic hook by a name (for callers holding the set by
/// reference).
#[derive(Clone, Copy, Debug)]
pub struct GenericSpill<'a> {
    pub instrs: &'a InstrSet,
}

impl SpillHook for GenericSpill<'_> {
    fn store(
        &self,
        f: &MFunction,
        v: VReg,
        rc: RegClass,
        slot: FrameIdx,
    ) -> Result<Vec<MInst>, SpillError> {
        self.instrs.store(f, v, rc, slot)
    }

    fn load(
        &self,
        f: &MFunction,
        v: VReg,
        rc: RegClass,
        slot: FrameIdx,
    ) -> Result<Vec<MInst>, SpillError> {
        self.instrs.load(f, v, rc, slot)
    }
}

/// What spilling did.
#[derive(Clone, Debug, Default)]
pub struct Spilled {
    /// The new short-lived registers (not to be spilled again).
    pub temps: Vec<VReg>,
    /// Loads and stores inserted (counting hook instructions).
    pub reloads: usize,
    pub stores: usize,
}

/// Sends every register in `spill` through a new stack slot. `live` is
/// the liveness of `f` as it is (a sub-register def reloads only when
/// the other lanes hold a value there).
pub fn spill_everywhere<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    hook: &dyn SpillHook,
    live: &Liveness<R::Lanes>,
    spill: &[VReg],
) -> Result<Spilled, SpillError> {
    insert_spill_code(f, ri, instrs, hook, live, spill).map(|i| i.spilled)
}

/// What [`insert_spill_code`] did.
pub(crate) struct Inserted {
    pub spilled: Spilled,
    /// Each new register with the instruction (its number in the function
    /// as it was) and the spilled register it stands for, in the order
    /// the registers were made.
    pub made: Vec<(u32, VReg, VReg)>,
    /// Whether every spill instruction names no register but its new one.
    pub plain: bool,
}

/// Whether the register operands of `insts` all name `tmp`.
fn names_only(insts: &[MInst], tmp: VReg) -> bool {
    insts
        .iter()
        .all(|i| i.reg_ops().all(|(_, r)| r.vreg() == Some(tmp)))
}

/// Whether the hook's spill code for each of `spill` names no register
/// but the spilled one, asked before anything is inserted (the spill
/// code is made for the spilled register itself and the first stack
/// slot; a hook that refuses that counts as naming others).
pub(crate) fn hook_is_plain(f: &MFunction, hook: &dyn SpillHook, spill: &[VReg]) -> bool {
    spill.iter().all(|&v| {
        let Some(rc) = f.class_of(v) else {
            return true;
        };
        let slot = FrameIdx(0);
        matches!(hook.load(f, v, rc, slot), Ok(l) if names_only(&l, v))
            && matches!(hook.store(f, v, rc, slot), Ok(s) if names_only(&s, v))
    })
}

/// What one instruction does with one spilled register it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    /// A reload goes before the instruction (it reads the register, or
    /// writes part of it and keeps the rest).
    pub reads: bool,
    /// A store goes after it (it writes the register, not dead).
    pub writes: bool,
    /// Its sub-register defs drop the other lanes (they become `undef`).
    pub drop_others: bool,
    /// It writes the register before reading its uses (early-clobber).
    pub early_def: bool,
    /// It writes the register at its def slot.
    pub late_def: bool,
}

/// How instruction number `n`, `inst`, touches spilled register `v` of
/// class `rc`; an error when a terminator writes it.
pub(crate) fn site<R: RegisterInfo>(
    ri: &R,
    instrs: &InstrSet,
    live: &Liveness<R::Lanes>,
    inst: &MInst,
    n: u32,
    v: VReg,
    rc: RegClass,
) -> Result<Site, SpillError> {
    let t = ri.tables();
    let mut s = Site {
        reads: false,
        writes: false,
        drop_others: false,
        early_def: false,
        late_def: false,
    };
    for (_, r) in inst.reg_ops().filter(|(_, r)| r.vreg() == Some(v)) {
        s.reads |= r.reads();
        s.writes |= r.is_def() && !r.dead();
        s.early_def |= r.is_def() && r.early_clobber();
        s.late_def |= r.is_def() && !r.early_clobber();
        // Sub-register defs whose other lanes hold no value here: the new
        // register's other lanes are undefined.
        if let (true, Some(_), false) = (r.is_def(), r.sub, r.undef()) {
            let kept = class_lanes(t, rc) & !operand_lanes(t, rc, r.sub);
            let held = live
                .interval(v)
                .is_some_and(|iv| iv.live_at(Slots::use_slot(n), kept));
            s.reads |= held;
            s.drop_others |= !held;
        }
    }
    s.drop_others &= !s.reads;
    let is_terminator = instrs.get(inst.opcode).is_some_and(|d| d.is_terminator);
    if s.writes && is_terminator {
        return Err(SpillError::DefinedByTerminator {
            vreg: v,
            opcode: instrs.name(inst.opcode).to_string(),
        });
    }
    Ok(s)
}

/// The spilled registers `inst` names, in operand order, each once.
pub(crate) fn named(inst: &MInst, spilled: impl Fn(VReg) -> bool, out: &mut Vec<VReg>) {
    out.clear();
    for (_, r) in inst.reg_ops() {
        if let Some(v) = r.vreg() {
            if spilled(v) && !out.contains(&v) {
                out.push(v);
            }
        }
    }
}

/// [`spill_everywhere`], also saying which new register stands for what.
pub(crate) fn insert_spill_code<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    hook: &dyn SpillHook,
    live: &Liveness<R::Lanes>,
    spill: &[VReg],
) -> Result<Inserted, SpillError> {
    let mut n = 0u32;
    let mut slot_of: Vec<Option<(FrameIdx, RegClass)>> = vec![None; f.vregs.len()];
    for &v in spill {
        let Some(rc) = f.class_of(v) else { continue };
        let info = ri.spill_info(rc);
        let size = info.spill_size.max(info.reg_size).div_ceil(8).max(1);
        let align = (info.spill_alignment / 8).max(1).next_power_of_two();
        let slot = f.new_frame_object(size, align);
        if let Some(s) = slot_of.get_mut(v.index()) {
            *s = Some((slot, rc));
        }
    }
    let mut out = Spilled::default();
    let mut made = Vec::new();
    let mut plain = true;
    let mut list: Vec<VReg> = Vec::new();
    for bi in f.blocks.ids() {
        let old = std::mem::take(&mut f.blocks[bi].insts);
        let mut insts: Vec<MInst> = Vec::with_capacity(old.len());
        for mut inst in old {
            named(
                &inst,
                |v| slot_of.get(v.index()).copied().flatten().is_some(),
                &mut list,
            );
            if list.is_empty() {
                insts.push(inst);
                n += 1;
                continue;
            }
            let mut after: Vec<MInst> = Vec::new();
            for &v in &list {
                let Some((slot, rc)) = slot_of.get(v.index()).copied().flatten() else {
                    continue;
                };
                let s = site(ri, instrs, live, &inst, n, v, rc)?;
                let tmp = f.new_vreg(rc);
                out.temps.push(tmp);
                made.push((n, v, tmp));
                if s.reads {
                    let l = hook.load(f, tmp, rc, slot)?;
                    plain &= names_only(&l, tmp);
                    out.reloads += l.len();
                    insts.extend(l);
                }
                for o in inst.ops.iter_mut() {
                    if let Some(r) = o.reg_mut() {
                        if r.vreg() == Some(v) {
                            r.reg = RegRef::Virt(tmp);
                            if r.is_def() && r.sub.is_some() && s.drop_others {
                                r.set_undef(true);
                            }
                        }
                    }
                }
                if s.writes {
                    let st = hook.store(f, tmp, rc, slot)?;
                    plain &= names_only(&st, tmp);
                    out.stores += st.len();
                    after.extend(st);
                }
            }
            insts.push(inst);
            insts.extend(after);
            n += 1;
        }
        f.blocks[bi].insts = insts;
    }
    Ok(Inserted {
        spilled: out,
        made,
        plain,
    })
}
