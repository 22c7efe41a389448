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
    # A replay of an intact one, of station 1 (station 0's link ends with its Deauthentication).
    packets.append(packets[protected[2]])
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


def test_management_frames_have_their_own_replay_counter(tmp_path):
    """The SA Query Actions moved before the data frames: their PNs are above every data
    frame's under the same key (one transmit counter per key), which must not make the data
    frames after them replays (a receiver keeps a replay counter for robust management
    frames apart from the data's, 802.11-2020 12.5.3.4.4)."""
    cap, keys = synth(tmp_path, "ccmp128")
    link, packets = read_pcap(cap)
    actions = [p for p in packets if is_protected_unicast_mgmt(p) and p[0] == 0xD0]
    assert len(actions) == 2 * STATIONS
    rest = [p for p in packets if p not in actions]
    first_data = next(i for i, p in enumerate(rest) if (p[0] >> 2) & 3 == 2 and p[1] & 0x40)
    moved = tmp_path / "moved.pcap"
    write_pcap(moved, link, rest[:first_data] + actions + rest[first_data:])
    frames, summary = ours(cap, keys, "-l")
    moved_frames, moved_summary = ours(moved, keys, "-l")
    assert moved_summary["not_written"]["replay"] == 0
    assert moved_summary["decrypted"] == summary["decrypted"]
    assert sorted(moved_frames) == sorted(frames)


# --- per BSS and station ---------------------------------------------------------------------

def test_every_bss_and_station_accounts_for_its_frames(tmp_path):
    """The Ethernet frames that went in, sorted to their station by their addresses here,
    are what the summary says each station's frames wrote; the stations' counts add up to
    the totals, and each BSS's to its stations'."""
    cap, plain = tmp_path / "links.pcap", tmp_path / "links-plain.pcap"
    subprocess.run(
        [WLANSEC, "synth", "-o", cap, "--plain", plain, "-e", SSID, "-p", PASSPHRASE, "--stations", "3",
         "--frames", "120", "--rekey", "--fragment-every", "3", "--pmf", "--seed", "5"],
        check=True, capture_output=True,
    )
    air = read_pcap(cap)[1]
    ap = air[0][16:22]  # the first beacon's BSSID
    stations = {p[10:16] for p in air if (p[0] >> 2) & 3 == 2 and p[1] & 3 == 1}
    wds_bridge = next(p[10:16] for p in air if (p[0] >> 2) & 3 == 2 and p[1] & 3 == 3)
    expected = {}
    for frame in read_pcap(plain)[1]:
        dst, src = frame[0:6], frame[6:12]
        if src in stations:
            link = (ap, src)
        elif dst in stations or dst[0] & 1:
            link = (ap, dst)
        else:  # relayed by the bridging station as a 4-address frame: its own BSS, as airdecap-ng names it
            link = (wds_bridge, ap)
        expected[link] = expected.get(link, 0) + 1
    for station in stations:  # the rekey's group key handshake, under each station's PTK
        expected[(ap, station)] += 2

    _, summary = ours(cap, ["-e", SSID, "-p", PASSPHRASE])
    mac = lambda text: bytes.fromhex(text.replace(":", ""))
    per_station = {(mac(s["bssid"]), mac(s["station"])): s["frames"] for s in summary["per_station"]}
    assert {link: c["written"] for link, c in per_station.items() if c["written"]} == expected
    for key in ("read", "decrypted", "written", "fragments_joined"):
        total = summary["frames_read"] if key == "read" else summary[key]
        total = total["total"] if key == "decrypted" else total
        assert sum(c[key] for c in per_station.values()) == total, key
        for bss in summary["per_bss"]:
            assert bss["frames"][key] == sum(c[key] for (b, _), c in per_station.items() if b == mac(bss["bssid"]))
    reasons = {}
    for c in per_station.values():
        for why, n in c["not_written"].items():
            reasons[why] = reasons.get(why, 0) + n
    assert reasons == {why: n for why, n in summary["not_written"].items() if n}
    # The 802.11w frames: each station's SA Query pair, and station 0's Deauthentication.
    assert sum(c["not_written"].get("management_frame_no_msdu", 0) for c in per_station.values()) == 2 * 3 + 1


# --- a Deauthentication ends the link's keys -------------------------------------------------

def is_deauth(p):
    return p[0] == 0xC0 and not p[4] & 1


def move_after_deauth(tmp_path, cap, protected_deauth):
    """The capture with the last protected data frame of the deauthenticated link moved to
    just after the Deauthentication (a frame still under the old key, its PN unused)."""
    link, packets = read_pcap(cap)
    d = next(i for i, p in enumerate(packets) if is_deauth(p) and bool(p[1] & 0x40) == protected_deauth)
    ends = {packets[d][4:10], packets[d][10:16]}
    k = max(i for i, p in enumerate(packets[:d])
            if (p[0] >> 2) & 3 == 2 and p[1] & 0x40 and {p[4:10], p[10:16]} == ends)
    moved = packets[:k] + packets[k + 1 : d + 1] + [packets[k]] + packets[d + 1 :]
    out = tmp_path / "moved.pcap"
    write_pcap(out, link, moved)
    return out


def test_a_protected_deauthentication_ends_the_links_keys(tmp_path):
    cap, keys = synth(tmp_path, "ccmp128")
    _, before = ours(cap, keys)
    assert before["links_ended"] == 1  # station 0's protected Deauthentication, at the end
    moved = move_after_deauth(tmp_path, cap, protected_deauth=True)
    _, after = ours(moved, keys)
    assert after["not_written"]["key_dropped_at_deauthentication"] == 1
    assert after["written"] == before["written"] - 1
    assert after["links_ended"] == 1


@pytest.mark.parametrize("pmf", [False, True])
def test_an_unprotected_deauthentication_ends_the_keys_only_without_pmf(tmp_path, pmf):
    """synth --rekey deauthenticates station 0 (unprotected) and associates it again with a
    new 4-way handshake. Without 802.11w that ends the old PTK: a frame under it after the
    Deauthentication is not decrypted, the new handshake keys the link again. With 802.11w
    the stations ignore an unprotected (possibly forged) Deauthentication: the PTK stays."""
    cap = tmp_path / "rekey.pcap"
    subprocess.run(
        [WLANSEC, "synth", "-o", cap, "-e", SSID, "-p", PASSPHRASE, "--stations", "2", "--frames", "60",
         "--rekey", "--fragment-every", "0", "--seed", "13", *(["--pmf"] if pmf else [])],
        check=True, capture_output=True,
    )
    keys = ["-e", SSID, "-p", PASSPHRASE]
    _, before = ours(cap, keys)
    moved = move_after_deauth(tmp_path, cap, protected_deauth=False)
    _, after = ours(moved, keys)
    dropped = 0 if pmf else 1
    # Without 802.11w the rekey's Deauthentication ends the link; with it, only the
    # protected one at the end of the capture does.
    assert after["links_ended"] == before["links_ended"] == 1
    assert after["not_written"]["key_dropped_at_deauthentication"] == dropped
    assert after["written"] == before["written"] - dropped
    assert after["handshakes"]["verified"] == before["handshakes"]["verified"] == 3
