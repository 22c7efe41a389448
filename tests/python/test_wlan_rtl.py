"""The emulated WLAN with the access point's CCMP in its own Verilog (`--ap-crypto
verilog:104`): every frame the access point seals or opens goes through the verilated
ccmp_axi / ccmp_decap_axi, driven through their AXI ports. Ping and TCP over IPv4 and IPv6
between two stations cross it twice (opened, then sealed again); the capture decrypts in
tshark and in `wlansec decrypt`, so the RTL's frames are standard CCMP on the air.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from test_wlan import PASSPHRASE, make_wlan, netns, ping, status, tcp, wlansec  # noqa: F401 (make_wlan: a fixture)

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the emulated WLAN needs root (network namespaces, TAP)"),
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="needs /dev/net/tun"),
    pytest.mark.skipif(not (shutil.which("ip") and shutil.which("ping") and shutil.which("iperf3")), reason="needs ip, ping and iperf3 (make setup)"),
    pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)"),
]

def tshark(pcap, *args):
    return subprocess.run(["tshark", "-r", str(pcap), *args], capture_output=True, text=True, check=True).stdout


def test_ping_and_tcp_through_the_access_points_rtl_decrypt_in_tshark_and_wlansec(make_wlan, tmp_path):
    pcap = tmp_path / "air.pcap"
    w = make_wlan("wtrtl", "--security", "ccmp", "--passphrase", PASSPHRASE, "--ap-crypto", "verilog:104",
                  "--stations", "2", "--pcap", str(pcap))
    assert w.nodes["ap"]["crypto"] == {"model": "verilog", "mhz": 104.0}
    netns(w.ns("sta1"), "ping", "-c", "5", "-i", "0.05", "-p", "c0ffee", w.addr("sta2", "ipv4"))
    ping(w, "sta1", "sta2", "ipv6")
    for family in ("ipv4", "ipv6"):
        ping(w, "sta2", "ap", family)
        tcp(w, "sta1", "sta2", family)
    ap = status(w.name)["nodes"][0]
    assert ap["counters"]["forwarded_msdus"] > 200
    assert ap["counters"]["dropped_integrity"] == 0 and ap["counters"]["dropped_replay"] == 0
    # Every protected frame the access point heard and forwarded cost the RTL its cycles.
    assert ap["crypto_frames"] > 2 * ap["counters"]["forwarded_msdus"]
    w.down()
    w.name = None

    key = f'"wpa-pwd","{PASSPHRASE}:wlansec"'
    decrypting = ["-o", "wlan.enable_decryption:TRUE", "-o", f"uat:80211_keys:{key}"]
    out = tshark(pcap, *decrypting, "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2", "-T", "fields", "-e", "wlan.fc.tods").split()
    # Each echo request crosses the air twice: sealed by STA1 (To DS), then by the RTL (From DS).
    assert out.count("1") == 5 and out.count("0") == 5, out
    # No protected data frame is left that tshark could not open (the RTL's included), once
    # the first message 3 handed out the GTK (the access point's own multicast before it is
    # under a key no capture has seen).
    first_gtk = int(tshark(pcap, "-Y", "wlan_rsna_eapol.keydes.msgnr == 3", "-T", "fields", "-e", "frame.number").split()[0])
    sealed = tshark(pcap, *decrypting, "-Y", "wlan.fc.type == 2 && wlan.fc.protected == 1 && wlan.fc.fromds == 1", "-T", "fields", "-e", "frame.number").split()
    unopened = tshark(pcap, *decrypting, "-Y", f"frame.number > {first_gtk} && wlan.fc.type == 2 && wlan.fc.protected == 1 && !llc", "-T", "fields", "-e", "frame.number").split()
    assert len(sealed) > 400 and unopened == [], f"{len(unopened)} of the protected data frames do not decrypt"
    dec = tmp_path / "dec.pcap"
    wlansec("decrypt", str(pcap), "-o", str(dec), "-e", "wlansec", "-p", PASSPHRASE)
    icmp = tshark(dec, "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2 && data.data contains c0:ff:ee")
    assert len(icmp.splitlines()) == 10
    tcp6 = tshark(dec, "-Y", "tcp && ipv6 && tcp.len > 1000")
    assert len(tcp6.splitlines()) > 200


def test_the_verilog_card_is_refused_where_it_cannot_work():
    for args, why in [(["--security", "tkip", "--ap-crypto", "verilog:104"], "ccmp"),
                      (["--ap-crypto", "verilog:0"], "positive number"),
                      (["--card", "verilog:104"], "access point")]:
        r = wlansec("wlan", "up", "--name", "wtrtlbad", "--passphrase", PASSPHRASE, *args, check=False)
        assert r.returncode != 0 and why in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
