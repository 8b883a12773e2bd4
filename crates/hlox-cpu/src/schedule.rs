//! The order a sequentially executed computation runs in, and which of its
//! instructions run side by side.
//!
//! Independent matrix products of about the same size run at the same
//! time, each on its share of the threads, as XLA:CPU's thunk executor runs
//! independent thunks concurrently. Why: a product of a transformer
//! block's size (`[128,256] x [256,256]`, m = 128) is short of work to
//! split (each part packs all of the other operand, and the parts start
//! and end together); products side by side each keep a whole thread. On
//! the 2-vCPU measuring machine a pair costs what two split products cost
//! at best, and less when the host's load stalls one half of a split
//! (four such products: 0.58 against 0.66 ms median; docs/performance.md,
//! "Sixteenth session"). A gradient is full of such pairs: the two
//! products of every product's reverse mode (`dy wᵀ` and `xᵀ dy`) read the
//! same values and not each other.
//!
//! A product joins the group of an earlier product when everything it
//! reads is computed before that one (instructions that generate no code,
//! a reshape view or a tuple element of earlier values, move up with it);
//! the group then runs where the earliest member stood.
//!
//! Architecture invariant: buffer assignment ([`crate::buffers`]) and code
//! generation both walk the computation in this order, and buffer
//! assignment treats a group as one step: every member's result is live
//! from the group's start and every buffer a member reads until its end,
//! so no member writes memory another member reads or writes.

use hlox_hlo::{Computation, ElementType, EntityRef, InstId, Op};

/// One step of a sequential computation's run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// One instruction.
    One(InstId),
    /// Matrix products (runtime kernels) run side by side, each on its share
    /// of the threads (`hlox_rt_kernel_group`).
    Concurrent(Vec<InstId>),
}

impl Step {
    /// The instructions of the step, in order.
    pub fn members(&self) -> &[InstId] {
        match self {
            Step::One(id) => std::slice::from_ref(id),
            Step::Concurrent(ids) => ids,
        }
    }
}

/// Products below this many multiply-adds run alone (they do not split
/// over threads either: `gemm_parts` in hlox-cpu-runtime).
const GROUP_FROM_WORK: usize = 1 << 20;
/// How far ahead (in instructions) a product looks for partners.
const LOOKAHEAD: usize = 512;
/// Partners do at most this factor more or less work than the product
/// they join (a short one beside a long one would leave its thread idle).
const SIMILAR: f64 = 1.5;

/// Multiply-adds of a float product the runtime runs straight from its
/// buffers (f32 or f64, both operands of the result's type), else `None`.
fn product_work(comp: &Computation, id: InstId) -> Option<usize> {
    let inst = comp.inst(id);
    let Op::Dot { dnums, .. } = &inst.op else {
        return None;
    };
    let out = inst.shape.as_array()?;
    if !matches!(out.ty, ElementType::F32 | ElementType::F64) {
        return None;
    }
    let lhs = comp.inst(*inst.operands.first()?).shape.as_array()?;
    let rhs = comp.inst(*inst.operands.get(1)?).shape.as_array()?;
    if lhs.ty != out.ty || rhs.ty != out.ty {
        return None;
    }
    let k: usize = dnums
        .lhs_contracting_dims
        .iter()
        .map(|&d| lhs.dims.get(d as usize).copied().unwrap_or(0) as usize)
        .product();
    Some(out.element_count().saturating_mul(k))
}

/// Whether `id` generates code (parameters, constants, tuples and alias
/// views cost nothing at run time: `emit_inst` writes nothing for them).
pub(crate) fn generates_code(comp: &Computation, id: InstId) -> bool {
    match comp.inst(id).op {
        Op::Parameter { .. }
        | Op::Constant { .. }
        | Op::Tuple
        | Op::GetTupleElement { .. }
        | Op::OptimizationBarrier
        | Op::AfterAll => false,
        Op::Reshape | Op::Bitcast => !crate::buffers::is_alias_view(comp, id),
        _ => true,
    }
}

/// The steps of `comp`: its instructions in order, independent products of
/// similar size grouped up to `threads` at a time (no groups on one thread).
pub(crate) fn schedule(comp: &Computation, threads: usize) -> Vec<Step> {
    let order: Vec<InstId> = comp.instructions.keys().collect();
    let n = comp.instructions.len();
    let mut done = vec![false; n];
    let mut steps = Vec::with_capacity(order.len());
    for (i, &id) in order.iter().enumerate() {
        if done[id.index()] {
            continue;
        }
        done[id.index()] = true;
        let work = match product_work(comp, id) {
            Some(w) if threads > 1 && w >= GROUP_FROM_WORK => w,
            _ => {
                steps.push(Step::One(id));
                continue;
            }
        };
        let mut group = vec![id];
        for &cand in order.iter().skip(i + 1).take(LOOKAHEAD) {
            if group.len() == threads {
                break;
            }
            if done[cand.index()] {
                continue;
            }
            let Some(w) = product_work(comp, cand) else {
                continue;
            };
            let ratio = w as f64 / work as f64;
            if !(1.0 / SIMILAR..=SIMILAR).contains(&ratio) {
                continue;
            }
            // What `cand` reads must be computed already, or be free
            // instructions over computed values, which move up with it.
            let mut hoist = Vec::new();
            if !ready(comp, cand, &done, &mut hoist) {
                continue;
            }
            for h in hoist {
                if !done[h.index()] {
                    done[h.index()] = true;
                    steps.push(Step::One(h));
                }
            }
            done[cand.index()] = true;
            group.push(cand);
        }
        steps.push(if group.len() == 1 {
            Step::One(id)
        } else {
            Step::Concurrent(group)
        });
    }
    steps
}

/// Whether every operand of `id` is scheduled (`done`) or a free
/// instruction whose operands are, recursively; the free ones not yet
/// scheduled are appended to `hoist`, operands first.
fn ready(comp: &Computation, id: InstId, done: &[bool], hoist: &mut Vec<InstId>) -> bool {
    comp.inst(id).operands.iter().all(|&o| {
        done[o.index()]
            || hoist.contains(&o)
            || (!generates_code(comp, o) && ready(comp, o, done, hoist) && {
                hoist.push(o);
                true
            })
    })
}
