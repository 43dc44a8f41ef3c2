//! Reads files, follows `include`s, preprocesses and parses everything.
//!
//! Include paths are resolved the way llvm-tblgen 14 does it (checked by
//! experiment): first the path as written, relative to the current
//! directory, then each `-I` directory in order. The including file's own
//! directory is *not* searched. When nothing is found on disk, the
//! in-memory [`LoadOptions::builtin_files`] are tried.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::diag::Diagnostic;
use crate::source::read_source;
use crate::syntax::error::SyntaxError;
use crate::syntax::parse_queue::{filled, Job, ParseQueue, Slot};
use crate::syntax::preprocess::{preprocess, PreprocessHost};
use crate::syntax::{
    parser, with_big_stack, FileId, LoadOptions, Loaded, SourceFile, SourceFileAst, SourceMap,
    Span, Stmt,
};

/// The directory built-in files appear under in diagnostics.
const BUILTIN_DIR: &str = "<builtin>";

/// Maximum include nesting.
pub const MAX_INCLUDE_DEPTH: usize = 128;

struct Loader<'o> {
    opts: &'o LoadOptions,
    /// Where preprocessed files go to be parsed right away
    /// ([`load_file_then`]); without it they wait in `preprocessed`.
    queue: Option<&'o Arc<ParseQueue>>,
    /// The AST of each file, filled when the queue parses it.
    slots: Vec<Slot>,
    sources: SourceMap,
    asts: Vec<SourceFileAst>,
    /// Canonical path of each file read from disk (for cycle messages).
    canonical: Vec<Option<PathBuf>>,
    macros: HashSet<String>,
    errors: Vec<Diagnostic>,
    notes: Vec<Diagnostic>,
    builtin_noted: HashSet<String>,
    /// The files being preprocessed, innermost last.
    stack: Vec<FileId>,
    /// For each file: start offset of an include statement → included file.
    includes: Vec<HashMap<u32, FileId>>,
    /// The preprocessed text of each file (`None` after an error).
    preprocessed: Vec<Option<String>>,
}

type ParseResult = Option<Result<SourceFileAst, Vec<SyntaxError>>>;

/// Parses the given texts (file id = index) on up to
/// `available_parallelism` threads.
fn parse_parallel(texts: &[Option<String>]) -> Vec<ParseResult> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let n = texts.len();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(n);
    let parse_one = |id: usize| -> ParseResult {
        texts[id]
            .as_ref()
            .map(|t| parser::parse_preprocessed(id as FileId, t))
    };
    if workers <= 1 {
        return (0..n).map(parse_one).collect();
    }
    // Biggest files first, so that the threads finish together.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].as_ref().map_or(0, |t| t.len())));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<ParseResult>> = Mutex::new((0..n).map(|_| None).collect());
    let work = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        let Some(&id) = order.get(k) else { break };
        let r = parse_one(id);
        if let Ok(mut res) = results.lock() {
            res[id] = r;
        }
    };
    std::thread::scope(|s| {
        let mut spawned = 0;
        for _ in 1..workers {
            let ok = std::thread::Builder::new()
                .name("regdesc-parse".into())
                .stack_size(256 << 20)
                .spawn_scoped(s, work)
                .is_ok();
            spawned += usize::from(ok);
        }
        let _ = spawned;
        work();
    });
    results.into_inner().unwrap_or_else(|p| p.into_inner())
}

type LoadResult = Result<Loaded, (SourceMap, Vec<Diagnostic>)>;

/// Reads the root file and preprocesses it with everything it includes.
type Started<'o> = Result<(Loader<'o>, FileId), (SourceMap, Vec<Diagnostic>)>;

fn start<'o>(
    path: &Path,
    opts: &'o LoadOptions,
    queue: Option<&'o Arc<ParseQueue>>,
) -> Started<'o> {
    let mut l = Loader::new(opts);
    l.queue = queue;
    match read_source(path) {
        Ok(text) => {
            let canon = std::fs::canonicalize(path).ok();
            let id = l.add_file(SourceFile::on_disk(path.to_path_buf(), &text, None), canon);
            l.process(id, &text);
            Ok((l, id))
        }
        Err(e) => {
            let d = SyntaxError::Io {
                path: path.display().to_string(),
                message: e.to_string(),
                span: None,
            }
            .to_diagnostic();
            Err((l.sources, vec![d]))
        }
    }
}

pub(crate) fn load_file(path: &Path, opts: &LoadOptions) -> LoadResult {
    let path = path.to_path_buf();
    with_big_stack(move || {
        let (l, id) = start(&path, opts, None)?;
        l.finish(id)
    })
}

pub(crate) fn load_file_then<R>(
    path: &Path,
    opts: &LoadOptions,
    consume: impl FnOnce(&Loaded) -> R,
) -> Result<(Loaded, R), (SourceMap, Vec<Diagnostic>)> {
    let queue = Arc::new(ParseQueue::default());
    let outcome = (|| {
        let started = start(path, opts, Some(&queue));
        if !matches!(&started, Ok((l, _)) if l.errors.is_empty()) {
            // Failed: what is still queued is not worth parsing.
            queue.drop_pending();
        }
        let (l, root) = started?;
        let done = l.finish_then(root, &queue, consume);
        // The files the consumer did not ask for, for their errors.
        queue.work();
        done
    })();
    let (failures, panicked) = queue.take_results();
    match outcome {
        Ok(done) if failures.is_empty() && !panicked => Ok(done),
        Ok((loaded, _)) => {
            let mut errors: Vec<Diagnostic> =
                failures.iter().map(SyntaxError::to_diagnostic).collect();
            if errors.is_empty() {
                errors.push(Diagnostic::error(
                    "regdesc::syntax::internal",
                    "internal error: the parser failed",
                    None,
                ));
            }
            errors.extend(loaded.diagnostics);
            Err((loaded.sources, errors))
        }
        Err(e) => Err(e),
    }
}

pub(crate) fn load_str(name: &str, text: &str, opts: &LoadOptions) -> LoadResult {
    let name = PathBuf::from(name);
    let text = text.to_string();
    with_big_stack(move || {
        let mut l = Loader::new(opts);
        let id = l.add_file(SourceFile::in_memory(name, text.clone(), None), None);
        l.process(id, &text);
        l.finish(id)
    })
}

impl<'o> Loader<'o> {
    fn new(opts: &'o LoadOptions) -> Self {
        Loader {
            opts,
            queue: None,
            slots: Vec::new(),
            sources: SourceMap::default(),
            asts: Vec::new(),
            canonical: Vec::new(),
            macros: opts.defines.iter().cloned().collect(),
            errors: Vec::new(),
            notes: Vec::new(),
            builtin_noted: HashSet::new(),
            stack: Vec::new(),
            includes: Vec::new(),
            preprocessed: Vec::new(),
        }
    }

    fn add_file(&mut self, mut file: SourceFile, canonical: Option<PathBuf>) -> FileId {
        let id = self.sources.files.len() as FileId;
        file.builtin = file.path.starts_with(BUILTIN_DIR);
        self.sources.files.push(file);
        self.asts.push(SourceFileAst::default());
        self.canonical.push(canonical);
        self.includes.push(HashMap::new());
        self.preprocessed.push(None);
        self.slots.push(Arc::new(OnceLock::new()));
        id
    }

    /// Preprocesses file `id` (whose text is `text`), loading its includes
    /// as they come. The preprocessed text is parsed later, with every
    /// other file; the original text is not needed after this.
    fn process(&mut self, id: FileId, text: &str) {
        self.stack.push(id);
        let pre = preprocess(id, text, self);
        self.stack.pop();
        let slot = &self.slots[id as usize];
        match self.queue {
            Some(q) if pre.errors.is_empty() => {
                let includes = std::mem::take(&mut self.includes[id as usize]);
                let job = Job {
                    text: pre.text,
                    includes,
                    slot: slot.clone(),
                };
                q.push(id, job);
            }
            Some(_) => {
                let _ = slot.set(filled(SourceFileAst::default()));
            }
            None if pre.errors.is_empty() => self.preprocessed[id as usize] = Some(pre.text),
            None => {}
        }
        for e in &pre.errors {
            self.error(e);
        }
    }

    /// Parses every preprocessed file, in parallel (files are independent
    /// once preprocessed). Errors are reported in file order.
    fn parse_all(&mut self) {
        let texts = std::mem::take(&mut self.preprocessed);
        let results = parse_parallel(&texts);
        for (id, r) in results.into_iter().enumerate() {
            match r {
                Some(Ok(ast)) => self.asts[id] = ast,
                Some(Err(errs)) => {
                    for e in &errs {
                        self.error(e);
                    }
                }
                None => {}
            }
        }
    }

    fn error(&mut self, e: &SyntaxError) {
        self.errors.push(e.to_diagnostic());
    }

    fn finish(mut self, root: FileId) -> LoadResult {
        self.parse_all();
        if !self.errors.is_empty() {
            let mut all = self.errors;
            all.extend(self.notes);
            return Err((self.sources, all));
        }
        for (id, ast) in self.asts.iter_mut().enumerate() {
            let map = &self.includes[id];
            if !map.is_empty() {
                link_includes(&mut ast.stmts, map);
            }
        }
        Ok(Loaded {
            sources: self.sources,
            asts: self
                .asts
                .into_iter()
                .map(|a| Arc::new(OnceLock::from(filled(a))))
                .collect(),
            root,
            diagnostics: self.notes,
            waited: Default::default(),
            queue: None,
        })
    }

    /// Runs `consume`, which has each file parsed as it asks for it.
    fn finish_then<R>(
        mut self,
        root: FileId,
        queue: &Arc<ParseQueue>,
        consume: impl FnOnce(&Loaded) -> R,
    ) -> Result<(Loaded, R), (SourceMap, Vec<Diagnostic>)> {
        if !self.errors.is_empty() {
            let mut all = self.errors;
            all.extend(self.notes);
            return Err((self.sources, all));
        }
        let loaded = Loaded {
            sources: std::mem::take(&mut self.sources),
            asts: std::mem::take(&mut self.slots),
            root,
            diagnostics: std::mem::take(&mut self.notes),
            waited: Default::default(),
            queue: Some(queue.clone()),
        };
        let r = consume(&loaded);
        Ok((loaded, r))
    }

    fn find_include(&mut self, path: &str) -> Result<(PathBuf, String), Vec<String>> {
        let mut searched = Vec::new();
        let mut candidates = vec![PathBuf::from(path)];
        for d in &self.opts.include_dirs {
            candidates.push(d.join(path));
        }
        for c in candidates {
            if c.is_file() {
                if let Ok(text) = read_source(&c) {
                    return Ok((c, text));
                }
            }
            let shown = match c.parent() {
                Some(p) if p.as_os_str().is_empty() => "the current directory".to_string(),
                _ => format!("`{}`", c.display()),
            };
            searched.push(shown);
        }
        Err(searched)
    }
}

impl PreprocessHost for Loader<'_> {
    fn is_defined(&self, name: &str) -> bool {
        self.macros.contains(name)
    }

    fn define(&mut self, name: &str) {
        self.macros.insert(name.to_string());
    }

    fn include(&mut self, path: &str, span: Span, path_span: Span) {
        let parent = span.file;
        let found = self.find_include(path);
        let (file, text, canon) = match found {
            Ok((p, text)) => {
                let canon = std::fs::canonicalize(&p).ok();
                (SourceFile::on_disk(p, &text, Some(span)), text, canon)
            }
            Err(searched) => {
                let builtin = self
                    .opts
                    .builtin_files
                    .iter()
                    .find(|(p, _)| p == path)
                    .map(|(_, t)| t.clone());
                match builtin {
                    Some(text) => {
                        if self.builtin_noted.insert(path.to_string()) {
                            let d = Diagnostic::note(
                                "regdesc::syntax::builtin_include",
                                format!(
                                    "`{path}` not found on the include path; using regdesc's built-in copy"
                                ),
                                Some(span),
                            )
                            .with_label("built-in file used")
                            .with_help(format!(
                                "searched: {}; add `-I DIR` to use the file on disk",
                                searched.join(", ")
                            ));
                            self.notes.push(d);
                        }
                        let file_path = Path::new(BUILTIN_DIR).join(path);
                        let file = SourceFile::in_memory(file_path, text.clone(), Some(span));
                        (file, text, None)
                    }
                    None => {
                        // Point at the file name, not at the `include` keyword.
                        self.error(&SyntaxError::IncludeNotFound {
                            path: path.to_string(),
                            span: path_span,
                            searched,
                        });
                        return;
                    }
                }
            }
        };
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            let cycle = canon.is_some()
                && self
                    .stack
                    .iter()
                    .any(|f| self.canonical[*f as usize] == canon);
            self.error(&SyntaxError::IncludeTooDeep {
                path: path.to_string(),
                limit: MAX_INCLUDE_DEPTH,
                cycle,
                span,
            });
            return;
        }
        let id = self.add_file(file, canon);
        self.includes[parent as usize].insert(span.start, id);
        self.process(id, &text);
    }
}

pub(crate) fn link_includes(stmts: &mut [Stmt], map: &HashMap<u32, FileId>) {
    for s in stmts {
        match s {
            Stmt::Include(inc) => inc.file = map.get(&inc.span.start).copied(),
            Stmt::Multiclass(m) => link_includes(&mut m.body, map),
            Stmt::Defset(d) => link_includes(&mut d.body, map),
            Stmt::Foreach(f) => link_includes(&mut f.body, map),
            Stmt::If(i) => {
                link_includes(&mut i.then_body, map);
                if let Some(e) = &mut i.else_body {
                    link_includes(e, map);
                }
            }
            Stmt::Let(l) => link_includes(&mut l.body, map),
            _ => {}
        }
    }
}
