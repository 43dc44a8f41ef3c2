//! [`LaneMask`]: a set of lanes with no width limit.

use std::fmt;

/// A set of lanes. Lanes 0..128 live inline; wider masks spill into a
/// vector (which stays empty, and unallocated, for masks of ≤128 lanes).
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LaneMask {
    lo: u128,
    /// Lanes 128.., 64 per word, without trailing zero words.
    hi: Vec<u64>,
}

impl LaneMask {
    pub const fn none() -> LaneMask {
        LaneMask {
            lo: 0,
            hi: Vec::new(),
        }
    }

    /// The mask of one lane.
    pub fn lane(n: u32) -> LaneMask {
        let mut m = LaneMask::none();
        m.set(n);
        m
    }

    /// Lanes `0..n`.
    pub fn first(n: u32) -> LaneMask {
        let mut m = LaneMask::none();
        if n >= 128 {
            m.lo = u128::MAX;
            let rest = n - 128;
            let words = rest.div_ceil(64) as usize;
            m.hi = vec![u64::MAX; words];
            if !rest.is_multiple_of(64) {
                if let Some(w) = m.hi.last_mut() {
                    *w = (1u64 << (rest % 64)) - 1;
                }
            }
        } else if n > 0 {
            m.lo = if n == 128 {
                u128::MAX
            } else {
                (1u128 << n) - 1
            };
        }
        m
    }

    pub fn set(&mut self, n: u32) {
        if n < 128 {
            self.lo |= 1u128 << n;
        } else {
            let w = ((n - 128) / 64) as usize;
            if self.hi.len() <= w {
                self.hi.resize(w + 1, 0);
            }
            self.hi[w] |= 1u64 << ((n - 128) % 64);
        }
    }

    pub fn test(&self, n: u32) -> bool {
        if n < 128 {
            self.lo & (1u128 << n) != 0
        } else {
            let w = ((n - 128) / 64) as usize;
            self.hi
                .get(w)
                .is_some_and(|x| x & (1u64 << ((n - 128) % 64)) != 0)
        }
    }

    pub fn is_none(&self) -> bool {
        self.lo == 0 && self.hi.is_empty()
    }

    pub fn any(&self) -> bool {
        !self.is_none()
    }

    fn trim(&mut self) {
        while self.hi.last() == Some(&0) {
            self.hi.pop();
        }
    }

    pub fn or_assign(&mut self, o: &LaneMask) {
        self.lo |= o.lo;
        if self.hi.len() < o.hi.len() {
            self.hi.resize(o.hi.len(), 0);
        }
        for (a, b) in self.hi.iter_mut().zip(&o.hi) {
            *a |= b;
        }
    }

    pub fn and(&self, o: &LaneMask) -> LaneMask {
        let mut m = LaneMask {
            lo: self.lo & o.lo,
            hi: self.hi.iter().zip(&o.hi).map(|(a, b)| a & b).collect(),
        };
        m.trim();
        m
    }

    /// `self & !o`.
    pub fn and_not(&self, o: &LaneMask) -> LaneMask {
        let mut m = LaneMask {
            lo: self.lo & !o.lo,
            hi: self
                .hi
                .iter()
                .enumerate()
                .map(|(i, a)| a & !o.hi.get(i).copied().unwrap_or(0))
                .collect(),
        };
        m.trim();
        m
    }

    pub fn intersects(&self, o: &LaneMask) -> bool {
        self.lo & o.lo != 0 || self.hi.iter().zip(&o.hi).any(|(a, b)| a & b != 0)
    }

    pub fn is_subset_of(&self, o: &LaneMask) -> bool {
        self.lo & !o.lo == 0
            && self
                .hi
                .iter()
                .enumerate()
                .all(|(i, a)| a & !o.hi.get(i).copied().unwrap_or(0) == 0)
    }

    pub fn count(&self) -> u32 {
        self.lo.count_ones() + self.hi.iter().map(|w| w.count_ones()).sum::<u32>()
    }

    /// The highest set lane.
    pub fn highest(&self) -> Option<u32> {
        for (i, w) in self.hi.iter().enumerate().rev() {
            if *w != 0 {
                return Some(128 + i as u32 * 64 + 63 - w.leading_zeros());
            }
        }
        (self.lo != 0).then(|| 127 - self.lo.leading_zeros())
    }

    /// The lowest set lane.
    pub fn lowest(&self) -> Option<u32> {
        if self.lo != 0 {
            return Some(self.lo.trailing_zeros());
        }
        for (i, w) in self.hi.iter().enumerate() {
            if *w != 0 {
                return Some(128 + i as u32 * 64 + w.trailing_zeros());
            }
        }
        None
    }

    /// Every set lane, ascending.
    pub fn lanes(&self) -> impl Iterator<Item = u32> + '_ {
        let lo = (0..128u32).filter(move |&i| self.lo & (1u128 << i) != 0);
        let hi = self.hi.iter().enumerate().flat_map(|(w, &x)| {
            (0..64u32)
                .filter(move |&b| x & (1u64 << b) != 0)
                .map(move |b| 128 + w as u32 * 64 + b)
        });
        lo.chain(hi)
    }

    /// Number of 64-bit words needed to hold the mask.
    pub fn words(&self) -> usize {
        self.highest().map_or(1, |h| h as usize / 64 + 1)
    }

    /// The 64-bit word `i` (lanes `64*i .. 64*i+64`).
    pub fn word(&self, i: usize) -> u64 {
        match i {
            0 => self.lo as u64,
            1 => (self.lo >> 64) as u64,
            _ => self.hi.get(i - 2).copied().unwrap_or(0),
        }
    }

    /// Upper-case hex with `words * 16` digits, most significant first
    /// (for one word: LLVM's `PrintLaneMask`).
    pub fn to_hex(&self, words: usize) -> String {
        let words = words.max(self.words()).max(1);
        let mut s = String::with_capacity(words * 16);
        for i in (0..words).rev() {
            s.push_str(&format!("{:016X}", self.word(i)));
        }
        s
    }

    /// Shifts every lane up by `n` (lanes never fall off).
    pub fn shl(&self, n: u32) -> LaneMask {
        let mut m = LaneMask::none();
        for l in self.lanes() {
            m.set(l + n);
        }
        m
    }
}

/// Serialized as hex digits, most significant first (16 per 64 lanes).
impl serde::Serialize for LaneMask {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex(1))
    }
}

impl fmt::Debug for LaneMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LaneMask({})", self.to_hex(1))
    }
}

impl fmt::Display for LaneMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex(1))
    }
}

#[cfg(test)]
mod tests {
    use super::LaneMask;

    #[test]
    fn wide_masks() {
        let mut m = LaneMask::lane(3);
        m.set(200);
        assert_eq!(m.count(), 2);
        assert_eq!(m.highest(), Some(200));
        assert_eq!(m.lowest(), Some(3));
        assert!(LaneMask::lane(200).is_subset_of(&m));
        assert!(!m.is_subset_of(&LaneMask::lane(200)));
        assert_eq!(m.lanes().collect::<Vec<_>>(), vec![3, 200]);
        assert_eq!(LaneMask::lane(0).to_hex(1), "0000000000000001");
        assert_eq!(LaneMask::lane(64).to_hex(1).len(), 32);
        assert_eq!(LaneMask::first(130).count(), 130);
        assert_eq!(m.and_not(&LaneMask::lane(200)), LaneMask::lane(3));
        assert_eq!(m.and(&LaneMask::lane(3)), LaneMask::lane(3));
    }
}
