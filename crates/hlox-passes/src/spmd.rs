//! SPMD expansion: a global module as JAX writes it, made into the program
//! that each of N devices runs (docs/multi-device.md).
//!
//! Every device runs the whole module on the global inputs. What happens
//! outside `shard_map` regions is therefore computed replicated, on every
//! device (no automatic partitioning: `jit` programs whose inputs carry
//! shardings give the same results, computed in full on each device). At a
//! `shard_map` boundary:
//!
//! - `xla.sdy.GlobalToLocalShape` becomes a `dynamic-slice` of each global
//!   operand at this device's shard (offsets from a per-device table
//!   indexed by the device's partition id), so the manual computation body
//!   runs on the device's shard;
//! - `xla.sdy.LocalToGlobalShape` becomes an all-gather of every device's
//!   local value, then slices, a transpose and a reshape that lay the
//!   shards out by the output sharding (an axis the sharding does not name
//!   is replicated: the shard of position 0 along it is taken);
//! - the sharding annotations (`Sharding`, `xla.sdy.FuncResultSharding`,
//!   ...) become copies.
//!
//! Then every collective, and `replica-id`/`partition-id`, becomes a custom
//! call of the Host target [`COLLECTIVE_TARGET`] whose opaque bytes are a
//! [`CollectiveDesc`]: the groups resolved to global device ranks, the
//! reduction recognized from `to_apply`. The runtime (`hlox-cpu`'s
//! `collectives.rs`) runs them through a communicator: threads of one
//! process, or MPI ranks. Both the compiled backend and the evaluator run
//! the result, since both run Host custom calls.

use hlox_hlo::edit::{Cursor, EditError, Editor, NewInst, Signatures};
use hlox_hlo::sharding::{
    self, CollectiveDesc, CollectiveKind, Mesh, ReduceKind, SdyError, Topology, ValueSharding,
    COLLECTIVE_TARGET, GLOBAL_TO_LOCAL, IDENTITY_TARGETS, LOCAL_TO_GLOBAL, MESHES_ATTR,
};
use hlox_hlo::{
    ArrayShape, BinaryOp, CompId, CustomCall, CustomCallApiVersion, CustomCallSchedule,
    ElementType, EntityRef, InstId, Literal, Module, Op, Shape, SliceDim,
};
use thiserror::Error;

/// Why a module cannot run on the devices asked for.
#[derive(Debug, Error)]
pub enum SpmdError {
    #[error("{inst}: {source}")]
    Sharding {
        inst: String,
        #[source]
        source: SdyError,
    },
    #[error("module attribute {MESHES_ATTR}: {0}")]
    Meshes(#[source] SdyError),
    #[error(
        "mesh '@{mesh}' has {mesh_devices} devices, but the run has {devices}: \
         run it with --devices {mesh_devices}"
    )]
    MeshSize {
        mesh: String,
        mesh_devices: i64,
        devices: i64,
    },
    #[error(
        "{inst}: names device {device}, but the run has {devices} devices \
         (ids 0..{devices}): run it with --devices {needs} or more",
        needs = device + 1
    )]
    TooFewDevices {
        inst: String,
        device: i64,
        devices: i64,
    },
    #[error("{inst}: {what}")]
    Unsupported { inst: String, what: String },
    #[error("computation '{comp}': {source}")]
    Edit {
        comp: String,
        #[source]
        source: EditError,
    },
    #[error("a multi-device run needs at least one device, not {0}")]
    NoDevices(i64),
}

fn unsupported(inst: &str, what: impl Into<String>) -> SpmdError {
    SpmdError::Unsupported {
        inst: inst.to_string(),
        what: what.into(),
    }
}

/// How the devices of a run are numbered for `m`: partitions when it was
/// written for SPMD (a Shardy mesh, a collective with a channel id, or a
/// `partition-id`), replicas otherwise (XLA's cross-replica programs).
pub fn topology_for(m: &Module, devices: i64) -> Topology {
    let partitioned = m.frontend_attributes.iter().any(|(k, _)| k == MESHES_ATTR)
        || m.computations.values().any(|c| {
            c.instructions.values().any(|i| match &i.op {
                Op::PartitionId => true,
                Op::AllReduce(c) | Op::CollectiveBroadcast(c) => c.channel_id.is_some(),
                Op::AllGather { collective, .. }
                | Op::ReduceScatter { collective, .. }
                | Op::AllToAll { collective, .. } => collective.channel_id.is_some(),
                Op::CollectivePermute { channel_id, .. } => channel_id.is_some(),
                _ => false,
            })
        });
    if partitioned {
        Topology {
            replicas: 1,
            partitions: devices,
        }
    } else {
        Topology {
            replicas: devices,
            partitions: 1,
        }
    }
}

/// Rewrites `m` into the program each of `devices` devices runs (see the
/// module docs); returns how the devices are numbered. The result has no
/// collective opcodes and no `xla.sdy` custom calls left.
pub fn expand_spmd(m: &mut Module, devices: i64) -> Result<Topology, SpmdError> {
    if devices < 1 {
        return Err(SpmdError::NoDevices(devices));
    }
    let topo = topology_for(m, devices);
    let meshes = match m.frontend_attributes.iter().find(|(k, _)| k == MESHES_ATTR) {
        Some((_, v)) => sharding::parse_meshes(v).map_err(SpmdError::Meshes)?,
        None => Vec::new(),
    };
    for mesh in &meshes {
        if mesh.size() != devices && mesh.size() > 1 {
            return Err(SpmdError::MeshSize {
                mesh: mesh.name.clone(),
                mesh_devices: mesh.size(),
                devices,
            });
        }
    }
    for c in m.computations.values() {
        for i in c.instructions.values() {
            let needs = sharding::devices_named(&i.op);
            if i.op.is_collective() && needs > devices {
                return Err(SpmdError::TooFewDevices {
                    inst: i.name.clone(),
                    device: needs - 1,
                    devices,
                });
            }
        }
    }
    // The reduction of every computation used as a combiner.
    let reductions: Vec<Option<ReduceKind>> = m.computations.values().map(reduce_kind_of).collect();
    let sigs = Signatures::of_module(m);
    let ids: Vec<CompId> = m.computations.keys().collect();
    let mut names = crate::util::NameUniquer::instructions(m);
    for cid in ids {
        let needs_edit = m.computations[cid].instructions.values().any(|i| {
            i.op.is_collective()
                || i.op
                    .as_custom_call()
                    .is_some_and(|c| c.target.starts_with("xla.sdy.") || c.target == "Sharding")
        });
        if !needs_edit {
            continue;
        }
        let comp = std::mem::replace(&mut m.computations[cid], crate::util::empty_computation());
        let comp_name = comp.name.clone();
        let mut ed = Editor::new(comp, &sigs);
        let mut x = Expander {
            ed: &mut ed,
            names: &mut names,
            topo,
            meshes: &meshes,
            reductions: &reductions,
        };
        let result = ed_walk(&mut x);
        let comp = match result {
            Ok(()) => ed.finish().map_err(|source| SpmdError::Edit {
                comp: comp_name.clone(),
                source,
            })?,
            Err(e) => {
                m.computations[cid] = ed.abandon();
                return Err(e);
            }
        };
        m.computations[cid] = comp;
    }
    Ok(topo)
}

fn ed_walk(x: &mut Expander<'_, '_>) -> Result<(), SpmdError> {
    let ids: Vec<InstId> = x.ed.original_ids().collect();
    for id in ids {
        if x.ed.is_removed(id) {
            continue;
        }
        x.instruction(id)?;
    }
    Ok(())
}

/// The reduction a combiner computation performs: its root is one of the
/// recognized binary ops of its two parameters.
fn reduce_kind_of(c: &hlox_hlo::Computation) -> Option<ReduceKind> {
    let (b, _) = c.binary_of_params()?;
    Some(match b {
        BinaryOp::Add => ReduceKind::Add,
        BinaryOp::Multiply => ReduceKind::Mul,
        BinaryOp::Maximum => ReduceKind::Max,
        BinaryOp::Minimum => ReduceKind::Min,
        BinaryOp::And => ReduceKind::And,
        BinaryOp::Or => ReduceKind::Or,
        BinaryOp::Xor => ReduceKind::Xor,
        _ => return None,
    })
}

/// The custom call that runs `desc` on the Host.
pub fn collective_call(desc: &CollectiveDesc) -> Op {
    Op::CustomCall(Box::new(CustomCall {
        target: COLLECTIVE_TARGET.to_string(),
        opaque: desc.encode(),
        has_side_effect: true,
        output_operand_aliasing: Vec::new(),
        schedule: CustomCallSchedule::None,
        api_version: CustomCallApiVersion::StatusReturningUnified,
        operand_layout_constraints: None,
    }))
}

struct Expander<'e, 's> {
    ed: &'e mut Editor<'s>,
    names: &'e mut crate::util::NameUniquer,
    topo: Topology,
    meshes: &'e [Mesh],
    reductions: &'e [Option<ReduceKind>],
}

impl Expander<'_, '_> {
    fn edit<T>(&self, r: Result<T, EditError>) -> Result<T, SpmdError> {
        r.map_err(|source| SpmdError::Edit {
            comp: self.ed.name().to_string(),
            source,
        })
    }

    fn instruction(&mut self, id: InstId) -> Result<(), SpmdError> {
        let inst = self.ed.inst(id).clone();
        if let Some(cc) = inst.op.as_custom_call() {
            if IDENTITY_TARGETS.contains(&cc.target.as_str()) && inst.operands.len() == 1 {
                let r = self.ed.rewrite(id, Op::Copy, inst.operands.clone(), vec![]);
                return self.edit(r);
            }
            if cc.target == GLOBAL_TO_LOCAL {
                return self.global_to_local(id);
            }
            if cc.target == LOCAL_TO_GLOBAL {
                return self.local_to_global(id);
            }
            if cc.target.starts_with("xla.sdy.") {
                return Err(unsupported(
                    &inst.name,
                    format!(
                        "custom call target '{}' is a Shardy annotation hlox does not \
                         run yet",
                        cc.target
                    ),
                ));
            }
            return Ok(());
        }
        if !inst.op.is_collective() {
            return Ok(());
        }
        let desc = self.describe(&inst)?;
        let mut op = collective_call(&desc);
        if let (Op::CustomCall(cc), Some(layouts)) = (&mut op, self.kept_layouts(&inst, &desc)) {
            cc.operand_layout_constraints = Some(layouts);
        }
        let r = self.ed.rewrite(id, op, inst.operands.clone(), vec![]);
        self.edit(r)
    }

    /// The operand layouts a layout-blind collective keeps. An all-reduce,
    /// a collective-permute and a collective-broadcast combine or move
    /// whole buffers element by element, so they give the same result in
    /// any layout the operands and results share: when `inst`'s operands
    /// are not in the default layout and each result leaf has its
    /// operand's layout (as XLA's layout assignment leaves a `psum` of a
    /// transposed gradient), the call is constrained to exactly those
    /// layouts, and `BoundaryLayouts` inserts no copies around it. The
    /// kinds that split or concatenate along a dimension (all-gather,
    /// reduce-scatter, all-to-all) walk their buffers row-major and keep
    /// the default layouts. `None`: nothing to keep.
    fn kept_layouts(
        &self,
        inst: &hlox_hlo::Instruction,
        desc: &CollectiveDesc,
    ) -> Option<Vec<hlox_hlo::Shape>> {
        let blind = matches!(
            desc.kind,
            CollectiveKind::AllReduce(_)
                | CollectiveKind::Permute { .. }
                | CollectiveKind::Broadcast
        );
        let operands: Vec<hlox_hlo::Shape> = inst
            .operands
            .iter()
            .map(|&o| self.ed.inst(o).shape.clone())
            .collect();
        let results: Vec<&hlox_hlo::Shape> = match &inst.shape {
            hlox_hlo::Shape::Tuple(leaves) => leaves.iter().collect(),
            s => vec![s],
        };
        let keep = blind
            && !operands.is_empty()
            && operands.len() == results.len()
            && operands.iter().zip(&results).all(|(o, r)| o == *r)
            && operands.iter().any(|o| *o != o.with_default_layout());
        keep.then_some(operands)
    }

    fn reduction(&self, inst: &hlox_hlo::Instruction) -> Result<ReduceKind, SpmdError> {
        inst.called
            .first()
            .and_then(|c| self.reductions.get(c.index()).copied().flatten())
            .ok_or_else(|| {
                unsupported(
                    &inst.name,
                    "to_apply is not one of add, multiply, maximum, minimum, and, or, xor \
                     of its two parameters; other combiners do not run on several devices yet",
                )
            })
    }

    /// The descriptor of collective `inst`.
    fn describe(&self, inst: &hlox_hlo::Instruction) -> Result<CollectiveDesc, SpmdError> {
        let operand_shapes: Vec<ArrayShape> = inst
            .operands
            .iter()
            .map(|&o| self.ed.inst(o).shape.as_array().cloned())
            .collect::<Option<_>>()
            .ok_or_else(|| unsupported(&inst.name, "tuple or token operands"))?;
        let ty = match operand_shapes.first() {
            Some(s) => s.ty,
            None => ElementType::U32,
        };
        if operand_shapes.iter().any(|s| s.ty != ty) {
            return Err(unsupported(
                &inst.name,
                "operands of different element types",
            ));
        }
        let groups = |c: &hlox_hlo::Collective| -> Result<Vec<Vec<i64>>, SpmdError> {
            let g = c
                .replica_groups
                .expand()
                .ok_or_else(|| unsupported(&inst.name, "inconsistent replica_groups"))?;
            Ok(self
                .topo
                .resolve_groups(&g, c.channel_id.is_some(), c.use_global_device_ids))
        };
        let all = vec![(0..self.topo.devices()).collect::<Vec<i64>>()];
        let (kind, groups) = match &inst.op {
            Op::AllReduce(c) => (CollectiveKind::AllReduce(self.reduction(inst)?), groups(c)?),
            Op::AllGather {
                collective,
                dimension,
            } => (
                CollectiveKind::AllGather { dim: *dimension },
                groups(collective)?,
            ),
            Op::ReduceScatter {
                collective,
                dimension,
            } => (
                CollectiveKind::ReduceScatter {
                    dim: *dimension,
                    reduce: self.reduction(inst)?,
                },
                groups(collective)?,
            ),
            Op::AllToAll {
                collective,
                split_dimension,
            } => (
                CollectiveKind::AllToAll {
                    split: *split_dimension,
                },
                groups(collective)?,
            ),
            Op::CollectiveBroadcast(c) => (CollectiveKind::Broadcast, groups(c)?),
            Op::CollectivePermute {
                channel_id,
                source_target_pairs,
            } => (
                CollectiveKind::Permute {
                    pairs: self
                        .topo
                        .resolve_pairs(source_target_pairs, channel_id.is_some()),
                },
                all,
            ),
            Op::ReplicaId => (CollectiveKind::ReplicaId, all),
            Op::PartitionId => (CollectiveKind::PartitionId, all),
            _ => return Err(unsupported(&inst.name, "not a collective")),
        };
        Ok(CollectiveDesc {
            name: inst.name.clone(),
            kind,
            ty,
            operands: if operand_shapes.is_empty() {
                vec![vec![]]
            } else {
                operand_shapes.iter().map(|s| s.dims.clone()).collect()
            },
            groups,
        })
    }

    fn mesh_and_shardings(
        &self,
        inst: &hlox_hlo::Instruction,
        attr: &str,
    ) -> Result<(&Mesh, Vec<ValueSharding>), SpmdError> {
        let err = |source| SpmdError::Sharding {
            inst: inst.name.clone(),
            source,
        };
        let text = inst
            .frontend_attributes
            .iter()
            .find(|(k, _)| k == attr)
            .map(|(_, v)| v.as_str())
            .ok_or_else(|| unsupported(&inst.name, format!("no {attr} frontend attribute")))?;
        let mut shardings = sharding::parse_shardings(text, self.meshes).map_err(err)?;
        let manual = match inst
            .frontend_attributes
            .iter()
            .find(|(k, _)| k == "xla.sdy.manual_axes")
        {
            Some((_, v)) => Some(sharding::parse_manual_axes(v).map_err(err)?),
            None => None,
        };
        let mesh_name = shardings
            .first()
            .map(|s| s.mesh.clone())
            .unwrap_or_default();
        let mesh = self
            .meshes
            .iter()
            .find(|m| m.name == mesh_name)
            .ok_or_else(|| err(SdyError::UnknownMesh(mesh_name.clone())))?;
        if shardings.iter().any(|s| s.mesh != mesh.name) {
            return Err(unsupported(&inst.name, "shardings over more than one mesh"));
        }
        // Axes the region is not manual over are left to automatic
        // partitioning, which hlox does not do: those dimensions stay whole.
        if let Some(manual) = manual {
            for s in &mut shardings {
                for d in &mut s.dims {
                    d.retain(|&a| manual.contains(&mesh.axes[a].0));
                }
            }
        }
        Ok((mesh, shardings))
    }

    /// The array shapes of `operand` and of the matching result leaf
    /// `result` of the shape-changing call `inst` (tuples are refused).
    fn array_pair(
        &self,
        inst: &str,
        operand: InstId,
        result: &Shape,
    ) -> Result<(ArrayShape, ArrayShape), SpmdError> {
        let o = self.ed.inst(operand).shape.as_array().cloned();
        let o = o.ok_or_else(|| unsupported(inst, "a tuple operand"))?;
        let r = result.as_array().cloned();
        let r = r.ok_or_else(|| unsupported(inst, "a tuple result"))?;
        Ok((o, r))
    }

    fn device_coords(&self, inst: &str, mesh: &Mesh) -> Result<Vec<Vec<i64>>, SpmdError> {
        (0..self.topo.devices())
            .map(|d| {
                // In a partitioned program the mesh numbers partitions.
                mesh.coords(d % self.topo.partitions).ok_or_else(|| {
                    unsupported(inst, format!("device {d} is not in mesh '@{}'", mesh.name))
                })
            })
            .collect()
    }

    fn fresh(&mut self, base: &str) -> String {
        self.names.fresh(base)
    }

    fn insert(
        &mut self,
        at: InstId,
        name: &str,
        op: Op,
        operands: Vec<InstId>,
    ) -> Result<InstId, SpmdError> {
        let n = self.fresh(name);
        let r = self
            .ed
            .insert(Cursor::Before(at), NewInst::new(n, op, operands));
        self.edit(r)
    }

    fn insert_shaped(
        &mut self,
        at: InstId,
        name: &str,
        op: Op,
        operands: Vec<InstId>,
        shape: Shape,
    ) -> Result<InstId, SpmdError> {
        let n = self.fresh(name);
        let r = self
            .ed
            .insert_declared(Cursor::Before(at), NewInst::new(n, op, operands), shape);
        self.edit(r)
    }

    /// This device's partition id as an `s32[]`.
    fn partition_id_s32(&mut self, at: InstId, base: &str) -> Result<InstId, SpmdError> {
        let desc = CollectiveDesc {
            name: format!("{base}.partition-id"),
            kind: CollectiveKind::PartitionId,
            ty: ElementType::U32,
            operands: vec![vec![]],
            groups: vec![(0..self.topo.devices()).collect()],
        };
        let pid = self.insert_shaped(
            at,
            &format!("{base}.pid"),
            collective_call(&desc),
            vec![],
            Shape::scalar(ElementType::U32),
        )?;
        self.insert_shaped(
            at,
            &format!("{base}.pid32"),
            Op::Convert,
            vec![pid],
            Shape::scalar(ElementType::S32),
        )
    }

    /// `table[pid]` as an `s32[]`: a per-device constant.
    fn lookup(
        &mut self,
        at: InstId,
        base: &str,
        table: &[i64],
        pid: InstId,
    ) -> Result<InstId, SpmdError> {
        let t: Vec<i32> = table.iter().map(|&v| v as i32).collect();
        let c = self.insert(
            at,
            &format!("{base}.table"),
            Op::Constant {
                literal: Literal::r1(&t),
            },
            vec![],
        )?;
        let s = self.insert_shaped(
            at,
            &format!("{base}.entry"),
            Op::DynamicSlice { sizes: vec![1] },
            vec![c, pid],
            Shape::array(ElementType::S32, vec![1]),
        )?;
        self.insert_shaped(
            at,
            &format!("{base}.offset"),
            Op::Reshape,
            vec![s],
            Shape::scalar(ElementType::S32),
        )
    }

    fn result_leaves(inst: &hlox_hlo::Instruction) -> Vec<Shape> {
        match inst.shape.tuple_elements() {
            Some(t) => t.to_vec(),
            None => vec![inst.shape.clone()],
        }
    }

    /// Rewrites `id` to its new leaves: a copy (keeping its layout) or a
    /// tuple of copies.
    fn finish_leaves(&mut self, id: InstId, leaves: Vec<InstId>) -> Result<(), SpmdError> {
        let inst = self.ed.inst(id).clone();
        let shapes = Self::result_leaves(&inst);
        if inst.shape.tuple_elements().is_none() {
            let r = self.ed.rewrite(id, Op::Copy, leaves, vec![]);
            return self.edit(r);
        }
        let mut copies = Vec::new();
        for (k, (leaf, shape)) in leaves.into_iter().zip(shapes).enumerate() {
            let c = self.insert(id, &format!("{}.{k}", inst.name), Op::Copy, vec![leaf])?;
            let r = self.ed.set_layout(c, &shape);
            self.edit(r)?;
            copies.push(c);
        }
        let r = self.ed.rewrite(id, Op::Tuple, copies, vec![]);
        self.edit(r)
    }

    /// A shard_map boundary's mesh, one sharding per operand (from
    /// frontend attribute `attr`) and its result leaves, one per operand.
    fn boundary(
        &self,
        inst: &hlox_hlo::Instruction,
        attr: &str,
    ) -> Result<(Mesh, Vec<ValueSharding>, Vec<Shape>), SpmdError> {
        let (mesh, shardings) = self.mesh_and_shardings(inst, attr)?;
        let leaves = Self::result_leaves(inst);
        if shardings.len() != inst.operands.len() || leaves.len() != inst.operands.len() {
            return Err(unsupported(
                &inst.name,
                format!(
                    "{} operands, {} shardings and {} results",
                    inst.operands.len(),
                    shardings.len(),
                    leaves.len()
                ),
            ));
        }
        Ok((mesh.clone(), shardings, leaves))
    }

    fn global_to_local(&mut self, id: InstId) -> Result<(), SpmdError> {
        let inst = self.ed.inst(id).clone();
        let (mesh, shardings, locals) = self.boundary(&inst, "xla.sdy.in_shardings")?;
        let coords = self.device_coords(&inst.name, &mesh)?;
        let pid = self.partition_id_s32(id, &inst.name)?;
        let mut leaves = Vec::new();
        for (k, &operand) in inst.operands.iter().enumerate() {
            let (global, local) = self.array_pair(&inst.name, operand, &locals[k])?;
            let s = &shardings[k];
            let mut offsets = Vec::new();
            for d in 0..global.rank() {
                let n = s.shards(&mesh, d);
                if global.dims[d] != local.dims[d] * n {
                    return Err(unsupported(
                        &inst.name,
                        format!(
                            "operand {k} dimension {d}: {} is not {} shards of {}",
                            global.dims[d], n, local.dims[d]
                        ),
                    ));
                }
                let table: Vec<i64> = coords
                    .iter()
                    .map(|c| s.shard_index(&mesh, d, c) * local.dims[d])
                    .collect();
                offsets.push(self.lookup(id, &format!("{}.{k}.d{d}", inst.name), &table, pid)?);
            }
            let mut operands = vec![operand];
            operands.extend(offsets);
            let slice = self.insert_shaped(
                id,
                &format!("{}.{k}.shard", inst.name),
                Op::DynamicSlice {
                    sizes: local.dims.clone(),
                },
                operands,
                Shape::array(global.ty, local.dims.clone()),
            )?;
            leaves.push(slice);
        }
        self.finish_leaves(id, leaves)
    }

    fn local_to_global(&mut self, id: InstId) -> Result<(), SpmdError> {
        let inst = self.ed.inst(id).clone();
        let (mesh, shardings, globals) = self.boundary(&inst, "xla.sdy.out_shardings")?;
        if self.topo.replicas != 1 {
            return Err(unsupported(
                &inst.name,
                "a shard_map in a replicated program",
            ));
        }
        let n = self.topo.devices();
        let iota: Vec<i64> = (0..n).collect();
        if mesh.device_ids != iota {
            return Err(unsupported(
                &inst.name,
                format!(
                    "mesh '@{}' lists its devices out of order (device_ids); hlox assembles \
                     results only for meshes of devices 0..{n} in order yet",
                    mesh.name
                ),
            ));
        }
        let mut leaves = Vec::new();
        for (k, &operand) in inst.operands.iter().enumerate() {
            let (local, global) = self.array_pair(&inst.name, operand, &globals[k])?;
            let s = &shardings[k];
            let ty = local.ty;
            let base = format!("{}.{k}", inst.name);
            // [1, local...] gathered over every device: [n, local...], then
            // [mesh axes..., local...].
            let mut one = vec![1];
            one.extend(&local.dims);
            let r = self.insert_shaped(
                id,
                &format!("{base}.one"),
                Op::Reshape,
                vec![operand],
                Shape::array(ty, one.clone()),
            )?;
            let mut gathered_dims = one.clone();
            gathered_dims[0] = n;
            let desc = CollectiveDesc {
                name: format!("{base}.gather"),
                kind: CollectiveKind::AllGather { dim: 0 },
                ty,
                operands: vec![one],
                groups: vec![iota.clone()],
            };
            let g = self.insert_shaped(
                id,
                &format!("{base}.gather"),
                collective_call(&desc),
                vec![r],
                Shape::array(ty, gathered_dims),
            )?;
            let mut mesh_dims: Vec<i64> = mesh.axes.iter().map(|a| a.1).collect();
            let na = mesh_dims.len();
            mesh_dims.extend(&local.dims);
            let mut cur = self.insert_shaped(
                id,
                &format!("{base}.mesh"),
                Op::Reshape,
                vec![g],
                Shape::array(ty, mesh_dims.clone()),
            )?;
            // Replicated axes: the shard at position 0.
            let used: Vec<usize> = s.dims.iter().flatten().copied().collect();
            if (0..na).any(|a| !used.contains(&a)) {
                let dims: Vec<SliceDim> = mesh_dims
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| SliceDim {
                        start: 0,
                        limit: if i < na && !used.contains(&i) { 1 } else { d },
                        stride: 1,
                    })
                    .collect();
                let sliced: Vec<i64> = dims.iter().map(|d| d.limit).collect();
                cur = self.insert_shaped(
                    id,
                    &format!("{base}.replicated"),
                    Op::Slice { dims },
                    vec![cur],
                    Shape::array(ty, sliced.clone()),
                )?;
                mesh_dims = sliced;
            }
            // For each global dimension: its axes, then the local extent.
            let mut perm = Vec::new();
            for d in 0..local.rank() {
                perm.extend(
                    s.dims
                        .get(d)
                        .cloned()
                        .unwrap_or_default()
                        .iter()
                        .map(|&a| a as i64),
                );
                perm.push((na + d) as i64);
            }
            // The sliced axes (size 1) go first, in any order.
            let mut order: Vec<i64> = (0..na as i64)
                .filter(|a| !used.contains(&(*a as usize)))
                .collect();
            order.extend(perm);
            let tdims: Vec<i64> = order.iter().map(|&p| mesh_dims[p as usize]).collect();
            let t = self.insert_shaped(
                id,
                &format!("{base}.order"),
                Op::Transpose {
                    dimensions: order.clone(),
                },
                vec![cur],
                Shape::array(ty, tdims),
            )?;
            let out = self.insert_shaped(
                id,
                &format!("{base}.global"),
                Op::Reshape,
                vec![t],
                Shape::array(ty, global.dims.clone()),
            )?;
            leaves.push(out);
        }
        self.finish_leaves(id, leaves)
    }
}
