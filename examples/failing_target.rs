//! A status-returning target that reports failure, and the error the caller
//! sees: XLA's `XlaCustomCallStatusSetFailure` with a message. No output of
//! the failed call is used, and the same module runs again afterwards.
//!
//! Run: `cargo run --example failing_target`.

use anyhow::{bail, ensure, Result};
use hlox_ffi::{register_custom_call_target, XlaCustomCallStatus, XlaCustomCallStatusSetFailure};
use hlox_hlo::{Literal, Module};
use std::ffi::c_void;

/// `y = sqrt(x)` for f32[8]; fails on a negative input instead of
/// returning NaN, naming the bad index.
fn checked_sqrt(out: *mut c_void, ins: *const *const c_void, status: *mut XlaCustomCallStatus) {
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, 8);
        let y = std::slice::from_raw_parts_mut(out as *mut f32, 8);
        for i in 0..8 {
            if x[i] < 0.0 {
                let msg = format!("checked_sqrt: x[{i}] = {} is negative", x[i]);
                XlaCustomCallStatusSetFailure(status, msg.as_ptr().cast(), msg.len());
                return;
            }
            y[i] = x[i].sqrt();
        }
    }
}
register_custom_call_target!(checked_sqrt, "Host");

fn main() -> Result<()> {
    let text = r#"HloModule checked

ENTRY main {
  x = f32[8]{0} parameter(0)
  ROOT y = f32[8]{0} custom-call(x), custom_call_target="checked_sqrt", api_version=API_VERSION_STATUS_RETURNING
}
"#;
    let module: Module = hlox_hlo::text::parse_module(text)?;
    hlox_hlo::verifier::verify_module(&module)?;
    println!("{}", hlox_hlo::text::print_module(&module));
    let registry = std::sync::Arc::new(hlox_ffi::Registry::with_static_targets()?);

    let bad = Literal::r1(&[4f32, 9., -1., 16., 0., 1., 2., 3.]);
    println!("Running on an input with a negative element:");
    match hlox_examples::run(&module, &[bad], &registry) {
        Ok(_) => bail!("the call should have failed"),
        Err(e) => {
            println!("  error: {e}");
            let msg = e.to_string();
            ensure!(
                msg.contains(" y ") && msg.contains("checked_sqrt"),
                "error lacks the instruction or target"
            );
            ensure!(
                msg.contains("x[2] = -1 is negative"),
                "error lacks the target's message"
            );
        }
    }

    println!("Running again on a good input:");
    let good = Literal::r1(&[4f32, 9., 1., 16., 0., 1., 2.25, 25.]);
    let y = hlox_examples::run(&module, &[good], &registry)?.to_vec::<f32>()?;
    println!("  y = {y:?}");
    ensure!(
        y == vec![2., 3., 1., 4., 0., 1., 1.5, 5.],
        "wrong result {y:?}"
    );
    println!("OK: the failure reached the caller with its message, and the module ran again.");
    Ok(())
}
