//! The TableGen abstract syntax tree.
//!
//! Every node carries a [`Span`] (file id and byte range into the
//! preprocessed text of that file, which keeps the byte offsets of the
//! original text). The tree is plain data: evaluation lives in `eval`.

use std::fmt;

pub use crate::source::{FileId, Span};

/// An identifier as written, with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// Exactly as long as the name (identifiers are a large part of a
    /// full target's syntax tree).
    pub name: Box<str>,
    pub span: Span,
}

/// A type as written in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeKind {
    Bit,
    Int,
    String,
    /// `code` (a synonym of `string` since LLVM 12).
    Code,
    Dag,
    /// `bits<N>`.
    Bits(u32),
    /// `list<T>`.
    List(Box<Type>),
    /// A class name used as a record type.
    Class(Ident),
}

/// A value expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

// The parse workers hold whole files' trees ahead of the evaluator, and
// expressions are most of them (a full target has millions): rare, large
// parts (types, long names) are boxed to keep this size.
const _: () = assert!(std::mem::size_of::<Expr>() <= 72);

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// Decimal or hexadecimal integer literal.
    Int(i64),
    /// Binary literal `0b1010`: a `bits<N>` value with N = number of digits.
    /// The vector holds the digits, most significant first.
    BinaryBits(Vec<bool>),
    /// `true` / `false`.
    Bool(bool),
    /// One or more adjacent string literals, already concatenated and unescaped.
    Str(String),
    /// `[{ ... }]`, contents verbatim.
    Code(String),
    /// `?`
    Unset,
    /// `{ a, b, c }`
    Bits(Vec<Expr>),
    /// `[a, b, c]` with an optional `<type>` suffix.
    List {
        elems: Vec<Expr>,
        /// Boxed: rare, and a type is as large as most expressions.
        elem_type: Option<Box<Type>>,
    },
    /// `(op arg:$name, ...)`
    Dag { op: Box<DagArg>, args: Vec<DagArg> },
    /// A bare identifier.
    Id(Ident),
    /// `Class<args>`: an anonymous record instantiation.
    ClassInst { class: Ident, args: Vec<Expr> },
    /// A bang operator: `!op<type>(args)`. For `!foreach`, `!foldl` and
    /// `!filter` the iterator/accumulator arguments are `ExprKind::Id`.
    Bang {
        op: BangOp,
        op_span: Span,
        /// Boxed: rare (`!cast<T>`, `!listconcat<T>`...).
        type_arg: Option<Box<Type>>,
        args: Vec<Expr>,
    },
    /// `!cond(c1 : v1, c2 : v2, ...)`
    Cond { clauses: Vec<(Expr, Expr)> },
    /// `value{ranges}`
    BitSlice {
        base: Box<Expr>,
        ranges: Vec<RangePiece>,
    },
    /// `value[ranges]`
    ListSlice {
        base: Box<Expr>,
        ranges: Vec<RangePiece>,
    },
    /// `value.field`
    Field { base: Box<Expr>, field: Ident },
    /// `lhs # rhs`; `rhs` is `None` for a trailing paste (`a#` before `;`, `,`, ...).
    Paste {
        lhs: Box<Expr>,
        rhs: Option<Box<Expr>>,
    },
}

/// One argument of a dag: a value, a `$name`, or both (`value:$name`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DagArg {
    pub value: Option<Expr>,
    /// Without the leading `$`.
    pub name: Option<Ident>,
    pub span: Span,
}

/// `a`, `a-b`, `a...b` in a range list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangePiece {
    pub start: Expr,
    pub end: Option<Expr>,
    pub span: Span,
}

/// Every bang operator that llvm-tblgen 14 accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BangOp {
    Add,
    And,
    Cast,
    Con,
    Cond,
    Dag,
    Empty,
    Eq,
    Filter,
    Find,
    Foldl,
    Foreach,
    Ge,
    GetDagOp,
    Gt,
    Head,
    If,
    Interleave,
    IsA,
    Le,
    ListConcat,
    ListSplat,
    Lt,
    Mul,
    Ne,
    Not,
    Or,
    SetDagOp,
    Shl,
    Size,
    Sra,
    Srl,
    StrConcat,
    Sub,
    Subst,
    Substr,
    Tail,
    Xor,
}

impl BangOp {
    /// Parses the name after `!`. `getop`/`setop` are the old spellings of
    /// `getdagop`/`setdagop`.
    pub fn from_name(name: &str) -> Option<BangOp> {
        use BangOp::*;
        Some(match name {
            "add" => Add,
            "and" => And,
            "cast" => Cast,
            "con" => Con,
            "cond" => Cond,
            "dag" => Dag,
            "empty" => Empty,
            "eq" => Eq,
            "filter" => Filter,
            "find" => Find,
            "foldl" => Foldl,
            "foreach" => Foreach,
            "ge" => Ge,
            "getdagop" | "getop" => GetDagOp,
            "gt" => Gt,
            "head" => Head,
            "if" => If,
            "interleave" => Interleave,
            "isa" => IsA,
            "le" => Le,
            "listconcat" => ListConcat,
            "listsplat" => ListSplat,
            "lt" => Lt,
            "mul" => Mul,
            "ne" => Ne,
            "not" => Not,
            "or" => Or,
            "setdagop" | "setop" => SetDagOp,
            "shl" => Shl,
            "size" => Size,
            "sra" => Sra,
            "srl" => Srl,
            "strconcat" => StrConcat,
            "sub" => Sub,
            "subst" => Subst,
            "substr" => Substr,
            "tail" => Tail,
            "xor" => Xor,
            _ => return None,
        })
    }

    /// The name as llvm-tblgen prints it (`!name`), without the `!`.
    pub fn name(self) -> &'static str {
        use BangOp::*;
        match self {
            Add => "add",
            And => "and",
            Cast => "cast",
            Con => "con",
            Cond => "cond",
            Dag => "dag",
            Empty => "empty",
            Eq => "eq",
            Filter => "filter",
            Find => "find",
            Foldl => "foldl",
            Foreach => "foreach",
            Ge => "ge",
            GetDagOp => "getdagop",
            Gt => "gt",
            Head => "head",
            If => "if",
            Interleave => "interleave",
            IsA => "isa",
            Le => "le",
            ListConcat => "listconcat",
            ListSplat => "listsplat",
            Lt => "lt",
            Mul => "mul",
            Ne => "ne",
            Not => "not",
            Or => "or",
            SetDagOp => "setdagop",
            Shl => "shl",
            Size => "size",
            Sra => "sra",
            Srl => "srl",
            StrConcat => "strconcat",
            Sub => "sub",
            Subst => "subst",
            Substr => "substr",
            Tail => "tail",
            Xor => "xor",
        }
    }
}

impl fmt::Display for BangOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "!{}", self.name())
    }
}

/// A template argument declaration: `Type name [= default]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateArg {
    pub ty: Type,
    pub name: Ident,
    pub default: Option<Expr>,
}

/// A reference to a class (or multiclass) with arguments: `Foo<1, "x">`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassRef {
    pub name: Ident,
    pub args: Vec<Expr>,
    pub span: Span,
}

/// An item in a record body `{ ... }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyItem {
    /// `[field] Type name [= value];`
    Field {
        /// Declared with the `field` keyword.
        is_field: bool,
        ty: Type,
        name: Ident,
        value: Option<Expr>,
        span: Span,
    },
    /// `let name[{bits}] = value;`
    Let(LetItem),
    /// `defvar name = value;`
    Defvar(Defvar),
    /// `assert cond, message;`
    Assert(Assert),
}

/// `name[{ranges}] = value`, in a body `let` or a top-level `let` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LetItem {
    pub name: Ident,
    pub bits: Option<Vec<RangePiece>>,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Defvar {
    pub name: Ident,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assert {
    pub cond: Expr,
    pub message: Expr,
    pub span: Span,
}

/// A record body: parent classes and the `{ ... }` items (empty for `;`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordBody {
    pub parents: Vec<ClassRef>,
    pub items: Vec<BodyItem>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassStmt {
    pub name: Ident,
    pub targs: Vec<TemplateArg>,
    pub body: RecordBody,
    /// `class Foo;` with nothing else is a forward declaration.
    pub is_forward_decl: bool,
    pub span: Span,
}

impl ClassStmt {
    /// A class statement; `decl_only`: its body was a bare `;` (with no
    /// template arguments and no parents either, a forward declaration).
    pub fn new(
        name: Ident,
        targs: Vec<TemplateArg>,
        body: RecordBody,
        decl_only: bool,
        span: Span,
    ) -> ClassStmt {
        let is_forward_decl = decl_only && targs.is_empty() && body.parents.is_empty();
        ClassStmt {
            name,
            targs,
            body,
            is_forward_decl,
            span,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefStmt {
    /// `None` for an anonymous `def : Foo;`.
    pub name: Option<Expr>,
    pub body: RecordBody,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefmStmt {
    pub name: Option<Expr>,
    /// Multiclasses first, then optionally classes.
    pub parents: Vec<ClassRef>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MulticlassStmt {
    pub name: Ident,
    pub targs: Vec<TemplateArg>,
    pub parents: Vec<ClassRef>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefsetStmt {
    pub ty: Type,
    pub name: Ident,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// What a `foreach` iterates over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForeachIter {
    /// `{ 0-3, 5 }` or a bare range `0-15` / `0...15` / a single integer.
    Ranges(Vec<RangePiece>),
    /// Any other value (must evaluate to a list).
    Value(Expr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeachStmt {
    pub var: Ident,
    pub iter: ForeachIter,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfStmt {
    pub cond: Expr,
    pub then_body: Vec<Stmt>,
    pub else_body: Option<Vec<Stmt>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LetStmt {
    pub items: Vec<LetItem>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncludeStmt {
    pub path: String,
    /// The included file, once the loader has read it.
    pub file: Option<FileId>,
    pub span: Span,
}

/// A statement (top level, or inside `let`/`foreach`/`if`/`multiclass`/`defset`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Include(IncludeStmt),
    Class(ClassStmt),
    Def(DefStmt),
    Defm(DefmStmt),
    Multiclass(MulticlassStmt),
    Defset(DefsetStmt),
    Defvar(Defvar),
    Foreach(ForeachStmt),
    If(IfStmt),
    Let(LetStmt),
    Assert(Assert),
}

/// One parsed source file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceFileAst {
    pub stmts: Vec<Stmt>,
}
