//! StableHLO MLIR text: parse, convert to HLO, verify, print. Any input may
//! fail (an error, never a panic or a hang); a module that converts and
//! verifies prints as HLO text that parses back to the same module.
//! The property is `checks::parse_stablehlo`, shared with CI's bounded pass.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::parse_stablehlo(data));
