"""Collect synthesis records (reports/designs, from syn/synth.py), simulated cycle counts
(build/cycles) and toggle counts (build/toggles) into reports/summary.json, the summary table in reports/README.md
(between the TABLE markers) and the tables in the published papers' layouts (between the
LAYOUTS markers): implementation results beside Algredo-Badillo 2010 Table 2; resources,
timing, parallel-vs-standard time and the energy proxy in Hayajneh et al.'s Tables III–V
layout; Mb/s per LUT beside the open AES anchors. Fmax is always the median over placement
seeds (min–max beside it). A cycle or toggle count is used only when it was measured on the
same RTL (hash) as the synthesis record; otherwise the one already in summary.json for that
RTL is kept, or none. Designs and targets without a record at the current RTL are listed as
not measured (syn/check_figures.py refuses rows whose RTL has changed)."""
import json
import re
import sys
from pathlib import Path

HDL = Path(__file__).resolve().parents[1]
RECORDS = HDL / "reports" / "designs"
SUMMARY = HDL / "reports" / "summary.json"
NETLISTS = HDL / "reports" / "netlists.json"
HDL_README = HDL / "README.md"
sys.path.insert(0, str(HDL / "syn"))
from provenance import design_rtl, seeds_median  # noqa: E402
PUBLISHED = HDL / "reports" / "published"
FRAME_BITS = 1500 * 8
AES_BLOCKS_1500 = 94  # AES alone: 1500 octets = 94 blocks at the core's measured issue rate
AES_CYCLES_PER_BLOCK = {"aes128_core": 10, "aes128_core_enc": 10, "aes128_unrolled_r2": 5,
                        "aes128_pipelined": 1, "aes128_pipelined_split": 1,
                        "aes128_p004": 30}
# Seed paper 004's core (aes128_p004_core): cycles from a round call's inputs to its outputs
# and calls per block (Nr), as tb/test_aes128_p004_core.py asserts them.
P004_CALL_CYCLES, P004_NR = 3, 10
ECP5_LUTS = 83640  # LUT4s (TRELLIS_COMB) in an LFE5U-85F
# The parallel-vs-standard comparison: CCMP encapsulation with N CBC-MAC sub-chains and N CTR
# lanes (Enhanced CCMP-N); the standard design is N = 1.
WAYS = {"ccmp_core": 1, "ccmp_core_n2": 2, "ccmp_core_n4": 4, "ccmp_core_n8": 8}
# The open anchors: Fmax measured with this flow on LFE5U-85F by the author;
# cycles per block from the aes_core author's published figures
# (reports/published/aes_core_anchor.json); LUT4s and block RAMs measured here with Yosys
# `synth_ecp5` (default flow) on each core's own RTL, fetched for the measurement and not
# kept in this repository (freecores/tiny_aes rtl/aes_128.v ee0c025 + rtl/table.v 95a4f08;
# OpenCores aes_core aes_cipher_top, aes_key_expand_128, aes_rcon, aes_sbox).
ANCHORS = [("tiny_aes (fully pipelined AES-128)", 136.0, 1, 12687, 144),
           ("OpenCores aes_core (iterative AES-128)", 105.0, 12, 4584, 0)]


def netlist_twin(design):
    """The design whose netlist a router variant places (`*_router2`: the same entry in
    syn/synth.py's DESIGNS routed by another router; syn/synth.py's ROUTERS)."""
    return re.sub(r"_router\d$", "", design)


def lut_twin(design):
    """The LUT-mapped design of a block-RAM one (*_bram: S-boxes, *_tbox: T-tables)."""
    return re.sub(r"_(bram|tbox)$", "", netlist_twin(design))


def router_of(r):
    """The nextpnr router a row was placed and routed with (records before the router was
    recorded ran router1); None when it was not placed."""
    return (r.get("router") or "router1") if r.get("fmax_by_seed") else None


def standard_of(r, rs):
    """The standard core (N = 1, no header unit) that a CCMP row's speed-up and ratios are taken
    against: the same S-box mapping on the same target, placed and routed by the same router,
    so that the comparison is router to router (a design not placed takes router1's)."""
    mapping = lambda d: netlist_twin(d)[len(lut_twin(d)):]  # "", "_bram" or "_tbox"
    candidates = [s for s in rs if s["target"] == r["target"] and lut_twin(s["design"]) == "ccmp_core"
                  and mapping(s["design"]) == mapping(r["design"])]
    router = router_of(r) or "router1"
    return next((s for s in candidates if router_of(s) == router), None)


def measured(kind, design, rtl_hash, key):
    """A count from build/<kind>/ measured on the RTL `rtl_hash`: the design's own run, else
    its LUT twin's (a *_bram/*_tbox design is the same RTL; the benches show equal counts)."""
    for name in dict.fromkeys((design, netlist_twin(design), lut_twin(design))):
        for suffix in ("-verilator", "-icarus", ""):  # Verilator's count first, where both ran
            path = HDL / "build" / kind / f"{name}{suffix}.json"
            if path.exists():
                r = json.loads(path.read_text())
                if r.get("rtl_hash") == rtl_hash:
                    return r[key]
    return None


def rows():
    previous = {(r["design"], r["target"]): r for r in json.loads(SUMMARY.read_text())} if SUMMARY.exists() else {}
    out = []
    for path in sorted(RECORDS.glob("*.json")):
        r = json.loads(path.read_text())
        if r["rtl_hash"] != design_rtl(r["top"])["rtl_hash"]:
            continue  # measured on other RTL: listed as not measured
        # A router variant's cycles and toggles are its netlist twin's (the same RTL).
        befores = [previous.get((d, r["target"]), {}) for d in (r["design"], netlist_twin(r["design"]))]
        kept = lambda key: next((b[key] for b in befores if b.get("rtl_hash") == r["rtl_hash"]
                                 and b.get(key) is not None), None)
        base = lut_twin(r["design"])
        c = (AES_BLOCKS_1500 * AES_CYCLES_PER_BLOCK[base] if base in AES_CYCLES_PER_BLOCK
             else measured("cycles", r["design"], r["rtl_hash"], "cycles_per_frame_1500") or kept("cycles_per_frame_1500"))
        tog = measured("toggles", r["design"], r["rtl_hash"], "toggles_per_frame") or kept("toggles_per_frame")
        mbps_per_mhz = round(FRAME_BITS / c, 2) if c else None
        # From the seeds themselves: a run interrupted after some seeds still counts, as what it is.
        # An unrouted seed (None) counts below every routed one.
        seeds = [f for f in (r.get("fmax_by_seed") or {}).values() if f is not None]
        fmax = seeds_median((r.get("fmax_by_seed") or {}).values())
        out.append({
            "design": r["design"], "target": r["target"], "top": r["top"], "luts": r["luts"], "ffs": r["ffs"],
            "brams": r["brams"], "dsps": r["dsps"], "fmax_mhz": fmax,
            "fmax_min_mhz": min(seeds) if seeds else None, "fmax_max_mhz": max(seeds) if seeds else None,
            "fmax_by_seed": r.get("fmax_by_seed"), "cycles_per_frame_1500": c,
            "gbps": round(mbps_per_mhz * fmax / 1000, 3) if (mbps_per_mhz and fmax) else None,
            "mbps_per_mhz": mbps_per_mhz, "toggles_per_frame": tog,
            "critical_path": median_path(r, fmax),
            **{k: r.get(k) for k in ("device", "package", "speed_grade", "router", "commit", "date", "tools",
                                     "rtl_hash", "rtl_files")},
            # Records from before these were parameters: nextpnr's defaults, target 100 MHz.
            "pnr_target_mhz": r.get("pnr_target_mhz", 100.0) if seeds else None,
            "pnr_timing_weight": r.get("pnr_timing_weight", 10) if seeds else None,
        })
    for r in out:  # an N-way core against the standard core of its S-box mapping and router
        std = standard_of(r, out) if WAYS.get(lut_twin(r["design"]), 1) > 1 else None
        timed = std and all(x.get(k) for x in (r, std) for k in ("fmax_mhz", "cycles_per_frame_1500"))
        r["standard"] = std["design"] if std else None
        r["speedup_1500"] = round(speedup(r, std), 2) if timed else None
    return out


def netlist_rows():
    """reports/netlists.json: the cells and flip-flops of each gate-level netlist at the current
    RTL, from build/netlist/<top>.json (syn/netlist_stat.py, as `make test` builds the
    netlists), else the entry already kept for this RTL; an entry of other RTL is dropped."""
    previous = json.loads(NETLISTS.read_text()) if NETLISTS.exists() else {}
    built = {p.stem: p for p in (HDL / "build" / "netlist").glob("*.json") if not p.stem.endswith("-stat")}
    out = {}
    for top in sorted(set(previous) | set(built)):
        now = design_rtl(top)["rtl_hash"]
        fresh = [json.loads(built[top].read_text())] if top in built else []
        entry = next((e for e in fresh + [previous.get(top, {})] if e.get("rtl_hash") == now), None)
        if entry:
            out[top] = entry
    return out


def median_path(r, fmax):
    """The critical path of the seed whose Fmax is nearest the median."""
    seeds = {s: f for s, f in (r.get("fmax_by_seed") or {}).items() if f is not None}
    if not seeds or fmax is None:
        return None
    seed = min(seeds, key=lambda s: abs(seeds[s] - fmax))
    return dict(r["critical_path_by_seed"][seed], seed=int(seed))


def not_measured():
    """(design, target) of syn/synth.py's list without a record at the current RTL."""
    from synth import DESIGNS
    have = {(r["design"], r["target"]) for r in rows()}
    return [f"{d}:{t}" for d, (_, _, targets, _) in DESIGNS.items() for t in targets if (d, t) not in have]


def fmt(v, digits=None):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}f}" if digits is not None else f"{v:g}"
    return str(v)


def table(head, body):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(fmt(v) if not isinstance(v, str) else v for v in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def no_median(r):
    """Why a row has no median Fmax: no seed placed and routed, or too many seeds unrouted."""
    by_seed = r.get("fmax_by_seed") or {}
    routed = {s: f for s, f in by_seed.items() if f is not None}
    if not routed:
        return "no routed seed at the current RTL"
    return (f"no median: {len(routed)} of {len(by_seed)} seeds routed ("
            + ", ".join(f"seed {s}: {f} MHz" for s, f in sorted(routed.items(), key=lambda i: int(i[0])))
            + f"), the others unrouted, which count below every routed seed")


def spread(r):
    """`min–max, N seeds` of a row's Fmax, and how many seeds did not route."""
    by_seed = (r.get("fmax_by_seed") or {}).values()
    n, unrouted = len([f for f in by_seed if f is not None]), len([f for f in by_seed if f is None])
    tail = f", {unrouted} unrouted" if unrouted else ""
    if n == 1:
        return "1 seed only" + tail
    return f"{fmt(r['fmax_min_mhz'])}–{fmt(r['fmax_max_mhz'])}, {n} seeds{tail}" if n else ("–" + tail)


def summary_table(rs):
    keys = ("design", "target", "luts", "ffs", "brams", "dsps", "fmax_mhz")
    tail = ("cycles_per_frame_1500", "mbps_per_mhz", "gbps", "toggles_per_frame")
    head = ["design", "target", "LUTs", "FFs", "BRAMs", "DSPs", "Fmax median (MHz)", "Fmax min–max",
            "cycles / 1500 B", "Mb/s/MHz", "Gb/s at median", "toggles / frame", "measured at"]
    where = lambda r: (f"{r['commit']}, {r['date']}" + (f", {r['router']}" if r.get("router") not in (None, "router1") else "")
                       + (f", nextpnr target {fmt(r['pnr_target_mhz'])} MHz, timing weight {r['pnr_timing_weight']}"
                          if r.get("pnr_target_mhz") else ""))
    return table(head, [[r[k] for k in keys] + [spread(r)] + [r[k] for k in tail] + [where(r)] for r in rs])


def algredo_layout(rs):
    """Algredo-Badillo 2010 Table 2 (implementation results) with our ecp5 ccmp_core beside it."""
    pub = json.loads((PUBLISHED / "algredo2010_aes_ccmp_hw.json").read_text())
    t2 = next(t for t in pub["tables"] if t["id"] == "Table 2")
    pubrow = {r[0]: r[1] for r in t2["rows"]}
    ours = [r for r in rs if r["design"] in ("ccmp_core", "ccmp_core_bram", "ccmp_core_tbox") and r["target"] == "ecp5"]
    head = ["parameter", t2["columns"][1] + " (published)"] + [f"{r['design']} LFE5U-85F-6 (ours)" for r in ours]
    fm = lambda r: r["fmax_mhz"]
    body = [
        ["Period (ns)", pubrow["Period (ns)"]] + [round(1000 / fm(r), 3) if fm(r) else None for r in ours],
        ["Clock (MHz), median over placement seeds", pubrow["Clock (MHz)"]] + [fm(r) for r in ours],
        ["Clock (MHz), min–max over seeds", None] + [spread(r) for r in ours],
        ["Slices / LUT4s", f"{pubrow['Slices']} slices, {pubrow['LUTs']} LUTs"] + [f"{r['luts']} LUT4" for r in ours],
        ["Flip-flops", None] + [r["ffs"] for r in ours],
        ["BRAM", pubrow["BRAM"]] + [r["brams"] for r in ours],
        ["Throughput (Gb/s)", pubrow["Throughput (Gbps)"]] + [r["gbps"] for r in ours],
        ["Mb/s per MHz (body bits, 1500-octet frame)", "12.59 (Eq. 1: AAD counted as data)"]
        + [r["mbps_per_mhz"] for r in ours],
        ["Mb/s per MHz (Eq. 1 accounting: AAD blocks as data)", 12.59]
        + [round((94 + 2) * 128 / r["cycles_per_frame_1500"], 2) if r["cycles_per_frame_1500"] else None
           for r in ours],
        ["Power (mW)", pubrow["Power consumption (mW)"]] + ["no open-tool power model" for _ in ours],
    ]
    return table(head, body)


def path_figures(r):
    p = r.get("critical_path")
    return (p["delay_ns"], f"{p['logic_ns']} / {p['routing_ns']}") if p else (None, None)


def parallel_layouts(rs):
    """Hayajneh et al. Tables III (resources), IV (timing), the total-time comparison and
    V (power/energy, here the toggle proxy), standard vs 2/4/8-way, on ecp5. Each design is
    set against the standard design of its own S-box mapping (LUTs, or block RAM)."""
    ecp5 = {r["design"]: r for r in rs if r["target"] == "ecp5"}
    designs = [d for style in ("", "_bram") for d in ecp5 if lut_twin(d) in WAYS
               and netlist_twin(d) == lut_twin(d) + style]
    designs.sort(key=lambda d: (netlist_twin(d).endswith("_bram"), WAYS[lut_twin(d)], d))
    std_of = lambda d: standard_of(ecp5[d], rs) or {}
    ways = lambda d: WAYS[lut_twin(d)]
    ratio = lambda a, b: round(a / b, 2) if (a is not None and b) else None
    vs = lambda d, key: ratio(ecp5[d][key], std_of(d).get(key))
    router = lambda d: router_of(ecp5[d]) or "–"
    res = table(["design", "ways N", "LUT4s", "FFs", "BRAMs", "LUTs × standard", "FFs × standard", "BRAMs × standard"],
                [[d, ways(d), ecp5[d]["luts"], ecp5[d]["ffs"], ecp5[d]["brams"], vs(d, "luts"), vs(d, "ffs"),
                  vs(d, "brams")] for d in designs]
                + [["published: parallel vs standard (Cyclone II LEs)", "–", "–", "–", "–", 2.4, "–", "–"]])
    timing = table(["design", "Clk-Clk: register → register (ns, median seed)", "of it logic / routing (ns)",
                    "Fmax median (MHz)", "Fmax min–max"],
                   [[d, *path_figures(ecp5[d]), ecp5[d]["fmax_mhz"], spread(ecp5[d])] for d in designs])
    time_ns = lambda r: round(r["cycles_per_frame_1500"] / r["fmax_mhz"] * 1000, 1) \
        if (r.get("cycles_per_frame_1500") and r.get("fmax_mhz")) else None
    speed = table(["design", "router", "cycles / 1500 B", "speedup (cycles)", "time / 1500 B at Fmax (ns)",
                   "speedup (time, against the standard core of the same router)", "LUTs × standard"],
                  [[d, router(d), ecp5[d]["cycles_per_frame_1500"], ratio(std_of(d).get("cycles_per_frame_1500"),
                                                               ecp5[d]["cycles_per_frame_1500"]),
                    time_ns(ecp5[d]), ratio(time_ns(std_of(d)), time_ns(ecp5[d])), vs(d, "luts")] for d in designs]
                  + [["published: standard → parallel (Cyclone II, Modelsim)", "–", "–", "–", "2830 → 770", 3.7, 2.4]])
    per_cycle = lambda r: round(r["toggles_per_frame"] / r["cycles_per_frame_1500"]) \
        if (r.get("toggles_per_frame") and r.get("cycles_per_frame_1500")) else None
    energy = table(["design", "toggles / frame (energy proxy)", "× standard", "toggles / cycle (power proxy)",
                    "× standard"],
                   [[d, ecp5[d]["toggles_per_frame"], vs(d, "toggles_per_frame"), per_cycle(ecp5[d]),
                     ratio(per_cycle(ecp5[d]), per_cycle(std_of(d)))] for d in designs]
                   + [["published: parallel vs standard", "less energy", "–", "more power", "–"]])
    return res, timing, speed, energy


def anchors_layout(rs):
    """Mb/s per LUT of our AES designs on ecp5 beside the issue's open anchors."""
    body = []
    for r in rs:
        if r["target"] != "ecp5" or not r["design"].startswith(("aes128", "ccmp")):
            continue
        mbps = r["gbps"] * 1000 if r["gbps"] else None
        body.append([r["design"], r["fmax_mhz"], r["gbps"], r["luts"], r["brams"],
                     round(mbps / r["luts"], 3) if mbps else None])
    for name, fmax, cycles_per_block, luts, brams in ANCHORS:
        gbps = round(128 * fmax / cycles_per_block / 1000, 2)
        body.append([f"anchor: {name}", fmax, gbps, luts, brams, round(gbps * 1000 / luts, 3)])
    return table(["design", "Fmax (MHz)", "Gb/s", "LUT4s", "BRAMs", "Mb/s per LUT"], body)


def p004_layout(rs):
    """Seed paper 004's Tables 4-5 (Ahmad and Ismail: slices/LUTs, period, Fmax, latency,
    throughput, throughput per slice) with aes128_p004_core beside them: the throughput as
    Table 5 prints it (Eq. 1 with the latency of one round call), by Eq. 1 with Eq. 2's
    latency (cycles x Nr), and by the plain 128 bits x Fmax / cycles per block."""
    pub = json.loads((PUBLISHED / "ahmad_ismail_aes128_wimax.json").read_text())
    t4 = {r[0]: r for r in next(t for t in pub["tables"] if t["id"] == "Table 4")["rows"]}
    t5 = next(t for t in pub["tables"] if t["id"] == "Table 5")["rows"]
    gbps = lambda fmax, cycles: round(128 * fmax / cycles / 1000, 3)
    body = []
    for family, period, fmax, latency, printed, per_slice in t5:
        _, slices, ffs, luts, _, _ = t4[family]
        body.append([f"published: {family}", f"{slices.split('/')[0]} slices, {luts.split('/')[0]} LUTs",
                     ffs.split("/")[0], period, fmax, "–", latency, latency * P004_NR, printed,
                     gbps(fmax, latency * P004_NR), gbps(fmax, latency * P004_NR), per_slice])
    for r in rs:
        if r["design"] != "aes128_p004":
            continue
        fmax, call = r["fmax_mhz"], P004_CALL_CYCLES
        block = call * P004_NR
        where = "LFE5U-85F-6" if r["target"] == "ecp5" else "xc7 (Yosys synth_xilinx cells, no place and route)"
        body.append([f"ours: aes128_p004_core, {where}", f"{r['luts']} LUT{'4' if r['target'] == 'ecp5' else 's'}",
                     r["ffs"], round(1000 / fmax, 3) if fmax else None, fmax, spread(r), call, block,
                     gbps(fmax, call) if fmax else None, gbps(fmax, block) if fmax else None,
                     gbps(fmax, block) if fmax else None,
                     f"{round(gbps(fmax, block) * 1000 / r['luts'], 3)} per LUT4" if fmax else None])
    return table(["design", "slices / LUTs", "FFs", "min. clk period (ns)", "Fmax (MHz, median)", "Fmax min–max",
                  "latency (cycles): one round call", "cycles per block (Eq. 2: × Nr)",
                  "Gb/s as Table 5 (Eq. 1, latency = one call)", "Gb/s by Eq. 1 with Eq. 2",
                  "Gb/s = 128 · Fmax / cycles per block", "Mb/s per slice (Table 5) / per LUT (block rate)"], body) + (
        f"\nWhy the throughputs differ: Table 5 puts the latency of one round call (3 or 4 cycles) into Eq. 1, "
        f"where Eq. 2 defines the latency as those cycles × Nr; a block is Nr = {P004_NR} calls, so Table 5's "
        f"figure is 128 bits per round, {P004_NR} times the rate at which blocks come out. Eq. 1 with Eq. 2 and "
        f"the plain 128 · Fmax / cycles per block agree ({P004_CALL_CYCLES} × {P004_NR} = "
        f"{P004_CALL_CYCLES * P004_NR} cycles, the bench's measured block time). Even with three blocks "
        f"interleaved in the core's three stages (the bench's last test: 10 cycles a block) the block rate is "
        f"128 · Fmax / 10, 3/10 of what Table 5 states for a 3-cycle round.\n" + "".join(
            f"\nCritical path on ECP5 (seed {p['seed']}, the one nearest the median): {p['from']} → {p['to']}, "
            f"{p['delay_ns']} ns ({p['logic_ns']} logic, {p['routing_ns']} routing).\n"
            for r in rs if r["design"] == "aes128_p004" and (p := r.get("critical_path"))))


def goals_layout(rs):
    """The issue's goals (LFE5U-85F -6, median over placement seeds), each with the figure
    reached at the current RTL, the margin, and the critical path of the median seed."""
    ecp5 = {r["design"]: r for r in rs if r["target"] == "ecp5"}
    gone = "not measured at the current RTL"
    pct = lambda got, goal: f"{(got - goal) / goal * 100:+.1f} %"

    def path(r):
        p = r.get("critical_path")
        return (f"critical path (seed {p['seed']}): {p['from']} → {p['to']}, {p['delay_ns']} ns "
                f"({p['logic_ns']} logic, {p['routing_ns']} routing)") if p else ""

    area = lambda r: f"{r['luts']} LUT4, {r['ffs']} FF, {r['brams']} EBR"
    too_big = lambda r: (f"; more than the LFE5U-85F's {ECP5_LUTS} LUTs: it cannot be placed"
                         if r["luts"] > ECP5_LUTS else "")
    body = []
    for name in ("ccmp_core", "ccmp_core_hu"):  # without and with the header unit
        core = ecp5.get(name)
        if core and core.get("fmax_mhz"):
            f, c = core["fmax_mhz"], core["cycles_per_frame_1500"]
            body.append([f"iterative `{name}` Fmax ≥ 100 MHz",
                         f"**{fmt(f)} MHz** median ({spread(core)}); {area(core)}; {path(core)}",
                         f"{'yes' if f >= 100 else 'no'}: {pct(f, 100)}"])
            if c:
                body.append([f"iterative `{name}` ≥ 12.6 Mb/s/MHz (≤ 952 cycles per 1500-octet frame)",
                             f"**{fmt(c)} cycles** = {core['mbps_per_mhz']} Mb/s/MHz on body bits "
                             f"({round((94 + 2) * 128 / c, 2)} counting the AAD blocks as data, as the published 12.59 does); "
                             f"{core['gbps']} Gb/s at the median Fmax",
                             f"{'yes' if c <= 952 else 'no'}: " + (f"{fmt(952 - c)} cycles under" if c <= 952 else
                                                                  f"{fmt(c - 952)} cycles over")
                             + f", {pct(core['mbps_per_mhz'], 12.6)} in Mb/s/MHz"])
        else:
            body.append([f"iterative `{name}` ≥ 100 MHz, ≥ 12.6 Mb/s/MHz",
                         (f"{no_median(core)}; area only: {area(core)}" if core else gone), "–"])
    for style in ("", "_bram"):
        par = ecp5.get("ccmp_core_n8" + style)
        std = standard_of(par, rs) if par else None
        label = f"8-way core ≥ 3.7× the standard core's frame time ({'block-RAM' if style else 'LUT'} S-boxes), area stated"
        if std and par and std.get("fmax_mhz") and par.get("fmax_mhz") and par.get("cycles_per_frame_1500"):
            x = par["speedup_1500"]
            body.append([label, f"**{fmt(x)}×** at the median Fmax of each, both routed by {router_of(par)} "
                                f"(`{std['design']}`): {fmt(par['cycles_per_frame_1500'])} cycles at "
                                f"{fmt(par['fmax_mhz'])} MHz ({spread(par)}) vs {fmt(std['cycles_per_frame_1500'])} at "
                                f"{fmt(std['fmax_mhz'])} MHz; area {par['luts']} vs {std['luts']} LUT4, {par['ffs']} vs "
                                f"{std['ffs']} FF, {par['brams']} vs {std['brams']} EBR; 8-way {path(par)}",
                         f"{'yes' if x >= 3.7 else 'no'}: {pct(x, 3.7)}"])
        elif par and par.get("fmax_mhz"):
            body.append([label, f"no standard core routed by {router_of(par)} at the current RTL to compare with "
                                f"(`make -C hdl synth SYNTH_DESIGNS=ccmp_core{style}_{router_of(par)}:ecp5`)", "–"])
        else:
            body.append([label, (f"{no_median(par)}; area only: {area(par)}{too_big(par)}" if par else gone), "–"])
    for name, style in (("ccmp_multi_r1", "LUT S-boxes"), ("ccmp_multi_r1_split_bram", "block-RAM S-boxes")):
        multi, label = ecp5.get(name), f"multi-frame core ≥ 10 Gb/s ({style}, `{name}`)"
        if multi and multi.get("gbps"):
            body.append([label, f"**{multi['gbps']} Gb/s** at {fmt(multi['fmax_mhz'])} MHz median "
                         f"({spread(multi)}), {fmt(multi['cycles_per_frame_1500'])} cycles per 1500-octet frame "
                         f"(aggregate); {multi['luts']} LUT4, {multi['ffs']} FF, {multi['brams']} EBR; {path(multi)}",
                         f"{'yes' if multi['gbps'] >= 10 else 'no'}: {pct(multi['gbps'], 10)}"])
        else:
            body.append([label, (f"{no_median(multi)}; area only: {area(multi)}" if multi else gone), "–"])
    return table(["goal", "reached (median over placement seeds)", "met?"], body)


def speedup(par, std):
    """How many times faster a frame of 1500 octets goes through `par` than through `std`, each
    at its median Fmax."""
    t = lambda r: r["cycles_per_frame_1500"] / r["fmax_mhz"]
    return t(std) / t(par)


# hdl/README.md's figures: `<!-- fig NAME -->text<!-- /fig -->`, the text rewritten by this
# script from summary.json (NAME = design[:target].key, target ecp5 unless named) or from
# netlists.json (NAME = netlist:top.key), and checked by syn/check_figures.py.
FIGURE = re.compile(r"<!-- fig ([\w:.]+) -->((?:(?!<!-- /?fig).)*)<!-- /fig -->", re.S)
FIGURE_MARK = re.compile(r"<!-- /?fig\b")


def figure(name, rs, netlists):
    """The text of one named figure; KeyError for a name that names nothing measured."""
    subject, key = name.rsplit(".", 1)
    count = lambda v: f"{v:,}"
    if subject.startswith("netlist:"):
        return count(netlists[subject.split(":", 1)[1]][key])
    design, _, target = subject.partition(":")
    r = next((r for r in rs if r["design"] == design and r["target"] == (target or "ecp5")), None)
    if r is None:
        raise KeyError(f"{design}:{target or 'ecp5'} has no row in summary.json")
    per_block = AES_CYCLES_PER_BLOCK.get(lut_twin(design))
    values = {
        "luts": lambda: count(r["luts"]), "ffs": lambda: count(r["ffs"]), "brams": lambda: count(r["brams"]),
        "fmax": lambda: fmt(r["fmax_mhz"]), "spread": lambda: f"{fmt(r['fmax_min_mhz'])}–{fmt(r['fmax_max_mhz'])}",
        "seeds": lambda: str(len([f for f in r["fmax_by_seed"].values() if f is not None])),
        "cycles": lambda: fmt(r["cycles_per_frame_1500"]), "gbps": lambda: fmt(r["gbps"]),
        "frame_us": lambda: fmt(round(r["cycles_per_frame_1500"] / r["fmax_mhz"], 2)),
        # An AES core's block rate, 128 bits a block (aes128_p004: and Table 5's, a round call a block).
        "block_gbps": lambda: fmt(round(128 * r["fmax_mhz"] / per_block / 1000, 3)),
        "call_gbps": lambda: fmt(round(128 * r["fmax_mhz"] / P004_CALL_CYCLES / 1000, 3)),
        "speedup": lambda: fmt(r["speedup_1500"]), "standard": lambda: r["standard"],
        "router": lambda: router_of(r),
    }
    if key not in values:
        raise KeyError(f"no figure {key!r} (one of {', '.join(values)})")
    text = values[key]()
    if text in (None, "–"):
        raise KeyError(f"{name} is not measured at the current RTL")
    return text


def fill_figures(text, rs, netlists):
    """`text` with every named figure rewritten; unknown names are left for check_figures.py."""
    def one(m):
        try:
            return f"<!-- fig {m[1]} -->{figure(m[1], rs, netlists)}<!-- /fig -->"
        except (KeyError, TypeError, ZeroDivisionError):
            return m[0]
    return FIGURE.sub(one, text)


def replace_between(text, marker, content):
    start = text.index(f"<!-- {marker} -->") + len(f"<!-- {marker} -->\n")
    end = text.index(f"<!-- /{marker} -->")
    return text[:start] + content + text[end:]


def main():
    rs = rows()
    out = HDL / "reports"
    (out / "summary.json").write_text(json.dumps(rs, indent=1) + "\n")
    res, timing, speed, energy = parallel_layouts(rs)
    layouts = ("### Implementation results (Algredo-Badillo 2010, Table 2 layout)\n\n" + algredo_layout(rs)
               + "\n### Resources, standard vs parallel (Hayajneh et al., Table III layout)\n\n" + res
               + "\n### Timing (Table IV layout)\n\n" + timing
               + "\n### Total time for one 1500-octet frame, parallel vs standard\n\n" + speed
               + "\n### Energy proxy (Table V layout: switching activity, not watts)\n\n" + energy
               + "\n### Mb/s per LUT beside the open AES anchors\n\n" + anchors_layout(rs)
               + "\n### Seed paper 004's AES-128 core (Ahmad and Ismail, Tables 4–5 layout)\n\n" + p004_layout(rs))
    missing = not_measured()
    readme = out / "README.md"
    table_text = summary_table(rs) + ("\nNot measured at the current RTL (no record in `designs/`; "
                                      "`make -C hdl synth SYNTH_DESIGNS=...`): " + ", ".join(missing) + "\n"
                                      if missing else "")
    text = replace_between(readme.read_text(), "TABLE", table_text)
    text = replace_between(text, "GOALS", goals_layout(rs))
    netlists = netlist_rows()
    NETLISTS.write_text(json.dumps(netlists, indent=1) + "\n")
    readme.write_text(fill_figures(replace_between(text, "LAYOUTS", layouts), rs, netlists))
    HDL_README.write_text(fill_figures(HDL_README.read_text(), rs, netlists))
    for r in rs:
        print(r["design"], r["target"], r["luts"], r["fmax_mhz"], spread(r), r["cycles_per_frame_1500"])


if __name__ == "__main__":
    main()
