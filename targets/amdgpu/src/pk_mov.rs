//! Uniform 64-bit halves into VGPR tuples as one `v_pk_mov_b32` (gfx90a).
//!
//! The hardware fact served: gfx90a's `v_pk_mov_b32 v[d:d+1], s[s:s+1],
//! s[s:s+1] op_sel:[0,1]` moves an aligned SGPR pair into a VGPR pair in
//! one VALU instruction, where gfx900 and gfx1030 need a `v_mov_b32` per
//! dword. A uniform value stored to memory (a SALU product, a kernel
//! argument) reaches the store's VGPR tuple through a `REG_SEQUENCE` of
//! per-dword `VGPR_32` copies of SGPRs; this pass builds each even/odd
//! pair of those dwords in an `SGPR_64` first (a `REG_SEQUENCE` that
//! coalescing folds into the SALU results' registers) and copies the pair
//! across whole, which [`crate::copies`] lowers to the packed move. Dwords
//! of one SGPR tuple (a kernel argument's) are copied as the tuple's own
//! aligned pair when they are one, with no new pair.

use regdesc_codegen::mir::{def, use_};
use regdesc_codegen::mir::{
    smallvec, InstrSet, MBlockId, MFunction, MInst, Operand, Operands, RegOperand, RegRef, Sem,
    VReg,
};
use regdesc_runtime::{RegisterInfo, SubRegIdx};

use crate::Gfx;

/// The SGPR source of `v` when `v` is a `VGPR_32` defined by a copy of a
/// 32-bit SGPR, with where that copy is; `None` otherwise.
struct SgprCopy {
    src: VReg,
    /// The block of the copy and of the SGPR's definition, when they are
    /// one: only a `REG_SEQUENCE` in that block may take the SGPR itself.
    /// An SGPR defined in a loop that lanes leave at different trips holds
    /// the last trip's value after it, and each lane needs its own
    /// (temporal divergence, which the control-flow lowering handles for
    /// the per-dword copies and not for a pair).
    block: Option<MBlockId>,
    /// The SGPR is itself a dword copied out of a wider SGPR tuple (a
    /// kernel argument): the tuple and that dword's index.
    part: Option<(VReg, SubRegIdx)>,
}

/// Runs the rewrite on `f` (in SSA form, after selection). Does nothing
/// where the CPU has no packed move.
pub fn run(f: &mut MFunction, instrs: &InstrSet, gfx: Gfx) {
    if !gfx.has_packed_move() {
        return;
    }
    let t = gfx.tables();
    let class = |n: &str| t.class_by_name(n);
    let (Some(sgpr32), Some(sgpr64), Some(vgpr32), Some(vreg64)) = (
        class("SGPR_32"),
        class("SGPR_64"),
        class("VGPR_32"),
        class("VReg_64"),
    ) else {
        return;
    };
    let (Some(sub0), Some(sub1)) = (
        t.sub_reg_index_by_name("sub0"),
        t.sub_reg_index_by_name("sub1"),
    ) else {
        return;
    };
    // Defining copy and number of uses of every virtual register.
    let n = f.vregs.len();
    let mut copy_of: Vec<Option<SgprCopy>> = (0..n).map(|_| None).collect();
    let mut uses = vec![0u32; n];
    // Registers a copy defines: an SGPR that is itself a copy (a dword of a
    // kernel-argument tuple) already sits in a pair, and building a new
    // pair from it would cost two `s_mov_b32`s to save one `v_mov_b32`.
    let mut copied = vec![false; n];
    // `%d:SGPR_32 = COPY %wide.subN`: the tuple (a kernel argument's, or
    // a 64-bit SALU result) and the index.
    let mut part_of: Vec<Option<(VReg, SubRegIdx)>> = vec![None; n];
    let mut def_block: Vec<Option<MBlockId>> = vec![None; n];
    for bi in f.blocks.ids() {
        for i in &f.blocks[bi].insts {
            for (_, r) in i.reg_ops() {
                if let (true, Some(v)) = (r.is_def(), r.vreg()) {
                    def_block[v.index()] = Some(bi);
                }
                if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                    uses[v.index()] += 1;
                }
            }
            if instrs.get(i.opcode).is_none_or(|d| d.sem != Sem::Copy) {
                continue;
            }
            let (Some(d), Some(s)) = (
                i.ops.first().and_then(Operand::reg),
                i.ops.get(1).and_then(Operand::reg),
            ) else {
                continue;
            };
            if let Some(v) = d.vreg() {
                copied[v.index()] = true;
                if let (None, Some(sv), Some(k)) = (d.sub, s.vreg(), s.sub) {
                    if f.class_of(v) == Some(sgpr32) {
                        part_of[v.index()] = Some((sv, k));
                    }
                }
            }
            let (Some(dv), Some(sv), None, None) = (d.vreg(), s.vreg(), d.sub, s.sub) else {
                continue;
            };
            if f.class_of(dv) == Some(vgpr32) && f.class_of(sv) == Some(sgpr32) {
                copy_of[dv.index()] = Some(SgprCopy {
                    src: sv,
                    block: Some(bi),
                    part: None,
                });
            }
        }
    }
    for c in copy_of.iter_mut() {
        if let Some(c) = c.as_mut() {
            c.part = part_of[c.src.index()];
        }
        if c.as_ref()
            .is_some_and(|c| copied[c.src.index()] && c.part.is_none())
        {
            *c = None;
        } else if let Some(c) = c {
            if def_block[c.src.index()] != c.block {
                c.block = None;
            }
        }
    }
    // The per-dword copies replaced, by the register they define.
    let mut dead = vec![false; n];
    let blocks: Vec<MBlockId> = f.blocks.ids().collect();
    for bi in blocks {
        let mut k = 0;
        while k < f.blocks[bi].insts.len() {
            let i = &f.blocks[bi].insts[k];
            if instrs
                .get(i.opcode)
                .is_none_or(|d| d.sem != Sem::RegSequence)
            {
                k += 1;
                continue;
            }
            let Some(pairs) = pairs_of(i, bi, t, &copy_of, &uses) else {
                k += 1;
                continue;
            };
            // A tuple that is one pair is a copy of it.
            let whole = pairs.len() == 1;
            let mut new_ops: Operands = smallvec![i.ops[0].clone()];
            let mut before: Vec<MInst> = Vec::new();
            for p in pairs {
                match p {
                    Piece::Keep(a, b) => new_ops.extend([a, b]),
                    Piece::Part {
                        wide,
                        from,
                        idx,
                        copies,
                    } => {
                        // The tuple's own pair (the register itself when it
                        // is one pair: a 64-bit SALU result, `crate::shift64`),
                        // copied across whole.
                        let from = (f.class_of(wide) != Some(sgpr64)).then_some(from);
                        let src = Operand::Reg(RegOperand::use_of(RegRef::Virt(wide), from));
                        let vp = f.new_vreg(vreg64);
                        before.push(MInst::new(instrs.copy, smallvec![def(vp), src]));
                        if whole {
                            new_ops.push(use_(vp));
                        } else {
                            new_ops.extend([use_(vp), Operand::SubIdx(idx)]);
                        }
                        for v in copies {
                            dead[v.index()] = true;
                        }
                    }
                    Piece::Pair {
                        lo,
                        hi,
                        idx,
                        copies,
                    } => {
                        let sp = f.new_vreg(sgpr64);
                        before.push(MInst::new(
                            instrs.reg_sequence,
                            smallvec![
                                def(sp),
                                use_(lo),
                                Operand::SubIdx(sub0),
                                use_(hi),
                                Operand::SubIdx(sub1),
                            ],
                        ));
                        if whole {
                            new_ops.push(use_(sp));
                        } else {
                            let vp = f.new_vreg(vreg64);
                            before.push(MInst::new(instrs.copy, smallvec![def(vp), use_(sp)]));
                            new_ops.extend([use_(vp), Operand::SubIdx(idx)]);
                        }
                        for v in copies {
                            dead[v.index()] = true;
                        }
                    }
                }
            }
            let at = &mut f.blocks[bi].insts[k];
            at.ops = new_ops;
            if whole {
                at.opcode = instrs.copy;
            }
            let m = before.len();
            f.blocks[bi].insts.splice(k..k, before);
            k += m + 1;
        }
    }
    // The per-dword copies, now unused.
    for b in f.blocks.iter_mut() {
        b.insts.retain(|i| {
            instrs.get(i.opcode).is_none_or(|d| d.sem != Sem::Copy)
                || !i
                    .ops
                    .first()
                    .and_then(Operand::vreg)
                    .is_some_and(|v| dead.get(v.index()).copied().unwrap_or(false))
        });
    }
}

enum Piece {
    /// A source operand and its index, as they were.
    Keep(Operand, Operand),
    /// Two dwords that are an aligned pair `from` of one SGPR tuple `wide`
    /// (a kernel argument's), copied as that pair (`idx`: its index in the
    /// tuple built); `copies` are the per-dword copies it replaces.
    Part {
        wide: VReg,
        from: SubRegIdx,
        idx: SubRegIdx,
        copies: [VReg; 2],
    },
    /// Two SGPR dwords built as a pair (`idx`: the pair's index in the
    /// tuple); `copies` are the per-dword copies it replaces.
    Pair {
        lo: VReg,
        hi: VReg,
        idx: SubRegIdx,
        copies: [VReg; 2],
    },
}

/// The `REG_SEQUENCE` `i`'s sources grouped into pieces, when at least one
/// even/odd pair of dwords are single-use copies of SGPRs.
fn pairs_of<L: regdesc_runtime::LaneBits>(
    i: &MInst,
    block: MBlockId,
    t: &regdesc_runtime::Tables<L>,
    copy_of: &[Option<SgprCopy>],
    uses: &[u32],
) -> Option<Vec<Piece>> {
    let name = |o: &Operand| match o {
        Operand::SubIdx(s) => Some(t.sub_reg_index_name(*s).to_string()),
        _ => None,
    };
    let srcs: Vec<(&Operand, &Operand)> = i.ops[1..]
        .chunks(2)
        .filter_map(|c| Some((c.first()?, c.get(1)?)))
        .collect();
    let mut out = Vec::new();
    let mut any = false;
    let mut k = 0;
    while k < srcs.len() {
        let (a, ai) = srcs[k];
        if let Some(&(b, bi)) = srcs.get(k + 1) {
            let (na, nb) = (name(ai), name(bi));
            let dword = |n: &Option<String>| {
                n.as_deref()
                    .and_then(|s| s.strip_prefix("sub")?.parse::<u32>().ok())
            };
            let single = |o: &Operand| {
                o.vreg().and_then(|v| {
                    let c = copy_of.get(v.index())?.as_ref()?;
                    (uses[v.index()] == 1 && c.block == Some(block)).then_some(c)
                })
            };
            if let (Some(x), Some(y), Some(ca), Some(cb)) =
                (dword(&na), dword(&nb), single(a), single(b))
            {
                let pair_name = format!("sub{x}_sub{y}");
                let idx = t.sub_reg_index_by_name(&pair_name);
                let (pa, pb) = (ca.part, cb.part);
                // Dwords of a tuple go as its own aligned pair, or not at
                // all (a new pair of them costs two `s_mov_b32`).
                let from = match (pa, pb) {
                    (Some((wa, ka)), Some((wb, kb))) if wa == wb => {
                        let (ka, kb) = (t.sub_reg_index_name(ka), t.sub_reg_index_name(kb));
                        let lo = ka.strip_prefix("sub").and_then(|s| s.parse::<u32>().ok());
                        let hi = kb.strip_prefix("sub").and_then(|s| s.parse::<u32>().ok());
                        match (lo, hi) {
                            (Some(lo), Some(hi)) if lo % 2 == 0 && hi == lo + 1 => t
                                .sub_reg_index_by_name(&format!("sub{lo}_sub{hi}"))
                                .map(|k| Some((wa, k))),
                            _ => None,
                        }
                    }
                    (None, None) => Some(None),
                    _ => None,
                };
                if let (true, true, Some(idx), Some(Some((wide, from)))) =
                    (x % 2 == 0, y == x + 1, idx, from)
                {
                    out.push(Piece::Part {
                        wide,
                        from,
                        idx,
                        copies: [a.vreg()?, b.vreg()?],
                    });
                    any = true;
                    k += 2;
                    continue;
                }
                if let (true, true, Some(idx), Some(None)) = (x % 2 == 0, y == x + 1, idx, from) {
                    out.push(Piece::Pair {
                        lo: ca.src,
                        hi: cb.src,
                        idx,
                        copies: [a.vreg()?, b.vreg()?],
                    });
                    any = true;
                    k += 2;
                    continue;
                }
            }
        }
        out.push(Piece::Keep(a.clone(), ai.clone()));
        k += 1;
    }
    any.then_some(out)
}
