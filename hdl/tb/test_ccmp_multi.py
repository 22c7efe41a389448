"""ccmp_multi (multi-frame CCMP-128 over one shared pipelined AES-128): random frames from
the Rust golden model through the shared descriptor, body and output streams, each frame
compared byte for byte on the lane the core gave it; and the aggregate rate with every
lane carrying 1500-octet bodies (for hdl/reports)."""
import os
import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from ccmp_bench import encap_job, split_frames
from clocking import start_clock_and_reset
from golden import body_beats, frames
from test_ccmp_core import record

R = int(os.environ.get("AES_R", "2"))
PIPELINED = int(os.environ.get("AES_PIPELINED", "1"))
# Lanes: the loop's latency (pipeline input register + stages + result register).
F = PIPELINED * (10 // R) + 2
FRAMES = int(os.environ.get("CCMP_FRAMES", "20"))
FIELDS = ("tk", "pn", "keyid", "header", "ht_control", "body_len")


async def run(dut, jobs, stall, seed, budget, held=None):
    """Descriptors in order, each frame's body beats to the lane the core took it into
    (the lane whose buffer has waited longest first), random stalls on every stream; with
    `held` (cycle -> bool), out_ready is low in the cycles it names and body beats come only
    in those. Returns per lane the frames it was given, its output beats and the cycle each frame
    ended on, and the cycles used."""
    rng = random.Random(seed)
    await start_clock_and_reset(dut, in_valid=0, body_valid=0, out_ready=0)
    lane_jobs = [[] for _ in range(F)]
    lane_beats = [[] for _ in range(F)]  # body beats still to send
    outs = [[] for _ in range(F)]
    ends = [[] for _ in range(F)]
    next_job, done, ready_since, sent_to = 0, 0, {}, None
    for cycle in range(budget):
        await RisingEdge(dut.clk)
        offer = next_job < len(jobs) and rng.random() >= stall
        if offer:
            for name in FIELDS:
                getattr(dut, "in_" + name).value = jobs[next_job]["descriptor"][name]
        dut.in_valid.value = int(offer)
        waiting = [l for l in sorted(ready_since, key=ready_since.get)
                   if lane_beats[l] and l != sent_to]
        beats_now = held is None or held(cycle)
        lane = waiting[0] if waiting and beats_now and rng.random() >= stall else None
        dut.body_valid.value = int(lane is not None)
        if lane is not None:
            dut.body_lane.value = lane
            dut.body_data.value = lane_beats[lane][0]["data"]
        take = rng.random() >= stall and (held is None or not held(cycle))
        dut.out_ready.value = int(take)
        await ReadOnly()
        if offer and dut.in_ready.value:
            got = int(dut.in_lane.value)
            lane_jobs[got].append(jobs[next_job])
            lane_beats[got] += body_beats(jobs[next_job]["body"], 16, rng)
            next_job += 1
        body_ready = int(dut.body_ready.value)
        sent_to = lane if lane is not None and (body_ready >> lane) & 1 else None
        if sent_to is not None:
            lane_beats[sent_to].pop(0)
        for l in range(F):
            if (body_ready >> l) & 1 and l != sent_to:
                ready_since.setdefault(l, cycle)
            else:
                ready_since.pop(l, None)
        if take and dut.out_valid.value:
            beat = {"data": int(dut.out_data.value), "nbytes": int(dut.out_nbytes.value),
                    "last": int(dut.out_last.value)}
            outs[int(dut.out_lane.value)].append(beat)
            if beat["last"]:
                ends[int(dut.out_lane.value)].append(cycle)
            done += beat["last"]
        if done == len(jobs):
            return lane_jobs, outs, ends, cycle + 1
    raise AssertionError(f"timed out: {done} of {len(jobs)} frames out")


def lane_frame_cycles(body_len):
    """The documented cycles between two frames' ends on one lane, back to back (hdl/README.md):
    one turn of F cycles per CBC-MAC block, B0, two AAD blocks and one per 16 body octets."""
    return F * (3 + -(-body_len // 16))


async def check(dut, jobs, stall, seed, label, held=None):
    budget = 40 * sum(40 + 12 * (len(j["body"]) // 16 + 4) for j in jobs) // F + 10_000
    lane_jobs, outs, ends, cycles = await run(dut, jobs, stall, seed, budget, held)
    if not stall and held is None:  # every lane's second and later frames by the formula
        wrong = [(l, i, b - a, lane_frame_cycles(len(lane_jobs[l][i]["body"])))
                 for l in range(F) for i, (a, b) in enumerate(zip(ends[l], ends[l][1:]), 1)
                 if b - a != lane_frame_cycles(len(lane_jobs[l][i]["body"]))]
        assert not wrong, f"{label}: (lane, frame, cycles, formula) {wrong[:5]}"
    for l in range(F):
        got, partial = split_frames(outs[l])
        assert not partial and len(got) == len(lane_jobs[l]), f"{label} lane {l}"
        for i, (job, out) in enumerate(zip(lane_jobs[l], got)):
            assert out == job["expected"], f"{label} lane {l} frame {i}: got {out.hex()}"
    assert sum(len(j) for j in lane_jobs) == len(jobs)
    return cycles


@cocotb.test()
async def random_frames(dut):
    jobs = [encap_job(r) for r in frames(FRAMES * F, seed=81)]
    await check(dut, jobs, stall=0.0, seed=1, label="random frames")


@cocotb.test()
async def short_frames_with_stalls(dut):
    jobs = [encap_job(r) for r in frames(4 * FRAMES * F, seed=82, max_len=64)]
    await check(dut, jobs, stall=0.3, seed=2, label="short frames, stalls")


@cocotb.test()
async def late_beats_while_output_held(dut):
    """Body beats only while out_ready is held low (1..F+2 cycles at a time, then 1..2F
    cycles taken): the lanes skip turns for want of a beat, and their beats arrive while
    the turns stand still, for the held lane, the lane being read and the others."""
    rng = random.Random(84)
    pattern = []  # repeated over the run
    while len(pattern) < 50 * F:
        pattern += [True] * rng.randint(1, F + 2) + [False] * rng.randint(1, 2 * F)
    jobs = [encap_job(r) for r in frames(2 * FRAMES * F, seed=84, max_len=96)]
    await check(dut, jobs, stall=0.0, seed=4, label="late beats, output held",
                held=lambda cycle: pattern[cycle % len(pattern)])


@cocotb.test()
async def cycles_per_1500_octet_frame(dut):
    jobs = [encap_job(r) for r in frames(2 * F, seed=83, min_len=1500, max_len=1500,
                                         data_only=True)]
    cycles = await check(dut, jobs, stall=0.0, seed=3, label="1500-octet frames")
    record(dut, {"design": f"ccmp_multi_r{R}" + ("_split" if PIPELINED == 2 else ""),
                 "lanes": F, "frames": 2 * F, "cycles_total": cycles,
                 "cycles_per_frame_1500": cycles / (2 * F)})
