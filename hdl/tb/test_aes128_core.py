"""aes128_core: FIPS-197's published examples (tests/vectors/fips197_rounds.json: Appendix B
and C.1) block by block and round by round (the next state and round key on out_block and
out_round_key in every cycle against the printed round starts and key schedule, C.1's
inverse listing decrypting); random blocks against pycryptodome (encrypt and decrypt, the
decryption key taken from the core's round-key output), stalls, and the 10-cycles-per-block
issue rate."""
import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge
from Crypto.Cipher import AES

from clocking import start_clock_and_reset
from golden import int_be, known_answers
from streams import Sink, Source

FIPS197 = known_answers("fips197_rounds.json")


async def start(dut, in_stall=0.0, out_stall=0.0, seed=0):
    # CBC chaining is cbc_mac's, tested there.
    await start_clock_and_reset(dut, in_valid=0, out_ready=0, in_chain=0)
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
    """Each example encrypted (out_round_key: the printed round key 10), then decrypted from
    that round key (out_round_key: the cipher key)."""
    src, sink = await start(dut)
    for v in FIPS197:
        key, pt, ct = (int(v[k], 16) for k in ("key", "plaintext", "ciphertext"))
        enc = (await run(src, sink, [{"decrypt": 0, "key": key, "block": pt}], dut))[-1]
        assert enc == {"block": ct, "round_key": int(v["rounds"][-1]["k_sch"], 16)}, v["id"]
        dec = (await run(src, sink, [{"decrypt": 1, "key": enc["round_key"], "block": ct}], dut))[-1]
        assert dec == {"block": pt, "round_key": key}, v["id"]


def published_steps(decrypt, v):
    """(out_block, out_round_key) in the cycle after the load and after each of the 9 steps
    (the next round's state and key, combinational from the registers), as FIPS-197 prints
    them: the start of round r + 2 and round key r + 1, the ciphertext and round key 10 last
    (decrypting, C.1's istart and ik_sch, the plaintext and the cipher key last)."""
    if decrypt:
        starts, keys = [r["istart"] for r in v["inverse_rounds"]], [r["ik_sch"] for r in v["inverse_rounds"]]
    else:
        starts, keys = [r["start"] for r in v["rounds"]], [r["k_sch"] for r in v["rounds"]]
    states = starts[1:] + [v["plaintext" if decrypt else "ciphertext"]]
    return [(int(s, 16), int(k, 16)) for s, k in zip(states, keys)]


@cocotb.test()
async def fips197_round_by_round(dut):
    """One block at a time, out_block and out_round_key in every cycle from the load to the
    result (out_valid in the last) against the published listings: every round's state and
    every round key, encrypting Appendix B and C.1 and decrypting C.1."""
    src, sink = await start(dut)
    for v in FIPS197:
        for decrypt in (0, 1) if "inverse_rounds" in v else (0,):
            key = int(v["ik_sch_0"] if decrypt else v["k_sch_0"], 16)
            block = int(v["ciphertext" if decrypt else "plaintext"], 16)
            dut.in_decrypt.value, dut.in_key.value, dut.in_block.value = decrypt, key, block
            dut.in_valid.value = 1
            await RisingEdge(dut.clk)  # the load
            dut.in_valid.value = 0
            want = published_steps(decrypt, v)
            for step, expected in enumerate(want):
                await ReadOnly()
                got = int(dut.out_block.value), int(dut.out_round_key.value)
                assert got == expected, f"{v['id']} decrypt={decrypt} step {step}: {got[0]:032x} {got[1]:032x}"
                assert int(dut.out_valid.value) == (step == len(want) - 1), step
                await RisingEdge(dut.clk)  # the next step; after the last, the result taken


@cocotb.test()
async def random_blocks_against_pycryptodome(dut):
    """Encrypt 150 random blocks under random keys; then, mixed at random with 150 more
    encryptions, decrypt a random block under each of those keys from the round key 10 the
    core gave out, which must also come back out as the cipher key."""
    src, sink = await start(dut, in_stall=0.3, out_stall=0.3, seed=7)
    rng = random.Random(11)
    ecb = lambda key: AES.new(key, AES.MODE_ECB)
    keys = [rng.randbytes(16) for _ in range(150)]
    blocks = [rng.randbytes(16) for _ in keys]
    encryptions = [{"decrypt": 0, "key": int_be(k), "block": int_be(b)} for k, b in zip(keys, blocks)]
    got = await run(src, sink, encryptions, dut)
    assert [b["block"] for b in got] == [int_be(ecb(k).encrypt(b)) for k, b in zip(keys, blocks)]
    jobs = []  # (beat, expected block, expected round key or None)
    for key, enc in zip(keys, got):
        block = rng.randbytes(16)
        jobs.append(({"decrypt": 1, "key": enc["round_key"], "block": int_be(block)},
                     int_be(ecb(key).decrypt(block)), int_be(key)))
    for _ in range(150):
        key, block = rng.randbytes(16), rng.randbytes(16)
        jobs.append(({"decrypt": 0, "key": int_be(key), "block": int_be(block)},
                     int_be(ecb(key).encrypt(block)), None))
    rng.shuffle(jobs)
    got = await run(src, sink, [beat for beat, _, _ in jobs], dut)
    for (beat, block, round_key), out in zip(jobs, got):
        assert out["block"] == block, beat
        assert round_key is None or out["round_key"] == round_key, beat


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
