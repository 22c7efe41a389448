"""aes128_p004_core (seed paper 004's core: one round per call, the round number and the
round key from outside). FIPS-197's published examples (tests/vectors/fips197_rounds.json:
Appendix B, C.1 and C.1's inverse cipher) call by call: each of the three stages (the round's
start, after (Inv)SubBytes, the round's output and round key; decrypting, also InvShiftRows
and AddRoundKey) against the printed values.
Whole blocks against pycryptodome and the CCMP keystream blocks of the Rust engine's frames
(`wlansec vectors`), in both modes, decrypting from the round key 10 the core gave out. The
latency to the cycle: each call's outputs change on the third clock edge after its inputs and
not before, a block takes 3 x Nr = 30 cycles (the paper's Eq. 2), and three interleaved
blocks finish on edges 30, 31 and 32."""
import os
import random

import cocotb
from cocotb.triggers import ClockCycles, FallingEdge
from Crypto.Cipher import AES

from clocking import start_clock_and_reset
from golden import frames, int_be, known_answers

CALL_CYCLES = 3  # cycles from a call's inputs to its outputs
NR = 10
BLOCK_CYCLES = CALL_CYCLES * NR
RANDOM_BLOCKS = int(os.environ.get("P004_BLOCKS", "100"))
CCMP_FRAMES = int(os.environ.get("P004_CCMP_FRAMES", "20"))
FIPS197 = {v["id"]: v for v in known_answers("fips197_rounds.json")}
APPENDIX_B, C1 = FIPS197["FIPS-197 Appendix B"], FIPS197["FIPS-197 C.1 AES-128"]


async def start(dut):
    await start_clock_and_reset(dut, count=0, mode=0, inkey=0, state_in=0)
    # The idle inputs through all three stages: the outputs hold still until a call.
    await ClockCycles(dut.clk, CALL_CYCLES)
    await FallingEdge(dut.clk)


def outputs(dut):
    return int(dut.state_out.value), int(dut.outkey.value)


def stage(dut, number, mode):
    """What stage 1, 2 or 3 holds after an edge: the round's start (state_1; decrypting, and
    InvShiftRows of it), the state after (Inv)SubBytes (sub_2; decrypting, and AddRoundKey of
    it), and the outputs (state_out, outkey)."""
    if number == 1:
        return (int(dut.state_1.value),) + ((int(dut.inv_shifted.value),) if mode else ())
    if number == 2:
        return (int(dut.sub_2.value),) + ((int(dut.dec_added.value),) if mode else ())
    return outputs(dut)


def published_calls(mode, example):
    """stage() 1, 2 and 3 of calls 1..10 as FIPS-197 prints them: encrypting, cipher round
    r's start; s_box; the next round's start (the ciphertext after round 10) and round key r.
    Decrypting (C.1's inverse listing), inverse round r's istart and is_row; is_box and ik_add
    (ioutput in round 10); the next istart (the plaintext after round 10) and round key 10 - r
    (ik_sch)."""
    h = lambda value: int(value, 16)
    if mode:
        rounds = example["inverse_rounds"]
        following = [r["istart"] for r in rounds[1:]] + [example["plaintext"]]
        return [((h(r["istart"]), h(r["is_row"])), (h(r["is_box"]), h(r.get("ik_add") or r["ioutput"])),
                 (h(after), h(r["ik_sch"]))) for r, after in zip(rounds, following)]
    rounds = example["rounds"]
    following = [r["start"] for r in rounds[1:]] + [example["ciphertext"]]
    return [((h(r["start"]),), (h(r["s_box"]),), (h(after), h(r["k_sch"])))
            for r, after in zip(rounds, following)]


def hexed(values):
    return tuple(f"{v:032x}" for v in values)


def first_key(mode, example):
    return int(example["ik_sch_0"] if mode else example["k_sch_0"], 16)


async def block(dut, mode, inkey: int, data: bytes, want=None):
    """One block, its 10 calls back to back as the paper's controller drives them (inputs
    written between edges, stages read between edges): the outputs hold the previous call's
    values until the third edge; with `want` (published_calls), every stage of every call
    checked on its edge. Returns the result, the last round key and the cycles from the first
    call's inputs to the result."""
    state = int_be(data)
    edges = 0
    for r in range(1, NR + 1):
        before = outputs(dut)
        dut.count.value, dut.mode.value, dut.inkey.value, dut.state_in.value = r, mode, inkey, state
        for edge in range(1, CALL_CYCLES + 1):
            await FallingEdge(dut.clk)
            edges += 1
            if edge < CALL_CYCLES:
                assert outputs(dut) == before, f"call {r} changed the outputs {edge} cycles after its inputs"
            if want:
                got, expected = stage(dut, edge, mode), want[r - 1][edge - 1]
                assert got == expected, f"mode {mode} call {r} stage {edge}: {hexed(got)} != {hexed(expected)}"
        state, inkey = outputs(dut)
    return state, inkey, edges


async def check_block(dut, key: bytes, plaintext: bytes, ciphertext: bytes, example=None):
    """Encrypt, then decrypt from the round key 10 the core gave out (a wrong one cannot
    decrypt to the plaintext and end on the cipher key); 30 cycles each. With a published
    example, every call of both against its listing (decrypting, C.1's inverse listing where
    the example has one)."""
    want = published_calls(0, example) if example else None
    ct, last_key, cycles = await block(dut, 0, int_be(key), plaintext, want)
    assert ct == int_be(ciphertext)
    assert cycles == BLOCK_CYCLES, cycles
    want = published_calls(1, example) if example and "inverse_rounds" in example else None
    pt, cipher_key, cycles = await block(dut, 1, last_key, ciphertext, want)
    assert pt == int_be(plaintext) and cipher_key == int_be(key)
    assert cycles == BLOCK_CYCLES, cycles


@cocotb.test()
async def fips197_round_by_round(dut):
    await start(dut)
    for v in (C1, APPENDIX_B):  # C.1 first: its inverse listing checks decryption call by call
        await check_block(dut, *(bytes.fromhex(v[k]) for k in ("key", "plaintext", "ciphertext")), example=v)


def keystream_blocks(rec):
    """(TK, counter block A_i, E(TK, A_i)) of a `wlansec vectors` CCMP-128 frame: A_i is
    flags 0x01, the nonce and the counter i; the keystream is the protected body XOR the
    plaintext body (the protected MPDU: header, 8-octet CCMP header, body, 8-octet MIC)."""
    tk, nonce, hl = bytes.fromhex(rec["tk"]), bytes.fromhex(rec["nonce"]), rec["header_len"]
    plain = bytes.fromhex(rec["plaintext_mpdu"])[hl:]
    protected = bytes.fromhex(rec["protected_mpdu"])[hl + 8:-8]
    for i in range(len(plain) // 16):
        a_i = b"\x01" + nonce + (i + 1).to_bytes(2, "big")
        yield tk, a_i, bytes(p ^ c for p, c in zip(plain[16 * i:16 * i + 16], protected[16 * i:16 * i + 16]))


@cocotb.test()
async def wlansec_ccmp_keystream(dut):
    await start(dut)
    checked = 0
    for rec in frames(CCMP_FRAMES, seed=4, min_len=16, max_len=48, data_only=True):
        for tk, a_i, keystream in keystream_blocks(rec):
            await check_block(dut, tk, a_i, keystream)
            checked += 1
    assert checked >= CCMP_FRAMES, checked


@cocotb.test()
async def random_blocks_against_pycryptodome(dut):
    await start(dut)
    rng = random.Random(5)
    for _ in range(RANDOM_BLOCKS):
        key, data = rng.randbytes(16), rng.randbytes(16)
        await check_block(dut, key, data, AES.new(key, AES.MODE_ECB).encrypt(data))


@cocotb.test()
async def three_blocks_interleaved(dut):
    """The three stages hold three calls: a call every cycle, blocks 0, 1, 2 in turn (FIPS-197
    Appendix B encrypting, C.1 encrypting, C.1 decrypting), each call fed from that block's
    previous outputs, which appear just in time (three edges later); after every edge each
    stage holds the published values of the call made that many edges before. Block b's
    result is on edge 30 + b: 10 cycles a block."""
    await start(dut)
    jobs = [(0, APPENDIX_B), (0, C1), (1, C1)]
    want = [published_calls(mode, v) for mode, v in jobs]
    live = [(int(v["ciphertext" if mode else "plaintext"], 16), first_key(mode, v)) for mode, v in jobs]
    done = {}
    for edge in range(1, BLOCK_CYCLES + 3):
        call = edge - 1  # the call whose inputs go in before this edge
        if call < 3 * NR:
            b, r = call % 3, call // 3 + 1
            dut.count.value, dut.mode.value = r, jobs[b][0]
            dut.state_in.value, dut.inkey.value = live[b]
        await FallingEdge(dut.clk)
        for number in (1, 2, 3):
            made = edge - number  # the call whose values this stage holds
            if 0 <= made < 3 * NR:
                b, r = made % 3, made // 3 + 1
                got = stage(dut, number, jobs[b][0])
                assert got == want[b][r - 1][number - 1], (edge, number, b, r, hexed(got))
        if edge >= CALL_CYCLES:
            b, r = (edge - CALL_CYCLES) % 3, (edge - CALL_CYCLES) // 3 + 1
            live[b] = outputs(dut)
            if r == NR:
                done[b] = edge
    for b, (mode, v) in enumerate(jobs):
        assert live[b][0] == int(v["plaintext" if mode else "ciphertext"], 16), b
    assert done == {0: BLOCK_CYCLES, 1: BLOCK_CYCLES + 1, 2: BLOCK_CYCLES + 2}, done
