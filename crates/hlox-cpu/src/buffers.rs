//! Buffer assignment: where every leaf of every instruction of a
//! sequentially executed computation lives, with liveness-based reuse of
//! temporary buffers inside one arena per run (offsets fixed at compile time).

use hlox_codegen::elemental::leaf_count;
use hlox_hlo::{CompId, Computation, InstId, Layout, Module, Op, Shape};
use std::collections::HashMap;
use std::fmt::Write;

pub(crate) const ALIGN: usize = 64;

/// The location of one leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    /// Leaf `i` of the computation's parameters (flattened in order).
    Param(usize),
    /// A constant global, by name, with its bytes.
    Const(String),
    /// A temporary buffer.
    Temp(usize),
    /// A token or an empty leaf: no storage.
    Null,
}

#[derive(Clone, Debug)]
pub(crate) struct Temp {
    pub size: usize,
    pub def: usize,
    pub last: usize,
    /// Placed in the computation's output leaf instead of the arena.
    pub out: Option<usize>,
    /// Offset in the arena (relative to the computation's base).
    pub offset: usize,
    #[allow(dead_code)]
    pub owner: String,
}

/// Buffer assignment of one computation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Assignment {
    /// The order the computation runs in ([`crate::schedule`]); temps'
    /// `def` and `last` are indices of these steps.
    pub steps: Vec<crate::schedule::Step>,
    pub leaves: HashMap<InstId, Vec<Loc>>,
    pub temps: Vec<Temp>,
    /// While instructions: (body output scratch temps, condition pred temp).
    pub while_scratch: HashMap<InstId, (Vec<usize>, usize)>,
    /// DUS instructions updating their operand's buffer in place.
    pub in_place: Vec<InstId>,
    /// Root leaves that must be copied to the output at the end.
    pub root_copies: Vec<(usize, Loc)>,
    pub size: usize,
    pub base: usize,
}

fn is_row_major(l: &Layout, rank: usize) -> bool {
    l.minor_to_major.len() == rank
        && l.minor_to_major
            .iter()
            .enumerate()
            .all(|(i, &d)| d as usize == rank - 1 - i)
}

/// True when `inst` (reshape or bitcast) is a pure reinterpretation of its
/// operand's bytes.
pub(crate) fn is_alias_view(comp: &Computation, id: InstId) -> bool {
    let inst = comp.inst(id);
    let (Some(a), Some(o)) = (
        inst.shape.as_array(),
        inst.operands
            .first()
            .and_then(|&o| comp.inst(o).shape.as_array()),
    ) else {
        return false;
    };
    if a.ty != o.ty || a.element_count() != o.element_count() {
        return false;
    }
    match inst.op {
        Op::Bitcast => true,
        Op::Reshape => is_row_major(&a.layout, a.rank()) && is_row_major(&o.layout, o.rank()),
        _ => false,
    }
}

pub(crate) fn const_name(comp: &Computation, inst: &str, leaf: usize) -> String {
    format!("const.{}.{}.{}", comp.name, inst, leaf)
}

/// The buffer assignment of computation `cid`, run in the order
/// [`schedule`](crate::schedule::schedule) gives for `threads` threads.
pub(crate) fn assign(module: &Module, cid: CompId, threads: usize) -> Assignment {
    let comp = module.comp(cid);
    let mut a = Assignment {
        steps: crate::schedule::schedule(comp, threads),
        ..Default::default()
    };
    let users = comp.users();
    // Parameter leaf offsets.
    let mut param_start = HashMap::new();
    let mut k = 0;
    for &p in &comp.params {
        param_start.insert(p, k);
        k += leaf_count(&comp.inst(p).shape);
    }
    // Positions are steps: the members of a concurrent step share one, so
    // their results and everything they read are live at the same time.
    let order: Vec<(usize, InstId)> = a
        .steps
        .iter()
        .enumerate()
        .flat_map(|(p, s)| s.members().iter().map(move |&id| (p, id)))
        .collect();
    let new_temps = |a: &mut Assignment, shape: &Shape, p: usize, owner: &str| -> Vec<Loc> {
        shape
            .leaves()
            .iter()
            .map(|(_, s)| match s {
                Shape::Array(arr) => {
                    a.temps.push(Temp {
                        size: arr.byte_size(),
                        def: p,
                        last: p,
                        out: None,
                        offset: 0,
                        owner: owner.to_string(),
                    });
                    Loc::Temp(a.temps.len() - 1)
                }
                _ => Loc::Null,
            })
            .collect()
    };
    for &(p, id) in &order {
        let inst = comp.inst(id);
        let opl = |a: &Assignment, k: usize| -> Vec<Loc> {
            inst.operands
                .get(k)
                .and_then(|o| a.leaves.get(o).cloned())
                .unwrap_or_default()
        };
        let locs = match &inst.op {
            Op::Parameter { .. } => {
                let s = param_start.get(&id).copied().unwrap_or(0);
                inst.shape
                    .leaves()
                    .iter()
                    .enumerate()
                    .map(|(i, (_, sh))| {
                        if sh.is_token() {
                            Loc::Null
                        } else {
                            Loc::Param(s + i)
                        }
                    })
                    .collect()
            }
            Op::Constant { .. } => inst
                .shape
                .leaves()
                .iter()
                .enumerate()
                .map(|(i, (_, sh))| {
                    if sh.is_array() {
                        Loc::Const(const_name(comp, &inst.name, i))
                    } else {
                        Loc::Null
                    }
                })
                .collect(),
            Op::Tuple => (0..inst.operands.len()).flat_map(|k| opl(&a, k)).collect(),
            Op::GetTupleElement { index } => {
                let src = &comp.inst(inst.operands[0]).shape;
                let elems = src.tuple_elements().unwrap_or(&[]);
                let i = (*index as usize).min(elems.len());
                let start: usize = elems[..i].iter().map(leaf_count).sum();
                let n = elems.get(i).map(leaf_count).unwrap_or(0);
                opl(&a, 0)
                    .get(start..start + n)
                    .map(|s| s.to_vec())
                    .unwrap_or_default()
            }
            Op::OptimizationBarrier => opl(&a, 0),
            Op::AfterAll => vec![Loc::Null],
            Op::Reshape | Op::Bitcast if is_alias_view(comp, id) => opl(&a, 0),
            Op::DynamicUpdateSlice => {
                let o = inst.operands[0];
                let src = opl(&a, 0);
                let sole_user = users[o].len() == 1 && comp.root != o;
                match src.first() {
                    Some(Loc::Temp(_))
                        if sole_user
                            && !matches!(
                                comp.inst(o).op,
                                Op::GetTupleElement { .. }
                                    | Op::Tuple
                                    | Op::OptimizationBarrier
                                    | Op::Reshape
                                    | Op::Bitcast
                            ) =>
                    {
                        a.in_place.push(id);
                        src
                    }
                    _ => new_temps(&mut a, &inst.shape, p, &inst.name),
                }
            }
            Op::While => {
                let l = new_temps(&mut a, &inst.shape, p, &inst.name);
                let scratch: Vec<usize> = new_temps(&mut a, &inst.shape, p, &inst.name)
                    .into_iter()
                    .filter_map(|l| match l {
                        Loc::Temp(t) => Some(t),
                        _ => None,
                    })
                    .collect();
                let pred = new_temps(
                    &mut a,
                    &Shape::scalar(hlox_hlo::ElementType::Pred),
                    p,
                    &inst.name,
                );
                let pt = match pred[0] {
                    Loc::Temp(t) => t,
                    _ => 0,
                };
                a.while_scratch.insert(id, (scratch, pt));
                l
            }
            _ => new_temps(&mut a, &inst.shape, p, &inst.name),
        };
        // Liveness: every temp an operand holds is read here.
        for &o in &inst.operands {
            if let Some(ls) = a.leaves.get(&o).cloned() {
                for l in ls {
                    if let Loc::Temp(t) = l {
                        a.temps[t].last = a.temps[t].last.max(p);
                    }
                }
            }
        }
        a.leaves.insert(id, locs);
    }
    let end = a.steps.len();
    // Root leaves: temps used once go straight to the output buffers.
    let root = a.leaves.get(&comp.root).cloned().unwrap_or_default();
    for (k, l) in root.iter().enumerate() {
        match l {
            Loc::Temp(t) if root.iter().filter(|x| *x == l).count() == 1 => {
                a.temps[*t].out = Some(k);
                a.temps[*t].last = end;
            }
            Loc::Null => {}
            other => a.root_copies.push((k, other.clone())),
        }
    }
    // First-fit placement of the remaining temps by live range.
    let mut placed: Vec<usize> = Vec::new();
    let mut idx: Vec<usize> = (0..a.temps.len())
        .filter(|&t| a.temps[t].out.is_none())
        .collect();
    idx.sort_by_key(|&t| (a.temps[t].def, std::cmp::Reverse(a.temps[t].size)));
    for t in idx {
        let (d, l, sz) = (a.temps[t].def, a.temps[t].last, a.temps[t].size.max(1));
        let mut busy: Vec<(usize, usize)> = placed
            .iter()
            .filter(|&&q| a.temps[q].def <= l && d <= a.temps[q].last)
            .map(|&q| {
                (
                    a.temps[q].offset,
                    a.temps[q].offset + a.temps[q].size.max(1),
                )
            })
            .collect();
        busy.sort();
        let mut off = 0;
        for (s, e) in busy {
            if off + sz <= s {
                break;
            }
            off = off.max(e.div_ceil(ALIGN) * ALIGN);
        }
        a.temps[t].offset = off;
        a.size = a.size.max((off + sz).div_ceil(ALIGN) * ALIGN);
        placed.push(t);
    }
    a
}

/// A readable listing of one computation's assignment.
pub(crate) fn describe(module: &Module, cid: CompId, a: &Assignment, out: &mut String) {
    let comp = module.comp(cid);
    let _ = writeln!(
        out,
        "computation {} (arena base {}, size {} bytes)",
        comp.name, a.base, a.size
    );
    for step in &a.steps {
        for &id in step.members() {
            describe_inst(comp, a, id, step, out);
        }
    }
    for (k, l) in &a.root_copies {
        let _ = writeln!(out, "  copy to output leaf {k} from {l:?}");
    }
}

fn describe_inst(
    comp: &Computation,
    a: &Assignment,
    id: InstId,
    step: &crate::schedule::Step,
    out: &mut String,
) {
    let inst = comp.inst(id);
    let locs = a.leaves.get(&id).cloned().unwrap_or_default();
    let s: Vec<String> = locs
        .iter()
        .map(|l| match l {
            Loc::Param(i) => format!("param leaf {i}"),
            Loc::Const(n) => format!("constant {n}"),
            Loc::Null => "none".into(),
            Loc::Temp(t) => {
                let tt = &a.temps[*t];
                match tt.out {
                    Some(k) => format!("output leaf {k} ({} bytes)", tt.size),
                    None => format!(
                        "arena [{}, {}) live {}..={}",
                        a.base + tt.offset,
                        a.base + tt.offset + tt.size,
                        tt.def,
                        tt.last
                    ),
                }
            }
        })
        .collect();
    let mut extra = if a.in_place.contains(&id) {
        " (in place)".to_string()
    } else {
        String::new()
    };
    let others: Vec<&str> = step
        .members()
        .iter()
        .filter(|&&m| m != id)
        .map(|&m| comp.inst(m).name.as_str())
        .collect();
    if !others.is_empty() {
        let _ = write!(extra, " (side by side with {})", others.join(", "));
    }
    let _ = writeln!(
        out,
        "  {} = {}: {}{}",
        inst.name,
        inst.op.name(),
        s.join(", "),
        extra
    );
}
