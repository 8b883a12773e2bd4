//! HloModuleProto bytes: decode and verify (an error, never a panic); a
//! module that decodes and verifies encodes, decodes back to the same
//! module, and prints to HLO text that parses.
//! The property is `checks::decode_proto`, shared with CI's bounded pass.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::decode_proto(data));
