//! Transformation rules registered by a plugin (`register_rules` of the
//! registrar): kept, parsed and verified, with the plugin that gave them;
//! a rules module that does not parse is a rejected registration whose
//! error gives the line and column.

use hlox_ffi::{Platform, PluginError, Registry};
use std::path::Path;

mod common;
use common::build_c_plugin;

#[test]
fn the_cube_plugin_registers_its_target_and_rules() {
    let path = hlox_targets::C_PLUGIN_CUBE_RULES;
    assert!(!path.is_empty(), "{}", hlox_targets::C_BUILD_ERROR);
    let reg = Registry::new();
    reg.load_library(path).unwrap();
    assert!(reg.lookup("cube", Platform::Host).is_some());
    let rules = reg.rule_modules();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].origin, Path::new(path));
    let mut names: Vec<&str> = rules[0]
        .module
        .computations
        .values()
        .map(|c| c.name.as_str())
        .collect();
    names.sort();
    assert_eq!(names, ["jvp.cube", "vjp.cube", "vmap.cube"]);
}

const BAD_RULES: &str = r#"
#include "hlox/custom_call.h"
void noop(void* out, const void** in) { (void)out; (void)in; }
int hlox_register_custom_call_targets(const HloxCustomCallRegistrar* r) {
  int rc = r->register_target(r->ctx, "noop", "Host", HLOX_API_VERSION_ORIGINAL, (void*)noop);
  rc |= r->register_rules(r->ctx, "HloModule bad\nENTRY vjp.noop {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] frobnicate(x)\n}\n");
  rc |= r->register_rules(r->ctx, "HloModule no_rules\nENTRY main {\n  ROOT x = f32[] parameter(0)\n}\n");
  return rc;
}
"#;

#[test]
fn rules_that_do_not_parse_reject_the_plugin_with_line_and_column() {
    let path = build_c_plugin("plugin_rules", "bad_rules", BAD_RULES);
    let reg = Registry::new();
    let e = reg.load_library(&path).unwrap_err();
    assert!(matches!(e, PluginError::Registration { .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("rules module"), "{text}");
    assert!(text.contains("frobnicate"), "{text}");
    assert!(text.contains("4:"), "line of the bad instruction: {text}");
    assert!(
        text.contains("has no computation named jvp.TARGET, vjp.TARGET or vmap.TARGET"),
        "{text}"
    );
    // Nothing of a rejected plugin is kept.
    assert!(reg.lookup("noop", Platform::Host).is_none());
    assert!(reg.rule_modules().is_empty());
}
