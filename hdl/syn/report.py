"""Collect synthesis results (build/syn), simulated cycle counts (build/cycles) and toggle
counts (build/toggles) into reports/summary.json, the summary table in reports/README.md
(between the TABLE markers) and the tables in the published papers' layouts (between the
LAYOUTS markers): implementation results beside Algredo-Badillo 2010 Table 2; resources,
timing, parallel-vs-standard time and the energy proxy in Hayajneh et al.'s Tables III–V
layout; Mb/s per LUT beside the open AES anchors."""
import json
import re
from pathlib import Path

HDL = Path(__file__).resolve().parents[1]
SYN = HDL / "build" / "syn"
PUBLISHED = HDL / "reports" / "published"
FRAME_BITS = 1500 * 8
AES_BLOCKS_1500 = 94  # AES alone: 1500 octets = 94 blocks at the core's measured issue rate
AES_CYCLES_PER_BLOCK = {"aes128_core": 10, "aes128_core_enc": 10, "aes128_unrolled_r2": 5,
                        "aes128_pipelined": 1, "aes128_pipelined_split": 1}
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


def lut_twin(design):
    """The LUT-mapped design of a block-RAM one (*_bram: S-boxes, *_tbox: T-tables)."""
    return re.sub(r"_(bram|tbox)$", "", design)


def cycles(design):
    """From the design's own bench run; a block-RAM design (same RTL, another round order)
    falls back on its LUT twin's count, which the benches show to be equal."""
    base = lut_twin(design)
    if base in AES_CYCLES_PER_BLOCK:
        return AES_BLOCKS_1500 * AES_CYCLES_PER_BLOCK[base]
    for name in (design, base):
        for sim in ("verilator", "icarus"):  # Verilator's count first, where both ran
            path = HDL / "build" / "cycles" / f"{name}-{sim}.json"
            if path.exists():
                return json.loads(path.read_text())["cycles_per_frame_1500"]
    return None


def toggles(design):
    """From the design's own run; a *_bram design (its LUT twin's RTL) from the twin's."""
    for name in (design, re.sub(r"_bram$", "", design)):
        path = HDL / "build" / "toggles" / f"{name}.json"
        if path.exists():
            return json.loads(path.read_text())["toggles_per_frame"]
    return None


def pnr_delays(design, target):
    """(Tsu, Tco, clock-to-clock) in ns from nextpnr's log: the worst pin-to-register,
    register-to-pin and register-to-register paths of the last timing analysis."""
    log = SYN / f"{design}-{target}-nextpnr.log"
    result = SYN / f"{design}-{target}.json"
    # A log without an Fmax in the result is a stale or unfinished run's.
    if not log.exists() or not result.exists() or json.loads(result.read_text()).get("fmax_mhz") is None:
        return None, None, None
    text = log.read_text()
    tsu = re.findall(r"Max delay <async>\s+-> posedge [^:]+:\s+([\d.]+) ns", text)
    tco = re.findall(r"Max delay posedge [^-]+-> <async>\s*:\s+([\d.]+) ns", text)
    fmax = re.findall(r"Max frequency for clock\s+'[^']*':\s+([\d.]+) MHz", text)
    last = lambda xs: float(xs[-1]) if xs else None
    return last(tsu), last(tco), (round(1000 / float(fmax[-1]), 2) if fmax else None)


def provenance(design, target):
    """The commit the synthesis result was measured at, and the router if not the default."""
    path = SYN / f"{design}-{target}.json"
    r = json.loads(path.read_text()) if path.exists() else {}
    commit = r.get("commit")
    note = f"{commit[:12]}{'+dirty' if 'dirty' in commit else ''}" if commit else "an older RTL (not recorded)"
    seeds = f", best of {len(r['fmax_by_seed'])} placement seeds" if r.get("fmax_by_seed") else ""
    return note + (f", {r['router']}" if r.get("router", "router1") != "router1" else "") + seeds


def rows():
    out = []
    for path in sorted(SYN.glob("*-*.json")):
        if not path.stem.endswith(("-ecp5", "-ice40", "-xilinx")):
            continue
        r = json.loads(path.read_text())
        if "design" not in r:
            continue
        c = cycles(r["design"])
        mbps_per_mhz = round(FRAME_BITS / c, 2) if c else None
        fmax = r.get("fmax_mhz")
        out.append({
            "design": r["design"], "target": r["target"], "luts": r["luts"], "ffs": r["ffs"],
            "brams": r["brams"], "fmax_mhz": fmax, "cycles_per_frame_1500": c,
            "gbps": round(mbps_per_mhz * fmax / 1000, 3) if (mbps_per_mhz and fmax) else None,
            "mbps_per_mhz": mbps_per_mhz, "toggles_per_frame": toggles(r["design"]),
        })
    return out


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


def summary_table(rs):
    keys = ("design", "target", "luts", "ffs", "brams", "fmax_mhz", "cycles_per_frame_1500",
            "mbps_per_mhz", "gbps", "toggles_per_frame")
    head = ["design", "target", "LUTs", "FFs", "BRAMs", "Fmax (MHz)", "cycles / 1500 B", "Mb/s/MHz",
            "Gb/s", "toggles / frame", "measured at"]
    return table(head, [[r[k] for k in keys] + [provenance(r["design"], r["target"])] for r in rs])


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
        ["Clock (MHz)", pubrow["Clock (MHz)"]] + [fm(r) for r in ours],
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


def parallel_layouts(rs):
    """Hayajneh et al. Tables III (resources), IV (timing), the total-time comparison and
    V (power/energy, here the toggle proxy), standard vs 2/4/8-way, on ecp5. Each design is
    set against the standard design of its own S-box mapping (LUTs, or block RAM)."""
    ecp5 = {r["design"]: r for r in rs if r["target"] == "ecp5"}
    designs = [d for d in WAYS if d in ecp5] + [f"{d}_bram" for d in WAYS if f"{d}_bram" in ecp5]
    std_of = lambda d: ecp5.get("ccmp_core_bram" if d.endswith("_bram") else "ccmp_core") or {}
    ways = lambda d: WAYS[lut_twin(d)]
    ratio = lambda a, b: round(a / b, 2) if (a is not None and b) else None
    vs = lambda d, key: ratio(ecp5[d][key], std_of(d).get(key))
    res = table(["design", "ways N", "LUT4s", "FFs", "BRAMs", "LUTs × standard", "FFs × standard", "BRAMs × standard"],
                [[d, ways(d), ecp5[d]["luts"], ecp5[d]["ffs"], ecp5[d]["brams"], vs(d, "luts"), vs(d, "ffs"),
                  vs(d, "brams")] for d in designs]
                + [["published: parallel vs standard (Cyclone II LEs)", "–", "–", "–", "–", 2.4, "–", "–"]])
    timing_rows = []
    for d in designs:
        tsu, tco, clk = pnr_delays(d, "ecp5")
        timing_rows.append([d, tsu, tco, clk, ecp5[d]["fmax_mhz"]])
    timing = table(["design", "Tsu: pin → register (ns)", "Tco: register → pin (ns)", "Clk-Clk: register → register (ns)",
                    "Fmax (MHz)"], timing_rows)
    time_ns = lambda r: round(r["cycles_per_frame_1500"] / r["fmax_mhz"] * 1000, 1) \
        if (r.get("cycles_per_frame_1500") and r.get("fmax_mhz")) else None
    speed = table(["design", "cycles / 1500 B", "speedup (cycles)", "time / 1500 B at Fmax (ns)", "speedup (time)",
                   "LUTs × standard"],
                  [[d, ecp5[d]["cycles_per_frame_1500"], ratio(std_of(d).get("cycles_per_frame_1500"),
                                                               ecp5[d]["cycles_per_frame_1500"]),
                    time_ns(ecp5[d]), ratio(time_ns(std_of(d)), time_ns(ecp5[d])), vs(d, "luts")] for d in designs]
                  + [["published: standard → parallel (Cyclone II, Modelsim)", "–", "–", "2830 → 770", 3.7, 2.4]])
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
               + "\n### Mb/s per LUT beside the open AES anchors\n\n" + anchors_layout(rs))
    readme = out / "README.md"
    text = replace_between(readme.read_text(), "TABLE", summary_table(rs))
    readme.write_text(replace_between(text, "LAYOUTS", layouts))
    for r in rs:
        print(r)


if __name__ == "__main__":
    main()
