//! `regs.html` (the register groups) and `regs/GROUP.html` (one group: the
//! bit layout of its first register, then one row per register with its
//! encoding, units, explicit sub-registers (as runs, for tuples) and
//! classes; the full lists of sub-registers, super-registers, aliases and
//! unit lane masks open on demand, built by the page's script from compact
//! data, so that thousands of registers stay small).

use maud::html;

use super::{int_runs, json_script, page, Ctx};
use crate::doc::layout::{slug, GroupKind, REGS_PAGE};
use crate::doc::search::group_data_json;
use crate::doc::svg;
use crate::target::Reg;

/// `regs.html`.
pub fn render_overview(cx: &Ctx) -> String {
    let t = cx.t;
    let body = html! {
        h1 { "Registers (" (t.registers.len()) ")" }
        p {
            "Registers made by one " code { "RegisterTuples" } " def share a page; defined registers are "
            "grouped by their name without digits."
        }
        table {
            tr { th { "group" } th { "registers" } th { "first … last" } th { "sub-register indices" } }
            @for (gi, g) in cx.layout.groups.iter().enumerate() {
                @let (first, last) = (g.members[0], g.members[g.members.len() - 1]);
                tr {
                    td { a href=(cx.layout.group_page(gi)) { (g.title()) } }
                    td.num { (g.members.len()) }
                    td { (cx.reg_link("", first)) @if first != last { " … " (cx.reg_link("", last)) } }
                    td {
                        @for (k, (i, _)) in t.reg(first).explicit_sub_regs.iter().enumerate() {
                            @if k > 0 { ", " }
                            (cx.index_link("", *i))
                        }
                    }
                }
            }
        }
    };
    page(cx, "", "Registers", body, &[])
}

/// `regs/GROUP.html`.
pub fn render_group(cx: &Ctx, gi: usize) -> String {
    let root = "../";
    let t = cx.t;
    let g = &cx.layout.groups[gi];
    let first = g.members[0];
    let tuple_span = match &g.kind {
        GroupKind::Tuple(_) => cx.location(t.reg(first).span),
        _ => None,
    };
    // The indices of the explicit sub-registers, when every register of
    // the group has the same (always, for a tuple): said once.
    let shared_indices: Option<Vec<_>> = {
        let of =
            |r: Reg| -> Vec<_> { t.reg(r).explicit_sub_regs.iter().map(|&(i, _)| i).collect() };
        let first_indices = of(first);
        (!first_indices.is_empty() && g.members.iter().all(|&r| of(r) == first_indices))
            .then_some(first_indices)
    };
    let body = html! {
        h1 { "Registers: " (g.title()) }
        p {
            (g.members.len()) " registers"
            @if let Some(l) = tuple_span { ", made by the tuple def at " code { (l) } }
            ". " a href=(format!("{root}{REGS_PAGE}")) { "All groups" }
        }
        @if let Some(indices) = &shared_indices {
            p {
                "Each is built from sub-registers at "
                @for (n, i) in indices.iter().enumerate() { @if n > 0 { ", " } (cx.index_link(root, *i)) }
                "."
            }
        }
        h2 { "Layout of " (t.reg(first).name) }
        div.figure { (svg::register_layout(&cx.v, &cx.layout, first, cx.size_of[first.index()], root)) }
        p.muted { "Hover a box for its index, bits and lane masks; click it to go to the sub-register." }
        h2 { "Registers" }
        table.regs {
            tr {
                th { "register" } th { "asm name" } th { "encoding" } th { "units" }
                th { "built from" } th { "classes" } th { "details" }
            }
            @for (k, &r) in g.members.iter().enumerate() {
                @let reg = t.reg(r);
                tr id=(slug(&reg.name)) {
                    td { code { (reg.name) } @if reg.artificial { " " span.muted { "(artificial)" } } }
                    td.nw { (reg.asm_name) }
                    td.num { (reg.hw_encoding) }
                    td.nw { (int_runs(reg.units.iter().map(|u| u.0))) }
                    td {
                        @if shared_indices.is_some() {
                            @let subs: Vec<Reg> = reg.explicit_sub_regs.iter().map(|&(_, s)| s).collect();
                            (cx.reg_runs(root, &subs))
                        } @else {
                            @for (n, (i, s)) in reg.explicit_sub_regs.iter().enumerate() {
                                @if n > 0 { ", " }
                                (cx.index_link(root, *i)) "=" (cx.reg_link(root, *s))
                            }
                        }
                    }
                    td {
                        @for (n, &c) in cx.classes_of[r.index()].iter().enumerate() {
                            @if n > 0 { ", " }
                            (cx.class_link(root, c))
                        }
                    }
                    td {
                        details.reg-more data-k=(k) {
                            summary {
                                (reg.sub_regs.len()) " sub, " (reg.super_regs.len()) " super"
                            }
                            div.more-body {}
                        }
                    }
                }
            }
        }
        (json_script("group-data", group_data_json(t, other(cx), g)))
    };
    page(cx, root, &g.title(), body, &["assets/regs-data.js"])
}

/// The model in the mode not asked for.
fn other<'a>(cx: &Ctx<'a>) -> &'a crate::target::Target {
    if std::ptr::eq(cx.t, cx.v.llvm) {
        cx.v.coverage
    } else {
        cx.v.llvm
    }
}
