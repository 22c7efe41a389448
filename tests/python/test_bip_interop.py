"""802.11w against implementations no one here wrote: tshark dissects the Management MIC
element of frames `wlansec frame bip-protect` writes to a pcap (same Key ID, IPN and MIC),
pycryptodome recomputes each MIC (AES-CMAC; AES-GMAC as GCM with no plaintext) from the
standard's AAD and nonce rules, and pycryptodome's AES-CCM opens a unicast Deauthentication
that `wlansec frame protect` protected under the management-frame rules."""

import random
import shutil
import struct
import subprocess

import pytest
from Crypto.Cipher import AES
from Crypto.Hash import CMAC

import ieee80211 as w

AP = bytes.fromhex("020000000001")
STA = bytes.fromhex("020000000002")
BROADCAST = b"\xff" * 6
# (wlansec's name, key length, MIC length, MAC)
VARIANTS = [("bip-cmac128", 16, 8, "cmac"), ("bip-cmac256", 32, 16, "cmac"),
            ("bip-gmac128", 16, 16, "gmac"), ("bip-gmac256", 32, 16, "gmac")]


def mgmt(subtype: int, a1: bytes, body: bytes, seq: int = 0) -> bytes:
    return struct.pack("<HH", subtype << 4, 0) + a1 + AP + AP + struct.pack("<H", seq << 4) + body


def frames() -> list[bytes]:
    """Broadcast Deauthentication, Disassociation and SA Query (robust Action) frames."""
    return [mgmt(12, BROADCAST, struct.pack("<H", 7), 1), mgmt(10, BROADCAST, struct.pack("<H", 8), 2),
            mgmt(13, BROADCAST, bytes([8, 0, 0x12, 0x34]), 3)]


def bip_protect(wlansec, name, igtk, keyid, ipn, mpdus, pcap):
    out = subprocess.run(
        [wlansec, "frame", "bip-protect", "--bip", name, "--igtk", igtk.hex(), "--keyid", str(keyid),
         "--ipn", str(ipn), "--pcap", str(pcap), "-"],
        input="\n".join(m.hex() for m in mpdus) + "\n", capture_output=True, text=True, check=True,
    ).stdout.split()
    return [bytes.fromhex(line) for line in out]


def expected_mic(mac, igtk, plain, keyid, ipn, mic_len) -> bytes:
    """The MIC over AAD || body || MME with a zero MIC, from the rules of 12.5.4."""
    fc = struct.unpack_from("<H", plain)[0] & ~(w.RETRY | w.PWR_MGT | w.MORE_DATA)
    aad = struct.pack("<H", fc) + plain[4:22]
    mme = bytes([76, 8 + mic_len]) + struct.pack("<H", keyid) + ipn.to_bytes(6, "little") + bytes(mic_len)
    data = aad + plain[24:] + mme
    if mac == "cmac":
        return CMAC.new(igtk, msg=data, ciphermod=AES).digest()[:mic_len]
    gcm = AES.new(igtk, AES.MODE_GCM, nonce=plain[10:16] + ipn.to_bytes(6, "big"), mac_len=16)
    gcm.update(data)
    return gcm.digest()


@pytest.mark.skipif(not shutil.which("tshark"), reason="needs tshark")
@pytest.mark.parametrize("name,key_len,mic_len,mac", VARIANTS)
def test_tshark_dissects_the_mme_and_pycryptodome_recomputes_the_mic(wlansec, tmp_path, name, key_len, mic_len, mac):
    rng = random.Random(name)
    igtk = bytes(rng.randrange(256) for _ in range(key_len))
    first_ipn = rng.randrange(1, 1 << 40)
    pcap = tmp_path / "bip.pcap"
    plain = frames()
    protected = bip_protect(wlansec, name, igtk, 5, first_ipn, plain, pcap)
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=,", "-e", "wlan.fc.type_subtype",
         "-e", "wlan.mmie.keyid", "-e", "wlan.mmie.ipn", "-e", "wlan.mmie.mic", "-e", "wlan.tag.length"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    assert len(out) == len(plain)
    for i, (p, f, line) in enumerate(zip(plain, protected, out)):
        ipn = first_ipn + i
        subtype, keyid, ipn_field, mic_field, tag_len = line.split(",")
        assert f[:len(p)] == p, "the frame itself is sent unchanged, in the clear"
        mic = f[-mic_len:]
        assert mic == expected_mic(mac, igtk, p, 5, ipn, mic_len), f"{name} frame {i}: MIC"
        assert int(subtype, 0) == p[0] >> 4
        assert int(keyid) == 5
        assert bytes.fromhex(ipn_field) == ipn.to_bytes(6, "little"), "IPN0 first, as on the air"
        assert int(tag_len) == 8 + mic_len
        # tshark 4.0 shows the first 8 MIC octets even of a 16-octet MIC.
        assert bytes.fromhex(mic_field) == mic[:8], f"{name} frame {i}: tshark's MIC"


def test_bip_verify_takes_the_genuine_frames_and_refuses_tampered_and_replayed_ones(wlansec, tmp_path):
    igtk = bytes(range(16))
    last = mgmt(12, BROADCAST, struct.pack("<H", 3), 4)
    protected = bip_protect(wlansec, "bip-cmac128", igtk, 4, 10, [*frames(), last], tmp_path / "bip.pcap")
    tampered = bytearray(protected.pop())
    tampered[24] ^= 1  # the reason code
    run = subprocess.run(
        [wlansec, "frame", "bip-verify", "--igtk", igtk.hex(), "-"],
        input="\n".join(m.hex() for m in [*protected, bytes(tampered), protected[1]]) + "\n",
        capture_output=True, text=True,
    )
    lines = run.stdout.splitlines()
    assert run.returncode == 1
    assert [bytes.fromhex(line) for line in lines[:3]] == frames(), "the MME is removed"
    assert "MIC verification failed" in lines[3]
    assert "replayed frame" in lines[4]


def test_pycryptodome_opens_a_unicast_deauthentication_wlansec_protected(wlansec):
    tk = bytes(range(16, 32))
    plain = mgmt(12, STA, struct.pack("<H", 6), 9)
    out = subprocess.run(
        [wlansec, "frame", "protect", "--suite", "ccmp128", "--tk", tk.hex(), "--pn", "77", plain.hex()],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    protected = bytes.fromhex(out)
    assert protected[1] & 0x40 and protected[24:32] == w.ccmp_header(77, 0)
    aad, nonce = w.aad_and_nonce(plain, 77)
    assert nonce[0] == 0x10, "the Management flag of the nonce"
    ccm = AES.new(tk, AES.MODE_CCM, nonce=nonce, mac_len=8)
    ccm.update(aad)
    assert ccm.decrypt_and_verify(protected[32:-8], protected[-8:]) == plain[24:]
