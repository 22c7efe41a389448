"""Switching activity per 1500-octet frame from Verilator toggle coverage: a RELATIVE
dynamic-energy proxy between designs (open tools give no FPGA power figure). It counts
bit toggles of RTL signals (every hierarchy level that names a net counts it, equally for
all designs), not of mapped LUTs/routing, and ignores clock-tree and static power.
Runs each design's `cycles_per_1500_octet_frame` bench (1500-octet data frames, back to
back, no stalls) with toggle coverage; writes build/toggles/<design>.json."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from provenance import design_rtl

HDL = Path(__file__).resolve().parents[1]
# design: (top, parameters, environment, frames the bench pushes through, defines); the
# *_tbox design simulates the T-table round order (AES_TBOX_BRAM). A *_bram design's RTL is
# its LUT twin's (syn/report.py takes the twin's count).
DESIGNS = {
    "ccmp_core": ("ccmp_core", "N=1", {"CCMP_N": "1"}, 4, ""),
    "ccmp_core_n2": ("ccmp_core", "N=2", {"CCMP_N": "2"}, 4, ""),
    "ccmp_core_n4": ("ccmp_core", "N=4", {"CCMP_N": "4"}, 4, ""),
    "ccmp_core_n8": ("ccmp_core", "N=8", {"CCMP_N": "8"}, 4, ""),
    "ccmp_core_tbox": ("ccmp_core", "N=1", {"CCMP_N": "1"}, 4, "AES_TBOX_BRAM"),
    "ccmp_core_hu": ("ccmp_core", "N=1 HEADER_UNIT=1", {"CCMP_N": "1", "CCMP_HEADER_UNIT": "1"}, 4, ""),
    # The multi-frame cores' RTL is the same with S-boxes in LUTs or block RAM; the bench
    # pushes 2 frames through each lane (12 lanes; 22 with PIPELINED=2).
    "ccmp_multi_r1_bram": ("ccmp_multi", "R=1", {"AES_R": "1"}, 24, ""),
    "ccmp_multi_r1_split_bram": ("ccmp_multi", "R=1 PIPELINED=2",
                                 {"AES_R": "1", "AES_PIPELINED": "2"}, 44, ""),
}


def main():
    out = HDL / "build" / "toggles"
    out.mkdir(parents=True, exist_ok=True)
    for name in sys.argv[1:] or list(DESIGNS):
        top, params, env, frames, defines = DESIGNS[name]
        print(f"[toggles] {name} ...", flush=True)
        cov = HDL / "coverage.dat"
        cov.unlink(missing_ok=True)
        subprocess.run(["make", "-s", "-f", "tb/cocotb.mk", "SIM=verilator", f"TOPLEVEL={top}",
                        f"MODULE=test_{top}", f"RUN=toggles-{name}", f"PARAMS={params}", f"DEFINES={defines}",
                        "TOGGLES=1", "TESTCASE=cycles_per_1500_octet_frame"],
                       cwd=HDL, env={**os.environ, "CCMP_DESIGN": name, **env}, check=True,
                       stdout=subprocess.DEVNULL)  # the bench's cycle count goes to build/cycles/<name>
        total = sum(int(n) for n in re.findall(r"' (\d+)$", cov.read_text(), re.M))
        result = {"design": name, "frames": frames, "toggles_total": total,
                  "toggles_per_frame": round(total / frames), **design_rtl(top)}
        (out / f"{name}.json").write_text(json.dumps(result, indent=1))
        print(f"[toggles] {result}", flush=True)


if __name__ == "__main__":
    main()
