"""`wlansec decrypt`: any stream, whatever its content, decrypts in at most 64 MB resident.

Each case pipes into the release binary a stream made to grow the decryptor's state with
one entry per distinct address (message 1s to a million stations, garbage CCMP frames from
a million stations, message 2s without a message 1 from a million stations, beacons of a
million BSSs with as many SSIDs, plaintext first fragments from a million stations), then a
real WPA2 capture (`test_decrypt_independent`'s). The run must end normally, stay under the resident bound, say in `--json` that it evicted
state (the bound, `--max-links`, 4,096 by default, is exceeded some 240 times over), print
a summary of bounded length, and still decrypt the real capture that follows the flood.

Measured (AMD EPYC, 2 cores): about 1 s and 27-40 MiB a case. With the bound off
(`--max-links 1000000`) 200,000 addresses already took 0.97-1.46 GiB, nothing evicted; the
first fragments took 414 MiB before the fragment cache was bounded (rx/defrag.rs), 29 after.

The peak resident set is the child's own as GNU time reports it (wait4 of a process time
forked): the ru_maxrss Python's own wait4 gives counts the forking Python's resident set too.
"""

import json
import os
import struct
import subprocess
import time
from pathlib import Path

import pytest

import ieee80211 as w
import test_decrypt_independent as ind
from conftest import GNU_TIME

WLANSEC = ind.WLANSEC
TIME = GNU_TIME
pytestmark = ind.pytestmark
KEYS = ["-e", ind.SSID, "-p", ind.PASSPHRASE]

STATIONS = 1_000_000  # some 240 times --max-links' default of 4,096; about 1 s a case
RSS_BOUND_KIB = 64 * 1024
SUMMARY_LINES = 100
CHUNK = 4096  # records per write


def record(frame: bytes) -> bytes:
    """A pcap record of `frame` (timestamps patched per record later)."""
    return struct.pack("<IIII", 1_700_000_000, 0, len(frame), len(frame)) + frame


def flood(template: bytes, at: tuple[int, ...], count: int, patch=None):
    """`count` pcap records of the 802.11 frame `template`, the six octets at each offset in
    `at` (of the frame) the address 02:dd:nn:nn:nn:nn, n the record's number; `patch(buf, n,
    base)` changes more. Yields chunks of `CHUNK` records."""
    rec = bytearray(record(template))
    size = len(rec)
    for start in range(0, count, CHUNK):
        n = min(CHUNK, count - start)
        buf = bytearray(rec) * n
        for k in range(n):
            i = start + k
            base = k * size
            struct.pack_into("<I", buf, base + 4, i % 1_000_000)
            mac = b"\x02\xdd" + i.to_bytes(4, "big")
            for off in at:
                buf[base + 16 + off:base + 22 + off] = mac
            if patch:
                patch(buf, i, base + 16)
        yield bytes(buf)


def message_1s(count: int):
    """EAPOL-Key message 1s from the capture's AP to `count` stations (A1)."""
    frame = ind.eapol_mpdu(True, 0, ind.eapol_key(0x008A, 16, 1, bytes(range(32))))
    return flood(frame, (4,), count)


def garbage_ccmp(count: int):
    """Protected data frames with ExtIV set and a random body from `count` stations (A2) to
    the capture's AP: no key fits, and nothing says they are not CCMP."""
    header = bytearray(ind.data_header(w.TO_DS, ind.AP, ind.STA, ind.HOST, 0, None))
    struct.pack_into("<H", header, 0, struct.unpack_from("<H", header)[0] | w.PROTECTED)
    frame = bytes(header) + w.ccmp_header(1, 0) + os.urandom(96)

    def vary(buf, i, f):  # a PN and body octets of its own for each
        struct.pack_into("<I", buf, f + 24 + 4, i + 1)
        struct.pack_into("<I", buf, f + 24 + 8, i * 2654435761 & 0xFFFFFFFF)

    return flood(frame, (10,), count, vary)


def message_2s(count: int):
    """EAPOL-Key message 2s (a MIC that cannot verify) from `count` stations (A2) to the
    capture's AP, with no message 1 before them."""
    eapol = bytearray(ind.eapol_key(0x010A, 0, 1, bytes(range(100, 132)), ind.rsn_element("ccmp128")))
    eapol[81:97] = os.urandom(16)
    frame = ind.eapol_mpdu(False, 0, bytes(eapol))
    return flood(frame, (10,), count)


def beacons(count: int):
    """Beacons of `count` BSSs (A2 = A3), each with an SSID of its own."""
    frame = bytearray(ind.beacon("ccmp128", 0))
    ssid_at = 24 + 12
    assert frame[ssid_at] == 0
    ssid = b"flood-00000000"
    frame[ssid_at + 1:ssid_at + 2 + len(ind.SSID)] = bytes([len(ssid)]) + ssid
    frame = frame[:ssid_at + 2 + len(ssid)] + ind.beacon("ccmp128", 0)[ssid_at + 2 + len(ind.SSID):]

    def name(buf, i, f):
        buf[f + ssid_at + 2 + 6:f + ssid_at + 2 + 14] = b"%08x" % i

    return flood(bytes(frame), (10, 16), count, name)


def first_fragments(count: int):
    """Plaintext first fragments (More Fragments set, fragment number 0) from `count`
    stations (A2) to the capture's AP: each starts an MSDU in progress in the receive
    pipeline's fragment cache, never completed."""
    header = bytearray(ind.data_header(w.TO_DS, ind.AP, ind.STA, ind.HOST, 0, None))
    struct.pack_into("<H", header, 0, struct.unpack_from("<H", header)[0] | w.MORE_FRAG)
    return flood(bytes(header) + ind.msdu(os.urandom(200)), (10,), count)


CASES = {
    "message_1s": message_1s,
    "garbage_ccmp": garbage_ccmp,
    "message_2s": message_2s,
    "beacons": beacons,
    "first_fragments": first_fragments,
}


def run_flood(tmp_path: Path, stream, *extra: str):
    """Pipe the pcap header, `stream`'s chunks and then a real WPA2 capture into `wlansec
    decrypt -`; (exit status, peak RSS in KiB, JSON summary, printed summary, the real
    capture, seconds taken)."""
    legit = ind.wpa2_capture(seed=11).capture
    out, summary, rss = tmp_path / "out.pcap", tmp_path / "summary.json", tmp_path / "rss"
    started = time.monotonic()
    proc = subprocess.Popen(
        [TIME, "-f", "%M", "-o", str(rss), WLANSEC, "decrypt", "-", "-o", str(out), "--json", str(summary),
         *KEYS, *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # The table and the warnings are read after the input is written: they are small, and
    # come only at the end.
    proc.stdin.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 105))
    for chunk in stream:
        proc.stdin.write(chunk)
    proc.stdin.write(b"".join(record(f) for f in legit.frames))
    proc.stdin.close()
    table, errors = proc.stdout.read(), proc.stderr.read()
    code = proc.wait()
    took = time.monotonic() - started
    peak_kib = int(rss.read_text().split()[-1])
    print(f"peak RSS {peak_kib / 1024:.1f} MiB, {took:.2f} s; stderr: {errors.decode()[-300:]}")
    return code, peak_kib, json.loads(summary.read_text()), table.decode(), legit, took


@pytest.mark.parametrize("case", CASES)
def test_a_flood_of_distinct_addresses_decrypts_in_bounded_memory(tmp_path, case):
    code, peak_kib, summary, table, legit, took = run_flood(tmp_path, CASES[case](STATIONS))
    assert code == 0, table
    assert peak_kib <= RSS_BOUND_KIB, f"{case}: peak RSS {peak_kib / 1024:.1f} MiB"
    evicted = summary["evicted"]
    assert sum(v for k, v in evicted.items() if k != "stations_frames") > 0, evicted
    assert len(table.splitlines()) < SUMMARY_LINES, table
    assert summary["frames_read"] == STATIONS + len(legit.frames)
    # The real capture after the flood: its handshake verified, its frames all decrypted.
    assert summary["handshakes"]["verified"] == 1
    assert summary["written"] == len(legit.ethernet)
    assert ind.read_pcap(tmp_path / "out.pcap") == legit.ethernet
    assert took < 30, f"{case} took {took:.1f} s"
