//! Removing instructions whose results nothing reads.
//!
//! Selection and the targets' rewrites leave behind values no one reads:
//! constants a rewrite rule folded away, address arithmetic whose offset
//! went into a memory instruction. An instruction is removed when the
//! target says its meaning has no other effect (`pure`), it has no
//! implicit defs (flags, carries), and every register it defines is a
//! virtual register no instruction reads; repeated until nothing changes,
//! since removing one can leave its operands unread.

use super::{InstrDesc, InstrSet, MFunction, MInst};

/// Removes, to a fixed point, the instructions of `f` that `pure` accepts
/// and whose defined virtual registers are all unread (see the module
/// docs). Instructions without a description in `s` are kept.
pub fn remove_unread(f: &mut MFunction, s: &InstrSet, pure: impl Fn(&MInst, &InstrDesc) -> bool) {
    loop {
        let mut read = vec![false; f.vregs.len()];
        for b in f.blocks.iter() {
            for i in &b.insts {
                for (_, r) in i.reg_ops() {
                    if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                        if let Some(x) = read.get_mut(v.index()) {
                            *x = true;
                        }
                    }
                }
            }
        }
        let mut changed = false;
        for b in f.blocks.iter_mut() {
            let before = b.insts.len();
            b.insts.retain(|i| {
                let Some(d) = s.get(i.opcode) else {
                    return true;
                };
                let mut defs = i.reg_ops().filter(|(_, r)| r.is_def()).peekable();
                if defs.peek().is_none() || !d.implicit_defs.is_empty() || !pure(i, d) {
                    return true;
                }
                // Kept when a def is physical or read.
                defs.any(|(_, r)| {
                    r.vreg()
                        .is_none_or(|v| read.get(v.index()).copied().unwrap_or(true))
                })
            });
            changed |= b.insts.len() != before;
        }
        if !changed {
            return;
        }
    }
}
