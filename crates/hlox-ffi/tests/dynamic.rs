//! Run-time typed-FFI targets (`hlox_ffi::dynamic`): closures registered by
//! name, called with their buffers and decoded attributes, replaced in place.

use hlox_ffi::dynamic::register_dynamic;
use hlox_ffi::xla_ffi::{AttrValue, FfiError, Frame};
use hlox_ffi::{HostCustomCalls, Platform, Registry};
use hlox_hlo::{ArrayLiteral, ArrayShape, ElementType, Literal};
use std::sync::Arc;

const MODULE: &str = r#"HloModule dyn
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] custom-call(x), custom_call_target="NAME", api_version=API_VERSION_TYPED_FFI, backend_config="{factor = 3.0 : f32, tag = \"hi\", dims = array<i64: 1, 2>}"
}
"#;

fn f32s(v: &[f32]) -> Literal {
    let bytes = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
    Literal::Array(
        ArrayLiteral::from_bytes(
            ArrayShape::new(ElementType::F32, vec![v.len() as i64]),
            bytes,
        )
        .unwrap(),
    )
}

fn run(reg: &Registry, name: &str, x: &[f32]) -> Result<Vec<f32>, String> {
    let m = hlox_hlo::text::parse_module(&MODULE.replace("NAME", name)).unwrap();
    let bound = reg.bind(&m, Platform::Host).map_err(|e| e.to_string())?;
    let h = HostCustomCalls::new(bound);
    let inst = m.entry_computation().root_inst();
    let arg = f32s(x);
    let out = h
        .call(inst, inst.op.as_custom_call().unwrap(), &[&arg])
        .map_err(|e| e.to_string())?;
    Ok(out.to_vec::<f32>().unwrap())
}

fn scale_by(k: f32) -> impl Fn(&mut Frame<'_>, &[(String, AttrValue)]) -> Result<(), FfiError> {
    move |f, attrs| {
        let factor = match attrs.iter().find(|(n, _)| n == "factor") {
            Some((_, AttrValue::Scalar { bytes, .. })) => {
                f32::from_ne_bytes(bytes[..4].try_into().unwrap())
            }
            other => return Err(FfiError::msg(format!("factor: {other:?}"))),
        };
        assert!(attrs
            .iter()
            .any(|(n, v)| n == "tag" && matches!(v, AttrValue::Str(s) if s == b"hi")));
        assert!(attrs
            .iter()
            .any(|(n, v)| n == "dims" && matches!(v, AttrValue::Array { count: 2, .. })));
        let x = f.arg(0)?.slice::<f32>()?;
        let out = f.ret(0)?.slice_mut::<f32>()?;
        for (o, v) in out.iter_mut().zip(x) {
            *o = v * factor * k;
        }
        Ok(())
    }
}

#[test]
fn closure_target_runs_with_attributes_and_is_replaced_in_place() {
    let reg = Registry::new();
    register_dynamic(&reg, "dyn_scale", Platform::Host, Arc::new(scale_by(1.0))).unwrap();
    assert_eq!(
        run(&reg, "dyn_scale", &[1.0, 2.0, 3.0, 4.0]).unwrap(),
        [3.0, 6.0, 9.0, 12.0]
    );
    // The same name again: the handler is swapped, the registration kept.
    register_dynamic(&reg, "dyn_scale", Platform::Host, Arc::new(scale_by(2.0))).unwrap();
    assert_eq!(
        run(&reg, "dyn_scale", &[1.0, 0.0, 0.0, 0.0]).unwrap()[0],
        6.0
    );
    // A failing handler is the call's error.
    let fail = |_: &mut Frame<'_>, _: &[(String, AttrValue)]| -> Result<(), FfiError> {
        Err(FfiError::msg("no thanks"))
    };
    register_dynamic(&reg, "dyn_fail", Platform::Host, Arc::new(fail)).unwrap();
    let e = run(&reg, "dyn_fail", &[0.0; 4]).unwrap_err();
    assert!(e.contains("no thanks"), "{e}");
    // Another function under a name a static target holds is refused.
    let other = Registry::new();
    other
        .register_fn("taken", Platform::Host, hlox_targets::do_custom_call)
        .unwrap();
    let e = register_dynamic(&other, "taken", Platform::Host, Arc::new(scale_by(1.0))).unwrap_err();
    assert!(e.to_string().contains("already registered"), "{e}");
}

#[test]
fn untyped_c_registration_takes_the_calls_convention() {
    let reg = Registry::new();
    unsafe extern "C" fn null_target(
        _out: *mut std::ffi::c_void,
        _ins: *const *const std::ffi::c_void,
    ) {
    }
    let e = unsafe { reg.register_c_untyped("u", Platform::Host, std::ptr::null()) }.unwrap_err();
    assert!(e.to_string().contains("null"), "{e}");
    unsafe { reg.register_c_untyped("u", Platform::Host, null_target as *const std::ffi::c_void) }
        .unwrap();
    let t = reg.lookup("u", Platform::Host).unwrap();
    assert!(t.signature.is_none());
}

/// Complex buffers (XLA's C64 and C128 data types) reach a typed-FFI
/// handler through the C call frame with their dtype, dims and
/// interleaved parts, and its complex results come back.
#[test]
fn complex_buffers_reach_a_typed_ffi_handler() {
    use num_complex::{Complex32, Complex64};
    let reg = Registry::new();
    // out = conj(x) * i, checking the frame's dtype codes (C64 = 15, C128 = 18).
    let c64 = |f: &mut Frame<'_>, _: &[(String, AttrValue)]| -> Result<(), FfiError> {
        assert_eq!(f.arg(0)?.dtype(), 15);
        assert_eq!(f.arg(0)?.dims(), &[3]);
        let x = f.arg(0)?.slice::<Complex32>()?;
        let out = f.ret(0)?.slice_mut::<Complex32>()?;
        for (o, v) in out.iter_mut().zip(x) {
            *o = v.conj() * Complex32::new(0.0, 1.0);
        }
        Ok(())
    };
    let c128 = |f: &mut Frame<'_>, _: &[(String, AttrValue)]| -> Result<(), FfiError> {
        assert_eq!(f.arg(0)?.dtype(), 18);
        // The wrong element type is an error, not a reinterpretation.
        assert!(f.arg(0)?.slice::<Complex32>().is_err());
        let x = f.arg(0)?.slice::<Complex64>()?;
        let out = f.ret(0)?.slice_mut::<Complex64>()?;
        for (o, v) in out.iter_mut().zip(x) {
            *o = v * v;
        }
        Ok(())
    };
    register_dynamic(&reg, "cx64", Platform::Host, Arc::new(c64)).unwrap();
    register_dynamic(&reg, "cx128", Platform::Host, Arc::new(c128)).unwrap();
    for (name, ty) in [("cx64", "c64"), ("cx128", "c128")] {
        let text = format!(
            "HloModule cx\nENTRY main {{\n  x = {ty}[3] parameter(0)\n  ROOT r = {ty}[3] custom-call(x), custom_call_target=\"{name}\", api_version=API_VERSION_TYPED_FFI\n}}\n"
        );
        let m = hlox_hlo::text::parse_module(&text).unwrap();
        let h = HostCustomCalls::new(reg.bind(&m, Platform::Host).unwrap());
        let inst = m.entry_computation().root_inst();
        let vals = [(1.0, 2.0), (-0.5, 0.0), (3.0, -4.0)];
        let arg = if ty == "c64" {
            let v: Vec<Complex32> = vals.iter().map(|&(r, i)| Complex32::new(r, i)).collect();
            Literal::Array(ArrayLiteral::from_vec(&[3], &v).unwrap())
        } else {
            let v: Vec<Complex64> = vals
                .iter()
                .map(|&(r, i)| Complex64::new(r as f64, i as f64))
                .collect();
            Literal::Array(ArrayLiteral::from_vec(&[3], &v).unwrap())
        };
        let out = h
            .call(inst, inst.op.as_custom_call().unwrap(), &[&arg])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if ty == "c64" {
            let got = out.to_vec::<Complex32>().unwrap();
            // conj(a + bi) * i = b + ai
            assert_eq!(
                got,
                [
                    Complex32::new(2.0, 1.0),
                    Complex32::new(0.0, -0.5),
                    Complex32::new(-4.0, 3.0)
                ]
            );
        } else {
            let got = out.to_vec::<Complex64>().unwrap();
            assert_eq!(
                got,
                [
                    Complex64::new(-3.0, 4.0),
                    Complex64::new(0.25, -0.0),
                    Complex64::new(-7.0, -24.0)
                ]
            );
        }
    }
}
