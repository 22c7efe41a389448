"""Expected values from the Rust golden model (`wlansec vectors`) and tests/vectors."""
import json
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def wlansec():
    return os.environ.get("WLANSEC", str(REPO / "target/release/wlansec"))


def frames(count, seed, suite="ccmp128", min_len=None, max_len=None, data_only=False):
    cmd = [wlansec(), "vectors", "--suite", suite, "--count", str(count), "--seed", str(seed)]
    if min_len is not None:
        cmd += ["--min-len", str(min_len)]
    if max_len is not None:
        cmd += ["--max-len", str(max_len)]
    if data_only:
        cmd.append("--data-only")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def unprotect(mpdu: bytes, tk: str, suite="ccmp128", rules="2016"):
    """The Rust engine's verdict on one protected MPDU (`wlansec frame unprotect`): the
    plaintext MPDU, or None where it rejects the frame. One call per frame: the CLI's replay
    check spans the frames of one call."""
    cmd = [wlansec(), "frame", "unprotect", "--suite", suite, "--tk", tk, "--rules", rules, mpdu.hex()]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode == 0:
        return bytes.fromhex(run.stdout.strip())
    if "frame 1:" not in run.stderr:  # a usage or tool error, not a verdict
        raise RuntimeError(f"{' '.join(cmd)}: {run.stderr}")
    return None


def known_answers(name):
    return json.loads((REPO / "tests/vectors" / name).read_text())["vectors"]


def ccmp_known_answers():
    """tests/vectors/ccmp128.json's published MPDUs as `wlansec vectors` records, each with the
    ht_control its rule set implies (802.11i-2004 has no HT Control field)."""
    records = []
    for v in known_answers("ccmp128.json"):
        # M.9.2 (management) has a 24-octet header and names its output differently.
        protected = v.get("encrypted_mpdu") or v["encrypted_mpdu_with_protected_bit_set"]
        records.append({"tk": v["tk"], "pn": v["pn"] if isinstance(v["pn"], int) else int(v["pn"], 16),
                        "keyid": v["key_id"], "header_len": v.get("header_len", 24),
                        "plaintext_mpdu": v["plaintext_mpdu"], "protected_mpdu": protected,
                        "ht_control": int(v["rules"] != "802.11i-2004")})
    return records


def int_be(data: bytes) -> int:
    return int.from_bytes(data, "big")


def header_bus(header: bytes) -> int:
    """The first 32 MAC header octets, zero filled, octet 0 in the top bits."""
    return int_be(header[:32].ljust(32, b"\0"))


def body_beats(body: bytes, width=16, rng=None):
    """`width`-octet beats; the tail of the last beat is random filler the core must ignore."""
    beats = []
    for at in range(0, len(body), width):
        chunk = body[at:at + width]
        pad = width - len(chunk)
        filler = bytes(rng.getrandbits(8) for _ in range(pad)) if rng else bytes(pad)
        beats.append({"data": int_be(chunk + filler)})
    return beats


def stream_bytes(beats, width=16):
    return b"".join(b["data"].to_bytes(width, "big")[:b["nbytes"]] for b in beats)
