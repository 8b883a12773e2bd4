//! Custom-call targets written in plain C against XLA's names only
//! (`targets/c/targets.c`), compiled with `cc -shared -fPIC`, loaded as a
//! plugin: once through its `hlox_register_custom_call_targets` function,
//! once by plain symbol lookup (XLA's XLA_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM).
//!
//! Run: `cargo run --example c_plugin`.

use anyhow::{ensure, Result};
use hlox_ffi::{Platform, Registry};
use hlox_hlo::Literal;

fn main() -> Result<()> {
    let text = r#"HloModule seed

ENTRY main {
  b = f32[128]{0} parameter(0)
  c = f32[2048]{0} parameter(1)
  ROOT a = f32[2048]{0} custom-call(b, c), custom_call_target="do_custom_call_status", api_version=API_VERSION_STATUS_RETURNING
}
"#;
    let module = hlox_hlo::text::parse_module(text)?;
    hlox_hlo::verifier::verify_module(&module)?;
    let b: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let c: Vec<f32> = (0..2048).map(|i| -(i as f32)).collect();
    for (how, lib) in [
        (
            "registration function",
            hlox_targets::C_PLUGIN_WITH_REGISTRATION,
        ),
        ("plain symbols", hlox_targets::C_PLUGIN_SYMBOLS_ONLY),
    ] {
        let registry = std::sync::Arc::new(Registry::new());
        registry.load_library(lib)?;
        println!(
            "{lib} (by {how}): registered Host targets {:?}",
            registry.names(Platform::Host)
        );
        let a = hlox_examples::run(&module, &[Literal::r1(&b), Literal::r1(&c)], &registry)?
            .to_vec::<f32>()?;
        for i in 0..2048 {
            ensure!(a[i] == b[i % 128] + c[i], "A[{i}] = {} is wrong", a[i]);
        }
        println!(
            "  A[i] = B[i % 128] + C[i] for all 2048 elements: A[130] = {}",
            a[130]
        );
    }
    println!("OK: the C target ran from both kinds of plugin.");
    Ok(())
}
