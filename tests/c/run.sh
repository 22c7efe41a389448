#!/usr/bin/env bash
# `make test-c`: install libwlansec into a temporary prefix, build the C example and
# tests/c/test_wlansec.c with the system cc through pkg-config (so wlansec.pc is tested
# too), linked once with the shared and once with the static library, and run them.
# `make bench-c` (--bench): tests/c/bench_overhead.c (the C API) and the Rust API on
# identical frames, alternating, medians side by side.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make --no-print-directory install PREFIX="$prefix" > "$prefix/install.log" || { cat "$prefix/install.log"; exit 1; }
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
libdir=$(pkg-config --variable=libdir wlansec)
cflags=(-std=c11 -O2 -Wall -Wextra -Werror $(pkg-config --cflags wlansec))
shared=($(pkg-config --libs wlansec) "-Wl,-rpath,$libdir")
# -l:libwlansec.a: the archive, though the shared library sits beside it.
static=($(pkg-config --static --libs wlansec | sed 's/-lwlansec\b/-l:libwlansec.a/'))
build=$prefix/build
mkdir -p "$build"

if [ "${1:-}" = --bench ]; then
  cc "${cflags[@]}" -o "$build/bench_overhead" tests/c/bench_overhead.c "${shared[@]}"
  cargo build --release --locked -q -p wlansec-c --example rust_api_bench
  exec python3 tests/c/bench_overhead.py "$build/bench_overhead" "${CARGO_TARGET_DIR:-$root/target}/release/examples/rust_api_bench" "${ROUNDS:-7}"
fi

ipsec_mb=()
if [ -e /usr/include/intel-ipsec-mb.h ]; then
  ipsec_mb=(-DWLANSEC_TEST_IPSEC_MB -lIPSec_MB)
elif [ "${WLANSEC_REQUIRE_ALL:-0}" = 1 ]; then
  echo "test-c: intel-ipsec-mb is missing (scripts/setup.sh installs libipsec-mb-dev)" >&2
  exit 1
fi
python3 tests/c/vectors.py tests/vectors > "$build/vectors.h"
for link in shared static; do
  declare -n libs=$link
  cc "${cflags[@]}" -I"$build" -o "$build/test_$link" tests/c/test_wlansec.c "${libs[@]}" "${ipsec_mb[@]}"
  cc "${cflags[@]}" -o "$build/seal_frame_$link" examples/c/seal_frame.c "${libs[@]}"
done
# The static build must not load the shared library, the shared one must (ldd's output is
# kept first: `grep -q` stops reading early, which pipefail would count as a failure).
static_deps=$(ldd "$build/test_static")
shared_deps=$(ldd "$build/test_shared")
if grep -q libwlansec <<< "$static_deps"; then echo "test-c: test_static loads libwlansec.so" >&2; exit 1; fi
grep -q "libwlansec.so.0 => $libdir/" <<< "$shared_deps" || { echo "test-c: test_shared does not load $libdir/libwlansec.so.0" >&2; exit 1; }
for link in shared static; do
  echo "== $link"
  "$build/seal_frame_$link" > /dev/null
  "$build/test_$link"
done
