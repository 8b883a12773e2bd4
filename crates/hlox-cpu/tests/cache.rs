//! The Host backend's compilation cache (`hlox_cpu::cache`): entries are
//! written, hit from memory and from disk with the same outputs, corrupted
//! entries are ignored, other options miss, and custom calls (every legacy
//! `api_version`, typed FFI with state) run from cached code. The CLI test
//! `compilation_cache_across_processes` (crates/hlox-cli/tests/cli.rs)
//! covers fresh processes and concurrent writers.

use hlox_cpu::cache::{forget_process_entries, Hit};
use hlox_cpu::{compile, CompileOptions, Executable};
use hlox_ffi::Registry;
use hlox_hlo::text::parse_module;
use hlox_hlo::{Literal, Module};
use hlox_tests::custom_call_suite::seed_module;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Held by every test that forgets this process's entries or expects a
/// hit from memory: forgetting is process-wide.
static FORGETTING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    FORGETTING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fresh cache directory for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hlox-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "hloxc"));
    v.sort();
    v
}

fn cached(dir: &Path) -> CompileOptions {
    CompileOptions {
        cache_dir: Some(dir.to_path_buf()),
        ..Default::default()
    }
}

/// Softmax rows (row fusion, reductions), a dot (a runtime kernel), a
/// while loop, a sort whose comparator is compiled code the sort kernel
/// calls, and erf (a runtime helper).
const PROGRAM: &str = r#"HloModule cached

max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}

cond {
  p = (s32[], f32[8,16]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[8,16]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[8,16]{1,0} get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  half = f32[] constant(0.5)
  h = f32[8,16]{1,0} broadcast(half), dimensions={}
  y = f32[8,16]{1,0} multiply(x, h)
  e = f32[8,16]{1,0} exponential(y)
  ROOT t = (s32[], f32[8,16]{1,0}) tuple(j, e)
}

ENTRY main {
  x = f32[8,16]{1,0} parameter(0)
  w = f32[16,16]{1,0} parameter(1)
  d = f32[8,16]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ninf = f32[] constant(-inf)
  m = f32[8]{0} reduce(d, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[8,16]{1,0} broadcast(m), dimensions={0}
  s = f32[8,16]{1,0} subtract(d, mb)
  ex = f32[8,16]{1,0} exponential(s)
  zero = f32[] constant(0)
  sum = f32[8]{0} reduce(ex, zero), dimensions={1}, to_apply=add_f32
  sb = f32[8,16]{1,0} broadcast(sum), dimensions={0}
  sm = f32[8,16]{1,0} divide(ex, sb)
  i0 = s32[] constant(0)
  init = (s32[], f32[8,16]{1,0}) tuple(i0, sm)
  loop = (s32[], f32[8,16]{1,0}) while(init), condition=cond, body=body
  r = f32[8,16]{1,0} get-tuple-element(loop), index=1
  sorted = f32[8,16]{1,0} sort(r), dimensions={1}, to_apply=less
  e = f32[8,16]{1,0} erf(sorted)
  ROOT out = (f32[8,16]{1,0}, f32[8]{0}) tuple(e, sum)
}
"#;

fn program() -> Module {
    parse_module(PROGRAM).unwrap()
}

fn program_args() -> Vec<Literal> {
    let x: Vec<f32> = (0..128)
        .map(|i| ((i * 37) % 23) as f32 * 0.1 - 1.0)
        .collect();
    let w: Vec<f32> = (0..256)
        .map(|i| ((i * 11) % 17) as f32 * 0.05 - 0.4)
        .collect();
    vec![
        Literal::from_vec(&[8, 16], &x).unwrap(),
        Literal::from_vec(&[16, 16], &w).unwrap(),
    ]
}

fn run(exe: &Executable, args: &[Literal]) -> Literal {
    exe.execute(&args.iter().collect::<Vec<_>>()).unwrap()
}

#[test]
fn a_compile_writes_an_entry_that_later_compiles_hit_with_the_same_outputs() {
    let _serial = serial();
    let dir = fresh_dir("hit");
    let (m, args) = (program(), program_args());
    let want = run(&compile(&m, &CompileOptions::default()).unwrap(), &args);

    let miss = compile(&m, &cached(&dir)).unwrap();
    assert_eq!(miss.report().cache_hit, None);
    assert_eq!(entries(&dir).len(), 1, "one entry written");
    assert_eq!(run(&miss, &args), want, "compiled for the cache");

    let mem = compile(&m, &cached(&dir)).unwrap();
    assert_eq!(mem.report().cache_hit, Some(Hit::Memory));
    assert_eq!(run(&mem, &args), want, "hit in this process");
    assert_eq!(mem.report().arena_bytes, miss.report().arena_bytes);
    assert_eq!(mem.report().llvm_functions, miss.report().llvm_functions);

    forget_process_entries();
    let disk = compile(&m, &cached(&dir)).unwrap();
    assert_eq!(disk.report().cache_hit, Some(Hit::Disk));
    // The three executables are independent: run them interleaved.
    for exe in [&disk, &miss, &mem, &disk] {
        assert_eq!(run(exe, &args), want, "hit from disk");
    }
    assert_eq!(entries(&dir).len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_truncated_or_corrupted_entry_is_ignored_and_replaced() {
    let _serial = serial();
    let dir = fresh_dir("corrupt");
    let (m, args) = (program(), program_args());
    let want = run(&compile(&m, &CompileOptions::default()).unwrap(), &args);
    compile(&m, &cached(&dir)).unwrap();
    let path = entries(&dir).pop().unwrap();
    let whole = std::fs::read(&path).unwrap();
    let mut flipped = whole.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x40;
    for bad in [
        whole[..whole.len() / 3].to_vec(),
        flipped,
        Vec::new(),
        b"not an entry".to_vec(),
    ] {
        std::fs::write(&path, &bad).unwrap();
        forget_process_entries();
        let exe = compile(&m, &cached(&dir)).unwrap();
        assert_eq!(exe.report().cache_hit, None, "a bad entry is a miss");
        assert_eq!(run(&exe, &args), want);
        assert_eq!(std::fs::read(&path).unwrap(), whole, "rewritten whole");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn other_options_and_other_modules_miss() {
    let _serial = serial();
    let dir = fresh_dir("options");
    let m = program();
    compile(&m, &cached(&dir)).unwrap();
    let o2 = CompileOptions {
        opt_level: 2,
        ..cached(&dir)
    };
    assert_eq!(compile(&m, &o2).unwrap().report().cache_hit, None);
    let par = CompileOptions {
        parallel_threshold: 64,
        ..cached(&dir)
    };
    assert_eq!(compile(&m, &par).unwrap().report().cache_hit, None);
    let other = parse_module(&PROGRAM.replace("constant(0.5)", "constant(0.25)")).unwrap();
    assert_eq!(
        compile(&other, &cached(&dir)).unwrap().report().cache_hit,
        None
    );
    assert_eq!(entries(&dir).len(), 4);
    forget_process_entries();
    assert_eq!(
        compile(&m, &o2).unwrap().report().cache_hit,
        Some(Hit::Disk)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Products run side by side (`hlox_rt_kernel_group`, compiled for two
/// threads) from cached code, with the outputs of an uncached compile.
#[test]
fn concurrent_products_run_from_cached_code() {
    let _serial = serial();
    let dir = fresh_dir("concurrent");
    let m = parse_module(
        "HloModule pair\nENTRY e {\n  x = f32[64,128]{1,0} parameter(0)\n  w = f32[128,128]{1,0} parameter(1)\n  a = f32[64,128]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  b = f32[64,128]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n  ROOT s = f32[64,128]{1,0} subtract(a, b)\n}\n",
    )
    .unwrap();
    let x: Vec<f32> = (0..64 * 128)
        .map(|i| (i % 13) as f32 * 0.25 - 1.5)
        .collect();
    let w: Vec<f32> = (0..128 * 128).map(|i| (i % 7) as f32 * 0.5 - 1.0).collect();
    let args = vec![
        Literal::from_vec(&[64, 128], &x).unwrap(),
        Literal::from_vec(&[128, 128], &w).unwrap(),
    ];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let want = run(&compile(&m, &CompileOptions::default()).unwrap(), &args);
    let dump = dir.join("dump");
    pool.install(|| {
        compile(
            &m,
            &CompileOptions {
                dump_dir: Some(dump.clone()),
                ..Default::default()
            },
        )
    })
    .unwrap();
    let listing = std::fs::read_to_string(dump.join("buffer-assignment.txt")).unwrap();
    assert!(listing.contains("(side by side with b)"), "{listing}");
    let first = pool.install(|| compile(&m, &cached(&dir))).unwrap();
    assert_eq!(first.report().cache_hit, None);
    assert_eq!(run(&first, &args), want);
    forget_process_entries();
    let disk = pool.install(|| compile(&m, &cached(&dir))).unwrap();
    assert_eq!(disk.report().cache_hit, Some(Hit::Disk));
    assert_eq!(run(&disk, &args), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn custom_call_targets_run_from_cached_code_and_a_rebound_name_misses() {
    let _serial = serial();
    let dir = fresh_dir("targets");
    let b: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let c: Vec<f32> = (0..2048).map(|i| i as f32 * 0.5).collect();
    let want: Vec<f32> = (0..2048).map(|i| 2.0 * (b[i % 128] + c[i])).collect();
    let args = [Literal::r1(&b), Literal::r1(&c)];
    let statics = || Arc::new(Registry::with_static_targets().unwrap());
    let _ = hlox_targets::do_custom_call as fn(_, _);
    for (target, api) in [
        ("do_custom_call", ""),
        (
            "do_custom_call_status",
            ", api_version=API_VERSION_STATUS_RETURNING",
        ),
        (
            "do_custom_call_unified",
            ", api_version=API_VERSION_STATUS_RETURNING_UNIFIED",
        ),
    ] {
        let m = seed_module(target, api);
        let o = CompileOptions {
            registry: Some(statics()),
            ..cached(&dir)
        };
        let miss = compile(&m, &o).unwrap();
        assert_eq!(miss.report().cache_hit, None, "{target}");
        forget_process_entries();
        let hit = compile(&m, &o).unwrap();
        assert_eq!(hit.report().cache_hit, Some(Hit::Disk), "{target}");
        for exe in [&miss, &hit] {
            assert_eq!(run(exe, &args).to_vec::<f32>().unwrap(), want, "{target}");
        }
    }
    // The same name bound to another function (another origin) misses.
    fn plus_one(out: *mut std::ffi::c_void, ins: *const *const std::ffi::c_void) {
        unsafe {
            let b = std::slice::from_raw_parts(*ins as *const f32, 128);
            let c = std::slice::from_raw_parts(*ins.add(1) as *const f32, 2048);
            let o = std::slice::from_raw_parts_mut(out as *mut f32, 2048);
            for i in 0..2048 {
                o[i] = b[i % 128] + c[i] + 1.0;
            }
        }
    }
    let r = Registry::new();
    r.register_fn("do_custom_call", hlox_ffi::Platform::Host, plus_one)
        .unwrap();
    let o = CompileOptions {
        registry: Some(Arc::new(r)),
        ..cached(&dir)
    };
    let exe = compile(&seed_module("do_custom_call", ""), &o).unwrap();
    assert_eq!(exe.report().cache_hit, None, "another target identity");
    let got = run(&exe, &args).to_vec::<f32>().unwrap();
    assert_eq!(got[0], 2.0 * (b[0] + c[0] + 1.0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn typed_ffi_with_state_runs_from_cached_code() {
    let _serial = serial();
    let dir = fresh_dir("ffi");
    // A Rust handler with state (registered by macro) and a C++ handler
    // built against XLA's headers (a plugin).
    let r = Registry::with_static_targets().unwrap();
    r.load_library(hlox_tests::custom_call_suite::cpp_ffi_plugin_path())
        .unwrap();
    let r = Arc::new(r);
    let m = parse_module(
        r#"HloModule counters

ENTRY main {
  a = s64[2]{0} custom-call(), custom_call_target="rust_counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = 4 : i64}
  x = f32[256]{0} parameter(0)
  y = f32[256]{0} parameter(1)
  cc = f32[256]{0} custom-call(x, y), custom_call_target="cpp_axpby", api_version=API_VERSION_TYPED_FFI, backend_config={alpha = 2.000000e+00 : f32, beta = -5.000000e-01 : f32}
  ROOT t = (s64[2]{0}, f32[256]{0}) tuple(a, cc)
}
"#,
    )
    .unwrap();
    let x: Vec<f32> = (0..256).map(|i| i as f32 * 0.25 - 3.0).collect();
    let y: Vec<f32> = (0..256).map(|i| (i as f32).cos()).collect();
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| 2.0 * a + -0.5 * b).collect();
    let args = [Literal::r1(&x), Literal::r1(&y)];
    let o = CompileOptions {
        registry: Some(r),
        ..cached(&dir)
    };
    let live = hlox_targets::rust_counters_live();
    let miss = compile(&m, &o).unwrap();
    assert_eq!(miss.report().cache_hit, None);
    assert_eq!(hlox_targets::rust_counters_live(), live + 1);
    forget_process_entries();
    let hit = compile(&m, &o).unwrap();
    assert_eq!(hit.report().cache_hit, Some(Hit::Disk));
    assert_eq!(
        hlox_targets::rust_counters_live(),
        live + 2,
        "the hit ran the instantiate stage for its own state"
    );
    for exe in [&miss, &hit] {
        for n in 1..=2i64 {
            let got = run(exe, &args).into_leaves();
            assert_eq!(got[0].to_vec::<i64>().unwrap(), [4, n], "run {n}");
            assert_eq!(got[1].to_vec::<f32>().unwrap(), want);
        }
    }
    drop((miss, hit));
    assert_eq!(hlox_targets::rust_counters_live(), live);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn threads_filling_one_cache_at_once_all_get_correct_code() {
    let dir = fresh_dir("threads");
    let (m, args) = (Arc::new(program()), Arc::new(program_args()));
    let want = run(&compile(&m, &CompileOptions::default()).unwrap(), &args);
    let handles: Vec<_> = (0..4)
        .map(|k| {
            let (m, args, dir) = (m.clone(), args.clone(), dir.clone());
            std::thread::spawn(move || {
                let o = CompileOptions {
                    // Two keys, two threads each.
                    opt_level: 2 + (k % 2) as u8,
                    ..cached(&dir)
                };
                run(&compile(&m, &o).unwrap(), &args)
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), want);
    }
    assert_eq!(entries(&dir).len(), 2);
    let leftovers = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(leftovers, 2, "no temporary file left behind");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every case of the shared custom-call suite on code compiled for the
/// cache: each module is compiled twice, the second compile a hit.
mod suite_on_cached_code {
    use super::*;
    use hlox_tests::custom_call_suite::{Engine, Prepared};

    struct CachedHost;
    struct Compiled(Executable);

    impl Prepared for Compiled {
        fn run(&self, args: &[Literal]) -> Result<Literal, String> {
            self.0
                .execute(&args.iter().collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        }
    }

    impl Engine for CachedHost {
        fn prepare(
            &self,
            module: &Module,
            registry: &Arc<Registry>,
        ) -> Result<Box<dyn Prepared>, String> {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("hlox-cache-suite-{}", std::process::id()));
            let o = CompileOptions {
                registry: Some(registry.clone()),
                ..cached(&dir)
            };
            drop(compile(module, &o).map_err(|e| e.to_string())?);
            let exe = compile(module, &o).map_err(|e| e.to_string())?;
            if exe.report().cache_hit.is_none() {
                return Err(format!("{}: the second compile missed", module.name));
            }
            Ok(Box::new(Compiled(exe)))
        }
    }

    hlox_tests::custom_call_suite_tests!(CachedHost);
}
