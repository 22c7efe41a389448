"""The laboratory report as a reader meets it, in Debian's Chromium (headless, through
chromedriver): the page `make demo` writes, rendered by the same code from a stored quick run
(tests/python/data/lab-quick-run: the raw files of one `make demo`), opens on the answers table
with no console error, every figure loads, every collapsed block opens and every in-page link
lands; the screenshots are saved beside the rendered page. And the page's own promises, without
a browser: a quick run's untestable comparisons say so instead of drawing empty axes, empty
columns are left out and named, figures are SVG in the named palette with alt text."""

import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab"))

from wlansec_lab import plotstyle, report  # noqa: E402
from wlansec_lab.report import browser, render  # noqa: E402

QUICK_RUN = Path(__file__).resolve().parent / "data" / "lab-quick-run"


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    """The stored quick run's report, written as `make demo` writes it (no binary: the card
    model's figures are the binary's to state, and this test does not need them)."""
    out = tmp_path_factory.mktemp("lab")
    shutil.copytree(QUICK_RUN, out, dirs_exist_ok=True)
    return report.write(out, wlansec=str(out / "no-wlansec")) / "index.html"


@pytest.fixture(scope="module")
def seen(page) -> browser.Findings:
    try:
        return browser.check(page)
    except browser.Unavailable as e:
        pytest.skip(str(e))


def test_no_console_errors(seen):
    assert seen.console_errors == []


def test_every_figure_loads_with_alt_text(seen):
    assert seen.figures >= 6, "a key figure per experiment at least"
    assert seen.broken_figures == []


def test_answers_table_is_on_the_first_screen(seen):
    assert seen.answers_top is not None, "no answers table"
    assert seen.answers_top < browser.SCREEN[1]


def test_every_details_opens(seen):
    assert seen.details >= 8, "configuration, per-point tables and the self-check's output are collapsed"
    assert seen.unopened_details == []


def test_every_in_page_link_lands_and_print_hides_the_contents(seen):
    assert seen.dead_links == []
    assert seen.print_hides_contents


def test_screenshots_are_saved_beside_the_page(seen, page):
    first = page.parent / "screenshots" / "first-screen.png"
    assert first in seen.screenshots
    header = first.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")) == browser.SCREEN


def test_quick_run_answers_are_not_resolvable_and_say_why(page):
    md = (page.parent / "report.md").read_text()
    answers = md.split("## Answers", 1)[1].split("## Key figures", 1)[0]
    video = [line for line in answers.splitlines() if "the video delay" in line]
    assert video and all("one run per point (n = 1)" in line and "**not resolvable in this run**" in line for line in video)
    # A comparison that needs two runs per point is a sentence saying so, not empty axes.
    assert not (page.parent.parent / "figures" / "video-vs-open.svg").exists()
    assert not (page.parent.parent / "figures" / "tcp-cost.svg").exists()
    assert md.count("A full run (`make lab`, 40 runs per point) draws") == 2
    links = re.findall(r"\]\(#([\w-]+)\)", answers)
    assert links and set(links) <= {render.anchor(t) for t in report.SECTIONS}


def test_all_empty_columns_are_left_out_and_named():
    page = render.html_page("## T\n\n" + render.md_table(["a", "std", "b"], [["1", "—", "x"], ["2", "—", ""]]))
    assert "<th>a</th><th>b</th>" in page and "<th>std</th>" not in page
    assert "empty at every row of this run: std." in page


def test_figures_are_svg_in_the_named_palette(page):
    figures = sorted((page.parent.parent / "figures").rglob("*.svg"))
    assert {f.stem for f in figures} >= {"video", "tcp", "files", "ccmp", "hardware", "cipher-claims"}
    palette = {c.lower() for c in plotstyle.OKABE_ITO.values()}
    for f in figures:
        colours = {c.lower() for c in re.findall(r"(?:fill|stroke):\s*(#[0-9a-fA-F]{6})", f.read_text())}
        # Series colours only from the palette; greys (axes, grid, bands) and white are neutral.
        foreign = {c for c in colours - palette if len({c[1:3], c[3:5], c[5:7]}) > 1}
        assert not foreign, (f.name, foreign)
    html = page.read_text()
    assert len(re.findall(r"<figure id='figure-[\w-]+'><img alt=\"[^\"]+\"", html)) >= 6 and "<figcaption>" in html
