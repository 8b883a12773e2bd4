//! HLO text: parse, verify, print. Any input may fail to parse or verify
//! (an error, never a panic); a module that parses and verifies prints to
//! text that parses back to the same module and prints identically.
//! The property is `checks::parse_text`, shared with CI's bounded pass.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::parse_text(data));
