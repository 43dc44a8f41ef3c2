//! Source files and locations, below every stage.
//!
//! Every stage points into the files it read with a [`Span`]; a
//! [`SourceMap`] holds those files (with where each was included from), so
//! that `diag` can render any stage's diagnostics without knowing the stage.

use std::path::PathBuf;

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
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as it was opened (used in diagnostics).
    pub path: PathBuf,
    /// The original text.
    pub text: String,
    /// Where it was included from (`None` for the root file).
    pub included_from: Option<Span>,
    /// A file of regdesc's built-in prelude, used because the include path
    /// did not have it.
    pub builtin: bool,
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
        let text = &self.files[file as usize].text;
        let offset = (offset as usize).min(text.len());
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |p| p + 1);
        let col = before[line_start..].chars().count() + 1;
        (line, col)
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
