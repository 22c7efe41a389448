#!/usr/bin/env python3
"""Medians of `wlansec bench ccmp --json` runs: python3 summarize.py DIR

The runs are DIR/TAG-*.json (runs.sh writes run-*, ab.sh base-* and new-*); each TAG is a
column. Per row (implementation, mode, lanes, frame bytes) the median cycles/byte of each
TAG, with the range where there is one TAG; with two TAGs also the median of the run-by-run
ratio second/first (ab.sh's pairs share a vCPU and a moment, so their ratio is the fairer
figure on a shared machine). Then the sharded engine's fractions of the kernel, the speed-up
over intel-ipsec-mb, Enhanced-8 against Enhanced-4 at 64 octets, and the multi-buffer kernel
against its step on registers alone."""

import collections
import json
import pathlib
import statistics
import sys


def load(directory):
    runs = collections.defaultdict(list)
    for path in sorted(pathlib.Path(directory).glob("*-*.json")):
        runs[path.name.split("-", 1)[0]].append(json.loads(path.read_text()))
    if not runs:
        sys.exit(f"summarize: no TAG-*.json runs in {directory}")
    return runs


def median(values):
    return statistics.median(values) if values else float("nan")


def per_run(runs, value):
    """`value(run)` of every run where it is defined."""
    return [v for v in map(value, runs) if v is not None]


def find(items, **match):
    return next((i for i in items if all(i.get(k) == v for k, v in match.items())), None)


def main(directory):
    runs = load(directory)
    tags = list(runs)
    first = runs[tags[0]][0]["machine"]
    print(f"{first['cpu']}, backend {first['backend']}")
    for tag, tagged in runs.items():
        loads = [r["machine"]["load_average"][0] for r in tagged]
        commits = sorted({r["machine"].get("commit", "unknown") for r in tagged})
        print(f"{tag}: {len(tagged)} runs, commit {', '.join(commits)}, "
              f"1-minute load at start {min(loads):.2f}-{max(loads):.2f}")

    rows = []
    for tagged in runs.values():
        for r in tagged[0]["results"]:
            key = (r["impl"], r["mode"], r["lanes"], r["frame_bytes"])
            if key not in rows:
                rows.append(key)

    def cpb(run, key):
        r = find(run["results"], impl=key[0], mode=key[1], lanes=key[2], frame_bytes=key[3])
        return r and r["cycles_per_byte"]

    paired = len(tags) == 2
    print()
    print(f"{'cycles/byte, medians':<46}" + "".join(f"{t:>10}" for t in tags)
          + (f"{tags[1] + '/' + tags[0]:>14}" if paired else "   range"))
    for key in rows:
        columns = [per_run(runs[t], lambda run: cpb(run, key)) for t in tags]
        line = f"{' '.join(map(str, key)):<46}" + "".join(f"{median(c):>10.3f}" for c in columns)
        if paired:
            ratios = [n / b for b, n in zip(*columns)]
            line += f"{median(ratios):>14.3f}"
        elif columns[0]:
            line += f"   {min(columns[0]):.3f}-{max(columns[0]):.3f}"
        print(line)

    print()
    for tag, tagged in runs.items():
        for rows, setting in (("threads", "thread(s)"), ("inline", "inline")):
            for t in tagged[0].get(rows, []):
                row = dict(direction=t["direction"], threads=t["threads"], **({"mode": t["mode"]} if "mode" in t else {}))
                same = per_run(tagged, lambda run: find(run[rows], **row)["of_kernel_same_frames"])
                speedup = per_run(tagged, lambda run: find(run[rows], **row)["speedup"])
                print(f"{tag}: sharded {t.get('mode', '')} {t['direction']:<9} {t['threads']} {setting}: of the kernel on "
                      f"the same frames {median(same):.3f} ({min(same):.3f}-{max(same):.3f}), x{median(speedup):.2f} of 1 thread")
        for v in tagged[0]["versus_ipsec_mb"]:
            setting = dict(mode=v.get("mode", "multibuffer"), frame_bytes=v["frame_bytes"])
            speedups = per_run(tagged, lambda run: (find(run["versus_ipsec_mb"], **setting) or {})
                               .get("wlansec_speedup"))
            print(f"{tag}: {setting['mode']} {setting['frame_bytes']} B: x{median(speedups):.2f} intel-ipsec-mb's "
                  f"best (median of per-run ratios)")
        ratios = per_run(tagged, lambda run: (cpb(run, ("wlansec", "enhanced", 8, 64)) or 0)
                         / (cpb(run, ("wlansec", "enhanced", 4, 64)) or 1))
        print(f"{tag}: Enhanced-8 / Enhanced-4 at 64 B, per run: median {median(ratios):.3f}")
        alone = per_run(tagged, lambda run: run.get("alone") and [
            find(run["alone"], mode="enhanced", lanes=n, frame_bytes=64)["cycles_per_frame_alone"] for n in (8, 4)])
        if alone:
            print(f"{tag}: Enhanced-8 / Enhanced-4 at 64 B, one frame alone (LFENCE), per run: "
                  f"median {median([e8 / e4 for e8, e4 in alone]):.3f}")
        width = {"avx512-vaes": "zmm", "avx2-vaes": "ymm"}.get(tagged[0]["machine"]["backend"])
        lanes = next(r["lanes"] for r in tagged[0]["results"] if r["impl"] == "wlansec" and r["mode"] == "multibuffer")
        if width:
            ceiling = per_run(tagged, lambda run: (cpb(run, ("wlansec", "multibuffer", lanes, 1500)) or 0) / find(
                run["bound"]["lane_steps"], registers=width, lanes=lanes)["cycles_per_byte_1500"])
            print(f"{tag}: multi-buffer 1500 B / its {width} {lanes}-lane step on registers alone, per run: "
                  f"median {median(ceiling):.3f} ({min(ceiling):.3f}-{max(ceiling):.3f})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.splitlines()[0])
    main(sys.argv[1])
