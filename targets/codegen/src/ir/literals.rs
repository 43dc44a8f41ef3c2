//! Types and constants from the parse tree: what the subset accepts, and a
//! located error naming the subset for everything else.

use half::f16;
use pest::iterators::Pair;

use crate::diag::Diag;
use crate::ir::gep::GepType;
use crate::ir::parse::Rule;
use crate::ir::types::{Scalar, Type, MAX_INT_WIDTH};
use crate::ir::Span;
use crate::value::{IntValue, ScalarValue, Value};

pub(crate) const TYPES_HELP: &str =
    "the subset's types are iN (N from 1 to 512), half, float, <2 x i16>, \
     <2 x half>, <2 x i32> and ptr addrspace(1)";

/// The source range of a pair, without the blanks and comments pest
/// includes after a rule that ends with an optional or repeated part.
pub(crate) fn span_of(p: &Pair<'_, Rule>) -> Span {
    let s = p.as_span();
    let start = s.start();
    let mut text = p.as_str();
    loop {
        let trimmed = text.trim_end();
        let line_start = trimmed.rfind('\n').map_or(0, |i| i + 1);
        let last_line = &trimmed[line_start..];
        let comment = last_line
            .char_indices()
            .scan(false, |quoted, (i, c)| {
                if c == '"' {
                    *quoted = !*quoted;
                }
                Some((i, c, *quoted))
            })
            .find(|(_, c, quoted)| *c == ';' && !quoted)
            .map(|(i, _, _)| i);
        let cut = match comment {
            Some(i) if line_start + i > 0 => &trimmed[..line_start + i],
            _ => trimmed,
        };
        if cut.len() == text.len() {
            break;
        }
        text = cut;
    }
    start..start + text.len()
}

fn unsupported_type(what: &str, span: Span) -> Diag {
    Diag::new(
        "ir::unsupported-type",
        format!("type `{what}` is not in the subset"),
        span,
    )
    .label("unsupported type")
    .help(TYPES_HELP)
}

/// A `type` (or `any_type`) pair as a subset type; `void` is returned as
/// [`Type::Void`] and the caller decides whether it is allowed there.
pub(crate) fn parse_type(p: Pair<'_, Rule>) -> Result<Type, Diag> {
    let span = span_of(&p);
    let text = p.as_str().trim().to_string();
    let mut inner = p.into_inner();
    let Some(base) = inner.next() else {
        return Err(unsupported_type(&text, span));
    };
    match inner.last() {
        Some(star) => global_pointer(star, &text, span),
        None => base_type(base, &text, span),
    }
}

/// A pointer type: `ptr addrspace(N)`, or a typed pointer (`i64
/// addrspace(1)*`, `<2 x i32> addrspace(1)*`, `i8 addrspace(1)*
/// addrspace(1)*`) read as LLVM 14 reads it when it upgrades to opaque
/// pointers: only the address space of the outermost `*` counts; the
/// pointee type is dropped (loads, stores and `getelementptr` name the
/// types they use). Global memory (address space 1) is the only one in the
/// subset.
fn global_pointer(p: Pair<'_, Rule>, text: &str, span: Span) -> Result<Type, Diag> {
    let space = p
        .into_inner()
        .find(|c| c.as_rule() == Rule::addrspace)
        .and_then(|a| a.into_inner().next())
        .map(|n| n.as_str().to_string());
    match space.as_deref() {
        Some("1") => Ok(Type::Ptr),
        other => Err(Diag::new(
            "ir::unsupported-type",
            format!(
                "pointer type `{text}` (address space {}) is not in the subset",
                other.unwrap_or("0")
            ),
            span,
        )
        .label("not a global-memory pointer")
        .help("the only pointers are to global memory: `ptr addrspace(1)` or `T addrspace(1)*`")),
    }
}

/// A `getelementptr` source element type: a subset type, or an aggregate
/// (vector, array, struct) of them; see [`crate::ir::gep`].
pub(crate) fn parse_gep_type(p: Pair<'_, Rule>) -> Result<GepType, Diag> {
    let span = span_of(&p);
    let text = p.as_str().trim().to_string();
    let kids: Vec<Pair<'_, Rule>> = p.clone().into_inner().collect();
    let [base] = kids.as_slice() else {
        // A typed pointer: a pointer is the element.
        return parse_value_type(p).map(GepType::Value);
    };
    match base.as_rule() {
        Rule::vector_type => {
            let inner: Vec<_> = base.clone().into_inner().collect();
            let scalable = inner.iter().any(|k| k.as_rule() == Rule::vscale);
            let len = inner
                .iter()
                .find(|k| k.as_rule() == Rule::uint)
                .and_then(|c| c.as_str().parse::<u64>().ok());
            let elem = inner.iter().find(|k| k.as_rule() == Rule::r#type).cloned();
            match (scalable, len, elem) {
                (false, Some(len), Some(e)) if len > 0 => {
                    let elem = parse_value_type(e)?;
                    if elem.scalar().is_none() && elem != Type::Ptr || matches!(elem, Type::Vec2(_))
                    {
                        return Err(unsupported_type(&text, span));
                    }
                    Ok(GepType::Vector { len, elem })
                }
                _ => Err(unsupported_type(&text, span)),
            }
        }
        Rule::array_type => {
            let inner: Vec<_> = base.clone().into_inner().collect();
            let len = inner
                .iter()
                .find(|k| k.as_rule() == Rule::uint)
                .and_then(|c| c.as_str().parse::<u64>().ok());
            let elem = inner.iter().find(|k| k.as_rule() == Rule::r#type).cloned();
            match (len, elem) {
                (Some(len), Some(e)) => Ok(GepType::Array {
                    len,
                    elem: Box::new(parse_gep_type(e)?),
                }),
                _ => Err(unsupported_type(&text, span)),
            }
        }
        Rule::struct_type => {
            let packed = base.as_str().trim_start().starts_with('<');
            let fields = base
                .clone()
                .into_inner()
                .filter(|k| k.as_rule() == Rule::r#type)
                .map(parse_gep_type)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(GepType::Struct { packed, fields })
        }
        _ => parse_value_type(p).map(GepType::Value),
    }
}

fn base_type(base: Pair<'_, Rule>, text: &str, span: Span) -> Result<Type, Diag> {
    match base.as_rule() {
        Rule::int_type => {
            let w: Option<u16> = base.as_str()[1..].parse().ok();
            match w {
                Some(w) if (1..=MAX_INT_WIDTH).contains(&w) => Ok(Type::Int(w)),
                _ => Err(unsupported_type(text, span)),
            }
        }
        Rule::named_type => match base.as_str() {
            "half" => Ok(Type::Half),
            "float" => Ok(Type::Float),
            "void" => Ok(Type::Void),
            _ => Err(unsupported_type(text, span)),
        },
        Rule::ptr_type => global_pointer(base, text, span),
        Rule::vector_type => {
            let kids: Vec<_> = base.into_inner().collect();
            let count = kids.iter().find(|k| k.as_rule() == Rule::uint);
            let elem = kids.iter().find(|k| k.as_rule() == Rule::r#type);
            let scalable = kids.iter().any(|k| k.as_rule() == Rule::vscale);
            let elem = match elem {
                Some(e) => parse_type(e.clone()).ok(),
                None => None,
            };
            match (scalable, count.map(|c| c.as_str()), elem) {
                (false, Some("2"), Some(Type::Int(16))) => Ok(Type::Vec2(Scalar::Int(16))),
                (false, Some("2"), Some(Type::Int(32))) => Ok(Type::Vec2(Scalar::Int(32))),
                (false, Some("2"), Some(Type::Half)) => Ok(Type::Vec2(Scalar::Half)),
                _ => Err(unsupported_type(text, span)),
            }
        }
        _ => Err(unsupported_type(text, span)),
    }
}

/// A type that values can have (anything but `void`).
pub(crate) fn parse_value_type(p: Pair<'_, Rule>) -> Result<Type, Diag> {
    let span = span_of(&p);
    match parse_type(p)? {
        Type::Void => Err(
            Diag::new("ir::type-mismatch", "`void` is not a value type", span)
                .label("a value cannot have type void"),
        ),
        t => Ok(t),
    }
}

fn bad_constant(ty: Type, what: &str, span: Span) -> Diag {
    Diag::new(
        "ir::invalid-constant",
        format!("{what} is not a valid constant of type `{ty}`"),
        span,
    )
    .label(format!("not a `{ty}`"))
}

/// Which extra constant forms are allowed (the command line accepts a plain
/// number for a pointer, meaning a byte address).
#[derive(Clone, Copy, Default)]
pub(crate) struct ConstOptions {
    pub int_as_pointer: bool,
}

/// A `constant` pair read as a constant of type `ty`.
pub(crate) fn parse_constant(
    ty: Type,
    p: Pair<'_, Rule>,
    opts: ConstOptions,
) -> Result<Value, Diag> {
    let span = span_of(&p);
    let text = p.as_str().trim().to_string();
    let Some(c) = p.into_inner().next() else {
        return Err(bad_constant(ty, &format!("`{text}`"), span));
    };
    match c.as_rule() {
        Rule::const_word => word_constant(ty, c.as_str(), span),
        Rule::int_lit => match ty {
            Type::Int(w) => IntValue::parse_decimal(w, c.as_str())
                .map(Value::Int)
                .ok_or_else(|| bad_constant(ty, &format!("`{text}`"), span)),
            Type::Ptr if opts.int_as_pointer => c
                .as_str()
                .parse::<u64>()
                .map(Value::Ptr)
                .map_err(|_| bad_constant(ty, &format!("`{text}`"), span.clone())),
            Type::Half | Type::Float => Err(bad_constant(ty, &format!("integer `{text}`"), span)
                .help("write floating-point constants with a decimal point (`1.0`) or in hex")),
            _ => Err(bad_constant(ty, &format!("`{text}`"), span)),
        },
        Rule::float_dec => {
            let v: f64 = c
                .as_str()
                .parse()
                .map_err(|_| bad_constant(ty, &format!("`{text}`"), span.clone()))?;
            fp_from_double(ty, v, &text, span)
        }
        Rule::float_hex => hex_float(ty, c.as_str(), &text, span),
        Rule::int_hex => Err(Diag::new(
            "ir::unsupported-constant",
            format!("hexadecimal integer `{text}` is not in the subset"),
            span,
        )
        .label("unsupported literal")
        .help("write integer constants in decimal (LLVM prints them that way)")),
        Rule::vector_const => vector_constant(ty, c, opts, span),
        Rule::aggregate | Rule::const_expr => Err(Diag::new(
            "ir::unsupported-constant",
            format!("constant `{text}` is not in the subset"),
            span,
        )
        .label("aggregate or constant expression")
        .help("constants are integers, `true`/`false`, floating-point literals, `<2 x T>` vectors, `zeroinitializer` and `null`")),
        _ => Err(bad_constant(ty, &format!("`{text}`"), span)),
    }
}

fn word_constant(ty: Type, word: &str, span: Span) -> Result<Value, Diag> {
    match (word, ty) {
        ("true", Type::Int(1)) => Ok(Value::bool(true)),
        ("false", Type::Int(1)) => Ok(Value::bool(false)),
        ("null", Type::Ptr) => Ok(Value::Ptr(0)),
        ("zeroinitializer", t) if t.is_sized() => {
            Value::zero(t).ok_or_else(|| bad_constant(ty, "`zeroinitializer`", span))
        }
        ("undef" | "poison", _) => Err(Diag::new(
            "ir::unsupported-constant",
            format!("`{word}` is not in the subset"),
            span,
        )
        .label("undefined value")
        .help("the subset is poison-free: every value is defined, so the interpreter never has to invent one")),
        _ => Err(bad_constant(ty, &format!("`{word}`"), span)),
    }
}

/// A floating-point constant given as a double: LLVM requires it to be
/// exactly representable in the type ("floating point constant invalid for
/// type" otherwise).
fn fp_from_double(ty: Type, v: f64, text: &str, span: Span) -> Result<Value, Diag> {
    let invalid = || {
        Diag::new(
            "ir::invalid-constant",
            format!("floating point constant `{text}` invalid for type `{ty}`"),
            span.clone(),
        )
        .label("not exactly representable")
        .help("LLVM requires the exact value: write the type's bits in hex (`0xH3C00` for half, a double's bits `0x3FB99999A0000000` for float)")
    };
    match ty {
        Type::Float => {
            let f = v as f32;
            if f64::from(f).to_bits() == v.to_bits() {
                Ok(Value::Float(f))
            } else {
                Err(invalid())
            }
        }
        Type::Half => {
            let h = f16::from_f64(v);
            if h.to_f64().to_bits() == v.to_bits() {
                Ok(Value::Half(h))
            } else {
                Err(invalid())
            }
        }
        _ => Err(bad_constant(
            ty,
            &format!("floating-point literal `{text}`"),
            span,
        )),
    }
}

fn hex_float(ty: Type, lit: &str, text: &str, span: Span) -> Result<Value, Diag> {
    let body = &lit[2..];
    if let Some(digits) = body.strip_prefix('H') {
        return match (ty, u16::from_str_radix(digits, 16)) {
            (Type::Half, Ok(b)) if digits.len() <= 4 => Ok(Value::Half(f16::from_bits(b))),
            _ => Err(bad_constant(ty, &format!("`{text}`"), span)),
        };
    }
    if body.starts_with(['K', 'L', 'M', 'R']) {
        return Err(bad_constant(ty, &format!("`{text}`"), span)
            .help("only `0xH` (half) and `0x` with a double's 16 hex digits are in the subset"));
    }
    match u64::from_str_radix(body, 16) {
        Ok(bits) if body.len() <= 16 => fp_from_double(ty, f64::from_bits(bits), text, span),
        _ => Err(bad_constant(ty, &format!("`{text}`"), span)),
    }
}

fn vector_constant(
    ty: Type,
    c: Pair<'_, Rule>,
    opts: ConstOptions,
    span: Span,
) -> Result<Value, Diag> {
    let Type::Vec2(elem) = ty else {
        return Err(bad_constant(ty, "a vector constant", span));
    };
    let elems: Vec<_> = c.into_inner().collect();
    if elems.len() != 2 {
        return Err(bad_constant(
            ty,
            &format!("a vector of {} elements", elems.len()),
            span,
        ));
    }
    let mut out = [ScalarValue::zero(elem); 2];
    for (slot, tv) in out.iter_mut().zip(elems) {
        let tv_span = span_of(&tv);
        let mut kids = tv.into_inner();
        let (Some(t), Some(v)) = (kids.next(), kids.next()) else {
            return Err(bad_constant(ty, "this element", tv_span));
        };
        let t_span = span_of(&t);
        let et = parse_value_type(t)?;
        if et != elem.ty() {
            return Err(Diag::new(
                "ir::type-mismatch",
                format!("vector element has type `{et}`, expected `{elem}`"),
                t_span,
            )
            .label(format!("expected `{elem}`")));
        }
        let Some(cst) = v
            .into_inner()
            .next()
            .filter(|k| k.as_rule() == Rule::constant)
        else {
            return Err(bad_constant(ty, "a non-constant element", tv_span));
        };
        let val = parse_constant(et, cst, opts)?;
        *slot = val.as_scalar().unwrap_or(ScalarValue::zero(elem));
    }
    Ok(Value::Vec2(out))
}
