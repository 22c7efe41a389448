"""aes128_column_core (COLUMNS from AES_COLUMNS): FIPS-197's published examples round by
round (tests/vectors/fips197_rounds.json: out_block at every round's end against the
printed start of the next round, the ciphertext last), random blocks and CBC chains
(in_chain) against pycryptodome with in_valid held high while the core is busy (ignored)
and random gaps, and the documented 40 / COLUMNS cycles from a load to out_valid."""
import os
import random

import cocotb
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge
from Crypto.Cipher import AES

from clocking import start_clock_and_reset
from golden import int_be, known_answers

FIPS197 = known_answers("fips197_rounds.json")
COLUMNS = int(os.environ.get("AES_COLUMNS", "2"))
PHASES = 4 // COLUMNS
LATENCY = 40 // COLUMNS  # clock edges from the load's to the one that raises out_valid


async def start(dut):
    await start_clock_and_reset(dut, in_valid=0, in_chain=0)
    await RisingEdge(dut.clk)


async def load(dut, key, block, chain=0):
    """Present a block until the core takes it (at the edge where it is idle)."""
    dut.in_key.value, dut.in_block.value, dut.in_chain.value = key, block, chain
    dut.in_valid.value = 1
    while True:
        await ReadOnly()
        taken = int(dut.idle.value) == 1
        await RisingEdge(dut.clk)
        if taken:
            return


async def result(dut, busy_noise=None):
    """out_block once out_valid, and the cycles since the load; busy_noise: another block
    offered throughout (in_valid high), which the busy core must ignore (withdrawn half a
    cycle after out_valid rises, before the idle core would take it)."""
    if busy_noise is None:
        dut.in_valid.value = 0
    else:
        dut.in_key.value, dut.in_block.value, dut.in_chain.value = busy_noise
    cycles = 0
    while True:
        await ReadOnly()
        if int(dut.out_valid.value):
            assert int(dut.idle.value) == 1
            out = int(dut.out_block.value)
            await FallingEdge(dut.clk)
            dut.in_valid.value = 0
            return out, cycles
        assert int(dut.idle.value) == 0, "idle before the result"
        await RisingEdge(dut.clk)
        cycles += 1


@cocotb.test()
async def fips197_round_by_round(dut):
    """Every round's output state, PHASES cycles a round, against the published listing;
    out_valid with the tenth's (LATENCY cycles after the load)."""
    await start(dut)
    for v in FIPS197:
        await load(dut, int(v["k_sch_0"], 16), int(v["plaintext"], 16))
        dut.in_valid.value = 0
        states = [r["start"] for r in v["rounds"]][1:] + [v["ciphertext"]]
        for r, want in enumerate(states, start=1):
            await ClockCycles(dut.clk, PHASES if r == 1 else PHASES - 1)
            await ReadOnly()
            assert int(dut.out_block.value) == int(want, 16), f"{v['id']} round {r}"
            assert int(dut.out_valid.value) == (r == 10), f"{v['id']} round {r}: out_valid"
            await RisingEdge(dut.clk)


@cocotb.test()
async def random_blocks_and_cbc_chains_against_pycryptodome(dut):
    """200 chains of 1-4 blocks under random keys (a chain of one is a single block): each
    block's result against AES-CBC with a zero IV, LATENCY cycles each."""
    await start(dut)
    rng = random.Random(5)
    for chain in range(200):
        key = rng.randbytes(16)
        blocks = [rng.randbytes(16) for _ in range(rng.randint(1, 4))]
        want = AES.new(key, AES.MODE_CBC, iv=bytes(16)).encrypt(b"".join(blocks))
        for i, block in enumerate(blocks):
            await load(dut, int_be(key), int_be(block), chain=int(i > 0))
            noise = (rng.getrandbits(128), rng.getrandbits(128), rng.getrandbits(1)) if rng.random() < 0.5 else None
            got, cycles = await result(dut, noise)
            assert got == int_be(want[16 * i:16 * i + 16]), f"chain {chain} block {i}"
            assert cycles == LATENCY, (chain, i, cycles)
            if rng.random() < 0.3:
                await ClockCycles(dut.clk, rng.randint(1, 5))
