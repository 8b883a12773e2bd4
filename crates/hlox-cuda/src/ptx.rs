//! NVPTX code generation: one LLVM module holding every kernel of a
//! [`Program`], compiled by LLVM 19's NVPTX target to one PTX text.
//!
//! A kernel takes one pointer per leaf of each operand (in operand order,
//! each shape in pre-order) and then one per leaf of its result. Thread
//! `t = ctaid.x * ntid.x + tid.x` computes element `t` (in physical order)
//! of every output leaf with more than `t` elements: the shared elemental
//! emitter of `hlox-codegen` generates the value from the operand buffers
//! (a fusion is the inlining of its instructions' generators).

use crate::math::NvptxMath;
use crate::plan::{KernelInfo, KernelKind, Program, SplitReduce, WARP};
use crate::CompileError;
use hlox_codegen::elemental::{leaf_count, ElementalCtx, Lanes, Leaf, Split};
use hlox_codegen::loops::{for_range, for_range_step, loop_nest};
use hlox_codegen::window::{window_input_index, LlvmArith};
use hlox_codegen::{scalar, Cg, CodegenError};
use hlox_hlo::semantics::dot::DotDims;
use hlox_hlo::semantics::gather::{GatherPlan, ScatterPlan};
use hlox_hlo::semantics::sort::MergeRuns;
use hlox_hlo::semantics::window::window_position;
use hlox_hlo::verifier::VerifiedModule;
use hlox_hlo::{ArrayShape, ElementType, InstId, Module, Op, Shape};
use inkwell::context::Context;
use inkwell::module::Module as LlModule;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::types::BasicType;
use inkwell::values::{BasicValueEnum, FunctionValue, InstructionOpcode, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate, OptimizationLevel};

pub const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// The LLVM NVPTX target machine for `sm` (e.g. "sm_80").
pub fn target_machine(sm: &str, opt_level: u8) -> Result<TargetMachine, CompileError> {
    if !sm.starts_with("sm_") || sm[3..].parse::<u32>().is_err() {
        return Err(CompileError::Options(format!(
            "GPU architecture `{sm}` is not of the form sm_<number> (e.g. sm_80, sm_90)"
        )));
    }
    Target::initialize_nvptx(&InitializationConfig::default());
    // The same process-wide LLVM options as the Host backend, so a kernel's
    // code does not depend on whether a Host compile ran first.
    hlox_codegen::init_llvm_options();
    let triple = TargetTriple::create(TRIPLE);
    let target = Target::from_triple(&triple)
        .map_err(|e| CompileError::Llvm(format!("NVPTX target: {e}")))?;
    let level = match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    // PTX ISA 7.8 is the first with sm_90; CUDA 11.8+ drivers accept it.
    target
        .create_target_machine(
            &triple,
            sm,
            "+ptx78",
            level,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| {
            CompileError::Llvm(format!("cannot create an NVPTX target machine for {sm}"))
        })
}

fn cg_err(inst: &str, e: CodegenError) -> CompileError {
    match e {
        CodegenError::Unsupported { inst, message } => CompileError::Unsupported { inst, message },
        e => CompileError::Codegen {
            inst: inst.to_string(),
            message: e.to_string(),
        },
    }
}

/// The generated code of a program.
pub struct PtxOutput {
    /// LLVM IR before optimization.
    pub llvm_ir: String,
    /// LLVM IR after optimization.
    pub llvm_ir_opt: String,
    pub ptx: String,
}

/// Emit, optimize and compile to PTX every kernel of `program`. The module
/// is verified: kernels index operands and called computations by the
/// opcode's arity without checking.
pub fn generate(
    module: &VerifiedModule,
    program: &Program,
    sm: &str,
    opt_level: u8,
) -> Result<PtxOutput, CompileError> {
    let tm = target_machine(sm, opt_level)?;
    let ctx = Context::create();
    let llmod = ctx.create_module(&module.name);
    llmod.set_triple(&TargetTriple::create(TRIPLE));
    llmod.set_data_layout(&tm.get_target_data().get_data_layout());
    let builder = ctx.create_builder();
    let cg = NvptxMath.cg(&ctx, &llmod, &builder);
    for k in &program.kernels {
        emit_kernel(&cg, module, k, Flavor::Nvptx)?;
    }
    natural_alignment(&llmod, &tm);
    let llvm_ir = llmod.print_to_string().to_string();
    llmod.verify().map_err(|e| {
        CompileError::Internal(format!("generated NVPTX LLVM IR does not verify: {e}"))
    })?;
    let passes = format!("default<O{}>", opt_level.min(3));
    llmod
        .run_passes(&passes, &tm, inkwell::passes::PassBuilderOptions::create())
        .map_err(|e| CompileError::Llvm(e.to_string()))?;
    let llvm_ir_opt = llmod.print_to_string().to_string();
    let buf = tm
        .write_to_memory_buffer(&llmod, FileType::Assembly)
        .map_err(|e| CompileError::Llvm(format!("PTX generation: {e}")))?;
    let ptx = String::from_utf8_lossy(buf.as_slice())
        .trim_end_matches('\0')
        .to_string();
    Ok(PtxOutput {
        llvm_ir,
        llvm_ir_opt,
        ptx,
    })
}

/// Element accesses of kernels are naturally aligned (device allocations
/// are 256-byte aligned and hold arrays of one element type); the shared
/// emitter marks them align 1 for the host's arbitrary user buffers.
fn natural_alignment(m: &LlModule, tm: &TargetMachine) {
    let td = tm.get_target_data();
    for f in m.get_functions() {
        for bb in f.get_basic_block_iter() {
            let mut i = bb.get_first_instruction();
            while let Some(inst) = i {
                let ty = match inst.get_opcode() {
                    InstructionOpcode::Load => inst.get_type().try_into().ok(),
                    InstructionOpcode::Store => inst
                        .get_operand(0)
                        .and_then(|o| o.value())
                        .map(|v| v.get_type()),
                    _ => None,
                };
                if let Some(t) = ty {
                    let t: inkwell::types::BasicTypeEnum = t;
                    let size = td.get_store_size(&t) as u32;
                    if size.is_power_of_two()
                        && size <= 16
                        && inst.get_alignment().unwrap_or(0) < size
                    {
                        let _ = inst.set_alignment(size);
                    }
                }
                i = inst.get_next_instruction();
            }
        }
    }
}

fn sreg<'ctx>(cg: &Cg<'_, 'ctx>, name: &str) -> Result<IntValue<'ctx>, CodegenError> {
    let full = format!("llvm.nvvm.read.ptx.sreg.{name}");
    let f = match cg.module.get_function(&full) {
        Some(f) => f,
        None => cg
            .module
            .add_function(&full, cg.i32().fn_type(&[], false), None),
    };
    let v =
        cg.b.build_call(f, &[], "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::Other(format!("{full} returned void")))?
            .into_int_value();
    Ok(cg.b.build_int_z_extend(v, cg.i64(), name)?)
}

/// Leaves of a shape as array shapes (`None` for tokens).
fn leaves(s: &Shape) -> Vec<Option<ArrayShape>> {
    s.leaves()
        .into_iter()
        .map(|(_, l)| l.as_array().cloned())
        .collect()
}

/// Number of kernel parameters of instruction `id` (operand leaves, then result leaves).
/// (Split reductions: operand leaves then the scratch array, or the
/// scratch array then the result.)
pub fn kernel_arity(module: &Module, k: &KernelInfo) -> usize {
    let comp = module.comp(k.comp);
    let inst = comp.inst(k.id);
    let operands = inst
        .operands
        .iter()
        .map(|&o| leaf_count(&comp.inst(o).shape))
        .sum::<usize>();
    match k.kind {
        KernelKind::ReducePartials(_) => operands + 1,
        KernelKind::ReduceCombine(_) => 2,
        KernelKind::FftScale { .. } => 1,
        KernelKind::FftRelayout { .. } => 2,
        _ => operands + leaf_count(&inst.shape),
    }
}

/// Where kernels run: NVPTX (thread index from the special registers) or
/// the host (the kernel loops over a range of thread indices given as its
/// first two parameters; see [`crate::emulate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Nvptx,
    Host,
}

pub(crate) fn emit_kernel<'ctx>(
    cg: &Cg<'_, 'ctx>,
    module: &Module,
    k: &KernelInfo,
    flavor: Flavor,
) -> Result<FunctionValue<'ctx>, CompileError> {
    let comp = module.comp(k.comp);
    let inst = comp.inst(k.id);
    let name = inst.name.as_str();
    let n = kernel_arity(module, k);
    let ptr = cg.ctx.ptr_type(AddressSpace::default());
    let mut ptys: Vec<inkwell::types::BasicMetadataTypeEnum> = Vec::new();
    if flavor == Flavor::Host {
        ptys.push(cg.i64().into());
        ptys.push(cg.i64().into());
    }
    ptys.extend(std::iter::repeat_n(
        inkwell::types::BasicMetadataTypeEnum::from(ptr),
        n,
    ));
    let fty = cg.ctx.void_type().fn_type(&ptys, false);
    let f = cg.module.add_function(&k.name, fty, None);
    if flavor == Flavor::Nvptx {
        // Kernel entry (LLVM 19: nvvm.annotations), f32 denormals flushed
        // (XLA's semantics, which the evaluator mirrors).
        let md = cg.ctx.metadata_node(&[
            f.as_global_value().as_pointer_value().into(),
            cg.ctx.metadata_string("kernel").into(),
            cg.i32().const_int(1, false).into(),
        ]);
        cg.module
            .add_global_metadata("nvvm.annotations", &md)
            .map_err(|e| CompileError::Llvm(e.to_string()))?;
        for (key, val) in [
            ("nvptx-f32ftz", "true"),
            ("denormal-fp-math-f32", "preserve-sign,preserve-sign"),
        ] {
            f.add_attribute(
                inkwell::attributes::AttributeLoc::Function,
                cg.ctx.create_string_attribute(key, val),
            );
        }
    }
    let skip = if flavor == Flavor::Host { 2 } else { 0 };
    let params: Vec<PointerValue> = f
        .get_param_iter()
        .skip(skip)
        .map(|p| p.into_pointer_value())
        .collect();
    let entry = cg.ctx.append_basic_block(f, "entry");
    cg.b.position_at_end(entry);
    let body = |tid: IntValue<'ctx>| -> Result<(), CodegenError> {
        kernel_body(cg, module, k, &params, tid, flavor)
    };
    let r = match flavor {
        Flavor::Nvptx => (|| {
            let b = sreg(cg, "ctaid.x")?;
            let d = sreg(cg, "ntid.x")?;
            let t = sreg(cg, "tid.x")?;
            let bd = cg.b.build_int_nuw_mul(b, d, "")?;
            let tid = cg.b.build_int_nuw_add(bd, t, "tid")?;
            body(tid)
        })(),
        Flavor::Host => (|| {
            let lo = f
                .get_nth_param(0)
                .ok_or_else(|| CodegenError::Other("no range start".into()))?
                .into_int_value();
            let hi = f
                .get_nth_param(1)
                .ok_or_else(|| CodegenError::Other("no range end".into()))?
                .into_int_value();
            for_range(cg, lo, hi, "thread", &mut |tid| body(tid))
        })(),
    };
    r.and_then(|_| Ok(cg.b.build_return(None).map(|_| ())?))
        .map_err(|e| cg_err(name, e))?;
    Ok(f)
}

/// The code of one thread: element `tid` of every output.
fn kernel_body<'ctx>(
    cg: &Cg<'_, 'ctx>,
    module: &Module,
    k: &KernelInfo,
    params: &[PointerValue<'ctx>],
    tid: IntValue<'ctx>,
    flavor: Flavor,
) -> Result<(), CodegenError> {
    let comp = module.comp(k.comp);
    let inst = comp.inst(k.id);
    if let KernelKind::ReduceCombine(sr) = k.kind {
        return emit_reduce_combine(cg, module, k, sr, params, tid, flavor);
    }
    if let KernelKind::SortMerge { width, first } = k.kind {
        return emit_sort_merge(cg, module, k, width, first, params, tid);
    }
    if let KernelKind::FftScale { n } = k.kind {
        return emit_fft_scale(cg, &inst.shape, k.threads, n, params, tid);
    }
    if let KernelKind::FftRelayout { input } = k.kind {
        let shape = if input {
            inst.operands.first().map(|&o| &comp.inst(o).shape)
        } else {
            Some(&inst.shape)
        };
        let a = shape
            .and_then(|s| s.as_array())
            .ok_or_else(|| CodegenError::Other("an fft takes and gives arrays".into()))?;
        let row_major = ArrayShape::new(a.ty, a.dims.clone());
        let (from, to) = if input {
            (a.clone(), row_major)
        } else {
            (row_major, a.clone())
        };
        return emit_relayout(cg, &from, &to, params, tid);
    }
    // Operand leaves as sources.
    let mut pi = 0;
    let mut operand_leaves: Vec<Vec<Leaf>> = Vec::new();
    for &o in &inst.operands {
        let mut ls = Vec::new();
        for l in leaves(&comp.inst(o).shape) {
            ls.push(match l {
                Some(shape) => Leaf::Buffer {
                    ptr: params[pi],
                    shape,
                },
                None => Leaf::Token,
            });
            pi += 1;
        }
        operand_leaves.push(ls);
    }
    let outs: Vec<(PointerValue, Option<ArrayShape>)> = leaves(&inst.shape)
        .into_iter()
        .enumerate()
        .map(|(i, s)| (params[pi + i], s))
        .collect();
    let thread = Thread {
        cg,
        comp,
        id: k.id,
        tid,
    };
    match k.kind {
        KernelKind::ReducePartials(sr) => {
            let (ecomp, root) = elemental_root(module, comp, k);
            let mut ctx =
                elemental_ctx(module, ecomp, k, &inst.op, &inst.operands, operand_leaves)?;
            let out = ecomp.inst(root).shape.as_array().ok_or_else(|| {
                CodegenError::Other("a split reduction has an array result".into())
            })?;
            let scratch = params
                .get(pi)
                .ok_or_else(|| CodegenError::Other("no scratch parameter".into()))?;
            let total = sr.parts * sr.outputs;
            let flat = ArrayShape::new(out.ty, vec![total]);
            if sr.warp {
                // Unit `w`: part `w / outputs` of output `w % outputs`.
                let mut value = |cg: &Cg<'_, 'ctx>,
                                 ctx: &mut ElementalCtx<'_, 'ctx>,
                                 w: IntValue<'ctx>,
                                 l: Lanes<'ctx>| {
                    let o = cg.b.build_int_unsigned_rem(w, cg.i64c(sr.outputs), "")?;
                    let part = cg.b.build_int_unsigned_div(w, cg.i64c(sr.outputs), "")?;
                    let idx = delinearize(cg, out, o)?;
                    let split = Split::part_of_iterations(cg, part, sr.per, sr.extent)?;
                    ctx.gen_reduce_part(cg, root, &idx, Some(split), Some(l))
                };
                let store = |cg: &Cg<'_, 'ctx>, w: IntValue<'ctx>, v: BasicValueEnum<'ctx>| {
                    cg.store_elem(out.ty, cg.element_ptr(*scratch, &flat, &[w])?, v)
                };
                return warp_reduce(cg, flavor, &mut ctx, root, tid, total, &mut value, &store);
            }
            in_range(cg, tid, total, |cg| {
                let o = cg.b.build_int_unsigned_rem(tid, cg.i64c(sr.outputs), "")?;
                let part = cg.b.build_int_unsigned_div(tid, cg.i64c(sr.outputs), "")?;
                let idx = delinearize(cg, out, o)?;
                let split = Split::part_of_iterations(cg, part, sr.per, sr.extent)?;
                let v = ctx.gen_reduce_part(cg, root, &idx, Some(split), None)?;
                let p = cg.element_ptr(*scratch, &flat, &[tid])?;
                cg.store_elem(out.ty, p, v)
            })?;
        }
        KernelKind::ReduceRows { outputs } => {
            let (ecomp, root) = elemental_root(module, comp, k);
            let mut ctx =
                elemental_ctx(module, ecomp, k, &inst.op, &inst.operands, operand_leaves)?;
            let (ptr, out) = match outs.as_slice() {
                [(ptr, Some(out))] => (*ptr, out),
                _ => {
                    return Err(CodegenError::Other(
                        "a row reduction has one array result".into(),
                    ))
                }
            };
            let mut value = |cg: &Cg<'_, 'ctx>,
                             ctx: &mut ElementalCtx<'_, 'ctx>,
                             w: IntValue<'ctx>,
                             l: Lanes<'ctx>| {
                ctx.gen_reduce_part(cg, root, &delinearize(cg, out, w)?, None, Some(l))
            };
            let store = |cg: &Cg<'_, 'ctx>, w: IntValue<'ctx>, v: BasicValueEnum<'ctx>| {
                let idx = delinearize(cg, out, w)?;
                cg.store_elem(out.ty, cg.element_ptr(ptr, out, &idx)?, v)
            };
            warp_reduce(cg, flavor, &mut ctx, root, tid, outputs, &mut value, &store)?;
        }
        KernelKind::RowFusion { rows, len } => {
            let (ecomp, root) = elemental_root(module, comp, k);
            let mut ctx =
                elemental_ctx(module, ecomp, k, &inst.op, &inst.operands, operand_leaves)?;
            row_fusion(cg, flavor, &mut ctx, root, &outs, tid, rows, len)?;
        }
        KernelKind::ReduceCombine(_)
        | KernelKind::SortMerge { .. }
        | KernelKind::FftScale { .. }
        | KernelKind::FftRelayout { .. } => {
            return Err(CodegenError::Other(
                "combine, merge and fft kernels are emitted apart".into(),
            ))
        }
        KernelKind::Elemental => {
            let (ecomp, root) = elemental_root(module, comp, k);
            let mut ctx =
                elemental_ctx(module, ecomp, k, &inst.op, &inst.operands, operand_leaves)?;
            // Output groups: the operands of a tuple root separately,
            // otherwise all leaves at one index (variadic reduce).
            let rinst = ecomp.inst(root);
            let groups: Vec<InstId> = match rinst.op {
                Op::Tuple if !ctx.sources.contains_key(&root) => rinst.operands.clone(),
                _ => vec![root],
            };
            let mut oi = 0;
            for g in groups {
                let nl = leaf_count(&ecomp.inst(g).shape);
                let gouts = outs
                    .get(oi..oi + nl)
                    .ok_or_else(|| CodegenError::Other("tuple root of the wrong arity".into()))?;
                oi += nl;
                ctx.clear_cache();
                emit_group(cg, &mut ctx, g, gouts, tid)?;
            }
        }
        KernelKind::ReduceWindow => {
            if !matches!(inst.op, Op::ReduceWindow { .. }) {
                return Err(CodegenError::Other("not a reduce-window".into()));
            }
            let mut ctx = operand_ctx(module, comp, &inst.operands, operand_leaves);
            emit_reduce_window(thread, &mut ctx, &outs)?;
        }
        KernelKind::Scatter | KernelKind::ScatterCopy | KernelKind::ScatterAtomic => {
            let mode = match k.kind {
                KernelKind::ScatterCopy => ScatterMode::Copy,
                KernelKind::ScatterAtomic => ScatterMode::Atomic,
                _ => ScatterMode::Serial,
            };
            let mut ctx = operand_ctx(module, comp, &inst.operands, operand_leaves);
            emit_scatter(thread, &mut ctx, &outs, mode)?;
        }
        KernelKind::SelectAndScatter => {
            let mut ctx = operand_ctx(module, comp, &inst.operands, operand_leaves);
            let out = array_out(&outs, inst.op.name())?;
            emit_select_and_scatter(thread, &mut ctx, out)?;
        }
        KernelKind::RngBitGenerator => {
            let mut ctx = operand_ctx(module, comp, &inst.operands, operand_leaves);
            emit_rng(thread, &mut ctx, &outs)?;
        }
        KernelKind::TopK => {
            let mut ctx = operand_ctx(module, comp, &inst.operands, operand_leaves);
            emit_topk(thread, &mut ctx, &outs)?;
        }
        KernelKind::Sort => {
            let mut ctx = operand_ctx(module, comp, &inst.operands, operand_leaves);
            emit_sort(thread, &mut ctx, &outs)?;
        }
        KernelKind::Gather => {
            let mut ctx = operand_ctx(module, comp, &inst.operands, operand_leaves);
            let out = array_out(&outs, inst.op.name())?;
            emit_gather(thread, &mut ctx, out)?;
        }
        KernelKind::Convolution => {
            let mut ctx = operand_ctx(module, comp, &inst.operands, operand_leaves);
            let out = array_out(&outs, inst.op.name())?;
            emit_conv(thread, &mut ctx, out)?;
        }
        KernelKind::Dot => {
            let Op::Dot { dnums, .. } = &inst.op else {
                return Err(CodegenError::Other("not a dot".into()));
            };
            let mut ctx = operand_ctx(module, comp, &inst.operands, operand_leaves);
            let (lhs, rhs) = (inst.operands[0], inst.operands[1]);
            let out = array_out(&outs, inst.op.name())?;
            emit_dot(cg, &mut ctx, comp, lhs, rhs, dnums, out, tid)?;
        }
    }
    Ok(())
}

/// Stores element `idx` of each of `sources` into the same element of the
/// output of the same position (sort and scatter start from copies of
/// their operands).
fn copy_elements<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    sources: &[InstId],
    outs: &[(PointerValue<'ctx>, ArrayShape)],
    idx: &[IntValue<'ctx>],
) -> Result<(), CodegenError> {
    for (&src, (p, s)) in sources.iter().zip(outs) {
        let v = ctx.gen(cg, src, idx)?[0];
        cg.store_elem(s.ty, cg.element_ptr(*p, s, idx)?, v)?;
    }
    Ok(())
}

/// One thread of a kernel that computes instruction `id` of `comp`, thread
/// id `tid`: what every opcode's emitter takes besides its operands'
/// generator and its outputs.
#[derive(Clone, Copy)]
struct Thread<'c, 'a, 'ctx> {
    cg: &'c Cg<'a, 'ctx>,
    comp: &'c hlox_hlo::Computation,
    id: InstId,
    tid: IntValue<'ctx>,
}

/// The computation and root an elemental kernel generates: the fused
/// computation's for a fusion, the instruction itself otherwise.
fn elemental_root<'m>(
    module: &'m Module,
    comp: &'m hlox_hlo::Computation,
    k: &KernelInfo,
) -> (&'m hlox_hlo::Computation, InstId) {
    match &comp.inst(k.id).op {
        Op::Fusion { .. } => {
            let fc = module.comp(comp.inst(k.id).called[0]);
            (fc, fc.root)
        }
        _ => (comp, k.id),
    }
}

/// An elemental context over `ecomp` whose sources are the kernel's
/// operand leaves (keyed by the fused computation's parameters for a
/// fusion, by the operands otherwise).
fn elemental_ctx<'m, 'ctx>(
    module: &'m Module,
    ecomp: &'m hlox_hlo::Computation,
    k: &KernelInfo,
    op: &Op,
    operands: &[InstId],
    operand_leaves: Vec<Vec<Leaf<'ctx>>>,
) -> Result<ElementalCtx<'m, 'ctx>, CodegenError> {
    let mut ctx = ElementalCtx::new(module, ecomp);
    ctx.const_prefix = format!("const.{}", k.name);
    for (i, ls) in operand_leaves.into_iter().enumerate() {
        let key = match op {
            Op::Fusion { .. } => *ecomp.params.get(i).ok_or_else(|| {
                CodegenError::Other(format!("fused computation has no parameter {i}"))
            })?,
            _ => operands[i],
        };
        ctx.sources.insert(key, ls);
    }
    Ok(ctx)
}

/// Lane `lanes.lane`'s share of a warp's unit of work `w` (the unit, the
/// lanes).
type LaneValue<'a, 'ctx> = &'a mut dyn FnMut(
    &Cg<'_, 'ctx>,
    &mut ElementalCtx<'_, 'ctx>,
    IntValue<'ctx>,
    Lanes<'ctx>,
) -> Result<BasicValueEnum<'ctx>, CodegenError>;
/// Stores the result of a warp's unit of work.
type WarpStore<'a, 'ctx> =
    &'a dyn Fn(&Cg<'_, 'ctx>, IntValue<'ctx>, BasicValueEnum<'ctx>) -> Result<(), CodegenError>;

/// Warp `w = tid / 32` (when `w < units`) reduces unit `w` with the reducer
/// of `root`: lane `l` its share (`value`), then lane `l < o` combines its
/// value with lane `l + o`'s for `o` = 16, 8, 4, 2, 1 (lane 0's value at
/// the end is the tree `((v0 + v16) + (v8 + v24)) + ...`), and lane 0
/// stores it. On the GPU the lanes are threads and the values move by
/// `shfl.sync.down`; on the host (emulation) lane 0's thread computes the
/// 32 lane values in a loop and combines them in the same tree, so both
/// give the same bits.
#[allow(clippy::too_many_arguments)]
fn warp_reduce<'ctx>(
    cg: &Cg<'_, 'ctx>,
    flavor: Flavor,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    root: InstId,
    tid: IntValue<'ctx>,
    units: i64,
    value: LaneValue<'_, 'ctx>,
    store: WarpStore<'_, 'ctx>,
) -> Result<(), CodegenError> {
    let b = cg.b;
    let w = b.build_int_unsigned_div(tid, cg.i64c(WARP), "warp")?;
    let lane = b.build_int_unsigned_rem(tid, cg.i64c(WARP), "lane")?;
    let lane0 = b.build_int_compare(IntPredicate::EQ, lane, cg.i64c(0), "")?;
    match flavor {
        Flavor::Nvptx => in_range(cg, w, units, |cg| {
            // Every lane of a warp is here (whole warps are in or out of
            // range), as `shfl.sync` with a full mask requires.
            let v = warp_lanes_nvptx(cg, ctx, root, lane, &mut |cg, ctx, l| value(cg, ctx, w, l))?;
            if_then(cg, lane0, |cg| store(cg, w, v))
        }),
        Flavor::Host => {
            let inb = b.build_int_compare(IntPredicate::ULT, w, cg.i64c(units), "")?;
            if_then(cg, b.build_and(inb, lane0, "")?, |cg| {
                let v = warp_lanes_host(cg, ctx, root, &mut |cg, ctx, l| value(cg, ctx, w, l))?;
                store(cg, w, v)
            })
        }
    }
}

/// A lane's share of a reduction (its lane given).
type LaneShare<'a, 'ctx> = &'a mut dyn FnMut(
    &Cg<'_, 'ctx>,
    &mut ElementalCtx<'_, 'ctx>,
    Lanes<'ctx>,
) -> Result<BasicValueEnum<'ctx>, CodegenError>;

/// This lane's share (`share`) combined across the warp with the reducer
/// of `root` by `shfl.sync.down` (16, 8, 4, 2, 1): lane 0 gets the warp's
/// result.
fn warp_lanes_nvptx<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    root: InstId,
    lane: IntValue<'ctx>,
    share: LaneShare<'_, 'ctx>,
) -> Result<BasicValueEnum<'ctx>, CodegenError> {
    let mut v = share(cg, ctx, Lanes { lane, count: WARP })?;
    for o in tree_steps() {
        let x = shfl_down(cg, v, o as u32)?;
        v = ctx.combine_reduced(cg, root, v, x)?;
    }
    Ok(v)
}

/// [`warp_lanes_nvptx`] on one host thread: the 32 lanes' shares in a
/// loop, then lane `l < o` combined with lane `l + o` for the same `o`s
/// (lane 0's value at the end is the GPU's lane 0 result, bit for bit).
fn warp_lanes_host<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    root: InstId,
    share: LaneShare<'_, 'ctx>,
) -> Result<BasicValueEnum<'ctx>, CodegenError> {
    let b = cg.b;
    let count = WARP;
    let mut slots = None;
    for_range(cg, cg.i64c(0), cg.i64c(count), "lane", &mut |l| {
        let v = share(cg, ctx, Lanes { lane: l, count })?;
        let ty = v.get_type().array_type(count as u32);
        let arr = *slots.get_or_insert(cg.entry_alloca(ty.into(), "lanes")?);
        b.build_store(lane_slot(cg, ty, arr, l)?, v)?;
        Ok(())
    })?;
    let arr = slots.ok_or_else(|| CodegenError::Other("no lanes".into()))?;
    let out = ctx
        .comp
        .inst(root)
        .shape
        .as_array()
        .ok_or_else(|| CodegenError::Other("a reduction of one array".into()))?;
    let vt = cg.compute_type(out.ty);
    let ty = vt.array_type(count as u32);
    for o in tree_steps() {
        for_range(cg, cg.i64c(0), cg.i64c(o), "pair", &mut |l| {
            let hi = b.build_int_add(l, cg.i64c(o), "")?;
            let (pl, ph) = (lane_slot(cg, ty, arr, l)?, lane_slot(cg, ty, arr, hi)?);
            let a = b.build_load(vt, pl, "")?;
            let x = b.build_load(vt, ph, "")?;
            b.build_store(pl, ctx.combine_reduced(cg, root, a, x)?)?;
            Ok(())
        })?;
    }
    Ok(b.build_load(vt, lane_slot(cg, ty, arr, cg.i64c(0))?, "")?)
}

/// The lane distances of the combining tree: 16, 8, 4, 2, 1.
fn tree_steps() -> impl Iterator<Item = i64> {
    std::iter::successors(Some(WARP / 2), |&o| (o > 1).then_some(o / 2))
}

/// A row fusion ([`KernelKind::RowFusion`]): warp `w` computes row `w`
/// (elements `w * len ..` of the result, physical order). The fusion's
/// reductions of the row first, in order, each by [`warp_reduce`]'s lanes
/// and tree (its result shuffled from lane 0 to every lane) and then fixed
/// in the generator, then the row's elements, lane `l` computing elements
/// `l, l + 32, ...`. On the host lane 0's thread does it all (the lanes of
/// each reduction in a loop, the same tree; every element of the row).
#[allow(clippy::too_many_arguments)]
fn row_fusion<'ctx>(
    cg: &Cg<'_, 'ctx>,
    flavor: Flavor,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    root: InstId,
    outs: &[(PointerValue<'ctx>, Option<ArrayShape>)],
    tid: IntValue<'ctx>,
    rows: i64,
    len: i64,
) -> Result<(), CodegenError> {
    let b = cg.b;
    let out = match outs {
        [(_, Some(out))] => out.clone(),
        _ => {
            return Err(CodegenError::Other(
                "a row fusion has one array result".into(),
            ))
        }
    };
    let minor = *out
        .layout
        .minor_to_major
        .first()
        .ok_or_else(|| CodegenError::Other("a row fusion has a rank >= 1 result".into()))?
        as usize;
    let reduces = crate::plan::reduces_of(ctx.comp);
    let w = b.build_int_unsigned_div(tid, cg.i64c(WARP), "row")?;
    let lane = b.build_int_unsigned_rem(tid, cg.i64c(WARP), "lane")?;
    let lane0 = b.build_int_compare(IntPredicate::EQ, lane, cg.i64c(0), "")?;
    let inb = b.build_int_compare(IntPredicate::ULT, w, cg.i64c(rows), "")?;
    // GPU: whole warps are in or out of range (shuffles need every lane);
    // host: lane 0's thread does the row.
    let go = match flavor {
        Flavor::Nvptx => inb,
        Flavor::Host => b.build_and(inb, lane0, "")?,
    };
    if_then(cg, go, |cg| {
        let base = b.build_int_nuw_mul(w, cg.i64c(len), "")?;
        let mut row_index = delinearize(cg, &out, base)?;
        row_index.remove(minor);
        for r in reduces {
            let mut share = |cg: &Cg<'_, 'ctx>, ctx: &mut ElementalCtx<'_, 'ctx>, l| {
                ctx.gen_reduce_part(cg, r, &row_index, None, Some(l))
            };
            let v = match flavor {
                Flavor::Nvptx => shfl_idx0(cg, warp_lanes_nvptx(cg, ctx, r, lane, &mut share)?)?,
                Flavor::Host => warp_lanes_host(cg, ctx, r, &mut share)?,
            };
            ctx.fixed.insert(r, vec![v]);
        }
        let (start, step) = match flavor {
            Flavor::Nvptx => (lane, WARP),
            Flavor::Host => (cg.i64c(0), 1),
        };
        for_range_step(cg, start, cg.i64c(len), step, "elem", &mut |j| {
            let lin = b.build_int_nuw_add(base, j, "")?;
            ctx.clear_cache();
            emit_group(cg, ctx, root, outs, lin)
        })?;
        ctx.fixed.clear();
        Ok(())
    })
}

/// Element `l` of the `[32 x T]` array at `arr`.
fn lane_slot<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ty: inkwell::types::ArrayType<'ctx>,
    arr: PointerValue<'ctx>,
    l: IntValue<'ctx>,
) -> Result<PointerValue<'ctx>, CodegenError> {
    // SAFETY: `l` < 32, the array's length.
    Ok(unsafe { cg.b.build_in_bounds_gep(ty, arr, &[cg.i64c(0), l], "")? })
}

/// `if cond { body }`.
fn if_then<'ctx>(
    cg: &Cg<'_, 'ctx>,
    cond: IntValue<'ctx>,
    body: impl FnOnce(&Cg<'_, 'ctx>) -> Result<(), CodegenError>,
) -> Result<(), CodegenError> {
    let f = cg.current_fn()?;
    let then = cg.ctx.append_basic_block(f, "then");
    let next = cg.ctx.append_basic_block(f, "endif");
    cg.b.build_conditional_branch(cond, then, next)?;
    cg.b.position_at_end(then);
    body(cg)?;
    cg.b.build_unconditional_branch(next)?;
    cg.b.position_at_end(next);
    Ok(())
}

/// The value `v` of the lane `offset` above this one in the warp
/// (`shfl.sync.down` with a full mask; the top lanes get their own).
fn shfl_down<'ctx>(
    cg: &Cg<'_, 'ctx>,
    v: BasicValueEnum<'ctx>,
    offset: u32,
) -> Result<BasicValueEnum<'ctx>, CodegenError> {
    shfl(cg, "down", v, offset, 0x1f)
}

/// Lane 0's value `v`, in every lane (`shfl.sync.idx`).
fn shfl_idx0<'ctx>(
    cg: &Cg<'_, 'ctx>,
    v: BasicValueEnum<'ctx>,
) -> Result<BasicValueEnum<'ctx>, CodegenError> {
    shfl(cg, "idx", v, 0, 0x1f)
}

/// `shfl.sync.<mode>` of `v` with a full mask: one shuffle per 32 bits,
/// narrower values widened, wider ones split.
fn shfl<'ctx>(
    cg: &Cg<'_, 'ctx>,
    mode: &str,
    v: BasicValueEnum<'ctx>,
    lane_arg: u32,
    clamp: u64,
) -> Result<BasicValueEnum<'ctx>, CodegenError> {
    let b = cg.b;
    let i32t = cg.i32();
    let name = &format!("llvm.nvvm.shfl.sync.{mode}.i32");
    let f = match cg.module.get_function(name) {
        Some(f) => f,
        None => cg.module.add_function(
            name,
            i32t.fn_type(&[i32t.into(), i32t.into(), i32t.into(), i32t.into()], false),
            None,
        ),
    };
    let shfl = |x: IntValue<'ctx>| -> Result<IntValue<'ctx>, CodegenError> {
        let args = [
            i32t.const_all_ones().into(),
            x.into(),
            i32t.const_int(lane_arg as u64, false).into(),
            i32t.const_int(clamp, false).into(),
        ];
        b.build_call(f, &args, "")?
            .try_as_basic_value()
            .basic()
            .map(|r| r.into_int_value())
            .ok_or_else(|| CodegenError::Other(format!("{name} returned void")))
    };
    let it = match v {
        BasicValueEnum::IntValue(i) => i.get_type(),
        BasicValueEnum::FloatValue(f) => match f.get_type().get_bit_width() {
            16 => cg.ctx.i16_type(),
            32 => i32t,
            _ => cg.i64(),
        },
        _ => return Err(CodegenError::Other("shuffle of a non-scalar value".into())),
    };
    let bits = it.get_bit_width();
    let x = b.build_bit_cast(v, it, "")?.into_int_value();
    let r = match bits {
        0..=31 => {
            let w = shfl(b.build_int_z_extend(x, i32t, "")?)?;
            b.build_int_truncate(w, it, "")?
        }
        32 => shfl(x)?,
        64 => {
            let i64t = cg.i64();
            let lo = shfl(b.build_int_truncate(x, i32t, "")?)?;
            let hi = b.build_right_shift(x, i64t.const_int(32, false), false, "")?;
            let hi = shfl(b.build_int_truncate(hi, i32t, "")?)?;
            let hi = b.build_left_shift(
                b.build_int_z_extend(hi, i64t, "")?,
                i64t.const_int(32, false),
                "",
            )?;
            b.build_or(hi, b.build_int_z_extend(lo, i64t, "")?, "")?
        }
        n => return Err(CodegenError::Other(format!("shuffle of a {n}-bit value"))),
    };
    Ok(b.build_bit_cast(r, v.get_type(), "")?)
}

/// An fft's `1/n` ([`KernelKind::FftScale`]): float `tid` of the result
/// (`floats` of them: complex values part by part) times `1/n` rounded to
/// the part type, as `hlox_hlo::semantics::fft` scales.
fn emit_fft_scale<'ctx>(
    cg: &Cg<'_, 'ctx>,
    shape: &hlox_hlo::Shape,
    floats: u64,
    n: i64,
    params: &[PointerValue<'ctx>],
    tid: IntValue<'ctx>,
) -> Result<(), CodegenError> {
    let ty = shape
        .element_type()
        .ok_or_else(|| CodegenError::Other("an fft's result is an array".into()))?;
    let part = ty.complex_component().unwrap_or(ty);
    let ft = match part {
        ElementType::F32 => cg.f32(),
        ElementType::F64 => cg.f64(),
        t => return Err(CodegenError::Other(format!("an fft does not give {t}"))),
    };
    let out = *params
        .first()
        .ok_or_else(|| CodegenError::Other("the scale kernel takes the result".into()))?;
    let s = if part == ElementType::F32 {
        (1.0 / n as f64) as f32 as f64
    } else {
        1.0 / n as f64
    };
    in_range(cg, tid, floats as i64, |cg| {
        let p = unsafe { cg.b.build_in_bounds_gep(ft, out, &[tid], "")? };
        let x = cg.b.build_load(ft, p, "")?.into_float_value();
        let y = cg.b.build_float_mul(x, ft.const_float(s), "")?;
        cg.b.build_store(p, y)?;
        Ok(())
    })
}

/// Element `tid` (in `to`'s physical order) of `from` (parameter 0) copied
/// to `to` (parameter 1): the same array in two layouts.
fn emit_relayout<'ctx>(
    cg: &Cg<'_, 'ctx>,
    from: &ArrayShape,
    to: &ArrayShape,
    params: &[PointerValue<'ctx>],
    tid: IntValue<'ctx>,
) -> Result<(), CodegenError> {
    let [src, dst] = params else {
        return Err(CodegenError::Other(
            "a relayout takes a source and a destination".into(),
        ));
    };
    in_range(cg, tid, to.element_count() as i64, |cg| {
        let idx = delinearize(cg, to, tid)?;
        let v = cg.load_elem(from.ty, cg.element_ptr(*src, from, &idx)?)?;
        cg.store_elem(to.ty, cg.element_ptr(*dst, to, &idx)?, v)
    })
}

/// `if tid < count { body }`.
fn in_range<'ctx>(
    cg: &Cg<'_, 'ctx>,
    tid: IntValue<'ctx>,
    count: i64,
    body: impl FnOnce(&Cg<'_, 'ctx>) -> Result<(), CodegenError>,
) -> Result<(), CodegenError> {
    let inb =
        cg.b.build_int_compare(IntPredicate::ULT, tid, cg.i64c(count), "")?;
    if_then(cg, inb, body)
}

/// The second kernel of a split reduction: output `tid` (physical order)
/// is the in-order combination of its parts (`scratch[p * outputs + tid]`).
fn emit_reduce_combine<'ctx>(
    cg: &Cg<'_, 'ctx>,
    module: &Module,
    k: &KernelInfo,
    sr: SplitReduce,
    params: &[PointerValue<'ctx>],
    tid: IntValue<'ctx>,
    flavor: Flavor,
) -> Result<(), CodegenError> {
    let comp = module.comp(k.comp);
    let (ecomp, root) = elemental_root(module, comp, k);
    let out = ecomp
        .inst(root)
        .shape
        .as_array()
        .ok_or_else(|| CodegenError::Other("a split reduction has an array result".into()))?;
    let [scratch, result] = params else {
        return Err(CodegenError::Other(
            "a combine kernel takes two buffers".into(),
        ));
    };
    let mut ctx: ElementalCtx<'_, 'ctx> = ElementalCtx::new(module, ecomp);
    let flat = ArrayShape::new(out.ty, vec![sr.parts * sr.outputs]);
    if sr.warp_combine() {
        // Output `w`: lane `l` combines parts `l, l + 32, ...` from the
        // identity, then the warp's tree.
        let mut value = |cg: &Cg<'_, 'ctx>,
                         ctx: &mut ElementalCtx<'_, 'ctx>,
                         w: IntValue<'ctx>,
                         l: Lanes<'ctx>| {
            let b = cg.b;
            let id = ctx.reduce_identity(cg, root)?;
            let acc = cg.entry_alloca(id.get_type(), "acc")?;
            b.build_store(acc, id)?;
            for_range_step(cg, l.lane, cg.i64c(sr.parts), l.count, "part", &mut |p| {
                let at = b.build_int_add(b.build_int_mul(p, cg.i64c(sr.outputs), "")?, w, "")?;
                let x = cg.load_elem(out.ty, cg.element_ptr(*scratch, &flat, &[at])?)?;
                let a = b.build_load(id.get_type(), acc, "")?;
                b.build_store(acc, ctx.combine_reduced(cg, root, a, x)?)?;
                Ok(())
            })?;
            Ok(b.build_load(id.get_type(), acc, "")?)
        };
        let store = |cg: &Cg<'_, 'ctx>, w: IntValue<'ctx>, v: BasicValueEnum<'ctx>| {
            let idx = delinearize(cg, out, w)?;
            cg.store_elem(out.ty, cg.element_ptr(*result, out, &idx)?, v)
        };
        return warp_reduce(
            cg, flavor, &mut ctx, root, tid, sr.outputs, &mut value, &store,
        );
    }
    in_range(cg, tid, sr.outputs, |cg| {
        let b = cg.b;
        let first = cg.load_elem(out.ty, cg.element_ptr(*scratch, &flat, &[tid])?)?;
        let acc = cg.entry_alloca(first.get_type(), "acc")?;
        b.build_store(acc, first)?;
        for_range(cg, cg.i64c(1), cg.i64c(sr.parts), "part", &mut |p| {
            let at = b.build_int_add(b.build_int_mul(p, cg.i64c(sr.outputs), "")?, tid, "")?;
            let x = cg.load_elem(out.ty, cg.element_ptr(*scratch, &flat, &[at])?)?;
            let a = b.build_load(first.get_type(), acc, "")?;
            b.build_store(acc, ctx.combine_reduced(cg, root, a, x)?)?;
            Ok(())
        })?;
        let idx = delinearize(cg, out, tid)?;
        let v = b.build_load(first.get_type(), acc, "")?;
        cg.store_elem(out.ty, cg.element_ptr(*result, out, &idx)?, v)
    })
}

/// Logical index of element `lin` (physical order) of `shape`.
fn delinearize<'ctx>(
    cg: &Cg<'_, 'ctx>,
    shape: &ArrayShape,
    lin: IntValue<'ctx>,
) -> Result<Vec<IntValue<'ctx>>, CodegenError> {
    let mut idx = vec![cg.i64c(0); shape.rank()];
    let mut rem = lin;
    for &d in &shape.layout.minor_to_major {
        let d = d as usize;
        let n = shape.dims[d];
        if n == 1 {
            continue;
        }
        idx[d] = cg.b.build_int_unsigned_rem(rem, cg.i64c(n), "")?;
        rem = cg.b.build_int_unsigned_div(rem, cg.i64c(n), "")?;
    }
    Ok(idx)
}

/// `if tid < count { values = gen(g, index(tid)); store }`.
fn emit_group<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    g: InstId,
    outs: &[(PointerValue<'ctx>, Option<ArrayShape>)],
    tid: IntValue<'ctx>,
) -> Result<(), CodegenError> {
    let Some(first) = outs.iter().find_map(|(_, s)| s.clone()) else {
        return Ok(()); // tokens only
    };
    let count = first.element_count() as i64;
    if count == 0 {
        return Ok(());
    }
    in_range(cg, tid, count, |cg| {
        let idx = delinearize(cg, &first, tid)?;
        let vals = ctx.gen(cg, g, &idx)?;
        for ((p, s), v) in outs.iter().zip(vals) {
            if let Some(s) = s {
                let ep = cg.element_ptr(*p, s, &idx)?;
                cg.store_elem(s.ty, ep, v)?;
            }
        }
        Ok(())
    })
}

/// The arithmetic domain of a dot with result type `ty` (as the evaluator:
/// f32 for F16/BF16/F32, f64, i64 for signed and u64 for unsigned ints).
fn dot_domain(ty: ElementType) -> Option<ElementType> {
    use ElementType::*;
    Some(match ty {
        F16 | Bf16 | F32 => F32,
        F64 => F64,
        S8 | S16 | S32 | S64 => S64,
        U8 | U16 | U32 | U64 => U64,
        // Complex products summed in their own type, as the evaluator.
        C64 => C64,
        C128 => C128,
        Pred => return None,
    })
}

#[allow(clippy::too_many_arguments)]
fn emit_dot<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    comp: &hlox_hlo::Computation,
    lhs: InstId,
    rhs: InstId,
    dn: &hlox_hlo::DotDimensionNumbers,
    out: (PointerValue<'ctx>, ArrayShape),
    tid: IntValue<'ctx>,
) -> Result<(), CodegenError> {
    let (optr, oshape) = out;
    let count = oshape.element_count() as i64;
    let ls = comp.inst(lhs).shape.as_array().cloned();
    let rs = comp.inst(rhs).shape.as_array().cloned();
    let (Some(ls), Some(rs)) = (ls, rs) else {
        return Err(CodegenError::Other("dot operands must be arrays".into()));
    };
    let dom = dot_domain(oshape.ty).ok_or_else(|| {
        CodegenError::Other("dot with a PRED result is not supported on CUDA".into())
    })?;
    if count == 0 {
        return Ok(());
    }
    let dims = DotDims::new(dn, ls.rank(), rs.rank());
    if dims.lhs.batch.len() != dims.rhs.batch.len()
        || dims.lhs.contracting.len() != dims.rhs.contracting.len()
        || dims.result_rank() != oshape.rank()
    {
        return Err(CodegenError::Other(
            "dot dimension numbers do not match the shapes".into(),
        ));
    }
    let (ld, rd) = (&dims.lhs, &dims.rhs);
    let (lb, lc, lf) = (&ld.batch, &ld.contracting, &ld.free);
    let (rb, rc, rf) = (&rd.batch, &rd.contracting, &rd.free);
    in_range(cg, tid, count, |cg| {
        let oidx = delinearize(cg, &oshape, tid)?;
        let mut li = vec![cg.i64c(0); ls.rank()];
        let mut ri = vec![cg.i64c(0); rs.rank()];
        for (i, (&a, &b)) in lb.iter().zip(rb).enumerate() {
            li[a] = oidx[i];
            ri[b] = oidx[i];
        }
        for (j, &a) in lf.iter().enumerate() {
            li[a] = oidx[lb.len() + j];
        }
        for (j, &b) in rf.iter().enumerate() {
            ri[b] = oidx[lb.len() + lf.len() + j];
        }
        let acc = Acc::zeroed(cg, dom)?;
        let (lty, rty) = (ls.ty, rs.ty);
        dot_loops(
            cg,
            ctx,
            &ls,
            lc,
            rc,
            0,
            &mut li,
            &mut ri,
            &mut |cg, ctx, li, ri| {
                let a = ctx.gen(cg, lhs, li)?[0];
                let b = ctx.gen(cg, rhs, ri)?[0];
                let a = scalar::convert(cg, lty, dom, a)?;
                let b = scalar::convert(cg, rty, dom, b)?;
                acc.add_product(cg, a, b)
            },
        )?;
        acc.store(cg, optr, &oshape, &oidx)
    })
}

/// Reduce-window, one thread per output element: the shared element
/// generator (`hlox_codegen::window`, the Host's too) walks its window.
fn emit_reduce_window<'ctx>(
    t: Thread<'_, '_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    outs: &[(PointerValue<'ctx>, Option<ArrayShape>)],
) -> Result<(), CodegenError> {
    let Thread {
        cg,
        comp: _,
        id,
        tid,
    } = t;
    let oshape = outs
        .first()
        .and_then(|(_, s)| s.clone())
        .ok_or_else(|| CodegenError::Other("reduce-window without an array result".into()))?;
    let count = oshape.element_count() as i64;
    if count == 0 {
        return Ok(());
    }
    in_range(cg, tid, count, |cg| {
        let oidx = delinearize(cg, &oshape, tid)?;
        let values = ctx.gen(cg, id, &oidx)?;
        for ((p, s), v) in outs.iter().zip(values) {
            if let Some(s) = s {
                let ep = cg.element_ptr(*p, s, &oidx)?;
                cg.store_elem(s.ty, ep, v)?;
            }
        }
        Ok(())
    })
}

/// Convolution (XLA's semantics, as the evaluator): output element `o`
/// sums lhs[batch, feature, spatial] * rhs[in feature, out feature,
/// spatial] over the kernel window (padding, strides, lhs/rhs dilation,
/// reversal) and the input features of its feature group; batch groups
/// pick the lhs batch.
fn emit_conv<'ctx>(
    t: Thread<'_, '_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    out: (PointerValue<'ctx>, ArrayShape),
) -> Result<(), CodegenError> {
    let Thread { cg, comp, id, tid } = t;
    let inst = comp.inst(id);
    let Op::Convolution(conv) = &inst.op else {
        return Err(CodegenError::Other("not a convolution".into()));
    };
    let (window, dn) = (&conv.window, &conv.dnums);
    let (feature_group_count, batch_group_count) =
        (&conv.feature_group_count, &conv.batch_group_count);
    let (optr, oshape) = out;
    let (lhs, rhs) = (inst.operands[0], inst.operands[1]);
    let (Some(ls), Some(rs)) = (
        comp.inst(lhs).shape.as_array().cloned(),
        comp.inst(rhs).shape.as_array().cloned(),
    ) else {
        return Err(CodegenError::Other(
            "convolution operands must be arrays".into(),
        ));
    };
    let dom = dot_domain(oshape.ty).ok_or_else(|| {
        CodegenError::Other("convolution with a PRED result is not supported on CUDA".into())
    })?;
    let count = oshape.element_count() as i64;
    if count == 0 {
        return Ok(());
    }
    let nsp = dn.input_spatial_dimensions.len();
    if window.dims.len() != nsp {
        return Err(CodegenError::Other(
            "window rank differs from the spatial rank".into(),
        ));
    }
    let u = |d: i64| d as usize;
    let (fgc, bgc) = ((*feature_group_count).max(1), (*batch_group_count).max(1));
    let in_z = ls.dims[u(dn.input_feature_dimension)];
    let in_batch = ls.dims[u(dn.input_batch_dimension)];
    let batch_group_size = in_batch / bgc;
    let in_fg_size = in_z / fgc;
    let out_z = rs.dims[u(dn.kernel_output_feature_dimension)];
    let out_fg_size = (out_z / fgc).max(1);
    let depthwise_mult = (out_z / bgc).max(1);
    let b = cg.b;
    in_range(cg, tid, count, |cg| {
        let oidx = delinearize(cg, &oshape, tid)?;
        let oz = oidx[u(dn.output_feature_dimension)];
        let fg = b.build_int_unsigned_div(oz, cg.i64c(out_fg_size), "")?;
        let bg = b.build_int_unsigned_div(oz, cg.i64c(depthwise_mult), "")?;
        let lb = b.build_int_add(
            oidx[u(dn.output_batch_dimension)],
            b.build_int_mul(bg, cg.i64c(batch_group_size), "")?,
            "",
        )?;
        let acc = Acc::zeroed(cg, dom)?;
        let mut li = vec![cg.i64c(0); ls.rank()];
        let mut ri = vec![cg.i64c(0); rs.rank()];
        li[u(dn.input_batch_dimension)] = lb;
        ri[u(dn.kernel_output_feature_dimension)] = oz;
        let geo = ConvGeo {
            dn,
            window,
            ls: &ls,
            oidx: &oidx,
            fg,
            in_fg_size,
            lhs,
            rhs,
            acc: &acc,
        };
        conv_loops(cg, ctx, &geo, 0, &mut li, &mut ri)?;
        acc.store(cg, optr, &oshape, &oidx)
    })
}

/// Gather (XLA's semantics, as the evaluator): start indices clamped so
/// that the slice fits, operand batching dimensions from the output's batch
/// position, offsets from the offset dimensions.
fn emit_gather<'ctx>(
    t: Thread<'_, '_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    out: (PointerValue<'ctx>, ArrayShape),
) -> Result<(), CodegenError> {
    let Thread { cg, comp, id, tid } = t;
    let inst = comp.inst(id);
    let Op::Gather {
        dnums: dn,
        slice_sizes,
        ..
    } = &inst.op
    else {
        return Err(CodegenError::Other("not a gather".into()));
    };
    let bad = |m: &str| CodegenError::Other(format!("gather: {m}"));
    let (optr, oshape) = out;
    let (operand, indices) = (inst.operands[0], inst.operands[1]);
    let (Some(os), Some(is)) = (
        comp.inst(operand).shape.as_array().cloned(),
        comp.inst(indices).shape.as_array().cloned(),
    ) else {
        return Err(bad("operands must be arrays"));
    };
    let count = oshape.element_count() as i64;
    if count == 0 {
        return Ok(());
    }
    // The index map is the evaluator's and the Host runtime's
    // (`hlox_hlo::semantics::gather::GatherPlan`); this emits it per thread.
    let p = GatherPlan::new(dn, slice_sizes, &os.dims, &is.dims, &oshape.dims)
        .map_err(|e| bad(&e.to_string()))?;
    let (orank, irank) = (os.rank(), is.rank());
    let ity = is.ty;
    let b = cg.b;
    in_range(cg, tid, count, |cg| {
        let o = delinearize(cg, &oshape, tid)?;
        let mut iidx = vec![cg.i64c(0); irank];
        for (&od, &id) in p.batch_out_dims.iter().zip(&p.index_batch_dims) {
            iidx[id] = o[od];
        }
        let mut start = vec![cg.i64c(0); orank];
        for (k, &sd) in p.start_index_map.iter().enumerate() {
            if let Some(ivd) = p.index_vector_dim {
                iidx[ivd] = cg.i64c(k as i64);
            }
            let v = ctx.gen(cg, indices, &iidx)?[0].into_int_value();
            let v = if v.get_type().get_bit_width() == 64 {
                v
            } else if ity.is_signed_int() {
                b.build_int_s_extend(v, cg.i64(), "")?
            } else {
                b.build_int_z_extend(v, cg.i64(), "")?
            };
            let hi = cg.i64c(p.max_start(sd));
            let lt0 = b.build_int_compare(IntPredicate::SLT, v, cg.i64c(0), "")?;
            let v = b.build_select(lt0, cg.i64c(0), v, "")?.into_int_value();
            let gt = b.build_int_compare(IntPredicate::SGT, v, hi, "")?;
            start[sd] = b.build_select(gt, hi, v, "")?.into_int_value();
        }
        for &(od, pos) in &p.operand_batching {
            start[od] = o[p.batch_out_dims[pos]];
        }
        let mut oi = start;
        for (&od, &wd) in p.offset_dims.iter().zip(&p.window_operand_dims) {
            oi[wd] = b.build_int_add(oi[wd], o[od], "")?;
        }
        let v = ctx.gen(cg, operand, &oi)?[0];
        let ep = cg.element_ptr(optr, &oshape, &o)?;
        cg.store_elem(oshape.ty, ep, v)?;
        Ok(())
    })
}

/// Sort: thread `t` sorts row `t` (the elements along the sort dimension
/// at one position of the others): copies every operand's row into its
/// output, then a stable insertion sort there, swapping all outputs
/// together, with the comparator inlined (`comp(a[j], a[j-1])` moves
/// element j before j-1).
fn emit_sort<'ctx>(
    t: Thread<'_, '_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    outs: &[(PointerValue<'ctx>, Option<ArrayShape>)],
) -> Result<(), CodegenError> {
    let Thread { cg, comp, id, tid } = t;
    let inst = comp.inst(id);
    let Op::Sort { dimension, .. } = &inst.op else {
        return Err(CodegenError::Other("not a sort".into()));
    };
    let bad = |m: &str| CodegenError::Other(format!("sort: {m}"));
    let cmp = inst.called[0];
    let outs: Vec<(PointerValue, ArrayShape)> = outs
        .iter()
        .map(|(p, s)| s.clone().map(|s| (*p, s)))
        .collect::<Option<_>>()
        .ok_or_else(|| bad("token result"))?;
    let shape = outs[0].1.clone();
    let d = *dimension as usize;
    if d >= shape.rank() {
        return Err(bad("dimension out of range"));
    }
    let len = shape.dims[d];
    if len == 0 || shape.element_count() == 0 {
        return Ok(());
    }
    let rows = shape.element_count() as i64 / len;
    let b = cg.b;
    let f = cg.current_fn()?;
    let then = cg.ctx.append_basic_block(f, "sort");
    let next = cg.ctx.append_basic_block(f, "done");
    let inb = b.build_int_compare(IntPredicate::ULT, tid, cg.i64c(rows), "")?;
    b.build_conditional_branch(inb, then, next)?;
    b.position_at_end(then);
    let mut row_shape = shape.clone();
    row_shape.dims[d] = 1;
    let base = delinearize(cg, &row_shape, tid)?;
    // Copy the row.
    let operands = inst.operands.clone();
    for_range(cg, cg.i64c(0), cg.i64c(len), "copy", &mut |i| {
        let mut idx = base.clone();
        idx[d] = i;
        copy_elements(cg, ctx, &operands, &outs, &idx)
    })?;
    let at = |j: IntValue<'ctx>| -> Result<Vec<PointerValue<'ctx>>, CodegenError> {
        let mut idx = base.clone();
        idx[d] = j;
        outs.iter()
            .map(|(p, s)| cg.element_ptr(*p, s, &idx))
            .collect()
    };
    for_range(cg, cg.i64c(1), cg.i64c(len), "ins", &mut |i| {
        // while j > 0 && comp(a[j], a[j-1]) { swap(j, j-1); j -= 1 }
        let pre = b.get_insert_block().ok_or_else(|| bad("no block"))?;
        let head = cg.ctx.append_basic_block(f, "ins.head");
        let test = cg.ctx.append_basic_block(f, "ins.test");
        let swap = cg.ctx.append_basic_block(f, "ins.swap");
        let exit = cg.ctx.append_basic_block(f, "ins.exit");
        b.build_unconditional_branch(head)?;
        b.position_at_end(head);
        let phi = b.build_phi(cg.i64(), "j")?;
        phi.add_incoming(&[(&i, pre)]);
        let j = phi.as_basic_value().into_int_value();
        let pos = b.build_int_compare(IntPredicate::SGT, j, cg.i64c(0), "")?;
        b.build_conditional_branch(pos, test, exit)?;
        b.position_at_end(test);
        let jm = b.build_int_sub(j, cg.i64c(1), "")?;
        let (pj, pm) = (at(j)?, at(jm)?);
        let mut args = Vec::new();
        let mut vals = Vec::new();
        for (k, (_, s)) in outs.iter().enumerate() {
            let x = cg.load_elem(s.ty, pj[k])?;
            let y = cg.load_elem(s.ty, pm[k])?;
            args.push(x);
            args.push(y);
            vals.push((x, y));
        }
        let r = ctx.inline_scalar(cg, cmp, &args)?;
        let lt = r
            .first()
            .ok_or_else(|| bad("comparator without a result"))?
            .into_int_value();
        b.build_conditional_branch(lt, swap, exit)?;
        b.position_at_end(swap);
        for (k, (_, s)) in outs.iter().enumerate() {
            cg.store_elem(s.ty, pj[k], vals[k].1)?;
            cg.store_elem(s.ty, pm[k], vals[k].0)?;
        }
        let swap_end = b.get_insert_block().ok_or_else(|| bad("no block"))?;
        phi.add_incoming(&[(&jm, swap_end)]);
        b.build_unconditional_branch(head)?;
        b.position_at_end(exit);
        Ok(())
    })?;
    b.build_unconditional_branch(next)?;
    b.position_at_end(next);
    Ok(())
}

/// One merge pass of a sort (see [`KernelKind::SortMerge`]): element `i`
/// of its row, in run `[s, s + width)` or `[s + width, s + 2 width)`, goes
/// to its position in the merged run `[s, s + 2 width)`: its rank in its
/// own run plus the number of elements of the other run that go before
/// it, found by binary search with the comparator: those `b` with
/// `less(b, x)` when `x` is in the left run, those `a` with
/// `!less(x, a)` when it is in the right one (so ties keep their order).
fn emit_sort_merge<'ctx>(
    cg: &Cg<'_, 'ctx>,
    module: &Module,
    k: &KernelInfo,
    width: i64,
    first: bool,
    params: &[PointerValue<'ctx>],
    tid: IntValue<'ctx>,
) -> Result<(), CodegenError> {
    let comp = module.comp(k.comp);
    let inst = comp.inst(k.id);
    let bad = |m: &str| CodegenError::Other(format!("sort: {m}"));
    let Op::Sort { dimension, .. } = &inst.op else {
        return Err(bad("not a sort"));
    };
    let cmp = inst.called[0];
    let dst_shapes: Vec<ArrayShape> = leaves(&inst.shape)
        .into_iter()
        .collect::<Option<_>>()
        .ok_or_else(|| bad("token result"))?;
    let n = dst_shapes.len();
    if params.len() != 2 * n {
        return Err(bad(
            "one source and one destination buffer per operand expected",
        ));
    }
    let src_shapes: Vec<ArrayShape> = if first {
        inst.operands
            .iter()
            .map(|&o| comp.inst(o).shape.as_array().cloned())
            .collect::<Option<_>>()
            .ok_or_else(|| bad("operands are arrays"))?
    } else {
        dst_shapes.clone()
    };
    let shape = dst_shapes[0].clone();
    let d = *dimension as usize;
    let len = *shape
        .dims
        .get(d)
        .ok_or_else(|| bad("dimension out of range"))?;
    let total = shape.element_count() as i64;
    if len == 0 || total == 0 {
        return Ok(());
    }
    let ctx: ElementalCtx<'_, 'ctx> = ElementalCtx::new(module, comp);
    let b = cg.b;
    in_range(cg, tid, total, |cg| {
        let mut row_shape = shape.clone();
        row_shape.dims[d] = 1;
        let row = b.build_int_unsigned_div(tid, cg.i64c(len), "row")?;
        let i = b.build_int_unsigned_rem(tid, cg.i64c(len), "i")?;
        let base = delinearize(cg, &row_shape, row)?;
        let at = |j: IntValue<'ctx>| {
            let mut idx = base.clone();
            idx[d] = j;
            idx
        };
        let load = |j: IntValue<'ctx>| -> Result<Vec<BasicValueEnum<'ctx>>, CodegenError> {
            let idx = at(j);
            (0..n)
                .map(|q| {
                    let p = cg.element_ptr(params[q], &src_shapes[q], &idx)?;
                    cg.load_elem(src_shapes[q].ty, p)
                })
                .collect()
        };
        let x = load(i)?;
        let arith = LlvmArith(cg);
        let runs = MergeRuns::new(&arith, i, width, len)?;
        let (left, lo0, hi0) = (runs.left, runs.lo, runs.hi);
        // Binary search: the first position in [lo0, hi0) where `goes_before`
        // is false (it holds on a prefix of the sorted other run).
        let l = scalar::loop_blocks(cg, "bs")?;
        let (pre, head, body, exit) = (l.pre, l.head, l.body, l.exit);
        let lo = b.build_phi(cg.i64(), "lo")?;
        let hi = b.build_phi(cg.i64(), "hi")?;
        lo.add_incoming(&[(&lo0, pre)]);
        hi.add_incoming(&[(&hi0, pre)]);
        let (lov, hiv) = (
            lo.as_basic_value().into_int_value(),
            hi.as_basic_value().into_int_value(),
        );
        let more = b.build_int_compare(IntPredicate::ULT, lov, hiv, "")?;
        b.build_conditional_branch(more, body, exit)?;
        b.position_at_end(body);
        let m = b.build_int_unsigned_div(b.build_int_add(lov, hiv, "")?, cg.i64c(2), "m")?;
        let y = load(m)?;
        // left: less(y, x); right: !less(x, y).
        let mut args = Vec::with_capacity(2 * n);
        for q in 0..n {
            let (a0, a1) = (
                b.build_select(left, y[q], x[q], "")?,
                b.build_select(left, x[q], y[q], "")?,
            );
            args.push(a0);
            args.push(a1);
        }
        let c = ctx
            .inline_scalar(cg, cmp, &args)?
            .first()
            .ok_or_else(|| bad("comparator without a result"))?
            .into_int_value();
        let c = b.build_int_truncate_or_bit_cast(c, cg.ctx.bool_type(), "")?;
        let before = b.build_int_compare(IntPredicate::EQ, c, left, "before")?;
        let m1 = b.build_int_add(m, cg.i64c(1), "")?;
        let nlo = b.build_select(before, m1, lov, "")?.into_int_value();
        let nhi = b.build_select(before, hiv, m, "")?.into_int_value();
        let body_end = b.get_insert_block().ok_or_else(|| bad("no block"))?;
        lo.add_incoming(&[(&nlo, body_end)]);
        hi.add_incoming(&[(&nhi, body_end)]);
        b.build_unconditional_branch(head)?;
        b.position_at_end(exit);
        let count = b.build_int_sub(lov, lo0, "count")?;
        let pos = runs.position(&arith, i, count)?;
        let idx = at(pos);
        for (q, v) in x.iter().enumerate() {
            let p = cg.element_ptr(params[n + q], &dst_shapes[q], &idx)?;
            cg.store_elem(dst_shapes[q].ty, p, *v)?;
        }
        Ok(())
    })
}

/// Scatter (XLA's semantics, as the evaluator), by thread 0 alone: copy
/// the operands into the outputs, then for every scatter index (row-major)
/// whose whole window fits, every window element (row-major):
/// `out[o] = combiner(out[o], update[u])`.
fn emit_scatter<'ctx>(
    t: Thread<'_, '_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    outs: &[(PointerValue<'ctx>, Option<ArrayShape>)],
    mode: ScatterMode,
) -> Result<(), CodegenError> {
    let Thread { cg, comp, id, tid } = t;
    let inst = comp.inst(id);
    let Op::Scatter { dnums: dn, .. } = &inst.op else {
        return Err(CodegenError::Other("not a scatter".into()));
    };
    let bad = |m: &str| CodegenError::Other(format!("scatter: {m}"));
    let comb = inst.called[0];
    let n = inst.operands.len() / 2;
    let inputs = inst.operands[..n].to_vec();
    let indices = inst.operands[n];
    let updates = inst.operands[n + 1..].to_vec();
    let outs: Vec<(PointerValue, ArrayShape)> = outs
        .iter()
        .map(|(p, s)| s.clone().map(|s| (*p, s)))
        .collect::<Option<_>>()
        .ok_or_else(|| bad("token result"))?;
    let arr = |i: InstId| {
        comp.inst(i)
            .shape
            .as_array()
            .cloned()
            .ok_or_else(|| bad("operands must be arrays"))
    };
    let (os, is, us) = (outs[0].1.clone(), arr(indices)?, arr(updates[0])?);
    // The index map is the evaluator's and the Host runtime's
    // (`hlox_hlo::semantics::gather::ScatterPlan`); this emits it.
    let plan =
        ScatterPlan::new(dn, &os.dims, &is.dims, &us.dims).map_err(|e| bad(&e.to_string()))?;
    let b = cg.b;
    let total = os.element_count() as i64;
    let sc = ScatterGeo {
        plan: &plan,
        indices,
        ity: is.ty,
        irank: is.rank(),
        us: &us,
        updates: &updates,
        outs: &outs,
        comb,
    };
    match mode {
        ScatterMode::Serial => {}
        ScatterMode::Copy => {
            // Output element `tid` = the input's.
            return in_range(cg, tid, total, |cg| {
                let idx = delinearize(cg, &os, tid)?;
                copy_elements(cg, ctx, &inputs, &outs, &idx)
            });
        }
        ScatterMode::Atomic => {
            // Update element `tid`: its scatter index and window position,
            // then an atomic read-combine-write of its output element.
            return in_range(cg, tid, us.element_count() as i64, |cg| {
                let ui = delinearize(cg, &us, tid)?;
                let s_idx: Vec<IntValue> =
                    plan.update_scatter_dims.iter().map(|&d| ui[d]).collect();
                let (start, fits) = scatter_start(cg, ctx, &sc, &s_idx)?;
                let f = cg.current_fn()?;
                let body = cg.ctx.append_basic_block(f, "sc.in");
                let join = cg.ctx.append_basic_block(f, "sc.next");
                b.build_conditional_branch(fits, body, join)?;
                b.position_at_end(body);
                let mut oi = start;
                for (&ud, &od) in plan
                    .update_window_dims
                    .iter()
                    .zip(&plan.window_operand_dims)
                {
                    oi[od] = b.build_int_add(oi[od], ui[ud], "")?;
                }
                let (p, sh) = &outs[0];
                let ep = cg.element_ptr(*p, sh, &oi)?;
                let u = ctx.gen(cg, updates[0], &ui)?[0];
                atomic_combine(cg, ctx, comb, ep, sh.ty, u)?;
                b.build_unconditional_branch(join)?;
                b.position_at_end(join);
                Ok(())
            });
        }
    }
    in_range(cg, tid, 1, |cg| {
        // Copy the inputs.
        for_range(cg, cg.i64c(0), cg.i64c(total), "copy", &mut |lin| {
            let idx = delinearize(cg, &os, lin)?;
            copy_elements(cg, ctx, &inputs, &outs, &idx)
        })?;
        let extents = update_extents(&sc, &plan.update_scatter_dims);
        loop_nest(cg, &extents, "s", &mut |s| scatter_index(cg, ctx, &sc, s))
    })
}

/// Which part of a scatter a kernel computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ScatterMode {
    /// Everything, on thread 0 (see [`emit_scatter`]).
    Serial,
    /// The copy of the input into the output, one thread per element.
    Copy,
    /// The updates, one thread per update element, each combined into
    /// the output with a compare-and-swap loop.
    Atomic,
}

/// `*ptr = comb(*ptr, u)` atomically: a compare-and-swap loop on the
/// element's bits (32 or 64 bits), any scalar combiner.
fn atomic_combine<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &ElementalCtx<'_, 'ctx>,
    comb: hlox_hlo::CompId,
    ptr: PointerValue<'ctx>,
    ty: ElementType,
    u: BasicValueEnum<'ctx>,
) -> Result<(), CodegenError> {
    use inkwell::AtomicOrdering::Monotonic;
    let b = cg.b;
    let bits = match ty.bit_width() {
        32 => cg.ctx.i32_type(),
        64 => cg.ctx.i64_type(),
        w => {
            return Err(CodegenError::Other(format!(
                "atomic combine of {w}-bit elements"
            )))
        }
    };
    let vt = cg.compute_type(ty);
    let f = cg.current_fn()?;
    let pre = b
        .get_insert_block()
        .ok_or_else(|| CodegenError::Other("no block".into()))?;
    let old0 = b.build_load(bits, ptr, "old")?.into_int_value();
    let head = cg.ctx.append_basic_block(f, "cas");
    let done = cg.ctx.append_basic_block(f, "cas.done");
    b.build_unconditional_branch(head)?;
    b.position_at_end(head);
    let old = b.build_phi(bits, "cur")?;
    old.add_incoming(&[(&old0, pre)]);
    let cur = old.as_basic_value().into_int_value();
    let a = b.build_bit_cast(cur, vt, "")?;
    let r = ctx
        .inline_scalar(cg, comb, &[a, u])?
        .first()
        .copied()
        .ok_or_else(|| CodegenError::Other("combiner without a result".into()))?;
    let new = b.build_bit_cast(r, bits, "")?.into_int_value();
    let pair = b.build_cmpxchg(ptr, cur, new, Monotonic, Monotonic)?;
    let seen = b.build_extract_value(pair, 0, "")?.into_int_value();
    let ok = b.build_extract_value(pair, 1, "")?.into_int_value();
    let here = b
        .get_insert_block()
        .ok_or_else(|| CodegenError::Other("no block".into()))?;
    old.add_incoming(&[(&seen, here)]);
    b.build_conditional_branch(ok, done, head)?;
    b.position_at_end(done);
    Ok(())
}

struct ScatterGeo<'a, 'ctx> {
    plan: &'a ScatterPlan,
    indices: InstId,
    ity: ElementType,
    irank: usize,
    us: &'a ArrayShape,
    updates: &'a [InstId],
    outs: &'a [(PointerValue<'ctx>, ArrayShape)],
    comb: hlox_hlo::CompId,
}

/// The extents of the update dimensions `dims` (scatter or window ones).
fn update_extents(g: &ScatterGeo<'_, '_>, dims: &[usize]) -> Vec<i64> {
    dims.iter().map(|&d| g.us.dims[d]).collect()
}

/// Scatter index `s`: when its window fits, every window element.
fn scatter_index<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    g: &ScatterGeo<'_, 'ctx>,
    s: &[IntValue<'ctx>],
) -> Result<(), CodegenError> {
    let b = cg.b;
    let (start, fits) = scatter_start(cg, ctx, g, s)?;
    let f = cg.current_fn()?;
    let body = cg.ctx.append_basic_block(f, "sc.in");
    let join = cg.ctx.append_basic_block(f, "sc.next");
    b.build_conditional_branch(fits, body, join)?;
    b.position_at_end(body);
    let extents = update_extents(g, &g.plan.update_window_dims);
    loop_nest(cg, &extents, "sw", &mut |w| {
        scatter_window_element(cg, ctx, g, &start, s, w)
    })?;
    b.build_unconditional_branch(join)?;
    b.position_at_end(join);
    Ok(())
}

/// The operand start indices of scatter index `s` (one value per scatter
/// dimension of the updates), and whether its whole window fits.
#[allow(clippy::type_complexity)]
fn scatter_start<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    g: &ScatterGeo<'_, 'ctx>,
    s: &[IntValue<'ctx>],
) -> Result<(Vec<IntValue<'ctx>>, IntValue<'ctx>), CodegenError> {
    let b = cg.b;
    let p = g.plan;
    let mut iidx = vec![cg.i64c(0); g.irank];
    for (&v, &d) in s.iter().zip(&p.index_batch_dims) {
        iidx[d] = v;
    }
    let mut start = vec![cg.i64c(0); p.operand_dims.len()];
    for (k, &od) in p.scatter_dims_to_operand_dims.iter().enumerate() {
        if let Some(ivd) = p.index_vector_dim {
            iidx[ivd] = cg.i64c(k as i64);
        }
        let v = ctx.gen(cg, g.indices, &iidx)?[0].into_int_value();
        start[od] = if v.get_type().get_bit_width() == 64 {
            v
        } else if g.ity.is_signed_int() {
            b.build_int_s_extend(v, cg.i64(), "")?
        } else {
            b.build_int_z_extend(v, cg.i64(), "")?
        };
    }
    for &(od, pos) in &p.input_batching {
        if let Some(&v) = s.get(pos) {
            start[od] = v;
        }
    }
    let mut fits = cg.i1().const_int(1, false);
    for (d, &sd) in start.iter().enumerate() {
        let ge = b.build_int_compare(IntPredicate::SGE, sd, cg.i64c(0), "")?;
        let le = b.build_int_compare(
            IntPredicate::SLE,
            sd,
            cg.i64c(p.operand_dims[d] - p.window_sizes[d]),
            "",
        )?;
        fits = b.build_and(fits, b.build_and(ge, le, "")?, "")?;
    }
    Ok((start, fits))
}

/// Window element `w` of scatter index `s` (its window starts at `start`
/// in the operand): `out[o] = combiner(out[o], update[u])`.
fn scatter_window_element<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    g: &ScatterGeo<'_, 'ctx>,
    start: &[IntValue<'ctx>],
    s: &[IntValue<'ctx>],
    w: &[IntValue<'ctx>],
) -> Result<(), CodegenError> {
    let b = cg.b;
    let mut oi = start.to_vec();
    let mut ui = vec![cg.i64c(0); g.us.rank()];
    for (&v, &d) in s.iter().zip(&g.plan.update_scatter_dims) {
        ui[d] = v;
    }
    for (k, &v) in w.iter().enumerate() {
        ui[g.plan.update_window_dims[k]] = v;
        let od = g.plan.window_operand_dims[k];
        oi[od] = b.build_int_add(oi[od], v, "")?;
    }
    let mut args = Vec::new();
    let mut ptrs = Vec::new();
    for (p, sh) in g.outs {
        let ep = cg.element_ptr(*p, sh, &oi)?;
        args.push(cg.load_elem(sh.ty, ep)?);
        ptrs.push((ep, sh.ty));
    }
    for &u in g.updates {
        args.push(ctx.gen(cg, u, &ui)?[0]);
    }
    let r = ctx.inline_scalar(cg, g.comb, &args)?;
    for ((ep, ty), v) in ptrs.into_iter().zip(r) {
        cg.store_elem(ty, ep, v)?;
    }
    Ok(())
}

/// Select-and-scatter by thread 0 alone: the output starts as the init
/// value; for every source position (row-major) the window's first valid
/// operand element is selected, then replaced by each later one that
/// `select(selected, e)` rejects; `out[selected] = scatter(out[selected],
/// source[o])`.
fn emit_select_and_scatter<'ctx>(
    t: Thread<'_, '_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    out: (PointerValue<'ctx>, ArrayShape),
) -> Result<(), CodegenError> {
    let Thread { cg, comp, id, tid } = t;
    let inst = comp.inst(id);
    let Op::SelectAndScatter { window } = &inst.op else {
        return Err(CodegenError::Other("not a select-and-scatter".into()));
    };
    let bad = |m: &str| CodegenError::Other(format!("select-and-scatter: {m}"));
    let (operand, source, init) = (inst.operands[0], inst.operands[1], inst.operands[2]);
    let (select, scatter) = (inst.called[0], inst.called[1]);
    let (optr, oshape) = out;
    let ins = comp
        .inst(operand)
        .shape
        .as_array()
        .cloned()
        .ok_or_else(|| bad("operand is not an array"))?;
    let ss = comp
        .inst(source)
        .shape
        .as_array()
        .cloned()
        .ok_or_else(|| bad("source is not an array"))?;
    if window.dims.len() != ins.rank() || ss.rank() != ins.rank() {
        return Err(bad("window rank mismatch"));
    }
    in_range(cg, tid, 1, |cg| {
        let initv = ctx.gen(cg, init, &[])?[0];
        let total = oshape.element_count() as i64;
        for_range(cg, cg.i64c(0), cg.i64c(total), "fill", &mut |lin| {
            let idx = delinearize(cg, &oshape, lin)?;
            let ep = cg.element_ptr(optr, &oshape, &idx)?;
            cg.store_elem(oshape.ty, ep, initv)
        })?;
        let vt = cg.compute_type(ins.ty);
        let sel_ok = cg.entry_alloca(cg.i1().into(), "sel.ok")?;
        let sel_v = cg.entry_alloca(vt, "sel.v")?;
        let sel_i: Vec<PointerValue> = (0..ins.rank())
            .map(|d| cg.entry_alloca(cg.i64().into(), &format!("sel.i{d}")))
            .collect::<Result<_, _>>()?;
        let g = SasGeo {
            window,
            ins: &ins,
            operand,
            source,
            select,
            scatter,
            optr,
            oshape: &oshape,
            sel_ok,
            sel_v,
            sel_i: &sel_i,
            vt,
        };
        loop_nest(cg, &ss.dims, "so", &mut |o| {
            sas_source_element(cg, ctx, &g, o)
        })
    })
}

struct SasGeo<'a, 'ctx> {
    window: &'a hlox_hlo::Window,
    ins: &'a ArrayShape,
    operand: InstId,
    source: InstId,
    select: hlox_hlo::CompId,
    scatter: hlox_hlo::CompId,
    optr: PointerValue<'ctx>,
    oshape: &'a ArrayShape,
    sel_ok: PointerValue<'ctx>,
    sel_v: PointerValue<'ctx>,
    sel_i: &'a [PointerValue<'ctx>],
    vt: inkwell::types::BasicTypeEnum<'ctx>,
}

/// For source element `o`: select among its window, then scatter.
fn sas_source_element<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    g: &SasGeo<'_, 'ctx>,
    o: &[IntValue<'ctx>],
) -> Result<(), CodegenError> {
    let b = cg.b;
    b.build_store(g.sel_ok, cg.i1().const_zero())?;
    // A defined value (select sees it only with sel.ok false, ignored).
    b.build_store(g.sel_v, g.vt.const_zero())?;
    let sizes: Vec<i64> = g.window.dims.iter().map(|w| w.size).collect();
    loop_nest(cg, &sizes, "sw", &mut |k| {
        sas_window_element(cg, ctx, g, o, k)
    })?;
    let ok = b.build_load(cg.i1(), g.sel_ok, "")?.into_int_value();
    let f = cg.current_fn()?;
    let body = cg.ctx.append_basic_block(f, "sas.sc");
    let join = cg.ctx.append_basic_block(f, "sas.next");
    b.build_conditional_branch(ok, body, join)?;
    b.position_at_end(body);
    let mut idx = Vec::new();
    for p in g.sel_i {
        idx.push(b.build_load(cg.i64(), *p, "")?.into_int_value());
    }
    let ep = cg.element_ptr(g.optr, g.oshape, &idx)?;
    let cur = cg.load_elem(g.oshape.ty, ep)?;
    let src = ctx.gen(cg, g.source, o)?[0];
    let r = ctx.inline_scalar(cg, g.scatter, &[cur, src])?;
    let v = *r
        .first()
        .ok_or_else(|| CodegenError::Other("scatter without a result".into()))?;
    cg.store_elem(g.oshape.ty, ep, v)?;
    b.build_unconditional_branch(join)?;
    b.position_at_end(join);
    Ok(())
}

/// Window element `k` of source element `o`: the selection step.
fn sas_window_element<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    g: &SasGeo<'_, 'ctx>,
    o: &[IntValue<'ctx>],
    k: &[IntValue<'ctx>],
) -> Result<(), CodegenError> {
    let b = cg.b;
    let (idx, valid) = window_input_index(cg, g.window, &g.ins.dims, o, k)?;
    let f = cg.current_fn()?;
    let body = cg.ctx.append_basic_block(f, "sas.in");
    let take = cg.ctx.append_basic_block(f, "sas.take");
    let join = cg.ctx.append_basic_block(f, "sas.wnext");
    b.build_conditional_branch(valid, body, join)?;
    b.position_at_end(body);
    let x = ctx.gen(cg, g.operand, &idx)?[0];
    let had = b.build_load(cg.i1(), g.sel_ok, "")?.into_int_value();
    let cur = b.build_load(g.vt, g.sel_v, "")?;
    let keep = ctx.inline_scalar(cg, g.select, &[cur, x])?;
    let keep = keep
        .first()
        .ok_or_else(|| CodegenError::Other("select without a result".into()))?
        .into_int_value();
    // take x when nothing is selected yet or select(cur, x) is false
    let nk = b.build_not(keep, "")?;
    let nh = b.build_not(had, "")?;
    let t = b.build_or(nh, nk, "")?;
    b.build_conditional_branch(t, take, join)?;
    b.position_at_end(take);
    b.build_store(g.sel_ok, cg.i1().const_int(1, false))?;
    b.build_store(g.sel_v, x)?;
    for (p, v) in g.sel_i.iter().zip(&idx) {
        b.build_store(*p, *v)?;
    }
    b.build_unconditional_branch(join)?;
    b.position_at_end(join);
    Ok(())
}

/// The sort key of an element for topk: integers as themselves, floats by
/// their total order (`f32::total_cmp`: F16/BF16 widened to f32), as i64
/// compared signed (U64: unsigned).
fn topk_key<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ty: ElementType,
    v: BasicValueEnum<'ctx>,
) -> Result<IntValue<'ctx>, CodegenError> {
    let b = cg.b;
    use ElementType::*;
    Ok(match ty {
        F16 | Bf16 | F32 => {
            let w = cg.widen(ty, v)?;
            let bits = b.build_bit_cast(w, cg.i32(), "")?.into_int_value();
            let s = b.build_right_shift(bits, cg.i32().const_int(31, false), true, "")?;
            let m = b.build_right_shift(s, cg.i32().const_int(1, false), false, "")?;
            let k = b.build_xor(bits, m, "")?;
            b.build_int_s_extend(k, cg.i64(), "")?
        }
        F64 => {
            let bits = b.build_bit_cast(v, cg.i64(), "")?.into_int_value();
            let s = b.build_right_shift(bits, cg.i64c(63), true, "")?;
            let m = b.build_right_shift(s, cg.i64c(1), false, "")?;
            b.build_xor(bits, m, "")?
        }
        S8 | S16 | S32 | S64 => {
            let i = v.into_int_value();
            if i.get_type().get_bit_width() == 64 {
                i
            } else {
                b.build_int_s_extend(i, cg.i64(), "")?
            }
        }
        _ => {
            let i = v.into_int_value();
            if i.get_type().get_bit_width() == 64 {
                i
            } else {
                b.build_int_z_extend(i, cg.i64(), "")?
            }
        }
    })
}

/// TopK: thread `t` fills row `t` of both results with k passes; pass j
/// picks the first element (lowest index) with the best key among those
/// ordered after pass j-1's pick, in the order (key descending for
/// largest, ascending otherwise; ties by index ascending).
fn emit_topk<'ctx>(
    t: Thread<'_, '_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    outs: &[(PointerValue<'ctx>, Option<ArrayShape>)],
) -> Result<(), CodegenError> {
    let Thread { cg, comp, id, tid } = t;
    let inst = comp.inst(id);
    let Op::TopK { k, largest } = &inst.op else {
        return Err(CodegenError::Other("not a topk".into()));
    };
    let bad = |m: &str| CodegenError::Other(format!("topk: {m}"));
    let x = inst.operands[0];
    let xs = comp
        .inst(x)
        .shape
        .as_array()
        .cloned()
        .ok_or_else(|| bad("operand is not an array"))?;
    let [(vp, Some(vs)), (ip, Some(is))] = outs else {
        return Err(bad("results must be (values, indices)"));
    };
    let rank = xs.rank();
    if rank == 0 || vs.rank() != rank || is.rank() != rank {
        return Err(bad("rank mismatch"));
    }
    let n = xs.dims[rank - 1];
    let kk = *k;
    if n == 0 || kk <= 0 || xs.element_count() == 0 {
        return Ok(());
    }
    let rows = xs.element_count() as i64 / n;
    let b = cg.b;
    let (sgt, slt) = if xs.ty == ElementType::U64 {
        (IntPredicate::UGT, IntPredicate::ULT)
    } else {
        (IntPredicate::SGT, IntPredicate::SLT)
    };
    // "a ranks before b" on keys: greater (largest) or smaller.
    let (before, after) = if *largest { (sgt, slt) } else { (slt, sgt) };
    in_range(cg, tid, rows, |cg| {
        let mut row_shape = xs.clone();
        row_shape.dims[rank - 1] = 1;
        let base = delinearize(cg, &row_shape, tid)?;
        let i64t: inkwell::types::BasicTypeEnum = cg.i64().into();
        let i1t: inkwell::types::BasicTypeEnum = cg.i1().into();
        let prev_key = cg.entry_alloca(i64t, "prev.key")?;
        let prev_idx = cg.entry_alloca(i64t, "prev.idx")?;
        let have_prev = cg.entry_alloca(i1t, "prev.ok")?;
        let best_key = cg.entry_alloca(i64t, "best.key")?;
        let best_idx = cg.entry_alloca(i64t, "best.idx")?;
        let have_best = cg.entry_alloca(i1t, "best.ok")?;
        b.build_store(have_prev, cg.i1().const_zero())?;
        b.build_store(prev_key, cg.i64c(0))?;
        b.build_store(prev_idx, cg.i64c(0))?;
        let ty = xs.ty;
        for_range(cg, cg.i64c(0), cg.i64c(kk), "pick", &mut |j| {
            b.build_store(have_best, cg.i1().const_zero())?;
            b.build_store(best_key, cg.i64c(0))?;
            b.build_store(best_idx, cg.i64c(0))?;
            let pk = b.build_load(cg.i64(), prev_key, "")?.into_int_value();
            let pi = b.build_load(cg.i64(), prev_idx, "")?.into_int_value();
            let hp = b.build_load(cg.i1(), have_prev, "")?.into_int_value();
            for_range(cg, cg.i64c(0), cg.i64c(n), "scan", &mut |i| {
                let mut idx = base.clone();
                idx[rank - 1] = i;
                let v = ctx.gen(cg, x, &idx)?[0];
                let key = topk_key(cg, ty, v)?;
                // eligible: no previous pick, or ordered after it
                let later = b.build_int_compare(after, key, pk, "")?;
                let eqk = b.build_int_compare(IntPredicate::EQ, key, pk, "")?;
                let gti = b.build_int_compare(IntPredicate::SGT, i, pi, "")?;
                let tie_after = b.build_and(eqk, gti, "")?;
                let after_prev = b.build_or(later, tie_after, "")?;
                let eligible = b.build_or(b.build_not(hp, "")?, after_prev, "")?;
                let bk = b.build_load(cg.i64(), best_key, "")?.into_int_value();
                let hb = b.build_load(cg.i1(), have_best, "")?.into_int_value();
                let better = b.build_int_compare(before, key, bk, "")?;
                let better = b.build_or(b.build_not(hb, "")?, better, "")?;
                let take = b.build_and(eligible, better, "")?;
                let nk = b.build_select(take, key, bk, "")?;
                let bi = b.build_load(cg.i64(), best_idx, "")?.into_int_value();
                let ni = b.build_select(take, i, bi, "")?;
                let nh = b.build_or(hb, take, "")?;
                b.build_store(best_key, nk)?;
                b.build_store(best_idx, ni)?;
                b.build_store(have_best, nh)?;
                Ok(())
            })?;
            let bi = b.build_load(cg.i64(), best_idx, "")?.into_int_value();
            let bk = b.build_load(cg.i64(), best_key, "")?;
            let mut sidx = base.clone();
            sidx[rank - 1] = bi;
            let v = ctx.gen(cg, x, &sidx)?[0];
            let mut oidx = base.clone();
            oidx[rank - 1] = j;
            let ep = cg.element_ptr(*vp, vs, &oidx)?;
            cg.store_elem(vs.ty, ep, v)?;
            let iv = b.build_int_truncate(bi, cg.i32(), "")?;
            let ep = cg.element_ptr(*ip, is, &oidx)?;
            cg.store_elem(is.ty, ep, iv.into())?;
            b.build_store(prev_key, bk)?;
            b.build_store(prev_idx, bi)?;
            b.build_store(have_prev, cg.i1().const_int(1, false))?;
            Ok(())
        })?;
        Ok(())
    })
}

/// 32-bit helpers for the bit generators.
struct U32<'a, 'b, 'ctx> {
    cg: &'a Cg<'b, 'ctx>,
}

impl<'ctx> U32<'_, '_, 'ctx> {
    fn c(&self, v: u64) -> IntValue<'ctx> {
        self.cg.i32().const_int(v & 0xffff_ffff, false)
    }
    fn add(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>, CodegenError> {
        Ok(self.cg.b.build_int_add(a, b, "")?)
    }
    fn xor(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>, CodegenError> {
        Ok(self.cg.b.build_xor(a, b, "")?)
    }
    fn rotl(&self, x: IntValue<'ctx>, r: u32) -> Result<IntValue<'ctx>, CodegenError> {
        let b = self.cg.b;
        let l = b.build_left_shift(x, self.c(r as u64), "")?;
        let h = b.build_right_shift(x, self.c(32 - r as u64), false, "")?;
        Ok(b.build_or(l, h, "")?)
    }
    /// (low, high) 32-bit halves of a u64 value.
    fn split(&self, v: IntValue<'ctx>) -> Result<[IntValue<'ctx>; 2], CodegenError> {
        let b = self.cg.b;
        let lo = b.build_int_truncate(v, self.cg.i32(), "")?;
        let hi = b.build_right_shift(v, self.cg.i64c(32), false, "")?;
        Ok([lo, b.build_int_truncate(hi, self.cg.i32(), "")?])
    }
    fn join(&self, lo: IntValue<'ctx>, hi: IntValue<'ctx>) -> Result<IntValue<'ctx>, CodegenError> {
        let b = self.cg.b;
        let l = b.build_int_z_extend(lo, self.cg.i64(), "")?;
        let h = b.build_int_z_extend(hi, self.cg.i64(), "")?;
        let h = b.build_left_shift(h, self.cg.i64c(32), "")?;
        Ok(b.build_or(l, h, "")?)
    }

    fn threefry(
        &self,
        x: [IntValue<'ctx>; 2],
        key: [IntValue<'ctx>; 2],
    ) -> Result<[IntValue<'ctx>; 2], CodegenError> {
        use hlox_hlo::semantics::rng::{threefry_rotations, THREEFRY_GROUPS, THREEFRY_PARITY};
        let k2 = self.xor(self.xor(self.c(THREEFRY_PARITY as u64), key[0])?, key[1])?;
        let ks = [key[0], key[1], k2];
        let mut x = [self.add(x[0], ks[0])?, self.add(x[1], ks[1])?];
        for i in 0..THREEFRY_GROUPS {
            for &r in threefry_rotations(i) {
                x[0] = self.add(x[0], x[1])?;
                x[1] = self.rotl(x[1], r)?;
                x[1] = self.xor(x[1], x[0])?;
            }
            let j = i + 1;
            x[0] = self.add(x[0], ks[j % 3])?;
            x[1] = self.add(self.add(x[1], ks[(j + 1) % 3])?, self.c(j as u64))?;
        }
        Ok(x)
    }

    fn philox(
        &self,
        mut s: [IntValue<'ctx>; 4],
        mut key: [IntValue<'ctx>; 2],
    ) -> Result<[IntValue<'ctx>; 4], CodegenError> {
        let b = self.cg.b;
        let i64t = self.cg.i64();
        let mulw = |a: IntValue<'ctx>, m: u64| -> Result<[IntValue<'ctx>; 2], CodegenError> {
            let a = b.build_int_z_extend(a, i64t, "")?;
            let p = b.build_int_mul(a, i64t.const_int(m, false), "")?;
            self.split(p)
        };
        use hlox_hlo::semantics::rng::{PHILOX_M, PHILOX_ROUNDS, PHILOX_W};
        for _ in 0..PHILOX_ROUNDS {
            let [p0l, p0h] = mulw(s[0], PHILOX_M[0])?;
            let [p1l, p1h] = mulw(s[2], PHILOX_M[1])?;
            s = [
                self.xor(self.xor(p1h, s[1])?, key[0])?,
                p1l,
                self.xor(self.xor(p0h, s[3])?, key[1])?,
                p0l,
            ];
            key = [
                self.add(key[0], self.c(PHILOX_W[0] as u64))?,
                self.add(key[1], self.c(PHILOX_W[1] as u64))?,
            ];
        }
        Ok(s)
    }
}

/// rng-bit-generator: thread t writes state word t (the counter words
/// advanced by the number of blocks used) and output element t (row-major
/// position j): Philox block j / 4 (j / 2 for 64-bit elements) of the
/// counter (state[1], state[2] or state[0]) keyed by state[0]; ThreeFry the
/// counter state[1] + j (64-bit) or the half-shape position (the shape
/// split along its first even dimension, else the largest), as the
/// evaluator.
fn emit_rng<'ctx>(
    t: Thread<'_, '_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    outs: &[(PointerValue<'ctx>, Option<ArrayShape>)],
) -> Result<(), CodegenError> {
    let Thread { cg, comp, id, tid } = t;
    use hlox_hlo::semantics::rng::{Generator, RngPlan};
    let inst = comp.inst(id);
    let Op::RngBitGenerator { algorithm } = &inst.op else {
        return Err(CodegenError::Other("not a rng-bit-generator".into()));
    };
    let bad = |m: &str| CodegenError::Other(format!("rng-bit-generator: {m}"));
    let state = inst.operands[0];
    let [(sp, Some(ss)), (vp, Some(vs))] = outs else {
        return Err(bad("results must be (state, values)"));
    };
    // The counter schedule is the evaluator's and the Host runtime's
    // (`hlox_hlo::semantics::rng::RngPlan`); this emits it per thread.
    let plan = RngPlan::new(*algorithm, ss, vs).map_err(|e| bad(&e.to_string()))?;
    let m = ss.element_count() as i64;
    let n = vs.element_count() as i64;
    let bits = plan.bits;
    let u = U32 { cg };
    let b = cg.b;
    let dims = &vs.dims;
    let split_dim = plan.threefry_split;
    let half = &plan.threefry_half;
    let philox = plan.generator == Generator::Philox;
    let advance = plan.counter_advance() as i64;
    let f = cg.current_fn()?;
    // State words.
    let sblk = cg.ctx.append_basic_block(f, "rng.state");
    let vchk = cg.ctx.append_basic_block(f, "rng.vchk");
    let inb = b.build_int_compare(IntPredicate::ULT, tid, cg.i64c(m), "")?;
    b.build_conditional_branch(inb, sblk, vchk)?;
    b.position_at_end(sblk);
    {
        let cur = ctx.gen(cg, state, &[tid])?[0].into_int_value();
        let new = if philox {
            let (lo, hi) = if m >= 3 {
                (rng_word(cg, ctx, state, 1)?, rng_word(cg, ctx, state, 2)?)
            } else {
                (rng_word(cg, ctx, state, 1)?, rng_word(cg, ctx, state, 0)?)
            };
            let nl = b.build_int_add(lo, cg.i64c(advance), "")?;
            let carry = b.build_int_compare(IntPredicate::ULT, nl, lo, "")?;
            let nh = b.build_int_add(hi, b.build_int_z_extend(carry, cg.i64(), "")?, "")?;
            let is1 = b.build_int_compare(IntPredicate::EQ, tid, cg.i64c(1), "")?;
            let v = b.build_select(is1, nl, cur, "")?.into_int_value();
            if m >= 3 {
                let is2 = b.build_int_compare(IntPredicate::EQ, tid, cg.i64c(2), "")?;
                b.build_select(is2, nh, v, "")?.into_int_value()
            } else {
                v
            }
        } else {
            let nc = b.build_int_add(rng_word(cg, ctx, state, 1)?, cg.i64c(advance), "")?;
            let is1 = b.build_int_compare(IntPredicate::EQ, tid, cg.i64c(1), "")?;
            b.build_select(is1, nc, cur, "")?.into_int_value()
        };
        let ep = cg.element_ptr(*sp, ss, &[tid])?;
        cg.store_elem(ss.ty, ep, new.into())?;
    }
    b.build_unconditional_branch(vchk)?;
    b.position_at_end(vchk);
    if n == 0 {
        return Ok(());
    }
    let vblk = cg.ctx.append_basic_block(f, "rng.value");
    let next = cg.ctx.append_basic_block(f, "done");
    let inb = b.build_int_compare(IntPredicate::ULT, tid, cg.i64c(n), "")?;
    b.build_conditional_branch(inb, vblk, next)?;
    b.position_at_end(vblk);
    let idx = delinearize(cg, vs, tid)?;
    // Row-major position.
    let mut j = cg.i64c(0);
    for (d, &i) in idx.iter().enumerate() {
        j = b.build_int_mul(j, cg.i64c(dims[d]), "")?;
        j = b.build_int_add(j, i, "")?;
    }
    let v64 = if philox {
        let key = u.split(rng_word(cg, ctx, state, 0)?)?;
        let (lo, hi) = if m >= 3 {
            (rng_word(cg, ctx, state, 1)?, rng_word(cg, ctx, state, 2)?)
        } else {
            (rng_word(cg, ctx, state, 1)?, rng_word(cg, ctx, state, 0)?)
        };
        let per = plan.philox_per_block() as i64;
        let blk = b.build_int_unsigned_div(j, cg.i64c(per), "")?;
        let word = b.build_int_unsigned_rem(j, cg.i64c(per), "")?;
        let l = b.build_int_add(lo, blk, "")?;
        let carry = b.build_int_compare(IntPredicate::ULT, l, lo, "")?;
        let h = b.build_int_add(hi, b.build_int_z_extend(carry, cg.i64(), "")?, "")?;
        let [a0, a1] = u.split(l)?;
        let [b0, b1] = u.split(h)?;
        let o = u.philox([a0, a1, b0, b1], key)?;
        let pick = |k: i64, vals: &[IntValue<'ctx>]| -> Result<IntValue<'ctx>, CodegenError> {
            let mut r = vals[0];
            for (w, v) in vals.iter().enumerate().skip(1) {
                let is = b.build_int_compare(IntPredicate::EQ, word, cg.i64c(w as i64), "")?;
                r = b.build_select(is, *v, r, "")?.into_int_value();
            }
            let _ = k;
            Ok(r)
        };
        if bits == 64 {
            let w0 = u.join(o[0], o[1])?;
            let w1 = u.join(o[2], o[3])?;
            pick(0, &[w0, w1])?
        } else {
            let w = pick(0, &o)?;
            b.build_int_z_extend(w, cg.i64(), "")?
        }
    } else {
        let key = u.split(rng_word(cg, ctx, state, 0)?)?;
        let ctr = rng_word(cg, ctx, state, 1)?;
        if bits == 64 {
            let c = b.build_int_add(ctr, j, "")?;
            let o = u.threefry(u.split(c)?, key)?;
            u.join(o[0], o[1])?
        } else {
            let (lin, cw) = match split_dim {
                None => (cg.i64c(0), cg.i64c(0)),
                Some(s) => {
                    let mut lin = cg.i64c(0);
                    for (d, &i) in idx.iter().enumerate() {
                        let v = if d == s {
                            b.build_int_unsigned_div(i, cg.i64c(2), "")?
                        } else {
                            i
                        };
                        lin = b.build_int_mul(lin, cg.i64c(half[d]), "")?;
                        lin = b.build_int_add(lin, v, "")?;
                    }
                    (lin, b.build_int_unsigned_rem(idx[s], cg.i64c(2), "")?)
                }
            };
            let c = b.build_int_add(ctr, lin, "")?;
            let o = u.threefry(u.split(c)?, key)?;
            let is1 = b.build_int_compare(IntPredicate::EQ, cw, cg.i64c(1), "")?;
            let w = b.build_select(is1, o[1], o[0], "")?.into_int_value();
            b.build_int_z_extend(w, cg.i64(), "")?
        }
    };
    // Low `bits` bits, as the element's storage.
    let st_ty = cg.storage_type(vs.ty);
    let ibits = cg
        .ctx
        .custom_width_int_type(
            std::num::NonZeroU32::new(bits).ok_or_else(|| bad("zero-width element"))?,
        )
        .map_err(bad)?;
    let w = if bits == 64 {
        v64
    } else {
        b.build_int_truncate(v64, ibits, "")?
    };
    let sv: BasicValueEnum = if st_ty.is_int_type() {
        w.into()
    } else {
        b.build_bit_cast(w, st_ty, "")?
    };
    let ep = cg.element_ptr(*vp, vs, &idx)?;
    let store = b.build_store(ep, sv)?;
    let _ = store.set_alignment(1);
    b.build_unconditional_branch(next)?;
    b.position_at_end(next);
    Ok(())
}

fn rng_word<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    state: InstId,
    i: i64,
) -> Result<IntValue<'ctx>, CodegenError> {
    Ok(ctx.gen(cg, state, &[cg.i64c(i)])?[0].into_int_value())
}

/// The sum of products of a dot or convolution output element, in the
/// computation type of `dom`.
struct Acc<'ctx> {
    ptr: PointerValue<'ctx>,
    ty: inkwell::types::BasicTypeEnum<'ctx>,
    dom: ElementType,
}

impl<'ctx> Acc<'ctx> {
    fn zeroed(cg: &Cg<'_, 'ctx>, dom: ElementType) -> Result<Acc<'ctx>, CodegenError> {
        let ty = cg.compute_type(dom);
        let ptr = cg.entry_alloca(ty, "acc")?;
        let zero: BasicValueEnum = match ty {
            inkwell::types::BasicTypeEnum::FloatType(t) => t.const_zero().into(),
            inkwell::types::BasicTypeEnum::IntType(t) => t.const_zero().into(),
            inkwell::types::BasicTypeEnum::StructType(t) if dom.is_complex() => {
                t.const_zero().into()
            }
            _ => return Err(CodegenError::Other("unexpected accumulator type".into())),
        };
        cg.b.build_store(ptr, zero)?;
        Ok(Acc { ptr, ty, dom })
    }

    /// `acc += a * b` (both already of the computation type).
    fn add_product(
        &self,
        cg: &Cg<'_, 'ctx>,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<(), CodegenError> {
        let s = cg.b.build_load(self.ty, self.ptr, "")?;
        let r: BasicValueEnum = if self.dom.is_complex() {
            use hlox_codegen::complex::{apply, ComplexOp};
            let p = apply(
                cg,
                ComplexOp::Binary(hlox_hlo::BinaryOp::Multiply),
                self.dom,
                &[a, b],
            )?;
            apply(
                cg,
                ComplexOp::Binary(hlox_hlo::BinaryOp::Add),
                self.dom,
                &[s, p],
            )?
        } else if self.dom.is_float() {
            let p =
                cg.b.build_float_mul(a.into_float_value(), b.into_float_value(), "")?;
            cg.b.build_float_add(s.into_float_value(), p, "")?.into()
        } else {
            let p =
                cg.b.build_int_mul(a.into_int_value(), b.into_int_value(), "")?;
            cg.b.build_int_add(s.into_int_value(), p, "")?.into()
        };
        cg.b.build_store(self.ptr, r)?;
        Ok(())
    }

    /// Store the sum, in the output's type, at `oidx` of `optr`.
    fn store(
        &self,
        cg: &Cg<'_, 'ctx>,
        optr: PointerValue<'ctx>,
        oshape: &ArrayShape,
        oidx: &[IntValue<'ctx>],
    ) -> Result<(), CodegenError> {
        let s = cg.b.build_load(self.ty, self.ptr, "")?;
        let v = if !self.dom.is_float() {
            // (complex: the same type, unchanged)
            scalar::convert(cg, self.dom, oshape.ty, s)?
        } else if self.dom == ElementType::F32 {
            cg.round_to(oshape.ty, s)?
        } else {
            s
        };
        let ep = cg.element_ptr(optr, oshape, oidx)?;
        cg.store_elem(oshape.ty, ep, v)
    }
}

struct ConvGeo<'a, 'ctx> {
    dn: &'a hlox_hlo::ConvDimensionNumbers,
    window: &'a hlox_hlo::Window,
    ls: &'a ArrayShape,
    oidx: &'a [IntValue<'ctx>],
    fg: IntValue<'ctx>,
    in_fg_size: i64,
    lhs: InstId,
    rhs: InstId,
    acc: &'a Acc<'ctx>,
}

fn conv_loops<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    g: &ConvGeo<'_, 'ctx>,
    level: usize,
    li: &mut Vec<IntValue<'ctx>>,
    ri: &mut Vec<IntValue<'ctx>>,
) -> Result<(), CodegenError> {
    let b = cg.b;
    let u = |d: i64| d as usize;
    let dn = g.dn;
    if level < g.window.dims.len() {
        let wd = &g.window.dims[level];
        let isd = u(dn.input_spatial_dimensions[level]);
        let osd = u(dn.output_spatial_dimensions[level]);
        let ksd = u(dn.kernel_spatial_dimensions[level]);
        return for_range(
            cg,
            cg.i64c(0),
            cg.i64c(wd.size),
            &format!("cw{level}"),
            &mut |k| {
                let (i, valid) =
                    window_position(&LlvmArith(cg), wd, g.ls.dims[isd], g.oidx[osd], k)?;
                li[isd] = i;
                ri[ksd] = if wd.reversal {
                    b.build_int_sub(cg.i64c(wd.size - 1), k, "")?
                } else {
                    k
                };
                let f = cg.current_fn()?;
                let body = cg.ctx.append_basic_block(f, "cw.in");
                let join = cg.ctx.append_basic_block(f, "cw.next");
                b.build_conditional_branch(valid, body, join)?;
                b.position_at_end(body);
                conv_loops(cg, ctx, g, level + 1, li, ri)?;
                b.build_unconditional_branch(join)?;
                b.position_at_end(join);
                Ok(())
            },
        );
    }
    for_range(cg, cg.i64c(0), cg.i64c(g.in_fg_size), "cz", &mut |riz| {
        let base = b.build_int_mul(g.fg, cg.i64c(g.in_fg_size), "")?;
        li[u(dn.input_feature_dimension)] = b.build_int_add(base, riz, "")?;
        ri[u(dn.kernel_input_feature_dimension)] = riz;
        let x = ctx.gen(cg, g.lhs, li)?[0];
        let y = ctx.gen(cg, g.rhs, ri)?[0];
        let dom = g.acc.dom;
        let lty = ctx.comp.inst(g.lhs).shape.element_type().unwrap_or(dom);
        let rty = ctx.comp.inst(g.rhs).shape.element_type().unwrap_or(dom);
        let x = scalar::convert(cg, lty, dom, x)?;
        let y = scalar::convert(cg, rty, dom, y)?;
        g.acc.add_product(cg, x, y)
    })
}

type DotBody<'c, 'm, 'ctx> = dyn FnMut(
        &Cg<'_, 'ctx>,
        &mut ElementalCtx<'m, 'ctx>,
        &[IntValue<'ctx>],
        &[IntValue<'ctx>],
    ) -> Result<(), CodegenError>
    + 'c;

#[allow(clippy::too_many_arguments)]
fn dot_loops<'ctx, 'm>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'m, 'ctx>,
    ls: &ArrayShape,
    lc: &[usize],
    rc: &[usize],
    level: usize,
    li: &mut Vec<IntValue<'ctx>>,
    ri: &mut Vec<IntValue<'ctx>>,
    body: &mut DotBody<'_, 'm, 'ctx>,
) -> Result<(), CodegenError> {
    if level == lc.len() {
        return body(cg, ctx, li, ri);
    }
    let n = ls.dims[lc[level]];
    for_range(cg, cg.i64c(0), cg.i64c(n), &format!("k{level}"), &mut |i| {
        li[lc[level]] = i;
        ri[rc[level]] = i;
        dot_loops(cg, ctx, ls, lc, rc, level + 1, li, ri, body)
    })
}

/// An element generator over `comp` whose operands are the kernel's buffers.
fn operand_ctx<'m, 'ctx>(
    module: &'m Module,
    comp: &'m hlox_hlo::Computation,
    operands: &[InstId],
    leaves: Vec<Vec<Leaf<'ctx>>>,
) -> ElementalCtx<'m, 'ctx> {
    let mut ctx = ElementalCtx::new(module, comp);
    for (&o, ls) in operands.iter().zip(leaves) {
        ctx.sources.insert(o, ls);
    }
    ctx
}

/// The kernel's single array result.
fn array_out<'ctx>(
    outs: &[(PointerValue<'ctx>, Option<ArrayShape>)],
    what: &str,
) -> Result<(PointerValue<'ctx>, ArrayShape), CodegenError> {
    outs.first()
        .and_then(|(p, s)| s.clone().map(|s| (*p, s)))
        .ok_or_else(|| CodegenError::Other(format!("{what} without an array result")))
}
