//! A record's fields: open (one [`RecordVal`] each) while it is built,
//! packed once it is finished (a layout shared with every record built from
//! the same classes, one value per field), and the one shared copy of each
//! plain final value.

use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::rc::Rc;

use super::record::{FieldDecl, Init, InitKind, RecordVal, SpanId};

/// One field of a record, as read: its shared declaration (through
/// `Deref`: `f.name`, `f.ty`, ...), its value and where that was written.
#[derive(Clone, Copy, Debug)]
pub struct FieldRef<'r> {
    pub decl: &'r Rc<FieldDecl>,
    pub value: &'r Init,
    pub span: SpanId,
}

impl Deref for FieldRef<'_> {
    type Target = FieldDecl;
    fn deref(&self) -> &FieldDecl {
        self.decl
    }
}

/// The declarations shared by every finished def whose fields came from the
/// same classes in the same order (most defs of a full target share a few
/// hundred layouts), with the span of each field's value in the first such
/// def.
#[derive(Debug)]
pub struct Layout {
    decls: Box<[Rc<FieldDecl>]>,
    spans: Box<[SpanId]>,
}

/// The fields of a finished def: its [`Layout`] plus one value each
/// (8 bytes a field, where a [`RecordVal`] takes 24), and the spans that
/// differ from the layout's.
#[derive(Clone, Debug)]
pub struct PackedFields {
    layout: Rc<Layout>,
    values: Box<[Init]>,
    /// `(field index, span)` of the fields whose span is not the layout's,
    /// by index.
    spans: Box<[(u32, SpanId)]>,
}

/// A record's fields (template arguments included), in declaration order:
/// open (one [`RecordVal`] each) while the record is built, packed
/// ([`PackedFields`]) once it is a finished def.
#[derive(Clone, Debug)]
pub enum Fields {
    Open(Vec<RecordVal>),
    Packed(PackedFields),
}

impl PackedFields {
    /// Where field `k`'s value was written.
    fn span(&self, k: usize) -> SpanId {
        if self.spans.is_empty() {
            return self.layout.spans.get(k).copied().unwrap_or_default();
        }
        match self.spans.binary_search_by_key(&(k as u32), |s| s.0) {
            Ok(i) => self.spans[i].1,
            Err(_) => self.layout.spans.get(k).copied().unwrap_or_default(),
        }
    }
}

impl Default for Fields {
    fn default() -> Fields {
        Fields::Open(Vec::new())
    }
}

impl Fields {
    pub fn len(&self) -> usize {
        match self {
            Fields::Open(v) => v.len(),
            Fields::Packed(p) => p.values.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Field `k`.
    pub fn at(&self, k: usize) -> Option<FieldRef<'_>> {
        match self {
            Fields::Open(v) => v.get(k).map(|f| FieldRef {
                decl: &f.decl,
                value: &f.value,
                span: f.span,
            }),
            Fields::Packed(p) => Some(FieldRef {
                decl: p.layout.decls.get(k)?,
                value: p.values.get(k)?,
                span: p.span(k),
            }),
        }
    }

    /// Every field, in order.
    pub fn iter(&self) -> impl Iterator<Item = FieldRef<'_>> + '_ {
        let (open, packed) = match self {
            Fields::Open(v) => (v.as_slice(), None),
            Fields::Packed(p) => (&[][..], Some(p)),
        };
        let open = open.iter().map(|f| FieldRef {
            decl: &f.decl,
            value: &f.value,
            span: f.span,
        });
        let packed = packed.into_iter().flat_map(|p| {
            (p.layout.decls.iter().zip(p.values.iter()))
                .enumerate()
                .map(move |(k, (decl, value))| FieldRef {
                    decl,
                    value,
                    span: p.span(k),
                })
        });
        open.chain(packed)
    }

    /// The index of field `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        match self {
            Fields::Open(v) => v.iter().position(|f| name_is(&f.name, name)),
            Fields::Packed(p) => p.layout.decls.iter().position(|d| name_is(&d.name, name)),
        }
    }

    /// Field `name`.
    pub fn find(&self, name: &str) -> Option<FieldRef<'_>> {
        self.position(name).and_then(|k| self.at(k))
    }

    /// The fields as a vector to change (unpacking packed ones).
    pub fn open(&mut self) -> &mut Vec<RecordVal> {
        if let Fields::Packed(_) = self {
            *self = Fields::Open(self.to_open());
        }
        match self {
            Fields::Open(v) => v,
            Fields::Packed(_) => unreachable!("unpacked just above"),
        }
    }

    /// A copy of the fields as a vector to change.
    pub fn to_open(&self) -> Vec<RecordVal> {
        match self {
            Fields::Open(v) => v.clone(),
            Fields::Packed(_) => self
                .iter()
                .map(|f| RecordVal {
                    decl: f.decl.clone(),
                    value: f.value.clone(),
                    span: f.span,
                })
                .collect(),
        }
    }
}

/// Finds (or makes) the shared [`Layout`] of packed fields, and the one
/// shared copy of each final value (as llvm-tblgen uniques its `Init`s).
#[derive(Clone, Debug, Default)]
pub(super) struct Layouts {
    /// The address of each declaration of a layout, in order → the layout.
    by_decls: rustc_hash::FxHashMap<Box<[usize]>, Rc<Layout>>,
    /// The layout found last: defs come in runs from the same classes.
    last: Option<Rc<Layout>>,
    /// Every [`share_hash`]able value of a packed def, with its hash.
    finals: hashbrown::HashTable<(u64, Init)>,
}

/// Lists and dags longer than this are not shared: on LLVM's targets no
/// two such final values were equal (AMDGPU's register-tuple names, a
/// list per level of a recursive class, would be hashed for nothing).
const MAX_SHARED_ELEMS: usize = 32;

/// The hash of a final value cheap to compare and likely repeated across
/// defs (a string, an integer, constant bits, or a short list or dag of
/// plain values), or `None` for any other value (it is not shared).
/// Consistent with `Init`'s equality: equal values hash alike.
fn share_hash(v: &Init) -> Option<u64> {
    let mut h = rustc_hash::FxHasher::default();
    match &**v {
        InitKind::String { value, code } => {
            0u8.hash(&mut h);
            value.hash(&mut h);
            code.hash(&mut h);
        }
        InitKind::Int(i) => {
            1u8.hash(&mut h);
            i.hash(&mut h);
        }
        InitKind::Bits(bits) => {
            // Two bits per element, 32 elements a word.
            2u8.hash(&mut h);
            bits.len().hash(&mut h);
            for chunk in bits.chunks(32) {
                let mut word = 0u64;
                for b in chunk {
                    word = word << 2
                        | match &**b {
                            InitKind::Bit(false) => 1,
                            InitKind::Bit(true) => 2,
                            InitKind::Unset => 3,
                            _ => return None,
                        };
                }
                word.hash(&mut h);
            }
        }
        InitKind::List { elems, .. } => {
            if elems.is_empty() || elems.len() > MAX_SHARED_ELEMS {
                return None;
            }
            3u8.hash(&mut h);
            elems.len().hash(&mut h);
            for e in elems {
                plain_hash(e, &mut h)?;
            }
        }
        InitKind::Dag { op, op_name, args } => {
            if args.len() > MAX_SHARED_ELEMS {
                return None;
            }
            4u8.hash(&mut h);
            plain_hash(op, &mut h)?;
            op_name.hash(&mut h);
            args.len().hash(&mut h);
            for (a, n) in args {
                plain_hash(a, &mut h)?;
                n.hash(&mut h);
            }
        }
        _ => return None,
    }
    Some(h.finish())
}

/// Hashes a plain element of a shared list or dag (a def, a string, an
/// integer, a bit, `?`); `None` for anything else.
fn plain_hash(v: &Init, h: &mut rustc_hash::FxHasher) -> Option<()> {
    match &**v {
        InitKind::Def(id) => (0u8, *id).hash(h),
        InitKind::String { value, code } => (1u8, value, code).hash(h),
        InitKind::Int(i) => (2u8, *i).hash(h),
        InitKind::Bit(b) => (3u8, *b).hash(h),
        InitKind::Unset => 4u8.hash(h),
        _ => return None,
    }
    Some(())
}

impl Layouts {
    /// The shared copy of `v`, if it is shareable ([`share_hash`]). A value
    /// already held elsewhere (most often by the class it was inherited
    /// from) is kept as it is: it is shared already, and hashing it would
    /// cost more than the copy it could save.
    fn share(&mut self, v: Init) -> Init {
        if Rc::strong_count(&v.0) > 1 {
            return v;
        }
        let Some(hash) = share_hash(&v) else {
            return v;
        };
        if let Some((_, c)) = self.finals.find(hash, |(h, c)| *h == hash && *c == v) {
            return c.clone();
        }
        self.finals
            .insert_unique(hash, (hash, v.clone()), |(h, _)| *h);
        v
    }
    /// The shared layout of `fields`.
    fn layout(&mut self, fields: &[RecordVal]) -> Rc<Layout> {
        let same = |l: &Layout| {
            l.decls.len() == fields.len()
                && l.decls
                    .iter()
                    .zip(fields)
                    .all(|(d, f)| Rc::ptr_eq(d, &f.decl))
        };
        if let Some(l) = self.last.as_ref().filter(|l| same(l)) {
            return l.clone();
        }
        let key: Box<[usize]> = fields
            .iter()
            .map(|f| Rc::as_ptr(&f.decl) as usize)
            .collect();
        let layout = match self.by_decls.get(&key) {
            Some(l) => l.clone(),
            None => {
                let l = Rc::new(Layout {
                    decls: fields.iter().map(|f| f.decl.clone()).collect(),
                    spans: fields.iter().map(|f| f.span).collect(),
                });
                self.by_decls.insert(key, l.clone());
                l
            }
        };
        self.last = Some(layout.clone());
        layout
    }

    pub(super) fn pack(&mut self, fields: Vec<RecordVal>) -> PackedFields {
        let layout = self.layout(&fields);
        let spans = fields
            .iter()
            .enumerate()
            .filter(|(k, f)| layout.spans[*k] != f.span)
            .map(|(k, f)| (k as u32, f.span))
            .collect();
        let values = fields.into_iter().map(|f| self.share(f.value)).collect();
        PackedFields {
            layout,
            values,
            spans,
        }
    }
}

/// `a == b` for field names, which mostly differ in length or in their last
/// byte (template arguments share their class's `Class:` prefix): those
/// are told apart without a call to `memcmp`, and a name looked up with
/// the field's own string without reading it.
#[inline]
fn name_is(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && (std::ptr::eq(a.as_ptr(), b.as_ptr())
            || (a.as_bytes().last() == b.as_bytes().last() && a == b))
}
