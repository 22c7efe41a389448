"""The comparisons the report computes beyond a point's own summary: the emulator's timing
against the RTT, the ciphers' energy as % of AES's, the parallel cores' speedups, and the verdict
of a range of ours against a published figure."""

from __future__ import annotations

import json

from scipy import stats

from wlansec_lab import ciphers
from wlansec_lab import significance as sig
from wlansec_lab.ciphers import STUDY_ALGORITHMS, label as cipher_label


def release_error_correlation(data: dict) -> tuple[float, float, int] | None:
    """Pearson r (and p, runs) between a run's RTT and its medium release error p99, within
    points (each point's means subtracted), over the `hw` points: how much of the RTT spread
    the emulator's timing carries."""
    xs, ys = [], []
    for point, per in sig.samples(data).items():
        rtt, err = per.get("qperf_rtt_ms", []), per.get("release_error_p99_us", [])
        if json.loads(point).get("card", "hw") == "hw" and len(rtt) == len(err) > 2:
            xs += [v - sum(err) / len(err) for v in err]
            ys += [v - sum(rtt) / len(rtt) for v in rtt]
    if len(xs) < 3:
        return None
    r = stats.pearsonr(xs, ys)
    return float(r.statistic), float(r.pvalue), len(xs)


#: The study's “% of AES's power” claims, by (data, direction).
CLAIM_CASES = (("text", "encrypt"), ("video", "encrypt"), ("video", "decrypt"))


def cipher_energy_ratios(bench: dict) -> list[dict]:
    """The study's “X requires about N % of the power consumed for AES” claims, each beside
    ours: the total over the kind's files (the study's way) and the spread of the per-file
    ratios. Our energy is the study's model V × I × t, so each ratio is a time ratio."""
    agg = ciphers.aggregate(bench["records"])
    energy = {(r["cipher"], r["key_bits"], r["mode"], r["data"], r["direction"]): r["energy_uj_per_byte"]
              for r in bench["records"] if r["impl"] == "wlansec"}
    rows = []
    for claim in ciphers.ratios(agg):
        subject = ciphers.SUBJECTS[claim["subject"]]
        per_file = sorted(100 * energy[(*subject, f, d)] / energy[(*ciphers.AES, f, d)]
                          for (*alg, f, d) in energy if tuple(alg) == subject and d == claim["direction"]
                          and ciphers.kind_of(f) == claim["data"] and (*ciphers.AES, f, d) in energy)
        rows.append({**claim, "label": cipher_label(*subject), "per_file": per_file})
    return rows


def percent_of_aes(bench: dict) -> dict:
    """(cipher label, data, direction) → (% of AES-128-CBC's energy, the study's way: totals over
    the kind's files; the per-file percentages, sorted), for the study's ciphers."""
    agg = ciphers.aggregate(bench["records"])
    energy = {(r["cipher"], r["key_bits"], r["mode"], r["data"], r["direction"]): r["energy_uj_per_byte"]
              for r in bench["records"] if r["impl"] == "wlansec"}
    out = {}
    for alg in STUDY_ALGORITHMS:
        for kind, direction in CLAIM_CASES + (("text", "decrypt"),):
            mine, aes = agg.get((*alg, kind, direction)), agg.get((*ciphers.AES, kind, direction))
            if not (mine and aes):
                continue
            per_file = sorted(100 * e / energy[(*ciphers.AES, f, d)] for (*a, f, d), e in energy.items()
                              if tuple(a) == alg and d == direction and ciphers.kind_of(f) == kind and (*ciphers.AES, f, d) in energy)
            out[(cipher_label(*alg), kind, direction)] = (100 * mine["uj_per_byte"] / aes["uj_per_byte"], per_file)
    return out


def study_claims() -> list[dict]:
    """The study's “% of AES's power” claims, without figures of ours."""
    return ciphers.ratios({})


#: The standard design and its 2/4/8-way parallel versions, per S-box mapping (hdl/syn/report.py).
PARALLEL_WAYS = {"ccmp_core": 1, "ccmp_core_n2": 2, "ccmp_core_n4": 4, "ccmp_core_n8": 8}


def frame_us(r: dict) -> float | None:
    """Microseconds for one 1500-octet frame at the design's Fmax."""
    c, f = r.get("cycles_per_frame_1500"), r.get("fmax_mhz")
    return c / f if (c and f) else None


def algredo_mbps_per_mhz(core: dict) -> float:
    """A CCMP core's throughput per MHz on Algredo-Badillo's Eq. 1 accounting (the two AAD
    blocks counted as data, 94 + 2 blocks per 1500-octet frame)."""
    return (94 + 2) * 128 / core["cycles_per_frame_1500"]


def verdict(lo: float, hi: float, published: float) -> str:
    """Our range [lo, hi] against a published figure: it reproduces it (holds it, or an end lies within
    10 % of it), stays below or overshoots it."""
    if lo <= published <= hi or abs(lo - published) / published < 0.1 or abs(hi - published) / published < 0.1:
        return "reproduces"
    return "stays below" if hi < published else "overshoots"


def overlap(lo: float, hi: float, plo: float, phi: float) -> str:
    """Our range [lo, hi] against a published range [plo, phi]."""
    if hi < plo:
        return "stays below"
    if lo > phi:
        return "sits above"
    return "overlaps"


def parallel_speedups(ecp5: dict) -> list[tuple[str, int, float, float]]:
    """(design, N, speedup in time, LUTs × standard) of the N-way cores placed and routed, per
    S-box mapping, against the standard core of the same mapping."""
    parallel = []
    for suffix in ("_bram", ""):
        std = ecp5.get(f"ccmp_core{suffix}")
        for base, n in PARALLEL_WAYS.items():
            r = ecp5.get(base + suffix)
            if n > 1 and r and std and frame_us(r) and frame_us(std):
                parallel.append((base + suffix, n, frame_us(std) / frame_us(r), r["luts"] / std["luts"]))
    return parallel
