//! Errors of the syntax stage (preprocessor, lexer, parser, loader).

use crate::diag::Diagnostic;
use crate::syntax::Span;

/// Every error the syntax stage reports. Each converts into a located
/// [`Diagnostic`] with [`SyntaxError::to_diagnostic`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    /// The parser met a token it did not expect.
    #[error("expected {expected}{}, found {found}", context.map(|c| format!(" {c}")).unwrap_or_default())]
    Expected {
        /// What would have been accepted, already in words ("`;` or `{`").
        expected: String,
        /// What is there ("`}`", "end of file").
        found: String,
        /// Where in the grammar ("after field").
        context: Option<&'static str>,
        span: Span,
        help: Option<String>,
    },

    #[error("expected an identifier, found keyword `{keyword}`")]
    KeywordAsIdentifier { keyword: String, span: Span },

    #[error("unknown operator `!{name}`")]
    UnknownOperator { name: String, span: Span },

    #[error("invalid escape sequence `{text}` in string literal")]
    InvalidEscape { text: String, span: Span },

    #[error("hexadecimal number out of range")]
    HexOutOfRange { span: Span },

    #[error("`{op}` expects {expected}, found {found}")]
    OperandCount {
        op: String,
        expected: &'static str,
        found: usize,
        span: Span,
    },

    #[error("`{op}` requires a type argument: `{op}<Type>(...)`")]
    MissingTypeArgument { op: String, span: Span },

    #[error("`{op}` does not take a type argument")]
    UnexpectedTypeArgument { op: String, span: Span },

    #[error("{what} must be an identifier")]
    ExpectedIdentifier { what: &'static str, span: Span },

    #[error("`{what}` is not allowed inside {place}")]
    NotAllowed {
        what: &'static str,
        place: &'static str,
        span: Span,
    },

    #[error("multiclass must contain at least one def")]
    EmptyMulticlass { span: Span },

    #[error("expected `{{` in multiclass definition")]
    MulticlassWithoutBody { span: Span },

    #[error("a class or def body should not end with a semicolon")]
    BodySemicolon { span: Span },

    #[error("invalid width for `bits<N>`: {text}")]
    BadBitsWidth { text: String, span: Span },

    // ------------------------------------------------------------ lexical
    #[error("unterminated comment")]
    UnterminatedComment { span: Span },

    #[error("unterminated code block")]
    UnterminatedCode { span: Span },

    #[error("unterminated string literal")]
    UnterminatedString { span: Span },

    #[error("escaped newlines are not supported in string literals")]
    EscapedNewline { span: Span },

    #[error("brackets nested too deeply (the limit is {limit})")]
    NestingTooDeep { limit: usize, span: Span },

    // ------------------------------------------------------------ preprocessor
    #[error("expected macro name after `#{directive}`")]
    MissingMacroName { directive: &'static str, span: Span },

    #[error("only comments are supported after `#{directive}`")]
    DirectiveTrailing { directive: String, span: Span },

    #[error("`#else` without `#ifdef` or `#ifndef`")]
    ElseWithoutIf { span: Span },

    #[error("`#endif` without `#ifdef` or `#ifndef`")]
    EndifWithoutIf { span: Span },

    #[error("double `#else`")]
    DoubleElse { span: Span, previous: Span },

    #[error("reached end of file without matching `#endif`")]
    UnterminatedConditional { span: Span, open: Span },

    #[error("preprocessor conditionals nested too deeply (the limit is {limit})")]
    ConditionalTooDeep { limit: usize, span: Span },

    // ------------------------------------------------------------ includes
    #[error("could not find include file `{path}`")]
    IncludeNotFound {
        path: String,
        span: Span,
        searched: Vec<String>,
    },

    #[error("{}", if *cycle { format!("include cycle: `{path}` includes itself") } else { format!("includes nested too deeply (the limit is {limit})") })]
    IncludeTooDeep {
        path: String,
        limit: usize,
        cycle: bool,
        span: Span,
    },

    #[error("cannot read `{path}`: {message}")]
    Io {
        path: String,
        message: String,
        span: Option<Span>,
    },
}

impl SyntaxError {
    /// The stable diagnostic code.
    pub fn code(&self) -> &'static str {
        use SyntaxError::*;
        match self {
            Expected { .. } => "regdesc::syntax::expected",
            KeywordAsIdentifier { .. } => "regdesc::syntax::keyword",
            UnknownOperator { .. } => "regdesc::syntax::unknown_operator",
            InvalidEscape { .. } => "regdesc::syntax::invalid_escape",
            HexOutOfRange { .. } => "regdesc::syntax::number_out_of_range",
            OperandCount { .. } => "regdesc::syntax::operand_count",
            MissingTypeArgument { .. } | UnexpectedTypeArgument { .. } => {
                "regdesc::syntax::type_argument"
            }
            ExpectedIdentifier { .. } => "regdesc::syntax::expected_identifier",
            NotAllowed { .. } => "regdesc::syntax::not_allowed",
            EmptyMulticlass { .. } | MulticlassWithoutBody { .. } => {
                "regdesc::syntax::multiclass_body"
            }
            BodySemicolon { .. } => "regdesc::syntax::body_semicolon",
            BadBitsWidth { .. } => "regdesc::syntax::bits_width",
            UnterminatedComment { .. } => "regdesc::syntax::unterminated_comment",
            UnterminatedCode { .. } => "regdesc::syntax::unterminated_code",
            UnterminatedString { .. } | EscapedNewline { .. } => {
                "regdesc::syntax::unterminated_string"
            }
            NestingTooDeep { .. } => "regdesc::syntax::nesting_too_deep",
            MissingMacroName { .. }
            | DirectiveTrailing { .. }
            | ElseWithoutIf { .. }
            | EndifWithoutIf { .. }
            | DoubleElse { .. }
            | UnterminatedConditional { .. }
            | ConditionalTooDeep { .. } => "regdesc::syntax::preprocessor",
            IncludeNotFound { .. } => "regdesc::syntax::include_not_found",
            IncludeTooDeep { .. } => "regdesc::syntax::include_depth",
            Io { .. } => "regdesc::syntax::io",
        }
    }

    /// Where the error is.
    pub fn span(&self) -> Option<Span> {
        use SyntaxError::*;
        match self {
            Expected { span, .. }
            | UnknownOperator { span, .. }
            | KeywordAsIdentifier { span, .. }
            | InvalidEscape { span, .. }
            | HexOutOfRange { span }
            | OperandCount { span, .. }
            | MissingTypeArgument { span, .. }
            | UnexpectedTypeArgument { span, .. }
            | ExpectedIdentifier { span, .. }
            | NotAllowed { span, .. }
            | EmptyMulticlass { span }
            | MulticlassWithoutBody { span }
            | BodySemicolon { span }
            | BadBitsWidth { span, .. }
            | UnterminatedComment { span }
            | UnterminatedCode { span }
            | UnterminatedString { span }
            | EscapedNewline { span }
            | NestingTooDeep { span, .. }
            | MissingMacroName { span, .. }
            | DirectiveTrailing { span, .. }
            | ElseWithoutIf { span }
            | EndifWithoutIf { span }
            | DoubleElse { span, .. }
            | ConditionalTooDeep { span, .. }
            | IncludeNotFound { span, .. }
            | IncludeTooDeep { span, .. } => Some(*span),
            // The directive that is never closed is the offending token.
            UnterminatedConditional { open, .. } => Some(*open),
            Io { span, .. } => *span,
        }
    }

    fn label(&self) -> String {
        use SyntaxError::*;
        match self {
            Expected { found, .. } => format!("unexpected {found}"),
            UnknownOperator { .. } => "not an operator llvm-tblgen 14 knows".into(),
            KeywordAsIdentifier { .. } => "keyword".into(),
            InvalidEscape { .. } => "invalid escape".into(),
            HexOutOfRange { .. } => "does not fit in 64 bits".into(),
            OperandCount { .. } => "wrong number of operands".into(),
            MissingTypeArgument { .. } => "type argument missing".into(),
            UnexpectedTypeArgument { .. } => "unexpected type argument".into(),
            ExpectedIdentifier { .. } => "expected an identifier".into(),
            NotAllowed { .. } => "not allowed here".into(),
            EmptyMulticlass { .. } => "empty multiclass".into(),
            MulticlassWithoutBody { .. } => "expected `{` here".into(),
            BodySemicolon { .. } => "remove this `;`".into(),
            BadBitsWidth { .. } => "invalid width".into(),
            UnterminatedComment { .. } => "comment starts here".into(),
            UnterminatedCode { .. } => "code block starts here".into(),
            UnterminatedString { .. } => "string starts here".into(),
            EscapedNewline { .. } => "escaped newline".into(),
            NestingTooDeep { .. } => "too deep".into(),
            MissingMacroName { .. } => "expected a name here".into(),
            DirectiveTrailing { .. } => "unexpected text after the directive".into(),
            ElseWithoutIf { .. } | EndifWithoutIf { .. } => "no open conditional".into(),
            DoubleElse { .. } => "second `#else`".into(),
            UnterminatedConditional { .. } => "never closed".into(),
            ConditionalTooDeep { .. } => "too deep".into(),
            IncludeNotFound { .. } => "not found".into(),
            IncludeTooDeep { .. } => "included here".into(),
            Io { .. } => "cannot be read".into(),
        }
    }

    fn help(&self) -> Option<String> {
        use SyntaxError::*;
        match self {
            Expected { help, .. } => help.clone(),
            UnknownOperator { .. } => Some(
                "llvm-tblgen 14 does not know this operator; see the TableGen \
                 Programmer's Reference for the list of bang operators"
                    .into(),
            ),
            InvalidEscape { .. } => {
                Some("the escapes are `\\\\`, `\\'`, `\\\"`, `\\t` and `\\n`".into())
            }
            MissingTypeArgument { op, .. } => Some(format!("write `{op}<Type>(...)`")),
            BodySemicolon { .. } => Some("remove the semicolon".into()),
            UnterminatedComment { .. } => Some("close it with `*/`".into()),
            UnterminatedCode { .. } => Some("close it with `}]`".into()),
            UnterminatedString { .. } => {
                Some("string literals end with `\"` on the same line".into())
            }
            NestingTooDeep { .. } => Some("simplify the expression".into()),
            DirectiveTrailing { .. } => {
                Some("a directive takes at most a macro name, then the line must end".into())
            }
            UnterminatedConditional { .. } => Some("add `#endif`".into()),
            IncludeNotFound { searched, .. } => Some(if searched.is_empty() {
                "no directories were searched; add one with `-I DIR`".to_string()
            } else {
                format!(
                    "searched: {}; add a directory with `-I DIR`",
                    searched.join(", ")
                )
            }),
            IncludeTooDeep { cycle: true, .. } => {
                Some("guard the file with `#ifndef NAME` / `#define NAME` / `#endif`".into())
            }
            _ => None,
        }
    }

    /// Converts into the stage-independent diagnostic.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d =
            Diagnostic::error(self.code(), self.to_string(), self.span()).with_label(self.label());
        if let Some(h) = self.help() {
            d = d.with_help(h);
        }
        match self {
            SyntaxError::DoubleElse { previous, .. } => {
                d = d.with_related(Some(*previous), "previous `#else` is here");
            }
            SyntaxError::UnterminatedConditional { span, .. } => {
                d = d.with_related(Some(*span), "the file ends here without `#endif`");
            }
            _ => {}
        }
        d
    }
}

impl From<SyntaxError> for Diagnostic {
    fn from(e: SyntaxError) -> Diagnostic {
        e.to_diagnostic()
    }
}

impl From<&SyntaxError> for Diagnostic {
    fn from(e: &SyntaxError) -> Diagnostic {
        e.to_diagnostic()
    }
}
