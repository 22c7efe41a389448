"""An independent reading of IEEE 802.11-2016 12.5.3 for the interop tests.

Written from the standard's rules (summarised in tests/vectors/README.md section 4), not
from wlansec's Rust code, so that agreement between the two means something. Also: random
MPDU headers of every shape, a pcap writer, and a parser for tshark's hex dumps.
"""

import random
import re
import struct
import subprocess

RETRY, PWR_MGT, MORE_DATA, PROTECTED, ORDER = 0x0800, 0x1000, 0x2000, 0x4000, 0x8000
TO_DS, FROM_DS, MORE_FRAG = 0x0100, 0x0200, 0x0400


def random_header(rng: random.Random) -> bytes:
    """A data, QoS data (+/- HT Control, 3 or 4 addresses) or robust management header."""
    if rng.random() < 0.1:
        fc = (rng.choice([10, 12, 13]) << 4)  # disassoc, deauth, action; type 0
        qos = htc = a4 = False
    else:
        qos = rng.random() < 0.5
        fc = (2 << 2) | ((8 if qos else 0) << 4)
        fc |= rng.choice([0, TO_DS, FROM_DS, TO_DS | FROM_DS])
        a4 = fc & TO_DS and fc & FROM_DS
    htc = (qos or fc >> 2 & 3 == 0) and rng.random() < 0.25
    for bit in (RETRY, PWR_MGT, MORE_DATA, MORE_FRAG):
        if rng.random() < 0.25:
            fc |= bit
    if htc:
        fc |= ORDER
    mac = lambda: bytes([rng.randrange(256) & 0xFC | 0x02] + [rng.randrange(256) for _ in range(5)])
    sc = rng.randrange(4096) << 4 | (rng.randrange(16) if rng.random() < 0.25 else 0)
    h = struct.pack("<HH", fc, rng.randrange(0x8000)) + mac() + mac() + mac() + struct.pack("<H", sc)
    if a4:
        h += mac()
    if qos:
        h += struct.pack("<H", rng.randrange(65536))
    if htc:
        h += struct.pack("<I", rng.randrange(1 << 32))
    return h


def header_len(mpdu: bytes) -> int:
    fc = struct.unpack_from("<H", mpdu)[0]
    is_data = (fc >> 2) & 3 == 2
    qos = is_data and fc & 0x80
    n = 24 + (6 if is_data and fc & TO_DS and fc & FROM_DS else 0) + (2 if qos else 0)
    if fc & ORDER and (qos or (fc >> 2) & 3 == 0):
        n += 4
    return n


def aad_and_nonce(mpdu: bytes, pn: int) -> tuple[bytes, bytes]:
    """AAD (12.5.3.3.3) and CCM nonce (12.5.3.3.4) of a plaintext MPDU, 802.11-2016 rules."""
    fc = struct.unpack_from("<H", mpdu)[0]
    is_data = (fc >> 2) & 3 == 2
    qos = bool(is_data and fc & 0x80)
    a4 = bool(is_data and fc & TO_DS and fc & FROM_DS)
    masked = fc & ~(RETRY | PWR_MGT | MORE_DATA) | PROTECTED
    if is_data:
        masked &= ~0x0070
    if qos:
        masked &= ~ORDER
    aad = struct.pack("<H", masked) + mpdu[4:22] + bytes([mpdu[22] & 0x0F, 0])
    off = 24
    if a4:
        aad += mpdu[24:30]
        off = 30
    tid = mpdu[off] & 0x0F if qos else 0
    if qos:
        aad += bytes([tid, 0])
    flags = tid | (0x10 if (fc >> 2) & 3 == 0 else 0)
    nonce = bytes([flags]) + mpdu[10:16] + pn.to_bytes(6, "big")
    return aad, nonce


def ccmp_header(pn: int, key_id: int) -> bytes:
    p = pn.to_bytes(6, "little")
    return bytes([p[0], p[1], 0, key_id << 6 | 0x20, p[2], p[3], p[4], p[5]])


def write_pcap(path, frames, linktype=105):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for i, frame in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)) + frame)


def read_pcap(path) -> tuple[int, list[bytes]]:
    """A classic little-endian pcap file's link type and packets."""
    with open(path, "rb") as f:
        data = f.read()
    magic, *_, linktype = struct.unpack_from("<IHHiIII", data, 0)
    assert magic == 0xA1B2C3D4, f"{path}: not a little-endian pcap"
    packets, at = [], 24
    while at + 16 <= len(data):
        incl = struct.unpack_from("<I", data, at + 8)[0]
        packets.append(data[at + 16:at + 16 + incl])
        at += 16 + incl
    return linktype, packets


def tshark_data_sources(pcap, *options) -> list[dict[str, bytes]]:
    """Each packet's data sources ("Frame", "Decrypted CCMP data", ...) from `tshark -x`."""
    cmd = ["tshark", "-r", str(pcap), "-x"]
    for opt in options:
        cmd += ["-o", opt]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    packets = []
    for block in out.split("\n\n"):
        if not block.strip():
            continue
        sources, current = {}, "Frame"
        for line in block.splitlines():
            header = re.match(r"^(.*) \((\d+) bytes\):$", line)
            if header:
                current = header.group(1)
                continue
            row = re.match(r"^[0-9a-f]{4,}  ((?:[0-9a-f]{2} )+)", line)
            if row:
                sources.setdefault(current, bytearray()).extend(bytes.fromhex(row.group(1).replace(" ", "")))
        packets.append({k: bytes(v) for k, v in sources.items()})
    return packets
