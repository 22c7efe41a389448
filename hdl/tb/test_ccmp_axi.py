"""ccmp_axi (ccmp_core behind AXI4-Stream and AXI4-Lite), driven by cocotbext-axi: plaintext
MPDUs of every header shape from `wlansec vectors`, expected protected MPDUs from
`wlansec frame protect` under the same TK, Key ID and consecutive PNs (the wrapper's PN
register steps per frame), compared byte for byte; random and long pauses on both streams;
the register map (TK unreadable, SLVERR), dropped frames, PN exhaustion, cycles per frame."""
import logging
import os
import random
import subprocess

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from cocotbext.axi import (AxiLiteBus, AxiLiteMaster, AxiResp, AxiStreamBus, AxiStreamFrame, AxiStreamSink,
                           AxiStreamSource)

from ccmp_bench import frame_cycles
from golden import ccmp_known_answers, frames, wlansec

FRAMES = int(os.environ.get("CCMP_AXI_FRAMES", "40"))
CLOCK_NS = 10
CTRL, STATUS, FRAMES_OUT, FRAMES_DROPPED, KEY0, PN_LO, PN_HI = 0x00, 0x04, 0x08, 0x0C, 0x10, 0x20, 0x24
ENABLE, HT_CONTROL = 1, 2
BUSY, PN_EXHAUSTED = 1, 2
# Cycles from the input frame's last beat to the output frame's last beat beyond
# frame_cycles(body): descriptor to ring and core, MAC header out, packing (hdl/README.md);
# one more when the last input beat holds octets of two body beats (written one a cycle), and
# one more when the MIC straddles two output beats (they leave one a cycle).
WRAPPER_LATENCY = 5


def wrapper_latency(header_len, body_len):
    total = header_len + body_len
    first = max(header_len, (total - 1) // 16 * 16)  # the last input beat's first body octet
    split_in = body_len > 0 and (first - header_len) // 16 != (total - 1 - header_len) // 16
    return WRAPPER_LATENCY + int(split_in) + int(split_mic(total))


def split_mic(plain_len):
    return (plain_len + 8) % 16 > 8


def protect(plain_mpdus, tk, pn, keyid, rules="2016"):
    """The Rust engine's protected MPDUs for consecutive PNs from `pn`."""
    cmd = [wlansec(), "frame", "protect", "--suite", "ccmp128", "--tk", tk, "--pn", str(pn),
           "--keyid", str(keyid), "--rules", rules, "-"]
    out = subprocess.run(cmd, input="\n".join(m.hex() for m in plain_mpdus), check=True,
                         capture_output=True, text=True).stdout
    return [bytes.fromhex(line) for line in out.split()]


def random_pauses(rng, p, max_run):
    """Pause generator: with probability p a pause of 1..max_run cycles begins."""
    while True:
        if rng.random() < p:
            for _ in range(rng.randint(1, max_run)):
                yield True
        yield False


class Tb:
    def __init__(self, dut):
        self.dut = dut
        cocotb.start_soon(Clock(dut.aclk, CLOCK_NS, units="ns").start())
        for bus in ("s_axis", "m_axis", "s_axil"):  # per-frame and per-access log lines
            logging.getLogger(f"cocotb.{dut._name}.{bus}").setLevel(logging.WARNING)
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.aclk)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.aclk)
        self.axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.aclk)
        self.cycle = 0
        self.in_ends, self.out_beats = [], []  # cycles of input tlast; (cycle, tkeep, tlast) out

    async def reset(self):
        self.dut.aresetn.value = 0
        await ClockCycles(self.dut.aclk, 3)
        self.dut.aresetn.value = 1
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        d = self.dut
        while True:
            await RisingEdge(d.aclk)
            self.cycle += 1
            await ReadOnly()
            if d.s_axis_tvalid.value and d.s_axis_tready.value and d.s_axis_tlast.value:
                self.in_ends.append(self.cycle)
            if d.m_axis_tvalid.value and d.m_axis_tready.value:
                self.out_beats.append((self.cycle, int(d.m_axis_tkeep.value), int(d.m_axis_tlast.value)))

    async def write(self, addr, value, expect=AxiResp.OKAY):
        resp = await self.axil.write(addr, value.to_bytes(4, "little"))
        assert resp.resp == expect, f"write 0x{addr:02x}: {resp.resp}, expected {expect}"

    async def read(self, addr, expect=AxiResp.OKAY):
        resp = await self.axil.read(addr, 4)
        assert resp.resp == expect, f"read 0x{addr:02x}: {resp.resp}, expected {expect}"
        return int.from_bytes(resp.data, "little")

    async def configure(self, tk_hex, pn, keyid, ht_control=1, enable=1):
        tk = bytes.fromhex(tk_hex)
        await self.write(CTRL, (keyid << 2) | (HT_CONTROL if ht_control else 0))
        for k in range(4):
            await self.write(KEY0 + 4 * k, int.from_bytes(tk[4 * k:4 * k + 4], "little"))
        await self.write(PN_LO, pn & 0xFFFFFFFF)
        await self.write(PN_HI, pn >> 32)
        if enable:
            await self.write(CTRL, (keyid << 2) | (HT_CONTROL if ht_control else 0) | ENABLE)

    async def receive(self, count, label, timeout_cycles):
        got = []
        for _ in range(count):
            start = self.cycle
            while self.sink.empty():
                assert self.cycle - start < timeout_cycles, f"{label}: timed out after {len(got)}/{count} frames"
                await RisingEdge(self.dut.aclk)
            got.append(bytes((await self.sink.recv()).tdata))
        return got

    def check_beats(self, label):
        """Every output beat full except each frame's last (tkeep contiguous from byte 0)."""
        for cycle, keep, last in self.out_beats:
            if last:
                assert keep & (keep + 1) == 0 and keep, f"{label}: last beat tkeep {keep:04x} at {cycle}"
            else:
                assert keep == 0xFFFF, f"{label}: tkeep {keep:04x} before tlast at {cycle}"


def plaintexts(records):
    return [bytes.fromhex(r["plaintext_mpdu"]) for r in records]


async def protect_and_check(tb, plain, expected, label, budget_per_frame=3000):
    for m in plain:
        await tb.source.send(m)
    got = await tb.receive(len(plain), label, budget_per_frame * len(plain))
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"{label} frame {i} ({len(plain[i])} octets in): got {g.hex()} expected {e.hex()}"
    tb.check_beats(label)


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def registers(dut):
    """Reset values, read-back, TK write-only, PN written and read atomically, SLVERR."""
    tb = Tb(dut)
    await tb.reset()
    assert await tb.read(CTRL) == HT_CONTROL
    assert await tb.read(STATUS) == 0
    assert await tb.read(FRAMES_OUT) == 0 and await tb.read(FRAMES_DROPPED) == 0
    assert await tb.read(PN_LO) == 1 and await tb.read(PN_HI) == 0
    await tb.write(CTRL, 0xD)
    assert await tb.read(CTRL) == 0xD
    await tb.write(CTRL, 0xFFFFFFF2)  # bits beyond the register are not kept
    assert await tb.read(CTRL) == 0x2
    for k in range(4):
        await tb.write(KEY0 + 4 * k, 0xA5A5A5A5 ^ k)
        assert await tb.read(KEY0 + 4 * k) == 0, "the TK must not be readable"
    await tb.write(PN_LO, 0x89ABCDEF)
    assert await tb.read(PN_LO) == 1, "PN_LO alone must not change the PN"
    await tb.write(PN_HI, 0x4567)
    assert await tb.read(PN_LO) == 0x89ABCDEF and await tb.read(PN_HI) == 0x4567
    # Byte strobes: only CTRL's byte 0 written.
    resp = await tb.axil.write(CTRL, b"\x01")
    assert resp.resp == AxiResp.OKAY and await tb.read(CTRL) == 0x1
    for addr in (0x28, 0x2C, 0x30, 0x3C):
        await tb.read(addr, expect=AxiResp.SLVERR)
        await tb.write(addr, 0x12345678, expect=AxiResp.SLVERR)
    for addr in (STATUS, FRAMES_OUT, FRAMES_DROPPED):  # read-only
        await tb.write(addr, 0xFFFFFFFF, expect=AxiResp.SLVERR)
    assert await tb.read(FRAMES_OUT) == 0


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def known_answer_mpdus(dut):
    """Published 802.11 vectors, each with its own TK, PN and Key ID written over AXI4-Lite
    after the frame is in (HT_CONTROL before: it sets the header's length): the frame waits
    for CTRL.ENABLE and takes TK, PN and Key ID then."""
    tb = Tb(dut)
    await tb.reset()
    for i, rec in enumerate(ccmp_known_answers()):
        protected = bytes.fromhex(rec["protected_mpdu"])
        plain = bytes.fromhex(rec["plaintext_mpdu"])
        ht_control = rec["ht_control"]
        await tb.write(CTRL, HT_CONTROL if ht_control else 0)  # the header's length: before it comes
        await tb.source.send(plain)
        await ClockCycles(dut.aclk, 30)
        assert tb.sink.empty(), "a frame started while CTRL.ENABLE was clear"
        await tb.configure(rec["tk"], rec["pn"], rec["keyid"], ht_control=ht_control)
        got = await tb.receive(1, f"known answer {i}", 3000)
        assert got[0] == protected, f"known answer {i}: got {got[0].hex()} expected {protected.hex()}"
        await tb.write(CTRL, 0)
    tb.check_beats("known answers")


async def random_run(dut, count, seed, p, max_run, rules="2016"):
    tb = Tb(dut)
    await tb.reset()
    rng = random.Random(seed)
    tb.source.set_pause_generator(random_pauses(rng, p, max_run))
    tb.sink.set_pause_generator(random_pauses(rng, p, max_run))
    tk, pn, keyid = rng.randbytes(16).hex(), rng.randrange(1, 1 << 47), rng.randrange(4)
    await tb.configure(tk, pn, keyid, ht_control=int(rules == "2016"))
    plain = plaintexts(frames(count, seed=seed))
    expected = protect(plain, tk, pn, keyid, rules)
    await protect_and_check(tb, plain, expected, f"random frames (pauses p={p}, up to {max_run})",
                            budget_per_frame=3000 * max_run)
    assert await tb.read(FRAMES_OUT) == count and await tb.read(FRAMES_DROPPED) == 0
    assert await tb.read(PN_LO) | (await tb.read(PN_HI)) << 32 == pn + count
    assert await tb.read(STATUS) == 0


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def random_frames_with_back_pressure(dut):
    await random_run(dut, FRAMES, seed=71, p=0.3, max_run=3)


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def random_frames_without_ht_control(dut):
    """802.11i-2004 rules (CTRL.HT_CONTROL clear): the Order bit adds no HT Control field."""
    await random_run(dut, max(4, FRAMES // 4), seed=72, p=0.2, max_run=2, rules="2004")


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def long_frames_with_long_stalls(dut):
    await random_run(dut, max(3, FRAMES // 10), seed=73, p=0.01, max_run=300)


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def dropped_frames(dut):
    """Malformed frames between good ones: dropped and counted, no PN spent, the good ones intact."""
    tb = Tb(dut)
    await tb.reset()
    rng = random.Random(74)
    tk, pn = rng.randbytes(16).hex(), 1000
    await tb.configure(tk, pn, 0)
    good = plaintexts(frames(6, seed=74, data_only=True))
    bad = [
        good[1][:20],                               # ends inside its MAC header
        bytes([0xB4, 0x00]) + good[2][2:],          # control frame (RTS)
        bytes([0x09]) + good[3][1:],                # protocol version 1
        good[0] + bytes(2305),                      # body beyond MAX_BODY (2304)
    ]
    gap = AxiStreamFrame(good[4][:40], tkeep=[1] * 5 + [0] + [1] * 34)  # a null byte mid-frame
    sent = []
    for g, b in zip(good, bad + [gap]):
        await tb.source.send(g)
        sent.append(g)
        await tb.source.send(b)
    await tb.source.send(good[5])
    sent.append(good[5])
    expected = protect(sent, tk, pn, 0)
    got = await tb.receive(len(sent), "dropped frames", 3000 * len(sent))
    assert got == expected, "good frames around dropped ones"
    assert await tb.read(FRAMES_DROPPED) == len(bad) + 1
    assert await tb.read(FRAMES_OUT) == len(sent)
    assert await tb.read(PN_LO) == pn + len(sent)
    tb.check_beats("dropped frames")


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def pn_exhaustion(dut):
    """After PN 2^48-1 no frame starts (the engine refuses it too) until a new PN is written."""
    tb = Tb(dut)
    await tb.reset()
    tk = "000102030405060708090a0b0c0d0e0f"
    await tb.configure(tk, (1 << 48) - 2, 1)
    plain = plaintexts(frames(3, seed=75, max_len=100))
    for m in plain:
        await tb.source.send(m)
    got = await tb.receive(2, "PN exhaustion", 6000)
    assert got == protect(plain[:2], tk, (1 << 48) - 2, 1)
    await ClockCycles(dut.aclk, 2000)
    assert tb.sink.empty(), "a frame started after PN 2^48-1"
    assert await tb.read(STATUS) == BUSY | PN_EXHAUSTED
    await tb.write(PN_LO, 7)
    await tb.write(PN_HI, 0)
    got = await tb.receive(1, "after a new PN", 3000)
    assert got == protect(plain[2:], tk, 7, 1)
    assert await tb.read(STATUS) == 0


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def cycles_per_frame(dut):
    """One frame alone: its last beat out 5 to 7 (wrapper_latency) + 10 (3 + ceil(L/16)) cycles
    after its last beat in, at every beat boundary and header shape; frames back to back: one per
    10 (3 + ceil(L/16)) cycles (the core's rate) once each is in before the previous ends."""
    tb = Tb(dut)
    await tb.reset()
    tk, pn = "2b7e151628aed2a6abf7158809cf4f3c", 1
    await tb.configure(tk, pn, 0)
    lengths = [0, 1, 7, 8, 9, 15, 16, 17, 33, 100, 1500]
    plain = [plaintexts(frames(1, seed=300 + i, min_len=n, max_len=n))[0] for i, n in enumerate(lengths)]
    expected = protect(plain, tk, pn, 0)
    for i, (m, n) in enumerate(zip(plain, lengths)):
        await tb.source.send(m)
        got = await tb.receive(1, "cycles", 4000)
        assert got[0] == expected[i]
        end_in = tb.in_ends[-1]
        end_out = [c for c, _, last in tb.out_beats if last][-1]
        latency = wrapper_latency(len(m) - n, n)
        assert end_out - end_in == latency + frame_cycles(n), (
            f"body {n} octets (header {len(m) - n}): {end_out - end_in} cycles, "
            f"expected {latency} + {frame_cycles(n)}")
    # Back to back: 1500-octet bodies, each in well before the frame ahead of it ends.
    more = plaintexts(frames(3, seed=310, min_len=1500, max_len=1500))
    expected = protect(more, tk, pn + len(plain), 0)
    for m in more:
        await tb.source.send(m)
    got = await tb.receive(len(more), "back to back", 4000 * len(more))
    assert got == expected
    ends = [c for c, _, last in tb.out_beats if last][-len(more):]
    gaps = [b - a for a, b in zip(ends, ends[1:])]
    # the core's rate; a MIC straddling two output beats ends its frame a cycle later
    steps = [frame_cycles(1500) + split_mic(len(b)) - split_mic(len(a)) for a, b in zip(more, more[1:])]
    assert gaps == steps, f"1500-octet frames {gaps} cycles apart, expected {steps}"
    dut._log.info("cycles: one frame's last beat in to last beat out = %d (+0..2) + 10 (3 + ceil(L/16)); "
                  "1500-octet frames back to back: %s cycles apart", WRAPPER_LATENCY, gaps)
