//! The evaluator state every value operation shares: the record keeper
//! being filled, the diagnostics so far, the bounds on nesting and on the
//! number of records, and the record a value is being folded against.

use rustc_hash::FxHashMap as HashMap;

use super::error::EvalError;
use super::record::*;
use crate::syntax::Span;

/// Stack space kept free before recursing, and the size of each new
/// segment (`stacker`), for the recursive walks over deep values.
pub const RED_ZONE: usize = 128 * 1024;
pub const STACK_SEGMENT: usize = 4 << 20;

/// How deep anonymous-class instantiation and resolution may nest.
pub const MAX_DEPTH: u32 = 512;

/// The evaluation state shared by every operation.
#[derive(Default)]
pub struct Ctx {
    pub rk: RecordKeeper,
    pub anon_counter: u32,
    /// `Class<args>` instantiations already made: llvm-tblgen reuses them.
    pub vardef_cache: HashMap<VarDefKey, RecId>,
    /// The allocation of the last node `refold` folded into something
    /// else, emptied, for the next one (most refolded nodes are dropped
    /// as soon as they are folded).
    pub refold_node: Option<std::rc::Rc<InitKind>>,
    pub errors: Vec<EvalError>,
    pub warnings: Vec<EvalError>,
    pub depth: u32,
    /// Set once a depth bound was hit, to stop cascades.
    pub depth_exceeded: bool,
    /// Where the statement being evaluated is (for errors raised deep inside).
    pub stmt_span: Span,
    /// The innermost expression being evaluated, while the AST is walked.
    pub expr_span: Option<Span>,
    /// How deep `resolve` currently recurses.
    pub resolve_depth: u32,
    /// Defs and classes by name, for lookups while evaluating; the sorted
    /// maps of the [`RecordKeeper`] are built from these at the end.
    pub def_ids: DefIndex,
    pub class_ids: HashMap<String, RecId>,
    /// Records made by expansion so far (bounded by [`MAX_RECORDS`]).
    pub expanded: u64,
}

/// A key of [`Ctx::vardef_cache`]: a class and its arguments, with their
/// hash computed once (the arguments are hashed deeply; the table rehashes
/// every key as it grows).
#[derive(PartialEq, Eq)]
pub struct VarDefKey {
    hash: u64,
    class: RecId,
    args: Vec<Init>,
}

impl VarDefKey {
    pub fn new(class: RecId, args: &[Init]) -> VarDefKey {
        use std::hash::BuildHasher;
        VarDefKey {
            hash: rustc_hash::FxBuildHasher.hash_one((class, args)),
            class,
            args: args.to_vec(),
        }
    }
}

impl std::hash::Hash for VarDefKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// Defs by name: an index of ids hashed by their records' own names,
/// where a map would keep a copy of each name (a full target has tens of
/// thousands of defs, and the index is alive at the peak, the end of
/// evaluation).
#[derive(Default)]
pub struct DefIndex {
    table: hashbrown::HashTable<RecId>,
}

fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

impl DefIndex {
    /// The def named `name`.
    pub fn get(&self, rk: &RecordKeeper, name: &str) -> Option<RecId> {
        self.table
            .find(name_hash(name), |&id| rk.name(id) == name)
            .copied()
    }

    /// Indexes def `id` under its name (replacing a def of the same name).
    pub fn insert(&mut self, rk: &RecordKeeper, id: RecId) {
        let name = rk.name(id);
        let entry = self.table.entry(
            name_hash(name),
            |&other| rk.name(other) == name,
            |&other| name_hash(rk.name(other)),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = id,
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert(id);
            }
        }
    }

    /// Every def indexed, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = RecId> + '_ {
        self.table.iter().copied()
    }
}

/// Most errors reported before evaluation stops: one mistake early in a
/// big file (an undefined base class) can otherwise fail every later
/// statement.
pub const MAX_ERRORS: usize = 100;

/// Most records (defs, loop and multiclass expansions, anonymous
/// instantiations) one evaluation may create. Nested `foreach` loops
/// multiply; this keeps a runaway description from running for hours.
pub const MAX_RECORDS: u64 = 2_000_000;

impl Ctx {
    /// Records an error or a warning. Past [`MAX_ERRORS`] errors, records
    /// that evaluation stops here and drops the rest.
    pub fn report(&mut self, e: EvalError) {
        if e.is_warning() {
            self.warnings.push(e);
        } else if self.errors.len() < MAX_ERRORS {
            self.errors.push(e);
        } else if self.errors.len() == MAX_ERRORS {
            let span = e.span();
            self.errors.push(EvalError::TooManyErrors {
                limit: MAX_ERRORS,
                span,
            });
        }
    }

    /// Whether so many errors were reported that evaluation stops.
    pub fn gave_up(&self) -> bool {
        self.errors.len() > MAX_ERRORS
    }

    /// Where a problem found while folding is reported: the expression
    /// being evaluated, else the record being resolved, else the statement.
    pub fn fold_span(&self, cur: Option<&CurRec>) -> Span {
        self.expr_span
            .or(cur.map(|c| c.span))
            .unwrap_or(self.stmt_span)
    }

    pub fn new_anonymous_name(&mut self) -> Init {
        let n = self.anon_counter;
        self.anon_counter += 1;
        InitKind::AnonymousName(n).into()
    }
}

/// The record being built or resolved, as `Fold` needs to see it.
#[derive(Clone, Debug)]
pub struct CurRec {
    pub id: Option<RecId>,
    pub name: Init,
    pub span: Span,
}
