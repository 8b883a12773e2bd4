#!/usr/bin/env bash
# Runs hlox's cargo-fuzz targets (tests/fuzz) for a bounded time each.
#   scripts/fuzz.sh SECONDS [TARGET...]   (default: every target)
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Seeds come from the JAX corpus (tests/corpus) and the text filetests;
# findings land in tests/fuzz/artifacts/<target>/ and make the script fail.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse_text decode_proto differential)
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz with a nightly toolchain is needed: rustup toolchain install nightly && cargo install cargo-fuzz" >&2
    exit 1
fi
seed() {
    local t=$1 dir=tests/fuzz/corpus/$1
    mkdir -p "$dir"
    case $t in
        parse_text)
            for f in tests/corpus/*/module.hlo; do cp -n "$f" "$dir/$(basename "$(dirname "$f")").hlo"; done
            for f in tests/filetests/*/*.hlo; do cp -n "$f" "$dir/$(basename "$(dirname "$f")")_$(basename "$f")"; done ;;
        decode_proto)
            for f in tests/corpus/*/module.pb; do cp -n "$f" "$dir/$(basename "$(dirname "$f")").pb"; done ;;
    esac
}
status=0
for t in "${targets[@]}"; do
    seed "$t"
    echo "== fuzz $t for ${secs}s"
    # The corpus's largest modules are ~80 KB. The differential target's
    # input is a few hundred bytes of choices and it runs a few programs a
    # second: no slow growth of the input length there.
    extra=(-max_len=100000)
    case $t in
        parse_text) extra+=(-dict=tests/fuzz/hlo.dict) ;;
        differential) extra=(-max_len=1024 -len_control=0) ;;
    esac
    if ! cargo +nightly fuzz run --fuzz-dir tests/fuzz "$t" -- \
        -max_total_time="$secs" -rss_limit_mb=4096 -print_final_stats=1 "${extra[@]}"; then
        echo "!! $t found a failure: see tests/fuzz/artifacts/$t/" >&2
        status=1
    fi
done
exit $status
