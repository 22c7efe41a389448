#!/usr/bin/env python3
"""The README's results tables, generated from the raw files the benchmarks wrote.

    .venv/bin/python scripts/readme_results.py           # rewrite the tables in place
    .venv/bin/python scripts/readme_results.py --check   # exit 1 naming every table that differs

Four tables in README.md, each between `<!-- results:AREA -->` and `<!-- /results:AREA -->`:
engine (`wlansec bench ccmp` JSON), decryption (`scripts/bench_decrypt.py` JSON), hardware
(hdl/reports/summary.json) and lab (the published laboratory run, its readings recomputed by
the lab's own report code). The laboratory run's full readings go to its results folder's
README between `<!-- results:lab-readings -->` markers. Every row names the CPU or device and
the commit its raw file records ("not recorded" where the file has none); a row whose raw
file is missing is left out. The venv (`make setup`) provides the lab's packages."""

import argparse
import io
import json
import re
import shutil
import statistics
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RESULTS = ROOT / "docs" / "results"
LAB_RUN = RESULTS / "2026-11-22-lab-full"
LAB_README = LAB_RUN / "README.md"
# The published WPA3 run (`join` and `cipher-cost`), the README's WPA3 rows.
WPA3_RUN = RESULTS / "2026-11-29-wpa3-lab"
MEDIUM_FLOOR = RESULTS / "2026-11-26-medium-floor" / "floor.json"
CIPHERS_SOFT_AES = RESULTS / "2026-11-26-ciphers-aes-soft" / "run.json"
CIPHER_INSTRUCTIONS = RESULTS / "2026-11-21-bench-ciphers-quick-instructions.json"
HDL_SUMMARY = ROOT / "hdl" / "reports" / "summary.json"
REWRITE = ".venv/bin/python scripts/readme_results.py"

# The engine's headline sets: a results folder, the archive of its `wlansec bench ccmp --json`
# runs and the runs' names in it (one set of runs on one CPU). Only sets measured on the
# engine's current sources: an older set (another CPU class that cannot be re-measured here)
# stays in its folder, out of the tables.
ENGINE_SETS = [
    ("2026-11-29-closing-set", "set.tar.gz", r"raw/run-all-\d+\.json"),
]
# Capture decryption: a results folder and its `scripts/bench_decrypt.py --json` file, newest
# first, measured on the current sources.
DECRYPT_RUNS = [
    ("2026-11-29-closing-set", "decrypt.json"),
]
# hdl/reports/summary.json's placed designs, in the order shown, with what each is.
HARDWARE = [
    ("ccmp_core", "CCMP core, S-boxes in LUTs"),
    ("ccmp_core_hu", "the same with the header unit"),
    ("ccmp_core_bram", "CCMP core, S-boxes in block RAM"),
    ("ccmp_core_n8_bram", "8 ways"),
    ("ccmp_multi_r1", "12 frames at once, cycles per frame"),
    ("aes128_p004", "AES core as published (seed paper)"),
]


def link(path: Path) -> str:
    """A results folder or file, named by its date."""
    rel = path.relative_to(ROOT).as_posix()
    return f"[{path.name[:10]}]({rel}/)" if path.is_dir() else f"[{path.name[:10]}]({rel})"


def short(commit: str | None) -> str:
    return f"`{commit[:7]}`" if commit else "not recorded"


def cpu_name(cpu: str) -> str:
    """The CPU as its raw file names it, without trademark signs and the word "Processor"."""
    return " ".join(re.sub(r"\((R|TM)\)|\bProcessor\b", "", cpu).split())


def span(text: str) -> str:
    """"37–37" as "37"."""
    return re.sub(r"([\d.,]+)–\1\b", r"\1", text)


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


# ---------------------------------------------------------------- engine


def bench_runs(folder: Path, archive: str, members: str) -> list[dict]:
    with tarfile.open(folder / archive) as tar:
        names = sorted(n for n in tar.getnames() if re.fullmatch(r"(\./)?" + members, n))
        return [json.load(io.TextIOWrapper(tar.extractfile(n))) for n in names]


def cpb(run: dict, impl: str, mode: str, lanes: int, size: int) -> float | None:
    return next((r["cycles_per_byte"] for r in run["results"]
                 if (r["impl"], r["mode"], r["lanes"], r["frame_bytes"]) == (impl, mode, lanes, size)), None)


def engine_rows(folder: Path, runs: list[dict]) -> list[list[str]]:
    machine = runs[0]["machine"]
    flags = machine.get("cpu_flags", {})
    isa = "AVX-512+VAES" if flags.get("avx512f") and flags.get("vaes") else "AVX2+VAES" if flags.get("vaes") else "AES-NI"
    cpu = f"{cpu_name(machine['cpu'])}, {isa}, {len(runs)} runs"
    commits = {r["machine"].get("commit") for r in runs}
    commit = short(commits.pop()) if len(commits) == 1 else ", ".join(sorted(short(c) for c in commits))
    where = link(folder)

    def med(impl, mode, lanes, size):
        values = [v for v in (cpb(r, impl, mode, lanes, size) for r in runs) if v is not None]
        return statistics.median(values) if values else None

    def speedup(mode, size):
        """The median speed-up and the condition it was measured in: each side at its best batch
        size (the sizes most runs found best)."""
        versus = [v for r in runs for v in r["versus_ipsec_mb"] if v["mode"] == mode and v["frame_bytes"] == size]
        if not versus:
            return None, None

        def usual(side):
            sizes = [("stream" if v[f"{side}_stream"] else f"{v[f'{side}_frames_per_call']}/call") for v in versus]
            return max(set(sizes), key=sizes.count)
        return statistics.median(v["wlansec_speedup"] for v in versus), \
            f"at best (engine {usual('wlansec')}, ipsec-mb {usual('ipsec_mb')})"

    rows = []
    lanes = next(r["lanes"] for r in runs[0]["results"] if r["impl"] == "wlansec" and r["mode"] == "multibuffer")
    mb = [med("wlansec", "multibuffer", lanes, s) for s in (64, 1500, 2304)]
    if all(mb):
        rows.append([f"multi-buffer CCMP-128, {lanes} lanes, 64 / 1500 / 2304 B", " / ".join(f"{v:.3f}" for v in mb)])
    mixed = next(((r["lanes"], r["frame_bytes"]) for r in runs[0]["results"]
                  if r["impl"] == "wlansec" and r["mode"] == "mixed"), None)
    if mixed:  # the bench's notes: payloads drawn from 28 to 1500 octets, one call for all frames
        calls = {r["lanes"] for r in runs[0]["results"] if r["impl"].startswith("ipsec-mb") and r["mode"] == "mixed"}
        rows.append([f"multi-buffer, one call of {calls.pop() if len(calls) == 1 else 'several'} frames of 28–1500 B (mean {mixed[1]})",
                     f"{med('wlansec', 'mixed', *mixed):.3f}"])
    # The mixed comparison's frames: the batch streams'.
    mixed_versus = next((v["frame_bytes"] for v in runs[0]["versus_ipsec_mb"] if v.get("mode") == "mixed"), None)
    for label, mode, sizes in (("multi-buffer", "multibuffer", (64, 1500)), ("mixed frames", "mixed", (mixed_versus,) if mixed_versus else ())):
        got = [speedup(mode, s) for s in sizes]
        if not (got and all(x for x, _ in got)):
            continue
        if len({n for _, n in got}) == 1:
            rows.append([f"{label} vs ipsec-mb {got[0][1]}" + (", 64 / 1500 B" if len(sizes) == 2 else ""),
                         " / ".join(f"×{x:.2f}" for x, _ in got)])
        else:  # each size found its best at a different batch size
            rows += [[f"{label}, {size} B, vs intel-ipsec-mb {n}", f"×{x:.2f}"] for size, (x, n) in zip(sizes, got)]
    single, enh8 = med("wlansec", "single", 1, 1500), med("wlansec", "enhanced", 8, 1500)
    if single:
        rows.append(["one frame (stitched CBC-MAC and CTR), 1500 B", f"{single:.3f}"])
    if enh8:
        rows.append(["Enhanced CCMP N=8, one frame, 1500 B", f"{enh8:.3f}"])
    def threads_median(field, cores, mode="multibuffer"):
        return [statistics.median([t[field] for r in runs for t in r["threads"]
                                   if (t["direction"], t["threads"], t["mode"]) == (d, cores, mode)])
                for d in ("protect", "unprotect")]
    # The per-core engine: one pinned worker per core fed through rings, and inline (the calling
    # thread the worker of its own core, no hand-off).
    rows.append(["per-core engine fed by another core ÷ the kernel, seal / open, 1500 B",
                 " / ".join(f"{v:.3f}" for v in threads_median("of_kernel_same_frames", 1))])
    def inline_row(r, d, mode, cores):
        return next(t for t in r["inline"] if (t["direction"], t["mode"], t["threads"]) == (d, mode, cores))
    inline = [statistics.median([inline_row(r, d, mode, 1)["of_kernel_same_frames"] for r in runs])
              for mode in ("multibuffer", "mixed") for d in ("protect", "unprotect")]
    rows.append(["per-core engine inline ÷ the kernel, seal / open, 1500 B; mixed",
                 f"{inline[0]:.3f} / {inline[1]:.3f}; {inline[2]:.3f} / {inline[3]:.3f}"])
    most = max(t["threads"] for t in runs[0]["threads"])
    if most > 1:
        rows.append([f"per-core engine fed, {most} cores ÷ one, seal / open, 1500 B; mixed",
                     "; ".join(" / ".join(f"×{v:.2f}" for v in threads_median("speedup", most, mode))
                               for mode in ("multibuffer", "mixed"))])
    # Inline on every core (a thread a core, as a pipeline runs it) against inline on one, per run.
    if max(t["threads"] for t in runs[0]["inline"]) == most > 1:
        scaling = [statistics.median([inline_row(r, d, mode, most)["gb_per_s"] / inline_row(r, d, mode, 1)["gb_per_s"]
                                      for r in runs])
                   for mode in ("multibuffer", "mixed") for d in ("protect", "unprotect")]
        rows.append([f"inline, a thread a core, {most} cores ÷ one, seal / open, 1500 B; mixed",
                     f"×{scaling[0]:.2f} / ×{scaling[1]:.2f}; ×{scaling[2]:.2f} / ×{scaling[3]:.2f}"])
    return [r + [cpu, commit, where] for r in rows]


def engine() -> list[str]:
    rows = []
    for name, archive, members in ENGINE_SETS:
        folder = RESULTS / name
        if (folder / archive).exists():
            rows += engine_rows(folder, bench_runs(folder, archive, members))
    return ["Cycles per byte (core cycles), medians of each set's runs; a speed-up is the median of the runs' own ratios",
            "against intel-ipsec-mb's fastest manager and API (job or burst), each side at the batch size (frames per call,",
            "or one long stream) where it ran fastest.", ""] + \
        table(["figure", "value", "CPU", "commit", "raw runs"], rows)


# ---------------------------------------------------------------- decryption


def decrypt() -> list[str]:
    rows = []
    for name, path in DECRYPT_RUNS:
        folder = RESULTS / name
        if not (folder / path).exists():
            continue
        d = json.loads((folder / path).read_text())
        ours, theirs = d["tools"]["wlansec decrypt"], d["tools"]["airdecap-ng"]
        rows.append([f"{d['capture_mb']:.0f} MB, {d['frames']:,} frames, one core each, medians of {d['runs']}",
                     f"{ours['mb_per_cpu_s']:,.0f}", f"{theirs['mb_per_cpu_s']:,.0f}",
                     f"**{ours['mb_per_cpu_s'] / theirs['mb_per_cpu_s']:.1f}×**",
                     f"{d['wall_over_copy']['copy (cp)']:.2f}× on {d['threads']} threads" if "wall_over_copy" in d else "—",
                     cpu_name(d["host"]["cpu_model"]), short(d.get("commit")), link(folder)])
    return ["`wlansec decrypt` against airdecap-ng on one synthetic CCMP-128 capture (8 stations, a rekey), "
            "MB per CPU-second, and the wall time against a plain copy of the capture:", ""] + \
        table(["capture", "wlansec", "airdecap-ng", "ratio", "wall ÷ `cp`", "CPU", "commit", "raw runs"], rows)


# ---------------------------------------------------------------- hardware


def hardware() -> list[str]:
    rows = []
    if HDL_SUMMARY.exists():
        records = {(r["design"], r["target"]): r for r in json.loads(HDL_SUMMARY.read_text())}
        for design, what in HARDWARE:
            r = records.get((design, "ecp5"))
            if not r or r["fmax_mhz"] is None:
                continue
            seeds = len(r["fmax_by_seed"] or {})
            cycles = r["cycles_per_frame_1500"]
            if r.get("speedup_1500"):  # against the standard core's netlist routed by the same router
                standard = re.sub(r"_router\d$", "", r["standard"])
                what += f", {r['speedup_1500']:.2f}× `{standard}`, both {r['router']}"
            rows.append([f"`{design}`: {what}", f"{cycles:g}" if cycles == int(cycles) else f"{cycles:.2f}",
                         f"{r['fmax_mhz']:.2f} ({r['fmax_min_mhz']:.2f}–{r['fmax_max_mhz']:.2f}, {seeds} seeds)",
                         f"{r['gbps']:.2f}", f"{r['luts']:,}" + (f" + {r['brams']} EBR" if r["brams"] else ""),
                         f"{r['device']}-{r['speed_grade']}", short(r["commit"]), "[hdl/reports](hdl/reports/README.md)"])
    return ["Open tools (Yosys, nextpnr), every placement seed kept: Fmax is the median over seeds, never a best-of; "
            "cycles per 1500-octet frame from the benches.", ""] + \
        table(["design", "cycles", "Fmax MHz (min–max)", "Gb/s", "LUT4", "device", "commit", "figures"], rows)


# ---------------------------------------------------------------- laboratory


def lab_readings() -> list[str]:
    """The published run's readings, recomputed from its raw files by the lab's report code
    in a scratch copy (the published report is not touched)."""
    sys.path.insert(0, str(ROOT / "lab"))
    from wlansec_lab import report  # noqa: E402  (the venv's packages)

    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        shutil.copytree(LAB_RUN / "raw", scratch / "raw")
        shutil.copy(LAB_RUN / "run.json", scratch / "run.json")
        md = (report.write(scratch, wlansec=str(scratch / "no-wlansec")) / "report.md").read_text()
    summary = md.split("## Summary and limits of the emulation", 1)[1].split("Limits of the emulation:", 1)[0]
    return [line[2:] for line in summary.splitlines() if line.startswith("- ")]


def reading(readings: list[str], name: str) -> str:
    found = [r for r in readings if r.startswith(f"*{name}*")]
    if not found:
        raise SystemExit(f"readme_results: the laboratory report has no *{name}* reading")
    return found[0]


def grab(pattern: str, text: str) -> re.Match:
    m = re.search(pattern, text)
    if not m:
        raise SystemExit(f"readme_results: no match for {pattern!r} in the reading {text[:60]!r}…")
    return m


def lab(readings: list[str]) -> list[str]:
    run = json.loads((LAB_RUN / "run.json").read_text())
    xeon, where = cpu_name(run["machine"]["cpu"]), link(LAB_RUN)
    at = [xeon, "not recorded", where]
    rows = []
    video = reading(readings, "Video")
    for mode in (r"WPA2 \(CCMP\) \[hw\]", r"Enhanced \(host CCMP\)"):
        m = grab(mode + r" ([^;]*?) \(the study: ([^)]*)\)", video)
        rows.append([f"video delay ÷ open, {m[0].split(' ')[0]} {'`hw` card' if 'hw' in mode else 'host CCMP'}, g54",
                     f"{m[1]} (study: {m[2]})"] + at)
    tcp = reading(readings, "TCP")
    m = grab(r"open ([\d.–]+) Mbit/s and RTT ([\d.–]+) ms \(the study: ([\d.–]+) Mbit/s", tcp)
    rows.append(["TCP, open, n-mcs7-40, 128–1408 B", f"{m[1]} Mbit/s, RTT {m[2]} ms (study: {m[3]} Mbit/s)"] + at)
    m = grab(r"costs ([\d.–]+) Mbit/s, significant at (\d+ of \d+) points.*?, and ([-+\d.]+ to [-+\d.]+) ms RTT, "
             r"(.*?) \(the study: ([^)]*)\)", tcp)
    study = m[5].split(" and ")
    rows.append(["TCP throughput cost of WPA2 (`hw` card)", f"{m[1]} Mbit/s, significant at {m[2]} points (study: {study[0]})"] + at)
    rows.append(["TCP RTT cost of WPA2 (`hw` card)", f"{m[3]} ms, {m[4].replace('**', '')} (study: {study[-1]})"] + at)
    m = grab(r"poor signal ([^;]*?) excellent \(the study: ([^)]*)\)", reading(readings, "Files"))
    rows.append(["file transfer, poor ÷ excellent signal", f"{m[1]} (study: {m[2]})"] + at)
    m = grab(r"(Blowfish-128) ([\d,–]+ %) of AES-128 \(the study: ([^)]*)\); (RC6-128) ([\d,–]+ %) of AES-128 "
             r"\(the study: ([^)]*)\)", reading(readings, "Ciphers"))
    rows.append(["energy (= time) ÷ AES-128: Blowfish-128 / RC6-128", f"{m[2]} / {m[5]} (study: {m[3]} / {m[6]})"] + at)
    if CIPHERS_SOFT_AES.exists():
        soft = json.loads(CIPHERS_SOFT_AES.read_text())
        m = grab(r"without AES instructions \([^)]*\): Blowfish-128 ([\d,–]+) % encrypting and ([\d,–]+) % decrypting, "
                 r"RC6-128 ([\d,–]+) % encrypting and ([\d,–]+) % decrypting", reading(readings, "Ciphers"))
        rows.append(["the same without AES instructions (portable AES), encrypting", span(f"{m[1]} % / {m[3]} %"),
                     cpu_name(soft["cpu"]), short(soft["commit"]), link(CIPHERS_SOFT_AES.parent)])
    if CIPHER_INSTRUCTIONS.exists():
        recs = json.loads(CIPHER_INSTRUCTIONS.read_text())
        ipb = {(r["cipher"], r["key_bits"]): r["instructions_per_byte"] for r in recs["records"]
               if r["mode"] == "CBC" and r["direction"] == "encrypt" and r["data"].startswith("text-4211")}
        names = [("AES", 128), ("Blowfish", 128), ("RC6", 128), ("DES", 64), ("3DES", 168)]
        rows.append(["callgrind instructions/byte, CBC: AES-128/Blowfish/RC6/DES/3DES",
                     "/".join(f"{ipb[n]:.3g}" for n in names), cpu_name(recs["meta"]["cpu"]),
                     "not recorded", link(CIPHER_INSTRUCTIONS)])
    m = grab(r"single ([\d.]+ µs), multibuffer ([\d.]+ µs \([\d.]+×\)).*\(the study's hosts: ([^)]*)\)",
             reading(readings, "Host CCMP"))
    rows.append(["host CCMP, a 1500 B frame: one frame / multi-buffer", f"{m[1]} / {m[2]} (study: {m[3]})"] + at)
    m = grab(r"(\d+ of \d+) other published figures predicted within their tolerance", reading(readings, "Card model"))
    rows.append(["card model (calibrated on one published figure) predicts", f"{m[1]} other published figures"] + at)
    if MEDIUM_FLOOR.exists():
        floor = json.loads(MEDIUM_FLOOR.read_text())
        std = {r["condition"]: r["rtt_std_ms"] for r in floor["rows"]}
        rows.append([f"RTT spread of the medium, open, {floor['size']} B, {floor['rows'][0]['runs']} runs",
                     f"std {std['timer · idle']:.3f} ms, {std['spin 100 µs · idle']:.3f} ms with a 100 µs release spin",
                     cpu_name(floor["machine"]["cpu"]), short(floor["commit"]), link(MEDIUM_FLOOR.parent)])
    rows += wpa3()
    return [f"The published `make lab` run ({run['repeats']} repeats per point after {run['warmup']} warm-up, on the emulated "
            "WLAN) and the runs its report draws on; ratios with their bootstrap 95 % CI, costs with Welch's test at 95 %:",
            ""] + \
        table(["reading", "value", "CPU", "commit", "raw runs"], rows)


def wpa3() -> list[list[str]]:
    """Join times at 4 stations and GCMP-256's cost against CCMP-128, from the published WPA3
    run's raw files by the lab's own report code (none when that run is not in the tree)."""
    if not (WPA3_RUN / "run.json").exists():
        return []
    sys.path.insert(0, str(ROOT / "lab"))
    from wlansec_lab import significance as sig  # noqa: E402  (the venv's packages)
    from wlansec_lab.report import wpa3 as w  # noqa: E402
    from wlansec_lab.report.data import load_raw, point_runs  # noqa: E402

    run = json.loads((WPA3_RUN / "run.json").read_text())
    at = [cpu_name(run["machine"]["cpu"]), short(run["machine"].get("commit")), link(WPA3_RUN)]
    joins = load_raw(WPA3_RUN, "join")
    samples = w.station_samples(joins)
    points = sorted((e["point"] for e in joins["summary"] if e["point"]["stations"] == 4), key=w._order)
    base = samples[sig.key({**points[0], "security": w.BASELINE, "sae_pwe": None})]["join_ms"]
    cells = []
    for p in points:
        got = samples[sig.key(p)]["join_ms"]
        d = sig.welch(base, got) if p["security"] != w.BASELINE else None
        cells.append(f"{statistics.median(got):.1f}" + ("" if d is None or d.significant else " (n.s.)"))
    short_label = {("ccmp", None): "PSK", ("sae", "hnp"): "SAE-H&P", ("sae", "h2e"): "SAE-H2E", ("owe", None): "OWE",
                   ("gcmp256", None): "PSK-GCMP", ("sae-ext", None): "SAE-EXT"}
    value = ", ".join(f"{short_label.get((p['security'], p.get('sae_pwe')), w.method_label(p))} {c}" for p, c in zip(points, cells))
    rows = [["median join ms, 4 STAs (n.s.: ≈ PSK)", value] + at]
    costs = load_raw(WPA3_RUN, "cipher-cost")
    by = {e["point"]["security"]: e["point"] for e in costs["summary"] if e["n"]}
    diffs = []
    for gcmp, ccmp in w.GCMP256_PAIRS.items():
        if gcmp in by and ccmp in by:
            dt, dr = (sig.welch(point_runs(WPA3_RUN, {}, "cipher-cost", by[ccmp], m), point_runs(WPA3_RUN, {}, "cipher-cost", by[gcmp], m))
                      for m in ("iperf3_mbps", "ping_rtt_ms"))
            if dt is None or dr is None:
                continue
            diffs.append(f"{w.SECURITY_LABEL[ccmp]}: {dt.diff:+.2f} Mbit/s{'' if dt.significant else ' (n.s.)'}, "
                         f"{dr.diff:+.3f} ms{'' if dr.significant else ' (n.s.)'}")
    if diffs:
        rows.append([f"GCMP-256 − CCMP-128, TCP / RTT, {next(iter(by.values()))['phy']}", "; ".join(diffs)] + at)
    return rows


# ---------------------------------------------------------------- markers


def replace(text: str, area: str, lines: list[str]) -> str:
    start, end = f"<!-- results:{area} -->", f"<!-- /results:{area} -->"
    if start not in text or end not in text:
        raise SystemExit(f"readme_results: no {start} … {end} markers")
    head, rest = text.split(start, 1)
    return head + start + "\n" + "\n".join(lines) + "\n" + end + rest.split(end, 1)[1]


def generate() -> dict[Path, tuple[str, str]]:
    """Each file: (its text now, its text with every table regenerated)."""
    readings = lab_readings()
    readme = README.read_text()
    new = readme
    for area, lines in (("engine", engine()), ("decryption", decrypt()), ("hardware", hardware()), ("lab", lab(readings))):
        new = replace(new, area, lines)
    lab_readme = LAB_README.read_text()
    return {README: (readme, new),
            LAB_README: (lab_readme, replace(lab_readme, "lab-readings", [f"- {r}" for r in readings]))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table differs")
    args = parser.parse_args()
    stale = []
    for path, (old, new) in generate().items():
        if old == new:
            continue
        if args.check:
            stale.append(path.relative_to(ROOT).as_posix())
        else:
            path.write_text(new)
            print(f"readme_results: rewrote {path.relative_to(ROOT)}")
    if stale:
        print(f"readme_results: results tables differ from their raw files in {', '.join(stale)}; run `{REWRITE}`",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
