#!/usr/bin/env python3
"""`make bench-c`: the C API (bench_overhead.c) and the Rust API (rust_api_bench.rs) on
identical CCMP-128 frames, run alternately ROUNDS times; prints each workload's median
ns/frame for both and C/Rust (the goal: within 3 %).

    bench_overhead.py C_BENCH RUST_BENCH [ROUNDS]"""

import statistics
import subprocess
import sys


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
    print(f"CCMP-128, median of {rounds} alternating runs (each the median of 15 repetitions), ns per frame")
    print(f"{'workload':<10}{'octets':>7}{'C API':>10}{'Rust API':>10}{'C/Rust':>9}")
    for key in samples["Rust"][0]:
        rust = statistics.median(run[key] for run in samples["Rust"])
        if key not in samples["C"][0]:
            # Rust only: the one-frame seal behind a call that is not inlined.
            print(f"{key[0]:<10}{key[1]:>7}{'':>10}{rust:>10.1f}")
            continue
        c = statistics.median(run[key] for run in samples["C"])
        print(f"{key[0]:<10}{key[1]:>7}{c:>10.1f}{rust:>10.1f}{c / rust:>9.3f}")


if __name__ == "__main__":
    main()
