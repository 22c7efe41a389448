"""Refuse hardware figures that no longer describe the sources (run by `make test`, fast):
every reports/summary.json row must come from the RTL as it is now (the same files, the
same hash), agree with its record in reports/designs/ (median of the seeds' Fmax, a kept
nextpnr report per seed), and appear in reports/README.md's table exactly as
syn/report.py renders it; every reports/netlists.json entry must be of the RTL as it is now;
and every figure of hdl/README.md (and each named one of reports/README.md) must be a named
figure, `<!-- fig NAME -->text<!-- /fig -->`, whose text is what syn/report.py renders from
those files now. A change to the RTL therefore fails `make test` until `make -C hdl synth`
has re-measured the designs it touches (or their rows are removed)."""
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import HDL, design_rtl, seeds_median  # noqa: E402
from report import FIGURE, FIGURE_MARK, NETLISTS, figure, summary_table  # noqa: E402

# What a hardware figure looks like in prose: a count or measure with its unit, or any
# decimal number (run times, standards' clause numbers and tool versions aside). Such a
# figure in hdl/README.md outside a named figure was typed by hand: refused. Cycle counts
# are not here: the benches assert every one the README states (tb/ccmp_bench.py).
HARDWARE_UNIT = r"(?:MHz|Gb/s|Mb/s|LUT4s?|LUTs?|FFs?|flip-flops|EBRs?|DP16KDs?|cells|ns|µs|×|(?:placement )?seeds)"
LOOSE_FIGURE = re.compile(rf"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?{HARDWARE_UNIT}(?!\w)"
                          r"|(?<![\w.])\d[\d,]*\.\d+(?![\d.])|(?<![\w.])\d{1,3}(?:,\d{3})+(?![\d.])")
NOT_A_FIGURE = re.compile(r"(?:cocotb|Verilator|Icarus|Yosys|nextpnr)\W{0,2}$")
DURATION = re.compile(r"\s?(?:s|min|minutes?|hours?|h)\b")
CYCLES = re.compile(r"\s?cycles\b")


def loose_figures(text):
    """Hardware figures of `text` outside named figures and code blocks: (line, figure)."""
    found = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        bare = FIGURE.sub(lambda m: " " * len(m[0]), line)
        for m in LOOSE_FIGURE.finditer(bare):
            if (m[0].startswith("802.11") or NOT_A_FIGURE.search(bare[:m.start()])
                    or DURATION.match(bare, m.end()) or CYCLES.match(bare, m.end())):
                continue
            found.append((number, m[0]))
    return found


def figure_problems(text, rows, netlists, where):
    """Each named figure of `text` whose text is not what the reports give now."""
    found = []
    marks = len(FIGURE_MARK.findall(text))
    if marks != 2 * len(FIGURE.findall(text)):
        found.append(f"{where}: {marks} figure marks for {len(FIGURE.findall(text))} whole figures: "
                     f"an opening mark without its closing one, or one inside another")
    for m in FIGURE.finditer(text):
        try:
            want = figure(m[1], rows, netlists)
        except (KeyError, TypeError, ZeroDivisionError) as e:
            found.append(f"{where}: figure {m[1]} names nothing measured at the current RTL ({e})")
            continue
        if m[2] != want:
            found.append(f"{where}: figure {m[1]} reads {m[2]!r}, the reports give {want!r} (run syn/report.py)")
    return found


def problems():
    rows = json.loads((HDL / "reports" / "summary.json").read_text())
    found = []
    for r in rows:
        name = f"{r['design']}:{r['target']}"
        now = design_rtl(r["top"]) if "top" in r else None
        if now is None or r.get("rtl_hash") != now["rtl_hash"] or r.get("rtl_files") != now["rtl_files"]:
            found.append(f"{name}: measured on other RTL than rtl/ now holds (re-run `make -C hdl synth "
                         f"SYNTH_DESIGNS={name}` or remove the row)")
            continue
        record_path = HDL / "reports" / "designs" / f"{r['design']}-{r['target']}.json"
        record = json.loads(record_path.read_text()) if record_path.exists() else {}
        if record.get("rtl_hash") != r["rtl_hash"]:
            found.append(f"{name}: no record for this RTL in reports/designs/")
            continue
        by_seed = record.get("fmax_by_seed") or {}
        if r["fmax_mhz"] != seeds_median(by_seed.values()):
            found.append(f"{name}: Fmax {r['fmax_mhz']} is not the median of its seeds {by_seed}")
        if r.get("router") != record.get("router"):
            found.append(f"{name}: router {r.get('router')} is not its record's {record.get('router')}")
        seeds = {s: f for s, f in by_seed.items() if f is not None}
        for s in seeds:
            if not (HDL / "reports" / "pnr" / f"{r['design']}-{r['target']}-seed{s}.json").exists():
                found.append(f"{name}: nextpnr report of seed {s} missing from reports/pnr/")
    netlists = json.loads(NETLISTS.read_text()) if NETLISTS.exists() else {}
    for top, entry in netlists.items():
        if entry.get("rtl_hash") != design_rtl(top)["rtl_hash"]:
            found.append(f"reports/netlists.json: {top}'s netlist was made from other RTL than rtl/ now holds "
                         f"(`make -C hdl build/netlist/{top}.v`, then syn/report.py)")
    if found:
        return found
    reports_readme = (HDL / "reports" / "README.md").read_text()
    if summary_table(rows) not in reports_readme:
        found.append("reports/README.md: the table differs from summary.json (run syn/report.py)")
    hdl_readme = (HDL / "README.md").read_text()
    found += figure_problems(reports_readme, rows, netlists, "reports/README.md")
    found += figure_problems(hdl_readme, rows, netlists, "README.md")
    found += [f"README.md line {n}: {fig!r} is not a named figure from the reports (`<!-- fig NAME -->`)"
              for n, fig in loose_figures(hdl_readme)]
    return found


if __name__ == "__main__":
    found = problems()
    for p in found:
        print("stale figure:", p, file=sys.stderr)
    if found:
        sys.exit(1)
    print("hdl figures: every summary.json row was measured on the current RTL, and every figure "
          "of hdl/README.md is the reports'")
