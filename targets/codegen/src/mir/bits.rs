//! Register contents: values of any width as little-endian 64-bit words.

use std::fmt;

/// A value of `width` bits, little-endian 64-bit words.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Bits {
    pub width: u32,
    pub words: Vec<u64>,
}

impl Bits {
    pub fn zero(width: u32) -> Bits {
        Bits {
            width,
            words: vec![0; width.div_ceil(64) as usize],
        }
    }

    /// `v` wrapped to `width` bits.
    pub fn from_u128(width: u32, v: u128) -> Bits {
        let mut b = Bits::zero(width);
        for (k, w) in b.words.iter_mut().enumerate().take(2) {
            *w = (v >> (64 * k)) as u64;
        }
        b.mask();
        b
    }

    /// The low 128 bits.
    pub fn to_u128(&self) -> u128 {
        let lo = self.words.first().copied().unwrap_or(0) as u128;
        let hi = self.words.get(1).copied().unwrap_or(0) as u128;
        lo | (hi << 64)
    }

    pub(crate) fn mask(&mut self) {
        let rem = self.width % 64;
        if rem != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << rem) - 1;
            }
        }
    }

    pub fn bit(&self, i: u32) -> bool {
        self.words
            .get((i / 64) as usize)
            .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    pub fn set_bit(&mut self, i: u32, v: bool) {
        if let Some(w) = self.words.get_mut((i / 64) as usize) {
            if v {
                *w |= 1 << (i % 64);
            } else {
                *w &= !(1 << (i % 64));
            }
        }
    }

    /// Bits `offset..offset + width`.
    pub fn extract(&self, offset: u32, width: u32) -> Bits {
        let mut out = Bits::zero(width);
        if offset.is_multiple_of(64) {
            let start = (offset / 64) as usize;
            for (k, w) in out.words.iter_mut().enumerate() {
                *w = self.words.get(start + k).copied().unwrap_or(0);
            }
            out.mask();
            return out;
        }
        if width <= 64 && (offset % 64) + width <= 64 {
            let w = self.words.get((offset / 64) as usize).copied().unwrap_or(0);
            out.words[0] = w >> (offset % 64);
            out.mask();
            return out;
        }
        for i in 0..width {
            out.set_bit(i, self.bit(offset + i));
        }
        out
    }

    /// Writes `v` at `offset`.
    pub fn insert(&mut self, offset: u32, v: &Bits) {
        let n = v.width.min(self.width.saturating_sub(offset));
        if n == 0 {
            return;
        }
        if offset.is_multiple_of(64) && n.is_multiple_of(64) {
            let start = (offset / 64) as usize;
            for k in 0..(n / 64) as usize {
                if let (Some(d), Some(s)) = (self.words.get_mut(start + k), v.words.get(k)) {
                    *d = *s;
                }
            }
            return;
        }
        if n <= 64 && (offset % 64) + n <= 64 {
            // Within one word.
            let w = (offset / 64) as usize;
            let sh = offset % 64;
            let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            let src = v.words.first().copied().unwrap_or(0) & mask;
            if let Some(d) = self.words.get_mut(w) {
                *d = (*d & !(mask << sh)) | (src << sh);
            }
            return;
        }
        for i in 0..n {
            self.set_bit(offset + i, v.bit(i));
        }
    }

    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "i{} 0x", self.width)?;
        for (k, w) in self.words.iter().enumerate().rev() {
            if k + 1 == self.words.len() {
                write!(f, "{w:x}")?;
            } else {
                write!(f, "{w:016x}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_extract_insert() {
        let mut b = Bits::zero(96);
        b.insert(32, &Bits::from_u128(32, 0xdead_beef));
        assert_eq!(b.extract(32, 32).to_u128(), 0xdead_beef);
        assert_eq!(b.extract(48, 16).to_u128(), 0xdead);
        assert_eq!(b.extract(0, 32).to_u128(), 0);
        b.insert(16, &Bits::from_u128(32, 0x1234_5678));
        assert_eq!(b.extract(16, 32).to_u128(), 0x1234_5678);
        assert_eq!(b.extract(0, 16).to_u128(), 0);
        assert_eq!(b.extract(48, 16).to_u128(), 0xdead);
        let mut c = Bits::zero(128);
        c.insert(60, &Bits::from_u128(8, 0xff));
        assert_eq!(c.to_u128(), 0xff << 60);
        assert_eq!(
            format!("{}", Bits::from_u128(16, 0x0001_ffff)),
            "i16 0xffff"
        );
    }
}
