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
//!
//! Representation: per unit, one bit per slot, set where a segment holds
//! the unit. Whether a segment `[s, e)` is free is a test of the words
//! covering `s..e`, and assigning sets them: no search, no allocation per
//! query, and the cost of a query grows with the length of what is asked,
//! not with how much the unit already holds. Memory is one bit per slot
//! per unit (24 KiB per unit for a function of 100k instructions).
//!
//! Layout: units are kept in groups of [`GROUP`] consecutive units, and a
//! group's bits are interleaved by word (word `w` of its units side by
//! side, one 64-byte cache line). An assignment tries the candidates of a
//! class in allocation order, which are neighbouring units, at the same
//! slots: interleaved, one cache line answers for eight candidates, where
//! one bit set per unit would put each candidate's word in a different
//! line (on a function of 100k instructions, 64 units' bit sets are 6 MB,
//! beyond the caches, and assignment visits the slots in priority order,
//! not in order). A group is allocated when one of its units first gets
//! a segment, so register files with many units (AMD's VGPR halves) pay
//! only for the groups a function uses.

use regdesc_runtime::RegUnit;

use crate::mir::liveness::Segment;

/// Units per group (a group's word `w` of each unit fills a cache line).
const GROUP: usize = 8;

/// The occupied slots of every unit.
#[derive(Clone, Debug)]
pub struct Matrix {
    /// Per group of [`GROUP`] units: word `w` of unit `g * GROUP + k` at
    /// `w * GROUP + k` (empty until a unit of the group gets a segment).
    groups: Vec<Vec<u64>>,
    num_units: usize,
    /// Words in each unit's bit set (covers every slot of the function).
    words: usize,
}

/// The word index and bit masks covering `[start, end)`, word by word.
fn spans(start: u32, end: u32) -> impl Iterator<Item = (usize, u64)> {
    let (start, end) = (start as usize, end as usize);
    let first = start / 64;
    let last = if end == 0 { 0 } else { (end - 1) / 64 + 1 };
    (first..last.max(first)).map(move |w| {
        let lo = if w == first { start % 64 } else { 0 };
        let hi = if w + 1 == last && end % 64 != 0 {
            end % 64
        } else {
            64
        };
        let mask = if hi - lo == 64 {
            u64::MAX
        } else {
            ((1u64 << (hi - lo)) - 1) << lo
        };
        (w, mask)
    })
}

impl Matrix {
    /// A matrix of `num_units` units for slots `0..num_slots`.
    pub fn new(num_units: usize, num_slots: u32) -> Matrix {
        Matrix {
            groups: vec![Vec::new(); num_units.div_ceil(GROUP)],
            num_units,
            words: (num_slots as usize).div_ceil(64).max(1),
        }
    }

    /// Empties the matrix and sizes it for `num_units` units and slots
    /// `0..num_slots`, keeping the memory of the groups it had.
    pub fn reset(&mut self, num_units: usize, num_slots: u32) {
        self.num_units = num_units;
        self.words = (num_slots as usize).div_ceil(64).max(1);
        self.groups.resize(num_units.div_ceil(GROUP), Vec::new());
        for g in &mut self.groups {
            if !g.is_empty() {
                g.clear();
                g.resize(self.words * GROUP, 0);
            }
        }
    }

    /// Whether none of `segs` overlaps a segment on `u` (an unknown unit
    /// is never free).
    pub fn is_free(&self, u: RegUnit, segs: &[Segment]) -> bool {
        let u = u.index();
        if u >= self.num_units {
            return false;
        }
        let bits = &self.groups[u / GROUP];
        if bits.is_empty() {
            return true;
        }
        let k = u % GROUP;
        segs.iter().all(|s| {
            spans(s.start, s.end).all(|(w, m)| bits.get(w * GROUP + k).is_none_or(|&x| x & m == 0))
        })
    }

    /// Puts `segs` on `u` (they must be free).
    pub fn insert(&mut self, u: RegUnit, segs: &[Segment]) {
        let u = u.index();
        if u >= self.num_units {
            return;
        }
        let words = self.words;
        let bits = &mut self.groups[u / GROUP];
        let k = u % GROUP;
        for s in segs {
            for (w, m) in spans(s.start, s.end) {
                if w * GROUP + k >= bits.len() {
                    bits.resize(words.max(w + 1) * GROUP, 0);
                }
                bits[w * GROUP + k] |= m;
            }
        }
    }

    /// Takes `segs` off `u` (they must be what one [`Matrix::insert`] put
    /// there: a unit's segments never overlap, so each bit has one owner).
    pub fn remove(&mut self, u: RegUnit, segs: &[Segment]) {
        let u = u.index();
        if u >= self.num_units {
            return;
        }
        let bits = &mut self.groups[u / GROUP];
        let k = u % GROUP;
        for s in segs {
            for (w, m) in spans(s.start, s.end) {
                if let Some(x) = bits.get_mut(w * GROUP + k) {
                    *x &= !m;
                }
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
        let mut m = Matrix::new(2, 200);
        let u = RegUnit(0);
        m.insert(u, &[seg(2, 5), seg(9, 12)]);
        assert!(m.is_free(u, &[seg(5, 9)]));
        assert!(!m.is_free(u, &[seg(4, 6)]));
        assert!(!m.is_free(u, &[seg(0, 1), seg(11, 20)]));
        assert!(m.is_free(RegUnit(1), &[seg(0, 100)]));
        assert!(!m.is_free(RegUnit(2), &[seg(0, 1)]));
        // Across words.
        m.insert(u, &[seg(60, 130)]);
        assert!(!m.is_free(u, &[seg(127, 128)]));
        assert!(!m.is_free(u, &[seg(63, 64)]));
        assert!(m.is_free(u, &[seg(130, 192), seg(12, 60)]));
        assert!(!m.is_free(u, &[seg(0, 200)]));
        m.insert(u, &[seg(192, 200)]);
        assert!(!m.is_free(u, &[seg(199, 200)]));
        assert!(m.is_free(u, &[seg(131, 192)]));
        // Removing frees exactly what was inserted.
        m.remove(u, &[seg(60, 130)]);
        assert!(m.is_free(u, &[seg(12, 192)]));
        assert!(!m.is_free(u, &[seg(11, 12)]));
        assert!(!m.is_free(u, &[seg(192, 193)]));
    }
}
