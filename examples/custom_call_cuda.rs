//! The seed scenario of XLA's custom-call guide on CUDA: the kernel
//! `A[i] = B[i % 128] + C[i]` launched by a GPU custom-call target with
//! XLA's convention `void f(CUstream, void** buffers, const char* opaque,
//! size_t opaque_len, XlaCustomCallStatus*)`, buffers in pre-order
//! (operands, then the result). The target's CUDA C (targets/cuda/kernels.cu)
//! is compiled at run time by NVRTC.
//!
//! Run: `cargo run -p hlox-examples --example custom_call_cuda`. Without a
//! GPU it still compiles the module for CUDA (PTX needs no GPU), then says
//! SKIP clearly instead of running.

use anyhow::{ensure, Result};
use hlox_hlo::builder::XlaBuilder;
use hlox_hlo::{CustomCallApiVersion, CustomCallSchedule, ElementType, Literal, Shape};
use std::sync::Arc;

fn main() -> Result<()> {
    println!("1. Build the graph: a CUDA custom call (status-returning api_version):");
    let b = XlaBuilder::new("do_it_on_gpu");
    let p0 = b.parameter(0, &Shape::array(ElementType::F32, vec![128]), "p0")?;
    let p1 = b.parameter(1, &Shape::array(ElementType::F32, vec![2048]), "p1")?;
    // A little device work around the call, so there is a kernel of ours too.
    let two = b.constant_r0(2.0f32)?;
    let two = b.broadcast(two, &[2048])?;
    let c = b.binary(hlox_hlo::BinaryOp::Multiply, p1, two)?;
    let cc = b.custom_call(
        "do_custom_call",
        &[p0, c],
        &Shape::array(ElementType::F32, vec![2048]),
        b"",
        false,
        &[],
        CustomCallSchedule::None,
        CustomCallApiVersion::StatusReturning,
    )?;
    let module = b.build_module(cc)?;
    println!("\n{}", hlox_hlo::text::print_module(&module));

    // Targets registered for "CUDA" by name (hlox_cuda::targets).
    let registry = Arc::new(hlox::cuda::targets::registry());
    let options = hlox::cuda::CompileOptions {
        registry: Some(registry.clone()),
        ..Default::default()
    };
    println!("2. Compile for CUDA (NVPTX through LLVM; no GPU needed for this step):");
    let compiled = hlox::cuda::compile(&module, &options)?;
    let entries = compiled.ptx.matches(".entry").count();
    println!(
        "   PTX for {}: {} kernel(s), {} bytes",
        options.sm,
        entries,
        compiled.ptx.len()
    );
    ensure!(entries >= 1, "expected a kernel for the multiply");

    println!("3. Run on the GPU:");
    let client = match hlox::Client::cuda(0) {
        Ok(c) => c,
        Err(e) => {
            println!("   SKIP: {e}");
            println!("   (the CUDA run needs an NVIDIA GPU and its driver; see docs/cuda.md)");
            return Ok(());
        }
    };
    let exe = client.compile(
        &module,
        &hlox::CompileOptions {
            registry: Some(registry),
            ..Default::default()
        },
    )?;
    let bvals: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let cvals: Vec<f32> = (0..2048).map(|i| 1000.0 * i as f32).collect();
    let out = exe.execute(&[&Literal::r1(&bvals), &Literal::r1(&cvals)])?;
    let a = out.to_vec::<f32>()?;
    for i in 0..2048 {
        ensure!(
            a[i] == bvals[i % 128] + 2.0 * cvals[i],
            "A[{i}] = {} is wrong",
            a[i]
        );
    }
    println!(
        "   A[0..4] = {:?}\nOK: all 2048 elements equal B[i % 128] + 2 C[i].",
        &a[..4]
    );
    Ok(())
}
