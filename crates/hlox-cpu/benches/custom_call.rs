//! The cost of one custom call: the seed target `A[i] = B[i % 128] + C[i]`
//! (a plain C function from targets/c, loaded as a plugin) called directly,
//! against the same function called from a compiled module through
//! `Executable::execute_into` (caller's buffers, no copies) and through
//! `Executable::execute` (Literals in, Literal out).
//!
//! The second group isolates the per-call cost: a module of `CHAIN`
//! custom calls of a one-element C function, chained so none can be
//! dropped, against the same function called `CHAIN` times directly
//! through its address, for each `api_version` and for typed FFI. The
//! module's own fixed cost (argument checks, arena, FTZ/DAZ) is taken out
//! by also timing a module of one call: per call = (t(CHAIN) - t(1)) /
//! (CHAIN - 1).
//!
//! Run: `cargo bench -p hlox-cpu --bench custom_call`.

use criterion::{criterion_group, criterion_main, Criterion};
use hlox_cpu::{compile, CompileOptions};
use hlox_ffi::Registry;
use hlox_hlo::Literal;
use std::ffi::c_void;
use std::hint::black_box;
use std::sync::Arc;

fn bench(cr: &mut Criterion) {
    let registry = Arc::new(Registry::new());
    let lib = registry
        .load_library(hlox_targets::C_PLUGIN_SYMBOLS_ONLY)
        .expect("C plugin");
    let module =
        hlox_hlo::text::parse_module(&hlox_targets::seed_module("do_custom_call")).unwrap();
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

/// Calls per module in the per-call group.
const CHAIN: usize = 64;

/// `out[0] = in[0][0] + 1` as each legacy api_version's C signature.
unsafe extern "C" fn add1_original(out: *mut c_void, ins: *const *const c_void) {
    unsafe { *(out as *mut f32) = *(*ins as *const f32) + 1.0 };
}
unsafe extern "C" fn add1_status(
    out: *mut c_void,
    ins: *const *const c_void,
    _status: *mut c_void,
) {
    unsafe { *(out as *mut f32) = *(*ins as *const f32) + 1.0 };
}
unsafe extern "C" fn add1_unified(
    out: *mut c_void,
    ins: *const *const c_void,
    _opaque: *const u8,
    _len: usize,
    _status: *mut c_void,
) {
    unsafe { *(out as *mut f32) = *(*ins as *const f32) + 1.0 };
}
/// The typed-FFI handler's computation.
fn add1_body(o: &mut f32, i: &f32) {
    *o = *i + 1.0;
}
/// The same as a typed-FFI handler.
fn add1_ffi(f: &mut hlox_ffi::xla_ffi::Frame) -> Result<(), hlox_ffi::xla_ffi::FfiError> {
    let x = f.arg(0)?.slice::<f32>()?[0];
    add1_body(&mut f.ret(0)?.slice_mut::<f32>()?[0], &x);
    Ok(())
}

/// A module of `n` chained calls of `target` with `api_version`.
fn chain(n: usize, target: &str, api_version: &str) -> String {
    let mut t = String::from("HloModule chain\n\nENTRY main {\n  c0 = f32[1]{0} parameter(0)\n");
    for i in 1..=n {
        let root = if i == n { "ROOT " } else { "" };
        t += &format!(
            "  {root}c{i} = f32[1]{{0}} custom-call(c{}), custom_call_target=\"{target}\", api_version={api_version}\n",
            i - 1
        );
    }
    t + "}\n"
}

fn per_call(cr: &mut Criterion) {
    let registry = Arc::new(Registry::new());
    let host = hlox_ffi::Platform::Host;
    use hlox_hlo::CustomCallApiVersion as V;
    let legacy: [(&str, V, *const c_void); 3] = [
        ("add1_original", V::Original, add1_original as *const c_void),
        (
            "add1_status",
            V::StatusReturning,
            add1_status as *const c_void,
        ),
        (
            "add1_unified",
            V::StatusReturningUnified,
            add1_unified as *const c_void,
        ),
    ];
    for &(name, v, f) in &legacy {
        // SAFETY: each function has the C signature of its api_version.
        unsafe { registry.register_c(name, host, v, f) }.unwrap();
    }
    registry.register_fn("add1_ffi", host, add1_ffi).unwrap();
    let compile = |n: usize, target: &str, v: &str| {
        let m = hlox_hlo::text::parse_module(&chain(n, target, v)).unwrap();
        let options = CompileOptions {
            registry: Some(registry.clone()),
            ..Default::default()
        };
        compile(&m, &options).unwrap()
    };
    let x = 1f32.to_le_bytes().to_vec();
    let mut out = vec![0u8; 4];
    let mut g = cr.benchmark_group("custom_call_per_call");
    /// `CHAIN` direct calls through `call` (each through a function
    /// pointer the compiler cannot see through).
    fn direct<M: criterion::measurement::Measurement>(
        g: &mut criterion::BenchmarkGroup<M>,
        v: &str,
        call: impl Fn(&mut f32, &f32),
    ) {
        g.bench_function(format!("{v}: direct call x{CHAIN}"), |bn| {
            bn.iter(|| {
                let mut a = black_box(1f32);
                for _ in 0..CHAIN {
                    let mut o = 0f32;
                    call(&mut o, &a);
                    a = o;
                }
                black_box(a)
            })
        });
    }
    let ptr = |i: &f32| [i as *const f32 as *const c_void];
    let out_ptr = |o: &mut f32| o as *mut f32 as *mut c_void;
    direct(&mut g, "API_VERSION_ORIGINAL", |o, i| {
        let f = black_box(add1_original as unsafe extern "C" fn(_, _));
        unsafe { f(out_ptr(o), ptr(i).as_ptr()) }
    });
    direct(&mut g, "API_VERSION_STATUS_RETURNING", |o, i| {
        let f = black_box(add1_status as unsafe extern "C" fn(_, _, _));
        unsafe { f(out_ptr(o), ptr(i).as_ptr(), std::ptr::null_mut()) }
    });
    direct(&mut g, "API_VERSION_STATUS_RETURNING_UNIFIED", |o, i| {
        let f = black_box(add1_unified as unsafe extern "C" fn(_, _, _, _, _));
        unsafe {
            f(
                out_ptr(o),
                ptr(i).as_ptr(),
                std::ptr::null(),
                0usize,
                std::ptr::null_mut(),
            )
        }
    });
    // The typed-FFI handler's body, called directly (no call frame).
    direct(&mut g, "API_VERSION_TYPED_FFI", |o, i| {
        let f = black_box(add1_body as fn(&mut f32, &f32));
        f(o, i)
    });
    // The same C function for typed FFI: the handler (the `XLA_FFI_Handler`
    // the registry holds, the Rust handler's trampoline), called directly
    // on a call frame built once, only its two data pointers set per call
    // (what a caller that knows the call at compile time does).
    let handler = match registry.lookup("add1_ffi", host).map(|t| t.func) {
        Some(hlox_ffi::TargetFn::Ffi(h)) => h.execute,
        _ => panic!("add1_ffi is a typed-FFI handler"),
    };
    direct_frame_calls(&mut g, handler);
    let modules = [
        ("add1_original", "API_VERSION_ORIGINAL"),
        ("add1_status", "API_VERSION_STATUS_RETURNING"),
        ("add1_unified", "API_VERSION_STATUS_RETURNING_UNIFIED"),
        ("add1_ffi", "API_VERSION_TYPED_FFI"),
    ];
    for (target, v) in modules {
        for n in [1, CHAIN] {
            let exe = compile(n, target, v);
            exe.execute_into(&[&x], &mut [&mut out]).unwrap();
            assert_eq!(
                f32::from_le_bytes(out[..4].try_into().unwrap()),
                1.0 + n as f32
            );
            g.bench_function(format!("{v}: module of {n} calls"), |bn| {
                bn.iter(|| {
                    exe.execute_into(&[&x], &mut [&mut out]).unwrap();
                    black_box(&out);
                })
            });
        }
    }
    g.finish();
}

/// `CHAIN` calls of the typed-FFI `handler` on one `f32[1] -> f32[1]` call
/// frame built once (no attributes, no context: the handler reads neither).
fn direct_frame_calls<M: criterion::measurement::Measurement>(
    g: &mut criterion::BenchmarkGroup<M>,
    handler: hlox_ffi::xla_ffi::abi::Handler,
) {
    use hlox_ffi::xla_ffi::abi;
    let null = std::ptr::null_mut();
    let mut dims = [1i64];
    let dims = dims.as_mut_ptr();
    let buffer = || abi::Buffer {
        struct_size: abi::BUFFER_STRUCT_SIZE,
        extension_start: null as _,
        dtype: abi::dtype::F32,
        data: null,
        rank: 1,
        dims,
    };
    let (mut arg, mut ret) = (buffer(), buffer());
    let mut types = [abi::ARG_BUFFER];
    let mut arg_p = [&mut arg as *mut abi::Buffer as *mut c_void];
    let mut ret_p = [&mut ret as *mut abi::Buffer as *mut c_void];
    let list = |p: *mut *mut c_void, types: *mut i32| abi::Args {
        struct_size: abi::ARGS_STRUCT_SIZE,
        extension_start: null as _,
        size: 1,
        types,
        args: p,
    };
    let mut frame = abi::CallFrame {
        struct_size: abi::CALL_FRAME_STRUCT_SIZE,
        extension_start: null as _,
        api: hlox_ffi::xla_ffi::api(),
        ctx: null as _,
        stage: abi::stage::EXECUTE,
        args: list(arg_p.as_mut_ptr(), types.as_mut_ptr()),
        rets: list(ret_p.as_mut_ptr(), types.as_mut_ptr()),
        attrs: abi::Attrs {
            struct_size: abi::ATTRS_STRUCT_SIZE,
            extension_start: null as _,
            size: 0,
            types: null as _,
            names: null as _,
            attrs: null as _,
        },
        future: null as _,
    };
    g.bench_function(
        format!("API_VERSION_TYPED_FFI: handler on a prepared frame x{CHAIN}"),
        |bn| {
            bn.iter(|| {
                let mut a = black_box(1f32);
                for _ in 0..CHAIN {
                    let mut o = 0f32;
                    // SAFETY: the frame's buffers point at `a` and `o`,
                    // live for the call.
                    unsafe {
                        (*(arg_p[0] as *mut abi::Buffer)).data = &mut a as *mut f32 as *mut c_void;
                        (*(ret_p[0] as *mut abi::Buffer)).data = &mut o as *mut f32 as *mut c_void;
                        let e = black_box(handler)(&mut frame);
                        assert!(e.is_null());
                    }
                    a = o;
                }
                black_box(a)
            })
        },
    );
}

criterion_group!(benches, bench, per_call);
criterion_main!(benches);
