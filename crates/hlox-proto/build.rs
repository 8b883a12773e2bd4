//! Compiles `proto/{xla_data,hlo}.proto` with protox (a pure-Rust protobuf
//! compiler, no system `protoc`) and generates Rust types with prost-build.

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let files = [root.join("xla_data.proto"), root.join("hlo.proto")];
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let fds = match protox::compile(&files, [&root]) {
        Ok(fds) => fds,
        Err(e) => {
            eprintln!("error: compiling XLA protos failed: {e:?}");
            std::process::exit(1);
        }
    };
    let mut config = prost_build::Config::new();
    // Keep `map<..>` fields in file order-independent BTreeMaps so encoding is
    // deterministic.
    config.btree_map(["."]);
    if let Err(e) = config.compile_fds(fds) {
        eprintln!("error: generating Rust code for XLA protos failed: {e}");
        std::process::exit(1);
    }
}
