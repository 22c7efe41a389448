#!/usr/bin/env python3
"""`wlansec decrypt` against `airdecap-ng` and against a plain copy of the same large capture.

Runs alternate, side by side in one invocation, medians over `--runs`: `wlansec decrypt` on
one thread and one core (`--threads 1`, `taskset -c 0`), the same on N threads and N cores
(`--threads N`, `taskset -c 0-(N-1)`, default every core), `airdecap-ng` on one core, and two
plain copies of the capture on one core (`cp`, which copies inside the kernel, and `dd
bs=1M`, a read + write loop); and, to split wlansec's one-thread CPU time, the capture read
alone (`cat` to /dev/null) and `wlansec decrypt -o -` with the output to /dev/null (all but
writing the file). The capture (CCMP-128, several stations, a rekey, no
fragments: airdecap-ng crashes on short last fragments) lives on tmpfs when there is one, so
every tool reads and writes memory. As root each tool runs under SCHED_FIFO (`chrt -f 10`,
`--no-fifo`: not), so the other load of a shared machine does not stretch its wall time (the
CPU time it does not change); the kernel's real-time throttling still leaves the others 5 %
of each second. CPU time is user + system from the kernel's accounting
of each child, the figure that stays fair on a shared machine; wall time is the figure the
threads are for. Each tool's output of the previous run is deleted before its timed run,
outside the timing, for every tool alike: otherwise freeing the old file's pages (a rename
over it, or a truncating open) would be charged to the next run. Reports the ratios the goals
are stated in (airdecap-ng CPU / wlansec CPU; wlansec wall on N threads / copy wall), that
split (reading, writing the file, the rest) beside the CPU time 10x airdecap-ng allows, the CPU
model and flags and the commit; prints a table, writes JSON.

    python3 scripts/bench_decrypt.py [--frames 300000] [--runs 3] [--threads N] [--no-fifo]
                                     [--json out/bench_decrypt.json] [--baseline OLD_WLANSEC]

`--baseline` runs a second wlansec binary (an older build) alternately on one core on the
same capture, so a change's before and after are measured side by side, and checks that both
write the same bytes (as the N-thread run's output is checked against the one-thread run's).
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
READ_ONLY, DISCARDED = "read only (cat > /dev/null)", "wlansec, output to /dev/null"
SSID, PASSPHRASE = "wlansec-bench", "correct horse battery"


def timed(cmd, cores, fifo, discard=False):
    """Run `cmd` pinned to `cores` (taskset's list), under SCHED_FIFO if `fifo`, its standard
    output to /dev/null if `discard`; returns (wall s, user s, system s, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run(["taskset", "-c", cores, *(["chrt", "-f", "10"] if fifo else []), *cmd],
                         stdout=subprocess.DEVNULL if discard else subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        sys.exit(f"bench_decrypt: {cmd[0]} failed:\n{run.stdout or ''}{run.stderr}")
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, run.stdout or ""


def built_from(wlansec):
    """The commit a wlansec binary was built from, as its --version says ("-dirty": with
    changed sources)."""
    version = subprocess.run([wlansec, "--version"], capture_output=True, text=True).stdout
    return version.strip().rsplit("(", 1)[-1].rstrip(")") if "(" in version else "unknown"


def has_threads_option(wlansec):
    """Whether a wlansec binary's decrypt takes --threads (older builds run on one thread)."""
    return "--threads" in subprocess.run([wlansec, "decrypt", "--help"], capture_output=True, text=True).stdout


# The flags that decide which AES and carry-less multiply code runs.
CPU_FLAGS = ("aes", "pclmulqdq", "avx2", "vaes", "vpclmulqdq", "avx512f", "avx512bw", "avx512vl", "sha_ni")


def cpu_info():
    """(model name, the flags of CPU_FLAGS it has)."""
    model, flags = platform.processor(), []
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                have = set(value.split())
                flags = [f for f in CPU_FLAGS if f in have]
                break
    except OSError:
        pass
    return model, flags


def count(summary, label):
    m = re.search(re.escape(label) + r"\s+(\d+)", summary)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=300_000, help="Ethernet frames carried (300000 = ~250 MB)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                    help="threads (and cores) of the multi-threaded run (default: every core)")
    ap.add_argument("--fifo", action=argparse.BooleanOptionalAction, default=os.geteuid() == 0 and bool(shutil.which("chrt")),
                    help="run each tool under SCHED_FIFO (default: when root)")
    ap.add_argument("--json", default=str(ROOT / "out" / "bench_decrypt.json"))
    ap.add_argument("--wlansec", default=os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec")))
    ap.add_argument("--baseline", help="an older wlansec binary to run alternately (before/after a change)")
    args = ap.parse_args()
    for tool in (args.wlansec, "airdecap-ng", "taskset", "cp", "dd"):
        if not shutil.which(tool) and not Path(tool).exists():
            sys.exit(f"bench_decrypt: {tool} not found (make build / make setup)")
    cores = sorted(os.sched_getaffinity(0))
    threads = max(1, min(args.threads, len(cores)))
    one_core, n_cores = str(cores[0]), ",".join(str(c) for c in cores[:threads])
    one, many = "wlansec decrypt", f"wlansec decrypt, {threads} threads"

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
        out = Path(tmp)
        decrypt = [args.wlansec, "decrypt", "-e", SSID, "-p", PASSPHRASE, str(cap), "-o"]
        # name: (output file or None, command, cores); a tool without an output file writes
        # to its standard output, which goes to /dev/null.
        tools = {
            one: (out / "ours.pcap", [*decrypt, str(out / "ours.pcap"), "--threads", "1"], one_core),
            many: (out / "ours-n.pcap", [*decrypt, str(out / "ours-n.pcap"), "--threads", str(threads)], n_cores),
            "airdecap-ng": (out / "theirs.pcap", ["airdecap-ng", "-e", SSID, "-p", PASSPHRASE, "-o",
                                                  str(out / "theirs.pcap"), str(cap)], one_core),
            "copy (cp)": (out / "cp.pcap", ["cp", str(cap), str(out / "cp.pcap")], one_core),
            "copy (dd bs=1M)": (out / "dd.pcap", ["dd", f"if={cap}", f"of={out / 'dd.pcap'}", "bs=1M",
                                                  "status=none"], one_core),
            # The parts of the floor: reading the capture alone, and the decryption with
            # its output thrown away (no file pages to allocate and fill).
            READ_ONLY: (None, ["cat", str(cap)], one_core),
            DISCARDED: (None, [*decrypt, "-", "--threads", "1"], one_core),
        }
        if args.baseline:
            threads_option = ["--threads", "1"] if has_threads_option(args.baseline) else []
            tools["wlansec (baseline)"] = (out / "baseline.pcap", [args.baseline, "decrypt", "-e", SSID, "-p",
                                                                   PASSPHRASE, str(cap), "-o",
                                                                   str(out / "baseline.pcap"), *threads_option],
                                           one_core)
        # CPU time split: the system part is mostly the kernel reading the capture and
        # writing the output (tmpfs pages allocated).
        results = {name: {"wall_s": [], "cpu_s": [], "user_s": [], "sys_s": []} for name in tools}
        summaries = {}
        for run in range(args.runs):
            for name, (output, cmd, pinned) in tools.items():
                if output:
                    output.unlink(missing_ok=True)
                wall, user, system, stdout = timed(cmd, pinned, args.fifo, discard=output is None)
                cpu = user + system
                results[name]["wall_s"].append(wall)
                results[name]["cpu_s"].append(cpu)
                results[name]["user_s"].append(user)
                results[name]["sys_s"].append(system)
                summaries[name] = stdout
                print(f"  run {run + 1}/{args.runs}  {name:<30} wall {wall:6.3f} s  cpu {cpu:6.3f} s", flush=True)
        ours_bytes = tools[one][0].read_bytes()
        threads_identical = ours_bytes == tools[many][0].read_bytes()
        same_output = ours_bytes == tools["wlansec (baseline)"][0].read_bytes() if args.baseline else None

    rows = {}
    for name, r in results.items():
        cpu, wall = statistics.median(r["cpu_s"]), statistics.median(r["wall_s"])
        rows[name] = {
            "cores": tools[name][2],
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
    ours, theirs = rows[one], rows["airdecap-ng"]
    ratio_cpu = ours["mb_per_cpu_s"] / theirs["mb_per_cpu_s"]
    ratio_wall = ours["mb_per_wall_s"] / theirs["mb_per_wall_s"]
    copy_wall = {name: rows[name]["median_wall_s"] for name in ("copy (cp)", "copy (dd bs=1M)")}
    wall_over_copy = {name: rows[many]["median_wall_s"] / wall for name, wall in copy_wall.items()}
    wall_over_copy_one = {name: ours["median_wall_s"] / wall for name, wall in copy_wall.items()}
    model, flags = cpu_info()
    # Where wlansec's one-thread CPU time goes: reading the capture (as `cat` does), writing
    # the output file (wlansec less wlansec with its output discarded) and the rest (parsing,
    # decryption, bookkeeping, output assembly); and the CPU time 10x airdecap-ng allows.
    floor = {
        "read_s": rows[READ_ONLY]["median_cpu_s"],
        "write_file_s": ours["median_cpu_s"] - rows[DISCARDED]["median_cpu_s"],
        "decrypt_s": rows[DISCARDED]["median_cpu_s"] - rows[READ_ONLY]["median_cpu_s"],
        "goal_cpu_s": theirs["median_cpu_s"] / 10,
        "ratio_if_output_free": theirs["median_cpu_s"] / rows[DISCARDED]["median_cpu_s"],
        "ratio_of_a_copy": theirs["median_cpu_s"] / rows["copy (cp)"]["median_cpu_s"],
    }

    print()
    print(f"capture: {size_mb:.0f} MB, CCMP-128, 8 stations, rekey; medians of {args.runs}"
          f"{', SCHED_FIFO' if args.fifo else ''}; {model} ({' '.join(flags)})")
    print(f"{'tool':<30}{'cores':>6}{'cpu s':>8}{'user':>7}{'sys':>7}{'MB/cpu-s':>10}{'wall s':>8}{'MB/wall-s':>11}"
          f"{'decrypted':>11}")
    for name, r in rows.items():
        print(f"{name:<30}{r['cores']:>6}{r['median_cpu_s']:>8.3f}{r['median_user_s']:>7.3f}{r['median_sys_s']:>7.3f}"
              f"{r['mb_per_cpu_s']:>10.0f}{r['median_wall_s']:>8.3f}{r['mb_per_wall_s']:>11.0f}"
              f"{r['decrypted_wpa'] or 0:>11}")
    print(f"airdecap-ng CPU / wlansec CPU (one thread):        {ratio_cpu:5.2f}x  (goal >= 10)")
    print(f"airdecap-ng wall / wlansec wall (one thread):      {ratio_wall:5.2f}x")
    for name in copy_wall:
        print(f"wlansec wall / {name + ' wall':<26}         {wall_over_copy_one[name]:5.2f}x one thread, "
              f"{wall_over_copy[name]:5.2f}x {threads} threads  (goal <= 1.5)")
    print(f"wlansec one thread, CPU s: read {floor['read_s']:.3f} + write the file {floor['write_file_s']:.3f} + decrypt "
          f"(parse, open, count, assemble) {floor['decrypt_s']:.3f}; 10x airdecap-ng allows {floor['goal_cpu_s']:.3f}")
    print(f"airdecap-ng CPU / wlansec CPU with the output discarded: {floor['ratio_if_output_free']:5.2f}x; "
          f"/ cp CPU: {floor['ratio_of_a_copy']:5.2f}x (a decryptor costing one copy)")
    print(f"{threads}-thread output {'byte-identical to' if threads_identical else 'DIFFERS from'} one thread's")
    if args.baseline:
        before = rows["wlansec (baseline)"]
        print(f"ours / baseline, MB per CPU-s: {ours['mb_per_cpu_s'] / before['mb_per_cpu_s']:.2f}x, per wall-s: "
              f"{ours['mb_per_wall_s'] / before['mb_per_wall_s']:.2f}x; "
              f"output {'byte-identical' if same_output else 'DIFFERS'}")
    print("(airdecap-ng decrypts no group-addressed frames, so it writes fewer frames.)")

    report = {
        "benchmark": "decrypt",
        "capture_mb": size_mb,
        "frames": args.frames,
        "runs": args.runs,
        "threads": threads,
        "pinning": {name: f"taskset -c {tools[name][2]}" for name in tools},
        "sched_fifo": args.fifo,
        "host": {"machine": platform.machine(), "cpu_model": model, "cpu_flags": flags, "cpus": os.cpu_count(),
                 "load_avg": os.getloadavg()},
        "commit": built_from(args.wlansec),
        "baseline": args.baseline,
        "baseline_commit": built_from(args.baseline) if args.baseline else None,
        "baseline_output_identical": same_output,
        "threads_output_identical": threads_identical,
        "tools": rows,
        "ratio_cpu_throughput": ratio_cpu,
        "ratio_wall_throughput": ratio_wall,
        "wall_over_copy": wall_over_copy,
        "wall_over_copy_one_thread": wall_over_copy_one,
        "cpu_split": floor,
        "goal_ratio": 10.0,  # at least 10x airdecap-ng per CPU-second
        "goal_wall_over_copy": 1.5,  # on several threads, within 1.5x of a plain copy's wall time
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
