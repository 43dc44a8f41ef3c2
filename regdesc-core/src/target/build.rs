//! Building the consumer model from the bank and the lanes of one mode.

use std::collections::HashMap;

use super::*;
use crate::eval::RecordKeeper;
use crate::lanes::Lanes;
use crate::regs::{self, RegBank, UNKNOWN};
use crate::source::SourceMap;

impl Target {
    /// The model of a complete bank, with the lane masks of `lanes`.
    pub fn build(rk: &RecordKeeper, bank: &RegBank, lanes: &Lanes, sources: &SourceMap) -> Target {
        // Classes are renumbered into LLVM's enum order.
        let class_id = |c: regs::ClassId| RegClass(bank.class(c).enum_value);
        let reg = |r: regs::RegId| Reg(r);
        let idx = |i: regs::IdxId| SubRegIdx(i);
        let known = |v: u16| (v != UNKNOWN).then_some(v);
        let pressure = &bank.pressure;
        let pset_list = |sets: Option<&Vec<u32>>| -> Vec<PressureSet> {
            sets.map_or_else(Vec::new, |v| v.iter().map(|&p| PressureSet(p)).collect())
        };

        let sub_reg_indices = bank
            .sub_reg_indices
            .iter()
            .enumerate()
            .map(|(i, x)| SubRegIndex {
                name: x.name.clone(),
                namespace: x.namespace.clone(),
                size: known(x.size),
                offset: known(x.offset),
                lane_mask: lanes.index_masks[i].clone(),
                origin: match x.origin {
                    regs::IndexOrigin::Defined => IndexOrigin::Defined,
                    regs::IndexOrigin::Composite {
                        first,
                        second,
                        register,
                    } => IndexOrigin::Composite {
                        first: idx(first),
                        second: idx(second),
                        register: reg(register),
                    },
                    regs::IndexOrigin::Concat { register } => IndexOrigin::Concat {
                        register: reg(register),
                    },
                },
                composed: x.composed.iter().map(|(&a, &b)| (idx(a), idx(b))).collect(),
                concatenation_of: x.concatenation_of.iter().map(|&p| idx(p)).collect(),
                lane_map: lanes.lane_map(bank, i as regs::IdxId),
                all_super_regs_covered: x.all_super_regs_covered,
                artificial: x.artificial,
                span: x.span,
            })
            .collect();

        let registers = bank
            .registers
            .iter()
            .enumerate()
            .map(|(r, x)| Register {
                name: x.name.clone(),
                asm_name: x.asm_name.clone(),
                alt_names: x.alt_names.clone(),
                namespace: x.namespace.clone(),
                hw_encoding: x.hw_encoding,
                cost_per_use: x.cost_per_use.clone(),
                artificial: x.artificial,
                covered_by_sub_regs: x.covered_by_sub_regs,
                has_disjunct_sub_regs: x.has_disjunct_sub_regs,
                tuple: x.tuple.map(|t| rk.name(t).to_string()),
                explicit_sub_regs: x
                    .explicit_sub_reg_indices
                    .iter()
                    .zip(&x.explicit_sub_regs)
                    .map(|(&i, &s)| (idx(i), reg(s)))
                    .collect(),
                sub_regs: x.sub_regs.iter().map(|(&i, &s)| (idx(i), reg(s))).collect(),
                super_regs: x.super_regs.iter().map(|&s| reg(s)).collect(),
                units: x.units.iter().map(|&u| RegUnit(u)).collect(),
                unit_lane_masks: lanes.unit_masks(bank, r as regs::RegId),
                explicit_aliases: x.explicit_aliases.iter().map(|&a| reg(a)).collect(),
                span: x.span,
            })
            .collect();

        let units = bank
            .reg_units
            .iter()
            .enumerate()
            .map(|(u, x)| RegUnitInfo {
                roots: x.roots.iter().flatten().map(|&r| reg(r)).collect(),
                native: u < bank.num_native_reg_units,
                weight: pressure.emitted_unit_weight(u as regs::RegUnitId),
                pressure_sets: pset_list(pressure.unit_sets.get(u)),
            })
            .collect();

        let classes = bank
            .class_order
            .iter()
            .map(|&c| {
                let x = bank.class(c);
                let mut sub_classes: Vec<RegClass> = bank
                    .class_order
                    .iter()
                    .filter(|&&s| x.has_sub_class(bank.class(s).enum_value))
                    .map(|&s| class_id(s))
                    .collect();
                sub_classes.sort_unstable();
                let mut super_classes: Vec<RegClass> =
                    x.super_classes.iter().map(|&s| class_id(s)).collect();
                super_classes.sort_unstable();
                let mut orders = vec![x.order.iter().map(|&r| reg(r)).collect::<Vec<_>>()];
                orders.extend(
                    x.alt_orders
                        .iter()
                        .map(|o| o.iter().map(|&r| reg(r)).collect()),
                );
                RegisterClass {
                    name: x.name.clone(),
                    namespace: x.namespace.clone(),
                    origin: match x.origin {
                        regs::ClassOrigin::Defined => ClassOrigin::Defined,
                        regs::ClassOrigin::WithSubReg { class, index } => ClassOrigin::WithSubReg {
                            class: class_id(class),
                            index: idx(index),
                        },
                        regs::ClassOrigin::Common { a, b } => ClassOrigin::Common {
                            a: class_id(a),
                            b: class_id(b),
                        },
                        regs::ClassOrigin::MatchingSuper {
                            class,
                            index,
                            sub_class,
                        } => ClassOrigin::MatchingSuper {
                            class: class_id(class),
                            index: idx(index),
                            sub_class: class_id(sub_class),
                        },
                    },
                    members: x.members.iter().map(|&r| reg(r)).collect(),
                    allocation_orders: orders,
                    alt_order_select: x.alt_order_select.clone(),
                    allocatable: x.allocatable,
                    copy_cost: x.copy_cost,
                    allocation_priority: x.allocation_priority,
                    spill: (0..bank.hw_modes.len() as u32)
                        .filter(|&m| m == 0 || x.rsi.map.contains_key(&m))
                        .map(|m| {
                            let i = x.rsi.get(m);
                            SpillInfo {
                                mode: HwMode(m),
                                reg_size: i.reg_size,
                                spill_size: i.spill_size,
                                spill_alignment: i.spill_alignment,
                            }
                        })
                        .collect(),
                    value_types: x.value_types.clone(),
                    lane_mask: lanes.class_masks[c as usize].clone(),
                    sub_classes,
                    super_classes,
                    sub_class_with_sub_reg: x
                        .sub_class_with_sub_reg
                        .iter()
                        .map(|(&i, &s)| (idx(i), class_id(s)))
                        .collect(),
                    super_reg_classes: x
                        .super_reg_classes
                        .iter()
                        .map(|(&i, set)| {
                            let mut cs: Vec<RegClass> = set.iter().map(|&s| class_id(s)).collect();
                            cs.sort_unstable();
                            (idx(i), cs)
                        })
                        .collect(),
                    pressure_sets: pset_list(pressure.class_sets.get(c as usize)),
                    weight: pressure.class_weights[c as usize].weight,
                    weight_limit: pressure.class_weights[c as usize].limit,
                    artificial: x.artificial,
                    has_disjunct_sub_regs: x.has_disjunct_sub_regs,
                    covered_by_sub_regs: x.covered_by_sub_regs,
                    span: x.span,
                }
            })
            .collect();

        let targets = rk.all_derived_definitions("Target");
        let mut t = Target {
            name: match targets.as_slice() {
                [one] => Some(rk.name(*one).to_string()),
                _ => None,
            },
            lane_mode: lanes.mode,
            num_lanes: lanes.num_lanes,
            uncovered_lanes: lanes.uncovered(bank),
            hw_modes: bank.hw_modes.clone(),
            files: sources
                .files
                .iter()
                .map(|f| f.path.display().to_string())
                .collect(),
            sub_reg_indices,
            registers,
            units,
            classes,
            pressure_sets: pressure
                .sets
                .iter()
                .map(|p| PressureSetInfo {
                    name: p.name.clone(),
                    limit: p.limit,
                    units: p
                        .units
                        .iter()
                        .take_while(|&&u| (u as usize) < bank.num_native_reg_units)
                        .map(|&u| RegUnit(u))
                        .collect(),
                })
                .collect(),
            reg_names: HashMap::new(),
            class_names: HashMap::new(),
            index_names: HashMap::new(),
        };
        t.reg_names = names(t.registers.iter().map(|r| r.name.as_str()), Reg);
        t.class_names = names(t.classes.iter().map(|c| c.name.as_str()), RegClass);
        t.index_names = names(t.sub_reg_indices.iter().map(|i| i.name.as_str()), SubRegIdx);
        t
    }
}

/// Name → id, the first of equal names winning.
fn names<'a, T: Copy>(
    it: impl Iterator<Item = &'a str>,
    id: impl Fn(u32) -> T,
) -> HashMap<String, T> {
    let mut m = HashMap::new();
    for (i, n) in it.enumerate() {
        m.entry(n.to_string()).or_insert(id(i as u32));
    }
    m
}
