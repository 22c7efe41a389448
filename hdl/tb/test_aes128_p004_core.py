"""aes128_p004_core (seed paper 004's core: one round per call, the round number and the
round key from outside). Every call's state and round key against the FIPS-197
round-by-round reference (aes_reference.py); whole blocks against FIPS-197's known answers,
pycryptodome and the CCMP keystream blocks of the Rust engine's frames (`wlansec vectors`),
in both modes. The latency to the cycle: each call's outputs change on the third clock
edge after its inputs and not before, a block takes 3 x Nr = 30 cycles (the paper's Eq. 2),
and three interleaved blocks finish on edges 30, 31 and 32."""
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge
from Crypto.Cipher import AES

from aes_reference import decrypt_rounds, encrypt_rounds, round_keys
from golden import frames, int_be, known_answers

CALL_CYCLES = 3  # cycles from a call's inputs to its outputs
NR = 10
BLOCK_CYCLES = CALL_CYCLES * NR
RANDOM_BLOCKS = int(os.environ.get("P004_BLOCKS", "100"))
CCMP_FRAMES = int(os.environ.get("P004_CCMP_FRAMES", "20"))


async def start(dut):
    cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
    dut.reset.value = 1
    dut.count.value = 0
    dut.mode.value = 0
    dut.inkey.value = 0
    dut.state_in.value = 0
    await ClockCycles(dut.clk, 2)
    dut.reset.value = 0
    # The idle inputs through all three stages: the outputs hold still until a call.
    await ClockCycles(dut.clk, CALL_CYCLES)
    await FallingEdge(dut.clk)


def outputs(dut):
    return int(dut.state_out.value), int(dut.outkey.value)


def expected_calls(mode, key: bytes, data: bytes):
    """(state_out, outkey) of calls 1..10 by the reference: round r's state and the round
    key it added (decrypting, round key 10 - r)."""
    keys = round_keys(key)
    states = (decrypt_rounds if mode else encrypt_rounds)(key, data)
    return [(int_be(s), int_be(keys[10 - r if mode else r])) for r, s in zip(range(1, NR + 1), states)]


async def block(dut, mode, key: bytes, data: bytes):
    """One block, its 10 calls back to back as the paper's controller drives them (inputs
    written between edges, outputs read between edges): each call's outputs checked on
    every edge (the previous call's until the third, this call's reference values from
    it), then the result and the cycles from the first call's inputs to the result."""
    want = expected_calls(mode, key, data)
    state, inkey = int_be(data), int_be(round_keys(key)[10] if mode else key)
    edges = 0
    for r in range(1, NR + 1):
        before = outputs(dut)
        dut.count.value, dut.mode.value, dut.inkey.value, dut.state_in.value = r, mode, inkey, state
        for edge in range(1, CALL_CYCLES + 1):
            await FallingEdge(dut.clk)
            edges += 1
            if edge < CALL_CYCLES:
                assert outputs(dut) == before, f"call {r} changed the outputs {edge} cycles after its inputs"
        assert outputs(dut) == want[r - 1], f"mode {mode} call {r}: {outputs(dut)} != {want[r - 1]}"
        state, inkey = outputs(dut)
    return state, inkey, edges


async def check_block(dut, key: bytes, plaintext: bytes, ciphertext: bytes):
    """Encrypt, then decrypt with the round key 10 the core gave out; 30 cycles each."""
    ct, last_key, cycles = await block(dut, 0, key, plaintext)
    assert ct == int_be(ciphertext) and last_key == int_be(round_keys(key)[10])
    assert cycles == BLOCK_CYCLES, cycles
    pt, cipher_key, cycles = await block(dut, 1, key, ciphertext)
    assert pt == int_be(plaintext) and cipher_key == int_be(key)
    assert cycles == BLOCK_CYCLES, cycles


@cocotb.test()
async def fips197_known_answers(dut):
    await start(dut)
    vectors = [v for v in known_answers("aes_block.json") if len(v["key"]) == 32]
    assert vectors, "no AES-128 vector in tests/vectors/aes_block.json"
    for v in vectors:
        await check_block(dut, *(bytes.fromhex(v[k]) for k in ("key", "plaintext", "ciphertext")))


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
    """The three stages hold three calls: a call every cycle, blocks 0, 1, 2 in turn, each
    call fed from that block's previous outputs, which appear just in time (three edges
    later). Block b's result is on edge 30 + b: 10 cycles a block."""
    await start(dut)
    rng = random.Random(6)
    jobs = [(rng.randint(0, 1), rng.randbytes(16), rng.randbytes(16)) for _ in range(3)]
    live = [(int_be(data), int_be(round_keys(key)[10] if mode else key)) for mode, key, data in jobs]
    done = {}
    for edge in range(1, BLOCK_CYCLES + 3):
        call = edge - 1  # the call whose inputs go in before this edge
        if call < 3 * NR:
            b, r = call % 3, call // 3 + 1
            dut.count.value, dut.mode.value = r, jobs[b][0]
            dut.state_in.value, dut.inkey.value = live[b]
        await FallingEdge(dut.clk)
        if edge >= CALL_CYCLES:  # the outputs of the call made three edges ago
            b, r = (edge - CALL_CYCLES) % 3, (edge - CALL_CYCLES) // 3 + 1
            mode, key, data = jobs[b]
            assert outputs(dut) == expected_calls(mode, key, data)[r - 1], (edge, b, r)
            live[b] = outputs(dut)
            if r == NR:
                done[b] = edge
    for b, (mode, key, data) in enumerate(jobs):
        aes = AES.new(key, AES.MODE_ECB)
        assert live[b][0] == int_be(aes.decrypt(data) if mode else aes.encrypt(data))
    assert done == {0: BLOCK_CYCLES, 1: BLOCK_CYCLES + 1, 2: BLOCK_CYCLES + 2}, done
