//! Collectives and `shard_map` boundaries, so SPMD programs (JAX's
//! `shard_map` with `psum`, `all_gather`, `psum_scatter`, `ppermute`)
//! are differentiated.
//!
//! All of them are linear: forward mode applies the op to the tangents.
//! Reverse mode uses JAX's transposes: a sum all-reduce (of one operand
//! or several) and an all-to-all (array or tuple form) are their own
//! transposes; all-gather and a sum reduce-scatter transpose into each
//! other; a collective-permute into the inverse permutation; a
//! collective-broadcast (JAX's `pbroadcast`) into a sum over its group
//! kept on the group's first device. Max and min all-reduces (`pmax`,
//! `pmin`) have no derivative, as in JAX ([`refusal`]). At a
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
        // A sum of one operand or several (XLA's combined all-reduces).
        Op::AllReduce(_) | Op::ReduceScatter { .. } => {
            reducer_op(m, inst.called[0]) == Some(BinaryOp::Add)
        }
        Op::AllGather { .. } | Op::CollectivePermute { .. } | Op::CollectiveBroadcast(_) => true,
        // The array form: chunk j of device i goes to chunk i of device j;
        // the tuple form: operand j of device i becomes result i of device
        // j. Both are symmetric permutations, so their own transposes.
        Op::AllToAll {
            split_dimension: Some(_),
            ..
        } => inst.operands.len() == 1,
        Op::AllToAll {
            split_dimension: None,
            ..
        } => true,
        Op::CustomCall(cc) => is_boundary(&cc.target),
        _ => false,
    }
}

/// Why `inst`, a collective no rule differentiates, is refused: what
/// forward and reverse mode say of it (`None`: not such a collective).
pub(crate) fn refusal(m: &Module, inst: &Instruction) -> Option<String> {
    match &inst.op {
        Op::AllReduce(_) | Op::ReduceScatter { .. } if !is_linear_collective(m, inst) => {
            let what = match reducer_op(m, inst.called[0]) {
                Some(BinaryOp::Maximum) => "a max all-reduce (`pmax`)",
                Some(BinaryOp::Minimum) => "a min all-reduce (`pmin`)",
                _ => "an all-reduce or reduce-scatter that is not a sum",
            };
            Some(format!(
                "{what} has no derivative: JAX defines none for `pmax`/`pmin` either (only sums are differentiated; vmap batches any)"
            ))
        }
        _ => None,
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
        Op::AllReduce(_) | Op::AllToAll { .. } if cts.len() == 1 => {
            one(e, inst.op.clone(), &inst.called)
        }
        // Variadic: the same op of every leaf's cotangent, split again.
        Op::AllReduce(_) | Op::AllToAll { .. } => {
            let shape = Shape::Tuple(cts.iter().map(|&c| e.shape(c).clone()).collect());
            let r = e.add_shaped(inst.op.clone(), cts, &inst.called, shape)?;
            (0..cts.len()).map(|i| e.gte(r, i)).collect()
        }
        Op::CollectiveBroadcast(c) => {
            // JAX's `pbroadcast` transpose: the cotangents summed over the
            // group, to its first device (the source); the others get
            // zeros, which a collective-permute from each source to itself
            // gives (a device no pair targets receives zeros).
            let groups = c.replica_groups.expand().ok_or_else(|| {
                unsupported(e.transform, inst, "its replica groups do not expand")
            })?;
            let firsts: Vec<i64> = if groups.is_empty() {
                vec![0]
            } else {
                groups.iter().filter_map(|g| g.first().copied()).collect()
            };
            let ty = e.ty(cts[0])?;
            let add = e.out.reducer(BinaryOp::Add, ty)?;
            let sum = e.add(Op::AllReduce(c.clone()), &cts[..1], &[add])?;
            let r = e.add(
                Op::CollectivePermute {
                    channel_id: c.channel_id,
                    source_target_pairs: firsts.iter().map(|&f| (f, f)).collect(),
                },
                &[sum],
                &[],
            )?;
            Ok(vec![r])
        }
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
