//! The seed scenario of XLA's custom-call guide, on the Host:
//! `A[i] = B[i % 128] + C[i]` computed by a custom-call target registered
//! by name, called from an HLO program built with the builder.
//!
//! Run: `cargo run -p hlox-examples --example custom_call_cpu` (or `make demo`).

use anyhow::{ensure, Result};
use hlox_hlo::builder::XlaBuilder;
use hlox_hlo::{CustomCallApiVersion, CustomCallSchedule, ElementType, Literal, Shape};

fn main() -> Result<()> {
    // The target: `hlox_targets::do_custom_call`, XLA's example verbatim:
    //   void do_custom_call(void* out, const void** in) {
    //     for (int i = 0; i < 2048; ++i) out[i] = in0[i % 128] + in1[i];
    //   }
    // registered with `register_custom_call_target!(do_custom_call, "Host")`.
    let registry = std::sync::Arc::new(hlox_ffi::Registry::with_static_targets()?);
    let _ = hlox_targets::do_custom_call as fn(_, _);

    println!("1. Build the graph (XlaBuilder), as in the XLA guide:");
    let b = XlaBuilder::new("do_it");
    let p0 = b.parameter(0, &Shape::array(ElementType::F32, vec![128]), "p0")?;
    let p1 = b.parameter(1, &Shape::array(ElementType::F32, vec![2048]), "p1")?;
    let custom_call = b.custom_call(
        "do_custom_call",
        &[p0, p1],
        &Shape::array(ElementType::F32, vec![2048]),
        b"",
        false,
        &[],
        CustomCallSchedule::None,
        CustomCallApiVersion::Original,
    )?;
    let module = b.build_module(custom_call)?;

    println!("\n2. Its HLO text:\n");
    let text = hlox_hlo::text::print_module(&module);
    println!("{text}");
    ensure!(
        hlox_hlo::text::parse_module(&text)? == module,
        "HLO text does not round-trip"
    );

    println!("3. Compile for the Host (LLVM), binding custom-call targets by name, and run:");
    let bvals: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let cvals: Vec<f32> = (0..2048).map(|i| 1000.0 * i as f32).collect();
    let result = hlox_examples::run(
        &module,
        &[Literal::r1(&bvals), Literal::r1(&cvals)],
        &registry,
    )?;
    let a = result.to_vec::<f32>()?;
    println!("   A[0..4]      = {:?}", &a[..4]);
    println!("   A[128..132]  = {:?}", &a[128..132]);
    println!("   A[2047]      = {}", a[2047]);

    for i in 0..2048 {
        ensure!(
            a[i] == bvals[i % 128] + cvals[i],
            "A[{i}] = {} is wrong",
            a[i]
        );
    }
    println!("\nOK: all 2048 elements equal B[i % 128] + C[i].");
    Ok(())
}
