//! `classes/NAME.html`: one register class: where it comes from (for a
//! synthesized class, which class and index made it), its sizes, lanes in
//! both modes, sub- and super-classes, members and allocation orders
//! (compactly, as runs), and the bit layout of its first member.

use maud::{html, Markup};

use std::collections::HashMap;

use super::{page, Ctx};
use crate::doc::lanes::{hex, lane_list};
use crate::doc::layout;
use crate::doc::svg;
use crate::target::{ClassOrigin, RegClass, SubRegIdx};

/// How a class came to be, in a few words with links.
pub fn origin_short(cx: &Ctx, root: &str, o: &ClassOrigin) -> Markup {
    match o {
        ClassOrigin::Defined => html! { "defined" },
        ClassOrigin::WithSubReg { class, index } => html! {
            (cx.class_link(root, *class)) " with " (cx.index_link(root, *index))
        },
        ClassOrigin::Common { a, b } => html! {
            (cx.class_link(root, *a)) " ∩ " (cx.class_link(root, *b))
        },
        ClassOrigin::MatchingSuper {
            class,
            index,
            sub_class,
        } => html! {
            (cx.class_link(root, *class)) " with " (cx.index_link(root, *index)) " in "
            (cx.class_link(root, *sub_class))
        },
    }
}

/// How a class came to be, as a sentence.
fn origin_long(cx: &Ctx, o: &ClassOrigin, span_loc: Option<String>) -> Markup {
    let root = "../";
    match o {
        ClassOrigin::Defined => html! {
            "Defined"
            @if let Some(l) = span_loc { " at " code { (l) } }
            "."
        },
        ClassOrigin::WithSubReg { class, index } => html! {
            "Synthesized (LLVM's " code { "RC_with_SUBIDX" } "): the members of "
            (cx.class_link(root, *class)) " that have a sub-register at index "
            (cx.index_link(root, *index)) "."
        },
        ClassOrigin::Common { a, b } => html! {
            "Synthesized (LLVM's " code { "A_and_B" } "): the registers in both "
            (cx.class_link(root, *a)) " and " (cx.class_link(root, *b)) "."
        },
        ClassOrigin::MatchingSuper {
            class,
            index,
            sub_class,
        } => html! {
            "Synthesized (LLVM's " code { "RC_with_SUBIDX_in_SubRC" } "): the members of "
            (cx.class_link(root, *class)) " whose " (cx.index_link(root, *index))
            " sub-register is in " (cx.class_link(root, *sub_class)) "."
        },
    }
}

/// The page of class `id`.
pub fn render(cx: &Ctx, id: RegClass) -> String {
    let root = "../";
    let t = cx.t;
    let c = t.class(id);
    let (lm, cm) = (
        &cx.v.llvm.class(id).lane_mask,
        &cx.v.coverage.class(id).lane_mask,
    );
    let rows = svg::matrix_rows(&cx.v, &[id]);
    let first = c.members.first().copied();
    let in_order = c
        .allocation_orders
        .first()
        .is_some_and(|o| o.as_slice() == c.members.as_slice());
    let (llvm_lanes, cov_lanes) = (lane_list(lm), lane_list(cm));
    let body = html! {
        h1 { "Register class " code { (c.name) } }
        p { (origin_long(cx, &c.origin, cx.location(c.span))) }
        table {
            tr { th { "enum value" } td.num { (id.0) } }
            tr { th { "namespace" } td { (c.namespace) } }
            tr { th { "members" } td.num { (c.members.len()) } }
            @for s in &c.spill {
                tr {
                    th { "size" @if s.mode.0 != 0 { " (" (t.hw_modes.get(s.mode.index()).map_or("?", |m| m.as_str())) ")" } }
                    td { (s.reg_size) " bits; spill " (s.spill_size) " bits, aligned to " (s.spill_alignment) }
                }
            }
            tr { th { "value types" } td { (c.value_types.join(", ")) } }
            tr { th { "allocatable" } td { (if c.allocatable { "yes" } else { "no" }) } }
            tr { th { "copy cost" } td.num { (c.copy_cost) } }
            tr { th { "allocation priority" } td.num { (c.allocation_priority) } }
            tr { th { "lane mask (llvm)" } td.mask { (hex(lm, cx.v.llvm.num_lanes)) " — lanes " (llvm_lanes) } }
            tr { th { "lane mask (coverage)" } td.mask { (hex(cm, cx.v.coverage.num_lanes)) " — lanes " (cov_lanes) } }
            tr { th { "covered by sub-registers" } td { (if c.covered_by_sub_regs { "yes" } else { "no" }) } }
            tr { th { "disjoint sub-registers" } td { (if c.has_disjunct_sub_regs { "yes" } else { "no" }) } }
            @if c.artificial { tr { th { "artificial" } td { "yes" } } }
        }
        div.figure { (svg::lane_matrix(&cx.v, &rows, root, false)) }
        @if let Some(r) = first {
            h2 { "Layout of " (t.reg(r).name) }
            div.figure {
                a href=(format!("{root}{}", cx.layout.register_url(t, r))) title="the interactive view, on the register's page" {
                    img.layout src=(format!("{root}{}", layout::layout_svg_url(t, r)))
                        alt=(format!("bit layout of {}", t.reg(r).name));
                }
            }
        }
        h2 { "Members (" (c.members.len()) ")" }
        (cx.reg_runs(root, &c.members))
        @if super::runs(&cx.layout, &c.members).len() < c.members.len() {
            details {
                summary { "every member" }
                // Names only (the runs above link to the registers).
                p.names {
                    code {
                        @for (n, &r) in c.members.iter().enumerate() {
                            @if n > 0 { " " }
                            (t.reg(r).name)
                        }
                    }
                }
            }
        }
        h2 { "Allocation order" }
        @if in_order && c.allocation_orders.len() == 1 {
            p { "Register order (as the members above)." }
        } @else {
            @for (k, o) in c.allocation_orders.iter().enumerate() {
                h4 { @if k == 0 { "default" } @else { "alternative " (k) } " (" (o.len()) ")" }
                (cx.reg_runs(root, o))
            }
            @if !c.alt_order_select.trim().is_empty() {
                p { "Chosen by:" } pre.diag { (c.alt_order_select.trim()) }
            }
        }
        h2 { "Sub-classes (" (c.sub_classes.len().saturating_sub(1)) ")" }
        (class_list(cx, c.sub_classes.iter().copied().filter(|&s| s != id)))
        h2 { "Super-classes (" (c.super_classes.len()) ")" }
        (class_list(cx, c.super_classes.iter().copied()))
        @if !c.sub_class_with_sub_reg.is_empty() {
            @let (whole, other): (Vec<_>, Vec<_>) = c.sub_class_with_sub_reg.iter().partition(|(_, s)| *s == id);
            h2 { "Sub-registers by index" }
            p {
                "The indices some member has, with the largest sub-class whose members all have it (LLVM's "
                code { "getSubClassWithSubReg" } "). "
                (whole.len()) " of " (c.sub_class_with_sub_reg.len()) " indices are on every member"
                @if other.is_empty() { "." } @else { "; the others:" }
            }
            @if !other.is_empty() {
                table {
                    tr { th { "index" } th { "largest sub-class whose members all have it" } }
                    @for (i, s) in &other {
                        tr { td { (cx.index_link(root, *i)) } td { (cx.class_link(root, *s)) } }
                    }
                }
            }
            @if !whole.is_empty() {
                details {
                    summary { "indices on every member (" (whole.len()) ")" }
                    // Names only: this list repeats on every class page
                    // (the index table has the details).
                    p.names {
                        code {
                            @for (n, (i, _)) in whole.iter().enumerate() {
                                @if n > 0 { " " }
                                (t.idx(*i).name)
                            }
                        }
                    }
                }
            }
        }
        @if !c.super_reg_classes.is_empty() {
            h2 { "Classes whose sub-registers lie in this class" }
            p.muted {
                "For each index " code { "I" } ", the classes " code { "C" } " such that " code { "C:I" }
                " lies in this class (LLVM's " code { "getSuperRegClasses" } "). Indices with the same classes share a row."
            }
            table {
                tr { th { "indices" } th { "classes" } }
                @for (indices, classes) in super_reg_rows(cx, id) {
                    tr {
                        td { @for (n, i) in indices.iter().enumerate() { @if n > 0 { ", " } (cx.index_link(root, *i)) } }
                        td { (classes) }
                    }
                }
            }
        }
    };
    page(cx, root, &c.name, body, &[])
}

/// The rows of the super-register-class table: indices with equal class
/// sets together (in index order of their first), each set shown by its
/// largest classes when it holds exactly their sub-classes.
fn super_reg_rows(cx: &Ctx, id: RegClass) -> Vec<(Vec<SubRegIdx>, Markup)> {
    let t = cx.t;
    let mut rows: Vec<(Vec<SubRegIdx>, &Vec<RegClass>)> = Vec::new();
    let mut at: HashMap<&Vec<RegClass>, usize> = HashMap::new();
    for (i, cs) in &t.class(id).super_reg_classes {
        match at.get(cs) {
            Some(&k) => rows[k].0.push(*i),
            None => {
                at.insert(cs, rows.len());
                rows.push((vec![*i], cs));
            }
        }
    }
    rows.into_iter()
        .map(|(indices, cs)| (indices, class_set(cx, cs)))
        .collect()
}

/// A set of classes (sorted), compactly and exactly: its largest members
/// and "their sub-classes", less those not in the set, when that is
/// shorter than the list of every member.
fn class_set(cx: &Ctx, cs: &[RegClass]) -> Markup {
    let t = cx.t;
    let contains = |c: &RegClass| cs.binary_search(c).is_ok();
    let maximal: Vec<RegClass> = cs
        .iter()
        .copied()
        .filter(|&c| !t.class(c).super_classes.iter().any(contains))
        .collect();
    let mut closure: Vec<RegClass> = maximal
        .iter()
        .flat_map(|&m| t.class(m).sub_classes.iter().copied())
        .collect();
    closure.sort_unstable();
    closure.dedup();
    // Every member lies below a largest one, so the set is the closure less
    // these.
    let except: Vec<RegClass> = closure.iter().copied().filter(|c| !contains(c)).collect();
    if maximal.len() + except.len() < cs.len() {
        html! {
            (class_list(cx, maximal.into_iter()))
            span.muted { "and their sub-classes (" (cs.len()) " classes)" }
            @if !except.is_empty() {
                span.muted { ", except:" }
                (class_list(cx, except.into_iter()))
            }
        }
    } else {
        class_list(cx, cs.iter().copied())
    }
}

fn class_list(cx: &Ctx, it: impl Iterator<Item = RegClass>) -> Markup {
    let list: Vec<RegClass> = it.collect();
    html! {
        @if list.is_empty() { p.muted { "none" } }
        @else { ul.inline { @for c in list { li { (cx.class_link("../", c)) } } } }
    }
}
