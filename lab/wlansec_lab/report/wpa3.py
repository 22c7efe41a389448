"""The report's WPA3 section: how long a station takes to join under each key management (the
`join` experiment, read from the air's capture) and what GCMP-256 costs against CCMP-128 in
throughput and RTT (the `cipher-cost` experiment), each with its significance."""

from __future__ import annotations

from pathlib import Path

from wlansec_lab import significance as sig
from wlansec_lab.experiments import CIPHER_COST_SIZE, GCMP256_PAIRS, PING_PAYLOAD, PINGS_PER_S
from wlansec_lab.joins import PHASES
from wlansec_lab.report.data import load_raw, point_runs, point_stat
from wlansec_lab.report.figures import join_figure
from wlansec_lab.report.render import figure, md_table, num
from wlansec_lab.stats import summarize

#: The key managements by their usual names; a mode not named here is shown as `wlan up` names it.
SECURITY_LABEL = {"ccmp": "WPA2-PSK", "sae": "WPA3-SAE", "owe": "OWE", "gcmp256": "WPA2-PSK (GCMP-256)",
                  "sae-ext": "WPA3-SAE-EXT-KEY (GCMP-256)"}
PWE_LABEL = {"hnp": "hunting-and-pecking", "h2e": "hash-to-element"}
#: The CCMP-128 mode every join is compared with.
BASELINE = "ccmp"


def method_label(p: dict) -> str:
    """“WPA3-SAE, hash-to-element”, “OWE”, …"""
    label = SECURITY_LABEL.get(p["security"], f"`{p['security']}`")
    return label + (f", {PWE_LABEL.get(p['sae_pwe'], p['sae_pwe'])}" if p.get("sae_pwe") else "")


def station_samples(data: dict) -> dict[str, dict[str, list[float]]]:
    """Per point (its JSON key), per time (`join_ms` and each phase's), every station's value in
    the kept runs: the join table's samples."""
    out: dict[str, dict[str, list[float]]] = {}
    for r in data["runs"]:
        if r.get("skipped") or r.get("error") or r["warmup"]:
            continue
        per = out.setdefault(sig.key(r["point"]), {})
        for s in r["metrics"].get("stations", []):
            for k in ("join_ms", *(f"{p}_ms" for p in PHASES)):
                per.setdefault(k, []).append(s[k])
    return out


def _order(p: dict) -> tuple:
    known = list(SECURITY_LABEL)
    return (p["stations"], known.index(p["security"]) if p["security"] in known else len(known), p["security"],
            list(PWE_LABEL).index(p["sae_pwe"]) if p.get("sae_pwe") in PWE_LABEL else 0)


def _welch_text(d: sig.Difference | None, fmt: str) -> str:
    return "—" if d is None else d.verdict(fmt).replace(" at 95 %", "")


def _against(d: sig.Difference, unit: str, fmt: str) -> str:
    """“+2.05 ms (95 % CI [+1.88, +2.22], significant, p < 0.001)”."""
    word = "significant" if d.significant else "not significant"
    return (f"{fmt.format(d.diff)} {unit} (95 % CI [{fmt.format(d.low)}, {fmt.format(d.high)}], {word}, "
            f"{sig.p_text(d.p)})")


def join_part(out: Path, ctx: dict) -> tuple[str, list[str]]:
    """The join figure and table, and the reading's lines on them."""
    data = load_raw(out, "join")
    if data is None:
        return "*Join time: not run (no `raw/join.json` in this results directory).*", []
    samples = station_samples(data)
    entries = sorted(data["summary"], key=lambda e: _order(e["point"]))
    rows, bars, lines = [], [], []
    for e in entries:
        p, got = e["point"], samples.get(sig.key(e["point"]), {})
        if not got:
            rows.append([method_label(p), p["stations"], 0, *["—"] * 8, e["skipped"] or "; ".join(e["errors"][:1]) or ""])
            continue
        s = summarize(got["join_ms"])
        base = samples.get(sig.key({**p, "security": BASELINE, "sae_pwe": None}), {}).get("join_ms", [])
        vs = sig.welch(base, got["join_ms"]) if p["security"] != BASELINE else None
        auth_share = 100 * sum(got["auth_ms"]) / sum(got["join_ms"])
        ci = s["ci95"]
        rows.append([method_label(p), p["stations"], s["n"], num(s["mean"], "{:.3f}"),
                     "—" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]", num(s["median"], "{:.3f}"),
                     *(num(sum(got[f"{ph}_ms"]) / s["n"], "{:.3f}") for ph in PHASES), f"{auth_share:.0f} %",
                     num(point_stat(e, "join_max_ms"), "{:.3f}"), _welch_text(vs, "{:+.3f}"), len(e["errors"]) or ""])
        bars.append((method_label(p), p["stations"], {ph: sum(got[f"{ph}_ms"]) / s["n"] for ph in PHASES},
                     s["mean"], ci))
        if vs is not None:
            lines.append(f"{method_label(p)} ({p['stations']} stations): {s['mean']:.2f} ms to join, {_against(vs, 'ms', '{:+.2f}')} "
                         f"against WPA2-PSK; its authentication exchange is {auth_share:.0f} % of the join")
    # H2E against hunting-and-pecking: the password element's derivation, the rest alike.
    for stations in sorted({e["point"]["stations"] for e in entries}):
        hnp, h2e = (samples.get(sig.key({"security": "sae", "sae_pwe": pwe, "stations": stations, "phy": entries[0]["point"]["phy"]}), {})
                    for pwe in ("hnp", "h2e"))
        d = sig.welch(hnp.get("auth_ms", []), h2e.get("auth_ms", []))
        if d is not None:
            lines.append(f"SAE's authentication exchange with hash-to-element against hunting-and-pecking ({stations} stations): "
                         f"{_against(d, 'ms', '{:+.3f}')}")
    text = ("**Join time**: from a station's first Authentication frame to the EAPOL-Key message 4 of 4 it sends (both ends "
            "have installed the pairwise key: the port is open), read from the capture of the bring-up (`wlan up --pcap`, "
            "dissected by tshark: the emulator stamps each frame with the host's monotonic clock at its start on the medium, "
            "so the times are real, every computation included). It is the sum of three phases: authentication (to the last "
            "Authentication frame before the Association Request: open system's two frames, or SAE's commit and confirm each "
            "way, where the password element and both scalars are computed), association (to the Association Response: "
            "OWE's Diffie–Hellman) and the 4-way handshake. Every run is a bring-up of its own in which all its stations "
            "join at once; n counts stations × runs (the stations of one bring-up share its medium and access point, so a "
            "quick run's interval, over one bring-up, is narrower than independent draws would give).\n\n")
    if bars:
        path = join_figure(out, bars)
        text += figure(path, "Horizontal stacked bars of the mean join time per key management and number of stations, "
                             "split into authentication, association and 4-way handshake, with the 95 % CI of the join "
                             "time as an error bar.",
                       "Join time by key management: its phases' means stacked, the join time's 95 % CI as the error bar.") + "\n\n"
    text += md_table(["method", "stations", "n", "join ms", "95% CI", "median", "auth ms", "assoc ms", "4-way ms",
                      "auth share", "slowest station ms (mean)", "this − WPA2-PSK ms [95% CI], Welch", "errors"], rows)
    return text, lines


def cipher_part(out: Path, ctx: dict) -> tuple[str, list[str]]:
    """The cipher-cost table: each GCMP-256 mode against the CCMP-128 mode of its key management,
    and the reading's lines on it."""
    data = load_raw(out, "cipher-cost")
    if data is None:
        return "*Cipher cost: not run (no `raw/cipher-cost.json` in this results directory).*", []
    by = {e["point"]["security"]: e for e in data["summary"] if e["n"]}
    phy = data["summary"][0]["point"]["phy"] if data["summary"] else "?"
    rows, lines, missing = [], [], []

    def runs(security, metric):
        return point_runs(out, ctx, "cipher-cost", by[security]["point"], metric) if security in by else []

    def cell(security, metric, fmt):
        e = by.get(security)
        if not e:
            return "not in this run"
        s = e["metrics"][metric]
        return num(s["mean"], fmt) + (f" ± {fmt.format((s['ci95'][1] - s['ci95'][0]) / 2)}" if s["ci95"] else "")
    for gcmp, ccmp in GCMP256_PAIRS.items():
        if ccmp not in by and gcmp not in by:
            continue
        dt = sig.welch(runs(ccmp, "iperf3_mbps"), runs(gcmp, "iperf3_mbps"))
        dr = sig.welch(runs(ccmp, "ping_rtt_ms"), runs(gcmp, "ping_rtt_ms"))
        n = "/".join(str(by[s]["n"]) if s in by else "0" for s in (ccmp, gcmp))
        rows.append([SECURITY_LABEL.get(ccmp, ccmp), f"`{ccmp}` vs `{gcmp}`", n, cell(ccmp, "iperf3_mbps", "{:.2f}"),
                     cell(gcmp, "iperf3_mbps", "{:.2f}"), _welch_text(dt, "{:+.2f}"), cell(ccmp, "ping_rtt_ms", "{:.3f}"),
                     cell(gcmp, "ping_rtt_ms", "{:.3f}"), _welch_text(dr, "{:+.3f}")])
        if gcmp not in by:
            missing.append(f"`{gcmp}` (GCMP-256 under {SECURITY_LABEL.get(ccmp, ccmp)})")
        elif dt is not None:
            lines.append(f"GCMP-256 against CCMP-128 under {SECURITY_LABEL.get(ccmp, ccmp)}: throughput "
                         f"{_against(dt, 'Mbit/s', '{:+.2f}')}, RTT {_against(dr, 'ms', '{:+.3f}')}")
    # The control: the same cipher (CCMP-128) under either key management carries data alike.
    if "ccmp" in by and "sae" in by:
        dt = sig.welch(runs("ccmp", "iperf3_mbps"), runs("sae", "iperf3_mbps"))
        dr = sig.welch(runs("ccmp", "ping_rtt_ms"), runs("sae", "ping_rtt_ms"))
        rows.append(["control: WPA3-SAE vs WPA2-PSK, both CCMP-128", "`ccmp` vs `sae`", f"{by['ccmp']['n']}/{by['sae']['n']}",
                     cell("ccmp", "iperf3_mbps", "{:.2f}"), cell("sae", "iperf3_mbps", "{:.2f}"), _welch_text(dt, "{:+.2f}"),
                     cell("ccmp", "ping_rtt_ms", "{:.3f}"), cell("sae", "ping_rtt_ms", "{:.3f}"), _welch_text(dr, "{:+.3f}")])
    untested = all(e["n"] < 2 for e in by.values())
    text = (f"**Cipher cost** on the same medium and PHY (`{phy}`, stations' crypto `hw`): TCP throughput (iperf3, "
            f"{CIPHER_COST_SIZE}-octet writes, after its slow-start second) and ping's mean RTT ({PING_PAYLOAD}-octet payloads, {PINGS_PER_S} a second) between the two "
            "stations through the access point, with the second mode's figure minus the first's by Welch's t-test "
            "(95 % CI, t, two-sided p). GCMP-256's MIC is 16 octets where CCMP-128's is 8, its key 256 bits.\n\n" +
            md_table(["key management", "modes", "n", "first Mbit/s", "second Mbit/s", "second − first Mbit/s [95% CI], Welch",
                      "first RTT ms", "second RTT ms", "second − first RTT ms [95% CI], Welch"], rows))
    if missing:
        text += f"\n\nNot in this run: {', '.join(missing)}."
    if untested:
        text += ("\n\n> No difference here can be tested: a quick run has one run per point. A full run (`make lab`, "
                 "40 runs per point) tests each.")
    return text, lines


def wpa3_section(out: Path, ctx: dict) -> str:
    joins, join_lines = join_part(out, ctx)
    ciphers, cipher_lines = cipher_part(out, ctx)
    if load_raw(out, "join") is None and load_raw(out, "cipher-cost") is None:
        return "*Not run: no `raw/join.json` or `raw/cipher-cost.json` in this results directory.*"
    ctx["wpa3"] = join_lines + cipher_lines
    reading = ("**Reading.**\n\n" + "\n".join(f"- {line}." for line in join_lines + cipher_lines)) if join_lines or cipher_lines else (
        "**Reading.** Nothing here can be compared yet: the comparisons need two samples per point or more.")
    return (joins + "\n\n" + ciphers + "\n\n" + reading + "\n\n" +
            "These measurements have no published counterpart: the studies the answers table quotes predate WPA3 "
            "(2018), so the table has no row for them.")

