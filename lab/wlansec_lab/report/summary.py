"""The summary: the README's laboratory bullets, each figure from the run's raw files with its
spread or its test (tests/python/test_readme_lab.py holds the README to them), and the limits
of the emulation."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from scipy import stats

from wlansec_lab import cardmodel
from wlansec_lab import published_values as pub
from wlansec_lab import significance as sig
from wlansec_lab.report.data import card_mhz, mode_label, sorted_modes
from wlansec_lab.report.reading import ratio_range


def readme_lines(ctx: dict) -> list[str]:
    """The README's laboratory bullets, each figure from this run's raw files with its spread
    or its test: the summary's first half, and what tests/python/test_readme_lab.py holds the
    README to."""
    lines = []
    v = ctx.get("video") or {}
    parts = []
    if v:
        for m in sorted_modes({m for m, _ in v}):
            if m[0] not in pub.VIDEO_RATIO:
                continue
            per = sorted((prof, r[0]) for (mm, prof), r in v.items() if mm == m and r[0])
            if not per:  # single runs: no ratio with a CI to state
                continue
            if m[1] != "hw" and card_mhz(m[1]):  # a card that cannot keep up: per traffic type, never averaged
                loss = [x for (mm, _), x in (ctx.get("video_loss") or {}).items() if mm == m and x is not None]
                parts.append(f"{mode_label(m)} " + ", ".join(f"{prof} {r.ratio:,.0f}×" for prof, r in per) +
                             (f" ({min(loss):.0f}–{max(loss):.0f} % loss: the card cannot keep up)" if loss and max(loss) > 1 else ""))
            else:
                parts.append(f"{mode_label(m)} {ratio_range([r for _, r in per])} (the study: {pub.VIDEO_RATIO[m[0]]:g}×)")
    if parts:
        lines.append("*Video* (g54, BSS, 4 and 8 Mbit/s; delay ÷ open with its bootstrap 95 % CI, lowest and highest of the "
                     "traffic types): " + "; ".join(parts) + ".")
    costs, tput, rtt = (ctx.get("tcp") or {}).get("hw"), ctx.get("tcp_open") or {}, ctx.get("tcp_open_rtt") or []
    dts, drs = [c[0] for c in (costs or {}).values() if c[0]], [c[1] for c in (costs or {}).values() if c[1]]
    stds = ctx.get("tcp_rtt_std") or []
    if dts and drs and tput and stds:
        lines.append(f"*TCP* (n-mcs7-40, A-MPDU ≤ 32, IPv4/IPv6, 128–1408 B): open {min(tput.values()):.1f}–{max(tput.values()):.1f} "
                     f"Mbit/s and RTT {min(rtt):.2f}–{max(rtt):.2f} ms (the study: 40.9–48.3 Mbit/s, 1.20–1.44 ms); RTT std per "
                     f"point {min(stds):.2f}–{max(stds):.2f} ms (the study: 0.02–0.06). WPA2 [`hw`] costs "
                     f"{min(d.diff for d in dts):.2f}–{max(d.diff for d in dts):.2f} Mbit/s, significant at "
                     f"{sum(d.significant for d in dts)} of {len(dts)} points (Welch, 95 %), and "
                     f"{min(d.diff for d in drs):+.2f} to {max(d.diff for d in drs):+.2f} ms RTT, " +
                     (f"significant at {sum(d.significant for d in drs)} of {len(drs)}" if any(d.significant for d in drs) else
                      f"**not significant at 95 %** at any of the {len(drs)}") +
                     " (the study: 2.8–3 Mbit/s and 0.18–0.20 ms).")
    if (floor := medium_floor_line(ctx.get("medium_floor"))):
        lines.append(floor)
    files = ctx.get("files")
    if files and files["over_open"]:
        parts = []
        for security in ("wep", "tkip"):
            got = [v for k, v in files["over_open"].items() if k[0] == security]
            if got:
                parts.append(f"{pub.MODE_LABEL[security]} {min(r.ratio for r, _ in got):.2f}–{max(r.ratio for r, _ in got):.2f}× "
                             f"open, significant at {sum(d.significant for _, d in got)} of {len(got)} points")
        poor = ctx.get("files_poor") or []
        if poor:
            parts.insert(0, f"poor signal {ratio_range(poor)} excellent (the study: 1.71×)")
        lines.append("*Files* (321 KB–7.1 MB, ad hoc and BSS; bootstrap 95 % CI, Welch 95 %): " + "; ".join(parts) + ".")
    us = {k: x for k, x in (ctx.get("ccmp_1500") or {}).items() if x and k.startswith("wlansec")}
    if us.get("wlansec single"):
        single = us["wlansec single"]
        lines.append("*Host CCMP* at 1500 octets (medians of the bench's repeats, spread not recorded): " +
                     ", ".join(f"{k.removeprefix('wlansec ')} {x:.2f} µs" + ("" if k == "wlansec single" else f" ({single / x:.2f}×)")
                               for k, x in us.items()) + " (the study's hosts: 20–40 µs).")
    by_cipher = defaultdict(list)  # cipher label → its claims' rows
    for r in ctx.get("cipher_ratios") or []:
        if r["per_file"]:
            by_cipher[r["label"]].append(r)
    if by_cipher:
        lines.append("*Ciphers* (energy = the study's V × I × t, so a time ratio; per file, text and video, encrypt and "
                     "decrypt, as the study's claims pair them): " +
                     "; ".join(f"{c} {min(r['per_file'][0] for r in rs):,.0f}–{max(r['per_file'][-1] for r in rs):,.0f} % of "
                               f"AES-128 (the study: {min(r['published_percent'] for r in rs)}–{max(r['published_percent'] for r in rs)} %)"
                               for c, rs in by_cipher.items()) + _soft_aes_readme(ctx.get("cipher_soft_aes")) + ".")
    cm = ctx.get("card_model")
    if cm:
        c = cardmodel.CALIBRATION
        lines.append(f"*Card model* (driver + hardware CCMP engine + CCMP's 16 octets on the air; the driver's "
                     f"{cm['driver_us']:.1f} µs per frame calibrated on the study's +{c['rtt_ms']} ms RTT at {c['size']} B, "
                     f"{cardmodel.OS_LABEL[c['os']]}, IPv{c['ip']}, alone): {cm['held']} of {cm['of']} other published figures "
                     f"predicted within their tolerance ({'; '.join(cm['held_what'])}); the throughput cost it predicts, "
                     f"{cm['tput'][0]:.2f}–{cm['tput'][1]:.2f} Mbit/s, is a fraction of the study's "
                     f"{cm['tput_published'][0]:g}–{cm['tput_published'][1]:g}.")
    hw = ctx.get("hardware")
    if hw and hw["parallel"]:
        lines.append("*Hardware* (ECP5, block-RAM S-boxes, time per 1500-octet frame at Fmax, n = 1): " +
                     ", ".join(f"{n}-way {s:.2f}× at {l:.2f}× the LUTs" for design, n, s, l in hw["parallel"] if design.endswith("_bram")) +
                     f" (the study: {pub.HW_SPEEDUP}× with two units, at most 2× for two; {pub.HW_LE_RATIO}× the LEs).")
    return lines


def _soft_aes_readme(soft: dict | None) -> str:
    if soft is None:
        return "; the AES-instruction explanation is not measured"
    pc = soft["percent"]
    return ("; without AES instructions (portable AES, n = 1 run, " + soft["cpu"] + "): " +
            ", ".join(f"{c} {pc[(c, 'text', 'encrypt')][1][0]:,.0f}–{pc[(c, 'video', 'encrypt')][1][-1]:,.0f} % encrypting and "
                      f"{pc[(c, 'video', 'decrypt')][1][0]:,.0f}–{pc[(c, 'video', 'decrypt')][1][-1]:,.0f} % decrypting"
                      for c in ("Blowfish-128", "RC6-128")) + " of AES-128")


def medium_floor_line(floor: dict | None) -> str | None:
    """The README's bullet on the medium's floor."""
    if floor is None:
        return None
    rows = {r["condition"]: r for r in floor["rows"]}
    spin = next((c.split(" · ")[0] for c in rows if c.startswith("spin")), None)
    cells = [rows.get(c) for c in ("timer · idle", f"{spin} · idle", "timer · loaded")]
    if not all(cells):
        return None
    timer, spun, loaded = cells
    return (f"*Medium floor* (`python -m wlansec_lab.floor`, {floor['machine']['cpu']}, open, {floor['size']} B, "
            f"{timer['runs']} runs per condition): RTT std {timer['rtt_std_ms']:.3f} ms on an idle machine with the timer "
            f"release (release error median {timer['release_median_us']:.1f} µs), {spun['rtt_std_ms']:.3f} ms busy-waiting "
            f"the last {floor['spin_us']} µs ({spun['release_median_us']:.1f} µs), {loaded['rtt_std_ms']:.3f} ms with a busy "
            f"loop on every core; 0.19 ms is resolved at 95 % with 80 % power by {spun['runs_for_0_19_ms']} runs per "
            f"configuration idle, {loaded['runs_for_0_19_ms']} loaded.")


def summary_section(out: Path, ctx: dict) -> str:
    """One page: the readings with their significance, then what the emulation cannot show."""
    lines = [f"- {line}" for line in readme_lines(ctx)]
    limits = []
    stds, published = ctx.get("tcp_rtt_std") or [], pub.tcp_std_table()
    published_rtt = [v for (metric, sec, _, _), v in published.items() if metric == "rtt"]
    if stds:
        sigma = sorted(stds)[len(stds) // 2]
        # Runs per configuration for a two-sample test to resolve the study's +0.19 ms at 95 % with 80 % power.
        needed = math.ceil(2 * ((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * sigma / 0.19) ** 2)
        limits.append(f"- The medium's RTT spread: std per TCP point {min(stds):.2f}–{max(stds):.2f} ms (median {sigma:.2f}) against "
                      f"the study's {min(published_rtt):.2f}–{max(published_rtt):.2f} ms (its Table 2): the study's +0.19 ms WPA2 "
                      f"RTT cost is near our noise; resolving it at 95 % with 80 % power would take about {needed} runs per "
                      "configuration at the median spread (this run: 40).")
    corr = ctx.get("tcp_release_vs_rtt")
    errs = ctx.get("release_error_p99") or {}
    if any(errs.values()):
        window = ctx.get("release_window", "p99 within a run")
        limits.append(f"- The emulator's frame-release error (intended vs actual release time, {window}, median per point): " +
                      "; ".join(f"{name} {min(x):.0f}–{max(x):.0f} µs" for name, x in errs.items() if x) +
                      (f". A run's RTT and its release error: Pearson r = {corr[0]:.2f} ({sig.p_text(corr[1])}, "
                       f"{corr[2]} `hw` runs)" if corr else "") +
                      "; the video differences read above are of the same order.")
    limits += ["- The card models bracket the study's card: `hw` (crypto inline, only the octets on the air) and `mcu:88` (the "
               "2008 chip's CPU, which cannot keep up); the clock that gives the study's ×2 comes from an n = 1 sweep outside this run.",
               "- “Energy” in the cipher figures is the study's model V × I × t, so every energy ratio is a time ratio; no power "
               "was measured. Cipher and host-CCMP timings are medians of repeats whose spread the benches do not record.",
               "- Hardware figures are single deterministic synthesis and place-and-route results (n = 1).",
               "- One machine (two cores shared with the traffic tools and the emulator): no fading, interference, rate "
               "adaptation or other BSS; the study's hosts and NICs are not modelled."]
    return "Readings (the README's figures, from this run's raw files):\n\n" + "\n".join(lines) + \
        "\n\nLimits of the emulation:\n\n" + "\n".join(limits)
