#!/bin/bash
# Usage: ab.sh BASE_WLANSEC NEW_WLANSEC OUTDIR [PAIRS_PER_VCPU]
# Two builds side by side: PAIRS_PER_VCPU (default 8) pairs of `wlansec bench ccmp --json`,
# base then new, pinned to vCPU 1 and vCPU 0 in turn, under quiet.sh, so both share each
# moment's disturbance; OUTDIR/base-cC-I.json and new-cC-I.json. Compare with compare.py OUTDIR.
set -e
base=$1; new=$2; out=$3; pairs=${4:-8}; here=$(dirname "$0")
[ -x "$base" ] && [ -x "$new" ] && [ -n "$out" ] || { echo "usage: ab.sh BASE NEW OUTDIR [PAIRS]" >&2; exit 2; }
mkdir -p "$out"
"$here/quiet.sh" bash -c "
for i in \$(seq 1 $pairs); do for c in 1 0; do
  echo \"pair \$i vCPU \$c\" >&2
  taskset -c \$c '$base' bench ccmp --json '$out/base-c'\$c-\$i.json > /dev/null 2>&1
  taskset -c \$c '$new' bench ccmp --json '$out/new-c'\$c-\$i.json > /dev/null 2>&1
done; done"
