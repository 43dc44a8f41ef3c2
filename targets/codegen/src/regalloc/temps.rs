//! Interference between the spill temporaries of one instruction, exactly
//! as in the function with the spill code inserted (see
//! [`crate::regalloc::rounds`] for the temporaries' one-segment intervals).
//!
//! The hardware fact served: a reload writes the whole register, but the
//! instruction after it may read only part of it (`%t.sub0` of a 64-bit
//! pair); the other lanes are dead from the moment they are written. With
//! the spill code in place, the reloads before an instruction come one
//! after the other, so a temporary's dead lanes are live only at its own
//! reload: they clash with the temporaries reloaded *before* it (live
//! across that reload) and with nothing reloaded after it. One slot per
//! instruction cannot say "before" and "after", so the temporaries of an
//! instruction are checked against each other here, by reload order, and
//! against everything else through their one-segment intervals in the
//! matrix.

use regdesc_runtime::{LaneBits, LaneMask, Reg, Tables};

use crate::mir::liveness::Segment;

/// What the allocator knows of a spill temporary.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TempSite<L: LaneBits> {
    /// Its instruction (numbered as the function was before spilling).
    pub n: u32,
    /// Where its register is first named among the instruction's operands
    /// (the order of the reloads).
    pub pos: u32,
    /// It is reloaded before the instruction.
    pub reads: bool,
    /// The lanes of its class.
    pub lanes: LaneMask<L>,
    /// When it is only reloaded and read: the lanes the instruction reads
    /// (`dead` holds the others); otherwise all of `lanes`.
    pub used: LaneMask<L>,
    /// Lanes written by the reload and never read (none unless only
    /// reloaded and read in part).
    pub dead: LaneMask<L>,
    /// Its interval (`None`: neither read nor written).
    pub seg: Option<Segment>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Not held at this unit.
    Free,
    /// Lanes the instruction reads (or all lanes of a temporary that is
    /// not only reloaded and read in part).
    Live,
    /// Lanes dead after the reload.
    Dead,
}

fn held<L: LaneBits>(x: &TempSite<L>, unit_lanes: LaneMask<L>) -> Held {
    let m = if unit_lanes.is_none() {
        LaneMask::ALL
    } else {
        unit_lanes
    };
    if !m.intersects(x.lanes) {
        Held::Free
    } else if x.dead.is_none() || m.intersects(x.used) {
        Held::Live
    } else {
        Held::Dead
    }
}

/// Whether temporaries `a` (in `pa`) and `b` (in `pb`) of the same
/// instruction interfere.
pub(crate) fn interfere<L: LaneBits>(
    t: &Tables<L>,
    a: &TempSite<L>,
    pa: Reg,
    b: &TempSite<L>,
    pb: Reg,
) -> bool {
    let (Some(sa), Some(sb)) = (a.seg, b.seg) else {
        return false;
    };
    // x is reloaded (or named) first.
    let ((x, px), (y, py)) = if a.pos <= b.pos {
        ((a, pa), (b, pb))
    } else {
        ((b, pb), (a, pa))
    };
    // Without dead lanes in y, a shared unit clashes only where both are
    // live at once (the unit walk below could not say otherwise).
    if y.dead.is_none() && !sa.overlaps(sb) {
        return false;
    }
    for (ux, mx) in t.unit_lane_masks(px) {
        for (uy, my) in t.unit_lane_masks(py) {
            if ux != uy {
                continue;
            }
            let clash = match (held(x, mx), held(y, my)) {
                (Held::Free, _) | (_, Held::Free) => false,
                // Dead at x's reload, before y is written.
                (Held::Dead, _) => false,
                // Dead at y's reload: x is live there if it was reloaded.
                (_, Held::Dead) => x.reads,
                (Held::Live, Held::Live) => sa.overlaps(sb),
            };
            if clash {
                return true;
            }
        }
    }
    false
}

/// The temporaries grouped by instruction: for each, the others of its
/// instruction.
pub(crate) struct Groups {
    /// Temporary indices sorted by instruction.
    order: Vec<u32>,
    /// Per temporary: its group's range in `order`.
    range: Vec<(u32, u32)>,
}

impl Groups {
    pub(crate) fn new<L: LaneBits>(temps: &[TempSite<L>]) -> Groups {
        let mut order: Vec<u32> = (0..temps.len() as u32).collect();
        order.sort_by_key(|&k| (temps[k as usize].n, k));
        let mut range = vec![(0, 0); temps.len()];
        let mut i = 0;
        while i < order.len() {
            let n = temps[order[i] as usize].n;
            let mut j = i;
            while j < order.len() && temps[order[j] as usize].n == n {
                j += 1;
            }
            for &k in &order[i..j] {
                range[k as usize] = (i as u32, j as u32);
            }
            i = j;
        }
        Groups { order, range }
    }

    /// The temporaries of `k`'s instruction (`k` among them).
    pub(crate) fn of(&self, k: usize) -> &[u32] {
        match self.range.get(k) {
            Some(&(a, b)) => &self.order[a as usize..b as usize],
            None => &[],
        }
    }
}
