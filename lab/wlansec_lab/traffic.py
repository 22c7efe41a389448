"""Traffic between the testbed's two hosts: iperf3 (TCP with -l write sizes, UDP at a set
rate, bytes-limited transfers), qperf (tcp_bw / tcp_lat with -m) and the timestamped UDP
video source/sink (`wlansec_lab.udpvideo`). Every server is started for one measurement and
ended by its process id; every client is bounded in time."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wlansec_lab.testbed import Node, Testbed

LAB_DIR = Path(__file__).resolve().parents[1]
IPERF_PORT, QPERF_PORT, VIDEO_PORT, FILE_PORT = 5301, 5302, 5400, 5500


class TrafficError(RuntimeError):
    pass


def _server(tb: Testbed, node: Node, argv: list[str]) -> subprocess.Popen:
    proc = tb.popen(node, argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    if proc.poll() is not None:
        raise TrafficError(f"{argv[0]} server ended at once: {proc.stderr.read().strip()}")
    return proc


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _iperf3(tb: Testbed, version: int, args: list[str], seconds: float) -> dict:
    server = _server(tb, tb.server, ["iperf3", "-s", "-1", "-p", str(IPERF_PORT)])
    try:
        done = tb.run(tb.client, ["iperf3", "-c", tb.server.addr(version), "-p", str(IPERF_PORT), f"-{version}", "-J", *args],
                      timeout=seconds + 30)
    finally:
        _stop(server)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as e:
        raise TrafficError(f"iperf3: no JSON ({done.stderr.strip()[:200]})") from e
    if "error" in report:
        raise TrafficError(f"iperf3: {report['error']}")
    return report


#: Seconds iperf3 runs before it starts measuring (-O): slow start is not the link's rate.
#: Measured (`python -m wlansec_lab.tcpceiling`): -t 2 without it reads 14.7 Mbit/s where
#: -t 10 and -t 30 read 15.4.
IPERF_OMIT_S = 1


def iperf3_tcp(tb: Testbed, version: int, length: int, seconds: float) -> dict:
    """TCP throughput with `length`-byte writes (-l) over `seconds` after the slow-start
    second (-O), and the sender's mean smoothed RTT."""
    r = _iperf3(tb, version, ["-t", str(seconds), "-O", str(IPERF_OMIT_S), "-l", str(length)], seconds + IPERF_OMIT_S)
    end = r["end"]
    rtts = [s["sender"].get("mean_rtt") for s in end.get("streams", []) if s.get("sender", {}).get("mean_rtt")]
    return {"throughput_mbps": end["sum_received"]["bits_per_second"] / 1e6,
            "retransmits": end["sum_sent"].get("retransmits"),
            "srtt_ms": rtts[0] / 1e3 if rtts else None}


def parse_ping(text: str) -> dict:
    """iputils ping's summary: the mean RTT of the replies and the loss."""
    rtt = re.search(r"= [\d.]+/([\d.]+)/[\d.]+/[\d.]+ ms", text)
    loss = re.search(r"([\d.]+)% packet loss", text)
    if not (rtt and loss):
        raise TrafficError(f"ping: no summary ({text.strip()[-200:]})")
    return {"rtt_ms": float(rtt[1]), "loss_percent": float(loss[1])}


def ping(tb: Testbed, version: int, payload: int, count: int, interval: float) -> dict:
    """`count` echo requests of `payload` octets every `interval` s from client to server."""
    done = tb.run(tb.client, ["ping", f"-{version}", "-q", "-n", "-c", str(count), "-i", f"{interval:g}", "-s", str(payload),
                              "-W", "1", tb.server.addr(version)], timeout=count * interval + 10)
    return parse_ping(done.stdout)


def iperf3_udp(tb: Testbed, version: int, rate_mbps: float, length: int, seconds: float) -> dict:
    r = _iperf3(tb, version, ["-u", "-b", f"{rate_mbps}M", "-l", str(length), "-t", str(seconds)], seconds)
    s = r["end"]["sum"]  # the sender's rate, the receiver's jitter and loss
    return {"throughput_mbps": s["bits_per_second"] * (1 - s["lost_percent"] / 100) / 1e6, "jitter_ms": s["jitter_ms"],
            "loss_percent": s["lost_percent"]}


def _python_pair(tb: Testbed, module: str, recv_args: list[str], send_args: list[str], timeout: float) -> tuple[str, str]:
    """Run `python -m wlansec_lab.MODULE recv` on the server (waiting until it is bound),
    then `send` on the client; both outputs."""
    env = {**os.environ, "PYTHONPATH": str(LAB_DIR)}
    py = [sys.executable, "-m", f"wlansec_lab.{module}"]
    with tempfile.TemporaryDirectory(prefix="wlansec-lab-") as tmp:
        ready = Path(tmp) / "ready"
        sink = tb.popen(tb.server, [*py, "recv", *recv_args, "--ready", str(ready)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.monotonic() + 10
        while not ready.exists():
            if sink.poll() is not None or time.monotonic() > deadline:
                _stop(sink)
                raise TrafficError(f"{module} receiver did not start: {sink.stderr.read().strip()[-200:]}")
            time.sleep(0.02)
        src = tb.run(tb.client, [*py, "send", *send_args], timeout=timeout, env=env)
        try:
            out, err = sink.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            _stop(sink)
            out, err = "", "receiver timed out"
        if src.returncode != 0 or sink.returncode != 0:
            raise TrafficError(f"{module}: {(src.stderr.strip() or err.strip())[-300:]}")
        return src.stdout, out


def file_transfer(tb: Testbed, version: int, path: Path, timeout: float = 120) -> dict:
    """Seconds from connect until the receiver confirms the last byte of `path`."""
    addr = tb.server.addr(version)
    sent, _ = _python_pair(tb, "filexfer", ["--bind", addr, "--port", str(FILE_PORT), "--timeout", str(timeout)],
                           ["--to", addr, "--port", str(FILE_PORT), "--file", str(path)], timeout + 10)
    return json.loads(sent)


_UNITS = {"bytes/sec": 1, "KB/sec": 1e3, "MB/sec": 1e6, "GB/sec": 1e9, "ns": 1e-6, "us": 1e-3, "ms": 1.0, "sec": 1e3}


def parse_qperf(text: str) -> dict:
    """qperf's plain output → {"tcp_bw_mbps": .., "tcp_lat_ms": ..} (qperf prints one-way latency)."""
    out = {}
    for test, key, value, unit in re.findall(r"(\w+):\s*\n\s*(bw|latency)\s*=\s*([\d.]+)\s*(\S+)", text):
        if unit not in _UNITS:
            raise TrafficError(f"qperf: unknown unit {unit!r}")
        if key == "bw":
            out[f"{test}_mbps"] = float(value) * _UNITS[unit] * 8 / 1e6
        else:
            out[f"{test}_ms"] = float(value) * _UNITS[unit]
    return out


def qperf(tb: Testbed, version: int, size: int, seconds: float, bandwidth: bool = True) -> dict:
    """qperf tcp_bw (unless not `bandwidth`) and tcp_lat with `size`-byte messages; RTT = 2 ×
    qperf's one-way latency."""
    tests = ["tcp_bw", "tcp_lat"] if bandwidth else ["tcp_lat"]
    server = _server(tb, tb.server, ["qperf", "-lp", str(QPERF_PORT)])
    try:
        done = tb.run(tb.client, ["qperf", "-lp", str(QPERF_PORT), "-t", str(seconds), "-m", str(size),
                                  tb.server.addr(version), *tests], timeout=2 * len(tests) * seconds + 30)
    finally:
        _stop(server)
    result = parse_qperf(done.stdout)
    if any(f"{t}_{'mbps' if t == 'tcp_bw' else 'ms'}" not in result for t in tests):
        raise TrafficError(f"qperf: {(done.stderr or done.stdout).strip()[:200]}")
    return {**({"tcp_bw_mbps": result["tcp_bw_mbps"]} if bandwidth else {}), "rtt_ms": 2 * result["tcp_lat_ms"]}


def video(tb: Testbed, version: int, profile: str, seconds: float) -> dict:
    """The timestamped UDP video stream from client to server: delay, jitter, loss."""
    addr = tb.server.addr(version)
    with tempfile.TemporaryDirectory(prefix="wlansec-lab-") as tmp:
        out = Path(tmp) / "sink.json"
        sent, _ = _python_pair(tb, "udpvideo", ["--bind", addr, "--port", str(VIDEO_PORT), "--timeout", str(seconds + 10), "--out", str(out)],
                               ["--to", addr, "--port", str(VIDEO_PORT), "--profile", profile, "--seconds", str(seconds)], seconds + 30)
        analysis = json.loads(out.read_text())["analysis"]
    sender = json.loads(sent)
    return {**analysis, "send_errors": sender["send_errors"], "offered_mbps": sender["bytes"] * 8 / seconds / 1e6}
