"""Captures whose 802.11 frames sit behind a PPI (192), Prism (119) or AVS (163) header,
as many capture tools write them: `wlansec decrypt` gives exactly what it gives for the same
frames without a header, and tshark, reading the same files, decrypts the same frames."""

import shutil
import struct
import subprocess

import pytest

SSID, PASSPHRASE = "wlansec", "correct horse battery"


def records(path):
    data = path.read_bytes()
    assert struct.unpack_from("<I", data)[0] == 0xA1B2C3D4
    at, out = 24, []
    while at < len(data):
        sec, usec, incl, orig = struct.unpack_from("<IIII", data, at)
        out.append((sec, usec, data[at + 16: at + 16 + incl]))
        at += 16 + incl
    return out


def write(path, linktype, packets):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for sec, usec, p in packets:
            f.write(struct.pack("<IIII", sec, usec, len(p), len(p)) + p)


def ppi(frame, with_fcs):
    common = bytearray(20)
    struct.pack_into("<H", common, 8, 0x0001 if with_fcs else 0)
    field = struct.pack("<HH", 2, 20) + bytes(common)
    fcs = struct.pack("<I", 0) if with_fcs else b""  # the reader cuts it, whatever it holds
    return struct.pack("<BBHI", 0, 0, 8 + len(field), 105) + field + frame + fcs


def prism(frame):
    header = bytearray(144)
    struct.pack_into("<II", header, 0, 0x44, 144)
    return bytes(header) + frame


def avs(frame):
    header = bytearray(64)
    struct.pack_into(">II", header, 0, 0x80211001, 64)
    return bytes(header) + frame


WRAPS = {"ppi": (192, lambda f: ppi(f, False)), "ppi-fcs": (192, lambda f: ppi(f, True)), "prism": (119, prism), "avs": (163, avs), "avs-as-prism": (119, avs)}


@pytest.mark.parametrize("kind", WRAPS)
def test_frames_behind_a_pseudo_header_decrypt_as_without_it(wlansec, tmp_path, kind):
    plain = tmp_path / "plain.pcap"
    subprocess.run([wlansec, "synth", "-o", str(plain), "--frames", "60", "--stations", "2"], check=True, capture_output=True)
    linktype, wrap = WRAPS[kind]
    wrapped = tmp_path / f"{kind}.pcap"
    write(wrapped, linktype, [(s, u, wrap(f)) for s, u, f in records(plain)])
    outs = []
    for src in (plain, wrapped):
        out = tmp_path / f"{src.stem}-dec.pcap"
        r = subprocess.run([wlansec, "decrypt", str(src), "-o", str(out), "-e", SSID, "-p", PASSPHRASE], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and len(records(tmp_path / "plain-dec.pcap")) > 40
    if shutil.which("tshark") and kind.startswith("ppi"):
        count = lambda p: len(subprocess.run(["tshark", "-r", str(p), "-o", "wlan.enable_decryption:TRUE", "-o", f'uat:80211_keys:"wpa-pwd","{PASSPHRASE}:{SSID}"',
                                              "-Y", "ip or ipv6 or arp"], capture_output=True, text=True, check=True).stdout.splitlines())
        assert count(wrapped) == count(plain) > 0


def test_the_output_keeps_the_inputs_file_format(wlansec, tmp_path):
    cap = tmp_path / "ng.pcapng"
    subprocess.run([wlansec, "synth", "-o", str(cap), "--format", "pcapng", "--frames", "30"], check=True, capture_output=True)
    subprocess.run([wlansec, "decrypt", str(cap), "-e", SSID, "-p", PASSPHRASE], check=True, capture_output=True)
    assert (tmp_path / "ng-dec.pcapng").read_bytes()[:4] == bytes.fromhex("0a0d0d0a")  # a pcapng section header
    subprocess.run([wlansec, "decrypt", str(cap), "-o", str(tmp_path / "x.pcap"), "--format", "pcap", "-e", SSID, "-p", PASSPHRASE], check=True, capture_output=True)
    assert struct.unpack_from("<I", (tmp_path / "x.pcap").read_bytes())[0] == 0xA1B2C3D4


def test_standard_input_and_output(wlansec, tmp_path):
    cap = tmp_path / "c.pcap"
    subprocess.run([wlansec, "synth", "-o", str(cap), "--frames", "40"], check=True, capture_output=True)
    subprocess.run([wlansec, "decrypt", str(cap), "-o", str(tmp_path / "file.pcap"), "-e", SSID, "-p", PASSPHRASE], check=True, capture_output=True)
    piped = subprocess.run([wlansec, "decrypt", "-", "-o", "-", "-e", SSID, "-p", PASSPHRASE], input=cap.read_bytes(), capture_output=True, check=True)
    assert piped.stdout == (tmp_path / "file.pcap").read_bytes()
    assert b"Number of decrypted WPA" in piped.stderr  # the table moved to stderr
    r = subprocess.run([wlansec, "decrypt", "-", "-e", SSID, "-p", PASSPHRASE], input=cap.read_bytes(), capture_output=True, text=False)
    assert r.returncode == 2 and b"give the output with -o" in r.stderr
