//! Lane masks of both modes side by side: which `coverage` lane each `llvm`
//! lane becomes, and which index names share a lane under coverage.
//!
//! Both models describe the same bank under the same ids; only the masks
//! differ. LLVM gives each leaf index (one that composes with nothing) a
//! lane of its own; coverage mode gives leaves naming the same bits one
//! lane, so a coverage lane stands for one or more llvm lanes, and a leaf no
//! register uses has no coverage lane at all.

use std::collections::BTreeMap;

use crate::lanes::{LaneMask, LaneMode};
use crate::target::{SubRegIdx, Target};

/// The two lane assignments of one description.
pub struct LaneViews<'a> {
    /// The model with llvm masks.
    pub llvm: &'a Target,
    /// The model with coverage masks.
    pub coverage: &'a Target,
    /// For each llvm lane, the coverage lane it became (`None`: its index
    /// is unused and has no coverage lane).
    pub llvm_to_coverage: Vec<Option<u32>>,
    /// For each coverage lane, the llvm lanes it stands for.
    pub coverage_to_llvm: Vec<Vec<u32>>,
    /// For each index, the other indices with the same coverage mask but a
    /// different llvm mask: names coverage lets share lanes.
    pub shared_names: Vec<Vec<SubRegIdx>>,
}

impl<'a> LaneViews<'a> {
    /// Relates the masks of `a` and `b` (one model per mode, in any order).
    pub fn new(a: &'a Target, b: &'a Target) -> LaneViews<'a> {
        let (llvm, coverage) = match a.lane_mode {
            LaneMode::Llvm => (a, b),
            LaneMode::Coverage => (b, a),
        };
        let mut llvm_to_coverage = vec![None; llvm.num_lanes as usize];
        let mut coverage_to_llvm = vec![Vec::new(); coverage.num_lanes as usize];
        for (i, x) in llvm.sub_reg_indices.iter().enumerate() {
            if !x.composed.is_empty() || x.lane_mask.count() != 1 {
                continue;
            }
            let Some(l) = x.lane_mask.lowest() else {
                continue;
            };
            let c = coverage.sub_reg_indices[i].lane_mask.lowest();
            if let Some(slot) = llvm_to_coverage.get_mut(l as usize) {
                *slot = c;
            }
            if let Some(lanes) = c.and_then(|c| coverage_to_llvm.get_mut(c as usize)) {
                if !lanes.contains(&l) {
                    lanes.push(l);
                }
            }
        }
        for lanes in &mut coverage_to_llvm {
            lanes.sort_unstable();
        }
        // Indices by coverage mask.
        let mut by_mask: BTreeMap<&LaneMask, Vec<usize>> = BTreeMap::new();
        for (i, x) in coverage.sub_reg_indices.iter().enumerate() {
            if x.lane_mask.any() {
                by_mask.entry(&x.lane_mask).or_default().push(i);
            }
        }
        let mut shared_names = vec![Vec::new(); coverage.sub_reg_indices.len()];
        for same in by_mask.values().filter(|v| v.len() > 1) {
            for &i in same {
                let mine = &llvm.sub_reg_indices[i].lane_mask;
                shared_names[i] = same
                    .iter()
                    .filter(|&&j| j != i && llvm.sub_reg_indices[j].lane_mask != *mine)
                    .map(|&j| SubRegIdx(j as u32))
                    .collect();
            }
        }
        LaneViews {
            llvm,
            coverage,
            llvm_to_coverage,
            coverage_to_llvm,
            shared_names,
        }
    }

    /// The llvm lanes in the order the lane matrix draws them: grouped by
    /// the coverage lane they became, unused ones last.
    pub fn column_order(&self) -> Vec<u32> {
        let mut cols: Vec<u32> = self.coverage_to_llvm.iter().flatten().copied().collect();
        cols.extend(
            (0..self.llvm.num_lanes).filter(|&l| self.llvm_to_coverage[l as usize].is_none()),
        );
        cols
    }

    /// Coverage lanes standing for more than one llvm lane.
    pub fn shared_lanes(&self) -> usize {
        self.coverage_to_llvm.iter().filter(|v| v.len() > 1).count()
    }
}

/// A mask as `0x…` hex, as wide as `lanes` needs (at least 32 bits).
pub fn hex(mask: &LaneMask, lanes: u32) -> String {
    let digits = (lanes.max(32) as usize).div_ceil(4);
    let full = mask.to_hex(digits.div_ceil(16));
    let significant = full.trim_start_matches('0').len();
    format!("0x{}", &full[full.len() - digits.max(significant)..])
}

/// Lanes of a mask as text: `0-3, 8, 10-11`.
pub fn lane_list(mask: &LaneMask) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(u32, u32)> = None;
    for l in mask.lanes() {
        run = match run {
            Some((a, b)) if b + 1 == l => Some((a, l)),
            Some((a, b)) => {
                out.push(range(a, b));
                Some((l, l))
            }
            None => Some((l, l)),
        };
    }
    if let Some((a, b)) = run {
        out.push(range(a, b));
    }
    if out.is_empty() {
        "none".to_string()
    } else {
        out.join(", ")
    }
}

fn range(a: u32, b: u32) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}–{b}")
    }
}
