//! The machine-IR printer: the text form [`crate::mir::parse`] reads back
//! (the two round-trip), with the register description's names.
//!
//! A virtual register's class is printed on its defs (and on its first
//! use when it has no def), as LLVM's MIR printer does.

use std::fmt::Write as _;

use regdesc_runtime::{LaneBits, RegisterInfo, Tables};

use crate::mir::{InstrSet, MFunction, MInst, Operand, RegOperand, RegRef};

/// The function as text.
pub fn print_function<R: RegisterInfo>(f: &MFunction, ri: &R, instrs: &InstrSet) -> String {
    let tables = ri.tables();
    let mut has_def = vec![false; f.vregs.len()];
    for b in &f.blocks {
        for i in &b.insts {
            for (_, r) in i.reg_ops() {
                if let (true, Some(v)) = (r.is_def(), r.vreg()) {
                    if let Some(h) = has_def.get_mut(v.index()) {
                        *h = true;
                    }
                }
            }
        }
    }
    let mut annotated = has_def.clone();
    let mut out = String::new();
    let _ = writeln!(out, "function @{} {{", f.name);
    for (k, o) in f.frame.iter().enumerate() {
        let _ = writeln!(out, "  %stack.{k}: size {}, align {}", o.size, o.align);
    }
    for (bi, b) in f.blocks.iter().enumerate() {
        let _ = writeln!(out, "bb.{bi}:");
        for i in &b.insts {
            out.push_str("  ");
            print_inst_into(&mut out, f, i, tables, instrs, &mut |v, is_def| {
                if is_def {
                    return true;
                }
                match annotated.get_mut(v) {
                    Some(a) if !*a => {
                        *a = true;
                        true
                    }
                    _ => false,
                }
            });
            out.push('\n');
        }
    }
    out.push_str("}\n");
    out
}

/// One instruction as text, every def with its class.
pub fn print_inst<R: RegisterInfo>(f: &MFunction, i: &MInst, ri: &R, instrs: &InstrSet) -> String {
    let tables = ri.tables();
    let mut out = String::new();
    print_inst_into(&mut out, f, i, tables, instrs, &mut |_, is_def| is_def);
    out
}

fn print_inst_into<L: LaneBits>(
    out: &mut String,
    f: &MFunction,
    i: &MInst,
    tables: &Tables<L>,
    instrs: &InstrSet,
    with_class: &mut dyn FnMut(usize, bool) -> bool,
) {
    let num_defs = i
        .ops
        .iter()
        .take_while(|o| o.reg().is_some_and(|r| r.is_def() && !r.implicit()))
        .count();
    for (k, o) in i.ops[..num_defs].iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        operand(out, f, o, tables, with_class);
    }
    if num_defs > 0 {
        out.push_str(" = ");
    }
    out.push_str(instrs.name(i.opcode));
    for (k, o) in i.ops[num_defs..].iter().enumerate() {
        out.push_str(if k == 0 { " " } else { ", " });
        operand(out, f, o, tables, with_class);
    }
}

fn operand<L: LaneBits>(
    out: &mut String,
    f: &MFunction,
    o: &Operand,
    tables: &Tables<L>,
    with_class: &mut dyn FnMut(usize, bool) -> bool,
) {
    match o {
        Operand::Reg(r) => reg_operand(out, f, r, tables, with_class),
        Operand::Imm(v) => {
            let _ = write!(out, "{v}");
        }
        Operand::Block(b) => {
            let _ = write!(out, "%bb.{}", b.0);
        }
        Operand::Frame(s) => {
            let _ = write!(out, "%stack.{}", s.0);
        }
        Operand::SubIdx(s) => {
            let _ = write!(out, "%subreg.{}", tables.sub_reg_index_name(*s));
        }
    }
}

fn reg_operand<L: LaneBits>(
    out: &mut String,
    f: &MFunction,
    r: &RegOperand,
    tables: &Tables<L>,
    with_class: &mut dyn FnMut(usize, bool) -> bool,
) {
    if r.implicit() {
        out.push_str(if r.is_def() {
            "implicit-def "
        } else {
            "implicit "
        });
    }
    if r.early_clobber() {
        out.push_str("early-clobber ");
    }
    if r.undef() {
        out.push_str("undef ");
    }
    if r.dead() {
        out.push_str("dead ");
    }
    if r.kill() {
        out.push_str("killed ");
    }
    match r.reg {
        RegRef::Virt(v) => {
            let _ = write!(out, "%{}", v.0);
            if let Some(s) = r.sub {
                let _ = write!(out, ".{}", tables.sub_reg_index_name(s));
            }
            if with_class(v.index(), r.is_def()) {
                if let Some(c) = f.class_of(v) {
                    let _ = write!(out, ":{}", tables.class_name(c));
                }
            }
        }
        RegRef::Phys(p) => {
            let _ = write!(out, "${}", tables.name(p));
        }
    }
    if let Some(t) = r.tied_def() {
        let _ = write!(out, "(tied-def {t})");
    }
}
