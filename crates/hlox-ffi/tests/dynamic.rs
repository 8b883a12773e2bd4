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
