#!/usr/bin/env python3
"""Plot the airtime model's saturation benchmark.

Reads the JSON of `cargo run --release -p wlansec-wlan --example saturation` (default
out/airtime/saturation.json) and writes saturation.png beside it: (left) throughput against
the number of stations per PHY, Bianchi's model as lines and the slot-by-slot simulation as
markers, open mode; (right) what each security mode costs a single saturated station
against open, per PHY.
"""

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(row):
    return row["phy"] + (f" ×{row['ampdu_mpdus']}" if row["ampdu_mpdus"] > 1 else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="?", type=Path, default=Path("out/airtime/saturation.json"))
    args = parser.parse_args()
    doc = json.loads(args.json.read_text())
    rows = doc["rows"]

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    for row in (r for r in rows if r["mode"] == "open"):
        stations = sorted(int(n) for n in row["throughput_mbps"])
        line, = left.plot(stations, [row["throughput_mbps"][str(n)] for n in stations], label=label(row))
        simulated = sorted(int(n) for n in row["simulated_throughput_mbps"])
        left.plot(simulated, [row["simulated_throughput_mbps"][str(n)] for n in simulated], "o",
                  color=line.get_color())
    left.set_xlabel("saturated stations")
    left.set_ylabel("IP throughput, all stations (Mbit/s)")
    left.set_title(f"Saturation, open, {doc['ip_bytes']}-B IP (lines Bianchi, dots simulated)")
    left.set_yscale("log")
    left.legend(fontsize=7)

    phys = list(dict.fromkeys(label(r) for r in rows))
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    width = 0.8 / len(modes)
    for k, mode in enumerate(modes[1:], start=1):
        values = [next(r["single_station_vs_open_percent"] for r in rows if label(r) == p and r["mode"] == mode)
                  for p in phys]
        right.bar([i + k * width for i in range(len(phys))], values, width, label=mode)
    right.set_xticks([i + 0.4 for i in range(len(phys))], phys, rotation=45, ha="right", fontsize=7)
    right.set_ylabel("single-station throughput vs open (%)")
    right.axhline(0, color="black", linewidth=0.5)
    right.set_title("What the security mode costs on the air")
    right.legend(fontsize=7)

    fig.tight_layout()
    out = args.json.with_suffix(".png")
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
