//! hlox-ffi on real buffers: Rust targets (registered with the macro in
//! hlox-targets), C plugins (targets/c, built by hlox-targets' build.rs) and
//! owned registries.

use hlox_ffi::*;
use hlox_hlo::entity::EntityRef;
use hlox_hlo::{
    CompId, Computation, CustomCall, CustomCallApiVersion, ElementType, InstId, Instruction,
    Literal, Module, Op, OutputOperandAlias, PrimaryMap, Shape,
};
use hlox_targets::AxpbyOpaque;
use std::ffi::{c_char, c_int, c_void};
use std::sync::Mutex;

use CustomCallApiVersion::{Original, StatusReturning, StatusReturningUnified};

fn f32s(n: usize) -> Shape {
    Shape::array(ElementType::F32, vec![n as i64])
}

fn cc(target: &str, api: CustomCallApiVersion, opaque: &[u8]) -> CustomCall {
    CustomCall {
        target: target.into(),
        opaque: opaque.to_vec(),
        api_version: api,
        ..Default::default()
    }
}

/// A module whose entry computation has `operands.len()` parameters and one
/// custom call per entry of `calls` (all on those parameters); root is the last.
fn module(operands: &[Shape], calls: &[(CustomCall, Shape)]) -> Module {
    let mut insts: PrimaryMap<InstId, Instruction> = PrimaryMap::new();
    let mut params = Vec::new();
    for (i, s) in operands.iter().enumerate() {
        params.push(insts.push(Instruction::new(
            format!("p{i}"),
            Op::Parameter { number: i as u64 },
            s.clone(),
            vec![],
        )));
    }
    let mut root = params.first().copied().unwrap_or(InstId::new(0));
    for (i, (c, s)) in calls.iter().enumerate() {
        root = insts.push(Instruction::new(
            format!("custom-call.{i}"),
            Op::CustomCall(Box::new(c.clone())),
            s.clone(),
            params.clone(),
        ));
    }
    let mut comps: PrimaryMap<CompId, Computation> = PrimaryMap::new();
    let entry = comps.push(Computation {
        name: "main".into(),
        instructions: insts,
        params,
        root,
        execution_thread: None,
    });
    Module {
        name: "m".into(),
        computations: comps,
        entry,
        input_output_alias: vec![],
        is_scheduled: false,
        frontend_attributes: Vec::new(),
    }
}

/// Binds a one-call module and runs that call on `operands`.
fn run(
    reg: &Registry,
    call: CustomCall,
    operands: &[Literal],
    result: Shape,
) -> Result<Literal, String> {
    let shapes: Vec<Shape> = operands.iter().map(|l| l.shape()).collect();
    let m = module(&shapes, &[(call, result)]);
    let bound = reg.bind(&m, Platform::Host).map_err(|e| e.to_string())?;
    let h = HostCustomCalls::new(bound);
    let comp = m.entry_computation();
    let inst = comp.root_inst();
    let ops: Vec<&Literal> = operands.iter().collect();
    h.call(inst, inst.op.as_custom_call().unwrap(), &ops)
        .map_err(|e| e.to_string())
}

fn statics() -> Registry {
    Registry::with_static_targets().expect("static registrations conflict")
}

fn c_plugin(path: &str) -> &str {
    assert!(
        !path.is_empty(),
        "C plugins were not built: {}",
        hlox_targets::C_BUILD_ERROR
    );
    path
}

fn c_registry() -> Registry {
    let r = Registry::new();
    r.load_library(c_plugin(hlox_targets::C_PLUGIN_WITH_REGISTRATION))
        .expect("load C plugin");
    r
}

fn c_symbol_registry() -> Registry {
    let r = Registry::new();
    let lib = r
        .load_library(c_plugin(hlox_targets::C_PLUGIN_SYMBOLS_ONLY))
        .expect("load C plugin");
    assert!(!lib.has_registration_function());
    r
}

fn seed_operands() -> (Vec<Literal>, Vec<f32>) {
    let b: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let c: Vec<f32> = (0..2048).map(|i| i as f32 * 0.5).collect();
    let want: Vec<f32> = (0..2048).map(|i| b[i % 128] + c[i]).collect();
    (vec![Literal::r1(&b), Literal::r1(&c)], want)
}

fn check_seed(reg: &Registry) {
    let (ops, want) = seed_operands();
    for (name, api) in [
        ("do_custom_call", Original),
        ("do_custom_call_status", StatusReturning),
        ("do_custom_call_unified", StatusReturningUnified),
    ] {
        let out = run(reg, cc(name, api, b"ignored"), &ops, f32s(2048)).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), want, "{name}");
    }
}

#[test]
fn seed_target_every_api_version_rust() {
    check_seed(&statics());
}

#[test]
fn seed_target_every_api_version_c_plugin_registration() {
    check_seed(&c_registry());
}

#[test]
fn seed_target_every_api_version_c_plugin_plain_symbols() {
    let r = c_symbol_registry();
    let t = r.lookup("do_custom_call", Platform::Host).unwrap();
    assert_eq!(
        t.signature, None,
        "a target found by dlsym has no recorded signature"
    );
    assert!(matches!(t.origin, Origin::Symbol(_)));
    check_seed(&r);
}

#[test]
fn global_registry_holds_macro_registrations() {
    let t = Registry::global()
        .lookup("do_custom_call", Platform::Host)
        .expect("registered by the macro");
    assert_eq!(t.signature, Some(Signature::HOST_ORIGINAL));
    assert!(matches!(t.origin, Origin::Macro { .. }));
    // The origin names the line of the macro's invocation.
    if let Origin::Macro { file, line } = t.origin {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let text = std::fs::read_to_string(root.join(file)).expect("the origin's file");
        let at = text.lines().nth(line as usize - 1).unwrap_or_default();
        assert!(
            at.contains("register_custom_call_target!"),
            "{file}:{line}: {at}"
        );
    }
    assert_eq!(
        Registry::global()
            .lookup("panics_unwind", Platform::Host)
            .unwrap()
            .signature,
        Some(Signature::HOST_STATUS_RETURNING_UNIFIED)
    );
    let c = Registry::global()
        .lookup("inplace_add_one", Platform::Host)
        .unwrap();
    assert!(
        !c.catches_panics,
        "extern \"C\" targets cannot catch panics"
    );
    check_seed(Registry::global());
}

fn check_axpby(reg: &Registry) {
    let x: Vec<f32> = (0..10).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..10).map(|i| 100.0 - i as f32).collect();
    let opaque = encode_opaque(&AxpbyOpaque {
        alpha: 2.0,
        beta: -0.5,
        n: 10,
    })
    .unwrap();
    let out = run(
        reg,
        cc("axpby", StatusReturningUnified, &opaque),
        &[Literal::r1(&x), Literal::r1(&y)],
        f32s(10),
    )
    .unwrap();
    let want: Vec<f32> = (0..10).map(|i| 2.0 * x[i] - 0.5 * y[i]).collect();
    assert_eq!(out.to_vec::<f32>().unwrap(), want);
    // A bad opaque is reported through the status.
    let err = run(
        reg,
        cc("axpby", StatusReturningUnified, b"\x01"),
        &[Literal::r1(&x), Literal::r1(&y)],
        f32s(10),
    )
    .unwrap_err();
    assert!(err.contains("axpby") && err.contains("opaque"), "{err}");
}

#[test]
fn axpby_with_serde_opaque_rust_and_c() {
    check_axpby(&statics());
    check_axpby(&c_registry());
}

fn check_tuples(reg: &Registry) {
    let a = [1.0f32, 2.0, 3.0, 4.0];
    let b = [10.0f32, 20.0, 30.0, 40.0];
    let c = [0.5f32, 0.25, 2.0, -1.0];
    let operand = Literal::tuple(vec![
        Literal::r1(&a),
        Literal::tuple(vec![Literal::r1(&b), Literal::r1(&c)]),
    ]);
    let result = Shape::tuple(vec![f32s(4), f32s(4)]);
    let out = run(
        reg,
        cc("tuple_fma", StatusReturning, b""),
        &[operand],
        result,
    )
    .unwrap();
    let elems = out.tuple_elements().unwrap();
    let scratch: Vec<f32> = (0..4).map(|i| b[i] * c[i]).collect();
    let want: Vec<f32> = (0..4).map(|i| a[i] + scratch[i]).collect();
    assert_eq!(elems[0].to_vec::<f32>().unwrap(), want);
    assert_eq!(
        elems[1].to_vec::<f32>().unwrap(),
        scratch,
        "scratch element is a real, writable buffer"
    );
}

#[test]
fn tuple_operands_and_tuple_result_with_scratch() {
    check_tuples(&statics());
    check_tuples(&c_registry());
    check_tuples(&c_symbol_registry());
}

fn check_opaque_echo(reg: &Registry) {
    let opaque = b"a\0b\0\xffc\0";
    let result = Shape::tuple(vec![
        Shape::scalar(ElementType::S64),
        Shape::array(ElementType::U8, vec![32]),
    ]);
    let out = run(
        reg,
        cc("opaque_echo", StatusReturningUnified, opaque),
        &[],
        result,
    )
    .unwrap();
    let e = out.tuple_elements().unwrap();
    assert_eq!(e[0].get_first::<i64>().unwrap(), opaque.len() as i64);
    let bytes = e[1].to_vec::<u8>().unwrap();
    assert_eq!(&bytes[..opaque.len()], opaque);
    assert!(bytes[opaque.len()..].iter().all(|&b| b == 0));
}

#[test]
fn opaque_bytes_with_nul_reach_the_target_verbatim() {
    check_opaque_echo(&statics());
    check_opaque_echo(&c_registry());
}

fn check_failures(reg: &Registry) {
    let err = run(reg, cc("always_fails", StatusReturning, b""), &[], f32s(1)).unwrap_err();
    assert!(
        err.contains("always_fails: the target reports an error"),
        "{err}"
    );
    // The caller (evaluator, executable) names instruction and target; the
    // handler reports what the target said, without repeating them.
    assert_eq!(err, "always_fails: the target reports an error");
    // XLA keeps the message up to its first NUL.
    let err = run(
        reg,
        cc(
            "fail_with_opaque",
            StatusReturningUnified,
            b"first part\0second part",
        ),
        &[],
        f32s(1),
    )
    .unwrap_err();
    assert_eq!(err, "first part");
}

#[test]
fn status_failure_with_message() {
    check_failures(&statics());
    check_failures(&c_registry());
}

#[test]
fn status_c_functions_follow_xla() {
    let mut s = XlaCustomCallStatus::new();
    assert_eq!(s.failure(), None);
    unsafe {
        XlaCustomCallStatusSetFailure(&mut s, b"abc\0def".as_ptr() as *const c_char, 7);
        assert_eq!(s.failure().as_deref(), Some("abc"));
        XlaCustomCallStatusSetFailure(&mut s, b"abcdef".as_ptr() as *const c_char, 2);
        assert_eq!(s.failure().as_deref(), Some("ab"));
        XlaCustomCallStatusSetSuccess(&mut s);
        assert!(s.is_success());
        XlaCustomCallStatusSetFailure(std::ptr::null_mut(), b"x".as_ptr() as *const c_char, 1);
    }
}

#[test]
fn panicking_rust_targets_become_errors_and_the_process_survives() {
    let reg = statics();
    let err = run(&reg, cc("panics", StatusReturning, b""), &[], f32s(1)).unwrap_err();
    assert!(
        err.contains("panicked") && err.contains("panics: this target always panics"),
        "{err}"
    );
    let err = run(&reg, cc("panics_original", Original, b""), &[], f32s(1)).unwrap_err();
    assert!(
        err.contains("panicked") && err.contains("panics_original: no status"),
        "{err}"
    );
    let err = run(
        &reg,
        cc("panics_unwind", StatusReturningUnified, b""),
        &[],
        f32s(1),
    )
    .unwrap_err();
    assert!(err.contains("panics_unwind: unwinding"), "{err}");
    // Still alive and working.
    check_seed(&reg);
    assert_eq!(take_panic(), None);
}

#[test]
fn missing_target_is_a_bind_error_with_suggestions_and_all_problems() {
    let reg = statics();
    let m = module(
        &[f32s(4)],
        &[
            (cc("do_custom_cal", Original, b""), f32s(4)),
            (cc("tuple_fm", StatusReturning, b""), f32s(4)),
            (cc("do_custom_call_status", Original, b""), f32s(4)),
            (cc("zzzzzzzzzzzz", Original, b""), f32s(4)),
        ],
    );
    let err = reg.bind(&m, Platform::Host).unwrap_err();
    assert_eq!(err.problems.len(), 4, "{err}");
    let text = err.to_string();
    assert!(
        text.contains("custom-call target \"do_custom_cal\" is not registered for platform Host"),
        "{text}"
    );
    assert!(text.contains("did you mean \"do_custom_call\""), "{text}");
    assert!(text.contains("did you mean \"tuple_fma\""), "{text}");
    assert!(text.contains("--plugin"), "{text}");
    assert!(text.contains("instruction custom-call.0"), "{text}");
    assert!(text.contains(
        "target \"do_custom_call_status\" is registered as API_VERSION_STATUS_RETURNING but the custom call asks for API_VERSION_ORIGINAL"
    ));
    match &err.problems[3] {
        BindProblem::Missing { suggestions, .. } => assert!(suggestions.is_empty()),
        p => panic!("{p:?}"),
    }
    // A Host name bound for CUDA says where it is registered.
    let m = module(&[], &[(cc("do_custom_call", Original, b""), f32s(4))]);
    let text = reg.bind(&m, Platform::Cuda).unwrap_err().to_string();
    assert!(
        text.contains("not registered for platform CUDA (it is registered for Host)"),
        "{text}"
    );
}

#[test]
fn api_version_mismatch_for_rust_and_c_targets() {
    for reg in [statics(), c_registry()] {
        let m = module(&[], &[(cc("axpby", StatusReturning, b""), f32s(1))]);
        let e = reg.bind(&m, Platform::Host).unwrap_err();
        assert_eq!(
            e.problems[0].to_string(),
            "instruction custom-call.0: target \"axpby\" is registered as API_VERSION_STATUS_RETURNING_UNIFIED \
             but the custom call asks for API_VERSION_STATUS_RETURNING"
        );
    }
    // A C-convention target called with typed FFI is a mismatch.
    let m = module(
        &[],
        &[(cc("axpby", CustomCallApiVersion::TypedFfi, b""), f32s(1))],
    );
    let e = statics().bind(&m, Platform::Host).unwrap_err();
    assert!(e.to_string().contains("API_VERSION_TYPED_FFI"), "{e}");
}

#[test]
fn duplicate_registration() {
    let reg = Registry::new();
    reg.register_fn("t", Platform::Host, hlox_targets::do_custom_call)
        .unwrap();
    reg.register_fn("t", Platform::Host, hlox_targets::do_custom_call)
        .unwrap(); // same function: no-op
    let e = reg
        .register_fn("t", Platform::Host, hlox_targets::panics_original)
        .unwrap_err();
    assert!(matches!(e, RegistryError::Duplicate { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("\"t\" is already registered for Host"),
        "{e}"
    );
    // The first registration stands.
    let (ops, want) = seed_operands();
    assert_eq!(
        run(&reg, cc("t", Original, b""), &ops, f32s(2048))
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        want
    );
    // Same name on another platform is another key.
    reg.register_fn("t", Platform::Cuda, cuda_recorder).unwrap();
    // A Host function cannot be registered for CUDA.
    let e = reg
        .register_fn("u", Platform::Cuda, hlox_targets::do_custom_call)
        .unwrap_err();
    assert!(matches!(e, RegistryError::PlatformMismatch { .. }), "{e}");
    // C functions: same pointer is a no-op, another pointer is an error.
    let f = hlox_targets::inplace_add_one as *const c_void;
    unsafe {
        reg.register_c("c", Platform::Host, StatusReturning, f)
            .unwrap();
        reg.register_c("c", Platform::Host, StatusReturning, f)
            .unwrap();
        let other = hlox_targets::do_custom_call as *const c_void;
        assert!(reg
            .register_c("c", Platform::Host, StatusReturning, other)
            .is_err());
        assert!(reg
            .register_c("n", Platform::Host, Original, std::ptr::null())
            .is_err());
    }
    // Loading the same plugin twice re-registers identical functions: fine.
    let r = c_registry();
    r.load_library(hlox_targets::C_PLUGIN_WITH_REGISTRATION)
        .unwrap();
}

#[test]
fn plugin_errors_name_library_and_symbol() {
    let reg = Registry::new();
    let e = reg.load_library("/nonexistent/libnope.so").unwrap_err();
    assert!(matches!(e, PluginError::Open { .. }));
    assert!(e.to_string().contains("/nonexistent/libnope.so"), "{e}");

    // Not a shared library at all.
    let bogus = std::env::temp_dir().join(format!("hlox-ffi-bogus-{}.so", std::process::id()));
    std::fs::write(&bogus, b"not an ELF file").unwrap();
    let e = reg.load_library(&bogus).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!(
            "cannot load custom-call library {}",
            bogus.display()
        )),
        "{e}"
    );
    std::fs::remove_file(&bogus).ok();

    // Bad registrations: all reported, nothing kept.
    let bad = c_plugin(hlox_targets::C_PLUGIN_BAD_REGISTRATION);
    let e = reg.load_library(bad).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains(bad) && text.contains("hlox_register_custom_call_targets"),
        "{text}"
    );
    assert!(
        text.contains("\"on_tpu\": unknown platform \"TPU\""),
        "{text}"
    );
    assert!(
        text.contains("\"bad_version\": unknown api_version 7"),
        "{text}"
    );
    assert!(
        text.contains("\"null_fn\": the function pointer is null"),
        "{text}"
    );
    assert!(
        text.contains("set_traits for \"never_registered\" on CUDA: the plugin has not registered that target (call register_target first)"),
        "{text}"
    );
    assert!(
        text.contains("set_traits for \"good\": unknown trait bits 0x80"),
        "{text}"
    );
    assert!(reg.names(Platform::Host).is_empty());
    assert!(reg.libraries().is_empty());

    // A plain-symbol plugin without the requested symbol.
    let sym = c_plugin(hlox_targets::C_PLUGIN_SYMBOLS_ONLY);
    reg.load_library(sym).unwrap();
    let m = module(
        &[],
        &[(cc("not_exported_anywhere", Original, b""), f32s(1))],
    );
    let text = reg.bind(&m, Platform::Host).unwrap_err().to_string();
    assert!(
        text.contains("no loaded library exports a symbol of that name"),
        "{text}"
    );
    assert!(text.contains(sym), "names the library: {text}");
}

#[test]
fn output_operand_aliasing_shares_one_buffer() {
    for reg in [statics(), c_registry()] {
        let x = Literal::r1(&[1.0f32, 2.0, 3.0, 4.0]);
        let mut call = cc("inplace_add_one", StatusReturning, b"");
        call.output_operand_aliasing = vec![OutputOperandAlias {
            output_index: vec![],
            operand: 0,
            operand_index: vec![],
        }];
        let out = run(&reg, call, std::slice::from_ref(&x), f32s(4)).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![2.0, 3.0, 4.0, 5.0]);
        // Without aliasing the target sees two buffers and says so.
        let err = run(
            &reg,
            cc("inplace_add_one", StatusReturning, b""),
            std::slice::from_ref(&x),
            f32s(4),
        )
        .unwrap_err();
        assert!(err.contains("not aliased"), "{err}");
        // Aliasing an operand of another shape is an error, not a bad call.
        let mut call = cc("inplace_add_one", StatusReturning, b"");
        call.output_operand_aliasing = vec![OutputOperandAlias {
            output_index: vec![],
            operand: 0,
            operand_index: vec![],
        }];
        let err = run(&reg, call, &[Literal::r1(&[1.0f32, 2.0])], f32s(4)).unwrap_err();
        assert!(err.contains("aliases operand 0"), "{err}");
    }
}

#[test]
fn aliasing_into_tuple_elements() {
    // Result element {1} aliases operand 0's element {1, 0}: tuple_fma's scratch
    // then starts as b and is overwritten with b * c.
    let reg = statics();
    let b = [10.0f32, 20.0, 30.0, 40.0];
    let c = [0.5f32, 0.25, 2.0, -1.0];
    let operand = Literal::tuple(vec![
        Literal::r1(&[0.0f32; 4]),
        Literal::tuple(vec![Literal::r1(&b), Literal::r1(&c)]),
    ]);
    let mut call = cc("tuple_fma", StatusReturning, b"");
    call.output_operand_aliasing = vec![OutputOperandAlias {
        output_index: vec![1],
        operand: 0,
        operand_index: vec![1, 0],
    }];
    let out = run(&reg, call, &[operand], Shape::tuple(vec![f32s(4), f32s(4)])).unwrap();
    let scratch: Vec<f32> = (0..4).map(|i| b[i] * c[i]).collect();
    assert_eq!(
        out.tuple_elements().unwrap()[0].to_vec::<f32>().unwrap(),
        scratch
    );
}

#[test]
fn operand_layout_constraints_relayout_operands() {
    // XLA's rule (CustomCall::buffer_shapes): a constrained call gets its
    // operands in the constrained layouts and its result in its shape's
    // layout; an unconstrained one gets every buffer in the default layout.
    // axpby copies flat buffers, so its output bytes are what it was given.
    let reg = statics();
    let x = Literal::r2(&[&[1.0f32, 2.0, 3.0], &[4.0, 5.0, 6.0]]).unwrap();
    let col_major = hlox_hlo::Layout {
        minor_to_major: vec![0, 1],
    };
    let col = Literal::Array(x.as_array().unwrap().relayout(col_major.clone()));
    let zero = Literal::r2(&[&[0.0f32; 3], &[0.0; 3]]).unwrap();
    let opaque = encode_opaque(&AxpbyOpaque {
        alpha: 1.0,
        beta: 0.0,
        n: 6,
    })
    .unwrap();
    let row_shape = Shape::array(ElementType::F32, vec![2, 3]);
    let mut col_shape = row_shape.clone();
    col_shape.as_array_mut().unwrap().layout = col_major;
    // Constrained to row-major: the column-major operand is relaid out.
    let mut call = cc("axpby", StatusReturningUnified, &opaque);
    call.operand_layout_constraints = Some(vec![row_shape.clone(), row_shape.clone()]);
    let out = run(&reg, call, &[col.clone(), zero.clone()], row_shape.clone()).unwrap();
    assert_eq!(
        out.as_array().unwrap().bytes(),
        x.as_array().unwrap().bytes()
    );
    // Constrained to column-major (as JAX's LAPACK calls are): the target
    // sees column-major bytes, and its column-major result is kept.
    let mut call = cc("axpby", StatusReturningUnified, &opaque);
    call.operand_layout_constraints = Some(vec![col_shape.clone(), col_shape.clone()]);
    let out = run(&reg, call, &[x.clone(), zero.clone()], col_shape.clone()).unwrap();
    assert_eq!(out.shape(), col_shape);
    assert_eq!(
        out.as_array().unwrap().bytes(),
        col.as_array().unwrap().bytes()
    );
    // Unconstrained: every buffer in the default layout, whatever the
    // operand's and the declared result's layouts; the result is relaid
    // out to the declared layout after the call.
    let out = run(
        &reg,
        cc("axpby", StatusReturningUnified, &opaque),
        &[col.clone(), zero],
        col_shape.clone(),
    )
    .unwrap();
    assert_eq!(out.shape(), col_shape);
    assert_eq!(
        out.as_array().unwrap().bytes(),
        col.as_array().unwrap().bytes()
    );
}

// ---- CUDA conventions (recorded and bound; called here with host pointers) ----

/// (stream, buffers, opaque) of each recorded call.
type Seen = Vec<(usize, Vec<usize>, Vec<u8>)>;
static CUDA_SEEN: Mutex<Seen> = Mutex::new(Vec::new());

fn cuda_recorder(
    stream: CUstream,
    buffers: *mut *mut c_void,
    opaque: *const c_char,
    opaque_len: usize,
) {
    let bufs = unsafe { std::slice::from_raw_parts(buffers, 6) }
        .iter()
        .map(|p| *p as usize)
        .collect();
    let op = unsafe { opaque_bytes(opaque, opaque_len) }.to_vec();
    CUDA_SEEN.lock().unwrap().push((stream as usize, bufs, op));
}

fn cuda_status(
    _s: CUstream,
    _b: *mut *mut c_void,
    opaque: *const c_char,
    len: usize,
    status: *mut XlaCustomCallStatus,
) {
    unsafe { XlaCustomCallStatusSetFailure(status, opaque, len) };
}

#[test]
fn cuda_targets_register_bind_and_flatten_buffers_in_pre_order() {
    let reg = Registry::new();
    reg.register_fn("rec", Platform::Cuda, cuda_recorder)
        .unwrap();
    reg.register_fn("st", Platform::Cuda, cuda_status).unwrap();
    assert_eq!(
        reg.lookup("rec", Platform::Cuda).unwrap().signature,
        Some(Signature::CUDA_ORIGINAL)
    );

    // The guide's example: p0 = (f32[32], (f32[64], f32[128]), f32[256]); out = (f32[512], f32[1024]).
    let p0 = Shape::tuple(vec![
        f32s(32),
        Shape::tuple(vec![f32s(64), f32s(128)]),
        f32s(256),
    ]);
    let out = Shape::tuple(vec![f32s(512), f32s(1024)]);
    let order = cuda_buffer_order(std::slice::from_ref(&p0), &out);
    let got: Vec<(BufferRole, Vec<i64>, i64)> = order
        .iter()
        .map(|b| {
            (
                b.role.clone(),
                b.index.clone(),
                b.shape.as_ref().unwrap().dims[0],
            )
        })
        .collect();
    use BufferRole::*;
    assert_eq!(
        got,
        vec![
            (Operand(0), vec![0], 32),
            (Operand(0), vec![1, 0], 64),
            (Operand(0), vec![1, 1], 128),
            (Operand(0), vec![2], 256),
            (Result, vec![0], 512),
            (Result, vec![1], 1024),
        ]
    );

    // Bind for CUDA; a status-returning CUDA function serves both status versions.
    let m = module(
        &[p0],
        &[
            (cc("rec", Original, b"k\0v"), out.clone()),
            (
                cc("st", StatusReturningUnified, b"gpu says no"),
                out.clone(),
            ),
            (cc("st", StatusReturning, b"x"), out),
        ],
    );
    let bound = reg.bind(&m, Platform::Cuda).unwrap();
    assert_eq!(bound.len(), 2);
    let mut fake: Vec<*mut c_void> = (1..=6).map(|i| (i * 0x100) as *mut c_void).collect();
    unsafe {
        invoke_cuda(
            bound.get("rec").unwrap(),
            &cc("rec", Original, b"k\0v"),
            0x42 as CUstream,
            &mut fake,
        )
        .unwrap();
        let e = invoke_cuda(
            bound.get("st").unwrap(),
            &cc("st", StatusReturningUnified, b"gpu says no"),
            std::ptr::null_mut(),
            &mut fake,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "custom-call target \"st\" failed: gpu says no"
        );
    }
    let seen = CUDA_SEEN.lock().unwrap();
    assert_eq!(
        seen[0],
        (
            0x42,
            vec![0x100, 0x200, 0x300, 0x400, 0x500, 0x600],
            b"k\0v".to_vec()
        )
    );
    // CUDA targets are not callable on the host.
    let e = HostCustomCalls::new(bound);
    let inst = m.entry_computation().root_inst();
    assert!(e
        .call(inst, inst.op.as_custom_call().unwrap(), &[])
        .unwrap_err()
        .to_string()
        .contains("bound for CUDA"));
}

#[test]
fn platform_names() {
    for s in ["Host", "host", "cpu", "CPU"] {
        assert_eq!(Platform::parse(s), Some(Platform::Host));
    }
    for s in ["CUDA", "cuda", "gpu", "GPU"] {
        assert_eq!(Platform::parse(s), Some(Platform::Cuda));
    }
    assert_eq!(Platform::parse("TPU"), None);
    assert_eq!(Platform::parse("HOST"), None);
}

#[test]
fn opaque_round_trip_and_errors() {
    let v = AxpbyOpaque {
        alpha: 1.5,
        beta: -2.0,
        n: 300,
    };
    let bytes = encode_opaque(&v).unwrap();
    // f32 little-endian, then the u64 as a varint: what the C axpby decodes.
    assert_eq!(&bytes[..4], &1.5f32.to_le_bytes());
    assert_eq!(&bytes[8..], &[0xac, 0x02]);
    assert_eq!(decode_opaque::<AxpbyOpaque>(&bytes).unwrap(), v);
    let mut long = bytes.clone();
    long.push(0);
    assert!(decode_opaque::<AxpbyOpaque>(&long)
        .unwrap_err()
        .to_string()
        .contains("trailing"));
    assert!(decode_opaque::<AxpbyOpaque>(&bytes[..3]).is_err());
}

#[test]
fn the_test_binary_exports_the_status_functions() {
    // What a plain C plugin relies on: the two symbols in this process's
    // dynamic symbol table (dlsym on the main program).
    let this = libloading::os::unix::Library::this();
    for name in [
        "XlaCustomCallStatusSetSuccess",
        "XlaCustomCallStatusSetFailure",
    ] {
        let s = unsafe { this.get::<*mut c_void>(name) };
        assert!(
            s.is_ok(),
            "{name} is not exported by the executable: link with --export-dynamic-symbol"
        );
    }
}

#[test]
fn rust_cdylib_is_a_plugin_too() {
    // target/<profile>/deps/ffi-<hash> -> target/<profile>/libhlox_targets.so
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap();
    let so = [
        dir.join("libhlox_targets.so"),
        dir.parent().unwrap().join("libhlox_targets.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("cargo builds hlox-targets' cdylib next to the test binary");
    let reg = Registry::new();
    reg.load_library(&so).unwrap();
    let t = reg
        .lookup("do_custom_call_unified", Platform::Host)
        .unwrap();
    assert!(matches!(t.origin, Origin::Plugin(_)));
    let linked_in = statics()
        .lookup("do_custom_call_unified", Platform::Host)
        .unwrap();
    assert_ne!(
        t.func.addr(),
        linked_in.func.addr(),
        "the plugin's own trampoline, not the test binary's"
    );
    check_seed(&reg);
    check_failures(&reg);
    let err = run(&reg, cc("panics", StatusReturning, b""), &[], f32s(1)).unwrap_err();
    assert!(err.contains("panics: this target always panics"), "{err}");
}

// ---- Traits (graph compatibility) -----------------------------------------

fn graph_target(_s: CUstream, _b: *mut *mut c_void, _o: *const c_char, _l: usize) {}
hlox_ffi::register_custom_call_target!(
    graph_target,
    "graph_target",
    "CUDA",
    hlox_ffi::Traits::GRAPH_COMPATIBLE
);

unsafe extern "C" fn c_graph_target(
    _s: CUstream,
    _b: *mut *mut c_void,
    _o: *const c_char,
    _l: usize,
    _st: *mut XlaCustomCallStatus,
) {
}

/// A plugin registration function as a C plugin writes it.
unsafe extern "C" fn c_style_plugin(r: *const hlox_ffi::HloxCustomCallRegistrar) -> c_int {
    let r = unsafe { &*r };
    let mut rc = unsafe {
        (r.register_target)(
            r.ctx,
            c"c_graph".as_ptr(),
            c"CUDA".as_ptr(),
            2,
            c_graph_target as *mut c_void,
        )
    };
    rc |= unsafe {
        (r.set_traits)(
            r.ctx,
            c"c_graph".as_ptr(),
            c"gpu".as_ptr(),
            hlox_ffi::Traits::GRAPH_COMPATIBLE.bits(),
        )
    };
    rc
}

unsafe extern "C" fn this_binarys_static_targets(
    r: *const hlox_ffi::HloxCustomCallRegistrar,
) -> c_int {
    unsafe { hlox_ffi::__private::register_static_targets_with(r) }
}

#[test]
fn traits_reach_the_registry_from_the_macro_the_rust_api_and_plugins() {
    use hlox_ffi::Traits;
    assert_eq!(Traits::from_bits(1), Some(Traits::GRAPH_COMPATIBLE));
    assert_eq!(Traits::from_bits(2), None);
    assert_eq!(Traits::GRAPH_COMPATIBLE.to_string(), "graph_compatible");

    // The macro's fourth argument.
    let t = statics().lookup("graph_target", Platform::Cuda).unwrap();
    assert_eq!(t.traits, Traits::GRAPH_COMPATIBLE);
    assert_eq!(
        statics()
            .lookup("do_custom_call", Platform::Host)
            .unwrap()
            .traits,
        Traits::NONE
    );
    assert_eq!(
        Registry::global()
            .lookup("graph_target", Platform::Cuda)
            .unwrap()
            .traits,
        Traits::GRAPH_COMPATIBLE
    );

    // Registry::set_traits, and its error for an unknown target.
    let reg = Registry::new();
    reg.register_fn("rec", Platform::Cuda, cuda_recorder)
        .unwrap();
    assert_eq!(
        reg.lookup("rec", Platform::Cuda).unwrap().traits,
        Traits::NONE
    );
    reg.set_traits("rec", Platform::Cuda, Traits::GRAPH_COMPATIBLE)
        .unwrap();
    assert_eq!(
        reg.lookup("rec", Platform::Cuda).unwrap().traits,
        Traits::GRAPH_COMPATIBLE
    );
    let e = reg
        .set_traits("rec", Platform::Host, Traits::GRAPH_COMPATIBLE)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "no custom-call target \"rec\" is registered for Host; register it before setting its traits"
    );

    // The registrar's set_traits, from a C-style registration function.
    let reg = Registry::new();
    unsafe { reg.register_plugin("c-style", c_style_plugin) }.unwrap();
    let t = reg.lookup("c_graph", Platform::Cuda).unwrap();
    assert_eq!(t.traits, Traits::GRAPH_COMPATIBLE);
    assert!(matches!(&t.origin, Origin::Plugin(p) if p.to_str() == Some("c-style")));

    // export_plugin!'s body passes the macro's traits through set_traits.
    let reg = Registry::new();
    unsafe { reg.register_plugin("statics", this_binarys_static_targets) }.unwrap();
    assert_eq!(
        reg.lookup("graph_target", Platform::Cuda).unwrap().traits,
        Traits::GRAPH_COMPATIBLE
    );
    assert_eq!(
        reg.lookup("do_custom_call", Platform::Host).unwrap().traits,
        Traits::NONE
    );
}

// ---------------------------------------------------------------- typed FFI

#[test]
fn typed_ffi_attributes_parse_as_jax_prints_them_and_errors_name_the_column() {
    use hlox_ffi::xla_ffi::abi::dtype;
    use hlox_ffi::xla_ffi::{parse_attrs, AttrValue};
    // Printed by jax.jit(...).lower(...).as_text(dialect="hlo") (JAX 0.11).
    let text = br#"{a = 1.500000e+00 : f32, arr = dense<[1, 2, 3]> : tensor<3xi64>, b = 2.500000e+00 : f64, c = 3 : i64, d = -4 : i32, dic = {k = 1 : i64, z = "v"}, e = true, empty = dense<> : tensor<0xi64>, f16 = 1.000000e+00 : f16, i8 = -3 : i8, inf = 0x7FF0000000000000 : f64, nan = 0x7FC00000 : f32, s = "hi \22q\22\0A", u = 200 : ui8}"#;
    let a = parse_attrs(text).unwrap();
    let get = |n: &str| {
        a.iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    let scalar = |d: i32, b: &[u8]| AttrValue::Scalar {
        dtype: d,
        bytes: b.to_vec(),
    };
    assert_eq!(get("a"), scalar(dtype::F32, &1.5f32.to_ne_bytes()));
    assert_eq!(get("c"), scalar(dtype::S64, &3i64.to_ne_bytes()));
    assert_eq!(get("d"), scalar(dtype::S32, &(-4i32).to_ne_bytes()));
    assert_eq!(get("e"), scalar(dtype::PRED, &[1]));
    assert_eq!(get("u"), scalar(dtype::U8, &[200]));
    assert_eq!(get("i8"), scalar(dtype::S8, &[(-3i8) as u8]));
    assert_eq!(get("inf"), scalar(dtype::F64, &f64::INFINITY.to_ne_bytes()));
    assert_eq!(get("f16"), scalar(dtype::F16, &[0x00, 0x3c]));
    assert_eq!(get("s"), AttrValue::Str(b"hi \"q\"\n".to_vec()));
    let three: Vec<u8> = [1i64, 2, 3].iter().flat_map(|v| v.to_ne_bytes()).collect();
    assert_eq!(
        get("arr"),
        AttrValue::Array {
            dtype: dtype::S64,
            count: 3,
            bytes: three
        }
    );
    assert_eq!(
        get("empty"),
        AttrValue::Array {
            dtype: dtype::S64,
            count: 0,
            bytes: vec![]
        }
    );
    let AttrValue::Dict(d) = get("dic") else {
        panic!("dic")
    };
    assert_eq!(d.len(), 2);
    let names: Vec<&str> = a.iter().map(|(k, _)| k.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    // Splats, array<...>, defaults (i64, f64) and sorting of unsorted input.
    let a = parse_attrs(b"{z = dense<7> : tensor<2xi32>, y = array<i64: 4, 5>, x = 9, w = 0.5}")
        .unwrap();
    let names: Vec<&str> = a.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["w", "x", "y", "z"]);
    assert_eq!(a[0].1, scalar(dtype::F64, &0.5f64.to_ne_bytes()));
    assert_eq!(a[1].1, scalar(dtype::S64, &9i64.to_ne_bytes()));
    let sevens: Vec<u8> = [7i32, 7].iter().flat_map(|v| v.to_ne_bytes()).collect();
    assert_eq!(
        a[3].1,
        AttrValue::Array {
            dtype: dtype::S32,
            count: 2,
            bytes: sevens
        }
    );
    assert!(parse_attrs(b"").unwrap().is_empty());
    assert!(parse_attrs(b"{}").unwrap().is_empty());
    // Errors carry the column.
    for (text, want) in [
        (
            &b"{n = 300 : ui8}"[..],
            "backend_config column 6: 300 does not fit in ui8",
        ),
        (
            b"{n = 1, n = 2}",
            "backend_config column 9: attribute `n` appears twice",
        ),
        (
            b"{n = dense<[1, 2]> : tensor<3xi64>}",
            "`dense` has 2 elements but its tensor type 3",
        ),
        (
            b"{s = \"open}",
            "backend_config column 6: unterminated string",
        ),
        (b"{n = 1", "expected `}` or `,` after an attribute"),
        (b"{n = 1} x", "unexpected text after the dictionary"),
    ] {
        let e = parse_attrs(text).unwrap_err().to_string();
        assert!(e.contains(want), "{}: {e}", String::from_utf8_lossy(text));
    }
}

#[test]
fn typed_ffi_plugin_registrations_are_captured_replayed_and_queried() {
    use hlox_ffi::Origin;
    assert!(
        hlox_targets::CPP_FFI_ERROR.is_empty(),
        "{}",
        hlox_targets::CPP_FFI_ERROR
    );
    let path = hlox_targets::CPP_FFI_PLUGIN;
    // Two registries: the second load runs no initialisers, yet sees the
    // handlers the first load registered.
    for _ in 0..2 {
        let r = Registry::new();
        r.load_library(path).unwrap();
        let t = r
            .lookup("cpp_axpby", Platform::Host)
            .expect("registered while loading");
        assert!(
            matches!(t.origin, Origin::XlaFfi(Some(_))),
            "{:?}",
            t.origin
        );
        assert_eq!(
            t.signature.unwrap().api_version,
            CustomCallApiVersion::TypedFfi
        );
        assert!(r.lookup("cpp_axpby", Platform::Cuda).is_none());
    }
    // The metadata query of a handler built against jaxlib's ffi.h.
    let lib = unsafe { libloading::Library::new(path) }.unwrap();
    let h: hlox_ffi::xla_ffi::abi::Handler = unsafe { *lib.get(b"AxpbyFfi").unwrap() };
    let md = hlox_ffi::xla_ffi::handler_metadata(h).unwrap();
    assert_eq!(md.api_major, 0);
    assert!((1..=4).contains(&md.api_minor), "{md:?}");
    assert_eq!(md.traits, 0);
    let r = Registry::new();
    unsafe {
        r.register_c(
            "renamed",
            Platform::Host,
            CustomCallApiVersion::TypedFfi,
            h as *const c_void,
        )
    }
    .unwrap();
    assert!(r.lookup("renamed", Platform::Host).is_some());
}

#[test]
fn typed_ffi_handlers_registered_by_the_process_reach_the_static_registries_only() {
    use hlox_ffi::xla_ffi::abi::{ByteSpan, HandlerBundle, HandlerRegisterArgs};
    let _ = hlox_targets::axpby_ffi;
    let statics = Registry::with_static_targets().unwrap();
    let TargetFn::Ffi(h) = statics.lookup("axpby_ffi", Platform::Host).unwrap().func else {
        panic!("axpby_ffi is not a typed-FFI handler")
    };
    // What XLA_FFI_REGISTER_HANDLER does in code linked into the process.
    let (name, platform) = ("process_axpby", "cpu");
    let mut args = HandlerRegisterArgs {
        struct_size: std::mem::size_of::<HandlerRegisterArgs>(),
        extension_start: std::ptr::null_mut(),
        name: ByteSpan::of(name.as_bytes()),
        platform: ByteSpan::of(platform.as_bytes()),
        bundle: HandlerBundle {
            instantiate: None,
            prepare: None,
            initialize: None,
            execute: Some(h.execute),
            record: None,
        },
        traits: 1,
    };
    let api = hlox_ffi::xla_ffi::api();
    assert!(unsafe { (api.handler_register)(&mut args) }.is_null());
    let t = Registry::with_static_targets()
        .unwrap()
        .lookup("process_axpby", Platform::Host)
        .expect("visible to the static registries");
    assert!(matches!(t.origin, Origin::XlaFfi(None)), "{:?}", t.origin);
    assert!(t.traits.contains(Traits::GRAPH_COMPATIBLE));
    assert!(Registry::global()
        .lookup("process_axpby", Platform::Host)
        .is_some());
    assert!(Registry::new()
        .lookup("process_axpby", Platform::Host)
        .is_none());
    // A bundle without an execute stage is refused with an error.
    args.bundle.execute = None;
    let e = unsafe { (api.handler_register)(&mut args) };
    assert!(!e.is_null());
    let (_, msg) = unsafe { hlox_ffi::xla_ffi::api::take_error(e) };
    assert!(msg.contains("has no execute stage"), "{msg}");
}

#[test]
fn typed_ffi_type_registration_assigns_ids_and_refuses_conflicts() {
    use hlox_ffi::xla_ffi::abi::{ByteSpan, TypeId, TypeRegisterArgs};
    let api = hlox_ffi::xla_ffi::api();
    let register = |name: &str, id: &mut TypeId| {
        let mut args = TypeRegisterArgs {
            struct_size: std::mem::size_of::<TypeRegisterArgs>(),
            extension_start: std::ptr::null_mut(),
            name: ByteSpan::of(name.as_bytes()),
            type_id: id,
            type_info: std::ptr::null(),
        };
        let e = unsafe { (api.type_register)(&mut args) };
        if e.is_null() {
            Ok(())
        } else {
            Err(unsafe { hlox_ffi::xla_ffi::api::take_error(e) }.1)
        }
    };
    let mut a = TypeId { type_id: 0 };
    register("ffi_test.type_a", &mut a).unwrap();
    assert!(a.type_id > 0);
    // The same name again gets the same id (a plugin loaded twice).
    let mut again = TypeId { type_id: 0 };
    register("ffi_test.type_a", &mut again).unwrap();
    assert_eq!(again, a);
    // Another name gets another id; asking for a taken id is refused.
    let mut b = TypeId { type_id: 0 };
    register("ffi_test.type_b", &mut b).unwrap();
    assert_ne!(a, b);
    let mut taken = a;
    let err = register("ffi_test.type_c", &mut taken).unwrap_err();
    assert!(err.contains("already has"), "{err}");
    // The same name with a different id is refused too.
    let mut other = TypeId { type_id: b.type_id };
    let err = register("ffi_test.type_a", &mut other).unwrap_err();
    assert!(err.contains("already registered"), "{err}");
}

/// A symbol bound as a typed-FFI handler that is not one returns whatever
/// its return register held (a `void f(void* out, const void** in)` did,
/// and hlox read that as an error and crashed). A pointer no
/// `XLA_FFI_Error_Create` made is now an error saying so, never read or
/// freed; the API's own errors still come through.
#[test]
fn a_handler_returning_a_pointer_the_api_did_not_make_is_an_error_not_a_crash() {
    use hlox_ffi::xla_ffi::{abi, handler_metadata, MetadataError};
    unsafe extern "C" fn garbage(_: *mut abi::CallFrame) -> *mut abi::Error {
        0x5a5a_5a50 as *mut abi::Error
    }
    unsafe extern "C" fn real_error(_: *mut abi::CallFrame) -> *mut abi::Error {
        hlox_ffi::xla_ffi::api::new_error(abi::code::INVALID_ARGUMENT, "a real error")
    }
    match handler_metadata(garbage) {
        Err(MetadataError::Failed { code, message }) => {
            assert_eq!(code, abi::code::INTERNAL);
            assert!(
                message.contains("no XLA_FFI_Error_Create of this API made")
                    && message.contains("api_version 1-3"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    match handler_metadata(real_error) {
        Err(MetadataError::Failed { code, message }) => {
            assert_eq!(code, abi::code::INVALID_ARGUMENT);
            assert_eq!(message, "a real error");
        }
        other => panic!("{other:?}"),
    }
    // Taken once: a second take of the same pointer is not a double free.
    let e = hlox_ffi::xla_ffi::api::new_error(abi::code::UNKNOWN, "once");
    assert_eq!(
        unsafe { hlox_ffi::xla_ffi::api::take_error(e) },
        (abi::code::UNKNOWN, "once".to_string())
    );
    assert_eq!(
        unsafe { hlox_ffi::xla_ffi::api::take_error(e) }.0,
        abi::code::INTERNAL
    );
}
