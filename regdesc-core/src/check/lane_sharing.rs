//! `lane_sharing`: a note when coverage mode needs fewer lanes than LLVM's
//! assignment, naming the indices that share lanes and the unused ones that
//! take none.

use super::context::{list, Ctx};
use super::unused::unused_indices;
use super::{CheckOptions, Lint};
use crate::diag::Diagnostic;
use crate::lanes::Lanes;
use crate::regs::IdxId;

/// A note when coverage needs fewer lanes than LLVM's assignment.
pub(super) fn lane_sharing(
    cx: &Ctx,
    opts: &CheckOptions,
    llvm: &Lanes,
    cov: &Lanes,
    out: &mut Vec<Diagnostic>,
) {
    if cov.num_lanes >= llvm.num_lanes {
        return;
    }
    let bank = cx.bank;
    let groups: Vec<&Vec<IdxId>> = cov
        .coverage
        .lane_leaves
        .iter()
        .filter(|g| g.len() > 1)
        .collect();
    let examples: Vec<String> = groups
        .iter()
        .map(|g| {
            let names: Vec<String> = g.iter().map(|&l| bank.idx(l).name.clone()).collect();
            format!("{} ({})", names.join(" = "), cx.interval(g[0]))
        })
        .collect();
    let unused: Vec<IdxId> = unused_indices(cx)
        .into_iter()
        .filter(|&i| bank.idx(i).is_leaf())
        .collect();
    let span = groups
        .first()
        .and_then(|g| g.iter().find_map(|&l| bank.idx(l).span))
        .or_else(|| unused.first().and_then(|&i| bank.idx(i).span));
    let headroom = |n: u32| {
        if n <= opts.lane_bits {
            format!("{} spare", opts.lane_bits - n)
        } else {
            format!("{} over", n - opts.lane_bits)
        }
    };
    let mut why = Vec::new();
    let shared: usize = groups.iter().map(|g| g.len() - 1).sum();
    if shared > 0 {
        why.push(format!(
            "{shared} synthesized composite ind{} the same bits as another index and share{} its lane: {}",
            if shared == 1 { "ex covers" } else { "ices cover" },
            if shared == 1 { "s" } else { "" },
            list(&examples, 4)
        ));
    }
    if !unused.is_empty() {
        let names: Vec<String> = unused.iter().map(|&i| bank.idx(i).name.clone()).collect();
        why.push(format!(
            "{} ind{} that no register uses take{} no lane: {}",
            names.len(),
            if names.len() == 1 { "ex" } else { "ices" },
            if names.len() == 1 { "s" } else { "" },
            list(&names, 8)
        ));
    }
    out.push(
        Lint::LaneSharing
            .diagnostic(
                format!(
                    "LLVM's assignment needs {} lanes ({} of {} bits); by coverage {} ({})",
                    llvm.num_lanes,
                    headroom(llvm.num_lanes),
                    opts.lane_bits,
                    cov.num_lanes,
                    headroom(cov.num_lanes)
                ),
                span,
            )
            .with_help(format!("under --lanes coverage, {}", why.join("; "))),
    );
}
