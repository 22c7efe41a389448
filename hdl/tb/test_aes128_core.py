"""aes128_core: FIPS-197 known answers, random blocks against pycryptodome (encrypt and
decrypt, the decryption key taken from the core's round-key output), stalls, and the
10-cycles-per-block issue rate."""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from Crypto.Cipher import AES

from aes_reference import last_round_key
from golden import int_be, known_answers
from streams import Sink, Source


async def start(dut, in_stall=0.0, out_stall=0.0, seed=0):
    cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
    dut.reset.value = 1
    dut.in_valid.value = 0
    dut.out_ready.value = 0
    dut.in_chain.value = 0  # CBC chaining is cbc_mac's, tested there
    await ClockCycles(dut.clk, 2)
    dut.reset.value = 0
    rng = random.Random(seed)
    src = Source(dut.clk, dut.in_valid, dut.in_ready,
                 {"decrypt": dut.in_decrypt, "key": dut.in_key, "block": dut.in_block},
                 stall=in_stall, rng=rng)
    sink = Sink(dut.clk, dut.out_valid, dut.out_ready,
                {"block": dut.out_block, "round_key": dut.out_round_key},
                stall=out_stall, rng=random.Random(seed + 1))
    cocotb.start_soon(sink.run())
    return src, sink


async def run(src, sink, beats, dut):
    before = len(sink.beats)
    await src.send(beats)
    while len(sink.beats) < before + len(beats):
        await RisingEdge(dut.clk)
    return sink.beats[before:]


@cocotb.test()
async def fips197_known_answers(dut):
    src, sink = await start(dut)
    vectors = [v for v in known_answers("aes_block.json") if len(v["key"]) == 32]
    assert vectors, "no AES-128 vector in tests/vectors/aes_block.json"
    for v in vectors:
        key, pt, ct = (bytes.fromhex(v[k]) for k in ("key", "plaintext", "ciphertext"))
        enc = (await run(src, sink, [{"decrypt": 0, "key": int_be(key), "block": int_be(pt)}], dut))[-1]
        assert enc["block"] == int_be(ct), v["id"]
        assert enc["round_key"] == last_round_key(key)
        dec = (await run(src, sink, [{"decrypt": 1, "key": enc["round_key"], "block": int_be(ct)}], dut))[-1]
        assert dec["block"] == int_be(pt), v["id"]
        assert dec["round_key"] == int_be(key)


@cocotb.test()
async def random_blocks_against_pycryptodome(dut):
    src, sink = await start(dut, in_stall=0.3, out_stall=0.3, seed=7)
    rng = random.Random(11)
    beats, expected = [], []
    for _ in range(300):
        key, block = rng.randbytes(16), rng.randbytes(16)
        aes = AES.new(key, AES.MODE_ECB)
        if rng.random() < 0.5:
            beats.append({"decrypt": 0, "key": int_be(key), "block": int_be(block)})
            expected.append(int_be(aes.encrypt(block)))
        else:
            beats.append({"decrypt": 1, "key": last_round_key(key), "block": int_be(block)})
            expected.append(int_be(aes.decrypt(block)))
    got = await run(src, sink, beats, dut)
    assert [b["block"] for b in got] == expected


@cocotb.test()
async def ten_cycles_per_block(dut):
    src, sink = await start(dut)
    beats = [{"decrypt": 0, "key": i, "block": i} for i in range(20)]
    cocotb.start_soon(src.send(beats))
    while not sink.beats:
        await RisingEdge(dut.clk)
    first = cocotb.utils.get_sim_time("ns")
    while len(sink.beats) < len(beats):
        await RisingEdge(dut.clk)
    cycles = (cocotb.utils.get_sim_time("ns") - first) / 10
    assert cycles == 10 * (len(beats) - 1), cycles
