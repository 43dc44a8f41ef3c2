//! Instruction selection: each generic opcode the legalizer leaves becomes
//! the Gen instruction (or short Gen sequence) that computes it.
//!
//! Hardware facts served (PRM Vol 2a, "Instructions"): Gen's integer ALU
//! works on dwords and words with any mix of per-channel and scalar
//! (`<0;1,0>`) sources; a 32-bit add or subtract leaves its carry or borrow
//! in the accumulator (`addc`/`subb` with `{AccWrEn}`); `mul` into `acc0`
//! followed by `mach` gives the high half of a 32x32 product (and leaves
//! the low half in `acc0`); `cmp` writes a flag and a mask, `sel` and
//! predication pick by a flag.
//!
//! Every selected instruction keeps the generic meaning
//! ([`Sem`]) of the opcode it replaces, so the machine interpreter runs
//! selected code with no Gen-specific semantics; the emitter
//! ([`crate::emit`]) expands each into the Gen instructions listed here,
//! and the simulator ([`crate::sim`]) runs those.
//!
//! | MIR opcode | Gen instructions (per SIMD8 chunk where `acc0` is used) |
//! |---|---|
//! | `mov` `mov.imm` | `mov` |
//! | `add` `sub` | `add` (`sub`: negated src1) |
//! | `mul` | Gen9: `mul :ud` (dword×dword); Gen11/Gen12LP: `mul acc0`, `mach null`, `mov acc0` per SIMD8 chunk, or `mul :ud×:uw` twice, `shl`, `add` where fewer (no dword×dword multiply on Gen11+) |
//! | `and` `or` `xor` `shl` `shr` `asr` | the same |
//! | `cmp.P` | `cmp (P)f0.0`, `and 1` |
//! | `sel` | `cmp (ne)f0.0`, `(f0.0) sel` |
//! | `addc` `subb` | `addc`/`subb {AccWrEn}`, `mov acc0` |
//! | `addc.cin` | flags (`add`, `cmp`, `add`, `cmp`, `add` of the masks) or `addc`, `mov acc0`, `addc`, `add acc0` (Gen9/Gen11), whichever is fewer ([`crate::emit`]'s carry lowering) |
//! | `subb.bin` | two `subb`, two `mov acc0`, `or` |
//! | `mach.u` `mach.s` | `mul acc0`, `mach` |
//! | `mad64` | after selection, `mul64` (`mul acc0`, `mach`, `mov acc0`) and a split add ([`crate::mul64`], [`crate::iadd64_split`]) |
//! | `zext` `sext` | `and`; `shl` + `asr` |
//! | `fadd.f` `fsub.f` `fmul.f` | `add`/`mul` on `:f` (`fsub`: negated src1) |
//! | `fadd.hf` ... | `mov :f` from each `:hf`, the `:f` operation, `mov <2>:hf`, `and 0xFFFF` (exact: f32 holds every f16 result before its one rounding) |
//! | `jmpi` `jmpi.cond` | uniform: `jmpi`, `(W) cmp` + `(W&f0.0) jmpi`; divergent: the per-lane block number (see [`crate::emit`]) |
//!
//! Defs of multi-instruction sequences are early-clobber: the emitter
//! writes them before the last source is read.

use regdesc_codegen::mir::instr::InstrDesc;
use regdesc_codegen::mir::instr::{BinOp, FloatFmt};
use regdesc_codegen::mir::{InstrSet, LimbOp, MFunction, Sem};
use regdesc_codegen::target::TargetError;

use crate::regs::classes;

pub mod memory;

/// The Gen name of a generic meaning, with whether it is a sequence
/// (its defs early-clobber) — `None`: not supported.
fn gen_name(sem: Sem) -> Option<(String, bool)> {
    let s = |n: &str, seq: bool| Some((n.to_string(), seq));
    match sem {
        Sem::MovImm => s("mov.imm", false),
        Sem::Binary(op) => match op {
            BinOp::Add => s("add", false),
            BinOp::Sub => s("sub", false),
            BinOp::Mul => s("mul", true),
            BinOp::And => s("and", false),
            BinOp::Or => s("or", false),
            BinOp::Xor => s("xor", false),
            BinOp::Shl => s("shl", false),
            BinOp::LShr => s("shr", false),
            BinOp::AShr => s("asr", false),
        },
        Sem::Compare(p) => s(&format!("cmp.{}", p.name()), true),
        Sem::Select => s("sel", true),
        Sem::Branch => s("jmpi", false),
        Sem::CondBranch => s("jmpi.cond", false),
        Sem::Return => s("ret", false),
        Sem::Limb(l) => match l {
            LimbOp::UAddO => s("addc", true),
            LimbOp::UAddE => s("addc.cin", true),
            LimbOp::USubO => s("subb", true),
            LimbOp::USubE => s("subb.bin", true),
            LimbOp::UMulH => s("mach.u", true),
            LimbOp::SMulH => s("mach.s", true),
            LimbOp::Mad64 => s("mad64", true),
            LimbOp::ZextInReg => s("zext", false),
            LimbOp::SextInReg => s("sext", true),
            LimbOp::Float(op, fmt) => s(
                &format!(
                    "{}.{}",
                    op.name(),
                    if fmt == FloatFmt::F16 { "hf" } else { "f" }
                ),
                true,
            ),
            _ => None,
        },
        _ => None,
    }
}

/// Adds the Gen opcodes to `s`: one per generic opcode with a Gen form.
pub fn add_instructions(s: &mut InstrSet) {
    let generic: Vec<InstrDesc> = (0..s.len())
        .filter_map(|k| s.get(regdesc_codegen::mir::Opcode(k as u16)).cloned())
        .collect();
    for d in generic {
        let Some((name, seq)) = gen_name(d.sem) else {
            continue;
        };
        if s.by_name(&name).is_some() {
            continue;
        }
        let mut n = InstrDesc::new(&name, d.num_defs, &d.operands, d.sem);
        n.variadic = d.variadic;
        if seq {
            for k in 0..d.num_defs {
                n = n.early_clobber(k);
            }
        }
        s.add(n);
    }
    memory::add_instructions(s);
}

/// What the back end cannot compile, by generic meaning.
fn unsupported(sem: Sem) -> &'static str {
    match sem {
        Sem::Limb(LimbOp::Load | LimbOp::Store) => {
            "global memory access (A64 stateless send messages are the next Intel issue)"
        }
        Sem::Limb(LimbOp::WorkitemId | LimbOp::WorkgroupId | LimbOp::WorkgroupSize) => {
            "work-item and work-group ids (the kernel payload ABI is the next Intel issue)"
        }
        _ => "this generic instruction",
    }
}

/// Selects Gen opcodes for every instruction of `f`, in place.
pub fn select(
    f: &mut MFunction,
    s: &InstrSet,
    lane_class: regdesc_runtime::RegClass,
    layout: Option<&crate::abi::KernelLayout>,
    simd: crate::target::Simd,
) -> Result<(), TargetError> {
    memory::select(f, s, layout, simd)?;
    let name = f.name.clone();
    let lane_of = |v: Option<regdesc_codegen::mir::VReg>| {
        v.and_then(|v| f.class_of(v))
            .is_some_and(|c| c == classes::SIMD8_LANE || c == classes::SIMD16_LANE)
    };
    let mut divergent = false;
    for block in &f.blocks {
        for i in &block.insts {
            if s.get(i.opcode).map(|d| d.sem) == Some(Sem::CondBranch)
                && lane_of(i.ops.first().and_then(|o| o.vreg()))
            {
                divergent = true;
            }
        }
    }
    if divergent {
        // Divergent control flow runs blocks for subsets of the lanes, in
        // an order of its own (crate::emit): a value shared by all lanes
        // could be overwritten while another subset still needs it, so
        // every value is kept per lane.
        for rc in f.vregs.iter_mut().flatten() {
            if *rc == classes::GRF_D {
                *rc = lane_class;
            }
        }
    }
    for (b, block) in f.blocks.iter_mut().enumerate() {
        for i in &mut block.insts {
            let Some(d) = s.get(i.opcode) else {
                continue;
            };
            match d.sem {
                Sem::Copy | Sem::Phi | Sem::RegSequence | Sem::ImplicitDef | Sem::Target(_) => {
                    continue
                }
                _ if d.name.starts_with("payload.") => continue,
                _ => {}
            }
            let Some(op) = gen_name(d.sem).and_then(|(n, _)| s.by_name(&n)) else {
                return Err(TargetError::Unsupported {
                    what: format!(
                        "@{name}, bb.{b}: `{}` ({}) has no Gen selection",
                        d.name,
                        unsupported(d.sem)
                    ),
                    span: i.text_span(),
                });
            };
            i.opcode = op;
            let clobber = s.desc(op).early_clobber.clone();
            for k in clobber {
                if let Some(r) = i.ops.get_mut(k).and_then(|o| o.reg_mut()) {
                    r.set_early_clobber(true);
                }
            }
        }
    }
    Ok(())
}
