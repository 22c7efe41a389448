"""ccmp_decap_axi (ccmp_decap behind AXI4-Stream and AXI4-Lite), driven by cocotbext-axi:
protected MPDUs of every header shape from `wlansec vectors` (and the published ones) in,
each plaintext MPDU out byte for byte with Protected cleared and verdict 0 on the last beat's
tuser; tampered frames out with verdict 1 (the Rust engine refuses them); random and long
pauses on both streams; frames too short for the CCMP header and MIC dropped and counted."""
import os
import random

import cocotb
from cocotb.triggers import RisingEdge

from golden import ccmp_known_answers, frames
from test_ccmp_axi import CTRL, ENABLE, FRAMES_DROPPED, FRAMES_OUT, HT_CONTROL, KEY0, STATUS, Tb, random_pauses

FRAMES = int(os.environ.get("CCMP_AXI_FRAMES", "40"))


async def set_tk(tb, tk_hex, ht_control=1):
    tk = bytes.fromhex(tk_hex)
    for k in range(4):
        await tb.write(KEY0 + 4 * k, int.from_bytes(tk[4 * k:4 * k + 4], "little"))
    await tb.write(CTRL, ENABLE | (HT_CONTROL if ht_control else 0))


async def receive(tb, label, timeout_cycles=4000):
    """The next output frame: its octets and the last beat's tuser (1: refused)."""
    start = tb.cycle
    while tb.sink.empty():
        assert tb.cycle - start < timeout_cycles, f"{label}: timed out"
        await RisingEdge(tb.dut.aclk)
    frame = await tb.sink.recv()
    tuser = frame.tuser[-1] if isinstance(frame.tuser, list) else frame.tuser
    return bytes(frame.tdata), int(tuser or 0)


def cleared(mpdu: bytes) -> bytes:
    """The MPDU with its Protected bit (Frame Control bit 14) clear."""
    return bytes([mpdu[0], mpdu[1] & ~0x40]) + mpdu[2:]


async def open_and_check(tb, records, rng, label, tamper_every=0):
    for i, rec in enumerate(records):
        protected = bytearray(bytes.fromhex(rec["protected_mpdu"]))
        plain = cleared(bytes.fromhex(rec["plaintext_mpdu"]))
        hl = rec["header_len"]
        tampered = tamper_every and i % tamper_every == tamper_every - 1
        if tampered:  # a bit of the encrypted body or the MIC: the engine refuses the frame
            protected[rng.randrange(hl + 8, len(protected))] ^= 1 << rng.randrange(8)
        await set_tk(tb, rec["tk"], rec.get("ht_control", 1))
        await tb.source.send(bytes(protected))
        got, refused = await receive(tb, f"{label} {i}")
        assert refused == int(bool(tampered)), f"{label} {i}: verdict {refused}"
        if not tampered:
            assert got == plain, f"{label} {i}: got {got.hex()} expected {plain.hex()}"
        else:
            assert got[:hl] == plain[:hl] and len(got) == len(plain), f"{label} {i}: header or length"
    tb.check_beats(label)


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def known_answer_mpdus(dut):
    """Published 802.11 vectors, each under its own TK and rule set."""
    tb = Tb(dut)
    await tb.reset()
    await open_and_check(tb, ccmp_known_answers(), random.Random(80), "known answer")


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def random_frames_with_back_pressure(dut):
    """Bodies 0..2304, every third tampered, random pauses on both streams."""
    tb = Tb(dut)
    await tb.reset()
    rng = random.Random(81)
    tb.source.set_pause_generator(random_pauses(rng, 0.3, 3))
    tb.sink.set_pause_generator(random_pauses(rng, 0.3, 3))
    await open_and_check(tb, frames(FRAMES, seed=81), rng, "random frames", tamper_every=3)
    assert await tb.read(FRAMES_OUT) == FRAMES and await tb.read(FRAMES_DROPPED) == 0
    assert await tb.read(STATUS) == 0


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def long_stalls(dut):
    tb = Tb(dut)
    await tb.reset()
    rng = random.Random(82)
    tb.source.set_pause_generator(random_pauses(rng, 0.01, 300))
    tb.sink.set_pause_generator(random_pauses(rng, 0.01, 300))
    await open_and_check(tb, frames(max(3, FRAMES // 10), seed=82), rng, "long stalls", tamper_every=2)


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def short_frames_are_dropped(dut):
    """A frame that ends before its CCMP header and MIC could (header + 0, 8 and 15 octets)
    is dropped and counted; the frames around it come out intact."""
    tb = Tb(dut)
    await tb.reset()
    recs = frames(4, seed=83, max_len=100, data_only=True)
    await set_tk(tb, recs[0]["tk"])
    await open_and_check(tb, recs[:1], random.Random(83), "before")
    for extra in (0, 8, 15):
        protected = bytes.fromhex(recs[1]["protected_mpdu"])
        await tb.source.send(protected[:recs[1]["header_len"] + extra])
    await open_and_check(tb, recs[2:], random.Random(84), "after")
    assert await tb.read(FRAMES_DROPPED) == 3 and await tb.read(FRAMES_OUT) == 3
