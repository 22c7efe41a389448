#!/bin/bash
# Usage: runs.sh WLANSEC OUTDIR -- 16 pinned runs of `wlansec bench ccmp --json`, cores 1 and 0
# alternating, under ../2026-11-27-zen3-short-frames/quiet.sh (every other heavy process paused for the runs).
set -e
BIN=$1; OUT=$2; HERE=$(dirname "$0")
mkdir -p "$OUT"
"$HERE/../2026-11-27-zen3-short-frames/quiet.sh" bash -c "
for i in \$(seq 1 8); do for c in 1 0; do
  taskset -c \$c $BIN bench ccmp --json $OUT/run-c\$c-\$i.json > $OUT/run-c\$c-\$i.txt 2>&1
done; done"
