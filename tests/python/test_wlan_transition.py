"""WPA3-Personal transition mode over the UDP air, as root: `wlansec ap --security sae
--sae-transition --transition-disable 0x01` offers the PSK (AKM 2) beside SAE (AKM 8) with
management frame protection optional; a station in transition mode (`sta --security sae
--sae-transition`) joins by SAE with PMF, a WPA2-only station (`sta --security ccmp`) by the
PSK. tshark, dissecting the 802.11 frames the veth pair carried in UDP, shows each station's
association request with the one AKM it took, and SAE's Authentication frames for the one
station only. (The UDP air carries no beacon before a station is known: the access point's
element with both AKMs is checked in `wlan::bss::tests::transition`.) And `wlan up --security sae
--sae-transition --psk-stations 1` on the emulated air: the SAE stations join by SAE with PMF
required, the WPA2-only one by the PSK, whose frames tshark decrypts with the passphrase."""

import os
import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest

from test_wlan import PASSPHRASE, WLANSEC, Wlan, netns, ping, veth_pair

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the UDP air's nodes need root (network namespaces, TAP)"),
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="needs /dev/net/tun"),
    pytest.mark.skipif(not (shutil.which("ip") and shutil.which("ping")), reason="needs ip and ping (make setup)"),
    pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)"),
]

AP_MAC, SAE_MAC, PSK_MAC = "02:81:00:00:00:fe", "02:81:00:00:00:01", "02:81:00:00:00:02"


def as_802_11(veth_pcap, out):
    """The UDP datagrams of a veth capture (one MPDU each) as a capture of 802.11 frames
    (link type 105), which tshark dissects."""
    payloads = subprocess.run(["tshark", "-r", str(veth_pcap), "-T", "fields", "-e", "udp.payload"], capture_output=True, text=True, check=True).stdout.split()
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 105))
        for payload in payloads:
            mpdu = bytes.fromhex(payload.replace(":", ""))
            f.write(struct.pack("<IIII", 0, 0, len(mpdu), len(mpdu)) + mpdu)
    return out


def frames(pcap, display_filter, *fields, tshark_args=()):
    """Fields of the 802.11 frames of a capture."""
    args = ["tshark", "-r", str(pcap), *tshark_args, "-Y", display_filter, "-T", "fields"]
    for f in fields:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


@pytest.mark.parametrize("configured_by", ["flags", "files"])
def test_a_transition_access_point_takes_an_sae_station_by_sae_and_a_wpa2_station_by_the_psk(tmp_path, configured_by):
    """The transition mode from the command line's flags, or from a hostapd.conf and a
    wpa_supplicant.conf as hostapd and wpa_supplicant take them."""
    a, b = "wttra", "wttrb"
    with veth_pair(a, b, 81) as procs:
        pcap = tmp_path / "veth.pcap"
        procs.append(subprocess.Popen(["ip", "netns", "exec", a, "tshark", "-i", f"{a}0", "-w", str(pcap), "-f", "udp port 7700"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(50):
            if pcap.exists():
                break
            time.sleep(0.1)
        common = ["--passphrase", PASSPHRASE, "--ssid", "udp-transition"]
        logs = {role: tmp_path / f"{role}.log" for role in ("ap", "sae", "psk")}
        if configured_by == "flags":
            ap_security = ["--security", "sae", "--sae-transition", "--transition-disable", "0x01", *common]
            sae_security = ["--security", "sae", "--sae-transition", *common]
        else:
            hostapd = tmp_path / "hostapd.conf"
            hostapd.write_text(f"ssid=udp-transition\nwpa=2\nwpa_key_mgmt=WPA-PSK SAE\nrsn_pairwise=CCMP\nieee80211w=1\nwpa_passphrase={PASSPHRASE}\ntransition_disable=0x01\n")
            supplicant = tmp_path / "wpa_supplicant.conf"
            supplicant.write_text(f'network={{\n  ssid="udp-transition"\n  key_mgmt=WPA-PSK SAE\n  psk="{PASSPHRASE}"\n  ieee80211w=1\n}}\n')
            ap_security = ["--config", str(hostapd)]
            sae_security = ["--config", str(supplicant)]
        ap = ["ap", *ap_security, "--mac", AP_MAC, "--ipv4", "10.81.0.254/24", "--ipv6", "fd81::fe/64", "--listen", "192.168.81.1:7700"]
        sae = ["sta", *sae_security, "--interface", "wlan0", "--mac", SAE_MAC, "--ipv4", "10.81.0.1/24", "--ipv6", "fd81::1/64"]
        psk = ["sta", "--security", "ccmp", *common, "--interface", "wlan1", "--mac", PSK_MAC, "--ipv4", "10.81.0.2/24", "--ipv6", "fd81::2/64"]
        to_ap = ["--ap", "192.168.81.1:7700", "--bssid", AP_MAC]
        for role, ns, args in (("ap", a, ap), ("sae", b, sae + to_ap), ("psk", b, psk + to_ap)):
            procs.append(subprocess.Popen(["ip", "netns", "exec", ns, WLANSEC, *args], stderr=open(logs[role], "w")))
            if role == "ap":
                time.sleep(0.5)  # a beacon before the stations start
        deadline = time.time() + 20
        text = lambda: "".join(f"{role}: {p.read_text()}" for role, p in logs.items())
        while not all("station: connected" in logs[s].read_text() for s in ("sae", "psk")) and time.time() < deadline:
            assert all(p.poll() is None for p in procs), text()
            time.sleep(0.1)
        assert all("station: connected" in logs[s].read_text() for s in ("sae", "psk")), text()
        time.sleep(0.5)
    pcap = as_802_11(pcap, tmp_path / "air.pcap")
    # Each station named the one AKM it took: SAE with PMF for the one, the PSK for the other.
    requests = {sa: (akm, mfpc) for sa, akm, mfpc in frames(pcap, "wlan.fc.type_subtype == 0", "wlan.sa", "wlan.rsn.akms.type", "wlan.rsn.capabilities.mfpc")}
    assert requests[SAE_MAC][0] == "8" and requests[SAE_MAC][1] in ("True", "1"), requests
    assert requests[PSK_MAC][0] == "2", requests
    # Only the transition station ran SAE (Authentication algorithm 3).
    assert {sa for (sa,) in frames(pcap, "wlan.fixed.auth.alg == 3 && wlan.fixed.auth_seq == 1", "wlan.sa")} >= {SAE_MAC, AP_MAC}
    assert PSK_MAC not in {sa for (sa,) in frames(pcap, "wlan.fixed.auth.alg == 3", "wlan.sa")}


def test_transition_mode_options_that_cannot_work_are_refused():
    r = subprocess.run([WLANSEC, "ap", "--security", "ccmp", "--sae-transition", "--passphrase", PASSPHRASE, "--mac", AP_MAC, "--ipv4", "10.81.0.254/24", "--ipv6", "fd81::fe/64"], capture_output=True, text=True)
    assert r.returncode != 0 and "need --security sae" in r.stderr, r.stderr
    r = subprocess.run([WLANSEC, "ap", "--security", "sae", "--sae-transition", "--pmf", "off", "--passphrase", PASSPHRASE, "--mac", AP_MAC, "--ipv4", "10.81.0.254/24", "--ipv6", "fd81::fe/64"], capture_output=True, text=True)
    assert r.returncode != 0 and "--pmf optional or required" in r.stderr, r.stderr


def test_wlan_up_in_transition_mode_joins_sae_stations_by_sae_and_a_wpa2_station_by_the_psk(tmp_path):
    pcap = tmp_path / "transition.pcap"
    w = Wlan("wttrup", "--security", "sae", "--sae-transition", "--transition-disable", "0x01", "--passphrase", PASSPHRASE, "--stations", "3", "--psk-stations", "1", "--pcap", str(pcap))
    try:
        assert (w.status["security"], w.status["pmf"]) == ("sae", "optional")
        assert {r: w.nodes[r].get("akm") for r in ("ap", "sta1", "sta2", "sta3")} == {"ap": None, "sta1": "SAE", "sta2": "SAE", "sta3": "PSK"}
        for sta in ("sta1", "sta2", "sta3"):
            for family in ("ipv4", "ipv6"):
                ping(w, sta, "ap", family)
        ping(w, "sta1", "sta3", "ipv4")
        for sta in ("sta1", "sta3"):
            netns(w.ns(sta), "ping", "-c", "3", "-i", "0.05", "-p", "c0ffee", w.addr("ap", "ipv4"))
    finally:
        w.down()

    # The beacon offers both AKMs with PMF optional; each association request names the one
    # AKM its station took, MFPR with SAE.
    beacons = frames(pcap, "wlan.fc.type_subtype == 8", "wlan.rsn.akms.type", "wlan.rsn.capabilities.mfpc", "wlan.rsn.capabilities.mfpr")
    assert beacons and all(b == ["2,8", "1", "0"] for b in beacons), beacons[:3]
    requests = {sa: (akm, mfpr) for sa, akm, mfpr in frames(pcap, "wlan.fc.type_subtype == 0", "wlan.sa", "wlan.rsn.akms.type", "wlan.rsn.capabilities.mfpr")}
    mac = {r: w.nodes[r]["mac"] for r in ("sta1", "sta2", "sta3")}
    assert requests == {mac["sta1"]: ("8", "1"), mac["sta2"]: ("8", "1"), mac["sta3"]: ("2", "0")}, requests
    assert mac["sta3"] not in {sa for (sa,) in frames(pcap, "wlan.fixed.auth.alg == 3", "wlan.sa")}

    # The passphrase decrypts the WPA2 station's link; an SAE station's keys come from its
    # own exchange, which the passphrase alone does not give.
    key = ["-o", "wlan.enable_decryption:TRUE", "-o", f'uat:80211_keys:"wpa-pwd","{PASSPHRASE}:wlansec"']
    echoes = lambda src: frames(pcap, f"icmp.type == 8 && ip.src == {src} && data.data contains c0:ff:ee", "wlan.fc.tods", tshark_args=key)
    assert len(echoes(w.addr("sta3", "ipv4"))) == 3
    assert echoes(w.addr("sta1", "ipv4")) == []


@pytest.mark.parametrize("args, says", [
    (["--security", "sae", "--psk-stations", "1"], "--psk-stations needs --sae-transition"),
    (["--security", "ccmp", "--sae-transition"], "need --security sae"),
    (["--security", "sae", "--sae-transition", "--stations", "2", "--psk-stations", "3"], "more than --stations 2"),
    (["--security", "sae", "--sae-transition", "--pmf", "off"], "--pmf optional or required"),
])
def test_wlan_up_transition_options_that_cannot_work_are_refused(args, says):
    r = subprocess.run([WLANSEC, "wlan", "up", "--name", "wttropt", *args], capture_output=True, text=True)
    assert r.returncode != 0 and says in r.stderr, r.stderr
