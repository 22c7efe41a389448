"""The experiment matrix: per experiment its axes (full and --quick), what one run measures on
the testbed or which bench it imports, the testbed configuration of a point, and how long a
run should take (for the plan's ETA). The runner (`wlansec_lab.runner`) schedules, records and
summarizes these runs; the tidy table (`wlansec_lab.tidy`) takes its columns from the axes.

Experiments: video, tcp, files, join, cipher-cost (network, on a testbed), ccmp-bench, ciphers,
hardware (import the benches' JSON)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from wlansec_lab import ROOT, joins, traffic
from wlansec_lab.testbed import Testbed

STUDY_SIZES = [128, 384, 640, 896, 1152, 1408]


@dataclass
class Context:
    #: The network the runs use; in a cluster run only the description of the workers' testbeds
    #: (its kind and settings go into the plan), never brought up on the client.
    testbed: Testbed | None
    wlansec: str
    out: Path
    quick: bool
    seconds: float
    cache: dict = field(default_factory=dict)
    #: (round, plan seed) the testbed's configuration was brought up for: a new round brings it up afresh.
    up_round: tuple[int, int] | None = None


@dataclass
class Experiment:
    name: str
    title: str
    axes: dict          # full matrix: axis → values
    quick_axes: dict    # --quick overrides
    measure: Callable[[Context, dict], dict] | None = None
    network: Callable[[dict], dict] | None = None   # point → testbed configuration
    bench: Callable[[Context], dict] | None = None  # run-once import of a bench
    valid: Callable[[dict], bool] | None = None     # drops combinations that mean nothing
    #: Estimated wall seconds of one run of a point (of the bench: point None) for the plan's
    #: ETA, from ctx.seconds and quick.
    estimate: Callable[[float, bool, dict | None], float] = lambda seconds, quick, point: seconds

    def points(self, quick: bool) -> list[dict]:
        axes = {**self.axes, **(self.quick_axes if quick else {})}
        combos = (dict(zip(axes, combo)) for combo in itertools.product(*axes.values()))
        return [p for p in combos if self.valid is None or self.valid(p)]


# ---- network experiments -------------------------------------------------------------------

#: The stations' card models (`wlansec wlan up --card`): `hw`, crypto in the card's hardware at
#: line rate, and `mcu:88`, the portable software suite on the card's embedded CPU at 88 MHz:
#: the clock the Atheros AR9170 (2008, an 802.11n USB client chip of the studies' era) runs
#: its CPU at (`AHB_80_88MHZ` in its open carl9170 firmware and Linux/OpenBSD drivers).
CARDS = ["hw", "mcu:88"]
#: Modes whose crypto the card does; open has none and Enhanced runs on the host engine, so
#: for those the card model changes nothing and they are measured once (card `hw`).
CARD_SECURITIES = ("wep", "tkip", "ccmp")
#: The hardware access point: a `verilog:MHZ` value of the card axis puts the access point's
#: CCMP on the verilated RTL (`wlan up --ap-crypto verilog:MHZ`, stations `hw`): every frame it
#: seals or opens is the design's output, its cycles at MHZ the crypto time on the medium.
VERILOG = "verilog:"
#: The 2008-era clock beside the design's own Fmax: 50 MHz, the oscillator of the era's FPGA
#: starter boards (Digilent's Spartan-3 and Spartan-3E kits).
VERILOG_ERA_MHZ = 50
#: The RTL's simulation is slower than the air (a quick run: ~4,600 frames sealed or opened per
#: second of wall time under TCP, segments and ACKs, 24 Mbit/s where the host engine carries
#: ~50): TCP through it is bounded by the simulation, so it is measured at the study's largest
#: size only.
VERILOG_TCP_SIZE = 1408


def design_fmax_mhz() -> float | None:
    """The median Fmax of ccmp_core over its place-and-route seeds (hdl/reports/summary.json);
    None where the hardware bench has not run."""
    src = ROOT / "hdl" / "reports" / "summary.json"
    if not src.exists():
        return None
    core = next((r for r in json.loads(src.read_text()) if r["design"] == "ccmp_core"), None)
    return core["fmax_mhz"] if core and core.get("fmax_mhz") else None


def verilog_cards() -> list[str]:
    """The hardware access point's clocks: the design's median Fmax and the 2008-era clock."""
    fmax = design_fmax_mhz()
    return [f"{VERILOG}{fmax:g}"] * (fmax is not None) + [f"{VERILOG}{VERILOG_ERA_MHZ}"]


def verilog_mhz(card: str) -> float | None:
    """The RTL's clock of a `verilog:MHZ` card-axis value; None for the stations' card models."""
    return float(card.removeprefix(VERILOG)) if card.startswith(VERILOG) else None


def crypto_config(card: str) -> dict:
    """The testbed options of a card-axis value: the stations' card, or the access point's RTL."""
    return {"card": "hw", "ap_crypto": card} if verilog_mhz(card) else {"card": card}


def _card_applies(p: dict) -> bool:
    if verilog_mhz(p["card"]):  # the RTL is CCMP's
        return p["security"] == "ccmp" and p.get("size", VERILOG_TCP_SIZE) == VERILOG_TCP_SIZE
    return p["card"] == "hw" or p["security"] in CARD_SECURITIES


def set_cards(cards: list[str]) -> None:
    """The card axis of every experiment that has one (`hw` always stays: open and Enhanced run on it)."""
    cards = ["hw", *[c for c in cards if c != "hw"]]
    for e in EXPERIMENTS.values():
        if "card" in e.axes:
            e.axes = {**e.axes, "card": cards}
            if "card" in e.quick_axes:
                e.quick_axes = {**e.quick_axes, "card": cards}


def _video_network(p: dict) -> dict:
    return {"security": p["security"], "phy": p["phy"], **crypto_config(p["card"])}


def rtl_crypto_frames(ctx: Context, p: dict) -> int | None:
    """Frames the access point's RTL has sealed or opened since the bring-up (`wlan status`);
    None where the point's access point is not the RTL."""
    status = ctx.testbed.status() if verilog_mhz(p["card"]) else None
    if status is None:
        return None
    return next(n for n in status["nodes"] if n["role"] == "ap")["crypto_frames"]


def with_rtl_speed(ctx: Context, p: dict, measure: Callable[[], dict]) -> dict:
    """`measure()`'s metrics, and on the RTL access point the simulation's own speed over the
    run: frames the RTL sealed or opened per second of wall time (`rtl_frames_per_s`)."""
    before, started = rtl_crypto_frames(ctx, p), time.monotonic()
    metrics = measure()
    if before is not None:
        metrics["rtl_frames_per_s"] = (rtl_crypto_frames(ctx, p) - before) / (time.monotonic() - started)
    return metrics


def _video(ctx: Context, p: dict) -> dict:
    return with_rtl_speed(ctx, p, lambda: traffic.video(ctx.testbed, p["ip"], p["profile"], ctx.seconds))


def _tcp_network(p: dict) -> dict:
    return {"security": p["security"], "phy": p["phy"], **crypto_config(p["card"])}


def _tcp_seconds(seconds: float) -> int:
    """Seconds of each TCP tool run (iperf3 once, qperf twice: tcp_bw and tcp_lat)."""
    return max(1, round(seconds / 2))


def _tcp(ctx: Context, p: dict) -> dict:
    return with_rtl_speed(ctx, p, lambda: _tcp_tools(ctx, p))


def _tcp_tools(ctx: Context, p: dict) -> dict:
    seconds = _tcp_seconds(ctx.seconds)
    ip = traffic.iperf3_tcp(ctx.testbed, p["ip"], p["size"], seconds)
    qp = traffic.qperf(ctx.testbed, p["ip"], p["size"], seconds)
    return {"iperf3_mbps": ip["throughput_mbps"], "iperf3_srtt_ms": ip["srtt_ms"], "iperf3_retransmits": ip["retransmits"],
            "qperf_mbps": qp["tcp_bw_mbps"], "qperf_rtt_ms": qp["rtt_ms"]}


def _files_network(p: dict) -> dict:
    return {"security": p["security"], "phy": "g54", "topology": p["topology"], "signal": p["signal"]}


def data_files(ctx: Context) -> Path:
    """The study's text and video files, written by `wlansec bench ciphers --write-data`."""
    d = ctx.out / "data"
    if not (d / ".complete").exists():
        d.mkdir(parents=True, exist_ok=True)
        subprocess.run([ctx.wlansec, "bench", "ciphers", "--write-data", str(d)], check=True, capture_output=True, timeout=300)
        (d / ".complete").write_text("")
    return d


def _file_path(ctx: Context, name: str) -> Path:
    matches = sorted(p for p in data_files(ctx).iterdir() if p.stem == name or p.name.startswith(name))
    if not matches:
        raise FileNotFoundError(f"data file {name} not written by wlansec bench ciphers --write-data")
    return matches[0]


#: Transfer rate (Mbit/s) of a file per (topology, signal) on g54, for the ETA only: measured with
#: the study's largest file, text-7139KB, open (2026-11-21).
FILE_RATE_MBPS = {("bss", "excellent"): 11.3, ("bss", "poor"): 3.6, ("ibss", "excellent"): 22.8, ("ibss", "poor"): 7.4}


def file_kb(name: str) -> float:
    """The size in the study's file name (`text-321KB` → 321)."""
    return float(name.rsplit("-", 1)[1].removesuffix("KB"))


def _files_estimate(p: dict) -> float:
    size = file_kb(p["file"]) * 1e3
    return RUN_OVERHEAD_S["files"] + size * 8 / (FILE_RATE_MBPS[(p["topology"], p["signal"])] * 1e6)


def _files(ctx: Context, p: dict) -> dict:
    # The link carries ciphertext; its cost depends on the length only (no compression on the
    # air), and CBC adds at most one block, so the plaintext file stands for every cipher's.
    return traffic.file_transfer(ctx.testbed, 4, _file_path(ctx, p["file"]))


# ---- WPA3: join time and cipher cost ------------------------------------------------------

#: The GCMP-256 modes of `wlan up --security`, each with its CCMP-128 counterpart of the same
#: key management: PSK (`gcmp256`) and SAE-EXT-KEY (`sae-ext`, AKM 24).
GCMP256_PAIRS = {"gcmp256": "ccmp", "sae-ext": "sae"}
#: Those the WPA3 experiments run, full and quick.
GCMP256_SECURITIES = list(GCMP256_PAIRS)
#: The password element's derivations SAE is joined with (`wlan up --sae-pwe`); the other modes,
#: `sae-ext` included, join with `wlan up`'s default.
SAE_PWES = ["hnp", "h2e"]


def _join_applies(p: dict) -> bool:
    return (p["sae_pwe"] is not None) == (p["security"] == "sae")


def _join_network(p: dict) -> dict:
    # Every run is a bring-up of its own, recorded on the air: the join is what it measures.
    return {"security": p["security"], "phy": p["phy"], "stations": p["stations"], "capture": True,
            **({"sae_pwe": p["sae_pwe"]} if p["sae_pwe"] else {})}


def _join(ctx: Context, p: dict) -> dict:
    """The joins of the bring-up this run's configuration was brought up by, read from its capture
    (`wlansec_lab.joins`). Taking the WLAN down writes the capture out, and the next run of the
    configuration joins afresh."""
    ctx.testbed.down()
    try:
        found = joins.joins(joins.frames(ctx.testbed.capture_path))
    finally:
        ctx.testbed.capture_path.unlink(missing_ok=True)
    if len(found) != p["stations"]:
        raise joins.CaptureError(f"{len(found)} of {p['stations']} stations joined in the capture")
    return joins.metrics(found)


def _cipher_cost_network(p: dict) -> dict:
    return {"security": p["security"], "phy": p["phy"]}


#: cipher-cost: TCP's write size (the study's largest, as the RTL's TCP rows) and the ping's
#: payload (an IPv4 packet of 1428 octets, the size of those segments on the air).
CIPHER_COST_SIZE, PING_PAYLOAD = 1408, 1400
#: Echo requests per second of ping (one every 50 ms).
PINGS_PER_S = 20


def _cipher_cost(ctx: Context, p: dict) -> dict:
    ip = traffic.iperf3_tcp(ctx.testbed, 4, CIPHER_COST_SIZE, _tcp_seconds(ctx.seconds))
    rtt = traffic.ping(ctx.testbed, 4, PING_PAYLOAD, max(5, round(PINGS_PER_S * _tcp_seconds(ctx.seconds))), 1 / PINGS_PER_S)
    return {"iperf3_mbps": ip["throughput_mbps"], "iperf3_retransmits": ip["retransmits"],
            "ping_rtt_ms": rtt["rtt_ms"], "ping_loss_percent": rtt["loss_percent"]}


# ---- bench imports -------------------------------------------------------------------------

def _run_bench(ctx: Context, name: str, argv: list[str], timeout: float) -> dict:
    path = ctx.out / "raw" / f"{name}.bench.json"
    started = time.monotonic()
    done = subprocess.run([ctx.wlansec, *argv, "--json", str(path)], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        return {"status": "failed", "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return {"status": "ok", "json": path.name, "seconds": time.monotonic() - started, "table": done.stdout[-6000:]}


def _ccmp_bench(ctx: Context) -> dict:
    return _run_bench(ctx, "ccmp-bench", ["bench", "ccmp", *(["--quick"] if ctx.quick else [])], 1800)


QUICK_FILES = ["text-321KB", "video-4006KB"]


def _ciphers(ctx: Context) -> dict:
    quick = ["--files", ",".join(QUICK_FILES), "--repeats", "1", "--no-sweep", "--no-openssl"] if ctx.quick else []
    result = _run_bench(ctx, "ciphers", ["bench", "ciphers", *quick], 3600)
    if result["status"] == "ok":
        from wlansec_lab import ciphers
        plots = ciphers.run(ctx.out / "raw" / result["json"], ctx.out / "figures" / "ciphers")
        result["ratios"], result["reading"] = plots["ratios"], plots["reading"]
        result["plots"] = [str(p.relative_to(ctx.out)) for p in plots["plots"]]
    return result


def _hardware(ctx: Context) -> dict:
    """The hardware benches' rows (hdl/reports/summary.json) and their tables in the published
    layouts (hdl/reports/README.md, between the LAYOUTS markers, written by hdl/syn/report.py)."""
    reports = ROOT / "hdl" / "reports"
    src = reports / "summary.json"
    if not src.exists():
        return {"status": "absent", "error": f"{src.relative_to(ROOT)} not present (the hardware bench has not run here)"}
    shutil.copy(src, ctx.out / "raw" / "hardware.bench.json")
    result = {"status": "ok", "json": "hardware.bench.json"}
    readme = (reports / "README.md").read_text() if (reports / "README.md").exists() else ""
    if "<!-- LAYOUTS -->" in readme and "<!-- /LAYOUTS -->" in readme:
        layouts = readme.split("<!-- LAYOUTS -->", 1)[1].split("<!-- /LAYOUTS -->", 1)[0].strip()
        (ctx.out / "raw" / "hardware.layouts.md").write_text(layouts + "\n")
        result["layouts"] = "hardware.layouts.md"
    return result


SECURITIES = ["open", "wep", "tkip", "ccmp", "enhanced"]
#: Wall seconds of one run beyond its traffic (tool start-up, servers, status, its share of the
#: bring-ups), and of one WLAN bring-up, measured on this project's 2-core machine
#: (`wlansec-lab run -e video,tcp --quick --seconds 3|10`, 2026-11-21): video 3.5 s at 3 s and
#: 11.2 s at 10 s of traffic, TCP 7.9 s at 2 s and 16.9 s at 5 s per tool, a bring-up 0.2–1.3 s.
VIDEO_SECONDS_FACTOR = 1.1
RUN_OVERHEAD_S = {"video": 0.2, "tcp": 0.9, "files": 0.6, "join": 0.6, "cipher-cost": 0.9}
WLAN_UP_S = 0.3
EXPERIMENTS = {e.name: e for e in [
    Experiment("ccmp-bench", "CCMP engines on the host (wlansec bench ccmp)", {}, {}, bench=_ccmp_bench,
               estimate=lambda s, quick, p: 2 if quick else 5),
    Experiment("ciphers", "Ciphers on the study's files (wlansec bench ciphers)", {}, {}, bench=_ciphers,
               estimate=lambda s, quick, p: 18 if quick else 240),
    Experiment("hardware", "CCMP hardware cores (hdl/reports/summary.json)", {}, {}, bench=_hardware,
               estimate=lambda s, quick, p: 0),
    # --quick: one profile (the variable-rate "high" stream) with every mode × card: the card
    # models are the point of the comparison, the second rate doubles the time. The RTL access
    # point at both clocks (WPA2 only: 2 points, ~14 s with the warm-up).
    Experiment("video", "HD video between two stations through the AP: delay, jitter, loss",
               {"security": SECURITIES, "card": CARDS + verilog_cards(), "profile": ["cbr-high", "vbr-high", "vbr-very-high"], "phy": ["g54"], "ip": [4]},
               {"profile": ["vbr-high"]}, measure=_video, network=_video_network, valid=_card_applies,
               estimate=lambda s, quick, p: VIDEO_SECONDS_FACTOR * s + RUN_OVERHEAD_S["video"]),
    # --quick: IPv4 only, the smallest and largest size, open and WPA2 on both cards: the card ×
    # packet-size interaction is what the quick run must show; IPv6 differs by ~2% in the study.
    # The RTL access point at its Fmax only (1 point, ~16 s with the warm-up).
    Experiment("tcp", "TCP throughput and RTT vs packet size, IPv4/IPv6, open vs WPA2",
               {"security": ["open", "ccmp"], "card": CARDS + verilog_cards(), "ip": [4, 6], "size": STUDY_SIZES, "phy": ["n-mcs7-40"]},
               {"ip": [4], "size": [128, 1408], "card": CARDS + verilog_cards()[:1]}, measure=_tcp, network=_tcp_network, valid=_card_applies,
               estimate=lambda s, quick, p: 3 * _tcp_seconds(s) + traffic.IPERF_OMIT_S + RUN_OVERHEAD_S["tcp"]),
    Experiment("files", "Transmission time of the study's files: open/WEP/TKIP, ad hoc/infrastructure, signal",
               {"security": ["open", "wep", "tkip"], "topology": ["ibss", "bss"], "signal": ["excellent", "poor"],
                "file": ["text-321KB", "text-694KB", "text-1327KB", "text-2492KB", "text-4211KB", "text-7139KB",
                         "video-4006KB", "video-4415KB", "video-5073KB"]},
               {"file": ["text-321KB"]}, measure=_files, network=_files_network,
               estimate=lambda s, quick, p: _files_estimate(p)),
    # --quick: four stations, every mode once (~10 s): four joins per mode for its CI. The full
    # run has two, four and eight stations joining at once. A run is one bring-up: its
    # stations' joins, read from its capture.
    Experiment("join", "WPA3: join time (first Authentication to EAPOL-Key 4/4) by key management",
               {"security": ["ccmp", "sae", "owe", *GCMP256_SECURITIES], "sae_pwe": [*SAE_PWES, None], "stations": [2, 4, 8], "phy": ["g54"]},
               {"stations": [4]}, measure=_join, network=_join_network, valid=_join_applies,
               estimate=lambda s, quick, p: RUN_OVERHEAD_S["join"] + 0.1 * p["stations"]),
    # --quick: the same points, one run each (~20 s, ~40 s with the GCMP-256 modes).
    Experiment("cipher-cost", "WPA3: TCP throughput and RTT with CCMP-128 vs GCMP-256",
               {"security": ["ccmp", "sae", *GCMP256_SECURITIES], "phy": ["n-mcs7-40"]},
               {}, measure=_cipher_cost, network=_cipher_cost_network,
               estimate=lambda s, quick, p: 2 * _tcp_seconds(s) + traffic.IPERF_OMIT_S + RUN_OVERHEAD_S["cipher-cost"]),
]}
