//! Wide vector memory accesses after selection: consecutive dword loads
//! and stores of one address joined into `global_load_dwordx2/x3/x4` and
//! `global_store_dwordx2/x3/x4` (the hardware fact served: one vector
//! memory instruction moves up to four consecutive dwords per lane, into
//! or out of a VGPR tuple), in the `saddr` form where the address is an
//! SGPR pair plus a VGPR offset.

use regdesc_codegen::mir::{MFunction, MInst, Operand, RegOperand, RegRef, VReg};
use regdesc_runtime::SubRegIdx;

use super::{def, use_};
use crate::isa::{Isa, Kind};

/// Whether `i` writes global memory (no load moves across it).
fn is_store(isa: &Isa, i: &MInst) -> bool {
    matches!(
        isa.def(i.opcode).map(|d| d.kind),
        Some(
            Kind::GlobalStore(_)
                | Kind::GlobalStoreWide(_)
                | Kind::GlobalStoreSaddr(_)
                | Kind::GlobalStoreSaddrNarrow(_)
        )
    )
}

/// `VReg_64`/`VReg_96`/`VReg_128`: the tuple of `n` (2 to 4) dwords one
/// vector memory instruction reads or writes (none for one dword).
fn tuple_class(n: usize) -> Option<regdesc_runtime::RegClass> {
    use regdesc_runtime::RegisterInfo;
    (2..=4)
        .contains(&n)
        .then(|| {
            crate::Gfx::Gfx900
                .tables()
                .class_by_name(&format!("VReg_{}", 32 * n))
        })
        .flatten()
}

/// Loads of consecutive dwords from one address as one
/// `global_load_dwordx4`/`x3`/`x2` into a VGPR tuple and sub-register copies
/// out of it (which coalescing removes), as llc loads an `i128`. The
/// hardware fact served: one vector memory instruction reads up to four
/// consecutive dwords per lane. Only loads with no store between them are
/// joined, at the place of the first one (their address registers are
/// the same, so defined there).
pub(super) fn widen_loads(f: &mut MFunction, isa: &Isa) {
    use regdesc_runtime::RegisterInfo;
    let t = crate::Gfx::Gfx900.tables();
    let sub = |k: usize| t.sub_reg_index_by_name(&format!("sub{k}"));
    let (plain, saddr) = (
        isa.op("GLOBAL_LOAD_DWORD"),
        isa.op("GLOBAL_LOAD_DWORD_SADDR"),
    );
    // (the address operands, the offset) of a dword load.
    let key = |i: &MInst| -> Option<(Vec<Operand>, i64)> {
        let n = if i.opcode == plain {
            2
        } else if i.opcode == saddr {
            3
        } else {
            return None;
        };
        match i.ops.get(n) {
            Some(Operand::Imm(off)) => Some((i.ops[1..n].to_vec(), *off)),
            _ => None,
        }
    };
    let blocks: Vec<_> = f.block_ids().collect();
    for blk in blocks {
        let mut k = 0;
        while k < f.blocks[blk].insts.len() {
            let insts = &f.blocks[blk].insts;
            let Some((addr, off)) = key(&insts[k]) else {
                k += 1;
                continue;
            };
            let mut group = vec![k];
            let mut m = k + 1;
            while m < insts.len() && group.len() < 4 && !is_store(isa, &insts[m]) {
                if let Some((a, o)) = key(&insts[m]) {
                    if a == addr
                        && o == off + 4 * group.len() as i64
                        && insts[m].opcode == insts[k].opcode
                    {
                        group.push(m);
                    }
                }
                m += 1;
            }
            let n = group.len();
            let defs: Vec<Option<VReg>> = group[..n]
                .iter()
                .map(|&g| insts[g].ops.first().and_then(Operand::vreg))
                .collect();
            let (Some(rc), true) = (tuple_class(n), defs.iter().all(Option::is_some)) else {
                k += 1;
                continue;
            };
            let is_saddr = insts[k].opcode == saddr;
            let tuple = f.new_vreg(rc);
            let mut ops = vec![def(tuple)];
            ops.extend(addr);
            ops.push(Operand::Imm(off));
            let name = format!(
                "GLOBAL_LOAD_DWORDX{n}{}",
                if is_saddr { "_SADDR" } else { "" }
            );
            let mut new = vec![MInst::new(isa.op(&name), ops)];
            for (m, d) in defs.iter().enumerate() {
                let (Some(d), Some(s)) = (d, sub(m)) else {
                    continue;
                };
                new.push(MInst::new(
                    isa.instrs.copy,
                    vec![
                        def(*d),
                        Operand::Reg(RegOperand::use_of(RegRef::Virt(tuple), Some(s))),
                    ],
                ));
            }
            let insts = &mut f.blocks[blk].insts;
            for &g in group[1..n].iter().rev() {
                insts.remove(g);
            }
            let added = new.len();
            insts.splice(k..=k, new);
            k += added;
        }
    }
}

/// Stores of consecutive dwords to one address as one
/// `global_store_dwordx4`/`x3`/`x2` of a VGPR tuple (built by `REG_SEQUENCE`,
/// whose copies coalescing removes), as llc stores an `i128`. The hardware
/// fact served: one vector memory instruction writes up to four
/// consecutive dwords per lane. Only stores with no other memory
/// instruction between them are joined (the order of memory accesses is
/// kept), at the place of the last one, where every stored value is
/// defined.
pub(super) fn widen_stores(f: &mut MFunction, isa: &Isa) {
    use regdesc_runtime::RegisterInfo;
    let t = crate::Gfx::Gfx900.tables();
    let store = isa.op("GLOBAL_STORE_DWORD");
    let saddr = isa.op("GLOBAL_STORE_DWORD_SADDR");
    let sub = |k: usize| t.sub_reg_index_by_name(&format!("sub{k}"));
    let is_mem = |i: &MInst| {
        is_store(isa, i)
            || matches!(
                isa.def(i.opcode).map(|d| d.kind),
                Some(
                    Kind::GlobalLoad(_)
                        | Kind::GlobalLoadWide(_)
                        | Kind::GlobalLoadSaddr(_)
                        | Kind::GlobalLoadSaddrNarrow(_)
                        | Kind::ScalarLoad(_)
                )
            )
    };
    // (opcode, address operands, offset) of a dword store: `addr, data,
    // off` or (saddr) `voff, data, spair, off`.
    let key = |i: &MInst| -> Option<(Vec<Operand>, i64)> {
        let (a, o) = if i.opcode == store {
            (vec![i.ops.first()?.clone()], i.ops.get(2)?)
        } else if i.opcode == saddr {
            (
                vec![i.ops.first()?.clone(), i.ops.get(2)?.clone()],
                i.ops.get(3)?,
            )
        } else {
            return None;
        };
        match o {
            Operand::Imm(x) => Some((a, *x)),
            _ => None,
        }
    };
    let blocks: Vec<_> = f.block_ids().collect();
    for blk in blocks {
        let mut k = 0;
        while k < f.blocks[blk].insts.len() {
            let insts = &f.blocks[blk].insts;
            let i = &insts[k];
            let (Some(addr), Some((akey, off))) = (i.ops.first().and_then(Operand::vreg), key(i))
            else {
                k += 1;
                continue;
            };
            let is_saddr = i.opcode == saddr;
            // The following memory instructions: stores to addr at off + 4m.
            let mut group = vec![k];
            let mut m = k + 1;
            while m < insts.len() && group.len() < 4 {
                let j = &insts[m];
                if is_mem(j) {
                    let next = j.opcode == i.opcode
                        && key(j) == Some((akey.clone(), off + 4 * group.len() as i64));
                    if !next {
                        break;
                    }
                    group.push(m);
                }
                m += 1;
            }
            let n = group.len();
            let data: Vec<Option<VReg>> = group
                .iter()
                .map(|&g| insts[g].ops.get(1).and_then(Operand::vreg))
                .collect();
            let (Some(tuple_rc), true) = (tuple_class(n), data.iter().all(Option::is_some)) else {
                k += 1;
                continue;
            };
            let tuple = f.new_vreg(tuple_rc);
            let mut seq = vec![def(tuple)];
            for (m, d) in data.iter().enumerate() {
                let (Some(d), Some(s)) = (d, sub(m)) else {
                    continue;
                };
                seq.push(use_(*d));
                seq.push(Operand::SubIdx(s));
            }
            let last = *group.last().unwrap_or(&k);
            // The saddr form only where the pointer is a pair of a wide
            // kernarg load (a REG_SEQUENCE of two SGPRs led the allocator
            // to run out of scalar registers in two i256 kernels).
            let uniform = match (sub(0), sub(1)) {
                _ if is_saddr => None,
                (Some(s0), Some(s1)) => uniform_address(f, isa, blk, addr)
                    .filter(|u| u.4.is_some())
                    .map(|u| (u, s0, s1)),
                _ => None,
            };
            let insts = &mut f.blocks[blk].insts;
            let mut before = vec![MInst::new(isa.instrs.reg_sequence, seq)];
            let wide = match uniform {
                // The saddr form: an SGPR pair and a zero VGPR offset
                // (one move where the VGPR address needs two).
                Some(((slo, shi, sp, zero, whole), s0, s1)) => {
                    before.push(match whole {
                        // Both halves are one pair of a wider kernarg
                        // tuple: a sub-register copy, which coalesces.
                        Some((tuple, pair)) => MInst::new(
                            isa.instrs.copy,
                            vec![
                                def(sp),
                                Operand::Reg(RegOperand::use_of(RegRef::Virt(tuple), pair)),
                            ],
                        ),
                        None => MInst::new(
                            isa.instrs.reg_sequence,
                            vec![
                                def(sp),
                                use_(slo),
                                Operand::SubIdx(s0),
                                use_(shi),
                                Operand::SubIdx(s1),
                            ],
                        ),
                    });
                    before.push(MInst::new(
                        isa.op("V_MOV_B32_imm"),
                        vec![def(zero), Operand::Imm(0)],
                    ));
                    MInst::new(
                        isa.op(&format!("GLOBAL_STORE_DWORDX{n}_SADDR")),
                        vec![use_(zero), use_(tuple), use_(sp), Operand::Imm(off)],
                    )
                }
                None if is_saddr => {
                    let mut ops = akey.clone();
                    ops.insert(1, use_(tuple));
                    ops.push(Operand::Imm(off));
                    MInst::new(isa.op(&format!("GLOBAL_STORE_DWORDX{n}_SADDR")), ops)
                }
                None => MInst::new(
                    isa.op(&format!("GLOBAL_STORE_DWORDX{n}")),
                    vec![use_(addr), use_(tuple), Operand::Imm(off)],
                ),
            };
            insts[last] = wide;
            for (q, i) in before.into_iter().enumerate() {
                insts.insert(last + q, i);
            }
            for &g in group[..n - 1].iter().rev() {
                insts.remove(g);
            }
            k += 1;
        }
    }
}

/// The SGPR halves of a uniform address, new registers for its SGPR pair
/// and a zero offset, and the kernarg tuple pair it is, if it is one.
type UniformAddress = (VReg, VReg, VReg, VReg, Option<(VReg, Option<SubRegIdx>)>);

/// When the VGPR address pair `addr` is built (in block `blk`) from copies
/// of two SGPRs: those SGPRs and new registers for the SGPR pair and the
/// zero offset of a `saddr` store.
fn uniform_address(
    f: &mut MFunction,
    isa: &Isa,
    blk: regdesc_codegen::mir::MBlockId,
    addr: VReg,
) -> Option<UniformAddress> {
    use regdesc_runtime::RegisterInfo;
    let t = crate::Gfx::Gfx900.tables();
    let (sgpr, sgpr64, vgpr) = (
        t.class_by_name("SGPR_32")?,
        t.class_by_name("SGPR_64")?,
        t.class_by_name("VGPR_32")?,
    );
    let insts = &f.blocks[blk].insts;
    let def_of = |v: VReg| {
        insts.iter().find(|i| {
            i.ops
                .first()
                .and_then(Operand::reg)
                .is_some_and(|r| r.is_def() && r.vreg() == Some(v))
        })
    };
    let seq = def_of(addr).filter(|i| i.opcode == isa.instrs.reg_sequence)?;
    let (lo, hi) = (seq.ops.get(1)?.vreg()?, seq.ops.get(3)?.vreg()?);
    let from_sgpr = |v: VReg| {
        let i = def_of(v).filter(|i| i.opcode == isa.instrs.copy)?;
        let s = i.ops.get(1)?.reg().filter(|r| r.sub.is_none())?.vreg()?;
        (f.class_of(s) == Some(sgpr)).then_some(s)
    };
    let (slo, shi) = (from_sgpr(lo)?, from_sgpr(hi)?);
    // `slo = COPY %t.subK`, `shi = COPY %t.subK+1` with K even: %t.subK_subK+1.
    let part = |v: VReg| {
        let i = def_of(v).filter(|i| i.opcode == isa.instrs.copy)?;
        let r = i.ops.get(1)?.reg()?;
        Some((r.vreg()?, t.sub_reg_index_name(r.sub?).to_string()))
    };
    let whole = match (part(slo), part(shi)) {
        (Some((a, sa)), Some((b, sb))) if a == b => {
            let k: usize = sa.strip_prefix("sub")?.parse().ok()?;
            // A pair load's tuple is the pair itself.
            if f.class_of(a) == Some(sgpr64) {
                return Some((slo, shi, f.new_vreg(sgpr64), f.new_vreg(vgpr), {
                    (k == 0 && sb == "sub1").then_some((a, None))
                }));
            }
            let name = format!("sub{k}_sub{}", k + 1);
            let idx = t.sub_reg_index_by_name(&name);
            match idx {
                Some(idx) if k.is_multiple_of(2) && sb == format!("sub{}", k + 1) => {
                    Some((a, Some(idx)))
                }
                _ => None,
            }
        }
        _ => None,
    };
    Some((slo, shi, f.new_vreg(sgpr64), f.new_vreg(vgpr), whole))
}

/// Scalar loads of consecutive dwords from one SGPR pair as one
/// `s_load_dwordx2/x4/x8/x16` into an SGPR tuple, and sub-register copies
/// out of it (which coalescing removes). The hardware fact served: one
/// scalar memory instruction reads up to sixteen consecutive dwords (there
/// is no three-dword form on gfx9). Loads between two stores of a block
/// are joined (none of them can be moved across a store), at the place
/// of the first of them, where the pair is already defined.
pub(super) fn widen_scalar_loads(f: &mut MFunction, isa: &Isa) {
    use regdesc_runtime::RegisterInfo;
    let t = crate::Gfx::Gfx900.tables();
    let sub = |k: usize| t.sub_reg_index_by_name(&format!("sub{k}"));
    let load = isa.op("S_LOAD_DWORD_GLOBAL");
    let blocks: Vec<_> = f.block_ids().collect();
    for blk in blocks {
        // (position, base, offset, def) of each scalar dword load, and
        // the segment (between stores) it lies in.
        let mut found: Vec<(usize, usize, VReg, i64, VReg)> = Vec::new();
        let mut segment = 0;
        for (k, i) in f.blocks[blk].insts.iter().enumerate() {
            if is_store(isa, i) {
                segment += 1;
            }
            if i.opcode != load {
                continue;
            }
            if let (Some(d), Some(b), Some(Operand::Imm(off))) = (
                i.ops.first().and_then(Operand::vreg),
                i.ops.get(1).and_then(Operand::vreg),
                i.ops.get(2),
            ) {
                found.push((segment, k, b, *off, d));
            }
        }
        if found.len() < 2 {
            continue;
        }
        // Runs of consecutive offsets of one base in one segment.
        found.sort_by_key(|&(s, k, b, off, _)| (s, b, off, k));
        let n_insts = f.blocks[blk].insts.len();
        // By position: the joined load and copies that go there, and
        // whether the load there went into one.
        let mut joined: Vec<Option<Vec<MInst>>> = vec![None; n_insts];
        let mut gone = vec![false; n_insts];
        let mut any = false;
        let mut i = 0;
        while i < found.len() {
            let (s, _, b, _, _) = found[i];
            let mut j = i + 1;
            while j < found.len()
                && found[j].0 == s
                && found[j].2 == b
                && found[j].3 <= found[j - 1].3 + 4
            {
                j += 1;
            }
            // found[i..j]: offsets off0.. with no gap (repeats allowed).
            let mut at = i;
            while at < j {
                let start = found[at].3;
                let span = ((found[j - 1].3 - start) / 4 + 1) as usize;
                let n = [16usize, 8, 4, 2, 1]
                    .into_iter()
                    .find(|&n| n <= span)
                    .unwrap_or(1);
                let end = (at..j)
                    .find(|&m| found[m].3 >= start + 4 * n as i64)
                    .unwrap_or(j);
                if n > 1 {
                    if let Some(rc) = t.class_by_name(&format!("SGPR_{}", 32 * n)) {
                        let tuple = f.new_vreg(rc);
                        let first = found[at..end]
                            .iter()
                            .map(|x| x.1)
                            .min()
                            .unwrap_or(found[at].1);
                        let mut new = vec![MInst::new(
                            isa.op(&format!("S_LOAD_DWORDX{n}_GLOBAL")),
                            vec![def(tuple), use_(b), Operand::Imm(start)],
                        )];
                        for &(_, k, _, off, d) in &found[at..end] {
                            let Some(s) = sub(((off - start) / 4) as usize) else {
                                continue;
                            };
                            new.push(MInst::new(
                                isa.instrs.copy,
                                vec![
                                    def(d),
                                    Operand::Reg(RegOperand::use_of(RegRef::Virt(tuple), Some(s))),
                                ],
                            ));
                            gone[k] = true;
                        }
                        joined[first] = Some(new);
                        any = true;
                    }
                }
                at = end;
            }
            i = j;
        }
        if !any {
            continue;
        }
        // Rebuild the block: each joined load at its first load's place.
        let old = std::mem::take(&mut f.blocks[blk].insts);
        let mut out = Vec::with_capacity(old.len());
        for (k, inst) in old.into_iter().enumerate() {
            if let Some(new) = joined[k].take() {
                out.extend(new);
            }
            if !gone[k] {
                out.push(inst);
            }
        }
        f.blocks[blk].insts = out;
    }
}
