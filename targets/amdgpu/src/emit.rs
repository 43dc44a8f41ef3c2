//! Assembly text, as `llc -mtriple=amdgcn-amd-amdhsa` writes it and
//! `llvm-mc` reads it.
//!
//! The facts served: registers print by their assembler names (`v7`,
//! `s[4:5]`, `v[2:3]`, `vcc`, `exec_lo`); a conditional branch jumps or
//! falls through, so a two-way branch is `s_cbranch_* T` then
//! `s_branch F` unless `F` comes next; a callable function starts by
//! waiting for the caller's memory operations
//! (`s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)`) and returns with
//! `s_setpc_b64 s[30:31]`. The VGPR and SGPR counts are those the
//! allocation used, in llc's `; NumVgprs:` comment form.

use std::fmt::Write;

use regdesc_codegen::ir::Function;
use regdesc_codegen::mir::{MBlockId, MFunction, MInst, Operand, RegRef, Sem};
use regdesc_codegen::target::{Target, TargetError};
use regdesc_runtime::{Reg, RegisterInfo};

use crate::isa::Kind;
use crate::sdwa::SdwaOp;
use crate::{Amdgpu, Gfx};

fn unsupported(f: &MFunction, what: String) -> TargetError {
    TargetError::Unsupported {
        what: format!("@{}: {what}", f.name),
        span: None,
    }
}

/// The symbol-safe form of a function name, for labels.
fn label_base(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Registers named by the code: (highest VGPR + 1, highest SGPR + 1).
/// Implicit operands do not count (the interpreter's kernarg stand-ins).
pub fn register_counts(t: &Amdgpu, f: &MFunction) -> (u32, u32) {
    let tables = t.regs().tables();
    let (mut v, mut s) = (0u32, 0u32);
    for b in &f.blocks {
        for i in &b.insts {
            for (_, r) in i.reg_ops() {
                let RegRef::Phys(p) = r.reg else { continue };
                if r.implicit() {
                    continue;
                }
                for q in tables.sub_regs_inclusive(p) {
                    let n = tables.name(q);
                    if let Some(k) = n.strip_prefix("VGPR").and_then(|x| x.parse::<u32>().ok()) {
                        v = v.max(k + 1);
                    } else if let Some(k) =
                        n.strip_prefix("SGPR").and_then(|x| x.parse::<u32>().ok())
                    {
                        s = s.max(k + 1);
                    }
                }
            }
        }
    }
    (v, s)
}

struct Emitter<'a> {
    t: &'a Amdgpu,
    f: &'a MFunction,
    base: String,
    out: String,
    kernel: bool,
}

impl Emitter<'_> {
    fn label(&self, b: MBlockId) -> String {
        format!(".L{}_BB{}", self.base, b.0)
    }

    fn reg(&self, r: Reg) -> &'static str {
        self.t.regs().tables().asm_name(r)
    }

    fn operand(&self, o: &Operand) -> Result<String, TargetError> {
        Ok(match o {
            Operand::Reg(r) => match r.reg {
                RegRef::Phys(p) => self.reg(p).to_string(),
                RegRef::Virt(v) => {
                    return Err(unsupported(
                        self.f,
                        format!("virtual register %{} left", v.0),
                    ))
                }
            },
            Operand::Imm(x) if crate::isa::is_inline_int(*x) => x.to_string(),
            Operand::Imm(x) => format!("0x{:x}", *x as u32),
            Operand::Block(b) => self.label(*b),
            Operand::Frame(_) | Operand::SubIdx(_) => {
                return Err(unsupported(
                    self.f,
                    "a stack slot or sub-register operand left".into(),
                ))
            }
        })
    }

    /// An SDWA instruction: its operands, then its selectors by name.
    fn sdwa(&self, op: SdwaOp, i: &MInst) -> Result<String, TargetError> {
        let bad = || {
            unsupported(
                self.f,
                format!("malformed SDWA operands of `{}`", op.mir_name()),
            )
        };
        let fields = crate::sdwa::fields(op, i).ok_or_else(bad)?;
        let regs = i
            .ops
            .get(..=op.num_srcs())
            .ok_or_else(bad)?
            .iter()
            .map(|o| self.operand(o))
            .collect::<Result<Vec<_>, _>>()?;
        crate::sdwa::asm(op, self.t.gfx, &regs, &fields).ok_or_else(bad)
    }

    fn line(&mut self, s: &str) {
        let _ = writeln!(self.out, "\t{s}");
    }

    /// `s_branch` to `to` unless it is the block after `here`.
    fn jump(&mut self, here: MBlockId, to: MBlockId) {
        if to.0 != here.0 + 1 {
            let l = self.label(to);
            self.line(&format!("s_branch {l}"));
        }
    }

    fn block(&mut self, b: MBlockId) -> Result<(), TargetError> {
        let f = self.f;
        let instrs = self.t.instrs();
        for i in &f.blocks[b].insts {
            let d = instrs.desc(i.opcode);
            match d.sem {
                Sem::Target(_) => {
                    let Some(def) = self.t.isa().def(i.opcode) else {
                        return Err(unsupported(f, format!("no assembly for `{}`", d.name)));
                    };
                    if let Kind::Sdwa(op) = def.kind {
                        let text = self.sdwa(op, i)?;
                        self.line(&text);
                        continue;
                    }
                    // The id already where the hardware put it: no move.
                    let home = match def.kind {
                        Kind::WorkitemId => Some("v0"),
                        Kind::WorkgroupId => Some("s6"),
                        _ => None,
                    };
                    if let (Some(home), Some(o)) = (home, i.ops.first()) {
                        if self.operand(o)? == home {
                            continue;
                        }
                    }
                    let mut text = def.asm.clone();
                    for k in (0..i.ops.len()).rev() {
                        let pat = format!("{{{k}}}");
                        if text.contains(&pat) {
                            let o = match (&i.ops[k], def.kind) {
                                // The dword holding the argument.
                                (Operand::Imm(x), Kind::KernargLoad) => Operand::Imm(x & !3),
                                (o, _) => o.clone(),
                            };
                            text = text.replace(&pat, &self.operand(&o)?);
                        }
                    }
                    self.line(&text);
                    if d.is_terminator {
                        if let Some(Operand::Block(e)) = i.ops.get(1) {
                            self.jump(b, *e);
                        }
                    }
                }
                Sem::Branch => {
                    if let Some(Operand::Block(t)) = i.ops.first() {
                        self.jump(b, *t);
                    }
                }
                Sem::Return if self.kernel => self.line("s_endpgm"),
                Sem::Return => self.line("s_setpc_b64 s[30:31]"),
                Sem::ImplicitDef | Sem::Nop => {
                    let what = match i.ops.first() {
                        Some(o) => self.operand(o)?,
                        None => String::new(),
                    };
                    self.line(&format!("; implicit-def: {what}"));
                }
                Sem::StackStore | Sem::StackLoad => {
                    return Err(unsupported(
                        f,
                        "register spilling (scratch memory is not lowered yet)".into(),
                    ))
                }
                _ => return Err(unsupported(f, format!("`{}` left after selection", d.name))),
            }
        }
        Ok(())
    }
}

/// The assembly of `f` (allocated, copies lowered), compiled from `ir`.
pub fn emit(t: &Amdgpu, f: &MFunction, ir: &Function) -> Result<String, TargetError> {
    let name = &ir.name;
    let mut e = Emitter {
        t,
        f,
        base: label_base(name),
        out: String::new(),
        kernel: ir.cconv.is_kernel(),
    };
    let align = if e.kernel { 8 } else { 2 };
    let _ = writeln!(
        e.out,
        "\t.text\n\t.globl\t{name}\n\t.p2align\t{align}\n\t.type\t{name},@function"
    );
    let _ = writeln!(e.out, "{name}:");
    if !e.kernel {
        e.line("s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)");
    }
    for b in f.block_ids() {
        if b.0 != 0 {
            let l = e.label(b);
            let _ = writeln!(e.out, "{l}:");
        }
        e.block(b)?;
    }
    let (v, s) = register_counts(t, f);
    let end = format!(".L{}_end", e.base);
    let _ = writeln!(e.out, "{end}:\n\t.size\t{name}, {end}-{name}");
    let _ = writeln!(e.out, "\t; NumVgprs: {v}\n\t; NumSgprs: {s}");
    if e.kernel {
        let (_, size) = crate::abi::kernel_layout(ir)?;
        let size = crate::abi::kernarg_segment_size(size.into()) as u32;
        e.out.push_str(&kernel_descriptor(t, name, size, v, s));
    }
    Ok(e.out)
}

/// The `.amdhsa_kernel` descriptor: the kernarg segment's size, the user
/// SGPRs the code expects (private segment buffer in `s[0:3]`, kernarg
/// pointer in `s[4:5]`), the work-group id in `s6`, the work-item id in
/// `v0`, and the registers the allocation used (at least the preloaded
/// ones). gfx90a also needs the offset of its accumulation registers
/// (none used: all VGPRs, rounded to 4); gfx1030 runs wave32.
fn kernel_descriptor(t: &Amdgpu, name: &str, kernarg_size: u32, vgprs: u32, sgprs: u32) -> String {
    let v = vgprs.max(1);
    let s = sgprs.max(7);
    let mut d = String::new();
    let _ = writeln!(
        d,
        "\t.section\t.rodata,#alloc\n\t.p2align\t6\n\t.amdhsa_kernel {name}"
    );
    for (k, x) in [
        ("group_segment_fixed_size", 0),
        ("private_segment_fixed_size", 0),
        ("kernarg_size", kernarg_size),
        ("user_sgpr_count", 6),
        ("user_sgpr_private_segment_buffer", 1),
        ("user_sgpr_kernarg_segment_ptr", 1),
        ("system_sgpr_workgroup_id_x", 1),
        ("system_vgpr_workitem_id", 0),
        ("next_free_vgpr", v),
        ("next_free_sgpr", s),
    ] {
        let _ = writeln!(d, "\t\t.amdhsa_{k} {x}");
    }
    match t.gfx {
        Gfx::Gfx90a => {
            let _ = writeln!(d, "\t\t.amdhsa_accum_offset {}", v.div_ceil(4) * 4);
        }
        Gfx::Gfx1030 => {
            let _ = writeln!(d, "\t\t.amdhsa_wavefront_size32 1");
        }
        Gfx::Gfx900 => {}
    }
    let _ = writeln!(d, "\t.end_amdhsa_kernel\n\t.text");
    d
}
