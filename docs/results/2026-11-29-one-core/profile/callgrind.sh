#!/usr/bin/env bash
# Instructions per frame of the kernel and of the per-core engine inline, by function, under
# callgrind: ./callgrind.sh > instructions.txt (from this folder; a few minutes on 2 cores).
# Valgrind has no AVX-512 or VAES, so the engine runs its AES-NI backend here: the kernel's
# count (aesni::run) is that backend's, the engine's own (framing, rings) is every backend's.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/one-core-profile-target}"
cargo build --release --offline -q
bin="$CARGO_TARGET_DIR/release/one-core-profile"
out=$(mktemp -d)
frames=2048 rounds=2
for mode in 1500 mixed; do
    echo "== $mode: $frames frames, instructions per frame"
    # kernel_seal and inline_protect run once more than the rest (the stream's first pass).
    for f in kernel_seal:3 inline_protect:3 kernel_open:2 inline_unprotect:2 fed_protect:2; do
        name=${f%:*} calls=${f#*:}
        valgrind --tool=callgrind --toggle-collect="one_core_profile::$name" \
            --callgrind-out-file="$out/$mode.$name" "$bin" "$mode" "$frames" "$rounds" >/dev/null 2>&1
        echo "-- $name"
        python3 summarize_callgrind.py "$out/$mode.$name" $((frames * calls))
    done
done
rm -r "$out"
