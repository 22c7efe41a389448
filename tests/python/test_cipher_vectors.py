"""The cipher known-answer vectors of `wlansec bench ciphers` (tests/vectors/ciphers) checked
against an independent implementation, pycryptodome, so a transcription slip cannot pass the
Rust tests unnoticed. RC6 has no implementation in pycryptodome or OpenSSL, and pycryptodome
refuses RC2 keys shorter than 40 bits (RFC 2268's vector 4): those vectors are checked only
against their published values, by the Rust tests."""

import json
from pathlib import Path

import pytest
from Crypto.Cipher import AES, ARC2, DES, DES3, Blowfish, ChaCha20_Poly1305
from Crypto.Util import Counter

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "ciphers"


def vectors():
    for path in sorted(VECTORS.glob("*.json")):
        for v in json.loads(path.read_text())["vectors"]:
            if has_independent_implementation(v):
                yield pytest.param(v, id=f"{path.stem}:{v['id']}")


def has_independent_implementation(v) -> bool:
    return v["cipher"] != "RC6" and not (v["cipher"] == "RC2" and len(v["key"]) // 2 < 5)


def block_cipher(v):
    key = bytes.fromhex(v["key"])
    kind = {"DES": DES, "3DES": DES3, "RC2": ARC2, "Blowfish": Blowfish, "AES": AES}[v["cipher"]]
    extra = {"effective_keylen": v["effective_bits"]} if "effective_bits" in v else {}
    if v["mode"] == "ECB":
        return kind.new(key, kind.MODE_ECB, **extra)
    if v["mode"] == "CBC":
        return kind.new(key, kind.MODE_CBC, iv=bytes.fromhex(v["iv"]), **extra)
    counter = Counter.new(128, initial_value=int(v["iv"], 16))
    return kind.new(key, kind.MODE_CTR, counter=counter)


@pytest.mark.parametrize("v", vectors())
def test_vector_matches_pycryptodome(v):
    plaintext = bytes.fromhex(v["plaintext"])
    if v["mode"] == "AEAD":
        key, nonce = bytes.fromhex(v["key"]), bytes.fromhex(v["iv"])
        c = ChaCha20_Poly1305.new(key=key, nonce=nonce) if v["cipher"] == "ChaCha20-Poly1305" \
            else AES.new(key, AES.MODE_GCM, nonce=nonce)
        c.update(bytes.fromhex(v["aad"]))
        ct, tag = c.encrypt_and_digest(plaintext)
        assert (ct.hex(), tag.hex()) == (v["ciphertext"], v["tag"])
        return
    assert block_cipher(v).encrypt(plaintext).hex() == v["ciphertext"]
