"""`wlansec bench ccmp --quick --json`: the JSON has the layout of SCHEMA below (machine,
results [{impl, mode, lanes, frame_bytes, cycles_per_byte, gb_per_s, us_per_frame}], bound),
covers every implementation, mode and frame size, and its figures agree with one another
(GB/s, µs per frame and cycles per byte describe the same time); where intel-ipsec-mb is
installed its rows are there with the comparison per size and on frames of mixed lengths, both
sides timed on one stream at every batch size and compared at their best.
Checks the schema and consistency only: speed is reported by the benchmark, never asserted
here."""

import ctypes.util
import json
import math
import os
import pathlib
import subprocess

import jsonschema
import pytest
from conftest import skip_for_cpu

ROOT = pathlib.Path(__file__).resolve().parents[2]

SIZES = [64, 256, 512, 1024, 1500, 2304]
# The batch-size rows: calls of these many frames, then the whole stream (--quick: 1024
# frames) in one call.
BATCHES, QUICK_STREAM_FRAMES = [8, 32, 128, 512], 1024
# The mixed rows: 64 frames of 28..=1500 octets; their frame_bytes is the mean length.
MIXED_FRAMES, MIXED_MEAN = 64, {"type": "integer", "minimum": 28, "maximum": 1500}

NUMBER = {"type": "number", "exclusiveMinimum": 0}
IPSEC_MB_ARCHS = ["no-aesni", "sse", "avx", "avx2", "avx512"]
IPSEC_MB_ROW = "^ipsec-mb (" + "|".join(IPSEC_MB_ARCHS) + ") (job|burst)$"
CPU_FLAGS = ["aes", "vaes", "vpclmulqdq", "avx2", "avx512f", "avx512vl"]

PER_CORE_ROWS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["direction", "mode", "threads", "frame_bytes", "frames", "frames_per_s",
                     "gb_per_s", "speedup", "of_kernel", "of_kernel_same_frames", "load_average"],
        "properties": {"direction": {"enum": ["protect", "unprotect"]},
                       "mode": {"enum": ["multibuffer", "mixed"]},
                       "threads": {"type": "integer", "minimum": 1}, "frames_per_s": NUMBER,
                       "gb_per_s": NUMBER, "speedup": NUMBER, "of_kernel": NUMBER,
                       "of_kernel_same_frames": NUMBER,
                       "load_average": {"type": "array", "items": NUMBER,
                                        "minItems": 3, "maxItems": 3}},
    },
}

SCHEMA = {
    "type": "object",
    "required": ["schema", "machine", "results", "batch_sizes", "bound", "mic_ctr_split", "alone", "threads",
                 "inline", "versus_ipsec_mb"],
    "properties": {
        # 2: batch_sizes, and versus_ipsec_mb at each side's best batch size.
        "schema": {"const": 2},
        "machine": {
            "type": "object",
            "required": ["commit", "cpu", "cpu_flags", "backend", "backend_forced", "tsc_hz", "tsc_per_core_cycle",
                         "core_hz", "repeats", "openssl", "load_average", "intel_ipsec_mb"],
            "properties": {
                "commit": {"type": "string", "pattern": r"^([0-9a-f]{12}(-dirty)?|unknown)$"},
                "cpu": {"type": "string", "minLength": 1},
                "cpu_flags": {"type": "object", "required": CPU_FLAGS, "additionalProperties": False,
                              "properties": {f: {"type": "boolean"} for f in CPU_FLAGS}},
                "backend_forced": {"type": "boolean"},
                "intel_ipsec_mb": {
                    "type": "object",
                    "required": ["version", "arch", "archs_timed", "not_run"],
                    "properties": {
                        "version": {"type": ["string", "null"], "pattern": r"^\d+\.\d+\.\d+$"},
                        "arch": {"enum": [*IPSEC_MB_ARCHS, None]},
                        "archs_timed": {"type": "array", "items": {"enum": IPSEC_MB_ARCHS}},
                        "not_run": {"type": ["string", "null"]},
                    },
                },
                "backend": {"enum": ["portable", "aes-ni", "avx2-vaes", "avx512-vaes"]},
                "tsc_hz": NUMBER,
                "tsc_per_core_cycle": NUMBER,
                "core_hz": NUMBER,
                "repeats": {"type": "integer", "minimum": 1},
                "openssl": {"type": "string", "pattern": "^OpenSSL "},
                "load_average": {"type": "array", "items": {"type": "number"},
                                 "minItems": 3, "maxItems": 3},
            },
        },
        "results": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["impl", "mode", "lanes", "frame_bytes", "cycles_per_byte",
                             "gb_per_s", "us_per_frame"],
                "additionalProperties": False,
                "properties": {
                    "impl": {"anyOf": [{"enum": ["openssl", "rustcrypto-ccm", "wlansec"]},
                                       {"type": "string", "pattern": IPSEC_MB_ROW}]},
                    "mode": {"enum": ["single", "multibuffer", "enhanced", "mixed"]},
                    # intel-ipsec-mb rows: frames per call, four times wlansec's lanes
                    # (mixed: 64).
                    "lanes": {"type": "integer", "enum": [1, 2, 4, 8, 16, 32, 64]},
                    "frame_bytes": {"anyOf": [{"enum": SIZES}, MIXED_MEAN]},
                    "cycles_per_byte": NUMBER,
                    "gb_per_s": NUMBER,
                    "us_per_frame": NUMBER,
                },
            },
        },
        "batch_sizes": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["impl", "mode", "frame_bytes", "frames_per_call", "stream", "frames",
                             "cycles_per_byte", "gb_per_s", "us_per_frame"],
                "additionalProperties": False,
                "properties": {
                    "impl": {"anyOf": [{"const": "wlansec"}, {"type": "string", "pattern": IPSEC_MB_ROW}]},
                    "mode": {"enum": ["multibuffer", "mixed"]},
                    "frame_bytes": {"anyOf": [{"enum": SIZES}, MIXED_MEAN]},
                    "frames_per_call": {"type": "integer", "minimum": 1},
                    "stream": {"type": "boolean"},
                    "frames": {"type": "integer", "minimum": 1},
                    "cycles_per_byte": NUMBER,
                    "gb_per_s": NUMBER,
                    "us_per_frame": NUMBER,
                },
            },
        },
        "bound": {
            "type": "object",
            "required": ["aesenc_latency_cycles", "aesenc_throughput_cycles", "lane_steps", "per_result"],
            "properties": {
                "aesenc_latency_cycles": NUMBER,
                "aesenc_throughput_cycles": NUMBER,
                "vaesenc_zmm_throughput_cycles": {"type": ["number", "null"]},
                "lane_steps": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["registers", "lanes", "cycles_per_step", "cycles_per_byte_1500"],
                        "properties": {"registers": {"enum": ["zmm", "ymm"]}, "lanes": {"enum": [8, 16]},
                                       "cycles_per_step": NUMBER, "cycles_per_byte_1500": NUMBER},
                    },
                },
                "per_result": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["impl", "mode", "lanes", "frame_bytes",
                                     "bound_cycles_per_byte", "fraction_of_bound"],
                        "properties": {"bound_cycles_per_byte": NUMBER, "fraction_of_bound": NUMBER},
                    },
                },
            },
        },
        "mic_ctr_split": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["ways", "frame_bytes", "mic_us_per_frame", "ctr_us_per_frame"],
                "properties": {"ways": {"enum": [1, 2, 4, 8]}, "frame_bytes": {"enum": SIZES},
                               "mic_us_per_frame": NUMBER, "ctr_us_per_frame": NUMBER},
            },
        },
        "alone": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["mode", "lanes", "frame_bytes", "cycles_per_frame_alone",
                             "cycles_per_frame_back_to_back"],
                "additionalProperties": False,
                "properties": {"mode": {"enum": ["single", "enhanced"]}, "lanes": {"enum": [1, 2, 4, 8]},
                               "frame_bytes": {"enum": [64, 1500]}, "cycles_per_frame_alone": NUMBER,
                               "cycles_per_frame_back_to_back": NUMBER},
            },
        },
        "threads": PER_CORE_ROWS,
        # The per-core engine inline: a pinned thread a core, each its own engine's worker.
        "inline": PER_CORE_ROWS,
        "versus_ipsec_mb": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["mode", "frame_bytes", "wlansec_frames_per_call", "wlansec_stream",
                             "wlansec_cycles_per_byte", "ipsec_mb_best", "ipsec_mb_frames_per_call",
                             "ipsec_mb_stream", "ipsec_mb_cycles_per_byte", "wlansec_speedup"],
                "additionalProperties": False,
                "properties": {"mode": {"enum": ["multibuffer", "mixed"]},
                               "frame_bytes": {"anyOf": [{"enum": SIZES}, MIXED_MEAN]},
                               "wlansec_frames_per_call": {"type": "integer", "minimum": 1},
                               "wlansec_stream": {"type": "boolean"},
                               "wlansec_cycles_per_byte": NUMBER,
                               "ipsec_mb_best": {"type": "string", "pattern": IPSEC_MB_ROW},
                               "ipsec_mb_frames_per_call": {"type": "integer", "minimum": 1},
                               "ipsec_mb_stream": {"type": "boolean"},
                               "ipsec_mb_cycles_per_byte": NUMBER, "wlansec_speedup": NUMBER},
            },
        },
    },
}


@pytest.fixture(scope="module")
def report(wlansec, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "ccmp.json"
    done = subprocess.run([wlansec, "bench", "ccmp", "--quick", "--json", str(out)],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0 and "needs an x86_64 CPU with AES-NI" in done.stderr:
        skip_for_cpu("AES-NI and AVX (bench ccmp)")
    assert done.returncode == 0, done.stderr
    # The printed table carries the same run.
    assert "multibuffer" in done.stdout and "per-core engine" in done.stdout
    return json.loads(out.read_text())


def test_json_has_the_schema_layout(report):
    jsonschema.validate(report, SCHEMA)


def test_the_report_names_the_commit_it_measured(report, wlansec):
    """The binary records the commit it was built from; in this checkout that is HEAD (the
    tests build before they run)."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
                          capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    assert report["machine"]["commit"].removesuffix("-dirty") == head.stdout.strip()
    version = subprocess.run([wlansec, "--version"], capture_output=True, text=True, check=True).stdout
    assert f"({report['machine']['commit']})" in version


def test_every_implementation_mode_and_size_is_measured(report):
    seen = {(r["impl"], r["mode"], r["lanes"], r["frame_bytes"]) for r in report["results"]}
    lanes = next(r["lanes"] for r in report["results"] if r["mode"] == "multibuffer")
    for size in SIZES:
        for expected in [("openssl", "single", 1), ("rustcrypto-ccm", "single", 1),
                         ("wlansec", "single", 1), ("wlansec", "multibuffer", lanes),
                         ("wlansec", "enhanced", 2), ("wlansec", "enhanced", 4),
                         ("wlansec", "enhanced", 8)]:
            assert (*expected, size) in seen
    mixed = [r for r in report["results"] if (r["impl"], r["mode"]) == ("wlansec", "mixed")]
    assert len(mixed) == 1 and mixed[0]["lanes"] == lanes
    assert len(report["bound"]["per_result"]) == len(report["results"])
    # The per-core engine on every core the bench may run on, both directions and settings.
    cores = len(os.sched_getaffinity(0))
    assert sorted((t["mode"], t["direction"], t["threads"]) for t in report["threads"]) == sorted(
        (m, d, n) for m in ("multibuffer", "mixed") for d in ("protect", "unprotect") for n in range(1, cores + 1))
    assert sorted((t["mode"], t["direction"], t["threads"]) for t in report["inline"]) == sorted(
        (m, d, n) for m in ("multibuffer", "mixed") for d in ("protect", "unprotect") for n in range(1, cores + 1))
    assert {(r["ways"], r["frame_bytes"]) for r in report["mic_ctr_split"]} == {
        (w, s) for w in (1, 2, 4, 8) for s in SIZES}
    assert sorted((a["mode"], a["lanes"], a["frame_bytes"]) for a in report["alone"]) == sorted(
        [("single", 1, s) for s in (64, 1500)] + [("enhanced", n, s) for n in (2, 4, 8) for s in (64, 1500)])


def test_figures_describe_the_same_time(report):
    """GB/s and µs/frame are one TSC time; cycles/byte is that time in core cycles (each
    sample scaled by its own TSC/core ratio, so it agrees only roughly)."""
    machine = report["machine"]
    for r in report["results"]:
        seconds = r["us_per_frame"] * 1e-6
        # A mixed row's frame_bytes is its mean length rounded up: within an octet a frame.
        tolerance = 1 / r["frame_bytes"] if r["mode"] == "mixed" else 1e-6
        assert math.isclose(r["gb_per_s"], r["frame_bytes"] / seconds / 1e9, rel_tol=tolerance)
        cycles = r["cycles_per_byte"] * r["frame_bytes"]
        core_cycles_from_time = seconds * machine["core_hz"]
        assert 0.5 < cycles / core_cycles_from_time < 2.0, r
    # The per-core rows' fraction is of the multi-buffer kernel's row of their mode (at their
    # frame size; mixed: the one row), their frames/s and GB/s one time, their speed-up over
    # one core (fed from another) of the same mode and direction.
    for t in report["threads"] + report["inline"]:
        kernel = next(r for r in report["results"] if (r["impl"], r["mode"]) == ("wlansec", t["mode"])
                      and (t["mode"] == "mixed" or r["frame_bytes"] == t["frame_bytes"]))
        assert math.isclose(t["of_kernel"], t["gb_per_s"] / kernel["gb_per_s"], rel_tol=1e-9), t
        # A mixed row's frame_bytes is its mean length rounded up: within an octet a frame.
        assert math.isclose(t["gb_per_s"], t["frames_per_s"] * t["frame_bytes"] / 1e9, rel_tol=1 / t["frame_bytes"]), t
        one = next(o for o in report["threads"] if (o["mode"], o["direction"], o["threads"]) == (
            t["mode"], t["direction"], 1))
        assert math.isclose(t["speedup"], t["gb_per_s"] / one["gb_per_s"], rel_tol=1e-9), t
    for bound, r in zip(report["bound"]["per_result"], report["results"]):
        assert (bound["impl"], bound["mode"], bound["frame_bytes"]) == (
            r["impl"], r["mode"], r["frame_bytes"])
        assert math.isclose(bound["fraction_of_bound"],
                            bound["bound_cycles_per_byte"] / r["cycles_per_byte"], rel_tol=1e-9)


def test_lane_step_ceilings_for_the_vaes_widths_this_cpu_has(report):
    """The multi-buffer step on registers alone is measured for every VAES register width
    the CPU runs (zmm: 8 and 16 lanes, ymm: 8), and its cycles per byte are its steps over
    the lanes: 3 + 94 steps for a 1500-octet frame."""
    flags = report["machine"]["cpu_flags"]
    expected = set()
    if flags["vaes"] and flags["avx512f"]:
        expected |= {("zmm", 8), ("zmm", 16)}
    if flags["vaes"] and flags["avx2"]:
        expected.add(("ymm", 8))
    steps = report["bound"]["lane_steps"]
    assert {(s["registers"], s["lanes"]) for s in steps} == expected
    for s in steps:
        assert math.isclose(s["cycles_per_byte_1500"], 97 * s["cycles_per_step"] / s["lanes"] / 1500,
                            rel_tol=1e-9), s


def test_intel_ipsec_mb_rows_beside_wlansec_at_every_size(report):
    """Where the library and its header are installed the rows must be there (build.rs built
    the shim, the library loaded): every size and the mixed lengths, job and burst API, each
    manager timed, on the multi-buffer rows' frames; each manager's batch-size rows; and a
    comparison per setting of the batch-size rows. Without the library this is a skip (a failure under WLANSEC_REQUIRE_ALL=1:
    scripts/setup.sh installs it)."""
    info = report["machine"]["intel_ipsec_mb"]
    installed = os.path.exists("/usr/include/intel-ipsec-mb.h") and ctypes.util.find_library("IPSec_MB")
    if info["version"] is None:
        assert not installed, info["not_run"]
        assert report["versus_ipsec_mb"] == []
        pytest.skip(f"intel-ipsec-mb rows not run: {info['not_run']}")
    assert info["not_run"] is None and info["archs_timed"][0] == info["arch"]
    frames = 4 * next(r["lanes"] for r in report["results"] if r["impl"] == "wlansec" and r["mode"] == "multibuffer")
    ipsec = [r for r in report["results"] if r["impl"].startswith("ipsec-mb")]
    mean = next(r["frame_bytes"] for r in report["results"] if (r["impl"], r["mode"]) == ("wlansec", "mixed"))
    settings = [("multibuffer", size, frames) for size in SIZES] + [("mixed", mean, MIXED_FRAMES)]
    assert sorted((r["impl"], r["mode"], r["frame_bytes"], r["lanes"]) for r in ipsec) == sorted(
        (f"ipsec-mb {arch} {api}", *setting) for arch in info["archs_timed"] for api in ("job", "burst")
        for setting in settings)
    batch_settings = [("multibuffer", size) for size in SIZES] + [("mixed", stream_mean(report))]
    assert [(v["mode"], v["frame_bytes"]) for v in report["versus_ipsec_mb"]] == batch_settings
    names = ["wlansec"] + [f"ipsec-mb {arch} {api}" for arch in info["archs_timed"] for api in ("job", "burst")]
    assert {r["impl"] for r in report["batch_sizes"]} == set(names)


def stream_mean(report):
    return next(r["frame_bytes"] for r in report["batch_sizes"] if r["mode"] == "mixed")


def test_every_batch_size_and_the_stream_for_each_side(report):
    """Every implementation timed on each setting's stream in calls of every batch size and as
    one call of the whole stream (the anchor's queue kept full, one flush): --quick too."""
    implementations = {r["impl"] for r in report["batch_sizes"]}
    assert "wlansec" in implementations
    settings = [("multibuffer", size) for size in SIZES] + [("mixed", stream_mean(report))]
    for impl in implementations:
        for mode, size in settings:
            rows = [r for r in report["batch_sizes"] if (r["impl"], r["mode"], r["frame_bytes"]) == (impl, mode, size)]
            assert [(r["frames_per_call"], r["stream"], r["frames"]) for r in rows] == [
                (b, False, QUICK_STREAM_FRAMES) for b in BATCHES] + [(QUICK_STREAM_FRAMES, True, QUICK_STREAM_FRAMES)], (
                impl, mode, size)
    # Each row times the whole stream: its figures describe one time, as the results' do.
    for r in report["batch_sizes"]:
        seconds = r["us_per_frame"] * 1e-6
        tolerance = 1 / r["frame_bytes"] if r["mode"] == "mixed" else 1e-6
        assert math.isclose(r["gb_per_s"], r["frame_bytes"] / seconds / 1e9, rel_tol=tolerance), r


def test_speedup_compares_each_side_at_its_best_batch_size(report):
    """Recomputed from the rows: per setting, the engine's fastest batch size against
    intel-ipsec-mb's fastest manager, API and batch size, each named with its frames per call."""
    if report["machine"]["intel_ipsec_mb"]["version"] is None:
        pytest.skip("intel-ipsec-mb rows not run (test_intel_ipsec_mb_rows_beside_wlansec_at_every_size says why)")
    assert report["versus_ipsec_mb"]
    for v in report["versus_ipsec_mb"]:
        rows = [r for r in report["batch_sizes"] if (r["mode"], r["frame_bytes"]) == (v["mode"], v["frame_bytes"])]
        ours = min((r for r in rows if r["impl"] == "wlansec"), key=lambda r: r["cycles_per_byte"])
        theirs = min((r for r in rows if r["impl"] != "wlansec"), key=lambda r: r["cycles_per_byte"])
        assert (v["wlansec_frames_per_call"], v["wlansec_stream"], v["wlansec_cycles_per_byte"]) == (
            ours["frames_per_call"], ours["stream"], ours["cycles_per_byte"])
        assert (v["ipsec_mb_best"], v["ipsec_mb_frames_per_call"], v["ipsec_mb_stream"],
                v["ipsec_mb_cycles_per_byte"]) == (
            theirs["impl"], theirs["frames_per_call"], theirs["stream"], theirs["cycles_per_byte"])
        assert math.isclose(v["wlansec_speedup"], theirs["cycles_per_byte"] / ours["cycles_per_byte"], rel_tol=1e-9)


def test_the_summarizer_reads_runs_and_pairs(report, tmp_path):
    """scripts/bench_host/summarize.py: one column per tag, with two tags the run-by-run
    ratio (here of a run with itself: 1.000), every row of the report."""
    for name in ("base-c1-1.json", "new-c1-1.json"):
        (tmp_path / name).write_text(json.dumps(report))
    done = subprocess.run(["python3", str(ROOT / "scripts" / "bench_host" / "summarize.py"), str(tmp_path)],
                          capture_output=True, text=True, check=True)
    mixed = next(r for r in report["results"] if (r["impl"], r["mode"]) == ("wlansec", "mixed"))
    line = next(l for l in done.stdout.splitlines() if l.startswith(f"wlansec mixed {mixed['lanes']} "))
    assert line.split()[-3:] == [f"{mixed['cycles_per_byte']:.3f}"] * 2 + ["1.000"]
    rows = [l for l in done.stdout.splitlines() if l.endswith(" 1.000") or l.endswith("nan")]
    assert len(rows) == len(report["results"])
