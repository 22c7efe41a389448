"""Significance of the differences and ratios the report reads: Welch's t-test (unequal
variances) for a difference of means, a bootstrap 95 % CI for a ratio of means, both from
SciPy, and the per-run samples of a results file they are computed on."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

#: Fixed, so that a report regenerated from the same raw files prints the same intervals.
BOOTSTRAP_SEED = 25
BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Difference:
    """mean(b) − mean(a) with its Welch 95 % CI, t and two-sided p."""
    diff: float
    low: float
    high: float
    t: float
    p: float

    @property
    def significant(self) -> bool:
        return self.p < 0.05

    def verdict(self, fmt: str = "{:+.3f}") -> str:
        """“+0.054 ms [−0.07, +0.18], not significant at 95 % (t = 0.9, p = 0.39)” without the unit."""
        word = "significant" if self.significant else "not significant"
        return f"{fmt.format(self.diff)} [{fmt.format(self.low)}, {fmt.format(self.high)}], {word} at 95 % (t = {self.t:.1f}, {p_text(self.p)})"


@dataclass(frozen=True)
class Ratio:
    """mean(b) ÷ mean(a) with a percentile bootstrap 95 % CI (each sample resampled alone)."""
    ratio: float
    low: float
    high: float

    def excludes(self, value: float) -> bool:
        return not self.low <= value <= self.high

    def text(self, fmt: str = "{:.2f}") -> str:
        return f"{fmt.format(self.ratio)}× [{fmt.format(self.low)}, {fmt.format(self.high)}]"


def p_text(p: float) -> str:
    """“p < 0.001”, “p = 0.004” or “p = 0.32”."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.2f}" if p >= 0.01 else f"p = {p:.3f}"


def welch(a: list[float], b: list[float]) -> Difference | None:
    """b − a by Welch's t-test; None when either sample has fewer than two runs. Two samples
    without any spread (a deterministic quantity) differ exactly: p is 0 or 1."""
    if len(a) < 2 or len(b) < 2:
        return None
    diff = float(np.mean(b) - np.mean(a))
    if np.std(a) == 0 and np.std(b) == 0:
        return Difference(diff, diff, diff, math.inf if diff else 0.0, 0.0 if diff else 1.0)
    res = stats.ttest_ind(b, a, equal_var=False)
    ci = res.confidence_interval(0.95)
    return Difference(diff, float(ci.low), float(ci.high), float(res.statistic), float(res.pvalue))


def ratio(a: list[float], b: list[float]) -> Ratio | None:
    """mean(b) ÷ mean(a) with its bootstrap 95 % CI; None without two runs each or a zero mean."""
    if len(a) < 2 or len(b) < 2 or not np.mean(a):
        return None
    r = float(np.mean(b) / np.mean(a))
    if np.std(a) == 0 and np.std(b) == 0:
        return Ratio(r, r, r)
    res = stats.bootstrap((np.asarray(b, float), np.asarray(a, float)), lambda x, y, axis=-1: np.mean(x, axis) / np.mean(y, axis),
                          n_resamples=BOOTSTRAP_RESAMPLES, method="percentile", vectorized=True,
                          random_state=np.random.default_rng(BOOTSTRAP_SEED))
    return Ratio(r, float(res.confidence_interval.low), float(res.confidence_interval.high))


def samples(data: dict) -> dict[str, dict[str, list[float]]]:
    """Per point (its JSON key), per metric, the kept runs' values, as the runner's summary
    counts them: warm-up, errors and skips left out; `release_error_p99_us` among the metrics."""
    out: dict[str, dict[str, list[float]]] = {}
    for r in data["runs"]:
        if r.get("skipped") or r.get("error") or r["warmup"]:
            continue
        per = out.setdefault(key(r["point"]), {})
        for k, v in r["metrics"].items():
            if isinstance(v, (int, float)) and v is not None:
                per.setdefault(k, []).append(float(v))
        if r.get("release_error") and r["release_error"].get("frames"):
            per.setdefault("release_error_p99_us", []).append(float(r["release_error"]["p99_us"]))
    return out


def key(point: dict) -> str:
    return json.dumps(point, sort_keys=True)
