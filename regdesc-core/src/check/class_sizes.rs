//! `class_size_mismatch`: a register class whose registers differ in size.

use super::context::{short, Ctx, DeclaredSizes};
use super::Lint;
use crate::diag::Diagnostic;
use crate::regs::{RegId, UNKNOWN};

pub(super) fn class_sizes(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    // Shape of a register: its number of leaf sub-registers (1 for a leaf)
    // and its size in bits where every sub-register index has a known extent.
    let shape = |r: RegId| -> (usize, Option<u32>) {
        let reg = bank.reg(r);
        if reg.sub_regs.is_empty() {
            return (1, None);
        }
        let leaves = reg
            .sub_regs
            .values()
            .filter(|&&s| bank.reg(s).sub_regs.is_empty())
            .count();
        let mut end = 0u32;
        for &i in reg.sub_regs.keys() {
            let idx = bank.idx(i);
            if idx.offset == UNKNOWN || idx.size == UNKNOWN {
                return (leaves, None);
            }
            end = end.max(idx.offset as u32 + idx.size as u32);
        }
        (leaves, Some(end))
    };
    // A register without sub-registers has no size of its own; the other
    // defined classes holding it give one.
    let sizes = DeclaredSizes::new(bank);
    for &cid in &bank.class_order {
        let c = bank.class(cid);
        if c.def.is_none() || c.members.is_empty() {
            continue;
        }
        let size_of = |r: RegId| -> (usize, Option<u32>) {
            let (l, b) = shape(r);
            if b.is_none() && bank.reg(r).sub_regs.is_empty() {
                return (l, sizes.of(r, Some(cid)));
            }
            (l, b)
        };
        let first = c.members[0];
        let (l0, b0) = size_of(first);
        let leaf0 = bank.reg(first).sub_regs.is_empty();
        // Sizes in bits decide when both are known (x86's EAX and RIP are
        // both 32 bits though built from different leaves); otherwise the
        // number of leaf sub-registers does, when both have sub-registers
        // (ARM's D16-D31 have none, unlike D0-D15: no size to compare).
        let odd = c.members.iter().copied().find(|&r| {
            let (l, b) = size_of(r);
            match (b, b0) {
                (Some(x), Some(y)) => x != y,
                _ => !leaf0 && !bank.reg(r).sub_regs.is_empty() && l != l0,
            }
        });
        let Some(other) = odd else { continue };
        let describe = |r: RegId| {
            let (l, b) = shape(r);
            match b {
                Some(bits) => format!(
                    "{} is {bits} bits ({l} leaf sub-register{})",
                    short(&bank.reg(r).name),
                    if l == 1 { "" } else { "s" }
                ),
                None if l == 1 && bank.reg(r).sub_regs.is_empty() => {
                    format!("{} has no sub-registers", short(&bank.reg(r).name))
                }
                None => format!("{} has {l} leaf sub-registers", short(&bank.reg(r).name)),
            }
        };
        out.push(
            Lint::ClassSizeMismatch
                .diagnostic(
                format!(
                    "register class {} mixes registers of different sizes: {}, {}",
                    c.name,
                    describe(first),
                    describe(other)
                ),
                c.span,
            )
            .with_label(format!("{} registers", c.members.len()))
            .with_related(
                bank.reg(other).span,
                format!("{} is defined here", short(&bank.reg(other).name)),
            )
            .with_help(
                "all registers of a class should have the class's size; split the class by size",
            ),
        );
    }
}
