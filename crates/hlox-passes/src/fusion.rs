//! Loop and input fusion.

use crate::util::{NameUniquer, Rebuild};
use crate::{Pass, PassError};
use hlox_hlo::{
    BinaryOp, CompId, Computation, EntityRef, FusionKind, InstId, Instruction, Module, Op,
    PrimaryMap, UnaryOp,
};

/// Fuses chains of elementwise ops (and broadcast, reshape, transpose,
/// slice, iota, constants of at most 16 elements, convert, reverse, concatenate, pad,
/// dynamic-slice) into `fusion` instructions of kind `kLoop`; a single-output
/// `reduce` takes its fusible producers into a `kInput` fusion whose root is
/// the reduce.
///
/// Row fusion: a reduce over the minor-most dimension whose result only
/// feeds (through element-wise ops and unit-dimension reshapes) broadcasts
/// back along that dimension in one kLoop group joins that group (softmax,
/// log-softmax and layernorm each become one fusion); the Host emitter
/// computes such reductions once per row, before the row's innermost loop,
/// so the row is read from cache rather than memory on the later passes.
///
/// Producers are fused into every consumer group that uses them; a cheap
/// producer that is also used elsewhere is duplicated (recomputed), an
/// expensive one (transcendental functions, divide, remainder, power) is
/// never duplicated: it stays a separate value. Custom calls, dot,
/// convolution, sort, gather, scatter, while, conditional, call, rng,
/// parameters, tuples and existing fusions are never fused. Only the entry
/// computation and computations it runs through while, conditional and call
/// are fused; fused computations and reducers are left alone.
///
/// Fusions are named `fusion`, `fusion.N`; fused computations
/// `fused_computation`, `fused_computation.N`; their parameters `param_K`
/// (`param_K.N`). Fused instructions keep their names unless duplicated.
#[derive(Clone, Copy, Debug)]
pub struct Fusion {
    /// Fuse `reduce` with its producers (kInput fusions).
    pub fuse_reductions: bool,
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion {
            fuse_reductions: true,
        }
    }
}

/// Ops recomputing which costs much more than reading a buffer.
pub fn is_expensive(op: &Op) -> bool {
    use UnaryOp as U;
    match op {
        Op::Unary(u) => matches!(
            u,
            U::Exp
                | U::Expm1
                | U::Log
                | U::Log1p
                | U::Sqrt
                | U::Rsqrt
                | U::Cbrt
                | U::Tanh
                | U::Logistic
                | U::Sin
                | U::Cos
                | U::Tan
                | U::Erf
        ),
        Op::Binary(b) => matches!(
            b,
            BinaryOp::Divide | BinaryOp::Remainder | BinaryOp::Power | BinaryOp::Atan2
        ),
        _ => !fusible_kind(op),
    }
}

fn fusible_kind(op: &Op) -> bool {
    op.is_elementwise()
        || matches!(
            op,
            Op::Broadcast { .. }
                | Op::Reshape
                | Op::Transpose { .. }
                | Op::Slice { .. }
                | Op::Iota { .. }
                | Op::Constant { .. }
                | Op::Reverse { .. }
                | Op::Concatenate { .. }
                | Op::Pad { .. }
                | Op::DynamicSlice { .. }
        )
}

/// Largest constant copied into fusions (the size of the constants
/// [`crate::AlgebraicSimplifier`] makes from broadcasts of scalars); larger
/// ones become fusion operands.
pub const MAX_FUSED_CONSTANT: usize = 16;

/// May this instruction be computed inside a fusion?
fn fusible_member(inst: &Instruction) -> bool {
    if !inst.shape.is_array() || !fusible_kind(&inst.op) {
        return false;
    }
    match &inst.op {
        Op::Constant { literal } => literal
            .as_array()
            .is_ok_and(|a| a.element_count() <= MAX_FUSED_CONSTANT),
        _ => true,
    }
}

/// Computations where fusion runs: the entry and what it reaches through
/// while, conditional and call.
fn fusible_computations(m: &Module) -> Vec<bool> {
    let mut f = vec![false; m.computations.len()];
    let mut stack = vec![m.entry];
    while let Some(c) = stack.pop() {
        if c.index() >= f.len() || f[c.index()] {
            continue;
        }
        f[c.index()] = true;
        for inst in m.computations[c].instructions.values() {
            if matches!(inst.op, Op::While | Op::Conditional | Op::Call) {
                stack.extend(inst.called.iter().copied());
            }
        }
    }
    f
}

struct Plan {
    materialized: Vec<bool>,
    /// Group root -> members (ascending, root last).
    group_of: Vec<Option<usize>>,
    groups: Vec<Vec<InstId>>,
    /// Number of places (groups + outside) an instruction is computed in.
    copies: Vec<usize>,
}

fn plan(c: &Computation, fuse_reductions: bool) -> Plan {
    let n = c.instructions.len();
    let users = c.users();
    let mut materialized = vec![false; n];
    let mut group_of: Vec<Option<usize>> = vec![None; n];
    let mut member_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut groups: Vec<Vec<InstId>> = Vec::new();
    let mut copies = vec![0usize; n];
    for i in (0..n).rev() {
        let id = InstId::new(i);
        let inst = &c.instructions[id];
        let mut cand: Vec<usize> = Vec::new();
        let mut external = id == c.root;
        for &u in &users[id] {
            if materialized[u.index()] {
                match group_of[u.index()] {
                    Some(g) => cand.push(g),
                    None => external = true,
                }
            }
            cand.extend(member_of[u.index()].iter().copied());
        }
        cand.sort_unstable();
        cand.dedup();
        let row_reduce = fuse_reductions
            && !external
            && !cand.is_empty()
            && cand
                .iter()
                .all(|&g| row_fusible_reduce(c, &users, id, &groups[g], &member_of, g));
        let fuse = row_reduce
            || (fusible_member(inst)
                && !cand.is_empty()
                && !(is_expensive(&inst.op) && cand.len() + usize::from(external) > 1));
        if fuse {
            for &g in &cand {
                groups[g].push(id);
            }
            member_of[i] = cand.clone();
            materialized[i] = external;
            copies[i] = cand.len() + usize::from(external);
        } else {
            materialized[i] = true;
            copies[i] = 1;
        }
        if materialized[i] {
            let root_ok = fusible_member(inst)
                || (fuse_reductions
                    && matches!(inst.op, Op::Reduce { .. })
                    && inst.operands.len() == 2
                    && inst.shape.is_array());
            if root_ok && !matches!(inst.op, Op::Constant { .. } | Op::Iota { .. }) {
                group_of[i] = Some(groups.len());
                groups.push(vec![id]);
            }
        }
    }
    for g in groups.iter_mut() {
        g.sort();
    }
    Plan {
        materialized,
        group_of,
        groups,
        copies,
    }
}

/// May the reduce `r` be computed inside the kLoop group `group` (row
/// fusion)? Yes when the group's root is an element-wise array of rank >= 2
/// whose minor-most physical dimension is the only dimension `r` reduces, `r`
/// reads an operand of the root's dimensions, and every use of `r` inside the
/// group reaches the root's index space only through element-wise ops and
/// reshapes that add or remove unit dimensions, ending in a broadcast along
/// that minor dimension. The emitter then computes `r` once per row, before
/// the row's innermost loop (softmax, layernorm: one pass over memory
/// instead of three). Uses of `r` in other groups are checked for those
/// groups: a row reduction shared by several row fusions (softmax and
/// log-softmax of one input) is recomputed in each, as it reads the row
/// each of them reads anyway.
fn row_fusible_reduce(
    c: &Computation,
    users: &PrimaryMap<InstId, Vec<InstId>>,
    r: InstId,
    group: &[InstId],
    member_of: &[Vec<usize>],
    g: usize,
) -> bool {
    let inst = &c.instructions[r];
    let Op::Reduce { dimensions } = &inst.op else {
        return false;
    };
    let Some(&root) = group.first() else {
        return false;
    };
    let root_inst = &c.instructions[root];
    if matches!(root_inst.op, Op::Reduce { .. }) || inst.operands.len() != 2 {
        return false;
    }
    let (Some(rs), Some(out), Some(operand)) = (
        root_inst.shape.as_array(),
        inst.shape.as_array(),
        c.instructions[inst.operands[0]].shape.as_array(),
    ) else {
        return false;
    };
    let Some(&minor) = rs.layout.minor_to_major.first() else {
        return false;
    };
    if rs.rank() < 2 || operand.dims != rs.dims || dimensions.as_slice() != [minor] {
        return false;
    }
    let kept: Vec<i64> = (0..rs.rank() as i64).filter(|&d| d != minor).collect();
    let count = out.element_count();
    let in_group = |u: InstId| member_of[u.index()].contains(&g) || u == root;
    // Walk the uses of `r` up to the broadcasts.
    let mut stack = vec![r];
    let mut seen = Vec::new();
    while let Some(x) = stack.pop() {
        if seen.contains(&x) {
            continue;
        }
        seen.push(x);
        for &u in &users[x] {
            if !in_group(u) {
                continue;
            }
            let ui = &c.instructions[u];
            let Some(us) = ui.shape.as_array() else {
                return false;
            };
            match &ui.op {
                Op::Broadcast { dimensions } => {
                    let from = c.instructions[x].shape.as_array();
                    if us.dims != rs.dims
                        || dimensions != &kept
                        || from.is_none_or(|f| f.element_count() != count)
                    {
                        return false;
                    }
                }
                Op::Reshape if us.element_count() == count && degenerate_reshape(c, x, u) => {
                    stack.push(u)
                }
                op if op.is_elementwise() && us.element_count() == count && u != root => {
                    stack.push(u)
                }
                _ => return false,
            }
        }
    }
    true
}

/// A reshape from `x` to `u` that only adds or removes dimensions of size 1.
fn degenerate_reshape(c: &Computation, x: InstId, u: InstId) -> bool {
    let nz = |id: InstId| -> Option<Vec<i64>> {
        let a = c.instructions[id].shape.as_array()?;
        Some(a.dims.iter().copied().filter(|&d| d != 1).collect())
    };
    matches!((nz(x), nz(u)), (Some(a), Some(b)) if a == b)
}

impl Pass for Fusion {
    fn name(&self) -> &'static str {
        "fusion"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        crate::util::check_structure(m, self.name())?;
        let fusible = fusible_computations(m);
        let mut inames = NameUniquer::instructions(m);
        let mut cnames = NameUniquer::computations(m);
        let ncomp = m.computations.len();
        // New fused computations, each with the computation it belongs to.
        let mut fused: Vec<(CompId, Computation)> = Vec::new();
        let mut changed = false;
        for cid in m.computations.keys().collect::<Vec<_>>() {
            if !fusible[cid.index()] {
                continue;
            }
            let c = &m.computations[cid];
            let p = plan(c, self.fuse_reductions);
            if !p.groups.iter().any(|g| g.len() > 1) {
                continue;
            }
            let err = |inst: &str, message: &str| PassError::Instruction {
                pass: "fusion",
                computation: c.name.clone(),
                instruction: inst.to_string(),
                message: message.to_string(),
            };
            let mut rb = Rebuild::new(c);
            for (id, old) in c.instructions.iter() {
                if !p.materialized[id.index()] {
                    continue;
                }
                let group = p.group_of[id.index()]
                    .map(|g| &p.groups[g])
                    .filter(|g| g.len() > 1);
                let Some(members) = group else {
                    let inst = rb.remapped(id).ok_or_else(|| {
                        err(
                            &old.name,
                            "an operand is not materialized (internal fusion error)",
                        )
                    })?;
                    let n = rb.push(inst);
                    rb.map[id.index()] = Some(n);
                    continue;
                };
                // Build the fused computation.
                let mut body: PrimaryMap<InstId, Instruction> = PrimaryMap::new();
                let mut inner: Vec<Option<InstId>> = vec![None; c.instructions.len()];
                let mut outer_operands: Vec<InstId> = Vec::new();
                let mut params: Vec<InstId> = Vec::new();
                let in_group = |x: InstId| members.binary_search(&x).is_ok();
                // Parameters first (in order of first use), then the members.
                for &mem in members {
                    for &o in &c.instructions[mem].operands {
                        if in_group(o) || inner[o.index()].is_some() {
                            continue;
                        }
                        let outer = rb.mapped(o).ok_or_else(|| {
                            err(
                                &old.name,
                                "a fusion operand is not materialized (internal fusion error)",
                            )
                        })?;
                        let k = params.len();
                        let pi = Instruction::new(
                            inames.fresh(&format!("param_{k}")),
                            Op::Parameter { number: k as u64 },
                            c.instructions[o].shape.clone(),
                            vec![],
                        );
                        let pid = body.push(pi);
                        params.push(pid);
                        inner[o.index()] = Some(pid);
                        outer_operands.push(outer);
                    }
                }
                for &mem in members {
                    let mut cl = c.instructions[mem].clone();
                    for o in cl.operands.iter_mut() {
                        *o = inner[o.index()]
                            .ok_or_else(|| err(&old.name, "fused operand missing"))?;
                    }
                    if p.copies[mem.index()] > 1 {
                        cl.name = inames.fresh(&cl.name);
                    }
                    inner[mem.index()] = Some(body.push(cl));
                }
                let root_inner =
                    inner[id.index()].ok_or_else(|| err(&old.name, "fusion root missing"))?;
                let kind = if matches!(old.op, Op::Reduce { .. }) {
                    FusionKind::Input
                } else {
                    FusionKind::Loop
                };
                let comp = Computation {
                    name: cnames.fresh("fused_computation"),
                    instructions: body,
                    params,
                    root: root_inner,
                    execution_thread: None,
                };
                let placeholder = CompId::new(ncomp + fused.len());
                fused.push((cid, comp));
                let mut f = Instruction::new(
                    inames.fresh("fusion"),
                    Op::Fusion { kind },
                    old.shape.clone(),
                    outer_operands,
                );
                f.called = vec![placeholder];
                f.metadata = old.metadata.clone();
                let n = rb.push(f);
                rb.map[id.index()] = Some(n);
            }
            let name = c.name.clone();
            let new = rb.finish().map_err(|message| PassError::Instruction {
                pass: "fusion",
                computation: name,
                instruction: String::new(),
                message,
            })?;
            m.computations[cid] = new;
            changed = true;
        }
        if !changed {
            return Ok(false);
        }
        // Each fused computation goes just before its caller.
        crate::util::insert_before_callers(m, fused);
        Ok(true)
    }
}
