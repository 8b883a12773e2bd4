//! Loop and input fusion.

use crate::rewrite::{local_rewrite_pass, LocalRewrite, RewriteError, Rewritten, Site};
use crate::util::NameUniquer;
use crate::PassError;
use hlox_hlo::edit::{use_lists, Cursor, NewInst};
use hlox_hlo::{
    BinaryOp, CompId, Computation, EntityRef, EntitySet, FusionKind, InstId, Instruction, Module,
    Op, PrimaryMap, SecondaryMap, UnaryOp,
};

type Users = SecondaryMap<InstId, Vec<InstId>>;

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

/// Element-wise and data-movement ops (but copy and bitcast), iota and
/// constants.
fn fusible_kind(op: &Op) -> bool {
    match op {
        Op::Copy | Op::Bitcast => false,
        Op::Iota { .. } | Op::Constant { .. } => true,
        op => op.is_elementwise() || op.opcode().is_data_movement(),
    }
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
fn fusible_computations(m: &Module) -> EntitySet<CompId> {
    let mut f = EntitySet::new();
    let mut stack = vec![m.entry];
    while let Some(c) = stack.pop() {
        if !m.computations.is_valid(c) || !f.insert(c) {
            continue;
        }
        for inst in m.computations[c].instructions.values() {
            if matches!(inst.op, Op::While | Op::Conditional | Op::Call) {
                stack.extend(inst.called.iter().copied());
            }
        }
    }
    f
}

/// Which instructions become fusions, and of what.
struct Plan {
    /// Computed outside any fusion (its value is used there).
    materialized: EntitySet<InstId>,
    /// The group an instruction is the root of.
    group_of: SecondaryMap<InstId, Option<usize>>,
    /// Group members, ascending (the group's root last).
    groups: Vec<Vec<InstId>>,
    /// Number of places (groups + outside) an instruction is computed in.
    copies: SecondaryMap<InstId, usize>,
}

fn plan(c: &Computation, fuse_reductions: bool) -> Plan {
    let n = c.instructions.len();
    let users = use_lists(c);
    let mut materialized = EntitySet::new();
    let mut group_of: SecondaryMap<InstId, Option<usize>> = SecondaryMap::with_capacity(n);
    let mut member_of: SecondaryMap<InstId, Vec<usize>> = SecondaryMap::with_capacity(n);
    let mut groups: Vec<Vec<InstId>> = Vec::new();
    let mut copies: SecondaryMap<InstId, usize> = SecondaryMap::with_capacity(n);
    for (id, inst) in c.instructions.iter().rev() {
        let mut cand: Vec<usize> = Vec::new();
        let mut external = id == c.root;
        for &u in &users[id] {
            if materialized.contains(u) {
                match group_of[u] {
                    Some(g) => cand.push(g),
                    None => external = true,
                }
            }
            cand.extend(member_of[u].iter().copied());
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
        let outside = if fuse {
            for &g in &cand {
                groups[g].push(id);
            }
            copies[id] = cand.len() + usize::from(external);
            member_of[id] = cand;
            external
        } else {
            copies[id] = 1;
            true
        };
        if outside {
            materialized.insert(id);
            let root_ok = fusible_member(inst)
                || (fuse_reductions
                    && matches!(inst.op, Op::Reduce { .. })
                    && inst.operands.len() == 2
                    && inst.shape.is_array());
            if root_ok && !matches!(inst.op, Op::Constant { .. } | Op::Iota { .. }) {
                group_of[id] = Some(groups.len());
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
    users: &Users,
    r: InstId,
    group: &[InstId],
    member_of: &SecondaryMap<InstId, Vec<usize>>,
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
    let in_group = |u: InstId| member_of[u].contains(&g) || u == root;
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

local_rewrite_pass!(Fusion => Fuse);

/// The local rewrite: the root of a planned group becomes a `fusion`
/// calling a new computation made of the group's members; members not
/// used outside fusions go.
struct Fuse {
    fuse_reductions: bool,
    fusible: EntitySet<CompId>,
    inames: NameUniquer,
    cnames: NameUniquer,
    /// Computations in the module before the pass (placeholder ids of the
    /// fused computations count from here).
    ncomp: usize,
    /// New fused computations, each with the computation it belongs to.
    fused: Vec<(CompId, Computation)>,
}

/// One computation's walk.
struct FuseState {
    plan: Plan,
    /// The computation as planned: members are cloned from here, not from
    /// the editor (where an earlier fusion may already read them).
    original: Computation,
    cid: CompId,
    /// The fusion that replaced a group root.
    fusion_of: SecondaryMap<InstId, Option<InstId>>,
}

impl LocalRewrite for Fuse {
    const NAME: &'static str = "fusion";
    type Pass = Fusion;
    type State = FuseState;

    fn start(pass: &Fusion, m: &mut Module) -> Result<Fuse, PassError> {
        Ok(Fuse {
            fuse_reductions: pass.fuse_reductions,
            fusible: fusible_computations(m),
            inames: NameUniquer::instructions(m),
            cnames: NameUniquer::computations(m),
            ncomp: m.computations.len(),
            fused: Vec::new(),
        })
    }

    fn end(self, m: &mut Module, changed: bool) -> Result<bool, PassError> {
        // Each fused computation goes just before its caller.
        if changed {
            crate::util::insert_before_callers(m, self.fused);
        }
        Ok(changed)
    }

    fn begin(&mut self, _: &Module, cid: CompId, c: &Computation) -> Option<FuseState> {
        if !self.fusible.contains(cid) {
            return None;
        }
        let plan = plan(c, self.fuse_reductions);
        plan.groups.iter().any(|g| g.len() > 1).then(|| FuseState {
            plan,
            original: c.clone(),
            cid,
            fusion_of: SecondaryMap::new(),
        })
    }

    fn rewrite(&mut self, site: Site<'_, '_, Self::State>, id: InstId) -> Rewritten {
        let Site { state: st, ed, .. } = site;
        let p = &st.plan;
        if !p.materialized.contains(id) {
            // Computed only inside fusions (its users go too).
            ed.remove(id)?;
            return Ok(());
        }
        let Some(members) = p.group_of[id].map(|g| &p.groups[g]).filter(|g| g.len() > 1) else {
            return Ok(());
        };
        let c = &st.original;
        let old = c.inst(id);
        let err = |message: &str| RewriteError::at(&old.name, message);
        // Build the fused computation: parameters first (in order of first
        // use), then the members.
        let mut body: PrimaryMap<InstId, Instruction> = PrimaryMap::new();
        let mut inner: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
        let mut outer_operands: Vec<InstId> = Vec::new();
        let mut params: Vec<InstId> = Vec::new();
        let in_group = |x: InstId| members.binary_search(&x).is_ok();
        for &mem in members {
            for &o in &c.inst(mem).operands {
                if in_group(o) || inner[o].is_some() {
                    continue;
                }
                let outer = st.fusion_of[o].unwrap_or(o);
                if ed.is_removed(outer) {
                    return Err(err(
                        "a fusion operand is not materialized (internal fusion error)",
                    ));
                }
                let k = params.len();
                let param = Instruction::new(
                    self.inames.fresh(&format!("param_{k}")),
                    Op::Parameter { number: k as u64 },
                    c.inst(o).shape.clone(),
                    vec![],
                );
                let pid = body.push(param);
                params.push(pid);
                inner[o] = Some(pid);
                outer_operands.push(outer);
            }
        }
        for &mem in members {
            let mut cl = c.inst(mem).clone();
            for o in cl.operands.iter_mut() {
                *o = inner[*o].ok_or_else(|| err("fused operand missing"))?;
            }
            if p.copies[mem] > 1 {
                cl.name = self.inames.fresh(&cl.name);
            }
            inner[mem] = Some(body.push(cl));
        }
        let root = inner[id].ok_or_else(|| err("fusion root missing"))?;
        let kind = if matches!(old.op, Op::Reduce { .. }) {
            FusionKind::Input
        } else {
            FusionKind::Loop
        };
        let comp = Computation {
            name: self.cnames.fresh("fused_computation"),
            instructions: body,
            params,
            root,
            execution_thread: None,
        };
        let placeholder = CompId::new(self.ncomp + self.fused.len());
        ed.declare_callee(placeholder, comp.program_shape());
        self.fused.push((st.cid, comp));
        let fusion = NewInst::new(
            self.inames.fresh(hlox_hlo::Opcode::Fusion.name()),
            Op::Fusion { kind },
            outer_operands,
        )
        .with_called(vec![placeholder])
        .with_metadata(old.metadata.clone());
        let f = ed.insert_declared(Cursor::Before(id), fusion, old.shape.clone())?;
        ed.replace_all_uses(id, f)?;
        ed.remove(id)?;
        st.fusion_of[id] = Some(f);
        Ok(())
    }
}
