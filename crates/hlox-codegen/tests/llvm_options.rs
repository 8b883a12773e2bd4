//! `hlox_codegen::init_llvm_options`: O3 does not fully unroll a vector
//! loop of 32 constant iterations (a strided copy of 512 floats, gathers on
//! AVX-512), and still fully unrolls a loop of 8; the Host's own pipeline
//! (`hlox_codegen::HOST_PASSES`) vectorizes a reduction loop tested at its
//! top, as the emitter writes them.
//!
//! The code is made for one fixed CPU (`skylake-avx512`), not the host's:
//! whether LLVM vectorizes the strided copy with gathers depends on the
//! CPU (on an AVX2 AMD EPYC it loads the lanes one by one), and the test
//! must say the same on every machine.

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::values::AnyValue;
use inkwell::OptimizationLevel;

/// `void f(i64* a)`: `for i in 1..=n { a[i] = a[i-1] * 3 + i }` (a
/// loop-carried dependence, so it does not vectorize), optimized at O3;
/// returns the optimized function's text.
fn optimized_loop(n: u64) -> String {
    optimized(n, false)
}

/// `void f(float* a, float* b)`: `for i in 0..n { a[i] = b[16 * i] }`
/// (a strided copy, vectorized with gathers as the LU solve's permutation
/// copies), optimized at O3.
fn optimized_gather(n: u64) -> String {
    optimized(n, true)
}

/// An x86-64 Linux target machine for `cpu`.
fn x86_machine(cpu: &str) -> TargetMachine {
    Target::initialize_x86(&InitializationConfig::default());
    let triple = TargetTriple::create("x86_64-unknown-linux-gnu");
    Target::from_triple(&triple)
        .unwrap()
        .create_target_machine(
            &triple,
            cpu,
            "",
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .unwrap()
}

/// An empty module for `tm`, as the Host backend's: the machine's triple
/// and data layout.
fn module_for<'c>(ctx: &'c Context, tm: &TargetMachine, name: &str) -> Module<'c> {
    let m = ctx.create_module(name);
    m.set_triple(&tm.get_triple());
    m.set_data_layout(&tm.get_target_data().get_data_layout());
    m
}

/// Verifies `m`, runs `passes` on it for `tm`, and prints its function `f`.
fn run_and_print(m: &Module, tm: &TargetMachine, passes: &str) -> String {
    m.verify().unwrap();
    m.run_passes(passes, tm, inkwell::passes::PassBuilderOptions::create())
        .unwrap();
    m.get_function("f").unwrap().print_to_string().to_string()
}

fn optimized(n: u64, strided: bool) -> String {
    let tm = x86_machine("skylake-avx512");
    let ctx = Context::create();
    let m = module_for(&ctx, &tm, "unroll");
    let b = ctx.create_builder();
    let i64t = ctx.i64_type();
    let ptr = ctx.ptr_type(inkwell::AddressSpace::default());
    let f = m.add_function(
        "f",
        ctx.void_type().fn_type(&[ptr.into(), ptr.into()], false),
        None,
    );
    let a = f.get_nth_param(0).unwrap().into_pointer_value();
    let src = f.get_nth_param(1).unwrap().into_pointer_value();
    let entry = ctx.append_basic_block(f, "entry");
    let body = ctx.append_basic_block(f, "body");
    let exit = ctx.append_basic_block(f, "exit");
    b.position_at_end(entry);
    b.build_unconditional_branch(body).unwrap();
    b.position_at_end(body);
    let i = b.build_phi(i64t, "i").unwrap();
    i.add_incoming(&[(&i64t.const_int(1, false), entry)]);
    let iv = i.as_basic_value().into_int_value();
    if strided {
        let f32t = ctx.f32_type();
        let k = b.build_int_mul(iv, i64t.const_int(16, false), "").unwrap();
        let sp = unsafe { b.build_in_bounds_gep(f32t, src, &[k], "") }.unwrap();
        let x = b.build_load(f32t, sp, "").unwrap();
        let p = unsafe { b.build_in_bounds_gep(f32t, a, &[iv], "") }.unwrap();
        b.build_store(p, x).unwrap();
    } else {
        let prev_i = b.build_int_sub(iv, i64t.const_int(1, false), "").unwrap();
        let prev_p = unsafe { b.build_in_bounds_gep(i64t, a, &[prev_i], "") }.unwrap();
        let prev = b.build_load(i64t, prev_p, "").unwrap().into_int_value();
        let x = b.build_int_mul(prev, i64t.const_int(3, false), "").unwrap();
        let x = b.build_int_add(x, iv, "").unwrap();
        let p = unsafe { b.build_in_bounds_gep(i64t, a, &[iv], "") }.unwrap();
        b.build_store(p, x).unwrap();
    }
    let next = b.build_int_add(iv, i64t.const_int(1, false), "").unwrap();
    i.add_incoming(&[(&next, body)]);
    let done = b
        .build_int_compare(
            inkwell::IntPredicate::UGT,
            next,
            i64t.const_int(n, false),
            "",
        )
        .unwrap();
    b.build_conditional_branch(done, exit, body).unwrap();
    b.position_at_end(exit);
    b.build_return(None).unwrap();
    run_and_print(&m, &tm, "default<O3>")
}

#[test]
fn wide_constant_loops_are_not_fully_unrolled() {
    hlox_codegen::init_llvm_options();
    hlox_codegen::init_llvm_options(); // a second call does nothing
                                       // 512 elements at 16 lanes: a vector loop of 32 iterations, which O3
                                       // unrolls fully without the cap (32 gathers) and partially with it.
    let wide = optimized_gather(512);
    let gathers = wide.matches("@llvm.masked.gather").count();
    assert!(
        (1..32).contains(&gathers),
        "{gathers} gathers: the loop was fully unrolled (or not vectorized):\n{wide}"
    );
    let narrow = optimized_loop(8);
    assert!(
        !narrow.contains("phi"),
        "a loop of 8 iterations was not fully unrolled:\n{narrow}"
    );
    assert_eq!(narrow.matches("store i64").count(), 8, "{narrow}");
}

/// `float f(float* a)`: a sum of `n` floats as the Host's emitter writes
/// a loop, tested at the top (`header: i < n ? body : exit`), with the
/// `reassoc` additions of a reduction, optimized by
/// `hlox_codegen::host_passes(3)` for an AVX2 CPU; returns its text.
fn host_pipeline_sum(n: u64) -> String {
    hlox_codegen::init_llvm_options();
    let tm = x86_machine("znver2");
    let ctx = Context::create();
    let m = module_for(&ctx, &tm, "sum");
    let b = ctx.create_builder();
    let (i64t, f32t) = (ctx.i64_type(), ctx.f32_type());
    let ptr = ctx.ptr_type(inkwell::AddressSpace::default());
    let f = m.add_function("f", f32t.fn_type(&[ptr.into()], false), None);
    let a = f.get_nth_param(0).unwrap().into_pointer_value();
    let entry = ctx.append_basic_block(f, "entry");
    let header = ctx.append_basic_block(f, "header");
    let body = ctx.append_basic_block(f, "body");
    let exit = ctx.append_basic_block(f, "exit");
    b.position_at_end(entry);
    let acc_slot = b.build_alloca(f32t, "acc").unwrap();
    let i_slot = b.build_alloca(i64t, "i").unwrap();
    b.build_store(acc_slot, f32t.const_zero()).unwrap();
    b.build_store(i_slot, i64t.const_zero()).unwrap();
    b.build_unconditional_branch(header).unwrap();
    b.position_at_end(header);
    let i = b.build_load(i64t, i_slot, "").unwrap().into_int_value();
    let more = b
        .build_int_compare(inkwell::IntPredicate::ULT, i, i64t.const_int(n, false), "")
        .unwrap();
    b.build_conditional_branch(more, body, exit).unwrap();
    b.position_at_end(body);
    let p = unsafe { b.build_in_bounds_gep(f32t, a, &[i], "") }.unwrap();
    let x = b.build_load(f32t, p, "").unwrap().into_float_value();
    let acc = b.build_load(f32t, acc_slot, "").unwrap().into_float_value();
    let sum = b.build_float_add(acc, x, "").unwrap();
    sum.as_instruction()
        .unwrap()
        .set_fast_math_flags(inkwell::values::FastMathFlags::AllowReassoc)
        .unwrap();
    b.build_store(acc_slot, sum).unwrap();
    let next = b.build_int_add(i, i64t.const_int(1, false), "").unwrap();
    b.build_store(i_slot, next).unwrap();
    b.build_unconditional_branch(header).unwrap();
    b.position_at_end(exit);
    let total = b.build_load(f32t, acc_slot, "").unwrap();
    b.build_return(Some(&total)).unwrap();
    run_and_print(&m, &tm, &hlox_codegen::host_passes(3))
}

#[test]
fn the_host_pipeline_vectorizes_a_top_tested_reduction() {
    // Without `loop-rotate` in the pipeline the vectorizer sees a loop
    // exiting at its top and leaves it scalar (`sum_16M` ran 4x slower).
    let text = host_pipeline_sum(4096);
    assert!(
        text.contains("<8 x float>"),
        "the sum was not vectorized at 8 lanes:\n{text}"
    );
    assert!(!text.contains("alloca"), "not in SSA form:\n{text}");
}
