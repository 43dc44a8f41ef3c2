//! Pre- and post-order numbers of a tree over a CFG's blocks (the
//! dominator tree of the IR's and of machine IR's CFGs): `a` is an
//! ancestor of `b` exactly when `pre(a) <= pre(b)` and `post(b) <=
//! post(a)`, an O(1) dominance test.

/// The numbers of the tree given by `parent` over the blocks (by index)
/// in `rpo`, whose first block is the root; `None` for blocks not in
/// `rpo`.
pub fn tree_order(
    n: usize,
    rpo: &[usize],
    parent: impl Fn(usize) -> Option<usize>,
) -> Vec<Option<(u32, u32)>> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &b in rpo.iter().skip(1) {
        if let Some(p) = parent(b) {
            if p != b {
                children[p].push(b);
            }
        }
    }
    let mut order = vec![None; n];
    let Some(&root) = rpo.first() else {
        return order;
    };
    let (mut pre, mut post) = (0u32, 0u32);
    let mut pre_of = vec![0u32; n];
    // (block, index of the next child to visit)
    let mut stack = vec![(root, 0usize)];
    pre_of[root] = pre;
    pre += 1;
    while let Some((b, next)) = stack.pop() {
        if let Some(&c) = children[b].get(next) {
            stack.push((b, next + 1));
            pre_of[c] = pre;
            pre += 1;
            stack.push((c, 0));
        } else {
            order[b] = Some((pre_of[b], post));
            post += 1;
        }
    }
    order
}
