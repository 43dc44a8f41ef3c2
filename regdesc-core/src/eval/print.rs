//! Values as llvm-tblgen prints them (`getAsString`,
//! `getAsUnquotedString`): evaluation needs them (`!repr`, string
//! conversions, names), and `llvm_format::records` prints records with them.

use super::record::*;
use super::state::{RED_ZONE, STACK_SEGMENT};

/// `getAsUnquotedString`.
pub fn unquoted(rk: &RecordKeeper, i: &Init) -> String {
    match &**i {
        InitKind::String { value, .. } => value.to_string(),
        _ => to_string(rk, i),
    }
}

/// `getAsString`.
pub fn to_string(rk: &RecordKeeper, i: &Init) -> String {
    let mut s = String::new();
    write_init(rk, i, &mut s);
    s
}

fn write_unquoted(rk: &RecordKeeper, i: &Init, out: &mut String) {
    match &**i {
        InitKind::String { value, .. } => out.push_str(value),
        _ => write_init(rk, i, out),
    }
}

fn binop_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "!add",
        BinOp::Sub => "!sub",
        BinOp::Mul => "!mul",
        BinOp::And => "!and",
        BinOp::Or => "!or",
        BinOp::Xor => "!xor",
        BinOp::Shl => "!shl",
        BinOp::Sra => "!sra",
        BinOp::Srl => "!srl",
        BinOp::ListConcat => "!listconcat",
        BinOp::ListSplat => "!listsplat",
        BinOp::StrConcat => "!strconcat",
        BinOp::Interleave => "!interleave",
        BinOp::Concat => "!con",
        BinOp::Eq => "!eq",
        BinOp::Ne => "!ne",
        BinOp::Le => "!le",
        BinOp::Lt => "!lt",
        BinOp::Ge => "!ge",
        BinOp::Gt => "!gt",
        BinOp::SetDagOp => "!setdagop",
    }
}

/// Writes values separated by `, `.
fn write_list<'i>(rk: &RecordKeeper, items: impl Iterator<Item = &'i Init>, out: &mut String) {
    for (k, i) in items.enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_init(rk, i, out);
    }
}

/// Writes a value as llvm-tblgen prints it.
pub fn write_init(rk: &RecordKeeper, i: &Init, out: &mut String) {
    // A leaf (most often one bit of a `bits` value) does not recurse: it
    // needs no check of the stack, which costs a thread-local read.
    if super::resolve::is_leaf(i) {
        return write_init_inner(rk, i, out);
    }
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || write_init_inner(rk, i, out))
}

fn write_init_inner(rk: &RecordKeeper, i: &Init, out: &mut String) {
    use std::fmt::Write;
    match &**i {
        InitKind::Unset => out.push('?'),
        InitKind::Bit(b) => out.push(if *b { '1' } else { '0' }),
        InitKind::Bits(bs) => {
            out.push_str("{ ");
            write_list(rk, bs.iter().rev(), out);
            out.push_str(" }");
        }
        InitKind::Int(v) => {
            let _ = write!(out, "{v}");
        }
        InitKind::String { value, code } => {
            if *code {
                out.push_str("[{");
                out.push_str(value);
                out.push_str("}]");
            } else {
                out.push('"');
                out.push_str(value);
                out.push('"');
            }
        }
        InitKind::List { elems, .. } => {
            out.push('[');
            write_list(rk, elems.iter(), out);
            out.push(']');
        }
        InitKind::Def(id) => out.push_str(&rk.record(*id).name),
        InitKind::Dag { op, op_name, args } => {
            out.push('(');
            write_init(rk, op, out);
            if let Some(n) = op_name {
                out.push(':');
                out.push_str(n);
            }
            for (k, (a, n)) in args.iter().enumerate() {
                out.push_str(if k == 0 { " " } else { ", " });
                write_init(rk, a, out);
                if let Some(n) = n {
                    out.push_str(":$");
                    out.push_str(n);
                }
            }
            out.push(')');
        }
        InitKind::Var { name, .. } => write_unquoted(rk, name, out),
        InitKind::VarBit { var, bit } => {
            write_init(rk, var, out);
            let _ = write!(out, "{{{bit}}}");
        }
        InitKind::VarListElem { list, index } => {
            write_init(rk, list, out);
            let _ = write!(out, "[{index}]");
        }
        InitKind::Field { rec, field, .. } => {
            write_init(rk, rec, out);
            out.push('.');
            out.push_str(field);
        }
        InitKind::UnOp { op, arg, ty } => {
            match op {
                UnOp::Cast => {
                    out.push_str("!cast<");
                    ty.write(rk, out);
                    out.push('>');
                }
                UnOp::Not => out.push_str("!not"),
                UnOp::Head => out.push_str("!head"),
                UnOp::Tail => out.push_str("!tail"),
                UnOp::Size => out.push_str("!size"),
                UnOp::Empty => out.push_str("!empty"),
                UnOp::GetDagOp => out.push_str("!getdagop"),
            }
            out.push('(');
            write_init(rk, arg, out);
            out.push(')');
        }
        InitKind::BinOp { op, lhs, rhs, .. } => {
            out.push_str(binop_name(*op));
            out.push('(');
            write_init(rk, lhs, out);
            out.push_str(", ");
            write_init(rk, rhs, out);
            out.push(')');
        }
        InitKind::TernOp { op, a, b, c, .. } => {
            out.push_str(match op {
                TernOp::Subst => "!subst",
                TernOp::Foreach => "!foreach",
                TernOp::Filter => "!filter",
                TernOp::If => "!if",
                TernOp::Dag => "!dag",
                TernOp::Substr => "!substr",
                TernOp::Find => "!find",
            });
            out.push('(');
            if matches!(op, TernOp::Foreach | TernOp::Filter) {
                write_unquoted(rk, a, out);
            } else {
                write_init(rk, a, out);
            }
            out.push_str(", ");
            write_init(rk, b, out);
            out.push_str(", ");
            write_init(rk, c, out);
            out.push(')');
        }
        InitKind::Fold(f) => {
            let FoldInit {
                start,
                list,
                a,
                b,
                expr,
                ..
            } = &**f;
            out.push_str("!foldl(");
            write_init(rk, start, out);
            out.push_str(", ");
            write_init(rk, list, out);
            out.push_str(", ");
            write_unquoted(rk, a, out);
            out.push_str(", ");
            write_unquoted(rk, b, out);
            out.push_str(", ");
            write_init(rk, expr, out);
            out.push(')');
        }
        InitKind::IsA { check, expr } => {
            out.push_str("!isa<");
            check.write(rk, out);
            out.push_str(">(");
            write_init(rk, expr, out);
            out.push(')');
        }
        InitKind::Cond { conds, vals, .. } => {
            out.push_str("!cond(");
            for (k, (c, v)) in conds.iter().zip(vals).enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_init(rk, c, out);
                out.push_str(": ");
                write_init(rk, v, out);
            }
            out.push(')');
        }
        InitKind::VarDef { class, args, .. } => {
            out.push_str(rk.name(*class));
            out.push('<');
            write_list(rk, args.iter(), out);
            out.push('>');
        }
        InitKind::AnonymousName(n) => {
            let _ = write!(out, "anonymous_{n}");
        }
    }
}
