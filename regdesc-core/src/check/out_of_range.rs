//! `offset_out_of_range`: sub-register indices reaching past the end of a
//! register, by the size its register classes declare. One finding per
//! class that declares the size: how many indices reach past it, the first
//! few, the fix, and what LLVM would get wrong (it spills and reloads the
//! declared size only).

use std::collections::BTreeMap;

use super::context::{list, short, Ctx, DeclaredSizes};
use super::Lint;
use crate::diag::Diagnostic;
use crate::regs::{ClassId, IdxId, RegId, UNKNOWN};

/// What one class's declared size leaves out.
struct Overflow {
    size: u32,
    /// Each index reaching past the size, with the first register showing it.
    indices: BTreeMap<IdxId, RegId>,
    /// The furthest bit an index reaches.
    end: u32,
}

pub(super) fn out_of_range(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    let sizes = DeclaredSizes::new(bank);
    let mut by_class: BTreeMap<ClassId, Overflow> = BTreeMap::new();
    for (r, reg) in bank.registers.iter().enumerate() {
        let Some((cid, size)) = sizes.holder(r as RegId, None) else {
            continue;
        };
        for &i in reg.sub_regs.keys() {
            let idx = bank.idx(i);
            if idx.offset == UNKNOWN || idx.size == UNKNOWN {
                continue;
            }
            let end = idx.offset as u32 + idx.size as u32;
            if end > size {
                let o = by_class.entry(cid).or_insert(Overflow {
                    size,
                    indices: BTreeMap::new(),
                    end,
                });
                o.indices.entry(i).or_insert(r as RegId);
                o.end = o.end.max(end);
            }
        }
    }
    for &cid in &bank.class_order {
        let Some(o) = by_class.get(&cid) else {
            continue;
        };
        let rc = bank.class(cid);
        let n = o.indices.len();
        let names: Vec<String> = o
            .indices
            .keys()
            .map(|&i| format!("{} ({})", bank.idx(i).name, cx.interval(i)))
            .collect();
        let first_reg = o.indices.values().next().copied().unwrap_or(0);
        let spill = rc.rsi.get(0).spill_size;
        let vector = vector_type(rc.value_types.first().map(String::as_str), o.end);
        out.push(
            Lint::OffsetOutOfRange
                .diagnostic(
                    format!(
                        "register class {} declares {}-bit registers, but {n} sub-register ind{} of its registers reach{} past bit {}: {}",
                        rc.name,
                        o.size,
                        if n == 1 { "ex" } else { "ices" },
                        if n == 1 { "es" } else { "" },
                        o.size,
                        list(&names, 4)
                    ),
                    rc.span,
                )
                .with_label(format!(
                    "{} bits, from {}",
                    o.size,
                    size_source(cx, cid)
                ))
                .with_related(
                    bank.reg(first_reg).span,
                    format!(
                        "{} ({}) reaches bit {}",
                        short(&bank.reg(first_reg).name),
                        cx.reg_origin(first_reg),
                        o.end
                    ),
                )
                .with_help(format!(
                    "if the registers are {end} bits, set the class's `Size` (or `RegInfos`) to {end} or give it a {end}-bit vector type{vector}; if not, fix the indices' Size and Offset. As declared, LLVM spills and reloads {spill} of the {end} bits of each register (its spill size is {} bytes)",
                    spill / 8,
                    end = o.end,
                )),
        );
    }
}

/// Where a class's size comes from, for the label.
fn size_source(cx: &Ctx, c: ClassId) -> String {
    let rc = cx.bank.class(c);
    let Some(def) = rc.def.map(|d| cx.rk.record(d)) else {
        return "its super-class".into();
    };
    if def.get("RegInfos").is_some_and(|i| !i.is_unset()) {
        return "its RegInfos".into();
    }
    match def.get_int("Size") {
        Some(s) if s != 0 => format!("its Size = {s}"),
        _ => match rc.value_types.first() {
            Some(t) => format!("its first value type, {t}"),
            None => "its value types".into(),
        },
    }
}

/// ` (e.g. v8i64)` when the class's first type is a scalar that divides
/// `bits`.
fn vector_type(first: Option<&str>, bits: u32) -> String {
    let Some(t) = first else {
        return String::new();
    };
    let width: Option<u32> = t
        .strip_prefix('i')
        .or_else(|| t.strip_prefix('f'))
        .and_then(|w| w.parse().ok());
    match width {
        Some(w) if w > 0 && bits.is_multiple_of(w) && bits > w => {
            format!(" (e.g. v{}{t})", bits / w)
        }
        _ => String::new(),
    }
}
