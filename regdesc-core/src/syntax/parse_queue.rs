//! Parsing on demand, while the evaluator runs: the preprocessed files
//! wait here until the consumer asks for a file's tree
//! ([`ParseQueue::parse_now`]), and are parsed then, on the consumer's
//! thread.
//!
//! The parser is several times faster than the evaluator, so a parse
//! thread would soon hold the tree of every file at once, in its own
//! heap, where the evaluator's frees cannot be reused for records: on the
//! full targets that cost 5–10 % of the peak over parsing in place, and
//! parsing on demand also keeps only the trees being evaluated alive.
//! Each file's tree goes into its own [`Slot`]; the files nobody asked for
//! are parsed at the end ([`ParseQueue::work`]), so that every file's
//! syntax errors are still reported.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::syntax::error::SyntaxError;
use crate::syntax::{parser, FileId, SourceFileAst};

/// Where the AST of one file will be: filled once when it is parsed, then
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

/// Stack for one file's parse: the parsers recurse once or more per
/// nesting level (bounded by the preprocessor), pest's error path deepest.
const PARSE_STACK: usize = 256 << 20;

/// The files waiting to be parsed, and what parsing found.
#[derive(Default)]
pub(crate) struct ParseQueue {
    pending: Mutex<BTreeMap<FileId, Job>>,
    /// The syntax errors of each file that has some.
    failures: Mutex<Vec<(FileId, Vec<SyntaxError>)>>,
    panicked: AtomicBool,
}

impl std::fmt::Debug for ParseQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParseQueue")
    }
}

impl ParseQueue {
    /// Queues file `id`.
    pub fn push(&self, id: FileId, job: Job) {
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id, job);
        }
    }

    /// Forgets the files not parsed yet (their slots are filled with empty
    /// ASTs).
    pub fn drop_pending(&self) {
        let dropped = match self.pending.lock() {
            Ok(mut p) => std::mem::take(&mut *p),
            Err(_) => BTreeMap::new(),
        };
        for job in dropped.into_values() {
            let _ = job.slot.set(filled(SourceFileAst::default()));
        }
    }

    /// Parses file `id` now if it is still waiting.
    pub fn parse_now(&self, id: FileId) {
        let job = self.pending.lock().ok().and_then(|mut p| p.remove(&id));
        if let Some(job) = job {
            self.parse(id, job);
        }
    }

    /// Parses every file still waiting.
    pub fn work(&self) {
        loop {
            let next = self.pending.lock().ok().and_then(|mut p| p.pop_first());
            let Some((id, job)) = next else { break };
            self.parse(id, job);
        }
    }

    fn parse(&self, id: FileId, job: Job) {
        let Job {
            text,
            includes,
            slot,
        } = job;
        // On this thread (so in its heap, which the evaluator's frees
        // refill), on a stack of its own.
        let parsed = stacker::grow(PARSE_STACK, || {
            std::panic::catch_unwind(|| parser::parse_preprocessed(id, &text))
        });
        drop(text);
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
    pub fn take_results(&self) -> (Vec<SyntaxError>, bool) {
        let mut failures = match self.failures.lock() {
            Ok(mut f) => std::mem::take(&mut *f),
            Err(p) => std::mem::take(&mut *p.into_inner()),
        };
        failures.sort_by_key(|(id, _)| *id);
        let errors = failures.into_iter().flat_map(|(_, e)| e).collect();
        (errors, self.panicked.load(Ordering::Relaxed))
    }
}
