#!/usr/bin/env bash
# Valgrind memcheck (--leak-check=full) over a representative subset:
# `hlox run` (compiled, and --interpret) on corpus cases, a C plugin case,
# and the failure-handling test binary's Host, evaluator, load and sandbox tests. Fails when
# valgrind reports a definite leak or a memory error in any run.
# Usage: scripts/leakcheck.sh   (make leakcheck). Logs: target/leakcheck/.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
CARGO=${CARGO:-cargo}
# Without this, a panicking test target makes std cache the binary's debug
# info for the backtrace (tens of MB "still reachable" at exit: noise).
export RUST_BACKTRACE=0
out=target/leakcheck
mkdir -p "$out"
$CARGO build -q -p hlox-cli -p hlox-targets
test_bin() {
    $CARGO test -q -p hlox-tests --test "$1" --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1
}
# The failure tests are the `failures` module of the filetests binary.
failures=$(test_bin filetests)
plugin=$(ls target/debug/build/hlox-targets-*/out/libhlox_c_targets_reg.so | head -1)
vg=(valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite
    --error-exitcode=99 --num-callers=30)
status=0
run() {
    local name=$1; shift
    local log="$out/$name.log"
    if "${vg[@]}" --log-file="$log" "$@" >"$out/$name.out" 2>&1; then
        echo "ok    $name: $(grep -E 'definitely lost|ERROR SUMMARY' "$log" | sed 's/==[0-9]*== //' | tr '\n' ' ')"
    else
        echo "FAIL  $name (exit $?): see $log"
        grep -E 'definitely lost|ERROR SUMMARY' "$log" | sed 's/==[0-9]*== /      /'
        status=1
    fi
}
for c in softmax mlp_forward while_loops scatter_ops; do
    inputs=()
    for f in tests/corpus/$c/in*.npy; do [ -e "$f" ] && inputs+=(--input "$f"); done
    run "hlox-run-$c" target/debug/hlox run "tests/corpus/$c/module.hlo" "${inputs[@]}" --out-dir "$out/$c"
done
run "hlox-run-softmax-interpret" target/debug/hlox run tests/corpus/softmax/module.hlo \
    --input tests/corpus/softmax/in0.npy --interpret --out-dir "$out/softmax-i"
inputs=()
for f in tests/corpus/cc_do_custom_call_v1/in*.npy; do inputs+=(--input "$f"); done
run "hlox-run-cc-plugin" target/debug/hlox run tests/corpus/cc_do_custom_call_v1/module.hlo \
    "${inputs[@]}" --plugin "$plugin" --out-dir "$out/cc"
run "test-failures-host" "$failures" --test-threads=1 failures::host_
run "test-failures-eval" "$failures" --test-threads=1 failures::evaluator_
run "test-load" "$failures" --test-threads=1 failures::load::
# The custom-call sandbox: faults caught by its signal handlers, C++
# exceptions, guarded buffers mapped and unmapped per call.
# sb_segfault's write to address 8 is its deliberate bug, suppressed.
vg+=(--suppressions=scripts/sandbox_targets.supp)
run "test-sandbox" "$failures" --test-threads=1 failures::sandbox::
exit $status
