"""ccmp_multi (multi-frame CCMP-128 over shared pipelined AES units): every lane gets its
own random frames from the Rust golden model, all lanes at once, compared byte for byte;
and the aggregate rate with every lane carrying 1500-octet bodies (for hdl/reports)."""
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from ccmp_bench import CLOCK_NS, encap_job, split_frames
from golden import body_beats, frames
from test_ccmp_core import record

R = int(os.environ.get("AES_R", "2"))
PIPELINED = int(os.environ.get("AES_PIPELINED", "1"))
F = PIPELINED * (10 // R) + 1  # lanes: the pipelines' latency (input register + stages)
FRAMES = int(os.environ.get("CCMP_FRAMES", "20"))
FIELDS = {"tk": 128, "pn": 48, "keyid": 2, "header": 256, "ht_control": 1, "body_len": 16}


def pack(values, width):
    """Lane l's value at bits [width*l +: width] of the bus."""
    return sum(v << (width * l) for l, v in enumerate(values))


def known(handle):
    """A bus as an integer, X/Z bits as 0: idle lanes' outputs come from pipeline stages
    that are not reset (Icarus shows them as X; only valid lanes' bits are used)."""
    return int(handle.value.binstr.lower().replace("x", "0").replace("z", "0"), 2)


def unpack(bus, width, lane):
    return (bus >> (width * lane)) & ((1 << width) - 1)


async def run_lanes(dut, lane_jobs, stall, seed, budget):
    """One loop drives all lanes (packed buses can only be written whole)."""
    rng = random.Random(seed)
    cocotb.start_soon(Clock(dut.clk, CLOCK_NS, units="ns").start())
    for name in ("in_valid", "body_valid", "out_ready"):
        getattr(dut, name).value = 0
    dut.reset.value = 1
    await ClockCycles(dut.clk, 2)
    dut.reset.value = 0
    descs = [[j["descriptor"] for j in jobs] for jobs in lane_jobs]
    bodies = [[b["data"] for j in jobs for b in body_beats(j["body"], 16, rng)] for jobs in lane_jobs]
    next_desc, next_body = [0] * F, [0] * F
    desc_up, body_up = [False] * F, [False] * F
    outs = [[] for _ in range(F)]
    done_frames = [0] * F
    for cycle in range(budget):
        await RisingEdge(dut.clk)
        for l in range(F):
            if not desc_up[l] and next_desc[l] < len(descs[l]) and rng.random() >= stall:
                desc_up[l] = True
            if not body_up[l] and next_body[l] < len(bodies[l]) and rng.random() >= stall:
                body_up[l] = True
        cur = [descs[l][next_desc[l]] if desc_up[l] else descs[l][0] for l in range(F)]
        for name, width in FIELDS.items():
            getattr(dut, "in_" + name).value = pack([c[name] for c in cur], width)
        dut.in_valid.value = pack(desc_up, 1)
        dut.body_data.value = pack([bodies[l][next_body[l]] if body_up[l] else 0
                                    for l in range(F)], 128)
        dut.body_valid.value = pack(body_up, 1)
        ready = [rng.random() >= stall for _ in range(F)]
        dut.out_ready.value = pack(ready, 1)
        await ReadOnly()
        in_ready, body_ready = int(dut.in_ready.value), int(dut.body_ready.value)
        out_valid = int(dut.out_valid.value)
        data, nbytes, last = (known(dut.out_data), known(dut.out_nbytes), known(dut.out_last))
        for l in range(F):
            if desc_up[l] and (in_ready >> l) & 1:
                desc_up[l], next_desc[l] = False, next_desc[l] + 1
            if body_up[l] and (body_ready >> l) & 1:
                body_up[l], next_body[l] = False, next_body[l] + 1
            if ready[l] and (out_valid >> l) & 1:
                beat = {"data": unpack(data, 128, l), "nbytes": unpack(nbytes, 5, l),
                        "last": (last >> l) & 1}
                outs[l].append(beat)
                done_frames[l] += beat["last"]
        if all(done_frames[l] == len(lane_jobs[l]) for l in range(F)):
            return outs, cycle + 1
    raise AssertionError(f"timed out: frames done per lane {done_frames}")


async def check(dut, lane_jobs, stall, seed, label):
    budget = 20 * sum(40 + 12 * (len(j["body"]) // 16 + 4) for jobs in lane_jobs for j in jobs)
    outs, cycles = await run_lanes(dut, lane_jobs, stall, seed, budget)
    for l, (jobs, beats) in enumerate(zip(lane_jobs, outs)):
        got, partial = split_frames(beats)
        assert not partial and len(got) == len(jobs), f"{label} lane {l}"
        for i, (job, out) in enumerate(zip(jobs, got)):
            assert out == job["expected"], f"{label} lane {l} frame {i}: got {out.hex()}"
    return cycles


@cocotb.test()
async def random_frames_on_every_lane(dut):
    recs = frames(FRAMES * F, seed=81)
    lane_jobs = [[encap_job(r) for r in recs[l::F]] for l in range(F)]
    await check(dut, lane_jobs, stall=0.0, seed=1, label="random frames")


@cocotb.test()
async def short_frames_with_stalls(dut):
    recs = frames(4 * FRAMES * F, seed=82, max_len=64)
    lane_jobs = [[encap_job(r) for r in recs[l::F]] for l in range(F)]
    await check(dut, lane_jobs, stall=0.3, seed=2, label="short frames, stalls")


@cocotb.test()
async def cycles_per_1500_octet_frame(dut):
    recs = frames(2 * F, seed=83, min_len=1500, max_len=1500, data_only=True)
    lane_jobs = [[encap_job(r) for r in recs[l::F]] for l in range(F)]
    cycles = await check(dut, lane_jobs, stall=0.0, seed=3, label="1500-octet frames")
    record(dut, {"design": f"ccmp_multi_r{R}" + ("_split" if PIPELINED == 2 else ""), "lanes": F, "frames": 2 * F,
                 "cycles_total": cycles, "cycles_per_frame_1500": cycles / (2 * F)})
