"""The laboratory (lab/wlansec_lab): statistics against known values, the UDP delay/jitter
analysis against a synthetic trace with known delays, and the runner end to end on a tiny
matrix (one repeat per point) on the veth stand-in, producing a report with every section."""

import importlib.util
import json
import math
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

from wlansec_lab import experiments, report, runner, stats, udpvideo  # noqa: E402
from wlansec_lab.report import network, reading, render  # noqa: E402
from wlansec_lab import testbed as testbeds  # noqa: E402
from wlansec_lab.testbed import VethTestbed, is_root  # noqa: E402
from wlansec_lab.traffic import parse_qperf  # noqa: E402


def test_confidence_intervals_use_the_t_tables_critical_values():
    # Two-sided 95% critical values from standard t tables: the half-width over std/√n.
    for df, t in [(1, 12.706), (2, 4.303), (9, 2.262), (39, 2.023), (120, 1.980)]:
        s = stats.summarize([float(i % 2) for i in range(df + 1)])
        assert (s["ci95"][1] - s["mean"]) / (s["std"] / math.sqrt(df + 1)) == pytest.approx(t, abs=1e-3)


PUBLISHED_RUN = ROOT / "docs" / "results" / "2026-11-22-lab-full"


@pytest.mark.parametrize("experiment", ["video", "tcp", "files"])
def test_summaries_match_the_published_runs_hand_written_statistics(experiment):
    """The published run's summaries were computed by the hand-written t-quantile (bisection on
    the incomplete beta function) this module had before SciPy; recomputed from the same raw
    runs, every figure agrees far beyond the report's printed precision."""
    published = json.loads((PUBLISHED_RUN / "raw" / f"{experiment}.json").read_text())
    recomputed = runner.summarize_runs(published["runs"])
    assert len(recomputed) == len(published["summary"])
    for new, old in zip(recomputed, published["summary"]):
        assert new["point"] == old["point"] and new["n"] == old["n"]
        for name, figures in [*old["metrics"].items(), ("loadavg1", old["loadavg1"]),
                              ("release_error_p99_us", old["release_error_p99_us"])]:
            mine = new["metrics"][name] if name in old["metrics"] else new[name]
            for key, value in figures.items():
                assert mine[key] == pytest.approx(value, rel=1e-9, abs=1e-12), (old["point"], name, key)


def test_summary_of_a_known_sample():
    s = stats.summarize([2, 4, 4, 4, 5, 5, 7, 9])
    assert (s["n"], s["mean"], s["median"], s["min"], s["max"]) == (8, 5.0, 4.5, 2.0, 9.0)
    assert s["std"] == pytest.approx(math.sqrt(32 / 7))
    half = 2.364624 * math.sqrt(32 / 7) / math.sqrt(8)  # t(0.975, 7) = 2.3646
    assert s["ci95"] == pytest.approx([5 - half, 5 + half], abs=1e-5)
    assert stats.summarize([3.0])["ci95"] is None
    assert stats.summarize([])["mean"] is None
    with pytest.raises(ValueError):
        stats.summarize([1.0, float("nan")])


def test_tidy_table_holds_every_published_run_in_documented_columns(tmp_path):
    """runs.csv of the published run: a row per run record, pandas reads it in one line, and
    docs/lab-data.md documents exactly its columns and those the stored quick run's experiments
    add (join, cipher-cost: run after the published run)."""
    import pandas as pd
    from wlansec_lab import tidy
    shutil.copytree(PUBLISHED_RUN / "raw", tmp_path / "raw")
    written = tidy.write(tmp_path)
    runs = pd.read_csv(tmp_path / "runs.csv")
    per_experiment = {e: len(json.loads((PUBLISHED_RUN / "raw" / f"{e}.json").read_text())["runs"]) for e in ("video", "tcp", "files")}
    assert runs.experiment.value_counts().to_dict() == per_experiment
    kept = runs[(runs.experiment == "tcp") & ~runs.warmup]
    first = json.loads((PUBLISHED_RUN / "raw" / "tcp.json").read_text())["summary"][0]
    point = kept[(kept.security == first["point"]["security"]) & (kept.card == first["point"]["card"])
                 & (kept.ip == first["point"]["ip"]) & (kept["size"] == first["point"]["size"])]
    assert point.qperf_mbps.mean() == pytest.approx(first["metrics"]["qperf_mbps"]["mean"])
    documented = set()
    for line in (ROOT / "docs" / "lab-data.md").read_text().split("| column |", 1)[1].splitlines()[2:]:
        if line.startswith("| "):
            documented |= set(re.findall(r"`([a-z0-9_]+)`", line.split("|")[1]))
    shutil.copytree(ROOT / "tests" / "python" / "data" / "lab-quick-run" / "raw", tmp_path / "quick" / "raw")
    tidy.write(tmp_path / "quick")
    assert documented == set(runs.columns) | set(pd.read_csv(tmp_path / "quick" / "runs.csv").columns)
    if importlib.util.find_spec("pyarrow"):
        assert tmp_path / "runs.parquet" in written
        parquet = pd.read_parquet(tmp_path / "runs.parquet")
        assert list(parquet.columns) == list(runs.columns) and len(parquet) == len(runs)


def test_udp_analysis_of_a_synthetic_trace():
    # 10 packets sent every 10 ms; delays alternate 1 ms and 3 ms; packet 4 is lost.
    sent = [i * 10_000_000 for i in range(10)]
    delays_ms = [1.0 if i % 2 == 0 else 3.0 for i in range(10)]
    packets = [(i, sent[i], sent[i] + int(delays_ms[i] * 1e6), 1000) for i in range(10) if i != 4]
    a = udpvideo.analyze(packets, planned=10)
    assert (a["received"], a["lost"], a["loss_percent"]) == (9, 1, 10.0)
    kept = [d for i, d in enumerate(delays_ms) if i != 4]
    assert a["delay_ms_mean"] == pytest.approx(sum(kept) / 9)
    assert a["delay_ms_max"] == 3.0
    # RFC 3550: J += (|D| - J)/16 over consecutive arrivals; |D| = 2,2,2,0,2,2,2,2 ms
    # (packets 3 and 5 both took 3 ms), worked by hand: 0.125, 0.2422, 0.3521, 0.3300, ... 0.7100 (computed in the comment's order).
    assert a["jitter_ms"] == pytest.approx(0.7100015277974308, rel=1e-9)
    # Duplicates are counted, not double-counted.
    dup = udpvideo.analyze(packets + [packets[0]], planned=10)
    assert dup["duplicates"] == 1 and dup["received"] == 9


def test_constant_delay_has_zero_jitter_and_the_profiles_hit_their_rates():
    packets = [(i, i * 1000, i * 1000 + 500_000, 1316) for i in range(100)]
    assert udpvideo.analyze(packets, 100)["jitter_ms"] == 0.0
    for profile, mbps in [("cbr-high", 4.0), ("vbr-very-high", 8.0)]:
        plan = udpvideo.schedule(profile, 10.0)
        assert sum(n for _, n in plan) * 8 / 10.0 / 1e6 == pytest.approx(mbps, rel=0.02)
    with pytest.raises(ValueError):
        udpvideo.schedule("vbr-ultra", 1.0)


def test_qperf_output_parsing():
    out = "tcp_bw:\n    bw  =  1.38 MB/sec\ntcp_lat:\n    latency  =  740 us\n"
    assert parse_qperf(out) == {"tcp_bw_mbps": pytest.approx(11.04), "tcp_lat_ms": pytest.approx(0.74)}


def test_report_without_results_names_every_missing_section(tmp_path):
    where = report.write(tmp_path)
    md = (where / "report.md").read_text()
    for title in report.SECTIONS:
        assert f"## {title}" in md
    assert "Not run" in md


@pytest.mark.skipif(not Path(WLANSEC).exists(), reason=f"no wlansec binary at {WLANSEC}")
def test_report_states_the_card_model_the_cli_states():
    """The configuration's card figures are what `wlansec wlan card` prints; and at the
    counted frame sizes that is callgrind's instruction count over the clock."""
    printed = json.loads(subprocess.run([WLANSEC, "wlan", "card", "--card", "mcu:250"],
                                        capture_output=True, text=True, check=True).stdout)
    assert printed["card"] == {"model": "mcu", "mhz": 250.0}
    us = {(c["security"], c["mpdu_bytes"]): c["cost_us"] for c in printed["costs"]}
    assert set(us) == {(s, n) for s in ("wep", "tkip", "ccmp") for n in (128, 1536)}
    counts = json.loads((ROOT / "crates" / "wlansec-wlan" / "data" / "mcu-instructions.json").read_text())["counts"]
    for (suite, size), cost in us.items():
        assert cost == dict(counts[suite])[size] / 250.0, (suite, size)
    text = network.card_models_text(["hw", "mcu:250"], WLANSEC)
    stated = "`mcu:250`: " + ", ".join(f"{s.upper()} {us[(s, 128)]:.0f} / {us[(s, 1536)]:.0f} µs" for s in ("wep", "tkip", "ccmp"))
    assert f"128-octet / 1536-octet MPDU: {stated}. " in text


def test_two_runs_cannot_share_a_testbed_name():
    first, second, other = (VethTestbed(name=n) for n in ("wlslk", "wlslk", "wlslm"))
    first.claim()
    with pytest.raises(testbeds.TestbedError, match=f"pid {os.getpid()}.*'wlslk'"):
        second.claim()
    other.claim()  # another name is free
    first._claim.close()  # as when the first run's process ends
    second.claim()


def test_hardware_section_shows_the_cores_beside_the_published_ones(tmp_path):
    runner.run(["hardware"], experiments.Context(None, "unused", tmp_path, quick=True, seconds=1.0), repeats=1)
    md = (report.write(tmp_path) / "report.md").read_text()
    hardware = md.split("## Hardware", 1)[1].split("## Reading", 1)[0]
    summary = json.loads((ROOT / "hdl" / "reports" / "summary.json").read_text())
    core = next(r for r in summary if r["design"] == "ccmp_core" and r["target"] == "ecp5")
    row = next(line for line in hardware.splitlines() if line.startswith("| ccmp_core | ecp5 |"))
    assert f"| {core['luts']} |" in row and f"| {core['fmax_mhz']:g} |" in row
    assert "Algredo-Badillo 2010, Table 2 layout" in hardware and "770 ns" in hardware and "2830 ns" in hardware
    assert (tmp_path / "figures" / "hardware.svg").stat().st_size > 10_000
    reading = md.split("## Reading", 1)[1]
    assert "Hardware, iterative CCMP" in reading
    parallel_measured = any(r["design"].startswith("ccmp_core_n") and r.get("fmax_mhz") for r in summary)
    assert ("Hardware, parallel vs standard" in reading) == parallel_measured


@pytest.mark.skipif(not is_root(), reason="the veth stand-in needs root (network namespaces); CI runs as root")
@pytest.mark.skipif(not Path(WLANSEC).exists(), reason=f"no wlansec binary at {WLANSEC}")
def test_runner_end_to_end_on_a_tiny_matrix(tmp_path, monkeypatch):
    tiny = {
        "video": {"security": ["open", "ccmp"], "profile": ["cbr-high"], "card": experiments.CARDS},
        "tcp": {"security": ["open", "ccmp"], "ip": [4, 6], "size": [1408], "card": experiments.CARDS},
        "files": {"security": ["open"], "topology": ["bss"], "signal": ["excellent"]},
    }
    for name, axes in tiny.items():
        monkeypatch.setattr(experiments.EXPERIMENTS[name], "quick_axes", {**experiments.EXPERIMENTS[name].quick_axes, **axes})
    (tmp_path / "selftest.txt").write_text("selftest: 81 passed, 0 failed\n")
    tb = VethTestbed(name="wlslt")
    ctx = experiments.Context(tb, WLANSEC, tmp_path, quick=True, seconds=1.0)
    try:
        runner.run(["ccmp-bench", "hardware", "video", "tcp", "files"], ctx, repeats=1)
    finally:
        tb.down()
    assert not os.path.exists("/run/netns/wlslt-a")
    for name in ("video", "tcp", "files"):
        raw = json.loads((tmp_path / "raw" / f"{name}.json").read_text())
        assert len(raw["runs"]) == 2 * len(raw["summary"]), "one warm-up and one kept run per point"
        for entry in raw["summary"]:
            assert entry["n"] == 1 and not entry["errors"], entry
        for r in raw["runs"]:
            assert len(r["loadavg"]) == 3
    video = json.loads((tmp_path / "raw" / "video.json").read_text())["summary"]
    for e in video:
        assert e["metrics"]["loss_percent"]["mean"] < 5
        assert 0 < e["metrics"]["delay_ms_mean"]["mean"] < 50  # veth: well under a millisecond normally
        assert e["metrics"]["throughput_mbps"]["mean"] == pytest.approx(4.0, rel=0.25)
    md = (report.write(tmp_path) / "report.md").read_text()
    for title in report.SECTIONS:
        assert f"## {title}" in md
    for figure in ("video.svg", "tcp.svg", "files.svg", "ccmp.svg", "hardware.svg"):
        assert (tmp_path / "figures" / figure).stat().st_size > 10_000
    assert "veth stand-in" in md and "Li, Kolahi" in md and "Hayajneh" in md and "Table II layout" in md
    assert (tmp_path / "report" / "index.html").read_text().count("<h2>") == len(report.SECTIONS)
    import pandas as pd
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert sorted(set(runs.experiment)) == ["files", "tcp", "video"] and (runs.status == "ok").all()
    assert len(runs) == sum(len(json.loads((tmp_path / "raw" / f"{n}.json").read_text())["runs"]) for n in ("video", "tcp", "files"))


@pytest.mark.skipif(not is_root(), reason="the emulated WLAN needs root (network namespaces, TAP); CI runs as root")
@pytest.mark.skipif(not Path("/dev/net/tun").exists(), reason="the emulated WLAN needs /dev/net/tun")
@pytest.mark.skipif(not Path(WLANSEC).exists(), reason=f"no wlansec binary at {WLANSEC}")
def test_quick_video_through_the_access_points_rtl_reaches_the_report(tmp_path, monkeypatch):
    """One quick video point with the access point on the verilated RTL at the design's Fmax,
    on the emulated WLAN: the run records the RTL as the access point's crypto and the
    simulation's speed, and the report shows the row as the RTL's."""
    rtl = experiments.verilog_cards()[0]
    monkeypatch.setattr(experiments.EXPERIMENTS["video"], "quick_axes",
                        {**experiments.EXPERIMENTS["video"].quick_axes, "security": ["ccmp"], "card": [rtl]})
    tb = testbeds.WlanTestbed(WLANSEC, name="wlslrtl")
    try:
        runner.run(["video"], experiments.Context(tb, WLANSEC, tmp_path, quick=True, seconds=1.0), repeats=1)
    finally:
        tb.down()
    raw = json.loads((tmp_path / "raw" / "video.json").read_text())
    assert [e["point"]["card"] for e in raw["summary"]] == [rtl] and not raw["summary"][0]["errors"]
    assert raw["testbed"][0]["crypto"]["ap"] == {"model": "verilog", "mhz": experiments.verilog_mhz(rtl)}
    assert raw["summary"][0]["metrics"]["rtl_frames_per_s"]["mean"] > 100  # the 4 Mbit/s stream, opened and sealed again
    md = (report.write(tmp_path, wlansec=WLANSEC) / "report.md").read_text()
    assert f"| WPA2 (CCMP) [AP on the RTL, {experiments.verilog_mhz(rtl):g} MHz] | vbr-high | 1 |" in md
    assert re.search(r"video: median [\d,]+ frames/s over 1 run\(s\)", md)


# ---- the runner's plan, resume and grouping, on a fake testbed (no root, no network) -------

from collections import Counter  # noqa: E402


class FakeTestbed(testbeds.Testbed):
    """Counts bring-ups per configuration; no network."""

    kind = "fake"

    def __init__(self):
        super().__init__()
        self.ups = []

    def up(self, config):
        self.ups.append(json.dumps(config, sort_keys=True))

    def down(self):
        self.config = None


def _fake_video(calls):
    """A `video`-shaped experiment whose measure is deterministic in (point, how many times
    that point ran before): the nth run of a point always gives the same metrics."""
    def measure(ctx, p):
        key = runner._key(p)
        calls.append(key)
        nth = ctx.cache.setdefault(key, 0)
        ctx.cache[key] = nth + 1
        base = {"open": 1.0, "ccmp": 2.0}[p["security"]] * (10 if p["card"] != "hw" else 1)
        return {"delay_ms_mean": base + 0.01 * nth, "jitter_ms": base / 10 + 0.001 * nth, "loss_percent": 0.0, "throughput_mbps": 4.0}
    return experiments.Experiment("video", "fake video", {"security": ["open", "ccmp"], "card": experiments.CARDS, "profile": ["vbr-high", "cbr-high"]},
                                  {}, measure=measure, network=lambda p: {"security": p["security"], "card": p["card"]},
                                  valid=experiments._card_applies)


def _fake_run(out, repeats, resume=False, seed=3, cache=None, tb=None):
    calls = []
    exp = _fake_video(calls)
    tb = tb or FakeTestbed()
    ctx = experiments.Context(tb, "unused", out, quick=False, seconds=1.0, cache=cache if cache is not None else {})
    runner.run(["video"], ctx, repeats, seed=seed, resume=resume, experiments={"video": exp})
    return calls, tb, json.loads((out / "raw" / "video.json").read_text())


def test_card_axis_drops_meaningless_points():
    fmax = next(r for r in json.loads((ROOT / "hdl" / "reports" / "summary.json").read_text()) if r["design"] == "ccmp_core")["fmax_mhz"]
    rtl = f"verilog:{fmax:g}"
    pts = experiments.EXPERIMENTS["tcp"].points(quick=True)
    assert {(p["security"], p["card"]) for p in pts} == {("open", "hw"), ("ccmp", "hw"), ("ccmp", "mcu:88"), ("ccmp", rtl)}
    assert [p["size"] for p in pts if p["card"] == rtl] == [experiments.VERILOG_TCP_SIZE]
    video = {(p["security"], p["card"]) for p in experiments.EXPERIMENTS["video"].points(quick=False)}
    assert ("open", "mcu:88") not in video and ("enhanced", "mcu:88") not in video and ("tkip", "mcu:88") in video
    # The hardware access point: the design's median Fmax and the 2008-era clock, WPA2 only (the RTL is CCMP's).
    quick_video = {(p["security"], p["card"]) for p in experiments.EXPERIMENTS["video"].points(quick=True)}
    assert {c for s, c in quick_video if c.startswith("verilog:")} == {rtl, "verilog:50"}
    assert {s for s, c in video if c.startswith("verilog:")} == {"ccmp"}
    assert experiments._tcp_network({"security": "ccmp", "phy": "g54", "card": rtl}) == {
        "security": "ccmp", "phy": "g54", "card": "hw", "ap_crypto": rtl}
    # A row labelled as the RTL's must come from it: the veth stand-in has no access point.
    assert "no access point" in VethTestbed().supports(experiments._tcp_network({"security": "ccmp", "phy": "g54", "card": rtl}))
    assert VethTestbed().supports(experiments._tcp_network({"security": "ccmp", "phy": "g54", "card": "mcu:88"})) is None


def test_report_shows_the_rtl_access_points_rows_with_their_significance(tmp_path):
    """A run with the access point on the RTL: its rows are labelled as the RTL's, tested
    against open as every row, and the configuration states the simulation's speed."""
    calls = []
    exp = _fake_video(calls)
    fake = exp.measure

    def measure(ctx, p):
        return {**fake(ctx, p), **({"rtl_frames_per_s": 1500.0 + len(calls)} if p["card"].startswith("verilog:") else {})}
    exp.axes = {**exp.axes, "card": ["hw", "verilog:104", "verilog:50"]}
    exp.measure = measure
    ctx = experiments.Context(FakeTestbed(), "unused", tmp_path, quick=False, seconds=1.0, cache={})
    runner.run(["video"], ctx, 3, seed=3, experiments={"video": exp})
    md = (report.write(tmp_path) / "report.md").read_text()
    video = md.split("## Video")[1].split("## TCP")[0]
    rows = [line for line in video.splitlines() if line.startswith("| WPA2 (CCMP) [AP on the RTL, ")]
    assert len(rows) == 4 and {r.split(" | ")[0] for r in rows} == {"| WPA2 (CCMP) [AP on the RTL, 50 MHz]", "| WPA2 (CCMP) [AP on the RTL, 104 MHz]"}
    assert all("significant" in r.split(" | ")[9] for r in rows), rows  # delay − open, Welch
    config = md.split("## Configuration")[1].split("## Video")[0]
    assert "measured through the RTL, not a model" in config
    assert re.search(r"video: median 1,5\d\d frames/s over 12 run\(s\)", config), config


def test_each_configuration_is_brought_up_once_per_round(tmp_path):
    repeats = 4
    calls, tb, raw = _fake_run(tmp_path, repeats)
    configs = {json.dumps({"security": s, "card": c}, sort_keys=True) for s, c in [("open", "hw"), ("ccmp", "hw"), ("ccmp", "mcu:88")]}
    assert len(calls) == 6 * (repeats + 1)
    assert len(tb.ups) == len(configs) * (repeats + 1)
    for c in configs:
        assert tb.ups.count(c) == repeats + 1
    # Inside a round the runs of one configuration are consecutive, and the order of the
    # configurations changes between rounds (seeded): none is systematically first.
    firsts = set()
    for rnd in range(repeats + 1):
        seq = [json.dumps({"security": r["point"]["security"], "card": r["point"]["card"]}, sort_keys=True)
               for r in raw["runs"] if r["round"] == rnd]
        blocks = [c for i, c in enumerate(seq) if i == 0 or seq[i - 1] != c]
        assert sorted(blocks) == sorted(configs)
        firsts.add(blocks[0])
    assert len(firsts) > 1
    for e in raw["summary"]:
        assert e["n"] == repeats


def test_resume_after_a_kill_repeats_no_run_and_gives_the_one_shot_summary(tmp_path):
    repeats = 3
    one_shot = tmp_path / "one"
    _, _, full = _fake_run(one_shot, repeats)
    lines = runner.runs_path(one_shot, "video").read_text().splitlines()
    # Killed after k run records, in the middle of writing the next line.
    run_lines = [i for i, l in enumerate(lines) if '"round"' in l]
    k = 9
    cut = run_lines[k - 1] + 1
    killed = tmp_path / "killed"
    (killed / "raw").mkdir(parents=True)
    runner.runs_path(killed, "video").write_text("\n".join(lines[:cut]) + "\n" + lines[cut][:17])
    recorded = [json.loads(l) for l in lines[:cut] if '"round"' in l]
    cache = {}
    for r in recorded:  # the fake measure's per-point counter, as the killed process left it
        cache[runner._key(r["point"])] = cache.get(runner._key(r["point"]), 0) + 1
    calls, _, resumed = _fake_run(killed, repeats, resume=True, cache=cache)
    assert len(calls) == len(full["runs"]) - k
    # Exactly the runs not recorded ran again, each once.
    assert Counter(calls) == Counter(runner._key(r["point"]) for r in full["runs"]) - Counter(runner._key(r["point"]) for r in recorded)
    keys = [(r["round"], runner._key(r["point"])) for r in resumed["runs"]]
    assert len(keys) == len(set(keys)) == len(full["runs"])
    strip = lambda summary: [(e["point"], e["n"], e["metrics"]) for e in summary]
    assert strip(resumed["summary"]) == strip(full["summary"])
    # The torn line is gone and the file is whole JSON Lines again.
    for line in runner.runs_path(killed, "video").read_text().splitlines():
        json.loads(line)


def test_resume_refuses_a_different_plan(tmp_path):
    _fake_run(tmp_path, 2)
    for kwargs in ({"repeats": 3}, {"repeats": 2, "seed": 4}):
        with pytest.raises(runner.PlanMismatch, match="different"):
            _fake_run(tmp_path, resume=True, **kwargs)
    calls, _, _ = _fake_run(tmp_path, 2, resume=True)
    assert calls == []  # everything was recorded: nothing runs again


class SeededFakeTestbed(FakeTestbed):
    """A fake whose network takes a seed, as the emulated WLAN's medium does."""

    seeded = True

    def __init__(self):
        super().__init__()
        self.seeds = []

    def up(self, config):
        super().up(config)
        self.seeds.append(self.seed)


def test_every_round_brings_the_medium_up_with_its_own_seed(tmp_path):
    repeats, seed = 3, 5
    tb = SeededFakeTestbed()
    _, _, raw = _fake_run(tmp_path, repeats, seed=seed, tb=tb)
    per_round = [runner.medium_seed(seed, rnd) for rnd in range(repeats + 1)]
    assert len(set(per_round)) == repeats + 1, "rounds draw independent media"
    assert per_round != [runner.medium_seed(seed + 1, rnd) for rnd in range(repeats + 1)]
    assert raw["plan"]["medium_seeds"] == per_round
    for r in raw["runs"]:
        assert r["medium_seed"] == per_round[r["round"]]
    # Three configurations per round, each brought up with that round's seed, in round order.
    assert tb.seeds == [s for s in per_round for _ in range(3)]
    # A resume recomputes the same seeds, so it matches the plan; the unseeded fake has none.
    tb2 = SeededFakeTestbed()
    calls, _, _ = _fake_run(tmp_path, repeats, resume=True, seed=seed, tb=tb2)
    assert calls == [] and tb2.seeds == []
    _, _, unseeded = _fake_run(tmp_path / "plain", 1)
    assert "medium_seeds" not in unseeded["plan"] and "medium_seed" not in unseeded["runs"][0]


def test_single_run_statistics_show_a_dash(tmp_path):
    s = stats.summarize([3.0])
    assert s["std"] is None and s["ci95"] is None
    entry = {"metrics": {"x": s}}
    assert render.spread_text(entry, "x") == "—"
    assert render.spread_text({"metrics": {"x": stats.summarize([1.0, 3.0])}}, "x").startswith("1.41 (±")
    _fake_run(tmp_path, 1)
    md = (report.write(tmp_path) / "report.md").read_text()
    video = md.split("## Video")[1].split("## TCP")[0]
    rows = [l for l in video.splitlines() if l.startswith("| WPA2")]
    assert rows and all(r.split(" | ")[4] == "—" for r in rows), rows
    assert "| n |" in video and "0.00 (" not in video


def test_tcp_reading_states_the_aggregation_in_force(tmp_path):
    ctx = {"tcp_open": {(4, 128): 45.0, (4, 1408): 51.1}, "tcp_open_rtt": [0.85, 1.16], "tcp_ampdu": [32]}
    text = reading.tcp_level_text(tmp_path, ctx)
    assert "45.0–51.1 Mbit/s" in text and "A-MPDU ≤ 32 MPDUs" in text and "**overlaps**" in text
    assert "top is 2.8 Mbit/s above" in text and "not aggregate" not in text
    unaggregated = reading.tcp_level_text(tmp_path, {**ctx, "tcp_open": {(4, 128): 15.6}, "tcp_ampdu": [1]})
    assert "without A-MPDU" in unaggregated and "**stays below**" in unaggregated
    assert reading.tcp_level_text(tmp_path, {**ctx, "tcp_ampdu": []}) == ""  # no emulated WLAN: no air to compare
    assert network.ampdu_text(None, short=True) == "A-MPDU not recorded" and network.ampdu_text(1) == "no A-MPDU"


def test_publish_copies_a_finished_run_and_refuses_an_unfinished_one(tmp_path):
    from wlansec_lab import publish
    out = tmp_path / "run"
    _fake_run(out, 2)
    (out / "run.json").write_text(json.dumps({"machine": runner.machine(), "repeats": 2, "warmup": 1, "seed": 3,
                                              "seconds_per_run": 1.0, "testbed": "fake", "experiments": ["video"]}))
    report.write(out)
    where = publish.publish(out, tmp_path / "docs", "lab-full", note="resumed once")
    assert where.name.endswith("-lab-full")
    assert (where / "report" / "index.html").exists() and (where / "raw" / "video.json").exists()
    assert (where / "runs.csv").read_text() == (out / "runs.csv").read_text()
    assert not list(where.glob("raw/*.jsonl"))
    readme = (where / "README.md").read_text()
    assert f"{os.cpu_count()} cores" in readme
    assert "video: 6 points × 3 rounds" in readme and "resumed once" in readme
    # The same run killed before its last record was written (and not resumed) is refused.
    jsonl = runner.runs_path(out, "video")
    jsonl.write_text("\n".join(jsonl.read_text().splitlines()[:-1]) + "\n")
    assert publish.missing(out) == ["video: 17 of 18 runs"]
    with pytest.raises(publish.Incomplete, match="17 of 18"):
        publish.publish(out, tmp_path / "docs", "lab-full")
    # A bench the run was asked for whose results were removed (to be imported again) is missing.
    meta = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**meta, "experiments": ["video", "hardware"]}))
    assert publish.missing(out) == ["hardware: no raw/hardware.json", "video: 17 of 18 runs"]


def test_floor_runs_needed_follows_the_normal_approximation():
    from wlansec_lab.floor import runs_needed
    # 2·((z.975 + z.80)·σ/δ)², z.975 = 1.959964, z.80 = 0.841621, δ = 0.19 ms, worked by hand:
    assert runs_needed(0.1) == 5      # 2·(2.801585·0.1/0.19)² = 4.35
    assert runs_needed(0.3) == 40     # 2·(2.801585·0.3/0.19)² = 39.1
    assert runs_needed(0.02) == 2     # below two runs a spread cannot be estimated


def test_floor_summary_keeps_the_conditions_order_and_each_runs_spread():
    from wlansec_lab.floor import summarize
    runs = [{"condition": c, "rtt_ms": rtt, "loadavg": (l, 0, 0), "release_error": {"median_us": m, "p99_us": p}}
            for c, rtt, l, m, p in [("b", 1.0, 0.1, 1, 9), ("a", 2.0, 0.2, 5, 50), ("b", 1.2, 0.3, 3, 7), ("a", 2.0, 0.1, 5, 40)]]
    rows = summarize(runs, ["a", "b", "c"])
    assert [r["condition"] for r in rows] == ["a", "b"]
    a, b = rows
    assert (a["rtt_mean_ms"], a["rtt_std_ms"]) == (2.0, 0.0)
    assert b["rtt_mean_ms"] == pytest.approx(1.1) and b["rtt_std_ms"] == pytest.approx(0.141421, rel=1e-5)
    # per condition: the median over its runs of each run's release-error median and p99
    assert b["release_median_us"] == 2 and b["release_p99_us"] == 8 and b["loadavg1"] == [0.1, 0.3]
