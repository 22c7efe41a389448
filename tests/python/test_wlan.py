"""The emulated WLAN end to end (`wlansec wlan up|down|status|inject`), as root.

Every test brings up its own topology under its own name (namespaces NAME-ap, NAME-sta1,
...), sends bounded traffic only between addresses inside those namespaces (10.77.0.0/24,
fd77::/64), and checks that `down` — or the supervisor after a crash — leaves nothing behind.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WLANSEC = os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec"))
PASSPHRASE = "wlansec-test-pass"
WEP_KEY = "abcdefghijklm"

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the emulated WLAN needs root (network namespaces, TAP)"),
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="needs /dev/net/tun"),
    pytest.mark.skipif(not (shutil.which("ip") and shutil.which("ping") and shutil.which("iperf3")), reason="needs ip, ping and iperf3 (make setup)"),
]


def wlansec(*args, check=True, timeout=60):
    r = subprocess.run([WLANSEC, *args], capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"wlansec {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r


def netns(ns, *cmd, check=True, timeout=30):
    r = subprocess.run(["ip", "netns", "exec", ns, *cmd], capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} in {ns} failed: {r.stdout}{r.stderr}")
    return r


def namespaces(name):
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [l.split()[0] for l in out.splitlines() if l.startswith(f"{name}-")]


def status(name):
    return json.loads(wlansec("wlan", "status", "--name", name, "--json").stdout)


def assert_gone(name):
    assert namespaces(name) == [], f"leftover namespaces: {namespaces(name)}"
    assert not Path(f"/run/wlansec/{name}").exists()
    assert not Path(f"/run/wlansec/{name}.log").exists()


class Wlan:
    def __init__(self, name, *args):
        self.name = name
        wlansec("wlan", "down", "--name", name, check=False)
        wlansec("wlan", "up", "--name", name, *args)
        self.status = status(name)
        self.nodes = {n["role"]: n for n in self.status["nodes"]}

    def ns(self, role):
        return self.nodes[role]["namespace"]

    def addr(self, role, family):
        return self.nodes[role][family].split("/")[0]

    def down(self):
        wlansec("wlan", "down", "--name", self.name)
        assert_gone(self.name)


@pytest.fixture
def make_wlan():
    made = []

    def make(name, *args):
        w = Wlan(name, *args)
        made.append(w)
        return w

    yield make
    for w in made:
        if w.name:
            w.down()


def ping(w, src, dst, family):
    flag = "-4" if family == "ipv4" else "-6"
    r = netns(w.ns(src), "ping", flag, "-c", "3", "-i", "0.05", "-W", "2", w.addr(dst, family), check=False)
    assert r.returncode == 0, f"{src}->{dst} {family}: {r.stdout}"
    assert " 0% packet loss" in r.stdout


def tcp(w, src, dst, family, nbytes="300K"):
    """A bounded TCP transfer with iperf3 (server in dst's namespace, one connection)."""
    port = "5301"
    server = subprocess.Popen(["ip", "netns", "exec", w.ns(dst), "iperf3", "-s", "-1", "-p", port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        addr = w.addr(dst, family)
        for _ in range(50):
            r = netns(w.ns(src), "iperf3", "-c", addr, "-p", port, "-n", nbytes, "-J", check=False, timeout=60)
            if r.returncode == 0 and "error" not in json.loads(r.stdout or "{}"):
                break
            time.sleep(0.1)
        assert r.returncode == 0, f"iperf3 {src}->{dst} {family}: {r.stdout[-400:]}{r.stderr}"
        end = json.loads(r.stdout)["end"]
        assert end["sum_sent"]["bytes"] >= 300 * 1024 and end["sum_received"]["bytes"] > 0
    finally:
        server.wait(timeout=30)


MODES = [("open", PASSPHRASE), ("wep", WEP_KEY), ("tkip", PASSPHRASE), ("ccmp", PASSPHRASE), ("enhanced", PASSPHRASE), ("enhanced:4", PASSPHRASE)]


@pytest.mark.parametrize("mode,passphrase", MODES, ids=[m for m, _ in MODES])
def test_ping_and_tcp_over_ipv4_and_ipv6(make_wlan, mode, passphrase):
    w = make_wlan(f"wtm{[m for m, _ in MODES].index(mode)}", "--security", mode, "--passphrase", passphrase)
    assert w.status["security"] == (mode if ":" in mode or mode != "enhanced" else "enhanced:1")
    for family in ("ipv4", "ipv6"):
        ping(w, "sta1", "sta2", family)
        ping(w, "sta2", "ap", family)
        tcp(w, "sta1", "sta2", family)
    s = status(w.name)
    ap = s["nodes"][0]["counters"]
    assert ap["forwarded_msdus"] > 200 and ap["dropped_integrity"] == 0 and ap["dropped_replay"] == 0
    assert s["release_error"]["frames"] > 0 and s["release_error"]["p99_us"] >= s["release_error"]["median_us"]


def test_release_spin_carries_traffic_and_status_starts_release_error_windows(make_wlan):
    """`--release-spin-us` (busy-wait before each release) changes when frames leave, not
    what leaves; `status --reset-release-error` answers for the frames since the last reset,
    so the lab gets one release-error window per run (the floor's timing: wlansec_lab.floor)."""
    w = make_wlan("wtspin", "--security", "ccmp", "--passphrase", PASSPHRASE, "--release-spin-us", "200")
    def window() -> int:
        answer = wlansec("wlan", "status", "--name", w.name, "--json", "--reset-release-error").stdout
        return json.loads(answer)["release_error"]["frames"]

    window()  # the handshakes' and beacons' since `up`
    ping(w, "sta1", "sta2", "ipv4")
    # 3 echo requests and 3 replies, each over two hops: at least 12 releases in this window,
    # and the next window (a moment later: a beacon or two at most) holds none of them.
    assert window() >= 12
    assert window() < 12
    tcp(w, "sta1", "sta2", "ipv4")
    assert status(w.name)["nodes"][0]["counters"]["dropped_integrity"] == 0


PMF_RUNS = [("ccmp", "optional"), ("ccmp", "required"), ("enhanced:4", "optional"), ("enhanced:4", "required"),
            ("tkip", "optional"), ("wep", "optional"), ("open", "optional")]


@pytest.mark.parametrize("mode,pmf", PMF_RUNS, ids=[f"{m}-{p}" for m, p in PMF_RUNS])
def test_ping_and_tcp_with_management_frame_protection(make_wlan, mode, pmf):
    """--pmf: the CCMP modes negotiate 802.11w and carry traffic as before; the modes that
    cannot protect management frames (tkip, wep, open) take `optional` as not offered."""
    passphrase = WEP_KEY if mode == "wep" else PASSPHRASE
    w = make_wlan(f"wtpmf{PMF_RUNS.index((mode, pmf))}", "--security", mode, "--passphrase", passphrase, "--pmf", pmf)
    assert w.status["pmf"] == pmf
    for family in ("ipv4", "ipv6"):
        ping(w, "sta1", "sta2", family)
    tcp(w, "sta1", "sta2", "ipv4")
    for n in status(w.name)["nodes"]:
        c = n["counters"]
        assert c["refused_unprotected_management"] == 0 and c["dropped_integrity"] == 0 and c["handshake_errors"] == 0, n


def test_pmf_required_without_ccmp_is_refused():
    for args in (["--security", "tkip", "--passphrase", PASSPHRASE], ["--security", "open"], ["--topology", "ibss", "--security", "ccmp", "--passphrase", PASSPHRASE]):
        pmf = "optional" if "ibss" in args else "required"
        r = wlansec("wlan", "up", "--name", "wtpmfx", *args, "--pmf", pmf, check=False)
        assert r.returncode != 0 and "--pmf" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert_gone("wtpmfx")


def test_status_names_every_namespace_interface_and_address(make_wlan):
    w = make_wlan("wtstat", "--stations", "3", "--security", "ccmp", "--passphrase", PASSPHRASE, "--card", "fixed:50")
    roles = [n["role"] for n in w.status["nodes"]]
    assert roles == ["ap", "sta1", "sta2", "sta3"]
    assert sorted(namespaces(w.name)) == sorted(n["namespace"] for n in w.status["nodes"])
    for n in w.status["nodes"]:
        out = netns(n["namespace"], "ip", "-j", "addr", "show", n["interface"]).stdout
        info = json.loads(out)[0]
        assert info["address"] == n["mac"]
        addrs = {f'{a["local"]}/{a["prefixlen"]}' for a in info["addr_info"]}
        assert {n["ipv4"], n["ipv6"]} <= addrs
    assert w.status["nodes"][1]["crypto"] == {"model": "fixed", "us": 50.0}
    assert w.status["nodes"][0]["crypto"] == {"model": "host"}
    ping(w, "sta3", "sta1", "ipv4")


AMPDU_CASES = [(("--phy", "n-mcs7-40"), 32), (("--phy", "g54"), 1), (("--phy", "n-mcs7-40", "--ampdu", "1"), 1),
               (("--phy", "n-mcs7-40", "--ampdu", "8"), 8)]


@pytest.mark.parametrize("args,ampdu", AMPDU_CASES, ids=["n-default", "g54-default", "n-off", "n-8"])
def test_status_reports_the_ampdu_setting(make_wlan, args, ampdu):
    w = make_wlan(f"wtag{AMPDU_CASES.index((args, ampdu))}", "--security", "open", *args)
    assert w.status["ampdu"] == ampdu
    assert {"ampdus", "ampdu_mpdus"} <= set(w.status["medium"])
    shown = wlansec("wlan", "status", "--name", w.name).stdout
    assert f"A-MPDU ≤ {ampdu} MPDUs" in shown.splitlines()[0], shown


def test_wrong_passphrase_fails_the_handshake_and_no_data_passes():
    name = "wtwrong"
    r = wlansec("wlan", "up", "--name", name, "--security", "ccmp", "--passphrase", PASSPHRASE, "--station-passphrase", "not-the-passphrase", check=False)
    assert r.returncode != 0
    assert "4-way handshake failed" in r.stderr and "MIC" in r.stderr and "wrong passphrase" in r.stderr, r.stderr
    assert_gone(name)
    r = wlansec("wlan", "up", "--name", name, "--security", "ccmp", "--passphrase", PASSPHRASE, "--station-passphrase", "not-the-passphrase", "--keep-on-failure", check=False)
    try:
        assert r.returncode != 0
        s = status(name)
        assert all(a["port_open"] is False for a in s["associations"])
        p = netns(f"{name}-sta1", "ping", "-c", "2", "-i", "0.1", "-W", "1", "10.77.0.254", check=False)
        assert p.returncode != 0
        s = status(name)
        assert s["nodes"][0]["counters"]["rx_msdus"] == 0
        assert s["nodes"][1]["counters"]["dropped_port_closed"] > 0
    finally:
        wlansec("wlan", "down", "--name", name)
        assert_gone(name)


@pytest.mark.parametrize("mode,passphrase", [("ccmp", PASSPHRASE), ("tkip", PASSPHRASE), ("enhanced:2", PASSPHRASE)])
def test_replayed_and_tampered_frames_are_dropped_and_counted(make_wlan, mode, passphrase):
    w = make_wlan("wtinj" + mode[:2], "--security", mode, "--passphrase", passphrase)
    ping(w, "sta1", "ap", "ipv4")
    before = status(w.name)["nodes"][0]["counters"]
    assert json.loads(wlansec("wlan", "inject", "--name", w.name, "replay").stdout)["ok"]
    assert json.loads(wlansec("wlan", "inject", "--name", w.name, "tamper").stdout)["ok"]
    time.sleep(0.3)
    after = status(w.name)["nodes"][0]["counters"]
    assert after["dropped_replay"] == before["dropped_replay"] + 1
    assert after["dropped_integrity"] == before["dropped_integrity"] + 1


def test_tampered_wep_frame_fails_its_icv(make_wlan):
    w = make_wlan("wtinjwe", "--security", "wep", "--passphrase", WEP_KEY)
    ping(w, "sta1", "ap", "ipv4")
    wlansec("wlan", "inject", "--name", w.name, "tamper")
    time.sleep(0.3)
    assert status(w.name)["nodes"][0]["counters"]["dropped_integrity"] == 1


@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)")
@pytest.mark.parametrize("mode", ["ccmp", "tkip", "wep"])
def test_captured_air_decrypts_in_tshark_and_wlansec_decrypt(make_wlan, tmp_path, mode):
    pcap = tmp_path / f"{mode}.pcap"
    passphrase = WEP_KEY if mode == "wep" else PASSPHRASE
    w = make_wlan("wtcap" + mode[:2], "--security", mode, "--passphrase", passphrase, "--pcap", str(pcap))
    netns(w.ns("sta1"), "ping", "-c", "5", "-i", "0.05", "-p", "c0ffee", w.addr("sta2", "ipv4"))
    w.down()
    w.name = None
    key = f'"wep","{WEP_KEY.encode().hex()}"' if mode == "wep" else f'"wpa-pwd","{PASSPHRASE}:wlansec"'
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-o", "wlan.enable_decryption:TRUE", "-o", f"uat:80211_keys:{key}", "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2", "-T", "fields", "-e", "wlan.fc.tods"],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    # Each echo request crosses the air twice: STA1 -> AP (To DS) and AP -> STA2 (From DS).
    assert out.count("1") == 5 and out.count("0") == 5, out
    args = ["--wep-key", WEP_KEY.encode().hex()] if mode == "wep" else ["-e", "wlansec", "-p", PASSPHRASE]
    dec = tmp_path / "dec.pcap"
    wlansec("decrypt", str(pcap), "-o", str(dec), *args)
    icmp = subprocess.run(["tshark", "-r", str(dec), "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2"], capture_output=True, text=True, check=True).stdout
    assert len(icmp.splitlines()) == 10


@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)")
@pytest.mark.parametrize("mode", ["ccmp", "tkip"])
def test_fragmented_msdus_cross_the_air_and_decrypt(make_wlan, tmp_path, mode):
    """--fragment-threshold: 1400-byte pings cross the air as fragments no longer than the
    threshold (FCS included), arrive, and both tshark and `wlansec decrypt` reassemble them."""
    pcap = tmp_path / f"frag-{mode}.pcap"
    w = make_wlan("wtfrag" + mode[:2], "--security", mode, "--passphrase", PASSPHRASE, "--fragment-threshold", "600", "--pcap", str(pcap))
    ping_out = netns(w.ns("sta1"), "ping", "-c", "4", "-i", "0.1", "-s", "1400", "-W", "2", w.addr("sta2", "ipv4"), check=False).stdout
    assert " 0% packet loss" in ping_out, ping_out
    tcp(w, "sta1", "sta2", "ipv4")
    w.down()
    w.name = None
    lengths = subprocess.run(["tshark", "-r", str(pcap), "-Y", "wlan.fc.type == 2 && (wlan.frag > 0 || wlan.fc.frag == 1)", "-T", "fields", "-e", "frame.len", "-e", "radiotap.length"], capture_output=True, text=True, check=True).stdout.split("\n")
    fragments = [int(a) - int(b) for a, b in (l.split() for l in lengths if l.strip())]
    assert len(fragments) >= 4 * 2 * 3, len(fragments)
    assert max(fragments) + 4 <= 600, max(fragments)
    key = f'"wpa-pwd","{PASSPHRASE}:wlansec"'
    # ip.len, not data.len: tshark strips 8 octets of Michael MIC from every decrypted TKIP
    # fragment rather than once from the reassembled MSDU, so its TKIP data.len is short.
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-o", "wlan.enable_decryption:TRUE", "-o", f"uat:80211_keys:{key}", "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2 && ip.len == 1428", "-T", "fields", "-e", "wlan.fc.tods"],
        capture_output=True, text=True, check=True,
    ).stdout.split()
    assert out.count("1") == 4 and out.count("0") == 4, out
    dec = tmp_path / "dec.pcap"
    wlansec("decrypt", str(pcap), "-o", str(dec), "-e", "wlansec", "-p", PASSPHRASE)
    icmp = subprocess.run(["tshark", "-r", str(dec), "-Y", "icmp.type == 8 && ip.dst == 10.77.0.2 && data.len == 1400"], capture_output=True, text=True, check=True).stdout
    assert len(icmp.splitlines()) == 8


def test_down_after_the_emulator_is_killed_leaves_nothing():
    name = "wtkill"
    wlansec("wlan", "up", "--name", name, "--security", "open")
    pid = int(Path(f"/run/wlansec/{name}/emulator.pid").read_text())
    os.kill(pid, signal.SIGKILL)
    deadline = time.time() + 10
    while namespaces(name) and time.time() < deadline:
        time.sleep(0.1)
    assert namespaces(name) == [] and not Path(f"/run/wlansec/{name}").exists()
    # The supervisor keeps its log for the post-mortem; down after its clean-up removes it.
    assert "torn down" in Path(f"/run/wlansec/{name}.log").read_text()
    wlansec("wlan", "down", "--name", name)
    assert_gone(name)


def pids(name):
    return [int(Path(f"/run/wlansec/{name}/{p}.pid").read_text()) for p in ("supervisor", "emulator")]


def test_a_wrong_wep_key_fails_up_with_a_clear_message():
    name = "wtwep"
    r = wlansec("wlan", "up", "--name", name, "--security", "wep", "--passphrase", "abcde", "--station-passphrase", "vwxyz", check=False)
    assert r.returncode != 0 and "WEP keys differ" in r.stderr, r.stderr
    assert_gone(name)


def test_a_stopped_emulator_and_supervisor_do_not_survive_down():
    name = "wtstop"
    wlansec("wlan", "up", "--name", name, "--security", "open")
    for pid in pids(name):
        os.kill(pid, signal.SIGSTOP)
    wlansec("wlan", "down", "--name", name, timeout=30)
    assert_gone(name)
    wlansec("wlan", "down", "--name", name)  # twice: harmless


def test_up_after_a_kill_9_of_everything_recovers_without_a_manual_step():
    name = "wtk9"
    wlansec("wlan", "up", "--name", name, "--security", "open")
    old = pids(name)
    for pid in old:
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    assert namespaces(name), "killed with -9, nothing cleaned up"
    wlansec("wlan", "up", "--name", name, "--security", "open")
    assert status(name)["nodes"]
    assert "already up" in wlansec("wlan", "up", "--name", name, "--security", "open", check=False).stderr
    wlansec("wlan", "down", "--name", name)
    assert_gone(name)


@pytest.mark.parametrize("victim", ["up", "supervisor", "emulator"])
def test_a_kill_9_while_up_is_starting_is_recovered_by_the_next_up(victim):
    """`up` killed, or the processes it starts killed, before the stations have joined. A
    killed `up` leaves nothing running: its supervisor sees it go (the pipe between them
    closes before `up` confirmed) and tears the WLAN down by itself, so the next `up` never
    finds a half-started WLAN answering as if it were up."""
    name = f"wtk9{victim[:2]}"
    wlansec("wlan", "down", "--name", name, check=False)
    client = subprocess.Popen([WLANSEC, "wlan", "up", "--name", name, "--security", "ccmp", "--passphrase", PASSPHRASE], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The stage: the victim's PID file exists (for `up` itself: the supervisor it started).
    pid_file = Path(f"/run/wlansec/{name}/{'supervisor' if victim == 'up' else victim}.pid")
    deadline = time.time() + 10
    while time.time() < deadline and not (pid_file.exists() and pid_file.read_text().strip()):
        time.sleep(0.001)
    assert client.poll() is None, "up finished before the stage was reached; the test no longer kills mid-start"
    os.kill(client.pid if victim == "up" else int(pid_file.read_text()), signal.SIGKILL)
    client.wait(timeout=30)
    if victim == "up":
        deadline = time.time() + 15
        while time.time() < deadline and (namespaces(name) or Path(f"/run/wlansec/{name}").exists()):
            time.sleep(0.05)
        assert not namespaces(name) and not Path(f"/run/wlansec/{name}").exists(), "a killed `up` left its WLAN running"
        assert "ended before every station joined" in Path(f"/run/wlansec/{name}.log").read_text()
    try:
        wlansec("wlan", "up", "--name", name, "--security", "ccmp", "--passphrase", PASSPHRASE)
        assert all(n["state"]["state"] == "connected" for n in status(name)["nodes"])
    finally:
        wlansec("wlan", "down", "--name", name)
    assert_gone(name)


def test_state_is_root_only_and_names_are_never_paths():
    name = "wtperm"
    wlansec("wlan", "up", "--name", name, "--security", "ccmp", "--passphrase", PASSPHRASE)
    try:
        assert Path(f"/run/wlansec/{name}").stat().st_mode & 0o777 == 0o700
        assert Path(f"/run/wlansec/{name}/config.json").stat().st_mode & 0o777 == 0o600
        assert Path(f"/run/wlansec/{name}.log").stat().st_mode & 0o777 == 0o600
    finally:
        wlansec("wlan", "down", "--name", name)
    assert_gone(name)
    for bad in ("../../x", "a/b", "", "x" * 16, "wl an"):
        for cmd in (["up"], ["down"], ["status"]):
            r = wlansec("wlan", *cmd, "--name", bad, check=False)
            assert r.returncode == 2 and "WLAN name" in r.stderr and len(r.stderr.strip().splitlines()) == 1, (bad, cmd, r.stderr)


def test_ctrl_c_in_the_foreground_tears_down():
    name = "wtfg"
    p = subprocess.Popen([WLANSEC, "wlan", "up", "--name", name, "--security", "ccmp", "--passphrase", PASSPHRASE, "--foreground"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            r = wlansec("wlan", "status", "--name", name, "--json", check=False)
            if r.returncode == 0 and all(n["state"]["state"] == "connected" for n in json.loads(r.stdout)["nodes"]):
                break
            time.sleep(0.1)
        assert len(namespaces(name)) == 3
        os.killpg(p.pid, signal.SIGINT)  # what Ctrl-C does: SIGINT to the foreground group
        p.wait(timeout=15)
    finally:
        if p.poll() is None:
            p.kill()
        wlansec("wlan", "down", "--name", name, check=False)
    assert_gone(name)


def test_bad_options_are_refused_with_one_line():
    for args, msg in [
        (["--security", "wpa9"], "unknown security mode"),
        (["--security", "enhanced:3"], "N must be 1, 2, 4 or 8"),
        (["--phy", "z99"], "--phy"),
        (["--card", "gpu"], "unknown crypto model"),
        (["--security", "wep", "--passphrase", "abc"], "WEP"),
        (["--security", "ccmp", "--passphrase", "short"], "8..63"),
    ]:
        r = wlansec("wlan", "up", "--name", "wtbad", *args, check=False)
        assert r.returncode != 0 and msg in r.stderr, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1
    assert_gone("wtbad")


IBSS_MODES = [("open", PASSPHRASE), ("wep", WEP_KEY), ("tkip", PASSPHRASE), ("ccmp", PASSPHRASE)]


@pytest.mark.parametrize("mode,passphrase", IBSS_MODES, ids=[m for m, _ in IBSS_MODES])
def test_ibss_stations_talk_directly(make_wlan, mode, passphrase):
    w = make_wlan(f"wti{mode[:2]}", "--topology", "ibss", "--security", mode, "--passphrase", passphrase)
    assert w.status["topology"] == "ibss"
    assert [n["role"] for n in w.status["nodes"]] == ["sta1", "sta2"]
    assert sorted(namespaces(w.name)) == [f"{w.name}-sta1", f"{w.name}-sta2"]
    for family in ("ipv4", "ipv6"):
        ping(w, "sta1", "sta2", family)
        ping(w, "sta2", "sta1", family)
    tcp(w, "sta1", "sta2", "ipv4")
    s = status(w.name)
    for n in s["nodes"]:
        assert n["counters"]["dropped_integrity"] == 0 and n["counters"]["rx_msdus"] > 100
        assert [p["port_open"] for p in n["peers"]] == [True]


@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)")
def test_ibss_frames_cross_the_air_once_with_a3_the_bssid(make_wlan, tmp_path):
    pcap = tmp_path / "ibss.pcap"
    w = make_wlan("wtipc", "--topology", "ibss", "--security", "open", "--pcap", str(pcap))
    netns(w.ns("sta1"), "ping", "-c", "5", "-i", "0.05", w.addr("sta2", "ipv4"))
    w.down()
    w.name = None
    out = subprocess.run(["tshark", "-r", str(pcap), "-Y", "icmp.type == 8", "-T", "fields", "-e", "wlan.fc.ds", "-e", "wlan.da", "-e", "wlan.sa", "-e", "wlan.bssid"], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["0x00\t02:77:00:00:00:02\t02:77:00:00:00:01\t02:77:00:00:00:fe"] * 5, out


def test_ibss_wrong_passphrase_fails_with_a_clear_error():
    name = "wtiwr"
    r = wlansec("wlan", "up", "--name", name, "--topology", "ibss", "--security", "ccmp", "--passphrase", PASSPHRASE, "--station-passphrase", "not-the-passphrase", check=False)
    assert r.returncode != 0
    assert "4-way handshake failed" in r.stderr and "wrong passphrase" in r.stderr, r.stderr
    assert_gone(name)


@contextlib.contextmanager
def veth_pair(a, b, subnet):
    """Namespaces `a` and `b` joined only by a veth pair (a0 .1, b0 .2 in 192.168.SUBNET/24),
    removed on the way out with whatever processes the body registered in the yielded list."""
    for ns in (a, b):
        subprocess.run(["ip", "netns", "delete", ns], capture_output=True)
        subprocess.run(["ip", "netns", "add", ns], check=True)
        netns(ns, "ip", "link", "set", "lo", "up")
    procs = []
    try:
        subprocess.run(["ip", "link", "add", f"{a}0", "netns", a, "type", "veth", "peer", "name", f"{b}0", "netns", b], check=True)
        for ns, host in ((a, 1), (b, 2)):
            netns(ns, "ip", "addr", "add", f"192.168.{subnet}.{host}/24", "dev", f"{ns}0")
            netns(ns, "ip", "link", "set", f"{ns}0", "up")
        yield procs
    finally:
        for p in procs:
            p.terminate()
            p.wait(timeout=10)
        for ns in (a, b):
            subprocess.run(["ip", "netns", "delete", ns], capture_output=True)


def test_ap_and_station_over_udp_across_a_veth_pair(tmp_path):
    """`wlansec ap` and `wlansec sta` as separate processes in two namespaces joined only by
    a veth pair: the UDP "air" carries CCMP-protected frames; ping v4/v6 and TCP pass."""
    a, b = "wtua", "wtub"
    with veth_pair(a, b, 78) as procs:
        common = ["--security", "ccmp", "--passphrase", PASSPHRASE, "--ssid", "udp-air"]
        logs = [open(tmp_path / f"{role}.log", "w") for role in ("ap", "sta")]
        procs.append(subprocess.Popen(["ip", "netns", "exec", a, WLANSEC, "ap", *common, "--mac", "02:78:00:00:00:fe", "--ipv4", "10.78.0.254/24", "--ipv6", "fd78::fe/64", "--listen", "192.168.78.1:7700"], stderr=logs[0]))
        procs.append(subprocess.Popen(["ip", "netns", "exec", b, WLANSEC, "sta", *common, "--mac", "02:78:00:00:00:01", "--ipv4", "10.78.0.1/24", "--ipv6", "fd78::1/64", "--ap", "192.168.78.1:7700", "--bssid", "02:78:00:00:00:fe"], stderr=logs[1]))
        deadline = time.time() + 20
        while "station: connected" not in (tmp_path / "sta.log").read_text() and time.time() < deadline:
            assert all(p.poll() is None for p in procs), (tmp_path / "ap.log").read_text() + (tmp_path / "sta.log").read_text()
            time.sleep(0.1)
        assert "station: connected" in (tmp_path / "sta.log").read_text(), (tmp_path / "sta.log").read_text()
        for dst in ("10.78.0.254", "fd78::fe"):
            # The first contact may still be resolving the neighbour (ARP, IPv6 ND): a few
            # tries, then three in a row without loss; the logs say why if not.
            for _ in range(5):
                r = netns(b, "ping", "-c", "3", "-i", "0.1", "-W", "2", dst, check=False)
                if r.returncode == 0 and " 0% packet loss" in r.stdout:
                    break
            logs_text = (tmp_path / "ap.log").read_text() + (tmp_path / "sta.log").read_text()
            assert r.returncode == 0 and " 0% packet loss" in r.stdout, r.stdout + logs_text
        server = subprocess.Popen(["ip", "netns", "exec", a, "iperf3", "-s", "-1", "-p", "5302"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(50):
                r = netns(b, "iperf3", "-c", "10.78.0.254", "-p", "5302", "-n", "300K", "-J", check=False, timeout=60)
                if r.returncode == 0 and "error" not in json.loads(r.stdout or "{}"):
                    break
                time.sleep(0.1)
            assert r.returncode == 0, r.stdout[-400:]
            assert r.returncode == 0 and "error" not in json.loads(r.stdout), r.stdout[-400:]
            end = json.loads(r.stdout)["end"]
            assert end["sum_sent"]["bytes"] >= 300 * 1024 and end["sum_received"]["bytes"] > 0
        finally:
            server.wait(timeout=30)
        # What crossed the veth is protected 802.11 in UDP: the plaintext never shows there.
        cap = subprocess.Popen(["ip", "netns", "exec", a, "tshark", "-i", "wtua0", "-w", str(tmp_path / "veth.pcap"), "-f", "udp port 7700"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if shutil.which("tshark") else None
        if cap:
            deadline = time.time() + 10
            while not (tmp_path / "veth.pcap").exists() and time.time() < deadline:
                time.sleep(0.1)
            time.sleep(0.5)
            netns(b, "ping", "-c", "3", "-i", "0.1", "-p", "c0ffee", "10.78.0.254")
            time.sleep(0.5)
            cap.send_signal(signal.SIGINT)  # tshark finishes its file on SIGINT
            cap.wait(timeout=10)
            data = (tmp_path / "veth.pcap").read_bytes()
            assert len(data) > 500 and bytes.fromhex("c0ffeec0ffee") not in data
    assert not [l for l in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.splitlines() if l.startswith(("wtua", "wtub"))]


@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)")
@pytest.mark.parametrize("mode", ["ccmp", "tkip"])
def test_ibss_capture_decrypts_in_wlansec_decrypt(make_wlan, tmp_path, mode):
    # Each station pair runs two 4-way handshakes and each station sends under its own GTK:
    # unicast both ways and both stations' broadcasts must come back.
    pcap = tmp_path / f"ibss-{mode}.pcap"
    w = make_wlan(f"wtid{mode[:2]}", "--topology", "ibss", "--security", mode, "--stations", "2", "--passphrase", PASSPHRASE, "--pcap", str(pcap))
    netns(w.ns("sta1"), "ping", "-c", "5", "-i", "0.05", "-p", "c0ffee", w.addr("sta2", "ipv4"))
    for role in ("sta1", "sta2"):
        netns(w.ns(role), "ping", "-b", "-c", "2", "-i", "0.05", "-W", "1", "10.77.0.255", check=False)
    w.down()
    w.name = None
    dec = tmp_path / "dec.pcap"
    r = wlansec("decrypt", str(pcap), "-o", str(dec), "-e", "wlansec", "-p", PASSPHRASE)
    assert "Number of verified handshakes                   2" in r.stdout, r.stdout
    assert "Number of packets failing integrity             0" in r.stdout, r.stdout
    icmp = subprocess.run(["tshark", "-r", str(dec), "-Y", "icmp", "-T", "fields", "-e", "eth.src", "-e", "eth.dst", "-e", "icmp.type"], capture_output=True, text=True, check=True).stdout.splitlines()
    sta1, sta2 = (w.nodes[r]["mac"] for r in ("sta1", "sta2"))
    assert icmp.count(f"{sta1}\t{sta2}\t8") == 5 and icmp.count(f"{sta2}\t{sta1}\t0") == 5, icmp
    # A group-addressed frame is never retried (802.11), and the medium loses a collided
    # one (e.g. with a beacon): of each station's two broadcasts, at least one is on the air.
    for sta in (sta1, sta2):
        assert 1 <= icmp.count(f"{sta}\tff:ff:ff:ff:ff:ff\t8") <= 2, icmp


def test_a_udp_station_with_a_wrong_passphrase_says_so_keeps_trying_and_the_ap_logs_why(tmp_path):
    """A wrong passphrase fails every 4-way handshake, and both sides say so. The station
    does not exit: the access point's word (reason 15) is not authenticated, a forger could
    say the same, so it keeps trying (every 16 s), as wpa_supplicant does, until the user
    stops it."""
    a, b = "wtva", "wtvb"
    with veth_pair(a, b, 79) as procs:
        ap_log, sta_log = tmp_path / "ap.log", tmp_path / "sta.log"
        procs.append(subprocess.Popen(["ip", "netns", "exec", a, WLANSEC, "ap", "--security", "ccmp", "--passphrase", PASSPHRASE, "--mac", "02:79:00:00:00:fe",
                                       "--ipv4", "10.79.0.254/24", "--ipv6", "fd79::fe/64", "--listen", "192.168.79.1:7700"], stderr=open(ap_log, "w")))
        sta = subprocess.Popen(["ip", "netns", "exec", b, WLANSEC, "sta", "--security", "ccmp", "--passphrase", "not-the-passphrase", "--mac", "02:79:00:00:00:01",
                                "--ipv4", "10.79.0.1/24", "--ipv6", "fd79::1/64", "--ap", "192.168.79.1:7700", "--bssid", "02:79:00:00:00:fe"],
                               stderr=open(sta_log, "w"))
        procs.append(sta)
        deadline = time.time() + 30
        while "cannot join" not in sta_log.read_text() and time.time() < deadline:
            assert sta.poll() is None, sta_log.read_text()
            time.sleep(0.2)
        said = sta_log.read_text()
        assert "cannot join" in said and "wrong passphrase" in said and "reason 15" in said and "trying again" in said, said
        assert sta.poll() is None, said
        assert "access point: station 02:79:00:00:00:01: 4-way handshake failed" in ap_log.read_text()


def _mgmt_frame(subtype, da, sa, bssid, body):
    """An unprotected 802.11 management frame (no FCS), as a forger writes one."""
    mac = lambda text: bytes.fromhex(text.replace(":", ""))
    return bytes([subtype << 4, 0]) + b"\0\0" + mac(da) + mac(sa) + mac(bssid) + b"\x10\0" + body


def _send_udp(ns, datagram, to):
    """One datagram from namespace `ns`, from a port of its own (not the node's)."""
    script = ("import socket, sys; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
              f"s.sendto(bytes.fromhex(sys.argv[1]), ({to[0]!r}, {to[1]}))")
    netns(ns, "python3", "-c", script, datagram.hex())


@pytest.mark.parametrize("pmf", ["optional", "off"])
def test_forged_frames_over_the_udp_air_neither_move_nor_end_a_station(tmp_path, pmf):
    """A forger on the UDP air's network. With 802.11w (the default on CCMP), an unprotected
    Authentication in the station's name from another UDP port moves nothing: the access
    point keeps sending the station's frames to the station, and its traffic flows. Without
    802.11w (`--pmf off`), a forged Deauthentication ends the station's link, as the standard
    allows, and the station joins again after its backoff instead of exiting."""
    a, b = "wtwa", "wtwb"
    ap_mac, sta_mac = "02:7a:00:00:00:fe", "02:7a:00:00:00:01"
    ap_udp, sta_udp = ("192.168.80.1", 7700), ("192.168.80.2", 7701)
    with veth_pair(a, b, 80) as procs:
        common = ["--security", "ccmp", "--passphrase", PASSPHRASE, "--ssid", "udp-forger", "--pmf", pmf]
        sta_log = tmp_path / f"sta-{pmf}.log"
        logs = [open(tmp_path / f"ap-{pmf}.log", "w"), open(sta_log, "w")]
        procs.append(subprocess.Popen(["ip", "netns", "exec", a, WLANSEC, "ap", *common, "--mac", ap_mac, "--ipv4", "10.80.0.254/24",
                                       "--ipv6", "fd80::fe/64", "--listen", f"{ap_udp[0]}:{ap_udp[1]}"], stderr=logs[0]))
        sta = subprocess.Popen(["ip", "netns", "exec", b, WLANSEC, "sta", *common, "--mac", sta_mac, "--ipv4", "10.80.0.1/24", "--ipv6",
                                "fd80::1/64", "--ap", f"{ap_udp[0]}:{ap_udp[1]}", "--bssid", ap_mac, "--listen", f"{sta_udp[0]}:{sta_udp[1]}"],
                               stderr=logs[1])
        procs.append(sta)

        def connections():
            return sta_log.read_text().count("station: connected")

        def wait_connected(n):
            deadline = time.time() + 30
            while connections() < n and time.time() < deadline:
                assert sta.poll() is None, sta_log.read_text()
                time.sleep(0.1)
            assert connections() >= n, sta_log.read_text()

        wait_connected(1)
        if pmf == "optional":
            auth = _mgmt_frame(11, ap_mac, sta_mac, ap_mac, bytes([0, 0, 1, 0, 0, 0]))
            _send_udp(b, auth, ap_udp)
            time.sleep(0.5)
        else:
            deauth = _mgmt_frame(12, sta_mac, ap_mac, ap_mac, bytes([3, 0]))
            _send_udp(a, deauth, sta_udp)
            wait_connected(2)
            assert "joining again after a backoff" in sta_log.read_text(), sta_log.read_text()
        assert sta.poll() is None, sta_log.read_text()
        # A few tries (the first contact may still be resolving the neighbour): a station the
        # forgery moved or ended stays cut off.
        for _ in range(3):
            r = netns(b, "ping", "-c", "3", "-i", "0.1", "-W", "2", "10.80.0.254", check=False)
            if r.returncode == 0 and " 0% packet loss" in r.stdout:
                break
        assert r.returncode == 0 and " 0% packet loss" in r.stdout, (pmf, r.stdout, sta_log.read_text())
