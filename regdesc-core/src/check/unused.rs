//! `unused_index`: SubRegIndex defs that no register uses.
//!
//! Indices declared by one statement (a `foreach` declaring `subd0..subd15`,
//! say) are reported together, in one diagnostic naming them all. LLVM still
//! gives each unused leaf index a lane; coverage mode gives it none (see
//! `lanes::coverage`).

use std::collections::BTreeMap;

use super::context::Ctx;
use super::Lint;
use crate::diag::Diagnostic;
use crate::regs::IdxId;
use crate::source::Span;

/// The defined indices no register uses, in index order.
pub(super) fn unused_indices(cx: &Ctx) -> Vec<IdxId> {
    let bank = cx.bank;
    let mut used = vec![false; bank.sub_reg_indices.len()];
    for reg in &bank.registers {
        for &i in reg.sub_regs.keys() {
            used[i as usize] = true;
        }
    }
    (0..bank.num_defined_indices as IdxId)
        .filter(|&i| !used[i as usize])
        .collect()
}

pub(super) fn unused(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    // Group by the statement that declared them (same span), in order of
    // their first index.
    let mut groups: BTreeMap<Option<Span>, Vec<IdxId>> = BTreeMap::new();
    let mut order: Vec<Option<Span>> = Vec::new();
    for i in unused_indices(cx) {
        let span = bank.idx(i).span;
        let g = groups.entry(span).or_default();
        if g.is_empty() {
            order.push(span);
        }
        g.push(i);
    }
    for span in order {
        let Some(ids) = groups.get(&span) else {
            continue;
        };
        let names: Vec<&str> = ids.iter().map(|&i| bank.idx(i).name.as_str()).collect();
        let message = match names.as_slice() {
            [one] => format!("SubRegIndex {one} is never used by any register"),
            _ => format!(
                "{} SubRegIndex defs are never used by any register: {}",
                names.len(),
                names.join(", ")
            ),
        };
        let (them, each) = if names.len() == 1 {
            ("it", "it")
        } else {
            ("them", "each")
        };
        out.push(
            Lint::UnusedIndex
                .diagnostic(message, span)
                .with_label(if names.len() == 1 {
                    "declared here".to_string()
                } else {
                    format!("{} indices declared here", names.len())
                })
                .with_help(format!(
                    "remove {them}, or use {them} in a register's SubRegIndices; under --lanes coverage an unused index takes no lane, but LLVM gives {each} a lane of its own"
                )),
        );
    }
}
