"""GCMP-256 and SAE-EXT-KEY in the emulated WLAN, as root: `wlansec wlan up --security sae-ext`
(AKM 24, GCMP-256, PMF required, BIP-GMAC-256, beacons protected; group 19 by default and 20
with `--sae-groups 20`) and `--security gcmp256` (WPA2-PSK with GCMP-256) carry ping over IPv4
and IPv6 and a TCP transfer. tshark dissects AKM 24 (AKM 2) and GCMP-256 as pairwise and group
cipher and BIP-GMAC-256 in the association requests. tshark 4.0 decrypts the gcmp256 capture
with the passphrase; it does not know AKM 24 ("Unknown akm": no KCK, KEK or PTK length), so the
sae-ext capture is decrypted by `wlansec decrypt` with the PMKs `--keylog` wrote, and one link's
frames independently here: the PTK from the PMK and the nonces of the capture's EAPOL-Key
frames (KDF-SHA-256/384 of IEEE 802.11-2020 12.7.1.6.2), each frame opened by pycryptodome's
AES-GCM (nonce A2 || PN, the CCMP AAD). Options that cannot work are refused."""

import hashlib
import hmac
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from Crypto.Cipher import AES

import ieee80211 as w
from test_wlan import PASSPHRASE, Wlan, netns, ping, tcp, wlansec

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the emulated WLAN needs root (network namespaces, TAP)"),
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="needs /dev/net/tun"),
    pytest.mark.skipif(not (shutil.which("ip") and shutil.which("ping") and shutil.which("iperf3")), reason="needs ip, ping and iperf3 (make setup)"),
    pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)"),
]

EAPOL_SNAP = bytes.fromhex("aaaa03000000888e")
GCMP_256, BIP_GMAC_256 = "9", "12"


def tshark(pcap, *args):
    return subprocess.run(["tshark", "-r", str(pcap), *args], capture_output=True, text=True, check=True).stdout


def carries_traffic(w):
    for family in ("ipv4", "ipv6"):
        ping(w, "sta1", "sta2", family)
        ping(w, "sta1", "ap", family)
    tcp(w, "sta1", "sta2", "ipv4")
    # Five echo requests with a pattern to find again in the decrypted capture.
    netns(w.ns("sta1"), "ping", "-c", "5", "-i", "0.05", "-p", "c0ffee", w.addr("sta2", "ipv4"))


def associations(pcap):
    """(AKM, pairwise, group, group management cipher, MFPR) of each association request."""
    fields = ["wlan.rsn.akms.type", "wlan.rsn.pcs.type", "wlan.rsn.gcs.type", "wlan.rsn.gmcs.type", "wlan.rsn.capabilities.mfpr"]
    out = tshark(pcap, "-Y", "wlan.fc.type_subtype == 0", "-T", "fields", *(a for f in fields for a in ("-e", f)))
    return [tuple(l.split("\t")) for l in out.splitlines()]


def mpdus(pcap):
    """The capture's MPDUs (radiotap stripped)."""
    linktype, packets = w.read_pcap(pcap)
    if linktype == 127:
        return [p[struct.unpack_from("<H", p, 2)[0]:] for p in packets]
    assert linktype == 105, linktype
    return packets


def kdf(hash_, key, label, context, bits):
    """KDF-Hash-Length (IEEE 802.11-2020 12.7.1.6.2)."""
    out, i = b"", 1
    while len(out) * 8 < bits:
        out += hmac.new(key, i.to_bytes(2, "little") + label + context + bits.to_bytes(2, "little"), hash_).digest()
        i += 1
    return out[: bits // 8]


def sae_ext_tk(pmk, aa, spa, anonce, snonce):
    """The TK of an SAE-EXT-KEY PTKSA: the hash, KCK and KEK follow the PMK's length (32: SHA-256,
    KCK 16, KEK 16; 48: SHA-384, KCK 24, KEK 32), as hostapd derives them; TK 32 (GCMP-256)."""
    hash_, kck, kek = {32: (hashlib.sha256, 16, 16), 48: (hashlib.sha384, 24, 32)}[len(pmk)]
    context = min(aa, spa) + max(aa, spa) + min(anonce, snonce) + max(anonce, snonce)
    ptk = kdf(hash_, pmk, b"Pairwise key expansion", context, (kck + kek + 32) * 8)
    return ptk[kck + kek:]


def nonces(frames, ap, sta):
    """ANonce (message 1, from the access point) and SNonce (message 2) of `sta`'s last 4-way
    handshake: the Key Nonce of an EAPOL-Key frame follows descriptor type, Key Information,
    Key Length and Key Replay Counter."""
    anonce = snonce = None
    for m in frames:
        h = w.header_len(m) if len(m) >= 24 else 0
        if not h or m[h:h + 8] != EAPOL_SNAP:
            continue
        key = m[h + 8:]
        info = struct.unpack_from(">H", key, 5)[0]
        nonce = key[17:49]
        if m[10:16] == ap and m[4:10] == sta and info & 0x0080 and not info & 0x0100:  # ACK, no MIC: message 1
            anonce = nonce
        elif m[10:16] == sta and m[4:10] == ap and info & 0x0100 and not info & 0x0200:  # MIC, not Secure: message 2
            snonce = nonce
    return anonce, snonce


def open_gcmp(tk, mpdu):
    """The plaintext body of a GCMP-256 data MPDU, or None when its tag does not verify."""
    h = w.header_len(mpdu)
    hdr = mpdu[h:h + 8]
    pn = int.from_bytes(bytes([hdr[7], hdr[6], hdr[5], hdr[4], hdr[1], hdr[0]]), "big")
    aad, _ = w.aad_and_nonce(mpdu, pn)
    cipher = AES.new(tk, AES.MODE_GCM, nonce=mpdu[10:16] + pn.to_bytes(6, "big"), mac_len=16)
    cipher.update(aad)
    try:
        return cipher.decrypt_and_verify(mpdu[h + 8:-16], mpdu[-16:])
    except ValueError:
        return None


@pytest.mark.parametrize("groups, pmk_hex", [(None, 64), ("20", 96)])
def test_sae_ext_carries_ping_and_tcp_and_its_capture_decrypts_with_the_pmk(tmp_path, groups, pmk_hex):
    pcap, keylog = tmp_path / "sae-ext.pcap", tmp_path / "sae-ext.keys"
    extra = ["--sae-groups", groups] if groups else []
    wl = Wlan("wtsaex", "--security", "sae-ext", *extra, "--passphrase", PASSPHRASE, "--stations", "2", "--pcap", str(pcap), "--keylog", str(keylog))
    try:
        assert (wl.status["security"], wl.status["pmf"]) == ("sae-ext", "required")
        carries_traffic(wl)
    finally:
        wl.down()

    text = keylog.read_text()
    logged = re.findall(r'# SAE-EXT-KEY PMK of ([0-9a-f:]{17}), PMKID [0-9a-f]{32}\n"wpa-psk","([0-9a-f]+)"', text)
    stations = {wl.nodes["sta1"]["mac"], wl.nodes["sta2"]["mac"]}
    assert {sta for sta, _ in logged} == stations and all(len(pmk) == pmk_hex for _, pmk in logged), text

    # The SAE commits are of the group asked for, by hash-to-element (status 126).
    commits = tshark(pcap, "-Y", "wlan.fixed.auth.alg == 3 && wlan.fixed.auth_seq == 1", "-T", "fields", "-e", "wlan.fixed.status_code", "-e", "wlan.fixed.finite_cyclic_group").split("\n")
    assert {tuple(c.split("\t")) for c in commits if c} == {("0x007e", groups or "19")}, commits
    # The association: AKM 24, GCMP-256 pairwise and group, BIP-GMAC-256, MFPR.
    assert associations(pcap) == [("24", GCMP_256, GCMP_256, BIP_GMAC_256, "1")] * 2
    # EAPOL-Key frames of the AKM-defined descriptor version 0.
    versions = tshark(pcap, "-Y", "eapol", "-T", "fields", "-e", "wlan_rsna_eapol.keydes.key_info.keydes_version").split()
    assert versions and set(versions) == {"0"}, versions
    # Beacon protection: the beacons carry a Management MIC element.
    beacons = tshark(pcap, "-Y", "wlan.fc.type_subtype == 8", "-T", "fields", "-e", "wlan.tag.number").splitlines()
    assert beacons and all("76" in b.split(",") for b in beacons), beacons[:3]

    # wlansec decrypt with the key log: every echo request, on both hops.
    dec = tmp_path / "dec.pcap"
    r = wlansec("decrypt", str(pcap), "-o", str(dec), "--key-file", str(keylog))
    icmp = tshark(dec, "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2 && data.data contains c0:ff:ee")
    assert len(icmp.splitlines()) == 10, r.stdout + r.stderr

    # Independently: station 1's PTK from its PMK and the capture's nonces, then AES-GCM.
    frames = mpdus(pcap)
    ap, sta = bytes.fromhex(wl.nodes["ap"]["mac"].replace(":", "")), bytes.fromhex(wl.nodes["sta1"]["mac"].replace(":", ""))
    pmk = bytes.fromhex(dict(logged)[wl.nodes["sta1"]["mac"]])
    anonce, snonce = nonces(frames, ap, sta)
    tk = sae_ext_tk(pmk, ap, sta, anonce, snonce)
    protected = [m for m in frames if m[0] & 0x0c == 0x08 and m[1] & 0x40 and m[1] & 0x01 and m[10:16] == sta]
    bodies = [open_gcmp(tk, m) for m in protected]
    assert protected and all(b is not None for b in bodies), f"{sum(b is None for b in bodies)} of {len(bodies)} failed"
    assert sum(b.startswith(bytes.fromhex("aaaa030000000800")) and b"\xc0\xff\xee" * 3 in b for b in bodies) == 5
    # A flipped tag bit is refused.
    assert open_gcmp(tk, protected[0][:-1] + bytes([protected[0][-1] ^ 1])) is None

    # tshark 4.0 dissects AKM 24 but cannot derive its keys: it decrypts nothing.
    uat = [a for _, k in logged for a in ("-o", f'uat:80211_keys:"wpa-psk","{k}"')]
    out = subprocess.run(["tshark", "-r", str(pcap), "-o", "wlan.enable_decryption:TRUE", *uat, "-Y", "icmp"], capture_output=True, text=True)
    assert out.stdout.strip() == "" and "Unknown akm" in out.stderr, out.stderr[-500:]


def test_gcmp256_carries_ping_and_tcp_and_tshark_decrypts_it(tmp_path):
    pcap = tmp_path / "gcmp.pcap"
    wl = Wlan("wtgcmp", "--security", "gcmp256", "--passphrase", PASSPHRASE, "--stations", "2", "--pcap", str(pcap))
    try:
        assert wl.status["security"] == "gcmp256"
        carries_traffic(wl)
    finally:
        wl.down()
    # WPA2-PSK (AKM 2) with GCMP-256; 802.11w offered by default, so BIP-GMAC-256 is named.
    assert associations(pcap) == [("2", GCMP_256, GCMP_256, BIP_GMAC_256, "0")] * 2
    versions = tshark(pcap, "-Y", "eapol", "-T", "fields", "-e", "wlan_rsna_eapol.keydes.key_info.keydes_version").split()
    assert versions and set(versions) == {"2"}, versions
    echo = tshark(pcap, "-o", "wlan.enable_decryption:TRUE", "-o", f'uat:80211_keys:"wpa-pwd","{PASSPHRASE}:wlansec"', "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2 && data.data contains c0:ff:ee", "-T", "fields", "-e", "wlan.fc.tods").split()
    assert echo.count("1") == 5 and echo.count("0") == 5, echo
    dec = tmp_path / "dec.pcap"
    wlansec("decrypt", str(pcap), "-o", str(dec), "-p", PASSPHRASE, "-e", "wlansec")
    assert len(tshark(dec, "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2 && data.data contains c0:ff:ee").splitlines()) == 10


def test_a_wrong_sae_ext_password_fails_up_at_the_confirm():
    name = "wtsaexbad"
    wlansec("wlan", "down", "--name", name, check=False)
    r = wlansec("wlan", "up", "--name", name, "--security", "sae-ext", "--passphrase", PASSPHRASE, "--station-passphrase", "another-password", "--stations", "1", check=False, timeout=90)
    assert r.returncode != 0 and "SAE confirm failed" in r.stderr, r.stderr
    assert not Path(f"/run/wlansec/{name}").exists()


@pytest.mark.parametrize("args, says", [
    (["--security", "sae-ext", "--pmf", "optional"], "needs --pmf required"),
    (["--security", "sae-ext", "--sae-pwe", "hnp"], "SAE-EXT-KEY runs by hash-to-element"),
    (["--security", "sae-ext", "--topology", "ibss"], "needs an access point"),
    (["--security", "gcmp256", "--pmf", "off", "--beacon-prot", "on"], "--beacon-prot on needs management frame protection"),
    (["--security", "tkip", "--beacon-prot", "on"], "--beacon-prot on needs management frame protection"),
    (["--security", "sae-ext", "--beacon-prot", "sometimes"], "neither on nor off"),
    (["--security", "gcmp256", "--sae-groups", "20"], "need --security sae or sae-ext"),
])
def test_options_that_cannot_work_are_refused(args, says):
    r = wlansec("wlan", "up", "--name", "wtsaexopt", *args, check=False)
    assert r.returncode != 0 and says in r.stderr, r.stderr
