"""`wlansec decrypt` on a capture an attacker added frames to: what a verified handshake set
stays, and no frame is written twice.

The capture is `wlansec synth --rekey` (two stations; the first reassociates halfway with a
fresh 4-way handshake). Added to it, as an attacker on the air would send them:

* a beacon with the real BSSID and another SSID, before the first handshake and again after
  it (without the defence, every later frame of the BSS counted as "other network");
* after the first station's second handshake, its first handshake's messages 1 and 2 again,
  verbatim, then the data frames it sent under that first key (without the defence, the old
  key replaced the live one, every later frame failed integrity, and the old frames were
  written a second time under fresh replay counters).

The attacked capture must decrypt to exactly what the untouched one does, which is every
frame synth carried, and the summary must count the refused handshake.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from ieee80211 import read_pcap, write_pcap

ROOT = Path(__file__).resolve().parents[2]
WLANSEC = os.environ.get("WLANSEC") or str(ROOT / "target" / "release" / "wlansec")

SSID, PASSPHRASE = "confusion-net", "correct horse battery"
EAPOL_SNAP = bytes.fromhex("aaaa03000000888e")

pytestmark = pytest.mark.skipif(not Path(WLANSEC).exists(), reason="needs the wlansec release binary (make build)")


def is_data(mpdu):
    return mpdu[0] & 0x0C == 0x08


def protected(mpdu):
    return mpdu[1] & 0x40 != 0


def header_len(mpdu):
    # QoS data (subtype bit 3) adds two octets; synth sends no 4-address frames here.
    return 24 + (2 if mpdu[0] & 0x80 else 0)


def is_eapol(mpdu):
    return is_data(mpdu) and not protected(mpdu) and mpdu[header_len(mpdu):header_len(mpdu) + 8] == EAPOL_SNAP


def station_of(mpdu):
    """The non-AP address of a To DS or From DS data frame."""
    return mpdu[10:16] if mpdu[1] & 0x01 else mpdu[4:10]


def forged_beacon(beacon, ssid):
    """`beacon` (24-octet header, 12 fixed octets, the SSID element first) naming `ssid`."""
    assert beacon[0] == 0x80 and beacon[36] == 0, "a beacon starting with its SSID element"
    rest = beacon[36 + 2 + beacon[37]:]
    return beacon[:36] + bytes([0, len(ssid)]) + ssid + rest


def decrypt(capture, out):
    r = subprocess.run([WLANSEC, "decrypt", str(capture), "-o", str(out), "-e", SSID, "-p", PASSPHRASE, "--json", "-"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return read_pcap(out)[1], json.loads(r.stdout)


def is_management_with_ssid(mpdu):
    """A beacon, probe response or (re)association request: frames that name an SSID."""
    return mpdu[0] & 0x0C == 0 and mpdu[0] >> 4 in (0, 2, 5, 8)


@pytest.mark.parametrize("attack", ["beacon_before_the_handshakes", "beacon_after_them", "old_handshake_and_data_replayed"])
def test_forged_and_replayed_frames_change_nothing_written(tmp_path, attack):
    cap, plain = tmp_path / "air.pcap", tmp_path / "plain.pcap"
    subprocess.run([WLANSEC, "synth", "--stations", "2", "--rekey", "--frames", "300", "--fragment-every", "0", "-e", SSID,
                    "-p", PASSPHRASE, "-o", str(cap), "--plain", str(plain)], check=True, capture_output=True, timeout=60)
    link, mpdus = read_pcap(cap)
    eapol = [i for i, m in enumerate(mpdus) if is_eapol(m)]
    first_sta = station_of(mpdus[eapol[0]])
    own = [i for i in eapol if station_of(mpdus[i]) == first_sta]
    assert len(own) == 8, "two 4-way handshakes of the first station (the second after its reassociation)"
    forged = forged_beacon(mpdus[0], b"another network")
    if attack == "beacon_before_the_handshakes":
        at = eapol[0]
        attacked = mpdus[:at] + [forged] + mpdus[at:]
    elif attack == "beacon_after_them":
        # After the last frame that names the SSID (without the defence, a real beacon or
        # association request after it would put the SSID right again) and every handshake.
        at = 1 + max(eapol[-1], max(i for i, m in enumerate(mpdus) if is_management_with_ssid(m)))
        attacked = mpdus[:at] + [forged] + mpdus[at:]
    else:
        at = own[7] + 1  # after the first station's second handshake
        old_data = [m for m in mpdus[own[3] + 1:own[4]] if is_data(m) and protected(m) and station_of(m) == first_sta]
        assert len(old_data) >= 10, "frames under the first key to replay"
        attacked = mpdus[:at] + [mpdus[own[0]], mpdus[own[1]]] + old_data + mpdus[at:]
    assert len(mpdus) - at > 50, "genuine frames after the attack"
    attacked_cap = tmp_path / "attacked.pcap"
    write_pcap(attacked_cap, attacked, link)

    clean, clean_summary = decrypt(cap, tmp_path / "clean-out.pcap")
    written, summary = decrypt(attacked_cap, tmp_path / "attacked-out.pcap")
    # Besides the frames carried, the output has the protected EAPOL frames (the group key
    # handshake of the rekey).
    carried = read_pcap(plain)[1]
    assert [f for f in clean if f[12:14] != b"\x88\x8e"] == carried, "the untouched capture decrypts to every frame carried"
    assert written == clean, (len(written), len(clean), summary)
    assert summary["handshakes"]["verified"] == clean_summary["handshakes"]["verified"], summary
    if attack == "old_handshake_and_data_replayed":
        assert summary["replayed_handshakes"] >= 1, summary
