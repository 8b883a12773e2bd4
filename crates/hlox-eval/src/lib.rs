//! The reference evaluator of hlox: a plain interpreter of every opcode of
//! the HLO IR ([`hlox_hlo::ir`]) with XLA's semantics.
//!
//! It is the oracle for the compiled backends' differential tests and for
//! constant folding, so it favours clarity and exactness over speed (while
//! staying linear where linear is obvious).
//!
//! - Integers wrap; integer division by zero gives -1 (signed) / all ones
//!   (unsigned), `INT_MIN / -1 = INT_MIN`, remainder by zero gives the
//!   dividend; shifts by at least the bit width give 0 (or the sign fill).
//! - F16/BF16 are computed in f32 and rounded after every op; dot and
//!   convolution accumulate F16/BF16 in f32 and integers in the type. By
//!   default ([`HalfRounding::ExcessPrecision`], XLA's default) a `convert`
//!   to f32 of a bf16 arithmetic result reads it before rounding, as
//!   XLA:CPU does ([`precision`]); [`HalfRounding::EveryOp`] rounds it too.
//! - Float -> integer conversion saturates and maps NaN to 0.
//! - `maximum`/`minimum`/`clamp` propagate NaN.
//! - dynamic-slice / dynamic-update-slice / gather clamp start indices into
//!   range; scatter skips update windows that do not fit.
//! - rng-bit-generator implements XLA's Philox-4x32 (the CPU default) and
//!   ThreeFry-2x32 expansions bit for bit.
//!
//! Literals carry layouts: arguments and constants may use any layout; the
//! result comes back in the layout the root instruction declares; custom-call
//! operands are handed over in their declared layouts.

mod complex;
mod compute;
mod elementwise;
mod fft;
pub mod precision;
mod rng;
mod structural;
mod value;

use compute::Func;
pub use hlox_hlo::cancel::{CancelToken, ExecuteOptions, Stop};
use hlox_hlo::{
    ArrayLiteral, ArrayShape, CompId, Computation, CustomCall, ElementType, EntityRef, Instruction,
    Literal, Module, Op, Shape,
};
pub use precision::HalfRounding;
use std::cell::Cell;
use std::sync::atomic::Ordering;
pub use value::OpError;
use value::{apply_layout, normalize, shape_str};

/// Runs custom calls for the evaluator.
pub trait CustomCallHandler {
    /// Run custom call `inst` (a `custom-call` of computation `comp`) on
    /// `operands`; return the result literal of shape `inst.shape`.
    fn call(
        &self,
        inst: &Instruction,
        call: &CustomCall,
        operands: &[&Literal],
    ) -> Result<Literal, CustomCallError>;
}

/// A function (or closure) with the signature of [`CustomCallHandler::call`]
/// is a handler: a test or an embedder with one target writes a `fn`, not
/// a type and an impl.
impl<F> CustomCallHandler for F
where
    F: Fn(&Instruction, &CustomCall, &[&Literal]) -> Result<Literal, CustomCallError>,
{
    fn call(
        &self,
        inst: &Instruction,
        call: &CustomCall,
        operands: &[&Literal],
    ) -> Result<Literal, CustomCallError> {
        self(inst, call, operands)
    }
}

/// Why a custom call gave no result in the evaluator. The evaluator wraps it
/// in [`EvalError::CustomCall`], which names the computation, instruction and
/// target.
#[derive(Debug, thiserror::Error)]
pub enum CustomCallError {
    /// The handler does not know the target.
    #[error("no custom-call handler: cannot run target {target}; evaluate with a CustomCallHandler that registers it")]
    NoHandler { target: String },
    /// The call through XLA's Host conventions failed.
    #[error(transparent)]
    Host(#[from] hlox_ffi::HostCallError),
    /// A typed-FFI call could not be prepared (its instantiate stage failed).
    #[error("{message}")]
    Prepare { message: String },
    /// The handler returned a value whose shape is not the declared one.
    #[error("handler returned shape {returned}, the instruction declares {declared}")]
    WrongShape { returned: String, declared: String },
    /// A handler's own failure, for handlers written outside hlox.
    #[error(transparent)]
    Handler(Box<dyn std::error::Error + Send + Sync>),
}

/// A handler that knows no targets.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoCustomCalls;

impl CustomCallHandler for NoCustomCalls {
    fn call(
        &self,
        _inst: &Instruction,
        call: &CustomCall,
        _operands: &[&Literal],
    ) -> Result<Literal, CustomCallError> {
        Err(CustomCallError::NoHandler {
            target: call.target.clone(),
        })
    }
}

/// What went wrong while evaluating, and where.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("computation `{computation}` takes {expected} arguments but was given {actual}")]
    ArgumentCount {
        computation: String,
        expected: usize,
        actual: usize,
    },
    #[error(
        "argument {index} of computation `{computation}` (parameter `{parameter}`) has shape {actual}, but the parameter is {expected}"
    )]
    ArgumentShape {
        computation: String,
        index: usize,
        parameter: String,
        expected: String,
        actual: String,
    },
    #[error("in computation `{computation}`, instruction `{instruction}` ({opcode}): {source}")]
    Instruction {
        computation: String,
        instruction: String,
        opcode: &'static str,
        #[source]
        source: Box<OpError>,
    },
    #[error("in computation `{computation}`, custom-call `{instruction}` to target `{target}` failed: {source}")]
    CustomCall {
        computation: String,
        instruction: String,
        target: String,
        #[source]
        source: Box<CustomCallError>,
    },
    /// The module's custom-call targets could not all be bound (missing
    /// target, api_version mismatch, ...): nothing ran.
    #[error("{0}")]
    Bind(#[from] hlox_ffi::BindError),
    #[error("computation id {0} does not exist in module `{1}`")]
    NoSuchComputation(String, String),
    /// Calls nested deeper than the module has computations: the module
    /// (which was not verified) has a call cycle.
    #[error(
        "computation `{0}` is nested more than {1} calls deep, deeper than the module has \
         computations: the module has a call cycle (verify it to see the cycle)"
    )]
    TooDeep(String, usize),
    /// The run was stopped through its [`ExecuteOptions`] (a cancelled
    /// token or a passed timeout) before instruction `instruction`.
    #[error("evaluation of module `{module}` {stop}, before `{instruction}` in computation `{computation}`")]
    Stopped {
        module: String,
        computation: String,
        instruction: String,
        stop: hlox_hlo::cancel::Stop,
    },
}

/// Internal failure: an error of the current instruction (to be located),
/// or an already-located error from a called computation.
#[derive(Debug)]
pub(crate) enum Fail {
    Op(OpError),
    Eval(Box<EvalError>),
}

impl From<OpError> for Fail {
    fn from(e: OpError) -> Fail {
        Fail::Op(e)
    }
}

impl From<String> for Fail {
    fn from(s: String) -> Fail {
        Fail::Op(OpError::Invalid(s))
    }
}

impl From<&str> for Fail {
    fn from(s: &str) -> Fail {
        Fail::Op(OpError::Invalid(s.to_string()))
    }
}

impl From<EvalError> for Fail {
    fn from(e: EvalError) -> Fail {
        Fail::Eval(Box::new(e))
    }
}

impl From<hlox_hlo::LiteralError> for Fail {
    fn from(e: hlox_hlo::LiteralError) -> Fail {
        Fail::Op(e.into())
    }
}

impl From<hlox_hlo::semantics::gather::DimensionNumbersError> for Fail {
    fn from(e: hlox_hlo::semantics::gather::DimensionNumbersError) -> Fail {
        Fail::Op(e.into())
    }
}

impl From<hlox_hlo::semantics::window::WindowError> for Fail {
    fn from(e: hlox_hlo::semantics::window::WindowError) -> Fail {
        Fail::Op(e.into())
    }
}

/// Stack left below which a call continues on a new stack segment, and the
/// size of each segment (`stacker`): calls nest as deep as the module's call
/// graph goes, on any thread, whatever its stack size.
const STACK_RED_ZONE: usize = 512 << 10;
const STACK_SEGMENT: usize = 8 << 20;

/// Evaluate the module's entry computation on `args`.
pub fn evaluate(
    module: &Module,
    args: &[Literal],
    handler: &dyn CustomCallHandler,
) -> Result<Literal, EvalError> {
    evaluate_computation(module, module.entry, args, handler)
}

/// Evaluate computation `comp` of `module` on `args`. Arguments may use any
/// layout; the result uses the layouts the root's shape declares.
/// Binds every custom-call target of `module` for the Host platform in
/// `registry` (all problems reported before anything runs) and prepares its
/// typed-FFI calls (their instantiate stages run here), then evaluates
/// the entry computation, calling the targets with XLA's Host conventions on
/// real buffers.
pub fn evaluate_with_registry(
    module: &Module,
    args: &[Literal],
    registry: &hlox_ffi::Registry,
) -> Result<Literal, EvalError> {
    evaluate_with_registry_options(module, args, registry, &ExecuteOptions::default())
}

/// [`evaluate_with_registry`] that can be stopped (see [`evaluate_with`]).
pub fn evaluate_with_registry_options(
    module: &Module,
    args: &[Literal],
    registry: &hlox_ffi::Registry,
    options: &ExecuteOptions,
) -> Result<Literal, EvalError> {
    evaluate_with_registry_rounding(module, args, registry, options, HalfRounding::default())
}

/// [`evaluate_with_registry_options`] with the bf16 rounding policy
/// `rounding` (see [`evaluate_with_rounding`]).
pub fn evaluate_with_registry_rounding(
    module: &Module,
    args: &[Literal],
    registry: &hlox_ffi::Registry,
    options: &ExecuteOptions,
    rounding: HalfRounding,
) -> Result<Literal, EvalError> {
    let bound = registry.bind(module, hlox_ffi::Platform::Host)?;
    let calls = hlox_ffi::HostCustomCalls::for_module(module, bound).map_err(|e| {
        EvalError::CustomCall {
            computation: module
                .computations
                .values()
                .find(|c| c.instructions.values().any(|i| i.name == e.instruction))
                .map(|c| c.name.clone())
                .unwrap_or_default(),
            instruction: e.instruction,
            target: e.target,
            source: Box::new(CustomCallError::Prepare { message: e.message }),
        }
    })?;
    evaluate_with_rounding(module, args, &calls, options, rounding)
}

/// Host custom calls through the registry: the evaluator's bridge to XLA's
/// C calling conventions.
impl CustomCallHandler for hlox_ffi::HostCustomCalls {
    fn call(
        &self,
        inst: &Instruction,
        call: &CustomCall,
        operands: &[&Literal],
    ) -> Result<Literal, CustomCallError> {
        Ok(hlox_ffi::HostCustomCalls::call(self, inst, call, operands)?)
    }
}

pub fn evaluate_computation(
    module: &Module,
    comp: CompId,
    args: &[Literal],
    handler: &dyn CustomCallHandler,
) -> Result<Literal, EvalError> {
    evaluate_computation_with(module, comp, args, handler, &ExecuteOptions::default())
}

/// [`evaluate`] that can be stopped: by `options.cancel` from another
/// thread, or when `options.timeout` passes. The flag is checked before
/// every instruction (so at every while-loop iteration); a stopped run is
/// [`EvalError::Stopped`].
pub fn evaluate_with(
    module: &Module,
    args: &[Literal],
    handler: &dyn CustomCallHandler,
    options: &ExecuteOptions,
) -> Result<Literal, EvalError> {
    evaluate_computation_with(module, module.entry, args, handler, options)
}

/// [`evaluate_computation`] with [`ExecuteOptions`] (see [`evaluate_with`]).
pub fn evaluate_computation_with(
    module: &Module,
    comp: CompId,
    args: &[Literal],
    handler: &dyn CustomCallHandler,
    options: &ExecuteOptions,
) -> Result<Literal, EvalError> {
    evaluate_computation_with_rounding(
        module,
        comp,
        args,
        handler,
        options,
        HalfRounding::default(),
    )
}

/// [`evaluate_with`] with the bf16 rounding policy `rounding` (the
/// compiled code's `CompileOptions::half_rounding`; the other entry points
/// use the default, XLA's).
pub fn evaluate_with_rounding(
    module: &Module,
    args: &[Literal],
    handler: &dyn CustomCallHandler,
    options: &ExecuteOptions,
    rounding: HalfRounding,
) -> Result<Literal, EvalError> {
    evaluate_computation_with_rounding(module, module.entry, args, handler, options, rounding)
}

/// [`evaluate_computation_with`] with the bf16 rounding policy `rounding`.
pub fn evaluate_computation_with_rounding(
    module: &Module,
    comp: CompId,
    args: &[Literal],
    handler: &dyn CustomCallHandler,
    options: &ExecuteOptions,
    rounding: HalfRounding,
) -> Result<Literal, EvalError> {
    let c = module
        .computations
        .get(comp)
        .ok_or_else(|| EvalError::NoSuchComputation(comp.to_string(), module.name.clone()))?;
    let watch = options.start();
    let interp = Interp {
        module,
        handler,
        depth: Cell::new(0),
        watch: &watch,
        rounding,
    };
    let normalized: Vec<Literal> = args.iter().cloned().map(normalize).collect();
    let r = interp.run(comp, normalized)?;
    Ok(apply_layout(r, &c.root_inst().shape))
}

struct Interp<'a> {
    module: &'a Module,
    handler: &'a dyn CustomCallHandler,
    depth: Cell<usize>,
    watch: &'a hlox_hlo::cancel::RunWatch,
    rounding: HalfRounding,
}

fn count_uses(c: &Computation) -> Vec<usize> {
    let mut uses = vec![0usize; c.instructions.len()];
    for (_, inst) in c.instructions.iter() {
        for &o in &inst.operands {
            if let Some(u) = uses.get_mut(o.index()) {
                *u += 1;
            }
        }
    }
    uses
}

impl<'a> Interp<'a> {
    fn comp(&self, id: CompId) -> Result<&'a Computation, EvalError> {
        self.module
            .computations
            .get(id)
            .ok_or_else(|| EvalError::NoSuchComputation(id.to_string(), self.module.name.clone()))
    }

    /// Run a computation on normalized (default-layout) arguments.
    fn run(&self, comp_id: CompId, args: Vec<Literal>) -> Result<Literal, EvalError> {
        Ok(self.run_wide(comp_id, args, false)?.0)
    }

    /// [`Interp::run`], also giving the root's unrounded f32 value when
    /// `wide_root` asks for it and the root has one ([`precision`]).
    fn run_wide(
        &self,
        comp_id: CompId,
        args: Vec<Literal>,
        wide_root: bool,
    ) -> Result<(Literal, Option<Literal>), EvalError> {
        let c = self.comp(comp_id)?;
        if args.len() != c.params.len() {
            return Err(EvalError::ArgumentCount {
                computation: c.name.clone(),
                expected: c.params.len(),
                actual: args.len(),
            });
        }
        for (i, (a, &p)) in args.iter().zip(&c.params).enumerate() {
            let ps = c.instructions.get(p).map(|i| &i.shape);
            let ok = ps.is_some_and(|ps| a.shape().compatible(ps));
            if !ok {
                return Err(EvalError::ArgumentShape {
                    computation: c.name.clone(),
                    index: i,
                    parameter: c
                        .instructions
                        .get(p)
                        .map_or_else(|| format!("#{i}"), |x| x.name.clone()),
                    expected: ps.map_or_else(|| "<missing>".into(), shape_str),
                    actual: shape_str(&a.shape()),
                });
            }
        }
        // In an acyclic call graph no chain of calls is longer than the
        // module has computations; a longer one is a cycle (an unverified
        // module), which would otherwise recurse until memory ran out.
        let d = self.depth.get();
        let max = self.module.computations.len();
        if d >= max {
            return Err(EvalError::TooDeep(c.name.clone(), max));
        }
        self.depth.set(d + 1);
        let r = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.run_inner(c, args, wide_root)
        });
        self.depth.set(d);
        r
    }

    /// Which instructions of `c` need their unrounded f32 value as well:
    /// those a `convert` to f32 reads under [`HalfRounding::ExcessPrecision`]
    /// (and the root when `wide_root`).
    fn wide_needed(&self, c: &Computation, wide_root: bool) -> Vec<bool> {
        let mut need = vec![false; c.instructions.len()];
        if self.rounding != HalfRounding::ExcessPrecision {
            return need;
        }
        let mut mark = |id: hlox_hlo::InstId| {
            if let (Some(p), Some(n)) = (c.instructions.get(id), need.get_mut(id.index())) {
                if precision::has_f32_form(self.module, p) {
                    *n = true;
                }
            }
        };
        for inst in c.instructions.values() {
            if precision::is_convert_to_f32(inst) {
                if let Some(&o) = inst.operands.first() {
                    mark(o);
                }
            }
        }
        if wide_root {
            mark(c.root);
        }
        need
    }

    /// Evaluates `inst`, which has an unrounded f32 form: its value and
    /// that f32 value (computed from the operands widened to f32, or the
    /// callee's root's).
    fn eval_wide(
        &self,
        comp: &Computation,
        inst: &Instruction,
        ops: &[&Literal],
        args: &mut [Option<Literal>],
    ) -> Result<(Literal, Option<Literal>), Fail> {
        if let Op::Call = inst.op {
            let callee = self.called(inst, 0)?;
            let args = ops.iter().map(|&l| l.clone()).collect();
            return Ok(self.run_wide(callee, args, true)?);
        }
        let v = self.eval_inst(comp, inst, ops, args)?;
        let mut wide_inst = inst.clone();
        if let Shape::Array(a) = &mut wide_inst.shape {
            a.ty = ElementType::F32;
        }
        let widened: Vec<Literal> = ops
            .iter()
            .map(|&l| match l {
                Literal::Array(x) if x.ty() == ElementType::Bf16 => {
                    Literal::Array(value::encode(&value::decode(x), ElementType::F32, x.dims()))
                }
                other => other.clone(),
            })
            .collect();
        let refs: Vec<&Literal> = widened.iter().collect();
        let w = self.eval_inst(comp, &wide_inst, &refs, args)?;
        Ok((v, Some(w)))
    }

    fn run_inner(
        &self,
        c: &Computation,
        args: Vec<Literal>,
        wide_root: bool,
    ) -> Result<(Literal, Option<Literal>), EvalError> {
        let mut args: Vec<Option<Literal>> = args.into_iter().map(Some).collect();
        let mut uses = count_uses(c);
        let mut vals: Vec<Option<Literal>> = vec![None; c.instructions.len()];
        let need_wide = self.wide_needed(c, wide_root);
        let mut wide: Vec<Option<Literal>> = vec![None; c.instructions.len()];
        if !c.instructions.is_valid(c.root) {
            return Err(EvalError::Instruction {
                computation: c.name.clone(),
                instruction: c.root.to_string(),
                opcode: "root",
                source: Box::new(OpError::Invalid("root instruction does not exist".into())),
            });
        }
        for (id, inst) in c.instructions.iter() {
            if self.watch.flag().load(Ordering::Relaxed) != hlox_hlo::cancel::RUN {
                if let Some(stop) = self.watch.stopped() {
                    return Err(EvalError::Stopped {
                        module: self.module.name.clone(),
                        computation: c.name.clone(),
                        instruction: inst.name.clone(),
                        stop,
                    });
                }
            }
            let located = |source: OpError| EvalError::Instruction {
                computation: c.name.clone(),
                instruction: inst.name.clone(),
                opcode: inst.op.name(),
                source: Box::new(source),
            };
            // Operands must be evaluated already (topological order).
            let mut ops: Vec<&Literal> = Vec::with_capacity(inst.operands.len());
            for &o in &inst.operands {
                match vals.get(o.index()).and_then(|v| v.as_ref()) {
                    Some(v) => ops.push(v),
                    None => return Err(located(OpError::OperandOrder(o.to_string()))),
                }
            }
            // A result too large for memory is an error here, not an abort
            // inside the op (which may need a scratch copy of that size too).
            if let Err(m) = check_allocatable(&inst.shape) {
                return Err(located(m));
            }
            // A convert to f32 of a value kept unrounded reads that value.
            let unrounded = match inst.operands.first() {
                Some(o) if precision::is_convert_to_f32(inst) => {
                    wide.get(o.index()).and_then(|w| w.as_ref())
                }
                _ => None,
            };
            let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if let Some(w) = unrounded {
                    Ok((w.clone(), None))
                } else if need_wide.get(id.index()).copied().unwrap_or(false) {
                    self.eval_wide(c, inst, &ops, &mut args)
                } else {
                    Ok((self.eval_inst(c, inst, &ops, &mut args)?, None))
                }
            }));
            let (v, w) = match res {
                Ok(Ok(v)) => v,
                Ok(Err(Fail::Op(m))) => return Err(located(m)),
                Ok(Err(Fail::Eval(e))) => return Err(*e),
                Err(p) => {
                    let msg = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    return Err(located(OpError::Internal(msg)));
                }
            };
            if !v.shape().compatible(&inst.shape) {
                return Err(located(OpError::ResultShape {
                    actual: shape_str(&v.shape()),
                    declared: shape_str(&inst.shape),
                }));
            }
            drop(ops);
            for &o in &inst.operands {
                if let Some(u) = uses.get_mut(o.index()) {
                    *u -= 1;
                    if *u == 0 && o != c.root {
                        vals[o.index()] = None;
                        wide[o.index()] = None;
                    }
                }
            }
            vals[id.index()] = Some(v);
            wide[id.index()] = w;
        }
        Ok((
            vals[c.root.index()].take().unwrap_or(Literal::Token),
            wide[c.root.index()].take(),
        ))
    }

    fn func<'f>(
        &'f self,
        inst: &Instruction,
        i: usize,
        call: &'f dyn Fn(Vec<Literal>) -> Result<Literal, Fail>,
    ) -> Result<Func<'f>, Fail>
    where
        'a: 'f,
    {
        let id = *inst
            .called
            .get(i)
            .ok_or_else(|| Fail::from(format!("missing called computation #{i}")))?;
        Ok(Func {
            call,
            comp: self.comp(id)?,
        })
    }

    fn called(&self, inst: &Instruction, i: usize) -> Result<CompId, Fail> {
        let id = *inst
            .called
            .get(i)
            .ok_or_else(|| Fail::from(format!("missing called computation #{i}")))?;
        self.comp(id)?;
        Ok(id)
    }

    fn eval_inst(
        &self,
        comp: &Computation,
        inst: &Instruction,
        ops: &[&Literal],
        args: &mut [Option<Literal>],
    ) -> Result<Literal, Fail> {
        let _ = comp;
        let nops = |n: usize| -> Result<(), Fail> {
            if ops.len() != n {
                return Err(format!("expects {n} operands, has {}", ops.len()).into());
            }
            Ok(())
        };
        let a = |i: usize| -> Result<&ArrayLiteral, Fail> {
            ops.get(i)
                .ok_or_else(|| Fail::from(format!("missing operand {i}")))?
                .as_array()
                .map_err(|e| Fail::from(format!("operand {i}: {e}")))
        };
        let out = || -> Result<&ArrayShape, Fail> {
            inst.shape.as_array().ok_or_else(|| {
                format!("result shape {} must be an array", shape_str(&inst.shape)).into()
            })
        };
        let lit = |x: ArrayLiteral| -> Result<Literal, Fail> { Ok(Literal::Array(x)) };
        match &inst.op {
            Op::Parameter { number } => {
                let slot = args.get_mut(*number as usize).ok_or_else(|| {
                    Fail::from(format!("parameter number {number} is out of range"))
                })?;
                slot.take()
                    .ok_or_else(|| format!("parameter {number} is defined twice").into())
            }
            Op::Constant { literal } => Ok(normalize(literal.clone())),
            Op::Iota { dimension } => lit(structural::iota(out()?, *dimension)?),
            Op::Unary(u) => {
                nops(1)?;
                lit(elementwise::unary(*u, a(0)?, out()?.ty)?)
            }
            Op::Binary(b) => {
                nops(2)?;
                lit(elementwise::binary(*b, a(0)?, a(1)?, out()?.ty)?)
            }
            Op::Compare {
                direction,
                cmp_type,
            } => {
                nops(2)?;
                lit(elementwise::compare(
                    *direction,
                    *cmp_type,
                    a(0)?,
                    a(1)?,
                    out()?.ty,
                )?)
            }
            Op::Select => {
                nops(3)?;
                lit(elementwise::select(a(0)?, a(1)?, a(2)?)?)
            }
            Op::Clamp => {
                nops(3)?;
                lit(elementwise::clamp(a(0)?, a(1)?, a(2)?, out()?.ty)?)
            }
            Op::Convert => {
                nops(1)?;
                let x = a(0)?;
                lit(value::encode(&value::decode(x), out()?.ty, x.dims()))
            }
            Op::BitcastConvert => {
                nops(1)?;
                lit(structural::bitcast_convert(a(0)?, out()?)?)
            }
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                nops(1)?;
                lit(elementwise::reduce_precision(
                    a(0)?,
                    *exponent_bits,
                    *mantissa_bits,
                )?)
            }
            Op::Broadcast { dimensions } => {
                nops(1)?;
                lit(structural::broadcast(a(0)?, out()?, dimensions)?)
            }
            Op::Reshape => {
                nops(1)?;
                lit(structural::reshape(a(0)?, out()?)?)
            }
            Op::Bitcast => {
                nops(1)?;
                let in_layout = comp_operand_layout(comp, inst, 0)
                    .ok_or_else(|| "operand must be an array".to_string())?;
                lit(structural::bitcast(a(0)?, &in_layout, out()?)?)
            }
            Op::Transpose { dimensions } => {
                nops(1)?;
                lit(structural::transpose(a(0)?, out()?, dimensions)?)
            }
            Op::Reverse { dimensions } => {
                nops(1)?;
                lit(structural::reverse(a(0)?, dimensions)?)
            }
            Op::Slice { dims } => {
                nops(1)?;
                lit(structural::slice(a(0)?, out()?, dims)?)
            }
            Op::DynamicSlice { sizes } => {
                let idx = (1..ops.len()).map(a).collect::<Result<Vec<_>, _>>()?;
                lit(structural::dynamic_slice(a(0)?, &idx, sizes, out()?)?)
            }
            Op::DynamicUpdateSlice => {
                let idx = (2..ops.len()).map(a).collect::<Result<Vec<_>, _>>()?;
                lit(structural::dynamic_update_slice(a(0)?, a(1)?, &idx)?)
            }
            Op::Concatenate { dimension } => {
                let xs = (0..ops.len()).map(a).collect::<Result<Vec<_>, _>>()?;
                lit(structural::concatenate(&xs, *dimension, out()?)?)
            }
            Op::Pad { dims } => {
                nops(2)?;
                lit(structural::pad(a(0)?, a(1)?, dims, out()?)?)
            }
            Op::Dot { dnums, .. } => {
                nops(2)?;
                lit(compute::dot(a(0)?, a(1)?, dnums, out()?)?)
            }
            Op::Convolution(c) => {
                nops(2)?;
                lit(compute::convolution(
                    a(0)?,
                    a(1)?,
                    &c.window,
                    &c.dnums,
                    c.feature_group_count,
                    c.batch_group_count,
                    out()?,
                )?)
            }
            Op::Reduce { .. } | Op::ReduceWindow { .. } => {
                let n = ops.len() / 2;
                if ops.len() & 1 == 1 || n == 0 {
                    return Err(format!(
                        "expects N inputs and N init values, has {} operands",
                        ops.len()
                    )
                    .into());
                }
                let inputs = (0..n).map(a).collect::<Result<Vec<_>, _>>()?;
                let inits = (n..2 * n).map(a).collect::<Result<Vec<_>, _>>()?;
                let callee = self.called(inst, 0)?;
                let call = |xs: Vec<Literal>| self.run(callee, xs).map_err(Fail::from);
                let f = self.func(inst, 0, &call)?;
                let r = match &inst.op {
                    Op::ReduceWindow { window } => {
                        compute::reduce_window(&inputs, &inits, window, &f)?
                    }
                    Op::Reduce { dimensions } => compute::reduce(&inputs, &inits, dimensions, &f)?,
                    _ => return Err("not a reduce".into()),
                };
                Ok(tuple_if_many(r))
            }
            Op::SelectAndScatter { window } => {
                nops(3)?;
                let (sel, sca) = (self.called(inst, 0)?, self.called(inst, 1)?);
                let call_sel = |xs: Vec<Literal>| self.run(sel, xs).map_err(Fail::from);
                let call_sca = |xs: Vec<Literal>| self.run(sca, xs).map_err(Fail::from);
                let fs = self.func(inst, 0, &call_sel)?;
                let fc = self.func(inst, 1, &call_sca)?;
                lit(compute::select_and_scatter(
                    a(0)?,
                    a(1)?,
                    a(2)?,
                    window,
                    &fs,
                    &fc,
                )?)
            }
            Op::Gather {
                dnums, slice_sizes, ..
            } => {
                nops(2)?;
                lit(compute::gather(a(0)?, a(1)?, dnums, slice_sizes, out()?)?)
            }
            Op::Scatter { dnums, .. } => {
                if ops.len() < 3 || ops.len() & 1 == 0 {
                    return Err(format!(
                        "expects N operands, indices and N updates, has {} operands",
                        ops.len()
                    )
                    .into());
                }
                let n = ops.len() / 2;
                let operands = (0..n).map(a).collect::<Result<Vec<_>, _>>()?;
                let updates = (n + 1..2 * n + 1).map(a).collect::<Result<Vec<_>, _>>()?;
                let callee = self.called(inst, 0)?;
                let call = |xs: Vec<Literal>| self.run(callee, xs).map_err(Fail::from);
                let f = self.func(inst, 0, &call)?;
                let r = compute::scatter(&operands, a(n)?, &updates, dnums, &f)?;
                Ok(tuple_if_many(r))
            }
            Op::Sort { dimension, .. } => {
                let xs = (0..ops.len()).map(a).collect::<Result<Vec<_>, _>>()?;
                let callee = self.called(inst, 0)?;
                let call = |xs: Vec<Literal>| self.run(callee, xs).map_err(Fail::from);
                let f = self.func(inst, 0, &call)?;
                let r = compute::sort(&xs, *dimension, &f)?;
                Ok(tuple_if_many(r))
            }
            Op::Fft {
                fft_type,
                fft_length,
            } => {
                nops(1)?;
                lit(fft::fft(a(0)?, *fft_type, fft_length, out()?)?)
            }
            Op::TopK { k, largest } => {
                nops(1)?;
                let (v, i) = compute::top_k(a(0)?, *k, *largest)?;
                Ok(Literal::Tuple(vec![Literal::Array(v), Literal::Array(i)]))
            }
            Op::Map { .. } => {
                let xs = (0..ops.len()).map(a).collect::<Result<Vec<_>, _>>()?;
                let callee = self.called(inst, 0)?;
                let call = |xs: Vec<Literal>| self.run(callee, xs).map_err(Fail::from);
                let f = self.func(inst, 0, &call)?;
                lit(compute::map(&xs, &f, out()?)?)
            }
            Op::Tuple => Ok(Literal::Tuple(ops.iter().map(|&l| l.clone()).collect())),
            Op::GetTupleElement { index } => {
                nops(1)?;
                let t = ops[0].tuple_elements()?;
                let e = usize::try_from(*index).ok().and_then(|i| t.get(i));
                e.cloned().ok_or_else(|| {
                    format!(
                        "tuple index {index} is out of range for a {}-tuple",
                        t.len()
                    )
                    .into()
                })
            }
            Op::Call | Op::Fusion { .. } => {
                let callee = self.called(inst, 0)?;
                Ok(self.run(callee, ops.iter().map(|&l| l.clone()).collect())?)
            }
            Op::While => {
                nops(1)?;
                let (cond, body) = (self.called(inst, 0)?, self.called(inst, 1)?);
                let mut state = ops[0].clone();
                loop {
                    let p = self.run(cond, vec![state.clone()])?;
                    if !pred_value(&p)? {
                        break;
                    }
                    state = self.run(body, vec![state])?;
                }
                Ok(state)
            }
            Op::Conditional => {
                if ops.is_empty() || inst.called.is_empty() {
                    return Err("conditional needs a selector and branch computations"
                        .to_string()
                        .into());
                }
                let sel = a(0)?;
                let nb = inst.called.len();
                let branch = if sel.ty() == ElementType::Pred {
                    if nb != 2 || ops.len() != 3 {
                        return Err(
                            "a pred conditional needs two branches and two branch operands"
                                .to_string()
                                .into(),
                        );
                    }
                    if value::scalar_index(sel)? != 0 {
                        0
                    } else {
                        1
                    }
                } else {
                    if ops.len() != nb + 1 {
                        return Err(format!(
                            "{nb} branches need {} operands, got {}",
                            nb + 1,
                            ops.len()
                        )
                        .into());
                    }
                    let i = value::scalar_index(sel)?;
                    if i < 0 || i as usize >= nb {
                        nb - 1
                    } else {
                        i as usize
                    }
                };
                let callee = self.called(inst, branch)?;
                Ok(self.run(callee, vec![ops[branch + 1].clone()])?)
            }
            Op::Copy | Op::OptimizationBarrier => {
                nops(1)?;
                Ok(ops[0].clone())
            }
            Op::AfterAll => Ok(Literal::Token),
            // One device: each collective has a single participant; one
            // that names another device needs a multi-device run.
            op if op.is_collective() && hlox_hlo::sharding::check_one_device(op).is_err() => {
                Err(hlox_hlo::sharding::check_one_device(op)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default()
                    .into())
            }
            Op::AllReduce(_) => Ok(match ops {
                [one] => (*one).clone(),
                _ => Literal::Tuple(ops.iter().map(|&l| l.clone()).collect()),
            }),
            Op::AllGather { .. }
            | Op::ReduceScatter { .. }
            | Op::CollectiveBroadcast(_)
            | Op::AllToAll {
                split_dimension: Some(_),
                ..
            } => {
                nops(1)?;
                Ok(ops[0].clone())
            }
            Op::AllToAll {
                split_dimension: None,
                ..
            } => Ok(Literal::Tuple(ops.iter().map(|&l| l.clone()).collect())),
            Op::CollectivePermute {
                source_target_pairs,
                ..
            } => {
                nops(1)?;
                if source_target_pairs.iter().any(|&(_, t)| t == 0) {
                    Ok(ops[0].clone())
                } else {
                    Ok(Literal::Array(
                        ArrayLiteral::zeros(out()?.clone()).map_err(Fail::from)?,
                    ))
                }
            }
            Op::ReplicaId | Op::PartitionId => Ok(Literal::r0(0u32)),
            Op::RngBitGenerator { algorithm } => {
                nops(1)?;
                let shapes = inst
                    .shape
                    .tuple_elements()
                    .ok_or_else(|| "result must be a (state, value) tuple".to_string())?;
                let vs = shapes
                    .get(1)
                    .and_then(|s| s.as_array())
                    .ok_or_else(|| "result element 1 must be an array".to_string())?;
                let (st, v) = rng::rng_bit_generator(*algorithm, a(0)?, vs)?;
                Ok(Literal::Tuple(vec![Literal::Array(st), Literal::Array(v)]))
            }
            Op::CustomCall(cc) => {
                let shapes: Vec<Shape> = match &cc.operand_layout_constraints {
                    Some(s) if s.len() == ops.len() => s.clone(),
                    _ => inst
                        .operands
                        .iter()
                        .map(|&o| {
                            comp.instructions
                                .get(o)
                                .map_or(Shape::Token, |i| i.shape.clone())
                        })
                        .collect(),
                };
                let laid: Vec<Literal> = ops
                    .iter()
                    .zip(&shapes)
                    .map(|(&l, s)| apply_layout(l.clone(), s))
                    .collect();
                let refs: Vec<&Literal> = laid.iter().collect();
                let r =
                    self.handler
                        .call(inst, cc, &refs)
                        .map_err(|source| EvalError::CustomCall {
                            computation: comp.name.clone(),
                            instruction: inst.name.clone(),
                            target: cc.target.clone(),
                            source: Box::new(source),
                        })?;
                if !r.shape().compatible(&inst.shape) {
                    return Err(EvalError::CustomCall {
                        computation: comp.name.clone(),
                        instruction: inst.name.clone(),
                        target: cc.target.clone(),
                        source: Box::new(CustomCallError::WrongShape {
                            returned: shape_str(&r.shape()),
                            declared: shape_str(&inst.shape),
                        }),
                    }
                    .into());
                }
                Ok(normalize(r))
            }
        }
    }
}

fn comp_operand_layout(c: &Computation, inst: &Instruction, i: usize) -> Option<hlox_hlo::Layout> {
    let o = *inst.operands.get(i)?;
    Some(c.instructions.get(o)?.shape.as_array()?.layout.clone())
}

fn tuple_if_many(mut r: Vec<ArrayLiteral>) -> Literal {
    if r.len() == 1 {
        Literal::Array(r.pop().expect("one"))
    } else {
        Literal::Tuple(r.into_iter().map(Literal::Array).collect())
    }
}

fn pred_value(l: &Literal) -> Result<bool, Fail> {
    let a = l.as_array().map_err(|e| format!("condition: {e}"))?;
    if a.ty() != ElementType::Pred || a.element_count() != 1 {
        return Err(format!(
            "condition must return pred[], got {}",
            shape_str(&l.shape())
        )
        .into());
    }
    Ok(a.bytes()[0] != 0)
}

/// Errors when the leaves of `shape` cannot be allocated twice over (the
/// result plus the scratch copy some ops make). Only sizes above 256 MiB are
/// probed, so ordinary values cost nothing.
fn check_allocatable(shape: &Shape) -> Result<(), OpError> {
    let bytes: usize = shape
        .leaves()
        .iter()
        .filter_map(|(_, s)| s.as_array())
        .map(|a| a.byte_size())
        .fold(0usize, usize::saturating_add);
    if bytes < (256 << 20) {
        return Ok(());
    }
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(bytes.saturating_mul(2))
        .map_err(|_| hlox_hlo::LiteralError::OutOfMemory { bytes }.into())
}
