//! Parsing on demand, while the evaluator runs: the preprocessed files
//! wait here until the consumer asks for a file, and are parsed then, on
//! the consumer's thread: one top-level statement at a time as the
//! consumer takes them ([`Statements`]), or whole ([`ParseQueue::parse_now`]).
//!
//! The parser is several times faster than the evaluator, so a parse
//! thread would soon hold the tree of every file at once, in its own
//! heap, where the evaluator's frees cannot be reused for records: on the
//! full targets that cost 5–10 % of the peak over parsing in place, and
//! parsing statement by statement keeps no more of a file's tree alive
//! than the statement being evaluated.
//! Each file's tree goes into its own [`Slot`]; the files nobody asked for
//! are parsed at the end ([`ParseQueue::work`]), so that every file's
//! syntax errors are still reported.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::syntax::error::SyntaxError;
use crate::syntax::{descent, parser, FileId, SourceFileAst, Stmt};

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
        if let Some(job) = self.take_job(id) {
            self.parse(id, job);
        }
    }

    /// File `id`'s job, if it is still waiting.
    pub fn take_job(&self, id: FileId) -> Option<Job> {
        self.pending.lock().ok().and_then(|mut p| p.remove(&id))
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
        let ast = self.parse_text(id, &text, &includes, false);
        drop(text);
        // Whatever happened, nobody waits for this file forever.
        let _ = slot.set(filled(ast));
    }

    /// The tree of file `id`'s preprocessed `text`, its includes linked
    /// (by pest alone with `pest_only`); empty after a syntax error, which
    /// is kept for [`ParseQueue::take_results`].
    fn parse_text(
        &self,
        id: FileId,
        text: &str,
        includes: &HashMap<u32, FileId>,
        pest_only: bool,
    ) -> SourceFileAst {
        // On this thread (so in its heap, which the evaluator's frees
        // refill), on a stack of its own.
        let parsed = stacker::grow(PARSE_STACK, || {
            std::panic::catch_unwind(|| match pest_only {
                true => parser::parse_with_pest(id, text),
                false => parser::parse_preprocessed(id, text),
            })
        });
        match parsed {
            Ok(Ok(mut ast)) => {
                if !includes.is_empty() {
                    super::loader::link_includes(&mut ast.stmts, includes);
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
        }
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

/// The top-level statements of one file, parsed one at a time as they are
/// taken: the consumer drops each once evaluated, so no more of the file's
/// tree than one statement is alive at once.
pub struct Statements<'q> {
    queue: Option<&'q ParseQueue>,
    id: FileId,
    rest: Rest,
}

enum Rest {
    /// The fast parser's next statement starts at `pos`; `taken`
    /// statements came before it.
    Text {
        text: String,
        includes: HashMap<u32, FileId>,
        pos: usize,
        taken: usize,
    },
    /// What is left of a whole tree.
    Tree(std::vec::IntoIter<Stmt>),
}

/// Stack kept free for one statement of the fast parser (which recurses a
/// few frames per nesting level, bounded by the preprocessor), and the
/// segment to grow by when less is left.
const STMT_RED_ZONE: usize = 2 << 20;
const STMT_STACK: usize = 16 << 20;

impl<'q> Statements<'q> {
    /// The statements of file `id`, from its job when it is still waiting,
    /// else from `tree`.
    pub(crate) fn new(
        queue: Option<&'q ParseQueue>,
        id: FileId,
        job: Option<Job>,
        tree: impl FnOnce() -> SourceFileAst,
    ) -> Statements<'q> {
        let rest = match job {
            Some(Job { text, includes, .. }) => Rest::Text {
                text,
                includes,
                pos: 0,
                taken: 0,
            },
            None => Rest::Tree(tree().stmts.into_iter()),
        };
        Statements { queue, id, rest }
    }
}

impl Iterator for Statements<'_> {
    type Item = Stmt;

    fn next(&mut self) -> Option<Stmt> {
        let Rest::Text {
            text,
            includes,
            pos,
            taken,
        } = &mut self.rest
        else {
            let Rest::Tree(rest) = &mut self.rest else {
                return None;
            };
            return rest.next();
        };
        let id = self.id;
        let next = stacker::maybe_grow(STMT_RED_ZONE, STMT_STACK, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                descent::next_stmt(id, text, pos)
            }))
        });
        match next {
            Ok(Some(Some(mut stmt))) => {
                *taken += 1;
                if !includes.is_empty() {
                    super::loader::link_includes(std::slice::from_mut(&mut stmt), includes);
                }
                Some(stmt)
            }
            Ok(Some(None)) => {
                self.rest = Rest::Tree(Vec::new().into_iter());
                None
            }
            // Pest decides, from this statement on (the ones before are
            // the same in its tree).
            _ => {
                let ast = match self.queue {
                    Some(q) => q.parse_text(id, text, includes, true),
                    None => SourceFileAst::default(),
                };
                let mut rest = ast.stmts.into_iter();
                for _ in 0..*taken {
                    rest.next();
                }
                self.rest = Rest::Tree(rest);
                self.next()
            }
        }
    }
}
