"""The results the report reads: a run's raw experiment files and their per-point summaries and
runs, the card model's costs as the `wlansec` binary states them, and the other runs and
published tables it quotes (the medium floor, the Virtex-4 CCMP core)."""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from pathlib import Path

from wlansec_lab import ROOT
from wlansec_lab import published_values as pub
from wlansec_lab import significance as sig
from wlansec_lab.ciphers import STUDY_ALGORITHMS, label as cipher_label
from wlansec_lab.experiments import CARD_SECURITIES, EXPERIMENTS, verilog_mhz


def load_raw(out: Path, name: str) -> dict | None:
    """OUT/raw/NAME.json, or None where the experiment was not run."""
    p = out / "raw" / f"{name}.json"
    return json.loads(p.read_text()) if p.exists() else None


def point_stat(entry: dict, metric: str, stat: str = "mean"):
    """A summary statistic (mean, std, …) of a metric at a point of the summary, or None."""
    s = entry["metrics"].get(metric)
    return None if not s else s[stat]


def ci_half(entry: dict, metric: str) -> float:
    """Half the width of a metric's 95 % CI at a point (0 without one)."""
    s = entry["metrics"].get(metric)
    return 0.0 if not s or not s["ci95"] else (s["ci95"][1] - s["ci95"][0]) / 2


def _samples(out: Path, ctx: dict, name: str) -> dict:
    """Per point, per metric, the kept runs of raw/NAME.json (cached in ctx)."""
    cache = ctx.setdefault("samples", {})
    if name not in cache:
        data = load_raw(out, name)
        cache[name] = sig.samples(data) if data else {}
    return cache[name]


def point_runs(out: Path, ctx: dict, name: str, point: dict, metric: str) -> list[float]:
    """A metric's kept runs at `point` of raw/NAME.json."""
    return _samples(out, ctx, name).get(sig.key(point), {}).get(metric, [])


def mode_of(p: dict) -> tuple[str, str]:
    """(security, card model) of a point; results recorded before the card axis ran on `hw`."""
    return p["security"], p.get("card", "hw")


def mode_label(mode: tuple[str, str]) -> str:
    """The mode's published name, with the card model where the card does the crypto, or the
    access point's RTL (measured through the verilated design, not a model)."""
    sec, card = mode
    if (mhz := verilog_mhz(card)) is not None:
        return pub.MODE_LABEL[sec] + f" [AP on the RTL, {mhz:g} MHz]"
    return pub.MODE_LABEL[sec] + (f" [{card}]" if sec in CARD_SECURITIES else "")


def sorted_modes(keys) -> list[tuple[str, str]]:
    """The modes present, in the published order, the card models by clock, then the RTL access
    point by clock."""
    present = set(keys)
    return sorted(present, key=lambda m: (list(pub.MODE_LABEL).index(m[0]), verilog_mhz(m[1]) is not None,
                                          card_mhz(m[1]) or verilog_mhz(m[1]) or 0.0, m[1]))


def rtl_speed(out: Path) -> dict[str, list[float]]:
    """Per experiment (video, tcp), the RTL access point's simulation speed in each kept run:
    frames it sealed or opened per second of wall time (`wlan status` counters)."""
    speed = {}
    for name in ("video", "tcp"):
        runs = (load_raw(out, name) or {}).get("runs", [])
        kept = [r["metrics"]["rtl_frames_per_s"] for r in runs if not r["warmup"] and "rtl_frames_per_s" in (r.get("metrics") or {})]
        if kept:
            speed[name] = kept
    return speed


def card_mhz(card: str) -> float | None:
    """The clock of an `mcu:MHZ` card model; None for `hw`."""
    return float(card.split(":", 1)[1]) if card.startswith("mcu:") else None


#: Frame sizes (MPDU octets) at which the report states each card's crypto time.
CARD_MPDU_BYTES = (128, 1536)


def card_costs_us(wlansec: str, card: str) -> dict[tuple[str, int], float]:
    """The emulator's modelled crypto time per frame of `card` (µs), by (security, MPDU
    octets), as `wlansec wlan card` states it."""
    out = subprocess.run([wlansec, "wlan", "card", "--card", card, "--security", ",".join(CARD_SECURITIES),
                          "--mpdu-bytes", ",".join(map(str, CARD_MPDU_BYTES))],
                         capture_output=True, text=True, check=True, timeout=30).stdout
    return {(c["security"], c["mpdu_bytes"]): c["cost_us"] for c in json.loads(out)["costs"]}


#: The medium's RTT floor by release mode, load and idle state (`python -m wlansec_lab.floor`).
MEDIUM_FLOOR_RUN = ROOT / "docs" / "results" / "2026-11-26-medium-floor"


def medium_floor(run: Path = MEDIUM_FLOOR_RUN) -> dict | None:
    """The floor measurement's JSON, or None where it was not run."""
    path = run / "floor.json"
    return json.loads(path.read_text()) if path.exists() else None


#: The cipher comparison with and without AES instructions, back to back on one machine
#: (`scripts/bench-ciphers-soft-aes.sh`): the measurement behind the ranking's explanation.
AES_SOFT_RUN = ROOT / "docs" / "results" / "2026-11-26-ciphers-aes-soft"


def study_cipher_times(records: list[dict]) -> dict:
    """(cipher label, file) → {encrypt: s, decrypt: s} of `wlansec bench ciphers` records,
    for the study's ciphers at its key sizes only."""
    times = defaultdict(dict)
    for r in records:
        if r["impl"] == "wlansec" and (r["cipher"], r["key_bits"], r["mode"]) in STUDY_ALGORITHMS:
            times[(cipher_label(r["cipher"], r["key_bits"], r["mode"]), r["data"])][r["direction"]] = r["wall_s"]
    return times


def files_order(p: dict) -> tuple:
    """The matrix's own order: security, topology, signal, then file (text by size, then video)."""
    axes = EXPERIMENTS["files"].axes
    return tuple(axes[k].index(p[k]) if p[k] in axes[k] else len(axes[k]) for k in ("security", "topology", "signal", "file"))


#: The published FPGA AES-CCMP core the hardware section compares ours with.
ALGREDO = "Algredo-Badillo et al. 2010, AES-CCMP on Virtex-4 LX (hdl/reports/published/algredo2010_aes_ccmp_hw.json)"
#: Its throughput per MHz on its Eq. 1 accounting (the AAD blocks counted as data).
ALGREDO_MBPS_PER_MHZ = 12.59


def algredo_virtex4() -> dict:
    """The published Virtex-4 AES-CCMP core's figures (its Table 2), by row name."""
    study = json.loads((ROOT / "hdl" / "reports" / "published" / "algredo2010_aes_ccmp_hw.json").read_text())
    table = next(t for t in study["tables"] if t["id"] == "Table 2")
    return {row[0]: row[1] for row in table["rows"]}
