#!/usr/bin/env bash
# Instructions per protected frame of the portable (software AES, no AES-NI) suites, counted
# with callgrind, for the `mcu:MHZ` card model: per suite and MPDU size, (I(1+K) - I(1)) / K
# with K frames, so start-up cost cancels. Writes crates/wlansec-wlan/data/mcu-instructions.json.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/soft-aes}
RUSTFLAGS='--cfg aes_backend="soft"' cargo build --release -p wlansec-cli >&2
bin=$CARGO_TARGET_DIR/release/wlansec
K=${K:-50}
count() { # suite size frames -> instructions
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" wlan protect-loop --suite "$1" --size "$2" --frames "$3" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
out=crates/wlansec-wlan/data/mcu-instructions.json
{
  echo '{"tool": "valgrind --tool=callgrind (Collected Ir)", "script": "scripts/wlan-count-instructions.sh",'
  echo ' "build": "release, RUSTFLAGS=--cfg aes_backend=soft (portable constant-time AES)", "frames_per_count": '"$K"','
  echo ' "counts": {'
  first_suite=1
  for suite in wep tkip ccmp; do
    [ $first_suite = 1 ] || echo ','
    first_suite=0
    printf '  "%s": [' "$suite"
    first=1
    for size in 64 128 256 512 1024 1536 2048; do
      base=$(count $suite $size 1); more=$(count $suite $size $((K + 1)))
      per=$(( (more - base) / K ))
      echo "$suite $size bytes: $per instructions/frame" >&2
      [ $first = 1 ] || printf ', '
      first=0
      printf '[%d, %d]' "$size" "$per"
    done
    printf ']'
  done
  echo ''
  echo ' }}'
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out" >&2
