"""Summary statistics of repeated runs: mean, sample standard deviation, median and the
two-sided 95% confidence interval of the mean (Student's t, from SciPy)."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


def summarize(values: list[float]) -> dict:
    """n, mean, std (sample, n−1), median, min, max and the 95% CI of the mean as
    [low, high] (std and CI None for n < 2). Non-finite values are rejected, not averaged."""
    xs = np.array([float(v) for v in values if v is not None])
    if not np.all(np.isfinite(xs)):
        raise ValueError("summarize: non-finite value in the sample")
    n = len(xs)
    if n == 0:
        return {"n": 0, "mean": None, "std": None, "median": None, "min": None, "max": None, "ci95": None}
    mean = math.fsum(xs) / n  # correctly rounded, as the published summaries were
    std = ci = None  # one run has no spread to report
    if n > 1:
        if xs.min() == xs.max():  # identical runs: no spread (the float sums would leave ~1e-16 of it)
            std, ci = 0.0, [mean, mean]
        else:
            std = float(np.std(xs, ddof=1))
            ci = [float(b) for b in stats.t.interval(0.95, n - 1, loc=mean, scale=stats.sem(xs))]
    return {"n": n, "mean": mean, "std": std, "median": float(np.median(xs)), "min": float(xs.min()),
            "max": float(xs.max()), "ci95": ci}
