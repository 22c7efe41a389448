#!/usr/bin/env python3
"""`wlansec decrypt` against `airdecap-ng` on the same large synthetic capture.

One core each (`taskset -c 0`), runs alternating, side by side in one invocation. The
capture (CCMP-128, several stations, a rekey, no fragments: airdecap-ng crashes on short
last fragments) lives on tmpfs when there is one, so both tools read and write memory.
Throughput is capture megabytes per second of CPU time (user + system, from the kernel's
accounting of each child), the figure that stays fair on a shared machine; wall time is
shown beside it. Each tool's output of the previous run is deleted before its timed run,
outside the timing, for every tool alike: otherwise freeing the old file's pages (a rename
over it, or a truncating open) would be charged to the next run. Prints a table, writes
JSON.

    python3 scripts/bench_decrypt.py [--frames 300000] [--runs 3] [--json out/bench_decrypt.json]
                                     [--baseline OLD_WLANSEC]

`--baseline` runs a second wlansec binary (an older build) alternately on the same capture,
so a change's before and after are measured side by side, and checks that both write the
same bytes.
"""

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SSID, PASSPHRASE = "wlansec-bench", "correct horse battery"


def timed(cmd):
    """Run `cmd` pinned to core 0; returns (wall s, user s, system s, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run(["taskset", "-c", "0", *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        sys.exit(f"bench_decrypt: {cmd[0]} failed:\n{run.stdout}{run.stderr}")
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, run.stdout


def built_from(wlansec):
    """The commit a wlansec binary was built from, as its --version says ("-dirty": with
    changed sources)."""
    version = subprocess.run([wlansec, "--version"], capture_output=True, text=True).stdout
    return version.strip().rsplit("(", 1)[-1].rstrip(")") if "(" in version else "unknown"


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def count(summary, label):
    m = re.search(re.escape(label) + r"\s+(\d+)", summary)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=300_000, help="Ethernet frames carried (300000 = ~250 MB)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", default=str(ROOT / "out" / "bench_decrypt.json"))
    ap.add_argument("--wlansec", default=os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec")))
    ap.add_argument("--baseline", help="an older wlansec binary to run alternately (before/after a change)")
    args = ap.parse_args()
    for tool in (args.wlansec, "airdecap-ng", "taskset"):
        if not shutil.which(tool) and not Path(tool).exists():
            sys.exit(f"bench_decrypt: {tool} not found (make build / make setup)")

    base = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="wlansec-bench-", dir=base) as tmp:
        cap = Path(tmp) / "capture.pcap"
        print(f"bench_decrypt: synthesizing {args.frames} frames into {cap} ...", flush=True)
        subprocess.run(
            [args.wlansec, "synth", "-o", str(cap), "--frames", str(args.frames), "--stations", "8",
             "--rekey", "--fragment-every", "0", "-e", SSID, "-p", PASSPHRASE, "--seed", "7"],
            check=True,
        )
        size_mb = cap.stat().st_size / 1e6
        outputs = {name: Path(tmp) / f"{name}.pcap" for name in ("ours", "theirs", "baseline")}
        tools = {
            "wlansec decrypt": (outputs["ours"], [args.wlansec, "decrypt", "-e", SSID, "-p", PASSPHRASE, str(cap),
                                                  "-o", str(outputs["ours"])]),
            "airdecap-ng": (outputs["theirs"], ["airdecap-ng", "-e", SSID, "-p", PASSPHRASE, "-o", str(outputs["theirs"]),
                                                str(cap)]),
        }
        if args.baseline:
            tools["wlansec (baseline)"] = (outputs["baseline"], [args.baseline, "decrypt", "-e", SSID, "-p", PASSPHRASE,
                                                                 str(cap), "-o", str(outputs["baseline"])])
        # CPU time split: the system part is mostly the kernel reading the capture and
        # writing the output (tmpfs pages allocated).
        results = {name: {"wall_s": [], "cpu_s": [], "user_s": [], "sys_s": []} for name in tools}
        summaries = {}
        for run in range(args.runs):
            for name, (output, cmd) in tools.items():
                output.unlink(missing_ok=True)
                wall, user, system, out = timed(cmd)
                cpu = user + system
                results[name]["wall_s"].append(wall)
                results[name]["cpu_s"].append(cpu)
                results[name]["user_s"].append(user)
                results[name]["sys_s"].append(system)
                summaries[name] = out
                print(f"  run {run + 1}/{args.runs}  {name:<18} wall {wall:6.2f} s  cpu {cpu:6.2f} s", flush=True)
        same_output = None
        if args.baseline:
            same_output = outputs["ours"].read_bytes() == outputs["baseline"].read_bytes()

    rows = {}
    for name, r in results.items():
        cpu, wall = statistics.median(r["cpu_s"]), statistics.median(r["wall_s"])
        rows[name] = {
            "median_cpu_s": cpu,
            "median_wall_s": wall,
            "median_user_s": statistics.median(r["user_s"]),
            "median_sys_s": statistics.median(r["sys_s"]),
            "mb_per_cpu_s": size_mb / cpu,
            "mb_per_wall_s": size_mb / wall,
            "runs": r,
            "packets_read": count(summaries[name], "Total number of packets read"),
            "wpa_data_packets": count(summaries[name], "Total number of WPA data packets"),
            "decrypted_wpa": count(summaries[name], "Number of decrypted WPA  packets"),
        }
    ours, theirs = rows["wlansec decrypt"], rows["airdecap-ng"]
    ratio_cpu = ours["mb_per_cpu_s"] / theirs["mb_per_cpu_s"]
    ratio_wall = ours["mb_per_wall_s"] / theirs["mb_per_wall_s"]

    print()
    print(f"capture: {size_mb:.0f} MB, CCMP-128, 8 stations, rekey; one core each (taskset -c 0); medians of {args.runs}")
    print(f"{'tool':<18}{'cpu s':>8}{'user':>7}{'sys':>7}{'MB/cpu-s':>10}{'wall s':>8}{'MB/wall-s':>11}{'decrypted':>11}")
    for name, r in rows.items():
        print(f"{name:<18}{r['median_cpu_s']:>8.3f}{r['median_user_s']:>7.3f}{r['median_sys_s']:>7.3f}{r['mb_per_cpu_s']:>10.0f}"
              f"{r['median_wall_s']:>8.2f}{r['mb_per_wall_s']:>11.0f}{r['decrypted_wpa'] or 0:>11}")
    print(f"{'ratio (ours/theirs)':<18}{'':>22}{ratio_cpu:>9.1f}x{'':>8}{ratio_wall:>10.1f}x")
    if args.baseline:
        before = rows["wlansec (baseline)"]
        print(f"{'ratio (ours/baseline)':<18}{'':>19}{ours['mb_per_cpu_s'] / before['mb_per_cpu_s']:>9.2f}x"
              f"{'':>8}{ours['mb_per_wall_s'] / before['mb_per_wall_s']:>10.2f}x"
              f"   output {'byte-identical' if same_output else 'DIFFERS'}")
    print("(airdecap-ng decrypts no group-addressed frames, so it writes fewer frames.)")

    report = {
        "benchmark": "decrypt",
        "capture_mb": size_mb,
        "frames": args.frames,
        "runs": args.runs,
        "pinning": "taskset -c 0",
        "host": {"machine": platform.machine(), "cpu_model": cpu_model(), "cpus": os.cpu_count(),
                 "load_avg": os.getloadavg()},
        "commit": built_from(args.wlansec),
        "baseline": args.baseline,
        "baseline_commit": built_from(args.baseline) if args.baseline else None,
        "baseline_output_identical": same_output if args.baseline else None,
        "tools": rows,
        "ratio_cpu_throughput": ratio_cpu,
        "ratio_wall_throughput": ratio_wall,
        "goal_ratio": 10.0,  # issue 22: at least 10x airdecap-ng per CPU-second
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
