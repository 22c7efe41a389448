"""The laboratory figures follow from the published run they cite: the report's summary,
regenerated from that run's raw files, must hold the readings in the run's README
(docs/results/<run>/README.md, which README.md's laboratory table links) word for word, so a
stale reading fails here. And every section that shows the study's ciphers uses the same rows
(the study's key sizes)."""

import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab"))

from wlansec_lab import report  # noqa: E402
from wlansec_lab.ciphers import STUDY_CIPHERS  # noqa: E402

README = ROOT / "README.md"


def lab_section() -> tuple[Path, list[str]]:
    """The run README.md's laboratory table cites, and the readings in that run's README, each on one line."""
    table = README.read_text().split("<!-- results:lab -->", 1)[1].split("<!-- /results:lab -->", 1)[0]
    runs = {Path(m) for m in re.findall(r"\]\((docs/results/[^/)]+-lab-full)/\)", table)}
    assert len(runs) == 1, f"README.md's laboratory table should cite one laboratory run, not {sorted(map(str, runs))}"
    run = ROOT / runs.pop()
    text = (run / "README.md").read_text().split("<!-- results:lab-readings -->", 1)[1].split("<!-- /results:lab-readings -->", 1)[0]
    bullets = re.split(r"\n- ", "\n" + text.strip())
    return run, [" ".join(b.split()) for b in bullets if b.strip()]


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> str:
    """The report of the cited run, regenerated in a scratch copy (the published one is not touched)."""
    run, _ = lab_section()
    scratch = tmp_path_factory.mktemp("run")
    shutil.copytree(run / "raw", scratch / "raw")
    shutil.copy(run / "run.json", scratch / "run.json")
    return (report.write(scratch, wlansec=str(scratch / "no-wlansec")) / "report.md").read_text()


def test_readme_lab_figures_are_the_cited_runs(regenerated):
    summary = regenerated.split("## Summary and limits of the emulation", 1)[1].split("Limits of the emulation:", 1)[0]
    expected = [line[2:] for line in summary.splitlines() if line.startswith("- ")]
    _, bullets = lab_section()
    assert expected, "the regenerated summary has no readings"
    assert bullets == expected, ("the laboratory run's README readings differ from its report's summary; "
                                 "run `.venv/bin/python scripts/readme_results.py`")


def test_every_section_uses_the_studys_cipher_rows(regenerated):
    study = set(STUDY_CIPHERS)
    assert study == {"AES-128", "DES-64", "3DES-168", "RC2-64", "Blowfish-128", "RC6-128"}
    files = regenerated.split("## Files", 1)[1].split("## CCMP", 1)[0]
    ciphers = regenerated.split("## Ciphers", 1)[1].split("## Hardware", 1)[0]
    reading = regenerated.split("## Reading", 1)[1]
    named = re.compile(r"\b(AES|DES|3DES|RC2|Blowfish|RC6)-(\d+)\b")
    for title, text in (("Files", files), ("Ciphers", ciphers), ("Reading", reading)):
        used = {f"{c}-{bits}" for c, bits in named.findall(text)}
        assert used and used <= study, f"{title} names cipher rows outside the study's: {sorted(used - study)}"
    for layout in files.split("study's Table")[1:3]:  # Tables II and III: one row per study cipher
        rows = {line.split("|")[1].strip() for line in layout.splitlines() if line.startswith("| ")}
        assert study <= rows, sorted(study - rows)
