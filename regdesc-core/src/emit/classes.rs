//! Register class tables: membership, allocation orders, sub- and
//! super-class relations, sizes per mode, pressure sets.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::pool::Pool;
use super::regs::{names, Part};
use super::LaneWidth;
use crate::target::{RegClass, Target};

fn psets(v: &[crate::target::PressureSet]) -> Vec<u16> {
    v.iter().map(|p| p.0 as u16).collect()
}

/// A bit set over classes, `words` 64-bit words.
fn class_set(classes: impl IntoIterator<Item = RegClass>, words: usize) -> Vec<u64> {
    let mut v = vec![0u64; words];
    for c in classes {
        v[c.0 as usize / 64] |= 1 << (c.0 % 64);
    }
    v
}

pub(super) fn gen_classes(t: &Target, width: LaneWidth) -> Part {
    let nc = t.classes.len();
    let nidx = t.sub_reg_indices.len();
    let mask_words = nc.div_ceil(64).max(1);

    let mut words = Pool::new(None);
    let mut masks = Pool::new(None);
    let mut lists = Pool::new(None);
    let mut order_pool = Pool::new(None);
    let mut pset_pool: Pool<u16> = Pool::new(None);
    // Membership bit sets cover the words from the lowest member to the
    // highest (register numbers count from 1).
    let member_sets: Vec<(u16, Vec<u64>)> = t
        .classes
        .iter()
        .map(|c| {
            let nums: Vec<usize> = c.members.iter().map(|r| r.llvm_number() as usize).collect();
            let (lo, hi) = match (nums.first(), nums.last()) {
                (Some(&a), Some(&b)) => (a / 64, b / 64),
                _ => (0, 0),
            };
            let mut v = vec![0u64; if nums.is_empty() { 0 } else { hi - lo + 1 }];
            for n in nums {
                v[n / 64 - lo] |= 1 << (n % 64);
            }
            (lo as u16, v)
        })
        .collect();
    let sub_sets: Vec<Vec<u64>> = t
        .classes
        .iter()
        .map(|c| class_set(c.sub_classes.iter().copied(), mask_words))
        .collect();
    let super_sets: Vec<Vec<(u16, Vec<u64>)>> = t
        .classes
        .iter()
        .map(|c| {
            c.super_reg_classes
                .iter()
                .map(|(i, cs)| {
                    (
                        i.llvm_number() as u16,
                        class_set(cs.iter().copied(), mask_words),
                    )
                })
                .collect()
        })
        .collect();
    // As in LLVM, a class's `AltOrders` are reachable only through its
    // `AltOrderSelect`: without one, only the default order exists.
    let orders: Vec<Vec<Vec<u16>>> = t
        .classes
        .iter()
        .map(|c| {
            let reachable = if c.alt_order_select.trim().is_empty() {
                1
            } else {
                c.allocation_orders.len()
            };
            c.allocation_orders
                .iter()
                .take(reachable)
                .map(|o| o.iter().map(|r| r.llvm_number() as u16).collect())
                .collect()
        })
        .collect();
    for (i, c) in t.classes.iter().enumerate() {
        words.add(&member_sets[i].1);
        masks.add(&sub_sets[i]);
        for (_, m) in &super_sets[i] {
            masks.add(m);
        }
        lists.add(
            &c.super_classes
                .iter()
                .map(|s| s.0 as u16)
                .collect::<Vec<_>>(),
        );
        for o in &orders[i] {
            order_pool.add(o);
        }
        pset_pool.add(&psets(&c.pressure_sets));
    }
    for u in &t.units {
        pset_pool.add(&psets(&u.pressure_sets));
    }

    // Allocation orders: a span of `orders` per class, each a span of regs.
    let mut order_spans: Vec<TokenStream> = Vec::new();
    let mut super_entries: Vec<TokenStream> = Vec::new();
    // Sub-class-with-sub-register rows, deduplicated.
    let mut rows: Vec<Vec<u16>> = Vec::new();
    let mut row_ids: BTreeMap<Vec<u16>, u16> = BTreeMap::new();

    let descs: Vec<TokenStream> = t
        .classes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let members = words.offset(&member_sets[i].1);
            let first_word = member_sets[i].0;
            let num_words = member_sets[i].1.len() as u16;
            let num_members = c.members.len() as u16;
            let ostart = order_spans.len() as u32;
            for o in &orders[i] {
                let (s, l) = (order_pool.offset(o), o.len() as u32);
                order_spans.push(quote!(sp(#s, #l)));
            }
            let olen = orders[i].len() as u32;
            let lane = width.mask(&c.lane_mask);
            let copy =
                Literal::i16_unsuffixed(c.copy_cost.clamp(i16::MIN as i64, i16::MAX as i64) as i16);
            let alloc = c.allocatable;
            let prio = c.allocation_priority;
            let subs = masks.offset(&sub_sets[i]);
            let sup: Vec<u16> = c.super_classes.iter().map(|s| s.0 as u16).collect();
            let (sup_start, sup_len) = (lists.offset(&sup), sup.len() as u32);
            let mut row = vec![0u16; nidx];
            for &(x, s) in &c.sub_class_with_sub_reg {
                row[x.index()] = s.llvm_number() as u16;
            }
            let next = rows.len() as u16;
            let row_id = *row_ids.entry(row.clone()).or_insert_with(|| {
                rows.push(row);
                next
            });
            let sstart = super_entries.len() as u32;
            for (x, m) in &super_sets[i] {
                let off = masks.offset(m);
                super_entries.push(quote!((#x, #off)));
            }
            let slen = super_sets[i].len() as u32;
            let ps = psets(&c.pressure_sets);
            let (pstart, plen) = (pset_pool.offset(&ps), ps.len() as u32);
            let (w, wl) = (c.weight, c.weight_limit);
            quote!(cd(
                #members, #first_word, #num_words, #num_members, sp(#ostart, #olen), #lane,
                #copy, #alloc, #prio, #subs, sp(#sup_start, #sup_len), #row_id,
                sp(#sstart, #slen), sp(#pstart, #plen), #w, #wl
            ))
        })
        .collect();

    let class_words: Vec<Literal> = words
        .items()
        .into_iter()
        .map(Literal::u64_unsuffixed)
        .collect();
    let class_masks: Vec<Literal> = masks
        .items()
        .into_iter()
        .map(Literal::u64_unsuffixed)
        .collect();
    let class_lists = lists.items().into_iter().map(|c| quote!(RegClass(#c)));
    let order_regs = order_pool.items().into_iter().map(|r| quote!(r(#r)));
    let scwsr = rows.iter().flatten().map(|&v| Literal::u16_unsuffixed(v));
    let nrows = rows.len() * nidx;
    let modes = t.hw_modes.len().max(1);
    let spill = (0..modes).flat_map(|m| {
        t.classes.iter().map(move |c| {
            let s = c
                .spill
                .iter()
                .find(|s| s.mode.0 as usize == m)
                .or_else(|| c.default_spill());
            let (a, b, d) = s.map_or((0, 0, 0), |s| (s.reg_size, s.spill_size, s.spill_alignment));
            quote!(SpillInfo { reg_size: #a, spill_size: #b, spill_alignment: #d })
        })
    });
    let class_names = names(t.classes.iter().map(|c| c.name.as_str()));
    let pset_names = names(t.pressure_sets.iter().map(|p| p.name.as_str()));
    let pset_limits = t.pressure_sets.iter().map(|p| p.limit);
    let unit_psets: Vec<TokenStream> = t
        .units
        .iter()
        .map(|u| {
            let ps = psets(&u.pressure_sets);
            let (s, l) = (pset_pool.offset(&ps), ps.len() as u32);
            quote!(sp(#s, #l))
        })
        .collect();
    let unit_weights = t.units.iter().map(|u| Literal::u32_unsuffixed(u.weight));
    let pset_lists = pset_pool.items().into_iter().map(Literal::u16_unsuffixed);
    let (nwords, nmasks, nsup) = (class_words.len(), class_masks.len(), super_entries.len());
    let mask_words = mask_words as u16;

    Part {
        items: quote! {
            #[allow(clippy::too_many_arguments)]
            const fn cd(
                members: u32,
                first_word: u16,
                num_words: u16,
                num_members: u16,
                orders: Span,
                lane_mask: LaneMask,
                copy_cost: i16,
                allocatable: bool,
                allocation_priority: u8,
                sub_classes: u32,
                super_classes: Span,
                sub_class_with_sub_reg_row: u16,
                super_reg_classes: Span,
                pressure_sets: Span,
                weight: u32,
                weight_limit: u32,
            ) -> ClassDesc<LaneBits> {
                ClassDesc {
                    members,
                    first_word,
                    num_words,
                    num_members,
                    orders,
                    lane_mask,
                    copy_cost,
                    allocatable,
                    allocation_priority,
                    sub_classes,
                    super_classes,
                    sub_class_with_sub_reg_row,
                    super_reg_classes,
                    pressure_sets,
                    weight,
                    weight_limit,
                }
            }
            static CLASSES: [ClassDesc<LaneBits>; #nc] = [#(#descs),*];
            static CLASS_WORDS: [u64; #nwords] = [#(#class_words),*];
            static CLASS_MASKS: [u64; #nmasks] = [#(#class_masks),*];
            static SUB_CLASS_WITH_SUB_REG: [u16; #nrows] = [#(#scwsr),*];
            static SUPER_REG_CLASSES: [(u16, u32); #nsup] = [#(#super_entries),*];
        },
        fields: quote! {
            class_names: #class_names,
            classes: &CLASSES,
            class_words: &CLASS_WORDS,
            orders: &[#(#order_spans),*],
            order_regs: &[#(#order_regs),*],
            class_mask_words: #mask_words,
            class_masks: &CLASS_MASKS,
            class_lists: &[#(#class_lists),*],
            sub_class_with_sub_reg: &SUB_CLASS_WITH_SUB_REG,
            super_reg_classes: &SUPER_REG_CLASSES,
            spill: &[#(#spill),*],
            unit_weights: &[#(#unit_weights),*],
            unit_pressure_sets: &[#(#unit_psets),*],
            pressure_set_names: #pset_names,
            pressure_set_limits: &[#(#pset_limits),*],
            pressure_set_lists: &[#(#pset_lists),*],
        },
    }
}
