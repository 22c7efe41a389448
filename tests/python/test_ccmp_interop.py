"""CCMP-128 against implementations no one here wrote: Wireshark's tshark decrypts what
wlansec protects; wlansec decrypts what pycryptodome and pyca/cryptography protect (with the
AAD and nonce built here from the standard's rules), and pycryptodome opens what wlansec
protects."""

import json
import random
import subprocess

from Crypto.Cipher import AES
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

import ieee80211 as w

TSHARK_FRAMES = 10_000
# tshark (4.0) shows no decrypted data for bodies under 2 octets; those lengths are covered
# by the pycryptodome tests below.
TSHARK_MIN_BODY = 2


def protect(wlansec, tk, first_pn, mpdus, keyid=0):
    out = subprocess.run(
        [wlansec, "frame", "protect", "--suite", "ccmp128", "--tk", tk, "--pn", str(first_pn),
         "--keyid", str(keyid), "-"],
        input="\n".join(m.hex() for m in mpdus) + "\n", capture_output=True, text=True, check=True,
    ).stdout.split()
    return [bytes.fromhex(line) for line in out]


def unprotect(wlansec, tk, mpdus):
    result = subprocess.run(
        [wlansec, "frame", "unprotect", "--suite", "ccmp128", "--tk", tk, "-"],
        input="\n".join(m.hex() for m in mpdus) + "\n", capture_output=True, text=True,
    )
    return result.returncode, result.stdout.splitlines()


def test_tshark_decrypts_10000_frames_of_every_shape(wlansec, tmp_path):
    vectors = subprocess.run(
        [wlansec, "vectors", "--count", str(TSHARK_FRAMES), "--seed", "2024", "--min-len", str(TSHARK_MIN_BODY)],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    plain = [bytes.fromhex(json.loads(v)["plaintext_mpdu"]) for v in vectors]
    headers = [json.loads(v)["header_len"] for v in vectors]
    shapes = {(p[0] >> 2 & 3, len(p[:h])) for p, h in zip(plain, headers)}
    assert len(shapes) >= 6, f"too few header shapes: {shapes}"

    tk = "c0ffee00112233445566778899aabbcc"
    protected = protect(wlansec, tk, 1, plain)
    assert len(protected) == TSHARK_FRAMES
    pcap = tmp_path / "ccmp.pcap"
    w.write_pcap(pcap, protected)
    packets = w.tshark_data_sources(pcap, "wlan.enable_decryption:TRUE", f'uat:80211_keys:"tk","{tk}"')
    assert len(packets) == TSHARK_FRAMES
    decrypted = 0
    for i, (packet, mpdu, h) in enumerate(zip(packets, plain, headers)):
        assert packet.get("Decrypted CCMP data") == mpdu[h:], f"frame {i}: tshark disagrees"
        decrypted += 1
    assert decrypted == TSHARK_FRAMES
    print(f"tshark decrypted {decrypted} of {TSHARK_FRAMES} wlansec-protected frames exactly")


def test_tshark_refuses_the_wrong_key(wlansec, tmp_path):
    plain = [w.random_header(random.Random(i)) + bytes(40) for i in range(20)]
    protected = protect(wlansec, "00" * 16, 1, plain)
    pcap = tmp_path / "ccmp.pcap"
    w.write_pcap(pcap, protected)
    packets = w.tshark_data_sources(pcap, "wlan.enable_decryption:TRUE", 'uat:80211_keys:"tk","' + "11" * 16 + '"')
    assert all("Decrypted CCMP data" not in p for p in packets)


def independent_protect(rng, count):
    """Frames protected by pycryptodome (even) and pyca/cryptography (odd), PNs 1..count."""
    tk = bytes(rng.randrange(256) for _ in range(16))
    plains, protected = [], []
    for i in range(count):
        body = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 15, 16, 17, rng.randrange(2305)])))
        mpdu = w.random_header(rng) + body
        h = w.header_len(mpdu)
        pn, keyid = i + 1, rng.randrange(4)
        aad, nonce = w.aad_and_nonce(mpdu, pn)
        if i % 2 == 0:
            ct, tag = _pycryptodome(tk, nonce, aad, mpdu[h:])
            sealed = ct + tag
        else:
            sealed = AESCCM(tk, tag_length=8).encrypt(nonce, mpdu[h:], aad)
        fc = int.from_bytes(mpdu[:2], "little") | w.PROTECTED
        protected.append(fc.to_bytes(2, "little") + mpdu[2:h] + w.ccmp_header(pn, keyid) + sealed)
        plains.append(mpdu)
    return tk, plains, protected


def _pycryptodome(tk, nonce, aad, data):
    cipher = AES.new(tk, AES.MODE_CCM, nonce=nonce, mac_len=8)
    cipher.update(aad)
    return cipher.encrypt_and_digest(data)


def cleared(mpdu):
    fc = int.from_bytes(mpdu[:2], "little") & ~w.PROTECTED
    return fc.to_bytes(2, "little") + mpdu[2:]


def test_wlansec_decrypts_frames_protected_by_pycryptodome_and_cryptography(wlansec):
    tk, plains, protected = independent_protect(random.Random(7), 3000)
    code, lines = unprotect(wlansec, tk.hex(), protected)
    assert code == 0, [l for l in lines if l.startswith("error")][:3]
    assert [bytes.fromhex(l) for l in lines] == [cleared(p) for p in plains]


def test_pycryptodome_opens_what_wlansec_protects(wlansec):
    rng = random.Random(8)
    tk = bytes(rng.randrange(256) for _ in range(16))
    plains = [w.random_header(rng) + bytes(rng.randrange(256) for _ in range(n))
              for n in [0, 1, 2, 15, 16, 17, 2304] + [rng.randrange(2305) for _ in range(500)]]
    protected = protect(wlansec, tk.hex(), 1, plains, keyid=2)
    for pn, (mpdu, prot) in enumerate(zip(plains, protected), start=1):
        h = w.header_len(mpdu)
        assert prot[h:h + 8] == w.ccmp_header(pn, 2)
        aad, nonce = w.aad_and_nonce(mpdu, pn)
        cipher = AES.new(tk, AES.MODE_CCM, nonce=nonce, mac_len=8)
        cipher.update(aad)
        assert cipher.decrypt_and_verify(prot[h + 8:-8], prot[-8:]) == mpdu[h:]
        assert prot[:h] == (int.from_bytes(mpdu[:2], "little") | w.PROTECTED).to_bytes(2, "little") + mpdu[2:h]


def test_forged_frames_from_the_independent_side_are_rejected(wlansec):
    tk, _, protected = independent_protect(random.Random(9), 50)
    forged = [p[:-1] + bytes([p[-1] ^ 1]) for p in protected]
    code, lines = unprotect(wlansec, tk.hex(), forged)
    assert code == 1
    assert all(l.startswith("error:") and "MIC verification failed" in l for l in lines)
