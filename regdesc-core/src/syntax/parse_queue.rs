//! Parsing while the loader is still preprocessing and the evaluator is
//! already running: a queue of preprocessed files that parse workers take,
//! lowest file id first (the order in which evaluation needs them).
//!
//! A file is queued as soon as its own preprocessing ends, which happens
//! for included files before the files including them: the workers start
//! on the first leaves while the loader still reads the rest. Each file's
//! AST goes into its own [`Slot`], which the evaluator waits on.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use crate::syntax::error::SyntaxError;
use crate::syntax::{parser, FileId, SourceFileAst};

/// Where the AST of one file will be: filled once by a parse worker, then
/// taken once by its consumer (the evaluator drops each statement once it
/// is evaluated, so a full target's AST is never all alive at once).
pub(crate) type Slot = Arc<OnceLock<Mutex<Option<SourceFileAst>>>>;

/// A slot's content once filled with `ast`.
pub(crate) fn filled(ast: SourceFileAst) -> Mutex<Option<SourceFileAst>> {
    Mutex::new(Some(ast))
}

/// One file to parse.
pub(crate) struct Job {
    pub text: String,
    /// Start offset of each include statement → the included file.
    pub includes: HashMap<u32, FileId>,
    pub slot: Slot,
}

#[derive(Default)]
struct State {
    pending: BTreeMap<FileId, Job>,
    /// No more jobs will come.
    closed: bool,
}

/// The queue, and what the workers found.
#[derive(Default)]
pub(crate) struct ParseQueue {
    state: Mutex<State>,
    wake: Condvar,
    /// The syntax errors of each file that has some.
    failures: Mutex<Vec<(FileId, Vec<SyntaxError>)>>,
    panicked: AtomicBool,
}

impl ParseQueue {
    /// Queues file `id`.
    pub fn push(&self, id: FileId, job: Job) {
        if let Ok(mut s) = self.state.lock() {
            s.pending.insert(id, job);
        }
        self.wake.notify_one();
    }

    /// Says that every file has been queued; with `drop_pending`, forgets
    /// the files not started yet (their slots are filled with empty ASTs).
    pub fn close(&self, drop_pending: bool) {
        let dropped = match self.state.lock() {
            Ok(mut s) => {
                s.closed = true;
                if drop_pending {
                    std::mem::take(&mut s.pending)
                } else {
                    BTreeMap::new()
                }
            }
            Err(_) => BTreeMap::new(),
        };
        for job in dropped.into_values() {
            let _ = job.slot.set(filled(SourceFileAst::default()));
        }
        self.wake.notify_all();
    }

    /// Parses queued files until the queue is closed and empty.
    pub fn work(&self) {
        while let Some((id, job)) = self.next() {
            self.parse(id, job);
        }
    }

    fn next(&self) -> Option<(FileId, Job)> {
        let mut s = self.state.lock().ok()?;
        loop {
            if let Some(next) = s.pending.pop_first() {
                return Some(next);
            }
            if s.closed {
                return None;
            }
            s = self.wake.wait(s).ok()?;
        }
    }

    fn parse(&self, id: FileId, job: Job) {
        let Job {
            text,
            includes,
            slot,
        } = job;
        let parsed = std::panic::catch_unwind(|| parser::parse_preprocessed(id, &text));
        let ast = match parsed {
            Ok(Ok(mut ast)) => {
                if !includes.is_empty() {
                    super::loader::link_includes(&mut ast.stmts, &includes);
                }
                ast
            }
            Ok(Err(errs)) => {
                if let Ok(mut f) = self.failures.lock() {
                    f.push((id, errs));
                }
                SourceFileAst::default()
            }
            Err(_) => {
                self.panicked.store(true, Ordering::Relaxed);
                SourceFileAst::default()
            }
        };
        // Whatever happened, nobody waits for this file forever.
        let _ = slot.set(filled(ast));
    }

    /// The syntax errors found, in file order, and whether a parse
    /// panicked.
    pub fn into_results(self) -> (Vec<SyntaxError>, bool) {
        let mut failures = self
            .failures
            .into_inner()
            .unwrap_or_else(|p| p.into_inner());
        failures.sort_by_key(|(id, _)| *id);
        let errors = failures.into_iter().flat_map(|(_, e)| e).collect();
        (errors, self.panicked.into_inner())
    }
}
