//! Errors (and the one warning) of the evaluation stage.
//!
//! Messages keep llvm-tblgen 14's wording where llvm-tblgen has one, so
//! that users can search for them; each kind of problem has its own stable
//! code (`regdesc::eval::...`), label and help, given by
//! [`EvalError::to_diagnostic`].

use crate::diag::Diagnostic;
use crate::syntax::{BangOp, Span};

/// Marks a failure that has already been reported to the evaluator state:
/// the caller only unwinds to the next statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reported;

/// Which scope a name is declared twice in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// A `defvar` in a record body, loop or multiclass.
    Local,
    /// A top-level `defvar` or `defset`, which share the names of defs.
    Global,
    /// A template argument of a class or multiclass.
    TemplateArg,
}

impl Scope {
    fn message(self) -> &'static str {
        match self {
            Scope::Local => "local variable of this name already exists",
            Scope::Global => "def or global variable of this name already exists",
            Scope::TemplateArg => "template argument with the same name has already been defined",
        }
    }
}

/// Every problem the evaluation stage reports.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    // ------------------------------------------------------------ names
    #[error("Variable not defined: '{name}'")]
    UndefinedVariable {
        name: String,
        /// The name is a class (the user probably meant `Name<...>`).
        is_class: bool,
        span: Span,
    },

    #[error("Couldn't find class '{name}'")]
    UndefinedClass {
        name: String,
        is_multiclass: bool,
        /// A class whose name differs only in case.
        suggestion: Option<String>,
        span: Span,
    },

    #[error("Expected a class name, got '{name}'")]
    ExpectedClassName { name: String, span: Span },

    #[error("Couldn't find multiclass '{name}'")]
    UndefinedMulticlass {
        name: String,
        is_class: bool,
        span: Span,
    },

    /// `!cast` of a string naming no def, found once everything is resolved.
    #[error("Undefined reference to record: '{name}'")]
    UndefinedRecord { name: String, span: Span },

    /// A `let` (or template argument default) setting a field the record
    /// does not have.
    #[error("Value '{name}' unknown!")]
    UnknownField { name: String, span: Span },

    #[error("Cannot access field '{field}' of value '{value}'")]
    NoSuchField {
        field: String,
        value: String,
        span: Span,
    },

    // ------------------------------------------------------------ redefinitions
    #[error("Class '{name}' already defined")]
    ClassRedefined {
        name: String,
        span: Span,
        previous: Span,
    },

    #[error("def already exists: {name}")]
    DefRedefined {
        name: String,
        span: Span,
        previous: Span,
        /// The `defm`s and loops the def was expanded from.
        instantiated_from: Vec<Span>,
    },

    /// A def whose name, resolved, turns out to be taken.
    #[error("Def already exists: {name}")]
    DefNameTaken { name: String, span: Span },

    #[error("multiclass '{name}' already defined")]
    MulticlassRedefined { name: String, span: Span },

    #[error("{}", scope.message())]
    NameRedefined { scope: Scope, span: Span },

    #[error("iteration variable '\"{name}\"' is already defined")]
    IterationVariableRedefined { name: String, span: Span },

    #[error("{side} !foldl variable '\"{name}\"' already defined")]
    FoldVariableRedefined {
        /// `left` (the accumulator) or `right` (the element).
        side: &'static str,
        name: String,
        span: Span,
    },

    #[error("Already subclass of '{class}'!\n")]
    DuplicateSuperclass { class: String, span: Span },

    #[error("'NAME' is a reserved variable name")]
    ReservedName { span: Span },

    // ------------------------------------------------------------ template arguments
    #[error(
        "Value not specified for template argument '{arg}' (#{index}) of parent class '{class}'"
    )]
    MissingTemplateArg {
        arg: String,
        index: usize,
        class: String,
        span: Span,
    },

    #[error(
        "value not specified for template argument '{arg}' (#{index}) of multiclass '{multiclass}'"
    )]
    MissingMulticlassArg {
        arg: String,
        index: usize,
        multiclass: String,
        span: Span,
    },

    #[error("Too many template arguments: {count}")]
    TooManyTemplateArgs {
        /// How many arguments were given, counting up to the first extra one.
        count: usize,
        class: String,
        /// How many the class or multiclass takes.
        takes: usize,
        span: Span,
    },

    // ------------------------------------------------------------ types
    #[error("Value specified for template argument '{arg}' (#{index}) is of type {found}; expected type {expected}: {value}")]
    TemplateArgType {
        arg: String,
        index: usize,
        found: String,
        expected: String,
        value: String,
        span: Span,
    },

    #[error("Field '{field}' of type '{field_ty}' is incompatible with value '{value}'{}", value_ty.as_ref().map(|t| format!(" of type {t}")).unwrap_or_default())]
    FieldType {
        field: String,
        field_ty: String,
        value: String,
        /// The value's type as llvm-tblgen words it (`'int'`, or
        /// `bit initializer with length 3`), if it has one.
        value_ty: Option<String>,
        span: Span,
    },

    #[error("New definition of '{field}' of type '{new_ty}' is incompatible with previous definition of type '{old_ty}'")]
    FieldRedeclared {
        field: String,
        new_ty: String,
        old_ty: String,
        span: Span,
    },

    #[error("Invalid value {}found when setting field '{field}' of type '{field_ty}' after resolving references: {value}", value_ty.as_ref().map(|t| format!("of type '{t}' ")).unwrap_or_default())]
    ResolvedFieldType {
        field: String,
        field_ty: String,
        value_ty: Option<String>,
        value: String,
        span: Span,
    },

    #[error("Incompatible types in list elements")]
    ListElementTypes {
        /// The element's type and the common type of the elements before it.
        conflict: Option<(String, String)>,
        span: Span,
    },

    #[error("adding record of incompatible type '{ty}' to defset")]
    DefsetType {
        ty: String,
        span: Span,
        defset: Span,
    },

    /// `!cast` or `!getdagop` of a def that is not of the requested class.
    #[error("Expected type '{expected}', got '{found}' in: {expr}")]
    CastType {
        expected: String,
        found: String,
        expr: String,
        span: Span,
    },

    #[error("Expected record as operator, got: {value}")]
    DagOperatorNotRecord { value: String, span: Span },

    #[error("attempting to loop over '{value}', expected a list")]
    LoopOverNonList { value: String, span: Span },

    #[error("expected a list, got '{value}'")]
    ForeachNotList { value: String, span: Span },

    #[error("assert condition must of type bit, bits, or int.")]
    AssertConditionType { span: Span },

    /// An operand or value of the wrong type, in llvm-tblgen's words
    /// (`expected list type argument in unary operator`, ...).
    #[error("{message}")]
    OperandType { message: String, span: Span },

    // ------------------------------------------------------------ values without a type
    /// A value whose type cannot be determined where one is needed
    /// (`could not get type for !if`, `No type for list`, ...).
    #[error("{message}")]
    Untyped { message: String, span: Span },

    // ------------------------------------------------------------ bits, ranges, slices
    #[error("Invalid bit range for value")]
    InvalidBitRange {
        /// The type of the sliced value, if it has one.
        value_ty: Option<String>,
        span: Span,
    },

    #[error(
        "Invalid bit range for value: bit #{bit} of '{field}' does not exist (it has {width} bits)"
    )]
    BitOutOfRange {
        bit: u32,
        field: String,
        width: usize,
        span: Span,
    },

    #[error("Cannot set bit #{bit} of value '{field}' more than once")]
    BitSetTwice { bit: u32, field: String, span: Span },

    #[error("Invalid range for list slice")]
    InvalidListSlice { span: Span },

    /// A malformed range list (`expected integer or bitrange`, ...).
    #[error("{message}")]
    InvalidRange { message: &'static str, span: Span },

    // ------------------------------------------------------------ operators
    #[error("{op} takes {want} operand(s), got {found}")]
    OperandCount {
        op: BangOp,
        /// `2`, or `2 to 3`.
        want: String,
        found: usize,
        span: Span,
    },

    #[error("expected two operands to operator")]
    ExpectedTwoOperands { span: Span },

    #[error("the 'code' type is not allowed in bang operators; use 'string'")]
    CodeTypeArgument { span: Span },

    /// A bang operator used in a form llvm-tblgen rejects (a missing or
    /// unexpected type argument, an iterator that is not an identifier, ...).
    #[error("{message}")]
    InvalidOperator { message: String, span: Span },

    #[error("{record} does not have any true condition in:{cond}")]
    NoTrueCondition {
        record: String,
        cond: String,
        span: Span,
    },

    #[error("Concatenated Dag operators do not match: '{lhs}' vs. '{rhs}'")]
    DagOperatorMismatch {
        lhs: String,
        rhs: String,
        span: Span,
    },

    #[error("{op} start position is out of range 0...{size}: {start}")]
    StartOutOfRange {
        /// `!substr` or `!find`.
        op: &'static str,
        size: i64,
        start: i64,
        span: Span,
    },

    #[error("!substr length must be nonnegative")]
    NegativeLength { span: Span },

    // ------------------------------------------------------------ self-references
    #[error("Attempting to access field '{field}' of '{record}' is a forbidden self-reference")]
    SelfReference {
        field: String,
        record: String,
        span: Span,
    },

    #[error("Recursion / self-assignment forbidden")]
    SelfAssignment { span: Span },

    // ------------------------------------------------------------ completion
    #[error("Initializer of '{field}' in '{record}' could not be fully resolved: {value}")]
    Unresolved {
        field: String,
        record: String,
        value: String,
        /// Where the field's value was written.
        span: Span,
        record_span: Span,
        instantiated_from: Vec<Span>,
    },

    #[error("record name '{name}' could not be fully resolved")]
    UnresolvedName { name: String, span: Span },

    #[error("assertion failed")]
    AssertionFailed { message: String, span: Span },

    // ------------------------------------------------------------ statements
    #[error("{what} is not allowed inside {place}")]
    NotAllowed {
        /// `class`, `multiclass` or `defset`.
        what: &'static str,
        /// `multiclass` or `foreach loop`.
        place: &'static str,
        span: Span,
    },

    /// A construct llvm-tblgen's parser rejects that the grammar lets
    /// through (`expected identifier in dag init`, ...).
    #[error("{message}")]
    Malformed { message: &'static str, span: Span },

    // ------------------------------------------------------------ bounds
    #[error("instantiating `{class}` nests more than {limit} levels deep")]
    InstantiationTooDeep {
        class: String,
        limit: u32,
        span: Span,
    },

    #[error("expression nests too deeply")]
    ExpressionTooDeep { span: Span },

    #[error("statements nest more than {limit} levels deep")]
    StatementsTooDeep { limit: u32, span: Span },

    #[error("include nesting is too deep")]
    IncludesTooDeep { span: Span },

    #[error("expanding loops and multiclasses made more than {limit} records")]
    TooManyRecords { limit: u64, span: Span },

    #[error("more than {limit} errors; stopping here")]
    TooManyErrors { limit: usize, span: Span },

    #[error("range {start}-{end} has {count} elements; regdesc allows at most {limit}")]
    RangeTooLarge {
        start: i64,
        end: i64,
        count: usize,
        limit: usize,
        span: Span,
    },

    // ------------------------------------------------------------ warnings
    #[error("unused template argument: {name}")]
    UnusedTemplateArg { name: String, span: Span },
}

impl EvalError {
    /// The stable diagnostic code.
    pub fn code(&self) -> &'static str {
        use EvalError::*;
        match self {
            UndefinedVariable { .. } => "regdesc::eval::undefined_variable",
            UndefinedClass { .. } | ExpectedClassName { .. } => "regdesc::eval::undefined_class",
            UndefinedMulticlass { .. } => "regdesc::eval::undefined_multiclass",
            UndefinedRecord { .. } => "regdesc::eval::undefined_record",
            UnknownField { .. } | NoSuchField { .. } => "regdesc::eval::unknown_field",
            ClassRedefined { .. }
            | DefRedefined { .. }
            | DefNameTaken { .. }
            | MulticlassRedefined { .. }
            | NameRedefined { .. }
            | IterationVariableRedefined { .. }
            | FoldVariableRedefined { .. } => "regdesc::eval::redefinition",
            DuplicateSuperclass { .. } => "regdesc::eval::duplicate_superclass",
            ReservedName { .. } => "regdesc::eval::reserved_name",
            MissingTemplateArg { .. } | MissingMulticlassArg { .. } => {
                "regdesc::eval::missing_template_arg"
            }
            TooManyTemplateArgs { .. } => "regdesc::eval::too_many_template_args",
            TemplateArgType { .. }
            | FieldType { .. }
            | FieldRedeclared { .. }
            | ResolvedFieldType { .. }
            | ListElementTypes { .. }
            | DefsetType { .. }
            | CastType { .. }
            | DagOperatorNotRecord { .. }
            | LoopOverNonList { .. }
            | ForeachNotList { .. }
            | AssertConditionType { .. }
            | OperandType { .. } => "regdesc::eval::type_mismatch",
            Untyped { .. } => "regdesc::eval::untyped_value",
            InvalidBitRange { .. } | BitOutOfRange { .. } | BitSetTwice { .. } => {
                "regdesc::eval::bit_range"
            }
            InvalidListSlice { .. } => "regdesc::eval::list_slice",
            InvalidRange { .. } => "regdesc::eval::invalid_range",
            OperandCount { .. } | ExpectedTwoOperands { .. } => "regdesc::eval::operand_count",
            CodeTypeArgument { .. } => "regdesc::eval::code_type_argument",
            InvalidOperator { .. } => "regdesc::eval::invalid_operator",
            NoTrueCondition { .. } => "regdesc::eval::no_true_condition",
            DagOperatorMismatch { .. } => "regdesc::eval::dag_operator_mismatch",
            StartOutOfRange { .. } | NegativeLength { .. } => "regdesc::eval::out_of_range",
            SelfReference { .. } | SelfAssignment { .. } => "regdesc::eval::self_reference",
            Unresolved { .. } | UnresolvedName { .. } => "regdesc::eval::unresolved",
            AssertionFailed { .. } => "regdesc::eval::assertion_failed",
            NotAllowed { .. } => "regdesc::eval::not_allowed",
            Malformed { .. } => "regdesc::eval::malformed",
            InstantiationTooDeep { .. }
            | ExpressionTooDeep { .. }
            | StatementsTooDeep { .. }
            | IncludesTooDeep { .. } => "regdesc::eval::too_deep",
            TooManyRecords { .. } | RangeTooLarge { .. } | TooManyErrors { .. } => {
                "regdesc::eval::limit"
            }
            UnusedTemplateArg { .. } => "regdesc::eval::unused_template_arg",
        }
    }

    /// Whether this is a warning rather than an error.
    pub fn is_warning(&self) -> bool {
        matches!(self, EvalError::UnusedTemplateArg { .. })
    }

    /// Where the problem is.
    pub fn span(&self) -> Span {
        use EvalError::*;
        match self {
            UndefinedVariable { span, .. }
            | UndefinedClass { span, .. }
            | ExpectedClassName { span, .. }
            | UndefinedMulticlass { span, .. }
            | UndefinedRecord { span, .. }
            | UnknownField { span, .. }
            | NoSuchField { span, .. }
            | ClassRedefined { span, .. }
            | DefRedefined { span, .. }
            | DefNameTaken { span, .. }
            | MulticlassRedefined { span, .. }
            | NameRedefined { span, .. }
            | IterationVariableRedefined { span, .. }
            | FoldVariableRedefined { span, .. }
            | DuplicateSuperclass { span, .. }
            | ReservedName { span }
            | MissingTemplateArg { span, .. }
            | MissingMulticlassArg { span, .. }
            | TooManyTemplateArgs { span, .. }
            | TemplateArgType { span, .. }
            | FieldType { span, .. }
            | FieldRedeclared { span, .. }
            | ResolvedFieldType { span, .. }
            | ListElementTypes { span, .. }
            | DefsetType { span, .. }
            | CastType { span, .. }
            | DagOperatorNotRecord { span, .. }
            | LoopOverNonList { span, .. }
            | ForeachNotList { span, .. }
            | AssertConditionType { span }
            | OperandType { span, .. }
            | Untyped { span, .. }
            | InvalidBitRange { span, .. }
            | BitOutOfRange { span, .. }
            | BitSetTwice { span, .. }
            | InvalidListSlice { span }
            | InvalidRange { span, .. }
            | OperandCount { span, .. }
            | ExpectedTwoOperands { span }
            | CodeTypeArgument { span }
            | InvalidOperator { span, .. }
            | NoTrueCondition { span, .. }
            | DagOperatorMismatch { span, .. }
            | StartOutOfRange { span, .. }
            | NegativeLength { span }
            | SelfReference { span, .. }
            | SelfAssignment { span }
            | Unresolved { span, .. }
            | UnresolvedName { span, .. }
            | AssertionFailed { span, .. }
            | NotAllowed { span, .. }
            | Malformed { span, .. }
            | InstantiationTooDeep { span, .. }
            | ExpressionTooDeep { span }
            | StatementsTooDeep { span, .. }
            | IncludesTooDeep { span }
            | TooManyRecords { span, .. }
            | TooManyErrors { span, .. }
            | RangeTooLarge { span, .. }
            | UnusedTemplateArg { span, .. } => *span,
        }
    }

    /// The text under the span, if any.
    fn label(&self) -> Option<String> {
        use EvalError::*;
        Some(match self {
            UndefinedVariable { .. } => "not defined here".into(),
            UndefinedClass { .. } => "not a class".into(),
            UndefinedMulticlass { .. } => "not a multiclass".into(),
            UnknownField { .. } => "no such field in this record".into(),
            NoSuchField { .. } => "no such field".into(),
            ClassRedefined { .. } | DefRedefined { .. } => "redefined here".into(),
            TooManyTemplateArgs { .. } => "unexpected argument".into(),
            ListElementTypes {
                conflict: Some((this, before)),
                ..
            } => format!("this element is of type `{this}`, the ones before it of type `{before}`"),
            InvalidBitRange { value_ty, .. } => match value_ty {
                Some(t) => format!("value of type `{t}`"),
                None => "untyped value".into(),
            },
            Unresolved { .. } => "this value never becomes concrete".into(),
            AssertionFailed { message, .. } => message.clone(),
            InstantiationTooDeep { .. } => "this instantiation keeps instantiating itself".into(),
            TooManyRecords { .. } => "while expanding this record".into(),
            TooManyErrors { .. } => "the next error is here".into(),
            UnusedTemplateArg { .. } => "never referenced".into(),
            _ => return None,
        })
    }

    fn help(&self) -> Option<String> {
        use EvalError::*;
        match self {
            UndefinedVariable { name, .. } if name == "NAME" => {
                Some("`NAME` is only available inside classes and multiclasses".into())
            }
            UndefinedVariable {
                name,
                is_class: true,
                ..
            } => Some(format!(
                "`{name}` is a class; to make a record of it write `{name}<...>`"
            )),
            UndefinedClass {
                name,
                is_multiclass: true,
                ..
            } => Some(format!(
                "`{name}` is a multiclass: instantiate it with `defm`"
            )),
            UndefinedClass {
                suggestion: Some(s),
                ..
            } => Some(format!("did you mean `{s}`?")),
            UndefinedMulticlass { is_class: true, .. } => Some(
                "a defm must name a multiclass first; classes may only follow the multiclasses"
                    .into(),
            ),
            UnknownField { .. } => Some(
                "declare the field (`Type name;`) in the record or one of its classes before `let`"
                    .into(),
            ),
            TooManyTemplateArgs { class, takes, .. } => {
                Some(format!("`{class}` takes {takes} template argument(s)"))
            }
            Unresolved { .. } => Some(
                "every field of a def must resolve to a concrete value; declare it with `field` \
                 to allow otherwise"
                    .into(),
            ),
            AssertionFailed { message, .. } => Some(format!("the assertion's message: {message}")),
            InstantiationTooDeep { .. } => Some(
                "make the recursion stop: guard it with `!if` or `!cond` on a template argument"
                    .into(),
            ),
            TooManyRecords { .. } => {
                Some("nested `foreach` loops multiply; shrink their ranges".into())
            }
            TooManyErrors { .. } => {
                Some("fix the first errors: later ones often follow from them".into())
            }
            _ => None,
        }
    }

    /// Converts into the stage-independent diagnostic.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = if self.is_warning() {
            Diagnostic::warning(self.code(), self.to_string(), Some(self.span()))
        } else {
            Diagnostic::error(self.code(), self.to_string(), Some(self.span()))
        };
        if let Some(l) = self.label() {
            d = d.with_label(l);
        }
        if let Some(h) = self.help() {
            d = d.with_help(h);
        }
        match self {
            EvalError::ClassRedefined { previous, .. } => {
                d = d.with_related(Some(*previous), "previous definition");
            }
            EvalError::DefRedefined {
                previous,
                instantiated_from,
                ..
            } => {
                d = d.with_related(Some(*previous), "location of previous definition");
                for s in instantiated_from {
                    d = d.with_related(Some(*s), "instantiated from here");
                }
            }
            EvalError::DefsetType { defset, .. } => {
                d = d.with_related(Some(*defset), "location of defset declaration");
            }
            EvalError::Unresolved {
                record,
                record_span,
                instantiated_from,
                ..
            } => {
                d = d.with_related(Some(*record_span), format!("in def '{record}'"));
                for s in instantiated_from {
                    d = d.with_related(Some(*s), "instantiated from here");
                }
            }
            _ => {}
        }
        d
    }
}

impl From<EvalError> for Diagnostic {
    fn from(e: EvalError) -> Diagnostic {
        e.to_diagnostic()
    }
}

impl From<&EvalError> for Diagnostic {
    fn from(e: &EvalError) -> Diagnostic {
        e.to_diagnostic()
    }
}
