//! The control-flow graph of a function, on petgraph: predecessors,
//! reverse post-order, dominators and post-dominators (petgraph's
//! Cooper–Harvey–Kennedy `simple_fast`; post-dominators are dominators of
//! the reversed graph rooted at a virtual exit that every `ret` block
//! reaches), and the function's cycles as a nesting forest.
//!
//! Cycles: the strongly connected components of the CFG are the outermost
//! cycles; a cycle's headers are its blocks entered from outside it;
//! removing the edges from inside the cycle to its headers and taking
//! components again gives the nested cycles (Steensgaard's loop nesting
//! forest, which for reducible graphs is the forest of natural loops and
//! also covers irreducible cycles, with more than one header).

use std::collections::BTreeSet;

use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{DfsPostOrder, Walker};

use crate::ir::{BlockId, Function, Op};

/// A post-dominator: a block or the virtual exit after every `ret`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PostDom {
    Block(BlockId),
    Exit,
}

/// One cycle of the nesting forest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// Blocks entered from outside the cycle (one for a natural loop).
    pub headers: Vec<BlockId>,
    /// Every block of the cycle, nested cycles included.
    pub blocks: BTreeSet<BlockId>,
    /// The enclosing cycle (an index into [`Cfg::cycles`]).
    pub parent: Option<usize>,
}

impl Cycle {
    pub fn contains(&self, b: BlockId) -> bool {
        self.blocks.contains(&b)
    }

    /// Whether the cycle has more than one header (irreducible control flow).
    pub fn is_irreducible(&self) -> bool {
        self.headers.len() > 1
    }
}

/// The CFG and its dominator trees.
pub struct Cfg {
    graph: DiGraph<BlockId, ()>,
    preds: Vec<Vec<BlockId>>,
    succs: Vec<Vec<BlockId>>,
    rpo: Vec<BlockId>,
    reachable: Vec<bool>,
    dom: Dominators<NodeIndex>,
    /// Pre- and post-order numbers in the dominator tree (for O(1)
    /// dominance queries); `None` for unreachable blocks.
    dom_order: Vec<Option<(u32, u32)>>,
    postdom: Dominators<NodeIndex>,
    exit: NodeIndex,
    cycles: Vec<Cycle>,
}

impl Cfg {
    pub fn new(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let mut graph = DiGraph::with_capacity(n.max(1), n * 2);
        for b in f.block_ids() {
            graph.add_node(b);
        }
        if n == 0 {
            // (A function without blocks is rejected by the verifier; a
            // lone node keeps the dominator computation well-defined.)
            graph.add_node(BlockId(0));
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
        let mut reachable = vec![false; n];
        let mut rpo: Vec<BlockId> = Vec::with_capacity(n);
        if n > 0 {
            for node in DfsPostOrder::new(&graph, entry).iter(&graph) {
                reachable[node.index()] = true;
                rpo.push(BlockId(node.index() as u32));
            }
            rpo.reverse();
        }
        let dom = simple_fast(&graph, entry);
        let rpo_idx: Vec<usize> = rpo.iter().map(|b| b.index()).collect();
        let dom_order = crate::tree_order::tree_order(n, &rpo_idx, |b| {
            dom.immediate_dominator(NodeIndex::new(b))
                .map(|d| d.index())
        });

        // Reversed graph with a virtual exit (node n) before every block
        // that returns.
        let mut rev: DiGraph<(), ()> = DiGraph::with_capacity(n + 1, n * 2 + 1);
        for _ in 0..=n {
            rev.add_node(());
        }
        let exit = NodeIndex::new(n);
        for b in f.block_ids() {
            for s in &succs[b.index()] {
                rev.add_edge(NodeIndex::new(s.index()), NodeIndex::new(b.index()), ());
            }
            if matches!(f.terminator(b).map(|t| &t.op), Some(Op::Ret { .. })) {
                rev.add_edge(exit, NodeIndex::new(b.index()), ());
            }
        }
        let postdom = simple_fast(&rev, exit);
        let cycles = nesting_forest(&graph, &reachable);
        Cfg {
            graph,
            preds,
            succs,
            rpo,
            reachable,
            dom,
            dom_order,
            postdom,
            exit,
            cycles,
        }
    }

    pub fn num_blocks(&self) -> usize {
        self.preds.len()
    }

    /// Predecessors, one per edge (a block branching twice to `b` appears twice).
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        &self.preds[b.index()]
    }

    /// Successors, one per edge.
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        &self.succs[b.index()]
    }

    /// The blocks reachable from the entry, in reverse post-order.
    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.reachable.get(b.index()).copied().unwrap_or(false)
    }

    /// Whether `a` dominates `b` (reflexive). Only meaningful for reachable blocks.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        match (
            self.dom_order.get(a.index()).copied().flatten(),
            self.dom_order.get(b.index()).copied().flatten(),
        ) {
            (Some((pre_a, post_a)), Some((pre_b, post_b))) => pre_a <= pre_b && post_b <= post_a,
            _ => false,
        }
    }

    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.dom
            .immediate_dominator(NodeIndex::new(b.index()))
            .map(|d| BlockId(d.index() as u32))
    }

    fn pd(&self, n: NodeIndex) -> PostDom {
        if n == self.exit {
            PostDom::Exit
        } else {
            PostDom::Block(BlockId(n.index() as u32))
        }
    }

    /// The immediate post-dominator; `None` for blocks from which no `ret`
    /// is reachable (they have no post-dominator).
    pub fn ipdom(&self, b: BlockId) -> Option<PostDom> {
        self.postdom
            .immediate_dominator(NodeIndex::new(b.index()))
            .map(|n| self.pd(n))
    }

    /// Whether `a` post-dominates `b` (reflexive).
    pub fn post_dominates(&self, a: PostDom, b: BlockId) -> bool {
        self.postdom
            .dominators(NodeIndex::new(b.index()))
            .is_some_and(|mut it| it.any(|d| self.pd(d) == a))
    }

    /// The cycles, outer ones before the cycles nested in them.
    pub fn cycles(&self) -> &[Cycle] {
        &self.cycles
    }

    /// The petgraph graph (node `i` is block `i`).
    pub fn graph(&self) -> &DiGraph<BlockId, ()> {
        &self.graph
    }
}

/// The cycle nesting forest of the reachable part of `graph`.
fn nesting_forest(graph: &DiGraph<BlockId, ()>, reachable: &[bool]) -> Vec<Cycle> {
    let mut cycles: Vec<Cycle> = Vec::new();
    // Work items: (blocks of a region, edges removed so far are implied by
    // the headers of enclosing cycles, parent cycle).
    let all: BTreeSet<BlockId> = (0..graph.node_count())
        .filter(|i| reachable.get(*i).copied().unwrap_or(false))
        .map(|i| BlockId(i as u32))
        .collect();
    let mut work: Vec<(BTreeSet<BlockId>, BTreeSet<BlockId>, Option<usize>)> =
        vec![(all, BTreeSet::new(), None)];
    while let Some((region, cut_headers, parent)) = work.pop() {
        // The region's subgraph without edges into the enclosing headers.
        let mut sub: DiGraph<BlockId, ()> = DiGraph::new();
        let mut index = std::collections::BTreeMap::new();
        for b in &region {
            index.insert(*b, sub.add_node(*b));
        }
        let mut self_loop = BTreeSet::new();
        for b in &region {
            for e in graph.neighbors(NodeIndex::new(b.index())) {
                let s = BlockId(e.index() as u32);
                if region.contains(&s) && !cut_headers.contains(&s) {
                    sub.add_edge(index[b], index[&s], ());
                    if s == *b {
                        self_loop.insert(s);
                    }
                }
            }
        }
        let mut sccs: Vec<BTreeSet<BlockId>> = tarjan_scc(&sub)
            .into_iter()
            .map(|c| c.into_iter().map(|n| sub[n]).collect::<BTreeSet<_>>())
            .filter(|c| c.len() > 1 || c.iter().any(|b| self_loop.contains(b)))
            .collect();
        sccs.sort();
        for scc in sccs.into_iter().rev() {
            let mut headers: Vec<BlockId> = scc
                .iter()
                .copied()
                .filter(|b| {
                    graph
                        .neighbors_directed(NodeIndex::new(b.index()), petgraph::Incoming)
                        .any(|p| {
                            let p = BlockId(p.index() as u32);
                            reachable[p.index()] && !scc.contains(&p)
                        })
                })
                .collect();
            if headers.is_empty() {
                headers.extend(scc.iter().next().copied());
            }
            let id = cycles.len();
            cycles.push(Cycle {
                headers: headers.clone(),
                blocks: scc.clone(),
                parent,
            });
            work.push((scc, headers.into_iter().collect(), Some(id)));
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_module;
    use crate::ir::Source;

    fn func(text: &str) -> Function {
        match parse_module(Source::new("t.ll", text)) {
            Ok(m) => m.functions.into_iter().next().expect("one function"),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn diamond_dominators_and_postdominators() {
        let f = func(
            "define i32 @f(i1 %c) {\nentry:\n br i1 %c, label %a, label %b\na:\n br label %j\nb:\n br label %j\nj:\n ret i32 0\n}\n",
        );
        let cfg = Cfg::new(&f);
        let (entry, a, j) = (BlockId(0), BlockId(1), BlockId(3));
        assert!(cfg.dominates(entry, j));
        assert!(!cfg.dominates(a, j));
        assert_eq!(cfg.idom(j), Some(entry));
        assert_eq!(cfg.ipdom(entry), Some(PostDom::Block(j)));
        assert_eq!(cfg.ipdom(j), Some(PostDom::Exit));
        assert!(cfg.post_dominates(PostDom::Block(j), a));
        assert!(cfg.cycles().is_empty());
    }

    #[test]
    fn nested_loops_form_a_forest() {
        let f = func(
            "define void @f(i1 %c) {\nentry:\n br label %outer\nouter:\n br label %inner\ninner:\n br i1 %c, label %inner, label %latch\nlatch:\n br i1 %c, label %outer, label %exit\nexit:\n ret void\n}\n",
        );
        let cfg = Cfg::new(&f);
        let cycles = cfg.cycles();
        assert_eq!(cycles.len(), 2);
        assert_eq!(cycles[0].headers, vec![BlockId(1)]);
        assert_eq!(cycles[0].blocks.len(), 3);
        assert_eq!(cycles[1].headers, vec![BlockId(2)]);
        assert_eq!(cycles[1].parent, Some(0));
        assert!(!cycles[0].is_irreducible());
    }

    #[test]
    fn dominance_numbering_agrees_with_the_dominator_chain() {
        // Random CFGs: block k branches to two pseudo-random blocks > 0.
        let mut x: u64 = 0x1234_5678;
        for _ in 0..40 {
            let n = 2 + (x % 12) as usize;
            let mut text = String::from("define void @f(i1 %c) {\n");
            for k in 0..n {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (t, e) = (
                    1 + (x >> 33) as usize % (n - 1),
                    1 + (x >> 17) as usize % (n - 1),
                );
                text.push_str(&format!("b{k}:\n"));
                if x.is_multiple_of(5) {
                    text.push_str("  ret void\n");
                } else {
                    text.push_str(&format!("  br i1 %c, label %b{t}, label %b{e}\n"));
                }
            }
            text.push_str("}\n");
            let f = func(&text);
            let cfg = Cfg::new(&f);
            for a in f.block_ids() {
                for b in f.block_ids() {
                    let chain = cfg
                        .dom
                        .dominators(NodeIndex::new(b.index()))
                        .is_some_and(|mut it| it.any(|d| d.index() == a.index()));
                    let reachable = cfg.is_reachable(a) && cfg.is_reachable(b);
                    assert_eq!(
                        cfg.dominates(a, b),
                        chain && reachable,
                        "{a:?} {b:?} in\n{text}"
                    );
                }
            }
        }
    }

    #[test]
    fn irreducible_cycle_has_two_headers() {
        let f = func(
            "define void @f(i1 %c) {\nentry:\n br i1 %c, label %a, label %b\na:\n br i1 %c, label %b, label %exit\nb:\n br i1 %c, label %a, label %exit\nexit:\n ret void\n}\n",
        );
        let cfg = Cfg::new(&f);
        assert_eq!(cfg.cycles().len(), 1);
        assert!(cfg.cycles()[0].is_irreducible());
    }
}
