//! Devices and shardings: what a module says about the devices it runs on.
//!
//! JAX (0.10, Shardy) writes its device mesh into the module's frontend
//! attributes (`xla.sdy.meshes={mesh = #sdy.mesh<["x"=2, "y"=2]>}`) and the
//! sharding of each `shard_map` boundary into the frontend attributes of
//! the `xla.sdy.GlobalToLocalShape` / `xla.sdy.LocalToGlobalShape` custom
//! calls (`#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>`). This module
//! reads those attributes into [`Mesh`] and [`DimSharding`]s, and says
//! which shard of a dimension each device holds; the SPMD expansion in
//! `hlox-passes` (`spmd.rs`) turns them into per-device HLO.
//!
//! It also holds [`check_one_device`], the single-device rule: a module
//! whose collectives name device ids past 0 needs that many devices.

use crate::ir::{Op, ReplicaGroups};
use crate::opcode::Opcode;
use thiserror::Error;

/// The module frontend attribute that holds JAX's meshes.
pub const MESHES_ATTR: &str = "xla.sdy.meshes";
/// The custom-call targets of a `shard_map` boundary (Shardy's export).
pub const GLOBAL_TO_LOCAL: &str = "xla.sdy.GlobalToLocalShape";
pub const LOCAL_TO_GLOBAL: &str = "xla.sdy.LocalToGlobalShape";
/// Annotations that compute the identity (their operand, unchanged).
pub const IDENTITY_TARGETS: &[&str] = &[
    "Sharding",
    "xla.sdy.FuncResultSharding",
    "xla.sdy.ShardingConstraint",
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
];

/// What went wrong reading a sharding or mesh attribute.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SdyError {
    #[error("cannot read {what} '{text}': {why}")]
    Syntax {
        what: &'static str,
        text: String,
        why: String,
    },
    #[error("sharding names mesh '@{0}', which the module's xla.sdy.meshes does not define")]
    UnknownMesh(String),
    #[error("sharding names axis \"{axis}\", which mesh '@{mesh}' does not have")]
    UnknownAxis { mesh: String, axis: String },
    #[error(
        "{what} '{text}' uses sub-axes (\"x\":(1)2), which hlox does not split yet; \
         use whole mesh axes in the PartitionSpec"
    )]
    SubAxis { what: &'static str, text: String },
    #[error("cannot read xla.sdy.meshes '{text}': mesh '{mesh}': {source}")]
    Mesh {
        text: String,
        mesh: String,
        #[source]
        source: MeshError,
    },
}

/// The most devices a mesh may have (as many as a replica group list may
/// name): a mesh lists or implies one id per device.
pub const MAX_MESH_DEVICES: i64 = 1 << 20;

/// What is wrong with one `#sdy.mesh<...>` of `xla.sdy.meshes`.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MeshError {
    #[error("expected '[' after #sdy.mesh<")]
    NoAxisList,
    #[error("unclosed axis list (expected ']')")]
    UnclosedAxisList,
    #[error("expected \"axis\"=size, found '{0}'")]
    Axis(String),
    #[error("axis size '{0}' is not a number")]
    SizeNotANumber(String),
    #[error("axis size {0} must be positive")]
    SizeNotPositive(i64),
    #[error("expected device_ids=[...] after the axis list, found '{0}'")]
    DeviceIdsSyntax(String),
    #[error("the mesh has more than {MAX_MESH_DEVICES} devices")]
    TooManyDevices,
    #[error("device_ids must be numbers")]
    DeviceIdsNotNumbers,
    #[error("{ids} device_ids for a mesh of {devices} devices (give one id per device)")]
    DeviceIdsCount { ids: usize, devices: i64 },
}

/// A device mesh: named axes, major to minor, and the device at each
/// position (row-major; `0..n` unless the mesh lists `device_ids`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    pub name: String,
    pub axes: Vec<(String, i64)>,
    pub device_ids: Vec<i64>,
}

impl Mesh {
    /// The number of devices.
    pub fn size(&self) -> i64 {
        self.axes.iter().map(|a| a.1).product()
    }
    fn axis(&self, name: &str) -> Result<usize, SdyError> {
        self.axes
            .iter()
            .position(|a| a.0 == name)
            .ok_or_else(|| SdyError::UnknownAxis {
                mesh: self.name.clone(),
                axis: name.to_string(),
            })
    }
    /// Device `device`'s coordinate along each axis (`None` if the mesh
    /// does not hold that device).
    pub fn coords(&self, device: i64) -> Option<Vec<i64>> {
        let mut p = self.device_ids.iter().position(|&d| d == device)? as i64;
        let mut c = vec![0; self.axes.len()];
        for (k, (_, n)) in self.axes.iter().enumerate().rev() {
            c[k] = p % n;
            p /= n;
        }
        Some(c)
    }
    /// The strides of the axes in a device's row-major position.
    pub fn strides(&self) -> Vec<i64> {
        let mut s = vec![1; self.axes.len()];
        for k in (0..self.axes.len().saturating_sub(1)).rev() {
            s[k] = s[k + 1] * self.axes[k + 1].1;
        }
        s
    }
}

/// How one dimension of a value is split: the mesh axes it is sharded
/// over, major first (empty: not split). Indices into [`Mesh::axes`].
pub type DimSharding = Vec<usize>;

/// The sharding of one value: one [`DimSharding`] per dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueSharding {
    pub mesh: String,
    pub dims: Vec<DimSharding>,
}

impl ValueSharding {
    /// How many shards dimension `d` has.
    pub fn shards(&self, mesh: &Mesh, d: usize) -> i64 {
        self.dims
            .get(d)
            .map(|axes| axes.iter().map(|&a| mesh.axes[a].1).product())
            .unwrap_or(1)
    }
    /// Which shard of dimension `d` the device at `coords` holds.
    pub fn shard_index(&self, mesh: &Mesh, d: usize, coords: &[i64]) -> i64 {
        let mut idx = 0;
        for &a in self.dims.get(d).map(|v| v.as_slice()).unwrap_or(&[]) {
            idx = idx * mesh.axes[a].1 + coords[a];
        }
        idx
    }
}

/// The meshes of a module's `xla.sdy.meshes` attribute value
/// (`{mesh = #sdy.mesh<["x"=4]>, other = #sdy.mesh<[...], device_ids=[...]>}`).
pub fn parse_meshes(text: &str) -> Result<Vec<Mesh>, SdyError> {
    let bad = |why: &str| SdyError::Syntax {
        what: "xla.sdy.meshes",
        text: text.to_string(),
        why: why.to_string(),
    };
    let body = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| bad("expected {name = #sdy.mesh<...>, ...}"))?;
    let mut meshes = Vec::new();
    let mut rest = body.trim();
    while !rest.is_empty() {
        let eq = rest.find('=').ok_or_else(|| bad("expected 'name = '"))?;
        let name = rest[..eq].trim().trim_matches('"').to_string();
        rest = rest[eq + 1..].trim_start();
        let m = rest
            .strip_prefix("#sdy.mesh<")
            .ok_or_else(|| bad("expected #sdy.mesh<"))?;
        let end = matching(m, '<', '>').ok_or_else(|| bad("unclosed #sdy.mesh<"))?;
        let mesh = parse_mesh(name.clone(), &m[..end]).map_err(|source| SdyError::Mesh {
            text: text.to_string(),
            mesh: name,
            source,
        })?;
        meshes.push(mesh);
        rest = m[end + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    Ok(meshes)
}

/// The position of the `close` that ends a text opened just before `s`.
fn matching(s: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_str = false;
    for (i, ch) in s.char_indices() {
        match ch {
            '"' => in_str = !in_str,
            c if in_str => {
                let _ = c;
            }
            c if c == open => depth += 1,
            c if c == close => {
                if depth == 0 {
                    return Some(i);
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    None
}

/// `["x"=2, "y"=2], device_ids=[...]` (the inside of `#sdy.mesh<...>`).
fn parse_mesh(name: String, s: &str) -> Result<Mesh, MeshError> {
    let s = s.trim();
    let inner = s.strip_prefix('[').ok_or(MeshError::NoAxisList)?;
    let close = inner.find(']').ok_or(MeshError::UnclosedAxisList)?;
    let mut axes = Vec::new();
    for item in inner[..close].split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (n, size) = item
            .split_once('=')
            .ok_or_else(|| MeshError::Axis(item.to_string()))?;
        let size: i64 = size
            .trim()
            .parse()
            .map_err(|_| MeshError::SizeNotANumber(size.trim().to_string()))?;
        if size < 1 {
            return Err(MeshError::SizeNotPositive(size));
        }
        axes.push((n.trim().trim_matches('"').to_string(), size));
    }
    let n = axes
        .iter()
        .try_fold(1i64, |acc, a| acc.checked_mul(a.1))
        .filter(|&n| n <= MAX_MESH_DEVICES)
        .ok_or(MeshError::TooManyDevices)?;
    let rest = inner[close + 1..].trim();
    let device_ids = if let Some(r) = rest.strip_prefix(',') {
        let r = r.trim();
        let ids = r
            .strip_prefix("device_ids=[")
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| MeshError::DeviceIdsSyntax(r.to_string()))?;
        let ids: Vec<i64> = ids
            .split(',')
            .map(|t| t.trim().parse::<i64>())
            .collect::<Result<_, _>>()
            .map_err(|_| MeshError::DeviceIdsNotNumbers)?;
        if ids.len() as i64 != n {
            return Err(MeshError::DeviceIdsCount {
                ids: ids.len(),
                devices: n,
            });
        }
        ids
    } else {
        (0..n).collect()
    };
    Ok(Mesh {
        name,
        axes,
        device_ids,
    })
}

/// `#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, ...]>` (or a single
/// `#sdy.sharding<@mesh, [...]>`), against the module's meshes.
pub fn parse_shardings(text: &str, meshes: &[Mesh]) -> Result<Vec<ValueSharding>, SdyError> {
    let what = "xla.sdy sharding";
    let bad = |why: &str| SdyError::Syntax {
        what,
        text: text.to_string(),
        why: why.to_string(),
    };
    if text.contains(":(") {
        return Err(SdyError::SubAxis {
            what,
            text: text.to_string(),
        });
    }
    let t = text.trim();
    let items: Vec<&str> = if let Some(r) = t.strip_prefix("#sdy.sharding_per_value<[") {
        let r = r
            .strip_suffix("]>")
            .ok_or_else(|| bad("expected ]> at the end"))?;
        let mut v = Vec::new();
        let mut rest = r.trim();
        while let Some(x) = rest.strip_prefix('<') {
            let end = matching(x, '<', '>').ok_or_else(|| bad("unclosed <"))?;
            v.push(&x[..end]);
            rest = x[end + 1..].trim_start();
            rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
        }
        if !rest.is_empty() {
            return Err(bad("expected <@mesh, [...]>"));
        }
        v
    } else if let Some(r) = t.strip_prefix("#sdy.sharding<") {
        vec![r
            .strip_suffix('>')
            .ok_or_else(|| bad("expected > at the end"))?]
    } else {
        return Err(bad("expected #sdy.sharding_per_value<[...]>"));
    };
    items
        .into_iter()
        .map(|item| {
            let (mesh_ref, rest) = item
                .split_once(',')
                .ok_or_else(|| bad("expected @mesh, [dims]"))?;
            let mesh_name = mesh_ref.trim().trim_start_matches('@');
            let mesh = meshes
                .iter()
                .find(|m| m.name == mesh_name)
                .ok_or_else(|| SdyError::UnknownMesh(mesh_name.to_string()))?;
            let rest = rest.trim();
            let dims_text = rest
                .strip_prefix('[')
                .and_then(|r| r.find(']').map(|e| &r[..e]))
                .ok_or_else(|| bad("expected [dims]"))?;
            let mut dims = Vec::new();
            let mut r = dims_text.trim();
            while let Some(x) = r.strip_prefix('{') {
                let end = x.find('}').ok_or_else(|| bad("unclosed {"))?;
                let mut axes = Vec::new();
                for a in x[..end].split(',') {
                    let a = a.trim();
                    if a.is_empty() || a == "?" {
                        continue;
                    }
                    axes.push(mesh.axis(a.trim_matches('"'))?);
                }
                dims.push(axes);
                r = x[end + 1..].trim_start();
                // `{"x"}p1` (a priority) or `{?}`: only the axes matter.
                while r.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '?') {
                    r = &r[1..];
                }
                r = r.strip_prefix(',').unwrap_or(r).trim_start();
            }
            Ok(ValueSharding {
                mesh: mesh.name.clone(),
                dims,
            })
        })
        .collect()
}

/// `#sdy<manual_axes{"x", "y"}>`: the axes a `shard_map` is manual over.
pub fn parse_manual_axes(text: &str) -> Result<Vec<String>, SdyError> {
    let body = text
        .trim()
        .strip_prefix("#sdy<manual_axes{")
        .and_then(|t| t.strip_suffix("}>"))
        .ok_or_else(|| SdyError::Syntax {
            what: "xla.sdy.manual_axes",
            text: text.to_string(),
            why: "expected #sdy<manual_axes{\"x\", ...}>".into(),
        })?;
    Ok(body
        .split(',')
        .map(|a| a.trim().trim_matches('"').to_string())
        .filter(|a| !a.is_empty())
        .collect())
}

/// The largest device id a collective names, plus one (1 when it names
/// none: empty groups mean every device, which is one device here).
pub fn devices_named(op: &Op) -> i64 {
    let groups = |g: &ReplicaGroups| {
        g.expand()
            .map(|g| g.iter().flatten().copied().max().unwrap_or(0) + 1)
            .unwrap_or(1)
    };
    match op {
        Op::AllReduce(c) | Op::CollectiveBroadcast(c) => groups(&c.replica_groups),
        Op::AllGather { collective, .. }
        | Op::ReduceScatter { collective, .. }
        | Op::AllToAll { collective, .. } => groups(&collective.replica_groups),
        Op::CollectivePermute {
            source_target_pairs,
            ..
        } => {
            source_target_pairs
                .iter()
                .map(|&(s, t)| s.max(t))
                .max()
                .unwrap_or(0)
                + 1
        }
        _ => 1,
    }
}

/// A collective that names more devices than a single-device run has.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error(
    "{what} names device {device}, but this run has one device (one replica, one partition; \
     its id is 0): the module needs at least {needs} devices (run it with --devices {needs}, \
     or hlox::Client::cpu_devices({needs}))"
)]
pub struct OneDeviceError {
    pub what: &'static str,
    pub device: i64,
    pub needs: i64,
}

/// The single-device rule: `op` (a collective) may name only device 0.
pub fn check_one_device(op: &Op) -> Result<(), OneDeviceError> {
    let needs = devices_named(op);
    if needs <= 1 {
        return Ok(());
    }
    let what = match op {
        Op::CollectivePermute { .. } => "source_target_pairs",
        _ => "replica_groups",
    };
    Err(OneDeviceError {
        what,
        device: needs - 1,
        needs,
    })
}

/// The Host target that runs every collective of a multi-device module
/// (the SPMD expansion rewrites each collective into a custom call of it,
/// with a [`CollectiveDesc`] as its opaque bytes).
pub const COLLECTIVE_TARGET: &str = "hlox.collective";

/// The reduction of an all-reduce or reduce-scatter, recognized from its
/// `to_apply` computation (XLA's runtime recognizes the same ones).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    Add,
    Mul,
    Max,
    Min,
    And,
    Or,
    Xor,
}

impl ReduceKind {
    pub const ALL: [ReduceKind; 7] = [
        ReduceKind::Add,
        ReduceKind::Mul,
        ReduceKind::Max,
        ReduceKind::Min,
        ReduceKind::And,
        ReduceKind::Or,
        ReduceKind::Xor,
    ];
    pub fn name(self) -> &'static str {
        match self {
            ReduceKind::Add => "add",
            ReduceKind::Mul => "multiply",
            ReduceKind::Max => "maximum",
            ReduceKind::Min => "minimum",
            ReduceKind::And => "and",
            ReduceKind::Or => "or",
            ReduceKind::Xor => "xor",
        }
    }
    pub fn from_name(s: &str) -> Option<ReduceKind> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// What one collective does, with everything resolved at compile time: the
/// groups as global device ranks (every device in at most one group), the
/// operand element type and dimensions. Encoded as the custom call's
/// opaque bytes (`key=value;...`), decoded by the runtime at each call.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveDesc {
    /// The instruction's name, for error messages.
    pub name: String,
    pub kind: CollectiveKind,
    pub ty: crate::ElementType,
    /// The dimensions of each operand (row-major buffers).
    pub operands: Vec<Vec<i64>>,
    /// Groups of global device ranks; for a collective-permute, one group
    /// of every device.
    pub groups: Vec<Vec<i64>>,
}

/// The collective of a [`CollectiveDesc`].
#[derive(Clone, Debug, PartialEq)]
pub enum CollectiveKind {
    AllReduce(ReduceKind),
    AllGather {
        dim: i64,
    },
    ReduceScatter {
        dim: i64,
        reduce: ReduceKind,
    },
    /// `split: Some(d)`: one array split and concatenated along `d`;
    /// `None`: one operand per participant.
    AllToAll {
        split: Option<i64>,
    },
    /// `(source, target)` global device ranks.
    Permute {
        pairs: Vec<(i64, i64)>,
    },
    Broadcast,
    ReplicaId,
    PartitionId,
}

fn ids_text(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Lists of ids, `|`-separated (`0,1|2,3`).
fn id_lists_text(v: &[Vec<i64>]) -> String {
    v.iter()
        .map(|ids| ids_text(ids))
        .collect::<Vec<_>>()
        .join("|")
}

fn ids_parse(s: &str) -> Option<Vec<i64>> {
    if s.is_empty() {
        return Some(Vec::new());
    }
    s.split(',').map(|t| t.parse().ok()).collect()
}

impl CollectiveDesc {
    /// The byte sizes of the collective's operand buffers and result
    /// buffers on device `me` (no operands for the id ops), as every
    /// engine lays them out: one home for what each collective reads and
    /// writes.
    pub fn buffer_sizes(&self, me: usize) -> (Vec<usize>, Vec<usize>) {
        let es = self.ty.byte_size();
        let lens: Vec<usize> = self
            .operands
            .iter()
            .map(|d| d.iter().product::<i64>().max(0) as usize * es)
            .collect();
        let group = self
            .groups
            .iter()
            .find(|g| g.contains(&(me as i64)))
            .map_or(1, |g| g.len());
        let first = lens.first().copied().unwrap_or(0);
        match &self.kind {
            CollectiveKind::ReplicaId | CollectiveKind::PartitionId => (Vec::new(), vec![4]),
            CollectiveKind::AllReduce(_) | CollectiveKind::AllToAll { split: None } => {
                (lens.clone(), lens)
            }
            CollectiveKind::AllGather { .. } => (lens, vec![first * group]),
            CollectiveKind::ReduceScatter { .. } => (lens, vec![first / group.max(1)]),
            _ => (lens, vec![first]),
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let (kind, extra) = match &self.kind {
            CollectiveKind::AllReduce(r) => (Opcode::AllReduce, format!(";reduce={}", r.name())),
            CollectiveKind::AllGather { dim } => (Opcode::AllGather, format!(";dim={dim}")),
            CollectiveKind::ReduceScatter { dim, reduce } => (
                Opcode::ReduceScatter,
                format!(";dim={dim};reduce={}", reduce.name()),
            ),
            CollectiveKind::AllToAll { split } => (
                Opcode::AllToAll,
                split.map(|d| format!(";dim={d}")).unwrap_or_default(),
            ),
            CollectiveKind::Permute { pairs } => (
                Opcode::CollectivePermute,
                format!(
                    ";pairs={}",
                    pairs
                        .iter()
                        .map(|(s, t)| format!("{s}>{t}"))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            ),
            CollectiveKind::Broadcast => (Opcode::CollectiveBroadcast, String::new()),
            CollectiveKind::ReplicaId => (Opcode::ReplicaId, String::new()),
            CollectiveKind::PartitionId => (Opcode::PartitionId, String::new()),
        };
        let (operands, groups) = (id_lists_text(&self.operands), id_lists_text(&self.groups));
        format!(
            "kind={};name={};ty={};operands={operands};groups={groups}{extra}",
            kind.name(),
            self.name,
            self.ty.name()
        )
        .into_bytes()
    }

    /// The descriptor of opaque bytes made by [`CollectiveDesc::encode`];
    /// `None` for anything else.
    pub fn decode(bytes: &[u8]) -> Option<CollectiveDesc> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut kv = std::collections::HashMap::new();
        for item in text.split(';') {
            let (k, v) = item.split_once('=')?;
            kv.insert(k, v);
        }
        let list = |s: &str| -> Option<Vec<Vec<i64>>> {
            if s.is_empty() {
                return Some(Vec::new());
            }
            s.split('|').map(ids_parse).collect()
        };
        let dim = || kv.get("dim").and_then(|d| d.parse().ok());
        let reduce = || kv.get("reduce").and_then(|r| ReduceKind::from_name(r));
        let kind = match Opcode::from_name(kv.get("kind")?)? {
            Opcode::AllReduce => CollectiveKind::AllReduce(reduce()?),
            Opcode::AllGather => CollectiveKind::AllGather { dim: dim()? },
            Opcode::ReduceScatter => CollectiveKind::ReduceScatter {
                dim: dim()?,
                reduce: reduce()?,
            },
            Opcode::AllToAll => CollectiveKind::AllToAll { split: dim() },
            Opcode::CollectivePermute => {
                let p = kv.get("pairs")?;
                let pairs = if p.is_empty() {
                    Vec::new()
                } else {
                    p.split(',')
                        .map(|x| {
                            let (s, t) = x.split_once('>')?;
                            Some((s.parse().ok()?, t.parse().ok()?))
                        })
                        .collect::<Option<_>>()?
                };
                CollectiveKind::Permute { pairs }
            }
            Opcode::CollectiveBroadcast => CollectiveKind::Broadcast,
            Opcode::ReplicaId => CollectiveKind::ReplicaId,
            Opcode::PartitionId => CollectiveKind::PartitionId,
            _ => return None,
        };
        Some(CollectiveDesc {
            name: kv.get("name")?.to_string(),
            kind,
            ty: crate::ElementType::from_name(kv.get("ty")?)?,
            // At least one operand: "" is one scalar.
            operands: kv
                .get("operands")?
                .split('|')
                .map(ids_parse)
                .collect::<Option<_>>()?,
            groups: list(kv.get("groups")?)?,
        })
    }
}

/// How a multi-device run numbers its devices: `replicas * partitions`
/// devices, device rank `r * partitions + p` (XLA's global device id).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    pub replicas: i64,
    pub partitions: i64,
}

impl Topology {
    pub fn devices(&self) -> i64 {
        self.replicas * self.partitions
    }
    /// The global device ranks of each group of a collective with these
    /// `groups` (empty: one group of all), in XLA's group modes: no
    /// channel id, groups of replicas (one set per partition); a channel
    /// id, groups of partitions (one set per replica); with
    /// `use_global_device_ids`, global device ids as given.
    pub fn resolve_groups(
        &self,
        groups: &[Vec<i64>],
        channel: bool,
        global_ids: bool,
    ) -> Vec<Vec<i64>> {
        let (r, p) = (self.replicas, self.partitions);
        if global_ids {
            if groups.is_empty() {
                return vec![(0..r * p).collect()];
            }
            return groups.to_vec();
        }
        let all = |n: i64| vec![(0..n).collect::<Vec<i64>>()];
        let groups = if groups.is_empty() {
            all(if channel { p } else { r })
        } else {
            groups.to_vec()
        };
        let mut out = Vec::new();
        if channel {
            for rep in 0..r {
                for g in &groups {
                    out.push(g.iter().map(|&q| rep * p + q).collect());
                }
            }
        } else {
            for part in 0..p {
                for g in &groups {
                    out.push(g.iter().map(|&rep| rep * p + part).collect());
                }
            }
        }
        out
    }
    /// A collective-permute's pairs as global device ranks (pairs of
    /// partitions with a channel id, of replicas without).
    pub fn resolve_pairs(&self, pairs: &[(i64, i64)], channel: bool) -> Vec<(i64, i64)> {
        let (r, p) = (self.replicas, self.partitions);
        let mut out = Vec::new();
        if channel {
            for rep in 0..r {
                out.extend(pairs.iter().map(|&(s, t)| (rep * p + s, rep * p + t)));
            }
        } else {
            for part in 0..p {
                out.extend(pairs.iter().map(|&(s, t)| (s * p + part, t * p + part)));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshes_and_shardings() {
        let m = parse_meshes(r#"{mesh = #sdy.mesh<["x"=2, "y"=2]>}"#).unwrap();
        assert_eq!(m[0].axes, vec![("x".into(), 2), ("y".into(), 2)]);
        assert_eq!(m[0].coords(2), Some(vec![1, 0]));
        assert_eq!(m[0].strides(), vec![2, 1]);
        let s = parse_shardings(
            r#"#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{"x", "y"}, {}]>]>"#,
            &m,
        )
        .unwrap();
        assert_eq!(s[0].dims, vec![vec![0], vec![]]);
        assert_eq!(s[1].dims, vec![vec![0, 1], vec![]]);
        assert_eq!(s[1].shards(&m[0], 0), 4);
        assert_eq!(s[1].shard_index(&m[0], 0, &[1, 0]), 2);
        let d = parse_meshes(r#"{mesh = #sdy.mesh<["i"=4], device_ids=[3,2,1,0]>}"#).unwrap();
        for (text, want) in [
            (
                r#"{m = #sdy.mesh<["i"=4], device_ids=[0,1]>}"#,
                MeshError::DeviceIdsCount { ids: 2, devices: 4 },
            ),
            (r#"{m = #sdy.mesh<["i"=0]>}"#, MeshError::SizeNotPositive(0)),
            (
                r#"{m = #sdy.mesh<["i"=x]>}"#,
                MeshError::SizeNotANumber("x".into()),
            ),
            (
                r#"{m = #sdy.mesh<["i"=1048576, "j"=2]>}"#,
                MeshError::TooManyDevices,
            ),
            (
                r#"{m = #sdy.mesh<["i"=4611686018427387904, "j"=4]>}"#,
                MeshError::TooManyDevices,
            ),
        ] {
            match parse_meshes(text) {
                Err(SdyError::Mesh { mesh, source, .. }) => {
                    assert_eq!((mesh.as_str(), source), ("m", want), "{text}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        assert_eq!(d[0].coords(3), Some(vec![0]));
        assert!(matches!(
            parse_shardings(r#"#sdy.sharding<@mesh, [{"z"}]>"#, &m),
            Err(SdyError::UnknownAxis { .. })
        ));
        let d = CollectiveDesc {
            name: "ar".into(),
            kind: CollectiveKind::Permute {
                pairs: vec![(0, 1), (1, 0)],
            },
            ty: crate::ElementType::F32,
            operands: vec![vec![]],
            groups: vec![vec![0, 1]],
        };
        assert_eq!(CollectiveDesc::decode(&d.encode()), Some(d));
        let t = Topology {
            replicas: 2,
            partitions: 2,
        };
        assert_eq!(
            t.resolve_groups(&[vec![0, 1]], false, false),
            vec![vec![0, 2], vec![1, 3]]
        );
        assert_eq!(
            t.resolve_groups(&[vec![0, 1]], true, false),
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(
            parse_manual_axes(r#"#sdy<manual_axes{"x", "y"}>"#).unwrap(),
            vec!["x", "y"]
        );
    }
}
