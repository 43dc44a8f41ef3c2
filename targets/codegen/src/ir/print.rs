//! Prints functions back as LLVM IR text (the form `llvm-dis` would give
//! them, minus metadata and attributes): for diagnostics, the uniformity
//! report, and round-trip tests.

use std::fmt::Write as _;

use crate::ir::{Function, Inst, InstId, Module, Op, Operand, OperandKind};

/// `%name`, quoted when LLVM would quote it.
pub fn local(name: &str) -> String {
    format!("%{}", quoted(name))
}

/// `@name`, quoted when LLVM would quote it.
pub fn global(name: &str) -> String {
    format!("@{}", quoted(name))
}

fn quoted(name: &str) -> String {
    let plain_char = |c: char| c.is_ascii_alphanumeric() || "-$._".contains(c);
    let numbered = !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit());
    let plain = !name.is_empty()
        && name.chars().all(plain_char)
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if numbered || plain {
        name.to_string()
    } else {
        format!("\"{name}\"")
    }
}

/// An operand without its type: `%x` or a constant.
pub fn operand(f: &Function, o: &Operand) -> String {
    match &o.kind {
        OperandKind::Value(v) => f
            .values
            .get(*v)
            .map_or_else(|| "%<invalid>".to_string(), |d| local(&d.name)),
        OperandKind::Const(c) => c.operand_text(),
    }
}

/// `TYPE operand`.
pub fn typed(f: &Function, o: &Operand) -> String {
    format!("{} {}", o.ty, operand(f, o))
}

fn block_name(f: &Function, b: crate::ir::BlockId) -> String {
    f.blocks
        .get(b)
        .map_or_else(|| "%<invalid>".to_string(), |blk| local(&blk.name))
}

/// One instruction, without indentation: `%x = add nsw i32 %a, 1`.
pub fn inst_text(f: &Function, id: InstId) -> String {
    let inst: &Inst = f.inst(id);
    let mut s = String::new();
    if let Some(r) = inst.result {
        let _ = write!(s, "{} = ", local(&f.value(r).name));
    }
    match &inst.op {
        Op::Bin {
            op,
            flags,
            lhs,
            rhs,
        } => {
            s.push_str(op.name());
            for (on, w) in [
                (flags.nuw, "nuw"),
                (flags.nsw, "nsw"),
                (flags.exact, "exact"),
            ] {
                if on {
                    let _ = write!(s, " {w}");
                }
            }
            let _ = write!(s, " {}, {}", typed(f, lhs), operand(f, rhs));
        }
        Op::FBin { op, fmf, lhs, rhs } => {
            s.push_str(op.name());
            for w in fmf.words() {
                let _ = write!(s, " {w}");
            }
            let _ = write!(s, " {}, {}", typed(f, lhs), operand(f, rhs));
        }
        Op::ICmp { pred, lhs, rhs } => {
            let _ = write!(
                s,
                "icmp {} {}, {}",
                pred.name(),
                typed(f, lhs),
                operand(f, rhs)
            );
        }
        Op::Select {
            cond,
            on_true,
            on_false,
        } => {
            let _ = write!(
                s,
                "select {}, {}, {}",
                typed(f, cond),
                typed(f, on_true),
                typed(f, on_false)
            );
        }
        Op::Cast { op, val, to } => {
            let _ = write!(s, "{} {} to {to}", op.name(), typed(f, val));
        }
        Op::ExtractElement { vec, index } => {
            let _ = write!(s, "extractelement {}, {}", typed(f, vec), typed(f, index));
        }
        Op::InsertElement { vec, elt, index } => {
            let _ = write!(
                s,
                "insertelement {}, {}, {}",
                typed(f, vec),
                typed(f, elt),
                typed(f, index)
            );
        }
        Op::Phi { ty, incoming } => {
            let _ = write!(s, "phi {ty} ");
            let entries: Vec<String> = incoming
                .iter()
                .map(|e| format!("[ {}, {} ]", operand(f, &e.val), block_name(f, e.block)))
                .collect();
            s.push_str(&entries.join(", "));
        }
        Op::Load { ty, ptr, align } => {
            let _ = write!(s, "load {ty}, {}", typed(f, ptr));
            if let Some(a) = align {
                let _ = write!(s, ", align {a}");
            }
        }
        Op::Store { val, ptr, align } => {
            let _ = write!(s, "store {}, {}", typed(f, val), typed(f, ptr));
            if let Some(a) = align {
                let _ = write!(s, ", align {a}");
            }
        }
        Op::Gep {
            elem,
            inbounds,
            base,
            indices,
        } => {
            let _ = write!(
                s,
                "getelementptr {}{elem}, {}",
                if *inbounds { "inbounds " } else { "" },
                typed(f, base),
            );
            for i in indices {
                let _ = write!(s, ", {}", typed(f, &i.index));
            }
        }
        Op::Call {
            callee,
            ret_ty,
            args,
        } => {
            let args: Vec<String> = args.iter().map(|a| typed(f, a)).collect();
            let _ = write!(
                s,
                "call {ret_ty} {}({})",
                global(callee.name()),
                args.join(", ")
            );
        }
        Op::Br { target } => {
            let _ = write!(s, "br label {}", block_name(f, *target));
        }
        Op::CondBr {
            cond,
            on_true,
            on_false,
        } => {
            let _ = write!(
                s,
                "br {}, label {}, label {}",
                typed(f, cond),
                block_name(f, *on_true),
                block_name(f, *on_false)
            );
        }
        Op::Ret { val } => match val {
            Some(v) => {
                let _ = write!(s, "ret {}", typed(f, v));
            }
            None => s.push_str("ret void"),
        },
    }
    s
}

/// The `define` line, without the `{`.
pub fn signature(f: &Function) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let d = f.value(*p);
            format!("{} {}", d.ty, local(&d.name))
        })
        .collect();
    let cc = f.cconv.keyword();
    format!(
        "define {}{}{} {}({})",
        cc,
        if cc.is_empty() { "" } else { " " },
        f.ret_ty,
        global(&f.name),
        params.join(", ")
    )
}

/// The whole function as LLVM IR text. Every block gets its label, so the
/// text parses back to the same function.
pub fn function_text(f: &Function) -> String {
    let mut s = signature(f);
    s.push_str(" {\n");
    for (n, b) in f.blocks.iter().enumerate() {
        if n > 0 {
            s.push('\n');
        }
        let _ = writeln!(s, "{}:", quoted(&b.name));
        for &i in &b.insts {
            let _ = writeln!(s, "  {}", inst_text(f, i));
        }
    }
    s.push_str("}\n");
    s
}

/// Every function, separated by blank lines, then a `declare` for each
/// builtin called (so that `llvm-as` accepts the text too).
pub fn module_text(m: &Module) -> String {
    let mut s = m
        .functions
        .iter()
        .map(function_text)
        .collect::<Vec<_>>()
        .join("\n");
    let mut declares = std::collections::BTreeSet::new();
    for f in &m.functions {
        for inst in &f.insts {
            if let Op::Call {
                callee,
                ret_ty,
                args,
            } = &inst.op
            {
                let params: Vec<String> = args.iter().map(|a| a.ty.to_string()).collect();
                declares.insert(format!(
                    "declare {ret_ty} {}({})",
                    global(callee.name()),
                    params.join(", ")
                ));
            }
        }
    }
    if !declares.is_empty() {
        s.push('\n');
        for d in declares {
            s.push_str(&d);
            s.push('\n');
        }
    }
    s
}
