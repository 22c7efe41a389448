"""Valid/ready stream drivers for cocotb with random stalls on either side: with
probability `stall` per cycle a stall begins, lasting 1..`max_stall` cycles (long stalls
hold a stream off for hundreds of cycles mid-frame).

A beat moves on a rising edge where valid and ready were both high. Inputs are written
just after an edge and handshakes sampled in the ReadOnly phase of the same cycle, so
combinational ready (ready that depends on valid) is seen correctly.
"""
import random

from cocotb.triggers import ReadOnly, RisingEdge


class Stalls:
    """Per cycle: stalled or not (runs of 1..max_stall cycles, starting with probability p)."""

    def __init__(self, p, max_stall, rng):
        self.p, self.max_stall, self.rng, self.left = p, max_stall, rng, 0

    def now(self):
        if not self.left and self.p and self.rng.random() < self.p:
            self.left = self.rng.randint(1, self.max_stall)
        if self.left:
            self.left -= 1
            return True
        return False


class Source:
    """Drives `valid` and the given fields from a list of beats (dicts of field -> int)."""

    def __init__(self, clk, valid, ready, fields, stall=0.0, rng=None, max_stall=1):
        self.clk, self.valid, self.ready, self.fields = clk, valid, ready, fields
        self.stalls = Stalls(stall, max_stall, rng or random.Random(0))
        self.valid.value = 0

    async def send(self, beats):
        for beat in beats:
            while True:
                await RisingEdge(self.clk)
                if self.stalls.now():
                    self.valid.value = 0
                    continue
                for name, value in beat.items():
                    self.fields[name].value = value
                self.valid.value = 1
                await ReadOnly()
                if self.ready.value:
                    break
                # Hold the beat until it is taken (valid must not drop once raised).
                while True:
                    await RisingEdge(self.clk)
                    await ReadOnly()
                    if self.ready.value:
                        break
                break
        await RisingEdge(self.clk)
        self.valid.value = 0


class Sink:
    """Drives `ready` (randomly stalled) and records every beat as a dict of field -> int."""

    def __init__(self, clk, valid, ready, fields, stall=0.0, rng=None, max_stall=1):
        self.clk, self.valid, self.ready, self.fields = clk, valid, ready, fields
        self.stalls = Stalls(stall, max_stall, rng or random.Random(1))
        self.beats = []
        self.cycles = []  # per beat: the clock edge (counted from run()) it moved on
        self.frames = 0  # beats with a true `last` field
        self.ready.value = 0

    async def run(self):
        cycle = 0
        while True:
            await RisingEdge(self.clk)
            cycle += 1
            ready = not self.stalls.now()
            self.ready.value = int(ready)
            await ReadOnly()
            if ready and self.valid.value:
                beat = {n: int(h.value) for n, h in self.fields.items()}
                self.beats.append(beat)
                self.cycles.append(cycle)
                self.frames += beat.get("last", 0)
