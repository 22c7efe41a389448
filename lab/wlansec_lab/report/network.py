"""The report's sections on the network experiments: the configuration they ran in, the video
and TCP measurements and the file transfers, each with its figure, its table and the published
figures beside ours."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from pathlib import Path

from wlansec_lab import published_values as pub
from wlansec_lab import significance as sig
from wlansec_lab.ciphers import STUDY_CIPHERS
from wlansec_lab.experiments import CARD_SECURITIES, CARDS, design_fmax_mhz, file_kb, verilog_mhz
from wlansec_lab.plotstyle import series
from wlansec_lab.report.figures import files_figure, save_figure, tcp_cost_figure, tcp_figure, video_figure
from wlansec_lab.report.data import (CARD_MPDU_BYTES, card_costs_us, card_mhz, files_order, load_raw, medium_floor, mode_label, rtl_speed,
                                     mode_of, point_runs, point_stat, sorted_modes, study_cipher_times)
from wlansec_lab.report.render import details, figure, key_figure_link, md_table, not_run, num, spread_text
from wlansec_lab.report.statistics import release_error_correlation


def config_section(out: Path, ctx: dict) -> str:
    run = json.loads((out / "run.json").read_text()) if (out / "run.json").exists() else {}
    m = run.get("machine", {})
    lines = [f"- Machine: {m.get('cpu')}, {m.get('cores')} cores, Linux {m.get('kernel')}, Python {m.get('python')}; run {m.get('date')}",
             f"- Testbed: **{run.get('testbed')}**; repeats per point {run.get('repeats')} (+{run.get('warmup')} warm-up round discarded), "
             f"configuration order shuffled each round (seed {run.get('seed')}), {run.get('seconds_per_run')} s of traffic per video run"
             + (" — **quick smoke run**" if run.get("quick") else "")]
    cards = {e["point"].get("card", "hw") for name in ("video", "tcp") for e in (load_raw(out, name) or {}).get("summary", [])}
    lines.append(card_models_text(sorted(cards), ctx["wlansec"]))
    if rtl := rtl_text(out, cards):
        lines.append("- " + rtl)
    seen, ampdu_by_phy, seeds = set(), defaultdict(set), {}
    for name in ("video", "tcp", "files"):
        data = load_raw(out, name)
        if data and data["plan"].get("medium_seeds"):
            seeds[name] = data["plan"]["medium_seeds"]
        for d in (data or {}).get("testbed", []):
            if d.get("kind") == "emulated WLAN":
                ampdu_by_phy[d.get("phy")].add(d.get("ampdu"))
                line = (f"- {name}: security `{d.get('security')}`, PHY `{d.get('phy')}` (link `{d.get('link')}`, FER {d.get('frame_error_rate')}, "
                        f"{ampdu_text(d.get('ampdu'), short=True)}), topology {d.get('topology')}, card/AP crypto models {json.dumps(d.get('crypto'))}")
            else:
                line = f"- {name}: {d.get('kind')}: {d.get('link', '')}"
            if line not in seen:
                seen.add(line)
                lines.append(line)
    if ampdu_by_phy:
        lines.insert(3, "- Medium aggregation in force per PHY (each bring-up's `wlan status`): " +
                     "; ".join(f"`{phy}`: " + ", ".join(ampdu_text(a) for a in sorted(v, key=lambda a: a or 0)) for phy, v in sorted(ampdu_by_phy.items())) +
                     ". On HT/VHT the emulator sends up to N MPDUs for one receiver and TID in one A-MPDU (one preamble, one "
                     "compressed BlockAck; only the MPDUs the BlockAck misses are retried), 32 by default (`wlan up --ampdu`); "
                     "802.11a/g has no aggregation.")
    if seeds:
        longest = max(seeds.values(), key=len)  # every experiment's rounds share the run's seeds
        lines.insert(4, "- Medium seed (`wlan up --seed`): a fresh one per round, derived from the run seed and the round "
                     f"(`runner.medium_seed`), so repeats draw independent losses and backoffs; rounds 0–{len(longest) - 1}: "
                     f"{', '.join(map(str, longest[:4]))}{' …' if len(longest) > 4 else ''}")
    return ("The machine, the testbed and its settings, the card models and each experiment's medium (PHY, link, "
            "aggregation, topology, crypto models).\n\n" + details(f"Configuration: {len(lines)} lines", "\n".join(lines)))


def ampdu_text(ampdu: int | None, short: bool = False) -> str:
    if ampdu is None:
        return "A-MPDU not recorded" + ("" if short else " (a run from before the medium aggregated: none)")
    return (f"A-MPDU ≤ {ampdu}" + ("" if short else " MPDUs with compressed BlockAck")) if ampdu > 1 else "no A-MPDU"


def card_models_text(cards: list[str], wlansec: str) -> str:
    default = card_mhz(CARDS[1])
    per = []
    for card in sorted({c for c in cards if card_mhz(c)}, key=card_mhz):
        if not Path(wlansec).exists():  # the figures are the binary's to state
            per.append(f"`{card}`: not stated (no wlansec binary at {wlansec})")
            continue
        costs = card_costs_us(wlansec, card)
        small, big = CARD_MPDU_BYTES
        per.append(f"`{card}`: " + ", ".join(f"{suite.upper()} {costs[(suite, small)]:.0f} / {costs[(suite, big)]:.0f} µs"
                                             for suite in CARD_SECURITIES))
    return (f"- Card models (`wlansec wlan up --card`, stations; the access point's crypto is the host engine, `sw`): "
            f"**`hw`**: crypto in the card's hardware inline with the PHY, no time of its own (as 802.11n cards do it); "
            f"**`mcu:MHZ`**: the portable software suite (constant-time AES) on the card's embedded CPU at MHZ, "
            f"one frame at a time, instructions per frame counted with callgrind (`scripts/wlan-count-instructions.sh`). "
            f"The matrix's `{CARDS[1]}`: {default:.0f} MHz is the CPU clock of the Atheros AR9170, an 802.11n USB client chip "
            f"of 2008, the studies' era (its open carl9170 firmware and the Linux/OpenBSD drivers set `AHB_80_88MHZ`). "
            f"Per frame, protect or unprotect, 128-octet / 1536-octet MPDU: " + ("; ".join(per) or "no MCU card in this run") +
            ". Open and Enhanced (host engine) do no crypto on the card and are measured once, with `hw`.")


def rtl_text(out: Path, cards) -> str:
    """What the `[AP on the RTL]` rows are and how fast the simulation ran; "" without them."""
    clocks = sorted({verilog_mhz(c) for c in cards if verilog_mhz(c)})
    if not clocks:
        return ""
    fmax = design_fmax_mhz()
    speed = rtl_speed(out)
    measured = "; ".join(f"{name}: median {statistics.median(v):,.0f} frames/s over {len(v)} run(s) (range {min(v):,.0f}–{max(v):,.0f})"
                         for name, v in speed.items()) or "not recorded in this run"
    return ("**Hardware access point** (`[AP on the RTL, MHZ]`, `wlan up --ap-crypto verilog:MHZ`, stations `hw`): every CCMP "
            "frame the access point seals or opens is the verilated Verilog's output (ccmp_axi / ccmp_decap_axi, driven through "
            "their AXI ports), its cycles at MHZ the crypto time on the medium: these rows are measured through the RTL, not "
            f"a model. Clocks: {', '.join(f'{c:g} MHz' for c in clocks)}"
            + (f" ({fmax:g} MHz: ccmp_core's median Fmax in hdl/reports/summary.json; 50 MHz: the oscillator of the 2008-era "
               "FPGA starter boards)" if fmax else "") +
            ". WPA2 only (the RTL is CCMP's); TCP at 1408 octets only. The simulation's own speed, frames the RTL sealed or "
            f"opened (of every size: data and TCP's ACKs) per second of wall time (`wlan status` counters over each run): {measured}. Under video it runs at the "
            "stream's offered rate; under TCP the link is saturated, so that figure is the simulation's speed, and the TCP "
            "rows' throughput is bounded by it, not by the design at its clock.")


def video_section(out: Path, ctx: dict) -> str:
    data = load_raw(out, "video")
    if (msg := not_run(data, "video")):
        return msg
    rows, by = [], {}
    for e in data["summary"]:
        by[(mode_of(e["point"]), e["point"]["profile"])] = e
    profiles = sorted({p for _, p in by})
    modes = sorted_modes(m for m, _ in by)
    open_mode = ("open", "hw")

    def runs(m, prof, metric):
        return point_runs(out, ctx, "video", by[(m, prof)]["point"], metric) if (m, prof) in by else []
    # Per (mode, profile): the delay and jitter over open's as ratios (bootstrap CI) and
    # differences (Welch), on the same traffic.
    ratios, diffs = {}, {}
    for (m, prof) in by:
        ratios[(m, prof)] = tuple(sig.ratio(runs(open_mode, prof, k), runs(m, prof, k)) for k in ("delay_ms_mean", "jitter_ms"))
        diffs[(m, prof)] = tuple(sig.welch(runs(open_mode, prof, k), runs(m, prof, k)) for k in ("delay_ms_mean", "jitter_ms"))
    values = video_figure(out, by, modes, profiles, ratios, diffs, comparison=False)
    tested = any(r for pair in ratios.values() for r in pair)
    vs_open = video_figure(out, by, modes, profiles, ratios, diffs, comparison=True) if tested else None
    values_alt = ("Bar charts of the video experiment per security mode and card model, one bar per traffic type: one-way "
                  "delay and jitter (log axes), throughput delivered and loss, each with its 95 % CI.")
    vs_open_alt = ("Bar charts of each security mode's video delay and jitter as a ratio to open's on the same traffic, with "
                   "bootstrap 95 % CIs and the study's ratios as stars (Enhanced 1.2×, WPA2 2×), and the increase over open "
                   "in ms with Welch 95 % CIs.")
    if vs_open:
        ctx["key_figures"].append((vs_open, vs_open_alt, "**Video** (g54, through the AP): delay and jitter over open's, "
                                   "the study's ratios as stars.", "Video: delay, jitter, throughput"))
        shown = key_figure_link(vs_open) + "\n\n" + figure(values, values_alt, "The values behind the ratios: delay, jitter, "
                                                              "throughput and loss per mode.")
    else:
        ctx["key_figures"].append((values, values_alt, "**Video** (g54, through the AP): delay, jitter, throughput and loss per "
                                   "mode; one run per point, so no comparison with open is drawn.", "Video: delay, jitter, throughput"))
        shown = (key_figure_link(values) + "\n\n> No comparison with open is drawn: each mode's delay and jitter as a ratio "
                 "to open's, with its bootstrap 95 % CI beside the study's ratios, and the increase with its Welch CI, need two "
                 "runs per point or more, and this run has one. A full run (`make lab`, 40 runs per point) draws them.")
    for m in modes:
        for prof in profiles:
            e = by.get((m, prof))
            if not e:
                continue
            (rd, rj), (dd, dj) = ratios[(m, prof)], diffs[(m, prof)]
            rows.append([mode_label(m), prof, e["n"], num(point_stat(e, "delay_ms_mean"), "{:.3f}"), spread_text(e, "delay_ms_mean", "{:.3f}"),
                         num(point_stat(e, "jitter_ms"), "{:.3f}"), spread_text(e, "jitter_ms", "{:.3f}"), num(point_stat(e, "loss_percent"), "{:.2f}"),
                         num(point_stat(e, "throughput_mbps")),
                         *[("—" if d is None or m == open_mode else d.verdict().replace(" at 95 %", "")) for d in (dd, dj)],
                         *[("—" if r is None or m == open_mode else r.text()) for r in (rd, rj)],
                         f"{pub.VIDEO_RATIO[m[0]]:.1f}×" if m[0] in pub.VIDEO_RATIO else ("1×" if m[0] == "open" else "—"),
                         num(e["release_error_p99_us"]["median"], "{:.0f}"), len(e["errors"]) or ""])
    ctx["video"] = ratios
    ctx["video_diffs"] = diffs
    ctx["video_means"] = {key: (point_stat(e, "delay_ms_mean"), point_stat(e, "jitter_ms")) for key, e in by.items()}
    ctx["video_open_delay_ms"] = [point_stat(e, "delay_ms_mean") for (m, _), e in by.items() if m == open_mode and point_stat(e, "delay_ms_mean")]
    ctx["video_loss"] = {(m, prof): point_stat(e, "loss_percent") for (m, prof), e in by.items()}
    ctx.setdefault("release_error_p99", {})["video"] = [e["release_error_p99_us"]["median"] for e in by.values()
                                                        if e["release_error_p99_us"]["median"] is not None]
    return (shown + "\n\n" + details(f"Per point: {len(rows)} rows (mode, traffic type)", md_table(
        ["mode [card]", "traffic", "n", "delay ms", "std (±95% CI)", "jitter ms", "std (±95% CI)", "loss %", "Mbit/s",
         "delay − open ms [95% CI], Welch", "jitter − open ms [95% CI], Welch", "delay ÷ open [95% CI]",
         "jitter ÷ open [95% CI]", "published ÷ open", "release err p99 µs", "errors"], rows)) +
            f"\n\nn: runs per point after the warm-up. Differences: Welch's t-test (unequal variances) against open on the "
            "same traffic, its 95 % CI, t and two-sided p (“significant” means p < 0.05); ratios: mean ÷ open's mean with a "
            f"percentile bootstrap 95 % CI ({sig.BOOTSTRAP_RESAMPLES} resamples). Published ({pub.HAYAJNEH}): "
            f"“{pub.VIDEO_QUOTES['enhanced']}”; “{pub.VIDEO_QUOTES['ccmp']}”. "
            "The study prints its delay/jitter/throughput values and its two data rates only in figures, so only these "
            "ratios can be set beside ours; our “high” and “very high” rates (4 and 8 Mbit/s, H.264 720p/1080p-like, "
            "30 frame/s GOP trace) are our choice. [card]: the stations' card model (see Configuration); open and Enhanced "
            "do no crypto on the card and run once. [AP on the RTL, MHZ]: the access point's CCMP in the verilated Verilog "
            "(see Configuration), tested against open as every row. The delay is one-way (sender to receiver, both clocks the same host's), "
            "the TCP section's RTT a round trip.")


def tcp_section(out: Path, ctx: dict) -> str:
    data = load_raw(out, "tcp")
    if (msg := not_run(data, "tcp")):
        return msg
    by = {(mode_of(e["point"]), e["point"]["ip"], e["point"]["size"]): e for e in data["summary"]}
    sizes = sorted({k[2] for k in by})
    ips = sorted({k[1] for k in by})
    modes = sorted_modes(k[0] for k in by)
    stds = pub.tcp_std_table()
    colors = {m: series(i) for i, m in enumerate(modes)}
    open_mode = ("open", "hw")

    def runs(m, ip, s, metric):
        return point_runs(out, ctx, "tcp", by[(m, ip, s)]["point"], metric) if (m, ip, s) in by else []
    # The study's layout (linear, open vs WPA2 with the card's crypto inline); then every card
    # model on log axes, since the MCU card sits an order of magnitude away from the others.
    inline = [m for m in modes if m[1] == "hw"]
    fig_path = save_figure(tcp_figure(by, inline, ips, sizes, colors, log=False), out, "tcp")
    cards_path = save_figure(tcp_figure(by, modes, ips, sizes, colors, log=True), out, "tcp-cards") if inline != modes else None
    rows, costs = [], defaultdict(dict)  # card → (ip, size) → (throughput cost, RTT cost), Welch
    for ip in ips:
        for s in sizes:
            for m in modes:
                e = by.get((m, ip, s))
                if not e:
                    continue
                dt = dr = None
                if m != open_mode and (open_mode, ip, s) in by:
                    dt = sig.welch(runs(m, ip, s, "iperf3_mbps"), runs(open_mode, ip, s, "iperf3_mbps"))  # open − this
                    dr = sig.welch(runs(open_mode, ip, s, "qperf_rtt_ms"), runs(m, ip, s, "qperf_rtt_ms"))  # this − open
                    costs[m[1]][(ip, s)] = (dt, dr)
                rows.append([f"IPv{ip}", s, mode_label(m), e["n"], num(point_stat(e, "iperf3_mbps")), spread_text(e, "iperf3_mbps"),
                             num(stds.get(("throughput", m[0], ip, s))), num(point_stat(e, "qperf_mbps")), num(point_stat(e, "qperf_rtt_ms"), "{:.3f}"),
                             spread_text(e, "qperf_rtt_ms", "{:.3f}"), num(stds.get(("rtt", m[0], ip, s)), "{:.3f}"),
                             "—" if dt is None else dt.verdict("{:+.2f}").replace(" at 95 %", ""),
                             "—" if dr is None else dr.verdict("{:+.3f}").replace(" at 95 %", ""),
                             num(e["release_error_p99_us"]["median"], "{:.0f}"), len(e["errors"]) or ""])
    tested = any(c for pair in costs.get("hw", {}).values() for c in pair)
    cost_path = save_figure(tcp_cost_figure(costs["hw"], ips, sizes), out, "tcp-cost") if tested else None
    ctx["tcp"] = dict(costs)
    ctx["tcp_means"] = {key: (point_stat(e, "iperf3_mbps"), point_stat(e, "qperf_rtt_ms")) for key, e in by.items()}
    ctx["tcp_open"] = {(ip, s): point_stat(e, "iperf3_mbps") for (m, ip, s), e in by.items() if m == open_mode and point_stat(e, "iperf3_mbps") is not None}
    ctx["tcp_open_rtt"] = [point_stat(e, "qperf_rtt_ms") for (m, _, _), e in by.items() if m == open_mode and point_stat(e, "qperf_rtt_ms") is not None]
    ctx["tcp_rtt_std"] = [point_stat(e, "qperf_rtt_ms", "std") for (m, _, _), e in by.items() if m[1] == "hw" and point_stat(e, "qperf_rtt_ms", "std")]
    ctx["tcp_ip_gap"] = {(m[0], metric, s): sig.welch(runs(m, 6, s, metric), runs(m, 4, s, metric))
                         for m in inline for s in sizes for metric in ("iperf3_mbps", "qperf_rtt_ms")
                         if (m, 4, s) in by and (m, 6, s) in by}  # IPv4 − IPv6
    ctx["tcp_release_vs_rtt"] = release_error_correlation(data)
    ctx.setdefault("release_error_p99", {})["tcp"] = [e["release_error_p99_us"]["median"] for e in by.values()
                                                      if e["release_error_p99_us"]["median"] is not None]
    ctx["tcp_ampdu"] = sorted({d.get("ampdu") or 1 for d in data.get("testbed", []) if d.get("kind") == "emulated WLAN"})
    ranges = "; ".join(f"{pub.MODE_LABEL[s]} IPv{ip}: {t[0]}–{t[1]} Mbit/s, RTT {r[0]}–{r[1]} ms" for (s, ip), (t, r) in pub.TCP_RANGES.items())
    ctx["key_figures"].append((fig_path, "Line charts of TCP throughput (iperf3 and qperf, top) and round-trip time (bottom) "
                               "against packet size, one column per IP version, open and WPA2 with the card's crypto inline, "
                               "error bars one standard deviation, the study's ranges over the sizes as shaded bands.",
                               "**TCP** (n-mcs7-40, A-MPDU): throughput and RTT against packet size, the study's ranges as bands.",
                               "TCP: throughput and RTT vs packet size"))
    cost = (figure(cost_path, "Line charts of WPA2's throughput cost and RTT cost over open against packet size, one column per "
                   "IP version, with Welch 95 % CIs, n.s. where not significant, the study's per-size costs as stars and its "
                   "overall cost as a dotted line.", "WPA2 [hw]'s cost per size (linear axes; n.s.: not significant at 95 %).")
            if cost_path else
            "> No cost figure is drawn: WPA2's throughput and RTT cost over open per size, with its Welch 95 % CI beside the "
            "study's 2.8–3 Mbit/s and 0.18–0.20 ms, needs two runs per point or more, and this run has one. A full run "
            "(`make lab`, 40 runs per point) draws it.")
    return (key_figure_link(fig_path) + "\n\n" + (figure(cards_path, "The same line charts on log axes with every card model, the MCU card an order of magnitude "
                    "below the others.", "Every card model (log axes).") + "\n\n" if cards_path else "") + cost + "\n\n" +
            details(f"Per point: {len(rows)} rows (IP version, size, mode)", md_table(
                ["IP", "size B", "mode [card]", "n", "iperf3 Mbit/s", "std (±95% CI)", "published std", "qperf Mbit/s",
                 "RTT ms", "std (±95% CI)", "published std", "open − this Mbit/s [95% CI], Welch",
                 "this − open RTT ms [95% CI], Welch", "release err p99 µs", "errors"], rows)) +
            f"\n\nn: runs per point after the warm-up (the study: 40). [AP on the RTL, MHZ]: the access point's CCMP in the "
            "verilated Verilog, its throughput bounded by the simulation's speed (see Configuration). Costs: Welch's t-test against open at the same IP "
            "version and size, its 95 % CI, t and two-sided p (“significant” means p < 0.05). Release error: the emulated "
            "medium's intended vs actual frame release time, " + ctx.setdefault("release_window", _release_window(data)) +
            ", median over the point's runs. "
            f"Published ({pub.LI_KOLAHI}), Fedora 12, 40 runs per point: {ranges}. WPA2 cost: "
            f"{pub.TCP_WPA2_COST['fedora'][0]} Mbit/s and +{pub.TCP_WPA2_COST['fedora'][1]} ms (Fedora 12), "
            f"{pub.TCP_WPA2_COST['windows'][0]} Mbit/s and +{pub.TCP_WPA2_COST['windows'][1]} ms (Windows 7); per size, where its "
            "text names the size: " + ", ".join(f"{'−' if m == 'throughput' else '+'}{v:g} {'Mbit/s' if m == 'throughput' else 'ms'} "
                                                f"at {s} B IPv{ip}" for (m, ip, s), v in pub.tcp_wpa2_cost_points().items()) +
            ". Their tool was netperf (one million packets per run); ours are iperf3 (`-l` write size, first second omitted) "
            "and qperf (`-m` message size).\n\n" + medium_floor_text(ctx.setdefault("medium_floor", medium_floor())))


def _release_window(data: dict) -> str:
    """What a run's release error covers: the run alone, or (runs recorded before per-run
    windows) the medium's last 2^20 releases at the run's end, earlier runs' among them."""
    runs = [r for r in data.get("runs", []) if r.get("release_error")]
    if runs and all(r.get("release_error_window") == "run" for r in runs):
        return "p99 within a run"
    return ("p99 over the medium's last 2^20 releases when the run ended (this run predates per-run windows, so a run's "
            "figure also holds earlier runs' releases of the same configuration)")


def medium_floor_text(floor: dict | None) -> str:
    """The floor table and what it says about the RTT spread the TCP table shows."""
    if floor is None:
        return "The medium's RTT floor was not measured (`python -m wlansec_lab.floor`)."
    rows = [[r["condition"], r["runs"], num(r["rtt_mean_ms"], "{:.3f}"), num(r["rtt_std_ms"], "{:.3f}"),
             num(r["release_median_us"], "{:.1f}"), num(r["release_p99_us"], "{:.1f}"),
             f"{r['loadavg1'][0]:.1f}–{r['loadavg1'][1]:.1f}", r["runs_for_0_19_ms"]] for r in floor["rows"]]
    m = floor["machine"]
    return (f"The medium's floor (`python -m wlansec_lab.floor`, {m['cpu']}, {m['date']}, commit {floor['commit'][:10]}): "
            f"one open-network RTT point ({floor['size']} B, qperf tcp_lat {floor['seconds']:g} s per run, "
            f"{floor['network']['phy']}) per machine state, the states rotated per round; release error over each run "
            "alone; runs for 0.19 ms: per configuration, Welch two-sided 95 % with 80 % power.\n\n" +
            md_table(["condition", "runs", "RTT ms", "std ms", "release err median µs", "release err p99 µs", "load avg",
                      "runs for 0.19 ms"], rows))


def files_section(out: Path, ctx: dict) -> str:
    data = load_raw(out, "files")
    if (msg := not_run(data, "files")):
        return msg
    cj = out / "raw" / "ciphers.bench.json"
    enc = study_cipher_times(json.loads(cj.read_text())["records"]) if cj.exists() else {}

    def total(cipher: str, p: dict, t: float) -> float | None:
        """Encrypt, transfer and decrypt one file: the transfer plus the cipher bench's times."""
        e = enc.get((cipher, p["file"]))
        return t + e.get("encrypt", 0) + e.get("decrypt", 0) if (e and t) else None

    rows, skipped, nets = [], [], []
    point_of = {(e["point"]["security"], e["point"]["topology"], e["point"]["signal"], e["point"]["file"]): e["point"]
                for e in data["summary"] if not e["skipped"]}
    over_open = {}  # (security, topology, signal, file) → (ratio to open, Welch test of the difference)
    for e in sorted(data["summary"], key=lambda e: files_order(e["point"])):
        p = e["point"]
        if e["skipped"]:
            skipped.append(f"{p['security']}/{p['topology']}/{p['signal']}/{p['file']}")
            continue
        t = point_stat(e, "seconds")
        nets.append((p, t, e))
        base = point_of.get(("open", p["topology"], p["signal"], p["file"]))
        compared = "—"
        if base and p["security"] != "open":
            a, b = point_runs(out, ctx, "files", base, "seconds"), point_runs(out, ctx, "files", p, "seconds")
            r, d = sig.ratio(a, b), sig.welch(a, b)
            if r and d:
                over_open[(p["security"], p["topology"], p["signal"], p["file"])] = (r, d)
                compared = f"{r.text()}, {'significant' if d.significant else 'n.s.'} ({sig.p_text(d.p)})"
        per = ", ".join(f"{c} {num(total(c, p, t), '{:.3f}')}" for c in STUDY_CIPHERS if (c, p["file"]) in enc) if t else "—"
        rows.append([p["security"], p["topology"], p["signal"], p["file"], e["n"], num(t, "{:.3f}"), spread_text(e, "seconds", "{:.3f}"),
                     compared, num(point_stat(e, "throughput_mbps")), per])

    fig_path = files_figure(out, nets)

    # The study's layout (its Tables II and III): algorithms down, network configurations across.
    configs = sorted({(p["security"], p["topology"], p["signal"]) for p, t, _ in nets if t},
                     key=lambda c: files_order({"security": c[0], "topology": c[1], "signal": c[2], "file": ""}))
    layouts = []
    for kind in ("text", "video"):
        files = sorted({p["file"] for p, t, _ in nets if t and p["file"].startswith(kind)}, key=file_kb)
        if not files:
            continue
        cell = {(p["security"], p["topology"], p["signal"], p["file"]): (p, t, e) for p, t, e in nets if t}

        def summed(cipher: str | None, c: tuple) -> str:
            got = [cell.get((*c, f)) for f in files]
            if not all(got):
                return "—"
            parts = [t if cipher is None else total(cipher, p, t) for p, t, _ in got]
            # The files' transfers are independent runs: their stds add in quadrature.
            spread = math.sqrt(sum((point_stat(e, "seconds", "std") or 0) ** 2 for _, _, e in got))
            return "—" if None in parts else f"{sum(parts):.2f} ± {spread:.2f}"
        body = [[label, *[summed(cipher, c) for c in configs]]
                for label, cipher in [("No encryption", None), *[(c, c) for c in STUDY_CIPHERS]]]
        layouts.append(f"Ours, {kind} data in the study's Table {'II' if kind == 'text' else 'III'} layout: seconds to encrypt, "
                       f"send and decrypt the {len(files)} {kind} file(s) ({', '.join(files)}) one after the other "
                       "(± the transfers' std; the cipher times, medians of the bench's repeats, add no spread of their own):\n\n" +
                       md_table(["algorithm", *[f"{s}/{'ad hoc' if t == 'ibss' else 'infra'}/{g}" for s, t, g in configs]], body))
    study = pub.cipher_transfer_tables()
    ctx["files"] = {"nets": nets, "total": total, "over_open": over_open, "runs": lambda p: point_runs(out, ctx, "files", p, "seconds")}
    ctx["cipher_rows"] = {"files": sorted({c for c, _ in enc})}
    published = "\n\n".join(
        f"Published, {tid} ({kind} data, seconds, n not stated; {pub.CIPHER_2009}); by position column 1 is ad hoc/excellent "
        "signal and column 5 BSS/excellent, the others are illegible in the source; “—”: a cell the source prints "
        "illegibly:\n\n" + md_table(["algorithm", "col 1", "col 2", "col 3", "col 4", "col 5"],
                                    [[alg, *[num(v) for v in vals]] for alg, vals in study[tid].items()])
        for tid, kind in (("Table II", "text"), ("Table III", "video")))
    ctx["key_figures"].append((fig_path, "Two line charts against file size (log axes): left, open's transfer time per network "
                               "(ad hoc or infrastructure, excellent or poor signal) with one standard deviation; right, WEP's and "
                               "TKIP's time as a multiple of open's on the same network and file.",
                               "**Files** (the study's text and video files, ad hoc and BSS): open's transfer time, and what WEP "
                               "and TKIP add.", "Files: transmission time of encrypted files"))
    return (key_figure_link(fig_path) + "\n\n" + details(f"Per point: {len(rows)} rows (security, topology, signal, file)", md_table(
        ["security", "topology", "signal", "file", "n", "transfer s", "std (±95% CI)", "÷ open [95% CI], Welch",
         "Mbit/s", "encrypt + transfer + decrypt s, per cipher (CBC, wlansec)"], rows)) +
            "\n\nn: runs per point after the warm-up; ÷ open: the transfer time over open's on the same network and file, "
            "bootstrap 95 % CI, and Welch's t-test of the difference (n.s.: not significant at 95 %); the cipher times are "
            "medians of the cipher bench's repeats (its spread is not recorded)." +
            ("\n\nNot realised on this testbed: " + ", ".join(skipped[:12]) + (" …" if len(skipped) > 12 else "") +
             f" ({next(e['skipped'] for e in data['summary'] if e['skipped'])})" if skipped else "") +
            "\n\nThe link carries the ciphertext, whose length is the plaintext's plus at most one block, and nothing on the "
            "air compresses, so one transfer per file and network configuration serves every cipher; each cipher's encryption "
            "and decryption time comes from `wlansec bench ciphers` on the same file.\n\n" +
            details("Ours and the study's in its Tables II and III layout", "\n\n".join(layouts) + "\n\n" + published))
