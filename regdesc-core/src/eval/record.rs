//! Records, values and types: the data model of the record keeper.
//!
//! This mirrors llvm-tblgen's `Record`/`Init`/`RecTy` closely enough that
//! printing it gives `--print-records` output byte for byte. Later stages
//! (`regs`, `emit`) read it as plain data through the accessors at the end.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

use super::fields::Layouts;
pub use super::fields::{FieldRef, Fields, Layout, PackedFields};
use crate::syntax::Span;

/// The record's lists are most often empty or short (a full target has a
/// hundred thousand records): a `ThinVec` is one pointer where a `Vec` is
/// three, which takes a record from 192 to 128 bytes.
pub use thin_vec::ThinVec;

/// Index of a record (class or def) in [`RecordKeeper::records`].
pub type RecId = u32;

/// A TableGen type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecTy {
    Bit,
    Bits(u32),
    Int,
    String,
    /// Shared, so that cloning a type never allocates.
    List(Rc<RecTy>),
    Dag,
    /// A record type: the set of classes a value is known to derive from
    /// (sorted by name, no class that is a superclass of another). Behind
    /// one thin pointer, so that a type takes 16 bytes.
    Record(Rc<Vec<RecId>>),
}

/// A shared, immutable value. Cloning is cheap.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Init(pub Rc<InitKind>);

impl Deref for Init {
    type Target = InitKind;
    fn deref(&self) -> &InitKind {
        &self.0
    }
}

impl fmt::Debug for Init {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl Default for Init {
    fn default() -> Init {
        Init::unset()
    }
}

impl From<InitKind> for Init {
    fn from(k: InitKind) -> Init {
        Init(Rc::new(k))
    }
}

/// Unary operators (`!cast`, `!not`, `!head`, `!tail`, `!size`, `!empty`, `!getdagop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Cast,
    Not,
    Head,
    Tail,
    Size,
    Empty,
    GetDagOp,
}

/// Binary operators. `Paste` is `#` (printed as `!strconcat` or `!listconcat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    Sra,
    Srl,
    ListConcat,
    ListSplat,
    StrConcat,
    Interleave,
    Concat,
    Eq,
    Ne,
    Le,
    Lt,
    Ge,
    Gt,
    SetDagOp,
}

impl BinOp {
    /// `!add`, `!sub`, `!mul`, `!and`, `!or`, `!xor`, `!shl`, `!sra`, `!srl`:
    /// int operands, int result.
    pub fn is_integer_arith(self) -> bool {
        matches!(
            self,
            BinOp::Add
                | BinOp::Sub
                | BinOp::Mul
                | BinOp::And
                | BinOp::Or
                | BinOp::Xor
                | BinOp::Shl
                | BinOp::Sra
                | BinOp::Srl
        )
    }
}

/// Ternary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TernOp {
    Subst,
    Foreach,
    Filter,
    If,
    Dag,
    Substr,
    Find,
}

/// A value. Names follow llvm-tblgen's `Init` subclasses.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InitKind {
    /// `?`
    Unset,
    /// A single bit, `0` or `1`.
    Bit(bool),
    /// `{ ... }`: element 0 is the least significant bit. Each element is
    /// bit-typed (`Bit`, `Unset`, `VarBit`, or another bit-typed expression).
    Bits(Vec<Init>),
    Int(i64),
    /// A string; `code` remembers whether it was written `[{...}]`.
    String {
        value: Rc<str>,
        code: bool,
    },
    /// A list and its element type.
    List {
        elems: Vec<Init>,
        elem_ty: RecTy,
    },
    /// A reference to a defined record.
    Def(RecId),
    /// `(op:$opname arg:$name, ...)`
    Dag {
        op: Init,
        op_name: Option<Rc<str>>,
        args: Vec<(Init, Option<Rc<str>>)>,
    },
    /// A reference to a field, template argument, iterator or `NAME`.
    /// `name` is usually a string init such as `Foo:x`.
    Var {
        name: Init,
        ty: RecTy,
    },
    /// One bit of a bits- or int-typed expression.
    VarBit {
        var: Init,
        bit: u32,
    },
    /// One element of a list-typed expression.
    VarListElem {
        list: Init,
        index: u32,
    },
    /// `rec.field`
    Field {
        rec: Init,
        field: Rc<str>,
        ty: RecTy,
    },
    UnOp {
        op: UnOp,
        arg: Init,
        ty: RecTy,
    },
    BinOp {
        op: BinOp,
        lhs: Init,
        rhs: Init,
        ty: RecTy,
    },
    TernOp {
        op: TernOp,
        a: Init,
        b: Init,
        c: Init,
        ty: RecTy,
    },
    /// `!foldl(start, list, a, b, expr)`: rare in final records, so boxed
    /// to keep every value small.
    Fold(Box<FoldInit>),
    /// `!isa<ty>(expr)`
    IsA {
        check: RecTy,
        expr: Init,
    },
    /// `!cond(c1: v1, ...)`
    Cond {
        conds: Box<[Init]>,
        vals: Box<[Init]>,
        ty: RecTy,
    },
    /// `Class<args>` not yet instantiated (some argument is unresolved).
    VarDef {
        class: RecId,
        args: Vec<Init>,
        /// Where it was written, for diagnostics.
        site: Span,
    },
    /// The name of an anonymous record before it is resolved.
    AnonymousName(u32),
}

/// `!foldl(start, list, a, b, expr)` of type `ty`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FoldInit {
    pub start: Init,
    pub list: Init,
    pub a: Init,
    pub b: Init,
    pub expr: Init,
    pub ty: RecTy,
}

/// What a field is, apart from its value: its name, type and flags.
///
/// Shared (see [`RecordVal`]): a def inherits most of its fields from its
/// classes, and every copy of a field points at the declaration it came
/// from instead of carrying its own name and type.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct FieldDecl {
    /// The field name; template arguments are named `Class:arg`.
    pub name: Rc<str>,
    pub ty: RecTy,
    /// Declared with the `field` keyword: may stay unresolved.
    pub nonconcrete_ok: bool,
    /// Template argument (not printed as a field).
    pub is_template_arg: bool,
}

/// One field (or template argument) of a record: a shared [`FieldDecl`]
/// (read through `Deref`: `v.name`, `v.ty`, ...) plus the value and where
/// it was written. 24 bytes, where a copy of the name and type took 64.
#[derive(Clone, Debug)]
pub struct RecordVal {
    pub decl: Rc<FieldDecl>,
    pub value: Init,
    /// Where the field's current value was written (its declaration until
    /// a value is set), in [`RecordKeeper::span`].
    pub span: SpanId,
}

/// A [`Span`] stored once in the [`RecordKeeper`] (see
/// [`RecordKeeper::intern_span`]): millions of fields point at a few
/// thousand places in the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpanId(u32);

impl RecordVal {
    /// A new field declaration, unset.
    pub fn declare(
        name: Rc<str>,
        ty: RecTy,
        nonconcrete_ok: bool,
        is_template_arg: bool,
        span: SpanId,
    ) -> RecordVal {
        RecordVal {
            decl: Rc::new(FieldDecl {
                name,
                ty,
                nonconcrete_ok,
                is_template_arg,
            }),
            value: Init::unset(),
            span,
        }
    }
}

impl Deref for RecordVal {
    type Target = FieldDecl;
    fn deref(&self) -> &FieldDecl {
        &self.decl
    }
}

/// An `assert` attached to a record, checked when a def is complete.
#[derive(Clone, Debug)]
pub struct AssertionInfo {
    pub span: Span,
    pub cond: Init,
    pub message: Init,
}

/// A class or a def.
#[derive(Clone, Debug, Default)]
pub struct Record {
    pub id: RecId,
    /// The record's name (for anonymous defs, `anonymous_N`).
    pub name: String,
    /// The name as a value (may be unresolved while a multiclass or
    /// `foreach` body is being instantiated).
    pub name_init: Init,
    pub is_class: bool,
    pub is_anonymous: bool,
    /// Where it was defined.
    pub span: Span,
    /// Template argument names (`Class:arg`), in order.
    pub template_args: ThinVec<Rc<str>>,
    /// All fields, in declaration order (template arguments included).
    pub fields: Fields,
    /// Every superclass, direct and indirect, in llvm-tblgen's order (4
    /// bytes each: a full target's defs have tens of them).
    pub superclasses: ThinVec<RecId>,
    /// Where the def was instantiated from (multiclass / foreach expansion).
    pub instantiated_from: ThinVec<Span>,
    /// Assertions still to check.
    pub assertions: ThinVec<AssertionInfo>,
}

impl Record {
    /// A copy to change, its fields unpacked (one copy of them, where
    /// `clone` and then unpacking would make two).
    pub fn clone_open(&self) -> Record {
        Record {
            id: self.id,
            name: self.name.clone(),
            name_init: self.name_init.clone(),
            is_class: self.is_class,
            is_anonymous: self.is_anonymous,
            span: self.span,
            template_args: self.template_args.clone(),
            fields: Fields::Open(self.fields.to_open()),
            superclasses: self.superclasses.clone(),
            instantiated_from: self.instantiated_from.clone(),
            assertions: self.assertions.clone(),
        }
    }

    /// Field `name`.
    pub fn value(&self, name: &str) -> Option<FieldRef<'_>> {
        self.fields.find(name)
    }

    /// The value of field `name`, if the record has it.
    pub fn get(&self, name: &str) -> Option<&Init> {
        self.value(name).map(|v| v.value)
    }

    pub fn is_subclass_of(&self, class: RecId) -> bool {
        self.superclasses.contains(&class)
    }

    /// Field `name` as an integer (`int`, or `bits` with every bit set).
    pub fn get_int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(Init::as_int)
    }

    /// Field `name` as a bit (`bit`, or an `int` 0/1).
    pub fn get_bit(&self, name: &str) -> Option<bool> {
        self.get(name).and_then(Init::as_bit)
    }

    pub fn get_string(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(Init::as_str)
    }

    /// Field `name` as a reference to a def.
    pub fn get_def(&self, name: &str) -> Option<RecId> {
        self.get(name).and_then(Init::as_def)
    }

    pub fn get_list(&self, name: &str) -> Option<&[Init]> {
        self.get(name).and_then(Init::as_list)
    }

    /// Is field `name` present and unset (`?`)?
    pub fn is_unset(&self, name: &str) -> bool {
        matches!(self.get(name).map(|i| &**i), Some(InitKind::Unset))
    }
}

impl Init {
    /// `?` (shared: values this common are made once per thread).
    pub fn unset() -> Init {
        COMMON.with(|c| c.unset.clone())
    }
    pub fn bit(b: bool) -> Init {
        COMMON.with(|c| c.bits[b as usize].clone())
    }
    pub fn int(v: i64) -> Init {
        if (SMALL_INT_MIN..SMALL_INT_MIN + SMALL_INTS as i64).contains(&v) {
            return COMMON.with(|c| c.ints[(v - SMALL_INT_MIN) as usize].clone());
        }
        InitKind::Int(v).into()
    }
    pub fn string(s: &str) -> Init {
        InitKind::String {
            value: s.into(),
            code: false,
        }
        .into()
    }
    /// A reference to def `id`: one shared value per def (a full target
    /// refers to its defs millions of times).
    pub fn def(id: RecId) -> Init {
        if id >= MAX_SHARED_DEF {
            return InitKind::Def(id).into();
        }
        COMMON.with(|c| {
            let mut defs = c.defs.borrow_mut();
            let k = id as usize;
            if k >= defs.len() {
                defs.resize(k + 1, None);
            }
            defs[k]
                .get_or_insert_with(|| InitKind::Def(id).into())
                .clone()
        })
    }

    pub fn as_int(&self) -> Option<i64> {
        match &**self {
            InitKind::Int(v) => Some(*v),
            InitKind::Bit(b) => Some(*b as i64),
            InitKind::Bits(bits) => {
                let mut v: i64 = 0;
                for (i, b) in bits.iter().enumerate() {
                    match &**b {
                        InitKind::Bit(true) if i < 64 => v |= 1 << i,
                        InitKind::Bit(_) => {}
                        _ => return None,
                    }
                }
                Some(v)
            }
            _ => None,
        }
    }

    pub fn as_bit(&self) -> Option<bool> {
        match &**self {
            InitKind::Bit(b) => Some(*b),
            InitKind::Int(v) if *v == 0 || *v == 1 => Some(*v == 1),
            InitKind::Bits(bits) if bits.len() == 1 => bits[0].as_bit(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &**self {
            InitKind::String { value, .. } => Some(value),
            _ => None,
        }
    }

    pub fn as_def(&self) -> Option<RecId> {
        match &**self {
            InitKind::Def(id) => Some(*id),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[Init]> {
        match &**self {
            InitKind::List { elems, .. } => Some(elems),
            _ => None,
        }
    }

    pub fn is_unset(&self) -> bool {
        matches!(&**self, InitKind::Unset)
    }
}

const SMALL_INT_MIN: i64 = -1;
/// Defs with a smaller id share their [`Init::def`] value.
const MAX_SHARED_DEF: RecId = 1 << 24;
const SMALL_INTS: usize = 258;

/// Values so common that each thread keeps one shared copy.
struct Common {
    unset: Init,
    bits: [Init; 2],
    ints: Vec<Init>,
    /// [`Init::def`] of each def id asked for so far.
    defs: std::cell::RefCell<Vec<Option<Init>>>,
}

thread_local! {
    static COMMON: Common = Common {
        unset: Init(Rc::new(InitKind::Unset)),
        bits: [Init(Rc::new(InitKind::Bit(false))), Init(Rc::new(InitKind::Bit(true)))],
        ints: (0..SMALL_INTS as i64)
            .map(|k| Init(Rc::new(InitKind::Int(k + SMALL_INT_MIN))))
            .collect(),
        defs: Default::default(),
    };
}

/// Every record (class or def) by [`RecId`], each in its own box, the
/// boxes in chunks of a fixed size: a full target makes a hundred thousand
/// records, and a vector of them grown by doubling would leave each smaller
/// copy behind (and up to half its last one unused). A record taken out for
/// good ([`RecordStore::take`]: a `def` in a multiclass or a loop body, kept
/// as an entry to instantiate) leaves an empty slot of one pointer.
#[derive(Clone, Debug, Default)]
pub struct RecordStore {
    chunks: Vec<Vec<Option<Box<Record>>>>,
    len: usize,
    /// What an empty slot reads as.
    empty: Record,
}

/// Records per chunk of a [`RecordStore`].
const RECORDS_PER_CHUNK: usize = 4096;

impl RecordStore {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, rec: Record) {
        let slot = Some(Box::new(rec));
        match self.chunks.last_mut() {
            Some(c) if c.len() < RECORDS_PER_CHUNK => c.push(slot),
            _ => {
                let mut c = Vec::with_capacity(RECORDS_PER_CHUNK);
                c.push(slot);
                self.chunks.push(c);
            }
        }
        self.len += 1;
    }

    /// Removes the last record.
    pub fn pop(&mut self) -> Option<Record> {
        let c = self.chunks.last_mut()?;
        let slot = c.pop()?;
        if c.is_empty() {
            self.chunks.pop();
        }
        self.len -= 1;
        Some(slot.map(|b| *b).unwrap_or_default())
    }

    /// Takes record `k` out, leaving its slot empty (it reads as an empty
    /// record until something is stored there again).
    pub fn take(&mut self, k: usize) -> Record {
        self.slot_mut(k)
            .and_then(Option::take)
            .map(|b| *b)
            .unwrap_or_default()
    }

    fn slot_mut(&mut self, k: usize) -> Option<&mut Option<Box<Record>>> {
        self.chunks
            .get_mut(k / RECORDS_PER_CHUNK)
            .and_then(|c| c.get_mut(k % RECORDS_PER_CHUNK))
    }

    pub fn get(&self, k: usize) -> Option<&Record> {
        self.chunks
            .get(k / RECORDS_PER_CHUNK)
            .and_then(|c| c.get(k % RECORDS_PER_CHUNK))
            .map(|s| s.as_deref().unwrap_or(&self.empty))
    }

    pub fn get_mut(&mut self, k: usize) -> Option<&mut Record> {
        self.slot_mut(k)
            .map(|s| &mut **s.get_or_insert_with(Default::default))
    }

    /// Every record, by id.
    pub fn iter(&self) -> impl Iterator<Item = &Record> + '_ {
        self.chunks
            .iter()
            .flatten()
            .map(|s| s.as_deref().unwrap_or(&self.empty))
    }
}

impl std::ops::Index<usize> for RecordStore {
    type Output = Record;
    fn index(&self, k: usize) -> &Record {
        self.chunks[k / RECORDS_PER_CHUNK][k % RECORDS_PER_CHUNK]
            .as_deref()
            .unwrap_or(&self.empty)
    }
}

impl std::ops::IndexMut<usize> for RecordStore {
    fn index_mut(&mut self, k: usize) -> &mut Record {
        self.chunks[k / RECORDS_PER_CHUNK][k % RECORDS_PER_CHUNK]
            .get_or_insert_with(Default::default)
    }
}

/// All classes and defs of one evaluation.
#[derive(Clone, Debug, Default)]
pub struct RecordKeeper {
    /// Every record ever created, classes and defs, by [`RecId`].
    pub records: RecordStore,
    /// Class name → id, sorted by name.
    pub classes: BTreeMap<String, RecId>,
    /// The defs, sorted by name (llvm-tblgen's order): ids only, looked up
    /// by the records' own names ([`RecordKeeper::def_id`]).
    defs: Vec<RecId>,
    /// Named `defset` lists.
    pub global_vars: BTreeMap<String, Init>,
    /// Types of defs, computed on first use, with the number of
    /// superclasses each was computed from (see [`super::types::def_type`]).
    pub def_types: std::cell::RefCell<Vec<Option<(usize, RecTy)>>>,
    /// One copy of each def type ([`super::types::def_type`]).
    pub def_type_set: std::cell::RefCell<rustc_hash::FxHashSet<RecTy>>,
    /// The spans [`SpanId`]s stand for (`SpanId(k)` is `spans[k - 1]`;
    /// `SpanId(0)` is the default span).
    spans: Vec<Span>,
    span_ids: rustc_hash::FxHashMap<Span, SpanId>,
    layouts: Layouts,
}

impl RecordKeeper {
    pub fn record(&self, id: RecId) -> &Record {
        &self.records[id as usize]
    }

    pub fn get_class(&self, name: &str) -> Option<&Record> {
        self.classes.get(name).map(|&id| self.record(id))
    }

    pub fn get_def(&self, name: &str) -> Option<&Record> {
        self.def_id(name).map(|id| self.record(id))
    }

    /// The def named `name`.
    pub fn def_id(&self, name: &str) -> Option<RecId> {
        let k = self
            .defs
            .binary_search_by(|&id| self.name(id).cmp(name))
            .ok()?;
        self.defs.get(k).copied()
    }

    /// Every def, sorted by name.
    pub fn defs(&self) -> impl ExactSizeIterator<Item = RecId> + '_ {
        self.defs.iter().copied()
    }

    /// Makes `ids` (defs with distinct names) the defs, sorted by name.
    pub fn set_defs(&mut self, ids: Vec<RecId>) {
        // Sorted by each name's first 16 bytes as one big-endian number
        // (zero-padded, so a shorter name that is a prefix sorts first), the
        // whole names compared only on a tie: most comparisons are one
        // integer comparison, with no lookup of either record.
        let mut keyed: Vec<(u128, RecId)> = ids
            .into_iter()
            .map(|id| (name_prefix_key(self.name(id)), id))
            .collect();
        keyed.sort_unstable_by(|&(ka, a), &(kb, b)| {
            ka.cmp(&kb).then_with(|| self.name(a).cmp(self.name(b)))
        });
        self.defs = keyed.into_iter().map(|(_, id)| id).collect();
    }

    /// All defs that derive from class `class`, sorted by name
    /// (llvm-tblgen's `getAllDerivedDefinitions`). Empty if there is no such class.
    pub fn all_derived_definitions(&self, class: &str) -> Vec<RecId> {
        let Some(&cid) = self.classes.get(class) else {
            return Vec::new();
        };
        self.defs()
            .filter(|&id| self.record(id).is_subclass_of(cid))
            .collect()
    }

    /// Is `rec` (a class or a def) `class` or derived from it?
    pub fn is_subclass_of_name(&self, rec: RecId, class: &str) -> bool {
        match self.classes.get(class) {
            Some(&cid) => rec == cid || self.record(rec).is_subclass_of(cid),
            None => false,
        }
    }

    /// The id of `span`, made on first use.
    pub fn intern_span(&mut self, span: Span) -> SpanId {
        if span == Span::default() {
            return SpanId(0);
        }
        if let Some(&id) = self.span_ids.get(&span) {
            return id;
        }
        self.spans.push(span);
        let id = SpanId(self.spans.len() as u32);
        self.span_ids.insert(span, id);
        id
    }

    /// Packs the fields of record `id`, a finished def or class: they
    /// share the declarations of every record with the same fields.
    pub fn pack_fields(&mut self, id: RecId) {
        let Some(rec) = self.records.get_mut(id as usize) else {
            return;
        };
        let mut fields = std::mem::take(&mut rec.fields);
        self.pack(&mut fields);
        if let Some(rec) = self.records.get_mut(id as usize) {
            rec.fields = fields;
        }
    }

    /// Packs `fields` (of a record that is kept but no longer built: a
    /// finished def or class, or a def of a multiclass body).
    pub fn pack(&mut self, fields: &mut Fields) {
        if let Fields::Open(v) = fields {
            let v = std::mem::take(v);
            *fields = Fields::Packed(self.layouts.pack(v));
        }
    }

    /// The span `id` stands for.
    pub fn span(&self, id: SpanId) -> Span {
        match id.0 {
            0 => Span::default(),
            k => self.spans.get(k as usize - 1).copied().unwrap_or_default(),
        }
    }

    /// The name of a record.
    pub fn name(&self, id: RecId) -> &str {
        &self.record(id).name
    }
}

/// The first 16 bytes of `name`, zero-padded, as a big-endian number:
/// comparing two keys compares those bytes as `str::cmp` does, and equal
/// keys leave the order to the rest of the names.
pub(super) fn name_prefix_key(name: &str) -> u128 {
    let mut k = [0u8; 16];
    let n = name.len().min(16);
    k[..n].copy_from_slice(&name.as_bytes()[..n]);
    u128::from_be_bytes(k)
}

// Sizes the memory of a full target depends on (millions of each).
const _: () = assert!(std::mem::size_of::<RecTy>() == 16);
const _: () = assert!(std::mem::size_of::<InitKind>() <= 56);
const _: () = assert!(std::mem::size_of::<RecordVal>() == 24);
const _: () = assert!(std::mem::size_of::<Record>() <= 128);
