//! A typed-FFI handler written in C against XLA's own C API header
//! (`xla/ffi/api/c_api.h`, no C++ wrapper) takes and returns c64 and c128
//! buffers: XLA's `C64`/`C128` data types reach it with their dtype codes,
//! dims and interleaved (real, imaginary) parts, C's `_Complex` arithmetic
//! runs on them in place, and the results come back through hlox.

mod common;

use hlox_ffi::{HostCustomCalls, Platform, Registry};
use hlox_hlo::CustomCallApiVersion;
use hlox_hlo::{ArrayLiteral, Literal};
use num_complex::{Complex32, Complex64};
use std::ffi::c_void;

/// `out = x * conj(y) + i` element by element, for C64 and C128 buffers
/// (both operands and the result of one type, any rank); other dtypes,
/// or mixed ones, are an INVALID_ARGUMENT error naming what it got.
const SRC: &str = r#"
#include <complex.h>
#include <stdio.h>
#include "xla/ffi/api/c_api.h"

static XLA_FFI_Error* fail(XLA_FFI_CallFrame* f, const char* msg) {
  XLA_FFI_Error_Create_Args a = {XLA_FFI_Error_Create_Args_STRUCT_SIZE, NULL, msg,
                                 XLA_FFI_Error_Code_INVALID_ARGUMENT};
  return f->api->XLA_FFI_Error_Create(&a);
}

XLA_FFI_Error* cx_mul_conj(XLA_FFI_CallFrame* f) {
  /* The metadata query (XLA asks every handler when it registers). */
  for (XLA_FFI_Extension_Base* e = f->extension_start; e; e = e->next) {
    if (e->type == XLA_FFI_Extension_Metadata) {
      XLA_FFI_Metadata* md = ((XLA_FFI_Metadata_Extension*)e)->metadata;
      md->api_version.major_version = XLA_FFI_API_MAJOR;
      md->api_version.minor_version = XLA_FFI_API_MINOR;
      md->traits = 0;
      return NULL;
    }
  }
  if (f->stage != XLA_FFI_ExecutionStage_EXECUTE) return NULL;
  if (f->args.size != 2 || f->rets.size != 1 || f->args.types[0] != XLA_FFI_ArgType_BUFFER ||
      f->args.types[1] != XLA_FFI_ArgType_BUFFER || f->rets.types[0] != XLA_FFI_RetType_BUFFER)
    return fail(f, "cx_mul_conj takes two buffers and returns one");
  XLA_FFI_Buffer* x = f->args.args[0];
  XLA_FFI_Buffer* y = f->args.args[1];
  XLA_FFI_Buffer* o = f->rets.rets[0];
  if (x->dtype != y->dtype || x->dtype != o->dtype) {
    static char msg[96];
    snprintf(msg, sizeof msg, "mixed dtypes %d, %d -> %d", (int)x->dtype, (int)y->dtype,
             (int)o->dtype);
    return fail(f, msg);
  }
  int64_t n = 1;
  for (int64_t d = 0; d < x->rank; ++d) n *= x->dims[d];
  if (x->dtype == XLA_FFI_DataType_C64) {
    const float complex* a = x->data;
    const float complex* b = y->data;
    float complex* r = o->data;
    for (int64_t k = 0; k < n; ++k) r[k] = a[k] * conjf(b[k]) + I;
  } else if (x->dtype == XLA_FFI_DataType_C128) {
    const double complex* a = x->data;
    const double complex* b = y->data;
    double complex* r = o->data;
    for (int64_t k = 0; k < n; ++k) r[k] = a[k] * conj(b[k]) + I;
  } else {
    static char msg[96];
    snprintf(msg, sizeof msg, "cx_mul_conj wants C64 (15) or C128 (18) buffers, got dtype %d",
             (int)x->dtype);
    return fail(f, msg);
  }
  return NULL;
}
"#;

fn registry() -> (Registry, libloading::Library) {
    let path = common::build_c_against_xla_ffi("complex_c_ffi", "cxffi", SRC);
    let lib = unsafe { libloading::Library::new(&path) }.unwrap();
    let h: hlox_ffi::xla_ffi::abi::Handler = unsafe { *lib.get(b"cx_mul_conj").unwrap() };
    // It answers XLA's metadata query with the header's API version.
    let md = hlox_ffi::xla_ffi::handler_metadata(h).unwrap();
    assert_eq!((md.api_major, md.traits), (0, 0), "{md:?}");
    let reg = Registry::new();
    unsafe {
        reg.register_c(
            "cx_mul_conj",
            Platform::Host,
            CustomCallApiVersion::TypedFfi,
            h as *const c_void,
        )
    }
    .unwrap();
    (reg, lib)
}

fn call(reg: &Registry, ty: &str, out: &str, args: &[Literal]) -> Result<Literal, String> {
    let text = format!(
        "HloModule cx\nENTRY main {{\n  x = {ty}[2,3] parameter(0)\n  y = {ty}[2,3] parameter(1)\n  ROOT r = {out}[2,3] custom-call(x, y), custom_call_target=\"cx_mul_conj\", api_version=API_VERSION_TYPED_FFI\n}}\n"
    );
    let m = hlox_hlo::text::parse_module(&text).unwrap();
    let h = HostCustomCalls::new(reg.bind(&m, Platform::Host).unwrap());
    let inst = m.entry_computation().root_inst();
    let refs: Vec<&Literal> = args.iter().collect();
    h.call(inst, inst.op.as_custom_call().unwrap(), &refs)
        .map_err(|e| e.to_string())
}

const X: [(f64, f64); 6] = [
    (1.0, 2.0),
    (-0.5, 0.0),
    (3.0, -4.0),
    (0.0, 0.0),
    (1e3, 1e-3),
    (-2.0, 7.5),
];
const Y: [(f64, f64); 6] = [
    (0.0, 1.0),
    (2.0, 2.0),
    (3.0, 4.0),
    (-1.0, 5.0),
    (0.5, 0.0),
    (1.0, -1.0),
];

#[test]
fn c_handler_against_xla_c_api_computes_on_c64_buffers() {
    let (reg, _lib) = registry();
    let c = |v: &[(f64, f64)]| -> Vec<Complex32> {
        v.iter()
            .map(|&(r, i)| Complex32::new(r as f32, i as f32))
            .collect()
    };
    let (x, y) = (c(&X), c(&Y));
    let lit = |v: &[Complex32]| Literal::Array(ArrayLiteral::from_vec(&[2, 3], v).unwrap());
    let got = call(&reg, "c64", "c64", &[lit(&x), lit(&y)])
        .unwrap()
        .to_vec::<Complex32>()
        .unwrap();
    // The values by hand for the first three: (1+2i)(-i) + i = 2, (-0.5)(2-2i) + i
    // = -1 + 2i, (3-4i)(3-4i) + i = -7 - 23i.
    assert_eq!(
        &got[..3],
        &[
            Complex32::new(2.0, 0.0),
            Complex32::new(-1.0, 2.0),
            Complex32::new(-7.0, -23.0),
        ]
    );
    let want: Vec<Complex32> = x
        .iter()
        .zip(&y)
        .map(|(a, b)| a * b.conj() + Complex32::new(0.0, 1.0))
        .collect();
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).norm() <= 1e-6 * (1.0 + w.norm()),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn c_handler_against_xla_c_api_computes_on_c128_buffers() {
    let (reg, _lib) = registry();
    let c = |v: &[(f64, f64)]| -> Vec<Complex64> {
        v.iter().map(|&(r, i)| Complex64::new(r, i)).collect()
    };
    let (x, y) = (c(&X), c(&Y));
    let lit = |v: &[Complex64]| Literal::Array(ArrayLiteral::from_vec(&[2, 3], v).unwrap());
    let got = call(&reg, "c128", "c128", &[lit(&x), lit(&y)])
        .unwrap()
        .to_vec::<Complex64>()
        .unwrap();
    assert_eq!(
        &got[..3],
        &[
            Complex64::new(2.0, 0.0),
            Complex64::new(-1.0, 2.0),
            Complex64::new(-7.0, -23.0),
        ]
    );
    let want: Vec<Complex64> = x
        .iter()
        .zip(&y)
        .map(|(a, b)| a * b.conj() + Complex64::new(0.0, 1.0))
        .collect();
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).norm() <= 1e-14 * (1.0 + w.norm()),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn c_handler_sees_the_dtype_codes_of_other_types() {
    let (reg, _lib) = registry();
    let x: Vec<f32> = (0..6).map(|i| i as f32).collect();
    let lit = Literal::Array(ArrayLiteral::from_vec(&[2, 3], &x).unwrap());
    let e = call(&reg, "f32", "f32", &[lit.clone(), lit]).unwrap_err();
    // F32 is XLA's dtype 11.
    assert!(
        e.contains("cx_mul_conj wants C64 (15) or C128 (18) buffers, got dtype 11"),
        "{e}"
    );
}
