//! Which live segments occupy each register unit (LLVM's `LiveRegMatrix`
//! of `LiveIntervalUnion`s).
//!
//! The hardware fact served: registers overlap through their units, and
//! only through them. AMD's `V2_V3` pair, the `V3` under it and `V3`'s high
//! half all share `V3`'s high unit; two values interfere exactly when some
//! unit would hold both at once. So interference is not a graph between
//! values but a per-unit timeline: assigning a value to a register puts its
//! segments on the register's units, and a candidate register is free when
//! none of its units already holds a segment overlapping the value's.
//! Which of a value's lanes a unit holds comes from the tables
//! (`unit_lane_masks`), so a value whose high lanes are dead leaves the
//! high units free.

use std::collections::BTreeMap;

use regdesc_runtime::RegUnit;

use crate::mir::liveness::Segment;
use crate::mir::VReg;

/// Who holds a segment of a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Owner {
    /// A physical register operand.
    Fixed,
    Virt(VReg),
}

/// The segments on every unit.
#[derive(Clone, Debug)]
pub struct Matrix {
    /// Per unit: start -> (end, owner); segments of one unit are disjoint.
    units: Vec<BTreeMap<u32, (u32, Owner)>>,
}

impl Matrix {
    pub fn new(num_units: usize) -> Matrix {
        Matrix {
            units: vec![BTreeMap::new(); num_units],
        }
    }

    /// Whether any of `segs` (sorted, disjoint) overlaps a segment on `u`.
    pub fn is_free(&self, u: RegUnit, segs: &[Segment]) -> bool {
        let Some(map) = self.units.get(u.index()) else {
            return false;
        };
        if map.is_empty() {
            return true;
        }
        segs.iter().all(|s| {
            map.range(..s.end)
                .next_back()
                .is_none_or(|(_, &(end, _))| end <= s.start)
        })
    }

    /// Puts `segs` on `u` for `owner` (they must be free).
    pub fn insert(&mut self, u: RegUnit, segs: &[Segment], owner: Owner) {
        if let Some(map) = self.units.get_mut(u.index()) {
            for s in segs {
                map.insert(s.start, (s.end, owner));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(start: u32, end: u32) -> Segment {
        Segment { start, end }
    }

    #[test]
    fn overlap_queries() {
        let mut m = Matrix::new(2);
        let u = RegUnit(0);
        m.insert(u, &[seg(2, 5), seg(9, 12)], Owner::Virt(VReg(1)));
        assert!(m.is_free(u, &[seg(5, 9)]));
        assert!(!m.is_free(u, &[seg(4, 6)]));
        assert!(!m.is_free(u, &[seg(0, 1), seg(11, 20)]));
        assert!(m.is_free(RegUnit(1), &[seg(0, 100)]));
    }
}
