"""FIPS-197's round-by-round listings as transcribed in tests/vectors/fips197_rounds.json
(the expected values of the AES cores' per-round checks in hdl/tb), checked without an AES
model: every block against pycryptodome, and every intermediate value against another
printed value through XOR, an octet permutation or equality, so a slip in any one number
fails here."""

import json
from pathlib import Path

import pytest
from Crypto.Cipher import AES

DOC = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "fips197_rounds.json").read_text())
VECTORS = {v["id"]: v for v in DOC["vectors"]}


def xor(a: str, b: str) -> str:
    return bytes(x ^ y for x, y in zip(bytes.fromhex(a), bytes.fromhex(b))).hex()


def shift_rows(state: str) -> str:
    """Row r of the state rotated left by r columns: octet (r, c) from (r, c + r)."""
    s = bytes.fromhex(state)
    return bytes(s[r + 4 * ((c + r) % 4)] for c in range(4) for r in range(4)).hex()


def test_published_outputs():
    assert VECTORS["FIPS-197 C.1 AES-128"]["ciphertext"] == "69c4e0d86a7b0430d8cdb78070b4c55a"
    assert VECTORS["FIPS-197 Appendix B"]["ciphertext"] == "3925841d02dc09fbdc118597196a0b32"


@pytest.mark.parametrize("v", DOC["vectors"], ids=lambda v: v["id"])
def test_last_round_output_matches_pycryptodome(v):
    aes = AES.new(bytes.fromhex(v["key"]), AES.MODE_ECB)
    plaintext, ciphertext = bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"])
    last = v["rounds"][-1]
    assert xor(last["s_row"], last["k_sch"]) == aes.encrypt(plaintext).hex() == v["ciphertext"]
    if "inverse_rounds" in v:
        assert v["inverse_rounds"][-1]["ioutput"] == aes.decrypt(ciphertext).hex() == v["plaintext"]


@pytest.mark.parametrize("v", DOC["vectors"], ids=lambda v: v["id"])
def test_cipher_listing_chains(v):
    rounds = v["rounds"]
    assert v["k_sch_0"] == v["key"]
    assert rounds[0]["start"] == xor(v["plaintext"], v["k_sch_0"])
    for r, (this, following) in enumerate(zip(rounds, rounds[1:]), start=1):
        assert following["start"] == xor(this["m_col"], this["k_sch"]), f"round {r + 1} start"
    for r, this in enumerate(rounds, start=1):
        assert this["s_row"] == shift_rows(this["s_box"]), f"round {r} s_row"
    assert [r["round"] for r in rounds] == list(range(1, 11)) and "m_col" not in rounds[-1]


def test_key_expansion_matches_appendix_b_round_keys():
    w = DOC["key_expansion"]["w"]
    assert len(w) == 44 and "".join(w[:4]) == DOC["key_expansion"]["key"]
    for i in range(4, 44):
        if i % 4:  # the words without SubWord/Rcon: pure XOR
            assert int(w[i], 16) == int(w[i - 1], 16) ^ int(w[i - 4], 16), i
    b = VECTORS["FIPS-197 Appendix B"]
    assert b["key"] == DOC["key_expansion"]["key"]
    printed = [b["k_sch_0"]] + [r["k_sch"] for r in b["rounds"]]
    assert printed == ["".join(w[4 * r:4 * r + 4]) for r in range(11)]


def test_inverse_listing_mirrors_the_cipher_listing():
    """FIPS-197 5.3: inverse round r undoes cipher round 11 - r."""
    v = VECTORS["FIPS-197 C.1 AES-128"]
    cipher, inverse = v["rounds"], v["inverse_rounds"]
    keys = [v["k_sch_0"]] + [r["k_sch"] for r in cipher]
    assert v["ik_sch_0"] == keys[10]
    assert inverse[0]["istart"] == xor(v["ciphertext"], v["ik_sch_0"])
    for r, inv in enumerate(inverse, start=1):
        undone = cipher[10 - r]  # cipher round 11 - r
        assert inv["istart"] == undone["s_row"], r
        assert inv["is_row"] == undone["s_box"], r
        assert inv["is_box"] == undone["start"], r
        assert inv["ik_sch"] == keys[10 - r], r
        added = xor(inv["is_box"], inv["ik_sch"])
        assert (inv["ik_add"] if r < 10 else inv["ioutput"]) == added, r
        assert added == (cipher[9 - r]["m_col"] if r < 10 else v["plaintext"]), r
