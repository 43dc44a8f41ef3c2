//! Stage 5: `regdesc check` — summary figures and located diagnostics.
//!
//! Every problem is a [`Diagnostic`] with a stable code:
//!
//! | code | severity | what |
//! | --- | --- | --- |
//! | `regdesc::check::lane_budget` | error | more lanes than `--lane-bits` |
//! | `regdesc::check::duplicate_register` | error | two registers over the same units with different sub-register indices |
//! | `regdesc::check::offset_conflict` | warning | SubRegIndex offsets/sizes contradicting the registers |
//! | `regdesc::check::offset_out_of_range` | warning | an index reaching past the end of a register |
//! | `regdesc::check::ambiguous_composition` | warning | LLVM's "compose ambiguously" |
//! | `regdesc::check::class_size_mismatch` | warning | a class whose registers differ in size |
//! | `regdesc::check::unused_index` | warning | a SubRegIndex no register uses |
//! | `regdesc::regs::*` | error | the bank itself cannot be computed (LLVM's fatal errors) |

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::diag::Diagnostic;
use crate::eval::RecordKeeper;
use crate::lanes::{ConflictKind, LaneMode, Lanes};
use crate::regs::{ClassId, IdxId, IndexOrigin, RegBank, RegId, Stage, UNKNOWN};
use crate::syntax::{SourceMap, Span};

/// What to check against.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    pub mode: LaneMode,
    pub lane_bits: u32,
}

/// Figures of the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub registers_defined: usize,
    pub registers_from_tuples: usize,
    pub classes_defined: usize,
    pub classes_synthesized: usize,
    pub indices_defined: usize,
    pub indices_synthesized: usize,
    pub units: usize,
    pub lanes_llvm: u32,
    pub lanes_coverage: u32,
    /// The class needing most lanes (in the checked mode) and how many.
    pub widest_class: Option<(String, u32)>,
}

/// The result of a check.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    pub mode: Option<LaneMode>,
    pub lane_bits: u32,
    /// `None` when the bank could not be built.
    pub summary: Option<Summary>,
    /// The built-in Target.td prelude was used (set by the caller, who loaded the files).
    pub builtin_prelude: bool,
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckReport {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Shortens very long register names (tuples of tuples) for messages.
fn short(name: &str) -> String {
    if name.len() <= 48 {
        return name.to_string();
    }
    let head: String = name.chars().take(20).collect();
    let tail: String = name
        .chars()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{head}…{tail}")
}

fn list(names: &[String], max: usize) -> String {
    let mut s = names
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > max {
        let _ = write!(s, ", … ({} in all)", names.len());
    }
    s
}

struct Ctx<'a> {
    rk: &'a RecordKeeper,
    bank: &'a RegBank,
}

impl Ctx<'_> {
    fn idx_span(&self, i: IdxId) -> Option<Span> {
        let idx = self.bank.idx(i);
        idx.span.or_else(|| match idx.origin {
            IndexOrigin::Composite { register, .. } | IndexOrigin::Concat { register } => {
                self.bank.reg(register).span
            }
            IndexOrigin::Defined => None,
        })
    }
    fn reg_origin(&self, r: RegId) -> String {
        match self.bank.reg(r).tuple {
            Some(t) => format!("tuple {}", self.rk.name(t)),
            None => "def".to_string(),
        }
    }
    fn interval(&self, i: IdxId) -> String {
        let idx = self.bank.idx(i);
        if idx.offset == UNKNOWN || idx.size == UNKNOWN {
            "unknown bits".into()
        } else {
            format!(
                "bits [{}, {})",
                idx.offset,
                idx.offset as u32 + idx.size as u32
            )
        }
    }
}

/// Builds the bank, computes both lane modes and reports every problem.
pub fn check(rk: &RecordKeeper, opts: &CheckOptions) -> CheckReport {
    let mut report = CheckReport {
        mode: Some(opts.mode),
        lane_bits: opts.lane_bits,
        ..CheckReport::default()
    };
    let (bank, err) = RegBank::build_partial(rk);
    let cx = Ctx { rk, bank: &bank };
    if bank.stage >= Stage::SubRegs {
        duplicates(&cx, &mut report.diagnostics);
    }
    if let Some(e) = err {
        let dup = report
            .diagnostics
            .iter()
            .any(|d| d.code == "regdesc::check::duplicate_register");
        let mut d = e.to_diagnostic();
        if dup {
            d = d.with_help("this is how llvm-tblgen reports the duplicate register above");
        }
        report.diagnostics.push(d);
        return report;
    }
    let llvm = Lanes::compute(&bank, LaneMode::Llvm);
    let cov = Lanes::compute(&bank, LaneMode::Coverage);
    let chosen = if opts.mode == LaneMode::Llvm {
        &llvm
    } else {
        &cov
    };
    let widest = widest_class(&bank, chosen);
    report.summary = Some(Summary {
        registers_defined: bank.num_defined_registers,
        registers_from_tuples: bank.registers.len() - bank.num_defined_registers,
        classes_defined: bank.num_defined_classes,
        classes_synthesized: bank.classes.len() - bank.num_defined_classes,
        indices_defined: bank.num_defined_indices,
        indices_synthesized: bank.sub_reg_indices.len() - bank.num_defined_indices,
        units: bank.num_native_reg_units,
        lanes_llvm: llvm.num_lanes,
        lanes_coverage: cov.num_lanes,
        widest_class: widest.map(|(c, n)| (bank.class(c).name.clone(), n)),
    });
    let d = &mut report.diagnostics;
    lane_budget(&cx, opts, &llvm, &cov, widest, d);
    lane_sharing(&cx, opts, &llvm, &cov, d);
    offset_conflicts(&cx, &cov, d);
    out_of_range(&cx, d);
    ambiguous(&cx, d);
    class_sizes(&cx, d);
    unused(&cx, d);
    report
}

fn widest_class(bank: &RegBank, lanes: &Lanes) -> Option<(ClassId, u32)> {
    let mut best: Option<(ClassId, u32)> = None;
    for &c in &bank.class_order {
        let n = lanes.class_masks[c as usize].count();
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((c, n));
        }
    }
    best
}

fn lane_budget(
    cx: &Ctx,
    opts: &CheckOptions,
    llvm: &Lanes,
    cov: &Lanes,
    widest: Option<(ClassId, u32)>,
    out: &mut Vec<Diagnostic>,
) {
    let chosen = if opts.mode == LaneMode::Llvm {
        llvm
    } else {
        cov
    };
    if chosen.num_lanes <= opts.lane_bits {
        return;
    }
    let bank = cx.bank;
    let mode = opts.mode.name();
    let (span, class_note) = match widest {
        Some((c, n)) => {
            let rc = bank.class(c);
            (rc.span, format!("class {} alone needs {n} lanes", rc.name))
        }
        None => (None, String::new()),
    };
    let mut d = Diagnostic::error(
        "regdesc::check::lane_budget",
        format!(
            "lane budget exceeded: the register file needs {} lanes ({mode} mode), {} more than the {}-bit lane mask",
            chosen.num_lanes,
            chosen.num_lanes - opts.lane_bits,
            opts.lane_bits
        ),
        span,
    )
    .with_label(class_note);
    // Synthesized composites that take leaf lanes in LLVM's assignment.
    let synth: Vec<String> = bank
        .sub_reg_indices
        .iter()
        .filter(|i| i.is_leaf() && matches!(i.origin, IndexOrigin::Composite { .. }))
        .map(|i| i.name.clone())
        .collect();
    // Leaves covering identical bits (they share a lane under coverage).
    let mut shared: Vec<String> = Vec::new();
    for leaves in &cov.coverage.lane_leaves {
        if leaves.len() > 1 {
            let names: Vec<String> = leaves.iter().map(|&l| bank.idx(l).name.clone()).collect();
            shared.push(format!(
                "{} ({})",
                names.join(" = "),
                cx.interval(leaves[0])
            ));
        }
    }
    let mut help = String::new();
    if !synth.is_empty() {
        let _ = writeln!(
            help,
            "{} of the {} LLVM lanes go to synthesized composite indices: {}",
            synth.len(),
            llvm.num_lanes,
            list(&synth, 6)
        );
    }
    if !shared.is_empty() {
        let _ = writeln!(
            help,
            "these cover identical bits and share a lane under --lanes coverage: {}",
            list(&shared, 4)
        );
    }
    let _ = writeln!(help, "fixes:");
    if opts.mode == LaneMode::Llvm && cov.num_lanes <= opts.lane_bits {
        let _ = writeln!(
            help,
            "  - assign lanes by coverage (--lanes coverage): {} lanes fit in {} bits",
            cov.num_lanes, opts.lane_bits
        );
    }
    // A group sharing bits that holds a defined index and a synthesized
    // composite: naming the composite with the defined index saves a lane.
    let example = cov.coverage.lane_leaves.iter().find_map(|leaves| {
        let defined = leaves.iter().find(|&&l| bank.idx(l).def.is_some())?;
        let comp = leaves.iter().find_map(|&l| match bank.idx(l).origin {
            IndexOrigin::Composite { first, second, .. } => Some((l, first, second)),
            _ => None,
        })?;
        Some((*defined, comp))
    });
    if let Some((d, (c, first, second))) = example {
        let di = bank.idx(d);
        let _ = writeln!(
            help,
            "  - let a defined index name the composite: `def {} : SubRegIndex<{}, {}> {{ let ComposedOf = [{}, {}]; }}` makes LLVM call {} {} and share its lane (one ComposedOf per index: add word-level indices for the other positions)",
            di.name,
            di.size,
            di.offset,
            bank.idx(first).name,
            bank.idx(second).name,
            bank.idx(c).name,
            di.name
        );
    }
    let _ = writeln!(
        help,
        "  - use a coarser base register (e.g. dword instead of word elements) or narrower tuples for the widest classes"
    );
    if llvm.num_lanes == 65 && opts.lane_bits == 64 {
        let _ = writeln!(
            help,
            "note: llvm-tblgen 14 does not reject exactly 65 lanes: it silently gives the 65th leaf index lane 0 again (an off-by-one), so two unrelated sub-registers would share liveness"
        );
    }
    let need = chosen.num_lanes.next_power_of_two().max(64);
    let _ = write!(
        help,
        "  - widen LaneBitmask to {need} bits (LLVM's is 64; regdesc computes any width)"
    );
    d = d.with_help(help);
    out.push(d);
}

/// A note when coverage needs fewer lanes than LLVM's assignment.
fn lane_sharing(
    cx: &Ctx,
    opts: &CheckOptions,
    llvm: &Lanes,
    cov: &Lanes,
    out: &mut Vec<Diagnostic>,
) {
    if cov.num_lanes >= llvm.num_lanes
        || out.iter().any(|d| d.code == "regdesc::check::lane_budget")
    {
        return;
    }
    let bank = cx.bank;
    let groups: Vec<&Vec<IdxId>> = cov
        .coverage
        .lane_leaves
        .iter()
        .filter(|g| g.len() > 1)
        .collect();
    let examples: Vec<String> = groups
        .iter()
        .map(|g| {
            let names: Vec<String> = g.iter().map(|&l| bank.idx(l).name.clone()).collect();
            format!("{} ({})", names.join(" = "), cx.interval(g[0]))
        })
        .collect();
    let span = groups
        .first()
        .and_then(|g| g.iter().find_map(|&l| bank.idx(l).span));
    let headroom = |n: u32| {
        if n <= opts.lane_bits {
            format!("{} spare", opts.lane_bits - n)
        } else {
            format!("{} over", n - opts.lane_bits)
        }
    };
    out.push(
        Diagnostic::note(
            "regdesc::check::lane_sharing",
            format!(
                "LLVM's assignment needs {} lanes ({} of {} bits); by coverage {} ({})",
                llvm.num_lanes,
                headroom(llvm.num_lanes),
                opts.lane_bits,
                cov.num_lanes,
                headroom(cov.num_lanes)
            ),
            span,
        )
        .with_help(format!(
            "{} synthesized composite indices cover the same bits as other indices and share lanes under --lanes coverage: {}",
            groups.iter().map(|g| g.len() - 1).sum::<usize>(),
            list(&examples, 4)
        )),
    );
}

fn duplicates(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    let mut by_units: BTreeMap<&[u32], Vec<RegId>> = BTreeMap::new();
    for (r, reg) in bank.registers.iter().enumerate() {
        if reg.units.len() > 1 && !reg.explicit_sub_regs.is_empty() {
            by_units
                .entry(reg.units.as_slice())
                .or_default()
                .push(r as RegId);
        }
    }
    // One diagnostic per pair of tuple definitions (or defs).
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for regs in by_units.values() {
        if regs.len() < 2 {
            continue;
        }
        // Two definitions building the same register: same units *and* same
        // name, which is what llvm-tblgen trips over. Distinct registers over
        // the same units are legitimate (x86's RAX whose only sub-register is
        // EAX; AArch64's W28_W29 and X28_FP pairs).
        let pair = regs.iter().enumerate().find_map(|(k, &a)| {
            regs[k + 1..].iter().copied().find_map(|b| {
                let (ra, rb) = (bank.reg(a), bank.reg(b));
                (ra.name == rb.name && ra.explicit_sub_reg_indices != rb.explicit_sub_reg_indices)
                    .then_some((a, b))
            })
        });
        let Some((a, b)) = pair else { continue };
        let (ra, rb) = (bank.reg(a), bank.reg(b));
        let (oa, ob) = (cx.reg_origin(a), cx.reg_origin(b));
        if !seen.insert((oa.clone(), ob.clone())) {
            continue;
        }
        let ia: Vec<String> = ra
            .explicit_sub_reg_indices
            .iter()
            .map(|&i| bank.idx(i).name.clone())
            .collect();
        let ib: Vec<String> = rb
            .explicit_sub_reg_indices
            .iter()
            .map(|&i| bank.idx(i).name.clone())
            .collect();
        let count = by_units
            .values()
            .filter(|v| v.len() > 1 && cx.reg_origin(v[0]) == oa && cx.reg_origin(v[1]) == ob)
            .count();
        let same_name = ra.name == rb.name;
        let msg = format!(
            "{} and {} produce the same register{} ({} register units) with different sub-register indices",
            oa,
            ob,
            if same_name {
                format!(" {}", short(&ra.name))
            } else {
                format!("s {} and {}", short(&ra.name), short(&rb.name))
            },
            ra.units.len()
        );
        let d = Diagnostic::error("regdesc::check::duplicate_register", msg, ra.span)
            .with_label(format!("indices [{}]", list(&ia, 4)))
            .with_related(rb.span, format!("{ob} covers the same units with indices [{}]", list(&ib, 4)))
            .with_help(format!(
                "{count} register(s) are built twice; LLVM only reports \"No SubRegIndex for ...\". Keep one tuple definition per set of registers and put the other view in a register class (e.g. `(add {})`), or give both the same sub-register index structure",
                match cx.bank.reg(a).tuple {
                    Some(t) => cx.rk.name(t).to_string(),
                    None => ra.name.clone(),
                }
            ));
        out.push(d);
    }
}

fn offset_conflicts(cx: &Ctx, cov: &Lanes, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    for c in &cov.coverage.conflicts {
        let names: Vec<String> = c
            .indices
            .iter()
            .map(|&i| format!("{} ({})", bank.idx(i).name, cx.interval(i)))
            .collect();
        let span = c
            .indices
            .iter()
            .find_map(|&i| bank.idx(i).span)
            .or_else(|| c.indices.first().and_then(|&i| cx.idx_span(i)));
        let (msg, help) = match c.kind {
            ConflictKind::SameBits => (
                format!(
                    "SubRegIndex offsets contradict register {}: {} claim the same bits but name different sub-registers",
                    c.register.map_or(String::new(), |r| short(&bank.reg(r).name)),
                    list(&names, 4)
                ),
                "one of them is probably declared at offset 0 although it is a high part: give each index its real offset, e.g. `SubRegIndex<32, 32>`; until then they keep separate lanes",
            ),
            ConflictKind::UnitsDisagree => (
                format!(
                    "SubRegIndex offsets/sizes contradict register {}: {} overlap in bits but not in register units (or the reverse)",
                    c.register.map_or(String::new(), |r| short(&bank.reg(r).name)),
                    list(&names, 4)
                ),
                "overlapping siblings: fix the Size/Offset of these indices; until then they keep separate lanes. If the sub-registers overlap through ad hoc `Aliases` instead, no lane mask can express that (in LLVM either): liveness of one will not see the other",
            ),
            ConflictKind::Composition => (
                format!(
                    "SubRegIndex offsets do not compose through {}: {}",
                    c.via.map_or(String::new(), |v| bank.idx(v).name.clone()),
                    list(&names, 4)
                ),
                "an index composed with another must sit at the sum of their offsets; fix the offsets; until then these keep separate lanes",
            ),
        };
        let mut d =
            Diagnostic::warning("regdesc::check::offset_conflict", msg, span).with_help(help);
        if let Some(r) = c.register {
            d = d.with_related(
                bank.reg(r).span,
                format!("in register {}", short(&bank.reg(r).name)),
            );
        }
        out.push(d);
    }
}

fn out_of_range(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    // A register's size: the largest of the classes that hold it (default
    // mode). A register can also sit in a narrower view, such as AMDGPU's
    // 64-bit EXEC in the `i1` class SReg_1; that view does not bound it.
    let mut class_size: Vec<Option<u32>> = vec![None; bank.registers.len()];
    for c in bank.classes_in_order() {
        if c.def.is_none() {
            continue;
        }
        let s = c.rsi.get(0).reg_size;
        for &r in &c.members {
            let slot = &mut class_size[r as usize];
            *slot = Some(slot.map_or(s, |x| x.max(s)));
        }
    }
    let mut seen: BTreeSet<IdxId> = BTreeSet::new();
    for (r, reg) in bank.registers.iter().enumerate() {
        let Some(rs) = class_size[r] else { continue };
        for &i in reg.sub_regs.keys() {
            let idx = bank.idx(i);
            if idx.offset == UNKNOWN || idx.size == UNKNOWN || seen.contains(&i) {
                continue;
            }
            let end = idx.offset as u32 + idx.size as u32;
            if end > rs {
                seen.insert(i);
                out.push(
                    Diagnostic::warning(
                        "regdesc::check::offset_out_of_range",
                        format!(
                            "SubRegIndex {} ({}) reaches past the end of {}-bit register {}",
                            idx.name,
                            cx.interval(i),
                            rs,
                            short(&reg.name)
                        ),
                        cx.idx_span(i),
                    )
                    .with_related(
                        reg.span,
                        format!("{} is {rs} bits in its register class", short(&reg.name)),
                    )
                    .with_help(
                        "check the index's Size and Offset, or the class's size (RegInfos / Size)",
                    ),
                );
            }
        }
    }
}

fn ambiguous(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    for a in &bank.ambiguous {
        let span = [a.first, a.second, a.previous, a.new]
            .iter()
            .find_map(|&i| bank.idx(i).span)
            .or(bank.reg(a.register).span);
        out.push(
            Diagnostic::warning(
                "regdesc::check::ambiguous_composition",
                format!(
                    "SubRegIndex {} and {} compose ambiguously as {} or {}",
                    bank.idx(a.first).name,
                    bank.idx(a.second).name,
                    bank.idx(a.previous).name,
                    bank.idx(a.new).name
                ),
                span,
            )
            .with_related(
                bank.reg(a.register).span,
                format!("in register {}", short(&bank.reg(a.register).name)),
            )
            .with_help(format!(
                "{}:{} names the same sub-register as {}; LLVM keeps {} — make the ComposedSubRegIndex agree with the registers or drop it",
                bank.idx(a.first).name,
                bank.idx(a.second).name,
                bank.idx(a.new).name,
                bank.idx(a.previous).name
            )),
        );
    }
}

fn class_sizes(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    // Shape of a register: its number of leaf sub-registers (1 for a leaf)
    // and its size in bits where every sub-register index has a known extent.
    let shape = |r: RegId| -> (usize, Option<u32>) {
        let reg = bank.reg(r);
        if reg.sub_regs.is_empty() {
            return (1, None);
        }
        let leaves = reg
            .sub_regs
            .values()
            .filter(|&&s| bank.reg(s).sub_regs.is_empty())
            .count();
        let mut end = 0u32;
        for &i in reg.sub_regs.keys() {
            let idx = bank.idx(i);
            if idx.offset == UNKNOWN || idx.size == UNKNOWN {
                return (leaves, None);
            }
            end = end.max(idx.offset as u32 + idx.size as u32);
        }
        (leaves, Some(end))
    };
    // A register without sub-registers has no size of its own; the smallest
    // other defined class holding it gives one.
    let mut holders: Vec<Vec<(ClassId, u32)>> = vec![Vec::new(); bank.registers.len()];
    for &cid in &bank.class_order {
        let c = bank.class(cid);
        if c.def.is_some() {
            for &r in &c.members {
                holders[r as usize].push((cid, c.rsi.get(0).reg_size));
            }
        }
    }
    for &cid in &bank.class_order {
        let c = bank.class(cid);
        if c.def.is_none() || c.members.is_empty() {
            continue;
        }
        let size_of = |r: RegId| -> (usize, Option<u32>) {
            let (l, b) = shape(r);
            if b.is_none() && bank.reg(r).sub_regs.is_empty() {
                let outside = holders[r as usize]
                    .iter()
                    .filter(|(h, _)| *h != cid)
                    .map(|(_, s)| *s)
                    .min();
                return (l, outside);
            }
            (l, b)
        };
        let first = c.members[0];
        let (l0, b0) = size_of(first);
        let leaf0 = bank.reg(first).sub_regs.is_empty();
        // Sizes in bits decide when both are known (x86's EAX and RIP are
        // both 32 bits though built from different leaves); otherwise the
        // number of leaf sub-registers does, when both have sub-registers
        // (ARM's D16-D31 have none, unlike D0-D15: no size to compare).
        let odd = c.members.iter().copied().find(|&r| {
            let (l, b) = size_of(r);
            match (b, b0) {
                (Some(x), Some(y)) => x != y,
                _ => !leaf0 && !bank.reg(r).sub_regs.is_empty() && l != l0,
            }
        });
        let Some(other) = odd else { continue };
        let describe = |r: RegId| {
            let (l, b) = shape(r);
            match b {
                Some(bits) => format!(
                    "{} is {bits} bits ({l} leaf sub-register{})",
                    short(&bank.reg(r).name),
                    if l == 1 { "" } else { "s" }
                ),
                None if l == 1 && bank.reg(r).sub_regs.is_empty() => {
                    format!("{} has no sub-registers", short(&bank.reg(r).name))
                }
                None => format!("{} has {l} leaf sub-registers", short(&bank.reg(r).name)),
            }
        };
        out.push(
            Diagnostic::warning(
                "regdesc::check::class_size_mismatch",
                format!(
                    "register class {} mixes registers of different sizes: {}, {}",
                    c.name,
                    describe(first),
                    describe(other)
                ),
                c.span,
            )
            .with_label(format!("{} registers", c.members.len()))
            .with_related(
                bank.reg(other).span,
                format!("{} is defined here", short(&bank.reg(other).name)),
            )
            .with_help(
                "all registers of a class should have the class's size; split the class by size",
            ),
        );
    }
}

fn unused(cx: &Ctx, out: &mut Vec<Diagnostic>) {
    let bank = cx.bank;
    let mut used = vec![false; bank.sub_reg_indices.len()];
    for reg in &bank.registers {
        for &i in reg.sub_regs.keys() {
            used[i as usize] = true;
        }
    }
    for (i, idx) in bank
        .sub_reg_indices
        .iter()
        .enumerate()
        .take(bank.num_defined_indices)
    {
        if !used[i] {
            out.push(
                Diagnostic::warning(
                    "regdesc::check::unused_index",
                    format!("SubRegIndex {} is never used by any register", idx.name),
                    idx.span,
                )
                .with_help("remove it, or use it in SubRegIndices; LLVM still gives it a lane"),
            );
        }
    }
}

/// The human summary (stdout).
pub fn render_summary(r: &CheckReport) -> String {
    let Some(s) = &r.summary else {
        return String::new();
    };
    let mut o = String::new();
    let mut row = |label: &str, value: String| {
        let _ = writeln!(o, "{label:<24}{value}");
    };
    row(
        "registers:",
        format!(
            "{:>6} ({} defined, {} from tuples)",
            s.registers_defined + s.registers_from_tuples,
            s.registers_defined,
            s.registers_from_tuples
        ),
    );
    row(
        "register classes:",
        format!(
            "{:>6} ({} defined, {} synthesized)",
            s.classes_defined + s.classes_synthesized,
            s.classes_defined,
            s.classes_synthesized
        ),
    );
    row(
        "sub-register indices:",
        format!(
            "{:>6} ({} defined, {} synthesized)",
            s.indices_defined + s.indices_synthesized,
            s.indices_defined,
            s.indices_synthesized
        ),
    );
    row("register units:", format!("{:>6}", s.units));
    row("lanes (llvm):", format!("{:>6}", s.lanes_llvm));
    row("lanes (coverage):", format!("{:>6}", s.lanes_coverage));
    if let Some((name, n)) = &s.widest_class {
        let mode = r.mode.map_or("coverage", LaneMode::name);
        row(
            &format!("most lanes ({mode}):"),
            format!("{name} ({n} of {} bits)", r.lane_bits),
        );
    }
    if r.builtin_prelude {
        row(
            "Target.td:",
            "built-in prelude (llvm/Target/Target.td not on the include path)".into(),
        );
    }
    o
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// The JSON form of a report (one object; see README "regdesc check").
pub fn to_json(r: &CheckReport, sources: &SourceMap) -> String {
    use serde_json::{json, Value};
    let diags: Vec<Value> = r
        .diagnostics
        .iter()
        .map(|d| {
            let (file, line, column) = match d.span {
                Some(sp) if (sp.file as usize) < sources.files.len() => {
                    let (l, c) = sources.line_col(sp.file, sp.start);
                    (
                        Value::String(sources.file(sp.file).path.display().to_string()),
                        json!(l),
                        json!(c),
                    )
                }
                _ => (Value::Null, Value::Null, Value::Null),
            };
            json!({
                "severity": d.severity.as_str(),
                "code": d.code,
                "message": d.message,
                "file": file,
                "line": line,
                "column": column,
                "help": d.help,
            })
        })
        .collect();
    let mut obj = serde_json::Map::new();
    let s = r.summary.clone().unwrap_or_default();
    let ok = r.summary.is_some();
    let num = |v: usize| if ok { json!(v) } else { Value::Null };
    obj.insert(
        "mode".into(),
        json!(r.mode.map_or("coverage", LaneMode::name)),
    );
    obj.insert("lane_bits".into(), json!(r.lane_bits));
    obj.insert(
        "registers".into(),
        num(s.registers_defined + s.registers_from_tuples),
    );
    obj.insert("registers_defined".into(), num(s.registers_defined));
    obj.insert("registers_from_tuples".into(), num(s.registers_from_tuples));
    obj.insert(
        "classes".into(),
        num(s.classes_defined + s.classes_synthesized),
    );
    obj.insert("classes_defined".into(), num(s.classes_defined));
    obj.insert("classes_synthesized".into(), num(s.classes_synthesized));
    obj.insert(
        "sub_reg_indices".into(),
        num(s.indices_defined + s.indices_synthesized),
    );
    obj.insert("sub_reg_indices_defined".into(), num(s.indices_defined));
    obj.insert(
        "sub_reg_indices_synthesized".into(),
        num(s.indices_synthesized),
    );
    obj.insert("units".into(), num(s.units));
    obj.insert(
        "lanes".into(),
        if ok {
            json!({"llvm": s.lanes_llvm, "coverage": s.lanes_coverage})
        } else {
            Value::Null
        },
    );
    obj.insert(
        "widest_class".into(),
        match &s.widest_class {
            Some((n, k)) => json!({"name": n, "lanes": k}),
            None => Value::Null,
        },
    );
    obj.insert("builtin_prelude".into(), json!(r.builtin_prelude));
    obj.insert("diagnostics".into(), Value::Array(diags));
    let _ = json_str;
    let mut text =
        serde_json::to_string_pretty(&Value::Object(obj)).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
