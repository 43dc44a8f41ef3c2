//! Where everything lives in a `regdesc doc` site: page paths, anchors, and
//! how registers are grouped onto pages.
//!
//! The site, relative to its root:
//!
//! | path | what |
//! | --- | --- |
//! | `index.html` | target summary, check figures, diagnostics, lane matrix |
//! | `indices.html#NAME` | the table of sub-register indices, one row per index |
//! | `classes/NAME.html` | one page per register class |
//! | `regs.html` | the register groups |
//! | `regs/GROUP.html#NAME` | one page per register group, one entry per register |
//! | `layouts/NAME.svg` | the bit layout of a class's first register |
//! | `assets/…` | style sheet, script, search index, register data |
//!
//! Registers are never given a page each (real descriptions have
//! thousands): the registers one `RegisterTuples` def made form a group,
//! and defined registers are grouped by their name without its digits
//! (`VGPR0`…`VGPR255` → `VGPR`, `VGPR0_LO16` → `VGPR_LO`); stems with fewer
//! than [`MIN_STEM_GROUP`] registers share the group `other`.
//!
//! Names become file names and anchors through [`slug`], so any record name
//! gives a valid, portable path. The generated Rust code links here
//! (`regdesc emit --doc-url`), through the same functions, so the links and
//! the pages cannot disagree.

use std::collections::{BTreeSet, HashMap};

use crate::target::{Reg, RegClass, SubRegIdx, Target};

/// Defined registers whose stem has fewer members than this go to `other`.
pub const MIN_STEM_GROUP: usize = 4;

/// A name as a file name and URL fragment: ASCII letters, digits, `_` and
/// `-` stay, every other byte becomes `~XX` (its hex value). Injective, and
/// needs no further escaping in a URL or an HTML attribute.
pub fn slug(name: &str) -> String {
    let mut s = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
            s.push(b as char);
        } else {
            s.push_str(&format!("~{b:02X}"));
        }
    }
    if s.is_empty() {
        s.push('~');
    }
    s
}

/// Why registers share a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupKind {
    /// Made by this `RegisterTuples` def.
    Tuple(String),
    /// Defined registers with this name stem.
    Stem(String),
    /// Defined registers whose stems are too small to have a page.
    Other,
}

/// Registers shown on one page.
#[derive(Clone, Debug)]
pub struct RegGroup {
    /// The page's file stem (`regs/{page}.html`).
    pub page: String,
    /// Why they are together.
    pub kind: GroupKind,
    /// The registers, in [`Reg`] order.
    pub members: Vec<Reg>,
}

impl RegGroup {
    /// A title for the group.
    pub fn title(&self) -> String {
        match &self.kind {
            GroupKind::Tuple(t) => format!("tuple {t}"),
            GroupKind::Stem(s) => format!("{s}…"),
            GroupKind::Other => "other registers".to_string(),
        }
    }
}

/// Page paths of one description's site.
#[derive(Clone, Debug)]
pub struct SiteLayout {
    /// Register groups, in the order of their first register.
    pub groups: Vec<RegGroup>,
    /// The group of each register, by [`Reg`].
    group_of: Vec<u32>,
}

impl SiteLayout {
    /// Groups the registers of `t`.
    pub fn new(t: &Target) -> SiteLayout {
        #[derive(PartialEq, Eq, Hash, Clone)]
        enum Key<'a> {
            Tuple(&'a str),
            Stem(String),
        }
        let stem =
            |name: &str| -> String { name.chars().filter(|c| !c.is_ascii_digit()).collect() };
        let mut keys: Vec<Key> = Vec::new();
        let mut members: HashMap<Key, Vec<Reg>> = HashMap::new();
        for (i, r) in t.registers.iter().enumerate() {
            let key = match &r.tuple {
                Some(tuple) => Key::Tuple(tuple),
                None => Key::Stem(stem(&r.name)),
            };
            let list = members.entry(key.clone()).or_insert_with(|| {
                keys.push(key);
                Vec::new()
            });
            list.push(Reg(i as u32));
        }
        let mut groups: Vec<RegGroup> = Vec::new();
        let mut other: Vec<Reg> = Vec::new();
        for key in keys {
            let regs = members.remove(&key).unwrap_or_default();
            let kind = match key {
                Key::Tuple(t) => GroupKind::Tuple(t.to_string()),
                Key::Stem(s) if s.is_empty() || regs.len() < MIN_STEM_GROUP => {
                    other.extend(regs);
                    continue;
                }
                Key::Stem(s) => GroupKind::Stem(s),
            };
            groups.push(RegGroup {
                page: String::new(),
                kind,
                members: regs,
            });
        }
        if !other.is_empty() {
            other.sort_unstable();
            groups.push(RegGroup {
                page: String::new(),
                kind: GroupKind::Other,
                members: other,
            });
        }
        // Unique page names, first come first served.
        let mut taken: BTreeSet<String> = BTreeSet::new();
        for g in &mut groups {
            let base = match &g.kind {
                GroupKind::Tuple(n) | GroupKind::Stem(n) => slug(n),
                GroupKind::Other => "other".to_string(),
            };
            let mut page = base.clone();
            let mut n = 2;
            while !taken.insert(page.to_ascii_lowercase()) {
                page = format!("{base}-{n}");
                n += 1;
            }
            g.page = page;
        }
        let mut group_of = vec![0u32; t.registers.len()];
        for (gi, g) in groups.iter().enumerate() {
            for r in &g.members {
                group_of[r.index()] = gi as u32;
            }
        }
        SiteLayout { groups, group_of }
    }

    /// The group of register `r`.
    pub fn group_of(&self, r: Reg) -> usize {
        self.group_of[r.index()] as usize
    }

    /// The page of register group `g`.
    pub fn group_page(&self, g: usize) -> String {
        format!("regs/{}.html", self.groups[g].page)
    }

    /// Where register `r` is described: `regs/GROUP.html#NAME`.
    pub fn register_url(&self, t: &Target, r: Reg) -> String {
        format!(
            "{}#{}",
            self.group_page(self.group_of(r)),
            slug(&t.reg(r).name)
        )
    }
}

/// The site's front page.
pub const INDEX_PAGE: &str = "index.html";
/// The table of sub-register indices.
pub const INDICES_PAGE: &str = "indices.html";
/// The list of register groups.
pub const REGS_PAGE: &str = "regs.html";

/// The page of class `c`: `classes/NAME.html`.
pub fn class_url(t: &Target, c: RegClass) -> String {
    format!("classes/{}.html", slug(&t.class(c).name))
}

/// The standalone layout diagram of register `r` (class pages show it as
/// an image): `layouts/NAME.svg`.
pub fn layout_svg_url(t: &Target, r: Reg) -> String {
    format!("layouts/{}.svg", slug(&t.reg(r).name))
}

/// Where sub-register index `i` is described: `indices.html#NAME`.
pub fn index_url(t: &Target, i: SubRegIdx) -> String {
    format!("{INDICES_PAGE}#{}", slug(&t.idx(i).name))
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slugs_are_portable_and_distinct() {
        assert_eq!(slug("VGPR0_VGPR1"), "VGPR0_VGPR1");
        assert_eq!(slug("a.b"), "a~2Eb");
        assert_eq!(slug("a~2Eb"), "a~7E2Eb");
        assert_eq!(slug(""), "~");
        assert_eq!(slug("é"), "~C3~A9");
    }
}
