#!/usr/bin/env bash
# `make test` after the build: the lints first (a quick failure), then the hardware benches
# (CPU-bound, logged to out/hdl-test.log and shown at the end) beside the Rust, the C
# library's and the Python tests (whose workers mostly wait on the processes they start).
# Each part says how long it took.
set -uo pipefail
MAKE_=(make --no-print-directory)

timed() {
  local name=$1 start=$SECONDS status
  shift
  "$@"
  status=$?
  echo "make test: $name took $((SECONDS - start)) s$([ "$status" = 0 ] || echo ", FAILED")"
  return "$status"
}

timed lint "${MAKE_[@]}" lint || exit 1

mkdir -p out
log=out/hdl-test.log
echo "make test: the hardware benches run beside the Rust and Python tests (log: $log)"
timed hdl "${MAKE_[@]}" -C hdl test > "$log" 2>&1 &
hdl=$!

status=0
timed test-rust "${MAKE_[@]}" test-rust || status=1
timed test-c "${MAKE_[@]}" test-c || status=1
timed test-python "${MAKE_[@]}" test-python || status=1
wait "$hdl" || status=1
echo "== the hardware benches ($log)"
cat "$log"
exit "$status"
