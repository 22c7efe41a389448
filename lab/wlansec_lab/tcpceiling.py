"""Where the lab's TCP throughput station → station stands against the emulator's one-hop
saturation: measure the candidates side by side on one WLAN (root), and set them beside the
airtime model at the WLAN's A-MPDU size.

    python -m wlansec_lab.tcpceiling [--phy n-mcs7-40] [--security open] [--ampdu N] [--json out.json]

Rows: iperf3 TCP station → station (the lab's path, two hops through the AP) at several run
lengths and write sizes; qperf tcp_bw; UDP saturation station → station and station → AP
(one hop, what `scripts/wlan-bench.py` reports); TCP station → AP; the CPU time the emulator's
supervisor and the traffic tools used during the run, against the wall time; the mean MPDUs
per A-MPDU the medium sent during the run (its counters). The model rows are the airtime a TCP
segment and its share of a delayed ACK take over two hops, with every MPDU in a full A-MPDU of
the size the WLAN runs with (`wlan status`; an upper bound: a TCP window need not fill one),
and without aggregation.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from wlansec_lab import traffic
from wlansec_lab.testbed import Node, WlanTestbed

MSS_FRAME_IP_BYTES, ACK_IP_BYTES = 1500, 52


def _model(wlansec: str, security: str, phy: str, ip_bytes: int, ampdu: int) -> float:
    """Seconds per frame of `ip_bytes` for one saturated sender sending `ampdu` MPDUs per
    A-MPDU (`wlansec wlan model`, the emulator's airtime model)."""
    out = json.loads(subprocess.run([wlansec, "wlan", "model", "--security", security, "--phy", phy, "--ip-bytes", str(ip_bytes),
                                     "--ampdu", str(ampdu)], capture_output=True, text=True, check=True).stdout)
    return ip_bytes * 8 / out["throughput_bps"]


def model(wlansec: str, security: str, phy: str, ampdu: int) -> dict:
    """The airtime model's UDP and TCP ceilings, one hop and two, at `ampdu` MPDUs per A-MPDU."""
    data, ack = (_model(wlansec, security, phy, b, ampdu) for b in (MSS_FRAME_IP_BYTES, ACK_IP_BYTES))
    # Every 1448-byte segment crosses the air twice; a delayed ACK (one per two segments) too.
    return {"ampdu": ampdu, "data_frame_us": data * 1e6, "ack_frame_us": ack * 1e6, "udp_one_hop_mbps": 1472 * 8 / data / 1e6,
            "udp_two_hop_mbps": 1472 * 8 / data / 2e6, "tcp_two_hop_mbps": 1448 * 8 / (2 * data + ack) / 1e6,
            "tcp_one_hop_mbps": 1448 * 8 / (data + ack / 2) / 1e6}


def _cpu_seconds(name: str) -> float:
    """CPU seconds so far of the traffic tools (our waited-for children) and of this WLAN's
    emulator processes (`wlansec wlan run/supervise --name NAME`); other work on the machine
    is not counted."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = used.ru_utime + used.ru_stime
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            argv = (stat.parent / "cmdline").read_bytes().split(b"\0")
            if b"wlan" in argv and argv[argv.index(b"--name") + 1].decode() == name:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            continue
    return total


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wlansec", default=os.environ.get("WLANSEC", "target/release/wlansec"))
    p.add_argument("--phy", default="n-mcs7-40")
    p.add_argument("--security", default="open")
    p.add_argument("--ampdu", type=int, help="MPDUs per A-MPDU (`wlan up --ampdu`; default the emulator's: 32 on HT/VHT)")
    p.add_argument("--json")
    a = p.parse_args(argv)
    tb = WlanTestbed(a.wlansec, name="tcpc")
    rows = []

    per_ampdu: list[float | None] = []  # mean MPDUs per A-MPDU of the last timed run

    def row(what: str, mbps: float, wall: float, cpu: float, **extra) -> None:
        rows.append({"what": what, "mbps": mbps, "cpu_share": cpu / wall, "mpdus_per_ampdu": per_ampdu[-1], **extra})
        agg = f"{per_ampdu[-1]:4.1f}" if per_ampdu[-1] else "   —"
        print(f"{what:<64} {mbps:7.2f} Mbit/s   emulator + tools CPU {cpu / wall * 100:5.1f}% of one core, "
              f"{agg} MPDUs per A-MPDU", flush=True)

    def aggregated() -> tuple[int, int]:
        medium = tb.status()["medium"]
        return medium["ampdus"], medium["ampdu_mpdus"]

    def timed(fn):
        (a0, m0), w0, c0 = aggregated(), time.monotonic(), _cpu_seconds(tb.name)
        result = fn()
        wall, cpu = time.monotonic() - w0, _cpu_seconds(tb.name) - c0
        a1, m1 = aggregated()
        per_ampdu.append((m1 - m0) / (a1 - a0) if a1 > a0 else None)
        return result, wall, cpu

    try:
        tb.ensure({"security": a.security, "phy": a.phy, **({"ampdu": str(a.ampdu)} if a.ampdu else {})})
        status = tb.status()
        ampdu = status["ampdu"]
        ap = next(n for n in status["nodes"] if n["role"] == "ap")
        ap_node = Node("ap", ap["namespace"], ap["interface"], ap["ipv4"], ap["ipv6"])
        for seconds, length in [(2, 1408), (2, 128), (10, 1408), (10, 128), (10, None), (30, None)]:
            args = ["-t", str(seconds)] + (["-l", str(length)] if length else [])
            r, wall, cpu = timed(lambda: traffic._iperf3(tb, 4, args, seconds))
            end = r["end"]
            intervals = [i["sum"]["bits_per_second"] / 1e6 for i in r["intervals"]]
            row(f"iperf3 TCP sta→sta (2 hops) -t {seconds} -l {length or 'default 128K'}", end["sum_received"]["bits_per_second"] / 1e6,
                wall, cpu, first_second_mbps=intervals[0], last_second_mbps=intervals[-1], retransmits=end["sum_sent"].get("retransmits"))
        for size in (128, 1408):
            q, wall, cpu = timed(lambda: traffic.qperf(tb, 4, size, 5))
            row(f"qperf tcp_bw sta→sta -m {size} -t 5", q["tcp_bw_mbps"], wall, cpu, rtt_ms=q["rtt_ms"])
        u, wall, cpu = timed(lambda: traffic.iperf3_udp(tb, 4, 200, 1472, 5))
        row("iperf3 UDP 1472 B at 200 Mbit/s offered, sta→sta (2 hops)", u["throughput_mbps"], wall, cpu)
        tb.nodes = [tb.client, ap_node]  # the server is now the access point's own host: one hop
        u, wall, cpu = timed(lambda: traffic.iperf3_udp(tb, 4, 200, 1472, 5))
        row("iperf3 UDP 1472 B at 200 Mbit/s offered, sta→AP (1 hop)", u["throughput_mbps"], wall, cpu)
        r, wall, cpu = timed(lambda: traffic._iperf3(tb, 4, ["-t", "10"], 10))
        row("iperf3 TCP sta→AP (1 hop) -t 10", r["end"]["sum_received"]["bits_per_second"] / 1e6, wall, cpu)
    finally:
        tb.down()
    models = [model(a.wlansec, a.security, a.phy, n) for n in dict.fromkeys((ampdu, 1))]
    for m in models:
        at = f"A-MPDU {m['ampdu']}" if m["ampdu"] > 1 else "no A-MPDU"
        print(f"{f'model ({at}): airtime of a 1500-B frame / a 52-B ACK frame':<64} {m['data_frame_us']:.0f} µs / {m['ack_frame_us']:.0f} µs")
        print(f"{f'model ({at}): UDP saturation 1 hop / 2 hops':<64} {m['udp_one_hop_mbps']:7.2f} / {m['udp_two_hop_mbps']:.2f} Mbit/s")
        print(f"{f'model ({at}): TCP 2 hops (2 data + 1 ACK per segment)':<64} {m['tcp_two_hop_mbps']:7.2f} Mbit/s")
        print(f"{f'model ({at}): TCP 1 hop (data + ½ ACK per segment)':<64} {m['tcp_one_hop_mbps']:7.2f} Mbit/s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"phy": a.phy, "security": a.security, "ampdu": ampdu, "rows": rows, "model": models[0],
                       "model_unaggregated": models[-1], "loadavg": os.getloadavg()}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
