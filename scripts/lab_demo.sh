#!/usr/bin/env bash
# `make demo`: the foundation demo (selftest; tshark decrypts what wlansec protected) as the
# report's engine self-check, then a quick version of every laboratory experiment on the
# emulated WLAN (`wlansec wlan up` ... `down`, done by wlansec-lab per configuration), and the
# report: out/lab/report/index.html. LAB_ARGS="--repeats 40" (without --quick) is `make lab`;
# LAB_ARGS="--repeats 40 --resume" continues a killed one.
set -euo pipefail
cd "$(dirname "$0")/.."
WLANSEC=${WLANSEC:-target/release/wlansec}
OUT=${OUT:-out/lab}
LAB=${LAB:-.venv/bin/wlansec-lab}
LAB_ARGS=${LAB_ARGS:---quick}
# The WLAN's name: `make demo` (demo) and `make lab` (lab) can run at the same time.
LAB_NAME=${LAB_NAME:-lab}
mkdir -p "$OUT"

if [ "$(id -u)" -ne 0 ]; then
  echo "make demo: the emulated WLAN needs root (network namespaces, TAP); run as root or with sudo" >&2
  exit 1
fi
printf '\n== engine self-check (scripts/demo.sh)\n'
OUT="$OUT/demo" bash scripts/demo.sh 2>&1 | tee "$OUT/selftest.txt"
printf '\n== laboratory: wlansec-lab run %s\n' "$LAB_ARGS"
# wlansec-lab brings the WLAN up for each configuration and always tears it down at the end.
# shellcheck disable=SC2086
WLANSEC="$WLANSEC" "$LAB" run $LAB_ARGS --name "$LAB_NAME" --out "$OUT" --wlansec "$WLANSEC" --keep-selftest
# The page as a reader sees it: opened in headless Chromium, checked, screenshots beside it.
printf '\n== the report in a browser (wlansec_lab.report.browser)\n'
.venv/bin/python -m wlansec_lab.report.browser "$OUT/report/index.html"
echo "report: $OUT/report/index.html (screenshots: $OUT/report/screenshots/)"
