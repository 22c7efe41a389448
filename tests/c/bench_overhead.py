#!/usr/bin/env python3
"""`make bench-c`: the C API (bench_overhead.c) and the Rust API (rust_api_bench.rs) on
identical CCMP-128 frames, run alternately ROUNDS times; prints each workload's median
ns/frame for both and C/Rust (the goal: within 3 %), with the CPU and commit; the same as
JSON in $BENCH_JSON (default out/bench_c.json).

    bench_overhead.py C_BENCH RUST_BENCH [ROUNDS]"""

import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def machine() -> dict:
    """The CPU model and the flags the engine dispatches on, and the commit measured."""
    cpu = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        cpu.setdefault(key.strip(), value.strip())
    flags = set(cpu.get("flags", "").split())
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or None
    return {"cpu": cpu.get("model name", platform.processor()), "cpu_family": cpu.get("cpu family"),
            "cpu_model": cpu.get("model"), "commit": commit, "cores": os.cpu_count(),
            "cpu_flags": {f: f in flags for f in ("aes", "avx2", "avx512f", "vaes", "vpclmulqdq")}}


def run(program: str) -> dict:
    out = subprocess.run([program], check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        workload, octets, ns = line.split()
        rows[(workload, int(octets))] = float(ns)
    return rows


def main() -> None:
    c_bench, rust_bench = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    samples = {"C": [], "Rust": []}
    for _ in range(rounds):
        samples["C"].append(run(c_bench))
        samples["Rust"].append(run(rust_bench))
    host = machine()
    rows = []
    print(f"CCMP-128, median of {rounds} alternating runs (each the median of 15 repetitions), ns per frame; "
          f"{host['cpu']}, commit {host['commit']}")
    print(f"{'workload':<10}{'octets':>7}{'C API':>10}{'Rust API':>10}{'C/Rust':>9}")
    for key in samples["Rust"][0]:
        rust = statistics.median(run[key] for run in samples["Rust"])
        if key not in samples["C"][0]:
            # Rust only: the one-frame seal behind a call that is not inlined.
            print(f"{key[0]:<10}{key[1]:>7}{'':>10}{rust:>10.1f}")
            rows.append({"workload": key[0], "octets": key[1], "rust_ns": rust})
            continue
        c = statistics.median(run[key] for run in samples["C"])
        print(f"{key[0]:<10}{key[1]:>7}{c:>10.1f}{rust:>10.1f}{c / rust:>9.3f}")
        rows.append({"workload": key[0], "octets": key[1], "c_ns": c, "rust_ns": rust, "c_over_rust": c / rust})
    out = Path(os.environ.get("BENCH_JSON", ROOT / "out" / "bench_c.json"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "c-api-overhead", "rounds": rounds, "machine": host, "rows": rows}, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
