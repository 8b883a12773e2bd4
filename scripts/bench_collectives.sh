#!/usr/bin/env bash
# The cost of one all-reduce of 1, 64 and 4096 KiB (f32) across 2 Host
# devices: in one process (hlox run --devices 2) and through MPI
# (mpirun -np 2 hlox run --mpi). Each module runs the all-reduce ITERS
# times in a while loop; the per-all-reduce time is (time with ITERS -
# time with 0) / ITERS, the best of 3 process runs each (compile time and
# start-up cancel out). Usage: scripts/bench_collectives.sh [HLOX] [ITERS]
set -euo pipefail
H=${1:-target/release/hlox}
ITERS=${2:-200}
D=$(mktemp -d)
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
best() { local b=999 t; for _ in 1 2 3; do t=$(secs "$@"); b=$(echo "if ($t < $b) $t else $b" | bc); done; echo "$b"; }
for kib in 1 64 4096; do
    module $kib 0 > "$D/a0.hlo"
    module $kib "$ITERS" > "$D/an.hlo"
    for mode in threads mpi; do
        if [ $mode = threads ]; then
            run=("$H" run); extra=(--random --devices 2)
        else
            run=(mpirun --allow-run-as-root --oversubscribe -np 2 "$H" run); extra=(--random --mpi)
        fi
        t0=$(best "${run[@]}" "$D/a0.hlo" "${extra[@]}")
        tn=$(best "${run[@]}" "$D/an.hlo" "${extra[@]}")
        echo "all-reduce $kib KiB, $mode: $(echo "scale=4; ($tn - $t0) * 1000 / $ITERS" | bc) ms"
    done
done
rm -rf "$D"
