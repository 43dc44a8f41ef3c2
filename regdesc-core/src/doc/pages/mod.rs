//! The HTML pages, templated with maud: what every page shares (head,
//! navigation, search box, scripts) and the facts several pages show.
//!
//! One file per kind of page: [`index`] (summary, check, diagnostics, lane
//! matrix, classes), [`class`] (one per register class), [`indices`] (the
//! sub-register index table), [`regs`] (the register groups and their
//! pages).

pub mod class;
pub mod index;
pub mod indices;
pub mod regs;

use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::lanes::LaneViews;
use super::layout::{self, SiteLayout, INDEX_PAGE, INDICES_PAGE, REGS_PAGE};
use crate::check::CheckReport;
use crate::source::{SourceMap, Span};
use crate::target::{Reg, RegClass, SubRegIdx, Target};

/// Everything the pages read.
pub struct Ctx<'a> {
    /// The model in the mode asked for (`--lanes`).
    pub t: &'a Target,
    /// Both modes.
    pub v: LaneViews<'a>,
    /// Page paths and register groups.
    pub layout: SiteLayout,
    /// What `regdesc check` found.
    pub check: &'a CheckReport,
    /// The files read, for locations and diagnostic snippets.
    pub sources: &'a SourceMap,
    /// The file the description was read from.
    pub source_name: String,
    /// The classes of each register, by [`Reg`], in class order.
    pub classes_of: Vec<Vec<RegClass>>,
    /// Each register's size in bits, from the first class holding it.
    pub size_of: Vec<Option<u32>>,
}

impl<'a> Ctx<'a> {
    /// The context of `t` (its mode) and `other` (the other mode).
    pub fn new(
        t: &'a Target,
        other: &'a Target,
        check: &'a CheckReport,
        sources: &'a SourceMap,
        source_name: String,
    ) -> Ctx<'a> {
        let mut classes_of: Vec<Vec<RegClass>> = vec![Vec::new(); t.registers.len()];
        let mut size_of: Vec<Option<u32>> = vec![None; t.registers.len()];
        for (ci, c) in t.classes.iter().enumerate() {
            let size = c.default_spill().map(|s| s.reg_size);
            for &r in &c.members {
                classes_of[r.index()].push(RegClass(ci as u32));
                if size_of[r.index()].is_none() {
                    size_of[r.index()] = size;
                }
            }
        }
        Ctx {
            t,
            v: LaneViews::new(t, other),
            layout: SiteLayout::new(t),
            check,
            sources,
            source_name,
            classes_of,
            size_of,
        }
    }

    /// The target's name, or the file's.
    pub fn target_name(&self) -> &str {
        self.t.name.as_deref().unwrap_or(&self.source_name)
    }

    /// `file:line` of a span, the path as the description names it.
    pub fn location(&self, span: Option<Span>) -> Option<String> {
        let span = span?;
        let f = self.sources.files.get(span.file as usize)?;
        let (line, _) = self.sources.line_col(span.file, span.start);
        Some(format!("{}:{line}", f.path.display()))
    }

    /// A link to register `r`.
    pub fn reg_link(&self, root: &str, r: Reg) -> Markup {
        html! {
            a href=(format!("{root}{}", self.layout.register_url(self.t, r))) { (self.t.reg(r).name) }
        }
    }

    /// A link to class `c`.
    pub fn class_link(&self, root: &str, c: RegClass) -> Markup {
        html! {
            a href=(format!("{root}{}", layout::class_url(self.t, c))) { (self.t.class(c).name) }
        }
    }

    /// A link to index `i`.
    pub fn index_link(&self, root: &str, i: SubRegIdx) -> Markup {
        html! {
            a href=(format!("{root}{}", layout::index_url(self.t, i))) { (self.t.idx(i).name) }
        }
    }

    /// Registers as runs of consecutive ids in one group: `first … last
    /// (n)`, each end linked.
    pub fn reg_runs(&self, root: &str, regs: &[Reg]) -> Markup {
        let runs = runs(&self.layout, regs);
        html! {
            ul.inline {
                @for (a, b, n) in runs {
                    li {
                        (self.reg_link(root, a))
                        @if n > 1 {
                            " … " (self.reg_link(root, b)) " " span.muted { "(" (n) ")" }
                        }
                    }
                }
            }
        }
    }
}

/// Runs of consecutive register ids within one group.
pub fn runs(layout: &SiteLayout, regs: &[Reg]) -> Vec<(Reg, Reg, usize)> {
    let mut out: Vec<(Reg, Reg, usize)> = Vec::new();
    for &r in regs {
        match out.last_mut() {
            Some((_, b, n)) if b.0 + 1 == r.0 && layout.group_of(*b) == layout.group_of(r) => {
                *b = r;
                *n += 1;
            }
            _ => out.push((r, r, 1)),
        }
    }
    out
}

/// Integers as runs: `0–3, 8`.
pub fn int_runs(xs: impl IntoIterator<Item = u32>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut run: Option<(u32, u32)> = None;
    for x in xs {
        run = match run {
            Some((a, b)) if b + 1 == x => Some((a, x)),
            Some((a, b)) => {
                parts.push(if a == b {
                    a.to_string()
                } else {
                    format!("{a}–{b}")
                });
                Some((x, x))
            }
            None => Some((x, x)),
        };
    }
    if let Some((a, b)) = run {
        parts.push(if a == b {
            a.to_string()
        } else {
            format!("{a}–{b}")
        });
    }
    parts.join(", ")
}

/// A whole page: `root` leads from the page to the site root.
pub fn page(cx: &Ctx, root: &str, title: &str, body: Markup, extra_scripts: &[&str]) -> String {
    let doc = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content="regdesc doc";
                title { (title) " — " (cx.target_name()) }
                link rel="stylesheet" href=(format!("{root}assets/site.css"));
            }
            body data-root=(root) {
                header {
                    a href=(format!("{root}{INDEX_PAGE}")) { (cx.target_name()) }
                    a href=(format!("{root}{INDEX_PAGE}#classes")) { "Classes" }
                    a href=(format!("{root}{INDICES_PAGE}")) { "Indices" }
                    a href=(format!("{root}{REGS_PAGE}")) { "Registers" }
                    div.search {
                        input #search type="search" placeholder="Find a register, class or index"
                            autocomplete="off" aria-label="Search";
                        ul #search-results hidden {}
                    }
                }
                main { (body) }
                script src=(format!("{root}assets/search-index.js")) {}
                @for s in extra_scripts {
                    script src=(format!("{root}{s}")) {}
                }
                script src=(format!("{root}assets/site.js")) {}
            }
        }
    };
    doc.into_string()
}

/// JSON data embedded in a page.
pub fn json_script(id: &str, json: String) -> Markup {
    html! {
        script #(id) type="application/json" { (PreEscaped(json)) }
    }
}
