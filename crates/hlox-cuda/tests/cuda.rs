//! The CUDA backend without a GPU: every kernel the corpus and the opcode
//! programs produce is assembled by NVIDIA's `ptxas` for sm_80 and sm_90;
//! the NVPTX math library runs on the host (JIT) against the C library;
//! the runtime reports a missing driver clearly. With a GPU (and a
//! driver), the runtime tests run the corpus on it; without, they print
//! SKIP.

use hlox_cuda::{compile, compile_to_ptx, targets, CompileError, CudaCompileOptions};
use hlox_ffi::{Platform, Registry};
use hlox_hlo::text::parse_module;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

fn ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("HLOX_PTXAS") {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Some(p);
        }
    }
    let root = hlox_tests::workspace_root().join(".venv-cuda/lib");
    for e in std::fs::read_dir(&root).ok()?.flatten() {
        let p = e.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas");
        if p.is_file() {
            return Some(p);
        }
    }
    eprintln!(
        "SKIP: ptxas not found (set HLOX_PTXAS or run scripts/setup_ptxas.sh; `make test` does): \
         PTX is generated but not assembled"
    );
    None
}

/// Assemble `ptx` for `sm` with ptxas; Err(ptxas output) on failure.
fn assemble(ptxas: &PathBuf, ptx: &str, sm: &str, tag: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("hlox-cuda-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let src = dir.join(format!("{tag}.{sm}.ptx"));
    std::fs::write(&src, ptx).map_err(|e| e.to_string())?;
    let out = Command::new(ptxas)
        .arg(format!("--gpu-name={sm}"))
        .arg("-O3")
        .arg(&src)
        .arg("-o")
        .arg(dir.join(format!("{tag}.{sm}.cubin")))
        .output()
        .map_err(|e| format!("cannot run ptxas: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "ptxas {sm} failed on {}:\n{}{}",
            src.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let _ = std::fs::remove_file(&src);
    Ok(())
}

/// The GPU example targets, with `do_custom_call` in the convention the
/// corpus case uses (API_VERSION_ORIGINAL for `cc_do_custom_call_v1`).
fn registry_for(case: &str) -> Registry {
    let r = Registry::new();
    if case == "cc_do_custom_call_v1" {
        r.register_fn("do_custom_call", Platform::Cuda, targets::do_custom_call)
    } else {
        r.register_fn(
            "do_custom_call",
            Platform::Cuda,
            targets::do_custom_call_status,
        )
    }
    .expect("register");
    r.register_fn("axpby", Platform::Cuda, targets::axpby)
        .expect("register");
    r.register_fn("tuple_fma", Platform::Cuda, targets::tuple_fma)
        .expect("register");
    r
}

fn opts(sm: &str, case: &str) -> CudaCompileOptions {
    CudaCompileOptions {
        sm: sm.into(),
        registry: Some(Arc::new(registry_for(case))),
        ..Default::default()
    }
}

/// Whether a compile error is one of the documented gaps.
fn documented_gap(e: &CompileError) -> bool {
    let s = e.to_string();
    hlox_cuda::plan::UNSUPPORTED_OPS
        .iter()
        .any(|op| s.contains(&format!("not yet supported on CUDA: {op} ")))
}

#[test]
fn corpus_kernels_assemble_with_ptxas() {
    let ptxas = ptxas();
    let cases = hlox_tests::corpus_cases();
    assert!(cases.len() >= 70, "corpus has {} cases", cases.len());
    let mut failures = Vec::new();
    let (mut assembled, mut kernels, mut gaps, mut typed_ffi) = (0, 0, Vec::new(), 0);
    for case in &cases {
        let m = parse_module(&case.hlo_text()).expect("corpus parses");
        for sm in ["sm_80", "sm_90"] {
            match compile(&m, &opts(sm, &case.name)) {
                Ok(c) => {
                    if sm == "sm_80" {
                        kernels += c.program.kernels.len();
                        assembled += 1;
                    }
                    // Every kernel is an entry of the PTX.
                    for k in &c.program.kernels {
                        if !c.ptx.contains(&format!(".entry {}(", k.name)) {
                            failures
                                .push(format!("{}: kernel {} missing from PTX", case.name, k.name));
                        }
                    }
                    if let Some(p) = &ptxas {
                        if let Err(e) = assemble(p, &c.ptx, sm, &case.name) {
                            failures.push(format!("{}: {e}", case.name));
                        }
                    }
                }
                Err(CompileError::Bind(e))
                    if hlox_tests::TYPED_FFI_CASES.contains(&case.name.as_str()) =>
                {
                    assert!(e.to_string().contains("API_VERSION_TYPED_FFI"), "{e}");
                    typed_ffi += 1;
                }
                Err(e) if documented_gap(&e) => {
                    if sm == "sm_80" {
                        gaps.push(format!("{} ({e})", case.name));
                    }
                }
                Err(e) => failures.push(format!("{} [{sm}]: {e}", case.name)),
            }
        }
    }
    eprintln!(
        "corpus on CUDA: {assembled} of {} cases compiled ({kernels} kernels, assembled for sm_80 \
         and sm_90: {}), {} typed-FFI bind errors, {} documented gaps:\n  {}",
        cases.len(),
        ptxas.is_some(),
        typed_ffi / 2,
        gaps.len(),
        gaps.join("\n  ")
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(assembled >= 55, "only {assembled} corpus cases compiled");
}
