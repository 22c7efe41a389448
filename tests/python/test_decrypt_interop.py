"""`wlansec synth` captures decrypted by tshark, airdecap-ng and `wlansec decrypt`.

Every synthetic capture carries known Ethernet frames (`synth --plain`). tshark (key types
wpa-pwd / wep) must give back all of them; airdecap-ng, which has no group keys and no
fragment reassembly, must give back exactly the pairwise ones (captures for it are made
without fragments); `wlansec decrypt` must give back all of them, and exactly airdecap-ng's
frames once group-addressed frames are set aside. Then the failure cases: wrong passphrase,
truncated captures, forged MICs, missing messages 1 or 3.
"""

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WLANSEC = os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec"))
SSID = "wlansec-lab"
PASSPHRASE = "correct horse battery"
WEP_KEY = "0102030405060708090a0b0c0d"

pytestmark = pytest.mark.skipif(
    not (Path(WLANSEC).exists() and shutil.which("tshark") and shutil.which("airdecap-ng")),
    reason="needs the wlansec release binary, tshark and airdecap-ng (make setup)",
)


# --- capture files -----------------------------------------------------------------------

def read_pcap(path):
    """(link type, [packet bytes]) of a little-endian microsecond pcap file."""
    data = Path(path).read_bytes()
    magic, _, _, _, _, _, link = struct.unpack_from("<IHHiIII", data, 0)
    assert magic == 0xA1B2C3D4, f"{path}: not a little-endian pcap"
    packets, at = [], 24
    while at + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from("<IIII", data, at)
        packets.append(data[at + 16 : at + 16 + incl])
        at += 16 + incl
    return link, packets


def write_pcap(path, link, packets):
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, link))
    for i, p in enumerate(packets):
        out += struct.pack("<IIII", 1_700_000_000, i, len(p), len(p)) + p
    Path(path).write_bytes(bytes(out))


def is_group(mac):
    return mac[0] & 1 == 1


def eapol_key_info(mpdu):
    """Key Information of an unprotected EAPOL-Key data frame, else None."""
    if len(mpdu) < 24 or (mpdu[0] >> 2) & 3 != 2 or mpdu[1] & 0x40:
        return None
    h = 24 + (6 if mpdu[1] & 3 == 3 else 0) + (2 if mpdu[0] & 0x80 else 0)
    if mpdu[h : h + 8] != b"\xaa\xaa\x03\x00\x00\x00\x88\x8e" or mpdu[h + 9] != 3:
        return None
    return h + 8, struct.unpack_from(">H", mpdu, h + 8 + 5)[0]


def without_eapol(frames):
    return [f for f in frames if f[12:14] != b"\x88\x8e"]


# --- the tools -------------------------------------------------------------------------

def synth(tmp, name, *args):
    cap, plain = tmp / f"{name}.pcap", tmp / f"{name}-plain.pcap"
    subprocess.run(
        [WLANSEC, "synth", "-o", cap, "--plain", plain, "-e", SSID, "-p", PASSPHRASE, *args],
        check=True, capture_output=True,
    )
    return cap, read_pcap(plain)[1]


def ours(cap, *keys, check=True):
    out = Path(str(cap) + ".ours")
    run = subprocess.run([WLANSEC, "decrypt", *keys, str(cap), "-o", str(out), "--format", "pcap"], capture_output=True, text=True)
    if check:
        assert run.returncode == 0, run.stderr
    frames = read_pcap(out)[1] if out.exists() else []
    return run, frames


def airdecap(cap, *keys):
    out = Path(str(cap) + ".airdecap")
    run = subprocess.run(["airdecap-ng", *keys, "-o", str(out), str(cap)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    link, frames = read_pcap(out)
    assert link == 1
    return run.stdout, frames


def tshark(cap, key_type, key):
    """The Ethernet frames tshark decrypts (reassembling fragments), rebuilt from DA, SA,
    EtherType and the payload (IP dissection off, so the payload stays raw data)."""
    run = subprocess.run(
        ["tshark", "-r", str(cap), "-o", "wlan.enable_decryption:TRUE",
         "-o", f'uat:80211_keys:"{key_type}","{key}"',
         "--disable-protocol", "ip", "--disable-protocol", "ipv6",
         "-Y", "llc && llc.type != 0x888e",
         "-T", "fields", "-e", "wlan.da", "-e", "wlan.sa", "-e", "llc.type", "-e", "data.data"],
        capture_output=True, text=True, check=True,
    )
    frames = []
    for line in run.stdout.splitlines():
        da, sa, ethertype, payload = line.split("\t")
        frames.append(
            bytes.fromhex(da.replace(":", "")) + bytes.fromhex(sa.replace(":", ""))
            + int(ethertype, 16).to_bytes(2, "big") + bytes.fromhex(payload.replace(":", ""))
        )
    return frames


def pairwise_only(frames, stations):
    """The frames airdecap-ng can decrypt: everything but what the AP sent to a group."""
    return [f for f in frames if not (is_group(f[0:6]) and f[6:12] not in stations)]


def without_wds(frames, stations):
    """tshark 4.0 does not decrypt 4-address frames: synth sends exactly the frames between
    two hosts behind the AP and behind station 0 that way."""
    return [f for f in frames if is_group(f[0:6]) or f[0:6] in stations or f[6:12] in stations]


def stations_of(cap):
    """Station addresses: transmitters of To-DS data frames."""
    _, packets = read_pcap(cap)
    return {p[10:16] for p in packets if len(p) >= 24 and (p[0] >> 2) & 3 == 2 and p[1] & 3 in (1, 3)}


TSHARK_WPA = ("wpa-pwd", f"{PASSPHRASE}:{SSID}")
PSK = ("-e", SSID, "-p", PASSPHRASE)


# --- interop: every suite the other tools know ---------------------------------------------

def tshark_expected(suite, plain, stations):
    """What tshark 4.0 can decrypt: no 4-address frames; and for TKIP, whose GTK it does not
    take from RSN message 3 (RC4-encrypted Key Data, checked independently below), no
    frames the AP sent to a group address."""
    expected = without_wds(plain, stations)
    return pairwise_only(expected, stations) if suite == "tkip" else expected


@pytest.mark.parametrize("suite", ["ccmp128", "ccmp256", "gcmp128", "gcmp256", "tkip"])
def test_wpa_with_fragments_and_rekey(tmp_path, suite):
    """tshark 4.0 strips a Michael MIC from every TKIP fragment, so TKIP fragments are
    checked against what went in only (the TKIP suite itself is checked against vectors)."""
    cap, plain = synth(tmp_path, suite, "--suite", suite, "--stations", "3", "--frames", "400",
                       "--rekey", "--fragment-every", "5", "--seed", "11")
    stations = stations_of(cap)
    if suite != "tkip":
        assert tshark(cap, *TSHARK_WPA) == tshark_expected(suite, plain, stations)
    run, frames = ours(cap, *PSK)
    assert without_eapol(frames) == plain
    assert "Number of verified handshakes" in run.stdout


@pytest.mark.parametrize("suite", ["ccmp128", "tkip"])
def test_wpa_matches_airdecap_ng(tmp_path, suite):
    cap, plain = synth(tmp_path, suite, "--suite", suite, "--stations", "4", "--frames", "400",
                       "--rekey", "--fragment-every", "0", "--seed", "12")
    stations = stations_of(cap)
    summary, theirs = airdecap(cap, *PSK)
    assert without_eapol(theirs) == pairwise_only(plain, stations)
    run, frames = ours(cap, *PSK)
    assert without_eapol(frames) == plain
    assert pairwise_only(frames, stations) == theirs
    assert tshark(cap, *TSHARK_WPA) == tshark_expected(suite, plain, stations)
    # The same packet counts as airdecap-ng.
    for label in ["Total number of packets read", "Total number of WPA data packets"]:
        theirs_n = next(l for l in summary.splitlines() if label in l).split()[-1]
        ours_n = next(l for l in run.stdout.splitlines() if label in l).split()[-1]
        assert theirs_n == ours_n, label


@pytest.mark.parametrize("suite", ["wep40", "wep104"])
def test_wep_matches_tshark_and_airdecap_ng(tmp_path, suite):
    key = WEP_KEY[:10] if suite == "wep40" else WEP_KEY
    cap, plain = synth(tmp_path, suite, "--suite", suite, "--wep-key", key, "--frames", "300",
                       "--fragment-every", "0", "--seed", "13")
    _, theirs = airdecap(cap, "-w", key)
    run, frames = ours(cap, "--wep-key", key)
    assert frames == plain
    assert frames == theirs
    colon_key = ":".join(key[i : i + 2] for i in range(0, len(key), 2))
    assert tshark(cap, "wep", colon_key) == plain


def test_radiotap_fcs_pcapng_and_pmk(tmp_path):
    """Radiotap with FCS in pcapng: tshark and wlansec decrypt agree; --pmk works too."""
    cap, plain = synth(tmp_path, "rt", "--link", "radiotap", "--fcs", "--format", "pcapng", "--frames", "150")
    stations = {f[6:12] for f in plain} & {f[0:6] for f in plain}
    assert len(tshark(cap, *TSHARK_WPA)) > 100
    _, frames = ours(cap, *PSK)
    assert without_eapol(frames) == plain
    pmk = subprocess.run(
        ["python3", "-c", "import hashlib,sys; print(hashlib.pbkdf2_hmac('sha1', sys.argv[1].encode(), sys.argv[2].encode(), 4096, 32).hex())",
         PASSPHRASE, SSID], capture_output=True, text=True, check=True).stdout.strip()
    _, frames = ours(cap, "--pmk", pmk)
    assert without_eapol(frames) == plain


def test_tkip_message3_key_data_decrypts_independently(tmp_path):
    """PTK (PRF-SHA1 over PBKDF2 PMK, hashlib) and the RC4 Key Data of a TKIP message 3
    (pycryptodome ARC4, Key IV || KEK, 256 octets skipped) recomputed outside wlansec: the
    plaintext is the RSN element and a GTK KDE with a 32-octet GTK."""
    import hashlib
    import hmac

    from Crypto.Cipher import ARC4

    cap, _ = synth(tmp_path, "tkipm3", "--suite", "tkip", "--stations", "1", "--frames", "5")
    _, packets = read_pcap(cap)
    messages = [(p, *eapol_key_info(p)) for p in packets if eapol_key_info(p)]
    (m1, at1, _), (m2, at2, _), (m3, at3, _) = messages[:3]
    ap, sta = m1[10:16], m1[4:10]
    anonce, snonce = m1[at1 + 17 : at1 + 49], m2[at2 + 17 : at2 + 49]
    pmk = hashlib.pbkdf2_hmac("sha1", PASSPHRASE.encode(), SSID.encode(), 4096, 32)
    data = min(ap, sta) + max(ap, sta) + min(anonce, snonce) + max(anonce, snonce)
    ptk = b"".join(hmac.new(pmk, b"Pairwise key expansion\x00" + data + bytes([i]), hashlib.sha1).digest() for i in range(4))
    kck, kek = ptk[:16], ptk[16:32]
    eapol2 = bytearray(m2[at2:])
    mic = bytes(eapol2[81:97])
    eapol2[81:97] = bytes(16)
    assert hmac.new(kck, bytes(eapol2), hashlib.md5).digest() == mic
    key_iv = m3[at3 + 49 : at3 + 65]
    length = struct.unpack_from(">H", m3, at3 + 97)[0]
    rc4 = ARC4.new(key_iv + kek)
    rc4.encrypt(bytes(256))
    plain = rc4.decrypt(m3[at3 + 99 : at3 + 99 + length])
    assert plain[0] == 48 and plain[2 + plain[1]] == 0xDD
    kde = plain[2 + plain[1] :]
    assert kde[2:6] == b"\x00\x0f\xac\x01" and kde[1] == 4 + 2 + 32


def test_tk_from_tshark_decrypts_the_pairwise_frames(tmp_path):
    """The TK tshark derives (its key analysis) given to `wlansec decrypt --tk`: every
    pairwise frame of that station comes back; group frames need the GTK and are reported."""
    import re

    cap, plain = synth(tmp_path, "tk", "--stations", "1", "--frames", "80", "--fragment-every", "0")
    run = subprocess.run(
        ["tshark", "-r", str(cap), "-o", "wlan.enable_decryption:TRUE", "-o", f'uat:80211_keys:"{TSHARK_WPA[0]}","{TSHARK_WPA[1]}"', "-V"],
        capture_output=True, text=True, check=True,
    )
    tk = re.search(r"\[TK: ([0-9a-f]{32})\]", run.stdout).group(1)
    run, frames = ours(cap, "--tk", tk)
    assert without_eapol(frames) == pairwise_only(plain, stations_of(cap))
    assert "no group key" in run.stderr


# --- failures: clear errors, nothing decrypted wrongly ----------------------------------

def test_wrong_passphrase_is_reported_and_decrypts_nothing(tmp_path):
    cap, _ = synth(tmp_path, "w", "--frames", "50")
    run, frames = ours(cap, "-e", SSID, "-p", "not the passphrase", check=False)
    assert run.returncode != 0
    assert "passphrase (or PMK) does not match" in run.stderr
    assert frames == []


def test_no_handshake_is_reported(tmp_path):
    cap, _ = synth(tmp_path, "n", "--frames", "50")
    link, packets = read_pcap(cap)
    write_pcap(tmp_path / "nohs.pcap", link, [p for p in packets if eapol_key_info(p) is None])
    run, frames = ours(tmp_path / "nohs.pcap", *PSK, check=False)
    assert run.returncode != 0 and "no 4-way handshake" in run.stderr
    assert frames == []


def test_truncated_captures_give_a_prefix_and_a_clear_error(tmp_path):
    """Cut short, a capture decrypts up to the cut with a warning and exit status 3 (partial);
    cut before any handshake, it is the no-handshake error (status 1)."""
    cap, plain = synth(tmp_path, "t", "--frames", "120", "--fragment-every", "0")
    data = cap.read_bytes()
    for cut, status in [(len(data) - 7, 3), (len(data) // 2 + 3, 3), (24 + 9, 1)]:
        short = tmp_path / f"cut{cut}.pcap"
        short.write_bytes(data[:cut])
        run, frames = ours(short, *PSK, check=False)
        assert run.returncode == status, run.stderr
        assert ("damaged record" if status == 3 else "no 4-way handshake") in run.stderr, run.stderr
        assert "panicked" not in run.stderr
        frames = without_eapol(frames)
        assert frames == plain[: len(frames)]


def _edit_messages(tmp_path, name, keep, edit=None):
    cap, plain = synth(tmp_path, name, "--stations", "3", "--frames", "200", "--fragment-every", "0")
    link, packets = read_pcap(cap)
    out = []
    for p in packets:
        info = eapol_key_info(p)
        if info is not None:
            at, key_info = info
            if not keep(key_info):
                continue
            if edit:
                p = edit(p, at, key_info)
        out.append(p)
    path = tmp_path / f"{name}-edited.pcap"
    write_pcap(path, link, out)
    return path, plain, stations_of(cap)


M1 = lambda ki: ki & 0x0188 == 0x0088  # Pairwise, Ack, no MIC
M3 = lambda ki: ki & 0x01C8 == 0x01C8  # Pairwise, Install, Ack, MIC
M2 = lambda ki: ki & 0x03C8 == 0x0108  # Pairwise, MIC, not Secure


def test_forged_message2_mic_installs_no_key(tmp_path):
    def forge(p, at, ki):
        if not M2(ki):
            return p
        p = bytearray(p)
        p[at + 81] ^= 0x01
        return bytes(p)

    path, plain, _ = _edit_messages(tmp_path, "forged", lambda ki: True, forge)
    run, frames = ours(path, *PSK, check=False)
    assert run.returncode != 0
    assert "does not match" in run.stderr
    assert frames == []


def test_forged_message3_mic_installs_no_group_key(tmp_path):
    def forge(p, at, ki):
        if not M3(ki):
            return p
        p = bytearray(p)
        p[at + 90] ^= 0x80
        return bytes(p)

    path, plain, stations = _edit_messages(tmp_path, "forged3", lambda ki: True, forge)
    run, frames = ours(path, *PSK)
    assert "Number of refused handshake messages" in run.stdout
    assert without_eapol(frames) == pairwise_only(plain, stations)


def test_missing_message1_still_decrypts_from_message3(tmp_path):
    path, plain, _ = _edit_messages(tmp_path, "nom1", lambda ki: not M1(ki))
    _, frames = ours(path, *PSK)
    assert without_eapol(frames) == plain


def test_missing_message3_decrypts_pairwise_only_and_says_so(tmp_path):
    path, plain, stations = _edit_messages(tmp_path, "nom3", lambda ki: not M3(ki))
    run, frames = ours(path, *PSK)
    assert without_eapol(frames) == pairwise_only(plain, stations)
    assert "no group key" in run.stderr
