"""Transmission time of one file over TCP, as a user sees it: from connect until the
receiver confirms the last byte (the receiver answers with the byte count it read).

    python -m wlansec_lab.filexfer recv --bind ADDR --port 5500 --ready FILE
    python -m wlansec_lab.filexfer send --to ADDR --port 5500 --file PATH
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import time
from pathlib import Path


def _family(addr: str) -> int:
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def recv(bind: str, port: int, ready: Path | None, timeout: float) -> dict:
    with socket.socket(_family(bind), socket.SOCK_STREAM) as srv:
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind((bind, port))
        srv.listen(1)
        srv.settimeout(timeout)
        if ready:
            ready.write_text("ready")
        conn, _ = srv.accept()
        with conn:
            conn.settimeout(timeout)
            total = 0
            while chunk := conn.recv(1 << 16):
                total += len(chunk)
            conn.sendall(struct.pack("!Q", total))
    return {"received": total}


def send(to: str, port: int, data: bytes) -> dict:
    start = time.monotonic()
    with socket.create_connection((to, port), timeout=120) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        answer = b""
        while len(answer) < 8 and (chunk := s.recv(8 - len(answer))):
            answer += chunk
    seconds = time.monotonic() - start
    (confirmed,) = struct.unpack("!Q", answer)
    if confirmed != len(data):
        raise RuntimeError(f"receiver confirmed {confirmed} of {len(data)} bytes")
    return {"bytes": len(data), "seconds": seconds, "throughput_mbps": len(data) * 8 / seconds / 1e6}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--bind", required=True)
    r.add_argument("--port", type=int, default=5500)
    r.add_argument("--ready", type=Path)
    r.add_argument("--timeout", type=float, default=120)
    s = sub.add_parser("send")
    s.add_argument("--to", required=True)
    s.add_argument("--port", type=int, default=5500)
    s.add_argument("--file", type=Path, required=True)
    a = p.parse_args(argv)
    result = recv(a.bind, a.port, a.ready, a.timeout) if a.cmd == "recv" else send(a.to, a.port, a.file.read_bytes())
    print(json.dumps(result))


if __name__ == "__main__":
    main()
