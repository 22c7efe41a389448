"""`wlansec bench ccmp --quick --json`: the JSON has the layout issue 4 specifies
(machine, results [{impl, mode, lanes, frame_bytes, cycles_per_byte, gb_per_s, us_per_frame}],
bound), covers every implementation, mode and frame size, and its figures agree with one
another (GB/s, µs per frame and cycles per byte describe the same time). Checks the schema and
consistency only: speed is reported by the benchmark, never asserted here."""

import json
import math
import subprocess

import jsonschema
import pytest

SIZES = [64, 256, 512, 1024, 1500, 2304]

NUMBER = {"type": "number", "exclusiveMinimum": 0}

SCHEMA = {
    "type": "object",
    "required": ["machine", "results", "bound", "mic_ctr_split", "threads"],
    "properties": {
        "machine": {
            "type": "object",
            "required": ["cpu", "backend", "tsc_hz", "tsc_per_core_cycle", "core_hz", "repeats",
                         "openssl", "load_average"],
            "properties": {
                "cpu": {"type": "string", "minLength": 1},
                "backend": {"enum": ["portable", "aes-ni", "avx512-vaes"]},
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
                    "impl": {"enum": ["openssl", "rustcrypto-ccm", "wlansec"]},
                    "mode": {"enum": ["single", "multibuffer", "enhanced"]},
                    "lanes": {"type": "integer", "enum": [1, 2, 4, 8, 16]},
                    "frame_bytes": {"enum": SIZES},
                    "cycles_per_byte": NUMBER,
                    "gb_per_s": NUMBER,
                    "us_per_frame": NUMBER,
                },
            },
        },
        "bound": {
            "type": "object",
            "required": ["aesenc_latency_cycles", "aesenc_throughput_cycles", "per_result"],
            "properties": {
                "aesenc_latency_cycles": NUMBER,
                "aesenc_throughput_cycles": NUMBER,
                "vaesenc_zmm_throughput_cycles": {"type": ["number", "null"]},
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
        "threads": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["direction", "threads", "frame_bytes", "frames", "gb_per_s", "speedup"],
                "properties": {"direction": {"enum": ["protect", "unprotect"]},
                               "threads": {"enum": [1, 2]}, "gb_per_s": NUMBER, "speedup": NUMBER},
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
        pytest.skip("bench ccmp needs AES-NI and AVX")
    assert done.returncode == 0, done.stderr
    # The printed table carries the same run.
    assert "multibuffer" in done.stdout and "sharded engine" in done.stdout
    return json.loads(out.read_text())


def test_json_has_the_issue_layout(report):
    jsonschema.validate(report, SCHEMA)


def test_every_implementation_mode_and_size_is_measured(report):
    seen = {(r["impl"], r["mode"], r["lanes"], r["frame_bytes"]) for r in report["results"]}
    lanes = next(r["lanes"] for r in report["results"] if r["mode"] == "multibuffer")
    for size in SIZES:
        for expected in [("openssl", "single", 1), ("rustcrypto-ccm", "single", 1),
                         ("wlansec", "single", 1), ("wlansec", "multibuffer", lanes),
                         ("wlansec", "enhanced", 2), ("wlansec", "enhanced", 4),
                         ("wlansec", "enhanced", 8)]:
            assert (*expected, size) in seen
    assert len(report["bound"]["per_result"]) == len(report["results"])
    assert {(t["direction"], t["threads"]) for t in report["threads"]} == {
        (d, n) for d in ("protect", "unprotect") for n in (1, 2)}
    assert {(r["ways"], r["frame_bytes"]) for r in report["mic_ctr_split"]} == {
        (w, s) for w in (1, 2, 4, 8) for s in SIZES}


def test_figures_describe_the_same_time(report):
    """GB/s and µs/frame are one TSC time; cycles/byte is that time in core cycles (each
    sample scaled by its own TSC/core ratio, so it agrees only roughly)."""
    machine = report["machine"]
    for r in report["results"]:
        seconds = r["us_per_frame"] * 1e-6
        assert math.isclose(r["gb_per_s"], r["frame_bytes"] / seconds / 1e9, rel_tol=1e-6)
        cycles = r["cycles_per_byte"] * r["frame_bytes"]
        core_cycles_from_time = seconds * machine["core_hz"]
        assert 0.5 < cycles / core_cycles_from_time < 2.0, r
    for bound, r in zip(report["bound"]["per_result"], report["results"]):
        assert (bound["impl"], bound["mode"], bound["frame_bytes"]) == (
            r["impl"], r["mode"], r["frame_bytes"])
        assert math.isclose(bound["fraction_of_bound"],
                            bound["bound_cycles_per_byte"] / r["cycles_per_byte"], rel_tol=1e-9)
