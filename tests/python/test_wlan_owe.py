"""OWE in the emulated WLAN (`wlansec wlan up --security owe`), as root: two stations join an
open network by OWE (group 19, PMF required) and carry ping over IPv4 and IPv6; tshark sees
AKM 18 and the Diffie-Hellman Parameter element (extension ID 32) in the association request
and response, and decrypts the data frames with the PMKs `--keylog` wrote."""

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from test_wlan import netns, ping, wlansec

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the emulated WLAN needs root (network namespaces, TAP)"),
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="needs /dev/net/tun"),
    pytest.mark.skipif(not (shutil.which("ip") and shutil.which("ping")), reason="needs ip and ping (make setup)"),
    pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)"),
]


def tshark(pcap, *args):
    return subprocess.run(["tshark", "-r", str(pcap), *args], capture_output=True, text=True, check=True).stdout


def test_owe_carries_ping_and_its_capture_shows_akm_18_the_dh_elements_and_decrypts_with_the_pmk(tmp_path):
    from test_wlan import Wlan

    pcap, keylog = tmp_path / "owe.pcap", tmp_path / "owe.keys"
    w = Wlan("wtowe", "--security", "owe", "--stations", "2", "--pcap", str(pcap), "--keylog", str(keylog))
    try:
        assert w.status["security"] == "owe" and w.status["pmf"] == "required"
        for family in ("ipv4", "ipv6"):
            ping(w, "sta1", "sta2", family)
            ping(w, "sta1", "ap", family)
        netns(w.ns("sta1"), "ping", "-c", "5", "-i", "0.05", "-p", "c0ffee", w.addr("sta2", "ipv4"))
    finally:
        w.down()

    assert stat.S_IMODE(keylog.stat().st_mode) == 0o600
    text = keylog.read_text()
    keys, stations = re.findall(r'"wpa-psk","([0-9a-f]{64})"', text), re.findall(r"# OWE PMK of ([0-9a-f:]{17})", text)
    assert sorted(stations) == sorted({w.nodes["sta1"]["mac"], w.nodes["sta2"]["mac"]}) and len(set(keys)) == 2

    # The association request: AKM 18 (OWE), MFPR, and the station's DH element of group 19.
    request = tshark(pcap, "-Y", "wlan.fc.type_subtype == 0", "-T", "fields", "-e", "wlan.sa", "-e", "wlan.rsn.akms.type", "-e", "wlan.rsn.capabilities.mfpr", "-e", "wlan.ext_tag.number", "-e", "wlan.ext_tag.owe_dh_parameter.group").splitlines()
    assert sorted(l.split("\t") for l in request) == sorted([sta, "18", "1", "32", "19"] for sta in stations), request
    # The association response: success, and the access point's DH element of group 19.
    response = tshark(pcap, "-Y", "wlan.fc.type_subtype == 1", "-T", "fields", "-e", "wlan.fixed.status_code", "-e", "wlan.ext_tag.number", "-e", "wlan.ext_tag.owe_dh_parameter.group").splitlines()
    assert sorted(l.split("\t") for l in response) == [["0x0000", "32", "19"]] * 2, response

    # tshark decrypts the data frames given the PMKs ("wpa-psk" keys take a PMK as hex).
    uat = [a for k in keys for a in ("-o", f'uat:80211_keys:"wpa-psk","{k}"')]
    echo = tshark(pcap, "-o", "wlan.enable_decryption:TRUE", *uat, "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2 && data.data contains c0:ff:ee", "-T", "fields", "-e", "wlan.fc.tods").split()
    # Each echo request crosses the air twice: STA1 -> AP (To DS) and AP -> STA2 (From DS).
    assert echo.count("1") == 5 and echo.count("0") == 5, echo


@pytest.mark.parametrize("args, says", [
    (["--security", "owe", "--pmf", "optional"], "needs --pmf required"),
    (["--security", "owe", "--topology", "ibss"], "needs an access point"),
    (["--security", "ccmp", "--owe-groups", "19"], "needs --security owe"),
    (["--security", "owe", "--owe-groups", "14"], "OWE group 14 not supported"),
])
def test_owe_options_that_cannot_work_are_refused(args, says):
    r = wlansec("wlan", "up", "--name", "wtoweopt", *args, check=False)
    assert r.returncode != 0 and says in r.stderr, r.stderr


def test_a_hostapd_conf_with_wpa_key_mgmt_owe_brings_up_an_owe_network(tmp_path):
    from test_wlan import Wlan

    conf = tmp_path / "hostapd.conf"
    conf.write_text("ssid=owe-conf\nwpa=2\nwpa_key_mgmt=OWE\nrsn_pairwise=CCMP\nieee80211w=2\nowe_groups=19\n")
    w = Wlan("wtoweconf", "--hostapd-conf", str(conf), "--stations", "2")
    try:
        assert w.status["security"] == "owe" and w.status["pmf"] == "required"
        ping(w, "sta1", "sta2", "ipv4")
    finally:
        w.down()
