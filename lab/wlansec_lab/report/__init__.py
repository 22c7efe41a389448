"""`wlansec-lab report`: report/index.html and report.md from a results directory, with
figures in the published layouts, the published values beside ours, the configuration and
card/medium models used, and a short reading.

The package's modules, each one job: `data` (the raw results), `statistics` (the comparisons
computed from them), `figures`, `render` (Markdown tables and the HTML page) and `style` (its
stylesheet), the sections (`answers`: the claims table and key figures the page opens on;
`network`: configuration, video, TCP, files; `wpa3`: join time and cipher cost; `benches`: self-check, card model, host CCMP,
ciphers, hardware), `reading` and `summary` (the README's bullets)."""

from __future__ import annotations

from pathlib import Path

import json

from wlansec_lab import DEFAULT_WLANSEC, tidy
from wlansec_lab.report.answers import answers_section, key_figures_section
from wlansec_lab.report.benches import card_model_section, ccmp_section, ciphers_section, hardware_section, selftest_section
from wlansec_lab.report.network import config_section, files_section, tcp_section, video_section
from wlansec_lab.report.reading import reading_section
from wlansec_lab.report.render import html_page
from wlansec_lab.report.summary import summary_section
from wlansec_lab.report.wpa3 import wpa3_section

SECTIONS = ["Answers", "Key figures", "Summary and limits of the emulation", "Engine self-check", "Configuration", "Video: delay, jitter, throughput", "TCP: throughput and RTT vs packet size",
            "Card model: calibrated on one published figure, tested by prediction", "Files: transmission time of encrypted files", "WPA3: join time and cipher cost", "CCMP engines (host)", "Ciphers", "Hardware", "Reading"]
BUILDERS = [answers_section, key_figures_section, summary_section, selftest_section, config_section, video_section, tcp_section, card_model_section, files_section, wpa3_section, ccmp_section, ciphers_section,
            hardware_section, reading_section]
#: The sections built after all the others.
LATE = 3


def run_line(out: Path) -> str:
    """One line under the title: what kind of run the page reports."""
    run = json.loads((out / "run.json").read_text()) if (out / "run.json").exists() else {}
    if not run:
        return "*No run.json in this results directory.*"
    m = run.get("machine", {})
    testbed = run.get("testbed") or "unknown testbed"
    line = (f"{testbed[0].upper() + testbed[1:]}, {m.get('cpu')} ({m.get('cores')} cores), {m.get('date')}: "
            f"{run.get('repeats')} run(s) per point after {run.get('warmup')} warm-up.")
    if run.get("quick"):
        line += (" **A quick run** (`make demo`): one run per point, so no difference below can be tested; `make lab` "
                 "repeats every point 40 times.")
    return line


def write(out: Path, report_dir: Path | None = None, wlansec: str = DEFAULT_WLANSEC) -> Path:
    """Write REPORT/report.md and REPORT/index.html (REPORT defaults to OUT/report), and the
    tidy table OUT/runs.csv from the same raw files; `wlansec` is the binary whose card model
    the configuration states."""
    out = Path(out)
    tidy.write(out)
    report_dir = Path(report_dir or out / "report")
    report_dir.mkdir(parents=True, exist_ok=True)
    ctx: dict = {"wlansec": wlansec, "key_figures": []}
    # The answers, key figures and summary read what the other sections found: built last, placed first.
    rest = [(title, build(out, ctx)) for title, build in zip(SECTIONS[LATE:], BUILDERS[LATE:])]
    bodies = [(title, build(out, ctx)) for title, build in zip(SECTIONS[:LATE], BUILDERS[:LATE])] + rest
    # Figures are written under OUT/figures; the report refers to them relative to itself.
    rel = Path("..") if report_dir == out / "report" else Path(out.resolve())
    md = "# wlansec laboratory report\n\n" + run_line(out) + "\n\n" + "\n\n".join(f"## {t}\n\n{b.replace('](figures/', f']({rel}/figures/')}" for t, b in bodies) + "\n"
    (report_dir / "report.md").write_text(md)
    (report_dir / "index.html").write_text(html_page(md))
    return report_dir
