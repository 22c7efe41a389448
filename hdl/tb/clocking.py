"""The benches' clock and reset: one clock period for every bench, and the start of a run."""
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles

CLOCK_NS = 10


async def start_clock_and_reset(dut, **idle):
    """Start `dut.clk`, hold `dut.reset` for two cycles with the named inputs at their idle
    values (`in_valid=0`, ...), and release it."""
    cocotb.start_soon(Clock(dut.clk, CLOCK_NS, units="ns").start())
    dut.reset.value = 1
    for name, value in idle.items():
        getattr(dut, name).value = value
    await ClockCycles(dut.clk, 2)
    dut.reset.value = 0
