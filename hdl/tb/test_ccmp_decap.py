"""ccmp_decap (CCMP-128 decryption and MIC check): known answers, random frames from the
Rust golden model (plaintext byte for byte, verdict 1), tampered frames (verdict 0), every
frame's verdict cycle against the documented formula, long stalls on every stream, and
every bit of the MAC and CCMP headers flipped in turn, each verdict the one `wlansec frame
unprotect` gives for the same octets."""
import os
import random

import cocotb
from cocotb.triggers import ClockCycles

from ccmp_bench import N, SUITE, WIDTH, Bench, assert_cycles, decap_inputs, decap_job, split_frames
from golden import ccmp_known_answers, frames, unprotect
from streams import Sink

FIELDS = ("tk", "ccmp_header", "header", "ht_control", "body_len", "mic")
RANDOM_FRAMES = int(os.environ.get("CCMP_FRAMES", "200"))
SHORT_FRAMES = int(os.environ.get("CCMP_SHORT_FRAMES", "1000"))
# Frames whose header octets are tampered with, one frame per flipped bit; with
# CCMP_TAMPER_ALL_BITS=1 every bit of each header octet, else one random bit per octet and
# every bit of the frame control flags and of the Key ID octet (the oracle is one CLI call
# per frame).
TAMPER_FRAMES = int(os.environ.get("CCMP_TAMPER_FRAMES", "4"))
TAMPER_ALL_BITS = os.environ.get("CCMP_TAMPER_ALL_BITS") == "1"
# Idle cycles between a reset and the first frame's descriptor (odd and even: a register that
# toggled while idle would be caught at one of them).
IDLE_AFTER_RESET = (0, 1, 2, 7)


async def check(dut, jobs, stall, seed, label, max_stall=1):
    """Plaintext of every accepted frame, every verdict, and without stalls every verdict's
    cycle by the formula."""
    bench = Bench(dut, FIELDS, stall=stall, seed=seed, max_stall=max_stall)
    verdicts = Sink(dut.clk, dut.res_valid, dut.res_ready, {"ok": dut.res_ok},
                    stall=stall, rng=random.Random(seed + 9), max_stall=max_stall)
    await bench.reset()
    cocotb.start_soon(verdicts.run())
    await bench.feed(jobs)
    budget = sum(40 + 30 * (len(j["body"]) // 16 + 4) for j in jobs) * (4 * max_stall if stall else 1)
    await bench.wait_for(verdicts, len(jobs), label, budget)
    got, partial = split_frames(bench.out.beats)
    assert not partial, f"{label}: plaintext beats after the last frame"
    with_body = [j for j in jobs if j["body"]]
    assert len(got) == len(with_body), f"{label}: {len(got)} plaintexts for {len(with_body)}"
    for i, (job, out) in enumerate(zip(with_body, got)):
        if job["ok"]:
            assert out == job["expected"], f"{label} frame {i}: got {out.hex()}"
    wrong = [(i, j.get("case"), v["ok"], j["ok"]) for i, (v, j) in enumerate(zip(verdicts.beats, jobs))
             if v["ok"] != j["ok"]]
    assert not wrong, f"{label}: (frame, case, verdict, Rust engine's) {wrong[:8]}"
    if not stall:
        assert_cycles(label, [len(j["body"]) for j in jobs], verdicts.cycles, decap=True)


@cocotb.test()
async def first_frame_after_reset_and_idle(dut):
    """The first frame after each of several resets, its descriptor 0, 1, 2 or 7 cycles after
    the reset ends: every plaintext beat, the first one too, and the verdict. Verilator 5.006
    gets this beat wrong on the gate-level netlist without `splitnets` (false combinational
    loops through multi-bit wires, hdl/README.md) while the published vectors pass; the same
    netlist passes here under Icarus, registers starting at x (`make test` runs this test on
    the split netlist under Icarus, and on the RTL under both simulators)."""
    jobs = [decap_job(r) for r in frames(len(IDLE_AFTER_RESET), suite=SUITE, seed=79,
                                         min_len=2 * WIDTH + 1, max_len=3 * WIDTH)]
    bench = Bench(dut, FIELDS, seed=7)
    verdicts = Sink(dut.clk, dut.res_valid, dut.res_ready, {"ok": dut.res_ok})
    await bench.reset()
    cocotb.start_soon(verdicts.run())
    for n, (idle, job) in enumerate(zip(IDLE_AFTER_RESET, jobs)):
        dut.reset.value = 1
        await ClockCycles(dut.clk, 2)
        dut.reset.value = 0
        await ClockCycles(dut.clk, idle)
        await bench.feed([job])
        await bench.wait_for(verdicts, n + 1, f"the verdict {idle} idle cycles after reset",
                             40 + 30 * (len(job["body"]) // 16 + 4))
    got, partial = split_frames(bench.out.beats)
    assert not partial and len(got) == len(jobs), f"{len(got)} plaintexts for {len(jobs)} frames"
    for idle, job, out in zip(IDLE_AFTER_RESET, jobs, got):
        assert out[:WIDTH] == job["expected"][:WIDTH], \
            f"{idle} idle cycles after reset: first plaintext beat {out[:WIDTH].hex()}"
        assert out == job["expected"], f"{idle} idle cycles after reset: plaintext {out.hex()}"
    assert [v["ok"] for v in verdicts.beats] == [1] * len(jobs)


@cocotb.test(skip=N != 1)
async def known_answer_mpdus(dut):
    """Published 802.11 vectors (CCMP-128 only: Enhanced CCMP has none)."""
    jobs = [decap_job(rec, ht_control=rec["ht_control"]) for rec in ccmp_known_answers()]
    await check(dut, jobs, stall=0.0, seed=1, label="tests/vectors/ccmp128.json")


@cocotb.test()
async def random_frames_back_to_back(dut):
    tamper = random.Random(71)
    jobs = [decap_job(r, tamper=tamper if i % 5 == 4 else None)
            for i, r in enumerate(frames(RANDOM_FRAMES, suite=SUITE, seed=72))]
    await check(dut, jobs, stall=0.0, seed=2, label="random frames 0..2304")


@cocotb.test()
async def short_frames_with_stalls(dut):
    tamper = random.Random(73)
    jobs = [decap_job(r, tamper=tamper if i % 4 == 3 else None)
            for i, r in enumerate(frames(SHORT_FRAMES, suite=SUITE, seed=74, max_len=64))]
    await check(dut, jobs, stall=0.3, seed=3, label="short frames, stalls")


@cocotb.test()
async def long_frames_with_long_stalls(dut):
    """Bodies 0..2304 with every stream (verdicts too) held off now and then for up to 300 cycles."""
    tamper = random.Random(75)
    jobs = [decap_job(r, tamper=tamper if i % 3 == 2 else None)
            for i, r in enumerate(frames(max(3, RANDOM_FRAMES // 10), suite=SUITE, seed=76))]
    await check(dut, jobs, stall=0.01, seed=4, label="long frames, long stalls", max_stall=300)


@cocotb.test()
async def cycles_by_body_length(dut):
    """The formula at every beat boundary: empty, one octet, a beat, a beat and one, ..."""
    lengths = [0, 1, WIDTH - 1, WIDTH, WIDTH + 1, 2 * WIDTH, 2 * WIDTH + 1, 1500, 2304, 0, 0, 5, 100]
    jobs = [decap_job(frames(1, suite=SUITE, seed=300 + i, min_len=n, max_len=n)[0]) for i, n in enumerate(lengths)]
    await check(dut, jobs, stall=0.0, seed=5, label="cycles by body length")


def tampered(rec, ht_control, rng):
    """Bits of the MAC header and the CCMP header flipped in turn (TAMPER_ALL_BITS), one bit
    of the body and two of the MIC, and the frame as it is; each job's verdict and plaintext
    are the Rust engine's for the same octets (rules 2016 with ht_control = 1, 802.11i-2004
    with 0: HT Control present or absent)."""
    hl, mpdu = rec["header_len"], bytes.fromhex(rec["protected_mpdu"])
    rules = "2016" if ht_control else "2004"
    every = lambda at: TAMPER_ALL_BITS or at in (1, hl + 3)  # FC flags; Key ID and Ext IV
    flips = [(at, bit) for at in range(hl + 8) for bit in (range(8) if every(at) else [rng.randrange(8)])]
    flips += [(len(mpdu) - 1 - rng.randrange(8), rng.randrange(8)) for _ in range(2)]  # MIC
    if len(mpdu) > hl + 16:
        flips.append((hl + 8, 7))  # the body's first octet
    jobs = []
    for at, bit in [(None, None)] + flips:
        octets = bytearray(mpdu)
        if at is not None:
            octets[at] ^= 1 << bit
        verdict = unprotect(bytes(octets), rec["tk"], SUITE, rules)
        job = decap_inputs(bytes(octets), hl, rec["tk"], ht_control)
        job.update(ok=int(verdict is not None), expected=verdict[hl:] if verdict else b"",
                   case=f"octet {at} bit {bit}, rules {rules}")
        jobs.append(job)
    return jobs


@cocotb.test()
async def tampered_headers_as_the_rust_engine_decides(dut):
    """MAC header (frame control with its Protected and Order bits, A1-A4, sequence
    control, QoS control with its TID, HT Control), CCMP header (PN, Ext IV, Key ID,
    reserved), MIC and body: every flip accepted or rejected as `wlansec frame unprotect`
    decides, on frames of random header shapes with short bodies, HT Control rules both ways."""
    recs = frames(TAMPER_FRAMES, suite=SUITE, seed=77, max_len=40)
    rng = random.Random(78)
    jobs = [j for i, r in enumerate(recs) for j in tampered(r, int(i % 3 != 2), rng)]
    accepted = sum(j["ok"] for j in jobs)
    assert 0 < accepted < len(jobs), "the oracle must both accept and reject"
    dut._log.info("%d tampered frames, %d accepted by the Rust engine", len(jobs), accepted)
    await check(dut, jobs, stall=0.0, seed=6, label="tampered headers")
