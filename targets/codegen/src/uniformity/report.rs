//! The text report of `regdesc-cc check`: each argument and instruction
//! marked `uniform` or `divergent`, with the reason for divergence, join
//! points and cycles with divergent exits noted at their blocks.

use std::fmt::Write as _;

use crate::ir::print::{inst_text, local, signature};
use crate::ir::{Function, Op};
use crate::uniformity::{Reason, Uniformity};

fn reason_text(f: &Function, r: Reason) -> String {
    let block = |b: crate::ir::BlockId| local(&f.block(b).name);
    let value = |v: crate::ir::ValueId| local(&f.value(v).name);
    match r {
        Reason::Argument => "argument of a plain function (per lane)".to_string(),
        Reason::WorkItemId => "work-item id".to_string(),
        Reason::Operand(v) => format!("uses {}", value(v)),
        Reason::Join { branch } => format!("join of the divergent branch in {}", block(branch)),
        Reason::Temporal { header, value: v } => format!(
            "uses {} after the loop at {}, which lanes leave in different iterations",
            value(v),
            block(header)
        ),
        Reason::IrreducibleEntry { header } => {
            format!(
                "header {} of an irreducible cycle entered divergently",
                block(header)
            )
        }
    }
}

fn status(divergent: bool) -> &'static str {
    if divergent {
        "divergent"
    } else {
        "uniform  "
    }
}

/// The report for one function.
pub fn report(f: &Function, u: &Uniformity) -> String {
    let mut lines: Vec<(String, String)> = Vec::new();
    let kind = if f.cconv.is_kernel() {
        "kernel: arguments are uniform"
    } else {
        "plain function: arguments are per lane"
    };
    lines.push((signature(f), kind.to_string()));
    for p in &f.params {
        let d = f.value(*p);
        lines.push((
            format!(
                "  {} argument {} {}",
                status(u.is_divergent(*p)),
                d.ty,
                local(&d.name)
            ),
            u.value_reason(*p)
                .map(|r| reason_text(f, r))
                .unwrap_or_default(),
        ));
    }
    let exits = u.divergent_exit_cycles();
    for b in f.block_ids() {
        let mut notes = Vec::new();
        if let Some(br) = u.join_of(b) {
            notes.push(format!(
                "join point of the divergent branch in {}",
                local(&f.block(br).name)
            ));
        }
        if exits.contains(&b) {
            notes.push("loop header: lanes leave this loop in different iterations".to_string());
        }
        lines.push((
            format!("{}:", &local(&f.block(b).name)[1..]),
            notes.join("; "),
        ));
        for &i in &f.block(b).insts {
            let inst = f.inst(i);
            let why = u.inst_reason(i);
            let mut note = why.map(|r| reason_text(f, r)).unwrap_or_default();
            if let Op::CondBr { .. } = inst.op {
                if u.has_divergent_branch(b) {
                    note = format!("divergent branch ({note})");
                }
            }
            lines.push((
                format!("  {} {}", status(why.is_some()), inst_text(f, i)),
                note,
            ));
        }
    }
    let values = f.values.len();
    let divergent = f.value_ids().filter(|v| u.is_divergent(*v)).count();
    let width = lines
        .iter()
        .filter(|(_, n)| !n.is_empty())
        .map(|(t, _)| t.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (text, note) in lines {
        if note.is_empty() {
            let _ = writeln!(out, "{text}");
        } else {
            let pad = width - text.chars().count();
            let _ = writeln!(out, "{text}{}  ; {note}", " ".repeat(pad));
        }
    }
    let _ = writeln!(
        out,
        "; {values} values: {} uniform, {divergent} divergent; {} divergent branch{}",
        values - divergent,
        u.divergent_branches().len(),
        if u.divergent_branches().len() == 1 {
            ""
        } else {
            "es"
        }
    );
    out
}
