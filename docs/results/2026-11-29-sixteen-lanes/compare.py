"""Medians of the alternating runs in raw/ (tar xzf runs.tar.gz): `wlansec bench ccmp --lanes 8`
against `--lanes 16` on one binary, cycles/byte and x intel-ipsec-mb at its best."""
import glob
import json
import statistics as st

runs = {lanes: [json.load(open(f)) for f in sorted(glob.glob(f"raw/lanes{lanes}-*.json"))] for lanes in (8, 16)}
print(f"{'multi-buffer, octets':24} {'8 lanes c/B':>12} {'16 lanes c/B':>13} {'ratio':>6} {'x ipsec-mb, 8':>14} {'16':>6}")
for v in runs[8][0]["versus_ipsec_mb"]:
    key = (v["mode"], v["frame_bytes"])
    cells = {}
    for lanes, rs in runs.items():
        got = [x for r in rs for x in r["versus_ipsec_mb"] if (x["mode"], x["frame_bytes"]) == key or
               (x["mode"] == "mixed" == key[0])]
        cells[lanes] = (st.median(x["wlansec_cycles_per_byte"] for x in got), st.median(x["wlansec_speedup"] for x in got))
    print(f"{key[0] + ' ' + str(key[1]):24} {cells[8][0]:12.3f} {cells[16][0]:13.3f} {cells[16][0] / cells[8][0]:6.3f}"
          f" {cells[8][1]:14.2f} {cells[16][1]:6.2f}")
for lanes, rs in runs.items():
    steps = {s["lanes"]: st.median(r2["cycles_per_step"] for r in rs for r2 in r["bound"]["lane_steps"]
                                   if r2["registers"] == "zmm" and r2["lanes"] == s["lanes"])
             for s in rs[0]["bound"]["lane_steps"] if s["registers"] == "zmm"}
    print(f"runs with --lanes {lanes}: zmm step on registers alone, cycles: " +
          ", ".join(f"{n} lanes {c:.1f}" for n, c in steps.items()))
