//! Sub-register index tables: names, bit ranges, lane masks, composition.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::regs::{names, Part};
use super::LaneWidth;
use crate::lanes::LaneMask;
use crate::target::Target;

pub(super) fn gen_indices(t: &Target, width: LaneWidth) -> Part {
    let n = t.sub_reg_indices.len();
    let index_names = names(t.sub_reg_indices.iter().map(|i| i.name.as_str()));
    let ranges = t.sub_reg_indices.iter().map(|i| {
        let size = Literal::u16_unsuffixed(i.size.unwrap_or(u16::MAX));
        let offset = Literal::u16_unsuffixed(i.offset.unwrap_or(u16::MAX));
        quote!((#size, #offset))
    });
    let masks = t.sub_reg_indices.iter().map(|i| width.mask(&i.lane_mask));
    let uncovered = width.mask(&t.uncovered_lanes);

    // Composition: one row per distinct row of the n x n table.
    let mut rows: Vec<Vec<u16>> = Vec::new();
    let mut row_ids: BTreeMap<Vec<u16>, u16> = BTreeMap::new();
    let mut row_of = Vec::with_capacity(n);
    for idx in &t.sub_reg_indices {
        let mut row = vec![0u16; n];
        for &(a, b) in &idx.composed {
            row[a.index()] = b.llvm_number() as u16;
        }
        let next = rows.len() as u16;
        let id = *row_ids.entry(row.clone()).or_insert_with(|| {
            rows.push(row);
            next
        });
        row_of.push(Literal::u16_unsuffixed(id));
    }
    let compose = rows.iter().flatten().map(|&c| Literal::u16_unsuffixed(c));
    let ncompose = rows.len() * n;

    // Lane-mask composition: lane pairs grouped by how far they move.
    let mut shifts: Vec<TokenStream> = Vec::new();
    let mut spans: Vec<TokenStream> = Vec::new();
    for idx in &t.sub_reg_indices {
        let mut by_shift: BTreeMap<i64, LaneMask> = BTreeMap::new();
        for &(from, to) in &idx.lane_map {
            by_shift
                .entry(to as i64 - from as i64)
                .or_default()
                .set(from);
        }
        let start = shifts.len() as u32;
        for (s, m) in &by_shift {
            let m = width.mask(m);
            let s = Literal::i16_unsuffixed(*s as i16);
            shifts.push(quote!(LaneShift { mask: #m, shift: #s }));
        }
        let len = by_shift.len() as u32;
        spans.push(quote!(sp(#start, #len)));
    }
    let nshifts = shifts.len();

    Part {
        items: quote! {
            static COMPOSE_ROWS: [u16; #ncompose] = [#(#compose),*];
            static LANE_SHIFTS: [LaneShift<LaneBits>; #nshifts] = [#(#shifts),*];
        },
        fields: quote! {
            index_names: #index_names,
            index_ranges: &[#(#ranges),*],
            index_lane_masks: &[#(#masks),*],
            uncovered_lanes: #uncovered,
            compose_rows: &COMPOSE_ROWS,
            compose_row_of: &[#(#row_of),*],
            index_lane_shifts: &[#(#spans),*],
            lane_shifts: &LANE_SHIFTS,
        },
    }
}
