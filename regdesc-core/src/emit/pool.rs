//! Shared pools for generated tables: sequences laid out once, with a
//! sequence that is the tail of another stored inside it (LLVM's
//! `SequenceToOffsetTable` idea), and string tables.

use std::collections::{BTreeMap, BTreeSet};

/// Sequences of `T`, each stored once; a sequence that ends another one is
/// stored inside it. With a terminator, every stored sequence is followed
/// by it (difference lists end in 0).
pub struct Pool<T: Ord + Clone> {
    seqs: BTreeSet<Vec<T>>,
    terminator: Option<T>,
    layout: Option<Layout<T>>,
}

struct Layout<T> {
    items: Vec<T>,
    offsets: BTreeMap<Vec<T>, u32>,
}

impl<T: Ord + Clone> Pool<T> {
    /// A pool whose sequences are each followed by `terminator`, if any.
    pub fn new(terminator: Option<T>) -> Pool<T> {
        Pool {
            seqs: BTreeSet::new(),
            terminator,
            layout: None,
        }
    }

    /// Adds a sequence (before [`Pool::offset`] is first called).
    pub fn add(&mut self, seq: &[T]) {
        debug_assert!(self.layout.is_none(), "pool already laid out");
        self.seqs.insert(seq.to_vec());
    }

    fn lay_out(&mut self) -> &Layout<T> {
        if self.layout.is_none() {
            // Sorting reversed sequences puts every sequence right before
            // the ones it is a tail of.
            let mut rev: Vec<Vec<T>> = self
                .seqs
                .iter()
                .map(|s| s.iter().rev().cloned().collect())
                .collect();
            rev.sort();
            let n = rev.len();
            let mut owner: Vec<usize> = (0..n).collect();
            for i in (0..n.saturating_sub(1)).rev() {
                if rev[i + 1].starts_with(&rev[i]) {
                    owner[i] = owner[i + 1];
                }
            }
            let mut items = Vec::new();
            let mut start = vec![0u32; n];
            for i in 0..n {
                if owner[i] == i {
                    start[i] = items.len() as u32;
                    items.extend(rev[i].iter().rev().cloned());
                    if let Some(t) = &self.terminator {
                        items.push(t.clone());
                    }
                }
            }
            let mut offsets = BTreeMap::new();
            for i in 0..n {
                let o = owner[i];
                let at = start[o] + (rev[o].len() - rev[i].len()) as u32;
                offsets.insert(rev[i].iter().rev().cloned().collect(), at);
            }
            self.layout = Some(Layout { items, offsets });
        }
        match &self.layout {
            Some(l) => l,
            None => unreachable!("laid out above"),
        }
    }

    /// Where `seq` (added before) starts.
    pub fn offset(&mut self, seq: &[T]) -> u32 {
        let l = self.lay_out();
        l.offsets.get(seq).copied().unwrap_or(0)
    }

    /// Every stored element.
    pub fn items(&mut self) -> Vec<T> {
        self.lay_out().items.clone()
    }
}

/// Strings stored back to back, with `n + 1` bounds.
pub struct Strings {
    pub text: String,
    pub bounds: Vec<u32>,
}

impl Strings {
    pub fn new<'a>(it: impl IntoIterator<Item = &'a str>) -> Strings {
        let mut text = String::new();
        let mut bounds = vec![0u32];
        for s in it {
            text.push_str(s);
            bounds.push(text.len() as u32);
        }
        Strings { text, bounds }
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;

    #[test]
    fn tails_are_shared() {
        let mut p = Pool::new(Some(0u16));
        p.add(&[3, 1, 2]);
        p.add(&[1, 2]);
        p.add(&[2]);
        p.add(&[5, 2]);
        p.add(&[]);
        let items = p.items();
        for s in [&[3u16, 1, 2][..], &[1, 2], &[2], &[5, 2], &[]] {
            let o = p.offset(s) as usize;
            assert_eq!(&items[o..o + s.len()], s);
            assert_eq!(items[o + s.len()], 0);
        }
        // [3,1,2] holds [1,2] and [2]; [5,2] stands alone.
        assert_eq!(items.len(), 4 + 3);
    }
}
