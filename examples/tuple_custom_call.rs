//! Tuples in custom calls, as drawn in XLA's custom-call guide: operand 0 is
//! `(f32[32], (f32[64], f32[128]), f32[256])`, the result is
//! `(f32[512], f32[1024])`, and result element 1 is never read: it is the
//! target's scratch memory.
//!
//! Run: `cargo run -p hlox-examples --example tuple_custom_call`.

use anyhow::{ensure, Result};
use hlox_ffi::{register_custom_call_target, XlaCustomCallStatus};
use hlox_hlo::builder::XlaBuilder;
use hlox_hlo::{CustomCallApiVersion, CustomCallSchedule, ElementType, Literal, Shape};
use std::ffi::c_void;

/// `out.0[i] = scratch[i] + scratch[i + 512]` where
/// `scratch[j] = sub0[j % 32] + sub1[j % 64] + sub2[j % 128] + sub3[j % 256]`.
///
/// In memory (both on CPU and GPU, per the guide):
/// ```text
/// in[0] ──> [ subbuf0 , subtuple ──> [ subbuf1 , subbuf2 ] , subbuf3 ]
/// out   ──> [ out_subbuf0 (f32[512]) , out_subbuf1 (f32[1024], scratch) ]
/// ```
fn tuple_target(out: *mut c_void, ins: *const *const c_void, _status: *mut XlaCustomCallStatus) {
    unsafe {
        let p0 = *ins as *const *const c_void;
        let sub0 = std::slice::from_raw_parts(*p0 as *const f32, 32);
        let subtuple = *p0.add(1) as *const *const c_void;
        let sub1 = std::slice::from_raw_parts(*subtuple as *const f32, 64);
        let sub2 = std::slice::from_raw_parts(*subtuple.add(1) as *const f32, 128);
        let sub3 = std::slice::from_raw_parts(*p0.add(2) as *const f32, 256);
        let outs = out as *const *mut c_void;
        let result = std::slice::from_raw_parts_mut(*outs as *mut f32, 512);
        let scratch = std::slice::from_raw_parts_mut(*outs.add(1) as *mut f32, 1024);
        for (j, s) in scratch.iter_mut().enumerate() {
            *s = sub0[j % 32] + sub1[j % 64] + sub2[j % 128] + sub3[j % 256];
        }
        for i in 0..512 {
            result[i] = scratch[i] + scratch[i + 512];
        }
    }
}
register_custom_call_target!(tuple_target, "Host");

fn main() -> Result<()> {
    let f32s = |n: i64| Shape::array(ElementType::F32, vec![n]);
    let p0_shape = Shape::tuple(vec![
        f32s(32),
        Shape::tuple(vec![f32s(64), f32s(128)]),
        f32s(256),
    ]);
    let out_shape = Shape::tuple(vec![f32s(512), f32s(1024)]);

    let b = XlaBuilder::new("tuples");
    let p0 = b.parameter(0, &p0_shape, "p0")?;
    let cc = b.custom_call(
        "tuple_target",
        &[p0],
        &out_shape,
        b"",
        false,
        &[],
        CustomCallSchedule::None,
        CustomCallApiVersion::StatusReturning,
    )?;
    // Only element 0 is used; element 1 is scratch.
    let result = b.get_tuple_element(cc, 0)?;
    let module = b.build_module(result)?;
    println!("{}", hlox_hlo::text::print_module(&module));

    let lit = |n: usize, k: f32| Literal::r1(&(0..n).map(|i| k * i as f32).collect::<Vec<_>>());
    let arg = Literal::tuple(vec![
        lit(32, 1.0),
        Literal::tuple(vec![lit(64, 10.0), lit(128, 100.0)]),
        lit(256, 1000.0),
    ]);
    let registry = std::sync::Arc::new(hlox_ffi::Registry::with_static_targets()?);
    let out =
        hlox_examples::run(&module, std::slice::from_ref(&arg), &registry)?.to_vec::<f32>()?;

    let s = |j: usize| {
        (j % 32) as f32
            + 10.0 * (j % 64) as f32
            + 100.0 * (j % 128) as f32
            + 1000.0 * (j % 256) as f32
    };
    for (i, &o) in out.iter().enumerate().take(512) {
        ensure!(o == s(i) + s(i + 512), "result[{i}] = {o} is wrong");
    }
    println!(
        "OK: result[0..4] = {:?}, computed through a tuple operand and a scratch result.",
        &out[..4]
    );
    Ok(())
}
