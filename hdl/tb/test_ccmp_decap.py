"""ccmp_decap (CCMP-128 decryption and MIC check): known answers, random frames from the
Rust golden model (plaintext byte for byte, verdict 1), and tampered frames (verdict 0)."""
import os
import random

import cocotb

from ccmp_bench import N, SUITE, Bench, decap_job, split_frames
from golden import frames, known_answers
from streams import Sink

FIELDS = ("tk", "pn", "header", "ht_control", "body_len", "mic")
RANDOM_FRAMES = int(os.environ.get("CCMP_FRAMES", "200"))
SHORT_FRAMES = int(os.environ.get("CCMP_SHORT_FRAMES", "1000"))


async def check(dut, jobs, stall, seed, label):
    bench = Bench(dut, FIELDS, stall=stall, seed=seed)
    verdicts = Sink(dut.clk, dut.res_valid, dut.res_ready, {"mic_ok": dut.res_mic_ok},
                    stall=stall, rng=random.Random(seed + 9))
    await bench.reset()
    cocotb.start_soon(verdicts.run())
    await bench.feed(jobs)
    budget = sum(40 + 30 * (len(j["body"]) // 16 + 4) for j in jobs) * (4 if stall else 1)
    await bench.wait_for(verdicts, len(jobs), label, budget)
    got, partial = split_frames(bench.out.beats)
    assert not partial, f"{label}: plaintext beats after the last frame"
    with_body = [j for j in jobs if j["body"]]
    assert len(got) == len(with_body), f"{label}: {len(got)} plaintexts for {len(with_body)}"
    for i, (job, out) in enumerate(zip(with_body, got)):
        if job["mic_ok"]:
            assert out == job["expected"], f"{label} frame {i}: got {out.hex()}"
    assert [v["mic_ok"] for v in verdicts.beats] == [j["mic_ok"] for j in jobs], label


@cocotb.test(skip=N != 1)
async def known_answer_mpdus(dut):
    """Published 802.11 vectors (CCMP-128 only: Enhanced CCMP has none)."""
    jobs = []
    for v in known_answers("ccmp128.json"):
        protected = v.get("encrypted_mpdu") or v["encrypted_mpdu_with_protected_bit_set"]
        rec = {"tk": v["tk"], "pn": v["pn"], "keyid": v["key_id"],
               "header_len": v.get("header_len", 24),
               "plaintext_mpdu": v["plaintext_mpdu"], "protected_mpdu": protected}
        jobs.append(decap_job(rec, ht_control=int(v["rules"] != "802.11i-2004")))
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
