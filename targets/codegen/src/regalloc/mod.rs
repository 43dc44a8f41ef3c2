//! The register allocator, driven entirely by the generated tables.
//!
//! # The algorithm, and why
//!
//! It follows **Chow and Hennessy's priority-based colouring** ("The
//! priority-based coloring approach to register allocation", ACM TOPLAS
//! 12(4), 1990): live ranges get registers one at a time, most valuable
//! first (priority = spill cost saved per unit of length, LLVM's spill
//! weight), instead of Chaitin–Briggs simplify/select over an interference
//! graph; a range that finds no free register is spilled everywhere, and
//! the next round places the short ranges the spill code makes (which are
//! never spilled) into the previous round's assignment, evicting the
//! cheapest ranges in their way, which are assigned again or spilled by
//! the round after ([`evict`](mod@evict)); Chaitin's spill-and-iterate,
//! without assigning the whole function again each time. Interference is not a graph but, as in LLVM's `RABasic` and
//! `RAGreedy` (J. Olesen, "Greedy register allocation in LLVM 3.0", 2011),
//! a per-register-unit union of live segments ([`matrix`]); copies left
//! after coalescing bias the choice towards their partner's register
//! (hints).
//!
//! Why this and not graph colouring: GPU register files are tuples over
//! shared units. In an interference graph a 64-bit pair "blocks" a varying
//! number of 32-bit registers depending on its alignment, which is what
//! Smith, Ramsey and Holloway's generalisation of Briggs ("A generalized
//! algorithm for graph-coloring register allocation", PLDI 2004) has to
//! compute per pair of classes; with per-unit segment unions the question
//! "is this register free for this value?" is answered exactly, for any
//! overlap the tables describe, by checking the register's units — and a
//! unit whose lanes of the value are dead is simply not checked, which is
//! how sub-register liveness frees the dead half of a tuple. The priority
//! order keeps the implementation small enough to test thoroughly. What it
//! does not do (LLVM's greedy allocator does): split live ranges, evict
//! for anything but spill code, rematerialise constants. A spilled value is reloaded
//! before every use.
//!
//! # Pipeline
//!
//! Input: a function without PHIs whose tied operands are lowered
//! ([`crate::mir::phi_elim`], [`crate::mir::two_addr`]).
//!
//! 1. [`coalesce`]: join copy-related registers that do not interfere,
//!    including sub-register copies into and out of tuples (narrowing the
//!    tuple's class as the tables say). When the narrowed classes leave an
//!    instruction unallocatable, allocation starts again without
//!    coalescing. Coalescing hands on the function's liveness after it,
//!    computing again only the intervals of the registers it changed
//!    (`Liveness::after_removals`; the others are renumbered).
//! 2. Rounds: on lane liveness ([`crate::mir::liveness`]), once,
//!    assign in priority order ([`assign`](mod@assign)), and when some ranges found no
//!    register, spill them everywhere and start the next round. The new
//!    short ranges around each spilled use are never spilled; the next
//!    round gives them registers in the last round's assignment, evicting
//!    ([`evict`](mod@evict)), and assigns everything again only where
//!    eviction cannot make room; if one of them finds no register even
//!    then, the function cannot be allocated (an instruction needs more
//!    registers than exist). The rounds do not
//!    insert spill code or recompute liveness: the new ranges are planned
//!    in the function's numbering as it was, which gives the same
//!    interference as the function with the spill code in it (`rounds`);
//!    the spill code is inserted once, through the target's
//!    [`spill::SpillHook`], when a round assigns everything. (Spill code
//!    that names other registers than the spilled value's sends the
//!    allocator back to rounds that insert it and recompute liveness each
//!    time.)
//! 3. [`rewrite`]: replace each virtual register by its register (and
//!    `%v.sub` by the register's `sub` sub-register), drop identity copies.
//!
//! No target fact is written here: classes, allocation orders, units,
//! unit lane masks, sub-register indices and spill sizes all come through
//! [`regdesc_runtime::RegisterInfo`].

pub mod assign;
pub mod coalesce;
mod evict;
pub mod matrix;
mod rounds;
pub mod spill;
mod temps;

use std::fmt;
use std::time::{Duration, Instant};

use regdesc_runtime::{Reg, RegisterInfo};

use crate::mir::cfg::MCfg;
use crate::mir::liveness::Liveness;
use crate::mir::{InstrSet, MFunction, Operand, RegRef, Sem, VReg};
use rounds::Before;
pub use spill::{GenericSpill, SpillError, SpillHook};

/// Choices the target makes.
#[derive(Clone, Debug)]
pub struct AllocOptions {
    /// Registers never to allocate (stack pointers, registers the ABI
    /// reserves; LLVM's `getReservedRegs`).
    pub reserved: Vec<Reg>,
    /// Join copies before assignment.
    pub coalesce: bool,
    /// Give up after this many spill rounds.
    pub max_rounds: usize,
}

impl Default for AllocOptions {
    fn default() -> Self {
        AllocOptions {
            reserved: Vec::new(),
            coalesce: true,
            max_rounds: 64,
        }
    }
}

/// Why a function could not be allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// PHIs or unlowered tied operands remain.
    NotLowered(&'static str),
    /// A register's class has no register to allocate.
    NoAllocatableRegister { vreg: VReg, class: String },
    /// A range that cannot be spilled found no register.
    OutOfRegisters { vreg: VReg, class: String },
    /// The spill hook failed.
    Spill(SpillError),
    /// Spilling did not converge.
    TooManyRounds(usize),
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::NotLowered(what) => write!(f, "cannot allocate: {what}"),
            AllocError::NoAllocatableRegister { vreg, class } => {
                write!(f, "%{} has class {class}, which has no allocatable register", vreg.0)
            }
            AllocError::OutOfRegisters { vreg, class } => write!(
                f,
                "ran out of registers: %{} ({class}) is needed where every {class} register is taken by values that cannot be spilled",
                vreg.0
            ),
            AllocError::Spill(m) => write!(f, "spilling failed: {m}"),
            AllocError::TooManyRounds(n) => write!(f, "spilling did not converge in {n} rounds"),
        }
    }
}

impl std::error::Error for AllocError {}

/// What allocation did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// Copies removed by coalescing.
    pub coalesced: usize,
    /// Assignment rounds (1 when nothing was spilled).
    pub rounds: usize,
    /// Of those, rounds that placed the new spill temporaries into the
    /// previous round's assignment ([`evict`]) instead of assigning
    /// everything again.
    pub incremental_rounds: usize,
    /// Ranges that lost their register to a spill temporary in those
    /// rounds (each is assigned again or spilled).
    pub evicted: usize,
    /// Registers spilled.
    pub spilled: usize,
    /// Spill instructions inserted.
    pub reloads: usize,
    pub stores: usize,
    /// Copies that became identities after assignment.
    pub copies_removed: usize,
    /// Where the time went.
    pub time: PhaseTimes,
}

/// Time spent in each phase of [`allocate`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    /// Liveness for the coalescer, and coalescing.
    pub coalescing: Duration,
    /// Liveness of each round.
    pub liveness: Duration,
    /// Assignment of each round.
    pub assignment: Duration,
    /// Spill code.
    pub spilling: Duration,
    /// Rewriting to physical registers.
    pub rewriting: Duration,
}

/// The result of assignment, before rewriting.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// The register of each virtual register of the function (as it is
    /// after coalescing and spilling).
    pub assignment: Vec<Option<Reg>>,
    pub stats: AllocStats,
}

/// Allocates `f`: coalescing, assignment with spilling, rewriting. On
/// success `f` has only physical registers.
pub fn allocate<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    hook: &dyn SpillHook,
    opts: &AllocOptions,
) -> Result<AllocStats, AllocError> {
    let a = assign(f, ri, instrs, hook, opts)?;
    let start = Instant::now();
    let removed = rewrite(f, ri, instrs, &a.assignment);
    let mut stats = a.stats;
    stats.copies_removed = removed;
    stats.time.rewriting = start.elapsed();
    Ok(stats)
}

/// Coalesces, and assigns a register to every virtual register of `f`,
/// spilling as needed (`f` changes: copies go, spill code comes). The
/// assignment is for `f` as it is on return.
pub fn assign<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    hook: &dyn SpillHook,
    opts: &AllocOptions,
) -> Result<Allocation, AllocError> {
    if !f.props.no_phis {
        return Err(AllocError::NotLowered("PHIs remain (run PHI elimination)"));
    }
    if !f.props.tied_lowered {
        return Err(AllocError::NotLowered(
            "tied operands are not lowered (run two-address lowering)",
        ));
    }
    let t = ri.tables();
    for (v, c) in f.vregs.iter().enumerate() {
        if let Some(c) = *c {
            if !t.is_allocatable(c) || ri.allocation_order(c).is_empty() {
                let used = f.blocks.iter().any(|b| {
                    b.insts
                        .iter()
                        .any(|i| i.reg_ops().any(|(_, r)| r.vreg() == Some(VReg(v as u32))))
                });
                if used {
                    return Err(AllocError::NoAllocatableRegister {
                        vreg: VReg(v as u32),
                        class: t.class_name(c).to_string(),
                    });
                }
            }
        }
    }
    // Coalescing and spill code change no block or edge: one CFG serves
    // every round.
    let cfg = MCfg::new(f);
    let without_coalescing = |f: &mut MFunction| {
        rounds::assign_rounds(
            f,
            ri,
            instrs,
            &cfg,
            None,
            hook,
            opts,
            AllocStats::default(),
            &mut Before::Nothing,
        )
    };
    if !opts.coalesce {
        return without_coalescing(f);
    }
    // Coalescing narrows classes; where that leaves an instruction more
    // operands of a class than it has disjoint registers, start again
    // without it.
    let start = Instant::now();
    let live = Liveness::compute(f, ri, &cfg);
    let (coalesced, undo, live) = coalesce::coalesce_owned(f, ri, instrs, &cfg, live);
    let mut stats = AllocStats {
        coalesced,
        ..AllocStats::default()
    };
    stats.time.coalescing = start.elapsed();
    let mut before = Before::Undo(undo);
    let rounds = rounds::assign_rounds(
        f,
        ri,
        instrs,
        &cfg,
        Some(live),
        hook,
        opts,
        stats,
        &mut before,
    );
    match rounds {
        Err(AllocError::OutOfRegisters { .. }) if before.restore(f) => without_coalescing(f),
        other => other,
    }
}

/// Replaces virtual registers by their assigned registers and removes the
/// copies that became identities. Returns how many copies went.
pub fn rewrite<R: RegisterInfo>(
    f: &mut MFunction,
    ri: &R,
    instrs: &InstrSet,
    assignment: &[Option<Reg>],
) -> usize {
    let t = ri.tables();
    let mut removed = 0;
    // Whether a virtual register is left (found on the way, not by reading
    // the function once more).
    let mut virtual_left = false;
    for b in f.blocks.iter_mut() {
        for i in b.insts.iter_mut() {
            for o in i.ops.iter_mut() {
                let Operand::Reg(r) = o else { continue };
                let RegRef::Virt(v) = r.reg else { continue };
                let Some(p) = assignment.get(v.index()).copied().flatten() else {
                    virtual_left = true;
                    continue;
                };
                let p = match r.sub {
                    Some(s) => match t.sub_reg(p, s) {
                        Some(x) => x,
                        None => {
                            virtual_left = true;
                            continue;
                        }
                    },
                    None => p,
                };
                r.reg = RegRef::Phys(p);
                r.sub = None;
            }
        }
        b.insts.retain(|i| {
            let identity = instrs.get(i.opcode).is_some_and(|d| d.sem == Sem::Copy)
                && matches!((i.ops.first().and_then(Operand::reg), i.ops.get(1).and_then(Operand::reg)),
                    (Some(a), Some(b)) if a.reg == b.reg && matches!(a.reg, RegRef::Phys(_)));
            removed += usize::from(identity);
            !identity
        });
    }
    // A virtual register left behind stays in an instruction that is not an
    // identity copy (those have physical registers on both sides).
    f.props.no_vregs = !virtual_left;
    removed
}
