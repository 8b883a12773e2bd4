//! Differential fuzzing: random well-typed programs from the builder (the
//! generator of tests/programs.rs, driven by the fuzzer's bytes), compiled
//! by the Host backend and run by the reference evaluator; the results must
//! agree within a tolerance. The property is `checks::differential`, shared
//! with CI's bounded pass.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::differential(data));
