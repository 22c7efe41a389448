"""The hardware figures are the reports': every figure of hdl/README.md is a named figure that
hdl/syn/report.py renders from hdl/reports (summary.json, netlists.json), none is typed by
hand, and the 8-way core's speed-up is taken against the standard core placed and routed by
the same nextpnr router (hdl/syn/check_figures.py, which `make -C hdl test` runs too)."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HDL = ROOT / "hdl"
sys.path.insert(0, str(HDL / "syn"))

import check_figures  # noqa: E402
import report  # noqa: E402

HDL_README = HDL / "README.md"


def summary() -> list[dict]:
    return json.loads((HDL / "reports" / "summary.json").read_text())


def netlists() -> dict:
    return json.loads((HDL / "reports" / "netlists.json").read_text())


def test_hdl_figures_are_the_reports():
    assert check_figures.problems() == []


def test_hdl_readme_quotes_the_reports_figures():
    names = {m[1] for m in report.FIGURE.finditer(HDL_README.read_text())}
    # the core's clock and rate, the gate-level netlists, the seed paper's core
    assert {"ccmp_core.fmax", "ccmp_core.gbps", "netlist:ccmp_decap.cells", "aes128_p004.fmax"} <= names


def test_a_figure_that_disagrees_with_the_reports_is_refused():
    text = HDL_README.read_text()
    fmax = report.figure("ccmp_core.fmax", summary(), netlists())
    span = f"<!-- fig ccmp_core.fmax -->{fmax}<!-- /fig -->"
    assert span in text
    wrong = text.replace(span, "<!-- fig ccmp_core.fmax -->106.89<!-- /fig -->")
    found = check_figures.figure_problems(wrong, summary(), netlists(), "README.md")
    assert found and all("ccmp_core.fmax" in p for p in found)


def test_a_figure_of_nothing_measured_is_refused():
    text = "<!-- fig ccmp_core_n8.fmax -->59.5<!-- /fig --> and <!-- fig ccmp_core.colour -->red<!-- /fig -->"
    found = check_figures.figure_problems(text, summary(), netlists(), "README.md")
    assert len(found) == 2


@pytest.mark.parametrize("line", [
    "At the core's 106.89 MHz median",
    "36,306 and 38,964 cells",
    "8,395 LUT4 and 810 FF",
    "a speed-up of 4.18× over the standard core",
    "(116.14–123.12)",
])
def test_a_figure_typed_by_hand_is_refused(line):
    assert check_figures.loose_figures(HDL_README.read_text() + "\n" + line + "\n")


@pytest.mark.parametrize("line", [
    "IEEE 802.11-2016 12.5.3.3 and 9.2.4",
    "Verilator 5.006 (Debian's), cocotb 1.9",
    "1.5 minutes for both, Yosys adds 35 s",
    "10 · (3 + ⌈L/16⌉) cycles per frame",
    "a 1500-octet frame takes about 1,080 cycles (the bench asserts it)",
])
def test_what_is_not_a_hardware_figure_passes(line):
    assert check_figures.loose_figures(line) == []


def test_a_netlist_figure_of_other_rtl_is_refused(tmp_path, monkeypatch):
    stale = netlists()
    stale["ccmp_decap"] = dict(stale["ccmp_decap"], rtl_hash="0" * 64)
    path = tmp_path / "netlists.json"
    path.write_text(json.dumps(stale))
    monkeypatch.setattr(check_figures, "NETLISTS", path)
    assert any("ccmp_decap's netlist" in p for p in check_figures.problems())


def test_the_8_way_speed_up_compares_one_router_with_itself():
    rows = {r["design"]: r for r in summary() if r["target"] == "ecp5"}
    eight = rows["ccmp_core_n8_bram"]
    standard = rows[eight["standard"]]
    assert eight["router"] == standard["router"] == "router2"
    assert standard["luts"] == rows["ccmp_core_bram"]["luts"]  # the standard block-RAM netlist
    t = lambda r: r["cycles_per_frame_1500"] / r["fmax_mhz"]
    assert eight["speedup_1500"] == round(t(standard) / t(eight), 2)
    goals = (HDL / "reports" / "README.md").read_text().split("<!-- GOALS -->")[1]
    assert f"both routed by router2 (`{standard['design']}`)" in goals


def test_a_standard_core_of_another_router_is_not_compared():
    rows = [r for r in summary() if r["target"] == "ecp5"]
    eight = next(r for r in rows if r["design"] == "ccmp_core_n8_bram")
    others = [r for r in rows if r["design"] != eight["standard"]]
    assert report.standard_of(eight, others) is None


def test_an_unclosed_figure_mark_is_refused():
    text = "the core's `<!-- fig ccmp_core.fmax -->` and <!-- fig ccmp_core.luts -->11,610<!-- /fig -->"
    found = check_figures.figure_problems(text, summary(), netlists(), "README.md")
    assert any("figure marks" in p for p in found)
    # and report.py rewrites only the whole figure, not the text between the two marks
    assert report.fill_figures(text, summary(), netlists()).startswith("the core's `<!-- fig ccmp_core.fmax -->` and")
