//! The data the site's script reads, as JavaScript files loaded with
//! `<script src>` (browsers refuse `fetch` on `file://`):
//!
//! - `assets/search-index.js`: `REGDESC_SEARCH = {regs, classes, indices}`,
//!   each a list of `[name, url]` (registers by [`Reg`] id, so other data can
//!   refer to them by number); every page loads it for the search box.
//! - `assets/regs-data.js`: `REGDESC_UNITS`, the units of every register
//!   by id; register pages load it to list a register's aliases (registers
//!   sharing a unit) on demand.
//! - each register page's own `group-data` JSON: for its registers, every
//!   sub-register (`[index, register, …]`, or for a tuple register, the
//!   shift from the previous register's), super-register, and the lane
//!   masks of each unit in both modes (`null`: the previous register's).
//!
//! Everything is keyed by ids, so the data of a description with thousands
//! of registers stays a few megabytes.

use serde::Serialize;

use super::layout::{class_url, index_url, RegGroup, SiteLayout};
use crate::target::{Reg, SubRegIdx, Target};

#[derive(Serialize)]
struct SearchIndex<'a> {
    regs: Vec<(&'a str, String)>,
    classes: Vec<(&'a str, String)>,
    indices: Vec<(&'a str, String)>,
}

/// JSON made safe to embed in a `<script>` element.
fn script_safe(json: String) -> String {
    json.replace("</", "<\\/")
}

/// `assets/search-index.js`.
pub fn search_index_js(t: &Target, layout: &SiteLayout) -> String {
    let index = SearchIndex {
        regs: t
            .registers
            .iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    r.name.as_str(),
                    layout.register_url(t, crate::target::Reg(i as u32)),
                )
            })
            .collect(),
        classes: t
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    c.name.as_str(),
                    class_url(t, crate::target::RegClass(i as u32)),
                )
            })
            .collect(),
        indices: t
            .sub_reg_indices
            .iter()
            .enumerate()
            .map(|(i, x)| {
                (
                    x.name.as_str(),
                    index_url(t, crate::target::SubRegIdx(i as u32)),
                )
            })
            .collect(),
    };
    let json = serde_json::to_string(&index).unwrap_or_else(|_| "{}".into());
    format!("window.REGDESC_SEARCH = {};\n", script_safe(json))
}

/// `assets/regs-data.js`.
pub fn units_js(t: &Target) -> String {
    let units: Vec<Vec<u32>> = t
        .registers
        .iter()
        .map(|r| r.units.iter().map(|u| u.0).collect())
        .collect();
    let json = serde_json::to_string(&units).unwrap_or_else(|_| "[]".into());
    format!("window.REGDESC_UNITS = {json};\n")
}

#[derive(Serialize)]
struct GroupData {
    regs: Vec<u32>,
    /// Per register: its sub-registers as `[index, register, …]`, or, for
    /// a register whose indices are the previous register's and whose
    /// sub-registers are all `d` ids further on (tuples), just `d`.
    subs: Vec<Packed>,
    supers: Vec<Vec<u32>>,
    /// Per register, per unit: the lane masks in hex without leading
    /// zeros (empty: "the whole register"); `null` when they are the
    /// previous register's.
    lanes: Vec<Option<Vec<UnitLanes>>>,
}

/// A register's sub-registers, in full or relative to the previous one's.
#[derive(Serialize)]
#[serde(untagged)]
enum Packed {
    Shift(i64),
    Full(Vec<u32>),
}

/// A unit's lane masks: one string when both modes agree, else
/// `[llvm, coverage]`.
#[derive(Clone, Serialize, PartialEq)]
#[serde(untagged)]
enum UnitLanes {
    Same(String),
    Both(String, String),
}

/// A mask in hex without leading zeros (empty for no lanes).
fn short_hex(m: &crate::lanes::LaneMask) -> String {
    if m.is_none() {
        return String::new();
    }
    m.to_hex(1).trim_start_matches('0').to_string()
}

/// `d` when `cur` has `prev`'s indices and each register `d` further.
fn shift(prev: &[(SubRegIdx, Reg)], cur: &[(SubRegIdx, Reg)]) -> Option<i64> {
    if prev.is_empty() || prev.len() != cur.len() {
        return None;
    }
    let d = cur[0].1 .0 as i64 - prev[0].1 .0 as i64;
    prev.iter()
        .zip(cur)
        .all(|(&(i, a), &(j, b))| i == j && b.0 as i64 - a.0 as i64 == d)
        .then_some(d)
}

/// The `group-data` JSON of a register page; `other` is the model in the
/// other lane mode.
pub fn group_data_json(t: &Target, other: &Target, g: &RegGroup) -> String {
    let (llvm, coverage) = match t.lane_mode {
        crate::lanes::LaneMode::Llvm => (t, other),
        crate::lanes::LaneMode::Coverage => (other, t),
    };
    let unit_lanes = |r: Reg| -> Vec<UnitLanes> {
        llvm.reg(r)
            .unit_lane_masks
            .iter()
            .zip(&coverage.reg(r).unit_lane_masks)
            .map(|(a, b)| {
                let (a, b) = (short_hex(a), short_hex(b));
                if a == b {
                    UnitLanes::Same(a)
                } else {
                    UnitLanes::Both(a, b)
                }
            })
            .collect()
    };
    let mut subs = Vec::new();
    let mut lanes = Vec::new();
    let mut prev: Option<(Reg, Vec<UnitLanes>)> = None;
    for &r in &g.members {
        let mine = &t.reg(r).sub_regs;
        let packed = prev
            .as_ref()
            .and_then(|(p, _)| shift(&t.reg(*p).sub_regs, mine))
            .map_or_else(
                || Packed::Full(mine.iter().flat_map(|&(i, s)| [i.0, s.0]).collect()),
                Packed::Shift,
            );
        subs.push(packed);
        let ul = unit_lanes(r);
        lanes.push(match &prev {
            Some((_, p)) if *p == ul => None,
            _ => Some(ul.clone()),
        });
        prev = Some((r, ul));
    }
    let data = GroupData {
        regs: g.members.iter().map(|r| r.0).collect(),
        subs,
        supers: g
            .members
            .iter()
            .map(|&r| t.reg(r).super_regs.iter().map(|s| s.0).collect())
            .collect(),
        lanes,
    };
    script_safe(serde_json::to_string(&data).unwrap_or_else(|_| "{}".into()))
}
