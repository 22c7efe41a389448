"""The report's figures (matplotlib, written to OUT/figures as SVG), in the published layouts
and the palette of `wlansec_lab.plotstyle`."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import matplotlib.ticker

from wlansec_lab import published_values as pub
from wlansec_lab.experiments import file_kb
from wlansec_lab.plotstyle import OKABE_ITO, PUBLISHED, save, series
from wlansec_lab.report.data import ci_half, files_order, mode_label, point_stat


def save_figure(fig, out: Path, name: str) -> str:
    """OUT/figures/NAME.svg, as the report refers to it."""
    save(fig, out / "figures" / f"{name}.svg")
    return f"figures/{name}.svg"


def log_ticks(axis) -> None:
    """Plain numbers at 1, 2 and 5 per decade on a log axis, no minor labels."""
    axis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1, 2, 5)))
    axis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


#: The ratio panels' top: ratios near 1 and the published 1.2 and 2 stay readable on a linear
#: axis; a card that cannot keep up is off this scale and labelled with its value.
RATIO_AXIS_TOP = 2.6


VIDEO_VALUE_PANELS = [("One-way delay (mean, 95% CI)", "ms", "delay_ms_mean", "log"),
                      ("RFC 3550 jitter (mean, 95% CI)", "ms", "jitter_ms", "log"),
                      ("Throughput delivered (mean, 95% CI)", "Mbit/s", "throughput_mbps", "linear"),
                      ("Loss (mean, 95% CI)", "%", "loss_percent", "linear")]
VIDEO_COMPARISON_PANELS = [("Delay ratio to open (bootstrap 95% CI; ★ published)", "× open", 0, "ratio"),
                           ("Jitter ratio to open (bootstrap 95% CI; ★ published)", "× open", 1, "ratio"),
                           ("Delay increase over open (Welch 95% CI)", "ms", 0, "diff"),
                           ("Jitter increase over open (Welch 95% CI)", "ms", 1, "diff")]


def video_figure(out: Path, by: dict, modes: list, profiles: list, ratios: dict, diffs: dict, comparison: bool) -> str:
    """`comparison` False: the values per mode and traffic type (log where a card that cannot
    keep up is orders of magnitude above the others). True: the ratio to open on a linear axis
    with its bootstrap CI and the published ratio as a star, and the increase over open with
    its Welch CI (the caller draws it only where some point has two runs or more)."""
    panels = VIDEO_COMPARISON_PANELS if comparison else VIDEO_VALUE_PANELS
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    width = 0.8 / max(1, len(profiles))
    for ax, (title, unit, what, kind) in zip(axes.flat, panels):
        extent = [0.0, 0.0]  # symlog's autoscale clips bars; its limits are set from the values
        for j, prof in enumerate(profiles):
            xs = [i + j * width for i in range(len(modes))]
            ys, lo, hi = [], [], []
            for m in modes:
                if kind in ("log", "linear"):
                    e = by.get((m, prof))
                    y = (point_stat(e, what) or 0) if e else 0
                    err = ci_half(e, what) if e else 0
                    ys.append(y), lo.append(err), hi.append(err)
                    continue
                est = (diffs if kind == "diff" else ratios).get((m, prof), (None, None))[what]
                y = (est.diff if kind == "diff" else est.ratio) if est else 0
                ys.append(y)
                lo.append(y - (est.low if est else y))
                hi.append((est.high if est else y) - y)
            extent = [min(extent[0], *ys), max(extent[1], *ys)]
            shown = [min(y, RATIO_AXIS_TOP) for y in ys] if kind == "ratio" else ys
            errs = [[l if y <= RATIO_AXIS_TOP or kind != "ratio" else 0 for l, y in zip(lo, ys)],
                    [h if y <= RATIO_AXIS_TOP or kind != "ratio" else 0 for h, y in zip(hi, ys)]]
            ax.bar(xs, shown, width, yerr=errs, capsize=3, label=prof, color=series(j))
            if kind == "ratio":
                for x, y in zip(xs, ys):
                    if y > RATIO_AXIS_TOP:
                        ax.annotate(f"{y:.0f}×", (x, RATIO_AXIS_TOP), fontsize=7, ha="center", va="top", rotation=90, color="white")
        if kind == "ratio":
            for i, m in enumerate(modes):
                if m[0] in pub.VIDEO_RATIO:
                    ax.plot([i + 0.4 - width / 2], [pub.VIDEO_RATIO[m[0]]], "*", color=PUBLISHED, ms=12,
                            label="published" if m[0] == "enhanced" else None)
            ax.axhline(1.0, color="grey", lw=1)
            ax.set_ylim(0, RATIO_AXIS_TOP)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(modes))], [mode_label(m) for m in modes], rotation=30, ha="right", fontsize=8)
        ax.set_title(title)
        ax.set_ylabel(unit)
        if kind == "diff":
            ax.set_yscale("symlog", linthresh=0.1)
            ax.set_ylim(min(-0.2, 3 * extent[0]), max(0.2, 3 * extent[1]))
            ax.axhline(0, color="grey", lw=1)
        elif kind == "log":
            ax.set_yscale("log")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    return save_figure(fig, out, "video-vs-open" if comparison else "video")


def tcp_figure(by: dict, modes: list, ips: list, sizes: list, colors: dict, log: bool):
    """Throughput (top) and RTT (bottom) against packet size, one column per IP version, with
    the study's ranges as bands."""
    fig, axes = plt.subplots(2, len(ips), figsize=(6.5 * len(ips), 8), sharex=True, squeeze=False)
    for col, ip in enumerate(ips):
        for m in modes:
            for metric, ax, style in (("iperf3_mbps", axes[0][col], "-o"), ("qperf_mbps", axes[0][col], "--s"), ("qperf_rtt_ms", axes[1][col], "-o")):
                pts = [(s, point_stat(by[(m, ip, s)], metric), point_stat(by[(m, ip, s)], metric, "std") or 0) for s in sizes
                       if (m, ip, s) in by and point_stat(by[(m, ip, s)], metric) is not None]
                if pts:
                    xs, ys, es = zip(*pts)
                    ax.errorbar(xs, ys, yerr=es, fmt=style, color=colors[m], capsize=3, label=f"{mode_label(m)} {metric.split('_')[0]}")
        for sec in ("open", "ccmp"):
            color = colors.get((sec, "hw"), "grey")  # the band in its measured series' colour
            if (sec, ip) in pub.TCP_RANGES:  # the study prints only the range over the sizes, not each size's mean
                (tlo, thi), (rlo, rhi) = pub.TCP_RANGES[(sec, ip)]
                axes[0][col].axhspan(tlo, thi, color=color, alpha=0.08, label=f"published {pub.MODE_LABEL[sec]} range over the sizes")
                axes[1][col].axhspan(rlo, rhi, color=color, alpha=0.08, label=f"published {pub.MODE_LABEL[sec]} range over the sizes")
        axes[0][col].set_title(f"TCP throughput, IPv{ip} (bars: std; bands: published range over the sizes, Fedora 12)", fontsize=9)
        axes[1][col].set_title(f"TCP RTT (qperf tcp_lat × 2), IPv{ip}", fontsize=9)
        axes[0][col].set_ylabel("Mbit/s")
        axes[1][col].set_ylabel("ms")
        axes[1][col].set_xlabel("packet (message) size, bytes")
        for ax in (axes[0][col], axes[1][col]):
            if log:
                ax.set_yscale("log")
                log_ticks(ax.yaxis)
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=7)
    return fig


def tcp_cost_figure(costs: dict, ips: list, sizes: list):
    """WPA2 [hw]'s cost over open per size, with its Welch 95 % CI, on linear axes (costs near
    zero), and the study's per-size costs as points where its text names the size."""
    points = pub.tcp_wpa2_cost_points()
    fig, axes = plt.subplots(2, len(ips), figsize=(6.5 * len(ips), 7), sharex=True, squeeze=False)
    for col, ip in enumerate(ips):
        for row, (metric, unit, overall) in enumerate((("throughput", "Mbit/s less than open", pub.TCP_WPA2_COST["fedora"][0]),
                                                       ("rtt", "ms more than open", pub.TCP_WPA2_COST["fedora"][1]))):
            ax = axes[row][col]
            pts = [(s, costs[(ip, s)][row]) for s in sizes if costs.get((ip, s)) and costs[(ip, s)][row]]
            if pts:
                ax.errorbar([s for s, _ in pts], [d.diff for _, d in pts], yerr=[[d.diff - d.low for _, d in pts], [d.high - d.diff for _, d in pts]],
                            fmt="-o", capsize=3, label="ours, WPA2 [hw] (Welch 95% CI)")
                for s, d in pts:
                    if not d.significant:
                        ax.annotate("n.s.", (s, d.high), fontsize=7, ha="center", va="bottom")
            published = [(s, v) for (m, i, s), v in points.items() if m == metric and i == ip]
            if published:
                ax.plot(*zip(*published), "*", color=PUBLISHED, ms=12, label="published at the size its text names (Fedora 12)")
            ax.axhline(overall, color=PUBLISHED, ls=":", lw=1, label=f"published conclusion ({overall:g}, all sizes)")
            ax.axhline(0, color="grey", lw=1)
            ax.set_title(f"WPA2 cost, {'throughput' if metric == 'throughput' else 'RTT'}, IPv{ip}", fontsize=9)
            ax.set_ylabel(unit)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        axes[1][col].set_xlabel("packet (message) size, bytes")
    return fig


def files_figure(out: Path, nets: list) -> str:
    """Left: what the network does (open); right: what WEP and TKIP add to it, per file.
    `nets`: (point, mean seconds, summary entry) of every point run."""
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.5))
    by = {(p["security"], p["topology"], p["signal"], p["file"]): (t, point_stat(e, "seconds", "std") or 0) for p, t, e in nets if t}
    networks = sorted({(top, signal) for (_, top, signal, _) in by}, key=lambda n: files_order({"security": "open", "topology": n[0],
                                                                                                "signal": n[1], "file": ""}))
    label = lambda top, signal: f"{'infrastructure' if top == 'bss' else 'ad hoc'}, {signal} signal"
    for top, signal in networks:
        pts = sorted((file_kb(f), *v) for (sec, tt, ss, f), v in by.items() if (sec, tt, ss) == ("open", top, signal))
        ax.errorbar([x[0] for x in pts], [x[1] for x in pts], yerr=[x[2] for x in pts], capsize=2, marker="o",
                    ls="-" if top == "bss" else "--", label=label(top, signal))
        for security, marker in (("wep", "s"), ("tkip", "^")):
            ratio = sorted((file_kb(f), v[0] / by[("open", tt, ss, f)][0]) for (sec, tt, ss, f), v in by.items()
                           if (sec, tt, ss) == (security, top, signal) and ("open", tt, ss, f) in by)
            if ratio:
                bx.plot([x[0] for x in ratio], [x[1] for x in ratio], marker=marker, ls="-" if top == "bss" else "--",
                        label=f"{security.upper()}, {label(top, signal)}")
    ax.set_yscale("log")
    ax.set_ylabel("transmission time, s (mean ± std)")
    ax.set_title("Open: transmission time of the study's files")
    bx.axhline(1.0, color="grey", lw=1)
    bx.set_ylabel("× open's time (same network, same file)")
    bx.set_title("What WEP and TKIP add (the card's crypto inline)")
    for a in (ax, bx):
        a.set_xscale("log")
        log_ticks(a.xaxis)
        a.set_xlabel("file size, KB (text and video files of the study)")
        a.grid(alpha=0.3, which="both")
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=7)
    log_ticks(ax.yaxis)
    return save_figure(fig, out, "files")


def ccmp_figure(out: Path, series: dict, machine: dict) -> str:
    """GB/s against frame size per engine; `series`: engine → (frame bytes, GB/s, µs) sorted by size."""
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for name, pts in series.items():
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("frame bytes")
    ax.set_ylabel("GB/s")
    ax.set_title(f"CCMP-128 seal, one core ({machine.get('cpu')}, backend {machine.get('backend')})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return save_figure(fig, out, "ccmp")


def hardware_figure(out: Path, ecp5: dict, v4: dict, parallel: list) -> str:
    """Left: throughput against area of every ECP5 design beside the published Virtex-4 core; right:
    the parallel cores' speedup and area over the standard one (`parallel_speedups`)."""
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.8))
    for r in ecp5.values():
        if r.get("gbps"):
            family = "s" if r["design"].startswith("ccmp") else "o"
            ax.scatter(r["luts"], r["gbps"], marker=family, color=OKABE_ITO["blue"] if not r["brams"] else OKABE_ITO["bluish green"])
            ax.annotate(r["design"], (r["luts"], r["gbps"]), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.scatter(v4["LUTs"], v4["Throughput (Gbps)"], marker="X", s=80, color=PUBLISHED)
    ax.annotate(f"published: AES-CCMP Virtex-4 ({v4['BRAM']} BRAM)", (v4["LUTs"], v4["Throughput (Gbps)"]), fontsize=7,
                color=PUBLISHED, xytext=(-20, -16), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_ticks(ax.xaxis)
    log_ticks(ax.yaxis)
    ax.set_xlabel("LUT4s (LFE5U-85F-6; green: with block RAM)")
    ax.set_ylabel("Gb/s at Fmax (1500-octet frames)")
    ax.set_title("Throughput vs area: squares CCMP, circles AES alone")
    ax.grid(alpha=0.3, which="both")
    xs = range(len(parallel))
    bx.bar([x - 0.2 for x in xs], [p[2] for p in parallel], width=0.4, color=OKABE_ITO["blue"], label="speedup, time per frame at Fmax")
    bx.bar([x + 0.2 for x in xs], [p[3] for p in parallel], width=0.4, color=OKABE_ITO["orange"], label="LUT4s × standard")
    bx.axhline(pub.HW_SPEEDUP, color=OKABE_ITO["blue"], ls="--", lw=1, label=f"published speedup {pub.HW_SPEEDUP}×")
    bx.axhline(pub.HW_LE_RATIO, color=OKABE_ITO["orange"], ls="--", lw=1, label=f"published LEs {pub.HW_LE_RATIO}× standard")
    bx.set_xticks(list(xs), [p[0] for p in parallel], fontsize=7)
    bx.set_ylabel("× the standard design")
    bx.set_title("Parallel (N-way CBC-MAC + CTR) vs standard CCMP core")
    bx.legend(fontsize=7)
    bx.grid(alpha=0.3, axis="y")
    return save_figure(fig, out, "hardware")


def cipher_claims_figure(out: Path, rows: list[dict]) -> str | None:
    """The study's “% of AES's power” claims beside ours (energy = time on this CPU): ours the
    total over the kind's files with the per-file range, the study's figure a star, AES-128 the
    line at 100 %. None without a claim of ours."""
    rows = [r for r in rows if r["per_file"] and r["ours_percent"]]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 4.2))
    xs = range(len(rows))
    ours = [r["ours_percent"] for r in rows]
    ax.bar(xs, ours, 0.6, color=[series(0) if r["label"].startswith("Blowfish") else series(1) for r in rows],
           yerr=[[o - r["per_file"][0] for o, r in zip(ours, rows)], [r["per_file"][-1] - o for o, r in zip(ours, rows)]],
           capsize=3, label="ours: total over the files (bars: per-file min–max)")
    ax.plot(xs, [r["published_percent"] for r in rows], "*", color=PUBLISHED, ms=12, label="published")
    ax.axhline(100, color="grey", lw=1, label="AES-128 (100 %)")
    ax.set_yscale("log")
    log_ticks(ax.yaxis)
    ax.set_xticks(list(xs), [f"{r['label']}\n{r['data']} {r['direction']}" for r in rows], fontsize=8)
    ax.set_ylabel("energy (= time) as % of AES-128's")
    ax.set_title("Cipher energy relative to AES-128: the study's claims and ours (CBC)")
    ax.grid(axis="y", alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return save_figure(fig, out, "cipher-claims")


#: The join's phases, in the order they happen, as the figure names them.
JOIN_PHASE_LABELS = {"auth": "authentication", "assoc": "association", "handshake": "4-way handshake"}


def join_figure(out: Path, bars: list[tuple[str, int, dict, float, list | None]]) -> str:
    """Horizontal bars, one per (method, stations): the phases' mean times stacked, the join
    time's 95 % CI as an error bar. `bars`: (method, stations, phase → mean ms, join mean ms, CI)."""
    fig, ax = plt.subplots(figsize=(9, 0.9 + 0.42 * len(bars)))
    ys = list(range(len(bars)))[::-1]
    left = [0.0] * len(bars)
    for i, (phase, label) in enumerate(JOIN_PHASE_LABELS.items()):
        widths = [b[2][phase] for b in bars]
        ax.barh(ys, widths, 0.6, left=left, color=series(i), label=label)
        left = [l + w for l, w in zip(left, widths)]
    for y, (_, _, _, mean, ci) in zip(ys, bars):
        if ci:
            ax.errorbar(mean, y, xerr=[[mean - ci[0]], [ci[1] - mean]], color=PUBLISHED, capsize=3, lw=1)
    # Room on the right for the legend, clear of the longest bar and its CI.
    ax.set_xlim(0, 1.4 * max(max(b[3], b[4][1] if b[4] else 0) for b in bars))
    ax.set_yticks(ys, [f"{m} ({n} stations)" for m, n, *_ in bars], fontsize=8)
    ax.set_xlabel("ms from the station's first Authentication frame to its EAPOL-Key 4/4 (mean; bar: 95 % CI)")
    ax.set_title("Join time by key management, from the capture of the air")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    return save_figure(fig, out, "wpa3-join")
