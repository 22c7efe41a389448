"""Collect synthesis results (build/syn) and simulated cycle counts (build/cycles) into
reports/summary.json and the table in reports/README.md (between the TABLE markers)."""
import json
from pathlib import Path

HDL = Path(__file__).resolve().parents[1]
FRAME_BITS = 1500 * 8
AES_BLOCKS_1500 = 94  # AES alone: 1500 octets = 94 blocks at the core's measured issue rate
AES_CYCLES_PER_BLOCK = {"aes128_core": 10, "aes128_core_enc": 10, "aes128_unrolled_r2": 5,
                        "aes128_pipelined": 1}


def cycles(design):
    if design in AES_CYCLES_PER_BLOCK:
        return AES_BLOCKS_1500 * AES_CYCLES_PER_BLOCK[design]
    path = HDL / "build" / "cycles" / f"{design}-verilator.json"
    return json.loads(path.read_text())["cycles_per_frame_1500"] if path.exists() else None


def toggles(design):
    path = HDL / "build" / "toggles" / f"{design}.json"
    return json.loads(path.read_text())["toggles_per_frame"] if path.exists() else None


def main():
    rows = []
    for path in sorted((HDL / "build" / "syn").glob("*-*.json")):
        if not path.stem.endswith(("-ecp5", "-ice40", "-xilinx")):
            continue
        r = json.loads(path.read_text())
        if "design" not in r:
            continue
        c = cycles(r["design"])
        mbps_per_mhz = round(FRAME_BITS / c, 2) if c else None
        fmax = r.get("fmax_mhz")
        rows.append({
            "design": r["design"], "target": r["target"], "luts": r["luts"], "ffs": r["ffs"],
            "brams": r["brams"], "fmax_mhz": fmax, "cycles_per_frame_1500": c,
            "gbps": round(mbps_per_mhz * fmax / 1000, 3) if (mbps_per_mhz and fmax) else None,
            "mbps_per_mhz": mbps_per_mhz, "toggles_per_frame": toggles(r["design"]),
        })
    out = HDL / "reports"
    (out / "summary.json").write_text(json.dumps(rows, indent=1) + "\n")
    head = ("| design | target | LUTs | FFs | BRAMs | Fmax (MHz) | cycles / 1500 B | Mb/s/MHz "
            "| Gb/s | toggles / frame |\n|---|---|---|---|---|---|---|---|---|---|\n")
    fmt = lambda v: "–" if v is None else (f"{v:g}" if isinstance(v, float) else str(v))
    table = head + "".join(
        "| " + " | ".join(fmt(r[k]) for k in ("design", "target", "luts", "ffs", "brams",
                                                "fmax_mhz", "cycles_per_frame_1500",
                                                "mbps_per_mhz", "gbps", "toggles_per_frame"))
        + " |\n" for r in rows)
    readme = out / "README.md"
    text = readme.read_text()
    start, end = text.index("<!-- TABLE -->") + len("<!-- TABLE -->\n"), text.index("<!-- /TABLE -->")
    readme.write_text(text[:start] + table + text[end:])
    for r in rows:
        print(r)


if __name__ == "__main__":
    main()
