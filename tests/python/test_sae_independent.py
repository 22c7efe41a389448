"""SAE (IEEE 802.11-2020 12.4) recomputed by a second, independent implementation.

`wlansec vectors sae` runs whole exchanges between a station and an access point instance of
`wlansec_core::rsn::sae` and prints, per exchange, the four Authentication frame bodies with
the secrets each side drew (rand, mask) and the keys it ended with. This file recomputes all
of it from the password with Python integers for the curve arithmetic and pyca/cryptography
for HMAC and HKDF: the password element by hunting-and-pecking (the plain loop of 12.4.4.2.2,
no constant-time tricks) and by hash-to-element (the straight-line simplified SWU of RFC 9380
6.6.2, not the optimized one RustCrypto uses), each commit scalar and element, the shared
secret from both sides, KCK, PMK, PMKID and both confirm values. The Python side is itself
anchored to the published vectors of tests/vectors/sae.json (Annex J.10) first.
"""

import json
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

ROOT = Path(__file__).resolve().parents[2]


# --- the groups (FIPS 186 / SEC 2 parameters; a = -3) -------------------------------------

class Curve:
    def __init__(self, group, p, n, b, gx, gy, z, hash_):
        self.group, self.p, self.n, self.b, self.g, self.z, self.hash = group, p, n, b, (gx, gy), z, hash_
        self.a = p - 3
        self.length = (p.bit_length() + 7) // 8

    def on_curve(self, pt):
        x, y = pt
        return (y * y - (x * x * x + self.a * x + self.b)) % self.p == 0

    def add(self, p1, p2):
        if p1 is None:
            return p2
        if p2 is None:
            return p1
        (x1, y1), (x2, y2) = p1, p2
        if x1 == x2 and (y1 + y2) % self.p == 0:
            return None
        if p1 == p2:
            lam = (3 * x1 * x1 + self.a) * pow(2 * y1, -1, self.p)
        else:
            lam = (y2 - y1) * pow(x2 - x1, -1, self.p)
        x3 = (lam * lam - x1 - x2) % self.p
        return x3, (lam * (x1 - x3) - y1) % self.p

    def mul(self, k, pt):
        out = None
        for bit in bin(k)[2:]:
            out = self.add(out, out)
            if bit == "1":
                out = self.add(out, pt)
        return out

    def neg(self, pt):
        return pt[0], (-pt[1]) % self.p

    def is_square(self, v):
        return pow(v, (self.p - 1) // 2, self.p) in (0, 1)

    def sqrt(self, v):
        assert self.p % 4 == 3
        return pow(v, (self.p + 1) // 4, self.p)

    def encode(self, pt):
        return pt[0].to_bytes(self.length, "big") + pt[1].to_bytes(self.length, "big")

    def decode(self, data):
        pt = int.from_bytes(data[: self.length], "big"), int.from_bytes(data[self.length:], "big")
        assert self.on_curve(pt)
        return pt


CURVES = {
    19: Curve(19,
              0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff,
              0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551,
              0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b,
              0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296,
              0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5,
              -10, hashes.SHA256),
    20: Curve(20,
              2**384 - 2**128 - 2**96 + 2**32 - 1,
              0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973,
              0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef,
              0xaa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7,
              0x3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f,
              -12, hashes.SHA384),
    21: Curve(21,
              2**521 - 1,
              0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409,
              0x0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00,
              0x00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66,
              0x011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650,
              -4, hashes.SHA512),
}


# --- the hashes -------------------------------------------------------------------------------

def mac(hash_, key, *parts):
    h = hmac.HMAC(key, hash_())
    for part in parts:
        h.update(part)
    return h.finalize()


def kdf(hash_, key, label, context, bits):
    """KDF-Hash-Length (12.7.1.6.2): the first `bits` bits of HMAC(K, i || label || ctx || L)."""
    out = b""
    i = 1
    while len(out) * 8 < bits:
        out += mac(hash_, key, i.to_bytes(2, "little"), label, context, bits.to_bytes(2, "little"))
        i += 1
    value = int.from_bytes(out, "big") >> (len(out) * 8 - bits)
    return value, out


def max_min(a1, a2):
    return max(a1, a2) + min(a1, a2)


# --- the password element ----------------------------------------------------------------------

def hunting_and_pecking(curve, password, a1, a2):
    """12.4.4.2.2 as written: the first counter whose pwd-value is an x on the curve."""
    for counter in range(1, 256):
        seed = mac(hashes.SHA256, max_min(a1, a2), password, bytes([counter]))
        x, _ = kdf(hashes.SHA256, seed, b"SAE Hunting and Pecking", curve.p.to_bytes(curve.length, "big"),
                   curve.p.bit_length())
        if x >= curve.p:
            continue
        y2 = (x ** 3 + curve.a * x + curve.b) % curve.p
        if not curve.is_square(y2):
            continue
        y = curve.sqrt(y2)
        if y % 2 != seed[-1] % 2:
            y = curve.p - y
        return (x, y), counter
    raise AssertionError("no password element")


def sswu(curve, u):
    """RFC 9380 6.6.2, the straight-line description (not its constant-time sqrt_ratio form)."""
    p, a, b, z = curve.p, curve.a, curve.b, curve.z % curve.p
    tv1 = (z * z * pow(u, 4, p) + z * u * u) % p
    if tv1 == 0:
        x1 = b * pow(z * a, -1, p) % p
    else:
        x1 = (-b) * pow(a, -1, p) * (1 + pow(tv1, -1, p)) % p
    gx1 = (x1 ** 3 + a * x1 + b) % p
    x2 = z * u * u * x1 % p
    gx2 = (x2 ** 3 + a * x2 + b) % p
    x, y = (x1, curve.sqrt(gx1)) if curve.is_square(gx1) else (x2, curve.sqrt(gx2))
    if u % 2 != y % 2:
        y = p - y
    return x, y


def password_token(curve, ssid, password, identifier):
    seed = mac(curve.hash, ssid, password, identifier or b"")
    length = curve.length + (curve.length + 1) // 2
    values = [HKDFExpand(curve.hash(), length, info).derive(seed)
              for info in (b"SAE Hash to Element u1 P1", b"SAE Hash to Element u2 P2")]
    points = [sswu(curve, int.from_bytes(v, "big") % curve.p) for v in values]
    return curve.add(*points), seed, values


def pwe_from_token(curve, pt, a1, a2):
    digest = mac(curve.hash, bytes(curve.hash.digest_size), max_min(a1, a2))
    val = int.from_bytes(digest, "big") % (curve.n - 1) + 1
    return curve.mul(val, pt)


# --- commit, keys, confirm ---------------------------------------------------------------------

def commit(curve, pwe, rand, mask):
    return (rand + mask) % curve.n, curve.neg(curve.mul(mask, pwe))


def shared_secret(curve, pwe, rand, peer_scalar, peer_element):
    k = curve.mul(rand, curve.add(curve.mul(peer_scalar, pwe), peer_element))
    assert k is not None
    return k[0].to_bytes(curve.length, "big")


def keys(curve, h2e, k, scalar_sum, rejected_groups=b"", akm=8):
    """KCK, PMK and PMKID; the PMK is 256 bits under SAE (AKM 8), one hash long under
    SAE-EXT-KEY (AKM 24), as hostapd's sae_derive_keys gives it."""
    hash_ = curve.hash if h2e else hashes.SHA256
    keyseed = mac(hash_, rejected_groups or bytes(hash_.digest_size), k)
    context = scalar_sum.to_bytes(curve.length, "big")
    pmk_len = hash_.digest_size if akm == 24 else 32
    bits = (hash_.digest_size + pmk_len) * 8
    _, out = kdf(hash_, keyseed, b"SAE KCK and PMK", context, bits)
    return hash_, out[: hash_.digest_size], out[hash_.digest_size: hash_.digest_size + pmk_len], context[:16]


def confirm(hash_, kck, send_confirm, s1, e1, s2, e2, curve):
    return mac(hash_, kck, send_confirm.to_bytes(2, "little"), s1.to_bytes(curve.length, "big"),
               curve.encode(e1), s2.to_bytes(curve.length, "big"), curve.encode(e2))


# --- the frames, read independently ------------------------------------------------------------

def parse_commit(curve, body):
    algorithm, transaction, status = int.from_bytes(body[0:2], "little"), int.from_bytes(body[2:4], "little"), \
        int.from_bytes(body[4:6], "little")
    assert (algorithm, transaction) == (3, 1) and status in (0, 126)
    assert int.from_bytes(body[6:8], "little") == curve.group
    n = curve.length
    scalar = int.from_bytes(body[8:8 + n], "big")
    element = curve.decode(body[8 + n:8 + 3 * n])
    return status == 126, scalar, element, body[8 + 3 * n:]


def parse_confirm(body):
    assert body[0:6] == bytes([3, 0, 2, 0, 0, 0])
    return int.from_bytes(body[6:8], "little"), body[8:]


# --- the tests -----------------------------------------------------------------------------------

def published(kind, group, nth=0):
    doc = json.loads((ROOT / "tests" / "vectors" / "sae.json").read_text())
    return [v for v in doc["vectors"] if v["kind"] == kind and v.get("group") == group][nth]


def test_curves_are_the_nist_curves():
    for curve in CURVES.values():
        assert curve.on_curve(curve.g)
        assert curve.mul(curve.n, curve.g) is None


def test_python_side_reproduces_annex_j10_hunting_and_pecking():
    v = published("sae_hnp", 19)
    i, e = v["inputs"], v["expected"]
    curve = CURVES[19]
    pwe, counter = hunting_and_pecking(curve, i["password"].encode(), bytes.fromhex(i["addr1"]), bytes.fromhex(i["addr2"]))
    assert curve.encode(pwe).hex() == e["pwe"] and counter == 2
    for n, step in e["hnp_intermediates"].items():
        seed = mac(hashes.SHA256, max_min(bytes.fromhex(i["addr1"]), bytes.fromhex(i["addr2"])),
                   i["password"].encode(), bytes([int(n)]))
        value, _ = kdf(hashes.SHA256, seed, b"SAE Hunting and Pecking", curve.p.to_bytes(32, "big"), 256)
        assert (seed.hex(), value.to_bytes(32, "big").hex()) == (step["pwd_seed"], step["pwd_value"])
    rand, mask = int(i["rand"], 16), int(i["mask"], 16)
    scalar, element = commit(curve, pwe, rand, mask)
    assert scalar.to_bytes(32, "big").hex() == e["commit_scalar"] and curve.encode(element).hex() == e["commit_element"]
    peer_scalar, peer_element = int(i["peer_commit_scalar"], 16), curve.decode(bytes.fromhex(i["peer_commit_element"]))
    k = shared_secret(curve, pwe, rand, peer_scalar, peer_element)
    _, kck, pmk, pmkid = keys(curve, False, k, (scalar + peer_scalar) % curve.n)
    assert (kck.hex(), pmk.hex(), pmkid.hex()) == (e["kck"], e["pmk"], e["pmkid"])


def test_python_side_reproduces_the_draft_confirm_vector():
    """P802.11-REVmd/D2.1 J.10: the only published confirm values (identifier in pwd-seed)."""
    v = published("sae_hnp", 19, 1)
    i, e = v["inputs"], v["expected"]
    curve = CURVES[19]
    password = (i["password"] + i["password_identifier_in_pwd_seed"]).encode()
    pwe, _ = hunting_and_pecking(curve, password, bytes.fromhex(i["addr1"]), bytes.fromhex(i["addr2"]))
    rand, mask = int(i["rand"], 16), int(i["mask"], 16)
    scalar, element = commit(curve, pwe, rand, mask)
    peer_scalar, peer_element = int(i["peer_commit_scalar"], 16), curve.decode(bytes.fromhex(i["peer_commit_element"]))
    k = shared_secret(curve, pwe, rand, peer_scalar, peer_element)
    hash_, kck, pmk, _ = keys(curve, False, k, (scalar + peer_scalar) % curve.n)
    assert (kck.hex(), pmk.hex()) == (e["kck"], e["pmk"])
    ours = confirm(hash_, kck, 1, scalar, element, peer_scalar, peer_element, curve)
    theirs = confirm(hash_, kck, 1, peer_scalar, peer_element, scalar, element, curve)
    assert (b"\x01\x00" + ours).hex() == e["confirm_message"]
    assert (b"\x01\x00" + theirs).hex() == e["peer_confirm_message"]


def test_python_side_reproduces_annex_j10_hash_to_element():
    v = published("sae_h2e_ecc", 19)
    i, e = v["inputs"], v["expected"]
    curve = CURVES[19]
    pt, seed, values = password_token(curve, i["ssid"].encode(), i["password"].encode(), i["password_identifier"].encode())
    assert (seed.hex(), values[0].hex(), values[1].hex()) == (e["pwd_seed"], e["okm1"], e["okm2"])
    assert curve.encode(pt).hex() == e["pt"]
    pwe = pwe_from_token(curve, pt, bytes.fromhex(i["addr1"]), bytes.fromhex(i["addr2"]))
    assert curve.encode(pwe).hex() == e["pwe"]


def exchanges(wlansec, group, method, identifier=None, rejected=(), akm=8):
    cmd = [wlansec, "vectors", "sae", "--group", str(group), "--method", method, "--count", "2", "--seed", str(group),
           "--akm", str(akm)]
    if identifier:
        cmd += ["--identifier", identifier]
    if rejected:
        cmd += ["--rejected-groups", ",".join(map(str, rejected))]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("group", [19, 20, 21])
@pytest.mark.parametrize("method", ["h2e", "hnp"])
@pytest.mark.parametrize("akm", [8, 24])
def test_exchange_recomputed_independently(wlansec, group, method, akm):
    curve = CURVES[group]
    h2e = method == "h2e"
    identifier = "guest" if h2e else None
    # Hash-to-element: the station lists the other groups as rejected; the list salts keyseed.
    rejected = [g for g in CURVES if g != group] if h2e else []
    rejected_list = b"".join(g.to_bytes(2, "little") for g in rejected)
    for x in exchanges(wlansec, group, method, identifier, rejected, akm):
        assert x["akm"] == akm
        sta, ap = bytes.fromhex(x["sta"]), bytes.fromhex(x["ap"])
        password = bytes.fromhex(x["password"])
        if h2e:
            pt, _, _ = password_token(curve, bytes.fromhex(x["ssid"]), password, identifier.encode())
            assert curve.encode(pt).hex() == x["pt"]
            pwe = pwe_from_token(curve, pt, sta, ap)
        else:
            pwe, _ = hunting_and_pecking(curve, password, sta, ap)
        assert curve.encode(pwe).hex() == x["pwe"]

        f = x["frames"]
        sides = {}
        for name in ("sta", "ap"):
            frame_h2e, scalar, element, rest = parse_commit(curve, bytes.fromhex(f[f"{name}_commit"]))
            assert frame_h2e == h2e
            elements = bytes([255, 1 + len(identifier), 33]) + identifier.encode() if identifier else b""
            if name == "sta" and rejected_list:
                elements += bytes([255, 1 + len(rejected_list), 92]) + rejected_list
            assert rest == elements
            rand, mask = int(x[f"{name}_rand"], 16), int(x[f"{name}_mask"], 16)
            assert (scalar, element) == commit(curve, pwe, rand, mask)
            sides[name] = (rand, scalar, element)
        (sta_rand, sta_scalar, sta_element), (ap_rand, ap_scalar, ap_element) = sides["sta"], sides["ap"]
        k = shared_secret(curve, pwe, sta_rand, ap_scalar, ap_element)
        assert k == shared_secret(curve, pwe, ap_rand, sta_scalar, sta_element)
        hash_, kck, pmk, pmkid = keys(curve, h2e, k, (sta_scalar + ap_scalar) % curve.n, rejected_list, akm)
        assert (kck.hex(), pmk.hex(), pmkid.hex()) == (x["kck"], x["pmk"], x["pmkid"])
        assert len(pmk) == (hash_.digest_size if akm == 24 else 32)

        sc, value = parse_confirm(bytes.fromhex(f["sta_confirm"]))
        assert value == confirm(hash_, kck, sc, sta_scalar, sta_element, ap_scalar, ap_element, curve)
        sc, value = parse_confirm(bytes.fromhex(f["ap_confirm"]))
        assert value == confirm(hash_, kck, sc, ap_scalar, ap_element, sta_scalar, sta_element, curve)
