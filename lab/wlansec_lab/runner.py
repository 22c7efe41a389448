"""The experiment runner: a declarative matrix per experiment × repeats (one warm-up round
discarded). In every round the network configurations come in a shuffled order and each is
brought up once, its points shuffled inside it. Every run record (with load average and the
emulator's release-time error) is appended to OUT/raw/<experiment>.runs.jsonl as it completes,
so a killed run continues with --resume; the per-experiment JSON and summary are built from
that file. The plan (runs, bring-ups, estimated time) is printed first; a progress bar follows.
The experiments themselves are `wlansec_lab.experiments`."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from wlansec_lab import tidy
from wlansec_lab.experiments import EXPERIMENTS, WLAN_UP_S, Context, Experiment
from wlansec_lab.stats import summarize


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


def source_commit() -> str | None:
    """The commit of the tree this package runs from ("-dirty" with local changes), None outside git."""
    here = Path(__file__).resolve().parent

    def git(*args):
        return subprocess.run(["git", "-C", str(here), *args], capture_output=True, text=True, timeout=10)
    try:
        head = git("rev-parse", "--short=7", "HEAD")
        if head.returncode:
            return None
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip() + ("-dirty" if dirty else "")


def machine() -> dict:
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")), platform.processor())
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "commit": source_commit()}


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
