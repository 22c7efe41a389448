"""Bad input to the CLI: a one-line error naming the problem, a non-zero exit, never a panic."""

import subprocess

import pytest

TK = "c97c1f67ce371185514a8a19f2bdd52f"
PLAIN = "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050"
PROTECTED = ("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5f3d0a2fe9a3dbf2342a643e4"
             "3246e80c3c04d0197845ce0b16f97623")


def run(wlansec, *args):
    return subprocess.run([wlansec, *args], capture_output=True, text=True)


@pytest.mark.parametrize("args, message", [
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, "0848zz"], "bad hex"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, "084"], "odd number of digits"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK[:-2], PROTECTED], "wrong key length: expected 16 bytes, got 15"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", "xyz", PROTECTED], "bad hex in --tk"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED[:40]], "truncated 802.11 header"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED[:60]], "truncated CCMP MPDU"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED[:-2] + "00"], "MIC verification failed"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", "00" * 16, PROTECTED], "MIC verification failed"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED, PROTECTED], "replayed frame"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PLAIN[:2] + "08" + PLAIN[4:]], "not protected"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED[:54] + "00" + PROTECTED[56:]], "Ext IV"),
    (["frame", "unprotect", "--suite", "ccmp128", "--tk", TK, "--keyid", "2", PROTECTED], "Key ID 0"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "--pn", "281474976710656", PLAIN], "2^48"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "--pn", "0", PLAIN], "2^48"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "--keyid", "4", PLAIN], "--keyid"),
    (["frame", "protect", "--suite", "nope", "--tk", TK, PLAIN], "invalid value 'nope'"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "d400"], "truncated 802.11 header"),
    (["frame", "protect", "--suite", "ccmp128", "--tk", TK, "d4000000020000000001"], "only data and management"),
    (["vectors", "--min-len", "10", "--max-len", "5"], "--min-len"),
])
def test_bad_input_gives_one_clear_line(wlansec, args, message):
    result = run(wlansec, *args)
    assert result.returncode != 0
    assert "panicked" not in result.stderr
    assert message in result.stderr, result.stderr


def test_protect_then_unprotect_round_trips_the_published_frame(wlansec):
    protected = run(wlansec, "frame", "protect", "--suite", "ccmp128", "--tk", TK, "--pn", "0xb5039776e70c", PLAIN)
    assert protected.returncode == 0
    assert protected.stdout.strip() == PROTECTED
    plain = run(wlansec, "frame", "unprotect", "--suite", "ccmp128", "--tk", TK, PROTECTED)
    assert plain.stdout.strip() == "0808" + PLAIN[4:]


def test_selftest_passes_every_vector(wlansec):
    result = run(wlansec, "selftest")
    assert result.returncode == 0
    assert " 0 failed" in result.stdout
    assert "FAIL " not in result.stdout
