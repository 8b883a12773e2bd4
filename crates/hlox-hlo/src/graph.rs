//! The module's graphs, on `petgraph`: instruction dependences inside a
//! computation and the call graph between computations.
//!
//! Both are [`DepGraph`]s over dense indices (an instruction's or a
//! computation's position), with an edge from each node to what it depends
//! on (an operand or control predecessor; a called computation). They give
//! the two orders the IR's invariants need (operands before users, callees
//! before callers; see `ir.rs`), and when there is none, a [`Cycle`] with the
//! nodes on it so that errors can name them.
//!
//! The text parser and proto decoding build their arenas in [`DepGraph::order`]
//! (the smallest valid order, so text and protos written in a valid order
//! keep it);
//! the verifier can ask [`call_cycle`] for a cycle in a built module.

use crate::entity::EntityRef;
use crate::ir::{CompId, Computation, InstId, Module};
use petgraph::algo;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Dependences between nodes `0..n`: an edge `a -> b` says `a` depends on
/// `b` (uses it as an operand, or calls it).
#[derive(Clone, Debug, Default)]
pub struct DepGraph {
    g: DiGraph<(), ()>,
}

/// A dependence cycle: `nodes[0]` depends on `nodes[1]`, ..., and the last
/// node depends on `nodes[0]`. `nodes[0]` is the smallest index on any cycle,
/// so the error a cycle gives does not depend on how the graph was walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    pub nodes: Vec<usize>,
}

impl Cycle {
    /// The cycle as `a -> b -> a`, with `name` giving each node's name.
    pub fn describe<'a>(&self, name: impl Fn(usize) -> &'a str) -> String {
        let mut parts: Vec<&str> = self.nodes.iter().map(|&i| name(i)).collect();
        if let Some(&first) = self.nodes.first() {
            parts.push(name(first));
        }
        parts.join(" -> ")
    }
    /// The first node of the cycle (the smallest index on any cycle).
    pub fn first(&self) -> usize {
        self.nodes.first().copied().unwrap_or(0)
    }
}

impl DepGraph {
    /// `n` nodes and no dependences.
    pub fn new(n: usize) -> DepGraph {
        let mut g = DiGraph::with_capacity(n, n);
        for _ in 0..n {
            g.add_node(());
        }
        DepGraph { g }
    }

    /// `n` nodes, node `i` depending on each of `deps(i)`. Indices out of
    /// range are the caller's bug; they are ignored rather than panicking.
    pub fn from_deps<I: IntoIterator<Item = usize>>(
        n: usize,
        deps: impl Fn(usize) -> I,
    ) -> DepGraph {
        let mut g = DepGraph::new(n);
        for i in 0..n {
            for d in deps(i) {
                g.add_dep(i, d);
            }
        }
        g
    }

    /// Records that `user` depends on `dep` (ignored when either is out of range).
    pub fn add_dep(&mut self, user: usize, dep: usize) {
        let n = self.g.node_count();
        if user < n && dep < n {
            self.g
                .add_edge(NodeIndex::new(user), NodeIndex::new(dep), ());
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.g.node_count()
    }

    /// True when the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.g.node_count() == 0
    }

    /// Every node after the nodes it depends on, and among the nodes that
    /// are ready the smallest index first: the lexicographically smallest
    /// topological order. An index order that already is one is kept
    /// unchanged, and in an out-of-order text a definition waits for its
    /// dependences while the rest keeps its order. A [`Cycle`]
    /// when there is no such order.
    ///
    /// (petgraph's `toposort` is a depth-first order: valid, but it would
    /// move independent definitions around, so the printed form of a module
    /// written out of order would depend on the walk.)
    pub fn order(&self) -> Result<Vec<usize>, Cycle> {
        let n = self.g.node_count();
        // Dependences not yet placed, per node.
        let mut pending: Vec<usize> = self
            .g
            .node_indices()
            .map(|i| self.g.neighbors(i).count())
            .collect();
        let mut ready: BinaryHeap<Reverse<usize>> =
            (0..n).filter(|&i| pending[i] == 0).map(Reverse).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse(i)) = ready.pop() {
            order.push(i);
            for user in self
                .g
                .neighbors_directed(NodeIndex::new(i), Direction::Incoming)
            {
                let u = user.index();
                pending[u] -= 1;
                if pending[u] == 0 {
                    ready.push(Reverse(u));
                }
            }
        }
        if order.len() == n {
            Ok(order)
        } else {
            Err(self.cycle().unwrap_or(Cycle { nodes: Vec::new() }))
        }
    }

    /// A cycle through the smallest index on any cycle, or `None` when the
    /// graph is acyclic.
    pub fn cycle(&self) -> Option<Cycle> {
        // The nodes on cycles are those of strongly connected components
        // with more than one node, and those with an edge to themselves.
        let start = algo::tarjan_scc(&self.g)
            .into_iter()
            .filter(|scc| scc.len() > 1 || self.g.contains_edge(scc[0], scc[0]))
            .flat_map(|scc| scc.into_iter())
            .min()?;
        if self.g.contains_edge(start, start) {
            return Some(Cycle {
                nodes: vec![start.index()],
            });
        }
        // The shortest way back to `start` from one of its successors.
        let (_, path) = self
            .g
            .edges(start)
            .map(|e| e.target())
            .filter_map(|s| algo::astar(&self.g, s, |x| x == start, |_| 1usize, |_| 0))
            .min_by_key(|(cost, path)| (*cost, path.first().map(|n| n.index())))?;
        let mut nodes = vec![start.index()];
        nodes.extend(
            path.iter()
                .map(|n| n.index())
                .filter(|&i| i != start.index()),
        );
        Some(Cycle { nodes })
    }
}

/// The operand graph of a built computation: instruction `i` depends on its
/// operands (indices are `InstId::index`).
pub fn instruction_graph(c: &Computation) -> DepGraph {
    DepGraph::from_deps(c.instructions.len(), |i| {
        c.instructions
            .get(InstId::new(i))
            .map(|inst| inst.operands.iter().map(|o| o.index()).collect::<Vec<_>>())
            .unwrap_or_default()
    })
}

/// The call graph of a built module: computation `i` depends on the
/// computations its instructions call (indices are `CompId::index`).
pub fn call_graph(m: &Module) -> DepGraph {
    DepGraph::from_deps(m.computations.len(), |i| {
        m.computations
            .get(CompId::new(i))
            .map(|c| {
                c.instructions
                    .values()
                    .flat_map(|inst| inst.called.iter().map(|k| k.index()))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    })
}

/// A cycle in the module's call graph, as computation ids
/// (`[a, b]` means `a` calls `b` and `b` calls `a`).
pub fn call_cycle(m: &Module) -> Option<Vec<CompId>> {
    call_graph(m)
        .cycle()
        .map(|c| c.nodes.into_iter().map(CompId::new).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_valid_order() {
        let g = DepGraph::from_deps(4, |i| match i {
            2 => vec![0, 1],
            3 => vec![2, 0],
            _ => vec![],
        });
        assert_eq!(g.order(), Ok(vec![0, 1, 2, 3]));
    }

    #[test]
    fn keeps_as_much_of_an_invalid_order_as_it_can() {
        // 0 uses 2; 1 is independent: 1 stays before 2 and 0 moves after 2.
        let g = DepGraph::from_deps(3, |i| if i == 0 { vec![2] } else { vec![] });
        assert_eq!(g.order(), Ok(vec![1, 2, 0]));
    }

    #[test]
    fn orders_dependences_first() {
        // 0 uses 2, 2 uses 1.
        let g = DepGraph::from_deps(3, |i| match i {
            0 => vec![2],
            2 => vec![1],
            _ => vec![],
        });
        let order = g.order().unwrap();
        let pos = |n: usize| order.iter().position(|&x| x == n).unwrap();
        assert!(pos(1) < pos(2) && pos(2) < pos(0), "{order:?}");
    }

    #[test]
    fn names_a_cycle_from_its_smallest_node() {
        // 3 -> 1 -> 2 -> 3, and 0 uses 3 (not on the cycle).
        let g = DepGraph::from_deps(4, |i| match i {
            0 => vec![3],
            1 => vec![2],
            2 => vec![3],
            3 => vec![1],
            _ => vec![],
        });
        let c = g.order().unwrap_err();
        assert_eq!(c.nodes, vec![1, 2, 3]);
        let names = ["a", "b", "c", "d"];
        assert_eq!(c.describe(|i| names[i]), "b -> c -> d -> b");
        let self_loop = DepGraph::from_deps(2, |i| if i == 1 { vec![1] } else { vec![] });
        assert_eq!(self_loop.order().unwrap_err().nodes, vec![1]);
    }
}
