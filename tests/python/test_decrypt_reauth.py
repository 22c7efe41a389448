"""802.1X re-authentication in one association, decrypted by tshark and `wlansec decrypt`.

`wlansec synth --reauth-pmk` cuts the traffic into three parts; between two parts every
station re-authenticates (a new EAP exchange: a new PMK) and runs a fresh 4-way handshake
whose EAPOL-Key frames are protected under the PTK in use until then, in the same
association. Both decryptors get the same three PMKs (tshark as three "wpa-psk" entries of
its 80211_keys table). tshark 4.0 follows every handshake, the protected ones included, and
gives back every Ethernet frame that went in, in order (so it is checked against `--plain`
too: the comparison cannot pass vacuously); `wlansec decrypt` must write every frame tshark
decrypts, and exactly the Ethernet frames synth carried, in order, plus the protected
EAPOL-Key frames of the re-authentications, with no frame counted as a replay or an
integrity failure. Given only the first two PMKs, both lose the last part alike.

Before commit 9539579 the decryptor lost the frames of the re-authenticated parts as
replays: a frame of a batch opened under a key that a later handshake of the same batch
replaced was checked against the new key's replay counters. `WLANSEC_DECRYPT` names another
binary for `decrypt` alone (an older build without `synth --reauth-pmk`), to see that.
"""

import collections
import json
import os
import subprocess
from pathlib import Path

import pytest

from test_decrypt_interop import WLANSEC, read_pcap, stations_of, without_eapol

DECRYPT = os.environ.get("WLANSEC_DECRYPT", WLANSEC)

pytestmark = pytest.mark.skipif(
    not Path(WLANSEC).exists() or subprocess.run(["which", "tshark"], capture_output=True).returncode,
    reason="needs the wlansec release binary and tshark (make setup)",
)

PMKS = [bytes([0x11 * (i + 1)]) * 32 for i in range(3)]
STATIONS = 3
FRAMES = 300
EAPOL = b"\x88\x8e"


def synth(tmp, akm, suite):
    cap, plain = tmp / f"{akm}.pcap", tmp / f"{akm}-plain.pcap"
    reauth = [arg for pmk in PMKS[1:] for arg in ("--reauth-pmk", pmk.hex())]
    run = subprocess.run(
        [WLANSEC, "synth", "-o", cap, "--plain", plain, "--akm", akm, "--suite", suite,
         "--pmk", PMKS[0].hex(), *reauth, "--stations", str(STATIONS), "--frames", str(FRAMES),
         "--seed", "9"],
        check=True, capture_output=True, text=True,
    )
    assert "2 re-authentications" in run.stderr, run.stderr
    return cap, read_pcap(plain)[1]


def ours(cap, pmks):
    """(frames written, the --json summary) of `wlansec decrypt` with these PMKs."""
    out, summary = Path(f"{cap}.ours"), Path(f"{cap}.json")
    keys = [arg for pmk in pmks for arg in ("--pmk", pmk.hex())]
    run = subprocess.run([DECRYPT, "decrypt", str(cap), *keys, "-o", str(out), "--format", "pcap",
                          "--json", str(summary)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return read_pcap(out)[1], json.loads(summary.read_text())


def tshark(cap, pmks):
    """(the Ethernet frames tshark decrypts but EAPOL, rebuilt from DA, SA, EtherType and the
    payload; the number of EAPOL frames it shows), with these PMKs as "wpa-psk" keys."""
    keys = [arg for pmk in pmks for arg in ("-o", f'uat:80211_keys:"wpa-psk","{pmk.hex()}"')]
    run = subprocess.run(
        ["tshark", "-r", str(cap), "-o", "wlan.enable_decryption:TRUE", *keys,
         "--disable-protocol", "ip", "--disable-protocol", "ipv6", "-Y", "llc",
         "-T", "fields", "-e", "wlan.da", "-e", "wlan.sa", "-e", "llc.type", "-e", "data.data"],
        capture_output=True, text=True, check=True,
    )
    frames, eapol = [], 0
    for line in run.stdout.splitlines():
        da, sa, ethertype, payload = line.split("\t")
        if int(ethertype, 16) == 0x888E:
            eapol += 1
            continue
        frames.append(
            bytes.fromhex(da.replace(":", "")) + bytes.fromhex(sa.replace(":", ""))
            + int(ethertype, 16).to_bytes(2, "big") + bytes.fromhex(payload.replace(":", ""))
        )
    return frames, eapol


@pytest.mark.parametrize("akm,suite", [("802.1x", "ccmp128"), ("802.1x-sha256", "gcmp128")])
def test_reauthentication_writes_every_frame_tshark_decrypts(tmp_path, akm, suite):
    cap, plain = synth(tmp_path, akm, suite)
    stations = stations_of(cap)
    assert len(stations) == STATIONS

    frames, summary = ours(cap, PMKS)
    not_written = summary["not_written"]
    assert (not_written["replay"], not_written["integrity_failure"]) == (0, 0), not_written
    assert summary["handshakes"]["verified"] == 3 * STATIONS, summary["handshakes"]
    assert summary["handshakes"]["mic_mismatches"] == 0, summary["handshakes"]
    # Exactly the Ethernet frames synth carried, in order, and the re-authentications'
    # EAPOL-Key frames (4 per station and re-authentication), which were protected.
    assert without_eapol(frames) == plain, f"{len(without_eapol(frames))} of {len(plain)} frames"
    assert sum(f[12:14] == EAPOL for f in frames) == 4 * STATIONS * 2

    theirs, eapol = tshark(cap, PMKS)
    # tshark shows the 4-way handshakes in the clear and the re-authentications' protected ones.
    assert eapol == 4 * STATIONS * 3
    missing = collections.Counter(theirs) - collections.Counter(without_eapol(frames))
    assert not missing, f"{sum(missing.values())} frames tshark decrypts are not written"
    # tshark 4.0 decrypts every frame synth carried: the comparison is not vacuous.
    assert theirs == plain


def test_a_missing_pmk_loses_the_last_part_for_both(tmp_path):
    """Given only the first two PMKs, neither decryptor can follow the last
    re-authentication: both lose the last third's unicast frames alike (the group frames
    stay under the GTK). wlansec counts those as replays or integrity failures under the
    PTK before (their packet numbers start again at 1 under a key it never learns)."""
    cap, plain = synth(tmp_path, "802.1x", "ccmp128")
    frames, summary = ours(cap, PMKS[:2])
    assert summary["handshakes"]["verified"] == 2 * STATIONS, summary["handshakes"]
    written = without_eapol(frames)
    theirs, _ = tshark(cap, PMKS[:2])
    assert theirs == written
    assert FRAMES // 2 < len(written) < FRAMES
    assert written == [f for f in plain if f in written]


@pytest.mark.parametrize("args", [
    ["--reauth-pmk", PMKS[1].hex()],  # PSK: no EAP re-authentication
    ["--akm", "sae", "--pmk", PMKS[0].hex(), "--reauth-pmk", PMKS[1].hex()],
    ["--akm", "802.1x", "--pmk", PMKS[0].hex(), "--reauth-pmk", "0011"],
    ["--akm", "suite-b-192", "--suite", "gcmp256", "--pmk", (PMKS[0] * 2)[:48].hex(),
     "--reauth-pmk", PMKS[1].hex()],  # 32 octets where the AKM takes 48
    ["--akm", "802.1x", "--pmk", PMKS[0].hex(), "--reauth-pmk", "zz"],
], ids=["psk", "sae", "short", "suite-b-192-short", "bad-hex"])
def test_reauth_pmk_usage_errors(tmp_path, args):
    out = tmp_path / "x.pcap"
    run = subprocess.run([WLANSEC, "synth", "-o", out, *args], capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert "--reauth-pmk" in run.stderr
    assert not out.exists()
