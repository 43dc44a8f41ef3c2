//! `indices.html`: every sub-register index, one row each: where it comes
//! from, offset and size, lane masks in both modes, its compositions, and
//! the names coverage mode lets share its lanes.

use maud::{html, Markup};

use super::{page, Ctx};
use crate::doc::lanes::hex;
use crate::doc::layout::slug;
use crate::target::{IndexOrigin, SubRegIdx};

/// Compositions listed inline; more go in a `<details>`.
const INLINE: usize = 6;

/// The index table.
pub fn render(cx: &Ctx) -> String {
    let t = cx.t;
    let v = &cx.v;
    let body = html! {
        h1 { "Sub-register indices (" (t.sub_reg_indices.len()) ")" }
        p {
            "Offsets and sizes in bits. " b { "llvm" } " masks give each leaf index a lane of its own, as "
            "llvm-tblgen 14 does; " b { "coverage" } " masks let indices naming the same bits share one. "
            "A composition " code { "a → b" } " means " code { "R:this:a = R:b" } "."
        }
        table {
            tr {
                th { "id" } th { "index" } th { "origin" } th { "offset" } th { "size" }
                th { "llvm mask" } th { "coverage mask" } th { "compositions" }
                th { "shares its coverage lanes with" }
            }
            @for (k, x) in t.sub_reg_indices.iter().enumerate() {
                @let i = SubRegIdx(k as u32);
                tr id=(slug(&x.name)) {
                    td.num { (k + 1) }
                    td { code { (x.name) } }
                    td { (origin(cx, i)) }
                    td.num { (x.offset.map_or("?".to_string(), |o| o.to_string())) }
                    td.num { (x.size.map_or("?".to_string(), |s| s.to_string())) }
                    td.mask { (hex(&v.llvm.idx(i).lane_mask, v.llvm.num_lanes)) }
                    td.mask { (hex(&v.coverage.idx(i).lane_mask, v.coverage.num_lanes)) }
                    td { (compositions(cx, i)) }
                    td.names {
                        @for (n, &j) in v.shared_names[k].iter().enumerate() {
                            @if n > 0 { ", " }
                            (cx.index_link("", j))
                        }
                    }
                }
            }
        }
    };
    page(cx, "", "Sub-register indices", body, &[])
}

fn origin(cx: &Ctx, i: SubRegIdx) -> Markup {
    let t = cx.t;
    let x = t.idx(i);
    match &x.origin {
        IndexOrigin::Defined => html! {
            "defined"
            @if let Some(l) = cx.location(x.span) { br; span.muted { (l) } }
        },
        IndexOrigin::Composite {
            first,
            second,
            register,
        } => html! {
            (cx.index_link("", *first)) " then " (cx.index_link("", *second))
            br; span.muted { "as in " (cx.reg_link("", *register)) }
        },
        IndexOrigin::Concat { register } => html! {
            "concatenation of "
            @for (n, &p) in x.concatenation_of.iter().enumerate() {
                @if n > 0 { ", " }
                (cx.index_link("", p))
            }
            br; span.muted { "as in " (cx.reg_link("", *register)) }
        },
    }
}

fn compositions(cx: &Ctx, i: SubRegIdx) -> Markup {
    let composed = &cx.t.idx(i).composed;
    let item = |&(a, b): &(SubRegIdx, SubRegIdx)| {
        html! { li { (cx.index_link("", a)) " → " (cx.index_link("", b)) } }
    };
    html! {
        @if composed.len() <= INLINE {
            ul.inline { @for c in composed { (item(c)) } }
        } @else {
            details {
                summary { (composed.len()) " compositions" }
                ul.inline { @for c in composed { (item(c)) } }
            }
        }
    }
}
