"""The published figures the report sets beside ours, typed in as data with their source.
Every value is from `lab/published/*.json` (transcribed from the papers' text; see its README)."""

from __future__ import annotations

import json
import re

from wlansec_lab import PUBLISHED

LI_KOLAHI = "Li, Kolahi, Safdari, Argawe, “Effect of WPA2 Security on IEEE 802.11n Bandwidth and Round Trip Time in Peer-Peer WLANs” (lab/published/li_kolahi_wpa2_80211n.json)"
HAYAJNEH = "Hayajneh, Ullah, Mohd, Balagani, “An Enhanced WLAN Security System With FPGA Implementation for Multimedia Applications”, IEEE Systems Journal (lab/published/hayajneh_enhanced_wlan_security.json)"
CIPHER_2009 = "Int. J. Computer Theory and Engineering 1(4), Oct. 2009, cipher power study (lab/published/cipher_power_wireless_2009.json)"

#: TCP on 802.11n peer-peer through an AP, Fedora 12 (Linux, like ours), packet sizes 128–1408.
TCP_RANGES = {  # (security, ip) → ((Mbit/s low, high), (RTT ms low, high))
    ("open", 4): ((40.86, 48.27), (1.20, 1.44)),
    ("open", 6): ((39.76, 47.88), (1.24, 1.52)),
    ("ccmp", 4): ((37.31, 46.11), (1.30, 1.64)),
    ("ccmp", 6): ((36.59, 45.14), (1.40, 1.73)),
}
#: "enabling WPA2 causes 3 Mbps less TCP throughput and 0.20 ms more TCP RTT ... on Fedora 12";
#: Windows 7: "approximately 2.8 Mbps less ... and 0.18 ms more delay".
TCP_WPA2_COST = {"fedora": (3.0, 0.20), "windows": (2.8, 0.18)}

#: Video through the AP (Fig. 7 prose): delay and jitter relative to disabled security.
VIDEO_RATIO = {"enhanced": 1.20, "ccmp": 2.0}
VIDEO_QUOTES = {
    "enhanced": "our Enhanced-WPA2 system only increased the delay and jitter values by approximately 20% compared with the disabled-security case",
    "ccmp": "WPA2 has almost doubled the values of the delay and the jitter",
}

#: The FPGA figures of the study's access point (standard vs parallel CBC-MAC/CTR design).
def hayajneh_claim(quantity: str) -> float:
    study = json.loads((PUBLISHED / "hayajneh_enhanced_wlan_security.json").read_text())
    return next(c["value"] for c in study["claims"] if c["quantity"] == quantity)


HW_STANDARD_NS = hayajneh_claim("Total time, standard FPGA design")
HW_PARALLEL_NS = hayajneh_claim("Total time, parallel FPGA design")
HW_SPEEDUP = hayajneh_claim("Speedup ratio of parallel vs standard FPGA design")
HW_LE_RATIO = hayajneh_claim("Logic elements of the parallel design relative to the standard design")

MODE_LABEL = {"open": "Open", "wep": "WEP", "tkip": "WPA1 (TKIP)", "ccmp": "WPA2 (CCMP)", "enhanced": "Enhanced (host CCMP)"}


def tcp_std_table() -> dict:
    """Table 1 (throughput, Mbit/s) and Table 2 (RTT, ms) standard deviations over 40 runs,
    Fedora 12 columns: {(metric, security, ip, size): std}."""
    study = json.loads((PUBLISHED / "li_kolahi_wpa2_80211n.json").read_text())
    out = {}
    for table, metric in (("Table 1", "throughput"), ("Table 2", "rtt")):
        t = next(t for t in study["tables"] if t["id"] == table)
        for col, name in enumerate(t["columns"][1:], start=1):
            os_, sec, ip = (s.strip() for s in name.split("/"))
            if os_ != "Fedora 12":
                continue
            key_sec = "open" if sec == "Open System" else "ccmp"
            for row in t["rows"]:
                out[(metric, key_sec, int(ip[-1]), row[0])] = row[col]
    return out


def cipher_transfer_tables() -> dict:
    """Tables II (text) and III (video): seconds per algorithm, columns 1–5 as printed."""
    study = json.loads((PUBLISHED / "cipher_power_wireless_2009.json").read_text())
    return {t["id"]: {r[0]: r[1:] for r in t["rows"]} for t in study["tables"] if t["id"] in ("Table II", "Table III")}


def tcp_wpa2_cost_points() -> dict:
    """The study's per-size WPA2 costs (Fedora 12, the maxima its prose names with their packet
    sizes): {(metric, ip, size): value}, metric "throughput" (Mbit/s less) or "rtt" (ms more)."""
    study = json.loads((PUBLISHED / "li_kolahi_wpa2_80211n.json").read_text())
    out = {}
    for c in study["claims"]:
        q, cond = c["quantity"], c["condition"]
        metric = ("throughput" if q.startswith("TCP throughput of open system above WPA2") else
                  "rtt" if q.startswith("TCP RTT of open system below WPA2") else None)
        if metric is None or "Fedora 12" not in cond:
            continue
        sizes = re.search(r"packet sizes? ([\d and]+) bytes", cond)[1]
        for size in re.findall(r"\d+", sizes):
            out[(metric, int(q[-1]), int(size))] = c["value"]
    return out


def tcp_ip_difference_claims() -> list[dict]:
    """The study's largest IPv4 − IPv6 differences (Fedora 12): metric, security, size, value."""
    study = json.loads((PUBLISHED / "li_kolahi_wpa2_80211n.json").read_text())
    out = []
    for c in study["claims"]:
        if not c["quantity"].startswith("Maximum IPv4–IPv6 TCP") or "Fedora 12" not in c["condition"]:
            continue
        out.append({"metric": "throughput" if "throughput" in c["quantity"] else "rtt",
                    "security": "open" if "open system" in c["condition"] else "ccmp",
                    "size": int(re.search(r"packet size (\d+)", c["condition"])[1]), "value": c["value"]})
    return out
