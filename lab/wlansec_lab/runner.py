"""The experiment runner: a declarative matrix per experiment × repeats (one warm-up round
discarded), the configuration order shuffled in every round, load average and the emulator's
release-time error recorded per run, raw JSON kept, a progress bar with ETA.

Experiments: video, tcp, files (network, on a testbed), ccmp-bench, ciphers, hardware
(import the benches' JSON)."""

from __future__ import annotations

import itertools
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from wlansec_lab import traffic
from wlansec_lab.stats import summarize
from wlansec_lab.testbed import Testbed

ROOT = Path(__file__).resolve().parents[2]
STUDY_SIZES = [128, 384, 640, 896, 1152, 1408]


@dataclass
class Context:
    testbed: Testbed | None
    wlansec: str
    out: Path
    quick: bool
    seconds: float
    cache: dict = field(default_factory=dict)


@dataclass
class Experiment:
    name: str
    title: str
    axes: dict          # full matrix: axis → values
    quick_axes: dict    # --quick overrides
    measure: Callable[[Context, dict], dict] | None = None
    network: Callable[[dict], dict] | None = None   # point → testbed configuration
    bench: Callable[[Context], dict] | None = None  # run-once import of a bench

    def points(self, quick: bool) -> list[dict]:
        axes = {**self.axes, **(self.quick_axes if quick else {})}
        return [dict(zip(axes, combo)) for combo in itertools.product(*axes.values())]


# ---- network experiments -------------------------------------------------------------------

def _video_network(p: dict) -> dict:
    return {"security": p["security"], "phy": p["phy"]}


def _video(ctx: Context, p: dict) -> dict:
    return traffic.video(ctx.testbed, p["ip"], p["profile"], ctx.seconds)


def _tcp_network(p: dict) -> dict:
    return {"security": p["security"], "phy": p["phy"]}


def _tcp(ctx: Context, p: dict) -> dict:
    seconds = max(1, round(ctx.seconds / 2))
    ip = traffic.iperf3_tcp(ctx.testbed, p["ip"], p["size"], seconds)
    qp = traffic.qperf(ctx.testbed, p["ip"], p["size"], seconds)
    return {"iperf3_mbps": ip["throughput_mbps"], "iperf3_srtt_ms": ip["srtt_ms"], "iperf3_retransmits": ip["retransmits"],
            "qperf_mbps": qp["tcp_bw_mbps"], "qperf_rtt_ms": qp["rtt_ms"]}


def _files_network(p: dict) -> dict:
    return {"security": p["security"], "phy": "g54", "topology": p["topology"], "signal": p["signal"]}


def data_files(ctx: Context) -> Path:
    """The study's text and video files, written by `wlansec bench ciphers --write-data`."""
    d = ctx.out / "data"
    if not (d / ".complete").exists():
        d.mkdir(parents=True, exist_ok=True)
        subprocess.run([ctx.wlansec, "bench", "ciphers", "--write-data", str(d)], check=True, capture_output=True, timeout=300)
        (d / ".complete").write_text("")
    return d


def _file_path(ctx: Context, name: str) -> Path:
    matches = sorted(p for p in data_files(ctx).iterdir() if p.stem == name or p.name.startswith(name))
    if not matches:
        raise FileNotFoundError(f"data file {name} not written by wlansec bench ciphers --write-data")
    return matches[0]


def _files(ctx: Context, p: dict) -> dict:
    # The link carries ciphertext; its cost depends on the length only (no compression on the
    # air), and CBC adds at most one block, so the plaintext file stands for every cipher's.
    return traffic.file_transfer(ctx.testbed, 4, _file_path(ctx, p["file"]))


# ---- bench imports -------------------------------------------------------------------------

def _run_bench(ctx: Context, name: str, argv: list[str], timeout: float) -> dict:
    path = ctx.out / "raw" / f"{name}.bench.json"
    started = time.monotonic()
    done = subprocess.run([ctx.wlansec, *argv, "--json", str(path)], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        return {"status": "failed", "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return {"status": "ok", "json": path.name, "seconds": time.monotonic() - started, "table": done.stdout[-6000:]}


def _ccmp_bench(ctx: Context) -> dict:
    return _run_bench(ctx, "ccmp-bench", ["bench", "ccmp", *(["--quick"] if ctx.quick else [])], 1800)


QUICK_FILES = ["text-321KB", "video-4006KB"]


def _ciphers(ctx: Context) -> dict:
    quick = ["--files", ",".join(QUICK_FILES), "--repeats", "1", "--no-sweep", "--no-openssl"] if ctx.quick else []
    result = _run_bench(ctx, "ciphers", ["bench", "ciphers", *quick], 3600)
    if result["status"] == "ok":
        from wlansec_lab import ciphers
        plots = ciphers.run(ctx.out / "raw" / result["json"], ctx.out / "figures" / "ciphers")
        result["ratios"], result["reading"] = plots["ratios"], plots["reading"]
        result["plots"] = [str(p.relative_to(ctx.out)) for p in plots["plots"]]
    return result


def _hardware(ctx: Context) -> dict:
    src = ROOT / "hdl" / "reports" / "summary.json"
    if not src.exists():
        return {"status": "absent", "error": f"{src.relative_to(ROOT)} not present (the hardware bench has not run here)"}
    shutil.copy(src, ctx.out / "raw" / "hardware.bench.json")
    return {"status": "ok", "json": "hardware.bench.json"}


SECURITIES = ["open", "wep", "tkip", "ccmp", "enhanced"]
EXPERIMENTS = {e.name: e for e in [
    Experiment("ccmp-bench", "CCMP engines on the host (wlansec bench ccmp)", {}, {}, bench=_ccmp_bench),
    Experiment("ciphers", "Ciphers on the study's files (wlansec bench ciphers)", {}, {}, bench=_ciphers),
    Experiment("hardware", "CCMP hardware cores (hdl/reports/summary.json)", {}, {}, bench=_hardware),
    Experiment("video", "HD video between two stations through the AP: delay, jitter, loss",
               {"security": SECURITIES, "profile": ["cbr-high", "vbr-high", "vbr-very-high"], "phy": ["g54"], "ip": [4]},
               {"profile": ["vbr-high", "vbr-very-high"]}, measure=_video, network=_video_network),
    Experiment("tcp", "TCP throughput and RTT vs packet size, IPv4/IPv6, open vs WPA2",
               {"security": ["open", "ccmp"], "ip": [4, 6], "size": STUDY_SIZES, "phy": ["n-mcs7-40"]},
               {"size": [128, 1408]}, measure=_tcp, network=_tcp_network),
    Experiment("files", "Transmission time of the study's files: open/WEP/TKIP, ad hoc/infrastructure, signal",
               {"security": ["open", "wep", "tkip"], "topology": ["ibss", "bss"], "signal": ["excellent", "poor"],
                "file": ["text-321KB", "text-694KB", "text-1327KB", "text-2492KB", "text-4211KB", "text-7139KB",
                         "video-4006KB", "video-4415KB", "video-5073KB"]},
               {"file": ["text-321KB"]}, measure=_files, network=_files_network),
]}


# ---- the runner ----------------------------------------------------------------------------

class Progress:
    def __init__(self, total: int, stream=sys.stderr) -> None:
        self.total, self.done, self.start, self.stream = total, 0, time.monotonic(), stream

    def step(self, label: str) -> None:
        self.done += 1
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        width = 30
        filled = int(width * self.done / max(1, self.total))
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                          f"{elapsed:5.0f}s elapsed, ETA {eta // 60:.0f}m{eta % 60:02.0f}s  {label[:48]:<48}")
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def machine() -> dict:
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")), platform.processor())
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def _key(point: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in point.items())


def run(names: list[str], ctx: Context, repeats: int, seed: int = 1) -> dict:
    """Run `names`; write OUT/raw/<experiment>.json and OUT/run.json; return the summary."""
    (ctx.out / "raw").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    exps = [EXPERIMENTS[n] for n in names]
    plan = {e.name: e.points(ctx.quick) for e in exps if e.measure}
    total = sum(len(pts) * (repeats + 1) for pts in plan.values()) + sum(1 for e in exps if e.bench)
    progress = Progress(total)
    meta = {"machine": machine(), "quick": ctx.quick, "repeats": repeats, "warmup": 1, "seed": seed,
            "seconds_per_run": ctx.seconds, "testbed": ctx.testbed.kind if ctx.testbed else None, "experiments": names}
    for e in exps:
        if e.bench:
            result = e.bench(ctx)
            (ctx.out / "raw" / f"{e.name}.json").write_text(json.dumps({"experiment": e.name, "title": e.title, **result}, indent=1))
            progress.step(f"{e.name}: {result['status']}")
            continue
        runs, descriptions = [], {}
        for rnd in range(repeats + 1):
            order = list(plan[e.name])
            rng.shuffle(order)
            for point in order:
                record = {"point": point, "round": rnd, "warmup": rnd == 0, "loadavg": os.getloadavg()}
                config = e.network(point)
                why = ctx.testbed.supports(config)
                if why:
                    record["skipped"] = why
                else:
                    try:
                        ctx.testbed.ensure(config)
                        descriptions[json.dumps(config, sort_keys=True)] = ctx.testbed.describe()
                        started = time.monotonic()
                        record["metrics"] = e.measure(ctx, point)
                        record["seconds"] = time.monotonic() - started
                        record["release_error"] = ctx.testbed.release_error()
                    except Exception as err:  # one failed run is recorded, the matrix goes on
                        record["error"] = f"{type(err).__name__}: {err}"
                runs.append(record)
                progress.step(f"{e.name} {_key(point)}")
        summary = summarize_runs(runs)
        (ctx.out / "raw" / f"{e.name}.json").write_text(json.dumps(
            {"experiment": e.name, "title": e.title, "meta": meta, "testbed": list(descriptions.values()),
             "summary": summary, "runs": runs}, indent=1))
    if ctx.testbed:
        ctx.testbed.down()
    (ctx.out / "run.json").write_text(json.dumps(meta, indent=1))
    return meta


def summarize_runs(runs: list[dict]) -> list[dict]:
    """Per point: mean/std/median/95% CI of every numeric metric over the non-warm-up runs,
    and the counts of errors and skips."""
    by_point: dict[str, dict] = {}
    for r in runs:
        entry = by_point.setdefault(_key(r["point"]), {"point": r["point"], "runs": [], "errors": [], "skipped": None,
                                                        "loadavg1": [], "release_error_p99_us": []})
        if r.get("skipped"):
            entry["skipped"] = r["skipped"]
        elif r.get("error"):
            entry["errors"].append(r["error"])
        elif not r["warmup"]:
            entry["runs"].append(r["metrics"])
            entry["loadavg1"].append(r["loadavg"][0])
            if r.get("release_error") and r["release_error"].get("frames"):
                entry["release_error_p99_us"].append(r["release_error"]["p99_us"])
    out = []
    for entry in by_point.values():
        metrics = sorted({k for m in entry["runs"] for k, v in m.items() if isinstance(v, (int, float)) and v is not None})
        out.append({"point": entry["point"], "n": len(entry["runs"]), "errors": entry["errors"], "skipped": entry["skipped"],
                    "metrics": {k: summarize([m[k] for m in entry["runs"] if m.get(k) is not None]) for k in metrics},
                    "loadavg1": summarize(entry["loadavg1"]), "release_error_p99_us": summarize(entry["release_error_p99_us"])})
    return out
