"""TDLS in captures: a direct link's frames, under the TDLS peer key (TPK), decrypted by
tshark and `wlansec decrypt`.

`wlansec synth --tdls` sets up a direct link between the first two stations: the TPK
handshake's Setup Request, Response and Confirm go through the AP as data frames (each
protected twice: to the AP under the sender's PTK, from it under the receiver's), then every
fifth frame goes between the two stations directly (no DS bits, A3 the BSSID) under the
TPK-TK. tshark 4.0 derives the TPK from the Setup Response itself (dot11decrypt checks its
FTE MIC) and decrypts the direct frames: every frame it decrypts must equal, octet for
octet, what `wlansec decrypt` writes. Independently of both, the TPK is derived here from
the Response's elements with hashlib/hmac, its FTE MIC checked with pycryptodome's CMAC and
the direct frames opened with pycryptodome's AES-CCM.
"""

import hashlib
import hmac
import json
import struct
import subprocess
from pathlib import Path

import pytest
from Crypto.Cipher import AES
from Crypto.Hash import CMAC

from ieee80211 import aad_and_nonce, header_len, tshark_data_sources
from test_decrypt_interop import PASSPHRASE, SSID, WLANSEC, read_pcap, stations_of, write_pcap

pytestmark = pytest.mark.skipif(
    not Path(WLANSEC).exists() or subprocess.run(["which", "tshark"], capture_output=True).returncode,
    reason="needs the wlansec release binary and tshark (make setup)",
)

KEYS = ['wlan.enable_decryption:TRUE', f'uat:80211_keys:"wpa-pwd","{PASSPHRASE}:{SSID}"']
TDLS = b"\x89\x0d"
SETUP_RESPONSE = 1


def synth(tmp):
    cap, plain = tmp / "tdls.pcap", tmp / "tdls-plain.pcap"
    # No fragments: tshark shows a reassembled MSDU in another data source.
    subprocess.run(
        [WLANSEC, "synth", "-o", cap, "--plain", plain, "-e", SSID, "-p", PASSPHRASE, "--tdls",
         "--stations", "3", "--frames", "150", "--fragment-every", "0", "--seed", "7"],
        check=True, capture_output=True,
    )
    return cap, read_pcap(plain)[1]


def addresses(mpdu):
    """(DA, SA, RA, TA) of a 3-address data frame."""
    ds = mpdu[1] & 3
    a1, a2, a3 = mpdu[4:10], mpdu[10:16], mpdu[16:22]
    da, sa = {0: (a1, a2), 1: (a3, a2), 2: (a1, a3)}[ds]
    return da, sa, a1, a2


def is_direct(mpdu, bssid):
    """A data frame with no DS bits whose receiver is not the AP: the direct link."""
    return (mpdu[0] >> 2) & 3 == 2 and mpdu[1] & 3 == 0 and mpdu[4:10] != bssid and mpdu[16:22] == bssid


def tshark_decrypted(cap):
    """(MPDU, Ethernet frame) of every protected data frame tshark decrypts."""
    out = []
    for sources in tshark_data_sources(cap, *KEYS):
        mpdu = sources.get("Frame", b"")
        plain = sources.get("Decrypted CCMP data")
        if plain is None or (mpdu[0] >> 2) & 3 != 2 or not mpdu[1] & 0x40 or mpdu[1] & 3 == 3:
            continue
        da, sa, _, _ = addresses(mpdu)
        assert plain[:6] == b"\xaa\xaa\x03\x00\x00\x00"
        out.append((mpdu, da + sa + plain[6:]))
    return out


def ours(cap, *extra):
    out, summary = Path(str(cap) + ".ours"), Path(str(cap) + ".json")
    run = subprocess.run(
        [WLANSEC, "decrypt", "-e", SSID, "-p", PASSPHRASE, str(cap), "-o", str(out), "--format", "pcap",
         "--json", str(summary), *extra],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    return read_pcap(out)[1], json.loads(summary.read_text()), run


def test_the_direct_link_decrypts_as_tshark_does(tmp_path):
    cap, plain = synth(tmp_path)
    _, air = read_pcap(cap)
    bssid = air[0][16:22]
    stations = stations_of(cap)
    direct = [m for m in air if is_direct(m, bssid)]
    assert len(direct) >= 25
    theirs = tshark_decrypted(cap)
    # tshark decrypts every direct-link frame: it took the TPK from the setup.
    assert sum(is_direct(m, bssid) for m, _ in theirs) == len(direct)
    frames, summary, run = ours(cap)
    # tshark 4.0 does not decrypt 4-address frames (synth sends those between hosts behind
    # the AP and behind station 0); everything else it gives back, wlansec gives back too.
    wds = lambda f: not (f[0] & 1 or f[0:6] in stations or f[6:12] in stations)
    assert [eth for _, eth in theirs] == [f for f in frames if not wds(f)]
    setups = [f for f in frames if f[12:14] == TDLS]
    assert len(setups) == 6
    assert [f for f in frames if f[12:14] != TDLS] == plain
    assert summary["tdls"] == {"keys": 1, "mic_failures": 0}
    assert summary["written"] == len(plain) + 6
    assert summary["decrypted"]["wpa"] == summary["protected"]["wpa"]
    # Per station: each peer is the receiver of its direct frames (A3 is the BSS).
    per_station = {c["station"]: c["frames"] for c in summary["per_station"]}
    for peer in {m[4:10] for m in direct}:
        name = ":".join(f"{b:02x}" for b in peer)
        received = sum(1 for m in direct if m[4:10] == peer)
        assert per_station[name]["written"] >= received
    print(f"tdls capture: {len(air)} frames, {len(direct)} direct; wlansec decrypted {summary['decrypted']['total']}, "
          f"written {summary['written']}, not written {({k: v for k, v in summary['not_written'].items() if v})}; "
          f"tshark decrypted {len(theirs)} ({sum(is_direct(m, bssid) for m, _ in theirs)} direct)")


def elements(data):
    out = {}
    while len(data) >= 2:
        out.setdefault(data[0], data[: 2 + data[1]])
        data = data[2 + data[1]:]
    return out


def test_tpk_recomputed_independently_opens_the_direct_frames(tmp_path):
    cap, plain = synth(tmp_path)
    _, air = read_pcap(cap)
    bssid = air[0][16:22]
    theirs = tshark_decrypted(cap)
    response = next(eth[14:] for _, eth in theirs if eth[12:14] == TDLS and eth[16] == SETUP_RESPONSE)
    assert response[:2] == b"\x02\x0c" and response[3:5] == b"\x00\x00"  # TDLS, status success
    e = elements(response[8:])  # payload type, category, action, status, token, capability
    link, rsne, timeout, fte = e[101], e[48], e[56], e[55]
    initiator, responder = link[8:14], link[14:20]
    assert link[2:8] == bssid
    anonce, snonce = fte[20:52], fte[52:84]
    key_input = hashlib.sha256(min(anonce, snonce) + max(anonce, snonce)).digest()
    context = min(initiator, responder) + max(initiator, responder) + bssid
    tpk = hmac.new(key_input, b"\x01\x00" + b"TDLS PMK" + context + (256).to_bytes(2, "little"), "sha256").digest()
    kck, tk = tpk[:16], tpk[16:]
    mic = CMAC.new(kck, ciphermod=AES)
    mic.update(initiator + responder + b"\x02" + link + rsne + timeout + fte[:4] + bytes(16) + fte[20:])
    assert mic.digest() == fte[4:20]
    opened = []
    for mpdu in (m for m in air if is_direct(m, bssid)):
        h = header_len(mpdu)
        p = mpdu[h : h + 8]  # CCMP header: PN0 PN1 - KeyID PN2 PN3 PN4 PN5
        pn = int.from_bytes(bytes([p[7], p[6], p[5], p[4], p[1], p[0]]), "big")
        aad, nonce = aad_and_nonce(mpdu, pn)
        ccm = AES.new(tk, AES.MODE_CCM, nonce=nonce, mac_len=8)
        ccm.update(aad)
        body = ccm.decrypt_and_verify(mpdu[h + 8 : -8], mpdu[-8:])
        da, sa, _, _ = addresses(mpdu)
        opened.append(da + sa + body[6:])
    assert opened and all(f in plain for f in opened)


def test_a_direct_frame_altered_fails_its_integrity_check(tmp_path):
    cap, _ = synth(tmp_path)
    link, air = read_pcap(cap)
    bssid = air[0][16:22]
    at = next(i for i, m in enumerate(air) if is_direct(m, bssid))
    air[at] = air[at][:-9] + bytes([air[at][-9] ^ 1]) + air[at][-8:]
    write_pcap(cap, link, air)
    _, summary, _ = ours(cap)
    assert summary["not_written"]["integrity_failure"] == 1
    assert sum(is_direct(m, bssid) for m, _ in tshark_decrypted(cap)) == sum(is_direct(m, bssid) for m in air) - 1
