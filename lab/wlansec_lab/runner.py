"""The experiment runner: a declarative matrix per experiment × repeats (one warm-up round
discarded). In every round the network configurations come in a shuffled order and each is
brought up once, its points shuffled inside it. Every run record (with load average and the
emulator's release-time error) is appended to OUT/raw/<experiment>.runs.jsonl as it completes,
so a killed run continues with --resume; the per-experiment JSON and summary are built from
that file. The plan (runs, bring-ups, estimated time) is printed first; a progress bar follows.

Experiments: video, tcp, files (network, on a testbed), ccmp-bench, ciphers, hardware
(import the benches' JSON)."""

from __future__ import annotations

import hashlib
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
#: The `wlansec` binary the lab runs: $WLANSEC, else the release build.
DEFAULT_WLANSEC = os.environ.get("WLANSEC") or str(ROOT / "target" / "release" / "wlansec")
STUDY_SIZES = [128, 384, 640, 896, 1152, 1408]


@dataclass
class Context:
    #: The network the runs use; in a cluster run only the description of the workers' testbeds
    #: (its kind and settings go into the plan), never brought up on the client.
    testbed: Testbed | None
    wlansec: str
    out: Path
    quick: bool
    seconds: float
    cache: dict = field(default_factory=dict)
    #: (round, plan seed) the testbed's configuration was brought up for: a new round brings it up afresh.
    up_round: tuple[int, int] | None = None


@dataclass
class Experiment:
    name: str
    title: str
    axes: dict          # full matrix: axis → values
    quick_axes: dict    # --quick overrides
    measure: Callable[[Context, dict], dict] | None = None
    network: Callable[[dict], dict] | None = None   # point → testbed configuration
    bench: Callable[[Context], dict] | None = None  # run-once import of a bench
    valid: Callable[[dict], bool] | None = None     # drops combinations that mean nothing
    #: Estimated wall seconds of one run of a point (of the bench: point None) for the plan's
    #: ETA, from ctx.seconds and quick.
    estimate: Callable[[float, bool, dict | None], float] = lambda seconds, quick, point: seconds

    def points(self, quick: bool) -> list[dict]:
        axes = {**self.axes, **(self.quick_axes if quick else {})}
        combos = (dict(zip(axes, combo)) for combo in itertools.product(*axes.values()))
        return [p for p in combos if self.valid is None or self.valid(p)]


# ---- network experiments -------------------------------------------------------------------

#: The stations' card models (`wlansec wlan up --card`): `hw`, crypto in the card's hardware at
#: line rate, and `mcu:88`, the portable software suite on the card's embedded CPU at 88 MHz:
#: the clock the Atheros AR9170 (2008, an 802.11n USB client chip of the studies' era) runs
#: its CPU at (`AHB_80_88MHZ` in its open carl9170 firmware and Linux/OpenBSD drivers).
CARDS = ["hw", "mcu:88"]
#: Modes whose crypto the card does; open has none and Enhanced runs on the host engine, so
#: for those the card model changes nothing and they are measured once (card `hw`).
CARD_SECURITIES = ("wep", "tkip", "ccmp")


def _card_applies(p: dict) -> bool:
    return p["card"] == "hw" or p["security"] in CARD_SECURITIES


def set_cards(cards: list[str]) -> None:
    """The card axis of every experiment that has one (`hw` always stays: open and Enhanced run on it)."""
    cards = ["hw", *[c for c in cards if c != "hw"]]
    for e in EXPERIMENTS.values():
        if "card" in e.axes:
            e.axes = {**e.axes, "card": cards}


def _video_network(p: dict) -> dict:
    return {"security": p["security"], "phy": p["phy"], "card": p["card"]}


def _video(ctx: Context, p: dict) -> dict:
    return traffic.video(ctx.testbed, p["ip"], p["profile"], ctx.seconds)


def _tcp_network(p: dict) -> dict:
    return {"security": p["security"], "phy": p["phy"], "card": p["card"]}


def _tcp_seconds(seconds: float) -> int:
    """Seconds of each TCP tool run (iperf3 once, qperf twice: tcp_bw and tcp_lat)."""
    return max(1, round(seconds / 2))


def _tcp(ctx: Context, p: dict) -> dict:
    seconds = _tcp_seconds(ctx.seconds)
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


#: Transfer rate (Mbit/s) of a file per (topology, signal) on g54, for the ETA only: measured with
#: the study's largest file, text-7139KB, open (2026-11-21).
FILE_RATE_MBPS = {("bss", "excellent"): 11.3, ("bss", "poor"): 3.6, ("ibss", "excellent"): 22.8, ("ibss", "poor"): 7.4}


def file_kb(name: str) -> float:
    """The size in the study's file name (`text-321KB` → 321)."""
    return float(name.rsplit("-", 1)[1].removesuffix("KB"))


def _files_estimate(p: dict) -> float:
    size = file_kb(p["file"]) * 1e3
    return RUN_OVERHEAD_S["files"] + size * 8 / (FILE_RATE_MBPS[(p["topology"], p["signal"])] * 1e6)


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
    """The hardware benches' rows (hdl/reports/summary.json) and their tables in the published
    layouts (hdl/reports/README.md, between the LAYOUTS markers, written by hdl/syn/report.py)."""
    reports = ROOT / "hdl" / "reports"
    src = reports / "summary.json"
    if not src.exists():
        return {"status": "absent", "error": f"{src.relative_to(ROOT)} not present (the hardware bench has not run here)"}
    shutil.copy(src, ctx.out / "raw" / "hardware.bench.json")
    result = {"status": "ok", "json": "hardware.bench.json"}
    readme = (reports / "README.md").read_text() if (reports / "README.md").exists() else ""
    if "<!-- LAYOUTS -->" in readme and "<!-- /LAYOUTS -->" in readme:
        layouts = readme.split("<!-- LAYOUTS -->", 1)[1].split("<!-- /LAYOUTS -->", 1)[0].strip()
        (ctx.out / "raw" / "hardware.layouts.md").write_text(layouts + "\n")
        result["layouts"] = "hardware.layouts.md"
    return result


SECURITIES = ["open", "wep", "tkip", "ccmp", "enhanced"]
#: Wall seconds of one run beyond its traffic (tool start-up, servers, status, its share of the
#: bring-ups), and of one WLAN bring-up, measured on this project's 2-core machine
#: (`wlansec-lab run -e video,tcp --quick --seconds 3|10`, 2026-11-21): video 3.5 s at 3 s and
#: 11.2 s at 10 s of traffic, TCP 7.9 s at 2 s and 16.9 s at 5 s per tool, a bring-up 0.2–1.3 s.
VIDEO_SECONDS_FACTOR = 1.1
RUN_OVERHEAD_S = {"video": 0.2, "tcp": 0.9, "files": 0.6}
WLAN_UP_S = 0.3
EXPERIMENTS = {e.name: e for e in [
    Experiment("ccmp-bench", "CCMP engines on the host (wlansec bench ccmp)", {}, {}, bench=_ccmp_bench,
               estimate=lambda s, quick, p: 2 if quick else 5),
    Experiment("ciphers", "Ciphers on the study's files (wlansec bench ciphers)", {}, {}, bench=_ciphers,
               estimate=lambda s, quick, p: 18 if quick else 240),
    Experiment("hardware", "CCMP hardware cores (hdl/reports/summary.json)", {}, {}, bench=_hardware,
               estimate=lambda s, quick, p: 0),
    # --quick: one profile (the variable-rate "high" stream) with every mode × card: the card
    # models are the point of the comparison, the second rate doubles the time.
    Experiment("video", "HD video between two stations through the AP: delay, jitter, loss",
               {"security": SECURITIES, "card": CARDS, "profile": ["cbr-high", "vbr-high", "vbr-very-high"], "phy": ["g54"], "ip": [4]},
               {"profile": ["vbr-high"]}, measure=_video, network=_video_network, valid=_card_applies,
               estimate=lambda s, quick, p: VIDEO_SECONDS_FACTOR * s + RUN_OVERHEAD_S["video"]),
    # --quick: IPv4 only, the smallest and largest size, open and WPA2 on both cards: the card ×
    # packet-size interaction is what the quick run must show; IPv6 differs by ~2% in the study.
    Experiment("tcp", "TCP throughput and RTT vs packet size, IPv4/IPv6, open vs WPA2",
               {"security": ["open", "ccmp"], "card": CARDS, "ip": [4, 6], "size": STUDY_SIZES, "phy": ["n-mcs7-40"]},
               {"ip": [4], "size": [128, 1408]}, measure=_tcp, network=_tcp_network, valid=_card_applies,
               estimate=lambda s, quick, p: 3 * _tcp_seconds(s) + traffic.IPERF_OMIT_S + RUN_OVERHEAD_S["tcp"]),
    Experiment("files", "Transmission time of the study's files: open/WEP/TKIP, ad hoc/infrastructure, signal",
               {"security": ["open", "wep", "tkip"], "topology": ["ibss", "bss"], "signal": ["excellent", "poor"],
                "file": ["text-321KB", "text-694KB", "text-1327KB", "text-2492KB", "text-4211KB", "text-7139KB",
                         "video-4006KB", "video-4415KB", "video-5073KB"]},
               {"file": ["text-321KB"]}, measure=_files, network=_files_network,
               estimate=lambda s, quick, p: _files_estimate(p)),
]}


# ---- the runner ----------------------------------------------------------------------------

class PlanMismatch(ValueError):
    """--resume found raw records of a different matrix, seed or settings."""


class Progress:
    """A progress bar whose ETA starts from the plan's estimate and follows the measured pace."""

    def __init__(self, total: int, estimate_s: float, stream=sys.stderr) -> None:
        self.total, self.done, self.start, self.stream = total, 0, time.monotonic(), stream
        self.estimate_s, self.estimated_done = estimate_s, 0.0

    def step(self, label: str, estimate_s: float) -> None:
        """One run done whose planned estimate was `estimate_s`: the rest of the plan is scaled by
        the pace so far (measured ÷ estimated), as runs of different experiments differ."""
        self.done += 1
        self.estimated_done += estimate_s
        elapsed = time.monotonic() - self.start
        pace = elapsed / self.estimated_done if self.estimated_done > 0 else 1.0
        eta = max(0.0, self.estimate_s - self.estimated_done) * pace
        width = 30
        filled = int(width * self.done / max(1, self.total))
        line = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"{elapsed:5.0f}s elapsed, ETA {_hm(eta)}  {label[:48]:<48}")
        if self.stream.isatty():
            # One line redrawn in place on a terminal.
            self.stream.write("\r" + line + ("\n" if self.done == self.total else ""))
        elif self.done == 1 or self.done == self.total or self.done * 10 // self.total > (self.done - 1) * 10 // self.total:
            # A log gets a plain line per tenth of the plan, no carriage returns.
            self.stream.write(line.rstrip() + "\n")
        self.stream.flush()


def _hm(seconds: float) -> str:
    return f"{seconds // 3600:.0f}h{seconds % 3600 // 60:02.0f}m" if seconds >= 3600 else f"{seconds // 60:.0f}m{seconds % 60:02.0f}s"


def machine() -> dict:
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")), platform.processor())
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def _key(point: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in point.items())


def _config_key(config: dict) -> str:
    return json.dumps(config, sort_keys=True)


def schedule(e: Experiment, points: list[dict], repeats: int, seed: int) -> list[tuple[int, dict]]:
    """(round, point) in run order. Round 0 is the warm-up. In every round the network
    configurations come in a fresh random order, and inside one configuration its points do,
    so no configuration or point is systematically first while the WLAN is brought up once
    per configuration per round. Seeded per experiment: the same plan on every resume."""
    rng = random.Random(f"{seed}:{e.name}")
    groups: dict[str, list[dict]] = {}
    for p in points:
        groups.setdefault(_config_key(e.network(p)), []).append(p)
    order = []
    for rnd in range(repeats + 1):
        configs = list(groups)
        rng.shuffle(configs)
        for c in configs:
            pts = list(groups[c])
            rng.shuffle(pts)
            order += [(rnd, p) for p in pts]
    return order


def medium_seed(seed: int, rnd: int) -> int:
    """The emulated medium's seed (`wlan up --seed`) in round `rnd` of a run seeded `seed`:
    every round's bring-ups draw their losses and backoffs independently of the other rounds'."""
    return int.from_bytes(hashlib.sha256(f"wlansec-lab medium {seed}:{rnd}".encode()).digest()[:4], "big")


def binary_digest(path: str) -> str | None:
    """SHA-256 of the wlansec binary: records made by another build of it (which may emulate
    differently) must not be mixed into one run."""
    found = shutil.which(path) or path
    try:
        return hashlib.sha256(Path(found).read_bytes()).hexdigest()
    except OSError:
        return None


def plan_header(e: Experiment, ctx: Context, repeats: int, seed: int) -> dict:
    """Everything a run record depends on besides the point: a resume must match it exactly."""
    header = {"experiment": e.name, "points": e.points(ctx.quick), "repeats": repeats, "warmup": 1, "seed": seed,
              "quick": ctx.quick, "seconds_per_run": ctx.seconds, "testbed": ctx.testbed.settings() if ctx.testbed else None,
              "wlansec_sha256": binary_digest(ctx.wlansec)}
    if ctx.testbed and ctx.testbed.seeded:
        header["medium_seeds"] = [medium_seed(seed, rnd) for rnd in range(repeats + 1)]
    return header


def runs_path(out: Path, name: str) -> Path:
    return out / "raw" / f"{name}.runs.jsonl"


def read_runs(path: Path, header: dict) -> list[dict]:
    """The run records kept in `path`, after checking its plan is `header`.
    A torn last line (the run was killed while writing it) is dropped from the file."""
    text = path.read_text()
    lines = text.split("\n")
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break
    good = "\n".join(lines[:len(records)]) + "\n" if records else ""
    if good != text:
        path.write_text(good)
    if not records or "plan" not in records[0]:
        raise PlanMismatch(f"{path}: no plan line; cannot resume from it (run without --resume to start over)")
    if records[0]["plan"] != header:
        old = records[0]["plan"]
        differ = sorted(k for k in {*old, *header} if old.get(k) != header.get(k))
        raise PlanMismatch(f"{path} was recorded with a different {', '.join(differ)} "
                           f"({'; '.join(f'{k}: {json.dumps(old.get(k))[:60]} there, {json.dumps(header.get(k))[:60]} now' for k in differ)}); "
                           "resume with the same options, or run without --resume to start over")
    return [r for r in records[1:] if "round" in r]


def _latest(records: list[dict]) -> dict[tuple[int, str], dict]:
    """(round, point) → its last record: a run that ended in an error and was run again on
    resume counts once, with its new result."""
    return {(r["round"], _key(r["point"])): r for r in records}


def run(names: list[str], ctx: Context, repeats: int, seed: int = 1, resume: bool = False,
        experiments: dict | None = None, cluster=None) -> dict:
    """Run `names`: every run record is appended to OUT/raw/<experiment>.runs.jsonl as it
    completes (with --resume, runs already recorded there are skipped); then
    OUT/raw/<experiment>.json (summary + runs) and OUT/run.json are built from it. The runs of
    the network experiments are measured here on ctx.testbed, one at a time, or with `cluster`
    (a `wlansec_lab.cluster.Cluster`) on its workers' testbeds, one run per testbed at a time."""
    from wlansec_lab import tidy  # it reads the experiments' axes from this module
    experiments = experiments or EXPERIMENTS
    (ctx.out / "raw").mkdir(parents=True, exist_ok=True)
    exps = [experiments[n] for n in names]
    meta = {"machine": machine(), "quick": ctx.quick, "repeats": repeats, "warmup": 1, "seed": seed,
            "seconds_per_run": ctx.seconds, "testbed": ctx.testbed.kind if ctx.testbed else None, "experiments": names}
    # The plan: what to run, what is already recorded, and how long the rest should take.
    todo, headers, estimate, lines = {}, {}, 0.0, []
    for e in exps:
        if e.bench:
            done = resume and _bench_done(ctx, e)
            todo[e.name] = [] if done else [None]
            estimate += 0 if done else e.estimate(ctx.seconds, ctx.quick, None)
            lines.append(f"{e.name}: bench" + (" (recorded, skipped)" if done else f", ~{_hm(e.estimate(ctx.seconds, ctx.quick, None))}"))
            continue
        header = headers[e.name] = plan_header(e, ctx, repeats, seed)
        path = runs_path(ctx.out, e.name)
        records = read_runs(path, header) if resume and path.exists() else []
        if not resume and path.exists():  # a fresh run keeps the last records beside it
            path.replace(path.with_suffix(".jsonl.previous"))
        if not path.exists():
            path.write_text(json.dumps({"plan": header}) + "\n")
        done = {k for k, r in _latest(records).items() if "error" not in r}
        order = schedule(e, header["points"], repeats, seed)
        rest = [(rnd, p) for rnd, p in order if (rnd, _key(p)) not in done]
        todo[e.name] = rest
        ups = len({(rnd, _config_key(e.network(p))) for rnd, p in rest})
        seconds = sum(e.estimate(ctx.seconds, ctx.quick, p) for _, p in rest) + ups * WLAN_UP_S
        estimate += seconds
        lines.append(f"{e.name}: {len(header['points'])} points × {repeats + 1} rounds (1 warm-up) = {len(order)} runs, "
                     f"{len(order) - len(rest)} recorded, {len(rest)} to run in {ups} WLAN bring-ups, "
                     f"~{seconds / max(1, len(rest)):.1f} s per run → ~{_hm(seconds)}")
    total = sum(len(t) for t in todo.values())
    testbeds = cluster.testbeds if cluster else 1  # runs on parallel testbeds share the wall time
    where = f" on {testbeds} testbeds of {cluster.address}" if cluster else ""
    print("plan (" + ("resumed" if resume else "fresh") + f"): {total} runs, estimated {_hm(estimate / testbeds)}{where}\n  "
          + "\n  ".join(lines), file=sys.stderr, flush=True)
    progress = Progress(total, estimate / testbeds)
    for e in exps:
        if e.bench:
            if todo[e.name]:
                result = e.bench(ctx)
                (ctx.out / "raw" / f"{e.name}.json").write_text(json.dumps({"experiment": e.name, "title": e.title, "quick": ctx.quick, **result}, indent=1))
                progress.step(f"{e.name}: {result['status']}", e.estimate(ctx.seconds, ctx.quick, None))
            continue
        runs = (cluster.runs(ctx, e, todo[e.name], seed, pinned_sha256=headers[e.name]["wlansec_sha256"])
                if cluster else ((rnd, point, measure_point(ctx, e, rnd, point, seed)) for rnd, point in todo[e.name]))
        with runs_path(ctx.out, e.name).open("a") as log:
            for rnd, point, lines in runs:
                for line in lines:
                    log.write(json.dumps(line) + "\n")
                log.flush()
                progress.step(f"{e.name} r{rnd} {_key(point)}", e.estimate(ctx.seconds, ctx.quick, point) / testbeds)
        write_experiment(ctx.out, e, seed, repeats, meta)
        tidy.write(ctx.out)  # the table follows every experiment that completes, not only the report
    if ctx.testbed and ctx.testbed.config is not None:
        ctx.testbed.down()
    (ctx.out / "run.json").write_text(json.dumps(meta, indent=1))
    return meta


def measure_point(ctx: Context, e: Experiment, rnd: int, point: dict, seed: int) -> list[dict]:
    """One run of `point` in round `rnd` of a plan seeded `seed` on ctx.testbed, brought up in the
    point's configuration with the round's medium seed unless it already is. The lines the run
    adds to its experiment's JSONL: the testbed's description if it was brought up, then the
    run's record."""
    lines = []
    if ctx.up_round != (rnd, seed):
        if ctx.testbed.config is not None:
            ctx.testbed.down()  # every round brings each configuration up afresh
        ctx.testbed.seed = medium_seed(seed, rnd)
        ctx.up_round = (rnd, seed)
    began = time.monotonic()
    record = {"point": point, "round": rnd, "warmup": rnd == 0, "loadavg": os.getloadavg()}
    if ctx.testbed.seeded:
        record["medium_seed"] = ctx.testbed.seed
    config = e.network(point)
    why = ctx.testbed.supports(config)
    if why:
        record["skipped"] = why
    else:
        try:
            if ctx.testbed.config != config:
                ctx.testbed.ensure(config)
                lines.append({"testbed": ctx.testbed.describe(), "config": config})
            ctx.testbed.release_error()  # the run's own window: frames of earlier runs left out
            started = time.monotonic()
            record["metrics"] = e.measure(ctx, point)
            record["seconds"] = time.monotonic() - started
            record["release_error"] = ctx.testbed.release_error()
            record["release_error_window"] = "run"
        except Exception as err:  # one failed run is recorded, the matrix goes on
            record["error"] = f"{type(err).__name__}: {err}"
            ctx.testbed.down()  # on a fresh WLAN: the failure may have left this one broken
    record["wall_s"] = time.monotonic() - began  # the run with its share of bring-up
    return [*lines, record]


def _bench_done(ctx: Context, e: Experiment) -> bool:
    p = ctx.out / "raw" / f"{e.name}.json"
    if not p.exists():
        return False
    data = json.loads(p.read_text())
    return data.get("status") == "ok" and data.get("quick") == ctx.quick


def write_experiment(out: Path, e: Experiment, seed: int, repeats: int, meta: dict) -> None:
    """OUT/raw/<experiment>.json from its JSONL: the runs in plan order and their summary."""
    path = runs_path(out, e.name)
    records = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    header = records[0]["plan"]
    latest = _latest([r for r in records[1:] if "round" in r])
    runs = [latest[k] for k in ((rnd, _key(p)) for rnd, p in schedule(e, header["points"], repeats, seed)) if k in latest]
    descriptions = {_config_key(r["testbed"]): r["testbed"] for r in records[1:] if "testbed" in r}
    (out / "raw" / f"{e.name}.json").write_text(json.dumps(
        {"experiment": e.name, "title": e.title, "meta": meta, "plan": header, "testbed": list(descriptions.values()),
         "summary": summarize_runs(runs), "runs": runs}, indent=1))


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
