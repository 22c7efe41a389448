"""Refuse hardware figures that no longer describe the sources (run by `make test`, fast):
every reports/summary.json row must come from the RTL as it is now (the same files, the
same hash), agree with its record in reports/designs/ (median of the seeds' Fmax, a kept
nextpnr report per seed), and appear in reports/README.md's table exactly as
syn/report.py renders it. A change to the RTL therefore fails `make test` until
`make -C hdl synth` has re-measured the designs it touches (or their rows are removed)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import HDL, design_rtl, seeds_median  # noqa: E402
from report import summary_table  # noqa: E402


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
        seeds = {s: f for s, f in by_seed.items() if f is not None}
        for s in seeds:
            if not (HDL / "reports" / "pnr" / f"{r['design']}-{r['target']}-seed{s}.json").exists():
                found.append(f"{name}: nextpnr report of seed {s} missing from reports/pnr/")
    if not found and summary_table(rows) not in (HDL / "reports" / "README.md").read_text():
        found.append("reports/README.md: the table differs from summary.json (run syn/report.py)")
    return found


if __name__ == "__main__":
    found = problems()
    for p in found:
        print("stale figure:", p, file=sys.stderr)
    if found:
        sys.exit(1)
    print("hdl figures: every summary.json row was measured on the current RTL")
