"""Publish a finished laboratory run under docs/results: the report, its figures, the
per-experiment JSON (summary and every run) and the run's metadata, copied to
DEST/<date>-<name>/ with a README that gives the date, the machine and the command.
A run with runs still to do (a killed `make lab` not resumed to its end) is refused, so a
published report is always a whole one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


class Incomplete(ValueError):
    """The run still has runs to do, or a bench that did not finish."""


def missing(out: Path) -> list[str]:
    """What the run in `out` still lacks: per network experiment, runs of its plan that its
    JSON Lines record (the runner's source of truth) does not hold, or holds ended in an
    error; per bench, a status other than ok; a run.json (written when a run ends); the
    results of any experiment run.json names."""
    out = Path(out)
    raw = out / "raw"
    if not raw.is_dir():
        return [f"{raw} does not exist"]
    if not (out / "run.json").exists():
        lacks = ["run.json (the run has not ended)"]
    else:  # every experiment the run was asked for has its results
        lacks = [f"{name}: no raw/{name}.json" for name in json.loads((out / "run.json").read_text()).get("experiments", [])
                 if not (raw / f"{name}.json").exists()]
    for path in sorted(raw.glob("*.runs.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        plan = lines[0]["plan"]
        planned = len(plan["points"]) * (plan["repeats"] + plan["warmup"])
        latest = {(r["round"], json.dumps(r["point"], sort_keys=True)): r for r in lines[1:] if "round" in r}
        done = sum(1 for r in latest.values() if "error" not in r)
        summarized = path.with_name(path.name.replace(".runs.jsonl", ".json"))
        if done < planned:
            lacks.append(f"{plan['experiment']}: {done} of {planned} runs")
        elif not summarized.exists() or summarized.stat().st_mtime < path.stat().st_mtime:
            lacks.append(f"{plan['experiment']}: runs done, summary not written")
    for path in sorted(raw.glob("*.json")):
        data = json.loads(path.read_text())
        if "status" in data and data["status"] != "ok":
            lacks.append(f"{data.get('experiment', path.stem)}: {data['status']} ({data.get('error', '')})")
    return lacks


def publish(out: Path, dest: Path, name: str, note: str = "") -> Path:
    """Copy the finished run in `out` to dest/<date>-<name>/ and return that directory."""
    out = Path(out)
    lacks = missing(out)
    if lacks:
        raise Incomplete(f"{out} is not finished: {'; '.join(lacks)} (make lab-resume, then publish)")
    meta = json.loads((out / "run.json").read_text())
    date = meta["machine"]["date"].split()[0]
    target = Path(dest) / f"{date}-{name}"
    if target.exists():
        shutil.rmtree(target)
    (target / "raw").mkdir(parents=True)
    shutil.copytree(out / "report", target / "report")
    if (out / "figures").is_dir():
        shutil.copytree(out / "figures", target / "figures")
    for path in sorted((out / "raw").glob("*.json")) + sorted((out / "raw").glob("*.md")):  # .md: the hardware layouts the report quotes
        shutil.copy(path, target / "raw" / path.name)
    for extra in ("run.json", "selftest.txt", "runs.csv", "runs.parquet"):  # runs.*: the tidy table (tidy.py)
        if (out / extra).exists():
            shutil.copy(out / extra, target / extra)
    plans = {}
    for path in sorted((out / "raw").glob("*.json")):
        data = json.loads(path.read_text())
        if "plan" in data:
            plans[data["experiment"]] = data["plan"]
    m = meta["machine"]
    lines = [f"# wlansec laboratory run, {date}", "",
             "The report is `report/index.html` (and `report/report.md`); `raw/` holds every run record "
             "and the per-point summaries it was written from; `run.json` the run's settings.", "",
             f"- Machine: {m['cpu']}, {m['cores']} cores, Linux {m['kernel']}, Python {m['python']}",
             f"- Finished (last start or resume): {m['date']}",
             f"- Repeats per point: {meta['repeats']} after {meta['warmup']} warm-up; seed {meta['seed']}; "
             f"{meta['seconds_per_run']:g} s of traffic per video run; testbed: {meta['testbed']}"]
    for exp, plan in plans.items():
        lines.append(f"- {exp}: {len(plan['points'])} points × {plan['repeats'] + plan['warmup']} rounds; "
                     f"wlansec binary SHA-256 {str(plan.get('wlansec_sha256'))[:16]}…")
    if note:
        lines += ["", note]
    (target / "README.md").write_text("\n".join(lines) + "\n")
    return target
