//! Host runtime kernels of hlox: compiled-Rust implementations of the heavy
//! HLO ops (dot, convolution, sort, top-k, gather, scatter, reduce-window,
//! select-and-scatter, rng-bit-generator, fft, and matrix transpositions)
//! that the generated CPU code calls,
//! the way XLA:CPU calls Eigen and its runtime library.
//!
//! A kernel is prepared once per instruction ([`make_kernel`]: shapes are
//! checked, dimension numbers resolved, called computations inspected for
//! fast paths) and run many times on raw leaf buffers ([`HostKernel::run`]).
//! Results are bit-identical to the reference evaluator (`hlox-eval`),
//! except that float dot/convolution sum in a different order.
//!
//! Parallelism uses rayon's current pool (the run pool, [`pool`]); a kernel
//! splits its work over [`threads`] of its threads, fewer than the pool's
//! inside [`with_threads`] (a kernel run side by side with others).

pub mod collectives;
mod conv;
mod dot;
mod elem;
mod fft;
mod gather;
mod matmul;
pub mod pool;
mod rng;
mod sort;
mod transpose;
mod window;

pub use transpose::transpose_2d;

use hlox_hlo::semantics::gather::DimensionNumbersError;
use hlox_hlo::semantics::rng::RngError;
use hlox_hlo::semantics::window::WindowError;
use hlox_hlo::shape_inference::{check_shape, validate_shape};
use hlox_hlo::{
    ArrayShape, CompId, Computation, ElementType, InstId, Instruction, Module, Op, Shape,
};

/// A compiled scalar computation (a sort comparator, a reducer, a scatter combiner, a select):
/// `args[i]` points at scalar argument i (one element, its element type's size);
/// the result's leaves are written to `outs[j]` (one pointer per leaf; a non-tuple result has one).
pub type ScalarFn = unsafe extern "C" fn(args: *const *const u8, outs: *const *mut u8);

/// A prepared kernel for one instruction, built at compile time, run many times (possibly from
/// several threads at once: Send + Sync, no interior mutation without synchronization).
pub trait HostKernel: Send + Sync {
    /// `operands`: every operand's leaf buffers, operands in order, each operand's leaves in pre-order
    /// (an array operand contributes one pointer). `outputs`: the result's leaf buffers in pre-order.
    /// Buffers are laid out as the instruction's operand/result shapes say (layouts may be non-default:
    /// use strides). Buffers may be uninitialized on entry for outputs; inputs are never written.
    ///
    /// # Safety
    /// Every pointer must point at a buffer of its shape's byte size (valid for reads, or for
    /// writes for outputs); outputs must not overlap inputs or each other.
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError>;
}

/// Why a kernel refused to run (the generated code passed buffers that do
/// not match the instruction it was built for).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RunError {
    #[error("{kernel}: expected {expected_in} operand and {expected_out} output buffers, got {got_in} and {got_out}")]
    BufferCount {
        kernel: String,
        expected_in: usize,
        expected_out: usize,
        got_in: usize,
        got_out: usize,
    },
    #[error("{kernel}: a buffer pointer is null")]
    NullBuffer { kernel: String },
    /// A kernel was handed complex buffers it does not compute
    /// ([`make_kernel`] refuses to build such kernels).
    #[error("the Host runtime kernels do not compute {ty} (complex) values")]
    Complex { ty: ElementType },
}

/// Why an instruction's index map, window or generator could not be planned
/// (`hlox_hlo::semantics`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlanError {
    #[error(transparent)]
    DimensionNumbers(#[from] DimensionNumbersError),
    #[error(transparent)]
    Window(#[from] WindowError),
    #[error(transparent)]
    Rng(#[from] RngError),
}

/// Why a kernel could not be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KernelError {
    /// The instruction (named) is malformed or unsupported by its runtime kernel.
    #[error("instruction `{inst}` ({opcode}) in computation `{computation}`: {message}")]
    Invalid {
        inst: String,
        opcode: &'static str,
        computation: String,
        message: String,
    },
    /// The instruction's dimension numbers, window or generator do not
    /// fit its shapes.
    #[error("instruction `{inst}` ({opcode}) in computation `{computation}`: {source}")]
    Plan {
        inst: String,
        opcode: &'static str,
        computation: String,
        #[source]
        source: Box<PlanError>,
    },
    /// The instruction id does not belong to the computation.
    #[error("instruction id {id} is not in computation `{computation}`")]
    NoSuchInstruction { id: String, computation: String },
}

/// Which opcodes [`make_kernel`] builds a runtime kernel for.
pub fn is_runtime_kernel(op: &Op) -> bool {
    matches!(
        op,
        Op::Dot { .. }
            | Op::Convolution(_)
            | Op::Sort { .. }
            | Op::TopK { .. }
            | Op::Gather { .. }
            | Op::Scatter { .. }
            | Op::ReduceWindow { .. }
            | Op::SelectAndScatter { .. }
            | Op::RngBitGenerator { .. }
            | Op::Fft { .. }
    )
}

/// What a kernel builder gets: the instruction, its operand shapes, and an error maker.
pub(crate) struct Ctx<'a> {
    pub module: &'a Module,
    pub comp: &'a Computation,
    pub inst: &'a Instruction,
    pub operands: Vec<&'a Shape>,
    pub callees: &'a [ScalarFn],
}

impl Ctx<'_> {
    pub(crate) fn err(&self, message: impl Into<String>) -> KernelError {
        KernelError::Invalid {
            inst: self.inst.name.clone(),
            opcode: self.inst.op.name(),
            computation: self.comp.name.clone(),
            message: message.into(),
        }
    }
    /// A planning error of this instruction.
    pub(crate) fn plan_err(&self, source: impl Into<PlanError>) -> KernelError {
        KernelError::Plan {
            inst: self.inst.name.clone(),
            opcode: self.inst.op.name(),
            computation: self.comp.name.clone(),
            source: Box::new(source.into()),
        }
    }
    /// Operand `i` as an array shape.
    pub(crate) fn array_operand(&self, i: usize) -> Result<ArrayShape, KernelError> {
        match self.operands.get(i) {
            Some(Shape::Array(a)) => Ok(a.clone()),
            Some(s) => Err(self.err(format!(
                "operand {i} must be an array, is {}",
                hlox_hlo::shape_inference::short(s)
            ))),
            None => Err(self.err(format!("missing operand {i}"))),
        }
    }
    /// Leaf `i` of the result as an array shape.
    pub(crate) fn result_leaf(&self, i: usize) -> Result<ArrayShape, KernelError> {
        let leaves = self.inst.shape.leaves();
        match leaves.get(i) {
            Some((_, Shape::Array(a))) => Ok(a.clone()),
            _ => Err(self.err(format!("result leaf {i} must be an array"))),
        }
    }
    /// The compiled callee `i` and the called computation's id.
    pub(crate) fn callee(&self, i: usize) -> Result<(ScalarFn, CompId), KernelError> {
        let comp = *self
            .inst
            .called
            .get(i)
            .ok_or_else(|| self.err(format!("calls no computation {i}")))?;
        if self.module.computations.get(comp).is_none() {
            return Err(self.err(format!("called computation {i} is not in the module")));
        }
        let f = *self.callees.get(i).ok_or_else(|| {
            self.err(format!(
                "needs the compiled function of called computation {i} (got {} callees)",
                self.callees.len()
            ))
        })?;
        Ok((f, comp))
    }
    /// Called computation `i` as an update function of `n` values of type
    /// `ty`: its compiled function and, for one value (`n == 1`), the
    /// [`elem::Combiner`] it is when the runtime recognizes it (then applied
    /// without calling the function).
    pub(crate) fn combiner_callee(
        &self,
        i: usize,
        n: usize,
        ty: ElementType,
    ) -> Result<(ScalarFn, Option<elem::Combiner>), KernelError> {
        let (f, comp) = self.callee(i)?;
        let fast = if n == 1 {
            elem::recognize_combiner(self.module, comp, ty)
        } else {
            None
        };
        Ok((f, fast))
    }
}

/// Builds the kernel for `inst` of computation `comp`, or Ok(None) if this opcode is not a runtime
/// kernel (the codegen emits it itself). `callees[i]` is the compiled function for `inst.called[i]`
/// (empty for ops that call nothing). Errors name the instruction.
pub fn make_kernel(
    module: &Module,
    comp: &Computation,
    inst: InstId,
    callees: &[ScalarFn],
) -> Result<Option<Box<dyn HostKernel>>, KernelError> {
    let Some(instr) = comp.instructions.get(inst) else {
        return Err(KernelError::NoSuchInstruction {
            id: format!("{inst:?}"),
            computation: comp.name.clone(),
        });
    };
    if !is_runtime_kernel(&instr.op) {
        return Ok(None);
    }
    let complex = |s: &Shape| {
        s.leaves()
            .into_iter()
            .find_map(|(_, l)| l.element_type().filter(|t| t.is_complex()))
    };
    let complex_ty = complex(&instr.shape).or_else(|| {
        instr
            .operands
            .iter()
            .filter_map(|&o| comp.instructions.get(o))
            .find_map(|o| complex(&o.shape))
    });
    // Complex values: every kernel but top-k (complex numbers have no
    // order to pick the largest by) and the random bit generator (whose
    // results are integers) computes or moves them.
    let complex_ok = !matches!(instr.op, Op::TopK { .. } | Op::RngBitGenerator { .. });
    if let (Some(ty), false) = (complex_ty, complex_ok) {
        return Err(KernelError::Invalid {
            inst: instr.name.clone(),
            opcode: instr.op.name(),
            computation: comp.name.clone(),
            message: match instr.op {
                Op::TopK { .. } => format!(
                    "topk of {ty} (complex) values is not defined: complex numbers have no \
                     order (sort by the real or imaginary parts, or the moduli, instead)"
                ),
                _ => format!(
                    "the Host's {} kernel does not produce {ty} (complex) values; generate \
                     unsigned bits and convert them",
                    instr.op.name()
                ),
            },
        });
    }
    let mut operands = Vec::with_capacity(instr.operands.len());
    let mut cx = Ctx {
        module,
        comp,
        inst: instr,
        operands: Vec::new(),
        callees,
    };
    for (i, &o) in instr.operands.iter().enumerate() {
        let Some(oi) = comp.instructions.get(o) else {
            return Err(cx.err(format!(
                "operand {i} is not an instruction of the computation"
            )));
        };
        operands.push(&oi.shape);
    }
    for (i, s) in operands.iter().enumerate() {
        validate_shape(s).map_err(|e| cx.err(format!("operand {i}: {e}")))?;
    }
    validate_shape(&instr.shape).map_err(|e| cx.err(format!("result: {e}")))?;
    let mut called = Vec::with_capacity(instr.called.len());
    for &c in &instr.called {
        match module.computations.get(c) {
            Some(c) => called.push(c.program_shape()),
            None => return Err(cx.err("calls a computation that is not in the module")),
        }
    }
    // rng-bit-generator's result shape is declared, not inferred; it is checked by its builder.
    if !matches!(instr.op, Op::RngBitGenerator { .. }) {
        check_shape(&instr.op, &operands, &called, &instr.shape)
            .map_err(|e| cx.err(e.to_string()))?;
    }
    for (i, s) in operands.iter().enumerate() {
        if let Shape::Array(a) = s {
            if !addressable(a) {
                return Err(cx.err(format!("operand {i}: is too large to address")));
            }
        }
    }
    for (_, s) in instr.shape.leaves() {
        if let Shape::Array(a) = s {
            if !addressable(a) {
                return Err(cx.err("result: is too large to address"));
            }
        }
    }
    cx.operands = operands;
    let k: Box<dyn HostKernel> = match &instr.op {
        Op::Dot { dnums, .. } => Box::new(dot::DotKernel::new(&cx, dnums)?),
        Op::Convolution(c) => Box::new(conv::ConvKernel::new(
            &cx,
            &c.window,
            &c.dnums,
            c.feature_group_count,
            c.batch_group_count,
        )?),
        Op::Sort { dimension, .. } => Box::new(sort::SortKernel::new(&cx, *dimension)?),
        Op::TopK { k, largest } => Box::new(sort::TopKKernel::new(&cx, *k, *largest)?),
        Op::Gather {
            dnums, slice_sizes, ..
        } => Box::new(gather::GatherKernel::new(&cx, dnums, slice_sizes)?),
        Op::Scatter { dnums, .. } => Box::new(gather::ScatterKernel::new(&cx, dnums)?),
        Op::ReduceWindow { window } => Box::new(window::ReduceWindowKernel::new(&cx, window)?),
        Op::SelectAndScatter { window } => {
            Box::new(window::SelectAndScatterKernel::new(&cx, window)?)
        }
        Op::RngBitGenerator { algorithm } => Box::new(rng::RngKernel::new(&cx, *algorithm)?),
        Op::Fft {
            fft_type,
            fft_length,
        } => Box::new(fft::FftKernel::new(&cx, *fft_type, fft_length)?),
        _ => return Ok(None),
    };
    Ok(Some(Box::new(Checked {
        name: instr.name.clone(),
        n_in: cx.operands.iter().map(|s| s.leaves().len()).sum(),
        n_out: instr.shape.leaves().len(),
        kernel: k,
    })))
}

/// A kernel behind the check every kernel needs before it reads a buffer:
/// one operand buffer per leaf of the operands, one result buffer per leaf
/// of the result, none null.
struct Checked {
    name: String,
    n_in: usize,
    n_out: usize,
    kernel: Box<dyn HostKernel>,
}

impl HostKernel for Checked {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError> {
        check_counts(&self.name, operands, outputs, self.n_in, self.n_out)?;
        self.kernel.run(operands, outputs)
    }
}

/// Whether every element offset of `a` fits in isize bytes.
fn addressable(a: &ArrayShape) -> bool {
    a.checked_element_count()
        .and_then(|n| usize::try_from(n).ok())
        .and_then(|n| n.checked_mul(a.ty.byte_size()))
        .is_some_and(|b| b <= isize::MAX as usize)
}

/// An array buffer's geometry: element type, logical dims and element strides.
#[derive(Clone, Debug)]
pub(crate) struct Geom {
    pub ty: ElementType,
    pub dims: Vec<usize>,
    pub strides: Vec<usize>,
}

impl Geom {
    pub(crate) fn new(a: &ArrayShape) -> Geom {
        Geom {
            ty: a.ty,
            dims: a.dims.iter().map(|&d| d.max(0) as usize).collect(),
            strides: a.strides(),
        }
    }
    pub(crate) fn count(&self) -> usize {
        self.dims.iter().product()
    }
    /// Offsets (in elements) of every element in logical row-major order.
    pub(crate) fn offsets(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.count());
        for_each_offset(&self.dims, &self.strides, |o| out.push(o));
        out
    }
}

/// Calls `f(offset)` for every index of `dims` in row-major order, with
/// `offset = sum(idx[d] * strides[d])`.
pub(crate) fn for_each_offset(dims: &[usize], strides: &[usize], mut f: impl FnMut(usize)) {
    hlox_hlo::semantics::walk::for_each_offset(dims, 0, strides, |_, o| f(o));
}

/// Copies an array between two layouts of the same logical shape.
pub(crate) unsafe fn copy_relayout(src: *const u8, sg: &Geom, dst: *mut u8, dg: &Geom) {
    let esz = sg.ty.byte_size();
    if sg.strides == dg.strides {
        std::ptr::copy_nonoverlapping(src, dst, sg.count() * esz);
        return;
    }
    let so = sg.offsets();
    let dof = dg.offsets();
    for (s, d) in so.iter().zip(&dof) {
        std::ptr::copy_nonoverlapping(src.add(s * esz), dst.add(d * esz), esz);
    }
}

/// Checks the leaf counts a kernel is run with.
fn check_counts(
    what: &str,
    operands: &[*const u8],
    outputs: &[*mut u8],
    n_in: usize,
    n_out: usize,
) -> Result<(), RunError> {
    if operands.len() != n_in || outputs.len() != n_out {
        return Err(RunError::BufferCount {
            kernel: what.to_string(),
            expected_in: n_in,
            expected_out: n_out,
            got_in: operands.len(),
            got_out: outputs.len(),
        });
    }
    if operands.iter().any(|p| p.is_null()) || outputs.iter().any(|p| p.is_null()) {
        return Err(RunError::NullBuffer {
            kernel: what.to_string(),
        });
    }
    Ok(())
}

/// The element operations from which a kernel's loop is split over rayon.
pub const PARALLEL_WORK: usize = 1 << 16;

thread_local! {
    /// The thread budget [`with_threads`] set on this thread (0: none).
    static BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many threads a kernel running on this thread splits its work over:
/// the current rayon pool's, or the budget of the innermost
/// [`with_threads`] when that is smaller.
pub fn threads() -> usize {
    let pool = rayon::current_num_threads();
    match BUDGET.get() {
        0 => pool,
        b => b.min(pool),
    }
}

/// Runs `f` with a budget of `n` threads (at least 1) for the kernels it
/// runs on this thread: each of several kernels running side by side takes
/// its share of the pool instead of splitting over all of it. Work a
/// kernel hands to other threads is not split further.
pub fn with_threads<R>(n: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUDGET.set(self.0);
        }
    }
    let _restore = Restore(BUDGET.replace(n.max(1)));
    f()
}

/// Whether a loop of `work` element operations is worth splitting over rayon.
pub(crate) fn parallel_worth(work: usize) -> bool {
    work >= PARALLEL_WORK && threads() > 1
}

/// Calls `f(i)` for each of the `n` independent rows (batches, windows) of
/// a kernel: over rayon when there is more than one and the `work` (element
/// operations in all) is [`parallel_worth`] it, else in order.
pub(crate) fn for_each_row(n: usize, work: usize, f: impl Fn(usize) + Sync + Send) {
    use rayon::prelude::*;
    if n > 1 && parallel_worth(work) {
        (0..n).into_par_iter().for_each(f);
    } else {
        (0..n).for_each(f);
    }
}
