//! Compile-time and run-time measurements of the Host backend:
//! `cargo run --release -p hlox-cpu --example bench`.

use hlox_cpu::{compile, CompileOptions};
use hlox_hlo::text::parse_module;
use hlox_hlo::Literal;
use std::time::Instant;

fn time<T>(n: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut r = f();
    let t = Instant::now();
    for _ in 0..n {
        r = f();
    }
    (t.elapsed().as_secs_f64() / n as f64, r)
}

fn main() {
    let n = 16 * 1024 * 1024;
    let chain = format!(
        "HloModule chain\nENTRY e {{\n  a = f32[{n}]{{0}} parameter(0)\n  b = f32[{n}]{{0}} parameter(1)\n  c = f32[{n}]{{0}} multiply(a, b)\n  d = f32[{n}]{{0}} add(c, a)\n  e = f32[{n}]{{0}} maximum(d, b)\n  ROOT f = f32[{n}]{{0}} multiply(e, e)\n}}\n"
    );
    let m = parse_module(&chain).unwrap();
    let a = Literal::r1(
        &(0..n)
            .map(|i| (i % 1000) as f32 * 0.001)
            .collect::<Vec<_>>(),
    );
    let b = Literal::r1(&(0..n).map(|i| (i % 777) as f32 * 0.002).collect::<Vec<_>>());
    for threshold in [usize::MAX, 1 << 16] {
        let exe = compile(
            &m,
            &CompileOptions {
                parallel_threshold: threshold,
                ..Default::default()
            },
        )
        .unwrap();
        let r = exe.report();
        let a_b = a.as_array().unwrap().bytes();
        let b_b = b.as_array().unwrap().bytes();
        let mut out = vec![0u8; n * 4];
        let (t, _) = time(10, || {
            exe.execute_into(&[a_b, b_b], &mut [&mut out]).unwrap()
        });
        println!(
            "16M f32 chain (4 ops, unfused, {}): compile {:.1} ms (irgen {:.1}, opt {:.1}, jit {:.1}); run {:.2} ms ({:.2} GB/s of parameters+result)",
            if threshold == usize::MAX { "1 thread" } else { "parallel" },
            r.total.as_secs_f64() * 1e3,
            r.ir_generation.as_secs_f64() * 1e3,
            r.optimization.as_secs_f64() * 1e3,
            r.jit.as_secs_f64() * 1e3,
            t * 1e3,
            (3 * n * 4) as f64 / t / 1e9
        );
    }
    let fused = format!(
        "HloModule fused\nf {{\n  a = f32[{n}]{{0}} parameter(0)\n  b = f32[{n}]{{0}} parameter(1)\n  c = f32[{n}]{{0}} multiply(a, b)\n  d = f32[{n}]{{0}} add(c, a)\n  e = f32[{n}]{{0}} maximum(d, b)\n  ROOT f = f32[{n}]{{0}} multiply(e, e)\n}}\nENTRY e {{\n  a = f32[{n}]{{0}} parameter(0)\n  b = f32[{n}]{{0}} parameter(1)\n  ROOT r = f32[{n}]{{0}} fusion(a, b), kind=kLoop, calls=f\n}}\n"
    );
    let m = parse_module(&fused).unwrap();
    let exe = compile(&m, &CompileOptions::default()).unwrap();
    let mut out = vec![0u8; n * 4];
    let (t, _) = time(10, || {
        exe.execute_into(
            &[a.as_array().unwrap().bytes(), b.as_array().unwrap().bytes()],
            &mut [&mut out],
        )
        .unwrap()
    });
    println!(
        "16M f32 chain as one loop fusion (parallel): compile {:.1} ms; run {:.2} ms",
        exe.report().total.as_secs_f64() * 1e3,
        t * 1e3
    );
    let dot = "HloModule dot\nENTRY e {\n  a = f32[1024,1024]{1,0} parameter(0)\n  b = f32[1024,1024]{1,0} parameter(1)\n  ROOT d = f32[1024,1024]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
    let m = parse_module(dot).unwrap();
    let exe = compile(&m, &CompileOptions::default()).unwrap();
    let x = Literal::from_vec(
        &[1024, 1024],
        &(0..1 << 20)
            .map(|i| (i % 13) as f32 * 0.1)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let (t, _) = time(5, || exe.execute(&[&x, &x]).unwrap());
    println!(
        "1024x1024 f32 dot: compile {:.1} ms; run {:.2} ms ({:.1} GFLOP/s)",
        exe.report().total.as_secs_f64() * 1e3,
        t * 1e3,
        2.0 * 1024f64.powi(3) / t / 1e9
    );
}
