//! [`VecMap`]: a small ordered map kept as a sorted vector.
//!
//! Sub-register maps and composite maps hold tens to a few hundred entries,
//! are mostly appended to in key order (new indices get the highest
//! numbers), and are iterated in key order far more than they are changed:
//! a sorted vector beats a B-tree on all three counts.

/// An ordered map over a sorted `Vec<(K, V)>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VecMap<K, V> {
    items: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap { items: Vec::new() }
    }
}

impl<K: Ord + Copy, V: Copy> VecMap<K, V> {
    pub fn new() -> Self {
        VecMap { items: Vec::new() }
    }

    /// The map of `items`, which must be sorted by key without duplicates.
    pub fn from_sorted(items: Vec<(K, V)>) -> Self {
        debug_assert!(items.windows(2).all(|w| w[0].0 < w[1].0));
        VecMap { items }
    }

    fn find(&self, k: &K) -> Result<usize, usize> {
        // Fast path: appending in key order.
        match self.items.last() {
            Some((last, _)) if last < k => Err(self.items.len()),
            _ => self.items.binary_search_by(|(x, _)| x.cmp(k)),
        }
    }

    pub fn get(&self, k: &K) -> Option<&V> {
        self.find(k).ok().map(|i| &self.items[i].1)
    }

    pub fn contains_key(&self, k: &K) -> bool {
        self.find(k).is_ok()
    }

    /// Inserts or replaces; returns the previous value.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.find(&k) {
            Ok(i) => Some(std::mem::replace(&mut self.items[i].1, v)),
            Err(i) => {
                self.items.insert(i, (k, v));
                None
            }
        }
    }

    /// Inserts `v` unless `k` is present; returns the value now at `k` and
    /// whether it was inserted.
    pub fn get_or_insert(&mut self, k: K, v: V) -> (V, bool) {
        match self.find(&k) {
            Ok(i) => (self.items[i].1, false),
            Err(i) => {
                self.items.insert(i, (k, v));
                (v, true)
            }
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator + Clone {
        self.items.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + Clone {
        self.items.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone {
        self.items.iter().map(|(_, v)| v)
    }

    /// The entries as a slice of pairs, in key order.
    pub fn as_slice(&self) -> &[(K, V)] {
        &self.items
    }
}

impl<'a, K: Ord + Copy, V: Copy> IntoIterator for &'a VecMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;
    fn into_iter(self) -> Self::IntoIter {
        fn split<K, V>(p: &(K, V)) -> (&K, &V) {
            (&p.0, &p.1)
        }
        self.items
            .iter()
            .map(split as fn(&'a (K, V)) -> (&'a K, &'a V))
    }
}

#[cfg(test)]
mod tests {
    use super::VecMap;

    #[test]
    fn ordered() {
        let mut m = VecMap::new();
        assert_eq!(m.insert(5u32, 1u32), None);
        assert_eq!(m.insert(2, 2), None);
        assert_eq!(m.insert(9, 3), None);
        assert_eq!(m.insert(5, 4), Some(1));
        assert_eq!(m.get_or_insert(2, 7), (2, false));
        assert_eq!(m.get_or_insert(3, 7), (7, true));
        assert_eq!(m.keys().copied().collect::<Vec<_>>(), vec![2, 3, 5, 9]);
        assert_eq!(m.get(&5), Some(&4));
        assert!(!m.contains_key(&4));
    }
}
