//! `llvm-tblgen -gen-register-info -register-info-debug`: the register
//! bank and its lane masks, in LLVM's order and format.
//!
//! The dump of a large bank runs to tens of megabytes (22 MB for LLVM's
//! AMDGPU), most of it the registers' sub-register lines.
//! [`write_debug_dump`] hands it to a writer in chunks of [`CHUNK`] bytes,
//! so that it never sits in memory whole: fresh memory is what a dump of
//! that size spends most of its time on.

use std::fmt::Write;

use super::CHUNK;
use crate::lanes::Lanes;
use crate::regs::RegBank;

/// Prints the bank exactly as `llvm-tblgen -gen-register-info
/// -register-info-debug` does (for masks of ≤64 lanes; wider masks print
/// with more hex digits).
pub fn debug_dump(bank: &RegBank, lanes: &Lanes) -> String {
    let mut out = Vec::new();
    // Writing into a vector cannot fail, and the dump is UTF-8 text.
    let _ = write_debug_dump(&mut out, bank, lanes);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`debug_dump`], written to `out` a chunk at a time.
pub fn write_debug_dump(
    out: &mut dyn std::io::Write,
    bank: &RegBank,
    lanes: &Lanes,
) -> std::io::Result<()> {
    write_debug_dump_with(out, bank, lanes, None)
}

/// [`write_debug_dump`], with the registers' part already formatted
/// (`registers`, from [`RegisterSection`] when it matches `bank`).
pub fn write_debug_dump_with(
    out: &mut dyn std::io::Write,
    bank: &RegBank,
    lanes: &Lanes,
    registers: Option<&RegisterSection>,
) -> std::io::Result<()> {
    let mut o = String::with_capacity(CHUNK * 2);
    head(&mut o, bank, lanes);
    if let Some(section) = registers.filter(|s| s.matches(bank)) {
        out.write_all(o.as_bytes())?;
        return out.write_all(&section.text);
    }
    // A sub-register line is `\tSubReg <index> = <register>\n`: its two
    // halves are made once, for the 600,000 lines of AMDGPU's dump.
    let lines = SubRegLines {
        index: (bank.sub_reg_indices.iter())
            .map(|i| format!("\tSubReg {} = ", i.name))
            .collect(),
        reg: (bank.registers.iter())
            .map(|r| format!("{}\n", r.name))
            .collect(),
    };
    for reg in &bank.registers {
        if o.len() >= CHUNK {
            out.write_all(o.as_bytes())?;
            o.clear();
        }
        write_register(
            &mut o,
            &lines,
            &RegLines {
                name: &reg.name,
                cost_per_use: &reg.cost_per_use,
                covered: reg.covered_by_sub_regs,
                disjunct: reg.has_disjunct_sub_regs,
                sub_regs: reg.sub_regs.as_slice(),
            },
        );
    }
    out.write_all(o.as_bytes())
}

/// The registers' part of the dump (most of it: 21 of AMDGPU's 22 MB),
/// formatted apart from the bank: [`RegisterSection::job`] copies what it
/// needs once the registers are final, and the job formats it, on the
/// bank's second thread while class inference runs on the first.
#[derive(Default)]
pub struct RegisterSection {
    text: Vec<u8>,
    /// The number of registers, of indices and of sub-register entries
    /// the text was made from: a bank that changed after the copy is
    /// formatted again.
    shape: (usize, usize, usize),
}

impl std::fmt::Debug for RegisterSection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RegisterSection({} bytes)", self.text.len())
    }
}

/// What the registers' part reads of the bank, copied.
struct Snapshot {
    names: Vec<String>,
    index_names: Vec<String>,
    /// Per register: `CoveredBySubregs` and `HasDisjunctSubRegs`.
    flags: Vec<(bool, bool)>,
    /// Every register's cost-per-use list and sub-registers, one after
    /// the other; each register's end in them.
    costs: Vec<i64>,
    cost_ends: Vec<u32>,
    subs: Vec<(u32, u32)>,
    sub_ends: Vec<u32>,
}

fn shape_of(bank: &RegBank) -> (usize, usize, usize) {
    let entries = bank.registers.iter().map(|r| r.sub_regs.len()).sum();
    (bank.registers.len(), bank.sub_reg_indices.len(), entries)
}

impl RegisterSection {
    /// Copies what the registers' part needs of `bank` (whose registers,
    /// sub-register maps and indices must be final) and returns the work
    /// of formatting it.
    pub fn job(bank: &RegBank) -> impl FnOnce() -> RegisterSection + Send + 'static {
        let n = bank.registers.len();
        let mut snap = Snapshot {
            names: Vec::with_capacity(n),
            index_names: bank
                .sub_reg_indices
                .iter()
                .map(|i| i.name.clone())
                .collect(),
            flags: Vec::with_capacity(n),
            costs: Vec::new(),
            cost_ends: Vec::with_capacity(n),
            subs: Vec::new(),
            sub_ends: Vec::with_capacity(n),
        };
        let shape = shape_of(bank);
        snap.subs.reserve(shape.2);
        for r in &bank.registers {
            snap.names.push(r.name.clone());
            snap.costs.extend_from_slice(&r.cost_per_use);
            snap.cost_ends.push(snap.costs.len() as u32);
            snap.subs.extend_from_slice(r.sub_regs.as_slice());
            snap.sub_ends.push(snap.subs.len() as u32);
            snap.flags
                .push((r.covered_by_sub_regs, r.has_disjunct_sub_regs));
        }
        move || snap.format(shape)
    }

    /// Whether this was made from a bank like `bank`.
    fn matches(&self, bank: &RegBank) -> bool {
        self.shape == shape_of(bank)
    }
}

impl Snapshot {
    fn format(self, shape: (usize, usize, usize)) -> RegisterSection {
        let lines = SubRegLines {
            index: (self.index_names.iter())
                .map(|name| format!("\tSubReg {name} = "))
                .collect(),
            reg: self.names.iter().map(|name| format!("{name}\n")).collect(),
        };
        // Sized up front: the text is written once, with no regrowth.
        let fixed =
            "Register :\n\tCostPerUse: \n\tCoveredBySubregs: 0\n\tHasDisjunctSubRegs: 0\n".len();
        let size: usize = (self.names.iter())
            .map(|name| fixed + name.len() + 4)
            .chain(self.costs.iter().map(|_| 21))
            .chain(
                (self.subs.iter())
                    .map(|&(i, s)| lines.index[i as usize].len() + lines.reg[s as usize].len()),
            )
            .sum();
        let mut o = String::with_capacity(size);
        let (mut cost_start, mut sub_start) = (0, 0);
        for (k, name) in self.names.iter().enumerate() {
            let (cost_end, sub_end) = (self.cost_ends[k] as usize, self.sub_ends[k] as usize);
            let (covered, disjunct) = self.flags[k];
            write_register(
                &mut o,
                &lines,
                &RegLines {
                    name,
                    cost_per_use: &self.costs[cost_start..cost_end],
                    covered,
                    disjunct,
                    sub_regs: &self.subs[sub_start..sub_end],
                },
            );
            (cost_start, sub_start) = (cost_end, sub_end);
        }
        RegisterSection {
            text: o.into_bytes(),
            shape,
        }
    }
}

/// What one register's part of the dump shows.
struct RegLines<'r> {
    name: &'r str,
    cost_per_use: &'r [i64],
    covered: bool,
    disjunct: bool,
    sub_regs: &'r [(u32, u32)],
}

/// The two halves of every sub-register line, by index and by register.
struct SubRegLines {
    index: Vec<String>,
    reg: Vec<String>,
}

/// The classes and indices.
fn head(o: &mut String, bank: &RegBank, lanes: &Lanes) {
    let words = lanes.words();
    let nmodes = bank.hw_modes.len();
    for rc in bank.classes_in_order() {
        let _ = writeln!(o, "RegisterClass {}:", rc.name);
        o.push_str("\tSpillSize: {");
        for m in 0..nmodes {
            let _ = write!(
                o,
                " {}:{}",
                bank.hw_modes[m],
                rc.rsi.get(m as u32).spill_size
            );
        }
        o.push_str(" }\n\tSpillAlignment: {");
        for m in 0..nmodes {
            let _ = write!(
                o,
                " {}:{}",
                bank.hw_modes[m],
                rc.rsi.get(m as u32).spill_alignment
            );
        }
        let _ = writeln!(o, " }}\n\tNumRegs: {}", rc.members.len());
        let cid = bank.class_order[rc.enum_value as usize];
        let _ = writeln!(
            o,
            "\tLaneMask: {}",
            lanes.class_masks[cid as usize].to_hex(words)
        );
        let _ = writeln!(
            o,
            "\tHasDisjunctSubRegs: {}",
            rc.has_disjunct_sub_regs as u8
        );
        let _ = writeln!(o, "\tCoveredBySubRegs: {}", rc.covered_by_sub_regs as u8);
        o.push_str("\tRegs:");
        for &r in &rc.members {
            o.push(' ');
            o.push_str(&bank.reg(r).name);
        }
        o.push_str("\n\tSubClasses:");
        for sub in bank.classes_in_order() {
            if rc.has_sub_class(sub.enum_value) {
                o.push(' ');
                o.push_str(&sub.name);
            }
        }
        o.push_str("\n\tSuperClasses:");
        for &s in &rc.super_classes {
            o.push(' ');
            o.push_str(&bank.class(s).name);
        }
        o.push('\n');
    }
    for (i, idx) in bank.sub_reg_indices.iter().enumerate() {
        let _ = writeln!(o, "SubRegIndex {}:", idx.name);
        let _ = writeln!(o, "\tLaneMask: {}", lanes.index_masks[i].to_hex(words));
        let _ = writeln!(
            o,
            "\tAllSuperRegsCovered: {}",
            idx.all_super_regs_covered as u8
        );
    }
}

/// The dump of one register, of the bank `lines` was made for.
fn write_register(o: &mut String, lines: &SubRegLines, reg: &RegLines) {
    o.push_str("Register ");
    o.push_str(reg.name);
    o.push_str(":\n\tCostPerUse: ");
    for c in reg.cost_per_use {
        let _ = write!(o, "{c} ");
    }
    let _ = writeln!(o, "\n\tCoveredBySubregs: {}", reg.covered as u8);
    let _ = writeln!(o, "\tHasDisjunctSubRegs: {}", reg.disjunct as u8);
    for &(i, s) in reg.sub_regs {
        o.push_str(&lines.index[i as usize]);
        o.push_str(&lines.reg[s as usize]);
    }
}
