//! Values written on a command line, in LLVM's constant syntax:
//!
//! - an argument: `i64 5`, `half 0xH3C00`, `<2 x i16> <i16 1, i16 -1>`,
//!   `ptr addrspace(1) 16` (a byte address; `null` is 0), or one value per
//!   lane separated by `|`: `i32 0 | 7 | -1 | 3`;
//! - a memory initialiser: `16: i32 1, i32 2, half 0xH3C00` (the values
//!   stored one after the other from byte address 16);
//! - a memory dump request: `16: 4 x i32`.
//!
//! Errors are located diagnostics whose "file" is the option text.

use pest::Parser as _;

use crate::diag::{Diag, Diagnostics};
use crate::interp::LaneArg;
use crate::ir::literals::{parse_constant, parse_value_type, span_of, ConstOptions};
use crate::ir::parse::{IrParser, Rule};
use crate::ir::syntax_error::syntax_error;
use crate::ir::types::Type;
use crate::ir::Source;
use crate::value::Value;

const OPTS: ConstOptions = ConstOptions {
    int_as_pointer: true,
};

fn parse_rule<'a>(
    rule: Rule,
    source: &Source,
    text: &'a str,
) -> Result<pest::iterators::Pairs<'a, Rule>, Diagnostics> {
    IrParser::parse(rule, text).map_err(|e| {
        let d = syntax_error(rule, text, &e).help(match rule {
            Rule::cli_arg => "write `TYPE VALUE` (`i64 5`), or one value per lane: `i32 1 | 2 | 3`",
            Rule::cli_mem => "write `ADDRESS: TYPE VALUE, TYPE VALUE, ...` (`16: i32 1, i32 2`)",
            _ => "write `ADDRESS: COUNT x TYPE` (`16: 4 x i32`)",
        });
        Diagnostics::new(source.clone(), vec![d])
    })
}

fn fail(source: &Source, d: Diag) -> Diagnostics {
    Diagnostics::new(source.clone(), vec![d])
}

/// Parses an argument: its type and its value(s). `source` names the option
/// in diagnostics (its text must be `text`).
pub fn parse_arg(source: &Source, text: &str) -> Result<(Type, LaneArg), Diagnostics> {
    let pairs = parse_rule(Rule::cli_arg, source, text)?;
    let mut ty = None;
    let mut values = Vec::new();
    for p in pairs.flat_map(|p| p.into_inner()) {
        match p.as_rule() {
            Rule::r#type => ty = Some(parse_value_type(p).map_err(|d| fail(source, d))?),
            Rule::value => {
                let t = ty.unwrap_or(Type::Void);
                values.push(constant(source, t, p)?);
            }
            _ => {}
        }
    }
    let ty = ty.unwrap_or(Type::Void);
    let arg = if values.len() == 1 {
        LaneArg::Uniform(values[0])
    } else {
        LaneArg::PerLane(values)
    };
    Ok((ty, arg))
}

fn constant(
    source: &Source,
    ty: Type,
    p: pest::iterators::Pair<'_, Rule>,
) -> Result<Value, Diagnostics> {
    let span = span_of(&p);
    match p.into_inner().next() {
        Some(c) if c.as_rule() == Rule::constant => {
            parse_constant(ty, c, OPTS).map_err(|d| fail(source, d))
        }
        _ => Err(fail(
            source,
            Diag::new("cli::value", "expected a constant, not a name", span)
                .label("names have no value here"),
        )),
    }
}

/// Parses a memory initialiser: the start address and the values.
pub fn parse_mem_init(source: &Source, text: &str) -> Result<(u64, Vec<Value>), Diagnostics> {
    let pairs = parse_rule(Rule::cli_mem, source, text)?;
    let mut addr = None;
    let mut values = Vec::new();
    for p in pairs.flat_map(|p| p.into_inner()) {
        match p.as_rule() {
            Rule::uint => addr = Some(address(source, &p)?),
            Rule::typed_value => {
                let mut kids = p.into_inner();
                if let (Some(t), Some(v)) = (kids.next(), kids.next()) {
                    let ty = parse_value_type(t).map_err(|d| fail(source, d))?;
                    values.push(constant(source, ty, v)?);
                }
            }
            _ => {}
        }
    }
    Ok((addr.unwrap_or(0), values))
}

fn address(source: &Source, p: &pest::iterators::Pair<'_, Rule>) -> Result<u64, Diagnostics> {
    p.as_str().parse().map_err(|_| {
        fail(
            source,
            Diag::new("cli::value", "address out of range", span_of(p)).label("too large"),
        )
    })
}

/// Parses a dump request: start address, element count and type.
pub fn parse_mem_dump(source: &Source, text: &str) -> Result<(u64, u64, Type), Diagnostics> {
    let pairs = parse_rule(Rule::cli_dump, source, text)?;
    let mut nums = Vec::new();
    let mut ty = Type::Void;
    for p in pairs.flat_map(|p| p.into_inner()) {
        match p.as_rule() {
            Rule::uint => nums.push(address(source, &p)?),
            Rule::r#type => ty = parse_value_type(p).map_err(|d| fail(source, d))?,
            _ => {}
        }
    }
    Ok((
        nums.first().copied().unwrap_or(0),
        nums.get(1).copied().unwrap_or(0),
        ty,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(t: &str) -> Source {
        Source::new("--arg", t)
    }

    #[test]
    fn arguments() {
        let t = "i128 -5";
        assert_eq!(
            parse_arg(&src(t), t).ok(),
            Some((Type::Int(128), LaneArg::Uniform(Value::int(128, -5))))
        );
        let t = "i32 1 | 2|3";
        let r = parse_arg(&src(t), t).ok();
        assert_eq!(
            r,
            Some((
                Type::Int(32),
                LaneArg::PerLane(vec![
                    Value::int(32, 1),
                    Value::int(32, 2),
                    Value::int(32, 3)
                ])
            ))
        );
        let t = "ptr addrspace(1) 16";
        assert_eq!(
            parse_arg(&src(t), t).ok(),
            Some((Type::Ptr, LaneArg::Uniform(Value::Ptr(16))))
        );
        let t = "float 0.1";
        assert!(parse_arg(&src(t), t).is_err());
        let t = "i33 1";
        assert_eq!(
            parse_arg(&src(t), t).ok(),
            Some((Type::Int(33), LaneArg::Uniform(Value::int(33, 1))))
        );
        let t = "i1025 1";
        assert!(parse_arg(&src(t), t).is_err());
    }

    #[test]
    fn memory_options() {
        let t = "8: i32 1, half 0xH3C00";
        let r = parse_mem_init(&src(t), t).ok();
        assert_eq!(r.as_ref().map(|r| r.0), Some(8));
        assert_eq!(r.map(|r| r.1.len()), Some(2));
        let t = "16: 4 x i32";
        assert_eq!(
            parse_mem_dump(&src(t), t).ok(),
            Some((16, 4, Type::Int(32)))
        );
    }
}
