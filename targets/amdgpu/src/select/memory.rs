//! Memory and the kernel ABI in selection: kernarg loads, addresses and
//! their immediate offsets (the hardware facts in [`crate::abi`] and
//! [`crate::isa`]: `s_load_dword` reads aligned dwords of the kernarg
//! segment, `global_load`/`global_store` take a 64-bit VGPR address, or
//! (`saddr`) an SGPR pair plus a zero-extended 32-bit VGPR offset, and a
//! 12-bit immediate offset). Joining the accesses into wide ones is
//! [`super::widen`].

use std::collections::HashMap;

use regdesc_codegen::mir::instr::LimbOp;
use regdesc_codegen::mir::{smallvec, MFunction, MInst, Operand, RegOperand, RegRef, Sem, VReg};

use super::{def, use_, Sel};
use crate::abi::KernargWord;
use crate::isa::{Isa, Kind};

impl Sel<'_> {
    /// A 64-bit address in a VGPR pair, and an immediate offset: `p + K`
    /// with a small constant K is `p` and K (the instruction adds it).
    pub(super) fn address(&mut self, lo: VReg, hi: VReg) -> (VReg, i64) {
        let (lo, hi, off) = match self.offsets.get(&(lo, hi)) {
            Some(&(plo, phi, k)) => (plo, phi, k),
            None => (lo, hi, 0),
        };
        if let Some(a) = self.addresses.get(&(lo, hi)) {
            return (*a, off);
        }
        let key = (lo, hi);
        let (lo, hi) = (self.part_of_pair(lo), self.part_of_pair(hi));
        let a = self.vreg(self.cls.vreg64);
        self.addresses.insert(key, a);
        self.join_pair(a, lo, hi);
        (a, off)
    }

    /// A per-lane address in the `saddr` form: the 32-bit VGPR offset
    /// (`v_lshlrev_b32` of the work-item id, shared by every access at
    /// that index), the SGPR pair of the base and the immediate offset.
    pub(super) fn lane_address(&mut self, lo: VReg, hi: VReg) -> Option<(VReg, VReg, i64)> {
        let (lo, hi, off) = match self.offsets.get(&(lo, hi)) {
            Some(&(plo, phi, k)) => (plo, phi, k),
            None => (lo, hi, 0),
        };
        // A uniform address (both halves SGPRs) is the base with a zero
        // offset.
        let (shift, lo, hi) = match self.lanes.get(&(lo, hi)) {
            Some(l) => (Some(l.shift), l.lo, l.hi),
            None if self.is_sgpr(lo) && self.is_sgpr(hi) => (None, lo, hi),
            None => return None,
        };
        // In the prologue, next to the id: the id is dead after the last
        // shift and its register free (llc's order too).
        let voff = match self.voffs.get(&shift) {
            Some(v) => *v,
            None => {
                let v = self.vreg(self.cls.vgpr);
                let i = match shift {
                    Some(shift) => {
                        let id = self.hw_id("V_WORKITEM_ID_X", self.cls.vgpr);
                        MInst::new(
                            self.op("V_LSHLREV_B32_E64"),
                            vec![def(v), Operand::Imm(i64::from(shift)), use_(id)],
                        )
                    }
                    None => MInst::new(self.op("V_MOV_B32_imm"), vec![def(v), Operand::Imm(0)]),
                };
                self.prologue.push(i);
                self.voffs.insert(shift, v);
                v
            }
        };
        let sp = self.sgpr_pair(lo, hi)?;
        Some((voff, sp, off))
    }

    /// A uniform address `(lo, hi)` as an SGPR pair and an immediate
    /// offset (`p + K` is `p` and K), for a scalar memory load: `None`
    /// when it varies by lane. The hardware fact served: `s_load_dword`
    /// reads from an SGPR pair plus an unsigned byte offset (20 bits on
    /// gfx9).
    pub(super) fn uniform_address(&mut self, lo: VReg, hi: VReg) -> Option<(VReg, i64)> {
        let (lo, hi, off) = match self.offsets.get(&(lo, hi)) {
            Some(&(plo, phi, k)) => (plo, phi, k),
            None => (lo, hi, 0),
        };
        if self.lanes.contains_key(&(lo, hi))
            || !self.is_sgpr(lo)
            || !self.is_sgpr(hi)
            || !(0..1 << 20).contains(&off)
            || off % 4 != 0
        {
            return None;
        }
        Some((self.sgpr_pair(lo, hi)?, off))
    }

    /// The SGPR pair of `(lo, hi)`, joined once per block.
    fn sgpr_pair(&mut self, lo: VReg, hi: VReg) -> Option<VReg> {
        if let Some(p) = self.spairs.get(&(lo, hi)) {
            return Some(*p);
        }
        let rc = self.f.class_of(lo)?;
        let p = self.vreg(pair_class(rc)?);
        self.join_pair(p, lo, hi);
        self.spairs.insert((lo, hi), p);
        Some(p)
    }

    /// Kernel argument word `w` into `d`: `s_load_dword` from the kernarg
    /// segment (the aligned dword holding it), `s_bfe_u32` for a narrower
    /// argument, unless it starts the dword and no use reads the bits
    /// above it (an `i48`'s high word multiplied and stored as 16 bits).
    pub(super) fn kernarg(&mut self, d: VReg, w: KernargWord) {
        let demanded = self.demand.get(d.index()).copied().unwrap_or(32);
        let full = (w.bits >= 32 || demanded <= w.bits) && w.offset.is_multiple_of(4);
        let t = if full && self.is_sgpr(d) {
            d
        } else {
            self.vreg(self.cls.sgpr)
        };
        self.out.push(MInst::new(
            self.op("S_LOAD_DWORD"),
            vec![
                def(t),
                Operand::Reg(RegOperand::use_of(RegRef::Phys(self.cls.kernarg_ptr), None)),
                Operand::Imm(i64::from(w.offset)),
                Operand::Reg(RegOperand::use_of(RegRef::Phys(w.reg), None).implicit_()),
            ],
        ));
        let u = if full {
            t
        } else {
            let u = if self.is_sgpr(d) {
                d
            } else {
                self.vreg(self.cls.sgpr)
            };
            let field = (i64::from(w.bits.min(32)) << 16) | i64::from(8 * (w.offset % 4));
            self.emit(
                self.op("S_BFE_U32"),
                vec![def(u), use_(t), Operand::Imm(field)],
            );
            u
        };
        if u != d {
            self.emit(self.isa.instrs.copy, vec![def(d), use_(u)]);
        }
    }
}

/// Addresses of the form `p + K` (`lo, c = G_UADDO p.lo, K` and
/// `hi = G_UADDE p.hi, 0, c`) with K small enough for the memory
/// instructions' immediate offset (12 bits, unsigned here).
pub(super) fn address_offsets(
    f: &MFunction,
    isa: &Isa,
) -> HashMap<(VReg, VReg), (VReg, VReg, i64)> {
    let s = &isa.instrs;
    let mut consts: HashMap<VReg, i64> = HashMap::new();
    let mut lows: HashMap<VReg, (VReg, VReg, i64)> = HashMap::new();
    let mut out = HashMap::new();
    let v = |i: &MInst, k: usize| i.ops.get(k).and_then(Operand::vreg);
    for b in &f.blocks {
        for i in &b.insts {
            match s.desc(i.opcode).sem {
                Sem::MovImm => {
                    if let (Some(d), Some(Operand::Imm(x))) = (v(i, 0), i.ops.get(1)) {
                        consts.insert(d, *x);
                    }
                }
                Sem::Limb(LimbOp::UAddO) => {
                    if let (Some(d), Some(c), Some(a), Some(k)) =
                        (v(i, 0), v(i, 1), v(i, 2), v(i, 3))
                    {
                        if let Some(&x) = consts.get(&k).filter(|x| (0..2048).contains(*x)) {
                            lows.insert(c, (d, a, x));
                        }
                    }
                }
                Sem::Limb(LimbOp::UAddE) => {
                    if let (Some(h), Some(a), Some(z), Some(c)) =
                        (v(i, 0), v(i, 2), v(i, 3), v(i, 4))
                    {
                        if let (Some(&(lo, plo, k)), Some(0)) = (lows.get(&c), consts.get(&z)) {
                            // `(p + K1) + K2` (a field of an element, a
                            // dword of a wide access) is `p + (K1 + K2)`.
                            let inner = out.get(&(plo, a)).copied();
                            let entry = match inner {
                                Some((pplo, pphi, k1)) if (0..2048).contains(&(k1 + k)) => {
                                    (pplo, pphi, k1 + k)
                                }
                                _ => (plo, a, k),
                            };
                            out.insert((lo, h), entry);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// `SGPR_64` for a pair of `SGPR_32`s.
fn pair_class(rc: regdesc_runtime::RegClass) -> Option<regdesc_runtime::RegClass> {
    use regdesc_runtime::RegisterInfo;
    let t = crate::Gfx::Gfx900.tables();
    (t.class_by_name("SGPR_32")? == rc)
        .then(|| t.class_by_name("SGPR_64"))
        .flatten()
}

/// A per-lane address `base + id * 2^shift` (`id` the work-item id): the
/// shift and the uniform base's SGPR halves.
#[derive(Clone, Copy, Debug)]
pub(super) struct LaneAddress {
    pub shift: u32,
    pub lo: VReg,
    pub hi: VReg,
}

/// The largest work-item id plus one: a work-group has at most 1024
/// work-items (LLVM's `amdgpu-flat-work-group-size` default; the
/// `llvm.amdgcn.workitem.id.x` range).
const MAX_WORKITEMS: u64 = 1024;

/// Addresses `lo, hi = G_MAD64 id, 2^k, base.lo, base.hi` with `id` the
/// work-item id and the base uniform (SGPRs): `id * 2^k` fits in 32 bits
/// (ids are below [`MAX_WORKITEMS`]), so the address is the base plus a
/// zero-extended 32-bit offset, which the `saddr` form of
/// `global_load`/`global_store` adds itself (the hardware fact served:
/// address = `s[base:base+1]` + zext(`voff`) + the immediate offset).
pub(super) fn lane_addresses(
    f: &MFunction,
    isa: &Isa,
    sgpr: regdesc_runtime::RegClass,
) -> HashMap<(VReg, VReg), LaneAddress> {
    let mut consts: HashMap<VReg, i64> = HashMap::new();
    let mut ids: Vec<VReg> = Vec::new();
    let mut out = HashMap::new();
    let v = |i: &MInst, k: usize| i.ops.get(k).and_then(Operand::vreg);
    for b in &f.blocks {
        for i in &b.insts {
            match isa.instrs.desc(i.opcode).sem {
                Sem::MovImm => {
                    if let (Some(d), Some(Operand::Imm(x))) = (v(i, 0), i.ops.get(1)) {
                        consts.insert(d, *x);
                    }
                }
                Sem::Limb(LimbOp::WorkitemId) => ids.extend(v(i, 0)),
                Sem::Limb(LimbOp::Mad64) => {
                    let (Some(lo), Some(hi), Some(a), Some(b), Some(cl), Some(ch)) =
                        (v(i, 0), v(i, 1), v(i, 2), v(i, 3), v(i, 4), v(i, 5))
                    else {
                        continue;
                    };
                    let k = if ids.contains(&a) {
                        b
                    } else if ids.contains(&b) {
                        a
                    } else {
                        continue;
                    };
                    let Some(&k) = consts.get(&k) else { continue };
                    let fits = k > 0
                        && (k as u64).is_power_of_two()
                        && (MAX_WORKITEMS - 1)
                            .checked_mul(k as u64)
                            .is_some_and(|m| m <= u64::from(u32::MAX));
                    if fits && f.class_of(cl) == Some(sgpr) && f.class_of(ch) == Some(sgpr) {
                        out.insert(
                            (lo, hi),
                            LaneAddress {
                                shift: (k as u64).trailing_zeros(),
                                lo: cl,
                                hi: ch,
                            },
                        );
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// `p = REG_SEQUENCE %a, sub0, %b, sub1` of two SGPRs copied out of one
/// wide kernarg tuple (`%a = COPY %t.subK`, `%b = COPY %t.subK+1`, K even)
/// becomes `p = COPY %t.subK_subK+1`: no new pair for the allocator to
/// place (the scalar registers of a kernel with many argument words run
/// short otherwise).
pub(super) fn pairs_of_tuples(f: &mut MFunction, isa: &Isa) {
    use regdesc_runtime::RegisterInfo;
    let t = crate::Gfx::Gfx900.tables();
    let mut parts: HashMap<VReg, (VReg, String)> = HashMap::new();
    for b in &f.blocks {
        for i in &b.insts {
            if i.opcode != isa.instrs.copy {
                continue;
            }
            let (Some(d), Some(r)) = (
                i.ops.first().and_then(Operand::vreg),
                i.ops.get(1).and_then(Operand::reg),
            ) else {
                continue;
            };
            if let (Some(src), Some(sub)) = (r.vreg(), r.sub) {
                parts.insert(d, (src, t.sub_reg_index_name(sub).to_string()));
            }
        }
    }
    let (Some(sgpr64), Some(sgpr32)) = (t.class_by_name("SGPR_64"), t.class_by_name("SGPR_32"))
    else {
        return;
    };
    let classes: HashMap<VReg, regdesc_runtime::RegClass> = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .flat_map(|i| i.ops.iter().filter_map(Operand::vreg))
        .filter_map(|v| Some((v, f.class_of(v)?)))
        .collect();
    // Only SGPR pairs of SGPR tuples wider than a pair.
    let wide = |v: &VReg| {
        classes
            .get(v)
            .is_some_and(|&c| c != sgpr64 && c != sgpr32 && t.class_name(c).starts_with("SGPR_"))
    };
    for b in f.blocks.iter_mut() {
        for i in b.insts.iter_mut() {
            if i.opcode != isa.instrs.reg_sequence || i.ops.len() != 5 {
                continue;
            }
            let d = i.ops.first().and_then(Operand::vreg);
            if d.and_then(|d| classes.get(&d)) != Some(&sgpr64) {
                continue;
            }
            let (Some(a), Some(c)) = (i.ops[1].vreg(), i.ops[3].vreg()) else {
                continue;
            };
            let (Some((ta, sa)), Some((tc, sc))) = (parts.get(&a), parts.get(&c)) else {
                continue;
            };
            let Some(k) = sa.strip_prefix("sub").and_then(|x| x.parse::<usize>().ok()) else {
                continue;
            };
            if ta != tc || !k.is_multiple_of(2) || *sc != format!("sub{}", k + 1) {
                continue;
            }
            if classes.get(ta) == Some(&sgpr64) {
                // The pair load's tuple itself.
                i.ops = smallvec![i.ops[0].clone(), use_(*ta)];
                i.opcode = isa.instrs.copy;
                continue;
            }
            if !wide(ta) {
                continue;
            }
            let name = format!("sub{k}_sub{}", k + 1);
            let Some(idx) = t.sub_reg_index_by_name(&name) else {
                continue;
            };
            i.ops = smallvec![
                i.ops[0].clone(),
                Operand::Reg(RegOperand::use_of(RegRef::Virt(*ta), Some(idx))),
            ];
            i.opcode = isa.instrs.copy;
        }
    }
}

/// The loads of a kernel `f` (legalized, SSA) that no store can have
/// written first, by their defs: no store lies on any path from the entry
/// to them. LLVM marks these `amdgpu.noclobber`; a uniform one may then
/// read through the scalar cache (`s_load_dword`), which the kernel's own
/// vector stores do not update. Stores by other waves are races the
/// program may not rely on without synchronisation, as in LLVM.
pub(super) fn unclobbered_loads(f: &MFunction, isa: &Isa) -> std::collections::HashSet<VReg> {
    let cfg = regdesc_codegen::mir::cfg::MCfg::new(f);
    let sem = |i: &MInst| isa.instrs.desc(i.opcode).sem;
    let ids: Vec<_> = f.block_ids().collect();
    let stores: Vec<bool> = ids
        .iter()
        .map(|&b| {
            f.blocks[b]
                .insts
                .iter()
                .any(|i| sem(i) == Sem::Limb(LimbOp::Store))
        })
        .collect();
    // Whether a store may have run before the block starts: a monotone
    // forward problem (false to true), run to its fixed point.
    let mut dirty_in = vec![false; f.blocks.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &ids {
            let d = cfg
                .preds(b)
                .iter()
                .any(|&p| dirty_in[p.index()] || stores[p.index()]);
            if d && !dirty_in[b.index()] {
                dirty_in[b.index()] = true;
                changed = true;
            }
        }
    }
    let mut out = std::collections::HashSet::new();
    for &b in &ids {
        if dirty_in[b.index()] {
            continue;
        }
        for i in &f.blocks[b].insts {
            match sem(i) {
                Sem::Limb(LimbOp::Store) => break,
                Sem::Limb(LimbOp::Load) => out.extend(i.ops.first().and_then(Operand::vreg)),
                _ => {}
            }
        }
    }
    out
}

/// The fewest scalar loads covering `words` (sorted offsets), as llc
/// loads kernel arguments: a load may read dwords nothing uses (a dead
/// limb between two live ones) as long as it stays inside the argument
/// bytes or the segment's padding after them (below `end`). A wide load
/// starts at an 8-byte offset, so the 64-bit arguments (pointers) are
/// even pairs of its tuple, usable as an SGPR pair. Ties go to fewer
/// dwords loaded.
fn cover<T>(words: &[(i64, T, RegOperand)], end: i64) -> Vec<(usize, usize)> {
    let m = words.len();
    // best[i]: (loads, dwords, first load's size) covering words[i..].
    let mut best: Vec<(usize, usize, usize)> = vec![(0, 0, 0); m + 1];
    for i in (0..m).rev() {
        let start = words[i].0;
        best[i] = [1usize, 2, 4, 8, 16]
            .into_iter()
            .filter(|&n| n == 1 || (start % 8 == 0 && start + 4 * n as i64 <= end))
            .map(|n| {
                let j = (i..m)
                    .find(|&j| words[j].0 >= start + 4 * n as i64)
                    .unwrap_or(m);
                let (l, d, _) = best[j];
                (l + 1, d + if n > 1 { n } else { 0 }, n)
            })
            .min_by_key(|&(l, d, _)| (l, d))
            .unwrap_or((m, 0, 1));
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < m {
        let n = best[i].2;
        out.push((i, n));
        let start = words[i].0;
        i = (i..m)
            .find(|&j| words[j].0 >= start + 4 * n as i64)
            .unwrap_or(m);
    }
    out
}

/// Kernel arguments in as few scalar loads as llc uses: the entry block's
/// whole-dword kernarg loads (`s_load_dword`) at consecutive offsets become
/// `s_load_dwordx8`/`x4`/`x2` into an SGPR tuple (4-aligned, or 2-aligned
/// for a pair, as the scalar unit requires) and sub-register copies out of
/// it, which coalescing removes. The hardware fact served: one scalar
/// memory instruction reads up to 16 consecutive dwords.
pub(super) fn widen_kernarg_loads(
    f: &mut MFunction,
    isa: &Isa,
    sgpr: regdesc_runtime::RegClass,
    kernargs: &[KernargWord],
) {
    use regdesc_runtime::RegisterInfo;
    let t = crate::Gfx::Gfx900.tables();
    let load = isa.op("S_LOAD_DWORD");
    let Some(entry) = f.blocks.iter().next() else {
        return;
    };
    // (offset, def, implicit word register) of each whole-dword load.
    let mut words: Vec<(i64, VReg, RegOperand)> = Vec::new();
    let mut ptr = None;
    for i in &entry.insts {
        if i.opcode != load {
            continue;
        }
        if let (Some(d), Some(Operand::Reg(p)), Some(Operand::Imm(off)), Some(Operand::Reg(w))) = (
            i.ops.first().and_then(Operand::vreg),
            i.ops.get(1),
            i.ops.get(2),
            i.ops.get(3),
        ) {
            if off % 4 == 0 && f.class_of(d) == Some(sgpr) {
                words.push((*off, d, w.clone()));
                ptr = Some(p.clone());
            }
        }
    }
    let Some(ptr) = ptr else { return };
    words.sort_by_key(|w| w.0);
    words.dedup_by_key(|w| w.0);
    // The end of the kernarg segment: the argument bytes in whole
    // dwords, and the padding up to the segment's 16-byte unit.
    let end = kernargs
        .iter()
        .map(|w| u64::from(w.offset & !3) + 4)
        .max()
        .map_or(0, |e| crate::abi::kernarg_segment_size(e) as i64);
    let sub = |k: usize| t.sub_reg_index_by_name(&format!("sub{k}"));
    let plan = cover(&words, end);
    let mut loads = Vec::new();
    let mut copies = Vec::new();
    let mut merged: Vec<VReg> = Vec::new();
    for (at, n) in plan {
        let (Some(rc), Some(_)) = (t.class_by_name(&format!("SGPR_{}", 32 * n)), sub(n - 1)) else {
            continue;
        };
        if n < 2 {
            continue;
        }
        let start = words[at].0;
        let tuple = f.new_vreg(rc);
        let mut ops = vec![def(tuple), Operand::Reg(ptr.clone()), Operand::Imm(start)];
        for m in 0..n {
            let here = words[at..].iter().find(|w| w.0 == start + 4 * m as i64);
            match (here, sub(m)) {
                (Some(w), Some(s)) => {
                    ops.push(Operand::Reg(w.2.clone()));
                    copies.push(MInst::new(
                        isa.instrs.copy,
                        vec![
                            def(w.1),
                            Operand::Reg(RegOperand::use_of(RegRef::Virt(tuple), Some(s))),
                        ],
                    ));
                    merged.push(w.1);
                }
                // A dword nothing reads (a dead limb, padding): loaded
                // only to save an instruction; any value will do for the
                // interpreter.
                _ => ops.push(Operand::Imm(0)),
            }
        }
        loads.push(MInst::new(isa.op(&format!("S_LOAD_DWORDX{n}")), ops));
    }
    if loads.is_empty() {
        return;
    }
    let Some(entry) = f.blocks.iter_mut().next() else {
        return;
    };
    entry.insts.retain(|i| {
        i.opcode != load
            || !i
                .ops
                .first()
                .and_then(Operand::vreg)
                .is_some_and(|d| merged.contains(&d))
    });
    entry.insts.splice(0..0, loads);
    let kinds = |i: &MInst| {
        matches!(
            isa.def(i.opcode).map(|d| d.kind),
            Some(Kind::KernargLoad | Kind::KernargLoadWide(_))
        )
    };
    let after = entry.insts.iter().rposition(kinds).map_or(0, |p| p + 1);
    entry.insts.splice(after..after, copies);
}
