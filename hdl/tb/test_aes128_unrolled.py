"""aes128_unrolled (R rounds per cycle; iterative or pipelined; BLOCKS blocks side by side
under one key): FIPS-197 known answer and random blocks against pycryptodome, with stalls;
user bits stay with their block; out_round_key is round key 10 (FIPS-197's printed key
schedules, which the pipelined core expands a stage ahead of its rounds); the issue rate
(10/R cycles per block iterative, one per cycle pipelined) and the pipelined latency
(PIPELINED * 10/R + 1 cycles, which ccmp_multi schedules on)."""
import os
import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge
from Crypto.Cipher import AES

from clocking import start_clock_and_reset
from golden import int_be, known_answers
from streams import Sink, Source

R = int(os.environ.get("AES_R", "2"))
PIPELINED = int(os.environ.get("AES_PIPELINED", "0"))
BLOCKS = int(os.environ.get("AES_BLOCKS", "1"))


def side_by_side(blocks):
    """Blocks as the core's bus: block 0 in the high bits."""
    return sum(int_be(b) << (128 * (BLOCKS - 1 - i)) for i, b in enumerate(blocks))


async def start(dut, stall=0.0, seed=0):
    await start_clock_and_reset(dut, in_valid=0, out_ready=0)
    src = Source(dut.clk, dut.in_valid, dut.in_ready,
                 {"key": dut.in_key, "block": dut.in_block, "user": dut.in_user},
                 stall=stall, rng=random.Random(seed))
    sink = Sink(dut.clk, dut.out_valid, dut.out_ready,
                {"block": dut.out_block, "user": dut.out_user, "round_key": dut.out_round_key},
                stall=stall, rng=random.Random(seed + 1))
    cocotb.start_soon(sink.run())
    return src, sink


async def collect(dut, src, sink, beats):
    await src.send(beats)
    for _ in range(100 * len(beats) + 100):
        if len(sink.beats) >= len(beats):
            return sink.beats
        await RisingEdge(dut.clk)
    raise AssertionError(f"{len(sink.beats)} of {len(beats)} blocks came out")


@cocotb.test()
async def fips197_and_random_blocks(dut):
    src, sink = await start(dut, stall=0.3, seed=5)
    rng = random.Random(9)
    # (key, plaintexts): a known answer's plaintext first, random ones beside it.
    cases = [(bytes.fromhex(v["key"]), [bytes.fromhex(v["plaintext"])])
             for v in known_answers("aes_block.json") if len(v["key"]) == 32]
    cases += [(rng.randbytes(16), [rng.randbytes(16)]) for _ in range(200)]
    # FIPS-197's examples with their key schedules printed, among the random keys.
    round_key_10 = {}
    for j, v in enumerate(known_answers("fips197_rounds.json")):
        at = (j + 1) * len(cases) // 3  # after the previous one: its index stays
        round_key_10[at] = int(v["rounds"][-1]["k_sch"], 16)
        cases.insert(at, (bytes.fromhex(v["key"]), [bytes.fromhex(v["plaintext"])]))
    cases = [(k, ps + [rng.randbytes(16) for _ in range(BLOCKS - 1)]) for k, ps in cases]
    beats = [{"key": int_be(k), "block": side_by_side(ps), "user": i & 1}
             for i, (k, ps) in enumerate(cases)]
    got = await collect(dut, src, sink, beats)
    assert [b["block"] for b in got] == [
        side_by_side([AES.new(k, AES.MODE_ECB).encrypt(p) for p in ps]) for k, ps in cases]
    assert [b["user"] for b in got] == [i & 1 for i in range(len(cases))]
    assert {i: got[i]["round_key"] for i in round_key_10} == round_key_10
    fips = known_answers("aes_block.json")[0]
    assert got[0]["block"] >> (128 * (BLOCKS - 1)) == int_be(bytes.fromhex(fips["ciphertext"]))


@cocotb.test()
async def issue_rate(dut):
    src, sink = await start(dut)
    beats = [{"key": i, "block": i, "user": 0} for i in range(30)]
    cocotb.start_soon(src.send(beats))
    while not sink.beats:
        await RisingEdge(dut.clk)
    first = cocotb.utils.get_sim_time("ns")
    while len(sink.beats) < len(beats):
        await RisingEdge(dut.clk)
    per_block = (cocotb.utils.get_sim_time("ns") - first) / 10 / (len(beats) - 1)
    assert per_block == (1 if PIPELINED else 10 // R), per_block


@cocotb.test()
async def latency(dut):
    """Cycles from the edge that takes a block to the first edge its result is valid on."""
    src, sink = await start(dut)
    cocotb.start_soon(src.send([{"key": 1, "block": 2, "user": 0}]))
    taken = None
    for cycle in range(40):
        await RisingEdge(dut.clk)
        await ReadOnly()
        if taken is None and dut.in_valid.value == 1 and dut.in_ready.value == 1:
            taken = cycle
        if dut.out_valid.value == 1:
            break
    assert taken is not None and dut.out_valid.value == 1, "no block came out"
    assert cycle - taken == (PIPELINED * (10 // R) + 1 if PIPELINED else 10 // R), (taken, cycle)
