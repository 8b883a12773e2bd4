//! Whole runs as CUDA graphs: the first run of an executable is
//! interpreted and recorded as a list of device commands (kernel launches,
//! device copies, custom calls, each with its buffer addresses); the device
//! then captures a replay of that list into one CUDA graph, and later runs
//! copy their arguments into the recorded parameter buffers, launch the
//! graph and read the recorded result buffers back.
//!
//! A graph bakes its buffers' addresses in, so a recording keeps the device
//! memory of the run's arrays. It keeps about the run's peak, not the sum
//! of its arrays: while a run is recorded, the memory of an array that
//! died (its last use in program order is queued) is given to the next new
//! array that fits, the smallest such block; one stream orders every
//! command, so a replay reuses memory exactly as the recorded run did.
//! A run can be a graph only when it does the same device work every
//! time: no while loop or conditional (their predicates are read back on
//! the host), every custom call's target marked graph-compatible
//! ([`hlox_ffi::Traits::GRAPH_COMPATIBLE`]: it only enqueues work on the
//! stream), and no typed-FFI handler with prepare or initialize stages
//! (they run on the host in every run, and what they set lives for that
//! run only). Where the device has no graphs (host emulation) the recorded
//! list itself is replayed, so the recording, the argument copies and the
//! replay are tested without a GPU.

use crate::runtime::{DevBuf, Val};
use crate::CompiledModule;
use hlox_ffi::Traits;
use hlox_hlo::{CompId, InstId, Op};
use std::sync::{Arc, Weak};

/// One device command of a recorded run.
pub(crate) enum Cmd {
    /// Kernel `k` (or its cuBLAS GEMM) over these pointer arguments.
    Launch { k: usize, args: Vec<u64> },
    /// `bytes` bytes from `src` to `dst`, for instruction `inst`.
    Copy {
        inst: String,
        dst: u64,
        src: u64,
        bytes: usize,
    },
    /// The custom call `inst` of computation `comp` on these buffers.
    Call {
        comp: CompId,
        inst: InstId,
        buffers: Vec<u64>,
    },
    /// The fft `inst`'s transform from `src` to `dst` ([`crate::fft`]).
    Fft {
        inst: String,
        plan: crate::plan::FftPlan,
        src: u64,
        dst: u64,
    },
}

/// What a recorded run leaves behind.
pub(crate) struct Tape<B> {
    pub cmds: Vec<Cmd>,
    /// The device memory the run's new arrays live in.
    pub blocks: Vec<Block<B>>,
}

/// Device memory of a recorded run and the array living in it now.
pub(crate) struct Block<B> {
    pub mem: Arc<B>,
    pub bytes: usize,
    user: Weak<DevBuf<B>>,
}

impl<B> Default for Tape<B> {
    fn default() -> Self {
        Tape {
            cmds: Vec::new(),
            blocks: Vec::new(),
        }
    }
}

impl<B> Tape<B> {
    /// The smallest block of at least `bytes` whose array has died, given
    /// to the array `make` builds over its memory.
    pub fn reuse(
        &mut self,
        bytes: usize,
        make: &dyn Fn(Arc<B>) -> Arc<DevBuf<B>>,
    ) -> Option<Arc<DevBuf<B>>> {
        let b = self
            .blocks
            .iter_mut()
            .filter(|b| b.bytes >= bytes && b.user.strong_count() == 0)
            .min_by_key(|b| b.bytes)?;
        let a = make(b.mem.clone());
        b.user = Arc::downgrade(&a);
        Some(a)
    }

    /// A new block of `bytes`: the memory of `a`.
    pub fn add(&mut self, a: &Arc<DevBuf<B>>, bytes: usize) {
        self.blocks.push(Block {
            mem: a.buf.clone(),
            bytes,
            user: Arc::downgrade(a),
        });
    }

    /// The device memory the blocks hold.
    pub fn bytes(&self) -> u64 {
        self.blocks.iter().map(|b| b.bytes as u64).sum()
    }
}

/// A recorded run, ready to replay.
pub(crate) struct Recording<B, G> {
    /// The entry parameters' buffers (later arguments are copied in).
    pub params: Vec<Val<B>>,
    pub result: Val<B>,
    pub cmds: Vec<Cmd>,
    /// The device memory of the run's arrays (the parameters' aside), and
    /// its size.
    pub _blocks: Vec<Arc<B>>,
    pub bytes: u64,
    /// The device's graph of `cmds` (none: replay `cmds`).
    pub graph: Option<G>,
    pub replays: u64,
}

/// Where an executable stands with graphs.
pub(crate) enum Slot<B, G> {
    Off(String),
    Pending,
    Ready(Recording<B, G>),
    Failed(String),
}

/// Whether an executable runs as a graph ([`crate::CudaExecutable::graph_status`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphStatus {
    /// Every run is interpreted, for this reason.
    Off(String),
    /// The next run is interpreted and recorded.
    Pending,
    /// Runs replay `commands` recorded device commands: as one CUDA graph
    /// when `device_graph`, else one by one (host emulation); `replays`
    /// runs so far have. The recording keeps `bytes` of device memory for
    /// the run's arrays (besides the parameters' buffers).
    Ready {
        commands: usize,
        device_graph: bool,
        replays: u64,
        bytes: u64,
    },
    /// The device could not build the graph (the reason); runs are
    /// interpreted.
    Failed(String),
}

impl<B, G> Slot<B, G> {
    pub(crate) fn status(&self) -> GraphStatus {
        match self {
            Slot::Off(r) => GraphStatus::Off(r.clone()),
            Slot::Pending => GraphStatus::Pending,
            Slot::Ready(r) => GraphStatus::Ready {
                commands: r.cmds.len(),
                device_graph: r.graph.is_some(),
                replays: r.replays,
                bytes: r.bytes,
            },
            Slot::Failed(r) => GraphStatus::Failed(r.clone()),
        }
    }
}

/// Why the runs of `c` cannot be graphs (none: they can).
pub(crate) fn blocker(c: &CompiledModule) -> Option<String> {
    if !c.options.cuda_graphs {
        return Some("CUDA graphs are off (CompileOptions::cuda_graphs)".into());
    }
    let mut comps: Vec<_> = c.program.comps.iter().collect();
    comps.sort_by_key(|(cid, _)| **cid);
    for (&cid, plan) in comps {
        let comp = c.module.comp(cid);
        for (id, step, _) in &plan.steps {
            let inst = comp.inst(*id);
            match (step, &inst.op) {
                (crate::plan::Step::While { .. }, _) => {
                    return Some(format!(
                        "while loop `{}` reads its predicate back on the host",
                        inst.name
                    ))
                }
                (crate::plan::Step::Conditional(_), _) => {
                    return Some(format!(
                        "conditional `{}` reads its branch index back on the host",
                        inst.name
                    ))
                }
                (crate::plan::Step::CustomCall, Op::CustomCall(_))
                    if c.ffi_calls
                        .get(&inst.name)
                        .is_some_and(|p| p.has_run_stages()) =>
                {
                    return Some(format!(
                        "custom call `{}` has a typed-FFI handler with prepare or initialize \
                         stages, which run on the host in every run",
                        inst.name
                    ));
                }
                (crate::plan::Step::CustomCall, Op::CustomCall(call)) => {
                    let ok = c
                        .bound
                        .get(&call.target)
                        .is_some_and(|t| t.traits.contains(Traits::GRAPH_COMPATIBLE));
                    if !ok {
                        return Some(format!(
                            "custom call `{}` calls target \"{}\", which is not marked \
                             graph-compatible (hlox_ffi::Traits::GRAPH_COMPATIBLE)",
                            inst.name, call.target
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    None
}
