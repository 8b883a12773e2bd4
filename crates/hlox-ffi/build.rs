//! Compiles the custom-call sandbox's C++ shim (csrc/sandbox.cc): the
//! sandbox calls targets from it so that a C++ exception or a fault inside
//! a target ends in a `catch` or a `sigsetjmp` with no Rust frame between
//! (see src/sandbox/mod.rs).

fn main() {
    println!("cargo:rerun-if-changed=csrc/sandbox.cc");
    cc::Build::new()
        .cpp(true)
        .file("csrc/sandbox.cc")
        .flag_if_supported("-std=c++17")
        .warnings(true)
        .compile("hlox_sandbox");
}
