"""`wlansec decrypt` on captures no part of wlansec made.

Every protected frame here is made in Python from the standard's rules: the WPA2-PSK key
hierarchy with hashlib/hmac (PBKDF2 PMK, PRF-384 PTK, EAPOL-Key MICs), the GTK wrapped with
pyca/cryptography's RFC 3394 key wrap, CCMP with pycryptodome's AES-CCM, GCMP with its AES-GCM
and WEP with its ARC4 and zlib's CRC-32 (AAD and CCM nonce from `ieee80211`, which is written
from the standard too). `wlansec decrypt` must give back exactly the plaintext chosen here,
count what it did, reject frames with one flipped bit, and decrypt nothing under a wrong
passphrase. tshark decrypting the same captures shows the producer follows the standard,
not merely itself.
"""

import hashlib
import hmac
import os
import random
import re
import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from Crypto.Cipher import AES, ARC4
from cryptography.hazmat.primitives.keywrap import aes_key_wrap

import ieee80211 as w

ROOT = Path(__file__).resolve().parents[2]
WLANSEC = os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec"))
pytestmark = pytest.mark.skipif(not Path(WLANSEC).exists(), reason=f"no wlansec binary at {WLANSEC}")

SSID, PASSPHRASE = "independent-net", "not made by wlansec"
AP, STA, HOST = bytes.fromhex("02aa00000001"), bytes.fromhex("02bb00000002"), bytes.fromhex("02cc00000003")
BROADCAST = b"\xff" * 6
ETHERTYPE = 0x88B5  # IEEE 802 local experimental: tshark shows the payload as raw data
LLC_SNAP = bytes.fromhex("aaaa03000000")

# Cipher suite selectors (00-0F-AC-n) and the suites' MIC lengths.
OUI = bytes.fromhex("000fac")
SUITES = {"ccmp128": (4, 8), "gcmp128": (8, 16), "gcmp256": (9, 16), "ccmp256": (10, 16)}
AKM_PSK = 2


# --- the key hierarchy (IEEE 802.11-2020 12.7.1) ---------------------------------------------

def prf(key: bytes, label: bytes, data: bytes, bits: int) -> bytes:
    """PRF-n of 12.7.1.2: HMAC-SHA-1 over label || 0 || data || i, i = 0, 1, ..."""
    out = b"".join(hmac.new(key, label + b"\x00" + data + bytes([i]), hashlib.sha1).digest()
                   for i in range((bits + 159) // 160))
    return out[: bits // 8]


def pairwise_keys(passphrase: str, ssid: str, anonce: bytes, snonce: bytes) -> tuple[bytes, bytes, bytes]:
    """(KCK, KEK, TK) of a CCMP-128 PSK association."""
    pmk = hashlib.pbkdf2_hmac("sha1", passphrase.encode(), ssid.encode(), 4096, 32)
    data = min(AP, STA) + max(AP, STA) + min(anonce, snonce) + max(anonce, snonce)
    ptk = prf(pmk, b"Pairwise key expansion", data, 384)
    return ptk[:16], ptk[16:32], ptk[32:48]


# --- frames ----------------------------------------------------------------------------------

def rsn_element(suite: str) -> bytes:
    selector = OUI + bytes([SUITES[suite][0]])
    body = struct.pack("<H", 1) + selector + struct.pack("<H", 1) + selector + struct.pack("<H", 1) + OUI + bytes([AKM_PSK]) + b"\x00\x00"
    return bytes([48, len(body)]) + body


def beacon(suite: str, seq: int) -> bytes:
    header = struct.pack("<HH", 0x0080, 0) + BROADCAST + AP + AP + struct.pack("<H", seq << 4)
    fixed = bytes(8) + struct.pack("<HH", 100, 0x0011)  # timestamp, interval, ESS | Privacy
    ssid = bytes([0, len(SSID)]) + SSID.encode()
    rates = bytes([1, 4, 0x82, 0x84, 0x8B, 0x96])
    return header + fixed + ssid + rates + rsn_element(suite)


def data_header(ds: int, a1: bytes, a2: bytes, a3: bytes, seq: int, tid: int | None) -> bytes:
    """A data (tid None) or QoS data header; ds: TO_DS or FROM_DS."""
    fc = 0x0008 | (0x0080 if tid is not None else 0) | ds
    h = struct.pack("<HH", fc, 0x002C) + a1 + a2 + a3 + struct.pack("<H", seq << 4)
    return h + (struct.pack("<H", tid) if tid is not None else b"")


def ethernet_of(header: bytes, payload: bytes) -> bytes:
    """The Ethernet II frame a BSS data MPDU carries: DA, SA from the DS bits."""
    fc = struct.unpack_from("<H", header)[0]
    a1, a2, a3 = header[4:10], header[10:16], header[16:22]
    da, sa = (a3, a2) if fc & w.TO_DS else (a1, a3)
    return da + sa + struct.pack(">H", ETHERTYPE) + payload


def msdu(payload: bytes) -> bytes:
    return LLC_SNAP + struct.pack(">H", ETHERTYPE) + payload


def eapol_key(key_info: int, key_length: int, replay: int, nonce: bytes, key_data: bytes = b"", kck: bytes | None = None) -> bytes:
    """An EAPOL-Key frame (RSN descriptor), its MIC (HMAC-SHA-1-128, descriptor version 2)
    computed with the MIC field zero."""
    body = (struct.pack(">BHHQ", 2, key_info, key_length, replay) + nonce + bytes(16) + bytes(8) + bytes(8)
            + bytes(16) + struct.pack(">H", len(key_data)) + key_data)
    frame = bytearray(struct.pack(">BBH", 2, 3, len(body)) + body)
    if kck is not None:
        frame[81:97] = hmac.new(kck, bytes(frame), hashlib.sha1).digest()[:16]
    return bytes(frame)


def eapol_mpdu(from_ap: bool, seq: int, eapol: bytes) -> bytes:
    header = data_header(w.FROM_DS, STA, AP, AP, seq, None) if from_ap else data_header(w.TO_DS, AP, STA, AP, seq, None)
    return header + LLC_SNAP + b"\x88\x8e" + eapol


def wrapped_key_data(kek: bytes, gtk: bytes, gtk_id: int) -> bytes:
    """Message 3's Key Data: the RSN element and the GTK KDE, padded (0xdd 0...) to a
    multiple of 8 octets, wrapped with the KEK (RFC 3394)."""
    gtk_kde = bytes([0xDD, 6 + len(gtk)]) + OUI + b"\x01" + bytes([gtk_id, 0]) + gtk
    plain = rsn_element("ccmp128") + gtk_kde
    if len(plain) % 8:
        plain += b"\xdd" + bytes(7 - len(plain) % 8)
    return aes_key_wrap(kek, plain)


def protect_aead(suite: str, key: bytes, mpdu: bytes, pn: int, key_id: int) -> bytes:
    """CCMP or GCMP (12.5.3, 12.5.5): header with Protected set, the CCMP/GCMP header, the
    ciphertext and the MIC. AAD and CCM nonce from `ieee80211`; GCM's nonce is A2 || PN."""
    h = w.header_len(mpdu)
    aad, ccm_nonce = w.aad_and_nonce(mpdu, pn)
    mic_len = SUITES[suite][1]
    if suite.startswith("ccmp"):
        cipher = AES.new(key, AES.MODE_CCM, nonce=ccm_nonce, mac_len=mic_len)
    else:
        cipher = AES.new(key, AES.MODE_GCM, nonce=mpdu[10:16] + pn.to_bytes(6, "big"), mac_len=mic_len)
    cipher.update(aad)
    sealed, mic = cipher.encrypt_and_digest(mpdu[h:])
    fc = struct.unpack_from("<H", mpdu)[0] | w.PROTECTED
    return struct.pack("<H", fc) + mpdu[2:h] + w.ccmp_header(pn, key_id) + sealed + mic


def protect_wep(key: bytes, mpdu: bytes, iv: int, key_id: int) -> bytes:
    """WEP (12.3.2): IV || Key ID, then RC4(IV || key) over the body and its CRC-32 ICV."""
    h = w.header_len(mpdu)
    iv_bytes = iv.to_bytes(3, "big")
    body = mpdu[h:] + struct.pack("<I", zlib.crc32(mpdu[h:]))
    fc = struct.unpack_from("<H", mpdu)[0] | w.PROTECTED
    return struct.pack("<H", fc) + mpdu[2:h] + iv_bytes + bytes([key_id << 6]) + ARC4.new(iv_bytes + key).encrypt(body)


def flip_bit(frame: bytes, at: int) -> bytes:
    """`frame` with one bit of octet `at` (negative: from the end) inverted."""
    flipped = bytearray(frame)
    flipped[at] ^= 0x04
    return bytes(flipped)


def radiotap(mpdu: bytes) -> bytes:
    """The smallest radiotap header: version 0, 8 octets, no fields."""
    return struct.pack("<BBHI", 0, 0, 8, 0) + mpdu


@dataclass
class Capture:
    """The air in order, and what decryption must give back: every MSDU's Ethernet frame
    and its plaintext MPDU (Protected clear), in air order."""
    frames: list[bytes] = field(default_factory=list)
    ethernet: list[bytes] = field(default_factory=list)
    plain_mpdus: list[bytes] = field(default_factory=list)
    bodies: dict[int, bytes] = field(default_factory=dict)  # frame index -> plaintext body (LLC/SNAP onwards)
    seq: int = 0

    def add(self, frame: bytes, plain_mpdu: bytes | None = None) -> None:
        if plain_mpdu is not None:
            h = w.header_len(plain_mpdu)
            self.bodies[len(self.frames)] = plain_mpdu[h:]
            self.ethernet.append(ethernet_of(plain_mpdu[:h], plain_mpdu[h + 8:]))
            self.plain_mpdus.append(plain_mpdu)
        self.frames.append(frame)
        self.seq += 1


def traffic(rng: random.Random, cap: Capture, count: int, protect, group_protect=None) -> None:
    """`count` MSDUs of every size class, both directions, QoS and not, and (with
    `group_protect`) some from the AP to the broadcast address."""
    for i in range(count):
        payload = rng.randbytes(rng.choice([0, 1, 15, 16, 17, 100, rng.randrange(1, 1500)]))
        tid = rng.choice([None, 0, 5, 7])
        kind = i % 3 if group_protect else i % 2
        if kind == 0:
            header, seal = data_header(w.TO_DS, AP, STA, HOST, cap.seq, tid), protect
        elif kind == 1:
            header, seal = data_header(w.FROM_DS, STA, AP, HOST, cap.seq, tid), protect
        else:
            header, seal = data_header(w.FROM_DS, BROADCAST, AP, HOST, cap.seq, None), group_protect
        mpdu = header + msdu(payload)
        cap.add(seal(mpdu), mpdu)


# --- the captures --------------------------------------------------------------------------

@dataclass
class Wpa2:
    capture: Capture
    tampered: int  # frames with one flipped bit


def wpa2_capture(seed: int) -> Wpa2:
    """Beacon, the 4-way handshake, then CCMP-128 pairwise frames both ways and group frames
    under the GTK, with one pairwise and one group frame tampered (fresh PNs, so they are
    no replays)."""
    rng = random.Random(seed)
    anonce, snonce, gtk = rng.randbytes(32), rng.randbytes(32), rng.randbytes(16)
    kck, kek, tk = pairwise_keys(PASSPHRASE, SSID, anonce, snonce)
    cap = Capture()
    cap.add(beacon("ccmp128", cap.seq))
    # Key Information: version 2 (HMAC-SHA-1, AES key wrap) | Pairwise, then Install 0x40,
    # Ack 0x80, MIC 0x100, Secure 0x200, Encrypted Key Data 0x1000.
    cap.add(eapol_mpdu(True, cap.seq, eapol_key(0x008A, 16, 1, anonce)))
    cap.add(eapol_mpdu(False, cap.seq, eapol_key(0x010A, 0, 1, snonce, rsn_element("ccmp128"), kck)))
    cap.add(eapol_mpdu(True, cap.seq, eapol_key(0x13CA, 16, 2, anonce, wrapped_key_data(kek, gtk, 1), kck)))
    cap.add(eapol_mpdu(False, cap.seq, eapol_key(0x030A, 0, 2, bytes(32), b"", kck)))
    pn = {"pairwise": 0, "group": 0}

    def pairwise(mpdu):
        pn["pairwise"] += 1
        return protect_aead("ccmp128", tk, mpdu, pn["pairwise"], 0)

    def group(mpdu):
        pn["group"] += 1
        return protect_aead("ccmp128", gtk, mpdu, pn["group"], 1)

    traffic(rng, cap, 60, pairwise, group)
    for seal, a1 in ((pairwise, STA), (group, BROADCAST)):
        cap.add(flip_bit(seal(data_header(w.FROM_DS, a1, AP, HOST, cap.seq, None) + msdu(b"tampered")), 24 + 8 + 3))
    traffic(rng, cap, 30, pairwise, group)
    return Wpa2(cap, 2)


def tk_capture(suite: str) -> tuple[Capture, bytes]:
    """A beacon naming `suite` as pairwise cipher, then frames under a random TK both ways,
    and one with a flipped bit; radiotap link type."""
    rng = random.Random(suite)
    tk = rng.randbytes(32 if suite.endswith("256") else 16)
    cap = Capture()
    cap.add(beacon(suite, cap.seq))
    pn = iter(range(1, 1000))
    seal = lambda mpdu: protect_aead(suite, tk, mpdu, next(pn), 0)
    traffic(rng, cap, 40, seal)
    cap.add(flip_bit(seal(data_header(w.TO_DS, AP, STA, HOST, cap.seq, 3) + msdu(rng.randbytes(40))), -1))
    traffic(rng, cap, 10, seal)
    return cap, tk


def wep_capture(seed: int) -> tuple[Capture, bytes]:
    rng = random.Random(seed)
    key = rng.randbytes(13)
    cap = Capture()
    seal = lambda mpdu: protect_wep(key, mpdu, rng.randrange(1 << 24), 1)
    traffic(rng, cap, 40, seal)
    cap.add(flip_bit(seal(data_header(w.FROM_DS, STA, AP, HOST, cap.seq, None) + msdu(rng.randbytes(40))), 24 + 4 + 10))
    traffic(rng, cap, 10, seal)
    return cap, key


# --- running wlansec decrypt ---------------------------------------------------------------

def read_pcap(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert struct.unpack_from("<I", data)[0] == 0xA1B2C3D4
    packets, at = [], 24
    while at < len(data):
        incl = struct.unpack_from("<I", data, at + 8)[0]
        packets.append(data[at + 16: at + 16 + incl])
        at += 16 + incl
    return packets


def decrypt(tmp_path: Path, cap: Capture, linktype: int, *keys: str, keep_80211: bool = False):
    """(exit status, stderr, the summary's counts, the decrypted frames without EAPOL)."""
    pcap, out = tmp_path / "air.pcap", tmp_path / "dec.pcap"
    w.write_pcap(pcap, [radiotap(f) for f in cap.frames] if linktype == 127 else cap.frames, linktype)
    out.unlink(missing_ok=True)
    run = subprocess.run([WLANSEC, "decrypt", *keys, *(["-l"] if keep_80211 else []), str(pcap), "-o", str(out)],
                         capture_output=True, text=True)
    counts = {m.group(1).strip(): int(m.group(2)) for m in re.finditer(r"^(\D+?)\s+(\d+)$", run.stdout, re.M)}
    frames = read_pcap(out) if out.exists() else []
    eapol = (lambda f: f[24 + 6: 24 + 8] == b"\x88\x8e") if keep_80211 else (lambda f: f[12:14] == b"\x88\x8e")
    return run.returncode, run.stderr, counts, [f for f in frames if not eapol(f)]


# --- the tests -----------------------------------------------------------------------------

def test_wpa2_psk_capture_decrypts_to_the_chosen_plaintext(tmp_path):
    wpa2 = wpa2_capture(seed=1)
    cap = wpa2.capture
    code, stderr, counts, frames = decrypt(tmp_path, cap, 105, "-e", SSID, "-p", PASSPHRASE)
    assert code == 0, stderr
    assert frames == cap.ethernet
    protected = len(cap.ethernet) + wpa2.tampered
    assert counts == {
        "Total number of stations seen": 1, "Total number of packets read": len(cap.frames),
        "Total number of WEP data packets": 0, "Total number of WPA data packets": protected,
        "Number of plaintext data packets": 0, "Number of decrypted WEP  packets": 0,
        "Number of decrypted WPA  packets": len(cap.ethernet), "Number of packets failing integrity": wpa2.tampered,
        "Number of packets without a key": 0, "Number of replayed packets": 0, "Number of malformed packets": 0,
        "Number of verified handshakes": 1, "Number of handshakes failing the MIC": 0,
        "Number of group keys installed": 1, "Number of refused handshake messages": 0,
        "Number of frames written": len(cap.ethernet), "Number of decrypted frames not written": 0,
    }
    # The 802.11 form: each MPDU as it was before protection.
    code, stderr, _, frames = decrypt(tmp_path, cap, 105, "-e", SSID, "-p", PASSPHRASE, keep_80211=True)
    assert code == 0, stderr
    assert frames == cap.plain_mpdus


def test_wpa2_capture_with_a_wrong_passphrase_decrypts_nothing(tmp_path):
    cap = wpa2_capture(seed=2).capture
    code, stderr, counts, frames = decrypt(tmp_path, cap, 105, "-e", SSID, "-p", "a wrong passphrase")
    assert code != 0 and "passphrase (or PMK) does not match" in stderr
    assert frames == []
    assert counts["Number of decrypted WPA  packets"] == 0 and counts["Number of handshakes failing the MIC"] == 1


@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark")
def test_tshark_decrypts_the_python_made_wpa2_capture(tmp_path):
    """Wireshark derives the keys from the passphrase and the handshake made here and opens
    every pairwise and group frame to the chosen body, and neither tampered frame."""
    cap = wpa2_capture(seed=3).capture
    pcap = tmp_path / "air.pcap"
    w.write_pcap(pcap, cap.frames)
    packets = w.tshark_data_sources(pcap, "wlan.enable_decryption:TRUE", f'uat:80211_keys:"wpa-pwd","{PASSPHRASE}:{SSID}"')
    assert len(packets) == len(cap.frames)
    decrypted = {i: p["Decrypted CCMP data"] for i, p in enumerate(packets) if "Decrypted CCMP data" in p}
    assert decrypted == cap.bodies


@pytest.mark.parametrize("suite", ["ccmp256", "gcmp128", "gcmp256"])
def test_tk_capture_decrypts_to_the_chosen_plaintext(tmp_path, suite):
    cap, tk = tk_capture(suite)
    code, stderr, counts, frames = decrypt(tmp_path, cap, 127, "--tk", tk.hex(), keep_80211=True)
    assert code == 0, stderr
    assert frames == cap.plain_mpdus
    assert (counts["Total number of WPA data packets"], counts["Number of decrypted WPA  packets"],
            counts["Number of packets failing integrity"]) == (len(cap.plain_mpdus) + 1, len(cap.plain_mpdus), 1)
    _, _, _, frames = decrypt(tmp_path, cap, 127, "--tk", tk.hex())
    assert frames == cap.ethernet
    # A TK one bit off opens nothing.
    code, _, counts, frames = decrypt(tmp_path, cap, 127, "--tk", flip_bit(tk, 0).hex())
    assert frames == [] and counts["Number of packets failing integrity"] == len(cap.plain_mpdus) + 1


@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark")
@pytest.mark.parametrize("suite", ["ccmp256", "gcmp128", "gcmp256", "wep104"])
def test_tshark_decrypts_the_python_made_key_captures(tmp_path, suite):
    pcap = tmp_path / "air.pcap"
    if suite == "wep104":
        cap, key = wep_capture(seed=4)
        w.write_pcap(pcap, cap.frames)
        uat, source = f'"wep","{key.hex(":")}"', "Decrypted WEP data"
        # tshark 4.0 does not try WEP on a body of 8 octets (shows it as data, ICV "not verified").
        expected = {i: body for i, body in cap.bodies.items() if len(body) > 8}
    else:
        cap, key = tk_capture(suite)
        w.write_pcap(pcap, [radiotap(f) for f in cap.frames], 127)
        uat, source = f'"tk","{key.hex()}"', f"Decrypted {suite[:4].upper()} data"
        expected = cap.bodies
    packets = w.tshark_data_sources(pcap, "wlan.enable_decryption:TRUE", f"uat:80211_keys:{uat}")
    assert len(expected) > 30
    assert {i: p[source] for i, p in enumerate(packets) if source in p} == expected


def test_wep104_capture_decrypts_to_the_chosen_plaintext(tmp_path):
    cap, key = wep_capture(seed=4)
    code, stderr, counts, frames = decrypt(tmp_path, cap, 105, "--wep-key", key.hex(), keep_80211=True)
    assert code == 0, stderr
    assert frames == cap.plain_mpdus
    assert (counts["Total number of WEP data packets"], counts["Number of decrypted WEP  packets"],
            counts["Number of packets failing integrity"]) == (len(cap.plain_mpdus) + 1, len(cap.plain_mpdus), 1)
    _, _, _, frames = decrypt(tmp_path, cap, 105, "--wep-key", key.hex())
    assert frames == cap.ethernet
    _, _, counts, frames = decrypt(tmp_path, cap, 105, "--wep-key", flip_bit(key, 5).hex())
    assert frames == [] and counts["Number of packets failing integrity"] == len(cap.plain_mpdus) + 1
