"""The report's sections on the benches and the model: the engine's self-check, the card model
against the published figures, the host's CCMP engines, the ciphers (with and without AES
instructions) and the hardware cores."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from wlansec_lab import ROOT, cardmodel, ciphers
from wlansec_lab import published_values as pub
from wlansec_lab.ciphers import STUDY_ALGORITHMS, STUDY_CIPHERS, label as cipher_label
from wlansec_lab.report.data import AES_SOFT_RUN, ALGREDO, algredo_virtex4, load_raw, mode_of, point_stat
from wlansec_lab.report.figures import ccmp_figure, cipher_claims_figure, hardware_figure
from wlansec_lab.report.render import details, figure, key_figure_link, md_table, not_run, num
from wlansec_lab.report.statistics import (CLAIM_CASES, cipher_energy_ratios, frame_us, parallel_speedups, percent_of_aes,
                                           study_claims)
from wlansec_lab.udpvideo import PACKET


def selftest_section(out: Path, ctx: dict) -> str:
    p = out / "selftest.txt"
    if not p.exists():
        return "*Not run: no selftest.txt.*"
    text = p.read_text().strip()
    # The check's verdicts, one line each (the last selftest line is the run's final word).
    results = list(dict.fromkeys(line.strip() for line in text.splitlines()
                                 if line.startswith(("selftest:", "tshark decrypted")) or "FAIL" in line))
    return ("The foundation demo's checks, run first: every published vector through the engine, and "
            "(in `make demo`) tshark decrypting a capture wlansec protected.\n\n" +
            "\n".join(f"- `{line}`" for line in results) + "\n\n" +
            details("The self-check's output", "```\n" + text[-3000:] + "\n```"))


def card_model_section(out: Path, ctx: dict) -> str:
    """The pipelined card model (`wlansec_lab.cardmodel`): its parameters and their sources, the
    one published figure it is calibrated on, and its predictions of the others beside them."""
    model = cardmodel.calibrated_model()
    c = cardmodel.CALIBRATION
    calib_body = cardmodel.tcp_body(c["size"], c["ip"], c["os"])
    params = md_table(["parameter", "value", "source"], [list(p) for p in cardmodel.parameters(model)])
    # The model's RTT cost per size, split into its stages (Fedora 12, IPv4: the lab's own OS).
    per_size = []
    for size in cardmodel.SIZES:
        body = cardmodel.tcp_body(size, 4, "fedora")
        per_size.append([size, f"{4 * model.driver_us:.1f}", f"{8 * model.engine_us(body):.1f}", f"{4 * model.air_us(body + cardmodel.MAC_OCTETS):.0f}",
                         *[f"{model.rtt_cost_us(cardmodel.tcp_body(size, ip, os_)) / 1000:.3f}" for os_ in ("fedora", "windows") for ip in (4, 6)]])
    stages = md_table(["size B", "4 drivers µs", "8 engine ops µs", "4 hops' 16 octets µs", "Fedora IPv4 ms", "Fedora IPv6 ms",
                       "Windows IPv4 ms", "Windows IPv6 ms"], per_size)
    video = load_raw(out, "video")
    open_delay, open_jitter = {}, {}
    for e in (video or {}).get("summary", []):
        if mode_of(e["point"]) == ("open", "hw") and point_stat(e, "delay_ms_mean"):
            open_delay[e["point"]["profile"]], open_jitter[e["point"]["profile"]] = point_stat(e, "delay_ms_mean"), point_stat(e, "jitter_ms")
    groups = [("Seed 002, RTT cost of WPA2 (ms)", cardmodel.rtt_predictions(model)),
              ("Seed 002, throughput cost of WPA2 (Mbit/s)", cardmodel.throughput_predictions(model))]
    if open_delay:
        groups.append(("Seed 000, video delay and jitter over open (×), and the NIC's crypto delay",
                       cardmodel.video_predictions(model, open_delay, open_jitter, PACKET)))
    tables, verdicts = [], []
    for title, preds in groups:
        tables.append(f"{title}:\n\n" + md_table(["published figure", "published", "predicted", "verdict"],
                                                [[p.what + (f" ({p.note})" if p.note else ""), f"{p.published:g}", f"{p.predicted:.3g}", p.verdict()]
                                                 for p in preds]))
        verdicts += [p for p in preds if p.counted]
    held = [p for p in verdicts if p.tolerance is not None and abs(p.error) <= p.tolerance]
    # How much the verdicts lean on the assumed engine clock: the same calibration at other clocks.
    sensitivity = []
    for mhz in (40.0, 200.0):
        other = cardmodel.CardModel(clock_mhz=mhz).calibrated(1000 * c["rtt_ms"], calib_body)
        preds = cardmodel.rtt_predictions(other) + cardmodel.throughput_predictions(other) + (
            cardmodel.video_predictions(other, open_delay, open_jitter, PACKET) if open_delay else [])
        counted = [p for p in preds if p.counted]
        sensitivity.append(f"{mhz:g} MHz: driver {other.driver_us:.1f} µs, RTT cost {other.rtt_cost_us(cardmodel.tcp_body(128, 4, 'fedora')) / 1000:.3f}–"
                           f"{other.rtt_cost_us(cardmodel.tcp_body(1408, 4, 'fedora')) / 1000:.3f} ms (Fedora IPv4, 128–1408 B), "
                           f"{sum(p.tolerance is not None and abs(p.error) <= p.tolerance for p in counted)} of {len(counted)} hold")
    tput = [p for p in groups[1][1] if p.counted]
    ctx["card_model"] = {"held": len(held), "of": len(verdicts), "driver_us": model.driver_us,
                         "tput": (min(p.predicted for p in tput), max(p.predicted for p in tput)),
                         "tput_published": (min(p.published for p in tput), max(p.published for p in tput)),
                         "held_what": [p.what.split(" (")[0] for p in held]}
    # What a throughput cost the size of the study's would need, and the bracket with no overlap.
    open_fedora = pub.TCP_RANGES[("open", 4)][0]
    mid = sum(open_fedora) / 2
    mss = cardmodel.mss(4, "fedora")
    needed = 8 * mss / (mid - pub.TCP_WPA2_COST["fedora"][0]) - 8 * mss / mid
    args = (mid, mss, cardmodel.tcp_body(mss, 4, "fedora"), cardmodel.tcp_body(0, 4, "fedora"))
    pipelined, serial = mid - model.bulk_throughput(*args), mid - model.bulk_throughput(*args, pipelined=False)
    return (f"The model (`lab/wlansec_lab/cardmodel.py`) adds up what WPA2 puts on one frame's path: the stations' **driver** "
            f"(per-frame work a protected frame needs, transmit or receive), a hardware CCMP **engine** in each card and in the AP "
            f"(cycles per block × blocks ÷ clock, the whole frame before it passes on), and the **air** time of CCMP's 16 octets "
            f"(the 802.11 airtime model's TXTIME). A round trip (one frame each way through the AP) crosses 4 drivers, 8 engine "
            f"operations and 4 hops; bulk TCP is a pipeline whose slowest stage, the shared medium, sets its pace.\n\n"
            + details("The model's parameters and their sources", params) + "\n\n"
            f"**Calibration** (the only fitted figure): {pub.LI_KOLAHI}: “{c['quote']}” — "
            f"{cardmodel.OS_LABEL[c['os']]}, IPv{c['ip']}, {c['size']} B: +{c['rtt_ms']} ms. It is the only 0.19 ms the study ties "
            f"to a packet size, and {c['size']} B is the middle of its six sizes, so every other prediction extrapolates from an "
            f"interior point. Solved for the driver overhead: {model.driver_us:.2f} µs per frame and station; the model then gives "
            f"{model.rtt_cost_us(calib_body) / 1000:.3f} ms there. Nothing is refitted below.\n\n"
            f"The model's RTT cost per size (the stages for Fedora 12, IPv4; a hop's 16 octets cost 0 or 4 µs, as they do or do "
            f"not spill into one more OFDM symbol):\n\n" + details("RTT cost per size, by stage", stages) + "\n\n" +
            details(f"Its {sum(len(g[1]) for g in groups)} predictions beside the published figures", "\n\n".join(tables)) +
            f"\n\nTolerances: a published per-size figure is held to a 95 % interval of the study's WPA2 − open difference, from its "
            "Table 1/2 standard deviations at that size over its 40 runs (1.96 × √((σ_open² + σ_WPA2²)/40)) plus half the printed "
            "0.01 step; a conclusion (“for both IPv4 and IPv6”, no size) to its printed digit at every size; a video ratio to "
            f"±{100 * cardmodel.RATIO_TOLERANCE:.0f} % (the study's “approximately” and “almost”, no spread printed); failing that, "
            "a figure is said to hold only within the study's per-run spread (the larger of its two standard deviations there). "
            "Rows marked inferred are shown but not counted in the verdict.\n\n"
            f"**Verdict**: {len(held)} of {len(verdicts)} predictions hold within their tolerance (with the engine clock, the one "
            f"assumption that shapes the size dependence, at {'; at '.join(sensitivity)}). "
            "The RTT costs the study reports at 1408 B on Fedora 12 (0.20 and 0.21 ms) follow from the one at 896 B on Windows 7, "
            "but the model's cost grows with the frame (the engines: 8 operations of ⌈body/16⌉ + 3 blocks) from "
            f"{model.rtt_cost_us(cardmodel.tcp_body(128, 4, 'fedora')) / 1000:.2f} ms at 128 B, while the study calls its cost one "
            "figure for all sizes and puts Windows 7's largest at 640 and 896 B. The throughput cost **fails** everywhere: a "
            f"pipelined card's latency does not slow a stream, and the 16 octets are ~1 % of the medium's time per segment, so the "
            f"model gives {pipelined:.2f} Mbit/s at open's {mid:.1f} Mbit/s (Fedora 12, IPv4, the middle of its range) against the "
            f"study's {pub.TCP_WPA2_COST['fedora'][0]:g}. The study's cost needs {needed:.1f} µs per segment that overlaps nothing; "
            f"the same model with no overlap at all (driver, busiest engine and air in series) gives {serial:.2f} Mbit/s" +
            (": the study's figure lies between the two, so its card overlapped part, not all, of its per-frame work — which this "
             "model, calibrated on latency alone, cannot say." if pipelined < pub.TCP_WPA2_COST["fedora"][0] < serial else ".") +
            (video_text_of(groups[2][1], open_delay, cardmodel.video_one_way_us(model, PACKET)) if open_delay else ""))


def video_text_of(preds: list, open_delay: dict, added_us: float) -> str:
    """The card model's verdict on the video study's ratios and its NIC delay."""
    held = [p.what.split(" (")[0] for p in preds if p.tolerance is not None and abs(p.error) <= p.tolerance]
    nic = preds[-1]
    return (f" Seed 000: the model adds about {added_us:.0f} µs one way, and doubling a delay needs an open delay of that size, "
            f"while our open video delay is {min(open_delay.values()):.2f}–{max(open_delay.values()):.2f} ms; of its ratios "
            + (f"only {'; '.join(held)} holds" if held else "none holds") +
            f". The study's {nic.published - nic.tolerance:g}–{nic.published + nic.tolerance:g} ms of crypto at the NIC is "
            f"{nic.published / nic.predicted:,.0f}× what the model's card takes per frame ({1000 * nic.predicted:.0f} µs).")


def ccmp_section(out: Path, ctx: dict) -> str:
    data = load_raw(out, "ccmp-bench")
    if (msg := not_run(data, "ccmp-bench")):
        return msg
    if data["status"] != "ok":
        return f"*{data['status']}: {data.get('error')}*"
    b = json.loads((out / "raw" / data["json"]).read_text())
    res = b["results"]
    series = defaultdict(list)
    for r in res:
        series[f"{r['impl']} {r['mode']}" + (f" N={r['lanes']}" if r["mode"] == "enhanced" else "")].append((r["frame_bytes"], r["gb_per_s"], r["us_per_frame"]))
    for pts in series.values():
        pts.sort()
    fig_path = ccmp_figure(out, series, b["machine"])
    sizes = sorted({r["frame_bytes"] for r in res})
    big = max(sizes)
    rows = [[name, *[num(next((p[2] for p in pts if p[0] == s), None), "{:.3f}") for s in sizes]] for name, pts in series.items()]
    at = {name: next((p[2] for p in pts if p[0] == big), None) for name, pts in series.items()}
    ctx["ccmp"] = at
    ctx["ccmp_1500"] = {name: next((p[2] for p in pts if p[0] == 1500), None) for name, pts in series.items()}
    ctx["key_figures"].append((fig_path, "A line chart of CCMP-128 sealing throughput in GB/s against frame size (log axis) on "
                               "one core, one line per engine: single frame, multi-buffer and the Enhanced N-lane settings.",
                               "**Host CCMP** (`wlansec bench ccmp`, one core): GB/s against frame size per engine.", "CCMP engines (host)"))
    return (key_figure_link(fig_path) + "\n\n" + details(f"µs per frame: {len(rows)} engines × {len(sizes)} sizes, each the median of n = "
                    f"{b['machine'].get('repeats', '?')} timed repeats (load average at the start {b['machine'].get('load_average')})",
                    md_table(["engine", *[f"{s} B" for s in sizes]], rows)) +
            f"\n\nPublished ({pub.HAYAJNEH}): host encryption and authentication take “20–40 μs” on 2011 CPUs, against "
            f"“10–50 ms” at the NIC; FPGA parallel design {pub.HW_PARALLEL_NS:g} ns vs standard {pub.HW_STANDARD_NS:g} ns "
            f"({pub.HW_SPEEDUP}×).")


#: The cipher bench's plots (`wlansec_lab.ciphers`): alt text and caption.
CIPHER_PLOTS = {
    "throughput": ("Bar charts, log axis: MB/s per cipher, encrypt and decrypt, text and video data, openssl speed as diamonds.",
                   "Throughput per cipher (total bytes ÷ total time, the study's way)."),
    "energy": ("Bar charts, log axis: µJ per byte per cipher, text and video data, encrypt and decrypt.",
               "Energy per byte (the study's V × I × t model: a time)."),
    "time_vs_size": ("Line charts, log axis: each cipher's median encrypt and decrypt time against file size.",
                     "Time against file size, text and video files."),
    "key_size": ("Line charts: throughput and energy against key size, CBC encryption of text, one line per cipher.",
                 "Throughput and energy against key size."),
}


def ciphers_section(out: Path, ctx: dict) -> str:
    data = load_raw(out, "ciphers")
    if (msg := not_run(data, "ciphers")):
        return msg
    if data["status"] != "ok":
        return f"*{data['status']}: {data.get('error')}*"
    bench = json.loads((out / "raw" / data["json"]).read_text())
    meta = bench.get("meta", {})
    rows = cipher_energy_ratios(bench)
    # The bench's own plots again, as SVG in the report's palette, from its raw file.
    plots = ciphers.plot_all(bench, ciphers.aggregate(bench["records"]), out / "figures" / "ciphers", "svg")
    imgs = "\n\n".join(figure(str(p.relative_to(out)), CIPHER_PLOTS[p.stem][0], CIPHER_PLOTS[p.stem][1]) for p in plots)
    claims = cipher_claims_figure(out, rows)
    if claims:
        ctx["key_figures"].append((claims, "A bar chart, log axis: for each of the study's claims (Blowfish-128 and RC6-128, text "
                                   "or video, encrypt or decrypt), our energy as % of AES-128's, total over the files with the "
                                   "per-file range, the study's figure as a star, AES-128 at 100 %.",
                                   "**Ciphers** (energy = time on this CPU): the study's “% of AES's power” claims and ours.", "Ciphers"))
    ctx["cipher_rows"] = {**ctx.get("cipher_rows", {}), "ciphers": sorted({cipher_label(r["cipher"], r["key_bits"], r["mode"])
                                                                           for r in bench["records"] if r["impl"] == "wlansec"
                                                                           and (r["cipher"], r["key_bits"], r["mode"]) in STUDY_ALGORITHMS})}
    table = md_table(["energy (= time) vs AES-128", "data", "direction", "study", "ours, total over the files",
                      "ours per file: min – median – max", "files"],
                     [[r["label"], r["data"], r["direction"], f"~{r['published_percent']} %", num(r["ours_percent"], "{:.0f} %"),
                       (f"{r['per_file'][0]:.0f} – {r['per_file'][len(r['per_file']) // 2]:.0f} – {r['per_file'][-1]:.0f} %"
                        if r["per_file"] else "—"), len(r["per_file"])] for r in rows])
    e = meta.get("energy", {})
    energy = (f"Energy, as the study defines it: E = V × I × t, with the study's V = {e.get('volts')} V and I = {e.get('amps')} A "
              "(its cited 486DX2's current; these machines expose no RAPL), t the measured wall time. Every energy ratio "
              "below is therefore a time ratio on this CPU, not a measured power.")
    backends, soft = aes_backend_text(bench)
    ctx["ciphers"] = _cipher_reading(rows, bench, soft)
    ctx["cipher_ratios"] = rows
    ctx["cipher_soft_aes"] = soft
    return ((key_figure_link(claims) + "\n\n" if claims else "") + f"{energy}\n\nOurs: n = {meta.get('repeats', '?')} timed repeat(s) per cipher, file and direction, "
            "their median kept (the repeats' spread is not recorded, so the spread shown is over the files); the study's n "
            f"is not stated.\n\n{table}\n\n{ctx['ciphers']}\n\n" +
            details(f"The bench's {len(plots)} figures: throughput, energy, time against size" +
                    (", key size" if "key_size" in {p.stem for p in plots} else " (one key size per cipher: no key-size figure)"), imgs) +
            "\n\n" + details("With and without AES instructions", backends) + f"\n\nPublished: {pub.CIPHER_2009}.")


def aes_backend_text(bench: dict, soft_run: Path = AES_SOFT_RUN) -> tuple[str, dict | None]:
    """The study's ciphers as % of AES-128's energy (= time) in the published run and in the two
    back-to-back runs with and without AES instructions, with each run's ranking; and the
    figures the reading needs ({label: {(data, direction): (total %, per-file)}} of the run
    without), or None where that run is absent."""
    without, with_ = soft_run / "ciphers-soft-aes.bench.json", soft_run / "ciphers-aesni.bench.json"
    if not without.exists():
        return ("*Not measured: no run without AES instructions (`scripts/bench-ciphers-soft-aes.sh`) in "
                f"{soft_run.relative_to(ROOT)}.*", None)
    meta = json.loads((soft_run / "run.json").read_text())
    runs = [("published run", bench)]
    if with_.exists():
        runs.append(("with AES instructions", json.loads(with_.read_text())))
    runs.append(("without AES instructions", json.loads(without.read_text())))
    percent = [(name, b, percent_of_aes(b)) for name, b in runs]
    claims = {(r["subject"], r["data"], r["direction"]): r["published_percent"] for r in study_claims()}
    rows = []
    for c in STUDY_CIPHERS[1:]:
        for kind, direction in CLAIM_CASES:
            cells = []
            for _, _, pc in percent:
                got = pc.get((c, kind, direction))
                cells.append("—" if not got else f"{got[0]:,.0f} % ({got[1][0]:,.0f}–{got[1][-1]:,.0f})")
            study = claims.get((c.split("-")[0], kind, direction))
            rows.append([c, kind, direction, f"~{study} %" if study else "—", *cells])
    header = ["cipher", "data", "direction", "study"] + [
        f"{name}: {b['meta'].get('cpu')}, AES {b['meta'].get('aes_backend', 'AES-NI (detected at run time; not recorded then)').split(' (')[0]}"
        for name, b, _ in percent]
    table = md_table(header, rows)

    def ranking(pc: dict, direction: str) -> str:
        totals = {c: sum(pc[(c, k, direction)][0] for k in ("text", "video") if (c, k, direction) in pc) / 2 for c in STUDY_CIPHERS[1:]}
        totals[STUDY_CIPHERS[0]] = 100.0
        return " < ".join(f"{c} {v:,.0f} %" for c, v in sorted(totals.items(), key=lambda kv: kv[1]))
    ranks = "\n".join(f"- {name} ({b['meta'].get('cpu')}), {d}, mean of text and video: {ranking(pc, d)}"
                      for name, b, pc in percent for d in ("encrypt", "decrypt"))
    soft = percent[-1][2]
    # Per claim case: does the study's ranking (the cipher cheaper than AES) come back on every file?
    back = {(c, k, d): ("returns" if soft[(c, k, d)][1][-1] < 100 else "stays reversed" if soft[(c, k, d)][1][0] > 100 else "mixed")
            for c in ("Blowfish-128", "RC6-128") for k, d in CLAIM_CASES if (c, k, d) in soft}
    control = ""
    if with_.exists():
        # The other five ciphers use no AES: how far they move between the two runs is the machine's noise.
        t = {name: {(r["cipher"], r["key_bits"], r["direction"], r["data"]): r["cpu_s"] or r["wall_s"] for r in b["records"] if r["impl"] == "wlansec"}
             for name, b in runs[1:]}
        moved = defaultdict(list)
        for key, x in t["without AES instructions"].items():
            if key in t["with AES instructions"]:
                moved[key[0] == "AES", key[2]].append(x / t["with AES instructions"][key])
        control = (" Control: the five other ciphers use no AES, yet their times moved by " +
                   f"{min(moved[(False, 'encrypt')] + moved[(False, 'decrypt')]):.2f}–{max(moved[(False, 'encrypt')] + moved[(False, 'decrypt')]):.2f}× "
                   "between the two runs (the busy machine's noise); AES-128's moved by "
                   f"{min(moved[(True, 'encrypt')]):.0f}–{max(moved[(True, 'encrypt')]):.0f}× encrypting and "
                   f"{min(moved[(True, 'decrypt')]):.0f}–{max(moved[(True, 'decrypt')]):.0f}× decrypting, per file.")
    w, wo = meta["with_aes_instructions"], meta["without_aes_instructions"]
    text = (f"**With and without AES instructions** (n = 1 run each, back to back on one machine: {meta['cpu']}, flags "
            f"{meta['cpu_aes_flags']}; load average {w['load_average_before']} before, {w['load_average_after']} between, "
            f"{wo['load_average_after']} after — a shared, busy machine, so the figures are provisional; "
            f"`{meta['script'].strip()}`, commit {meta['commit'][:10]}; raw JSON in `{soft_run.relative_to(ROOT)}/`). Without: the same "
            f"source built with {wo['build']} (the `aes` crate's documented switch to its portable fixsliced constant-time "
            f"code); the `openssl speed` anchor ran with OPENSSL_ia32cap={wo['OPENSSL_ia32cap']} (AES-NI and PCLMULQDQ "
            "masked). Each cell: the cipher's energy (= CPU time) as % of AES-128's, totals over the kind's files, and "
            "(per file, min–max); the study's claims pair Blowfish and RC6 with AES only:\n\n" + table +
            "\n\nRankings, cheapest first (study: Blowfish-128 ~16–24 % < RC6-128 ~51–93 % < AES-128 100 %):\n\n" + ranks +
            ("\n\n" + control.strip() if control else ""))
    return text, {"back": back, "percent": soft, "cpu": meta["cpu"]}


def _cipher_reading(rows: list[dict], bench: dict, soft: dict | None = None) -> str:
    """The ciphers' line of the reading: per-file ratio spreads against the study's claims, and
    what the run without AES instructions says of the explanation."""
    have = [r for r in rows if r["per_file"]]
    if not have:
        return "No AES-128-CBC / Blowfish / RC6 measurements in this run to compare with the study."
    parts = [f"{r['label']} {r['data']} {r['direction']}: {r['per_file'][0]:,.0f}–{r['per_file'][-1]:,.0f} % of AES-128's energy "
             f"per file (study ~{r['published_percent']} %)" for r in have]
    reversed_ = all(r["per_file"][0] > 100 for r in have)
    text = "; ".join(parts) + (". On every file the study's ranking (Blowfish and RC6 cheaper than AES) is **reversed**"
                               if reversed_ else ". The ranking holds on some files only") + f" ({bench['meta'].get('cpu')})."
    if soft is None:
        return text + (" The likely cause, this CPU's AES instructions, is **not measured**: the run has no AES without them "
                       "(the portable backend); one such run would measure it.")
    pc, back = soft["percent"], soft["back"]
    cases = "; ".join(f"{c} {k} {d} {pc[(c, k, d)][1][0]:,.0f}–{pc[(c, k, d)][1][-1]:,.0f} % (study ~{claim} %): {back[(c, k, d)]}"
                      for r in rows for c, k, d, claim in [(r["label"], r["data"], r["direction"], r["published_percent"])]
                      if (c, k, d) in back)
    returned = [key for key, v in back.items() if v == "returns"]
    return text + (f" Measured without AES instructions (portable AES, {soft['cpu']}, n = 1 run on a busy machine), per file as % "
                   f"of AES-128: {cases}. So the reversal is AES-NI's for " +
                   (", ".join(f"{c} {d}ion of {k}" for c, k, d in returned) if returned else "none of the study's cases") +
                   (f"; where the ranking stays reversed without AES-NI, the portable AES decrypts CBC's independent blocks "
                    "in parallel (fixslicing), which CBC encryption's chain cannot do." if len(returned) < len(back) else "."))


def hardware_section(out: Path, ctx: dict) -> str:
    data = load_raw(out, "hardware")
    if (msg := not_run(data, "hardware")):
        return msg
    if data["status"] != "ok":
        return f"*Not available: {data.get('error')}*"
    rows = json.loads((out / "raw" / data["json"]).read_text())
    ecp5 = {r["design"]: r for r in rows if r["target"] == "ecp5"}
    v4 = algredo_virtex4()

    parallel = parallel_speedups(ecp5)
    fig_path = hardware_figure(out, ecp5, v4, parallel)

    keys = ("luts", "ffs", "brams", "fmax_mhz", "cycles_per_frame_1500", "mbps_per_mhz", "gbps")
    body = [[r["design"], r["target"], *[num(r.get(k), "{:g}") for k in keys], num(frame_us(r), "{:.2f}"),
             num(r.get("toggles_per_frame"), "{:,}")] for r in rows]
    table = md_table(["design", "target", "LUTs", "FFs", "BRAMs", "Fmax MHz (median)", "cycles / 1500 B", "Mb/s per MHz", "Gb/s",
                      "µs / 1500 B", "toggles / frame"], body)
    layouts = (out / "raw" / data["layouts"]).read_text() if data.get("layouts") else \
        "*The published-layout tables were not imported (no LAYOUTS section in hdl/reports/README.md).*"
    core = ecp5.get("ccmp_core")
    ctx["hardware"] = {"core": core, "parallel": parallel, "v4": v4,
                       "multi": max((r for r in ecp5.values() if r["design"].startswith("ccmp_multi") and r.get("gbps")),
                                    key=lambda r: r["gbps"], default=None)}
    ctx["key_figures"].append((fig_path, "Left: a log-log scatter of throughput against LUT4s for every ECP5 design, squares "
                               "CCMP and circles AES alone, green with block RAM, the published Virtex-4 AES-CCMP core as a "
                               "black cross. Right: bars of each parallel core's speedup and area over the standard core, the "
                               "study's 3.7× speedup and 2.4× area as dashed lines.",
                               "**Hardware** (ECP5): throughput against area beside the published core, and the parallel cores "
                               "against the study's speedup.", "Hardware"))
    return (key_figure_link(fig_path) + "\n\nOurs: Fmax is the median over nextpnr placement seeds (Yosys + nextpnr; "
            "every seed, min–max, commit and tools in hdl/reports/), resources one deterministic synthesis; cycles from the "
            "cocotb benches, asserted on every frame and checked against vectors the `wlansec` CLI emits. `–`: not "
            "measured at the current RTL.\n\n" + details(f"Every design: {len(body)} rows", table) +
            f"\n\nPublished: {pub.HAYAJNEH}: FPGA parallel design {pub.HW_PARALLEL_NS:g} ns vs standard {pub.HW_STANDARD_NS:g} ns "
            f"({pub.HW_SPEEDUP}×) at {pub.HW_LE_RATIO}× the logic elements (Cyclone II); {ALGREDO}: {v4['Throughput (Gbps)']} Gb/s at "
            f"{v4['Clock (MHz)']} MHz in {v4['LUTs']} LUTs + {v4['BRAM']} BRAM.\n\n" +
            details("The same results in the published tables' layouts (from hdl/reports/README.md)", layouts))
