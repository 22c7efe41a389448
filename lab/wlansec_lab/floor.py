"""The emulated medium's RTT floor: how steady an open-network RTT point is, where its spread
comes from, and how many runs resolve the studies' 0.19 ms WPA2 cost (root).

    python -m wlansec_lab.floor [--rounds 12] [--seconds 2] [--size 896] [--json floor.json]

Each round brings the WLAN up once per release mode (the timer alone, or busy-waiting the
last `--spin-us` before each release: `wlan up --release-spin-us`) and runs one qperf tcp_lat
point (the lab's RTT, station → AP → station, open, n-mcs7-40) in each of four machine states:
idle or loaded (a busy loop on every core, at the traffic tools' priority: "the other core"),
each with the CPUs' idle states allowed or held at polling (`/dev/cpu_dma_latency` = 0: a
sleeping vCPU's wake-up is what a guest's timer and network wake-ups wait for). The order of
the states rotates per round, so drift in the machine falls on all of them alike. Each run
records its RTT, the medium's release error over that run alone (median and p99) and the load
average; per condition: the RTT mean, standard deviation and the runs per configuration a
Welch test needs to resolve 0.19 ms (two-sided 95 %, 80 % power).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from scipy import stats

from wlansec_lab import DEFAULT_WLANSEC, ROOT, runner, traffic
from wlansec_lab.testbed import RELEASE_SPIN_US, TestbedError, WlanTestbed, is_root, request_polling_idle

#: The studies' WPA2 RTT cost the lab must resolve (Li et al.: +0.19 ms).
EFFECT_MS = 0.19
ALPHA, POWER = 0.05, 0.80
NETWORK = {"security": "open", "phy": "n-mcs7-40"}
STATES = [("idle", False), ("idle", True), ("loaded", False), ("loaded", True)]


def runs_needed(std_ms: float, effect_ms: float = EFFECT_MS) -> int:
    """Runs per configuration for a two-sided two-sample test at ALPHA with POWER to detect
    `effect_ms` when both configurations spread by `std_ms` (normal approximation)."""
    z = stats.norm.ppf(1 - ALPHA / 2) + stats.norm.ppf(POWER)
    return max(2, math.ceil(2 * (z * std_ms / effect_ms) ** 2))


@contextmanager
def polling_idle(hold: bool):
    """While held, the kernel keeps every CPU in its polling idle state (PM QoS request 0 µs)."""
    fd = request_polling_idle() if hold else None
    if hold and fd is None:
        raise TestbedError("cannot open /dev/cpu_dma_latency for writing")
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)


@contextmanager
def load(on: bool):
    """A busy loop per core, at the priority the traffic tools run at."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)] if on else []
    try:
        time.sleep(0.5 if on else 0)  # the loops running before the run starts
        yield
    finally:
        for h in hogs:
            h.kill()
            h.wait()


def condition(release: str, state: str, polling: bool) -> str:
    return f"{release} · {state}{' · polling idle' if polling else ''}"


def summarize(runs: list[dict], order: list[str]) -> list[dict]:
    """One row per condition, in `order`."""
    by: dict[str, list[dict]] = {name: [] for name in order}
    for r in runs:
        by.setdefault(r["condition"], []).append(r)
    rows = []
    for name, rs in by.items():
        if not rs:
            continue
        rtt = [r["rtt_ms"] for r in rs]
        std = stats.tstd(rtt) if len(rtt) > 1 else None
        med, p99 = ([r["release_error"][k] for r in rs if r.get("release_error")] for k in ("median_us", "p99_us"))
        rows.append({"condition": name, "runs": len(rs), "rtt_mean_ms": sum(rtt) / len(rtt), "rtt_std_ms": std,
                     "release_median_us": statistics.median(med) if med else None,
                     "release_p99_us": statistics.median(p99) if p99 else None,
                     "loadavg1": [min(r["loadavg"][0] for r in rs), max(r["loadavg"][0] for r in rs)],
                     "runs_for_0_19_ms": runs_needed(std) if len(rtt) > 1 else None})
    return rows


def print_rows(rows: list[dict]) -> None:
    def f(value, fmt: str) -> str:
        return "—" if value is None or value != value else fmt.format(value)

    print(f"{'condition':<40} {'runs':>4} {'RTT ms':>7} {'std ms':>7} {'rel p50 µs':>10} {'rel p99 µs':>10} {'load':>9} "
          f"{'runs for 0.19 ms':>17}")
    for r in rows:
        print(f"{r['condition']:<40} {r['runs']:>4} {r['rtt_mean_ms']:7.3f} {f(r['rtt_std_ms'], '{:.3f}'):>7} "
              f"{f(r['release_median_us'], '{:.1f}'):>10} {f(r['release_p99_us'], '{:.1f}'):>10} "
              f"{r['loadavg1'][0]:4.1f}–{r['loadavg1'][1]:<4.1f} {f(r['runs_for_0_19_ms'], '{}'):>17}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wlansec", default=DEFAULT_WLANSEC)
    p.add_argument("--rounds", type=int, default=12, help="runs per condition (default 12)")
    p.add_argument("--seconds", type=float, default=2.0, help="qperf tcp_lat seconds per run (default 2)")
    p.add_argument("--size", type=int, default=896, help="message size, octets (default 896: Li et al.'s +0.19 ms point)")
    p.add_argument("--spin-us", type=int, default=RELEASE_SPIN_US,
                   help=f"the spinning mode's `wlan up --release-spin-us` (default {RELEASE_SPIN_US}, the lab's)")
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    if not is_root():
        print("wlansec-lab floor: needs root (network namespaces, /dev/cpu_dma_latency)", file=sys.stderr)
        return 2
    tb = WlanTestbed(a.wlansec, name="floor", release_spin_us=0, polling_idle=False)  # each run sets both itself
    releases = {"timer": {}, f"spin {a.spin_us} µs": {"release_spin_us": str(a.spin_us)}}
    runs: list[dict] = []
    per_run_s = a.seconds + 1.5
    total = a.rounds * len(releases) * len(STATES)
    progress = runner.Progress(total, total * per_run_s)
    try:
        tb.claim()
        for rnd in range(a.rounds):
            for release, extra in releases.items():
                tb.ensure({**NETWORK, **extra})
                traffic.qperf(tb, 4, a.size, 1, bandwidth=False)  # warm-up: ARP, neighbour caches
                k = (rnd + list(releases).index(release)) % len(STATES)
                for state, polling in STATES[k:] + STATES[:k]:
                    with load(state == "loaded"), polling_idle(polling):
                        tb.release_error()
                        la = os.getloadavg()
                        rtt = traffic.qperf(tb, 4, a.size, a.seconds, bandwidth=False)["rtt_ms"]
                        runs.append({"round": rnd, "condition": condition(release, state, polling), "rtt_ms": rtt,
                                     "release_error": tb.release_error(), "loadavg": la})
                    progress.step(f"{runs[-1]['condition']}: RTT {rtt:.3f} ms", per_run_s)
    except (TestbedError, traffic.TrafficError) as e:
        print(f"wlansec-lab floor: {e}", file=sys.stderr)
        return 1
    finally:
        tb.down()
    rows = summarize(runs, [condition(r, state, polling) for r in releases for state, polling in STATES])
    print_rows(rows)
    if a.json:
        out = {"network": NETWORK, "size": a.size, "seconds": a.seconds, "spin_us": a.spin_us, "effect_ms": EFFECT_MS,
               "alpha": ALPHA, "power": POWER, "machine": runner.machine(), "loadavg": os.getloadavg(),
               "commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                                        text=True).stdout.strip(),
               "wlansec": runner.binary_digest(a.wlansec),
               "rows": rows, "runs": runs}
        tmp = a.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(out, indent=1))
        tmp.replace(a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
