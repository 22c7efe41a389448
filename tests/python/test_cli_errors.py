"""Bad input to the CLI: a one-line error naming the problem, a non-zero exit, never a panic."""

import subprocess
from pathlib import Path

import pytest

TK = "c97c1f67ce371185514a8a19f2bdd52f"
PLAIN = "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050"
PROTECTED = ("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5f3d0a2fe9a3dbf2342a643e4"
             "3246e80c3c04d0197845ce0b16f97623")


def run(wlansec, *args):
    return subprocess.run([wlansec, *args], capture_output=True, text=True)


@pytest.mark.parametrize("args, message", [
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, "0848zz"], "bad hex"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, "084"], "odd number of digits"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK[:-2], PROTECTED], "wrong key length: expected 16 bytes, got 15"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", "xyz", PROTECTED], "bad hex in --tk"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED[:40]], "truncated 802.11 header"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED[:60]], "truncated CCMP MPDU"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED[:-2] + "00"], "MIC verification failed"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", "00" * 16, PROTECTED], "MIC verification failed"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED, PROTECTED], "replayed frame"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PLAIN[:2] + "08" + PLAIN[4:]], "not protected"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED[:54] + "00" + PROTECTED[56:]], "Ext IV"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, "--keyid", "2", PROTECTED], "Key ID 0"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "--pn", "281474976710656", PLAIN], "2^48"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "--pn", "0", PLAIN], "2^48"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "--keyid", "4", PLAIN], "--keyid"),
    (["frame", "protect", "--suite", "nope", "--tk", TK, PLAIN], "invalid value 'nope'"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "d400"], "truncated 802.11 header"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "d4000000020000000001"], "only data and management"),
    (["vectors", "--min-len", "10", "--max-len", "5"], "--min-len"),
])
def test_bad_input_gives_one_clear_line(wlansec, args, message):
    result = run(wlansec, *args)
    assert result.returncode != 0
    assert "panicked" not in result.stderr
    assert message in result.stderr, result.stderr


def test_protect_then_unprotect_round_trips_the_published_frame(wlansec):
    protected = run(wlansec, "frame", "protect", "--suite", "ccmp128", "--tk", TK, "--pn", "0xb5039776e70c", PLAIN)
    assert protected.returncode == 0
    assert protected.stdout.strip() == PROTECTED
    plain = run(wlansec, "frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED)
    assert plain.stdout.strip() == "0808" + PLAIN[4:]


def test_selftest_passes_every_vector(wlansec):
    result = run(wlansec, "selftest")
    assert result.returncode == 0
    assert " 0 failed" in result.stdout
    assert "FAIL " not in result.stdout


# hostapd.conf / wpa_supplicant.conf: a bad file is refused (naming its line, never echoing a
# secret) before anything is set up, so these run without creating namespaces or TAPs.
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NODE = ["--mac", "02:77:00:00:00:02", "--ipv4", "10.77.0.2/24", "--ipv6", "fd77::2/64"]


@pytest.mark.parametrize("command, text, message", [
    (["wlan", "up", "--hostapd-conf"], "ssid=lab\njunk\n", "line 2: syntax error: no `=`"),
    (["wlan", "up", "--hostapd-conf"], "wpa=2\nwpa_passphrase=s3cr3t\n", "line 2: wpa_passphrase: a passphrase has 8..63"),
    (["wlan", "up", "--hostapd-conf"], "wpa=2\nrsn_pairwise=GCMP\nwpa_passphrase=lab-passphrase\n",
     "line 2: not supported: pairwise cipher GCMP"),
    (["wlan", "up", "--hostapd-conf"], "wpa=2\nwpa_key_mgmt=SAE\nrsn_pairwise=CCMP\nsae_password=s3cr3t\n",
     "missing: ieee80211w=2 (line 2 asks for SAE"),
    (["wlan", "up", "--hostapd-conf"], "wpa=2\nwpa_key_mgmt=SAE\nsae_password=s3cr3t\nieee80211w=2\n",
     "line 2: not supported: SAE with tkip (SAE needs rsn_pairwise=CCMP)"),
    (["wlan", "up", "--hostapd-conf"], "wpa=2\nwpa_key_mgmt=FT-PSK\nwpa_passphrase=lab-passphrase\n",
     "line 2: not supported: wpa_key_mgmt FT-PSK"),
    (["wlan", "up", "--hostapd-conf"], "fragm_threshold=100\n", "line 1: fragm_threshold"),
    (["ap", *NODE, "--config"], "wpa=2\n", "missing: wpa=2 needs wpa_passphrase or wpa_psk"),
    (["sta", *NODE, "--ap", "192.0.2.1:7700", "--config"], "network={\nssid=\"lab\"\n", "line 1: syntax error"),
    (["sta", *NODE, "--ap", "192.0.2.1:7700", "--config"], "network={\npsk=\"s3cr3t\"\n}\n", "line 2: psk"),
])
def test_a_bad_configuration_file_is_one_clear_line(wlansec, tmp_path, command, text, message):
    conf = tmp_path / "bad.conf"
    conf.write_text(text)
    result = run(wlansec, *command, str(conf))
    assert result.returncode == 1
    assert "panicked" not in result.stderr
    assert f"wlansec: error: {conf}: {message}" in result.stderr, result.stderr
    assert "s3cr3t" not in result.stderr


def test_a_configuration_file_names_what_it_ignores(wlansec):
    # The file is read, its radio keys named; the bad --mac then stops `ap` before any TAP exists.
    result = run(wlansec, "ap", "--config", str(EXAMPLES / "hostapd.conf"), "--mac", "zz", "--ipv4", "x", "--ipv6", "y")
    assert result.returncode == 1
    assert "panicked" not in result.stderr
    for line, key in [(10, "interface"), (11, "driver"), (12, "hw_mode"), (13, "channel")]:
        assert f"hostapd.conf: line {line}: `{key}` is not implemented" in result.stderr, result.stderr
    assert "wpa_group_rekey=3600 not applied: a UDP access point rotates its GTK only when a station leaves" in result.stderr
    assert "ieee80211w" not in result.stderr  # applied: --pmf optional
    assert "correct horse battery" not in result.stderr
    assert "MAC address" in result.stderr
