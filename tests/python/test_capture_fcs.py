"""Prism (119) and AVS (163) captures whose frames end with their FCS, nothing saying so (as
some drivers write them): `wlansec decrypt` finds the FCS by its CRC and decrypts every data
frame airdecap-ng decrypts (which strips any four last octets that are the frame's CRC), and
exactly what it decrypts from the same frames without FCS. The captures are `wlansec synth`
ones, rewrapped here."""

import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from ieee80211 import read_pcap, write_pcap
from test_capture_link_types import avs, prism

ROOT = Path(__file__).resolve().parents[2]
WLANSEC = os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec"))
SSID, PASSPHRASE = "wlansec-fcs", "correct horse battery"
PSK = ("-e", SSID, "-p", PASSPHRASE)

pytestmark = pytest.mark.skipif(
    not (Path(WLANSEC).exists() and shutil.which("airdecap-ng")),
    reason="needs the wlansec release binary and airdecap-ng (make setup)",
)


def fcs(mpdu):
    return struct.pack("<I", zlib.crc32(mpdu))


def is_group(mac):
    return mac[0] & 1 == 1


def without_eapol(frames):
    return [f for f in frames if f[12:14] != b"\x88\x8e"]


def decrypt(cap):
    out = Path(str(cap) + ".ours")
    run = subprocess.run([WLANSEC, "decrypt", *PSK, str(cap), "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout, read_pcap(out)[1]


def airdecap(cap):
    out = Path(str(cap) + ".airdecap")
    run = subprocess.run(["airdecap-ng", *PSK, "-o", str(out), str(cap)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout, read_pcap(out)[1]


def count(summary, label):
    return int(next(l for l in summary.splitlines() if label in l).split()[-1])


@pytest.mark.parametrize("suite", ["tkip", "ccmp128"])
@pytest.mark.parametrize("link, wrap", [(119, prism), (163, avs)], ids=["prism", "avs"])
def test_an_unsaid_fcs_is_cut_and_every_frame_airdecap_ng_decrypts_is_decrypted(tmp_path, suite, link, wrap):
    cap, plain = tmp_path / "synth.pcap", tmp_path / "plain.pcap"
    subprocess.run([WLANSEC, "synth", "-o", cap, "--plain", plain, *PSK, "--suite", suite, "--stations", "3",
                    "--frames", "300", "--rekey", "--fragment-every", "0", "--seed", "21"], check=True, capture_output=True)
    _, mpdus = read_pcap(cap)
    wrapped = tmp_path / f"{suite}-{link}-fcs.pcap"
    write_pcap(wrapped, [wrap(m + fcs(m)) for m in mpdus], link)
    stations = {m[10:16] for m in mpdus if len(m) >= 24 and (m[0] >> 2) & 3 == 2 and m[1] & 3 in (1, 3)}

    summary, ours = decrypt(wrapped)
    # airdecap-ng reads no link type 163: it is given the same packets under 119 (AVS headers
    # are found there too, by their length 64).
    for_airdecap = wrapped if link == 119 else tmp_path / "as-prism.pcap"
    write_pcap(for_airdecap, read_pcap(wrapped)[1], 119)
    their_summary, theirs = airdecap(for_airdecap)
    theirs = without_eapol(theirs)
    # airdecap-ng (no group keys) decrypts the pairwise frames: all of them are ours too.
    assert len(theirs) > 150
    pairwise = [f for f in without_eapol(ours) if not (is_group(f[0:6]) and f[6:12] not in stations)]
    assert pairwise == theirs
    # Everything carried, and nothing failed its integrity check.
    assert without_eapol(ours) == read_pcap(plain)[1]
    assert count(summary, "Number of verified handshakes") > 0
    assert count(summary, "Total number of WPA data packets") == count(their_summary, "Total number of WPA data packets")
    # The same frames without FCS decrypt to the same output.
    bare = tmp_path / "bare.pcap"
    write_pcap(bare, [wrap(m) for m in mpdus], link)
    assert decrypt(bare)[1] == ours


@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark")
def test_tshark_told_to_assume_an_fcs_decrypts_the_same_frames(tmp_path):
    """tshark cuts the FCS only when told (wlan.check_fcs, "Assume packets have FCS")."""
    cap = tmp_path / "synth.pcap"
    subprocess.run([WLANSEC, "synth", "-o", cap, *PSK, "--suite", "ccmp128", "--frames", "120", "--fragment-every", "0"],
                   check=True, capture_output=True)
    _, mpdus = read_pcap(cap)
    wrapped = tmp_path / "prism-fcs.pcap"
    write_pcap(wrapped, [prism(m + fcs(m)) for m in mpdus], 119)

    def tshark(path):
        run = subprocess.run(["tshark", "-r", str(path), "-o", "wlan.enable_decryption:TRUE", "-o", "wlan.check_fcs:TRUE",
                              "-o", f'uat:80211_keys:"wpa-pwd","{PASSPHRASE}:{SSID}"', "-Y", "ip or ipv6 or arp"],
                             capture_output=True, text=True, check=True)
        return len(run.stdout.splitlines())

    _, ours = decrypt(wrapped)
    assert tshark(wrapped) == len(without_eapol(ours)) > 100
