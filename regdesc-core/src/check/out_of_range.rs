//! `offset_out_of_range`: an index reaching past the end of a register, by
//! the size its register classes declare.

use std::collections::BTreeSet;

use super::context::{short, Ctx, DeclaredSizes};
use super::Lint;
use crate::diag::Diagnostic;
use crate::regs::{IdxId, UNKNOWN};

pub(super) fn out_of_range(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    let sizes = DeclaredSizes::new(bank);
    let mut seen: BTreeSet<IdxId> = BTreeSet::new();
    for (r, reg) in bank.registers.iter().enumerate() {
        let Some(rs) = sizes.of(r as u32, None) else {
            continue;
        };
        for &i in reg.sub_regs.keys() {
            let idx = bank.idx(i);
            if idx.offset == UNKNOWN || idx.size == UNKNOWN || seen.contains(&i) {
                continue;
            }
            let end = idx.offset as u32 + idx.size as u32;
            if end > rs {
                seen.insert(i);
                out.push(
                    Lint::OffsetOutOfRange
                        .diagnostic(
                        format!(
                            "SubRegIndex {} ({}) reaches past the end of {}-bit register {}",
                            idx.name,
                            cx.interval(i),
                            rs,
                            short(&reg.name)
                        ),
                        cx.idx_span(i),
                    )
                    .with_related(
                        reg.span,
                        format!("{} is {rs} bits in its register class", short(&reg.name)),
                    )
                    .with_help(
                        "check the index's Size and Offset, or the class's size (RegInfos / Size)",
                    ),
                );
            }
        }
    }
}
