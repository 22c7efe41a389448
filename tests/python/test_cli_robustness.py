"""Hostile and careless invocations of every subcommand that reads or writes files: each ends
with its exit status (2 for a command line that does not parse, 1 for an input or output
refused), one line on stderr, no panic, and every input file unchanged (hashed before and
after). Closed pipes end quietly with SIGPIPE."""

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

TK = "c97c1f67ce371185514a8a19f2bdd52f"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "-"


@pytest.fixture
def files(tmp_path, wlansec):
    """A real capture, an empty file, a directory, a non-UTF-8 name, a truncated capture."""
    cap = tmp_path / "cap.pcap"
    subprocess.run([wlansec, "synth", "-o", str(cap), "--frames", "20", "--plain", str(tmp_path / "eth.pcap")], check=True, capture_output=True)
    (tmp_path / "empty.pcap").write_bytes(b"")
    (tmp_path / "dir").mkdir()
    odd = os.fsencode(tmp_path) + b"/\xff\xfe.pcap"
    Path(os.fsdecode(odd)).write_bytes(cap.read_bytes())
    (tmp_path / "cut.pcap").write_bytes(cap.read_bytes()[:300])
    return tmp_path, odd


CASES = [
    # (arguments with {t} the directory, exit status, what stderr says)
    (["decrypt", "{t}/cap.pcap", "-o", "{t}/cap.pcap", "-e", "wlansec", "-p", "correct horse battery"], 1, "the output is the input"),
    (["decrypt", "{t}/cap.pcap", "-o", "{t}/dir", "-e", "wlansec", "-p", "correct horse battery"], 1, "is a directory"),
    (["decrypt", "{t}/dir", "-e", "wlansec", "-p", "correct horse battery"], 1, "Is a directory"),
    (["decrypt", "{t}/empty.pcap", "-e", "wlansec", "-p", "correct horse battery"], 1, "too short"),
    (["decrypt", "/dev/null", "--tk", TK], 1, "too short"),
    (["decrypt", "{t}/missing.pcap", "--tk", TK], 1, "No such file"),
    (["decrypt", "{t}/cap.pcap", "--tk", TK[:-2]], 2, "--tk has 15 octets"),
    (["decrypt", "{t}/cap.pcap", "-p", "short", "-e", "x"], 2, "passphrase"),
    (["decrypt", "{t}/cap.pcap"], 2, "give a key"),
    (["decrypt"], 2, "required"),
    (["synth", "-o", "{t}/out.pcap", "--input", "{t}/out.pcap"], 1, "No such file"),
    (["synth", "-o", "{t}/eth.pcap", "--input", "{t}/eth.pcap"], 1, "the output is the input"),
    (["synth", "-o", "{t}/dir"], 1, "is a directory"),
    (["synth", "-o", "{t}/x.pcap", "--frames", "18446744073709551616"], 2, "--frames"),
    (["synth", "-o", "{t}/x.pcap", "--frames", "2000000"], 2, "1..=1000000"),
    (["synth", "-o", "{t}/x.pcap", "--fragment-size", "1"], 2, "--fragment-size"),
    (["synth", "-o", "{t}/x.pcap", "--suite", "wep40", "--wep-key", "00" * 13], 2, "takes 5"),
    (["synth", "-o", "{t}/x.pcap", "--fcs"], 2, "--fcs needs --link radiotap"),
    (["vectors", "--min-len", "10", "--max-len", "5"], 2, "--min-len"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", "xyz", "0848"], 2, "bad hex in --tk"),
    (["vectors", "--max-len", "99999999"], 2, "largest MSDU"),
    (["vectors", "--count", "-1"], 2, "'-1'"),
    (["vectors", "--out", "{t}/dir"], 1, "is a directory"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "--pcap", "{t}/dir", "0848"], 1, "is a directory"),
    (["wlan", "down", "--name", "../../etc"], 2, "WLAN name"),
    (["wlan", "up", "--name", "x", "--fragment-threshold", "99999"], 2, "--fragment-threshold"),
    (["wlan", "up", "--name", "x", "--pmf", "sometimes"], 2, "--pmf"),
    (["wlan", "up", "--name", "x", "--release-spin-us", "5000"], 2, "--release-spin-us"),
]


@pytest.mark.parametrize("args, status, message", CASES, ids=lambda v: None)
def test_a_hostile_invocation_is_one_line_and_damages_nothing(wlansec, files, args, status, message):
    tmp, _ = files
    before = {p.name: digest(p) for p in tmp.iterdir()}
    r = subprocess.run([wlansec, *[a.format(t=tmp) for a in args]], capture_output=True, text=True, timeout=60)
    assert r.returncode == status, (args, r.returncode, r.stderr)
    assert "panicked" not in r.stderr and "RUST_BACKTRACE" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert message in r.stderr, r.stderr
    after = {p.name: digest(p) for p in tmp.iterdir() if p.name in before}
    assert after == before, "an input changed"
    assert not [p for p in tmp.iterdir() if p.name.endswith(".partial")], "a temporary file was left"


def test_non_utf8_paths_and_truncated_captures(wlansec, files):
    tmp, odd = files
    out = os.fsencode(tmp) + b"/\xff-dec.pcap"
    r = subprocess.run([wlansec.encode(), b"decrypt", odd, b"-o", out, b"-e", b"wlansec", b"-p", b"correct horse battery"], capture_output=True)
    assert r.returncode == 0, r.stderr
    assert Path(os.fsdecode(out)).stat().st_size > 24
    r = subprocess.run([wlansec, "decrypt", str(tmp / "cut.pcap"), "-o", str(tmp / "cut-dec.pcap"), "-e", "wlansec", "-p", "correct horse battery"], capture_output=True, text=True)
    assert "panicked" not in r.stderr and r.returncode in (1, 3)
    assert ("damaged record" if r.returncode == 3 else "no 4-way handshake") in r.stderr, r.stderr


@pytest.mark.parametrize("args", [["selftest"], ["bench", "ciphers", "--list"], ["vectors", "--count", "100000"]])
def test_a_closed_pipe_ends_quietly(wlansec, args):
    p = subprocess.Popen([wlansec, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.readline()
    p.stdout.close()
    p.wait(timeout=60)
    assert p.returncode in (0, -13), p.returncode  # 0 if it had finished already; else SIGPIPE
    assert b"panicked" not in p.stderr.read()


def test_completions_and_manual_come_from_the_command_line_definition(wlansec):
    bash = subprocess.run([wlansec, "completions", "bash"], capture_output=True, text=True, check=True).stdout
    assert "complete -F _wlansec" in bash and "decrypt" in bash and "--fragment-threshold" in bash
    man = subprocess.run([wlansec, "man"], capture_output=True, text=True, check=True).stdout
    assert man.startswith(".ie") and ".TH wlansec 1" in man and "decrypt" in man
    assert subprocess.run([wlansec, "completions", "tcsh"], capture_output=True, text=True).returncode == 2


def test_progress_in_a_log_has_no_carriage_returns(wlansec, tmp_path):
    r = subprocess.run([wlansec, "bench", "ciphers", "--files", "text-321KB", "--ciphers", "AES-128-CBC,AES-128-CTR", "--repeats", "1",
                        "--no-sweep", "--no-openssl", "--json", str(tmp_path / "b.json")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "\r" not in r.stderr and "[  1/" in r.stderr, r.stderr
