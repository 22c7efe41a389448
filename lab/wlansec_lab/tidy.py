"""The campaign as one tidy table: a row per run of the network experiments (video, tcp, files, join, cipher-cost),
its configuration in columns and its metrics in columns, written from OUT/raw/<experiment>.json
to OUT/runs.csv (and OUT/runs.parquet where pyarrow is installed), so that

    pandas.read_csv("out/lab/runs.csv")

is the whole campaign. The columns and their units are documented in docs/lab-data.md."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pandas as pd

from wlansec_lab.experiments import EXPERIMENTS

#: The configuration columns: every axis of every network experiment, in first-seen order
#: (a run has a value only in its experiment's axes).
CONFIG_COLUMNS = list(dict.fromkeys(axis for e in EXPERIMENTS.values() if e.measure for axis in e.axes))
#: Per-run columns before the configuration and the metrics.
RUN_COLUMNS = ["experiment", "round", "warmup", "status", "error"]
#: Per-run columns after the metrics: how and where the run went.
CONTEXT_COLUMNS = ["measure_s", "wall_s", "loadavg1", "medium_seed", "release_error_p99_us", "rtl_frames_per_s", "worker"]


def rows(out: Path) -> list[dict]:
    """One dict per run record of OUT/raw/<experiment>.json, in plan order, experiment by experiment."""
    table = []
    for name, e in EXPERIMENTS.items():
        path = Path(out) / "raw" / f"{name}.json"
        if not e.measure or not path.exists():
            continue
        for r in json.loads(path.read_text())["runs"]:
            status = "skipped" if r.get("skipped") else "error" if r.get("error") else "ok"
            release = r.get("release_error") or {}
            table.append({
                "experiment": name, "round": r["round"], "warmup": r["warmup"], "status": status,
                "error": r.get("error") or r.get("skipped"),
                **{axis: r["point"].get(axis) for axis in CONFIG_COLUMNS},
                # The RTL's speed is the simulation's, not a reading of the network: context. Per-station
                # lists (join) stay in the raw JSON: a cell holds one value.
                **{k: v for k, v in (r.get("metrics") or {}).items() if k != "rtl_frames_per_s" and not isinstance(v, list)},
                "measure_s": r.get("seconds"), "wall_s": r.get("wall_s"),
                "loadavg1": r["loadavg"][0] if r.get("loadavg") else None, "medium_seed": r.get("medium_seed"),
                "release_error_p99_us": release.get("p99_us") if release.get("frames") else None,
                "rtl_frames_per_s": (r.get("metrics") or {}).get("rtl_frames_per_s"),
                "worker": r.get("worker"),
            })
    return table


def frame(out: Path) -> pd.DataFrame:
    """The table with its columns in the documented order: run, configuration, metrics (sorted), context."""
    table = rows(out)
    fixed = {*RUN_COLUMNS, *CONFIG_COLUMNS, *CONTEXT_COLUMNS}
    metrics = sorted({k for row in table for k in row} - fixed)
    return pd.DataFrame(table, columns=[*RUN_COLUMNS, *CONFIG_COLUMNS, *metrics, *CONTEXT_COLUMNS])


def write(out: Path) -> list[Path]:
    """OUT/runs.csv, and OUT/runs.parquet when pyarrow is importable; the paths written
    (none when the run has no network experiment yet)."""
    df = frame(out)
    if df.empty:
        return []
    written = [Path(out) / "runs.csv"]
    df.to_csv(written[0], index=False)
    if importlib.util.find_spec("pyarrow") is not None:
        written.append(Path(out) / "runs.parquet")
        # Parquet needs one type per column: the configuration's integers (ip, size) stay
        # integers where set, and an all-empty column is typed as text.
        df.convert_dtypes().to_parquet(written[1], index=False)
    return written
