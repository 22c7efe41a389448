"""Medians over runs of `wlansec bench ccmp --json` files: python summarize.py label=glob ..."""
import glob, json, statistics, sys
sets = {}
for arg in sys.argv[1:]:
    label, pattern = arg.split("=", 1)
    sets[label] = [json.load(open(f)) for f in sorted(glob.glob(pattern))]
def med(xs): return statistics.median(xs) if xs else float('nan')
keys = []
for runs in sets.values():
    for r in runs[0]["results"]:
        k = (r["impl"], r["mode"], r["lanes"], r["frame_bytes"])
        if k not in keys: keys.append(k)
print("rows (cycles/byte medians):", " | ".join(f"{l} n={len(v)}" for l, v in sets.items()))
for k in keys:
    vals = []
    for runs in sets.values():
        xs = [r["cycles_per_byte"] for d in runs for r in d["results"] if (r["impl"], r["mode"], r["lanes"], r["frame_bytes"]) == k]
        vals.append(f"{med(xs):8.3f}")
    print(f"{k[0]:22s} {k[1]:12s} {k[2]:3d} {k[3]:5d} " + " ".join(vals))
print("threads (GB/s medians, of_kernel):")
for l, runs in sets.items():
    for t in runs[0].get("threads", []):
        xs = [x for d in runs for x in d["threads"] if x["direction"] == t["direction"] and x["threads"] == t["threads"]]
        ok = [x.get("of_kernel") for x in xs if x.get("of_kernel") is not None]
        same = [x["of_kernel_same_frames"] for x in xs if "of_kernel_same_frames" in x]
        print(f"  {l}: {t['direction']:9s} {t['threads']} thr {med([x['gb_per_s'] for x in xs]):.3f} GB/s"
              f" speedup {med([x['speedup'] for x in xs]):.3f}" + (f" of_kernel {med(ok):.3f}" if ok else "")
              + (f" of_kernel_same_frames {med(same):.3f}" if same else ""))
    print(f"  {l}: load {[d['machine']['load_average'][0] for d in runs]} backend {runs[0]['machine']['backend']}")
print("wlansec multi-buffer speed-up over intel-ipsec-mb's best, median of per-run ratios:")
for l, runs in sets.items():
    sizes = [v["frame_bytes"] for v in runs[0]["versus_ipsec_mb"]]
    print(f"  {l}: " + "  ".join(f"{s} B x{med([v['wlansec_speedup'] for d in runs for v in d['versus_ipsec_mb'] if v['frame_bytes']==s]):.2f}" for s in sizes))
