//! llvm-tblgen's shared-suffix tables: many terminated sequences laid out in
//! one array, a sequence that is a suffix of another stored only once.
//!
//! The layout is LLVM's to the byte: sequences are kept ordered by their
//! reversed elements (so that a suffix sorts right before the sequences that
//! end with it), a new sequence that is a suffix of a stored one is dropped,
//! and a stored sequence that is a suffix of the new one is replaced by it.
//! Offsets follow that order, each sequence taking one more entry for its
//! terminator.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::out::Out;

/// A sequence ordered by its reversed elements.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Reversed<T>(Vec<T>);

impl<T: Ord> Ord for Reversed<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

impl<T: Ord> PartialOrd for Reversed<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

fn is_suffix<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() <= b.len() && a.iter().rev().zip(b.iter().rev()).all(|(x, y)| x == y)
}

/// Terminated sequences sharing suffixes (LLVM's `SequenceToOffsetTable`).
#[derive(Clone, Debug)]
pub struct SeqTable<T> {
    seqs: BTreeMap<Reversed<T>, u32>,
    entries: u32,
}

impl<T: Ord + Clone> Default for SeqTable<T> {
    fn default() -> Self {
        SeqTable {
            seqs: BTreeMap::new(),
            entries: 0,
        }
    }
}

impl<T: Ord + Clone> SeqTable<T> {
    /// Adds a sequence (before [`SeqTable::layout`]).
    pub fn add(&mut self, seq: &[T]) {
        let key = Reversed(seq.to_vec());
        if let Some((k, _)) = self.seqs.range(&key..).next() {
            if is_suffix(seq, &k.0) {
                return;
            }
        }
        let before = self
            .seqs
            .range(..&key)
            .next_back()
            .filter(|(k, _)| is_suffix(&k.0, seq))
            .map(|(k, _)| k.clone());
        self.seqs.insert(key, 0);
        if let Some(k) = before {
            self.seqs.remove(&k);
        }
    }

    /// Gives every stored sequence its offset.
    pub fn layout(&mut self) {
        let mut entries = 0u32;
        for (k, off) in self.seqs.iter_mut() {
            *off = entries;
            entries += k.0.len() as u32 + 1;
        }
        self.entries = entries;
    }

    /// The number of entries of the laid-out table.
    pub fn size(&self) -> u32 {
        self.entries
    }

    /// The offset of `seq`, which was added. A sequence never added gets the
    /// offset of the first stored sequence it is not greater than, as in
    /// LLVM (whose callers never do this).
    pub fn get(&self, seq: &[T]) -> u32 {
        let key = Reversed(seq.to_vec());
        match self.seqs.range(&key..).next() {
            Some((k, off)) => off + (k.0.len().saturating_sub(seq.len())) as u32,
            None => 0,
        }
    }

    /// The table as an array body: `  /* OFFSET */ E, E, TERM,` per stored
    /// sequence.
    pub fn emit(&self, o: &mut Out, print: impl Fn(&mut Out, &T), term: &str) {
        for (k, off) in &self.seqs {
            let _ = write!(o, "  /* {off} */ ");
            for e in &k.0 {
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
        for (k, off) in &self.seqs {
            let _ = write!(o, "  /* {off} */ \"");
            for &c in &k.0 {
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
        t.add(&[2u16, 3]);
        t.add(&[1, 2, 3]);
        t.add(&[3]);
        t.add(&[4]);
        t.layout();
        assert_eq!(t.get(&[1, 2, 3]), 0);
        assert_eq!(t.get(&[2, 3]), 1);
        assert_eq!(t.get(&[3]), 2);
        assert_eq!(t.get(&[4]), 4);
        assert_eq!(t.size(), 6);
        let mut o = Out::string(0);
        t.emit(&mut o, |o, e| o.push_str(&e.to_string()), "0");
        assert_eq!(o.into_string(), "  /* 0 */ 1, 2, 3, 0,\n  /* 4 */ 4, 0,\n");
    }
}
