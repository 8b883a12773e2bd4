//! HLO text: parse, verify, print. Any input may fail to parse or verify
//! (an error, never a panic); a module that parses and verifies prints to
//! text that parses back to the same module and prints identically.
#![no_main]

use hlox_hlo::text::{parse_module, print_module};
use hlox_hlo::verifier::verify_module;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = parse_module(src) else {
        return;
    };
    if verify_module(&m).is_err() {
        return;
    }
    let printed = print_module(&m);
    let again = parse_module(&printed)
        .unwrap_or_else(|e| panic!("printed module does not parse: {e}\n{printed}"));
    verify_module(&again)
        .unwrap_or_else(|e| panic!("printed module does not verify: {e}\n{printed}"));
    let reprinted = print_module(&again);
    assert_eq!(printed, reprinted, "print is not a fixed point");
    assert!(again == m, "parse(print(m)) != m for\n{printed}");
});
