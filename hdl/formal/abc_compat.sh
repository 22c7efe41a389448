#!/usr/bin/env bash
# Debian's ABC (berkeley-abc 2022) lacks the `pdr -l` flag (log of the proof) that this
# SymbiYosys passes; drop it, the verdict and counterexample are the same.
args=()
for a in "$@"; do args+=("${a//pdr -v -l/pdr -v}"); done
exec berkeley-abc "${args[@]}"
