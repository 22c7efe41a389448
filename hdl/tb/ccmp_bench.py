"""Shared harness for the CCMP cores: reset, descriptor/body/output streams, and the
conversion between `wlansec vectors` records and the cores' ports."""
import os
import random

import cocotb
from cocotb.triggers import RisingEdge

from clocking import start_clock_and_reset
from golden import body_beats, header_bus, int_be, stream_bytes
from streams import Sink, Source

# Sub-chains / lanes of the design under test (its N parameter): 1 is CCMP-128.
N = int(os.environ.get("CCMP_N", "1"))
WIDTH = 16 * N
SUITE = "ccmp128" if N == 1 else f"enhanced-{N}"


# The design's HEADER_UNIT parameter (N = 1 only): ccmp_format's header unit starts each
# frame's CBC-MAC chain at X2 ^ AAD2, one block before the body's; without it the chain
# takes B0 and the two AAD blocks.
HEADER_UNIT = N == 1 and os.environ.get("CCMP_HEADER_UNIT", "0") == "1"
HEADER_BLOCKS = 1 if HEADER_UNIT else 3
# Cycles from a descriptor taken into the header unit's register to its X2 in a register:
# the descriptor's register, then two blocks through aes128_column_core (two columns a
# cycle: 20 cycles to out_valid; each load a registered decision, a cycle after the unit is
# idle or E(B0) out), X2's register and the start.
HEADER_UNIT_CYCLES = 1 + 2 * (1 + 20 + 1) + 2


def beats(body_len):
    return -(-body_len // WIDTH)


def frame_cycles(body_len):
    """The documented cycles per frame back to back (hdl/README.md): the CBC-MAC chain's
    header blocks and one block per body beat of 16N octets, 10 cycles each (the CTR unit
    takes A0 and the body: fewer blocks, or as many with the header unit)."""
    return 10 * (HEADER_BLOCKS + beats(body_len))


def frame_ends(lengths, decap=False):
    """Each frame's last cycle counted from reset, back to back without stalls
    (hdl/README.md): encapsulation's MIC beat, decapsulation's verdict. ccmp_format starts
    frame k at cycle s: the first as its descriptor is taken (cycle 1), or with the header
    unit at HEADER_UNIT_CYCLES; then 2 cycles after the units (decapsulation: the core's MAC
    input slot) took the previous frame's last block from the format, and with the header
    unit no sooner than HEADER_UNIT_CYCLES after the previous start (it begins a frame's
    blocks as that frame's predecessor starts). A unit takes a frame's first block the cycle after s, or once done with the
    frame before. Encapsulation: body beats go to both units at once, so the MAC paces; its
    tag leaves 10 cycles a block after its first block, and the MIC beat a cycle later (two
    with the header unit: the CTR unit's last beat, done in the same cycle, leaves first).
    Decapsulation: the CTR unit runs ahead; the MAC takes the header blocks through the
    core's input slot (a cycle after the CTR took A0) and each body block as the CTR's
    plaintext (the first 22 cycles after A0: a block, the output register, the slot); the
    verdict leaves the cycle after the tag."""
    start, header_period = (HEADER_UNIT_CYCLES,) * 2 if HEADER_UNIT else (1, 1)
    ends, ctr_done, tag = [], 0, 0
    for n in lengths:
        b = beats(n)
        if not decap:
            mac = max(start + 1, tag)
            tag = mac + 10 * (HEADER_BLOCKS + b)
            ends.append(tag + (2 if HEADER_UNIT else 1))
            last_in = mac + 10 * (HEADER_BLOCKS + b - 1)
        else:
            ctr = max(start + 1, ctr_done)
            ctr_done = ctr + 10 * (1 + b)
            mac = max(ctr + 1, tag)
            tag = max(mac + 10 * HEADER_BLOCKS, ctr + 22) + 10 * b if b else mac + 10 * HEADER_BLOCKS
            ends.append(tag + 1)
            header_in = ctr if HEADER_BLOCKS == 1 else mac + 10 * (HEADER_BLOCKS - 2) + 1
            last_in = max(ctr + 10 * b, header_in)
        start = max(start + header_period, last_in + 2)
    return ends


def assert_cycles(label, lengths, ends, decap=False):
    """Each frame's end (clock edge of its last beat or verdict) against frame_ends."""
    expected = frame_ends(lengths, decap)
    wrong = [(i, n, e, g) for i, (n, e, g) in enumerate(zip(lengths, expected, ends)) if e != g]
    assert not wrong, f"{label}: (frame, body octets, expected end, got) {wrong[:5]}"


class Bench:
    def __init__(self, dut, descriptor_fields, stall=0.0, seed=0, max_stall=1):
        self.dut = dut
        self.rng = random.Random(seed)
        self.descriptors = Source(dut.clk, dut.in_valid, dut.in_ready,
                                  {n: getattr(dut, "in_" + n) for n in descriptor_fields},
                                  stall=stall, rng=random.Random(seed + 1), max_stall=max_stall)
        self.body = Source(dut.clk, dut.body_valid, dut.body_ready, {"data": dut.body_data},
                           stall=stall, rng=random.Random(seed + 2), max_stall=max_stall)
        self.out = Sink(dut.clk, dut.out_valid, dut.out_ready,
                        {"data": dut.out_data, "nbytes": dut.out_nbytes, "last": dut.out_last},
                        stall=stall, rng=random.Random(seed + 3), max_stall=max_stall)

    async def reset(self):
        await start_clock_and_reset(self.dut)
        cocotb.start_soon(self.out.run())

    async def feed(self, frames):
        """Descriptors and bodies of all frames, back to back."""
        cocotb.start_soon(self.descriptors.send([f["descriptor"] for f in frames]))
        beats = [b for f in frames for b in body_beats(f["body"], WIDTH, self.rng)]
        await self.body.send(beats)

    async def wait_for(self, sink, count, what, timeout_cycles):
        """Until `sink` has seen `count` frames (beats with `last`, or any beat if it has none)."""
        done = (lambda: sink.frames) if "last" in sink.fields else (lambda: len(sink.beats))
        for _ in range(timeout_cycles):
            if done() >= count:
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError(f"timed out waiting for {what}: {done()}/{count}")


def split_frames(beats):
    """Output beats -> list of byte strings, one per frame (a frame ends at `last`)."""
    frames, current = [], []
    for b in beats:
        current.append(b)
        if b["last"]:
            frames.append(stream_bytes(current, WIDTH))
            current = []
    return frames, current


def encap_job(rec, ht_control=1):
    """A `wlansec vectors` record -> ccmp_core inputs and the expected output octets."""
    hl = rec["header_len"]
    plain = bytes.fromhex(rec["plaintext_mpdu"])
    protected = bytes.fromhex(rec["protected_mpdu"])
    pn = rec["pn"] if isinstance(rec["pn"], int) else int(rec["pn"], 16)
    return {
        "descriptor": {"tk": int_be(bytes.fromhex(rec["tk"])), "pn": pn, "keyid": rec["keyid"],
                       "header": header_bus(plain[:hl]), "ht_control": ht_control,
                       "body_len": len(plain) - hl},
        "body": plain[hl:],
        "expected": protected[hl:],
    }


def decap_inputs(mpdu: bytes, header_len, tk, ht_control=1):
    """A protected MPDU -> ccmp_decap inputs, split as the caller would (MAC header of
    `header_len` octets, CCMP header, encrypted body, MIC); the header field is the MPDU's
    first 32 octets, whatever follows the MAC header in them."""
    body = mpdu[header_len + 8:-8]
    return {"descriptor": {"tk": int_be(bytes.fromhex(tk)), "ccmp_header": int_be(mpdu[header_len:header_len + 8]),
                           "header": header_bus(mpdu), "ht_control": ht_control,
                           "body_len": len(body), "mic": int_be(mpdu[-8:])},
            "body": body}


def decap_job(rec, ht_control=1, tamper=None):
    """A record -> ccmp_decap inputs, expected plaintext and verdict. `tamper` (a random
    generator) flips one bit of the encrypted body or MIC: the verdict must then be 0."""
    hl = rec["header_len"]
    plain = bytes.fromhex(rec["plaintext_mpdu"])
    protected = bytearray(bytes.fromhex(rec["protected_mpdu"]))
    if tamper is not None:
        at = tamper.randrange(hl + 8, len(protected))
        protected[at] ^= 1 << tamper.randrange(8)
    return dict(decap_inputs(bytes(protected), hl, rec["tk"], ht_control), expected=plain[hl:],
                ok=int(tamper is None))
