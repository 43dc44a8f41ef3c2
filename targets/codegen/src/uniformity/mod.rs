//! Uniformity (divergence) analysis: which values are the same in every
//! lane that computes them, and which branches send lanes different ways.
//!
//! **Sources.** Arguments of kernels (`amdgpu_kernel`, `spir_kernel`),
//! constants and `llvm.amdgcn.workgroup.id.x` are uniform. Work-item ids
//! (`llvm.amdgcn.workitem.id.x`, `get_global_id`) are divergent, and so are
//! the arguments of plain functions (they arrive per lane, in VGPRs on AMD).
//! A load from a uniform address is uniform (lanes that race on memory have
//! no defined result; see [`crate::interp`]).
//!
//! **Propagation.** This follows LLVM's GPU divergence analysis (the
//! `DivergenceAnalysis`/`SyncDependenceAnalysis` of LLVM 12–16, after
//! Karrenberg & Hack, "Whole-function vectorization", CGO 2011, and
//! Rosemann, Moll & Hack, "An abstract interpretation for SPMD divergence
//! on reducible control flow graphs", POPL 2021):
//!
//! - *data dependence*: an instruction with a divergent operand is divergent;
//! - *sync dependence*: a conditional branch on a divergent condition is a
//!   divergent branch; the blocks reached from two of its successors along
//!   disjoint paths before its immediate post-dominator (the *join points*,
//!   found by propagating one label per successor through the region, the
//!   way SSA construction places phis) have divergent phis, unless all of a
//!   phi's incoming values are the same;
//! - *temporal divergence*: when a divergent branch inside a cycle has its
//!   immediate post-dominator outside that cycle, lanes leave the cycle in
//!   different iterations, so every use outside the cycle of a value
//!   defined inside it is divergent (the value itself may stay uniform in
//!   the cycle, where ISel may keep it in a scalar register).
//!
//! Cycles come from the CFG's nesting forest ([`crate::ir::cfg`]), so
//! irreducible cycles are covered too, conservatively: when a divergent
//! branch lies in an irreducible cycle or reaches one of its headers before
//! reconverging, the cycle's header phis are divergent and its exits are
//! treated as divergent.

pub mod report;

use std::collections::{BTreeSet, VecDeque};

use crate::ir::cfg::{Cfg, PostDom};
use crate::ir::{BlockId, Builtin, Function, InstId, Op, OperandKind, ValueId, ValueKind};

/// Why something is divergent (the first reason found).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// An argument of a plain (callable) function.
    Argument,
    /// A work-item id call.
    WorkItemId,
    /// It uses this divergent value.
    Operand(ValueId),
    /// A phi at a join point of the divergent branch ending this block.
    Join { branch: BlockId },
    /// It uses this value, defined in the cycle with this header, outside
    /// that cycle, which lanes leave in different iterations.
    Temporal { header: BlockId, value: ValueId },
    /// A header phi of an irreducible cycle that lanes enter divergently.
    IrreducibleEntry { header: BlockId },
}

/// The analysis result for one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uniformity {
    values: Vec<Option<Reason>>,
    insts: Vec<Option<Reason>>,
    branches: Vec<bool>,
    joins: Vec<Option<BlockId>>,
    divergent_exits: BTreeSet<BlockId>,
}

enum Event {
    Value(ValueId),
    Branch(BlockId),
}

impl Uniformity {
    /// Analyses `f`. The function should be verified.
    pub fn analyze(f: &Function) -> Self {
        Analysis::new(f).run()
    }

    /// Whether `v` may differ between lanes.
    pub fn is_divergent(&self, v: ValueId) -> bool {
        self.values.get(v.index()).is_some_and(Option::is_some)
    }

    pub fn is_uniform(&self, v: ValueId) -> bool {
        !self.is_divergent(v)
    }

    /// Why `v` is divergent (`None` if it is uniform).
    pub fn value_reason(&self, v: ValueId) -> Option<Reason> {
        self.values.get(v.index()).copied().flatten()
    }

    /// Whether an instruction is divergent: its result for value-producing
    /// instructions; for a conditional branch, whether it diverges; for a
    /// store, whether its address or value differs between lanes; for
    /// `ret`, whether its value does.
    pub fn is_divergent_inst(&self, i: InstId) -> bool {
        self.inst_reason(i).is_some()
    }

    pub fn inst_reason(&self, i: InstId) -> Option<Reason> {
        self.insts.get(i.index()).copied().flatten()
    }

    /// Whether the block ends with a divergent conditional branch.
    pub fn has_divergent_branch(&self, b: BlockId) -> bool {
        self.branches.get(b.index()).copied().unwrap_or(false)
    }

    /// The blocks ending with a divergent branch.
    pub fn divergent_branches(&self) -> Vec<BlockId> {
        (0..self.branches.len() as u32)
            .map(BlockId)
            .filter(|b| self.has_divergent_branch(*b))
            .collect()
    }

    /// If `b` is a join point of a divergent branch: the block of the
    /// (first such) branch.
    pub fn join_of(&self, b: BlockId) -> Option<BlockId> {
        self.joins.get(b.index()).copied().flatten()
    }

    /// Headers of the cycles that lanes may leave in different iterations.
    pub fn divergent_exit_cycles(&self) -> Vec<BlockId> {
        self.divergent_exits.iter().copied().collect()
    }
}

/// What marking reads of an instruction, in one small array: the IR's
/// instructions are hundreds of bytes each, and marking visits them in
/// the order divergence spreads, not in order; on a function of 100k
/// instructions reading them where they are was a cache miss per mark
/// (the analysis grew 21x from 10k to 100k instructions).
#[derive(Clone, Copy)]
struct InstFacts {
    result: Option<ValueId>,
    block: BlockId,
    cond_br: bool,
}

/// Each value's users (instructions, each once, in order), in one array:
/// `list[start[v]..start[v + 1]]`.
struct Users {
    start: Vec<u32>,
    list: Vec<InstId>,
}

impl Users {
    fn new(f: &Function) -> Users {
        let mut start = vec![0u32; f.values.len() + 1];
        let each = |visit: &mut dyn FnMut(ValueId, InstId)| {
            for i in f.inst_ids() {
                for o in f.inst(i).op.operands() {
                    if let OperandKind::Value(v) = o.kind {
                        if v.index() < f.values.len() {
                            visit(v, i);
                        }
                    }
                }
            }
        };
        // Counted with repeats (an instruction naming a value twice), then
        // filled without them.
        each(&mut |v, _| start[v.index() + 1] += 1);
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut fill: Vec<u32> = start[..start.len() - 1].to_vec();
        let mut list = vec![InstId(0); start.last().copied().unwrap_or(0) as usize];
        each(&mut |v, i| {
            let at = fill[v.index()] as usize;
            if at == start[v.index()] as usize || list[at - 1] != i {
                list[at] = i;
                fill[v.index()] += 1;
            }
        });
        // Close the gaps the repeats left.
        let mut out = Vec::with_capacity(list.len());
        let mut compact = Vec::with_capacity(start.len());
        compact.push(0);
        for v in 0..fill.len() {
            out.extend_from_slice(&list[start[v] as usize..fill[v] as usize]);
            compact.push(out.len() as u32);
        }
        Users {
            start: compact,
            list: out,
        }
    }

    fn of(&self, v: ValueId) -> &[InstId] {
        match (self.start.get(v.index()), self.start.get(v.index() + 1)) {
            (Some(&a), Some(&b)) => &self.list[a as usize..b as usize],
            _ => &[],
        }
    }
}

struct Analysis<'f> {
    f: &'f Function,
    cfg: Cfg,
    users: Users,
    facts: Vec<InstFacts>,
    /// Each block's position in reverse post-order.
    rpo_pos: Vec<usize>,
    /// Scratch labels of [`Analysis::sync_joins`], `None` outside a call.
    label: Vec<Option<BlockId>>,
    /// Each block's innermost cycle (an index into [`Cfg::cycles`]); the
    /// cycles holding a block are that one and its parents.
    innermost: Vec<Option<usize>>,
    /// The irreducible cycles, in [`Cfg::cycles`] order.
    irreducible: Vec<usize>,
    result: Uniformity,
    work: VecDeque<Event>,
}

impl<'f> Analysis<'f> {
    fn new(f: &'f Function) -> Self {
        let users = Users::new(f);
        let facts = f
            .inst_ids()
            .map(|i| {
                let inst = f.inst(i);
                InstFacts {
                    result: inst.result,
                    block: inst.block,
                    cond_br: matches!(inst.op, Op::CondBr { .. }),
                }
            })
            .collect();
        let n = f.blocks.len();
        let cfg = Cfg::new(f);
        let mut rpo_pos = vec![usize::MAX; n];
        for (k, b) in cfg.rpo().iter().enumerate() {
            rpo_pos[b.index()] = k;
        }
        // Outer cycles come before the ones nested in them, so the last
        // cycle to claim a block is its innermost.
        let mut innermost = vec![None; n];
        for (k, c) in cfg.cycles().iter().enumerate() {
            for b in &c.blocks {
                if let Some(slot) = innermost.get_mut(b.index()) {
                    *slot = Some(k);
                }
            }
        }
        let irreducible = (0..cfg.cycles().len())
            .filter(|&k| cfg.cycles()[k].is_irreducible())
            .collect();
        Analysis {
            f,
            cfg,
            users,
            facts,
            rpo_pos,
            label: vec![None; n],
            innermost,
            irreducible,
            result: Uniformity {
                values: vec![None; f.values.len()],
                insts: vec![None; f.insts.len()],
                branches: vec![false; n],
                joins: vec![None; n],
                divergent_exits: BTreeSet::new(),
            },
            work: VecDeque::new(),
        }
    }

    fn run(mut self) -> Uniformity {
        let f = self.f;
        if !f.cconv.is_kernel() {
            for p in &f.params {
                self.mark_value(*p, Reason::Argument);
            }
        }
        for i in f.inst_ids() {
            if let Op::Call { callee, .. } = f.inst(i).op {
                if matches!(callee, Builtin::WorkitemIdX | Builtin::GetGlobalId { .. }) {
                    self.mark_inst(i, Reason::WorkItemId);
                }
            }
        }
        while let Some(e) = self.work.pop_front() {
            match e {
                Event::Value(v) => {
                    // By position: marking never changes the users lists.
                    let count = self.users.of(v).len();
                    for k in 0..count {
                        let u = self.users.of(v)[k];
                        self.mark_inst(u, Reason::Operand(v));
                    }
                }
                Event::Branch(b) => self.divergent_branch(b),
            }
        }
        self.result
    }

    fn mark_value(&mut self, v: ValueId, why: Reason) {
        if let Some(slot) = self.result.values.get_mut(v.index()) {
            if slot.is_none() {
                *slot = Some(why);
                self.work.push_back(Event::Value(v));
            }
        }
    }

    /// Marks an instruction (and its result, or its branch) divergent.
    fn mark_inst(&mut self, i: InstId, why: Reason) {
        let Some(slot) = self.result.insts.get_mut(i.index()) else {
            return;
        };
        if slot.is_some() {
            return;
        }
        *slot = Some(why);
        let Some(&inst) = self.facts.get(i.index()) else {
            return;
        };
        if let Some(r) = inst.result {
            self.mark_value(r, why);
        }
        if inst.cond_br {
            let b = inst.block;
            if !self.result.branches[b.index()] {
                self.result.branches[b.index()] = true;
                self.work.push_back(Event::Branch(b));
            }
        }
    }

    fn divergent_branch(&mut self, b: BlockId) {
        let f = self.f;
        if !self.cfg.is_reachable(b) {
            return;
        }
        let stop = self.cfg.ipdom(b);
        let (region, joins) = self.sync_joins(b, stop);
        for j in joins {
            if self.result.joins[j.index()].is_none() {
                self.result.joins[j.index()] = Some(b);
            }
            for &i in &f.block(j).insts {
                if let Op::Phi { incoming, .. } = &f.inst(i).op {
                    let first = incoming.first().map(|e| &e.val.kind);
                    let all_same = incoming.iter().all(|e| Some(&e.val.kind) == first);
                    if !all_same {
                        self.mark_inst(i, Reason::Join { branch: b });
                    }
                }
            }
        }
        // Cycles lanes may leave in different iterations: those holding
        // the branch (its innermost cycle and that one's parents: a walk
        // up the nesting forest, not a scan of every cycle, which made
        // the analysis quadratic in functions with many loops), and
        // irreducible ones entered from the region; in cycle order.
        let mut relevant = self.irreducible.clone();
        let mut k = self.innermost.get(b.index()).copied().flatten();
        while let Some(c) = k {
            relevant.push(c);
            k = self.cfg.cycles()[c].parent;
        }
        relevant.sort_unstable();
        relevant.dedup();
        for k in relevant {
            let c = &self.cfg.cycles()[k];
            let exits_divergently = c.contains(b)
                && match stop {
                    Some(PostDom::Block(p)) => !c.contains(p),
                    Some(PostDom::Exit) | None => true,
                };
            let irregular_entry = c.is_irreducible()
                && (c.contains(b) || c.headers.iter().any(|h| region.contains(h)));
            let headers = c.headers.clone();
            if irregular_entry {
                for h in &headers {
                    for &i in &f.block(*h).insts {
                        if let Op::Phi { .. } = f.inst(i).op {
                            self.mark_inst(i, Reason::IrreducibleEntry { header: *h });
                        }
                    }
                }
            }
            if exits_divergently || irregular_entry {
                self.divergent_exit(k);
            }
        }
    }

    /// Uses outside cycle `k` of values defined in it are divergent.
    fn divergent_exit(&mut self, k: usize) {
        let f = self.f;
        let c = &self.cfg.cycles()[k];
        let header = c.headers.first().copied().unwrap_or(BlockId(0));
        if !self.result.divergent_exits.insert(header) {
            return;
        }
        // The users outside the cycle of values defined inside, in
        // instruction order.
        let mut outside: BTreeSet<InstId> = BTreeSet::new();
        for &blk in &c.blocks {
            for &i in &f.block(blk).insts {
                let Some(r) = f.inst(i).result else { continue };
                for &u in self.users.of(r) {
                    if !c.contains(self.facts[u.index()].block) {
                        outside.insert(u);
                    }
                }
            }
        }
        let mut marks = Vec::new();
        for i in outside {
            for o in f.inst(i).op.operands() {
                let Some(v) = o.value() else { continue };
                let defined_inside = match f.value(v).kind {
                    ValueKind::Inst(d) => c.contains(f.inst(d).block),
                    ValueKind::Arg(_) => false,
                };
                if defined_inside {
                    marks.push((i, v));
                    break;
                }
            }
        }
        for (i, v) in marks {
            self.mark_inst(i, Reason::Temporal { header, value: v });
        }
    }

    /// The blocks between a divergent branch in `b` and its immediate
    /// post-dominator `stop` (which is included), and among them the join
    /// points: blocks reached with the labels of two different successors.
    fn sync_joins(
        &mut self,
        b: BlockId,
        stop: Option<PostDom>,
    ) -> (BTreeSet<BlockId>, BTreeSet<BlockId>) {
        let stop_block = match stop {
            Some(PostDom::Block(p)) => Some(p),
            _ => None,
        };
        // The region: reachable from the successors without passing `stop`.
        let mut region = BTreeSet::new();
        let mut stack: Vec<BlockId> = self.cfg.succs(b).to_vec();
        while let Some(x) = stack.pop() {
            if !region.insert(x) || Some(x) == stop_block {
                continue;
            }
            stack.extend(self.cfg.succs(x).iter().copied());
        }
        let mut order: Vec<BlockId> = region
            .iter()
            .copied()
            .filter(|x| self.rpo_pos[x.index()] != usize::MAX)
            .collect();
        order.sort_by_key(|x| self.rpo_pos[x.index()]);
        let mut label = std::mem::take(&mut self.label);
        let mut joins = BTreeSet::new();
        // Labels only move from unset to a successor's label to the block's
        // own (join) label, so this settles; the bound is a safety net.
        for _ in 0..order.len() * 3 + 3 {
            let mut changed = false;
            for &x in &order {
                let mut seen: BTreeSet<BlockId> = BTreeSet::new();
                for &p in self.cfg.preds(x) {
                    if p == b {
                        seen.insert(x);
                    } else if region.contains(&p) && Some(p) != stop_block {
                        if let Some(l) = label[p.index()] {
                            seen.insert(l);
                        }
                    }
                }
                let new = match seen.len() {
                    0 => None,
                    1 => seen.iter().next().copied(),
                    _ => {
                        joins.insert(x);
                        Some(x)
                    }
                };
                if new != label[x.index()] && !(joins.contains(&x) && label[x.index()] == Some(x)) {
                    label[x.index()] = new;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for x in &region {
            label[x.index()] = None;
        }
        self.label = label;
        (region, joins)
    }
}
