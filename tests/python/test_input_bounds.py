"""Inputs are bounded: a passphrase file is one line of at most 64 octets, read up to that
line (a FIFO or pipe is not waited on until its end); configuration, key and capture files
have a size limit and are refused after it, never read whole (`/dev/zero`); and a
configuration never yields a network weaker than the CLI's default (ccmp) without saying so.

`ap` over UDP needs root and a TAP only once its arguments are checked: every command here
stops before that, at a check whose error shows how far it got (a bad --mac comes right
after the passphrase and the configuration; `--pmf required` fails on an open or TKIP
network, the missing passphrase on a CCMP one).
"""

import os
import signal
import subprocess
import tempfile
import time

import pytest

from conftest import GNU_TIME

NODE = ["--ipv4", "10.99.0.1/24", "--ipv6", "fd99::1/64"]
GOOD_MAC = ["--mac", "02:77:00:00:00:01", *NODE]
# Past the passphrase and the configuration, the first check `ap` makes.
BAD_MAC = ["--mac", "not-a-mac", *NODE]
PASS = "correct horse battery"


def run_bounded(args, timeout=10.0, stdin=subprocess.DEVNULL):
    """Run to its end (killed and failed after `timeout` s): exit code, stderr, peak RSS
    (KiB) and seconds taken."""
    start = time.monotonic()
    with tempfile.NamedTemporaryFile("r") as rss:
        # Its own session: a command still running at the timeout is killed with GNU time.
        proc = subprocess.Popen([GNU_TIME, "-f", "%M", "-o", rss.name, *args], stdin=stdin,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, stderr = proc.communicate()
            pytest.fail(f"{args[1:]} still running after {timeout} s: {stderr.decode()}")
        rss_kib = int(rss.read().split()[-1])
    return proc.returncode, stderr.decode(), rss_kib, time.monotonic() - start


def assert_clean_failure(code, stderr):
    assert code not in (0, -9, -6, 134, 137), (code, stderr)
    assert "panicked" not in stderr and "memory allocation" not in stderr, stderr


def test_passphrase_file_dev_zero_fails_fast_in_bounded_memory(wlansec):
    code, stderr, rss_kib, seconds = run_bounded([wlansec, "ap", "--passphrase-file", "/dev/zero", *BAD_MAC])
    assert_clean_failure(code, stderr)
    assert "/dev/zero: the first line is longer than 64 octets" in stderr, stderr
    assert seconds < 5, seconds
    assert rss_kib < 64 * 1024, f"peak RSS {rss_kib} KiB"


def test_passphrase_on_standard_input_dev_zero_fails_fast_in_bounded_memory(wlansec):
    with open("/dev/zero", "rb") as zero:
        code, stderr, rss_kib, seconds = run_bounded([wlansec, "ap", "--passphrase-file", "-", *BAD_MAC], stdin=zero)
    assert_clean_failure(code, stderr)
    assert "standard input: the first line is longer than 64 octets" in stderr, stderr
    assert seconds < 5 and rss_kib < 64 * 1024, (seconds, rss_kib)


def test_passphrase_longer_than_64_octets_is_refused_and_64_accepted(wlansec, tmp_path):
    long = tmp_path / "long"
    long.write_text("a" * 65 + "\n")
    code, stderr, _, _ = run_bounded([wlansec, "ap", "--passphrase-file", str(long), *BAD_MAC])
    assert_clean_failure(code, stderr)
    assert "longer than 64 octets" in stderr and "a" * 65 not in stderr, stderr
    psk = tmp_path / "psk"
    psk.write_text("ab" * 32 + "\nsecond line\n")
    code, stderr, _, _ = run_bounded([wlansec, "ap", "--passphrase-file", str(psk), *BAD_MAC])
    assert "MAC address" in stderr, stderr


def test_passphrase_from_a_fifo_is_read_up_to_its_first_line_not_its_end(wlansec, tmp_path):
    fifo = tmp_path / "passphrase"
    os.mkfifo(fifo)
    # The writer keeps the FIFO open: reading to its end would wait for ever.
    writer = os.open(fifo, os.O_RDWR)
    try:
        os.write(writer, f"{PASS}\n".encode())
        code, stderr, _, seconds = run_bounded([wlansec, "ap", "--passphrase-file", str(fifo), *BAD_MAC], timeout=8)
    finally:
        os.close(writer)
    assert_clean_failure(code, stderr)
    assert "MAC address" in stderr, f"did not get past the passphrase: {stderr}"
    assert PASS not in stderr, stderr
    assert seconds < 5, seconds


def test_passphrase_from_a_pipe_on_standard_input_is_read_up_to_its_first_line(wlansec):
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, f"{PASS}\n".encode())
        code, stderr, _, seconds = run_bounded([wlansec, "ap", "--passphrase-file", "-", *BAD_MAC],
                                               stdin=read_end, timeout=8)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert_clean_failure(code, stderr)
    assert "MAC address" in stderr, f"did not get past the passphrase: {stderr}"


@pytest.mark.parametrize("command, expected", [
    (["ap", "--config", "/dev/zero", *GOOD_MAC], "/dev/zero: larger than 1 MiB, the limit for a configuration file"),
    (["sta", "--config", "/dev/zero", "--ap", "192.0.2.1:7700", *GOOD_MAC],
     "/dev/zero: larger than 1 MiB, the limit for a configuration file"),
    (["wlan", "up", "--hostapd-conf", "/dev/zero"], "/dev/zero: larger than 1 MiB, the limit for a configuration file"),
    (["decrypt", "/nonexistent.pcap", "--key-file", "/dev/zero"], "/dev/zero: larger than 1 MiB, the limit for a key file"),
])
def test_configuration_and_key_files_dev_zero_fail_with_a_size_error(wlansec, command, expected):
    code, stderr, rss_kib, seconds = run_bounded([wlansec, *command])
    assert_clean_failure(code, stderr)
    assert expected in stderr, stderr
    assert seconds < 5 and rss_kib < 64 * 1024, (seconds, rss_kib)


def test_frame_hex_lines_on_standard_input_are_bounded(wlansec):
    # Unbounded, /dev/zero (one endless line) is read until memory runs out.
    with open("/dev/zero", "rb") as zero:
        code, stderr, rss_kib, seconds = run_bounded(
            [wlansec, "frame", "unprotect", "--suite", "ccmp128", "--tk", "00" * 16, "-"], stdin=zero)
    assert_clean_failure(code, stderr)
    assert "standard input: the first line is longer than 65536 octets" in stderr, stderr
    assert seconds < 5 and rss_kib < 64 * 1024, (seconds, rss_kib)


def test_synth_input_dev_zero_fails_with_a_size_error(wlansec, tmp_path):
    out = tmp_path / "out.pcap"
    code, stderr, rss_kib, _ = run_bounded([wlansec, "synth", "--input", "/dev/zero", "-o", str(out)], timeout=20)
    assert_clean_failure(code, stderr)
    assert "/dev/zero: larger than 256 MiB, the limit for a synth --input capture" in stderr, stderr
    assert rss_kib < 1024 * 1024, f"peak RSS {rss_kib} KiB"
    assert not out.exists()


def test_ap_config_dev_null_does_not_come_up_open(wlansec):
    # Open, this would fail on --pmf required; as ccmp (the default) it needs a passphrase.
    code, stderr, _, _ = run_bounded([wlansec, "ap", "--config", "/dev/null", "--pmf", "required", *GOOD_MAC])
    assert_clean_failure(code, stderr)
    assert "a WPA passphrase has 8..63 characters" in stderr, stderr
    assert "neither wpa= nor a WEP key: not an open network" in stderr, stderr


def test_ap_config_with_wpa_settings_but_no_wpa_is_refused(wlansec, tmp_path):
    conf = tmp_path / "hostapd.conf"
    conf.write_text(f"ssid=lab\nwpa_passphrase={PASS}\n")
    # --pmf required: were it taken as hostapd takes it (open), no TAP would be created.
    code, stderr, _, _ = run_bounded([wlansec, "ap", "--config", str(conf), "--pmf", "required", *GOOD_MAC])
    assert_clean_failure(code, stderr)
    assert "missing: wpa= (line 2 sets wpa_passphrase without it" in stderr, stderr
    assert PASS not in stderr, stderr


def test_ap_config_wpa_2_alone_warns_that_it_is_tkip(wlansec, tmp_path):
    conf = tmp_path / "hostapd.conf"
    conf.write_text(f"wpa=2\nwpa_passphrase={PASS}\n")
    # --pmf required stops a TKIP network before any TAP is created.
    code, stderr, _, _ = run_bounded([wlansec, "ap", "--config", str(conf), "--pmf", "required", *GOOD_MAC])
    assert_clean_failure(code, stderr)
    assert "warning" in stderr and "the network resolves to TKIP" in stderr, stderr
    assert "rsn_pairwise=CCMP for CCMP" in stderr, stderr
    assert "--pmf required needs" in stderr, stderr


def test_ap_config_wpa_0_is_an_open_network_and_says_so(wlansec, tmp_path):
    conf = tmp_path / "hostapd.conf"
    conf.write_text("ssid=lab\nwpa=0\n")
    code, stderr, _, _ = run_bounded([wlansec, "ap", "--config", str(conf), "--pmf", "required", *GOOD_MAC])
    assert_clean_failure(code, stderr)
    assert "wpa=0 and no WEP key: an open network" in stderr, stderr
    assert "--pmf required needs" in stderr, stderr
