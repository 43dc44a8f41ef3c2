//! `lane_budget`: the register file needs more lanes than the lane mask has
//! bits (LLVM's `LaneBitmask` is 64 bits; llvm-tblgen stops with "Ran out
//! of lanemask bits").
//!
//! The help names the causes with the lanes each costs, cheapest first:
//! declared indices no register uses (LLVM still gives each a lane), in
//! llvm mode the synthesized `A_then_B` composite indices that cover the
//! same bits as another index (the lanes coverage mode saves), and the
//! widest class (the lanes it needs by itself). Each cause comes with its
//! fix.

use std::fmt::Write;

use super::context::{list, Ctx};
use super::unused::unused_indices;
use super::{CheckOptions, Lint};
use crate::diag::Diagnostic;
use crate::lanes::{LaneMode, Lanes};
use crate::regs::{ClassId, IdxId, IndexOrigin};

/// One reason the file needs many lanes.
struct Cause {
    lanes: u32,
    /// Order among causes of equal cost.
    rank: u8,
    text: String,
}

/// Reports the lane budget; returns whether it was exceeded.
pub(super) fn lane_budget(
    cx: &Ctx,
    opts: &CheckOptions,
    llvm: &Lanes,
    cov: &Lanes,
    widest: Option<(ClassId, u32)>,
    out: &mut Vec<Diagnostic>,
) -> bool {
    let chosen = match opts.mode {
        LaneMode::Llvm => llvm,
        LaneMode::Coverage => cov,
    };
    if chosen.num_lanes <= opts.lane_bits {
        return false;
    }
    let bank = cx.bank;
    let mode = opts.mode.name();
    // The label goes on the costliest cause that has a place in the source:
    // the widest class when it alone is over the budget, else the unused
    // indices (llvm mode), else the widest class.
    let mut span = None;
    let mut label = String::new();
    if let Some((c, n)) = widest {
        let rc = bank.class(c);
        span = rc.span;
        label = format!(
            "class {} alone needs {n} lane{}",
            rc.name,
            if n == 1 { "" } else { "s" }
        );
    }
    let mut causes: Vec<Cause> = Vec::new();

    // Declared indices that no register uses: a lane each in llvm mode
    // (leaves only: other indices take the union of their parts).
    let unused: Vec<IdxId> = unused_indices(cx)
        .into_iter()
        .filter(|&i| bank.idx(i).is_leaf())
        .collect();
    if opts.mode == LaneMode::Llvm && !unused.is_empty() {
        let names: Vec<String> = unused.iter().map(|&i| bank.idx(i).name.clone()).collect();
        let class_over = widest.is_some_and(|(_, n)| n > opts.lane_bits);
        if let (false, Some(first)) = (class_over, unused.first().and_then(|&i| bank.idx(i).span)) {
            span = Some(first);
            label = format!(
                "{} declared indices that no register uses take a lane each",
                names.len()
            );
        }
        causes.push(Cause {
            lanes: unused.len() as u32,
            rank: 0,
            text: format!(
                "{} SubRegIndex defs that no register uses ({}): LLVM gives each a lane. Fix: remove them, or declare only the indices the registers use (under `--lanes coverage` they take no lane).",
                names.len(),
                list(&names, 8)
            ),
        });
    }

    // In llvm mode, synthesized composites that cover the same bits as
    // another index still take a lane of their own: the lanes coverage mode
    // saves. (In coverage mode every remaining lane stands for bits of its
    // own.)
    let synth: Vec<IdxId> = match opts.mode {
        LaneMode::Llvm => cov
            .coverage
            .lane_leaves
            .iter()
            .filter(|leaves| leaves.len() > 1)
            .flat_map(|leaves| {
                // All but one leaf of each group, composites first.
                let mut v = leaves.clone();
                v.sort_by_key(|&l| bank.idx(l).def.is_some());
                v.truncate(leaves.len() - 1);
                v
            })
            .collect(),
        LaneMode::Coverage => Vec::new(),
    };
    if !synth.is_empty() {
        let names: Vec<String> = synth.iter().map(|&i| bank.idx(i).name.clone()).collect();
        let mut text = format!(
            "{} synthesized composite indices that cover the same bits as another index ({}): LLVM names a sub-register reached through two indices `A_then_B` and gives it a lane of its own. Fix:",
            names.len(),
            list(&names, 6)
        );
        let _ = write!(
            text,
            " assign lanes by coverage (`--lanes coverage`: {} lanes), where they share the lane of the index covering the same bits;",
            cov.num_lanes
        );
        // A lane shared by a defined index and a composite: naming the
        // composite with the defined index (ComposedOf) saves the lane.
        let example = cov.coverage.lane_leaves.iter().find_map(|leaves| {
            let defined = leaves.iter().find(|&&l| bank.idx(l).def.is_some())?;
            let comp = leaves.iter().find_map(|&l| match bank.idx(l).origin {
                IndexOrigin::Composite { first, second, .. } => Some((first, second)),
                _ => None,
            })?;
            Some((*defined, comp))
        });
        if let Some((d, (first, second))) = example {
            let di = bank.idx(d);
            let _ = write!(
                text,
                " or let a defined index name the composite: `def {} : SubRegIndex<{}, {}> {{ let ComposedOf = [{}, {}]; }}` (one ComposedOf per index: add indices for the other positions).",
                di.name,
                di.size,
                di.offset,
                bank.idx(first).name,
                bank.idx(second).name
            );
        } else {
            text.push_str(
                " declare indices for those positions and name the composites with `ComposedOf`.",
            );
        }
        causes.push(Cause {
            lanes: synth.len() as u32,
            rank: 1,
            text,
        });
    }

    if let Some((c, n)) = widest {
        let need = chosen.num_lanes.next_power_of_two().max(64);
        let name = &bank.class(c).name;
        let text = if n > opts.lane_bits {
            format!(
                "class {name} alone. Fix: use a coarser base register (e.g. dword instead of word elements) or narrower tuples, or widen LaneBitmask to {need} bits (LLVM's is 64; regdesc computes any width)."
            )
        } else {
            format!(
                "class {name} alone, the most any class needs: within the budget by itself, so the other fixes suffice."
            )
        };
        causes.push(Cause {
            lanes: n,
            rank: 2,
            text,
        });
    }
    causes.sort_by_key(|c| (c.lanes, c.rank));

    let mut help = format!(
        "the {} lanes ({mode} mode) come from, in order of the lanes they cost:",
        chosen.num_lanes
    );
    for c in &causes {
        let _ = write!(
            help,
            "\n  - {} lane{}: {}",
            c.lanes,
            if c.lanes == 1 { "" } else { "s" },
            c.text
        );
    }
    if llvm.num_lanes == 65 && opts.lane_bits == 64 {
        help.push_str(
            "\nnote: llvm-tblgen 14 does not reject exactly 65 lanes: it silently gives the 65th leaf index lane 0 again (an off-by-one), so two unrelated sub-registers would share liveness",
        );
    }
    out.push(
        Lint::LaneBudget
            .diagnostic(
                format!(
                    "lane budget exceeded: the register file needs {} lanes ({mode} mode), {} more than the {}-bit lane mask",
                    chosen.num_lanes,
                    chosen.num_lanes - opts.lane_bits,
                    opts.lane_bits
                ),
                span,
            )
            .with_label(label)
            .with_help(help),
    );
    true
}
