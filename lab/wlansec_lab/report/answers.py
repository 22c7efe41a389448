"""The report's first screen: one row per published claim the laboratory repeats (the video,
TCP and cipher studies, and the hardware cores), the study's figure beside ours with its test
and a verdict, each row linking to its section; then one key figure per experiment."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


from wlansec_lab import published_values as pub
from wlansec_lab.report.data import ALGREDO_MBPS_PER_MHZ
from wlansec_lab.report.render import anchor, figure, md_table
from wlansec_lab.report.statistics import algredo_mbps_per_mhz, overlap, verdict

REPRODUCED, DIFFERS, UNRESOLVED = "reproduced", "differs", "not resolvable in this run"
#: The studies, as a claim's row names them (lab/published/ holds each with its seed number).
HAYAJNEH, LI_KOLAHI, CIPHER_POWER = "Hayajneh et al., seed 000", "Li, Kolahi et al., seed 002", "cipher power 2009, seed 003"
ONE_RUN = "none: one run per point (n = 1)"


@dataclass
class Answer:
    claim: str
    section: str
    study: str
    ours: str
    significance: str
    verdict: str

    def row(self) -> list[str]:
        source, claim = self.claim.split(": ", 1)
        return [f"[{claim[0].upper() + claim[1:]}](#{anchor(self.section)}) ({source})", self.study, self.ours, self.significance, f"**{self.verdict}**"]


def ci_verdict(intervals: list[tuple[float, float]], study: float, null: float) -> tuple[str, str]:
    """The verdict on a published figure from our 95 % CIs, one per point, and how many points
    decide it: a CI holding the figure but not the no-effect value `null` reproduces it, one
    holding neither (or only `null`) differs, one holding both cannot tell them apart."""
    held = [lo <= study <= hi for lo, hi in intervals if not (lo <= study <= hi and lo <= null <= hi)]
    if not held:
        return UNRESOLVED, f"the CI holds both {study:g} and {null:g} at all {len(intervals)} points"
    count = f"CI holds {study:g} at {sum(held)} of {len(intervals)} points"
    return (REPRODUCED if 2 * sum(held) > len(held) else DIFFERS), count


def level_verdict(lo: float, hi: float, study_lo: float, study_hi: float | None = None) -> str:
    """Our range against a published figure (or range) without a test: reproduced where they
    meet (a single figure: within 10 %, as the reading's `verdict`), else which way it differs."""
    if study_hi is None:
        word = verdict(lo, hi, study_lo)
        return REPRODUCED if word == "reproduces" else f"{DIFFERS} (ours {'lower' if word == 'stays below' else 'higher'})"
    word = overlap(lo, hi, study_lo, study_hi)
    return REPRODUCED if word == "overlaps" else f"{DIFFERS} (ours {'lower' if word == 'stays below' else 'higher'})"


def span(values: list[float], fmt: str) -> str:
    lo, hi = min(values), max(values)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)} to {fmt.format(hi)}"


def video_answers(ctx: dict) -> list[Answer]:
    section = "Video: delay, jitter, throughput"
    ratios, diffs, means = ctx.get("video") or {}, ctx.get("video_diffs") or {}, ctx.get("video_means") or {}
    rows = []
    modes = {m for m, _ in means}
    for security, claim, who in (("ccmp", "WPA2 almost doubles", "card crypto inline"), ("enhanced", "Enhanced-WPA2 adds ≈ 20 % to", "host CCMP")):
        mode = (security, "hw")
        if mode not in modes:
            continue
        for k, metric in enumerate(("delay", "jitter")):
            study = pub.VIDEO_RATIO[security]
            per = [(prof, ratios.get((m, prof), (None, None))[k], diffs.get((m, prof), (None, None))[k])
                   for (m, prof) in sorted(means) if m == mode]
            tested = [(prof, r, d) for prof, r, d in per if r]
            answer = Answer(f"{HAYAJNEH}: {claim} the video {metric} ({who})", section, f"{study:g}× open", "", "", "")
            if tested:
                answer.ours = span([r.ratio for _, r, _ in tested], "{:.2f}×") + " open, 95 % CI " + \
                    f"{min(r.low for _, r, _ in tested):.2f}–{max(r.high for _, r, _ in tested):.2f}"
                answer.verdict, count = ci_verdict([(r.low, r.high) for _, r, _ in tested], study, 1.0)
                differs = sum(d.significant for _, _, d in tested if d)
                answer.significance = f"differs from open at {differs} of {len(tested)} traffic types (Welch, 95 %); {count}"
            else:
                point = [means[(mode, prof)][k] / means[(("open", "hw"), prof)][k] for prof, _, _ in per
                         if means.get((("open", "hw"), prof), (0, 0))[k]]
                answer.ours = (span(point, "{:.2f}×") + " open") if point else "—"
                answer.significance, answer.verdict = ONE_RUN, UNRESOLVED
            rows.append(answer)
    return rows


def tcp_answers(ctx: dict) -> list[Answer]:
    section = "TCP: throughput and RTT vs packet size"
    rows = []
    costs, means = (ctx.get("tcp") or {}).get("hw") or {}, ctx.get("tcp_means") or {}
    for k, (what, unit, study, fmt, study_fmt) in enumerate((("throughput", "Mbit/s less", 2.9, "{:.2f}", "{:.1f}"),
                                                             ("RTT", "ms more", 0.19, "{:+.3f}", "{:.2f}"))):
        per = [c[k] for c in costs.values() if c[k]]
        answer = Answer(f"{LI_KOLAHI}: WPA2 costs TCP {what} (card crypto inline)", section,
                        f"{study_fmt.format(pub.TCP_WPA2_COST['windows'][k])}–{study_fmt.format(pub.TCP_WPA2_COST['fedora'][k])} "
                        f"{unit} than open", "", "", "")
        if per:
            answer.ours = f"{span([d.diff for d in per], fmt)} {unit}"
            answer.verdict, count = ci_verdict([(d.low, d.high) for d in per], study, 0.0)
            answer.significance = f"significant at {sum(d.significant for d in per)} of {len(per)} points (Welch, 95 %); {count}"
        else:
            # The cost's sign as the study states it: open's throughput above WPA2's, WPA2's RTT above open's.
            sign = 1 if k == 0 else -1
            point = [sign * (means[(("open", "hw"), ip, s)][k] - means[(("ccmp", "hw"), ip, s)][k]) for (m, ip, s) in means
                     if m == ("open", "hw") and (("ccmp", "hw"), ip, s) in means
                     and None not in (means[(m, ip, s)][k], means[(("ccmp", "hw"), ip, s)][k])]
            answer.ours = f"{span(point, fmt)} {unit}" if point else "—"
            answer.significance, answer.verdict = ONE_RUN, UNRESOLVED
        rows.append(answer)
    tput, rtt = ctx.get("tcp_open") or {}, ctx.get("tcp_open_rtt") or []
    for what, values, (lo, hi), unit in (("throughput", list(tput.values()), pub.TCP_RANGES[("open", 4)][0], "Mbit/s"),
                                         ("RTT", rtt, pub.TCP_RANGES[("open", 4)][1], "ms")):
        if values:
            rows.append(Answer(f"{LI_KOLAHI}: open TCP {what} over 128–1408 B", section, f"{lo:g}–{hi:g} {unit} (Fedora 12, IPv4)",
                               f"{min(values):.2f}–{max(values):.2f} {unit} (IPv4 and IPv6)",
                               "a level, not a difference: no test", level_verdict(min(values), max(values), lo, hi)))
    gaps = ctx.get("tcp_ip_gap") or {}
    for claim in pub.tcp_ip_difference_claims():
        metric = "iperf3_mbps" if claim["metric"] == "throughput" else "qperf_rtt_ms"
        unit = "Mbit/s" if claim["metric"] == "throughput" else "ms"
        key = (claim["security"], metric, claim["size"])
        answer = Answer(f"{LI_KOLAHI}: largest IPv4 − IPv6 {'RTT' if claim['metric'] == 'rtt' else 'throughput'} gap, {pub.MODE_LABEL[claim['security']]}", section,
                        f"{claim['value']:g} {unit} at {claim['size']} B", "—", "", UNRESOLVED)
        d = gaps.get(key)
        if key not in gaps:
            answer.significance = f"this run has no IPv4 and IPv6 pair at {claim['size']} B"
        elif d is None:
            answer.significance = ONE_RUN
        else:
            answer.ours = f"{d.diff:+.3g} {unit} at {claim['size']} B"
            answer.significance = f"{'significant' if d.significant else 'not significant'} at 95 % (Welch)"
            # The study states the gap's size, not always its sign: our gap's size is compared.
            size = (0.0, max(-d.low, d.high)) if d.low <= 0 <= d.high else tuple(sorted((abs(d.low), abs(d.high))))
            answer.verdict, _ = ci_verdict([size], claim["value"], 0.0)
        rows.append(answer)
    return rows


def files_answers(ctx: dict) -> list[Answer]:
    section = "Files: transmission time of encrypted files"
    files, rows = ctx.get("files"), []
    if not files or not files["nets"]:
        return rows
    poor = ctx.get("files_poor") or []
    answer = Answer(f"{CIPHER_POWER}: poor signal ≈ doubles the transfer time (open, ad hoc)", section, "1.71× (+70–71 %)", "", "", "")
    if poor:
        answer.ours = span([r.ratio for r in poor], "{:.2f}×") + f", 95 % CI {min(r.low for r in poor):.2f}–{max(r.high for r in poor):.2f}"
        answer.verdict, answer.significance = ci_verdict([(r.low, r.high) for r in poor], 1.71, 1.0)
    else:
        t = {(p["topology"], p["signal"], p["file"]): x for p, x, _ in files["nets"] if x and p["security"] == "open"}
        point = [x / t[("ibss", "excellent", f)] for (top, signal, f), x in t.items() if (top, signal) == ("ibss", "poor")
                 and ("ibss", "excellent", f) in t]
        answer.ours = span(point, "{:.2f}×") if point else "—"
        answer.significance, answer.verdict = (ONE_RUN, UNRESOLVED) if point else ("no poor-signal point in this run", UNRESOLVED)
    rows.append(answer)
    share = ctx.get("files_cipher_share") or {}
    got = [v for c, vs in share.items() if c.startswith(("Blowfish", "RC6")) for v in vs]
    if got:
        rows.append(Answer(f"{CIPHER_POWER}: RC6 and Blowfish take ≈ 51–68 % of AES's encrypt + send + decrypt time", section, "51–68 %",
                           f"{min(got):.0f}–{max(got):.0f} %", "cipher times are medians of repeats, no spread recorded",
                           level_verdict(min(got), max(got), 51, 68)))
    return rows


def cipher_answers(ctx: dict) -> list[Answer]:
    rows = []
    for r in ctx.get("cipher_ratios") or []:
        answer = Answer(f"{CIPHER_POWER}: {r['label'].split('-')[0]} needs ≈ {r['published_percent']} % of AES's energy, "
                        f"{r['data']} {r['direction']}", "Ciphers", f"{r['published_percent']} % of AES-128", "—",
                        "medians of repeats, no spread recorded", UNRESOLVED)
        if r["per_file"]:
            answer.ours = f"{r['ours_percent']:,.0f} %" + (f" (per file {r['per_file'][0]:,.0f}–{r['per_file'][-1]:,.0f} %)"
                                                         if f"{r['per_file'][0]:,.0f}" != f"{r['per_file'][-1]:,.0f}" else "")
            answer.verdict = level_verdict(r["per_file"][0], r["per_file"][-1], r["published_percent"])
        rows.append(answer)
    us = (ctx.get("ccmp_1500") or {}).get("wlansec single")
    if us:
        lo, hi = pub.hayajneh_claim("Time to perform data encryption and authentication on end-host CPUs")
        rows.append(Answer(f"{HAYAJNEH}: CCMP on an end host takes 20–40 µs per frame", "CCMP engines (host)", f"{lo}–{hi} µs",
                           f"{us:.2f} µs at 1500 B, one core", "median of the bench's repeats, no spread recorded",
                           level_verdict(us, us, lo, hi)))
    return rows


def hardware_answers(ctx: dict) -> list[Answer]:
    hw, rows = ctx.get("hardware"), []
    if not hw:
        return rows
    # The study's 3.7× comes from two units: our two-lane core (block-RAM S-boxes) is the like-for-like design.
    parallel = [p for p in hw["parallel"] if p[0].endswith("_bram")] or hw["parallel"]
    two = next((p for p in parallel if p[1] == 2), None)
    note = "n = 1: one synthesis; Fmax the median over placement seeds" if two else "no two-lane core placed (the like-for-like design)"
    speedups = ", ".join(f"{n}-way {speedup:.2f}×" for _, n, speedup, _ in parallel)
    areas = ", ".join(f"{n}-way {area:.2f}×" for _, n, _, area in parallel)
    rows.append(Answer(f"{HAYAJNEH}: the parallel CCMP core is faster than the standard one", "Hardware",
                       f"{pub.HW_SPEEDUP:g}× ({pub.HW_STANDARD_NS:g} vs {pub.HW_PARALLEL_NS:g} ns, two units)",
                       f"{speedups} faster" if parallel else "—", note,
                       level_verdict(two[2], two[2], pub.HW_SPEEDUP) + " at 2-way" if two else UNRESOLVED))
    rows.append(Answer(f"{HAYAJNEH}: the parallel core's area over the standard one's", "Hardware", f"{pub.HW_LE_RATIO:g}× the LEs",
                       f"{areas} the LUT4s" if parallel else "—", note,
                       level_verdict(two[3], two[3], pub.HW_LE_RATIO) + " at 2-way" if two else UNRESOLVED))
    core = hw["core"]
    if core and core.get("gbps"):
        per_mhz = algredo_mbps_per_mhz(core)
        rows.append(Answer("Algredo-Badillo et al. 2010: iterative AES-CCMP core, throughput per MHz", "Hardware",
                           f"{ALGREDO_MBPS_PER_MHZ} Mb/s per MHz (Virtex-4)", f"{per_mhz:.2f} Mb/s per MHz (`ccmp_core`, ECP5)",
                           "cycle count: exact, asserted by the benches",
                           REPRODUCED if per_mhz < ALGREDO_MBPS_PER_MHZ * 1.01 else f"{DIFFERS} (ours higher)"))
    return rows


def answers_section(out: Path, ctx: dict) -> str:
    rows = video_answers(ctx) + tcp_answers(ctx) + files_answers(ctx) + cipher_answers(ctx) + hardware_answers(ctx)
    if not rows:
        return "*Nothing measured in this run to set beside the studies.*"
    counts = {v: sum(a.verdict.startswith(v) for a in rows) for v in (REPRODUCED, DIFFERS, UNRESOLVED)}
    return (f"Each published claim this run repeats, the study's figure beside ours: {counts[REPRODUCED]} reproduced, "
            f"{counts[DIFFERS]} differ, {counts[UNRESOLVED]} not resolvable in this run. A claim links to its section.\n\n" +
            md_table(["claim (study)", "study", "ours", "significance", "verdict"], [a.row() for a in rows]) +
            "\n\nVerdicts: with 95 % CIs, *reproduced* where our interval holds the study's figure and not the no-effect "
            "value (1× or 0), *differs* where it holds neither or only the no-effect value, *not resolvable* where it holds "
            "both or a point has one run (the majority of the points that decide it counts); without a spread, within 10 % "
            "of the figure or meeting its range.")


def key_figures_section(out: Path, ctx: dict) -> str:
    shown = [f for f in ctx.get("key_figures", []) if f]
    if not shown:
        return "*No experiment in this run drew a figure.*"
    return "\n\n".join(figure(path, alt, f"{caption} [More in “{section}”](#{anchor(section)}).") for path, alt, caption, section in shown)
