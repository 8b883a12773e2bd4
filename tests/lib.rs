//! Shared helpers for hlox's integration tests: the JAX corpus.

use std::path::{Path, PathBuf};

/// The example targets (targets/rust), for test binaries that do not depend
/// on them directly.
pub use hlox_targets;

/// The workspace root (`HLOX_WORKSPACE_ROOT` when set: a test binary run
/// on another machine, e.g. the CUDA tests on a GPU host, finds the corpus
/// in a copy of the repository there).
pub fn workspace_root() -> PathBuf {
    if let Some(r) = std::env::var_os("HLOX_WORKSPACE_ROOT") {
        return PathBuf::from(r);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// One case of `tests/corpus/<name>/` (see tests/corpus/README.md).
#[derive(Debug, Clone)]
pub struct CorpusCase {
    pub name: String,
    pub dir: PathBuf,
    pub meta: serde_json::Value,
}

impl CorpusCase {
    pub fn hlo_path(&self) -> PathBuf {
        self.dir.join("module.hlo")
    }
    pub fn pb_path(&self) -> PathBuf {
        self.dir.join("module.pb")
    }
    pub fn hlo_text(&self) -> String {
        std::fs::read_to_string(self.hlo_path()).expect("module.hlo is readable")
    }
    /// Files `prefix0.npy`, `prefix1.npy`, ... that exist, in order.
    pub fn numbered(&self, prefix: &str) -> Vec<PathBuf> {
        (0..)
            .map(|i| self.dir.join(format!("{prefix}{i}.npy")))
            .take_while(|p| p.exists())
            .collect()
    }
    /// The inputs `in0.npy`, `in1.npy`, ...
    pub fn inputs(&self) -> Result<Vec<hlox_hlo::Literal>, String> {
        self.numbered("in")
            .iter()
            .map(hlox_hlo::npy::read_npy_file)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("inputs: {e}"))
    }
    /// Checks a result (its leaves, pre-order) against `out0.npy`, ...
    /// within the case's per-type `rtol`/`atol`.
    pub fn check_outputs(&self, got: hlox_hlo::Literal) -> Result<(), String> {
        let want: Vec<_> = self
            .numbered("out")
            .iter()
            .map(hlox_hlo::npy::read_npy_file)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("outputs: {e}"))?;
        let got = got.into_leaves();
        if got.len() != want.len() {
            return Err(format!("{} outputs, expected {}", got.len(), want.len()));
        }
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let ty = w.shape().element_type().map(|t| t.name()).unwrap_or("?");
            let tol = |k: &str| self.meta[k][ty].as_f64().unwrap_or(0.0);
            compare_literals(g, w, tol("rtol"), tol("atol"))
                .map_err(|e| format!("out{i} ({ty}): {e}"))?;
        }
        Ok(())
    }
    /// Whether the case calls jaxlib's LAPACK targets (`lapack_*_ffi`),
    /// which exist for the Host only: under XLA too, a JAX module for the
    /// GPU calls cuSOLVER targets instead. The CUDA tests skip these cases.
    pub fn needs_host_only_targets(&self) -> bool {
        self.custom_call_targets()
            .iter()
            .any(|t| hlox_jaxlib::TARGETS.contains(&t.as_str()))
    }
    pub fn custom_call_targets(&self) -> Vec<String> {
        self.meta["needs_custom_call_targets"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Every case under tests/corpus, sorted by name.
pub fn corpus_cases() -> Vec<CorpusCase> {
    let root = workspace_root().join("tests/corpus");
    let mut cases: Vec<CorpusCase> = std::fs::read_dir(&root)
        .expect("tests/corpus exists")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("module.hlo").exists())
        .map(|e| {
            let dir = e.path();
            let meta_text = std::fs::read_to_string(dir.join("meta.json")).expect("meta.json");
            CorpusCase {
                name: e.file_name().to_string_lossy().into_owned(),
                meta: serde_json::from_str(&meta_text).expect("meta.json is JSON"),
                dir,
            }
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

#[path = "programs.rs"]
pub mod programs;

/// Compares `got` with `want` under the corpus tolerance rule
/// `|got - want| <= atol + rtol * |want|` (NaN matches NaN, infinities
/// exactly; complex values part by part; integers and pred exactly). Returns the first mismatch.
pub fn compare_literals(
    got: &hlox_hlo::Literal,
    want: &hlox_hlo::Literal,
    rtol: f64,
    atol: f64,
) -> Result<(), String> {
    use hlox_hlo::ElementType as T;
    let (g, w) = (
        got.as_array().map_err(|e| e.to_string())?,
        want.as_array().map_err(|e| e.to_string())?,
    );
    if g.ty() != w.ty() || g.dims() != w.dims() {
        return Err(format!(
            "shape {} != expected {}",
            hlox_hlo::text::shape_to_string(&got.shape()),
            hlox_hlo::text::shape_to_string(&want.shape())
        ));
    }
    let as_f64 = |a: &hlox_hlo::ArrayLiteral| -> Option<Vec<f64>> {
        Some(match a.ty() {
            T::F16 => a
                .to_vec::<half::f16>()
                .ok()?
                .iter()
                .map(|x| x.to_f64())
                .collect(),
            T::Bf16 => a
                .to_vec::<half::bf16>()
                .ok()?
                .iter()
                .map(|x| x.to_f64())
                .collect(),
            T::F32 => a.to_vec::<f32>().ok()?.iter().map(|&x| x as f64).collect(),
            T::F64 => a.to_vec::<f64>().ok()?,
            // Complex: each part compared under the same rule.
            T::C64 => a
                .logical_bytes()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64)
                .collect(),
            T::C128 => a
                .logical_bytes()
                .chunks_exact(8)
                .map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                .collect(),
            _ => return None,
        })
    };
    match (as_f64(g), as_f64(w)) {
        (Some(gv), Some(wv)) => {
            for (i, (&x, &y)) in gv.iter().zip(&wv).enumerate() {
                let ok = if y.is_nan() {
                    x.is_nan()
                } else if y.is_infinite() {
                    x == y
                } else {
                    (x - y).abs() <= atol + rtol * y.abs()
                };
                if !ok {
                    return Err(format!(
                        "element {i}: got {x:e}, expected {y:e} (rtol {rtol}, atol {atol})"
                    ));
                }
            }
            Ok(())
        }
        _ => {
            let (gb, wb) = (g.logical_bytes(), w.logical_bytes());
            match gb.iter().zip(&wb).position(|(a, b)| a != b) {
                None => Ok(()),
                Some(p) => Err(format!(
                    "element {} differs (exact comparison)",
                    p / g.ty().byte_size()
                )),
            }
        }
    }
}

/// Targets for the corpus's custom calls, with the conventions the corpus
/// README gives them: XLA's C conventions for api_version 1 to 3, Rust
/// typed-FFI handlers ([`hlox_ffi::xla_ffi::Frame`]) for api_version 4.
// Targets follow XLA's C convention (raw pointers in, by design), like the
// functions of targets/rust.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub mod corpus_targets {
    use hlox_ffi::xla_ffi::Frame;
    use hlox_ffi::XlaCustomCallStatus;
    use std::ffi::c_void;

    /// Typed FFI `axpby(x, y) {alpha: f32, beta: f32}`.
    pub fn ffi_axpby(f: &mut Frame) -> Result<(), String> {
        let (alpha, beta): (f32, f32) = (f.attr("alpha")?, f.attr("beta")?);
        let (x, y) = (f.arg(0)?.slice::<f32>()?, f.arg(1)?.slice::<f32>()?);
        let z = f.ret(0)?.slice_mut::<f32>()?;
        if x.len() != z.len() || y.len() != z.len() {
            return Err("x, y and the result must have one length".into());
        }
        for i in 0..z.len() {
            z[i] = alpha * x[i] + beta * y[i];
        }
        Ok(())
    }

    /// Typed FFI seed target: `A[i] = B[i % 128] + C[i]`.
    pub fn ffi_do_custom_call(f: &mut Frame) -> Result<(), String> {
        let (b, c) = (f.arg(0)?.slice::<f32>()?, f.arg(1)?.slice::<f32>()?);
        let a = f.ret(0)?.slice_mut::<f32>()?;
        if b.len() != 128 || c.len() != a.len() {
            return Err(format!(
                "expected f32[128] and f32[N], got {} and {}",
                b.len(),
                c.len()
            ));
        }
        for i in 0..a.len() {
            a[i] = b[i % 128] + c[i];
        }
        Ok(())
    }

    /// Typed FFI `add_sub(x, y) -> (x + y, x - y)`.
    pub fn ffi_add_sub(f: &mut Frame) -> Result<(), String> {
        let (x, y) = (f.arg(0)?.slice::<f32>()?, f.arg(1)?.slice::<f32>()?);
        let (s, d) = (f.ret(0)?.slice_mut::<f32>()?, f.ret(1)?.slice_mut::<f32>()?);
        for i in 0..x.len() {
            s[i] = x[i] + y[i];
            d[i] = x[i] - y[i];
        }
        Ok(())
    }

    /// `axpby(x: f32[256], y: f32[256], alpha: f32[], beta: f32[])`, status-returning.
    pub fn axpby_operands(
        out: *mut c_void,
        ins: *const *const c_void,
        _s: *mut XlaCustomCallStatus,
    ) {
        unsafe {
            let x = std::slice::from_raw_parts(*ins as *const f32, 256);
            let y = std::slice::from_raw_parts(*ins.add(1) as *const f32, 256);
            let alpha = *(*ins.add(2) as *const f32);
            let beta = *(*ins.add(3) as *const f32);
            let z = std::slice::from_raw_parts_mut(out as *mut f32, 256);
            for i in 0..256 {
                z[i] = alpha * x[i] + beta * y[i];
            }
        }
    }
}

pub fn registry_for(case: &CorpusCase) -> hlox_ffi::Registry {
    use hlox_ffi::{Platform, Registry};
    let r = Registry::new();
    // jaxlib's LAPACK targets, for JAX's linear algebra (the linalg_* cases).
    hlox_jaxlib::register(&r).expect("registering jaxlib's targets");
    let host = Platform::Host;
    match case.name.as_str() {
        "cc_do_custom_call_v1" => {
            r.register_fn("do_custom_call", host, hlox_targets::do_custom_call)
        }
        "cc_do_custom_call_v2" => {
            r.register_fn("do_custom_call", host, hlox_targets::do_custom_call_status)
        }
        "cc_do_custom_call_v3" => {
            r.register_fn("do_custom_call", host, hlox_targets::do_custom_call_unified)
        }
        "cc_axpby_legacy" => r.register_fn("axpby", host, corpus_targets::axpby_operands),
        "cc_axpby_ffi" => r.register_fn("axpby", host, corpus_targets::ffi_axpby),
        "cc_do_custom_call_v4" => {
            r.register_fn("do_custom_call", host, corpus_targets::ffi_do_custom_call)
        }
        "cc_in_graph" => r
            .register_fn("do_custom_call", host, corpus_targets::ffi_do_custom_call)
            .and_then(|()| r.register_fn("add_sub", host, corpus_targets::ffi_add_sub)),
        _ => Ok(()),
    }
    .expect("registration");
    r
}

/// Cases whose custom calls use XLA's typed FFI (api_version 4), run with
/// Rust handlers ([`corpus_targets`] on the Host; the CUDA tests register
/// their own, which read and write device memory).
pub const TYPED_FFI_CASES: &[&str] = &["cc_axpby_ffi", "cc_do_custom_call_v4", "cc_in_graph"];

#[path = "custom_call_suite.rs"]
pub mod custom_call_suite;

/// Deterministic pseudo-random contents for `shape` (an xorshift stream
/// from `seed`): floats in [-10, 10) with three decimals (f16/bf16 with
/// two), integers in [-8, 8] (wrapped for unsigned types), pred 0/1; a
/// tuple's element `i` uses `seed + 7919 i`. The `args: random(SEED)`
/// filetest directive and the Host tests use it.
pub fn random_literal(shape: &hlox_hlo::Shape, seed: u64) -> hlox_hlo::Literal {
    use hlox_hlo::{ArrayLiteral, ElementType, Literal, Shape};
    match shape {
        Shape::Array(a) => {
            let mut x = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let n = a.element_count();
            // A fallible reservation: a shape too large for memory fails
            // this test with its size, not the whole test binary with an
            // allocation abort.
            let mut bytes = Vec::new();
            if let Err(e) = bytes.try_reserve_exact(a.byte_size()) {
                panic!(
                    "random_literal: cannot allocate {} bytes for {}: {e}",
                    a.byte_size(),
                    hlox_hlo::text::shape_to_string(shape)
                );
            }
            for _ in 0..n {
                let r = next();
                match a.ty {
                    ElementType::Pred => bytes.push((r & 1) as u8),
                    ElementType::F16 => bytes.extend(
                        half::f16::from_f32(((r % 2000) as f32 - 1000.0) / 100.0).to_le_bytes(),
                    ),
                    ElementType::Bf16 => bytes.extend(
                        half::bf16::from_f32(((r % 2000) as f32 - 1000.0) / 100.0).to_le_bytes(),
                    ),
                    ElementType::F32 => {
                        bytes.extend((((r % 20000) as f32 - 10000.0) / 1000.0).to_le_bytes())
                    }
                    ElementType::F64 => {
                        bytes.extend((((r % 20000) as f64 - 10000.0) / 1000.0).to_le_bytes())
                    }
                    // Complex: the real part from this draw, the imaginary
                    // part from the next, each as the part type's values.
                    ElementType::C64 => {
                        let i = next();
                        bytes.extend((((r % 20000) as f32 - 10000.0) / 1000.0).to_le_bytes());
                        bytes.extend((((i % 20000) as f32 - 10000.0) / 1000.0).to_le_bytes());
                    }
                    ElementType::C128 => {
                        let i = next();
                        bytes.extend((((r % 20000) as f64 - 10000.0) / 1000.0).to_le_bytes());
                        bytes.extend((((i % 20000) as f64 - 10000.0) / 1000.0).to_le_bytes());
                    }
                    t => bytes.extend(&((r % 17) as i64 - 8).to_le_bytes()[..t.byte_size()]),
                }
            }
            match ArrayLiteral::from_bytes(a.clone(), bytes) {
                Ok(l) => Literal::Array(l),
                Err(e) => panic!("random_literal: {e}"),
            }
        }
        Shape::Tuple(t) => Literal::Tuple(
            t.iter()
                .enumerate()
                .map(|(i, s)| random_literal(s, seed + i as u64 * 7919))
                .collect(),
        ),
        Shape::Token => Literal::Token,
    }
}

/// A [`random_literal`] for every entry parameter of `m`, parameter `i`
/// with seed `seed + i`: what the `args: random(SEED)` directive gives.
pub fn random_args(m: &hlox_hlo::Module, seed: u64) -> Vec<hlox_hlo::Literal> {
    m.entry_computation()
        .program_shape()
        .parameters
        .iter()
        .enumerate()
        .map(|(i, s)| random_literal(s, seed + i as u64))
        .collect()
}
