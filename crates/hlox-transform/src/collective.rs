//! Collectives and `shard_map` boundaries, so SPMD programs (JAX's
//! `shard_map` with `psum`, `all_gather`, `psum_scatter`, `ppermute`)
//! are differentiated.
//!
//! All of them are linear: forward mode applies the op to the tangents.
//! Reverse mode uses JAX's transposes: a sum all-reduce and an (array)
//! all-to-all are their own transposes; all-gather and a sum
//! reduce-scatter transpose into each other; a collective-permute into
//! the inverse permutation. At a
//! `shard_map` boundary (`xla.sdy.GlobalToLocalShape` /
//! `LocalToGlobalShape`) the two custom calls transpose into each other
//! with the same shardings, as JAX's `shard_map` transpose (with
//! `check_vma=False`) does: a cotangent entering a replicated output is
//! divided among the devices of the manual axes its sharding does not
//! name, and a cotangent leaving a replicated input is summed over them.
//! The sharding annotations (`xla.sdy.FuncResultSharding`, ...) are the
//! identity.

use crate::emit::Emitter;
use crate::rules::reducer_op;
use crate::{unsupported, TransformError};
use hlox_hlo::ir::{
    BinaryOp, Collective, CustomCall, InstId, Instruction, Module, Op, ReplicaGroups,
};
use hlox_hlo::sharding::{self, Mesh, GLOBAL_TO_LOCAL, IDENTITY_TARGETS, LOCAL_TO_GLOBAL};
use hlox_hlo::Shape;

/// Whether `inst` is a collective or `shard_map` boundary these rules
/// cover (every one of them linear in its operands).
pub(crate) fn is_linear_collective(m: &Module, inst: &Instruction) -> bool {
    match &inst.op {
        Op::AllReduce(_) => {
            inst.operands.len() == 1 && reducer_op(m, inst.called[0]) == Some(BinaryOp::Add)
        }
        Op::ReduceScatter { .. } => reducer_op(m, inst.called[0]) == Some(BinaryOp::Add),
        Op::AllGather { .. } | Op::CollectivePermute { .. } => true,
        // The array form: chunk j of device i goes to chunk i of device j,
        // a symmetric permutation, so its own transpose.
        Op::AllToAll {
            split_dimension: Some(_),
            ..
        } => inst.operands.len() == 1,
        Op::CustomCall(cc) => is_boundary(&cc.target),
        _ => false,
    }
}

/// A `shard_map` boundary or a sharding annotation.
pub(crate) fn is_boundary(target: &str) -> bool {
    target == GLOBAL_TO_LOCAL || target == LOCAL_TO_GLOBAL || IDENTITY_TARGETS.contains(&target)
}

fn attr<'a>(inst: &'a Instruction, key: &str) -> Option<&'a str> {
    inst.frontend_attributes
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The cotangents of the operands of the linear collective `inst`
/// (operands `ops`, result `out`), given its result's cotangent leaves
/// `cts` (one per result leaf).
pub(crate) fn transpose(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    ops: &[InstId],
    cts: &[InstId],
) -> Result<Vec<InstId>, TransformError> {
    let one =
        |e: &mut Emitter,
         op: Op,
         called: &[hlox_hlo::CompId]|
         -> Result<Vec<InstId>, TransformError> { Ok(vec![e.add(op, &cts[..1], called)?]) };
    match &inst.op {
        Op::AllReduce(_) | Op::AllToAll { .. } => one(e, inst.op.clone(), &inst.called),
        Op::AllGather {
            collective,
            dimension,
        } => {
            let ty = e.ty(cts[0])?;
            let add = e.out.reducer(BinaryOp::Add, ty)?;
            one(
                e,
                Op::ReduceScatter {
                    collective: collective.clone(),
                    dimension: *dimension,
                },
                &[add],
            )
        }
        Op::ReduceScatter {
            collective,
            dimension,
        } => one(
            e,
            Op::AllGather {
                collective: collective.clone(),
                dimension: *dimension,
            },
            &[],
        ),
        Op::CollectivePermute {
            channel_id,
            source_target_pairs,
        } => one(
            e,
            Op::CollectivePermute {
                channel_id: *channel_id,
                source_target_pairs: source_target_pairs.iter().map(|&(s, t)| (t, s)).collect(),
            },
            &[],
        ),
        Op::CustomCall(cc) if IDENTITY_TARGETS.contains(&cc.target.as_str()) => Ok(cts.to_vec()),
        Op::CustomCall(cc) => boundary_transpose(e, m, inst, cc, ops, cts),
        _ => Err(unsupported(e.transform, inst, "not a linear collective")),
    }
}

/// The transpose of a `shard_map` boundary: the other boundary, with the
/// same shardings (see the module doc for replicated values).
fn boundary_transpose(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    cc: &CustomCall,
    ops: &[InstId],
    cts: &[InstId],
) -> Result<Vec<InstId>, TransformError> {
    let into_local = cc.target == LOCAL_TO_GLOBAL;
    let (from_key, to_key, target) = if into_local {
        (
            "xla.sdy.out_shardings",
            "xla.sdy.in_shardings",
            GLOBAL_TO_LOCAL,
        )
    } else {
        (
            "xla.sdy.in_shardings",
            "xla.sdy.out_shardings",
            LOCAL_TO_GLOBAL,
        )
    };
    let transform = e.transform;
    let bad = |why: String| unsupported(transform, inst, why);
    let shardings_text = attr(inst, from_key).ok_or_else(|| bad(format!("no {from_key}")))?;
    let manual_text =
        attr(inst, "xla.sdy.manual_axes").ok_or_else(|| bad("no xla.sdy.manual_axes".into()))?;
    let meshes_text = m
        .frontend_attributes
        .iter()
        .find(|(k, _)| k == sharding::MESHES_ATTR)
        .map(|(_, v)| v.as_str())
        .ok_or_else(|| bad(format!("the module has no {}", sharding::MESHES_ATTR)))?;
    let meshes = sharding::parse_meshes(meshes_text).map_err(|x| bad(x.to_string()))?;
    let shardings =
        sharding::parse_shardings(shardings_text, &meshes).map_err(|x| bad(x.to_string()))?;
    let manual = sharding::parse_manual_axes(manual_text).map_err(|x| bad(x.to_string()))?;
    if shardings.len() != cts.len() {
        return Err(bad(format!(
            "{} shardings for {} values",
            shardings.len(),
            cts.len()
        )));
    }
    let mut moved = Vec::with_capacity(cts.len());
    for (&ct, s) in cts.iter().zip(&shardings) {
        let mesh = meshes
            .iter()
            .find(|x| x.name == s.mesh)
            .ok_or_else(|| bad(format!("no mesh `{}`", s.mesh)))?;
        // The manual axes this value's sharding does not name: it is
        // replicated along them.
        let unnamed: Vec<usize> = mesh
            .axes
            .iter()
            .enumerate()
            .filter(|(a, (name, _))| manual.contains(name) && !s.dims.iter().any(|d| d.contains(a)))
            .map(|(a, _)| a)
            .collect();
        let count: i64 = unnamed.iter().map(|&a| mesh.axes[a].1).product();
        moved.push(if count == 1 {
            ct
        } else if into_local {
            let n = e.full_like(ct, count as f64)?;
            e.div(ct, n)?
        } else {
            let ty = e.ty(ct)?;
            let add = e.out.reducer(BinaryOp::Add, ty)?;
            e.add(
                Op::AllReduce(Collective {
                    channel_id: Some(next_channel(m)),
                    replica_groups: ReplicaGroups::List(groups_along(mesh, &unnamed)),
                    constrain_layout: false,
                    use_global_device_ids: true,
                }),
                &[ct],
                &[add],
            )?
        });
    }
    let shapes: Vec<Shape> = ops.iter().map(|&o| e.shape(o).clone()).collect();
    let shape = if shapes.len() == 1 {
        shapes[0].clone()
    } else {
        Shape::Tuple(shapes.clone())
    };
    let mut call = cc.clone();
    call.target = target.to_string();
    let r = e.add_shaped(Op::CustomCall(Box::new(call)), &moved, &[], shape)?;
    e.set_frontend_attributes(
        r,
        vec![
            (to_key.to_string(), shardings_text.to_string()),
            ("xla.sdy.manual_axes".to_string(), manual_text.to_string()),
        ],
    );
    if shapes.len() == 1 {
        Ok(vec![r])
    } else {
        (0..shapes.len()).map(|i| e.gte(r, i)).collect()
    }
}

/// A channel id no collective of `m` uses.
fn next_channel(m: &Module) -> i64 {
    let mut max = 0;
    for c in m.computations.values() {
        for i in c.instructions.values() {
            let id = match &i.op {
                Op::AllReduce(c) => c.channel_id,
                Op::AllGather { collective, .. }
                | Op::ReduceScatter { collective, .. }
                | Op::AllToAll { collective, .. } => collective.channel_id,
                Op::CollectivePermute { channel_id, .. } => *channel_id,
                _ => None,
            };
            max = max.max(id.unwrap_or(0));
        }
    }
    max + 1
}

/// The groups of devices (global ids) that differ only along the mesh
/// axes `along`.
fn groups_along(mesh: &Mesh, along: &[usize]) -> Vec<Vec<i64>> {
    let mut groups: Vec<(Vec<i64>, Vec<i64>)> = Vec::new();
    for &d in &mesh.device_ids {
        let Some(c) = mesh.coords(d) else { continue };
        let key: Vec<i64> = c
            .iter()
            .enumerate()
            .filter(|(a, _)| !along.contains(a))
            .map(|(_, &x)| x)
            .collect();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(d),
            None => groups.push((key, vec![d])),
        }
    }
    groups.into_iter().map(|g| g.1).collect()
}

/// The frontend attributes that hold a value's sharding.
pub(crate) const SHARDING_ATTRS: &[&str] = &[
    "xla.sdy.in_shardings",
    "xla.sdy.out_shardings",
    "xla.sdy.sharding",
];

/// A sharding attribute (`#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>,
/// ...]>` or `#sdy.sharding<@mesh, [...]>`) with an unsharded dimension
/// in front of every value: what vmap's batch dimension is. `None` when
/// the text is not of that form.
pub(crate) fn batch_sharding(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    let mut values = 0;
    while let Some(at) = rest.find("<@") {
        let open = at + rest[at..].find('[')?;
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        out.push_str(if rest.starts_with(']') { "{}" } else { "{}, " });
        values += 1;
    }
    out.push_str(rest);
    (values > 0).then_some(out)
}
