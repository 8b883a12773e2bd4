//! (A module of the `failures` test binary.)
//!
//! Load: one compiled executable with custom calls, run by 8 threads 1000
//! times each on their own inputs, gives the same result every time (the
//! evaluator's, computed once per thread up front).

// Targets follow XLA's C convention (raw pointers in, by design).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use hlox_ffi::{Platform, Registry, XlaCustomCallStatus};
use hlox_hlo::text::parse_module;
use hlox_hlo::Literal;
use std::ffi::c_void;
use std::sync::Arc;

/// `out[i] = 2 * x[i] + i` over f32[16]; fails when `x[0]` is NaN.
fn affine16(out: *mut c_void, ins: *const *const c_void, status: *mut XlaCustomCallStatus) {
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, 16);
        if x[0].is_nan() {
            let msg = "affine16: NaN input";
            hlox_ffi::XlaCustomCallStatusSetFailure(status, msg.as_ptr() as *const _, msg.len());
            return;
        }
        let o = std::slice::from_raw_parts_mut(out as *mut f32, 16);
        for i in 0..16 {
            o[i] = 2.0 * x[i] + i as f32;
        }
    }
}

/// Two custom calls (one inside a while loop run 4 times), a reduce and a
/// tuple result.
const MODULE: &str = r#"HloModule load

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  s = (s32[], f32[16]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[16]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[16]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[16]{0} custom-call(v), custom_call_target="affine16", api_version=API_VERSION_STATUS_RETURNING
  half = f32[] constant(0.25)
  halves = f32[16]{0} broadcast(half), dimensions={}
  m = f32[16]{0} multiply(w, halves)
  ROOT t = (s32[], f32[16]{0}) tuple(j, m)
}

ENTRY main {
  x = f32[16]{0} parameter(0)
  c = f32[16]{0} custom-call(x), custom_call_target="affine16", api_version=API_VERSION_STATUS_RETURNING
  zero = s32[] constant(0)
  init = (s32[], f32[16]{0}) tuple(zero, c)
  w = (s32[], f32[16]{0}) while(init), condition=cond, body=body
  v = f32[16]{0} get-tuple-element(w), index=1
  z = f32[] constant(0)
  sum = f32[] reduce(v, z), dimensions={0}, to_apply=add
  ROOT r = (f32[16]{0}, f32[]) tuple(v, sum)
}
"#;

#[test]
fn eight_threads_run_one_executable_a_thousand_times_each() {
    let m = parse_module(MODULE).unwrap();
    let reg = Registry::new();
    reg.register_fn("affine16", Platform::Host, affine16)
        .unwrap();
    let reg = Arc::new(reg);
    let exe = hlox_cpu::compile(
        &m,
        &hlox_cpu::CompileOptions {
            registry: Some(reg.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    let inputs: Vec<Literal> = (0..8)
        .map(|t| {
            Literal::r1(
                &(0..16)
                    .map(|i| (t * 16 + i) as f32 * 0.5)
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let expected: Vec<Literal> = inputs
        .iter()
        .map(|x| hlox_eval::evaluate_with_registry(&m, std::slice::from_ref(x), &reg).unwrap())
        .collect();
    // The compiled result agrees with the evaluator before the load starts.
    for (x, want) in inputs.iter().zip(&expected) {
        assert_eq!(&exe.execute(&[x]).unwrap(), want);
    }
    std::thread::scope(|s| {
        for (t, (x, want)) in inputs.iter().zip(&expected).enumerate() {
            let exe = &exe;
            s.spawn(move || {
                let nan = Literal::r1(&[f32::NAN; 16]);
                for k in 0..1000 {
                    // Now and then a failing run in between: it must not
                    // disturb this thread's or the others' results.
                    if k % 97 == 0 {
                        let e = exe.execute(&[&nan]).unwrap_err().to_string();
                        assert!(e.contains("affine16: NaN input"), "{e}");
                    }
                    let got = exe.execute(&[x]).unwrap();
                    assert_eq!(&got, want, "thread {t}, run {k}");
                }
            });
        }
    });
}
