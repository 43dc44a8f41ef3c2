//! Register tables: names, encodings, sub- and super-register lists, units.

use std::collections::HashMap;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::pool::{Pool, Strings};
use super::LaneWidth;
use crate::target::{Reg, Target};

/// Items to place in the tables module, and the `Tables` fields they fill.
pub(super) struct Part {
    pub items: TokenStream,
    pub fields: TokenStream,
}

/// A `Names` value.
pub(super) fn names<'a>(it: impl IntoIterator<Item = &'a str>) -> TokenStream {
    let s = Strings::new(it);
    let text = &s.text;
    let bounds = s.bounds.iter().map(|&b| Literal::u32_unsuffixed(b));
    quote!(Names { text: #text, bounds: &[#(#bounds),*] })
}

/// `r`'s number as LLVM numbers it.
fn raw(r: Reg) -> u16 {
    r.llvm_number() as u16
}

/// A difference list from `base` (without its terminator).
fn diffs(base: u16, seq: impl IntoIterator<Item = u16>) -> Vec<u16> {
    let mut prev = base;
    seq.into_iter()
        .map(|v| {
            let d = v.wrapping_sub(prev);
            prev = v;
            d
        })
        .collect()
}

fn u16s(v: &[u16]) -> impl Iterator<Item = Literal> + '_ {
    v.iter().map(|&x| Literal::u16_unsuffixed(x))
}

pub(super) fn gen_registers(t: &Target, width: LaneWidth) -> Part {
    let n = t.registers.len();
    // Every list, per register.
    struct Lists {
        sub_diffs: Vec<u16>,
        sub_indices: Vec<u16>,
        map: Vec<(u16, u16)>,
        unit_diffs: Vec<u16>,
        unit_masks: Vec<crate::lanes::LaneMask>,
        super_diffs: Vec<u16>,
        first_unit: u16,
        last_unit: u16,
        num_units: u16,
    }
    let lists: Vec<Lists> = (0..n)
        .map(|i| {
            let r = Reg(i as u32);
            let reg = t.reg(r);
            let me = raw(r);
            let pre = t.sub_regs_pre_order(r);
            let mut index_of: HashMap<Reg, u16> = HashMap::new();
            for &(x, s) in &reg.sub_regs {
                index_of.entry(s).or_insert(x.llvm_number() as u16);
            }
            let sub_indices = pre
                .iter()
                .map(|s| index_of.get(s).copied().unwrap_or(0))
                .collect();
            let map = reg
                .sub_regs
                .iter()
                .map(|&(x, s)| (x.llvm_number() as u16, raw(s).wrapping_sub(me)))
                .collect();
            let units: Vec<u16> = reg.units.iter().map(|u| u.0 as u16).collect();
            let first_unit = units.first().copied().unwrap_or(0);
            let last_unit = units.last().copied().unwrap_or(0);
            Lists {
                sub_diffs: diffs(me, pre.iter().map(|&s| raw(s))),
                sub_indices,
                map,
                unit_diffs: diffs(first_unit, units.iter().skip(1).copied()),
                unit_masks: reg.unit_lane_masks.clone(),
                super_diffs: diffs(me, reg.super_regs.iter().map(|&s| raw(s))),
                first_unit,
                last_unit,
                num_units: units.len() as u16,
            }
        })
        .collect();

    let mut diff_pool = Pool::new(Some(0u16));
    let mut index_pool = Pool::new(None);
    let mut map_pool = Pool::new(None);
    let mut mask_pool = Pool::new(None);
    for l in &lists {
        diff_pool.add(&l.sub_diffs);
        diff_pool.add(&l.unit_diffs);
        diff_pool.add(&l.super_diffs);
        index_pool.add(&l.sub_indices);
        map_pool.add(&l.map);
        mask_pool.add(&l.unit_masks);
    }
    let descs: Vec<TokenStream> = lists
        .iter()
        .map(|l| {
            let sub = diff_pool.offset(&l.sub_diffs);
            let idx = index_pool.offset(&l.sub_indices);
            let map = map_pool.offset(&l.map);
            let nsub = l.map.len() as u16;
            let (first, last) = (l.first_unit, l.last_unit);
            let nunits = l.num_units;
            let units = diff_pool.offset(&l.unit_diffs);
            let masks = mask_pool.offset(&l.unit_masks);
            let sup = diff_pool.offset(&l.super_diffs);
            quote!(rd(#sub, #idx, #map, #nsub, #first, #last, #nunits, #units, #masks, #sup))
        })
        .collect();
    let diff_items = diff_pool.items();
    let index_items = index_pool.items();
    let map_items: Vec<TokenStream> = map_pool
        .items()
        .into_iter()
        .map(|(a, b)| {
            let (a, b) = (Literal::u16_unsuffixed(a), Literal::u16_unsuffixed(b));
            quote!((#a, #b))
        })
        .collect();
    let mask_items: Vec<TokenStream> = mask_pool.items().iter().map(|m| width.mask(m)).collect();
    let (nd, ni, nm, nk) = (
        diff_items.len(),
        index_items.len(),
        map_items.len(),
        mask_items.len(),
    );
    let diff_lits = u16s(&diff_items);
    let index_lits = u16s(&index_items);

    let reg_names = names(t.registers.iter().map(|r| r.name.as_str()));
    let asm_names = names(t.registers.iter().map(|r| r.asm_name.as_str()));
    let alt_names = names(
        t.registers
            .iter()
            .flat_map(|r| r.alt_names.iter().map(String::as_str)),
    );
    let mut alt_bounds = vec![0u32];
    for r in &t.registers {
        let last = alt_bounds.last().copied().unwrap_or(0);
        alt_bounds.push(last + r.alt_names.len() as u32);
    }
    let alt_bounds = alt_bounds.iter().map(|&b| Literal::u32_unsuffixed(b));
    let mut by_name: Vec<usize> = (0..n).collect();
    by_name.sort_by(|&a, &b| t.registers[a].name.cmp(&t.registers[b].name));
    let by_name = by_name
        .iter()
        .map(|&i| Literal::u16_unsuffixed(Reg::new(i).llvm_number() as u16));
    let encodings = t
        .registers
        .iter()
        .map(|r| Literal::u16_unsuffixed(r.hw_encoding));
    let mut artificial = vec![0u64; n.div_ceil(64)];
    for (i, r) in t.registers.iter().enumerate() {
        if r.artificial {
            artificial[i / 64] |= 1 << (i % 64);
        }
    }
    let artificial = artificial.iter().map(|&w| Literal::u64_unsuffixed(w));
    let models = t
        .registers
        .iter()
        .map(|r| r.cost_per_use.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut costs = Vec::with_capacity(models * n);
    for m in 0..models {
        for r in &t.registers {
            let c = r.cost_per_use.get(m).copied().unwrap_or(0);
            costs.push(Literal::u8_unsuffixed(c.clamp(0, 255) as u8));
        }
    }
    let models = models as u16;

    let roots = t.units.iter().map(|u| {
        let a = u.roots.first().map_or(0, |&r| raw(r));
        let b = u.roots.get(1).map_or(0, |&r| raw(r));
        let (a, b) = (Literal::u16_unsuffixed(a), Literal::u16_unsuffixed(b));
        quote!([#a, #b])
    });
    let nu = t.units.len();

    Part {
        items: quote! {
            const fn rd(
                sub_regs: u32,
                sub_reg_indices: u32,
                sub_reg_map: u32,
                num_sub_regs: u16,
                first_unit: u16,
                last_unit: u16,
                num_units: u16,
                units: u32,
                unit_lane_masks: u32,
                super_regs: u32,
            ) -> RegDesc {
                RegDesc {
                    sub_regs,
                    sub_reg_indices,
                    sub_reg_map,
                    num_sub_regs,
                    first_unit,
                    last_unit,
                    num_units,
                    units,
                    unit_lane_masks,
                    super_regs,
                }
            }
            static REGS: [RegDesc; #n] = [#(#descs),*];
            static DIFFS: [u16; #nd] = [#(#diff_lits),*];
            static SUB_REG_INDEX_LISTS: [u16; #ni] = [#(#index_lits),*];
            static SUB_REG_MAPS: [(u16, u16); #nm] = [#(#map_items),*];
            static UNIT_LANE_MASKS: [LaneMask; #nk] = [#(#mask_items),*];
            static UNIT_ROOTS: [[u16; 2]; #nu] = [#(#roots),*];
        },
        fields: quote! {
            reg_names: #reg_names,
            regs_by_name: &[#(r(#by_name)),*],
            asm_names: #asm_names,
            alt_names: #alt_names,
            alt_name_bounds: &[#(#alt_bounds),*],
            hw_encodings: &[#(#encodings),*],
            artificial: &[#(#artificial),*],
            cost_per_use: &[#(#costs),*],
            num_cost_models: #models,
            regs: &REGS,
            diffs: &DIFFS,
            sub_reg_index_lists: &SUB_REG_INDEX_LISTS,
            sub_reg_maps: &SUB_REG_MAPS,
            unit_lane_mask_lists: &UNIT_LANE_MASKS,
            unit_roots: &UNIT_ROOTS,
        },
    }
}
