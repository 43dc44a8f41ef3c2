//! Source texts and byte ranges in them: what every diagnostic points
//! into. Below the IR, the diagnostics and the values, so none of them
//! needs another to name a place in a file.

use std::ops::Range;
use std::sync::Arc;

/// A byte range in the module's source text.
pub type Span = Range<usize>;

/// A named source text: what diagnostics point into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The file name shown in diagnostics.
    pub name: String,
    pub text: Arc<str>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = self.text.get(..offset).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}
