//! Stage 4: lane masks, in two modes.
//!
//! * [`LaneMode::Llvm`] reproduces llvm-tblgen 14 bit for bit: every leaf
//!   sub-register index (one that composes with nothing) gets the next lane in
//!   index order; every other index gets the union of the indices it composes
//!   to; a register class gets the union of the masks of the (non-artificial)
//!   indices some member supports, or lane 0 if none. Where LLVM stops at 64
//!   lanes ("Ran out of lanemask bits"), this keeps going with wider masks.
//!   (llvm-tblgen 14 checks `Bit > 64`, one too late: with exactly 65 leaf
//!   indices it does not fail but gives the 65th lane 0 again, since
//!   `1 << 64` wraps on x86. regdesc gives it lane 64; `check` warns.)
//!
//! * [`LaneMode::Coverage`]: see [`coverage`] for the algorithm and the
//!   invariants it guarantees.

mod coverage;
mod mask;

pub use coverage::{ConflictKind, CoverageReport, OffsetConflict};
pub use mask::LaneMask;

use crate::regs::{IdxId, RegBank, RegId};

/// Which lane assignment to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LaneMode {
    Llvm,
    Coverage,
}

impl LaneMode {
    pub fn name(self) -> &'static str {
        match self {
            LaneMode::Llvm => "llvm",
            LaneMode::Coverage => "coverage",
        }
    }
}

impl std::str::FromStr for LaneMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "llvm" => Ok(LaneMode::Llvm),
            "coverage" => Ok(LaneMode::Coverage),
            _ => Err(format!(
                "unknown lane mode '{s}' (expected llvm or coverage)"
            )),
        }
    }
}

/// Lane masks of every sub-register index and register class.
#[derive(Clone, Debug)]
pub struct Lanes {
    pub mode: LaneMode,
    /// By [`IdxId`].
    pub index_masks: Vec<LaneMask>,
    /// By [`crate::regs::ClassId`] (creation order).
    pub class_masks: Vec<LaneMask>,
    /// Lanes used in total (the width a `LaneBitmask` would need).
    pub num_lanes: u32,
    /// Details of the coverage computation (empty in llvm mode).
    pub coverage: CoverageReport,
    /// The lane of each leaf index (`None` for other indices).
    pub leaf_lane: Vec<Option<u32>>,
}

impl Lanes {
    /// Computes lane masks in `mode`.
    pub fn compute(bank: &RegBank, mode: LaneMode) -> Lanes {
        let (index_masks, num_lanes, coverage) = match mode {
            LaneMode::Llvm => {
                let (m, n) = llvm_index_masks(bank);
                (m, n, CoverageReport::default())
            }
            LaneMode::Coverage => coverage::compute(bank),
        };
        let class_masks = class_masks(bank, &index_masks);
        let leaf_lane = bank
            .sub_reg_indices
            .iter()
            .enumerate()
            .map(|(i, idx)| {
                if idx.is_leaf() {
                    index_masks[i].lowest()
                } else {
                    None
                }
            })
            .collect();
        Lanes {
            mode,
            index_masks,
            class_masks,
            num_lanes,
            coverage,
            leaf_lane,
        }
    }

    /// The lane pairs `(lane of R:I, lane of R)` composition through `I`
    /// moves (LLVM's `CompositionLaneMaskTransform`, exact): for every
    /// `I∘A = B`, each leaf `A∘C` (or `A` itself) goes to the leaf `B∘C`.
    ///
    /// LLVM builds its transform from the leaves `A` only and widens a
    /// one-step transform to every lane, so that an `A` which is a leaf in
    /// no register (Mips's `sub_lo`, a leaf only in its 32-bit registers)
    /// still moves through the widened step; the pairs through `A∘C` give
    /// the same lanes without widening.
    pub fn lane_map(&self, bank: &RegBank, i: IdxId) -> Vec<(u32, u32)> {
        let idx = bank.idx(i);
        if idx.is_leaf() {
            // From a register without sub-registers (lane 0) into I.
            return self.leaf_lane[i as usize]
                .map(|l| (0, l))
                .into_iter()
                .collect();
        }
        let mut pairs = std::collections::BTreeSet::new();
        for (&a, &b) in idx.composed.iter() {
            if let (Some(x), Some(y)) = (self.leaf_lane[a as usize], self.leaf_lane[b as usize]) {
                pairs.insert((x, y));
            }
            for (&c, &ac) in bank.idx(a).composed.iter() {
                let bc = bank.idx(b).composed.get(&c).copied();
                if let (Some(x), Some(y)) = (
                    self.leaf_lane[ac as usize],
                    bc.and_then(|bc| self.leaf_lane[bc as usize]),
                ) {
                    pairs.insert((x, y));
                }
            }
        }
        pairs.into_iter().collect()
    }

    /// LLVM's `composeSubRegIndexLaneMask`: lanes of `R:I` to lanes of `R`.
    pub fn compose(&self, bank: &RegBank, i: IdxId, mask: &LaneMask) -> LaneMask {
        let mut out = LaneMask::none();
        for (a, b) in self.lane_map(bank, i) {
            if mask.test(a) {
                out.set(b);
            }
        }
        out
    }

    /// LLVM's `reverseComposeSubRegIndexLaneMask`: lanes of `R` to lanes of `R:I`.
    pub fn reverse_compose(&self, bank: &RegBank, i: IdxId, mask: &LaneMask) -> LaneMask {
        let mut out = LaneMask::none();
        for (a, b) in self.lane_map(bank, i) {
            if mask.test(b) {
                out.set(a);
            }
        }
        out
    }

    /// The lane mask of each register unit of `r`, in the order of
    /// `Register::units` (LLVM's `RegUnitLaneMasks`): the union of the masks
    /// of the indices naming leaf sub-registers over that unit. A register
    /// without sub-registers has empty masks, which LLVM reads as "the whole
    /// register".
    pub fn unit_masks(&self, bank: &RegBank, r: RegId) -> Vec<LaneMask> {
        let reg = bank.reg(r);
        let mut masks = vec![LaneMask::none(); reg.units.len()];
        for (&i, &s) in &reg.sub_regs {
            let sub = bank.reg(s);
            if !sub.sub_regs.is_empty() {
                continue;
            }
            let m = &self.index_masks[i as usize];
            for u in &sub.units {
                if let Ok(k) = reg.units.binary_search(u) {
                    masks[k].or_assign(m);
                }
            }
        }
        masks
    }

    /// The lanes of indices used by a register not covered by its
    /// sub-registers: LLVM's `CoveringLanes` is every lane except these.
    pub fn uncovered(&self, bank: &RegBank) -> LaneMask {
        let mut m = LaneMask::none();
        for (i, idx) in bank.sub_reg_indices.iter().enumerate() {
            if !idx.all_super_regs_covered {
                m.or_assign(&self.index_masks[i]);
            }
        }
        m
    }

    /// Hex words needed to print every mask of this bank.
    pub fn words(&self) -> usize {
        (self.num_lanes as usize).div_ceil(64).max(1)
    }

    /// The mask of sub-register index `i`.
    pub fn of_index(&self, i: IdxId) -> &LaneMask {
        &self.index_masks[i as usize]
    }
}

/// LLVM's `computeSubRegLaneMasks` for indices: returns the masks and the
/// number of leaf lanes.
fn llvm_index_masks(bank: &RegBank) -> (Vec<LaneMask>, u32) {
    let n = bank.sub_reg_indices.len();
    let mut masks = vec![LaneMask::none(); n];
    let mut bit = 0u32;
    for (i, idx) in bank.sub_reg_indices.iter().enumerate() {
        if idx.is_leaf() {
            masks[i] = LaneMask::lane(bit);
            bit += 1;
        }
    }
    // Composite indices inherit the union of their parts. LLVM marks an
    // index "all lanes" while computing it, which only shows on cycles.
    let all = LaneMask::first(bit.max(64));
    let mut state = vec![0u8; n];
    for root in 0..n {
        if state[root] != 0 || masks[root].any() {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        state[root] = 1;
        masks[root] = all.clone();
        let kids = bank.sub_reg_indices[root]
            .composed
            .values()
            .map(|&c| c as usize)
            .collect();
        stack.push((root, kids, 0));
        let mut acc: Vec<LaneMask> = vec![LaneMask::none()];
        while let Some(top) = stack.last_mut() {
            if top.2 < top.1.len() {
                let c = top.1[top.2];
                top.2 += 1;
                if state[c] == 0 && masks[c].is_none() {
                    state[c] = 1;
                    masks[c] = all.clone();
                    let kids = bank.sub_reg_indices[c]
                        .composed
                        .values()
                        .map(|&k| k as usize)
                        .collect();
                    stack.push((c, kids, 0));
                    acc.push(LaneMask::none());
                } else if let Some(a) = acc.last_mut() {
                    a.or_assign(&masks[c]);
                }
            } else {
                let i = top.0;
                stack.pop();
                let m = acc.pop().unwrap_or_default();
                masks[i] = m.clone();
                state[i] = 2;
                if let Some(a) = acc.last_mut() {
                    a.or_assign(&m);
                }
            }
        }
    }
    (masks, bit)
}

/// A class's mask: the union over indices some member supports, or lane 0.
fn class_masks(bank: &RegBank, index_masks: &[LaneMask]) -> Vec<LaneMask> {
    bank.classes
        .iter()
        .map(|c| {
            let mut m = LaneMask::none();
            for &i in c.sub_class_with_sub_reg.keys() {
                m.or_assign(&index_masks[i as usize]);
            }
            if m.is_none() {
                m = LaneMask::lane(0);
            }
            m
        })
        .collect()
}
