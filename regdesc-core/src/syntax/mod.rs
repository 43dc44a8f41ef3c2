//! Stage 1: TableGen source → AST.
//!
//! `preprocess` handles `#define`/`#ifdef`/`#ifndef`/`#else`/`#endif`,
//! `grammar.pest` + `parser` build the AST, `loader` follows `include`s
//! through the `-I` search path.
//!
//! How a load goes: the root file is read and preprocessed; the
//! preprocessor reports each active `include "path"` as it meets it, and the
//! loader reads and preprocesses that file right away (so `#define`s are
//! seen in include order, across files). Files are independent once
//! preprocessed: each is parsed when its consumer first asks for it
//! ([`load_file_then`]; [`load_file`] parses them all, in parallel), and
//! `IncludeStmt::file` is linked to the included file. Errors: every
//! preprocessor error, the first syntax error of each file, and what the
//! AST builder finds (unknown operators, operand counts, keywords used as
//! names, misplaced statements...), in file order.
//!
//! Where this deliberately follows llvm-tblgen 14 (checked by experiment):
//! include search (current directory, then `-I` in order; not the including
//! file's directory), the preprocessor's directive recognition, lexer quirks
//! (`0-15` is a range, `8i` is an identifier, nested `/* */`), the trailing
//! paste (`a#` before `:`, `;`, `{` only), right-to-left pastes, `<ranges>`
//! in a top-level `let` and `{ranges}` in a body `let`, trailing commas
//! only in `[...]` lists and `!cond`, and which statements may appear in
//! `foreach`/`if` bodies and multiclasses.

pub mod ast;
mod descent;
pub mod error;
mod loader;
mod parse_queue;
mod parser;
pub mod preprocess;

pub use ast::*;
pub use error::SyntaxError;
pub use parse_queue::Statements;
pub use parser::{parse, parse_value};

use std::path::PathBuf;

pub use crate::source::{SourceFile, SourceMap};

use crate::diag::Diagnostic;
use std::path::Path;

/// The bytes of identifiers (`[A-Za-z0-9_]`), indexed by byte: one load
/// per byte in the scanners' inner loops.
static WORD_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

/// Is `b` a byte of an identifier (`[A-Za-z0-9_]`)?
#[inline]
pub(crate) fn is_word_byte(b: u8) -> bool {
    WORD_BYTES[b as usize]
}

/// How to find and preprocess files.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `-I` directories, searched in order after the path as given.
    pub include_dirs: Vec<PathBuf>,
    /// `-D` macro names.
    pub defines: Vec<String>,
    /// Built-in files used when an `include` is not found on disk
    /// (for example the embedded `llvm/Target/Target.td` prelude):
    /// (include path, contents).
    pub builtin_files: Vec<(String, String)>,
}

/// The result of loading: every file read, and its AST.
#[derive(Debug, Default)]
pub struct Loaded {
    pub sources: SourceMap,
    /// The AST of each file, indexed by [`FileId`], until it is taken
    /// ([`Loaded::take_ast`]). While a [`load_file_then`] consumer runs,
    /// the files it has not asked for are not parsed yet.
    asts: Vec<parse_queue::Slot>,
    /// The file named on the command line.
    pub root: FileId,
    /// Notes and warnings from loading (for example "used the built-in prelude").
    pub diagnostics: Vec<Diagnostic>,
    /// How long [`Loaded::take_ast`] spent parsing files on demand.
    pub waited: std::cell::Cell<std::time::Duration>,
    /// The files still to parse, while a [`load_file_then`] consumer runs.
    queue: Option<std::sync::Arc<parse_queue::ParseQueue>>,
}

impl Loaded {
    /// Takes the AST of file `id` (parsing it now if it is not parsed
    /// yet): its consumer owns it and can drop each statement once done
    /// with it. A file's AST is taken once; later calls get an empty one.
    pub fn take_ast(&self, id: FileId) -> SourceFileAst {
        let Some(slot) = self.asts.get(id as usize) else {
            return SourceFileAst::default();
        };
        let cell = match slot.get() {
            Some(cell) => cell,
            None => {
                let start = std::time::Instant::now();
                if let Some(q) = &self.queue {
                    q.parse_now(id);
                }
                self.waited.set(self.waited.get() + start.elapsed());
                match slot.get() {
                    Some(cell) => cell,
                    None => return SourceFileAst::default(),
                }
            }
        };
        // A poisoned lock means a parse panicked, which the loader reports;
        // its AST (if any) is still whole.
        let mut guard = cell.lock().unwrap_or_else(|p| p.into_inner());
        guard.take().unwrap_or_default()
    }

    /// The top-level statements of file `id`, parsed one at a time as they
    /// are taken when the file is still waiting to be parsed (see
    /// [`Statements`]), else those of its tree ([`Loaded::take_ast`]).
    /// Like the tree, they can be taken once.
    pub fn statements(&self, id: FileId) -> Statements<'_> {
        let queue = self.queue.as_deref();
        let job = queue.and_then(|q| q.take_job(id));
        Statements::new(queue, id, job, || self.take_ast(id))
    }

    /// The number of files.
    pub fn file_count(&self) -> usize {
        self.asts.len()
    }
}

/// Reads, preprocesses and parses `path` and everything it includes.
/// On failure returns the sources read so far (for rendering) and every error.
pub fn load_file(path: &Path, opts: &LoadOptions) -> Result<Loaded, (SourceMap, Vec<Diagnostic>)> {
    loader::load_file(path, opts)
}

/// Loads `path` like [`load_file`], but runs `consume` once the files are
/// preprocessed, parsing each file when `consume` first asks for its AST
/// (and the rest after it returns). A syntax error anywhere wins over
/// whatever `consume` returned.
pub fn load_file_then<R>(
    path: &Path,
    opts: &LoadOptions,
    consume: impl FnOnce(&Loaded) -> R,
) -> Result<(Loaded, R), (SourceMap, Vec<Diagnostic>)> {
    loader::load_file_then(path, opts, consume)
}

/// Like [`load_file`], for text held in memory under the name `name`.
pub fn load_str(
    name: &str,
    text: &str,
    opts: &LoadOptions,
) -> Result<Loaded, (SourceMap, Vec<Diagnostic>)> {
    loader::load_str(name, text, opts)
}

/// Runs `f` on a thread with a large stack (the parser is recursive), or
/// inline if such a thread cannot be started.
pub(crate) fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let cell = std::sync::Mutex::new(Some(f));
    let spawned = std::thread::scope(|s| {
        let cell = &cell;
        let h = std::thread::Builder::new()
            .name("regdesc-syntax".into())
            .stack_size(256 << 20)
            .spawn_scoped(s, move || {
                let f = cell.lock().ok().and_then(|mut g| g.take());
                f.map(|f| f())
            });
        match h {
            Ok(h) => match h.join() {
                Ok(v) => v,
                Err(p) => std::panic::resume_unwind(p),
            },
            Err(_) => None,
        }
    });
    match spawned {
        Some(v) => v,
        None => {
            let f = cell.into_inner().unwrap_or_else(|p| p.into_inner());
            match f {
                Some(f) => f(),
                None => unreachable!("the parser closure ran without a result"),
            }
        }
    }
}

#[cfg(test)]
mod tests;
