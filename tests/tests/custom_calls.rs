//! Custom calls end to end through the reference evaluator: HLO text is
//! parsed and verified, every target is bound by name for the Host, and the
//! evaluator calls it with XLA's conventions on real buffers. The cases are
//! shared with the Host backend (hlox_tests::custom_call_suite).

use hlox_eval::{evaluate, CustomCallHandler, EvalError};
use hlox_ffi::{HostCustomCalls, Platform, Registry};
use hlox_hlo::{Literal, Module};
use hlox_tests::custom_call_suite::{self as suite, Engine, Prepared};
use std::sync::Arc;

/// The evaluator as a suite engine: prepare = bind, run = evaluate.
struct Evaluator;

struct Bound {
    module: Module,
    calls: HostCustomCalls,
}

impl Prepared for Bound {
    fn run(&self, args: &[Literal]) -> Result<Literal, String> {
        evaluate(&self.module, args, &self.calls as &dyn CustomCallHandler)
            .map_err(|e| e.to_string())
    }
}

impl Engine for Evaluator {
    fn prepare(
        &self,
        module: &Module,
        registry: &Arc<Registry>,
    ) -> Result<Box<dyn Prepared>, String> {
        let bound = registry
            .bind(module, Platform::Host)
            .map_err(|e| e.to_string())?;
        let calls = HostCustomCalls::for_module(module, bound).map_err(|e| e.to_string())?;
        Ok(Box::new(Bound {
            module: module.clone(),
            calls,
        }))
    }
}

hlox_tests::custom_call_suite_tests!(Evaluator);

/// The evaluator's error kinds: bind problems before anything runs, a
/// failing target as `EvalError::CustomCall`.
#[test]
fn error_kinds() {
    let r = suite::static_targets();
    let e = hlox_eval::evaluate_with_registry(
        &suite::seed_module("do_custom_cal", suite::ORIGINAL),
        &suite::seed_args(),
        &r,
    )
    .unwrap_err();
    assert!(matches!(e, EvalError::Bind(_)), "{e}");
    let fails = suite::module(
        "HloModule f\n\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  ROOT boom = f32[4]{0} custom-call(x), custom_call_target=\"always_fails\", api_version=API_VERSION_STATUS_RETURNING\n}\n",
    );
    let e = hlox_eval::evaluate_with_registry(&fails, &[Literal::r1(&[1f32; 4])], &r).unwrap_err();
    assert!(
        matches!(e, EvalError::CustomCall { ref instruction, ref target, .. } if instruction == "boom" && target == "always_fails"),
        "{e}"
    );
}
