//! Source files and locations, below every stage.
//!
//! Every stage points into the files it read with a [`Span`]; a
//! [`SourceMap`] holds those files (with where each was included from), so
//! that `diag` can render any stage's diagnostics without knowing the stage.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Index of a file in the [`SourceMap`].
pub type FileId = u32;

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span of bytes `start..end` of `file`.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both (they must be in the same file).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One loaded source file.
///
/// A file read from disk does not keep its text: once preprocessed, only
/// what locating a byte needs (line starts, where multi-byte characters
/// are) and a hash of the text stay. A diagnostic that shows the source
/// reads the file again ([`SourceFile::text`]); if it changed since, the
/// diagnostic goes without its snippet. Text given in memory (tests, the
/// `regdesc!` macro, the built-in prelude) is kept.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as it was opened (used in diagnostics).
    pub path: PathBuf,
    /// Where it was included from (`None` for the root file).
    pub included_from: Option<Span>,
    /// A file of regdesc's built-in prelude, used because the include path
    /// did not have it.
    pub builtin: bool,
    text: Text,
    /// Length of the text in bytes.
    len: u32,
    /// Byte offset of the start of each line after the first.
    line_starts: Vec<u32>,
    /// Byte offsets of the UTF-8 continuation bytes (columns count chars).
    continuations: Vec<u32>,
}

/// Where a [`SourceFile`]'s text is.
#[derive(Clone, Debug)]
enum Text {
    /// Given in memory, kept.
    Kept(String),
    /// On disk at the file's path: read again on first use, if its hash
    /// still matches (`None` once read: changed or unreadable).
    OnDisk {
        hash: u64,
        reread: OnceLock<Option<String>>,
    },
}

fn text_hash(text: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(text)
}

/// Reads a source file as the loader does: invalid UTF-8 is replaced.
pub fn read_source(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// The offset just past each `\n` of `text`. Eight bytes are tested at a
/// time (a word with no newline, most of them, costs a few instructions).
fn line_starts(text: &str) -> Vec<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let b = text.as_bytes();
    let mut v: Vec<u32> = Vec::with_capacity(b.len() / 32 + 1);
    let words = b.chunks_exact(8);
    let tail = words.remainder();
    let mut at = 0u32;
    for w in words {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
            ^ (ONES * u64::from(b'\n'));
        // A zero byte of `x` (a newline in `w`) sets its high bit here; a
        // word with none sets no bit.
        if x.wrapping_sub(ONES) & !x & HIGHS != 0 {
            v.extend(
                (0u32..)
                    .zip(w)
                    .filter(|&(_, &c)| c == b'\n')
                    .map(|(k, _)| at + k + 1),
            );
        }
        at += 8;
    }
    v.extend(
        (0u32..)
            .zip(tail)
            .filter(|&(_, &c)| c == b'\n')
            .map(|(k, _)| at + k + 1),
    );
    v.shrink_to_fit();
    v
}

/// The offsets of the UTF-8 continuation bytes of `text` (none in an ASCII
/// file, which is checked first, a word at a time).
fn continuations(text: &str) -> Vec<u32> {
    if text.is_ascii() {
        return Vec::new();
    }
    let mut v: Vec<u32> = (text.bytes().zip(0u32..))
        .filter(|&(b, _)| b & 0xC0 == 0x80)
        .map(|(_, i)| i)
        .collect();
    v.shrink_to_fit();
    v
}

impl SourceFile {
    fn new(path: PathBuf, text: Text, of: &str, included_from: Option<Span>) -> SourceFile {
        SourceFile {
            path,
            included_from,
            builtin: false,
            text,
            len: of.len() as u32,
            line_starts: line_starts(of),
            continuations: continuations(of),
        }
    }

    /// A file whose text is given in memory, and kept.
    pub fn in_memory(path: PathBuf, text: String, included_from: Option<Span>) -> SourceFile {
        let mut f = SourceFile::new(path, Text::Kept(String::new()), &text, included_from);
        f.text = Text::Kept(text);
        f
    }

    /// A file read from `path` (with [`read_source`]), whose text is not
    /// kept: [`SourceFile::text`] reads it again.
    pub fn on_disk(path: PathBuf, text: &str, included_from: Option<Span>) -> SourceFile {
        let hash = text_hash(text);
        let reread = OnceLock::new();
        SourceFile::new(path, Text::OnDisk { hash, reread }, text, included_from)
    }

    /// The text, read again from disk if it was not kept. `None` if the
    /// file can no longer be read, or changed since it was loaded.
    pub fn text(&self) -> Option<&str> {
        match &self.text {
            Text::Kept(t) => Some(t),
            Text::OnDisk { hash, reread } => reread
                .get_or_init(|| {
                    read_source(&self.path)
                        .ok()
                        .filter(|t| t.len() == self.len as usize && text_hash(t) == *hash)
                })
                .as_deref(),
        }
    }

    /// Length of the text in bytes.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// 1-based line and column (in chars) of a byte offset (clamped to the
    /// text).
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = offset.min(self.len);
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let line_start = match line {
            0 => 0,
            k => self.line_starts[k - 1],
        };
        let multi = self.continuations.partition_point(|&c| c < offset)
            - self.continuations.partition_point(|&c| c < line_start);
        (line + 1, (offset - line_start) as usize - multi + 1)
    }
}

/// All files read for one run, indexed by [`FileId`].
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// The files, in the order they were read.
    pub files: Vec<SourceFile>,
}

/// A bound on include chains walked for notes (the loader refuses deeper
/// nesting long before this).
const MAX_CHAIN: usize = 1024;

impl SourceMap {
    /// The file `id`.
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id as usize]
    }

    /// 1-based line and column (in chars) of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> (usize, usize) {
        self.files[file as usize].line_col(offset)
    }

    /// The include chain of `file`, innermost first: each included file's
    /// path and the `include` statement that brought it in.
    pub fn include_chain(&self, file: FileId) -> Vec<(&SourceFile, Span)> {
        let mut out = Vec::new();
        let mut cur = file;
        while let Some(sf) = self.files.get(cur as usize) {
            let Some(from) = sf.included_from else { break };
            out.push((sf, from));
            cur = from.file;
            if out.len() > MAX_CHAIN {
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line and column the way they were computed from the whole text.
    fn reference(text: &str, offset: usize) -> (usize, usize) {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |p| p + 1);
        (line, before[line_start..].chars().count() + 1)
    }

    #[test]
    fn line_col_without_the_text() {
        let text = "a\n\u{e9}t\u{e9} \u{1F600}x\n\n\tz\u{e9}\n";
        let f = SourceFile::on_disk(PathBuf::from("/nonexistent/x.td"), text, None);
        for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
            assert_eq!(
                f.line_col(offset as u32),
                reference(text, offset),
                "{offset}"
            );
        }
        assert_eq!(f.line_col(1000), reference(text, text.len()));
        assert_eq!(f.len(), text.len());
        // Not kept, and not on disk: no text, no panic.
        assert_eq!(f.text(), None);
        let m = SourceFile::in_memory(PathBuf::from("x.td"), text.into(), None);
        assert_eq!(m.text(), Some(text));
        assert_eq!(m.line_col(3), f.line_col(3));
    }

    #[test]
    fn line_starts_word_at_a_time() {
        // Newlines at every position of a word, in the tail, in a row.
        let mut text = String::new();
        for k in 0..40 {
            text.push_str(&"x".repeat(k % 11));
            text.push('\n');
            if k % 7 == 0 {
                text.push_str("\n\n\u{e9}");
            }
        }
        for end in 0..text.len() {
            let Some(t) = text.get(..end) else { continue };
            let naive: Vec<u32> = t
                .bytes()
                .zip(1u32..)
                .filter(|&(b, _)| b == b'\n')
                .map(|(_, i)| i)
                .collect();
            assert_eq!(line_starts(t), naive, "{end}");
            let cont: Vec<u32> = t
                .bytes()
                .zip(0u32..)
                .filter(|&(b, _)| b & 0xC0 == 0x80)
                .map(|(_, i)| i)
                .collect();
            assert_eq!(continuations(t), cont, "{end}");
        }
    }
}
