#!/usr/bin/env bash
# Multi-device costs on the Host (docs/performance.md, "Collectives across
# devices"):
#  1. one all-reduce of 1, 64 and 4096 KiB (f32) across 2 Host devices: in
#     one process (hlox run --devices 2) and through MPI (mpirun -np 2 hlox
#     run --mpi). Each module runs the all-reduce ITERS times in a while
#     loop; the per-all-reduce time is (time with ITERS - time with 0) /
#     ITERS, so compile time and start-up cancel out;
#  2. one SGD step of an MLP (scripts/gen_dp_bench.py, JAX's lowering, needs
#     .venv-jax) on 1 device (plain jit) and data-parallel on 2 (shard_map
#     over the batch, pmean of the gradients), the same way: STEPS steps in
#     a while loop minus 0 steps.
# Each figure is measured REPS times (a pair of process runs each) and
# printed as min / median / max: the machine is shared and noisy.
# Usage: scripts/bench_collectives.sh [HLOX] [ITERS] [STEPS] [REPS]
set -euo pipefail
H=$(realpath "${1:-target/release/hlox}")
ITERS=${2:-200}
STEPS=${3:-20}
REPS=${4:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
module() { # KiB ITERS
    local n=$(($1 * 256))
    cat <<HLO
HloModule ar, entry_computation_layout={(f32[$n]{0})->f32[$n]{0}}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  p = (s32[], f32[$n]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  k = s32[] constant($2)
  ROOT lt = pred[] compare(i, k), direction=LT
}

body {
  p = (s32[], f32[$n]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[$n]{0} get-tuple-element(p), index=1
  r = f32[$n]{0} all-reduce(x), replica_groups={{0,1}}, to_apply=add
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[$n]{0}) tuple(j, r)
}

ENTRY e {
  x = f32[$n]{0} parameter(0)
  z = s32[] constant(0)
  t0 = (s32[], f32[$n]{0}) tuple(z, x)
  w = (s32[], f32[$n]{0}) while(t0), condition=cond, body=body
  ROOT o = f32[$n]{0} get-tuple-element(w), index=1
}
HLO
}
secs() { local s; s=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $s" | bc; }
# per-unit time in ms, REPS times: (time of CMD_N - time of CMD_0) / COUNT;
# prints "min / median / max ms". Usage: spread COUNT -- CMD_0 -- CMD_N
spread() {
    local count=$1 a=() b=() t0 tn v=()
    shift 2
    while [ "$1" != -- ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    for _ in $(seq "$REPS"); do
        t0=$(secs "${a[@]}")
        tn=$(secs "${b[@]}")
        v+=("$(echo "scale=3; ($tn - $t0) * 1000 / $count" | bc)")
    done
    printf '%s\n' "${v[@]}" | sort -n | awk '{x[NR]=$1} END {printf "%s / %s / %s ms\n", x[1], x[int((NR+1)/2)], x[NR]}'
}
mpi=(mpirun --allow-run-as-root --oversubscribe -np 2)
for kib in 1 64 4096; do
    module $kib 0 > "$D/a0.hlo"
    module $kib "$ITERS" > "$D/an.hlo"
    echo "all-reduce $kib KiB, 2 devices in one process: $(spread "$ITERS" -- "$H" run "$D/a0.hlo" --random --devices 2 -- "$H" run "$D/an.hlo" --random --devices 2)"
    echo "all-reduce $kib KiB, 2 MPI ranks:              $(spread "$ITERS" -- "${mpi[@]}" "$H" run "$D/a0.hlo" --random --mpi -- "${mpi[@]}" "$H" run "$D/an.hlo" --random --mpi)"
done
PY=${PY:-$ROOT/.venv-jax/bin/python}
if [ ! -x "$PY" ]; then
    echo "MLP step: skipped ($PY not found: bash scripts/setup_jax.sh)"
    exit 0
fi
"$PY" "$ROOT/scripts/gen_dp_bench.py" "$D/dp" "$STEPS" >/dev/null
cd "$D/dp"
ins=(-i in0.npy -i in1.npy -i in2.npy -i in3.npy -i in4.npy)
echo "MLP SGD step, 1 device:                 $(spread "$STEPS" -- "$H" run dp1.hlo -i steps0.npy "${ins[@]}" -- "$H" run dp1.hlo -i stepsN.npy "${ins[@]}")"
echo "MLP SGD step, 2 devices in one process: $(spread "$STEPS" -- "$H" run dp2.hlo -i steps0.npy "${ins[@]}" --devices 2 -- "$H" run dp2.hlo -i stepsN.npy "${ins[@]}" --devices 2)"
echo "MLP SGD step, 2 MPI ranks:              $(spread "$STEPS" -- "${mpi[@]}" "$H" run dp2.hlo -i steps0.npy "${ins[@]}" --mpi -- "${mpi[@]}" "$H" run dp2.hlo -i stepsN.npy "${ins[@]}" --mpi)"
