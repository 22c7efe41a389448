"""make test's gate-level benches seen failing: one gate of a Yosys netlist
(build/netlist/<top>.v) changed per mutant, written to build/mutants/<name>.v and run on
Icarus with the environment and tests `make test` gives that top; every mutant must fail a
test, else this exits non-zero. Arguments: the Makefile's GATE_RUNS (top:environment:tests,
as its run_gates takes them). Gates are found by the RTL names Yosys keeps on their inputs,
not by its numbered wires, which change with any RTL edit. `make -C hdl netlist-mutants`."""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HDL = Path(__file__).resolve().parents[1]
# name: (top, the first netlist line matching this, text in it, replacement, what it breaks)
MUTANTS = {
    "core_mac_xor_and": (
        "ccmp_core", r"^  assign \S+ = \\mac\.g_chain\[0\]\.aes\.g_enc_only\.round_key\[\d+\]  \^ ", " ^ ", " & ",
        "an XOR of the CBC-MAC's AddRoundKey made an AND: wrong MIC"),
    "decap_ctr_xor_or": (
        "ccmp_decap", r"^  assign \S+ = .* \^ \\ctr_unit\.g_lane\[0\]\.aes\.in_block\[\d+\] ;", " ^ ", " | ",
        "an XOR of the CTR unit's block load made an OR: wrong keystream"),
    "decap_verdict_or": (
        "ccmp_decap", r"^  assign res_ok = \S+ & \S+;", " & ", " | ",
        "the verdict's last AND made an OR: a good MIC under a bad header accepted"),
}


def mutate(top, pattern, text, replacement):
    lines = (HDL / "build" / "netlist" / f"{top}.v").read_text().splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if re.search(pattern, line)), None)
    if at is None:
        sys.exit(f"no netlist line of {top} matches {pattern!r}")
    lines[at] = lines[at].replace(text, replacement, 1)
    return "".join(lines), lines[at].strip()


def main():
    runs = {}
    for run in sys.argv[1:]:
        top, env, tests = run.split(":")
        runs[top] = (dict(kv.split("=") for kv in env.split(",") if kv), tests.replace("+", ","))
    out = HDL / "build" / "mutants"
    out.mkdir(parents=True, exist_ok=True)
    survived = []
    for name, (top, pattern, text, replacement, what) in MUTANTS.items():
        netlist, line = mutate(top, pattern, text, replacement)
        (out / f"{name}.v").write_text(netlist)
        results = out / f"icarus-{name}.xml"
        results.unlink(missing_ok=True)
        env, tests = runs[top]
        subprocess.run(["make", "--no-print-directory", "-s", "-f", "tb/cocotb.mk", "SIM=icarus", f"TOPLEVEL={top}",
                        f"MODULE=test_{top}", f"RUN=mutant-{name}", f"VERILOG_SOURCES={out / (name + '.v')}",
                        f"COCOTB_RESULTS_FILE={results}"],
                       cwd=HDL, env=dict(os.environ, **env, TESTCASE=tests),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not results.exists():
            sys.exit(f"{name}: the bench did not run (no {results})")
        failed = [c.get("name") for c in ET.parse(results).getroot().iter("testcase")
                  if c.find("failure") is not None or c.find("error") is not None]
        print(f"{name}: {what} ({line}): {'caught by ' + ', '.join(failed) if failed else 'NOT CAUGHT'}")
        if not failed:
            survived.append(name)
    if survived:
        sys.exit(f"mutants the gate-level benches did not catch: {', '.join(survived)}")


if __name__ == "__main__":
    main()
