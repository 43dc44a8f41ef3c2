//! `s_waitcnt` insertion, after allocation (LLVM's `SIInsertWaitcnts`,
//! in its simplest form).
//!
//! The hardware fact served: memory loads return out of order with the
//! instruction stream. `s_load_*` (scalar memory) count in `lgkmcnt`,
//! `global_load_*` in `vmcnt`; a register a load writes must not be read
//! or written again until `s_waitcnt` has brought the counter to zero.
//! Waits go in front of the first instruction that touches such a
//! register, and at the end of a block with loads still in flight (each
//! block starts with nothing outstanding). Register overlap comes from
//! the tables (`s[4:5]` overlaps `s5`).

use regdesc_codegen::mir::{MFunction, MInst, Operand, RegRef};
use regdesc_runtime::{Reg, RegisterInfo};

use crate::isa::{Isa, Kind};
use crate::Gfx;

/// Which counter an instruction's loads count in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Counter {
    Lgkm,
    Vm,
}

fn counter(isa: &Isa, i: &MInst) -> Option<Counter> {
    match isa.def(i.opcode)?.kind {
        Kind::KernargLoad | Kind::KernargLoadWide(_) | Kind::ScalarLoad(_) => Some(Counter::Lgkm),
        Kind::GlobalLoad(_)
        | Kind::GlobalLoadWide(_)
        | Kind::GlobalLoadSaddr(_)
        | Kind::GlobalLoadSaddrNarrow(_) => Some(Counter::Vm),
        _ => None,
    }
}

fn wait(isa: &Isa, c: Counter) -> MInst {
    let name = match c {
        Counter::Lgkm => "S_WAITCNT_LGKM",
        Counter::Vm => "S_WAITCNT_VM",
    };
    MInst::new(isa.op(name), Vec::new())
}

/// Inserts the waits `f` (allocated) needs.
pub fn insert_waits(f: &mut MFunction, isa: &Isa, ri: &Gfx) {
    let t = ri.tables();
    let waits = [isa.op("S_WAITCNT_LGKM"), isa.op("S_WAITCNT_VM")];
    for b in f.blocks.iter_mut() {
        let old = std::mem::take(&mut b.insts);
        let n = old.len();
        let mut pending: Vec<(Reg, Counter)> = Vec::new();
        for (k, i) in old.into_iter().enumerate() {
            if waits.contains(&i.opcode) {
                continue;
            }
            let regs: Vec<Reg> = i
                .ops
                .iter()
                .filter_map(|o| match o {
                    Operand::Reg(r) => match r.reg {
                        RegRef::Phys(p) => Some(p),
                        RegRef::Virt(_) => None,
                    },
                    _ => None,
                })
                .collect();
            let is_last = k + 1 == n;
            for c in [Counter::Lgkm, Counter::Vm] {
                let hit = pending.iter().any(|&(p, pc)| {
                    pc == c && (is_last || regs.iter().any(|&r| t.regs_overlap(p, r)))
                });
                if hit {
                    b.insts.push(wait(isa, c));
                    pending.retain(|&(_, pc)| pc != c);
                }
            }
            if let Some(c) = counter(isa, &i) {
                if let Some(Operand::Reg(r)) = i.ops.first() {
                    if let RegRef::Phys(p) = r.reg {
                        pending.push((p, c));
                    }
                }
            }
            b.insts.push(i);
        }
        // A block that ends without a terminator (never, after selection)
        // still leaves nothing outstanding.
        for c in [Counter::Lgkm, Counter::Vm] {
            if pending.iter().any(|&(_, pc)| pc == c) {
                b.insts.push(wait(isa, c));
            }
        }
    }
}
