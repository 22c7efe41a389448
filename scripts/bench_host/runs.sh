#!/bin/bash
# Usage: runs.sh WLANSEC OUTDIR [RUNS_PER_VCPU]
# RUNS_PER_VCPU (default 8) runs of `wlansec bench ccmp --json` pinned to vCPU 1 and vCPU 0
# in turn, under quiet.sh; OUTDIR/run-cC-I.json and .txt. Summarize with summarize.py OUTDIR.
set -e
bin=$1; out=$2; runs=${3:-8}; here=$(dirname "$0")
[ -x "$bin" ] && [ -n "$out" ] || { echo "usage: runs.sh WLANSEC OUTDIR [RUNS_PER_VCPU]" >&2; exit 2; }
mkdir -p "$out"
"$here/quiet.sh" bash -c "
for i in \$(seq 1 $runs); do for c in 1 0; do
  echo \"run \$i vCPU \$c\" >&2
  taskset -c \$c '$bin' bench ccmp --json '$out/run-c'\$c-\$i.json > '$out/run-c'\$c-\$i.txt 2>&1
done; done"
