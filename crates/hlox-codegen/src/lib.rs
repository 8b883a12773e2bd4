//! The elemental IR emitter of hlox: LLVM IR that computes one element of an
//! HLO instruction's result from elements of its operands (XLA's
//! `ElementalIrEmitter`), shared by the Host backend and a future GPU backend.
//!
//! - [`Cg`]: the LLVM context, module and builder, plus the [`MathLib`] that
//!   supplies transcendental functions (libm symbols on the host, libdevice
//!   on NVPTX).
//! - [`scalar`]: the per-element semantics of every element-wise opcode,
//!   written once on "compute values" (PRED as `i1`, integers as `iN`,
//!   F16/BF16/F32 as `float` rounded to the element type after every op, F64
//!   as `double`), matching `hlox-eval` (and XLA:CPU) edge case for edge case.
//! - [`elemental`]: per-instruction generators `index -> values`, composed
//!   recursively so that a fusion is the inlining of its producers'
//!   generators; reducers and map computations are inlined as scalar code.
//! - [`loops`]: loop nests over an index space (innermost loop on the minor
//!   physical dimension so that LLVM's loop vectorizer sees unit strides).

pub mod complex;
pub mod elemental;
pub mod loops;
pub mod math;
pub mod scalar;
pub mod window;

use hlox_hlo::{ArrayShape, ElementType};
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::{BasicTypeEnum, FloatType, IntType};
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::AddressSpace;

pub use elemental::{ElementalCtx, Leaf};

/// LLVM's process-wide options that hlox sets (as `opt` would take them on
/// its command line), once, before its first optimization
/// ([`init_llvm_options`]).
///
/// - `-unroll-full-max-count=24`: loops with a constant trip count above
///   24 (after vectorization) are not fully unrolled. Without it, O3 fully
///   unrolls the emitter's loops over wide constant dimensions, such as the
///   permutation gathers and relayout copies around the linear-algebra
///   calls: the LU solve's entry function grew from 47 KB of IR to 1.2 MB
///   (3,072 masked gathers) and its code generation took 0.75 s of `llc`
///   time (0.25 s with the cap; docs/performance.md, "Compile time").
///   24 and not lower: a cap of 16 also changed how LLVM reassociates a
///   20-row f64 product reduction (`reassoc`), one ulp away from the
///   evaluator where a test compares bit for bit.
///   Partial and runtime unrolling are unchanged; of the benchmark
///   programs, only the LU solve, Cholesky and triangular solve compile to
///   different code (their relayout loops), all others to the same.
/// - `-disable-lsr`: no loop strength reduction in code generation. It was
///   the most expensive pass of the column sum's code generation (22 of 56
///   ms of `llc -O3 -time-passes`, a loop with many accumulators and
///   induction-variable users); without it the Host's JIT time fell from 51
///   to 24 ms there, and the cold compile's geometric mean over the 17
///   benchmarks and 85 corpus modules from 68.3 to 58.2 ms (1.13 -> 1.00 of
///   XLA's), with run times unchanged within the noise of two rounds of
///   `bench_vs_xla.py` (docs/performance.md, "Fourth session"). x86's
///   addressing modes do what LSR would; on CUDA, ptxas strength-reduces
///   again when it assembles the PTX.
/// - `-unroll-threshold=100` (O3's default is 300): with the loops' trip
///   counts known (the Host's serial loops, `hlox_cpu`'s emitter), the
///   default fully unrolled nests of small loops into thousands of
///   instructions (the corpus' attention: 60 -> 320 ms). With 100 the
///   corpus' cold compiles took 45 ms (geometric mean) against 94 before
///   both changes, run times unchanged (docs/performance.md, "Fifth
///   session"). On CUDA, ptxas unrolls again.
pub const LLVM_OPTIONS: &[&str] = &[
    "-unroll-full-max-count=24",
    "-disable-lsr",
    "-unroll-threshold=100",
];

/// The Host's LLVM optimization pipeline (new pass manager syntax), run on
/// every module at `opt_level` 2 and 3 in place of LLVM's `default<O3>`.
///
/// The emitter's code needs few of O3's passes: each loop is a function of
/// its own (`noinline`, constant bounds), element-wise math is already
/// expanded into straight-line IR, and there is nothing to inline across
/// calls or to propagate between functions. What the loops do need is SSA
/// form and clean-up (`sroa`, `early-cse`, `instcombine`, `simplifycfg`),
/// rotation so that the vectorizer sees a bottom-tested loop
/// (`loop-rotate`; without it no row reduction vectorized and `sum_16M`
/// ran 4x slower), invariants hoisted (`licm`), and the loop and SLP
/// vectorizers.
///
/// Measured on the AMD machine (docs/performance.md, "Eighth session"):
/// over the corpus, cold compiles took 0.60 of `default<O3>`'s time
/// (geometric mean, three rounds alternating), and O3's module-level and
/// inlining passes alone were worth only 5% of it (`default<O3>`'s function
/// passes without them: 0.95); the run times of every `bench_vs_xla.py`
/// program stayed within the noise of two alternated rounds (new / old
/// 0.88-1.17 both ways). What O3 has and this does not: GVN, full and
/// partial unrolling after vectorization, induction-variable
/// canonicalization, dead-store elimination and the inliner.
///
/// `instcombine` runs as `default<O3>` runs it, without `verify-fixpoint`:
/// the textual pass verifies by default that one iteration reached a fixed
/// point, and aborts the process when it did not (a filetest did that).
pub const HOST_PASSES: &str = "function(sroa,early-cse<memssa>,\
instcombine<no-verify-fixpoint>,simplifycfg,loop-mssa(loop-rotate,licm),\
instcombine<no-verify-fixpoint>,loop-vectorize,slp-vectorizer,\
instcombine<no-verify-fixpoint>,simplifycfg)";

/// The pass pipeline the Host runs at `opt_level` (0-3): LLVM's own
/// `default<O0>` and `default<O1>`, [`HOST_PASSES`] above that.
pub fn host_passes(opt_level: u8) -> String {
    match opt_level {
        0 | 1 => format!("default<O{opt_level}>"),
        _ => HOST_PASSES.to_string(),
    }
}

/// Sets [`LLVM_OPTIONS`] in this process's LLVM, once (later calls do
/// nothing). The options are global to the process: every LLVM
/// optimization after the first call sees them, whichever backend runs it;
/// every backend calls this before its first LLVM work (Host, NVPTX, and
/// the CUDA emulation), so no compile depends on which ran first.
pub fn init_llvm_options() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args: Vec<std::ffi::CString> = std::iter::once("hlox")
            .chain(LLVM_OPTIONS.iter().copied())
            .map(|a| std::ffi::CString::new(a).unwrap_or_default())
            .collect();
        let argv: Vec<*const std::ffi::c_char> = args.iter().map(|a| a.as_ptr()).collect();
        // SAFETY: `argv` holds `argv.len()` NUL-terminated strings that live
        // across the call; LLVM copies what it keeps. The options are
        // constants that this LLVM defines (a test compiles with them), so
        // the parser's exit on an unknown option cannot happen.
        unsafe {
            llvm_sys::support::LLVMParseCommandLineOptions(
                argv.len() as i32,
                argv.as_ptr(),
                std::ptr::null(),
            )
        };
    });
}

/// Code JIT-compiled by LLVM, kept alive: the execution engine and the
/// context its module lives in, dropped in that order. Both JITs of hlox
/// hold one (the Host executable, the CUDA emulation's kernels).
pub struct Jit {
    ee: std::mem::ManuallyDrop<inkwell::execution_engine::ExecutionEngine<'static>>,
    ctx: std::mem::ManuallyDrop<Box<Context>>,
}

impl Jit {
    /// Keeps `ee` and `ctx` alive together.
    ///
    /// # Safety
    /// `ee` was made from a module created in `ctx` (through a `'static`
    /// reference to the boxed context, which must not outlive this `Jit`).
    pub unsafe fn new(
        ctx: Box<Context>,
        ee: inkwell::execution_engine::ExecutionEngine<'static>,
    ) -> Jit {
        Jit {
            ee: std::mem::ManuallyDrop::new(ee),
            ctx: std::mem::ManuallyDrop::new(ctx),
        }
    }

    /// The engine (function addresses).
    pub fn engine(&self) -> &inkwell::execution_engine::ExecutionEngine<'static> {
        &self.ee
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: dropped once each, the engine (and its module) before the
        // context they live in.
        unsafe {
            std::mem::ManuallyDrop::drop(&mut self.ee);
            std::mem::ManuallyDrop::drop(&mut self.ctx);
        }
    }
}

// SAFETY: after compilation the engine is only kept alive (its code is
// immutable and called through plain function pointers) and dropped once.
unsafe impl Send for Jit {}
unsafe impl Sync for Jit {}
pub use math::{HostMath, MathFn, MathLib};

/// Errors of IR generation.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    #[error("LLVM builder error: {0}")]
    Builder(#[from] BuilderError),
    #[error("{inst}: {message}")]
    Unsupported { inst: String, message: String },
    #[error("{0}")]
    Other(String),
}

pub type Result<T> = std::result::Result<T, CodegenError>;

pub(crate) fn unsupported<T>(inst: &str, message: impl Into<String>) -> Result<T> {
    Err(CodegenError::Unsupported {
        inst: inst.to_string(),
        message: message.into(),
    })
}

/// Addresses of runtime conversion helpers the emitted code calls for the
/// rare conversions LLVM has no inline lowering for (f64 -> f16/bf16 with
/// a single rounding, as `half::f16::from_f64`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvertHelpers {
    /// `extern "C" fn(f64) -> u16`
    pub f64_to_f16: usize,
    /// `extern "C" fn(f64) -> u16`
    pub f64_to_bf16: usize,
    /// The out-of-line complex functions on c64 values
    /// (`hlox_hlo::semantics::complex::ComplexFn`):
    /// `extern "C" fn(code: u32, a_re: f32, a_im: f32, b_re: f32, b_im: f32, out: *mut [f32; 2])`;
    /// 0 where the target has none (complex code calling it is refused).
    pub complex_c64: usize,
    /// The same for c128 values, on f64 parts.
    pub complex_c128: usize,
}

/// Code generation state: context, module, builder, math library.
pub struct Cg<'a, 'ctx> {
    pub ctx: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub b: &'a Builder<'ctx>,
    pub math: &'a dyn MathLib,
    pub helpers: ConvertHelpers,
    /// Relocatable code: [`Cg::call_addr`] loads each address from this
    /// table instead of embedding it (see [`AddressTable`]). `None`: the
    /// address is a constant in the code, valid in this process only.
    pub addresses: Option<&'a AddressTable<'ctx>>,
}

/// The addresses relocatable code calls through: one external global
/// array of 8-byte words ([`AddressTable::SYMBOL`]) that whoever loads
/// the object defines, filled with this process's addresses of what each
/// slot stands for. The code then holds no address of the compiling
/// process (runtime helpers, custom-call targets), so its object can be
/// cached and loaded by another process (hlox-cpu's compilation cache).
///
/// Slots made by [`AddressTable::slot_of`] are deduplicated by address;
/// the compiler records what each address is (a helper's name, a target's
/// identity) to resolve the slots again at load time.
pub struct AddressTable<'ctx> {
    global: inkwell::values::GlobalValue<'ctx>,
    slots: std::cell::RefCell<Vec<u64>>,
    /// Slots made by [`AddressTable::push`], never shared.
    private: std::cell::RefCell<Vec<bool>>,
}

impl<'ctx> AddressTable<'ctx> {
    /// The table's symbol in the object.
    pub const SYMBOL: &'static str = "hlox.addresses";

    /// Declares the table (an external global) in `module`.
    pub fn declare(ctx: &'ctx Context, module: &Module<'ctx>) -> AddressTable<'ctx> {
        let global = module.add_global(ctx.i64_type().array_type(0), None, Self::SYMBOL);
        global.set_linkage(inkwell::module::Linkage::External);
        AddressTable {
            global,
            slots: std::cell::RefCell::new(Vec::new()),
            private: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// The slot holding `addr` (a new one for an address not seen yet).
    pub fn slot_of(&self, addr: usize) -> usize {
        let private = self.private.borrow();
        let found = self
            .slots
            .borrow()
            .iter()
            .zip(private.iter())
            .position(|(&a, &p)| a == addr as u64 && !p);
        drop(private);
        match found {
            Some(k) => k,
            None => self.new_slot(addr as u64, false),
        }
    }

    /// A new slot of its own holding `word` (an address or value that the
    /// compiler names itself, such as a typed-FFI call frame's words).
    pub fn push(&self, word: u64) -> usize {
        self.new_slot(word, true)
    }

    fn new_slot(&self, word: u64, private: bool) -> usize {
        let mut s = self.slots.borrow_mut();
        s.push(word);
        self.private.borrow_mut().push(private);
        s.len() - 1
    }

    /// The address of each slot in this process, in slot order.
    pub fn slots(&self) -> Vec<u64> {
        self.slots.borrow().clone()
    }

    /// Loads slot `k` as a pointer, at the builder's position.
    pub fn load(&self, cg: &Cg<'_, 'ctx>, k: usize) -> Result<PointerValue<'ctx>> {
        Ok(self.load_as(cg, k, cg.ptr().into())?.into_pointer_value())
    }

    /// Loads slot `k` as an i64, at the builder's position.
    pub fn load_word(&self, cg: &Cg<'_, 'ctx>, k: usize) -> Result<IntValue<'ctx>> {
        Ok(self.load_as(cg, k, cg.i64().into())?.into_int_value())
    }

    fn load_as(
        &self,
        cg: &Cg<'_, 'ctx>,
        k: usize,
        ty: BasicTypeEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let at = unsafe {
            cg.b.build_in_bounds_gep(
                cg.i64(),
                self.global.as_pointer_value(),
                &[cg.i64c(k as i64)],
                "",
            )?
        };
        let v = cg.b.build_load(ty, at, "addr")?;
        if let Some(i) = v.as_instruction_value() {
            // The table is filled before the code runs and never changes.
            let _ = i.set_metadata(
                cg.ctx.metadata_node(&[]),
                cg.ctx.get_kind_id("invariant.load"),
            );
        }
        Ok(v)
    }
}

impl<'a, 'ctx> Cg<'a, 'ctx> {
    pub fn i1(&self) -> IntType<'ctx> {
        self.ctx.bool_type()
    }
    pub fn i8(&self) -> IntType<'ctx> {
        self.ctx.i8_type()
    }
    pub fn i32(&self) -> IntType<'ctx> {
        self.ctx.i32_type()
    }
    pub fn i64(&self) -> IntType<'ctx> {
        self.ctx.i64_type()
    }
    pub fn f32(&self) -> FloatType<'ctx> {
        self.ctx.f32_type()
    }
    pub fn f64(&self) -> FloatType<'ctx> {
        self.ctx.f64_type()
    }
    pub fn ptr(&self) -> inkwell::types::PointerType<'ctx> {
        self.ctx.ptr_type(AddressSpace::default())
    }
    pub fn i64c(&self, v: i64) -> IntValue<'ctx> {
        self.i64().const_int(v as u64, true)
    }

    /// The LLVM type of an element in memory.
    pub fn storage_type(&self, ty: ElementType) -> BasicTypeEnum<'ctx> {
        use ElementType::*;
        match ty {
            Pred | S8 | U8 => self.i8().into(),
            S16 | U16 => self.ctx.i16_type().into(),
            F16 => self.ctx.f16_type().into(),
            Bf16 => self.ctx.i16_type().into(),
            S32 | U32 => self.i32().into(),
            S64 | U64 => self.i64().into(),
            F32 => self.f32().into(),
            F64 => self.f64().into(),
            C64 => self
                .ctx
                .struct_type(&[self.f32().into(), self.f32().into()], false)
                .into(),
            C128 => self
                .ctx
                .struct_type(&[self.f64().into(), self.f64().into()], false)
                .into(),
        }
    }

    /// The LLVM type of element values in registers (PRED as i1; F16 as
    /// `half` and BF16 as its i16 bits, widened to f32 for arithmetic).
    pub fn compute_type(&self, ty: ElementType) -> BasicTypeEnum<'ctx> {
        use ElementType::*;
        match ty {
            Pred => self.i1().into(),
            S8 | U8 => self.i8().into(),
            S16 | U16 => self.ctx.i16_type().into(),
            S32 | U32 => self.i32().into(),
            S64 | U64 => self.i64().into(),
            F16 => self.ctx.f16_type().into(),
            Bf16 => self.ctx.i16_type().into(),
            F32 => self.f32().into(),
            F64 => self.f64().into(),
            C64 | C128 => self.storage_type(ty),
        }
    }

    /// Element value -> arithmetic value (F16/BF16 widened to f32).
    pub fn widen(&self, ty: ElementType, v: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        Ok(match ty {
            ElementType::F16 => self
                .b
                .build_float_ext(v.into_float_value(), self.f32(), "")?
                .into(),
            ElementType::Bf16 => {
                let w = self
                    .b
                    .build_int_z_extend(v.into_int_value(), self.i32(), "")?;
                let w = self
                    .b
                    .build_left_shift(w, self.i32().const_int(16, false), "")?;
                self.b.build_bit_cast(w, self.f32(), "")?
            }
            _ => v,
        })
    }

    /// The function the builder is positioned in.
    pub fn current_fn(&self) -> Result<FunctionValue<'ctx>> {
        self.b
            .get_insert_block()
            .and_then(|bb| bb.get_parent())
            .ok_or_else(|| CodegenError::Other("builder is not positioned in a function".into()))
    }

    /// An alloca in the entry block of the current function.
    pub fn entry_alloca(&self, ty: BasicTypeEnum<'ctx>, name: &str) -> Result<PointerValue<'ctx>> {
        let f = self.current_fn()?;
        let entry = f
            .get_first_basic_block()
            .ok_or_else(|| CodegenError::Other("function without entry block".into()))?;
        let tmp = self.ctx.create_builder();
        match entry.get_first_instruction() {
            Some(i) => tmp.position_before(&i),
            None => tmp.position_at_end(entry),
        }
        Ok(tmp.build_alloca(ty, name)?)
    }

    /// Address of element `index` (logical) of an array stored with `shape`'s layout.
    pub fn element_ptr(
        &self,
        base: PointerValue<'ctx>,
        shape: &ArrayShape,
        index: &[IntValue<'ctx>],
    ) -> Result<PointerValue<'ctx>> {
        let strides = shape.strides();
        let mut off = self.i64c(0);
        for (d, idx) in index.iter().enumerate() {
            let s = strides.get(d).copied().unwrap_or(0) as i64;
            if shape.dims.get(d).copied().unwrap_or(1) == 1 {
                continue;
            }
            let t = if s == 1 {
                *idx
            } else {
                self.b.build_int_mul(*idx, self.i64c(s), "")?
            };
            off = self.b.build_int_add(off, t, "")?;
        }
        let ety = self.storage_type(shape.ty);
        Ok(unsafe { self.b.build_in_bounds_gep(ety, base, &[off], "")? })
    }

    /// Load one element as a compute value.
    pub fn load_elem(
        &self,
        ty: ElementType,
        ptr: PointerValue<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let st = self.storage_type(ty);
        let v = self.b.build_load(st, ptr, "")?;
        if let Some(i) = v.as_instruction_value() {
            let _ = i.set_alignment(1);
        }
        self.from_storage(ty, v)
    }

    /// Store a compute value as one element.
    pub fn store_elem(
        &self,
        ty: ElementType,
        ptr: PointerValue<'ctx>,
        v: BasicValueEnum<'ctx>,
    ) -> Result<()> {
        let s = self.to_storage(ty, v)?;
        let st = self.b.build_store(ptr, s)?;
        let _ = st.set_alignment(1);
        Ok(())
    }

    /// Storage value -> compute value: a PRED byte becomes `!= 0` (i1);
    /// every other storage value is already its compute value.
    pub fn from_storage(
        &self,
        ty: ElementType,
        v: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use ElementType::*;
        Ok(match ty {
            Pred => self
                .b
                .build_int_compare(
                    inkwell::IntPredicate::NE,
                    v.into_int_value(),
                    self.i8().const_zero(),
                    "",
                )?
                .into(),
            _ => v,
        })
    }

    /// Compute value -> storage value: PRED's i1 becomes a byte; every other
    /// compute value is already its storage value (F16/BF16 were rounded by
    /// [`Cg::round_to`] when computed).
    pub fn to_storage(
        &self,
        ty: ElementType,
        v: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use ElementType::*;
        Ok(match ty {
            Pred => self
                .b
                .build_int_z_extend(v.into_int_value(), self.i8(), "")?
                .into(),
            _ => v,
        })
    }

    /// Arithmetic value -> element value (F16/BF16 rounded to nearest even).
    pub fn round_to(
        &self,
        ty: ElementType,
        v: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        Ok(match ty {
            ElementType::F16 => self
                .b
                .build_float_trunc(v.into_float_value(), self.ctx.f16_type(), "")?
                .into(),
            ElementType::Bf16 => scalar::f32_to_bf16_bits(self, v.into_float_value())?.into(),
            _ => v,
        })
    }

    /// Call a function at a fixed address with the given type (through
    /// [`Cg::addresses`] where the code is relocatable).
    pub fn call_addr(
        &self,
        addr: usize,
        fty: inkwell::types::FunctionType<'ctx>,
        args: &[inkwell::values::BasicMetadataValueEnum<'ctx>],
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        let p = match self.addresses {
            Some(t) => t.load(self, t.slot_of(addr))?,
            None => {
                self.b
                    .build_int_to_ptr(self.i64().const_int(addr as u64, false), self.ptr(), "")?
            }
        };
        let cs = self.b.build_indirect_call(fty, p, args, "")?;
        Ok(cs.try_as_basic_value().basic())
    }
}
