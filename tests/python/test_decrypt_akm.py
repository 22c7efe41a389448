"""One `wlansec synth` capture per AKM suite, decrypted by tshark and `wlansec decrypt`.

For each AKM (PSK and 802.1X with SHA-1 or SHA-256, FT-PSK and FT-802.1X, SAE, OWE, Suite B
and Suite B 192-bit) tshark 4.0 must give back the Ethernet frames that went in (it takes
the passphrase, or the PMK as `wpa-psk`, and derives the PTK itself from the handshake in
the capture), and `wlansec decrypt` all of them. tshark 4.0 cannot decrypt the group frames
of the AKMs with a 24-octet KCK (Suite B 192-bit, FT-802.1X-SHA384): it keeps every GTK
where a 16-octet KCK and KEK would end, 32 octets into its PTK buffer, but looks for it
after the 24-octet KCK and 32-octet KEK; those are checked against what went in only.
Extended Key ID too: a PTK under Key ID 1, then a PTK rekey to Key ID 0 while the station
goes on sending under the old key.

Independently of both, each capture's message 2 MIC is recomputed here from the PMK with
Python's hashlib/hmac and pycryptodome's CMAC (the PRF or KDF of the AKM, the FT chain
PMK-R0 -> PMK-R1 -> PTK from the capture's FT elements, the KCK length and MIC of the AKM).
Then the errors: SAE given only a passphrase, and an AKM without a key hierarchy here.
"""

import hashlib
import hmac
import struct
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest
from Crypto.Hash import CMAC
from Crypto.Cipher import AES

from test_decrypt_interop import (
    PASSPHRASE, SSID, WLANSEC, eapol_key_info, ours, pairwise_only, read_pcap, stations_of, tshark,
    without_eapol, without_wds, write_pcap,
)

pytestmark = pytest.mark.skipif(
    not Path(WLANSEC).exists() or subprocess.run(["which", "tshark"], capture_output=True).returncode,
    reason="needs the wlansec release binary and tshark (make setup)",
)

PMK = bytes(range(0x40, 0x60))
PMK_384 = bytes(range(0x40, 0x70))

class Akm(NamedTuple):
    """One AKM's capture and key hierarchy: the one table both parametrised tests read."""
    name: str
    suite: str
    pmk: bytes | None  # given with --pmk, or None: derived from the passphrase
    hash: str  # the PRF's (sha1) or KDF's hash
    kck_len: int
    mic: str
    mic_len: int
    ft: bool

    @property
    def wlansec_keys(self) -> list[str]:
        return ["--pmk", self.pmk.hex()] if self.pmk else ["-e", SSID, "-p", PASSPHRASE]

    @property
    def tshark_key(self) -> tuple[str, str]:
        return ("wpa-psk", self.pmk.hex()) if self.pmk else ("wpa-pwd", f"{PASSPHRASE}:{SSID}")

    @property
    def tk_len(self) -> int:
        return 16 if self.suite in ("ccmp128", "gcmp128") else 32


AKMS = [
    Akm("psk", "ccmp128", None, "sha1", 16, "hmac-sha1", 16, False),
    Akm("psk-sha256", "ccmp128", None, "sha256", 16, "cmac", 16, False),
    Akm("ft-psk", "ccmp128", None, "sha256", 16, "cmac", 16, True),
    Akm("802.1x", "ccmp128", PMK, "sha1", 16, "hmac-sha1", 16, False),
    Akm("802.1x-sha256", "gcmp128", PMK, "sha256", 16, "cmac", 16, False),
    Akm("ft-802.1x", "ccmp256", PMK, "sha256", 16, "cmac", 16, True),
    Akm("ft-802.1x-sha384", "gcmp256", PMK_384, "sha384", 24, "hmac-sha384", 24, True),
    Akm("sae", "ccmp128", PMK, "sha256", 16, "cmac", 16, False),
    Akm("ft-sae", "ccmp128", PMK, "sha256", 16, "cmac", 16, True),
    Akm("owe", "ccmp128", PMK, "sha256", 16, "hmac-sha256", 16, False),
    Akm("suite-b", "gcmp128", PMK, "sha256", 16, "hmac-sha256", 16, False),
    Akm("suite-b-192", "gcmp256", PMK_384, "sha384", 24, "hmac-sha384", 24, False),
]
each_akm = pytest.mark.parametrize("akm", AKMS, ids=lambda a: a.name)
BY_NAME = {a.name: a for a in AKMS}


def synth(tmp, akm: Akm, stations=2):
    cap, plain = tmp / f"{akm.name}.pcap", tmp / f"{akm.name}-plain.pcap"
    keys = ["--pmk", akm.pmk.hex()] if akm.pmk else []
    subprocess.run(
        [WLANSEC, "synth", "-o", cap, "--plain", plain, "-e", SSID, "-p", PASSPHRASE, "--akm", akm.name,
         "--suite", akm.suite, *keys, "--stations", str(stations), "--frames", "150", "--rekey",
         "--fragment-every", "4", "--seed", "24"],
        check=True, capture_output=True,
    )
    return cap, read_pcap(plain)[1]


@each_akm
def test_each_akm_decrypts_as_tshark_does(tmp_path, akm):
    cap, plain = synth(tmp_path, akm)
    stations = stations_of(cap)
    expected = without_wds(plain, stations)
    if akm.kck_len == 24:
        expected = pairwise_only(expected, stations)
    assert tshark(cap, *akm.tshark_key) == expected
    run, frames = ours(cap, *akm.wlansec_keys)
    assert without_eapol(frames) == plain
    assert "Number of verified handshakes" in run.stdout


# --- the message 2 MIC, recomputed independently ---------------------------------------------

def kdf(hash_name, key, label, context, length):
    """IEEE 802.11 KDF-Hash-Length (16-bit little-endian counter from 1 and length in bits),
    or for SHA-1 the PRF (label, a zero octet, the data, an 8-bit counter from 0)."""
    out, i = b"", 0
    while len(out) < length:
        if hash_name == "sha1":
            out += hmac.new(key, label + b"\0" + context + bytes([i]), "sha1").digest()
        else:
            msg = (i + 1).to_bytes(2, "little") + label + context + (length * 8).to_bytes(2, "little")
            out += hmac.new(key, msg, hash_name).digest()
        i += 1
    return out[:length]


def eapol_messages(cap):
    """(addr1, addr2, EAPOL frame) of the unprotected EAPOL-Key frames, in order."""
    out = []
    for mpdu in read_pcap(cap)[1]:
        found = eapol_key_info(mpdu)
        if found:
            at, _ = found
            length = struct.unpack_from(">H", mpdu, at + 2)[0]
            out.append((mpdu[4:10], mpdu[10:16], mpdu[at : at + 4 + length]))
    return out


def elements(data):
    """(ID, body) of the elements in message 2's Key Data (not encrypted, no padding)."""
    while len(data) >= 2:
        yield data[0], data[2 : 2 + data[1]]
        data = data[2 + data[1] :]


def ft_pmk_r1(xxkey, hash_name, ssid, key_data, spa, fte_mic_len):
    """PMK-R0 then PMK-R1 from the MDE and FTE that message 2 carries (12.7.1.7.3-4); the
    PMK-R0 name does not enter PMK-R1 (only its name, PMKR1Name, which is not needed here)."""
    found = dict(elements(key_data))
    mdid, fte = found[54][:2], found[55]
    subelements, rest = {}, fte[2 + fte_mic_len + 64 :]
    while rest:
        subelements[rest[0]] = rest[2 : 2 + rest[1]]
        rest = rest[2 + rest[1] :]
    r0kh, r1kh = subelements[3], subelements[1]
    q = hashlib.new(hash_name).digest_size
    context = bytes([len(ssid)]) + ssid + mdid + bytes([len(r0kh)]) + r0kh + spa
    r0_key_data = kdf(hash_name, xxkey, b"FT-R0", context, q + 16)
    return kdf(hash_name, r0_key_data[:q], b"FT-R1", r1kh + spa, q)


@each_akm
def test_message_2_mic_recomputed_independently(tmp_path, akm):
    cap, _ = synth(tmp_path, akm, stations=1)
    pmk, hash_name, kck_len, mic_kind, mic_len = akm.pmk, akm.hash, akm.kck_len, akm.mic, akm.mic_len
    if pmk is None:
        pmk = hashlib.pbkdf2_hmac("sha1", PASSPHRASE.encode(), SSID.encode(), 4096, 32)
    msgs = eapol_messages(cap)
    (_, aa, m1), (_, spa, m2) = msgs[0], msgs[1]
    anonce, snonce = m1[17:49], m2[17:49]
    key_data = m2[81 + mic_len + 2 :]
    length = kck_len + (32 if kck_len == 24 else 16) + akm.tk_len
    if akm.ft:
        pmk_r1 = ft_pmk_r1(pmk, hash_name, SSID.encode(), key_data, spa, mic_len)
        ptk = kdf(hash_name, pmk_r1, b"FT-PTK", snonce + anonce + aa + spa, length)
    else:
        context = min(aa, spa) + max(aa, spa) + min(anonce, snonce) + max(anonce, snonce)
        ptk = kdf(hash_name, pmk, b"Pairwise key expansion", context, length)
    kck = ptk[:kck_len]
    zeroed = m2[:81] + bytes(mic_len) + m2[81 + mic_len :]
    if mic_kind == "cmac":
        mic = CMAC.new(kck, zeroed, ciphermod=AES).digest()
    else:
        mic = hmac.new(kck, zeroed, mic_kind.split("-")[1]).digest()[:mic_len]
    assert mic == m2[81 : 81 + mic_len], akm.name
    version = struct.unpack_from(">H", m2, 5)[0] & 7
    assert version == {"hmac-sha1": 2, "cmac": 0 if "sae" in akm.name else 3}.get(mic_kind, 0), "key descriptor version"


def test_extended_key_id_keeps_both_ptks(tmp_path):
    """Pairwise frames under Key ID 1, then station 0's PTK rekeyed to Key ID 0 while it goes
    on sending under Key ID 1: both keys are in use at once, each frame opens under its own."""
    cap, plain = tmp_path / "ext.pcap", tmp_path / "ext-plain.pcap"
    subprocess.run(
        [WLANSEC, "synth", "-o", cap, "--plain", plain, "-e", SSID, "-p", PASSPHRASE, "--extended-key-id",
         "--rekey", "--stations", "2", "--frames", "300", "--fragment-every", "5", "--seed", "25"],
        check=True, capture_output=True,
    )
    plain = read_pcap(plain)[1]
    key_ids = set()
    for p in read_pcap(cap)[1]:
        if (p[0] >> 2) & 3 == 2 and p[1] & 0x40 and not p[4] & 1:
            at = 24 + (6 if p[1] & 3 == 3 else 0) + (2 if p[0] & 0x80 else 0)
            key_ids.add((p[1] & 3, p[at + 3] >> 6))
    # (DS bits, Key ID): the AP sends under Key ID 1, then 0; the station under 1 throughout.
    assert {(1, 1), (2, 1), (2, 0)} <= key_ids and (1, 0) not in key_ids, key_ids
    assert tshark(cap, "wpa-pwd", f"{PASSPHRASE}:{SSID}") == without_wds(plain, stations_of(cap))
    run, frames = ours(cap, "-e", SSID, "-p", PASSPHRASE)
    assert without_eapol(frames) == plain
    assert "integrity" not in run.stderr


# --- the errors ------------------------------------------------------------------------------

def test_sae_with_a_passphrase_asks_for_the_pmk(tmp_path):
    cap, _ = synth(tmp_path, BY_NAME["sae"])
    run, _ = ours(cap, "-e", SSID, "-p", PASSPHRASE, check=False)
    assert run.returncode == 1
    assert "SAE" in run.stderr and "cannot derive" in run.stderr and "--pmk" in run.stderr, run.stderr


def test_an_akm_without_a_key_hierarchy_is_named(tmp_path):
    """A PSK capture whose RSN elements say FILS-SHA256 (00-0F-AC:14)."""
    cap, _ = synth(tmp_path, BY_NAME["psk"])
    link, packets = read_pcap(cap)
    fils = [p.replace(bytes.fromhex("0100000fac02"), bytes.fromhex("0100000fac0e")) for p in packets]
    write_pcap(tmp_path / "fils.pcap", link, fils)
    run, _ = ours(tmp_path / "fils.pcap", "-e", SSID, "-p", PASSPHRASE, check=False)
    assert run.returncode == 1
    assert "00-0F-AC:14 (FILS-SHA256)" in run.stderr and "--tk" in run.stderr, run.stderr
