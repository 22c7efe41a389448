"""Summary statistics of repeated runs: mean, sample standard deviation, median and the
two-sided 95% confidence interval of the mean (Student's t; no SciPy needed)."""

from __future__ import annotations

import math
import statistics


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * _betai(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t (bisection on the CDF; 1e-10 accurate)."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError(f"t_quantile needs 0 < p < 1 and df > 0, got p={p}, df={df}")
    lo, hi = -1e4, 1e4
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-10:
            break
    return 0.5 * (lo + hi)


def summarize(values: list[float]) -> dict:
    """n, mean, std (sample, n−1), median, min, max and the 95% CI of the mean as
    [low, high] (std and CI None for n < 2). Non-finite values are rejected, not averaged."""
    xs = [float(v) for v in values if v is not None]
    if any(not math.isfinite(v) for v in xs):
        raise ValueError("summarize: non-finite value in the sample")
    n = len(xs)
    if n == 0:
        return {"n": 0, "mean": None, "std": None, "median": None, "min": None, "max": None, "ci95": None}
    mean = statistics.fmean(xs)
    std = statistics.stdev(xs) if n > 1 else None  # one run has no spread to report
    ci = None
    if n > 1:
        half = t_quantile(0.975, n - 1) * std / math.sqrt(n)
        ci = [mean - half, mean + half]
    return {"n": n, "mean": mean, "std": std, "median": statistics.median(xs), "min": min(xs), "max": max(xs), "ci95": ci}
