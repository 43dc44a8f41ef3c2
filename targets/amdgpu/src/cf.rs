//! Divergent control flow: branches whose condition differs between lanes
//! become straight-line code under `EXEC` masks.
//!
//! The hardware fact served: a wave has one program counter. When lanes
//! disagree on a branch, the wave runs both sides, each with `EXEC` holding
//! only the lanes that take it, and a loop runs until no lane wants
//! another iteration (LLVM's `SI_IF`/`SI_ELSE`/`SI_LOOP`, lowered by
//! `SILowerControlFlow`). Here every block `B` of a function with a
//! divergent branch gets a lane mask `M_B`, the lanes waiting to run it:
//!
//! - blocks are laid out in a topological order in which every loop is
//!   contiguous (header first), so that every edge but a loop's back edges
//!   goes forward;
//! - `B` starts with `exec = M_B` and skips its body when no lane is left
//!   (`s_cbranch_execz`);
//! - its branch sends `exec & cond` to the taken side's mask and
//!   `exec & ~cond` to the other (`s_andn2`, `s_or`);
//! - after a loop's last block, `s_cmp_lg M_header, 0` /
//!   `s_cbranch_scc1` runs the loop again while some lane is still in it;
//! - returning lanes leave their results in the result VGPRs (written
//!   under their own `EXEC`) and the function returns once, with `EXEC`
//!   restored.
//!
//! Temporal divergence: lanes leave a loop in different iterations, so a
//! uniform (SGPR) value defined in the loop and used after it holds the
//! last iteration's value, not each lane's. Such a value is copied into a
//! VGPR after each of its definitions (under `EXEC`, so each lane keeps the
//! value of its own last iteration) and read from there after the loop.
//!
//! Runs after PHI elimination (the code is no longer SSA: masks are
//! redefined). Irreducible control flow is refused.

use regdesc_codegen::mir::{def, use_};
use std::collections::HashMap;

use regdesc_codegen::mir::cfg::MCfg;
use regdesc_codegen::mir::{
    MBlock, MBlockId, MFunction, MInst, Opcode, Operand, RegOperand, RegRef, Sem, VReg,
};
use regdesc_codegen::target::TargetError;
use regdesc_runtime::Reg;

use crate::isa::Isa;
use crate::select::Classes;

fn irreducible(f: &MFunction) -> TargetError {
    TargetError::Unsupported {
        what: format!(
            "@{}: irreducible control flow with a divergent branch",
            f.name
        ),
        span: None,
    }
}

fn malformed(f: &MFunction) -> TargetError {
    TargetError::Unsupported {
        what: format!("@{}: a branch without its condition or targets", f.name),
        span: None,
    }
}

/// Natural loops: header and body (a flag per block).
struct Loops {
    headers: Vec<MBlockId>,
    body: Vec<Vec<bool>>,
    /// The loop directly around each loop.
    parent: Vec<Option<usize>>,
    /// The innermost loop of each block.
    innermost: Vec<Option<usize>>,
    of_header: HashMap<MBlockId, usize>,
}

impl Loops {
    fn find(f: &MFunction, cfg: &MCfg) -> Result<Loops, TargetError> {
        let n = f.blocks.len();
        let mut pos = vec![usize::MAX; n];
        for (k, b) in cfg.rpo().iter().enumerate() {
            pos[b.index()] = k;
        }
        let mut latches: HashMap<MBlockId, Vec<MBlockId>> = HashMap::new();
        for &b in cfg.rpo() {
            for &s in cfg.succs(b) {
                if pos[s.index()] <= pos[b.index()] {
                    if !cfg.dominates(s, b) {
                        return Err(irreducible(f));
                    }
                    latches.entry(s).or_default().push(b);
                }
            }
        }
        let mut headers: Vec<MBlockId> = latches.keys().copied().collect();
        headers.sort_by_key(|h| pos[h.index()]);
        let mut body = Vec::new();
        for h in &headers {
            let mut in_loop = vec![false; n];
            in_loop[h.index()] = true;
            let mut work = latches[h].clone();
            while let Some(b) = work.pop() {
                if in_loop[b.index()] || !cfg.is_reachable(b) {
                    continue;
                }
                in_loop[b.index()] = true;
                work.extend(cfg.preds(b).iter().copied());
            }
            body.push(in_loop);
        }
        let size = |l: usize| body[l].iter().filter(|x| **x).count();
        let smallest = |cands: &mut dyn Iterator<Item = usize>| cands.min_by_key(|&l| size(l));
        let parent = (0..headers.len())
            .map(|l| {
                smallest(&mut (0..headers.len()).filter(|&o| o != l && body[o][headers[l].index()]))
            })
            .collect();
        let innermost = (0..n)
            .map(|b| smallest(&mut (0..headers.len()).filter(|&l| body[l][b])))
            .collect();
        let of_header = headers.iter().enumerate().map(|(k, h)| (*h, k)).collect();
        Ok(Loops {
            headers,
            body,
            parent,
            innermost,
            of_header,
        })
    }

    fn in_region(&self, cfg: &MCfg, b: MBlockId, l: Option<usize>) -> bool {
        match l {
            None => cfg.is_reachable(b),
            Some(l) => self.body[l][b.index()],
        }
    }

    /// `b` as a node of region `l`: itself, or the header of the loop
    /// directly inside `l` that holds it.
    fn rep(&self, b: MBlockId, l: Option<usize>) -> MBlockId {
        let mut cur = self.innermost[b.index()];
        while let Some(c) = cur {
            if Some(c) == l {
                return b;
            }
            if self.parent[c] == l {
                return self.headers[c];
            }
            cur = self.parent[c];
        }
        b
    }

    /// Blocks of region `l` in a topological order with every loop
    /// contiguous.
    fn place(
        &self,
        f: &MFunction,
        cfg: &MCfg,
        l: Option<usize>,
        out: &mut Vec<MBlockId>,
    ) -> Result<(), TargetError> {
        let mut nodes: Vec<MBlockId> = Vec::new();
        for &b in cfg.rpo() {
            if self.in_region(cfg, b, l) {
                let r = self.rep(b, l);
                if !nodes.contains(&r) {
                    nodes.push(r);
                }
            }
        }
        let idx = |x: MBlockId, nodes: &[MBlockId]| nodes.iter().position(|&y| y == x);
        let mut indeg = vec![0usize; nodes.len()];
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for &b in cfg.rpo() {
            if !self.in_region(cfg, b, l) {
                continue;
            }
            for &s in cfg.succs(b) {
                if !self.in_region(cfg, s, l) || l.is_some_and(|l| s == self.headers[l]) {
                    continue;
                }
                let (u, v) = (self.rep(b, l), self.rep(s, l));
                if u == v {
                    continue;
                }
                if let (Some(u), Some(v)) = (idx(u, &nodes), idx(v, &nodes)) {
                    succ[u].push(v);
                    indeg[v] += 1;
                }
            }
        }
        let mut done = vec![false; nodes.len()];
        for _ in 0..nodes.len() {
            let Some(k) = (0..nodes.len()).find(|&k| !done[k] && indeg[k] == 0) else {
                return Err(irreducible(f));
            };
            done[k] = true;
            for &v in &succ[k] {
                indeg[v] -= 1;
            }
            let b = nodes[k];
            match self.of_header.get(&b) {
                Some(&inner) if Some(inner) != l => self.place(f, cfg, Some(inner), out)?,
                _ => out.push(b),
            }
        }
        Ok(())
    }
}

struct Lower<'a> {
    isa: &'a Isa,
}

impl Lower<'_> {
    fn inst(&self, name: &str, ops: Vec<Operand>) -> MInst {
        let op: Opcode = self.isa.op(name);
        let d = self.isa.instrs.desc(op);
        let mut ops = ops;
        for r in &d.implicit_uses {
            ops.push(Operand::Reg(
                RegOperand::use_of(RegRef::Phys(*r), None).implicit_(),
            ));
        }
        for r in &d.implicit_defs {
            ops.push(Operand::Reg(
                RegOperand::def_of(RegRef::Phys(*r), None).implicit_(),
            ));
        }
        MInst::new(op, ops)
    }

    fn br(&self, to: MBlockId) -> MInst {
        MInst::new(self.isa.instrs.op("BR"), vec![Operand::Block(to)])
    }
}

/// Copies uniform values that are defined in a loop and used after it
/// into VGPRs (see the module comment).
fn temporal_divergence(f: &mut MFunction, loops: &Loops, isa: &Isa, cls: Classes) {
    let n = f.blocks.len();
    let mut def_blocks: HashMap<VReg, Vec<usize>> = HashMap::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        for i in &blk.insts {
            for (_, r) in i.reg_ops() {
                if let (true, Some(v)) = (r.is_def(), r.vreg()) {
                    if f.class_of(v) == Some(cls.sgpr) {
                        def_blocks.entry(v).or_default().push(b);
                    }
                }
            }
        }
    }
    // (value, block of a use outside a loop holding one of its defs)
    let outside = |v: VReg, u: usize| {
        def_blocks.get(&v).is_some_and(|ds| {
            ds.iter()
                .any(|&d| (0..loops.headers.len()).any(|l| loops.body[l][d] && !loops.body[l][u]))
        })
    };
    let is_valu = |op: Opcode| {
        isa.def(op).is_some_and(|d| d.asm.starts_with("v_"))
            || (isa.instrs.desc(op).sem == Sem::Copy)
    };
    let mut wanted: HashMap<VReg, VReg> = HashMap::new();
    for u in 0..n {
        let blk = &f.blocks[MBlockId(u as u32)];
        for i in &blk.insts {
            if !is_valu(i.opcode) {
                continue;
            }
            if isa.instrs.desc(i.opcode).sem == Sem::Copy {
                let to_vgpr = i.ops.first().and_then(Operand::vreg).map(|d| f.class_of(d))
                    == Some(Some(cls.vgpr))
                    || i.ops
                        .first()
                        .and_then(Operand::reg)
                        .and_then(RegOperand::phys)
                        .is_some_and(crate::semantics::is_vgpr);
                if !to_vgpr {
                    continue;
                }
            }
            for (_, r) in i.reg_ops() {
                if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                    if r.sub.is_none() && outside(v, u) && !wanted.contains_key(&v) {
                        wanted.insert(v, VReg(0));
                    }
                }
            }
        }
    }
    if wanted.is_empty() {
        return;
    }
    let mut keys: Vec<VReg> = wanted.keys().copied().collect();
    keys.sort();
    for v in keys {
        let pv = f.new_vreg(cls.vgpr);
        wanted.insert(v, pv);
    }
    let copy = isa.instrs.copy;
    for u in 0..n {
        let old = std::mem::take(&mut f.blocks[MBlockId(u as u32)].insts);
        let mut new = Vec::with_capacity(old.len());
        for mut i in old {
            if is_valu(i.opcode) {
                let vgpr_copy_ok = isa.instrs.desc(i.opcode).sem != Sem::Copy || {
                    let d = i.ops.first().and_then(Operand::reg);
                    d.and_then(RegOperand::vreg).map(|d| f.class_of(d)) == Some(Some(cls.vgpr))
                        || d.and_then(RegOperand::phys)
                            .is_some_and(crate::semantics::is_vgpr)
                };
                if vgpr_copy_ok {
                    for o in i.ops.iter_mut() {
                        if let Operand::Reg(r) = o {
                            if let (false, Some(v), None) = (r.is_def(), r.vreg(), r.sub) {
                                if let Some(&pv) = wanted.get(&v) {
                                    if outside(v, u) {
                                        r.reg = RegRef::Virt(pv);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            let defs: Vec<VReg> = i
                .reg_ops()
                .filter(|(_, r)| r.is_def())
                .filter_map(|(_, r)| r.vreg())
                .filter(|v| wanted.contains_key(v))
                .collect();
            new.push(i);
            for v in defs {
                new.push(MInst::new(copy, vec![def(wanted[&v]), use_(v)]));
            }
        }
        f.blocks[MBlockId(u as u32)].insts = new;
    }
}

/// Lowers `SI_BRCOND` (and every other branch of a function that has one)
/// to EXEC masking.
pub fn lower_control_flow(f: &mut MFunction, isa: &Isa, cls: Classes) -> Result<(), TargetError> {
    let si = isa.op("SI_BRCOND");
    if !f
        .blocks
        .iter()
        .any(|b| b.insts.last().is_some_and(|i| i.opcode == si))
    {
        return Ok(());
    }
    let cfg = MCfg::new(f);
    let loops = Loops::find(f, &cfg)?;
    let mut order = Vec::new();
    loops.place(f, &cfg, None, &mut order)?;
    temporal_divergence(f, &loops, isa, cls);
    let lw = Lower { isa };
    let entry = MBlockId(0);
    let n = f.blocks.len();
    let mut pos = vec![usize::MAX; n];
    for (k, b) in order.iter().enumerate() {
        pos[b.index()] = k;
    }
    let loops_of = |b: MBlockId| -> Vec<usize> {
        (0..loops.headers.len())
            .filter(|&l| loops.body[l][b.index()])
            .collect()
    };
    // Masks, and whether the first incoming edge may define them.
    let mask: Vec<VReg> = (0..n).map(|_| f.new_vreg(cls.mask)).collect();
    let mut first_writer: Vec<Option<MBlockId>> = vec![None; n];
    for &b in &order {
        for &s in cfg.succs(b) {
            if pos[s.index()] > pos[b.index()] && first_writer[s.index()].is_none() {
                first_writer[s.index()] = Some(b);
            }
        }
    }
    let defines: Vec<bool> = (0..n)
        .map(|s| {
            let sb = MBlockId(s as u32);
            !loops.of_header.contains_key(&sb)
                && first_writer[s].is_some_and(|w| {
                    let mine = loops_of(sb);
                    loops_of(w).iter().all(|l| mine.contains(l))
                })
        })
        .collect();
    // Where each loop ends in the order.
    let mut ends: HashMap<MBlockId, Vec<usize>> = HashMap::new();
    for l in 0..loops.headers.len() {
        if let Some(&last) = order.iter().rev().find(|b| loops.body[l][b.index()]) {
            ends.entry(last).or_default().push(l);
        }
    }
    for v in ends.values_mut() {
        v.sort_by_key(|&l| loops.body[l].iter().filter(|x| **x).count());
    }
    // New block numbers: head (not for the entry), body, tail, loop checks.
    let mut next_id = 0u32;
    let mut fresh = || {
        next_id += 1;
        MBlockId(next_id - 1)
    };
    let mut head: Vec<Option<MBlockId>> = vec![None; n];
    let mut body_id = vec![MBlockId(0); n];
    let mut tail = vec![MBlockId(0); n];
    let mut checks: HashMap<MBlockId, Vec<MBlockId>> = HashMap::new();
    for &b in &order {
        if b != entry {
            head[b.index()] = Some(fresh());
        }
        body_id[b.index()] = fresh();
        tail[b.index()] = fresh();
        let k = ends.get(&b).map_or(0, Vec::len);
        checks.insert(b, (0..k).map(|_| fresh()).collect());
    }
    let exit = fresh();
    let start_of = |b: MBlockId| head[b.index()].unwrap_or(body_id[b.index()]);
    let mut blocks: Vec<MBlock> = vec![MBlock::default(); next_id as usize];
    let full = f.new_vreg(cls.mask);
    let mut ret_regs: Vec<(Reg, VReg)> = Vec::new();
    let mut ret_inst: Option<MInst> = None;
    for (k, &b) in order.iter().enumerate() {
        let after = order.get(k + 1).map_or(exit, |&x| start_of(x));
        let m = mask[b.index()];
        if let Some(h) = head[b.index()] {
            let hb = &mut blocks[h.index()].insts;
            hb.push(lw.inst("S_SET_EXEC", vec![use_(m)]));
            if !defines[b.index()] {
                hb.push(lw.inst("S_ZERO_MASK", vec![def(m)]));
            }
            hb.push(lw.inst(
                "S_CBRANCH_EXECZ",
                vec![
                    Operand::Block(tail[b.index()]),
                    Operand::Block(body_id[b.index()]),
                ],
            ));
        }
        let mut insts = std::mem::take(&mut f.blocks[b].insts);
        let term = insts.pop();
        let mut body = Vec::new();
        if b == entry {
            body.push(lw.inst("S_GET_EXEC", vec![def(full)]));
            for &x in &order {
                if x != entry && !defines[x.index()] {
                    body.push(lw.inst("S_ZERO_MASK", vec![def(mask[x.index()])]));
                }
            }
        }
        // Results go through per-lane virtual registers to the exit.
        let is_ret = term
            .as_ref()
            .is_some_and(|t| isa.instrs.desc(t.opcode).sem == Sem::Return);
        if is_ret {
            for i in insts.iter_mut() {
                if isa.instrs.desc(i.opcode).sem != Sem::Copy {
                    continue;
                }
                let Some(Operand::Reg(r)) = i.ops.first_mut() else {
                    continue;
                };
                let Some(p) = r.phys() else { continue };
                let v = match ret_regs.iter().find(|(q, _)| *q == p) {
                    Some((_, v)) => *v,
                    None => {
                        let v = f.new_vreg(cls.vgpr);
                        ret_regs.push((p, v));
                        v
                    }
                };
                r.reg = RegRef::Virt(v);
            }
            ret_inst = term.clone();
        }
        body.extend(insts);
        body.push(lw.br(tail[b.index()]));
        blocks[body_id[b.index()].index()].insts = body;
        // The tail: masks of the successors.
        let mut t = Vec::new();
        let e = f.new_vreg(cls.mask);
        t.push(lw.inst("S_GET_EXEC", vec![def(e)]));
        let mut edge = |t: &mut Vec<MInst>, s: MBlockId, lanes: VReg| {
            let ms = mask[s.index()];
            let back = pos[s.index()] <= pos[b.index()];
            if !back && defines[s.index()] && first_writer[s.index()] == Some(b) {
                t.push(MInst::new(isa.instrs.copy, vec![def(ms), use_(lanes)]));
            } else {
                t.push(lw.inst("S_OR_MASK", vec![def(ms), use_(ms), use_(lanes)]));
            }
        };
        let two_way =
            |t: &mut Vec<MInst>,
             taken: VReg,
             ts: MBlockId,
             fs: MBlockId,
             f: &mut MFunction,
             edge: &mut dyn FnMut(&mut Vec<MInst>, MBlockId, VReg)| {
                let other = f.new_vreg(cls.mask);
                t.push(lw.inst("S_ANDN2_MASK", vec![def(other), use_(e), use_(taken)]));
                edge(t, ts, taken);
                edge(t, fs, other);
            };
        if let Some(term) = &term {
            let sem = isa.instrs.desc(term.opcode).sem;
            let blk = |k: usize| match term.ops.get(k) {
                Some(Operand::Block(x)) => Some(*x),
                _ => None,
            };
            let name = isa.instrs.name(term.opcode).to_string();
            match (sem, name.as_str()) {
                (Sem::Branch, _) => {
                    if let Some(s) = blk(0) {
                        edge(&mut t, s, e);
                    }
                }
                (Sem::Return, _) => {}
                (_, "SI_BRCOND") => {
                    let (Some(c), Some(ts), Some(fs)) =
                        (term.ops.first().and_then(Operand::vreg), blk(1), blk(2))
                    else {
                        return Err(malformed(f));
                    };
                    let taken = f.new_vreg(cls.mask);
                    t.push(lw.inst("S_AND_MASK", vec![def(taken), use_(e), use_(c)]));
                    two_way(&mut t, taken, ts, fs, f, &mut edge);
                }
                (_, "S_CBRANCH_SCC1") | (_, "S_CBRANCH_SCC0") => {
                    let (Some(x), Some(y)) = (blk(0), blk(1)) else {
                        return Err(malformed(f));
                    };
                    let (ts, fs) = if name == "S_CBRANCH_SCC1" {
                        (x, y)
                    } else {
                        (y, x)
                    };
                    let taken = f.new_vreg(cls.mask);
                    t.push(lw.inst("S_CSELECT_MASK", vec![def(taken), use_(e)]));
                    two_way(&mut t, taken, ts, fs, f, &mut edge);
                }
                _ => {
                    return Err(TargetError::Unsupported {
                        what: format!(
                            "@{}: terminator `{name}` under divergent control flow",
                            f.name
                        ),
                        span: None,
                    })
                }
            }
        }
        let cs = checks.get(&b).cloned().unwrap_or_default();
        t.push(lw.br(cs.first().copied().unwrap_or(after)));
        blocks[tail[b.index()].index()].insts = t;
        // Loops that end here run again while a lane wants to.
        for (j, &c) in cs.iter().enumerate() {
            let l = ends[&b][j];
            let h = loops.headers[l];
            let next = cs.get(j + 1).copied().unwrap_or(after);
            blocks[c.index()].insts = vec![
                lw.inst("S_CMP_MASK_NZ", vec![use_(mask[h.index()])]),
                lw.inst(
                    "S_CBRANCH_SCC1",
                    vec![Operand::Block(start_of(h)), Operand::Block(next)],
                ),
            ];
        }
    }
    // The exit: all lanes again, the results, the return.
    let mut x = vec![lw.inst("S_SET_EXEC", vec![use_(full)])];
    for (p, v) in &ret_regs {
        x.push(MInst::new(
            isa.instrs.copy,
            vec![
                Operand::Reg(RegOperand::def_of(RegRef::Phys(*p), None)),
                use_(*v),
            ],
        ));
    }
    x.push(ret_inst.unwrap_or_else(|| MInst::new(isa.instrs.op("RET"), Vec::new())));
    blocks[exit.index()].insts = x;
    f.blocks = blocks.into();
    // Tails of returning blocks read EXEC for nothing.
    crate::select::dead_code(f, isa);
    Ok(())
}
