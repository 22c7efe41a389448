"""AES-128 round by round from FIPS-197's definitions (5.1-5.3), independent of the RTL:
the S-boxes from GF(2^8) inversion and the affine map, the key expansion, and the state
after every round of the cipher and the inverse cipher. States and keys are 16 octets in
FIPS-197's input order (octet i is row i % 4, column i // 4)."""


def _mul(a, b):
    p = 0
    while b:
        if b & 1:
            p ^= a
        a = ((a << 1) ^ 0x11B) if a & 0x80 else a << 1
        b >>= 1
    return p


def _sbox():
    inv = [0] + [next(b for b in range(1, 256) if _mul(a, b) == 1) for a in range(1, 256)]
    out = []
    for x in range(256):
        b = inv[x]
        r = b
        for i in range(1, 5):
            r ^= ((b << i) | (b >> (8 - i))) & 0xFF
        out.append(r ^ 0x63)
    return out


SBOX = _sbox()
INV_SBOX = [SBOX.index(x) for x in range(256)]
RCON = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36]
MIX = [[2, 3, 1, 1], [1, 2, 3, 1], [1, 1, 2, 3], [3, 1, 1, 2]]
INV_MIX = [[14, 11, 13, 9], [9, 14, 11, 13], [13, 9, 14, 11], [11, 13, 9, 14]]


def round_keys(key: bytes):
    """Round keys 0..10 (FIPS-197 5.2)."""
    w = [list(key[4 * i:4 * i + 4]) for i in range(4)]
    for i in range(4, 44):
        t = list(w[i - 1])
        if i % 4 == 0:
            t = [SBOX[b] for b in t[1:] + t[:1]]
            t[0] ^= RCON[i // 4 - 1]
        w.append([a ^ b for a, b in zip(w[i - 4], t)])
    return [bytes(sum(w[4 * r:4 * r + 4], [])) for r in range(11)]


def last_round_key(key: bytes) -> int:
    """Round key 10, the decryption key of a core that walks the schedule backwards."""
    return int.from_bytes(round_keys(key)[10], "big")


def _shift(s, direction):
    return [s[r + 4 * ((c + direction * r) % 4)] for c in range(4) for r in range(4)]


def _mix(s, m):
    return [_xor_all(_mul(m[r][k], s[4 * c + k]) for k in range(4)) for c in range(4) for r in range(4)]


def _xor_all(xs):
    out = 0
    for x in xs:
        out ^= x
    return out


def _add(s, k):
    return [a ^ b for a, b in zip(s, k)]


def encrypt_rounds(key: bytes, block: bytes):
    """The state after each of rounds 1..10 (round 1 after the initial AddRoundKey)."""
    ks = round_keys(key)
    s = _add(block, ks[0])
    out = []
    for r in range(1, 11):
        s = _shift([SBOX[b] for b in s], 1)
        if r < 10:
            s = _mix(s, MIX)
        s = _add(s, ks[r])
        out.append(bytes(s))
    return out


def decrypt_rounds(key: bytes, block: bytes):
    """The inverse cipher's state after each of its rounds 1..10 (FIPS-197 5.3, Fig. 12:
    inverse round r adds round key 10 - r, then InvMixColumns except in the last)."""
    ks = round_keys(key)
    s = _add(block, ks[10])
    out = []
    for r in range(1, 11):
        s = _add([INV_SBOX[b] for b in _shift(s, -1)], ks[10 - r])
        if r < 10:
            s = _mix(s, INV_MIX)
        out.append(bytes(s))
    return out
