"""`wlansec bench ciphers`: a --quick run on a small subset writes JSON that validates against
docs/schemas/bench-ciphers.schema.json, carries both implementations and both directions, and
the laboratory plots it; the generated data files have the properties they claim."""

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab"))
WLANSEC = os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec"))
SCHEMA = json.loads((ROOT / "docs" / "schemas" / "bench-ciphers.schema.json").read_text())


def wlansec(*args, **kw):
    return subprocess.run([WLANSEC, "bench", "ciphers", *args], capture_output=True, text=True, timeout=300, **kw)


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "ciphers.json"
    # --quick with one small file and one repeat keeps this test to seconds; every variant,
    # the Blowfish sweep and every OpenSSL anchor still run.
    done = wlansec("--quick", "--files", "text-321KB", "--repeats", "1", "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert "energy: model" in done.stdout or "energy: Intel RAPL" in done.stdout
    return json.loads(out.read_text())


def test_json_validates_against_the_schema(quick_report):
    jsonschema.validate(quick_report, SCHEMA)
    records = quick_report["records"]
    assert {r["impl"] for r in records} == {"wlansec", "openssl"}
    assert {r["direction"] for r in records} == {"encrypt", "decrypt"}
    ciphers = {r["cipher"] for r in records}
    assert ciphers == {"AES", "DES", "3DES", "RC2", "Blowfish", "RC6", "ChaCha20-Poly1305", "AES-GCM", "RC4", "CCMP"}
    assert {r["key_bits"] for r in records if r["cipher"] == "Blowfish"} == {32, 64, 128, 192, 256, 320, 384, 448}
    method = quick_report["meta"]["energy"]["method"]
    assert all(r["energy_method"] == method for r in records if r["impl"] == "wlansec")


def test_meta_states_which_aes_ran(quick_report):
    # The ordinary build takes AES-NI where /proc/cpuinfo lists it (the soft build's record is
    # docs/results/2026-11-26-ciphers-aes-soft); OPENSSL_ia32cap is recorded as set, here unset.
    has_aes = " aes " in " " + Path("/proc/cpuinfo").read_text().replace("\n", " ") + " "
    assert quick_report["meta"]["aes_backend"].startswith("AES-NI" if has_aes else "soft")
    assert quick_report["meta"]["openssl_ia32cap"] == os.environ.get("OPENSSL_ia32cap")


def test_schema_rejects_a_record_missing_a_required_field(quick_report):
    broken = json.loads(json.dumps(quick_report))
    del broken["records"][0]["energy_method"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, SCHEMA)


def test_laboratory_plots_and_compares(quick_report, tmp_path):
    from wlansec_lab import ciphers

    path = tmp_path / "ciphers.json"
    path.write_text(json.dumps(quick_report))
    result = ciphers.run(path, tmp_path / "plots")
    for name in ("throughput.png", "energy.png", "time_vs_size.png", "key_size.png"):
        png = tmp_path / "plots" / name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    compared = [r for r in result["ratios"] if r["data"] == "text"]
    assert compared and all(r["ours_percent"] > 0 for r in compared)
    assert {r["published_percent"] for r in result["ratios"]} == {16, 58, 51, 24, 93}
    assert "Blowfish" in result["reading"]


def test_data_files_are_text_like_and_video_like(tmp_path):
    done = wlansec("--files", "text-321KB,video-4006KB", "--write-data", str(tmp_path))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "text-321KB.txt").read_bytes()
    video = (tmp_path / "video-4006KB.ts").read_bytes()
    assert (len(text), len(video)) == (321_000, 4_006_000)
    assert len(zlib.compress(text, 9)) < 0.5 * len(text)
    assert len(zlib.compress(video, 9)) > 0.95 * len(video)  # only the PAT packets (1 in 40) compress
    assert all(video[i] == 0x47 for i in range(0, len(video), 188))


@pytest.mark.parametrize("args", [["--files", "text-322KB"], ["--ciphers", "AES-512-CBC"], ["--volts=-1"]])
def test_bad_arguments_are_one_line_errors(args):
    done = wlansec(*args)
    assert done.returncode != 0
    assert done.stderr.strip().startswith("wlansec: error:") and "panicked" not in done.stderr
