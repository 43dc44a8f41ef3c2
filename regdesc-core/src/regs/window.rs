//! [`WindowBits`]: a register set as a bit set over the span of words its
//! members occupy.
//!
//! Register classes hold registers with nearby numbers (registers are
//! numbered by name, tuples by their first member), so a class's bits fit
//! in a few words of a bit set over all registers: storing only that window
//! makes disjoint classes fail the overlap test without touching their bits,
//! and intersecting ones compare only the shared words.

/// A set of register numbers (`u32`), stored as the words from the lowest
/// to the highest member.
#[derive(Clone, Debug, Default)]
pub struct WindowBits {
    /// Index of the first stored word.
    first: usize,
    words: Vec<u64>,
}

impl WindowBits {
    /// The set of `members` (any order, duplicates allowed).
    pub fn new(members: &[u32]) -> WindowBits {
        let (Some(&lo), Some(&hi)) = (members.iter().min(), members.iter().max()) else {
            return WindowBits::default();
        };
        let first = lo as usize / 64;
        let mut words = vec![0u64; hi as usize / 64 + 1 - first];
        for &r in members {
            words[r as usize / 64 - first] |= 1 << (r % 64);
        }
        WindowBits { first, words }
    }

    pub fn contains(&self, r: u32) -> bool {
        let w = r as usize / 64;
        w >= self.first
            && self
                .words
                .get(w - self.first)
                .is_some_and(|x| x & (1 << (r % 64)) != 0)
    }

    /// The words both sets store, as (self's, other's) slices.
    fn overlap<'s>(&'s self, other: &'s WindowBits) -> (&'s [u64], &'s [u64]) {
        let lo = self.first.max(other.first);
        let hi = (self.first + self.words.len()).min(other.first + other.words.len());
        if lo >= hi {
            return (&[], &[]);
        }
        (
            &self.words[lo - self.first..hi - self.first],
            &other.words[lo - other.first..hi - other.first],
        )
    }

    /// Do the sets share a member?
    pub fn intersects(&self, other: &WindowBits) -> bool {
        let (a, b) = self.overlap(other);
        a.iter().zip(b).any(|(x, y)| x & y != 0)
    }

    /// Is every member of `other` in `self`? The first and the last word
    /// of a non-empty set hold its lowest and highest members: a window
    /// reaching past `self`'s fails without reading bits, and one inside it
    /// is compared word for word (no counting of members).
    pub fn includes(&self, other: &WindowBits) -> bool {
        if other.words.is_empty() {
            return true;
        }
        let Some(off) = other.first.checked_sub(self.first) else {
            return false;
        };
        let Some(a) = self.words.get(off..off + other.words.len()) else {
            return false;
        };
        a.iter().zip(&other.words).all(|(x, y)| y & !x == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::WindowBits;

    #[test]
    fn windows() {
        let a = WindowBits::new(&[130, 140, 300]);
        let b = WindowBits::new(&[5, 140]);
        let c = WindowBits::new(&[5, 64]);
        let e = WindowBits::new(&[]);
        assert!(a.contains(130) && a.contains(300) && !a.contains(5) && !a.contains(1000));
        assert!(a.intersects(&b) && b.intersects(&a));
        assert!(!a.intersects(&c) && !c.intersects(&a) && !a.intersects(&e));
        assert!(a.includes(&WindowBits::new(&[140, 300])));
        assert!(!a.includes(&b) && !b.includes(&a));
        assert!(a.includes(&e) && !e.includes(&a) && e.includes(&e));
        // Windows that start or end past the other's.
        let wide = WindowBits::new(&[0, 64, 130, 140, 300, 400]);
        assert!(wide.includes(&a) && !a.includes(&wide));
        assert!(!a.includes(&WindowBits::new(&[140, 400])));
        assert!(!a.includes(&WindowBits::new(&[64, 140])));
    }
}
