//! `map` before transforming: each `map` instruction becomes its scalar
//! computation applied to whole arrays (element-wise ops on the operands,
//! scalar constants broadcast to the map's shape), in place, so the rules
//! of the element-wise ops differentiate and batch it and no rule of its
//! own is needed.

use crate::{unsupported, TransformError};
use hlox_hlo::ir::{CompId, Computation, InstId, Instruction, Module, Op};
use hlox_hlo::{PrimaryMap, SecondaryMap, Shape};
use std::borrow::Cow;
use std::collections::HashSet;

/// `m` with every `map` expanded, or `m` itself when it has none.
pub(crate) fn expand_maps<'m>(
    m: &'m Module,
    transform: &'static str,
) -> Result<Cow<'m, Module>, TransformError> {
    let has_map = |c: &Computation| {
        c.instructions
            .values()
            .any(|i| matches!(i.op, Op::Map { .. }))
    };
    if !m.computations.values().any(has_map) {
        return Ok(Cow::Borrowed(m));
    }
    let mut names: HashSet<String> = m
        .computations
        .values()
        .flat_map(|c| c.instructions.values().map(|i| i.name.clone()))
        .collect();
    let mut out = m.clone();
    for (id, c) in m.computations.iter() {
        if has_map(c) {
            out.computations[id] = expand_in(m, c, transform, &mut names)?;
        }
    }
    Ok(Cow::Owned(out))
}

/// A copy of `c` with its maps expanded (instructions renumbered, still in
/// topological order).
fn expand_in(
    m: &Module,
    c: &Computation,
    transform: &'static str,
    names: &mut HashSet<String>,
) -> Result<Computation, TransformError> {
    let mut x = Expander {
        m,
        transform,
        names,
        insts: PrimaryMap::new(),
    };
    let mut new_id: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
    for (id, inst) in c.instructions.iter() {
        let ops: Vec<InstId> = inst
            .operands
            .iter()
            .map(|&o| new_id[o].expect("operands come first"))
            .collect();
        let n = match &inst.op {
            Op::Map { dimensions } => {
                let dims = match &inst.shape {
                    Shape::Array(a) => a.dims.clone(),
                    _ => return Err(unsupported(transform, inst, "a map of tuples")),
                };
                if *dimensions != (0..dims.len() as i64).collect::<Vec<_>>() {
                    return Err(unsupported(
                        transform,
                        inst,
                        "a map over some of the dimensions only",
                    ));
                }
                x.apply(inst, inst.called[0], &ops, &dims)?
            }
            _ => {
                let mut i = inst.clone();
                i.operands = ops;
                x.insts.push(i)
            }
        };
        new_id[id] = Some(n);
    }
    let params = c
        .params
        .iter()
        .map(|&p| new_id[p].expect("a parameter is an instruction"))
        .collect();
    Ok(Computation {
        name: c.name.clone(),
        root: new_id[c.root].expect("the root is an instruction"),
        instructions: x.insts,
        params,
        execution_thread: c.execution_thread.clone(),
    })
}

struct Expander<'a> {
    m: &'a Module,
    transform: &'static str,
    names: &'a mut HashSet<String>,
    insts: PrimaryMap<InstId, Instruction>,
}

impl Expander<'_> {
    fn name(&mut self, base: &str) -> String {
        let mut n = base.to_string();
        let mut k = 1;
        while !self.names.insert(n.clone()) {
            n = format!("{base}.{k}");
            k += 1;
        }
        n
    }

    fn push(&mut self, base: &str, op: Op, shape: Shape, operands: Vec<InstId>) -> InstId {
        let name = self.name(base);
        self.insts.push(Instruction::new(name, op, shape, operands))
    }

    /// The scalar computation `f` applied element-wise to the arrays
    /// `args` of dimensions `dims`, for the map (or call inside a map's
    /// computation) `at`.
    fn apply(
        &mut self,
        at: &Instruction,
        f: CompId,
        args: &[InstId],
        dims: &[i64],
    ) -> Result<InstId, TransformError> {
        let comp = self.m.comp(f);
        let mut val: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
        for (id, inst) in comp.instructions.iter() {
            let ops: Vec<InstId> = inst
                .operands
                .iter()
                .map(|&o| val[o].expect("operands come first"))
                .collect();
            let refuse = |why: &str| {
                Err(unsupported(
                    self.transform,
                    at,
                    format!(
                        "its computation `{}` has `{}` ({}): {why}",
                        comp.name,
                        inst.name,
                        inst.op.name()
                    ),
                ))
            };
            let Shape::Array(a) = &inst.shape else {
                return refuse("only scalar computations are mapped");
            };
            if !a.dims.is_empty() {
                return refuse("only scalar computations are mapped");
            }
            let shape = Shape::array(a.ty, dims.to_vec());
            let base = format!("{}.{}", at.name, inst.name);
            let v = match &inst.op {
                Op::Parameter { number } => args[*number as usize],
                Op::Constant { .. } => {
                    let mut k = inst.clone();
                    k.name = self.name(&base);
                    k.operands.clear();
                    let k = self.insts.push(k);
                    self.push(&base, Op::Broadcast { dimensions: vec![] }, shape, vec![k])
                }
                Op::Call => self.apply(at, inst.called[0], &ops, dims)?,
                // Scalar to scalar: the value itself.
                Op::Copy | Op::Reshape | Op::Bitcast | Op::Broadcast { .. } => ops[0],
                op if op.is_elementwise() && inst.called.is_empty() => {
                    self.push(&base, op.clone(), shape, ops)
                }
                _ => return refuse("only element-wise ops, constants and calls are mapped"),
            };
            val[id] = Some(v);
        }
        Ok(val[comp.root].expect("the root is an instruction"))
    }
}
