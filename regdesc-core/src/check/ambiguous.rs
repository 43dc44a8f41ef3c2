//! `ambiguous_composition`: LLVM's "compose ambiguously" warning, located,
//! with what to change.

use super::context::{short, Ctx};
use super::Lint;
use crate::diag::Diagnostic;

pub(super) fn ambiguous(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    for a in &bank.ambiguous {
        let span = [a.first, a.second, a.previous, a.new]
            .iter()
            .find_map(|&i| bank.idx(i).span)
            .or(bank.reg(a.register).span);
        out.push(
            Lint::AmbiguousComposition
                .diagnostic(
                format!(
                    "SubRegIndex {} and {} compose ambiguously as {} or {}",
                    bank.idx(a.first).name,
                    bank.idx(a.second).name,
                    bank.idx(a.previous).name,
                    bank.idx(a.new).name
                ),
                span,
            )
            .with_related(
                bank.reg(a.register).span,
                format!("in register {}", short(&bank.reg(a.register).name)),
            )
            .with_help(format!(
                "{}:{} names the same sub-register as {}; LLVM keeps {} — make the ComposedSubRegIndex agree with the registers or drop it",
                bank.idx(a.first).name,
                bank.idx(a.second).name,
                bank.idx(a.new).name,
                bank.idx(a.previous).name
            )),
        );
    }
}
