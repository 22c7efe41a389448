"""`wlansec decrypt --threads N`: the output written and the capture mapped in on threads of
their own must not change a byte of what is written, nor the counts, nor the exit status.

Captures from `wlansec synth` with what makes decryption stateful (handshakes, a GTK rekey and
a reassociation, 802.1X re-authentication under new PMKs, Extended Key ID, PMF, TDLS,
fragments) and replays added in Python (records repeated later in the capture), each decrypted
on 1, 2 and 3 threads, big enough to fill several of the output's buffers; a capture cut inside
a record and one with a corrupt record length (status 3, the frames before it written); and an
output that cannot be written (a file size limit), which must end in a typed error with no
output file left, on any number of threads.
"""

import json
import resource
import signal
import struct
import subprocess
from pathlib import Path

import pytest

import test_decrypt_independent as ind

WLANSEC = ind.WLANSEC
pytestmark = ind.pytestmark
SSID, PASSPHRASE = "threads-net", "correct horse battery"
PMK1, PMK2 = "11" * 32, "22" * 32

CAPTURES = {
    "psk-rekey-pmf-tdls": ["--stations", "5", "--rekey", "--pmf", "--tdls", "--fragment-every", "7"],
    "reauth-extended-key-id": ["--stations", "3", "--akm", "802.1x", "--pmk", PMK1, "--reauth-pmk", PMK2,
                               "--extended-key-id", "--fragment-every", "0"],
    "gcmp256-pcapng-radiotap": ["--stations", "4", "--suite", "gcmp256", "--format", "pcapng", "--link", "radiotap",
                                "--rekey"],
}
KEYS = {
    "psk-rekey-pmf-tdls": ["-e", SSID, "-p", PASSPHRASE],
    "reauth-extended-key-id": ["--pmk", PMK1, "--pmk", PMK2],
    "gcmp256-pcapng-radiotap": ["-e", SSID, "-p", PASSPHRASE],
}


def synth(path: Path, options: list[str], frames: int = 6000) -> Path:
    subprocess.run([WLANSEC, "synth", "-o", str(path), "-e", SSID, "-p", PASSPHRASE, "--frames", str(frames),
                    "--seed", "5", *options], check=True, capture_output=True)
    return path


def pcap_records(data: bytes) -> tuple[bytes, list[bytes]]:
    """A little-endian pcap file's header and its records (record header and data each)."""
    assert struct.unpack_from("<I", data)[0] in (0xA1B2C3D4, 0xA1B23C4D)
    records, at = [], 24
    while at < len(data):
        incl = struct.unpack_from("<I", data, at + 8)[0]
        records.append(data[at:at + 16 + incl])
        at += 16 + incl
    return data[:24], records


def with_replays(data: bytes) -> bytes:
    """Every 40th record repeated 25 records later: replays the decryptor must refuse alike."""
    header, records = pcap_records(data)
    out = []
    for i, record in enumerate(records):
        out.append(record)
        if i >= 25 and (i - 25) % 40 == 0:
            out.append(records[i - 25])
    return header + b"".join(out)


def decrypt(tmp_path: Path, capture: Path, keys: list[str], threads: int, **run):
    """(exit status, output octets or None when no output was left, JSON summary or None, stderr)."""
    out, summary = tmp_path / f"{capture.stem}-{threads}.out", tmp_path / f"{capture.stem}-{threads}.json"
    done = subprocess.run([WLANSEC, "decrypt", str(capture), "-o", str(out), "--json", str(summary), *keys,
                           "--threads", str(threads)], capture_output=True, text=True, **run)
    output = out.read_bytes() if out.exists() else None
    counts = json.loads(summary.read_text()) if summary.exists() else None
    return done.returncode, output, counts, done.stderr


def same_on_every_thread_count(tmp_path: Path, capture: Path, keys: list[str]):
    status, output, counts, stderr = decrypt(tmp_path, capture, keys, 1)
    for threads in (2, 3):
        assert decrypt(tmp_path, capture, keys, threads)[:3] == (status, output, counts), f"{threads} threads"
    return status, output, counts, stderr


@pytest.mark.parametrize("name", CAPTURES)
def test_threads_write_what_one_thread_writes(tmp_path, name):
    capture = synth(tmp_path / f"{name}.cap", CAPTURES[name])
    if "pcapng" not in name:
        capture.write_bytes(with_replays(capture.read_bytes()))
    status, output, counts, stderr = same_on_every_thread_count(tmp_path, capture, KEYS[name])
    assert status == 0, stderr
    assert len(output) > 3 << 20, "several of the output's buffers"
    assert counts["decrypted"]["wpa"] > 5000
    if "pcapng" not in name:
        assert counts["not_written"]["replay"] > 100


def test_threads_cut_capture(tmp_path):
    whole = synth(tmp_path / "whole.cap", CAPTURES["psk-rekey-pmf-tdls"]).read_bytes()
    header, records = pcap_records(whole)
    cut = tmp_path / "cut.cap"
    cut.write_bytes(header + b"".join(records[:4000]) + records[4000][:30])
    status, output, counts, stderr = same_on_every_thread_count(tmp_path, cut, KEYS["psk-rekey-pmf-tdls"])
    assert status == 3, stderr
    assert "damaged record" in stderr
    assert counts["frames_read"] == 4000 and len(output) > 1 << 20


def test_threads_corrupt_record_length(tmp_path):
    whole = synth(tmp_path / "whole.cap", CAPTURES["psk-rekey-pmf-tdls"]).read_bytes()
    header, records = pcap_records(whole)
    bad = bytearray(records[3000])
    bad[8:12] = struct.pack("<I", 0x7FFF_FFFF)
    corrupt = tmp_path / "corrupt.cap"
    corrupt.write_bytes(header + b"".join(records[:3000]) + bytes(bad) + b"".join(records[3001:]))
    status, output, counts, stderr = same_on_every_thread_count(tmp_path, corrupt, KEYS["psk-rekey-pmf-tdls"])
    assert status == 3, stderr
    assert counts["frames_read"] == 3000 and output


def limit_file_size():
    """In the child: files may grow to 1 MiB, and a write past that fails (EFBIG) instead of
    killing the process (SIGXFSZ)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threads_output_that_cannot_be_written(tmp_path, threads):
    capture = synth(tmp_path / "big.cap", CAPTURES["psk-rekey-pmf-tdls"])
    work = tmp_path / "out"
    work.mkdir()
    status, output, _, stderr = decrypt(work, capture, KEYS["psk-rekey-pmf-tdls"], threads,
                                        preexec_fn=limit_file_size)
    assert status == 1, stderr
    assert "File too large" in stderr and "panicked" not in stderr
    assert output is None and list(work.iterdir()) == [], "no output (nor its temporary file) left"
