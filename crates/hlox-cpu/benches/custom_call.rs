//! The cost of one custom call: the seed target `A[i] = B[i % 128] + C[i]`
//! (a plain C function from targets/c, loaded as a plugin) called directly,
//! against the same function called from a compiled module through
//! `Executable::execute_into` (caller's buffers, no copies) and through
//! `Executable::execute` (Literals in, Literal out).
//!
//! Run: `cargo bench -p hlox-cpu --bench custom_call`.

use criterion::{criterion_group, criterion_main, Criterion};
use hlox_cpu::{compile, CompileOptions};
use hlox_ffi::Registry;
use hlox_hlo::Literal;
use std::ffi::c_void;
use std::hint::black_box;
use std::sync::Arc;

const SEED: &str = r#"HloModule seed

ENTRY main {
  b = f32[128]{0} parameter(0)
  c = f32[2048]{0} parameter(1)
  ROOT a = f32[2048]{0} custom-call(b, c), custom_call_target="do_custom_call"
}
"#;

fn bench(cr: &mut Criterion) {
    let registry = Arc::new(Registry::new());
    let lib = registry
        .load_library(hlox_targets::C_PLUGIN_SYMBOLS_ONLY)
        .expect("C plugin");
    let module = hlox_hlo::text::parse_module(SEED).unwrap();
    let exe = compile(
        &module,
        &CompileOptions {
            registry: Some(registry.clone()),
            ..Default::default()
        },
    )
    .unwrap();

    let b: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let c: Vec<f32> = (0..2048).map(|i| i as f32 * 0.5).collect();
    let mut a = vec![0f32; 2048];
    let bytes = |v: &[f32]| {
        unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len() * 4) }.to_vec()
    };
    let (bb, cb) = (bytes(&b), bytes(&c));

    // The same C function, called directly through its address.
    let sym = registry
        .lookup("do_custom_call", hlox_ffi::Platform::Host)
        .expect("target");
    let f: unsafe extern "C" fn(*mut c_void, *const *const c_void) =
        unsafe { std::mem::transmute(sym.func.addr()) };
    let _keep = lib;

    let mut g = cr.benchmark_group("seed_custom_call");
    g.bench_function("direct C call", |bn| {
        bn.iter(|| {
            let ins = [b.as_ptr() as *const c_void, c.as_ptr() as *const c_void];
            unsafe { f(a.as_mut_ptr() as *mut c_void, ins.as_ptr()) };
            black_box(&a);
        })
    });
    let mut out = vec![0u8; 2048 * 4];
    g.bench_function("compiled module, execute_into", |bn| {
        bn.iter(|| {
            exe.execute_into(&[&bb, &cb], &mut [&mut out]).unwrap();
            black_box(&out);
        })
    });
    let (lb, lc) = (Literal::r1(&b), Literal::r1(&c));
    g.bench_function("compiled module, execute (Literals)", |bn| {
        bn.iter(|| black_box(exe.execute(&[&lb, &lc]).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
