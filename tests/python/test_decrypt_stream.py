"""`wlansec decrypt -`: a capture read from a pipe as it arrives, in bounded memory.

The captures are made in Python (`test_decrypt_independent`'s key hierarchy and CCMP). What a
pipe gives must equal what the same file gives, byte for byte (pcap and pcapng, Ethernet and
802.11 output, a capture cut inside its last record, frames before their handshake); a stream
of some hundred megabytes made on the fly must pass in a few megabytes of memory; and the
frames must come out while the writer still holds the pipe open, as a live capture needs.
"""

import json
import os
import select
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

import ieee80211 as w
import test_decrypt_independent as ind

WLANSEC = ind.WLANSEC
pytestmark = ind.pytestmark
KEYS = ["-e", ind.SSID, "-p", ind.PASSPHRASE]


def pcap_file(frames: list[bytes]) -> bytes:
    head = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 105)
    return head + b"".join(pcap_record(i, f) for i, f in enumerate(frames))


def pcap_record(i: int, frame: bytes) -> bytes:
    return struct.pack("<IIII", 1_700_000_000 + i, i, len(frame), len(frame)) + frame


def pcapng_file(frames: list[bytes]) -> bytes:
    """A section header, an interface (802.11, microseconds), an Enhanced Packet Block each."""

    def block(kind: int, body: bytes) -> bytes:
        body += bytes(-len(body) % 4)
        return struct.pack("<II", kind, len(body) + 12) + body + struct.pack("<I", len(body) + 12)

    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 105, 0, 0))
    for i, f in enumerate(frames):
        ticks = (1_700_000_000 + i) * 1_000_000 + i
        out += block(6, struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(f), len(f)) + f)
    return out


def decrypt_file(tmp_path: Path, data: bytes, name: str, *args: str):
    """(exit status, output, JSON summary) of decrypting `data` from a file."""
    src, out, summary = tmp_path / name, tmp_path / f"file-{name}", tmp_path / f"file-{name}.json"
    src.write_bytes(data)
    run = subprocess.run([WLANSEC, "decrypt", str(src), "-o", str(out), "--json", str(summary), *args],
                         capture_output=True)
    return run.returncode, out.read_bytes(), json.loads(summary.read_text())


def decrypt_pipe(tmp_path: Path, data: bytes, name: str, *args: str, piece: int = 1 << 16):
    """The same from standard input to standard output, written in pieces of `piece` octets
    (flushed one by one, so the reads see the stream cut anywhere)."""
    summary = tmp_path / f"pipe-{name}.json"
    proc = subprocess.Popen([WLANSEC, "decrypt", "-", "-o", "-", "--json", str(summary), *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    output = []
    reader = threading.Thread(target=lambda: output.append(proc.stdout.read()))
    reader.start()
    for at in range(0, len(data), piece):
        proc.stdin.write(data[at:at + piece])
        proc.stdin.flush()
    proc.stdin.close()
    reader.join()
    return proc.wait(), output[0], json.loads(summary.read_text())


@pytest.mark.parametrize("container", [pcap_file, pcapng_file], ids=["pcap", "pcapng"])
@pytest.mark.parametrize("form", [[], ["-l"]], ids=["ethernet", "802.11"])
def test_a_pipe_gives_what_the_file_gives(tmp_path, container, form):
    cap = ind.wpa2_capture(seed=7).capture
    data = container(cap.frames)
    code, from_file, file_summary = decrypt_file(tmp_path, data, "c", *KEYS, *form)
    assert code == 0
    for piece in (1 << 16, 333):
        pipe_code, from_pipe, pipe_summary = decrypt_pipe(tmp_path, data, "c", *KEYS, *form, piece=piece)
        assert (pipe_code, from_pipe) == (code, from_file)
        assert pipe_summary == file_summary
    if container is pcap_file and not form:  # the file path is checked too, not trusted
        assert ind.read_pcap(tmp_path / "file-c") == cap.ethernet


def test_a_capture_cut_inside_its_last_record_decrypts_up_to_the_cut_from_a_pipe_too(tmp_path):
    cap = ind.wpa2_capture(seed=8).capture
    data = pcap_file(cap.frames)
    cut = data[:len(data) - 10]
    code, from_file, file_summary = decrypt_file(tmp_path, cut, "cut", *KEYS)
    pipe_code, from_pipe, pipe_summary = decrypt_pipe(tmp_path, cut, "cut", *KEYS, piece=1000)
    assert code == pipe_code == 3  # partial success
    assert from_pipe == from_file
    assert pipe_summary == file_summary
    assert pipe_summary["written"] == len(cap.ethernet) - 1  # all but the cut frame (the last, plaintext data)


def test_frames_before_their_handshake_count_as_having_no_key_in_one_pass(tmp_path):
    """One pass, for a file as for a pipe: protected frames that arrive before their station's
    handshake cannot be decrypted; they are counted, not lost silently."""
    cap = ind.wpa2_capture(seed=9).capture
    handshake_end = 5  # beacon and the four messages
    early = cap.frames[handshake_end:handshake_end + 6]
    data = pcap_file(cap.frames[:1] + early + cap.frames[1:])
    code, from_file, file_summary = decrypt_file(tmp_path, data, "early", *KEYS)
    pipe_code, from_pipe, pipe_summary = decrypt_pipe(tmp_path, data, "early", *KEYS)
    assert (code, from_file) == (pipe_code, from_pipe) == (0, from_pipe)
    assert pipe_summary == file_summary
    not_written = file_summary["not_written"]
    assert not_written["no_pairwise_key"] + not_written["no_group_key"] == len(early)


# --- a long stream in bounded memory ---------------------------------------------------------

STREAM_MB = 320
RSS_BOUND_MB = 32  # binary, 1 MiB input buffer and 1 MiB output buffer: ~7 MB measured
BODY = ind.msdu(bytes(range(256)) * 8)  # 2056-octet MSDU


def long_stream(frames: int):
    """The beacon and 4-way handshake of `wpa2_capture`, then `frames` CCMP frames from the
    station (fresh PN and sequence number each, OpenSSL's AES-CCM), made as they are sent: the
    stream is never held whole, here or on disk. Yields pieces of about 1 MiB."""
    cap = ind.wpa2_capture(seed=1).capture
    handshake = cap.frames[:5]
    nonce_at = 24 + 8 + 4 + 13  # 802.11 header, LLC/SNAP, EAPOL header, descriptor to Key Nonce
    anonce, snonce = (handshake[i][nonce_at:nonce_at + 32] for i in (1, 2))
    tk = ind.pairwise_keys(ind.PASSPHRASE, ind.SSID, anonce, snonce)[2]
    yield struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 105)
    yield b"".join(pcap_record(i, f) for i, f in enumerate(handshake))
    ccm = AESCCM(tk, tag_length=8)
    plain = ind.data_header(w.TO_DS, ind.AP, ind.STA, ind.HOST, 0, None) + BODY
    h = w.header_len(plain)
    aad, nonce = w.aad_and_nonce(plain, 1)  # the AAD masks the sequence number: one for all
    fc = struct.pack("<H", struct.unpack_from("<H", plain)[0] | w.PROTECTED)
    piece = []
    for pn in range(1, frames + 1):
        header = fc + plain[2:22] + struct.pack("<H", (pn & 0xFFF) << 4)
        sealed = ccm.encrypt(nonce[:7] + pn.to_bytes(6, "big"), BODY, aad)
        piece.append(pcap_record(pn, header + w.ccmp_header(pn, 0) + sealed))
        if len(piece) == 512:
            yield b"".join(piece)
            piece.clear()
    yield b"".join(piece)
    assert len(plain) == h + len(BODY)


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set so far (VmHWM). Not ru_maxrss: after fork and exec
    that counts the forking Python's own resident set too."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) * 1024 / 1e6


def test_a_long_stream_is_decrypted_in_bounded_memory(tmp_path):
    record = 16 + 24 + 8 + len(BODY) + 8
    frames = STREAM_MB * 1_000_000 // record
    expected_output = 24 + frames * (16 + 14 + len(BODY) - 8)  # Ethernet II: LLC/SNAP off
    summary = tmp_path / "long.json"
    proc = subprocess.Popen([WLANSEC, "decrypt", "-", "-o", "-", "--json", str(summary), *KEYS],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = {"octets": 0}
    all_out = threading.Event()

    def drain():
        while chunk := proc.stdout.read1(1 << 20):
            out["octets"] += len(chunk)
            if out["octets"] == expected_output:
                all_out.set()

    reader = threading.Thread(target=drain)
    reader.start()
    sent = 0
    for piece in long_stream(frames):
        proc.stdin.write(piece)
        sent += len(piece)
    proc.stdin.flush()
    # Every frame decrypted and written while the input is still open (a reader of all of
    # standard input would still be waiting for its end): the peak so far is the run's.
    all_out.wait(timeout=60)
    peak_mb = peak_rss_mb(proc.pid)
    proc.stdin.close()
    reader.join()
    print(f"streamed {sent} octets ({sent / 1e6:.0f} MB); decrypt's peak RSS (VmHWM) {peak_mb:.1f} MB")
    assert peak_mb < RSS_BOUND_MB, f"peak RSS {peak_mb:.1f} MB for a {sent / 1e6:.0f} MB stream"
    assert proc.wait() == 0
    assert sent >= STREAM_MB * 1_000_000 * 0.99
    assert json.loads(summary.read_text())["written"] == frames
    assert out["octets"] == expected_output


# --- latency: frames come out while the pipe is still open ---------------------------------

def read_records(fd: int, count: int, have: bytearray, timeout: float) -> list[bytes]:
    """`count` pcap records from `fd` (after the 24-octet file header in `have`), waiting at
    most `timeout` seconds for them."""
    deadline = time.monotonic() + timeout
    records = []
    while len(records) < count:
        at = 24 + sum(16 + len(r) for r in records)
        if len(have) >= at + 16:
            incl = struct.unpack_from("<I", have, at + 8)[0]
            if len(have) >= at + 16 + incl:
                records.append(bytes(have[at + 16:at + 16 + incl]))
                continue
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        have += chunk
    return records


def test_decrypted_frames_come_out_before_the_writer_closes_the_pipe():
    cap = ind.wpa2_capture(seed=3).capture
    handshake, data = cap.frames[:5], cap.frames[5:]
    proc = subprocess.Popen([WLANSEC, "decrypt", "-", "-o", "-", *KEYS],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        fd = proc.stdout.fileno()
        have = bytearray()
        proc.stdin.write(pcap_file(handshake + data[:10]))
        proc.stdin.flush()
        first = read_records(fd, 10, have, timeout=20)
        assert proc.poll() is None, "the decryptor stopped while its input was still open"
        assert first == cap.ethernet[:10]
        proc.stdin.write(b"".join(pcap_record(15 + i, f) for i, f in enumerate(data[10:20])))
        proc.stdin.flush()
        more = read_records(fd, 20, have, timeout=20)[10:]
        assert more == cap.ethernet[10:20]
        assert proc.poll() is None
    finally:
        proc.stdin.close()
        proc.stdout.read()
    assert proc.wait(timeout=20) == 0
