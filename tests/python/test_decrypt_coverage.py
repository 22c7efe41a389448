"""`wlansec decrypt` accounts for every frame and says clearly when it cannot decrypt.

Captures made in Python (the key hierarchy and CCMP from `test_decrypt_independent`, which
builds them from the standard's rules), cross-checked against tshark: MSDUs of any 802.2
LLC come out (RFC 1042 SNAP as Ethernet II, other LLC as 802.3 length frames), the JSON
summary gives every frame read a fate, `-b` takes 4-address (WDS) frames, and a wrong key
or a capture without 802.11 frames is an error.
"""

import json
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

import ieee80211 as w
import test_decrypt_independent as ind

WLANSEC = ind.WLANSEC
pytestmark = ind.pytestmark
needs_tshark = pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark")

STP = bytes.fromhex("424203") + bytes(35)  # spanning tree BPDU: LLC DSAP = SSAP = 0x42
APPLETALK = bytes.fromhex("aaaa03080007809b") + b"AppleTalk DDP"  # SNAP under Apple's OUI
STP_GROUP = bytes.fromhex("0180c2000000")


def wds_header(ra: bytes, ta: bytes, seq: int) -> bytes:
    """A QoS data header with To DS and From DS set: RA, TA, DA, SA."""
    return struct.pack("<HH", 0x0388, 0x002C) + ra + ta + ind.HOST + struct.pack("<H", seq << 4) + ind.HOST + b"\x00\x00"


def coverage_capture(seed: int):
    """The 4-way handshake, then pairwise frames of every kind of LLC, group frames, and
    4-address frames both ways between the AP and the station. Returns the capture and
    {frame index: (expected Ethernet frame or None, plaintext body)} of every protected frame."""
    rng = random.Random(seed)
    anonce, snonce, gtk = rng.randbytes(32), rng.randbytes(32), rng.randbytes(16)
    kck, kek, tk = ind.pairwise_keys(ind.PASSPHRASE, ind.SSID, anonce, snonce)
    cap = ind.Capture()
    cap.add(ind.beacon("ccmp128", cap.seq))
    cap.add(ind.eapol_mpdu(True, cap.seq, ind.eapol_key(0x008A, 16, 1, anonce)))
    cap.add(ind.eapol_mpdu(False, cap.seq, ind.eapol_key(0x010A, 0, 1, snonce, ind.rsn_element("ccmp128"), kck)))
    cap.add(ind.eapol_mpdu(True, cap.seq, ind.eapol_key(0x13CA, 16, 2, anonce, ind.wrapped_key_data(kek, gtk, 1), kck)))
    cap.add(ind.eapol_mpdu(False, cap.seq, ind.eapol_key(0x030A, 0, 2, bytes(32), b"", kck)))
    pn = {"tk": 0, "gtk": 0}
    expected = {}

    def send(header: bytes, body: bytes, group: bool = False, da_sa=None):
        key = "gtk" if group else "tk"
        pn[key] += 1
        frame = ind.protect_aead("ccmp128", gtk if group else tk, header + body, pn[key], 1 if group else 0)
        addresses = ind.ethernet_of(header, b"")
        da, sa = da_sa or (addresses[:6], addresses[6:12])
        if body.startswith(ind.LLC_SNAP):
            eth = da + sa + body[6:]
        else:
            eth = da + sa + struct.pack(">H", len(body)) + body
        expected[len(cap.frames)] = (eth, body)
        cap.add(frame)

    for i in range(30):
        body = rng.choice([ind.msdu(rng.randbytes(rng.randrange(1, 300))), STP, APPLETALK])
        if i % 3 == 0:
            send(ind.data_header(w.TO_DS, ind.AP, ind.STA, ind.HOST, cap.seq, 0), body)
        elif i % 3 == 1:
            send(ind.data_header(w.FROM_DS, ind.STA, ind.AP, ind.HOST, cap.seq, 0), body)
        else:
            send(ind.data_header(w.FROM_DS, STP_GROUP, ind.AP, ind.AP, cap.seq, None), body, group=True)
    for i in range(6):
        ra, ta = (ind.STA, ind.AP) if i % 2 else (ind.AP, ind.STA)
        send(wds_header(ra, ta, cap.seq), ind.msdu(rng.randbytes(50)), da_sa=(ind.HOST, ind.HOST))
    return cap, expected


def run_decrypt(tmp_path: Path, frames, *args, linktype: int = 105):
    pcap, out, summary = tmp_path / "air.pcap", tmp_path / "dec.pcap", tmp_path / "summary.json"
    w.write_pcap(pcap, frames, linktype)
    for f in (out, summary):
        f.unlink(missing_ok=True)
    run = subprocess.run([WLANSEC, "decrypt", *args, str(pcap), "-o", str(out), "--json", str(summary)],
                         capture_output=True, text=True)
    written = ind.read_pcap(out) if out.exists() else []
    return run, written, json.loads(summary.read_text()) if summary.exists() else None


def test_every_llc_msdu_is_written_and_every_frame_read_has_a_fate(tmp_path):
    cap, expected = coverage_capture(seed=1)
    run, written, summary = run_decrypt(tmp_path, cap.frames, "-e", ind.SSID, "-p", ind.PASSPHRASE)
    assert run.returncode == 0, run.stderr
    assert written == [eth for eth, _ in expected.values()]
    assert summary["decrypted"]["total"] == summary["written"] == len(expected)
    assert summary["frames_read"] == len(cap.frames)
    assert summary["frames_read"] == summary["written"] + sum(summary["not_written"].values())
    assert summary["not_written"]["eapol_handshake"] == 4 and summary["not_written"]["management"] == 1
    assert "Number of frames written" in run.stdout


def test_bssid_takes_wds_frames_both_ways(tmp_path):
    cap, expected = coverage_capture(seed=2)
    _, everything, _ = run_decrypt(tmp_path, cap.frames, "-e", ind.SSID, "-p", ind.PASSPHRASE)
    run, written, summary = run_decrypt(tmp_path, cap.frames, "-e", ind.SSID, "-p", ind.PASSPHRASE,
                                        "-b", ind.AP.hex(":"))
    assert run.returncode == 0, run.stderr
    assert written == everything and summary["not_written"]["other_network"] == 0
    _, written, summary = run_decrypt(tmp_path, cap.frames, "-e", ind.SSID, "-p", ind.PASSPHRASE,
                                      "-b", "02:dd:00:00:00:04")
    assert summary["not_written"]["other_network"] == len(expected) + 4


@needs_tshark
def test_tshark_decrypts_the_same_llc_bodies(tmp_path):
    """tshark opens every 3-address frame (4.0 does not decrypt 4-address ones) to the
    body chosen here; ours carries that body after the 802.3 or Ethernet II header."""
    cap, expected = coverage_capture(seed=3)
    pcap = tmp_path / "air.pcap"
    w.write_pcap(pcap, cap.frames)
    packets = w.tshark_data_sources(pcap, "wlan.enable_decryption:TRUE",
                                    f'uat:80211_keys:"wpa-pwd","{ind.PASSPHRASE}:{ind.SSID}"')
    theirs = {i: p["Decrypted CCMP data"] for i, p in enumerate(packets) if "Decrypted CCMP data" in p}
    three_address = {i: body for i, (_, body) in expected.items() if cap.frames[i][1] & 3 != 3}
    assert theirs == three_address
    assert {STP, APPLETALK} <= set(theirs.values())
    _, written, _ = run_decrypt(tmp_path, cap.frames, "-e", ind.SSID, "-p", ind.PASSPHRASE)
    ours = dict(zip(expected, written))
    for i, body in three_address.items():
        snap = body.startswith(ind.LLC_SNAP)
        assert ours[i][14:] == (body[8:] if snap else body)
        assert ours[i][12:14] == (body[6:8] if snap else struct.pack(">H", len(body)))


def test_a_wrong_tk_or_wep_key_is_an_error_naming_it(tmp_path):
    cap, tk = ind.tk_capture("ccmp256")
    run, written, _ = run_decrypt(tmp_path, [ind.radiotap(f) for f in cap.frames], "--tk",
                                  ind.flip_bit(tk, 0).hex(), linktype=127)
    assert run.returncode != 0 and "--tk decrypts nothing" in run.stderr, run.stderr
    assert written == []
    cap, key = ind.wep_capture(seed=5)
    run, _, _ = run_decrypt(tmp_path, cap.frames, "--wep-key", ind.flip_bit(key, 5).hex())
    assert run.returncode != 0 and "--wep-key decrypts nothing" in run.stderr, run.stderr


def test_an_ethernet_capture_is_refused_as_the_wrong_link_type(tmp_path):
    ethernet = [ind.AP + ind.STA + b"\x08\x00" + bytes(40) for _ in range(20)]
    run, _, _ = run_decrypt(tmp_path, ethernet, "--tk", "00" * 16, linktype=1)
    assert run.returncode != 0
    assert "wrong link type 1 (Ethernet)" in run.stderr and "has no 802.11 frames" in run.stderr


# --- several keys ----------------------------------------------------------------------------

STA2 = bytes.fromhex("02bb00000005")


def two_pmk_capture(seed: int):
    """Two stations of one BSS, each with its own PMK (as 802.1X gives them), each
    handshake carrying the same GTK; pairwise frames both ways and group frames. Returns
    the capture, the PMKs, the TKs, the GTK and {frame index: plaintext body}."""
    rng = random.Random(seed)
    pmks, gtk = [rng.randbytes(32), rng.randbytes(32)], rng.randbytes(16)
    cap, bodies, tks = ind.Capture(), {}, []
    cap.add(ind.beacon("ccmp128", cap.seq))
    for sta, pmk in zip((ind.STA, STA2), pmks):
        anonce, snonce = rng.randbytes(32), rng.randbytes(32)
        data = min(ind.AP, sta) + max(ind.AP, sta) + min(anonce, snonce) + max(anonce, snonce)
        ptk = ind.prf(pmk, b"Pairwise key expansion", data, 384)
        kck, kek = ptk[:16], ptk[16:32]
        tks.append(ptk[32:48])
        for from_ap, eapol in [
            (True, ind.eapol_key(0x008A, 16, 1, anonce)),
            (False, ind.eapol_key(0x010A, 0, 1, snonce, ind.rsn_element("ccmp128"), kck)),
            (True, ind.eapol_key(0x13CA, 16, 2, anonce, ind.wrapped_key_data(kek, gtk, 1), kck)),
            (False, ind.eapol_key(0x030A, 0, 2, bytes(32), b"", kck)),
        ]:
            header = (ind.data_header(w.FROM_DS, sta, ind.AP, ind.AP, cap.seq, None) if from_ap
                      else ind.data_header(w.TO_DS, ind.AP, sta, ind.AP, cap.seq, None))
            cap.add(header + ind.LLC_SNAP + b"\x88\x8e" + eapol)
    pn = [0, 0, 0]
    for i in range(45):
        which = i % 3
        body = ind.msdu(rng.randbytes(rng.randrange(1, 200)))
        if which == 2:
            header, key = ind.data_header(w.FROM_DS, ind.BROADCAST, ind.AP, ind.HOST, cap.seq, None), gtk
        else:
            sta = (ind.STA, STA2)[which]
            header = (ind.data_header(w.TO_DS, ind.AP, sta, ind.HOST, cap.seq, 0) if i % 2
                      else ind.data_header(w.FROM_DS, sta, ind.AP, ind.HOST, cap.seq, 0))
            key = tks[which]
        pn[which] += 1
        bodies[len(cap.frames)] = body
        cap.add(ind.protect_aead("ccmp128", key, header + body, pn[which], 1 if which == 2 else 0))
    return cap, pmks, tks, gtk, bodies


def tshark_decrypted(tmp_path: Path, frames, *uat_lines: str) -> dict[int, bytes]:
    pcap = tmp_path / "tshark.pcap"
    w.write_pcap(pcap, frames)
    packets = w.tshark_data_sources(pcap, "wlan.enable_decryption:TRUE", *(f"uat:80211_keys:{line}" for line in uat_lines))
    return {i: p["Decrypted CCMP data"] for i, p in enumerate(packets) if "Decrypted CCMP data" in p}


def test_several_pmks_from_options_and_a_wireshark_key_file(tmp_path):
    cap, pmks, _, _, bodies = two_pmk_capture(seed=7)
    key_file = tmp_path / "80211_keys"
    lines = [f'"wpa-psk","{pmk.hex()}"' for pmk in pmks]
    key_file.write_text("# Wireshark's 80211_keys form\n" + "\n".join(lines) + "\n")
    for args in (["--key-file", str(key_file)], ["-k", pmks[0].hex(), "--pmk", pmks[1].hex()]):
        run, written, summary = run_decrypt(tmp_path, cap.frames, *args)
        assert run.returncode == 0, run.stderr
        assert summary["decrypted"]["total"] == len(bodies) and summary["handshakes"]["verified"] == 2
        assert [f[14:] for f in written if f[12:14] != b"\x88\x8e"] == [b[8:] for b in bodies.values()]
        assert pmks[0].hex() not in run.stdout + run.stderr
    # One PMK: the other station's handshake does not verify, its frames have no key.
    run, _, summary = run_decrypt(tmp_path, cap.frames, "--pmk", pmks[0].hex())
    assert summary["handshakes"] == {"verified": 1, "mic_mismatches": 1, "group_keys": 1, "refused_messages": 1}
    assert summary["not_written"]["no_pairwise_key"] == 15
    if shutil.which("tshark"):
        assert tshark_decrypted(tmp_path, cap.frames, *lines) == bodies


def test_several_tks_and_a_gtk(tmp_path):
    cap, _, tks, gtk, bodies = two_pmk_capture(seed=8)
    run, written, summary = run_decrypt(tmp_path, cap.frames, "--tk", tks[0].hex(), "--tk", tks[1].hex(),
                                        "--gtk", gtk.hex())
    assert run.returncode == 0, run.stderr
    assert summary["decrypted"]["total"] == len(bodies) == summary["written"]
    run, _, summary = run_decrypt(tmp_path, cap.frames, "--tk", tks[0].hex(), "--tk", tks[1].hex())
    assert summary["not_written"]["no_group_key"] == 15 and "no group key" in run.stderr
    if shutil.which("tshark"):
        pairwise = {i: b for i, b in bodies.items() if cap.frames[i][4] & 1 == 0}
        assert tshark_decrypted(tmp_path, cap.frames, *(f'"tk","{tk.hex()}"' for tk in tks)) == pairwise


def test_a_bad_key_file_line_is_named_without_its_key(tmp_path):
    cap, _, _, _, _ = two_pmk_capture(seed=9)
    key_file = tmp_path / "80211_keys"
    key_file.write_text('"wep","0102030405"\n"wpa-psk","not-hex-secret"\n')
    run, _, _ = run_decrypt(tmp_path, cap.frames, "--key-file", str(key_file))
    assert run.returncode != 0 and "line 2" in run.stderr and "secret" not in run.stderr, run.stderr


def test_a_first_frame_with_pn_0_decrypts_as_tshark_does(tmp_path):
    rng = random.Random(10)
    tk = rng.randbytes(16)
    cap = ind.Capture()
    cap.add(ind.beacon("ccmp128", cap.seq))
    bodies = {}
    for pn in (0, 1, 2):
        body = ind.msdu(rng.randbytes(30))
        bodies[len(cap.frames)] = body
        cap.add(ind.protect_aead("ccmp128", tk, ind.data_header(w.TO_DS, ind.AP, ind.STA, ind.HOST, cap.seq, 0) + body, pn, 0))
    replayed = cap.frames[1]
    run, written, summary = run_decrypt(tmp_path, cap.frames + [replayed], "--tk", tk.hex())
    assert run.returncode == 0, run.stderr
    assert [f[14:] for f in written] == [b[8:] for b in bodies.values()]
    assert summary["not_written"]["replay"] == 1
    if shutil.which("tshark"):
        assert tshark_decrypted(tmp_path, cap.frames, f'"tk","{tk.hex()}"') == bodies
