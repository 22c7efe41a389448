#!/usr/bin/env bash
# The cipher comparison with AES with and without AES instructions, back to back on one machine
# (issue 25, item 4): does the CPU's AES-NI explain why AES beats Blowfish and RC6 here while
# the 2009 study found the reverse? Two builds of `wlansec bench ciphers`:
#   with:    the ordinary release build (the `aes` crate picks AES-NI at run time);
#   without: RUSTFLAGS='--cfg aes_backend="soft"' (the `aes` crate's documented switch to its
#            portable fixsliced constant-time code), in its own target dir, with the
#            `openssl speed` anchor's AES-NI and PCLMULQDQ masked by OPENSSL_ia32cap
#            (OpenSSL's documented capability mask: CPUID.1:ECX bits 25 and 1).
# Usage: scripts/bench-ciphers-soft-aes.sh OUTDIR [extra `bench ciphers` options]
# Writes OUTDIR/ciphers-aesni.bench.json, OUTDIR/ciphers-soft-aes.bench.json and OUTDIR/run.json
# (CPU model, load average before and after each run, commit, commands).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: $0 OUTDIR [bench ciphers options]}
shift
mkdir -p "$out"
# The study's six ciphers at its key sizes (lab/wlansec_lab/ciphers.py STUDY_ALGORITHMS).
ciphers=AES-128-CBC,DES-64-CBC,3DES-168-CBC,RC2-64-CBC,Blowfish-128-CBC,RC6-128-CBC
with=${CARGO_TARGET_DIR:-target}/release/wlansec
soft_dir=${SOFT_AES_TARGET_DIR:-target/soft-aes}
cargo build --release -p wlansec-cli >&2
CARGO_TARGET_DIR=$soft_dir RUSTFLAGS='--cfg aes_backend="soft"' cargo build --release -p wlansec-cli >&2
without=$soft_dir/release/wlansec
mask='~0x200000200000000'
load() { cut -d' ' -f1-3 /proc/loadavg; }
l0=$(load)
"$with" bench ciphers --ciphers "$ciphers" --no-sweep --json "$out/ciphers-aesni.bench.json" "$@" >"$out/ciphers-aesni.txt"
l1=$(load)
OPENSSL_ia32cap=$mask "$without" bench ciphers --ciphers "$ciphers" --no-sweep --json "$out/ciphers-soft-aes.bench.json" "$@" >"$out/ciphers-soft-aes.txt"
l2=$(load)
# The commit both builds were made from, as the binary names it (`wlansec --version`: the
# hash, "-dirty" with changed sources).
commit_of() { "$1" --version | sed -n 's/.*(\(.*\))$/\1/p'; }
cat >"$out/run.json" <<JSON
{
 "what": "wlansec bench ciphers, the study's six ciphers, with AES instructions and without (portable AES), back to back",
 "script": "scripts/bench-ciphers-soft-aes.sh $*",
 "cpu": "$(lscpu | sed -n 's/^Model name: *//p' | head -1)",
 "cpu_aes_flags": "$(grep -o -w -E 'aes|vaes|avx512f' /proc/cpuinfo | sort -u | tr '\n' ' ' | sed 's/ $//')",
 "commit": "$(commit_of "$with")",
 "with_aes_instructions": {"json": "ciphers-aesni.bench.json", "load_average_before": "$l0", "load_average_after": "$l1"},
 "without_aes_instructions": {"json": "ciphers-soft-aes.bench.json", "build": "RUSTFLAGS='--cfg aes_backend=\"soft\"'", "OPENSSL_ia32cap": "$mask", "load_average_before": "$l1", "load_average_after": "$l2"}
}
JSON
echo "wrote $out"
