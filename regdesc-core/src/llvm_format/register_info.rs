//! `llvm-tblgen -gen-register-info -register-info-debug`: the register
//! bank and its lane masks, in LLVM's order and format.
//!
//! The dump of a large bank runs to tens of megabytes, most of it the
//! registers' sub-register lines: the second half of the registers is
//! printed on another thread while this one prints the rest.

use std::fmt::Write;

use crate::lanes::Lanes;
use crate::regs::RegBank;

/// Prints the bank exactly as `llvm-tblgen -gen-register-info
/// -register-info-debug` does (for masks of ≤64 lanes; wider masks print
/// with more hex digits).
pub fn debug_dump(bank: &RegBank, lanes: &Lanes) -> String {
    // Size the buffers up front: growing a string of tens of megabytes costs
    // more than writing it.
    let reg_bytes = |r: &crate::regs::Register| r.sub_regs.len() * 32 + r.name.len() + 80;
    let subregs: usize = bank.registers.iter().map(reg_bytes).sum();
    // Where the registers split into two halves of about the same size.
    let mut mid = bank.registers.len();
    let mut acc = 0;
    for (i, r) in bank.registers.iter().enumerate() {
        acc += reg_bytes(r);
        if acc * 2 >= subregs {
            mid = i + 1;
            break;
        }
    }
    let (first, second) = bank.registers.split_at(mid);
    std::thread::scope(|s| {
        let rest = s.spawn(|| {
            let mut o = String::with_capacity(second.iter().map(reg_bytes).sum());
            write_registers(&mut o, bank, second);
            o
        });
        let mut o = head(bank, lanes, subregs);
        write_registers(&mut o, bank, first);
        match rest.join() {
            Ok(rest) => o.push_str(&rest),
            // Not expected (formatting does not panic); print it here.
            Err(_) => write_registers(&mut o, bank, second),
        }
        o
    })
}

/// The classes and indices, in a buffer sized for the whole dump.
fn head(bank: &RegBank, lanes: &Lanes, subregs: usize) -> String {
    let classes: usize = bank
        .classes
        .iter()
        .map(|c| c.members.len() * 12 + bank.classes.len() * 24 + 256)
        .sum();
    let mut o = String::with_capacity(subregs + classes + bank.sub_reg_indices.len() * 96);
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
    o
}

/// The dump of `regs`, registers of `bank`.
fn write_registers(o: &mut String, bank: &RegBank, regs: &[crate::regs::Register]) {
    for reg in regs {
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
            o.push_str("\tSubReg ");
            o.push_str(&bank.idx(i).name);
            o.push_str(" = ");
            o.push_str(&bank.reg(s).name);
            o.push('\n');
        }
    }
}
