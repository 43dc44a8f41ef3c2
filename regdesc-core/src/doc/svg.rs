//! The site's SVG diagrams, inline in the pages (templated with maud, like
//! the pages):
//!
//! - [`register_layout`]: a register's bits with its sub-registers nested
//!   below it, one band per sub-register size, largest first, wrapped every
//!   256 bits. Boxes say their index name; in a band of halves of the band
//!   above whose indices are not all defined ones (synthesized names such as
//!   `subq1_then_w0_subq1_then_w1` do not fit), they say `L` or `H`: for a
//!   SIMD8 qword tuple the dword band reads `L H L H L H L H` on each
//!   256-bit row, the seed thread's picture of `r10`/`r11`. Where an index's
//!   offset or size is unknown, the register's units stand in for bits.
//! - [`lane_matrix`]: register classes × lanes. Columns are llvm lanes,
//!   grouped under the coverage lane each became; a coverage lane standing
//!   for several llvm lanes (coverage shares what llvm splits) is drawn in
//!   the accent colour.
//!
//! Coordinates are rounded to tenths of a pixel so output is deterministic.

use maud::{html, Markup, PreEscaped};

use super::lanes::{hex, LaneViews};
use super::layout::SiteLayout;
use crate::lanes::LaneMask;
use std::collections::HashSet;

use crate::target::{IndexOrigin, Reg, SubRegIdx, Target};

/// Bits per row of a layout diagram (one Intel GRF register).
pub const ROW_BITS: u32 = 256;
/// Units per row when the layout is in units.
const ROW_UNITS: u32 = 32;
/// At most this many sub-register sizes are drawn.
const MAX_LEVELS: usize = 16;

const LEFT: f64 = 84.0;
const PLOT: f64 = 768.0;
const BAND: f64 = 18.0;
const GAP: f64 = 3.0;
const ROW_GAP: f64 = 12.0;
const RULER: f64 = 14.0;
const CHAR: f64 = 6.6;

/// Band fills, by class (`l0`…`l7`; `r` is the register itself).
const LAYOUT_STYLE: &str = "rect{stroke:#3b4a5a;stroke-width:.8}.r{fill:#e8ecf1}\
.l0{fill:#cfe1f3}.l1{fill:#fde0c5}.l2{fill:#d5edcf}.l3{fill:#e6d8f0}.l4{fill:#fff1b8}\
.l5{fill:#f4d3da}.l6{fill:#d4eeee}.l7{fill:#e9e4d4}.d{stroke-dasharray:3 2}\
text.c{text-anchor:middle;fill:#111}text.e{text-anchor:end}text.m{fill:#555}";
const LEVEL_CLASSES: [&str; 8] = ["l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7"];

fn px(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// One sub-register interval, in bits or units.
pub struct Item {
    /// First bit (or unit).
    pub start: u32,
    /// Bits (or units).
    pub len: u32,
    /// Its index in the register.
    pub idx: SubRegIdx,
    /// The sub-register.
    pub reg: Reg,
    /// Whether its units are not contiguous (unit layouts only).
    pub scattered: bool,
    /// `L` or `H` when it is the low or high half of a sub-register (or the
    /// register) twice its size.
    pub half: Option<&'static str>,
    /// What its box says: the index name in a band of defined indices,
    /// else `L`/`H` in a band of halves (the seed's `L H L H`), else the
    /// index name.
    pub label: String,
}

/// One band: the sub-registers of one size.
pub struct Band {
    /// Their size.
    pub len: u32,
    /// A left-to-right tiling of those that do not overlap.
    pub items: Vec<Item>,
    /// How many overlap those and are not drawn.
    pub skipped: usize,
}

/// A register's sub-registers, banded by size.
pub struct Bands {
    /// Whether positions are bits (else register units).
    pub in_bits: bool,
    /// The register's size in bits (or units).
    pub total: u32,
    /// Largest size first.
    pub bands: Vec<Band>,
    /// Sizes not drawn (past [`MAX_LEVELS`]).
    pub dropped: usize,
}

impl Bands {
    /// `bits` or `units`.
    pub fn unit_name(&self) -> &'static str {
        if self.in_bits {
            "bits"
        } else {
            "units"
        }
    }

    /// Positions per row of a drawing.
    pub fn row_len(&self) -> u32 {
        if self.in_bits {
            self.total.min(ROW_BITS)
        } else {
            self.total.min(ROW_UNITS)
        }
        .max(1)
    }
}

/// Bands `r`'s sub-registers: by bits when every index has an offset and a
/// size, else by register unit. `size` is the register's size when known.
pub fn bands(t: &Target, r: Reg, size: Option<u32>) -> Bands {
    let reg = t.reg(r);
    let known = |i: SubRegIdx| {
        let x = t.idx(i);
        x.offset.zip(x.size)
    };
    let in_bits = reg.sub_regs.iter().all(|&(i, _)| known(i).is_some());
    let mut items: Vec<Item> = Vec::new();
    let total: u32 = if in_bits {
        for &(i, s) in &reg.sub_regs {
            if let Some((o, z)) = known(i) {
                items.push(Item {
                    start: o as u32,
                    len: (z as u32).max(1),
                    idx: i,
                    reg: s,
                    scattered: false,
                    half: None,
                    label: String::new(),
                });
            }
        }
        let end = items.iter().map(|it| it.start + it.len).max().unwrap_or(0);
        end.max(size.unwrap_or(0)).max(1)
    } else {
        for &(i, s) in &reg.sub_regs {
            let pos: Vec<u32> = t
                .reg(s)
                .units
                .iter()
                .filter_map(|u| reg.units.binary_search(u).ok().map(|p| p as u32))
                .collect();
            let (Some(&a), Some(&b)) = (pos.iter().min(), pos.iter().max()) else {
                continue;
            };
            items.push(Item {
                start: a,
                len: b - a + 1,
                idx: i,
                reg: s,
                scattered: (b - a + 1) as usize != pos.len(),
                half: None,
                label: String::new(),
            });
        }
        (reg.units.len() as u32).max(1)
    };
    let mut present: HashSet<(u32, u32)> = items.iter().map(|it| (it.start, it.len)).collect();
    present.insert((0, total));
    for it in &mut items {
        let double = it.len * 2;
        it.half = if it.start % double == 0 && present.contains(&(it.start, double)) {
            Some("L")
        } else if it.start % double == it.len && present.contains(&(it.start - it.len, double)) {
            Some("H")
        } else {
            None
        };
    }
    let mut sizes: Vec<u32> = items.iter().map(|it| it.len).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();
    let dropped = sizes.len().saturating_sub(MAX_LEVELS);
    sizes.truncate(MAX_LEVELS);
    items.sort_by_key(|it| (std::cmp::Reverse(it.len), it.start, it.idx));
    let mut bands: Vec<Band> = sizes
        .iter()
        .map(|&len| Band {
            len,
            items: Vec::new(),
            skipped: 0,
        })
        .collect();
    for it in items {
        let Some(band) = bands.iter_mut().find(|b| b.len == it.len) else {
            continue;
        };
        match band.items.last() {
            Some(last) if it.start < last.start + last.len => band.skipped += 1,
            _ => band.items.push(it),
        }
    }
    for band in &mut bands {
        let defined = band
            .items
            .iter()
            .all(|it| t.idx(it.idx).origin == IndexOrigin::Defined);
        let halves = band.items.iter().all(|it| it.half.is_some());
        for it in &mut band.items {
            it.label = match it.half {
                Some(h) if halves && !defined => h.to_string(),
                _ => t.idx(it.idx).name.clone(),
            };
        }
    }
    Bands {
        in_bits,
        total,
        bands,
        dropped,
    }
}

/// A box drawn in one band.
struct Piece {
    x: f64,
    y: f64,
    w: f64,
    fill: &'static str,
    label: String,
    title: String,
    href: String,
    dashed: bool,
}

/// The bit layout of register `r`: `size` is its size in bits when known
/// (a class's `RegInfo` size); `root` is the path from the page to the site
/// root (`""` or `"../"`), for the links on each box.
pub fn register_layout(
    v: &LaneViews,
    layout: &SiteLayout,
    r: Reg,
    size: Option<u32>,
    root: &str,
) -> Markup {
    let t = v.llvm;
    let reg = t.reg(r);
    let b = bands(t, r, size);
    let (in_bits, total, unit_name) = (b.in_bits, b.total, b.unit_name());
    let levels = &b.bands;
    let dropped_levels = b.dropped;
    let row_len = b.row_len();
    let rows = total.div_ceil(row_len);
    let scale = PLOT / row_len as f64;
    let bands = 1 + levels.len();
    let row_h = RULER + bands as f64 * (BAND + GAP);
    let height = rows as f64 * row_h + (rows.saturating_sub(1)) as f64 * ROW_GAP + 4.0;
    let width = LEFT + PLOT + 8.0;

    let masks = |i: SubRegIdx| -> String {
        format!(
            "llvm {}, coverage {}",
            hex(&v.llvm.idx(i).lane_mask, v.llvm.num_lanes),
            hex(&v.coverage.idx(i).lane_mask, v.coverage.num_lanes)
        )
    };

    let mut pieces: Vec<Piece> = Vec::new();
    let mut band_labels: Vec<(f64, String, String)> = Vec::new();
    let mut rulers: Vec<(f64, String, String)> = Vec::new();
    for row in 0..rows {
        let r0 = row * row_len;
        let r1 = (r0 + row_len).min(total);
        let y0 = row as f64 * (row_h + ROW_GAP);
        rulers.push((
            y0 + RULER - 4.0,
            format!("{r0}"),
            format!("{} {unit_name}", r1 - 1),
        ));
        let mut put = |band: usize,
                       start: u32,
                       len: u32,
                       fill: &'static str,
                       label: String,
                       title: String,
                       href: String,
                       dashed: bool| {
            let (a, b) = (start.max(r0), (start + len).min(r1));
            if a >= b {
                return;
            }
            pieces.push(Piece {
                x: LEFT + (a - r0) as f64 * scale,
                y: y0 + RULER + band as f64 * (BAND + GAP),
                w: (b - a) as f64 * scale,
                fill,
                label,
                title,
                href,
                dashed,
            });
        };
        let size_text = if in_bits {
            format!("{total} bits")
        } else {
            format!("{total} units")
        };
        put(
            0,
            0,
            total,
            "r",
            reg.name.clone(),
            format!("{} ({size_text})", reg.name),
            format!("{root}{}", layout.register_url(t, r)),
            false,
        );
        band_labels.push((
            y0 + RULER + BAND * 0.7,
            "register".to_string(),
            String::new(),
        ));
        for (li, band) in levels.iter().enumerate() {
            let (z, skipped) = (band.len, band.skipped);
            let row_band = li + 1;
            let fill = LEVEL_CLASSES[li % LEVEL_CLASSES.len()];
            let mut note = format!("sub-registers of {z} {unit_name}");
            if skipped > 0 {
                note.push_str(&format!(
                    "; {skipped} more overlap those drawn and are not shown"
                ));
            }
            band_labels.push((
                y0 + RULER + row_band as f64 * (BAND + GAP) + BAND * 0.7,
                format!("{z} {unit_name}{}", if skipped > 0 { " +" } else { "" }),
                note,
            ));
            for it in &band.items {
                let name = t.idx(it.idx).name.clone();
                let sub = &t.reg(it.reg).name;
                let end = it.start + it.len;
                let mut title = format!("{name} = {sub}, {unit_name} [{}, {end})", it.start);
                if let Some(h) = it.half {
                    title.push_str(if h == "L" {
                        ", low half"
                    } else {
                        ", high half"
                    });
                }
                title.push('\n');
                title.push_str(&masks(it.idx));
                let label = fit(&it.label, it.len as f64 * scale);
                put(
                    row_band,
                    it.start,
                    it.len,
                    fill,
                    label,
                    title,
                    format!("{root}{}", layout.register_url(t, it.reg)),
                    it.scattered,
                );
            }
        }
    }
    // Pieces of a box split over rows keep their label only if it fits.
    for p in &mut pieces {
        if p.label.chars().count() as f64 * CHAR > p.w - 2.0 {
            p.label = fit(&p.label, p.w);
        }
    }
    let caption = format!(
        "Bit layout of {}{}{}",
        reg.name,
        if in_bits {
            ""
        } else {
            " (by register unit: some index has no offset or size)"
        },
        if dropped_levels > 0 {
            format!(" ({dropped_levels} smaller sizes not drawn)")
        } else {
            String::new()
        }
    );
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="layout" role="img"
            width=(px(width)) height=(px(height)) viewBox=(format!("0 0 {} {}", px(width), px(height)))
            font-family="sans-serif" font-size="10" {
            title { (caption) }
            style { (PreEscaped(LAYOUT_STYLE)) }
            @for (y, a, b) in &rulers {
                text x=(px(LEFT)) y=(px(*y)) class="m" { (a) }
                text x=(px(LEFT + PLOT)) y=(px(*y)) class="m e" { (b) }
            }
            @for (y, label, note) in &band_labels {
                text x="2" y=(px(*y)) fill="#333" {
                    @if !note.is_empty() { title { (note) } }
                    (label)
                }
            }
            @for p in &pieces {
                a href=(p.href) {
                    title { (p.title) }
                    rect x=(px(p.x)) y=(px(p.y)) width=(px(p.w)) height=(px(BAND))
                        class=(if p.dashed { format!("{} d", p.fill) } else { p.fill.to_string() }) {}
                    @if !p.label.is_empty() {
                        text x=(px(p.x + p.w / 2.0)) y=(px(p.y + BAND * 0.7)) class="c" { (p.label) }
                    }
                }
            }
        }
    }
}

/// `s` if it fits in `width` pixels, else its start and `…`, else nothing.
fn fit(s: &str, width: f64) -> String {
    let room = ((width - 4.0) / CHAR).floor();
    if room < 1.0 {
        return String::new();
    }
    let room = room as usize;
    let n = s.chars().count();
    if n <= room {
        s.to_string()
    } else if room >= 4 {
        let mut t: String = s.chars().take(room - 1).collect();
        t.push('…');
        t
    } else {
        String::new()
    }
}

/// One row of the lane matrix: classes with the same masks in both modes.
pub struct MatrixRow {
    /// The row's label (the first class's name).
    pub label: String,
    /// Every class in the row, for the tooltip.
    pub classes: Vec<String>,
    /// Where the label links to (from the site root).
    pub href: String,
    /// The classes' llvm mask.
    pub llvm: LaneMask,
    /// The classes' coverage mask.
    pub coverage: LaneMask,
}

/// Groups classes with equal masks in both modes, in class order.
pub fn matrix_rows(v: &LaneViews, classes: &[crate::target::RegClass]) -> Vec<MatrixRow> {
    let mut rows: Vec<MatrixRow> = Vec::new();
    let mut at: std::collections::HashMap<(&LaneMask, &LaneMask), usize> =
        std::collections::HashMap::new();
    for &c in classes {
        let (l, k) = (&v.llvm.class(c).lane_mask, &v.coverage.class(c).lane_mask);
        let name = v.llvm.class(c).name.clone();
        match at.get(&(l, k)) {
            Some(&i) => rows[i].classes.push(name),
            None => {
                at.insert((l, k), rows.len());
                rows.push(MatrixRow {
                    label: name.clone(),
                    classes: vec![name],
                    href: super::layout::class_url(v.llvm, c),
                    llvm: l.clone(),
                    coverage: k.clone(),
                });
            }
        }
    }
    rows
}

/// Fills of the lane matrix: `p` a coverage lane of its own, `s` a shared
/// one, `u` no coverage lane; `z0`/`z1` row stripes.
const MATRIX_STYLE: &str = ".p{fill:#1c6fb8}.s{fill:#d9480f}.u{fill:#adb5bd}.z0{fill:#f4f6f8}\
.z1{fill:#fff}.h rect{stroke:#fff}text.h{fill:#fff;text-anchor:middle}text.n{fill:#555;\
text-anchor:middle;font-size:8px}text.k{fill:#333}a text{fill:#0b4f8a}";

/// Classes × lanes: where coverage shares lanes that llvm splits. `full`
/// draws every lane on its own with the llvm lane numbers and a tooltip
/// naming the indices of each coverage lane (the index page's matrix);
/// otherwise runs of lanes alike are drawn as one box (class pages).
pub fn lane_matrix(v: &LaneViews, rows: &[MatrixRow], root: &str, full: bool) -> Markup {
    let cols = v.column_order();
    let n = cols.len().max(1);
    let cw = (900.0 / n as f64).clamp(4.0, 16.0);
    let rh = 14.0;
    let left = 190.0;
    let top = if full { 44.0 } else { 24.0 };
    let width = left + cw * n as f64 + 10.0;
    let height = top + rh * rows.len() as f64 + 6.0;
    // Header boxes over column ranges: one per coverage lane (in compact
    // form, runs of unshared ones together), then the unused llvm lanes.
    struct Head {
        first: usize,
        count: usize,
        label: String,
        title: String,
        class: &'static str,
    }
    let name_of_lane = |l: u32| -> String {
        v.llvm
            .sub_reg_indices
            .iter()
            .find(|i| i.composed.is_empty() && i.lane_mask.count() == 1 && i.lane_mask.test(l))
            .map_or(String::new(), |i| i.name.clone())
    };
    let mut heads: Vec<Head> = Vec::new();
    let mut col = 0usize;
    for (c, lanes) in v.coverage_to_llvm.iter().enumerate() {
        let class = if lanes.len() > 1 { "s" } else { "p" };
        let merge = !full
            && class == "p"
            && heads
                .last()
                .is_some_and(|h: &Head| h.class == "p" && h.first + h.count == col);
        if merge {
            if let Some(h) = heads.last_mut() {
                h.count += 1;
                let first_lane = h.label.split('–').next().unwrap_or("").to_string();
                h.label = format!("{first_lane}–{c}");
                h.title = format!("coverage lanes {}, one llvm lane each", h.label);
            }
        } else {
            let names: Vec<String> = lanes
                .iter()
                .map(|&l| {
                    if full {
                        format!("llvm lane {l} ({})", name_of_lane(l))
                    } else {
                        format!("llvm lane {l}")
                    }
                })
                .collect();
            heads.push(Head {
                first: col,
                count: lanes.len(),
                label: c.to_string(),
                title: format!("coverage lane {c} = {}", names.join(", ")),
                class,
            });
        }
        col += lanes.len();
    }
    let unused: Vec<u32> = (0..v.llvm.num_lanes)
        .filter(|&l| v.llvm_to_coverage[l as usize].is_none())
        .collect();
    if !unused.is_empty() {
        heads.push(Head {
            first: col,
            count: unused.len(),
            label: "unused".into(),
            title: format!(
                "llvm lanes of indices no register uses (no coverage lane): {}",
                unused
                    .iter()
                    .map(|l| format!("{l} ({})", name_of_lane(*l)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            class: "u",
        });
    }
    let col_class = |l: u32| -> &'static str {
        match v.llvm_to_coverage.get(l as usize).copied().flatten() {
            Some(c)
                if v.coverage_to_llvm
                    .get(c as usize)
                    .is_some_and(|l| l.len() > 1) =>
            {
                "s"
            }
            Some(_) => "p",
            None => "u",
        }
    };
    // Filled cells of each row: (first column, columns, class).
    let cells = |row: &MatrixRow| -> Vec<(usize, usize, &'static str)> {
        let mut out: Vec<(usize, usize, &'static str)> = Vec::new();
        for (k, &l) in cols.iter().enumerate() {
            if !row.llvm.test(l) {
                continue;
            }
            let class = col_class(l);
            match out.last_mut() {
                Some((a, w, c)) if !full && *c == class && *a + *w == k => *w += 1,
                _ => out.push((k, 1, class)),
            }
        }
        out
    };
    let caption = format!(
        "Lane matrix: {} class masks × {} llvm lanes, grouped into {} coverage lanes ({} shared)",
        rows.len(),
        v.llvm.num_lanes,
        v.coverage.num_lanes,
        v.shared_lanes()
    );
    let x_of = |k: usize| left + k as f64 * cw;
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="lane-matrix" role="img"
            width=(px(width)) height=(px(height)) viewBox=(format!("0 0 {} {}", px(width), px(height)))
            font-family="sans-serif" font-size="10" {
            title { (caption) }
            style { (PreEscaped(MATRIX_STYLE)) }
            text.k x="2" y="14" { "coverage lane" }
            @if full { text.k x="2" y=(px(top - 6.0)) { "llvm lanes →" } }
            @for h in &heads {
                g.h {
                    title { (h.title) }
                    rect x=(px(x_of(h.first))) y="4" width=(px(h.count as f64 * cw)) height="14" class=(h.class) {}
                    @if h.label.len() as f64 * CHAR <= h.count as f64 * cw {
                        text.h x=(px(x_of(h.first) + h.count as f64 * cw / 2.0)) y="14.5" { (h.label) }
                    }
                }
            }
            @if full {
                @for (k, &l) in cols.iter().enumerate() {
                    @if cw >= 12.0 || l % 8 == 0 {
                        text.n x=(px(x_of(k) + 0.5 * cw)) y=(px(top - 6.0)) { (l) }
                    }
                }
            }
            @for (ri, row) in rows.iter().enumerate() {
                @let y = top + ri as f64 * rh;
                g {
                    title {
                        (row.classes.join(", ")) ": llvm " (hex(&row.llvm, v.llvm.num_lanes))
                        ", coverage " (hex(&row.coverage, v.coverage.num_lanes))
                    }
                    rect x=(px(left)) y=(px(y)) width=(px(cw * n as f64)) height=(px(rh))
                        class=(if ri % 2 == 0 { "z0" } else { "z1" }) {}
                    a href=(format!("{root}{}", row.href)) {
                        text x="2" y=(px(y + rh * 0.75)) {
                            (fit(&row.label, 150.0))
                            @if row.classes.len() > 1 { " +" (row.classes.len() - 1) }
                        }
                    }
                    @for (k, w, class) in cells(row) {
                        rect x=(px(x_of(k) + 0.5)) y=(px(y + 1.5)) width=(px((w as f64 * cw - 1.0).max(1.0)))
                            height=(px(rh - 3.0)) class=(class) {}
                    }
                }
            }
        }
    }
}

/// The llvm lane count and shared coverage lanes, for captions.
pub fn matrix_summary(v: &LaneViews) -> String {
    format!(
        "{} llvm lanes, {} coverage lanes; {} coverage lanes stand for more than one llvm lane",
        v.llvm.num_lanes,
        v.coverage.num_lanes,
        v.shared_lanes()
    )
}
