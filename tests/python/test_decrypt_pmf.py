"""802.11w in captures: protected management frames decrypted by tshark and `wlansec decrypt`.

`wlansec synth --pmf` requires MFP in the RSN element, puts an IGTK in message 3 and ends
the capture with SA Query Actions under each station's PTK, a protected Deauthentication
and a BIP-protected broadcast Deauthentication. tshark 4.0 decrypts the unicast ones with
the PTK it derives from the handshake (its "Decrypted CCMP/GCMP data"); `wlansec decrypt -l`
must write the same frames, Protected cleared, and count them; a frame altered in flight is
an integrity failure for both, a repeated one a replay, and an altered BIP MIC a BIP failure.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

from test_decrypt_interop import PASSPHRASE, SSID, WLANSEC, read_pcap, write_pcap

pytestmark = pytest.mark.skipif(
    not Path(WLANSEC).exists() or subprocess.run(["which", "tshark"], capture_output=True).returncode,
    reason="needs the wlansec release binary and tshark (make setup)",
)

PMK = bytes(range(0x40, 0x60))
STATIONS = 2
# Per station an SA Query Request and Response, then one protected Deauthentication.
UNICAST_PROTECTED = 2 * STATIONS + 1

# suite: (AKM, PMK given or None for the passphrase)
SUITES = {"ccmp128": ("psk", None), "gcmp256": ("802.1x-sha256", PMK)}


def synth(tmp, suite):
    akm, pmk = SUITES[suite]
    cap = tmp / f"pmf-{suite}.pcap"
    keys = ["--pmk", pmk.hex()] if pmk else []
    subprocess.run(
        [WLANSEC, "synth", "-o", cap, "-e", SSID, "-p", PASSPHRASE, "--akm", akm, "--suite", suite, *keys,
         "--stations", str(STATIONS), "--frames", "40", "--pmf", "--seed", "11"],
        check=True, capture_output=True,
    )
    return cap, (["--pmk", pmk.hex()] if pmk else ["-e", SSID, "-p", PASSPHRASE])


def tshark_key(suite):
    pmk = SUITES[suite][1]
    return f'"wpa-psk","{pmk.hex()}"' if pmk else f'"wpa-pwd","{PASSPHRASE}:{SSID}"'


def is_protected_unicast_mgmt(mpdu):
    return (mpdu[0] >> 2) & 3 == 0 and mpdu[1] & 0x40 and not mpdu[4] & 1


def tshark_decrypted_mgmt(cap, suite):
    """Each protected unicast management frame tshark decrypts, rebuilt as the 24-octet
    header (Protected cleared) and the plaintext of its "Decrypted ... data" tab."""
    run = subprocess.run(
        ["tshark", "-r", str(cap), "-o", "wlan.enable_decryption:TRUE", "-o", f"uat:80211_keys:{tshark_key(suite)}",
         "-Y", "wlan.fc.type == 0 && wlan.fc.protected == 1", "-x"],
        check=True, capture_output=True, text=True,
    )
    out = []
    for block in run.stdout.split("\n\n"):
        tabs = dict(re.findall(r"^(Frame|Decrypted \w+ data) \(\d+ bytes\):\n((?:[0-9a-f]{4}  .*\n?)+)", block, re.M))
        if "Frame" not in tabs or len(tabs) < 2:
            continue
        frame, plain = (hex_dump(v) for v in tabs.values())
        header = bytearray(frame[:24])
        header[1] &= ~0x40 & 0xFF
        out.append(bytes(header) + plain)
    return out


def hex_dump(text):
    """The octets of a tshark -x tab (offset, then 16 octets in hex, then ASCII)."""
    return bytes.fromhex("".join(line[6:53] for line in text.splitlines()))


def ours(cap, keys, *extra):
    out, summary = Path(f"{cap}.ours"), Path(f"{cap}.json")
    run = subprocess.run([WLANSEC, "decrypt", *keys, str(cap), "-o", str(out), "--json", str(summary), *extra],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return read_pcap(out)[1], json.loads(summary.read_text())


def management(frames):
    return [f for f in frames if (f[0] >> 2) & 3 == 0]


@pytest.mark.parametrize("suite", list(SUITES))
def test_protected_management_frames_decrypt_as_tshark_does(tmp_path, suite):
    cap, keys = synth(tmp_path, suite)
    theirs = tshark_decrypted_mgmt(cap, suite)
    assert len(theirs) == UNICAST_PROTECTED
    frames, summary = ours(cap, keys, "-l")
    assert management(frames) == theirs
    assert summary["protected_management"] == UNICAST_PROTECTED
    assert summary["decrypted"]["management"] == UNICAST_PROTECTED
    assert summary["bip"] == {"igtks": 1, "verified": 1, "failures": 0, "replays": 0, "no_key": 0}
    # The Ethernet form has no place for them: counted as not written, by reason.
    _, summary = ours(cap, keys)
    assert summary["not_written"]["management_frame_no_msdu"] == UNICAST_PROTECTED


def test_altered_and_replayed_management_frames_are_refused(tmp_path):
    cap, keys = synth(tmp_path, "ccmp128")
    link, packets = read_pcap(cap)
    protected = [i for i, p in enumerate(packets) if is_protected_unicast_mgmt(p)]
    first = protected[0]
    altered = bytearray(packets[first])
    altered[24 + 8] ^= 0x01  # the first octet of the encrypted body
    packets[first] = bytes(altered)
    broadcast_deauth = bytearray(packets[-1])
    assert broadcast_deauth[0] == 0xC0 and broadcast_deauth[4] == 0xFF
    broadcast_deauth[-1] ^= 0x80  # the BIP MIC
    packets[-1] = bytes(broadcast_deauth)
    packets.append(packets[protected[1]])  # a replay of an intact one
    tampered = tmp_path / "tampered.pcap"
    write_pcap(tampered, link, packets)

    # tshark verifies the MIC too: it decrypts all but the altered frame (and, keeping no
    # replay counter, the repeated one again).
    assert len(tshark_decrypted_mgmt(tampered, "ccmp128")) == UNICAST_PROTECTED
    frames, summary = ours(tampered, keys, "-l")
    assert len(management(frames)) == UNICAST_PROTECTED - 1
    assert summary["decrypted"]["management"] == UNICAST_PROTECTED - 1
    assert summary["not_written"]["integrity_failure"] == 1
    assert summary["not_written"]["replay"] == 1
    assert summary["bip"]["failures"] == 1 and summary["bip"]["verified"] == 0
