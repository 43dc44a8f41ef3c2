//! The control-flow graph of a machine function: predecessors, reverse
//! post-order, dominators (petgraph's Cooper–Harvey–Kennedy
//! `simple_fast`) and loop depths.
//!
//! The hardware fact served: spill code in a loop runs once per iteration,
//! so the allocator weighs uses by `10^depth` (as LLVM's spill weights
//! do), and the SSA verifier needs dominance. Loops are natural loops: a
//! back edge `t -> h` where `h` dominates `t` makes `h` a header, and the
//! body is every block that reaches `t` without passing `h`; irreducible
//! cycles add no depth (their blocks get the depth of the loops around
//! them).

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{DfsPostOrder, Walker};

use crate::mir::{MBlockId, MFunction};

/// Predecessors, successors, dominance and loop depth.
#[derive(Clone, Debug)]
pub struct MCfg {
    /// Predecessors of all blocks in one list: `pred_start[b]..pred_start[b
    /// + 1]` are `b`'s (liveness walks them for every live block).
    pred_start: Vec<u32>,
    pred_list: Vec<MBlockId>,
    succs: Vec<Vec<MBlockId>>,
    rpo: Vec<MBlockId>,
    /// Pre- and post-order numbers in the dominator tree; `None` when
    /// unreachable.
    dom_order: Vec<Option<(u32, u32)>>,
    idom: Vec<Option<MBlockId>>,
    depth: Vec<u32>,
}

impl MCfg {
    pub fn new(f: &MFunction) -> MCfg {
        let n = f.blocks.len();
        let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(n.max(1), n * 2);
        for _ in 0..n.max(1) {
            graph.add_node(());
        }
        let mut preds = vec![Vec::new(); n];
        let mut succs = vec![Vec::new(); n];
        for b in f.block_ids() {
            for s in f.successors(b) {
                if s.index() < n {
                    graph.add_edge(NodeIndex::new(b.index()), NodeIndex::new(s.index()), ());
                    preds[s.index()].push(b);
                    succs[b.index()].push(s);
                }
            }
        }
        let entry = NodeIndex::new(0);
        let mut rpo: Vec<MBlockId> = Vec::with_capacity(n);
        if n > 0 {
            for node in DfsPostOrder::new(&graph, entry).iter(&graph) {
                rpo.push(MBlockId(node.index() as u32));
            }
            rpo.reverse();
        }
        let dom = simple_fast(&graph, entry);
        let mut idom = vec![None; n];
        for &b in rpo.iter().skip(1) {
            idom[b.index()] = dom
                .immediate_dominator(NodeIndex::new(b.index()))
                .map(|d| MBlockId(d.index() as u32));
        }
        let rpo_idx: Vec<usize> = rpo.iter().map(|b| b.index()).collect();
        let dom_order = crate::tree_order::tree_order(n, &rpo_idx, |b| {
            idom.get(b).copied().flatten().map(MBlockId::index)
        });
        let mut pred_start = Vec::with_capacity(n + 1);
        let mut pred_list = Vec::with_capacity(preds.iter().map(Vec::len).sum());
        pred_start.push(0u32);
        for p in &preds {
            pred_list.extend_from_slice(p);
            pred_start.push(pred_list.len() as u32);
        }
        let mut cfg = MCfg {
            pred_start,
            pred_list,
            succs,
            rpo,
            dom_order,
            idom,
            depth: vec![0; n],
        };
        cfg.depth = cfg.loop_depths();
        cfg
    }

    pub fn num_blocks(&self) -> usize {
        self.pred_start.len() - 1
    }

    pub fn preds(&self, b: MBlockId) -> &[MBlockId] {
        match (
            self.pred_start.get(b.index()),
            self.pred_start.get(b.index() + 1),
        ) {
            (Some(&a), Some(&e)) => &self.pred_list[a as usize..e as usize],
            _ => &[],
        }
    }

    pub fn succs(&self, b: MBlockId) -> &[MBlockId] {
        self.succs.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// Reachable blocks in reverse post-order.
    pub fn rpo(&self) -> &[MBlockId] {
        &self.rpo
    }

    pub fn is_reachable(&self, b: MBlockId) -> bool {
        self.dom_order.get(b.index()).is_some_and(Option::is_some)
    }

    pub fn idom(&self, b: MBlockId) -> Option<MBlockId> {
        self.idom.get(b.index()).copied().flatten()
    }

    /// Whether `a` dominates `b` (reflexive; false for unreachable blocks).
    pub fn dominates(&self, a: MBlockId, b: MBlockId) -> bool {
        match (
            self.dom_order.get(a.index()).copied().flatten(),
            self.dom_order.get(b.index()).copied().flatten(),
        ) {
            (Some((pa, qa)), Some((pb, qb))) => pa <= pb && qb <= qa,
            _ => false,
        }
    }

    /// How many natural loops contain `b`.
    pub fn loop_depth(&self, b: MBlockId) -> u32 {
        self.depth.get(b.index()).copied().unwrap_or(0)
    }

    fn loop_depths(&self) -> Vec<u32> {
        let n = self.num_blocks();
        let mut depth = vec![0u32; n];
        // Back edges grouped by header.
        let mut latches: Vec<Vec<MBlockId>> = vec![Vec::new(); n];
        for &b in &self.rpo {
            for &s in self.succs(b) {
                if self.dominates(s, b) {
                    latches[s.index()].push(b);
                }
            }
        }
        let mut mark = vec![u32::MAX; n];
        for (h, ls) in latches.iter().enumerate() {
            if ls.is_empty() {
                continue;
            }
            let stamp = h as u32;
            mark[h] = stamp;
            depth[h] += 1;
            let mut work: Vec<MBlockId> = Vec::new();
            for &l in ls {
                if mark[l.index()] != stamp {
                    mark[l.index()] = stamp;
                    depth[l.index()] += 1;
                    work.push(l);
                }
            }
            while let Some(b) = work.pop() {
                for &p in self.preds(b) {
                    if mark[p.index()] != stamp && self.is_reachable(p) {
                        mark[p.index()] = stamp;
                        depth[p.index()] += 1;
                        work.push(p);
                    }
                }
            }
        }
        depth
    }
}
