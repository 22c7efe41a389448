#!/usr/bin/env python3
"""Each side at its best batch size, per intel-ipsec-mb manager: from `wlansec bench ccmp --json`
runs (the `batch_sizes` rows: per call and as one long stream, every batch size), the lowest
cycles/byte of wlansec and of each manager (its job and burst APIs together), per run, for
1500-octet and mixed-length frames; then wlansec's lead over each manager, per run and median.

    python3 best_by_manager.py RUNS_DIR   (reads RUNS_DIR/run-all-*.json)
"""
import glob
import json
import statistics
import sys


def best(rows, workload):
    """{side: lowest cycles/byte} over every batch size of `workload` (1500 or "mixed")."""
    out = {}
    for r in rows:
        if (r["mode"] == "mixed") != (workload == "mixed"):
            continue
        if workload != "mixed" and r["frame_bytes"] != workload:
            continue
        side = r["impl"] if r["impl"] == "wlansec" else " ".join(r["impl"].split()[:2])
        out[side] = min(out.get(side, float("inf")), r["cycles_per_byte"])
    return out


runs = [json.load(open(f)) for f in sorted(glob.glob(f"{sys.argv[1]}/run-all-*.json"))]
machine = runs[0]["machine"]
print(f"{machine['cpu']}, backend {machine['backend']}; {len(runs)} runs; commit {machine['commit']}")
for workload in (1500, "mixed"):
    per_run = [best(run["batch_sizes"], workload) for run in runs]
    print(f"\n{workload}: cycles/byte at each side's best batch size, per run; wlansec's lead (median)")
    for side in per_run[0]:
        values = [b[side] for b in per_run]
        lead = statistics.median(b[side] / b["wlansec"] for b in per_run)
        print(f"  {side:<16} {' '.join(f'{v:.3f}' for v in values)}   x{lead:.2f}")
