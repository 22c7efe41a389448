#!/usr/bin/env bash
# Idempotent installer for everything wlansec's tests and demo start by themselves.
# Debian packages (tshark, aircrack-ng, simulators), the pinned Rust toolchain, and a
# Python venv under .venv for the test tooling. Re-running it is cheap: each step checks first.
set -euo pipefail
cd "$(dirname "$0")/.."

# libipsec-mb-dev: intel-ipsec-mb, the anchor `wlansec bench ccmp` times beside the engine.
# berkeley-abc: ABC, the bounded model checker of hdl/formal (`make -C hdl formal`).
# ccache: every Verilator bench compiles the same runtime (verilated*.cpp); compiled once.
# time: GNU time, the peak resident set of a command the Python tests run (tests/python/conftest.py).
# chromium, chromium-driver: the laboratory report opened in a real browser (tests/python/test_report_browser.py);
# one source package, so apt keeps the browser and its driver at the same version (Debian's
# security archive carries only the current one: pinning it would break this script at the next update).
APT_PACKAGES=(tshark aircrack-ng iverilog verilator iperf3 qperf valgrind iproute2 libssl-dev pkg-config iputils-ping libipsec-mb-dev berkeley-abc ccache time chromium chromium-driver)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] || curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
fi
export PATH="$HOME/.cargo/bin:$PATH"
# rust-toolchain.toml pins the version. Fetch it now rather than mid-build; where the
# download is not possible but the installed stable toolchain is that very version, use it.
PINNED=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
if ! rustup run "$PINNED" rustc --version >/dev/null 2>&1; then
  if ! rustup toolchain install "$PINNED" --profile minimal -c rustfmt -c clippy; then
    stable_dir=$(rustup run stable rustc --print sysroot)
    rustup run stable rustc --version | grep -q "^rustc $PINNED " && rustup toolchain link "$PINNED" "$stable_dir"
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
if ! cmp -s requirements-dev.txt .venv/.requirements-installed 2>/dev/null; then
  echo "setup: installing Python test tooling"
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -r requirements-dev.txt
  cp requirements-dev.txt .venv/.requirements-installed
fi
# The laboratory's `wlansec-lab` command (editable: lab/ is the source); again when its
# dependencies change, so an existing venv gains them.
if [ ! -x .venv/bin/wlansec-lab ] || ! cmp -s lab/pyproject.toml .venv/.lab-installed 2>/dev/null; then
  echo "setup: installing wlansec-lab"
  .venv/bin/pip install -q -e "lab[parquet]"
  cp lab/pyproject.toml .venv/.lab-installed
fi
echo "setup: ok"
