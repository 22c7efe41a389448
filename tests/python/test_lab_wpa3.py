"""The laboratory's WPA3 measurements: join times read by tshark from a real capture of `wlansec
wlan up --pcap` (structure and sanity only: which method joins faster is a measurement, not an
assertion), the join and cipher-cost experiments on the emulated WLAN end to end, their grids,
the report's WPA3 section with and without their results (and with GCMP-256 rows), and
docs/lab-data.md documenting the columns they add to runs.csv."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab"))
WLANSEC = os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec"))
QUICK_RUN = Path(__file__).resolve().parent / "data" / "lab-quick-run"

from wlansec_lab import experiments, joins, report, runner, tidy  # noqa: E402
from wlansec_lab import testbed as testbeds  # noqa: E402
from wlansec_lab.traffic import TrafficError, parse_ping  # noqa: E402

WLAN_REQUIREMENTS = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the emulated WLAN needs root (network namespaces, TAP)"),
    pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="needs /dev/net/tun"),
    pytest.mark.skipif(not Path(WLANSEC).exists(), reason=f"no wlansec binary at {WLANSEC}"),
    pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark (make setup)"),
]


def needs_wlan(test):
    """Skip `test` (before its fixtures bring anything up) where the emulated WLAN cannot run."""
    for mark in WLAN_REQUIREMENTS:
        test = mark(test)
    return test

#: `wlan up` options per join method, and the Authentication frames a station's join holds:
#: open system's request and response, or SAE's commit and confirm each way.
METHODS = {"ccmp": (["--security", "ccmp"], 2), "sae-hnp": (["--security", "sae", "--sae-pwe", "hnp"], 4),
           "sae-h2e": (["--security", "sae", "--sae-pwe", "h2e"], 4), "owe": (["--security", "owe"], 2)}


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    """One short bring-up per method with two stations, its air recorded: method → pcap."""
    d = tmp_path_factory.mktemp("joins")
    out = {}
    for method, (args, _) in METHODS.items():
        pcap = d / f"{method}.pcap"
        subprocess.run([WLANSEC, "wlan", "down", "--name", "wlsjn"], capture_output=True, timeout=30)
        try:
            subprocess.run([WLANSEC, "wlan", "up", "--name", "wlsjn", "--stations", "2", "--passphrase", "wlansec-lab",
                            "--pcap", str(pcap), *args], capture_output=True, check=True, timeout=90)
        finally:
            subprocess.run([WLANSEC, "wlan", "down", "--name", "wlsjn"], capture_output=True, timeout=30)
        out[method] = pcap
    return out


@needs_wlan
@pytest.mark.parametrize("method", list(METHODS))
def test_join_times_of_a_real_capture_are_ordered_and_add_up(captures, method):
    frames = joins.frames(captures[method])
    found = joins.joins(frames)
    assert len(found) == 2 and len({j.station for j in found}) == 2
    for j in found:
        assert j.join_ms > 0 and min(j.auth_ms, j.assoc_ms, j.handshake_ms) >= 0
        assert j.join_ms == pytest.approx(j.auth_ms + j.assoc_ms + j.handshake_ms)
        mine = [f for f in frames if j.station in (f.sa, f.da)]
        auth = [f for f in mine if f.subtype == joins.AUTHENTICATION]
        assert len(auth) == METHODS[method][1], "open system: 2 Authentication frames; SAE: commit and confirm each way"
        start = auth[0].time_s
        assert auth[0].sa == j.station, "the station authenticates first"
        request = next(f for f in mine if f.subtype == joins.ASSOCIATION_REQUEST)
        message4 = next(f for f in mine if f.eapol_message == 4)
        # Authentication, then association, then the 4-way handshake's last message, as the join's phases say.
        assert start < request.time_s < message4.time_s
        assert 1e3 * (message4.time_s - start) == pytest.approx(j.join_ms)
        assert j.join_ms < 1000, "a join on an idle emulated medium takes milliseconds"
    # The station's data frames (protected: PMF and the pairwise key) all follow its join.
    data = subprocess.run(["tshark", "-r", str(captures[method]), "-Y", "wlan.fc.type == 2 && wlan.fc.protected == 1", "-T", "fields",
                           "-e", "frame.time_relative", "-e", "wlan.sa"], capture_output=True, text=True, check=True).stdout
    for line in data.splitlines():
        t, sa = line.split("\t")
        j = next((j for j in found if j.station == sa), None)
        if j:
            first_auth = next(f.time_s for f in frames if f.subtype == joins.AUTHENTICATION and f.sa == sa)
            assert float(t) > first_auth + j.join_ms / 1e3 - 1e-9


def test_a_capture_without_message_4_is_an_error_not_a_shorter_join():
    lines = ["0.000100\t0x000b\t02:00:00:00:00:01\t02:00:00:00:00:fe\t",
             "0.000300\t0x000b\t02:00:00:00:00:fe\t02:00:00:00:00:01\t",
             "0.000500\t0x0000\t02:00:00:00:00:01\t02:00:00:00:00:fe\t",
             "0.000700\t0x0001\t02:00:00:00:00:fe\t02:00:00:00:00:01\t",
             "0.000900\t0x0028\t02:00:00:00:00:fe\t02:00:00:00:00:01\t1",
             "0.001100\t0x0028\t02:00:00:00:00:01\t02:00:00:00:00:fe\t2",
             "0.001300\t0x0028\t02:00:00:00:00:fe\t02:00:00:00:00:01\t3"]
    with pytest.raises(joins.CaptureError, match="message 4"):
        joins.joins(joins.parse_fields("\n".join(lines)))
    found = joins.joins(joins.parse_fields("\n".join(lines + ["0.001500\t0x0028\t02:00:00:00:00:01\t02:00:00:00:00:fe\t4"])))
    assert [(j.auth_ms, j.assoc_ms, j.handshake_ms) for j in found] == [pytest.approx((0.2, 0.4, 0.8))]
    with pytest.raises(joins.CaptureError, match="no station"):
        joins.joins(joins.parse_fields(lines[0]))


def test_ping_summary_parsing():
    out = ("--- 10.77.0.2 ping statistics ---\n20 packets transmitted, 19 received, 5% packet loss, time 950ms\n"
           "rtt min/avg/max/mdev = 0.912/1.152/1.804/0.211 ms\n")
    assert parse_ping(out) == {"rtt_ms": 1.152, "loss_percent": 5.0}
    with pytest.raises(TrafficError):
        parse_ping("ping: connect: Network is unreachable\n")


def test_wpa3_grids_hold_every_gcmp256_mode_and_pwe_only_for_sae():
    """The GCMP-256 modes enter both grids, full and quick, through one list; SAE alone is joined
    with each password element derivation."""
    for name in ("join", "cipher-cost"):
        e = experiments.EXPERIMENTS[name]
        for quick in (False, True):
            securities = {p["security"] for p in e.points(quick)}
            assert set(experiments.GCMP256_SECURITIES) <= securities and {"ccmp", "sae"} <= securities
    join = experiments.EXPERIMENTS["join"].points(quick=True)
    assert sorted((p["security"], p["sae_pwe"]) for p in join if p["security"] == "sae") == [("sae", "h2e"), ("sae", "hnp")]
    assert all(p["sae_pwe"] is None for p in join if p["security"] != "sae")
    assert len(join) == 4 + len(experiments.GCMP256_SECURITIES)
    assert set(experiments.GCMP256_SECURITIES) <= set(experiments.GCMP256_PAIRS)
    assert testbeds.VethTestbed().supports(experiments.EXPERIMENTS["join"].network(join[0])), "no air to capture on veth"


@needs_wlan
def test_join_and_cipher_cost_run_on_the_emulated_wlan_and_reach_the_report(tmp_path, monkeypatch):
    """A tiny quick run of both experiments on the emulated WLAN: every run measured, the joins
    from each bring-up's own capture, and the report's WPA3 section shows them."""
    monkeypatch.setitem(experiments.EXPERIMENTS["join"].quick_axes, "security", ["ccmp", "sae"])
    monkeypatch.setitem(experiments.EXPERIMENTS["join"].quick_axes, "sae_pwe", ["h2e", None])
    monkeypatch.setitem(experiments.EXPERIMENTS["join"].quick_axes, "stations", [2])
    monkeypatch.setitem(experiments.EXPERIMENTS["cipher-cost"].quick_axes, "security", ["ccmp"])
    tb = testbeds.WlanTestbed(WLANSEC, name="wlsjr")
    try:
        runner.run(["join", "cipher-cost"], experiments.Context(tb, WLANSEC, tmp_path, quick=True, seconds=1.0), repeats=1)
    finally:
        tb.down()
    assert not tb.capture_path.exists(), "each capture is removed once read"
    join = json.loads((tmp_path / "raw" / "join.json").read_text())
    assert len(join["runs"]) == 4 and all("error" not in r for r in join["runs"]), join["runs"]
    seeds = [r["medium_seed"] for r in join["runs"]]
    assert len(set(seeds)) == 2, "each round brings the WLAN up with its own medium seed"
    for r in join["runs"]:
        assert r["metrics"]["join_stations"] == 2 and r["metrics"]["join_ms"] > 0
        assert [s["join_ms"] for s in r["metrics"]["stations"]] and r["metrics"]["join_max_ms"] >= r["metrics"]["join_ms"]
    cost = json.loads((tmp_path / "raw" / "cipher-cost.json").read_text())
    assert [e["n"] for e in cost["summary"]] == [1] and not cost["summary"][0]["errors"], cost["summary"]
    assert cost["summary"][0]["metrics"]["iperf3_mbps"]["mean"] > 1 and cost["summary"][0]["metrics"]["ping_rtt_ms"]["mean"] > 0
    md = (report.write(tmp_path) / "report.md").read_text()
    section = md.split("## WPA3: join time and cipher cost", 1)[1].split("\n## ", 1)[0]
    assert "| WPA2-PSK | 2 | 2 |" in section and "| WPA3-SAE, hash-to-element | 2 | 2 |" in section
    assert (tmp_path / "figures" / "wpa3-join.svg").exists()


def _section(out: Path) -> str:
    md = (report.write(out, wlansec=str(out / "no-wlansec")) / "report.md").read_text()
    return md.split("## WPA3: join time and cipher cost", 1)[1].split("\n## ", 1)[0]


def test_report_section_without_wpa3_results_says_not_run(tmp_path):
    shutil.copytree(QUICK_RUN, tmp_path, dirs_exist_ok=True)
    for name in ("join", "cipher-cost"):
        (tmp_path / "raw" / f"{name}.json").unlink()
    section = _section(tmp_path)
    assert "Not run" in section and "join.json" in section
    assert not (tmp_path / "figures" / "wpa3-join.svg").exists()


def test_report_section_of_the_stored_quick_run(tmp_path):
    """The stored `make demo` run: a join row per method with its CI and the test against
    WPA2-PSK, the figure with alt text, the cipher table, and no published counterpart."""
    shutil.copytree(QUICK_RUN, tmp_path, dirs_exist_ok=True)
    section = _section(tmp_path)
    methods = ("WPA2-PSK", "WPA3-SAE, hunting-and-pecking", "WPA3-SAE, hash-to-element", "OWE",
               "WPA2-PSK (GCMP-256)", "WPA3-SAE-EXT-KEY (GCMP-256)")
    for method in methods:
        row = next(line for line in section.splitlines() if line.startswith(f"| {method} | 4 | 4 |"))
        assert re.search(r"\| \[-?\d+\.\d{3}, \d+\.\d{3}\] \|", row), row
    assert section.count("against WPA2-PSK; its authentication exchange is") == len(methods) - 1
    assert re.search(r"!\[[^\]]{40,}\]\(\.\./figures/wpa3-join\.svg\)", section)
    assert "| WPA2-PSK | `ccmp` vs `gcmp256` |" in section and "no published counterpart" in section
    assert "No difference here can be tested" in section


def test_report_section_tests_gcmp256_against_ccmp128(tmp_path):
    """With GCMP-256 runs (here the stored CCMP-128 runs relabelled, two kept runs each), each
    pair gets its Welch test and a line of the reading, whichever modes the list holds."""
    shutil.copytree(QUICK_RUN, tmp_path, dirs_exist_ok=True)
    path = tmp_path / "raw" / "cipher-cost.json"
    data = json.loads(path.read_text())
    runs = []
    for r in data["runs"]:
        for security in (r["point"]["security"], *(g for g, c in experiments.GCMP256_PAIRS.items() if c == r["point"]["security"])):
            for k, scale in enumerate((1.0, 0.98)):
                runs.append({**r, "warmup": False, "point": {**r["point"], "security": security},
                             "metrics": {m: v * scale * (0.97 if security in experiments.GCMP256_PAIRS else 1) for m, v in r["metrics"].items()}})
    data["runs"], data["summary"] = runs, runner.summarize_runs(runs)
    path.write_text(json.dumps(data))
    section = _section(tmp_path)
    for gcmp, ccmp in experiments.GCMP256_PAIRS.items():
        row = next(line for line in section.splitlines() if f"`{ccmp}` vs `{gcmp}`" in line)
        assert "not in this run" not in row and "significant" in row
        assert f"GCMP-256 against CCMP-128 under {report.wpa3.SECURITY_LABEL[ccmp]}: throughput" in section
    assert "No difference here can be tested" not in section


def _documented() -> set[str]:
    documented = set()
    for line in (ROOT / "docs" / "lab-data.md").read_text().split("| column |", 1)[1].splitlines()[2:]:
        if line.startswith("| "):
            documented |= set(re.findall(r"`([a-z0-9_]+)`", line.split("|")[1]))
    return documented


def test_runs_csv_of_the_quick_run_has_the_wpa3_rows_in_documented_columns(tmp_path):
    import pandas as pd
    shutil.copytree(QUICK_RUN / "raw", tmp_path / "raw")
    tidy.write(tmp_path)
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert {"join", "cipher-cost"} <= set(runs.experiment)
    assert set(runs.columns) <= _documented(), set(runs.columns) - _documented()
    join = runs[runs.experiment == "join"]
    assert "stations" not in runs.columns or join.stations.notna().all()
    assert (join.join_ms > 0).all() and not join.sae_pwe[join.security != "sae"].notna().any()
