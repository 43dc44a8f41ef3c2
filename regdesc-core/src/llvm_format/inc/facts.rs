//! What `GenRegisterInfo.inc` needs beyond the register bank: facts read
//! from the records (value types, `TSFlags`, DWARF numbers, callee-saved
//! sets, alternate name indices) and the lane masks as LLVM's 64-bit
//! `LaneBitmask` values, with the mask-and-rotate steps of
//! `composeSubRegIndexLaneMask`.

use rustc_hash::FxHashMap as HashMap;

use crate::eval::{RecId, RecordKeeper};
use crate::lanes::{LaneMask, LaneMode, Lanes};
use crate::regs::sets::{RecSet, Sets};
use crate::regs::{ClassId, RegBank, RegId};

use super::IncError;

/// A value type: LLVM's `MVT` enumerator name and number.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Vt {
    /// `MVT::SimpleValueType`, which orders the shared lists.
    pub value: i64,
    pub name: String,
}

/// One `CalleeSavedRegs` def.
#[derive(Clone, Debug)]
pub struct SavedRegs {
    pub name: String,
    /// `SaveList`, in order.
    pub save: Vec<RegId>,
    /// Registers preserved: the saved ones and `OtherPreserved`, their
    /// sub-registers, and super-registers they cover (by enum value).
    pub preserved: Vec<bool>,
}

/// One step of `composeSubRegIndexLaneMask`: lanes in `mask` rotate left
/// by `rotate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaskRol {
    pub mask: u64,
    pub rotate: u8,
}

/// Everything the writer reads besides the bank.
pub struct Facts {
    pub target: String,
    /// `RegAltNameIndex` defs, in LLVM's order.
    pub alt_name_indices: Vec<String>,
    /// By index.
    pub index_masks: Vec<u64>,
    /// By [`ClassId`].
    pub class_masks: Vec<u64>,
    pub covering_lanes: u64,
    /// By index: the steps of composing a mask through it.
    pub transforms: Vec<Vec<MaskRol>>,
    /// By register: the lane mask of each of its native units (LLVM
    /// computes masks for adopted units too, then drops them).
    pub unit_masks: Vec<Vec<u64>>,
    /// By [`ClassId`], by HW mode: the value types.
    pub vts: Vec<Vec<Vec<Vt>>>,
    /// By [`ClassId`].
    pub ts_flags: Vec<u8>,
    /// By register: `DwarfNumbers`.
    pub dwarf: Vec<Vec<i64>>,
    /// By register: `DwarfAlias`.
    pub dwarf_alias: Vec<Option<RegId>>,
    pub saved: Vec<SavedRegs>,
}

fn word(m: &LaneMask) -> u64 {
    m.word(0)
}

impl Facts {
    pub fn gather(rk: &RecordKeeper, bank: &RegBank, lanes: &Lanes) -> Result<Facts, IncError> {
        if lanes.num_lanes > 64 {
            return Err(IncError::TooManyLanes {
                lanes: lanes.num_lanes,
                mode: lanes.mode,
            });
        }
        let target = rk
            .all_derived_definitions("Target")
            .first()
            .map(|&t| rk.name(t).to_string())
            .ok_or(IncError::NoTarget)?;
        let mut alt = rk.all_derived_definitions("RegAltNameIndex");
        alt.sort_by(|&a, &b| crate::regs::compare_numeric(rk.name(a), rk.name(b)));
        let reg_ids: HashMap<&str, RegId> = bank
            .registers
            .iter()
            .enumerate()
            .map(|(i, r)| (r.name.as_str(), i as RegId))
            .collect();
        let (dwarf, dwarf_alias) = dwarf_numbers(rk, bank, &reg_ids);
        Ok(Facts {
            target,
            alt_name_indices: alt.iter().map(|&a| rk.name(a).to_string()).collect(),
            index_masks: lanes.index_masks.iter().map(word).collect(),
            class_masks: lanes.class_masks.iter().map(word).collect(),
            covering_lanes: !word(&lanes.uncovered(bank)),
            transforms: transforms(bank, lanes),
            unit_masks: (0..bank.registers.len() as RegId)
                .map(|r| lanes.unit_masks(bank, r).iter().map(word).collect())
                .collect(),
            vts: value_types(rk, bank)?,
            ts_flags: ts_flags(rk, bank),
            dwarf,
            dwarf_alias,
            saved: saved_regs(rk, bank, &reg_ids)?,
        })
    }
}

/// LLVM's `CompositionLaneMaskTransform` of every index. In llvm mode this
/// follows LLVM: each leaf index, in order, with its lane, moves to the lane
/// of the leaf it composes to. In coverage mode the lane pairs come from
/// [`Lanes::lane_map`]. Steps with the same rotation merge; a single step
/// takes every lane, and no step becomes "every lane, no rotation".
#[inline(never)]
fn transforms(bank: &RegBank, lanes: &Lanes) -> Vec<Vec<MaskRol>> {
    let leaves: Vec<(usize, u32)> = bank
        .sub_reg_indices
        .iter()
        .enumerate()
        .filter(|(_, x)| x.is_leaf())
        .scan(0u32, |next, (i, _)| {
            let bit = *next;
            if *next < 63 {
                *next += 1;
            }
            Some((i, bit))
        })
        .collect();
    bank.sub_reg_indices
        .iter()
        .enumerate()
        .map(|(i, idx)| {
            let mut steps: Vec<MaskRol> = Vec::new();
            let mut push = |src: u32, dst: u32| {
                let rotate = ((dst as i64 - src as i64).rem_euclid(64)) as u8;
                let mut mask = 1u64 << src;
                for s in steps.iter_mut() {
                    if s.rotate == rotate {
                        s.mask |= mask;
                        mask = 0;
                    }
                }
                if mask != 0 {
                    steps.push(MaskRol { mask, rotate });
                }
            };
            if idx.is_leaf() {
                let dst = lanes.index_masks[i].highest().unwrap_or(0);
                push(0, dst);
            } else if lanes.mode == LaneMode::Llvm {
                for &(leaf, src) in &leaves {
                    if let Some(&c) = idx.composed.get(&(leaf as u32)) {
                        let dst = lanes.index_masks[c as usize].highest().unwrap_or(0);
                        push(src, dst);
                    }
                }
            } else {
                for (a, b) in lanes.lane_map(bank, i as u32) {
                    push(a, b);
                }
            }
            match steps.len() {
                0 => steps.push(MaskRol {
                    mask: u64::MAX,
                    rotate: 0,
                }),
                1 => steps[0].mask = u64::MAX,
                _ => {}
            }
            steps
        })
        .collect()
}

/// LLVM's enumerator for a `ValueType` record.
fn vt_enum_name(record: &str) -> &str {
    match record {
        "OtherVT" => "Other",
        "FlagVT" => "Glue",
        "MetadataVT" => "Metadata",
        "untyped" => "Untyped",
        other => other,
    }
}

/// LLVM's enumerator for each `MVT` number: the `ValueType` def with that
/// `Value` (a `PtrValueType` such as AMDGPU's `p0` is its scalar's number,
/// and LLVM prints the scalar's name).
fn vt_names(rk: &RecordKeeper) -> HashMap<i64, String> {
    let mut names = HashMap::default();
    for id in rk.all_derived_definitions("ValueType") {
        if rk.is_subclass_of_name(id, "PtrValueType") {
            continue;
        }
        if let Some(v) = rk.record(id).get_int("Value") {
            names
                .entry(v)
                .or_insert_with(|| format!("MVT::{}", vt_enum_name(rk.name(id))));
        }
    }
    names
}

fn simple_vt(rk: &RecordKeeper, names: &HashMap<i64, String>, id: RecId) -> Result<Vt, IncError> {
    let rec = rk.record(id);
    let value = rec.get_int("Value").ok_or_else(|| IncError::ValueType {
        name: rec.name.clone(),
    })?;
    let name = names
        .get(&value)
        .cloned()
        .unwrap_or_else(|| format!("MVT::{}", vt_enum_name(&rec.name)));
    Ok(Vt { value, name })
}

/// Each class's value types in each HW mode (`ValueTypeByHwMode::get`: the
/// mode's own, else the default mode's).
#[inline(never)]
fn value_types(rk: &RecordKeeper, bank: &RegBank) -> Result<Vec<Vec<Vec<Vt>>>, IncError> {
    let modes = bank.hw_modes.len();
    let mode_id = |name: &str| -> Option<usize> {
        if name == "DefaultMode" {
            return Some(0);
        }
        bank.hw_modes
            .iter()
            .skip(1)
            .position(|m| m == name)
            .map(|p| p + 1)
    };
    let names = vt_names(rk);
    let mut memo: HashMap<&str, Vec<Vt>> = HashMap::default();
    let mut out = Vec::with_capacity(bank.classes.len());
    for rc in &bank.classes {
        let mut per_mode = vec![Vec::new(); modes];
        for name in &rc.value_types {
            if !memo.contains_key(name.as_str()) {
                let Some(rec) = rk.get_def(name) else {
                    return Err(IncError::ValueType { name: name.clone() });
                };
                let by_mode = if rk.is_subclass_of_name(rec.id, "HwModeSelect") {
                    let ms = rec.get_list("Modes").unwrap_or_default();
                    let os = rec.get_list("Objects").unwrap_or_default();
                    let mut v: Vec<Option<Vt>> = vec![None; modes];
                    for (m, o) in ms.iter().zip(os) {
                        let (Some(m), Some(o)) = (m.as_def(), o.as_def()) else {
                            continue;
                        };
                        if let Some(k) = mode_id(rk.name(m)) {
                            v[k] = Some(simple_vt(rk, &names, o)?);
                        }
                    }
                    let default = v[0]
                        .clone()
                        .ok_or_else(|| IncError::ValueType { name: name.clone() })?;
                    v.into_iter()
                        .map(|x| x.unwrap_or_else(|| default.clone()))
                        .collect()
                } else {
                    vec![simple_vt(rk, &names, rec.id)?; modes]
                };
                memo.insert(name.as_str(), by_mode);
            }
            for (m, vt) in memo[name.as_str()].iter().enumerate() {
                per_mode[m].push(vt.clone());
            }
        }
        out.push(per_mode);
    }
    Ok(out)
}

/// Each class's `TSFlags`; a synthesized class takes its smallest
/// super-class's.
#[inline(never)]
fn ts_flags(rk: &RecordKeeper, bank: &RegBank) -> Vec<u8> {
    fn of(rk: &RecordKeeper, bank: &RegBank, c: ClassId, depth: usize) -> u8 {
        let rc = bank.class(c);
        match rc.def {
            Some(def) => rk
                .record(def)
                .get("TSFlags")
                .and_then(|i| i.as_int())
                .map_or(0, |v| v as u8),
            None => match rc.super_classes.last() {
                Some(&s) if depth < bank.classes.len() => of(rk, bank, s, depth + 1),
                _ => 0,
            },
        }
    }
    (0..bank.classes.len() as ClassId)
        .map(|c| of(rk, bank, c, 0))
        .collect()
}

/// `DwarfNumbers` and `DwarfAlias` of every register (registers made by
/// tuples have neither).
#[inline(never)]
fn dwarf_numbers(
    rk: &RecordKeeper,
    bank: &RegBank,
    reg_ids: &HashMap<&str, RegId>,
) -> (Vec<Vec<i64>>, Vec<Option<RegId>>) {
    bank.registers
        .iter()
        .map(|r| match r.def.map(|d| rk.record(d)) {
            Some(rec) => {
                let nums = rec
                    .get_list("DwarfNumbers")
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|i| i.as_int())
                    .collect();
                let alias = rec
                    .get_def("DwarfAlias")
                    .and_then(|a| reg_ids.get(rk.name(a)).copied());
                (nums, alias)
            }
            None => (Vec::new(), None),
        })
        .unzip()
}

/// Every `CalleeSavedRegs` def, in name order.
#[inline(never)]
fn saved_regs(
    rk: &RecordKeeper,
    bank: &RegBank,
    reg_ids: &HashMap<&str, RegId>,
) -> Result<Vec<SavedRegs>, IncError> {
    let mut sets = Sets::new(rk);
    let mut out = Vec::new();
    for id in rk.all_derived_definitions("CalleeSavedRegs") {
        let rec = rk.record(id);
        let to_regs = |sets: &Sets, items: &[crate::regs::Elem]| -> Result<Vec<RegId>, IncError> {
            items
                .iter()
                .map(|&e| {
                    let name = sets.name(e);
                    reg_ids
                        .get(name)
                        .copied()
                        .ok_or_else(|| IncError::NotARegister {
                            set: rec.name.clone(),
                            name: name.to_string(),
                        })
                })
                .collect()
        };
        let items = sets.expand(id).map_err(IncError::Regs)?.unwrap_or_default();
        let save = to_regs(&sets, &items)?;
        let mut preserved = covered(bank, &save);
        if let Some(dag) = rec
            .get("OtherPreserved")
            .filter(|i| matches!(&***i, crate::eval::InitKind::Dag { .. }))
        {
            let mut set = RecSet::default();
            sets.evaluate(dag, &mut set, Some(rec.span))
                .map_err(IncError::Regs)?;
            let others = to_regs(&sets, &set.items)?;
            for (p, o) in preserved.iter_mut().zip(covered(bank, &others)) {
                *p |= o;
            }
        }
        out.push(SavedRegs {
            name: rec.name.clone(),
            save,
            preserved,
        });
    }
    Ok(out)
}

/// LLVM's `computeCoveredRegisters`: the registers, their sub-registers,
/// and every super-register covered by registers in the set, by enum value.
fn covered(bank: &RegBank, regs: &[RegId]) -> Vec<bool> {
    let mut set: Vec<RegId> = Vec::new();
    let mut seen = vec![false; bank.registers.len()];
    let mut pre = super::PreOrder::new(bank);
    for &r in regs {
        if !seen[r as usize] {
            seen[r as usize] = true;
            set.push(r);
            for &s in pre.of(bank, r) {
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    set.push(s);
                }
            }
        }
    }
    let mut i = 0;
    while i < set.len() {
        for &sup in &bank.reg(set[i]).super_regs {
            let s = bank.reg(sup);
            if !s.covered_by_sub_regs || seen[sup as usize] {
                continue;
            }
            if s.sub_regs.values().all(|&x| seen[x as usize]) {
                seen[sup as usize] = true;
                set.push(sup);
            }
        }
        i += 1;
    }
    let mut bv = vec![false; bank.registers.len() + 1];
    for r in set {
        bv[r as usize + 1] = true;
    }
    bv
}
