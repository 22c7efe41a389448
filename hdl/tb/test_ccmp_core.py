"""ccmp_core (CCMP-128 encapsulation): 802.11 known answers and random frames from the
Rust golden model, compared byte for byte, back to back, with and without stalls."""
import json
import os
from pathlib import Path

import cocotb
from cocotb.triggers import RisingEdge

from ccmp_bench import N, SUITE, WIDTH, Bench, assert_cycles, encap_job, frame_cycles, split_frames
from clocking import CLOCK_NS
from golden import ccmp_known_answers, frames
from provenance import design_rtl

FIELDS = ("tk", "pn", "keyid", "header", "ht_control", "body_len")
RANDOM_FRAMES = int(os.environ.get("CCMP_FRAMES", "200"))
SHORT_FRAMES = int(os.environ.get("CCMP_SHORT_FRAMES", "1000"))
# The name cycle counts are recorded under (the Makefile names its *_bram runs).
DESIGN = os.environ.get("CCMP_DESIGN", "ccmp_core" if N == 1 else f"ccmp_core_n{N}")


async def check(dut, jobs, stall, seed, label, max_stall=1):
    """Every frame byte for byte; without stalls, every frame's end cycle by the formula."""
    bench = Bench(dut, FIELDS, stall=stall, seed=seed, max_stall=max_stall)
    await bench.reset()
    await bench.feed(jobs)
    budget = sum(40 + 30 * (len(j["body"]) // 16 + 4) for j in jobs) * (4 * max_stall if stall else 1)
    await bench.wait_for(bench.out, len(jobs), label, budget)
    if not stall:
        ends = [c for b, c in zip(bench.out.beats, bench.out.cycles) if b["last"]]
        assert_cycles(label, [len(j["body"]) for j in jobs], ends)
    got, partial = split_frames(bench.out.beats)
    assert not partial, f"{label}: beats after the last frame"
    assert len(got) == len(jobs), f"{label}: {len(got)} frames out of {len(jobs)}"
    for i, (job, out) in enumerate(zip(jobs, got)):
        assert out == job["expected"], (
            f"{label} frame {i} (body {len(job['body'])} octets): "
            f"got {out.hex()} expected {job['expected'].hex()}")


@cocotb.test(skip=N != 1)
async def known_answer_mpdus(dut):
    """Published 802.11 vectors (CCMP-128 only: Enhanced CCMP has none)."""
    jobs = [encap_job(rec, ht_control=rec["ht_control"]) for rec in ccmp_known_answers()]
    await check(dut, jobs, stall=0.0, seed=1, label="tests/vectors/ccmp128.json")


@cocotb.test()
async def random_frames_back_to_back(dut):
    jobs = [encap_job(r) for r in frames(RANDOM_FRAMES, suite=SUITE, seed=61)]
    await check(dut, jobs, stall=0.0, seed=2, label="random frames 0..2304")


@cocotb.test()
async def short_frames_with_stalls(dut):
    jobs = [encap_job(r) for r in frames(SHORT_FRAMES, suite=SUITE, seed=62, max_len=64)]
    await check(dut, jobs, stall=0.3, seed=3, label="short frames, stalls")


@cocotb.test()
async def long_frames_with_long_stalls(dut):
    """Bodies 0..2304 with every stream held off now and then for up to 300 cycles."""
    jobs = [encap_job(r) for r in frames(max(2, RANDOM_FRAMES // 10), suite=SUITE, seed=64)]
    await check(dut, jobs, stall=0.01, seed=4, label="long frames, long stalls", max_stall=300)


@cocotb.test()
async def cycles_by_body_length(dut):
    """The formula at every beat boundary: empty, one octet, a beat, a beat and one, ..."""
    lengths = [0, 1, WIDTH - 1, WIDTH, WIDTH + 1, 2 * WIDTH, 2 * WIDTH + 1, 1500, 2304, 0, 0, 5, 100]
    jobs = [encap_job(frames(1, suite=SUITE, seed=200 + i, min_len=n, max_len=n)[0]) for i, n in enumerate(lengths)]
    await check(dut, jobs, stall=0.0, seed=5, label="cycles by body length")


@cocotb.test()
async def cycles_per_1500_octet_frame(dut):
    """Cycle count of one 1500-octet body, and the back-to-back rate, for hdl/reports."""
    jobs = [encap_job(r) for r in frames(4, suite=SUITE, seed=63, min_len=1500, max_len=1500, data_only=True)]
    bench = Bench(dut, FIELDS)
    await bench.reset()
    start = cocotb.utils.get_sim_time("ns")
    cocotb.start_soon(bench.feed(jobs))
    ends = []
    while len(ends) < len(jobs):
        await RisingEdge(dut.clk)
        ends = [i for i, b in enumerate(bench.out.beats) if b["last"]]
        if len(ends) == 1 and "first" not in locals():
            first = (cocotb.utils.get_sim_time("ns") - start) / CLOCK_NS
    total = (cocotb.utils.get_sim_time("ns") - start) / CLOCK_NS
    got, _ = split_frames(bench.out.beats)
    assert got == [j["expected"] for j in jobs]
    assert (total - first) / (len(jobs) - 1) == frame_cycles(1500)
    record(dut, {"design": DESIGN, "latency_cycles_1500": first,
                 "cycles_per_frame_1500": (total - first) / (len(jobs) - 1)})


def record(dut, entry):
    """Measured cycle counts go to build/cycles/<design>.json for the synthesis report."""
    out = Path(__file__).resolve().parents[1] / "build" / "cycles"
    out.mkdir(parents=True, exist_ok=True)
    sim = cocotb.SIM_NAME.lower().split()[0]
    dut._log.info("cycles: %s", entry)
    entry.update(design_rtl(dut._name))  # the report uses a count only with the RTL it was measured on
    (out / f"{entry['design']}-{sim}.json").write_text(json.dumps(entry, indent=1))
