//! Variadic reductions before transforming: a `reduce` or `reduce-window`
//! of several operands whose computation reduces each operand on its own
//! (result `k` computed from the `k`-th parameters of both sides only: two
//! sums, a sum and a max, as XLA's multi-output fusion and `lax.reduce` of
//! a tuple make them) becomes one `reduce` (`reduce-window`) per operand
//! and a `tuple` of their results under the old name, so the
//! single-operand rules (sum, product, max and min with JAX's tie rule)
//! cover it. A reduce whose components depend on each other (an argmax,
//! whose index follows the values) is left as it is, for the argmax rules,
//! the trees and folds of `map.rs`, or an error naming it.

use hlox_hlo::ir::{CompId, Computation, InstId, Instruction, Module, Op};
use hlox_hlo::{PrimaryMap, SecondaryMap, Shape};
use std::collections::{HashMap, HashSet};

/// `m` with every splittable variadic reduce split, or `None` when it has
/// none.
pub(crate) fn split_reduces(m: &Module) -> Option<Module> {
    let splittable = |inst: &Instruction| {
        matches!(inst.op, Op::Reduce { .. } | Op::ReduceWindow { .. })
            && inst.shape.is_tuple()
            && inst.operands.len() >= 4
            && components(m, inst.called[0]).is_some()
    };
    if !m
        .computations
        .values()
        .any(|c| c.instructions.values().any(splittable))
    {
        return None;
    }
    let mut names = Names {
        insts: m
            .computations
            .values()
            .flat_map(|c| c.instructions.values().map(|i| i.name.clone()))
            .collect(),
        comps: m.computations.values().map(|c| c.name.clone()).collect(),
    };
    let mut out = m.clone();
    let mut made: HashMap<CompId, Vec<CompId>> = HashMap::new();
    for (id, c) in m.computations.iter() {
        if !c.instructions.values().any(splittable) {
            continue;
        }
        let mut insts: PrimaryMap<InstId, Instruction> = PrimaryMap::new();
        let mut new_id: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
        for (iid, inst) in c.instructions.iter() {
            let ops: Vec<InstId> = inst
                .operands
                .iter()
                .map(|&o| new_id[o].expect("operands come first"))
                .collect();
            let split = if splittable(inst) {
                split_one(m, &mut out, &mut made, &mut names, inst, &ops)
            } else {
                None
            };
            let n = if let Some(parts) = split {
                let results = parts.into_iter().map(|r| insts.push(r)).collect();
                let mut t =
                    Instruction::new(inst.name.clone(), Op::Tuple, inst.shape.clone(), results);
                t.metadata = inst.metadata.clone();
                insts.push(t)
            } else {
                let mut i = inst.clone();
                i.operands = ops;
                insts.push(i)
            };
            new_id[iid] = Some(n);
        }
        let params = c
            .params
            .iter()
            .map(|&p| new_id[p].expect("a parameter is an instruction"))
            .collect();
        out.computations[id] = Computation {
            name: c.name.clone(),
            root: new_id[c.root].expect("the root is an instruction"),
            instructions: insts,
            params,
            execution_thread: c.execution_thread.clone(),
        };
    }
    Some(out)
}

/// The instruction and computation names taken so far.
struct Names {
    insts: HashSet<String>,
    comps: HashSet<String>,
}

/// The per-operand reduces that replace the variadic reduce `inst` (of
/// the new operands `ops`), their computations added to `out` (once per
/// reducer: `made`); `None` when its reducer does not split.
fn split_one(
    m: &Module,
    out: &mut Module,
    made: &mut HashMap<CompId, Vec<CompId>>,
    names: &mut Names,
    inst: &Instruction,
    ops: &[InstId],
) -> Option<Vec<Instruction>> {
    let reducer = *inst.called.first()?;
    let Shape::Tuple(leaves) = &inst.shape else {
        return None;
    };
    let parts = match made.get(&reducer) {
        Some(p) => p.clone(),
        None => {
            let ids: Vec<CompId> = components(m, reducer)?
                .into_iter()
                .map(|mut comp| {
                    comp.name = unique(&mut names.comps, &comp.name);
                    for i in comp.instructions.values_mut() {
                        i.name = unique(&mut names.insts, &i.name);
                    }
                    out.computations.push(comp)
                })
                .collect();
            made.insert(reducer, ids.clone());
            ids
        }
    };
    let k = parts.len();
    if leaves.len() != k || ops.len() != 2 * k {
        return None;
    }
    let mut results = Vec::with_capacity(k);
    for (j, &part) in parts.iter().enumerate() {
        let mut r = Instruction::new(
            unique(&mut names.insts, &format!("{}.{j}", inst.name)),
            inst.op.clone(),
            leaves[j].clone(),
            vec![ops[j], ops[k + j]],
        );
        r.called = vec![part];
        r.metadata = inst.metadata.clone();
        results.push(r);
    }
    Some(results)
}

/// The reducer `comp` of `2n` scalar parameters `(a_0..a_n-1, b_0..b_n-1)`
/// returning an `n`-tuple split into `n` computations of two parameters,
/// when result `k` depends on `a_k` and `b_k` only (and nothing has side
/// effects).
pub(crate) fn components(m: &Module, comp: CompId) -> Option<Vec<Computation>> {
    let c = m.computations.get(comp)?;
    let root = c.root_inst();
    let n = root.operands.len();
    if !matches!(root.op, Op::Tuple) || n < 2 || c.params.len() != 2 * n {
        return None;
    }
    let mut parts = Vec::with_capacity(n);
    for k in 0..n {
        let (a, b) = (c.params[k], c.params[n + k]);
        // What result k reads, back to the parameters.
        let mut needed: HashSet<InstId> = HashSet::new();
        let mut stack = vec![root.operands[k]];
        while let Some(x) = stack.pop() {
            if !needed.insert(x) {
                continue;
            }
            let inst = c.inst(x);
            if matches!(inst.op, Op::Parameter { .. }) && x != a && x != b {
                return None;
            }
            if inst.op.opcode().may_have_side_effect() || !inst.shape.is_array() {
                return None;
            }
            stack.extend(&inst.operands);
        }
        let mut insts: PrimaryMap<InstId, Instruction> = PrimaryMap::new();
        let mut new_id: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
        // Both parameters, in order, even where the result reads one.
        let mut params = Vec::with_capacity(2);
        for (number, p) in [a, b].into_iter().enumerate() {
            let mut i = c.inst(p).clone();
            i.op = Op::Parameter {
                number: number as u64,
            };
            let id = insts.push(i);
            new_id[p] = Some(id);
            params.push(id);
        }
        for (id, inst) in c.instructions.iter() {
            if !needed.contains(&id) || new_id[id].is_some() {
                continue;
            }
            let mut i = inst.clone();
            i.operands = inst
                .operands
                .iter()
                .map(|&o| new_id[o].expect("operands come first"))
                .collect();
            new_id[id] = Some(insts.push(i));
        }
        parts.push(Computation {
            name: format!("{}.{k}", c.name),
            root: new_id[root.operands[k]]?,
            instructions: insts,
            params,
            execution_thread: c.execution_thread.clone(),
        });
    }
    Some(parts)
}

fn unique(set: &mut HashSet<String>, base: &str) -> String {
    if set.insert(base.to_string()) {
        return base.to_string();
    }
    let mut k = 1u64;
    loop {
        let cand = format!("{base}.{k}");
        if set.insert(cand.clone()) {
            return cand;
        }
        k += 1;
    }
}
