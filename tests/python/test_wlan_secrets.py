"""A whole emulated-WLAN session leaks no secret: the passphrase (given through
--passphrase-file, so not on any command line), the PMK, the PTK's KCK, KEK and TK, the GTK
and the IGTK appear in no log, no status output and no message of up or down. The keys are
recomputed here from the session's own capture (the 4-way handshake's nonces and message 3's
Key Data), independently of wlansec."""

import hashlib
import hmac
import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.keywrap import aes_key_unwrap

from test_wlan import WLANSEC, namespaces, netns

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the emulated WLAN needs root (network namespaces, TAP)"),
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="needs /dev/net/tun"),
    pytest.mark.skipif(not shutil.which("ip"), reason="needs ip (make setup)"),
]

PASSPHRASE = "never-in-a-log-7f3a"
SSID = "wlansec"


def prf384(key: bytes, label: bytes, data: bytes) -> bytes:
    return b"".join(hmac.new(key, label + b"\x00" + data + bytes([i]), hashlib.sha1).digest() for i in range(3))[:48]


def radiotap_packets(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert struct.unpack_from("<I", data)[0] == 0xA1B2C3D4 and struct.unpack_from("<I", data, 20)[0] == 127
    out, at = [], 24
    while at < len(data):
        incl = struct.unpack_from("<I", data, at + 8)[0]
        packet = data[at + 16: at + 16 + incl]
        out.append(packet[struct.unpack_from("<H", packet, 2)[0]:])
        at += 16 + incl
    return out


def eapol_keys(mpdus: list[bytes]) -> list[tuple[bytes, bytes, int, bytes, bytes, bytes]]:
    """(A1, A2, Key Information, Key Nonce, Key Data, the EAPOL frame) of each unprotected
    EAPOL-Key frame."""
    found = []
    for m in mpdus:
        fc = m[0] | m[1] << 8
        if (fc >> 2) & 3 != 2 or fc & 0x4000:
            continue
        header = 24 + (2 if (fc >> 4) & 8 else 0)
        body = m[header:]
        if body[:8] != bytes.fromhex("aaaa03000000888e") or body[9] != 3:
            continue
        key = body[12:]
        info = struct.unpack_from(">H", key, 1)[0]
        data_len = struct.unpack_from(">H", key, 93)[0]
        found.append((m[4:10], m[10:16], info, key[13:45], key[95:95 + data_len], body[8:]))
    return found


def session_keys(pcap: Path) -> dict[str, bytes]:
    """PMK, KCK, KEK, TK, GTK and IGTK of the first station's handshake in the capture."""
    pmk = hashlib.pbkdf2_hmac("sha1", PASSPHRASE.encode(), SSID.encode(), 4096, 32)
    keys = eapol_keys(radiotap_packets(pcap))
    m1 = next(k for k in keys if k[2] & 0x0080 and not k[2] & 0x0100)  # Ack, no MIC
    sta, ap = m1[0], m1[1]
    m2 = next(k for k in keys if k[1] == sta and k[2] & 0x0100 and not k[2] & 0x0200 and any(k[3]))
    m3 = next(k for k in keys if k[0] == sta and k[2] & 0x0100 and k[2] & 0x0040)  # MIC, Install
    anonce, snonce = m1[3], m2[3]
    ptk = prf384(pmk, b"Pairwise key expansion", min(ap, sta) + max(ap, sta) + min(anonce, snonce) + max(anonce, snonce))
    kck, kek, tk = ptk[:16], ptk[16:32], ptk[32:48]
    # The keys are right (so not finding them below means something): message 2's MIC
    # verifies under the recomputed KCK (HMAC-SHA-1, descriptor version 2).
    eapol = m2[5]
    mic_at = 4 + 77
    zeroed = eapol[:mic_at] + bytes(16) + eapol[mic_at + 16:]
    assert hmac.new(kck, zeroed, hashlib.sha1).digest()[:16] == eapol[mic_at:mic_at + 16]
    plain = aes_key_unwrap(kek, m3[4])
    found = {"PMK": pmk, "KCK": kck, "KEK": kek, "TK": tk}
    at = 0
    while at + 2 <= len(plain) and plain[at] != 0:
        kind, length = plain[at], plain[at + 1]
        item = plain[at + 2: at + 2 + length]
        if kind == 0xDD and item[:3] == bytes.fromhex("000fac") and item[3] == 1:
            found["GTK"] = item[6:]
        if kind == 0xDD and item[:3] == bytes.fromhex("000fac") and item[3] == 9:
            found["IGTK"] = item[12:]
        at += 2 + length
    assert {"GTK", "IGTK"} <= found.keys(), found.keys()
    return found


def test_no_secret_in_any_log_or_status(tmp_path):
    name, pcap = "wtsec", tmp_path / "air.pcap"
    secret_file = tmp_path / "passphrase"
    secret_file.write_text(PASSPHRASE + "\n")
    secret_file.chmod(0o600)
    run = lambda *args: subprocess.run([WLANSEC, *args], capture_output=True, text=True, timeout=60)
    run("wlan", "down", "--name", name)
    up = run("wlan", "up", "--name", name, "--security", "ccmp", "--pmf", "required",
             "--passphrase-file", str(secret_file), "--pcap", str(pcap))
    assert up.returncode == 0, up.stderr
    try:
        nodes = json.loads(run("wlan", "status", "--name", name, "--json").stdout)["nodes"]
        sta1 = next(n for n in nodes if n["role"] == "sta1")
        netns(sta1["namespace"], "ping", "-c", "3", "-i", "0.05", "10.77.0.2")
        said = [up.stdout, up.stderr, run("wlan", "status", "--name", name).stdout,
                run("wlan", "status", "--name", name, "--json").stdout,
                Path(f"/run/wlansec/{name}.log").read_text()]
    finally:
        down = run("wlan", "down", "--name", name)
    said += [down.stdout, down.stderr]
    assert namespaces(name) == []
    text = "\n".join(said).lower()
    assert PASSPHRASE.lower() not in text
    for what, key in session_keys(pcap).items():
        for form in (key.hex(), ":".join(f"{b:02x}" for b in key), " ".join(f"{b:02x}" for b in key)):
            assert form not in text, f"the {what} appears in a log or status output"
