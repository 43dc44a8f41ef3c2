//! llvm-tblgen's shared-suffix tables: many terminated sequences laid out in
//! one array, a sequence that is a suffix of another stored only once.
//!
//! The layout is LLVM's to the byte. LLVM keeps the sequences ordered by
//! their reversed elements, drops a new sequence that is a suffix of a
//! stored one and replaces a stored one that is a suffix of the new one: what
//! is left are the sequences that are no other's suffix, in that order, and
//! a dropped sequence lives inside the first stored one at or after it.
//! Here the distinct sequences are collected (reversed, back to back; a
//! sequence added again is found by its hash), sorted once by
//! [`SeqTable::layout`], and each caller keeps the [`SeqId`] that
//! [`SeqTable::add`] returned to ask for its offset: no ordered map, and no
//! key built to look a sequence up. (AMDGPU's register lists, relative to
//! their register, repeat: 20,000 lists, far fewer distinct ones, many long
//! and alike at the end, which is what sorting compares.)

use std::fmt::Write;
use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::out::Out;

/// A sequence added to a [`SeqTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqId(u32);

/// Terminated sequences sharing suffixes (LLVM's `SequenceToOffsetTable`).
#[derive(Clone, Debug)]
pub struct SeqTable<T> {
    /// Every distinct sequence's elements, each sequence reversed.
    items: Vec<T>,
    /// Where each distinct sequence is in `items`: (start, length).
    spans: Vec<(u32, u32)>,
    /// The distinct sequences, by the hash of their reversed elements.
    distinct: HashTable<u32>,
    /// After layout: the offset of each distinct sequence.
    offsets: Vec<u32>,
    /// After layout: the stored sequences (distinct ones), in table order.
    stored: Vec<u32>,
    entries: u32,
}

impl<T> Default for SeqTable<T> {
    fn default() -> Self {
        SeqTable {
            items: Vec::new(),
            spans: Vec::new(),
            distinct: HashTable::new(),
            offsets: Vec::new(),
            stored: Vec::new(),
            entries: 0,
        }
    }
}

fn hash_of<T: Hash>(rev: &[T]) -> u64 {
    FxBuildHasher.hash_one(rev)
}

impl<T: Ord + Clone + Hash> SeqTable<T> {
    /// Adds a sequence (before [`SeqTable::layout`]).
    pub fn add(&mut self, seq: &[T]) -> SeqId {
        self.add_iter(seq.iter().cloned())
    }

    /// Adds the sequence `seq` yields, in order.
    pub fn add_iter(&mut self, seq: impl IntoIterator<Item = T>) -> SeqId {
        let start = self.items.len();
        self.items.extend(seq);
        self.items[start..].reverse();
        let h = hash_of(&self.items[start..]);
        let (items, spans) = (&self.items, &self.spans);
        let new = &items[start..];
        let slice = |k: u32| {
            let (s, l) = spans[k as usize];
            &items[s as usize..(s + l) as usize]
        };
        if let Some(&k) = self.distinct.find(h, |&k| slice(k) == new) {
            self.items.truncate(start);
            return SeqId(k);
        }
        let k = self.spans.len() as u32;
        self.spans
            .push((start as u32, (self.items.len() - start) as u32));
        let (items, spans) = (&self.items, &self.spans);
        self.distinct.insert_unique(h, k, |&k| {
            let (s, l) = spans[k as usize];
            hash_of(&items[s as usize..(s + l) as usize])
        });
        SeqId(k)
    }

    /// The reversed elements of sequence `k`.
    fn rev(&self, k: u32) -> &[T] {
        let (start, len) = self.spans[k as usize];
        &self.items[start as usize..(start + len) as usize]
    }

    /// Gives every sequence its offset.
    pub fn layout(&mut self) {
        let mut order: Vec<u32> = (0..self.spans.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.rev(a).cmp(self.rev(b)));
        // Each sequence lives in the first stored one at or after it: the
        // next one when it is that one's suffix, else itself.
        let n = order.len();
        let mut owner = vec![0u32; n];
        for i in (0..n).rev() {
            owner[i] = match order.get(i + 1) {
                Some(&next) if self.rev(next).starts_with(self.rev(order[i])) => owner[i + 1],
                _ => i as u32,
            };
        }
        let mut start = vec![0u32; n];
        let mut entries = 0u32;
        self.stored.clear();
        for (i, &k) in order.iter().enumerate() {
            if owner[i] == i as u32 {
                start[i] = entries;
                entries += self.spans[k as usize].1 + 1;
                self.stored.push(k);
            }
        }
        self.offsets = vec![0; n];
        for (i, &k) in order.iter().enumerate() {
            let o = owner[i] as usize;
            let (own_len, len) = (self.spans[order[o] as usize].1, self.spans[k as usize].1);
            self.offsets[k as usize] = start[o] + own_len - len;
        }
        self.entries = entries;
    }

    /// The number of entries of the laid-out table.
    pub fn size(&self) -> u32 {
        self.entries
    }

    /// The offset of sequence `id` in the laid-out table.
    pub fn get(&self, id: SeqId) -> u32 {
        self.offsets[id.0 as usize]
    }

    /// The stored sequences in table order, each with its offset and its
    /// elements (in order).
    fn each_stored(&self) -> impl Iterator<Item = (u32, impl Iterator<Item = &T>)> {
        self.stored
            .iter()
            .map(move |&k| (self.offsets[k as usize], self.rev(k).iter().rev()))
    }

    /// The table as an array body: `  /* OFFSET */ E, E, TERM,` per stored
    /// sequence.
    pub fn emit(&self, o: &mut Out, print: impl Fn(&mut Out, &T), term: &str) {
        for (off, seq) in self.each_stored() {
            o.push_str("  /* ");
            o.num(off as u64);
            o.push_str(" */ ");
            for e in seq {
                print(o, e);
                o.push_str(", ");
            }
            o.push_str(term);
            o.push_str(",\n");
        }
    }
}

impl SeqTable<u8> {
    /// The table as string literals, one per stored sequence, as LLVM
    /// writes long string tables.
    pub fn emit_string_literals(&self, o: &mut Out, decl: &str) {
        o.push_str("\n#ifdef __GNUC__\n#pragma GCC diagnostic push\n");
        o.push_str("#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n#endif\n");
        o.push_str(decl);
        o.push_str(" = {\n");
        for (off, seq) in self.each_stored() {
            o.push_str("  /* ");
            o.num(off as u64);
            o.push_str(" */ \"");
            for &c in seq {
                escape_char(o, c);
            }
            o.push_str("\\0\"\n");
        }
        o.push_str("};\n#ifdef __GNUC__\n#pragma GCC diagnostic pop\n#endif\n\n");
    }
}

/// One byte of a C string literal, escaped as LLVM escapes it (octal for
/// everything but printable ASCII, `\t`, `\n`, `\r`, `\"` and `\\`).
fn escape_char(o: &mut Out, c: u8) {
    match c {
        b'\t' => o.push_str("\\t"),
        b'\n' => o.push_str("\\n"),
        b'\r' => o.push_str("\\r"),
        b'"' => o.push_str("\\\""),
        b'\\' => o.push_str("\\\\"),
        0x20..=0x7e => o.push(c as char),
        _ => {
            let _ = write!(o, "\\{c:03o}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_are_shared() {
        let mut t = SeqTable::default();
        let a = t.add(&[2u16, 3]);
        let b = t.add(&[1, 2, 3]);
        let c = t.add(&[3]);
        let d = t.add(&[4]);
        let e = t.add(&[2, 3]);
        let empty = t.add(&[]);
        t.layout();
        assert_eq!(t.get(b), 0);
        assert_eq!(t.get(a), 1);
        assert_eq!(t.get(e), 1);
        assert_eq!(t.get(c), 2);
        assert_eq!(t.get(d), 4);
        // The empty sequence is the first stored one's terminator.
        assert_eq!(t.get(empty), 3);
        assert_eq!(t.size(), 6);
        let mut o = Out::string(0);
        t.emit(&mut o, |o, e| o.push_str(&e.to_string()), "0");
        assert_eq!(o.into_string(), "  /* 0 */ 1, 2, 3, 0,\n  /* 4 */ 4, 0,\n");
    }

    /// The table LLVM's insertion procedure builds, to hold the sorted
    /// layout to it.
    fn llvm_layout(seqs: &[Vec<u8>]) -> (Vec<(Vec<u8>, u32)>, Vec<u32>) {
        use std::collections::BTreeMap;
        let rev = |s: &[u8]| s.iter().rev().copied().collect::<Vec<u8>>();
        let suffix = |a: &[u8], b: &[u8]| b.ends_with(a);
        let mut m: BTreeMap<Vec<u8>, u32> = BTreeMap::new();
        for s in seqs {
            let key = rev(s);
            if let Some((k, _)) = m.range(key.clone()..).next() {
                if suffix(s, &rev(k)) {
                    continue;
                }
            }
            let before = m
                .range(..key.clone())
                .next_back()
                .filter(|(k, _)| suffix(&rev(k), s))
                .map(|(k, _)| k.clone());
            m.insert(key, 0);
            if let Some(k) = before {
                m.remove(&k);
            }
        }
        let mut off = 0;
        for (k, v) in m.iter_mut() {
            *v = off;
            off += k.len() as u32 + 1;
        }
        let offsets = seqs
            .iter()
            .map(|s| {
                let key = rev(s);
                let (k, o) = m.range(key..).next().map(|(k, o)| (k, *o)).unwrap();
                o + (k.len() - s.len()) as u32
            })
            .collect();
        (m.into_iter().map(|(k, o)| (rev(&k), o)).collect(), offsets)
    }

    #[test]
    fn same_layout_as_llvm() {
        // Short sequences over a small alphabet: many shared suffixes.
        let mut state = 12345u32;
        let mut next = move || {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            state >> 16
        };
        for _ in 0..200 {
            let seqs: Vec<Vec<u8>> = (0..1 + next() % 30)
                .map(|_| (0..next() % 5).map(|_| (next() % 3) as u8).collect())
                .collect();
            let (want, want_offsets) = llvm_layout(&seqs);
            let mut t = SeqTable::default();
            let ids: Vec<SeqId> = seqs.iter().map(|s| t.add(s)).collect();
            t.layout();
            let got: Vec<(Vec<u8>, u32)> = t
                .each_stored()
                .map(|(o, s)| (s.copied().collect(), o))
                .collect();
            assert_eq!(got, want, "{seqs:?}");
            let offsets: Vec<u32> = ids.iter().map(|&i| t.get(i)).collect();
            assert_eq!(offsets, want_offsets, "{seqs:?}");
        }
    }
}
