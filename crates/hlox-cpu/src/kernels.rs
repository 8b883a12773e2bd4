//! Runtime kernels for heavy ops (dot, convolution, sort, gather, ...).
//!
//! The interface is the one of the `hlox-cpu-runtime` crate being written
//! on branch h-kernels. Until it lands, [`make_kernel`] provides every such
//! op through the reference evaluator (correct, slow): the instruction is
//! evaluated on literals read from the operand buffers and the result is
//! written to the output buffers. The compiled scalar callees are accepted
//! and unused by this stand-in.

use hlox_hlo::{
    ArrayLiteral, ArrayShape, Computation, InstId, Instruction, Literal, Module, Op, Shape,
};

/// A compiled scalar computation: `args` holds one pointer per parameter
/// leaf, `outs` one per result leaf.
pub type ScalarFn = unsafe extern "C" fn(args: *const *const u8, outs: *const *mut u8);

/// A heavy op run by the runtime on leaf buffers in pre-order.
pub trait HostKernel: Send + Sync {
    /// # Safety
    /// `operands`/`outputs` point to buffers of the instruction's operand and
    /// result leaf shapes.
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), String>;
}

#[derive(Debug, thiserror::Error)]
#[error("{inst}: {message}")]
pub struct KernelError {
    pub inst: String,
    pub message: String,
}

/// True for the ops the Host backend runs as runtime kernels.
pub fn is_runtime_kernel(op: &Op) -> bool {
    matches!(
        op,
        Op::Dot { .. }
            | Op::Convolution { .. }
            | Op::Sort { .. }
            | Op::TopK { .. }
            | Op::Gather { .. }
            | Op::Scatter { .. }
            | Op::ReduceWindow { .. }
            | Op::SelectAndScatter { .. }
            | Op::RngBitGenerator { .. }
    )
}

/// The kernel for instruction `inst` of `comp`.
pub fn make_kernel(
    module: &Module,
    comp: &Computation,
    inst: InstId,
    _callees: &[ScalarFn],
) -> Result<Option<Box<dyn HostKernel>>, KernelError> {
    let i = comp.inst(inst);
    if !is_runtime_kernel(&i.op) {
        return Ok(None);
    }
    // A module whose entry computation is this instruction on parameters.
    let mut m = module.clone();
    let mut instructions = hlox_hlo::PrimaryMap::new();
    let mut params = Vec::new();
    let mut operands = Vec::new();
    let mut operand_shapes = Vec::new();
    for (k, &o) in i.operands.iter().enumerate() {
        let s = comp.inst(o).shape.clone();
        operand_shapes.push(s.clone());
        let p = instructions.push(Instruction::new(
            format!("p{k}"),
            Op::Parameter { number: k as u64 },
            s,
            vec![],
        ));
        params.push(p);
        operands.push(p);
    }
    let mut copy = i.clone();
    copy.operands = operands;
    let root = instructions.push(copy);
    let c = Computation {
        name: format!("kernel.{}", i.name),
        instructions,
        params,
        root,
        execution_thread: None,
    };
    let id = m.computations.push(c);
    m.entry = id;
    m.input_output_alias.clear();
    Ok(Some(Box::new(EvalKernel {
        module: m,
        name: i.name.clone(),
        operand_shapes,
        result: i.shape.clone(),
    })))
}

struct EvalKernel {
    module: Module,
    name: String,
    operand_shapes: Vec<Shape>,
    result: Shape,
}

fn read_leaves(shape: &Shape, ptrs: &mut std::slice::Iter<*const u8>) -> Result<Literal, String> {
    Ok(match shape {
        Shape::Array(a) => {
            let p = *ptrs.next().ok_or("too few operand buffers")?;
            let n = a.byte_size();
            let bytes = if n == 0 {
                Vec::new()
            } else {
                unsafe { std::slice::from_raw_parts(p, n) }.to_vec()
            };
            Literal::Array(ArrayLiteral::from_bytes(a.clone(), bytes).map_err(|e| e.to_string())?)
        }
        Shape::Tuple(t) => Literal::Tuple(
            t.iter()
                .map(|s| read_leaves(s, ptrs))
                .collect::<Result<_, _>>()?,
        ),
        Shape::Token => {
            ptrs.next();
            Literal::Token
        }
    })
}

impl HostKernel for EvalKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), String> {
        let mut it = operands.iter();
        let args: Vec<Literal> = self
            .operand_shapes
            .iter()
            .map(|s| read_leaves(s, &mut it))
            .collect::<Result<_, _>>()?;
        let r = hlox_eval::evaluate(&self.module, &args, &hlox_eval::NoCustomCalls)
            .map_err(|e| format!("{}: {e}", self.name))?;
        let leaves = r.leaves();
        let shapes = self.result.leaves();
        if leaves.len() != outputs.len() || shapes.len() != outputs.len() {
            return Err(format!(
                "{}: result has {} leaves, {} buffers",
                self.name,
                leaves.len(),
                outputs.len()
            ));
        }
        for ((l, out), (_, s)) in leaves.iter().zip(outputs).zip(shapes) {
            if let (Literal::Array(a), Shape::Array(want)) = (l, s) {
                let a = relayout(a, want);
                let b = a.bytes();
                if !b.is_empty() {
                    std::ptr::copy_nonoverlapping(b.as_ptr(), *out, b.len());
                }
            }
        }
        Ok(())
    }
}

fn relayout(a: &ArrayLiteral, want: &ArrayShape) -> ArrayLiteral {
    if a.shape().layout == want.layout {
        a.clone()
    } else {
        a.relayout(want.layout.clone())
    }
}
