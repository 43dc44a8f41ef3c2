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
    let mut o = String::with_capacity(CHUNK * 2);
    head(&mut o, bank, lanes);
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
        write_register(&mut o, &lines, reg);
    }
    out.write_all(o.as_bytes())
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

/// The dump of `reg`, a register of the bank `lines` was made for.
fn write_register(o: &mut String, lines: &SubRegLines, reg: &crate::regs::Register) {
    o.push_str("Register ");
    o.push_str(&reg.name);
    o.push_str(":\n\tCostPerUse: ");
    for c in &reg.cost_per_use {
        let _ = write!(o, "{c} ");
    }
    let _ = writeln!(o, "\n\tCoveredBySubregs: {}", reg.covered_by_sub_regs as u8);
    let _ = writeln!(
        o,
        "\tHasDisjunctSubRegs: {}",
        reg.has_disjunct_sub_regs as u8
    );
    for (&i, &s) in &reg.sub_regs {
        o.push_str(&lines.index[i as usize]);
        o.push_str(&lines.reg[s as usize]);
    }
}
