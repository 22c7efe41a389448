#!/bin/bash
# Usage: final.sh BASEBIN NEWBIN OUTDIR -- 16 alternating pinned runs (cores 1, 0) of base and new, 8 unpinned, under quiet.sh
set -e
BASE=$1; NEW=$2; OUT=$3
mkdir -p $OUT
/work/bench35/quiet.sh bash -c "
for i in \$(seq 1 8); do for c in 1 0; do
  taskset -c \$c $BASE bench ccmp --json $OUT/base-c\$c-\$i.json >/dev/null 2>&1
  taskset -c \$c $NEW bench ccmp --json $OUT/new-c\$c-\$i.json >/dev/null 2>&1
done; done
for i in \$(seq 1 8); do
  $BASE bench ccmp --json $OUT/freebase\$i.json >/dev/null 2>&1
  $NEW bench ccmp --json $OUT/free\$i.json >/dev/null 2>&1
done"
