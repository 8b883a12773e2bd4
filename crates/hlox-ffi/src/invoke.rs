//! Calling targets on real buffers with XLA's memory layouts.
//!
//! Host: each operand becomes one pointer in `in[]`: an array operand's
//! buffer, or for a tuple operand a pointer to an array of pointers to its
//! elements (nested for nested tuples). The result is `out`: the result
//! buffer, or for a tuple result a pointer to an array of pointers to the
//! element buffers. Buffers are 64-byte aligned copies of the literals' bytes
//! (layout order), so a target may write through any pointer without touching
//! the caller's literals.
//!
//! CUDA: `buffers[]` holds one device pointer per leaf array, operands first
//! then results, each shape walked in pre-order ([`cuda_buffer_order`]).

use crate::platform::Platform;
use crate::registry::{BoundTargets, Target};
use crate::status::XlaCustomCallStatus;
use crate::target::{take_panic, CUstream, TargetFn};
use crate::xla_ffi::FfiCall;
use hlox_hlo::{
    ArrayLiteral, ArrayShape, CustomCall, CustomCallApiVersion, Instruction, Literal, Shape,
    ShapeIndex,
};
use std::alloc::Layout;
use std::ffi::{c_char, c_void};
use std::ptr::NonNull;
use std::sync::Arc;

/// Alignment of every buffer handed to a host target (XLA's CPU alignment).
pub const BUFFER_ALIGNMENT: usize = 64;

/// Generated code passed a call a different number of operand or result
/// buffers than the call was prepared with: a compiler bug, never a user
/// error. The sandbox and the typed-FFI call both check it before touching
/// a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("internal: {given_operands} operand and {given_results} result buffers for a call prepared with {operands} and {results}")]
pub struct BufferCounts {
    pub given_operands: usize,
    pub given_results: usize,
    pub operands: usize,
    pub results: usize,
}

impl BufferCounts {
    /// `Ok` when the `given` (operand, result) buffer counts are the
    /// `prepared` ones.
    pub fn check(given: (usize, usize), prepared: (usize, usize)) -> Result<(), BufferCounts> {
        if given == prepared {
            return Ok(());
        }
        Err(BufferCounts {
            given_operands: given.0,
            given_results: given.1,
            operands: prepared.0,
            results: prepared.1,
        })
    }
}

/// Errors calling a target.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InvokeError {
    #[error("custom-call target \"{target}\" failed: {message}")]
    Failed { target: String, message: String },
    #[error("custom-call target \"{target}\" panicked: {message}")]
    Panicked { target: String, message: String },
    #[error("target \"{target}\" is registered as {registered} but the custom call asks for {requested}")]
    ApiMismatch {
        target: String,
        registered: &'static str,
        requested: &'static str,
    },
    #[error(
        "custom-call target \"{target}\" is a {platform} target and cannot be called {context}"
    )]
    Platform {
        target: String,
        platform: Platform,
        context: &'static str,
    },
    #[error("custom call to \"{target}\": {message}")]
    Invalid { target: String, message: String },
    /// A typed-FFI call could not be prepared (its `backend_config`, its
    /// instantiate stage).
    #[error("custom call to \"{target}\": {source}")]
    FfiPrepare {
        target: String,
        source: crate::xla_ffi::FfiCallError,
    },
    /// A typed-FFI handler returned an error (or a stage before it did).
    #[error("custom-call target \"{target}\" failed: {source}")]
    FfiFailed {
        target: String,
        source: crate::xla_ffi::FfiCallError,
    },
}

impl InvokeError {
    /// The failure without the target's name, for callers that already
    /// report instruction and target: the target's own message, or
    /// `panicked: ...`, or the whole text for other errors.
    pub fn detail(&self) -> String {
        match self {
            InvokeError::Failed { message, .. } => message.clone(),
            InvokeError::FfiFailed { source, .. } => source.to_string(),
            InvokeError::Panicked { message, .. } => format!("panicked: {message}"),
            other => other.to_string(),
        }
    }
}

/// One 64-byte-aligned, zero-initialised host buffer.
struct Buf {
    ptr: NonNull<u8>,
    size: usize,
    layout: Layout,
}

impl Buf {
    fn new(size: usize) -> Option<Buf> {
        let layout = Layout::from_size_align(size.max(1), BUFFER_ALIGNMENT).ok()?;
        // SAFETY: non-zero size.
        let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        Some(Buf { ptr, size, layout })
    }
    fn bytes(&self) -> &[u8] {
        // SAFETY: `size` bytes were allocated and initialised.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.size) }
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.size) }
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

/// A value's buffer tree: leaves index into the buffer list (`None` for tokens).
enum Node {
    Leaf(Option<usize>),
    Tuple(Vec<Node>),
}

impl Node {
    /// Leaf buffer indices in pre-order (`None` for tokens).
    fn leaves(&self, out: &mut Vec<Option<usize>>) {
        match self {
            Node::Leaf(l) => out.push(*l),
            Node::Tuple(e) => e.iter().for_each(|n| n.leaves(out)),
        }
    }
    fn at(&self, index: &[i64]) -> Option<&Node> {
        let mut n = self;
        for &i in index {
            match n {
                Node::Tuple(e) => n = e.get(usize::try_from(i).ok()?)?,
                Node::Leaf(_) => return None,
            }
        }
        Some(n)
    }
}

struct Buffers {
    bufs: Vec<Buf>,
    arrays: Vec<Box<[*mut c_void]>>,
}

impl Buffers {
    /// Copies of the operands and fresh result buffers (shared with an
    /// operand where `output_operand_aliasing` says so): the buffers, each
    /// operand's tree, the result's tree.
    fn for_call(
        lits: &[Literal],
        call: &CustomCall,
        result_shape: &Shape,
    ) -> Result<(Buffers, Vec<Node>, Node), InvokeError> {
        let name = call.target.as_str();
        let mut b = Buffers {
            bufs: Vec::new(),
            arrays: Vec::new(),
        };
        let op_nodes: Vec<Node> = lits
            .iter()
            .map(|l| b.operand(l, name))
            .collect::<Result<_, _>>()?;
        let res_node = result_node(
            result_shape,
            &mut Vec::new(),
            call,
            &op_nodes,
            lits,
            &mut b,
            &mut Vec::new(),
        )?;
        Ok((b, op_nodes, res_node))
    }
    /// The data pointers of `node`'s leaves in pre-order (null for tokens).
    fn leaf_pointers(&self, node: &Node, out: &mut Vec<*mut c_void>) {
        let mut leaves = Vec::new();
        node.leaves(&mut leaves);
        out.extend(leaves.into_iter().map(|l| match l {
            Some(i) => self.bufs[i].ptr.as_ptr() as *mut c_void,
            None => std::ptr::null_mut(),
        }));
    }
    fn alloc(&mut self, size: usize, target: &str) -> Result<usize, InvokeError> {
        let b = Buf::new(size).ok_or_else(|| InvokeError::Invalid {
            target: target.into(),
            message: format!("cannot allocate {size} bytes"),
        })?;
        self.bufs.push(b);
        Ok(self.bufs.len() - 1)
    }
    fn operand(&mut self, lit: &Literal, target: &str) -> Result<Node, InvokeError> {
        Ok(match lit {
            Literal::Array(a) => {
                let i = self.alloc(a.bytes().len(), target)?;
                self.bufs[i].bytes_mut().copy_from_slice(a.bytes());
                Node::Leaf(Some(i))
            }
            Literal::Tuple(t) => Node::Tuple(
                t.iter()
                    .map(|e| self.operand(e, target))
                    .collect::<Result<_, _>>()?,
            ),
            Literal::Token => Node::Leaf(None),
        })
    }
    /// The pointer a target sees for `node`, building pointer arrays for tuples.
    fn pointer(&mut self, node: &Node) -> *mut c_void {
        match node {
            Node::Leaf(Some(i)) => self.bufs[*i].ptr.as_ptr() as *mut c_void,
            Node::Leaf(None) => std::ptr::null_mut(),
            Node::Tuple(elems) => {
                let ptrs: Box<[*mut c_void]> = elems.iter().map(|e| self.pointer(e)).collect();
                let p = ptrs.as_ptr() as *mut c_void;
                self.arrays.push(ptrs);
                p
            }
        }
    }
}

fn relayout_to(
    lit: &Literal,
    want: &Shape,
    target: &str,
    operand: usize,
) -> Result<Literal, InvokeError> {
    match (lit, want) {
        (Literal::Array(a), Shape::Array(w)) => {
            if !a.shape().compatible(w) {
                return Err(InvokeError::Invalid {
                    target: target.into(),
                    message: format!(
                        "operand {operand} has shape {} but operand_layout_constraints says {}",
                        hlox_hlo::text::shape_to_string(&lit.shape()),
                        hlox_hlo::text::shape_to_string(want)
                    ),
                });
            }
            Ok(Literal::Array(a.relayout(w.layout.clone())))
        }
        (Literal::Tuple(t), Shape::Tuple(w)) if t.len() == w.len() => Ok(Literal::Tuple(
            t.iter()
                .zip(w)
                .map(|(l, s)| relayout_to(l, s, target, operand))
                .collect::<Result<_, _>>()?,
        )),
        (Literal::Token, Shape::Token) => Ok(Literal::Token),
        _ => Err(InvokeError::Invalid {
            target: target.into(),
            message: format!(
                "operand {operand} has shape {} but operand_layout_constraints says {}",
                hlox_hlo::text::shape_to_string(&lit.shape()),
                hlox_hlo::text::shape_to_string(want)
            ),
        }),
    }
}

fn idx(i: &[i64]) -> String {
    let v: Vec<String> = i.iter().map(|x| x.to_string()).collect();
    format!("{{{}}}", v.join(","))
}

/// Builds the result's buffer tree, sharing operand buffers where
/// `output_operand_aliasing` says so.
fn result_node(
    shape: &Shape,
    index: &mut ShapeIndex,
    call: &CustomCall,
    operands: &[Node],
    operand_lits: &[Literal],
    b: &mut Buffers,
    used: &mut Vec<usize>,
) -> Result<Node, InvokeError> {
    let target = call.target.as_str();
    let invalid = |message: String| InvokeError::Invalid {
        target: target.into(),
        message,
    };
    match shape {
        Shape::Tuple(elems) => {
            let mut out = Vec::with_capacity(elems.len());
            for (i, e) in elems.iter().enumerate() {
                index.push(i as i64);
                out.push(result_node(
                    e,
                    index,
                    call,
                    operands,
                    operand_lits,
                    b,
                    used,
                )?);
                index.pop();
            }
            Ok(Node::Tuple(out))
        }
        Shape::Token => Ok(Node::Leaf(None)),
        Shape::Array(a) => {
            let alias = call
                .output_operand_aliasing
                .iter()
                .find(|al| index.starts_with(&al.output_index));
            if let Some(al) = alias {
                let op = usize::try_from(al.operand)
                    .ok()
                    .filter(|&o| o < operands.len())
                    .ok_or_else(|| {
                        invalid(format!(
                            "output_operand_aliasing names operand {} of {}",
                            al.operand,
                            operands.len()
                        ))
                    })?;
                let mut path = al.operand_index.clone();
                path.extend_from_slice(&index[al.output_index.len()..]);
                let lit_shape = operand_lits[op].shape();
                let op_shape = lit_shape.subshape(&path).and_then(Shape::as_array);
                let (Some(Node::Leaf(Some(buf))), Some(op_shape)) =
                    (operands[op].at(&path), op_shape)
                else {
                    return Err(invalid(format!(
                        "output {} aliases operand {op} at {}, which is not an array of that operand",
                        idx(index),
                        idx(&path)
                    )));
                };
                if op_shape != a {
                    return Err(invalid(format!(
                        "output {} ({}) aliases operand {op} at {} ({}), which has another shape or layout",
                        idx(index),
                        hlox_hlo::text::shape_to_string(&Shape::Array(a.clone())),
                        idx(&path),
                        hlox_hlo::text::shape_to_string(&Shape::Array(op_shape.clone()))
                    )));
                }
                if used.contains(buf) {
                    return Err(invalid(format!(
                        "operand {op} at {} is aliased by two outputs",
                        idx(&path)
                    )));
                }
                used.push(*buf);
                return Ok(Node::Leaf(Some(*buf)));
            }
            let size = a
                .checked_element_count()
                .and_then(|n| usize::try_from(n).ok())
                .and_then(|n| n.checked_mul(a.ty.byte_size()))
                .filter(|&n| n <= isize::MAX as usize / 2)
                .ok_or_else(|| invalid(format!("result {} is too large", idx(index))))?;
            Ok(Node::Leaf(Some(b.alloc(size, target)?)))
        }
    }
}

/// Why a call's result buffers do not make its result literal.
#[derive(Debug, thiserror::Error)]
enum ReadResultError {
    #[error(transparent)]
    Literal(#[from] hlox_hlo::LiteralError),
    #[error("internal: result tree does not match its shape")]
    TreeMismatch,
}

fn read_result(shape: &Shape, node: &Node, b: &Buffers) -> Result<Literal, ReadResultError> {
    match (shape, node) {
        (Shape::Array(a), Node::Leaf(Some(i))) => Ok(Literal::Array(ArrayLiteral::from_bytes(
            a.clone(),
            b.bufs[*i].bytes().to_vec(),
        )?)),
        (Shape::Tuple(t), Node::Tuple(n)) => Ok(Literal::Tuple(
            t.iter()
                .zip(n)
                .map(|(s, n)| read_result(s, n, b))
                .collect::<Result<_, _>>()?,
        )),
        (Shape::Token, _) => Ok(Literal::Token),
        _ => Err(ReadResultError::TreeMismatch),
    }
}

/// Calls a Host target on `operands` and returns its result of shape
/// `result_shape`, with the convention of `call.api_version`.
///
/// Passes the opaque bytes exactly as given (`call.opaque`, NUL bytes
/// included; one NUL is appended after them, not counted in the length, as
/// XLA's `std::string` storage has). Honours `output_operand_aliasing` (the
/// target sees one buffer, holding the operand's value, in both places) and
/// `operand_layout_constraints` (operands are relaid out first).
///
/// A typed-FFI call is prepared for this one call (its instantiate stage,
/// if any, runs first); [`HostCustomCalls`] prepares each instruction's
/// call once and keeps it, and its handler state, across runs.
pub fn invoke_host(
    target: &Target,
    call: &CustomCall,
    operands: &[&Literal],
    result_shape: &Shape,
) -> Result<Literal, InvokeError> {
    invoke_host_with(target, call, operands, result_shape, None)
}

/// Prepared typed-FFI calls of one module's instructions, by name.
type FfiCalls = std::sync::Mutex<std::collections::HashMap<String, Arc<FfiCall>>>;

/// That `target` is for `platform` (else it cannot be called `context`) and
/// that its signature accepts the call's `api_version`.
fn check_callable(
    target: &Target,
    call: &CustomCall,
    platform: Platform,
    context: &'static str,
) -> Result<(), InvokeError> {
    if target.platform != platform {
        return Err(InvokeError::Platform {
            target: call.target.clone(),
            platform: target.platform,
            context,
        });
    }
    match target.signature {
        Some(sig) if !sig.accepts(call.api_version) => Err(InvokeError::ApiMismatch {
            target: call.target.clone(),
            registered: sig.api_version.name(),
            requested: call.api_version.name(),
        }),
        _ => Ok(()),
    }
}

fn invoke_host_with(
    target: &Target,
    call: &CustomCall,
    operands: &[&Literal],
    result_shape: &Shape,
    ffi_cache: Option<(&FfiCalls, &str)>,
) -> Result<Literal, InvokeError> {
    let name = call.target.as_str();
    check_callable(target, call, Platform::Host, "on the host")?;
    let Some(func) = target.func.for_call(Platform::Host, call.api_version) else {
        return Err(InvokeError::Invalid {
            target: name.into(),
            message: format!(
                "{} has no C calling convention in hlox",
                call.api_version.name()
            ),
        });
    };

    // Operands in the layouts the target is promised (XLA's rule,
    // `CustomCall::buffer_shapes`): operand_layout_constraints when given,
    // else the default layout; the result likewise, relaid out to the
    // declared shape after the call.
    if let Some(c) = &call.operand_layout_constraints {
        if c.len() != operands.len() {
            return Err(InvokeError::Invalid {
                target: name.into(),
                message: format!(
                    "operand_layout_constraints has {} shapes for {} operands",
                    c.len(),
                    operands.len()
                ),
            });
        }
    }
    let shapes: Vec<Shape> = operands.iter().map(|l| l.shape()).collect();
    let refs: Vec<&Shape> = shapes.iter().collect();
    let (want_ops, call_shape) = call.buffer_shapes(&refs, result_shape);
    let operand_lits: Vec<Literal> = operands
        .iter()
        .zip(&want_ops)
        .enumerate()
        .map(|(i, (l, s))| relayout_to(l, s, name, i))
        .collect::<Result<_, _>>()?;
    let relaid = |lit: Literal| {
        relayout_to(&lit, result_shape, name, 0).map_err(|_| InvokeError::Invalid {
            target: name.into(),
            message: "internal: result relayout".into(),
        })
    };
    if let TargetFn::Ffi(_) = func {
        return invoke_host_ffi(target, call, &operand_lits, &call_shape, ffi_cache)
            .and_then(relaid);
    }

    let (mut b, op_nodes, res_node) = Buffers::for_call(&operand_lits, call, &call_shape)?;
    let ins: Vec<*const c_void> = op_nodes
        .iter()
        .map(|n| b.pointer(n) as *const c_void)
        .collect();
    let out = b.pointer(&res_node);
    call_c_target(call, true, |op_ptr, op_len, status| {
        // SAFETY: the pointers follow XLA's layout for the target's
        // convention and stay valid for the call; the function type was
        // checked against the call.
        unsafe {
            match func {
                TargetFn::HostOriginal(f) => f(out, ins.as_ptr()),
                TargetFn::HostStatusReturning(f) => f(out, ins.as_ptr(), status),
                TargetFn::HostStatusReturningUnified(f) => {
                    f(out, ins.as_ptr(), op_ptr, op_len, status)
                }
                _ => {
                    return Err(InvokeError::Platform {
                        target: name.into(),
                        platform: Platform::Cuda,
                        context: "on the host",
                    })
                }
            }
        }
        Ok(())
    })?;
    read_result(&call_shape, &res_node, &b)
        .map_err(|e| InvokeError::Invalid {
            target: name.into(),
            message: e.to_string(),
        })
        .and_then(relaid)
}

/// A typed-FFI call on the Host: operand leaves are the arguments, result
/// leaves the results, in the layouts of `operand_lits` and `result_shape`
/// (the caller has put them in the layouts the target is promised).
fn invoke_host_ffi(
    target: &Target,
    call: &CustomCall,
    operand_lits: &[Literal],
    result_shape: &Shape,
    cache: Option<(&FfiCalls, &str)>,
) -> Result<Literal, InvokeError> {
    let name = call.target.as_str();
    let invalid = |message: String| InvokeError::Invalid {
        target: name.into(),
        message,
    };
    let op_shapes: Vec<Shape> = operand_lits.iter().map(|l| l.shape()).collect();
    let lits = operand_lits;
    let res_shape = result_shape.clone();
    let refs: Vec<&Shape> = op_shapes.iter().collect();
    let prepare = || {
        FfiCall::new(target, &call.opaque, &refs, &res_shape).map_err(|source| {
            InvokeError::FfiPrepare {
                target: name.into(),
                source,
            }
        })
    };
    let prepared = match cache {
        None => Arc::new(prepare()?),
        Some((calls, inst)) => {
            let mut calls = calls.lock().unwrap_or_else(|e| e.into_inner());
            match calls.get(inst) {
                Some(p) => p.clone(),
                None => {
                    let p = Arc::new(prepare()?);
                    calls.insert(inst.to_string(), p.clone());
                    p
                }
            }
        }
    };
    let (b, op_nodes, res_node) = Buffers::for_call(lits, call, &res_shape)?;
    let (mut args, mut rets) = (Vec::new(), Vec::new());
    op_nodes.iter().for_each(|n| b.leaf_pointers(n, &mut args));
    b.leaf_pointers(&res_node, &mut rets);
    let ctx = crate::xla_ffi::InvokeContext::host_next();
    // SAFETY: the buffers have the prepared shapes and live until the call
    // returns.
    unsafe { prepared.call(&args, &rets, &ctx) }.map_err(|source| InvokeError::FfiFailed {
        target: name.into(),
        source,
    })?;
    read_result(&res_shape, &res_node, &b).map_err(|e| invalid(e.to_string()))
}

/// A typed-FFI call that could not be prepared (its instantiate stage
/// failed, or its buffers cannot be described).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FfiPrepareError {
    pub instruction: String,
    pub target: String,
    pub message: String,
}

impl std::fmt::Display for FfiPrepareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "instruction {}: custom call to \"{}\": {}",
            self.instruction, self.target, self.message
        )
    }
}

/// Prepares every typed-FFI custom call of `module` whose target is bound
/// (running its instantiate stage), by instruction name, for buffers in
/// the layouts `CustomCall::buffer_shapes` promises (what the evaluator
/// passes, and what the compilers' modules hold after
/// `hlox_passes::BoundaryLayouts`).
pub fn prepare_ffi_calls(
    module: &hlox_hlo::Module,
    bound: &BoundTargets,
) -> Result<std::collections::HashMap<String, Arc<FfiCall>>, FfiPrepareError> {
    let mut out = std::collections::HashMap::new();
    for comp in module.computations.values() {
        for inst in comp.instructions.values() {
            let hlox_hlo::Op::CustomCall(call) = &inst.op else {
                continue;
            };
            if call.api_version != CustomCallApiVersion::TypedFfi {
                continue;
            }
            let Some(t) = bound.get(&call.target) else {
                continue;
            };
            let operands: Vec<&Shape> =
                inst.operands.iter().map(|&o| &comp.inst(o).shape).collect();
            let (shapes, result) = call.buffer_shapes(&operands, &inst.shape);
            let refs: Vec<&Shape> = shapes.iter().collect();
            let prepared =
                FfiCall::new(t, &call.opaque, &refs, &result).map_err(|e| FfiPrepareError {
                    instruction: inst.name.clone(),
                    target: call.target.clone(),
                    message: e.to_string(),
                })?;
            out.insert(inst.name.clone(), Arc::new(prepared));
        }
    }
    Ok(out)
}

/// Host custom calls of one module: the evaluator's custom-call handler.
/// `hlox_eval::CustomCallHandler::call` is exactly [`HostCustomCalls::call`].
///
/// Each typed-FFI instruction's call is prepared once and kept (with the
/// state its handler's instantiate stage made) for later runs, as a
/// compiled executable keeps it; clones share them. [`HostCustomCalls::for_module`]
/// prepares them all up front (so an instantiate error comes before any
/// run, as from the compilers); [`HostCustomCalls::new`] on each one's first run.
#[derive(Clone, Debug)]
pub struct HostCustomCalls {
    bound: BoundTargets,
    ffi_calls: Arc<FfiCalls>,
}

impl HostCustomCalls {
    pub fn new(bound: BoundTargets) -> HostCustomCalls {
        HostCustomCalls {
            bound,
            ffi_calls: Arc::default(),
        }
    }
    /// [`HostCustomCalls::new`] with every typed-FFI custom call of
    /// `module` prepared now ([`prepare_ffi_calls`]): their instantiate
    /// stages run here.
    pub fn for_module(
        module: &hlox_hlo::Module,
        bound: BoundTargets,
    ) -> Result<HostCustomCalls, FfiPrepareError> {
        let calls = prepare_ffi_calls(module, &bound)?;
        Ok(HostCustomCalls {
            bound,
            ffi_calls: Arc::new(std::sync::Mutex::new(calls)),
        })
    }
    pub fn bound(&self) -> &BoundTargets {
        &self.bound
    }
    /// Runs the custom call `inst` (whose attributes are `call`) on `operands`.
    pub fn call(
        &self,
        inst: &Instruction,
        call: &CustomCall,
        operands: &[&Literal],
    ) -> Result<Literal, HostCallError> {
        if self.bound.platform() != Platform::Host {
            return Err(HostCallError::NotHost {
                instruction: inst.name.clone(),
                platform: self.bound.platform(),
            });
        }
        let Some(t) = self.bound.get(&call.target) else {
            return Err(HostCallError::Unbound {
                instruction: inst.name.clone(),
                target: call.target.clone(),
            });
        };
        // The caller (the evaluator, a compiled executable) already names the
        // instruction and the target: return what the target said.
        invoke_host_with(
            t,
            call,
            operands,
            &inst.shape,
            Some((&self.ffi_calls, &inst.name)),
        )
        .map_err(HostCallError::Target)
    }
}

/// Why [`HostCustomCalls::call`] gave no result.
#[derive(Debug, thiserror::Error)]
pub enum HostCallError {
    #[error("instruction {instruction}: custom-call targets were bound for {platform}, not Host")]
    NotHost {
        instruction: String,
        platform: Platform,
    },
    #[error("instruction {instruction}: custom-call target \"{target}\" was not bound (bind the module with Registry::bind first)")]
    Unbound { instruction: String, target: String },
    /// The target failed. The caller (the evaluator, a compiled executable)
    /// already names the instruction and the target, so this prints what
    /// the target said ([`InvokeError::detail`]).
    #[error("{}", .0.detail())]
    Target(InvokeError),
}

/// Which value a CUDA `buffers[]` entry belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferRole {
    Operand(usize),
    Result,
}

/// One entry of the CUDA `buffers[]` array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaBuffer {
    pub role: BufferRole,
    /// Index of the leaf within its operand or result shape.
    pub index: ShapeIndex,
    /// `None` for a token leaf (its pointer is null).
    pub shape: Option<ArrayShape>,
}

/// The order of a CUDA target's `buffers[]`: every leaf of every operand,
/// then every leaf of the result, each shape walked in pre-order.
pub fn cuda_buffer_order(operand_shapes: &[Shape], result_shape: &Shape) -> Vec<CudaBuffer> {
    let mut out = Vec::new();
    for (i, s) in operand_shapes.iter().enumerate() {
        for (index, leaf) in s.leaves() {
            out.push(CudaBuffer {
                role: BufferRole::Operand(i),
                index,
                shape: leaf.as_array().cloned(),
            });
        }
    }
    for (index, leaf) in result_shape.leaves() {
        out.push(CudaBuffer {
            role: BufferRole::Result,
            index,
            shape: leaf.as_array().cloned(),
        });
    }
    out
}

/// Calls a CUDA target with XLA's GPU convention: `(stream, buffers, opaque,
/// opaque_len[, status])`. The GPU runtime allocates the device buffers (in
/// [`cuda_buffer_order`]) and owns the stream.
///
/// # Safety
/// `buffers` hold what the target expects (device pointers for a real
/// kernel) and `stream` is a valid `CUstream` or null.
pub unsafe fn invoke_cuda(
    target: &Target,
    call: &CustomCall,
    stream: CUstream,
    buffers: &mut [*mut c_void],
) -> Result<(), InvokeError> {
    let name = call.target.as_str();
    check_callable(target, call, Platform::Cuda, "on CUDA")?;
    let func = target
        .func
        .for_call(Platform::Cuda, call.api_version)
        .ok_or_else(|| InvokeError::Invalid {
            target: name.into(),
            message: format!(
                "{} has no C calling convention in hlox",
                call.api_version.name()
            ),
        })?;
    let original = call.api_version == CustomCallApiVersion::Original;
    call_c_target(call, original, |op_ptr, op_len, status| {
        // SAFETY: as the caller promises; the function type was checked
        // against the call.
        unsafe {
            match func {
                TargetFn::CudaOriginal(f) => f(stream, buffers.as_mut_ptr(), op_ptr, op_len),
                TargetFn::CudaStatusReturning(f) => {
                    f(stream, buffers.as_mut_ptr(), op_ptr, op_len, status)
                }
                TargetFn::Ffi(_) => return Err(InvokeError::Invalid {
                    target: name.into(),
                    message:
                        "internal: a typed-FFI call runs through its prepared FfiCall (invoke_cuda_ffi)"
                            .into(),
                }),
                _ => {
                    return Err(InvokeError::Platform {
                        target: name.into(),
                        platform: Platform::Host,
                        context: "on CUDA",
                    })
                }
            }
        }
        Ok(())
    })
}

/// Calls a C-convention target through `f`, which gets the call's opaque
/// (NUL-terminated, and its length without the NUL) and a fresh status;
/// then reports a panic the trampoline recorded (when `check_panic`: the
/// conventions without a status) and a failed status, as [`InvokeError`]s.
fn call_c_target(
    call: &CustomCall,
    check_panic: bool,
    f: impl FnOnce(*const c_char, usize, &mut XlaCustomCallStatus) -> Result<(), InvokeError>,
) -> Result<(), InvokeError> {
    let mut opaque = call.opaque.clone();
    opaque.push(0);
    let mut status = XlaCustomCallStatus::new();
    take_panic();
    f(
        opaque.as_ptr() as *const c_char,
        call.opaque.len(),
        &mut status,
    )?;
    if check_panic {
        if let Some(message) = take_panic() {
            return Err(InvokeError::Panicked {
                target: call.target.clone(),
                message,
            });
        }
    }
    if let Some(message) = status.failure() {
        return Err(InvokeError::Failed {
            target: call.target.clone(),
            message,
        });
    }
    Ok(())
}

/// Calls a prepared typed-FFI call with XLA's GPU buffer order (operand
/// leaves, then result leaves; [`cuda_buffer_order`]) in the context of one
/// CUDA call (its stream and scratch memory). `run` holds what this run
/// of the executable has done with the call's prepare and initialize
/// stages (they run before the first execute of each run).
///
/// # Safety
/// `buffers` hold the call's buffers (device pointers on a GPU, host
/// pointers in emulation) of the prepared shapes, valid for the work the
/// handler queues.
pub unsafe fn invoke_cuda_ffi(
    prepared: &FfiCall,
    target: &str,
    buffers: &[*mut c_void],
    ctx: &crate::xla_ffi::InvokeContext,
    run: &mut crate::xla_ffi::RunStages,
) -> Result<(), InvokeError> {
    unsafe { prepared.call_buffers(buffers, ctx, Some(run)) }.map_err(|source| {
        InvokeError::FfiFailed {
            target: target.into(),
            source,
        }
    })
}
