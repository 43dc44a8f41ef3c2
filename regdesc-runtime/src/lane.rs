//! Lane masks as wide as a description needs.
//!
//! A lane is a part of a register that liveness tracks on its own (LLVM's
//! `LaneBitmask`, fixed at 64 bits there). Generated tables pick the
//! narrowest [`LaneBits`] that holds every lane: `u32`, `u64`, `u128`, or
//! [`Wide<N>`] (`N` 64-bit words) beyond that.

use core::fmt;
use core::hash::Hash;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// The bit storage of a [`LaneMask`].
pub trait LaneBits: Copy + Eq + Ord + Hash + fmt::Debug + Send + Sync + 'static {
    /// No lane.
    const NONE: Self;
    /// Every lane the storage can hold.
    const ALL: Self;
    /// How many lanes it can hold.
    const BITS: u32;
    /// Lane `n` alone (`n < BITS`; no lane otherwise).
    fn lane(n: u32) -> Self;
    /// Whether lane `n` is set.
    fn test(self, n: u32) -> bool;
    /// Both.
    fn and(self, o: Self) -> Self;
    /// Either.
    fn or(self, o: Self) -> Self;
    /// The complement.
    fn not(self) -> Self;
    /// Moves every lane up by `n` (lanes past the top are dropped).
    fn shl(self, n: u32) -> Self;
    /// Moves every lane down by `n`.
    fn shr(self, n: u32) -> Self;
    /// Number of lanes set.
    fn count(self) -> u32;
    /// The 64-bit word `i` (lanes `64 * i ..`).
    fn word(self, i: usize) -> u64;
}

macro_rules! prim {
    ($($t:ty),*) => {$(
        impl LaneBits for $t {
            const NONE: Self = 0;
            const ALL: Self = <$t>::MAX;
            const BITS: u32 = <$t>::BITS;
            fn lane(n: u32) -> Self {
                (1 as $t).checked_shl(n).unwrap_or(0)
            }
            fn test(self, n: u32) -> bool {
                n < Self::BITS && (self >> n) & 1 == 1
            }
            fn and(self, o: Self) -> Self {
                self & o
            }
            fn or(self, o: Self) -> Self {
                self | o
            }
            fn not(self) -> Self {
                !self
            }
            fn shl(self, n: u32) -> Self {
                self.checked_shl(n).unwrap_or(0)
            }
            fn shr(self, n: u32) -> Self {
                self.checked_shr(n).unwrap_or(0)
            }
            fn count(self) -> u32 {
                self.count_ones()
            }
            fn word(self, i: usize) -> u64 {
                let shift = (i as u32).saturating_mul(64);
                self.checked_shr(shift).unwrap_or(0) as u64
            }
        }
    )*};
}

prim!(u32, u64, u128);

/// Lane storage of `N` 64-bit words, for descriptions past 128 lanes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Wide<const N: usize>(pub [u64; N]);

impl<const N: usize> LaneBits for Wide<N> {
    const NONE: Self = Wide([0; N]);
    const ALL: Self = Wide([u64::MAX; N]);
    const BITS: u32 = 64 * N as u32;
    fn lane(n: u32) -> Self {
        let mut w = [0; N];
        if let Some(x) = w.get_mut((n / 64) as usize) {
            *x = 1 << (n % 64);
        }
        Wide(w)
    }
    fn test(self, n: u32) -> bool {
        self.0
            .get((n / 64) as usize)
            .is_some_and(|x| (x >> (n % 64)) & 1 == 1)
    }
    fn and(self, o: Self) -> Self {
        let mut w = self.0;
        for (a, b) in w.iter_mut().zip(o.0) {
            *a &= b;
        }
        Wide(w)
    }
    fn or(self, o: Self) -> Self {
        let mut w = self.0;
        for (a, b) in w.iter_mut().zip(o.0) {
            *a |= b;
        }
        Wide(w)
    }
    fn not(self) -> Self {
        let mut w = self.0;
        for a in w.iter_mut() {
            *a = !*a;
        }
        Wide(w)
    }
    fn shl(self, n: u32) -> Self {
        let (words, bits) = ((n / 64) as usize, n % 64);
        let mut w = [0u64; N];
        for i in (0..N).rev() {
            let Some(src) = i.checked_sub(words) else {
                break;
            };
            let mut v = self.0[src] << bits;
            if bits > 0 && src > 0 {
                v |= self.0[src - 1] >> (64 - bits);
            }
            w[i] = v;
        }
        Wide(w)
    }
    fn shr(self, n: u32) -> Self {
        let (words, bits) = ((n / 64) as usize, n % 64);
        let mut w = [0u64; N];
        for (i, out) in w.iter_mut().enumerate() {
            let src = i + words;
            if src >= N {
                break;
            }
            let mut v = self.0[src] >> bits;
            if bits > 0 && src + 1 < N {
                v |= self.0[src + 1] << (64 - bits);
            }
            *out = v;
        }
        Wide(w)
    }
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    fn word(self, i: usize) -> u64 {
        self.0.get(i).copied().unwrap_or(0)
    }
}

/// A set of lanes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LaneMask<B: LaneBits>(pub B);

impl<B: LaneBits> LaneMask<B> {
    /// No lane.
    pub const NONE: Self = LaneMask(B::NONE);
    /// Every lane.
    pub const ALL: Self = LaneMask(B::ALL);

    /// Lane `n` alone.
    pub fn lane(n: u32) -> Self {
        LaneMask(B::lane(n))
    }
    /// Whether no lane is set.
    pub fn is_none(self) -> bool {
        self.0 == B::NONE
    }
    /// Whether some lane is set.
    pub fn any(self) -> bool {
        !self.is_none()
    }
    /// Whether every lane is set.
    pub fn is_all(self) -> bool {
        self.0 == B::ALL
    }
    /// Whether lane `n` is set.
    pub fn test(self, n: u32) -> bool {
        self.0.test(n)
    }
    /// Whether the two share a lane.
    pub fn intersects(self, o: Self) -> bool {
        self.0.and(o.0) != B::NONE
    }
    /// Whether every lane of `self` is in `o`.
    pub fn is_subset_of(self, o: Self) -> bool {
        self.0.and(o.0.not()) == B::NONE
    }
    /// Number of lanes set.
    pub fn count(self) -> u32 {
        self.0.count()
    }
    /// The lanes set, ascending.
    pub fn lanes(self) -> impl Iterator<Item = u32> {
        (0..B::BITS).filter(move |&n| self.0.test(n))
    }
    /// The 64-bit word `i` (lanes `64 * i ..`).
    pub fn word(self, i: usize) -> u64 {
        self.0.word(i)
    }
}

impl<B: LaneBits> BitAnd for LaneMask<B> {
    type Output = Self;
    fn bitand(self, o: Self) -> Self {
        LaneMask(self.0.and(o.0))
    }
}

impl<B: LaneBits> BitOr for LaneMask<B> {
    type Output = Self;
    fn bitor(self, o: Self) -> Self {
        LaneMask(self.0.or(o.0))
    }
}

impl<B: LaneBits> Not for LaneMask<B> {
    type Output = Self;
    fn not(self) -> Self {
        LaneMask(self.0.not())
    }
}

impl<B: LaneBits> BitAndAssign for LaneMask<B> {
    fn bitand_assign(&mut self, o: Self) {
        *self = *self & o;
    }
}

impl<B: LaneBits> BitOrAssign for LaneMask<B> {
    fn bitor_assign(&mut self, o: Self) {
        *self = *self | o;
    }
}

/// Hex digits, most significant first, 16 per 64 lanes (at least 16), as
/// LLVM prints a `LaneBitmask`.
impl<B: LaneBits> fmt::Display for LaneMask<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words = (B::BITS as usize).div_ceil(64).max(1);
        for i in (0..words).rev() {
            write!(f, "{:016X}", self.0.word(i))?;
        }
        Ok(())
    }
}

impl<B: LaneBits> fmt::Debug for LaneMask<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LaneMask({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_shifts_cross_words() {
        let m = Wide::<3>::lane(63);
        assert!(m.shl(1).test(64));
        assert!(m.shl(66).test(129));
        assert_eq!(m.shl(66).shr(66), m);
        assert!(m.shl(200).0.iter().all(|&w| w == 0));
        assert_eq!(Wide::<2>::ALL.count(), 128);
        assert!(LaneMask(Wide::<2>::lane(100)).is_subset_of(LaneMask(Wide::<2>::ALL)));
    }

    #[test]
    fn primitive_masks() {
        assert_eq!(u64::lane(64), 0);
        assert_eq!(u32::lane(3).shl(40), 0);
        assert!(u128::lane(100).test(100));
        let m = LaneMask(0b1010u64);
        assert_eq!(m.lanes().collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(format!("{m}"), "000000000000000A");
    }
}
