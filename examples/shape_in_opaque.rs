//! The XLA guide's suggestion: serialize a `ShapeProto` into the opaque so
//! the target learns buffer sizes on the host without reading device memory.
//! Here the target decodes it and works for any length.
//!
//! Run: `cargo run --example shape_in_opaque`.

use anyhow::{ensure, Result};
use hlox_ffi::{
    opaque_bytes, register_custom_call_target, XlaCustomCallStatus, XlaCustomCallStatusSetFailure,
};
use hlox_hlo::builder::XlaBuilder;
use hlox_hlo::{CustomCallApiVersion, CustomCallSchedule, ElementType, Literal, Shape};
use std::ffi::{c_char, c_void};

/// `y[i] = x[i] * i` for an f32 vector whose shape arrives as a serialized
/// ShapeProto in the opaque (API_VERSION_STATUS_RETURNING_UNIFIED passes the
/// opaque to Host targets).
fn scale_by_index(
    out: *mut c_void,
    ins: *const *const c_void,
    opaque: *const c_char,
    opaque_len: usize,
    status: *mut XlaCustomCallStatus,
) {
    let fail = |msg: String| unsafe {
        XlaCustomCallStatusSetFailure(status, msg.as_ptr().cast(), msg.len())
    };
    let shape = match hlox_hlo::proto::decode_shape(unsafe { opaque_bytes(opaque, opaque_len) }) {
        Ok(s) => s,
        Err(e) => return fail(format!("scale_by_index: bad ShapeProto in opaque: {e}")),
    };
    let Some(a) = shape
        .as_array()
        .filter(|a| a.ty == ElementType::F32 && a.rank() == 1)
    else {
        return fail(format!(
            "scale_by_index: expected an f32 vector, got {shape}"
        ));
    };
    let n = a.element_count();
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, n);
        let y = std::slice::from_raw_parts_mut(out as *mut f32, n);
        for i in 0..n {
            y[i] = x[i] * i as f32;
        }
    }
}
register_custom_call_target!(scale_by_index, "Host");

fn main() -> Result<()> {
    let registry = std::sync::Arc::new(hlox_ffi::Registry::with_static_targets()?);
    for n in [5i64, 1000] {
        let shape = Shape::array(ElementType::F32, vec![n]);
        let opaque = hlox_hlo::proto::encode_shape(&shape);
        let b = XlaBuilder::new("shape_in_opaque");
        let x = b.parameter(0, &shape, "x")?;
        let y = b.custom_call(
            "scale_by_index",
            &[x],
            &shape,
            &opaque,
            false,
            &[],
            CustomCallSchedule::None,
            CustomCallApiVersion::StatusReturningUnified,
        )?;
        let module = b.build_module(y)?;
        if n == 5 {
            println!("{}", hlox_hlo::text::print_module(&module));
        }
        let xs: Vec<f32> = (0..n).map(|i| 1.0 + i as f32).collect();
        let out = hlox_examples::run(&module, &[Literal::r1(&xs)], &registry)?.to_vec::<f32>()?;
        for i in 0..n as usize {
            ensure!(out[i] == xs[i] * i as f32, "y[{i}] = {} is wrong", out[i]);
        }
        println!(
            "n = {n}: the target decoded {} from the opaque; y[..4] = {:?}",
            shape,
            &out[..4.min(n as usize)]
        );
    }
    println!("OK: the ShapeProto in the opaque told the target its sizes.");
    Ok(())
}
