"""Medians of the A/B runs in raw/ (tar xzf runs.tar.gz): cycles/byte of the multi-buffer
engine before (base) and with the queue longest first (lpt2), and x intel-ipsec-mb at its best."""
import glob
import json
import statistics as st

rows = {}
for b in ("base", "lpt2"):
    for f in sorted(glob.glob(f"raw/{b}-*.json")):
        d = json.load(open(f))
        for v in d["versus_ipsec_mb"]:
            key = (v["mode"], v["frame_bytes"])
            rows.setdefault(key, {}).setdefault(b, []).append((v["wlansec_cycles_per_byte"], v["ipsec_mb_cycles_per_byte"], v["wlansec_speedup"]))
        for r in d["batch_sizes"]:
            if r["impl"] == "wlansec" and r["mode"] == "mixed":
                rows.setdefault(("mixed, frames a call", r["frames_per_call"]), {}).setdefault(b, []).append((r["cycles_per_byte"], 0, 0))
print(f"{'row':26} {'base c/B':>9} {'longest-first':>13} {'ratio':>6}   {'x ipsec-mb base':>15} {'longest-first':>13}")
for key, v in rows.items():
    b, l = v.get("base", []), v.get("lpt2", [])
    mb, ml = st.median(x[0] for x in b), st.median(x[0] for x in l)
    sb, sl = st.median(x[2] for x in b), st.median(x[2] for x in l)
    versus = f"   {sb:15.2f} {sl:13.2f}" if key[0] != "mixed, frames a call" else ""
    print(f"{key[0]+' '+str(key[1]):26} {mb:9.3f} {ml:13.3f} {ml/mb:6.3f}{versus}")
