#!/usr/bin/env python3
"""Writes tdls_tpk.json: computed-only vectors of the TDLS peer key (TPK) handshake, from
the formulas of IEEE 802.11-2020 12.7.8.4 with hashlib/hmac (and pycryptodome's AES-CMAC
for the FTE MIC) only, written without looking at the Rust code:

  TPK-Key-Input = SHA-256(min(SNonce, ANonce) || max(SNonce, ANonce))
  TPK = KDF-SHA256-Length(TPK-Key-Input, "TDLS PMK", min(MAC_I, MAC_R) || max(MAC_I, MAC_R) || BSSID)
  TPK-KCK = TPK[0:16], TPK-TK = TPK[16:], Length = 128 + TK bits (256 for CCMP-128)
  MIC = AES-128-CMAC(TPK-KCK, MAC_I || MAC_R || Transaction Sequence (2: Response, 3: Confirm)
        || Link Identifier || RSNE || Timeout Interval || FTE with its MIC zeroed)

The initiator's address and the SNonce are the larger of their pairs, so a derivation that
leaves out either min/max ordering gives other keys. Usage: tdls_tpk.py OUT.json"""
import hashlib, hmac, json, sys
from Crypto.Hash import CMAC
from Crypto.Cipher import AES

def kdf_sha256(key, label, ctx, n):
    out = b''
    i = 1
    while len(out) < n:
        out += hmac.new(key, i.to_bytes(2, 'little') + label + ctx + (n * 8).to_bytes(2, 'little'), 'sha256').digest()
        i += 1
    return out[:n]

bssid = bytes.fromhex("020000000100")
initiator = bytes.fromhex("b0b1b2b3b4b5")
responder = bytes.fromhex("a0a1a2a3a4a5")
snonce = bytes.fromhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405060708090a0b0c0d0e0f")
anonce = bytes.fromhex("c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf")
key_input = hashlib.sha256(min(snonce, anonce) + max(snonce, anonce)).digest()
ctx = min(initiator, responder) + max(initiator, responder) + bssid
tpk = kdf_sha256(key_input, b"TDLS PMK", ctx, 32)
kck, tk = tpk[:16], tpk[16:]

# A Setup Response's elements: RSNE (group: not allowed, pairwise CCMP-128, AKM TDLS,
# capabilities 0x0200), FTE (MIC Control 0, MIC, ANonce, SNonce), Timeout Interval (key
# lifetime 3600 s), Link Identifier.
rsne = bytes.fromhex("30140100000fac070100000fac040100000fac070002")
timeout = bytes([56, 5, 2]) + (3600).to_bytes(4, 'little')
link = bytes([101, 18]) + bssid + initiator + responder
def fte(mic):
    return bytes([55, 82, 0, 0]) + mic + anonce + snonce
def mic(seq):
    c = CMAC.new(kck, ciphermod=AES)
    c.update(initiator + responder + bytes([seq]) + link + rsne + timeout + fte(bytes(16)))
    return c.digest()
vectors = [{
    "id": "TPK of a CCMP-128 TDLS link (AKM 00-0F-AC:7) and the FTE MICs of its Setup Response (sequence 2) and Confirm (3)",
    "bssid": bssid.hex(), "initiator": initiator.hex(), "responder": responder.hex(),
    "snonce": snonce.hex(), "anonce": anonce.hex(), "tpk_key_input": key_input.hex(),
    "tpk_kck": kck.hex(), "tpk_tk": tk.hex(),
    "response_elements": (rsne + fte(mic(2)) + timeout + link).hex(),
    "response_mic": mic(2).hex(), "confirm_mic": mic(3).hex(),
    "verified": False,
    "status": "computed-only: Python hashlib/hmac and pycryptodome CMAC from 802.11-2020 12.7.8.4, independent of the Rust code (no published TPK vector found: 802.11-2020 Annex J has none, nor have hostapd's tests); tshark 4.0 derives the same TPK from wlansec's synthesized TDLS setups (tests/python/test_decrypt_tdls.py)",
}]
doc = {"algorithm": "TDLS TPK derivation (KDF-SHA256, label \"TDLS PMK\") and the TPK handshake's FTE MIC (AES-128-CMAC)",
       "sources": ["Computed by tdls_tpk.py (this directory) with Python's hashlib/hmac and pycryptodome from the formulas of IEEE 802.11-2020 12.7.8.4.2-3; KDF-SHA256 itself is verified against 802.11-2020 J.10 (kdf_sha256.json) and AES-CMAC against RFC 4493 (aes_cmac.json)."],
       "vectors": vectors}
json.dump(doc, open(sys.argv[1], 'w'), indent=2)
open(sys.argv[1], 'a').write("\n")
