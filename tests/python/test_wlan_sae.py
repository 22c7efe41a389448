"""WPA3-Personal in the emulated WLAN (`wlansec wlan up --security sae`), as root: two
stations join by SAE (group 19, hash-to-element; PMF required, beacons protected) and carry ping over IPv4 and IPv6 and a TCP
transfer; tshark dissects the capture's SAE Authentication frames (algorithm 3: commit and
confirm each way) and the association's RSN element (AKM 8, PMF required, the PMKID), and
decrypts the data frames with the PMKs `--keylog` wrote, as does `wlansec decrypt`. And `ap`
and `sta` join by SAE over the UDP air."""

import os
import re
import shutil
import stat
import time
import subprocess
from pathlib import Path

import pytest

from test_wlan import PASSPHRASE, netns, ping, status, tcp, wlansec

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the emulated WLAN needs root (network namespaces, TAP)"),
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="needs /dev/net/tun"),
    pytest.mark.skipif(not (shutil.which("ip") and shutil.which("ping") and shutil.which("iperf3")), reason="needs ip, ping and iperf3 (make setup)"),
    pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)"),
]


def tshark(pcap, *args):
    return subprocess.run(["tshark", "-r", str(pcap), *args], capture_output=True, text=True, check=True).stdout


def pmks(keylog):
    """The PMKs of a key log, and the stations they belong to."""
    text = keylog.read_text()
    return re.findall(r'"wpa-psk","([0-9a-f]{64})"', text), re.findall(r"# SAE PMK of ([0-9a-f:]{17})", text)


def test_sae_carries_ping_and_tcp_and_its_capture_decrypts_with_the_pmk(tmp_path):
    from test_wlan import Wlan

    pcap, keylog = tmp_path / "sae.pcap", tmp_path / "sae.keys"
    w = Wlan("wtsae", "--security", "sae", "--passphrase", PASSPHRASE, "--stations", "2", "--pcap", str(pcap), "--keylog", str(keylog))
    try:
        assert w.status["security"] == "sae" and w.status["pmf"] == "required"
        for family in ("ipv4", "ipv6"):
            ping(w, "sta1", "sta2", family)
            ping(w, "sta1", "ap", family)
        tcp(w, "sta1", "sta2", "ipv4")
        netns(w.ns("sta1"), "ping", "-c", "5", "-i", "0.05", "-p", "c0ffee", w.addr("sta2", "ipv4"))
    finally:
        w.down()

    assert stat.S_IMODE(keylog.stat().st_mode) == 0o600
    keys, stations = pmks(keylog)
    assert sorted(stations) == sorted({w.nodes["sta1"]["mac"], w.nodes["sta2"]["mac"]}) and len(set(keys)) == 2

    # The SAE exchange as tshark dissects it: each station's commit (group 19, status 126:
    # hash-to-element) and confirm, and the access point's, all of algorithm 3.
    sae = tshark(pcap, "-Y", "wlan.fixed.auth.alg == 3", "-T", "fields", "-e", "wlan.sa", "-e", "wlan.fixed.auth_seq", "-e", "wlan.fixed.status_code", "-e", "wlan.fixed.finite_cyclic_group", "-e", "wlan.fixed.send_confirm").splitlines()
    ap = w.nodes["ap"]["mac"]
    for sta in stations:
        own = [l.split("\t") for l in sae if l.startswith(sta)]
        assert [f[1] for f in own] == ["0x0001", "0x0002"], own
        assert own[0][2] == "0x007e" and own[0][3] == "19" and own[1][4] == "1", own
    theirs = [l.split("\t") for l in sae if l.startswith(ap)]
    assert sorted(f[1] for f in theirs) == ["0x0001", "0x0001", "0x0002", "0x0002"], theirs
    # The association: AKM 8 (SAE), MFPR, and the PMKID of the station's exchange.
    assoc = tshark(pcap, "-Y", "wlan.fc.type_subtype == 0", "-T", "fields", "-e", "wlan.sa", "-e", "wlan.rsn.akms.type", "-e", "wlan.rsn.capabilities.mfpr", "-e", "wlan.rsn.pmkid.count").splitlines()
    assert sorted(l.split("\t") for l in assoc) == sorted([sta, "8", "1", "1"] for sta in stations), assoc
    pmkids = dict(re.findall(r"# SAE PMK of ([0-9a-f:]{17}), PMKID ([0-9a-f]{32})", keylog.read_text()))
    named = subprocess.run(["tshark", "-r", str(pcap), "-Y", "wlan.fc.type_subtype == 0", "-x"], capture_output=True, text=True, check=True).stdout
    hexdump = "".join(re.findall(r"^[0-9a-f]{4}  ((?:[0-9a-f]{2} )+)", named, re.M)).replace(" ", "")
    assert all(pmkid in hexdump for pmkid in pmkids.values()), pmkids

    # Beacon protection: the access point's beacons carry a Management MIC element (BIP).
    beacons = tshark(pcap, "-Y", "wlan.fc.type_subtype == 8", "-T", "fields", "-e", "wlan.tag.number").splitlines()
    assert beacons and all("76" in b.split(",") for b in beacons), beacons[:3]

    # tshark decrypts the data frames given the PMKs ("wpa-psk" keys take a PMK as hex).
    uat = [a for k in keys for a in ("-o", f'uat:80211_keys:"wpa-psk","{k}"')]
    echo = tshark(pcap, "-o", "wlan.enable_decryption:TRUE", *uat, "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2 && data.data contains c0:ff:ee", "-T", "fields", "-e", "wlan.fc.tods").split()
    # Each echo request crosses the air twice: STA1 -> AP (To DS) and AP -> STA2 (From DS).
    assert echo.count("1") == 5 and echo.count("0") == 5, echo

    dec = tmp_path / "dec.pcap"
    r = wlansec("decrypt", str(pcap), "-o", str(dec), "--key-file", str(keylog))
    icmp = tshark(dec, "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2 && data.data contains c0:ff:ee")
    assert len(icmp.splitlines()) == 10, r.stdout


def test_a_wrong_sae_password_fails_up_at_the_confirm():
    name = "wtsaebad"
    wlansec("wlan", "down", "--name", name, check=False)
    r = wlansec("wlan", "up", "--name", name, "--security", "sae", "--passphrase", PASSPHRASE, "--station-passphrase", "another-password", "--stations", "1", check=False, timeout=90)
    assert r.returncode != 0
    assert "SAE confirm failed" in r.stderr, r.stderr
    assert not Path(f"/run/wlansec/{name}").exists()


@pytest.mark.parametrize("args, says", [
    (["--security", "sae", "--pmf", "optional"], "needs --pmf required"),
    (["--security", "sae", "--topology", "ibss"], "needs an access point"),
    (["--security", "ccmp", "--sae-pwe", "h2e"], "need --security sae"),
    (["--security", "sae", "--sae-pwe", "sometimes"], "hnp, h2e, both"),
    (["--security", "sae", "--sae-groups", "14"], "19, 20, 21"),
])
def test_sae_options_that_cannot_work_are_refused(args, says):
    r = wlansec("wlan", "up", "--name", "wtsaeopt", *args, check=False)
    assert r.returncode != 0 and says in r.stderr, r.stderr


def test_sae_ap_and_station_over_udp_across_a_veth_pair(tmp_path):
    """`wlansec ap` and `wlansec sta` with `--security sae` in two namespaces joined by a veth
    pair: the station joins by SAE over the UDP air and ping passes."""
    from test_wlan import WLANSEC, veth_pair

    a, b = "wtsua", "wtsub"
    with veth_pair(a, b, 79) as procs:
        common = ["--security", "sae", "--passphrase", PASSPHRASE, "--ssid", "udp-sae"]
        logs = [open(tmp_path / f"{role}.log", "w") for role in ("ap", "sta")]
        procs.append(subprocess.Popen(["ip", "netns", "exec", a, WLANSEC, "ap", *common, "--mac", "02:79:00:00:00:fe", "--ipv4", "10.79.0.254/24", "--ipv6", "fd79::fe/64", "--listen", "192.168.79.1:7700"], stderr=logs[0]))
        procs.append(subprocess.Popen(["ip", "netns", "exec", b, WLANSEC, "sta", *common, "--mac", "02:79:00:00:00:01", "--ipv4", "10.79.0.1/24", "--ipv6", "fd79::1/64", "--ap", "192.168.79.1:7700", "--bssid", "02:79:00:00:00:fe"], stderr=logs[1]))
        sta_log = tmp_path / "sta.log"
        deadline = time.time() + 20
        while "station: connected" not in sta_log.read_text() and time.time() < deadline:
            assert all(p.poll() is None for p in procs), (tmp_path / "ap.log").read_text() + sta_log.read_text()
            time.sleep(0.1)
        assert "station: connected" in sta_log.read_text(), sta_log.read_text()
        for dst in ("10.79.0.254", "fd79::fe"):
            for _ in range(5):
                r = netns(b, "ping", "-c", "3", "-i", "0.1", "-W", "2", dst, check=False)
                if r.returncode == 0 and " 0% packet loss" in r.stdout:
                    break
            assert r.returncode == 0 and " 0% packet loss" in r.stdout, r.stdout + sta_log.read_text()
