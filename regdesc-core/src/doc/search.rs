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
//!   sub-register (`[index, register, …]`), super-register, and the lane
//!   masks of each unit in both modes.
//!
//! Everything is keyed by ids, so the data of a description with thousands
//! of registers stays a few megabytes.

use serde::Serialize;

use super::layout::{class_url, index_url, RegGroup, SiteLayout};
use crate::target::Target;

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
    subs: Vec<Vec<u32>>,
    supers: Vec<Vec<u32>>,
    /// Per register, per unit: the lane masks (llvm, coverage) in hex
    /// without leading zeros; empty means "the whole register".
    lanes: Vec<Vec<(String, String)>>,
}

/// A mask in hex without leading zeros (empty for no lanes).
fn short_hex(m: &crate::lanes::LaneMask) -> String {
    if m.is_none() {
        return String::new();
    }
    m.to_hex(1).trim_start_matches('0').to_string()
}

/// The `group-data` JSON of a register page; `other` is the model in the
/// other lane mode.
pub fn group_data_json(t: &Target, other: &Target, g: &RegGroup) -> String {
    let (llvm, coverage) = match t.lane_mode {
        crate::lanes::LaneMode::Llvm => (t, other),
        crate::lanes::LaneMode::Coverage => (other, t),
    };
    let data = GroupData {
        lanes: g
            .members
            .iter()
            .map(|&r| {
                llvm.reg(r)
                    .unit_lane_masks
                    .iter()
                    .zip(&coverage.reg(r).unit_lane_masks)
                    .map(|(a, b)| (short_hex(a), short_hex(b)))
                    .collect()
            })
            .collect(),
        regs: g.members.iter().map(|r| r.0).collect(),
        subs: g
            .members
            .iter()
            .map(|&r| {
                t.reg(r)
                    .sub_regs
                    .iter()
                    .flat_map(|&(i, s)| [i.0, s.0])
                    .collect()
            })
            .collect(),
        supers: g
            .members
            .iter()
            .map(|&r| t.reg(r).super_regs.iter().map(|s| s.0).collect())
            .collect(),
    };
    script_safe(serde_json::to_string(&data).unwrap_or_else(|_| "{}".into()))
}
