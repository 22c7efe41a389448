"""OWE (RFC 8110) recomputed by a second, independent implementation.

`wlansec vectors owe` runs whole exchanges between `wlansec_core::rsn::owe`'s station and
access point with secret scalars drawn from a seeded generator, and prints both secrets, the
two Diffie-Hellman Parameter elements (association request and response) and the PMK and
PMKID both sides derived. This file recomputes them with pyca/cryptography's ECDH and HKDF:
each public key from its secret, the shared x-coordinate z from each side, then
prk = HKDF-Extract(C | A | group, z), PMK = HKDF-Expand(prk, "OWE Key Generation", n) and
PMKID = Truncate-128(Hash(C | A)), the hash (and n, its length) by the group.
"""

import json
import subprocess

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

GROUPS = {
    19: (ec.SECP256R1(), hashes.SHA256(), 32),
    20: (ec.SECP384R1(), hashes.SHA384(), 48),
    21: (ec.SECP521R1(), hashes.SHA512(), 66),
}


def exchanges(wlansec, group, count=3):
    cmd = [wlansec, "vectors", "owe", "--group", str(group), "--count", str(count), "--seed", str(group)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def split_element(element: bytes, group: int) -> bytes:
    """The public key of a whole Diffie-Hellman Parameter element, its header checked."""
    assert element[0] == 255 and element[1] == len(element) - 2 and element[2] == 32
    assert int.from_bytes(element[3:5], "little") == group
    return element[5:]


@pytest.mark.parametrize("group", [19, 20, 21])
def test_owe_exchange_recomputed_independently(wlansec, group):
    curve, hash_, prime_len = GROUPS[group]
    vectors = exchanges(wlansec, group)
    assert len(vectors) == 3 and len({v["pmk"] for v in vectors}) == 3
    for v in vectors:
        sta_priv = ec.derive_private_key(int(v["sta_secret"], 16), curve)
        ap_priv = ec.derive_private_key(int(v["ap_secret"], 16), curve)
        c = split_element(bytes.fromhex(v["sta_element"]), group)
        a = split_element(bytes.fromhex(v["ap_element"]), group)
        assert len(c) == len(a) == prime_len
        # Each public key is the x-coordinate of its secret's point.
        assert c == sta_priv.public_key().public_numbers().x.to_bytes(prime_len, "big")
        assert a == ap_priv.public_key().public_numbers().x.to_bytes(prime_len, "big")
        # The x-coordinate alone travels: either y gives the same shared x.
        ap_point = ec.EllipticCurvePublicKey.from_encoded_point(curve, b"\x02" + a)
        sta_point = ec.EllipticCurvePublicKey.from_encoded_point(curve, b"\x03" + c)
        z = sta_priv.exchange(ec.ECDH(), ap_point)
        assert z == ap_priv.exchange(ec.ECDH(), sta_point)
        salt = c + a + group.to_bytes(2, "little")
        pmk = HKDF(algorithm=hash_, length=hash_.digest_size, salt=salt, info=b"OWE Key Generation").derive(z)
        assert pmk.hex() == v["pmk"]
        digest = hashes.Hash(hash_)
        digest.update(c + a)
        assert digest.finalize()[:16].hex() == v["pmkid"]


def test_an_unsupported_group_is_refused_by_name(wlansec):
    out = subprocess.run([wlansec, "vectors", "owe", "--group", "22"], capture_output=True, text=True)
    assert out.returncode != 0 and "22" in out.stderr
