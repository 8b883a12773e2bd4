//! Examples live beside this file; run one with cargo run --example NAME.
