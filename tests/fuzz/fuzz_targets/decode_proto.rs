//! HloModuleProto bytes: decode and verify (an error, never a panic); a
//! module that decodes and verifies encodes, decodes back to the same
//! module, and prints to HLO text that parses.
#![no_main]

use hlox_hlo::proto::{decode_module, encode_module};
use hlox_hlo::text::{parse_module, print_module};
use hlox_hlo::verifier::verify_module;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = decode_module(data) else {
        return;
    };
    if verify_module(&m).is_err() {
        return;
    }
    let bytes = encode_module(&m);
    let again = decode_module(&bytes).unwrap_or_else(|e| panic!("re-decode: {e}"));
    assert!(again == m, "decode(encode(m)) != m");
    let printed = print_module(&m);
    parse_module(&printed)
        .unwrap_or_else(|e| panic!("printed proto module does not parse: {e}\n{printed}"));
});
