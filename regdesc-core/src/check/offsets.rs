//! `offset_conflict`: SubRegIndex offsets or sizes that contradict the
//! registers. Coverage mode checks declared offsets against register units
//! before trusting them (see `lanes::coverage`); every conflict it found is
//! reported here, and the indices involved keep separate lanes.

use super::context::{list, short, Ctx};
use super::Lint;
use crate::diag::Diagnostic;
use crate::lanes::{ConflictKind, Lanes};

pub(super) fn offset_conflicts(cx: &Ctx, cov: &Lanes, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    for c in &cov.coverage.conflicts {
        let names: Vec<String> = c
            .indices
            .iter()
            .map(|&i| format!("{} ({})", bank.idx(i).name, cx.interval(i)))
            .collect();
        let span = c
            .indices
            .iter()
            .find_map(|&i| bank.idx(i).span)
            .or_else(|| c.indices.first().and_then(|&i| cx.idx_span(i)));
        let (msg, help) = match c.kind {
            ConflictKind::SameBits => (
                format!(
                    "SubRegIndex offsets contradict register {}: {} claim the same bits but name different sub-registers",
                    c.register.map_or(String::new(), |r| short(&bank.reg(r).name)),
                    list(&names, 4)
                ),
                "one of them is probably declared at offset 0 although it is a high part: give each index its real offset, e.g. `SubRegIndex<32, 32>`; until then they keep separate lanes",
            ),
            ConflictKind::UnitsDisagree => (
                format!(
                    "SubRegIndex offsets/sizes contradict register {}: {} overlap in bits but not in register units (or the reverse)",
                    c.register.map_or(String::new(), |r| short(&bank.reg(r).name)),
                    list(&names, 4)
                ),
                "overlapping siblings: fix the Size/Offset of these indices; until then they keep separate lanes. If the sub-registers overlap through ad hoc `Aliases` instead, no lane mask can express that (in LLVM either): liveness of one will not see the other",
            ),
            ConflictKind::Composition => (
                format!(
                    "SubRegIndex offsets do not compose through {}: {}",
                    c.via.map_or(String::new(), |v| bank.idx(v).name.clone()),
                    list(&names, 4)
                ),
                "an index composed with another must sit at the sum of their offsets; fix the offsets; until then these keep separate lanes",
            ),
        };
        let mut d = Lint::OffsetConflict.diagnostic(msg, span).with_help(help);
        if let Some(r) = c.register {
            d = d.with_related(
                bank.reg(r).span,
                format!("in register {}", short(&bank.reg(r).name)),
            );
        }
        out.push(d);
    }
}
