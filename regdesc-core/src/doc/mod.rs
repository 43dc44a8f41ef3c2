//! `regdesc doc`: a register description as a static HTML site (or one
//! Markdown file).
//!
//! The site works from `file://` with no server and no network: pages link
//! to each other with relative paths, the search box and the on-demand
//! register details run from JavaScript data files loaded with
//! `<script src>`, and the diagrams are inline SVG. Pages are templated
//! with maud (escaped by construction). Output is deterministic: everything
//! follows the model's order.
//!
//! It reads the consumer model in both lane modes
//! ([`crate::driver::target_both_modes`]) and the check report. One file
//! per concern: [`layout`] (paths and register groups, shared with the
//! rustdoc links of `emit`), `pages` (the HTML pages), `svg` (diagrams),
//! `search` (the script's data), `lanes` (the two modes side by side),
//! `markdown` (`--format markdown`).
//!
//! Sizes stay proportional to the description, not to its aliasing:
//! registers are grouped onto pages (never one page per register), class
//! pages list members as runs, and the per-register lists that grow with
//! aliasing (every sub-register, super-register and alias) are built by the
//! page's script on demand from compact id-keyed data.

mod lanes;
pub mod layout;
mod markdown;
mod pages;
mod search;
mod svg;

use std::collections::BTreeMap;
use std::path::Path;

use crate::check::CheckReport;
use crate::source::SourceMap;
use crate::target::{RegClass, Target};

/// What the docs describe.
pub struct DocInput<'a> {
    /// The model in the mode asked for (`--lanes`).
    pub target: &'a Target,
    /// The same description with the other mode's lane masks.
    pub other: &'a Target,
    /// What `regdesc check` found.
    pub check: &'a CheckReport,
    /// The files read.
    pub sources: &'a SourceMap,
    /// The name of the file the description was read from.
    pub source_name: String,
}

/// A generated site: file contents by path relative to the site root.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Site {
    /// Files by relative path (`/`-separated), in path order.
    pub files: BTreeMap<String, String>,
}

impl Site {
    /// Writes every file under `dir` (created if needed). Files already
    /// there that the site does not have are left alone.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        for (path, text) in &self.files {
            let full = dir.join(path);
            if let Some(parent) = full.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&full, text)?;
        }
        Ok(())
    }

    /// Total size in bytes.
    pub fn size(&self) -> usize {
        self.files.values().map(String::len).sum()
    }
}

const SITE_CSS: &str = include_str!("assets/site.css");
const SITE_JS: &str = include_str!("assets/site.js");

/// The HTML site.
pub fn site(input: &DocInput) -> Site {
    let cx = pages::Ctx::new(
        input.target,
        input.other,
        input.check,
        input.sources,
        input.source_name.clone(),
    );
    let t = input.target;
    let mut files = BTreeMap::new();
    files.insert("assets/site.css".to_string(), SITE_CSS.to_string());
    files.insert("assets/site.js".to_string(), SITE_JS.to_string());
    files.insert(
        "assets/search-index.js".to_string(),
        search::search_index_js(t, &cx.layout),
    );
    files.insert("assets/regs-data.js".to_string(), search::units_js(t));
    // Class pages are most of the work: render them on the other cores
    // while this thread renders the rest.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let classes: Vec<RegClass> = (0..t.classes.len() as u32).map(RegClass).collect();
    let chunk = classes.len().div_ceil(threads).max(1);
    // Each first register's layout is drawn once, with its first class.
    let mut seen = std::collections::HashSet::new();
    let draws: Vec<bool> = classes
        .iter()
        .map(|&c| t.class(c).members.first().is_some_and(|&r| seen.insert(r)))
        .collect();
    let (cx, draws) = (&cx, &draws);
    let rendered: Vec<Vec<(String, String)>> = std::thread::scope(|s| {
        let workers: Vec<_> = classes
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || -> Vec<(String, String)> {
                    part.iter()
                        .flat_map(|&c| class_files(cx, c, draws[c.index()]))
                        .collect()
                })
            })
            .collect();
        let mut rest = vec![
            (layout::INDEX_PAGE.to_string(), pages::index::render(cx)),
            (layout::INDICES_PAGE.to_string(), pages::indices::render(cx)),
            (
                layout::REGS_PAGE.to_string(),
                pages::regs::render_overview(cx),
            ),
        ];
        for gi in 0..cx.layout.groups.len() {
            rest.push((cx.layout.group_page(gi), pages::regs::render_group(cx, gi)));
        }
        let mut all: Vec<Vec<(String, String)>> = workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect();
        all.push(rest);
        all
    });
    files.extend(rendered.into_iter().flatten());
    Site { files }
}

/// A class page, and (with `draw`) the layout image of its first register.
fn class_files(cx: &pages::Ctx, c: RegClass, draw: bool) -> Vec<(String, String)> {
    let t = cx.t;
    let mut out = vec![(layout::class_url(t, c), pages::class::render(cx, c))];
    if let Some(&r) = t.class(c).members.first().filter(|_| draw) {
        let svg = svg::register_layout(&cx.v, &cx.layout, r, cx.size_of[r.index()], "../");
        out.push((layout::layout_svg_url(t, r), svg.into_string()));
    }
    out
}

/// The one-file Markdown form.
pub fn markdown(input: &DocInput) -> String {
    let cx = pages::Ctx::new(
        input.target,
        input.other,
        input.check,
        input.sources,
        input.source_name.clone(),
    );
    markdown::render(&cx)
}
