//! Copies after register allocation, as GCN moves.
//!
//! The hardware facts served: a VGPR is written per lane by
//! `v_mov_b32` (from a VGPR or an SGPR); an SGPR (pair) is written by
//! `s_mov_b32`/`s_mov_b64`; a VGPR value that is the same in every lane
//! reaches an SGPR through `v_readfirstlane_b32`. Tuples move one dword
//! at a time, in the order that does not overwrite a source dword before
//! it is read when the two tuples overlap.

use regdesc_codegen::mir::widths::phys_width;
use regdesc_codegen::mir::{MFunction, MInst, Operand, RegOperand, RegRef, Sem};
use regdesc_codegen::target::TargetError;
use regdesc_runtime::{Reg, RegisterInfo};

use crate::isa::Isa;
use crate::semantics::is_vgpr;
use crate::Gfx;

fn phys(i: &MInst, k: usize) -> Option<Reg> {
    i.ops
        .get(k)
        .and_then(Operand::reg)
        .and_then(RegOperand::phys)
}

/// The dwords of `r` (itself when it is 32 bits wide or narrower).
fn dwords(ri: &Gfx, r: Reg) -> Vec<Reg> {
    let t = ri.tables();
    let n = phys_width(ri, r).unwrap_or(32).div_ceil(32);
    if n <= 1 {
        return vec![r];
    }
    (0..n)
        .filter_map(|k| {
            let i = t.sub_reg_index_by_name(&format!("sub{k}"))?;
            t.sub_reg(r, i)
        })
        .collect()
}

fn mov(isa: &Isa, name: &str, d: Reg, s: Reg) -> MInst {
    MInst::new(
        isa.op(name),
        vec![
            Operand::Reg(RegOperand::def_of(RegRef::Phys(d), None)),
            Operand::Reg(RegOperand::use_of(RegRef::Phys(s), None)),
        ],
    )
}

/// Rewrites every `COPY` of `f` (allocated) into moves.
pub fn lower_copies(f: &mut MFunction, isa: &Isa, ri: &Gfx) -> Result<(), TargetError> {
    let name = f.name.clone();
    for b in f.blocks.iter_mut() {
        let old = std::mem::take(&mut b.insts);
        for i in old {
            if isa.instrs.desc(i.opcode).sem != Sem::Copy {
                b.insts.push(i);
                continue;
            }
            let (Some(d), Some(s)) = (phys(&i, 0), phys(&i, 1)) else {
                return Err(TargetError::Unsupported {
                    what: format!("@{name}: a copy of an unallocated register"),
                    span: None,
                });
            };
            if d == s {
                continue;
            }
            let (dv, sv) = (is_vgpr(d), is_vgpr(s));
            if !dv && !sv && phys_width(ri, d) == Some(64) && phys_width(ri, s) == Some(64) {
                b.insts.push(mov(isa, "S_MOV_B64", d, s));
                continue;
            }
            if dv
                && ri.has_packed_move()
                && phys_width(ri, d) == Some(64)
                && phys_width(ri, s) == Some(64)
            {
                // Both pairs are even-aligned on gfx90a (SGPR pairs always).
                b.insts.push(mov(isa, "V_PK_MOV_B32", d, s));
                continue;
            }
            let (dw, sw) = (dwords(ri, d), dwords(ri, s));
            let mut pairs: Vec<(Reg, Reg)> = dw.into_iter().zip(sw).collect();
            let t = ri.tables();
            if let (Some(&(d0, _)), Some(&(_, s0))) = (pairs.first(), pairs.first()) {
                if t.hw_encoding(d0) > t.hw_encoding(s0) {
                    pairs.reverse();
                }
            }
            for (d, s) in pairs {
                let op = match (dv, sv) {
                    (true, _) => "V_MOV_B32_e32",
                    (false, false) => "S_MOV_B32",
                    (false, true) => "V_READFIRSTLANE_B32",
                };
                b.insts.push(mov(isa, op, d, s));
            }
        }
    }
    Ok(())
}
