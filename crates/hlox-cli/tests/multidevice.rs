//! Several devices end to end (docs/multi-device.md): every case of
//! tests/corpus/multidevice (JAX programs for 4 devices, with JAX's outputs)
//! runs with `--devices 4` (threads of one process, compiled and
//! interpreted) and under `mpirun -np 4 ... --mpi`, and matches, from its
//! HLO text (`module.hlo`) and from its StableHLO text (`module.mlir`,
//! with Shardy's `sdy.mesh` and `sdy.manual_computation`); a custom
//! call runs per device and one that fails on one device only stops every
//! device with its error (two JAX programs of the corpus, with the typed-FFI
//! targets of tests/corpus/multidevice/md_targets.cc, and a hand-written
//! one with a C target). The MPI tests are skipped, saying so, only when
//! `mpirun` is absent (`make test` installs Open MPI).

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A corpus case's meta.json.
fn meta(case: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(case.join("meta.json")).expect("meta.json");
    serde_json::from_str(&text).expect("meta.json parses")
}

/// Every case of the corpus: those with JAX's outputs (`error: false`) or
/// those that fail with the errors in their meta.json's `error`.
fn corpus(error: bool) -> Vec<PathBuf> {
    let root = repo("tests/corpus/multidevice");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/corpus/multidevice")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("module.hlo").exists())
        .filter(|p| meta(p).get("error").is_some() == error)
        .collect();
    v.sort();
    assert!(v.len() >= if error { 1 } else { 6 }, "{v:?}");
    v
}

fn cases() -> Vec<PathBuf> {
    corpus(false)
}

/// The typed-FFI targets of the corpus (md_targets.cc), built once with
/// the system C++ compiler and XLA's FFI headers.
fn md_targets() -> PathBuf {
    static LIB: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    LIB.get_or_init(|| {
        let include = std::env::var_os("HLOX_XLA_FFI_INCLUDE")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo(".xla-ffi/include"));
        assert!(
            include.join("xla/ffi/api/ffi.h").exists(),
            "XLA's FFI headers are not in {}: run `bash scripts/setup_xla_ffi_headers.sh` (make test \
             does) or set HLOX_XLA_FFI_INCLUDE",
            include.display()
        );
        let lib = tmp("md-libmd_targets.so");
        let o = Command::new("c++")
            .args(["-shared", "-fPIC", "-std=c++17", "-O2", "-w", "-I"])
            .arg(&include)
            .arg(repo("tests/corpus/multidevice/md_targets.cc"))
            .arg("-o")
            .arg(&lib)
            .output()
            .expect("c++ runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        lib
    })
    .clone()
}

fn numbered(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut v: Vec<(usize, PathBuf)> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter_map(|p| {
            let n = p.file_name()?.to_str()?.to_string();
            let k = n.strip_prefix(prefix)?.strip_suffix(".npy")?.parse().ok()?;
            Some((k, p))
        })
        .collect();
    v.sort();
    v.into_iter().map(|x| x.1).collect()
}

/// Every outN.npy of `got` equals the case's (f32 within 1e-4, integers exactly).
fn assert_outputs(case: &Path, got: &Path, how: &str) {
    let want = numbered(case, "out");
    assert!(!want.is_empty());
    for w in want {
        let g = got.join(w.file_name().expect("name"));
        let wl = hlox_hlo::npy::read_npy_file(&w).expect("expected npy");
        let gl = hlox_hlo::npy::read_npy_file(&g)
            .unwrap_or_else(|e| panic!("{how}: {}: {e}", g.display()));
        let what = format!("{how} {}", g.display());
        assert_eq!(gl.shape(), wl.shape(), "{what}");
        if let Ok(wv) = wl.to_vec::<f32>() {
            assert_close(&gl.to_vec::<f32>().expect("f32"), &wv, 1e-4, 1e-4, &what);
        } else {
            assert_eq!(
                gl.to_vec::<i32>().expect("s32"),
                wl.to_vec::<i32>().expect("s32"),
                "{what}"
            );
        }
    }
}

/// The forms every corpus case is run from: XLA's HLO text and JAX's
/// StableHLO text of the same program.
const MODULES: [&str; 2] = ["module.hlo", "module.mlir"];

fn run_args(case: &Path, out: &Path) -> Vec<std::ffi::OsString> {
    run_args_from(case, "module.hlo", out)
}

/// `hlox run` of `case`'s `module` (one of [`MODULES`]) with its inputs.
fn run_args_from(case: &Path, module: &str, out: &Path) -> Vec<std::ffi::OsString> {
    let path = case.join(module);
    assert!(
        path.exists(),
        "{} is missing (scripts/gen_multidevice_corpus.py writes it)",
        path.display()
    );
    let mut a: Vec<std::ffi::OsString> = vec!["run".into(), path.into()];
    for i in numbered(case, "in") {
        a.push("-i".into());
        a.push(i.into());
    }
    a.push("-o".into());
    a.push(out.into());
    if meta(case).get("plugin").is_some() {
        a.push("--plugin".into());
        a.push(md_targets().into());
    }
    a
}

/// The errors a failing case's meta.json names (every one must be in the
/// run's message).
fn expected_errors(case: &Path) -> Vec<String> {
    meta(case)["error"]
        .as_array()
        .expect("error: a list of strings")
        .iter()
        .map(|e| e.as_str().expect("a string").to_string())
        .collect()
}

/// A custom call of a JAX program that fails on one device only (its shard
/// holds a value above the target's limit), while the others wait at the
/// psum after it: every device stops at once with that device's error, on
/// threads (compiled and interpreted) and under MPI. (XLA itself leaves
/// the others waiting until its 40 s rendezvous timeout aborts the process.)
#[test]
fn corpus_cases_that_fail_on_one_device_stop_every_device_with_its_error() {
    for case in corpus(true) {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let want = expected_errors(&case);
        let want: Vec<&str> = want.iter().map(String::as_str).collect();
        for (module, interpret) in MODULES.iter().flat_map(|m| [(*m, false), (*m, true)]) {
            let out = tmp_dir(&format!("md-{name}-{module}-{interpret}"));
            let mut args = run_args_from(&case, module, &out);
            args.extend([
                "--devices".into(),
                "4".into(),
                "--collective-timeout".into(),
                "600".into(),
            ]);
            if interpret {
                args.push("--interpret".into());
            }
            let t = std::time::Instant::now();
            assert_fails(&hlox(&args), 1, &want);
            assert!(
                t.elapsed().as_secs() < 120,
                "{name} {module}: stopped by the failure, not a timeout"
            );
        }
        let out = tmp_dir(&format!("md-mpi-{name}"));
        let Some(o) = mpi(4, &run_args(&case, &out)) else {
            return;
        };
        assert!(!o.status.success(), "{name} under mpirun succeeded");
        let e = stderr(&o);
        let ranked: Vec<String> = want.iter().map(|w| w.replace("device ", "rank ")).collect();
        for w in &ranked {
            assert!(
                e.contains(w.as_str()),
                "{name} under mpirun: no {w:?} in {e}"
            );
        }
    }
}

/// `hlox` with `args` and `--devices 4` (interpreted if `interpret`).
fn on_four_threads(mut args: Vec<std::ffi::OsString>, interpret: bool) -> Output {
    args.extend(["--devices".into(), "4".into()]);
    if interpret {
        args.push("--interpret".into());
    }
    hlox(&args)
}

#[test]
fn corpus_on_four_threads_compiled_and_interpreted() {
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        for (module, interpret) in MODULES.iter().flat_map(|m| [(*m, false), (*m, true)]) {
            let out = tmp_dir(&format!("md-{name}-{module}-{interpret}"));
            let o = on_four_threads(run_args_from(&case, module, &out), interpret);
            assert!(o.status.success(), "{name} {module}: {}", stderr(&o));
            assert_outputs(
                &case,
                &out,
                &format!("{name} {module} --devices 4 (interpret: {interpret})"),
            );
        }
    }
}

#[test]
fn a_module_for_four_devices_on_fewer_is_an_error_naming_the_count() {
    let case = repo("tests/corpus/multidevice/sm_collectives");
    let out = tmp_dir("md-few");
    let mut args = run_args(&case, &out);
    args.extend(["--devices".into(), "2".into()]);
    assert_fails(
        &hlox(&args),
        1,
        &["has 4 devices, but the run has 2", "--devices 4"],
    );
    let o = hlox(&run_args(&case, &out));
    assert_fails(&o, 1, &["the module needs at least 4 devices"]);
}

/// `--platform cuda --devices 4` runs on 4 GPUs through NCCL; a build or
/// machine that cannot says what is missing (the nccl feature, the driver,
/// NCCL, GPUs), exits 1 and writes nothing. (The CUDA runs themselves are
/// tested in host emulation and on GPUs by crates/hlox-cuda/tests/cuda.rs.)
#[test]
fn four_cuda_devices_or_an_error_saying_what_is_missing() {
    let case = repo("tests/corpus/multidevice/sm_collectives");
    let out = tmp_dir("md-cuda");
    let mut args = run_args(&case, &out);
    args.extend([
        "--platform".into(),
        "cuda".into(),
        "--devices".into(),
        "4".into(),
    ]);
    let o = hlox(&args);
    if o.status.success() {
        assert_outputs(&case, &out, "sm_collectives on 4 GPUs");
        return;
    }
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        [
            "`nccl` feature",
            "libcuda.so",
            "libnccl",
            "GPU device(s) asked for"
        ]
        .iter()
        .any(|w| err.contains(w)),
        "the error names nothing missing: {err}"
    );
    assert!(numbered(&out, "out").is_empty(), "outputs written: {err}");
    let mut mpi = run_args(&case, &out);
    mpi.extend(["--platform".into(), "cuda".into(), "--mpi".into()]);
    assert_fails(&hlox(&mpi), 1, &["--mpi runs on Host devices"]);
}

fn mpirun() -> Option<PathBuf> {
    let found = Command::new("sh")
        .args(["-c", "command -v mpirun"])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(PathBuf::from(String::from_utf8_lossy(&found.stdout).trim()))
}

fn mpi(np: usize, args: &[std::ffi::OsString]) -> Option<Output> {
    let Some(m) = mpirun() else {
        eprintln!("SKIPPED: mpirun is not installed (apt-get install openmpi-bin libopenmpi-dev)");
        return None;
    };
    Some(
        Command::new(m)
            .args([
                "--allow-run-as-root",
                "--oversubscribe",
                "-np",
                &np.to_string(),
            ])
            .arg(env!("CARGO_BIN_EXE_hlox"))
            .args(args)
            .arg("--mpi")
            .env_remove("HLOX_LOG")
            .output()
            .expect("mpirun runs"),
    )
}

#[test]
fn corpus_under_mpirun_four_ranks() {
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        for module in MODULES {
            let out = tmp_dir(&format!("md-mpi-{name}-{module}"));
            let Some(o) = mpi(4, &run_args_from(&case, module, &out)) else {
                return;
            };
            assert!(o.status.success(), "{name} {module}: {}", stderr(&o));
            assert_outputs(&case, &out, &format!("{name} {module} mpirun -np 4"));
        }
    }
}

/// A cross-replica program (no channel ids: devices are replicas) whose
/// per-device data comes from replica-id: all-reduce, all-gather and a
/// collective-permute on 2 devices.
const REPLICAS: &str = include_str!("data/replicas.hlo");

#[test]
fn replicas_on_two_devices_threads_and_mpi() {
    let m = tmp_file("md-replicas.hlo", REPLICAS);
    let x = write_npy(
        "md-replicas-x.npy",
        &hlox_hlo::Literal::r1(&[1f32, 2.0, 3.0]),
    );
    // The all-reduce, the all-gather and the permute (device 0, which
    // writes, receives device 1's values).
    let want: [&[f32]; 3] = [
        &[3.0, 5.0, 7.0],
        &[1.0, 2.0, 3.0, 2.0, 3.0, 4.0],
        &[2.0, 3.0, 4.0],
    ];
    let check = |out: &Path, how: &str| {
        for (k, w) in want.iter().enumerate() {
            let got = read_f32(&out.join(format!("out{k}.npy")));
            assert_close(&got, w, 0.0, 0.0, &format!("{how} out{k}"));
        }
    };
    let out = tmp_dir("md-replicas-threads");
    let args: Vec<std::ffi::OsString> = vec![
        "run".into(),
        m.clone().into(),
        "-i".into(),
        x.clone().into(),
        "-o".into(),
        out.clone().into(),
    ];
    let mut threads = args.clone();
    threads.extend(["--devices".into(), "2".into()]);
    let o = hlox(&threads);
    assert!(o.status.success(), "{}", stderr(&o));
    check(&out, "--devices 2");
    let out = tmp_dir("md-replicas-mpi");
    let mut margs = args;
    margs[5] = out.clone().into();
    if let Some(o) = mpi(2, &margs) {
        assert!(o.status.success(), "{}", stderr(&o));
        check(&out, "mpirun -np 2");
    }
}

/// A C target that copies its f32[4] operand and fails when the first
/// element is above 2.5: on device 3 only, in the module below.
const FAIL_ABOVE: &str = r#"
#include <string.h>
typedef struct XlaCustomCallStatus_ XlaCustomCallStatus;
void XlaCustomCallStatusSetFailure(XlaCustomCallStatus*, const char*, size_t);
void fail_above(void* out, const void** in, XlaCustomCallStatus* status) {
  const float* x = (const float*)in[0];
  if (x[0] > 2.5f) {
    const char* msg = "fail_above: the value is above 2.5";
    XlaCustomCallStatusSetFailure(status, msg, strlen(msg));
    return;
  }
  memcpy(out, x, 4 * sizeof(float));
}
"#;

const PER_DEVICE_CALL: &str = include_str!("data/per_device_call.hlo");

fn fail_above_plugin() -> PathBuf {
    let src = tmp_file("md-fail-above.c", FAIL_ABOVE);
    let lib = tmp("md-libfail_above.so");
    let o = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .output()
        .expect("cc runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    lib
}

#[test]
fn a_custom_call_per_device_and_one_failing_on_one_device_only() {
    let lib = fail_above_plugin();
    let m = tmp_file("md-per-device.hlo", PER_DEVICE_CALL);
    let run = |x: f32, out: &Path| -> Vec<std::ffi::OsString> {
        let xs = write_npy(
            &format!("md-per-device-{x}.npy"),
            &hlox_hlo::Literal::r1(&[x; 4]),
        );
        vec![
            "run".into(),
            m.clone().into(),
            "-i".into(),
            xs.into(),
            "--plugin".into(),
            lib.clone().into(),
            "-o".into(),
            out.into(),
        ]
    };
    // Below the limit on every device: sum over d of (-10 + d) = -34.
    for interpret in [false, true] {
        let out = tmp_dir(&format!("md-per-device-ok-{interpret}"));
        let o = on_four_threads(run(-10.0, &out), interpret);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_close(
            &read_f32(&out.join("out0.npy")),
            &[-34.0; 4],
            0.0,
            0.0,
            "per device",
        );
    }
    // x = 0: device 3 sees 3 > 2.5 and fails; the others, waiting at the
    // all-reduce, stop with its error (a long timeout shows it is not the
    // timeout that ends the run).
    let out = tmp_dir("md-per-device-fail");
    let mut a = run(0.0, &out);
    a.extend([
        "--devices".into(),
        "4".into(),
        "--collective-timeout".into(),
        "600".into(),
    ]);
    let t = std::time::Instant::now();
    assert_fails(
        &hlox(&a),
        1,
        &["device 3", "fail_above: the value is above 2.5"],
    );
    assert!(
        t.elapsed().as_secs() < 120,
        "stopped by the failure, not a timeout"
    );
    if let Some(o) = mpi(4, &run(0.0, &out)) {
        assert!(!o.status.success());
        let e = stderr(&o);
        assert!(
            e.contains("rank 3") && e.contains("fail_above: the value is above 2.5"),
            "{e}"
        );
    }
}

#[test]
fn a_device_that_never_arrives_is_named_by_the_timeout() {
    // Device 1 takes the branch without the all-reduce; the others wait
    // for it until the collective timeout names it.
    let m = tmp_file(
        "md-branch.hlo",
        r#"HloModule branch, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

with_reduce {
  p = f32[2]{0} parameter(0)
  ROOT r = f32[2]{0} all-reduce(p), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
}

without {
  ROOT p = f32[2]{0} parameter(0)
}

ENTRY e {
  x = f32[2]{0} parameter(0)
  pid = u32[] partition-id()
  one = u32[] constant(1)
  is1 = pred[] compare(pid, one), direction=EQ
  ROOT c = f32[2]{0} conditional(is1, x, x), true_computation=without, false_computation=with_reduce
}
"#,
    );
    let xs = write_npy("md-branch-x.npy", &hlox_hlo::Literal::r1(&[1f32, 2.0]));
    let args: Vec<std::ffi::OsString> = vec![
        "run".into(),
        m.into(),
        "-i".into(),
        xs.into(),
        "--devices".into(),
        "2".into(),
        "--collective-timeout".into(),
        "0.5".into(),
    ];
    assert_fails(&hlox(&args), 1, &["device(s) [1] did not arrive"]);
}
