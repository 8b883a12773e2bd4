//! MLX's custom-extension example, `axpby` (z = alpha * x + beta * y), as an
//! XLA custom call: alpha and beta travel in the opaque, packed with
//! `hlox_ffi::encode_opaque` (serde + postcard), and the target
//! (`hlox_targets::axpby`) decodes them.
//!
//! Run: `cargo run --example axpby`.

use anyhow::{ensure, Result};
use hlox_hlo::builder::XlaBuilder;
use hlox_hlo::{CustomCallApiVersion, CustomCallSchedule, ElementType, Literal, Shape};
use hlox_targets::AxpbyOpaque;

fn main() -> Result<()> {
    let _ = hlox_targets::axpby as fn(_, _, _, _, _);
    let registry = std::sync::Arc::new(hlox_ffi::Registry::with_static_targets()?);
    let n = 4096usize;
    let (alpha, beta) = (2.5f32, -0.75f32);
    let opaque = hlox_ffi::encode_opaque(&AxpbyOpaque {
        alpha,
        beta,
        n: n as u64,
    })?;

    let shape = Shape::array(ElementType::F32, vec![n as i64]);
    let b = XlaBuilder::new("axpby");
    let x = b.parameter(0, &shape, "x")?;
    let y = b.parameter(1, &shape, "y")?;
    let z = b.custom_call(
        "axpby",
        &[x, y],
        &shape,
        &opaque,
        false,
        &[],
        CustomCallSchedule::None,
        CustomCallApiVersion::StatusReturningUnified,
    )?;
    // The same math in plain HLO, to check the target against.
    let reference = b.add(
        b.mul(
            x,
            b.broadcast_in_dim(b.constant_r0(alpha)?, &[n as i64], &[])?,
        )?,
        b.mul(
            y,
            b.broadcast_in_dim(b.constant_r0(beta)?, &[n as i64], &[])?,
        )?,
    )?;
    let module = b.build_module(b.tuple(&[z, reference])?)?;
    println!("{}", hlox_hlo::text::print_module(&module));

    let xs: Vec<f32> = (0..n).map(|i| (i as f32 * 0.01).sin()).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i as f32 * 0.02).cos()).collect();
    let out = hlox_examples::run(&module, &[Literal::r1(&xs), Literal::r1(&ys)], &registry)?;
    let leaves = out.leaves();
    let (got, want) = (leaves[0].to_vec::<f32>()?, leaves[1].to_vec::<f32>()?);
    ensure!(got == want, "custom call and HLO reference differ");
    println!("OK: axpby(alpha={alpha}, beta={beta}) over {n} elements equals the HLO reference; z[..3] = {:?}", &got[..3]);
    Ok(())
}
