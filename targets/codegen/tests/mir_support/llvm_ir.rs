//! The LLVM IR equivalent of a machine function over the generic
//! instruction set (`InstrSet::generic`, plus `Sem::Nop` clobbers): the
//! reference an allocated program is checked against (run by
//! `regdesc_codegen::interp`, and by `lli-14`), and what `llc` compiles in
//! the allocation benchmark. The random programs of `gen.rs` are
//! translated by [`to_llvm_ir`] right after they are read, so every
//! program has its IR twin.
//!
//! The translation stays inside the subset `regdesc_codegen::ir` reads
//! (integer arithmetic, `icmp`, `select`, casts, `phi`, `br`, stores):
//!
//! - Signature: `define void @f(ptr addrspace(1) %out, i128 %a0, ...)`,
//!   one `i128` per `ARG n` (an `ARG` of a narrower class truncates it, as
//!   the machine interpreter does). `RET v0, v1, ...` stores `vk` at
//!   `%out + 16*k` (as its own type, zero above it) and returns.
//! - A virtual register `%N` of a W-bit class is `%vN`, of type `iW`; the
//!   subset has no `i96`, so a 96-bit triple is an `i128` whose top 32
//!   bits are kept zero (masked after `add`/`sub`/`mul`; a signed compare
//!   shifts both sides up first). Shifts take the amount modulo W, as
//!   the machine interpreter does (`and` with W-1 first, so the IR is
//!   poison-free); shifts on such padded widths are not translated (the
//!   generator does not make them).
//! - `%N.idx` is `lshr` by the index's offset and `trunc` to its width;
//!   `REG_SEQUENCE` is `zext`, `shl` and `or`; a `PHI` operand's part is
//!   taken at the end of the predecessor, before its branch.
//! - A compare's 0/1 is `zext` of the `icmp` to the def's type; `SELECT`
//!   and `BRCOND` test "not zero" with `icmp ne`.
//! - A physical register read (`COPY $V1`, the generator's live-in) is 0:
//!   the machine interpreter starts with every register zero. Only reads
//!   in the entry block before any clobber are translated.

use std::fmt::Write as _;

use regdesc_codegen::interp::{self, GlobalMemory, Launch};
use regdesc_codegen::mir::interp::Bits;
use regdesc_codegen::mir::widths::{class_width, index_width};
use regdesc_codegen::mir::{InstrSet, MFunction, MInst, Operand, RegOperand, RegRef, Sem};
use regdesc_codegen::value::Value;
use regdesc_runtime::RegisterInfo;

/// A translated function.
#[derive(Clone, Debug)]
pub struct IrFunction {
    /// The module text (one function, `@f`).
    pub text: String,
    /// `i128` arguments after `%out`.
    pub n_args: usize,
    /// 16-byte result slots at `%out`.
    pub n_results: usize,
}

impl IrFunction {
    /// Bytes of memory `%out` needs.
    pub fn memory_size(&self) -> usize {
        (16 * self.n_results).max(16)
    }

    /// The launch that runs it on `args` with `%out` at address 0.
    pub fn launch(&self, args: &[u128]) -> Launch {
        let mut vals = vec![Value::Ptr(0)];
        vals.extend(
            (0..self.n_args).map(|k| Value::int(128, args.get(k).copied().unwrap_or(0) as i128)),
        );
        Launch::single(vals)
    }
}

/// The results `regdesc_codegen::interp` computes for `ir` on `args`
/// (each slot as an unsigned number).
pub fn run_ir(ir: &IrFunction, args: &[u128]) -> Result<Vec<u128>, String> {
    let m = regdesc_codegen::read_module("generated.ll", &ir.text)
        .map_err(|e| format!("the IR does not read: {}\n{}", e.render(false), ir.text))?;
    let f = m.function("f").ok_or("no @f")?;
    let mut mem = GlobalMemory::new(ir.memory_size());
    interp::run(f, &ir.launch(args), &mut mem)
        .map_err(|e| format!("IR interpreter: {e}\n{}", ir.text))?;
    Ok(mem
        .bytes()
        .chunks(16)
        .take(ir.n_results)
        .map(|c| {
            let mut b = [0u8; 16];
            b[..c.len()].copy_from_slice(c);
            u128::from_le_bytes(b)
        })
        .collect())
}

/// Compares the machine interpreter's results with the IR's.
pub fn same_results(mir: &[Bits], ir: &[u128]) -> Result<(), String> {
    let mir: Vec<u128> = mir.iter().map(Bits::to_u128).collect();
    if mir == ir {
        Ok(())
    } else {
        let show = |v: &[u128]| {
            v.iter()
                .map(|x| format!("{x:#x}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        Err(format!(
            "machine IR results [{}], LLVM IR results [{}]",
            show(&mir),
            show(ir)
        ))
    }
}

/// The IR type of a W-bit value: the smallest integer type of the subset
/// that holds it.
fn ir_width(w: u32) -> Result<u32, String> {
    [8, 16, 32, 64, 128, 256]
        .into_iter()
        .find(|&t| t >= w)
        .ok_or_else(|| format!("no IR type holds {w} bits"))
}

fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// `v` (already within `t` bits) as a constant of `i{t}`, in signed
/// decimal as LLVM prints it.
fn konst(t: u32, v: u128) -> String {
    if t >= 128 {
        return (v as i128).to_string();
    }
    let v = v & mask(t);
    if (v >> (t - 1)) & 1 == 1 {
        (v as i128 - (1i128 << t)).to_string()
    } else {
        v.to_string()
    }
}

#[derive(Default)]
struct BlockText {
    phis: Vec<String>,
    body: Vec<String>,
    /// Parts taken for successors' PHIs, before the terminator.
    tail: Vec<String>,
    term: Vec<String>,
}

struct Tr<'a, R: RegisterInfo> {
    f: &'a MFunction,
    ri: &'a R,
    instrs: &'a InstrSet,
    tmp: usize,
    n_args: usize,
    n_results: usize,
    /// Whether a physical register may still be read as zero.
    phys_zero: bool,
}

/// A value in the IR: its text and its width in bits (not the IR type's).
struct Val {
    text: String,
    width: u32,
}

/// Translates `f` (SSA, with PHIs, before any lowering).
pub fn to_llvm_ir<R: RegisterInfo>(
    f: &MFunction,
    ri: &R,
    instrs: &InstrSet,
) -> Result<IrFunction, String> {
    let mut tr = Tr {
        f,
        ri,
        instrs,
        tmp: 0,
        n_args: 0,
        n_results: 0,
        phys_zero: true,
    };
    let mut blocks: Vec<BlockText> = (0..f.blocks.len()).map(|_| BlockText::default()).collect();
    for (b, block) in f.blocks.iter().enumerate() {
        if b > 0 {
            tr.phys_zero = false;
        }
        for i in &block.insts {
            let d = instrs.get(i.opcode).ok_or("unknown opcode")?;
            match d.sem {
                Sem::Phi => {}
                _ if d.is_terminator => {
                    let mut out = Vec::new();
                    tr.terminator(i, d.sem, &mut out)?;
                    blocks[b].term = out;
                }
                sem => {
                    let mut out = Vec::new();
                    tr.inst(i, sem, &mut out)?;
                    blocks[b].body.extend(out);
                    let clobbers = i.reg_ops().any(|(_, r)| r.is_def() && r.phys().is_some());
                    if clobbers {
                        tr.phys_zero = false;
                    }
                }
            }
        }
    }
    // PHIs, once every block's body is known: the parts they read are
    // taken in the predecessors.
    for (b, block) in f.blocks.iter().enumerate() {
        for i in &block.insts {
            if instrs.get(i.opcode).map(|d| d.sem) != Some(Sem::Phi) {
                continue;
            }
            let (v, w) = tr.def(i)?;
            let t = ir_width(w)?;
            let mut incoming = Vec::new();
            for pair in i.ops[1..].chunks(2) {
                let [Operand::Reg(r), Operand::Block(p)] = pair else {
                    return Err("malformed PHI".into());
                };
                let mut out = Vec::new();
                let x = tr.read(r, &mut out)?;
                if x.width != w {
                    return Err(format!("PHI of {w} bits reads {} bits", x.width));
                }
                blocks
                    .get_mut(p.index())
                    .ok_or("PHI names no block")?
                    .tail
                    .extend(out);
                incoming.push(format!("[ {}, %bb{} ]", x.text, p.0));
            }
            blocks[b]
                .phis
                .push(format!("{v} = phi i{t} {}", incoming.join(", ")));
        }
    }
    let params: Vec<String> = std::iter::once("ptr addrspace(1) %out".to_string())
        .chain((0..tr.n_args).map(|k| format!("i128 %a{k}")))
        .collect();
    let mut text = format!("define void @f({}) {{\n", params.join(", "));
    for (b, bt) in blocks.iter().enumerate() {
        let _ = writeln!(text, "bb{b}:");
        for l in bt
            .phis
            .iter()
            .chain(&bt.body)
            .chain(&bt.tail)
            .chain(&bt.term)
        {
            let _ = writeln!(text, "  {l}");
        }
    }
    text.push_str("}\n");
    Ok(IrFunction {
        text,
        n_args: tr.n_args,
        n_results: tr.n_results,
    })
}

impl<R: RegisterInfo> Tr<'_, R> {
    fn fresh(&mut self) -> String {
        self.tmp += 1;
        format!("%t{}", self.tmp)
    }

    fn reg_op(i: &MInst, k: usize) -> Result<&RegOperand, String> {
        i.ops
            .get(k)
            .and_then(Operand::reg)
            .ok_or_else(|| format!("operand {k} is not a register"))
    }

    /// The def's IR name and width.
    fn def(&self, i: &MInst) -> Result<(String, u32), String> {
        let d = Self::reg_op(i, 0)?;
        let RegRef::Virt(v) = d.reg else {
            return Err("a def of a physical register".into());
        };
        if d.sub.is_some() {
            return Err("a sub-register def (the input is SSA)".into());
        }
        let c = self.f.class_of(v).ok_or("a def without class")?;
        let w = class_width(self.ri, c).ok_or("class width unknown")?;
        Ok((format!("%v{}", v.0), w))
    }

    /// Reads an operand, emitting what extracts a part.
    fn read(&mut self, r: &RegOperand, out: &mut Vec<String>) -> Result<Val, String> {
        let v = match r.reg {
            RegRef::Phys(p) => {
                if !self.phys_zero {
                    return Err("a physical register read after the entry's first clobber".into());
                }
                let w = regdesc_codegen::mir::widths::phys_width(self.ri, p)
                    .ok_or("register width unknown")?;
                return Ok(Val {
                    text: "0".into(),
                    width: w,
                });
            }
            RegRef::Virt(v) => v,
        };
        let c = self.f.class_of(v).ok_or("a read without class")?;
        let w = class_width(self.ri, c).ok_or("class width unknown")?;
        let whole = format!("%v{}", v.0);
        let Some(idx) = r.sub else {
            return Ok(Val {
                text: whole,
                width: w,
            });
        };
        let t = self.ri.tables();
        let off = u32::from(t.sub_reg_index_offset(idx).ok_or("index offset unknown")?);
        let sw = index_width(self.ri, idx).ok_or("index width unknown")?;
        let (tw, ts) = (ir_width(w)?, ir_width(sw)?);
        let mut x = whole;
        if off > 0 {
            let s = self.fresh();
            out.push(format!("{s} = lshr i{tw} {x}, {off}"));
            x = s;
        }
        if ts < tw {
            let s = self.fresh();
            out.push(format!("{s} = trunc i{tw} {x} to i{ts}"));
            x = s;
        }
        if sw < ts {
            let s = self.fresh();
            out.push(format!("{s} = and i{ts} {x}, {}", konst(ts, mask(sw))));
            x = s;
        }
        Ok(Val { text: x, width: sw })
    }

    /// `name = expr` on a W-bit value, masked when W is narrower than its
    /// IR type and `expr` may carry above it.
    fn define(&mut self, name: &str, w: u32, expr: String, carries: bool, out: &mut Vec<String>) {
        let t = ir_width(w).unwrap_or(w);
        if carries && w < t {
            let s = self.fresh();
            out.push(format!("{s} = {expr}"));
            out.push(format!("{name} = and i{t} {s}, {}", konst(t, mask(w))));
        } else {
            out.push(format!("{name} = {expr}"));
        }
    }

    /// "`c` is not zero", as an `i1`.
    fn nonzero(&mut self, c: &Val, out: &mut Vec<String>) -> Result<String, String> {
        let s = self.fresh();
        out.push(format!(
            "{s} = icmp ne i{} {}, 0",
            ir_width(c.width)?,
            c.text
        ));
        Ok(s)
    }

    fn inst(&mut self, i: &MInst, sem: Sem, out: &mut Vec<String>) -> Result<(), String> {
        use regdesc_codegen::mir::instr::{BinOp, IntPredicate};
        match sem {
            Sem::Nop => return Ok(()),
            Sem::Copy => {
                let (v, w) = self.def(i)?;
                let x = self.read(Self::reg_op(i, 1)?, out)?;
                if x.width != w {
                    return Err(format!("COPY of {} bits to {w}", x.width));
                }
                out.push(format!("{v} = add i{} {}, 0", ir_width(w)?, x.text));
            }
            Sem::ImplicitDef => {
                let (v, w) = self.def(i)?;
                out.push(format!("{v} = add i{} 0, 0", ir_width(w)?));
            }
            Sem::Arg => {
                let (v, w) = self.def(i)?;
                let n = match i.ops.get(1) {
                    Some(Operand::Imm(n)) => usize::try_from(*n).map_err(|_| "bad ARG")?,
                    _ => return Err("ARG without a number".into()),
                };
                self.n_args = self.n_args.max(n + 1);
                let t = ir_width(w)?;
                let expr = if t < 128 {
                    format!("trunc i128 %a{n} to i{t}")
                } else {
                    format!("add i128 %a{n}, 0")
                };
                self.define(&v, w, expr, true, out);
            }
            Sem::MovImm => {
                let (v, w) = self.def(i)?;
                let imm = match i.ops.get(1) {
                    Some(Operand::Imm(x)) => *x as u128 & mask(w),
                    _ => return Err("MOVI without an immediate".into()),
                };
                let t = ir_width(w)?;
                out.push(format!("{v} = add i{t} {}, 0", konst(t, imm)));
            }
            Sem::Binary(op) => {
                let (v, w) = self.def(i)?;
                let a = self.read(Self::reg_op(i, 1)?, out)?;
                let b = self.read(Self::reg_op(i, 2)?, out)?;
                if a.width != w || b.width != w {
                    return Err(format!(
                        "{w}-bit arithmetic on {} and {} bits",
                        a.width, b.width
                    ));
                }
                let t = ir_width(w)?;
                let (name, carries) = match op {
                    BinOp::Add => ("add", true),
                    BinOp::Sub => ("sub", true),
                    BinOp::Mul => ("mul", true),
                    BinOp::And => ("and", false),
                    BinOp::Or => ("or", false),
                    BinOp::Xor => ("xor", false),
                    BinOp::Shl => ("shl", false),
                    BinOp::LShr => ("lshr", false),
                    BinOp::AShr => ("ashr", false),
                };
                let shift = matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr);
                let b_text = if shift {
                    if t != w {
                        return Err(format!("a shift on {w} bits (kept in i{t})"));
                    }
                    let s = self.fresh();
                    out.push(format!("{s} = and i{t} {}, {}", b.text, t - 1));
                    s
                } else {
                    b.text
                };
                self.define(
                    &v,
                    w,
                    format!("{name} i{t} {}, {b_text}", a.text),
                    carries,
                    out,
                );
            }
            Sem::Compare(op) => {
                let (v, w) = self.def(i)?;
                let mut a = self.read(Self::reg_op(i, 1)?, out)?;
                let mut b = self.read(Self::reg_op(i, 2)?, out)?;
                if a.width != b.width {
                    return Err("a compare of different widths".into());
                }
                let ta = ir_width(a.width)?;
                let pred = op.name();
                let signed = matches!(
                    op,
                    IntPredicate::Sgt | IntPredicate::Sge | IntPredicate::Slt | IntPredicate::Sle
                );
                if signed && a.width < ta {
                    // The sign bit to the top of the IR type.
                    for x in [&mut a, &mut b] {
                        let s = self.fresh();
                        out.push(format!("{s} = shl i{ta} {}, {}", x.text, ta - x.width));
                        x.text = s;
                    }
                }
                let c = self.fresh();
                out.push(format!("{c} = icmp {pred} i{ta} {}, {}", a.text, b.text));
                out.push(format!("{v} = zext i1 {c} to i{}", ir_width(w)?));
            }
            Sem::Select => {
                let (v, w) = self.def(i)?;
                let c = self.read(Self::reg_op(i, 1)?, out)?;
                let a = self.read(Self::reg_op(i, 2)?, out)?;
                let b = self.read(Self::reg_op(i, 3)?, out)?;
                if a.width != w || b.width != w {
                    return Err("a SELECT of other widths than its def".into());
                }
                let cc = self.nonzero(&c, out)?;
                let t = ir_width(w)?;
                out.push(format!(
                    "{v} = select i1 {cc}, i{t} {}, i{t} {}",
                    a.text, b.text
                ));
            }
            Sem::RegSequence => {
                let (v, w) = self.def(i)?;
                let t = ir_width(w)?;
                let mut acc = "0".to_string();
                for pair in i.ops[1..].chunks(2) {
                    let [Operand::Reg(r), Operand::SubIdx(idx)] = pair else {
                        return Err("malformed REG_SEQUENCE".into());
                    };
                    if r.undef() {
                        continue;
                    }
                    let x = self.read(r, out)?;
                    let off = self
                        .ri
                        .tables()
                        .sub_reg_index_offset(*idx)
                        .ok_or("index offset unknown")?;
                    let tx = ir_width(x.width)?;
                    let mut part = x.text;
                    if tx < t {
                        let s = self.fresh();
                        out.push(format!("{s} = zext i{tx} {part} to i{t}"));
                        part = s;
                    }
                    if off > 0 {
                        let s = self.fresh();
                        out.push(format!("{s} = shl i{t} {part}, {off}"));
                        part = s;
                    }
                    let s = self.fresh();
                    out.push(format!("{s} = or i{t} {acc}, {part}"));
                    acc = s;
                }
                out.push(format!("{v} = add i{t} {acc}, 0"));
            }
            other => return Err(format!("{other:?} is not translated")),
        }
        Ok(())
    }

    fn terminator(&mut self, i: &MInst, sem: Sem, out: &mut Vec<String>) -> Result<(), String> {
        let block = |k: usize| match i.ops.get(k) {
            Some(Operand::Block(b)) => Ok(format!("%bb{}", b.0)),
            _ => Err(format!("operand {k} is not a block")),
        };
        match sem {
            Sem::Branch => out.push(format!("br label {}", block(0)?)),
            Sem::CondBranch => {
                let c = self.read(Self::reg_op(i, 0)?, out)?;
                let cc = self.nonzero(&c, out)?;
                out.push(format!(
                    "br i1 {cc}, label {}, label {}",
                    block(1)?,
                    block(2)?
                ));
            }
            Sem::Return => {
                let mut k = 0usize;
                for o in &i.ops {
                    let Operand::Reg(r) = o else { continue };
                    if r.implicit() || r.is_def() {
                        continue;
                    }
                    let x = self.read(r, out)?;
                    let p = self.fresh();
                    out.push(format!(
                        "{p} = getelementptr i8, ptr addrspace(1) %out, i64 {}",
                        16 * k
                    ));
                    out.push(format!(
                        "store i{} {}, ptr addrspace(1) {p}",
                        ir_width(x.width)?,
                        x.text
                    ));
                    k += 1;
                }
                self.n_results = self.n_results.max(k);
                out.push("ret void".into());
            }
            other => return Err(format!("terminator {other:?} is not translated")),
        }
        Ok(())
    }
}
