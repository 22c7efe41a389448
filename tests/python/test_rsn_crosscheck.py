"""GCMP and WEP from `wlansec frame protect` checked against libraries no one here wrote:
pyca/cryptography's AESGCM (AAD and nonce built here from the 802.11 rules) and
pycryptodome's ARC4 with zlib's CRC-32; TKIP's IV layout."""

import random
import subprocess
import zlib

from Crypto.Cipher import ARC4
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

# Non-QoS data, ToDS: FC 08 41 (Protected set after protection), A1..A3, SC 0x1230.
HEADER = bytes.fromhex("0801" "0000" "020000000001" "020000000002" "020000000003" "3012")


def protect(wlansec, suite, key, pn, frame, keyid=0):
    out = subprocess.run(
        [wlansec, "frame", "protect", "--suite", suite, "--tk", key.hex(), "--pn", str(pn),
         "--keyid", str(keyid), frame.hex()],
        check=True, capture_output=True, text=True,
    )
    return bytes.fromhex(out.stdout.strip())


def test_gcmp_matches_cryptography_aesgcm(wlansec):
    rng = random.Random(7)
    for suite, key_len in (("gcmp128", 16), ("gcmp256", 32)):
        for _ in range(5):
            key = rng.randbytes(key_len)
            body = rng.randbytes(rng.randrange(0, 200))
            pn = rng.randrange(1, 1 << 48)
            got = protect(wlansec, suite, key, pn, HEADER + body)
            # AAD: FC with Retry/PwrMgt/MoreData and subtype bits masked, Protected set;
            # A1-A3; SC with the sequence number masked.
            fc = bytes([HEADER[0] & 0x8F, (HEADER[1] & 0xC7) | 0x40])
            aad = fc + HEADER[4:22] + bytes([HEADER[22] & 0x0F, 0])
            nonce = HEADER[10:16] + pn.to_bytes(6, "big")
            sealed = AESGCM(key).encrypt(nonce, body, aad)
            p = pn.to_bytes(6, "little")
            pn_header = bytes([p[0], p[1], 0, 0x20, p[2], p[3], p[4], p[5]])
            assert got == fc[:1] + bytes([HEADER[1] | 0x40]) + HEADER[2:] + pn_header + sealed


def test_wep_matches_pycryptodome_arc4(wlansec):
    rng = random.Random(8)
    for suite, key_len in (("wep40", 5), ("wep104", 13)):
        key = rng.randbytes(key_len)
        body = rng.randbytes(64)
        iv = rng.randrange(0, 1 << 24)
        got = protect(wlansec, suite, key, iv, HEADER + body, keyid=2)
        iv_bytes = iv.to_bytes(3, "big")
        plain = body + zlib.crc32(body).to_bytes(4, "little")
        cipher = ARC4.new(iv_bytes + key).encrypt(plain)
        assert got == HEADER[:1] + bytes([HEADER[1] | 0x40]) + HEADER[2:] + iv_bytes + bytes([2 << 6]) + cipher


def test_tkip_iv_layout_and_length(wlansec):
    """TKIP's IV / Ext IV octets and overhead (its key mixing and full MPDU are checked
    against the TGi and 802.11 vectors by `wlansec selftest`)."""
    rng = random.Random(9)
    key = rng.randbytes(32)
    body = rng.randbytes(50)
    got = protect(wlansec, "tkip", key, 0x1234, HEADER + body)
    h = len(HEADER)
    iv = got[h:h + 8]
    assert iv[:4] == bytes([0x12, (0x12 | 0x20) & 0x7F, 0x34, 0x20]) and iv[4:] == bytes(4)
    assert len(got) == h + 8 + len(body) + 8 + 4
