"""README.md is for users and its figures are its raw files': the four results tables are what
scripts/readme_results.py generates from docs/results/** and hdl/reports/** now, the page stays
short, says nothing about how the work was organised, and every relative link resolves."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import readme_results  # noqa: E402

README = ROOT / "README.md"
MAX_LINES = 200
MAX_CHARS = 200
# Words about the work's organisation, not the software: numbered stops and issues, sessions,
# helpers, "this change", and verdicts such as "met" that only mean something against a plan.
PROCESS_WORDS = re.compile(r"\bstops? ?\d+|\bissues? ?#?\d+|\bsessions?\b|\bhelpers?\b|\bthis change\b|\bmet\b",
                           re.IGNORECASE)


def prose_lines() -> list[tuple[int, str]]:
    """README.md's lines outside fenced code blocks, numbered from 1."""
    lines, fenced = [], False
    for number, line in enumerate(README.read_text().splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def test_results_tables_are_generated_from_the_raw_files():
    stale = [path.relative_to(ROOT).as_posix() for path, (old, new) in readme_results.generate().items() if old != new]
    assert not stale, (f"results tables in {', '.join(stale)} differ from what the raw files give now; "
                       f"run `{readme_results.REWRITE}` and commit the result")


def test_every_results_table_has_rows():
    text = README.read_text()
    for area in ("engine", "decryption", "hardware", "lab"):
        table = text.split(f"<!-- results:{area} -->", 1)[1].split(f"<!-- /results:{area} -->", 1)[0]
        rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| figure")]
        assert len(rows) >= 2, f"the {area} table has no figures"


def test_readme_is_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines (at most {MAX_LINES}); depth goes to docs/"
    long = [f"line {n}: {len(line)} characters" for n, line in prose_lines() if len(line) > MAX_CHARS]
    assert not long, f"README.md lines over {MAX_CHARS} characters outside code blocks: {long}"


def test_readme_says_nothing_about_how_the_work_was_organised():
    found = [f"line {n}: {m[0]!r}" for n, line in enumerate(README.read_text().splitlines(), 1)
             for m in PROCESS_WORDS.finditer(line)]
    assert not found, f"README.md speaks of the work's organisation: {found}"


def test_every_relative_link_resolves():
    text = README.read_text()
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    relative = [t for t in targets if not re.match(r"[a-z]+:|#", t)]
    assert relative, "README.md links nothing"
    missing = [t for t in relative if not (README.parent / t.split("#", 1)[0]).exists()]
    assert not missing, f"README.md links to paths that do not exist: {missing}"


def test_a_figure_whose_raw_file_is_missing_is_left_out(monkeypatch, tmp_path):
    monkeypatch.setattr(readme_results, "ENGINE_SETS", [("no-such-run", "runs.tar.gz", r"run-.*\.json")])
    monkeypatch.setattr(readme_results, "DECRYPT_RUNS", [("no-such-run", "decrypt.json")])
    monkeypatch.setattr(readme_results, "HDL_SUMMARY", tmp_path / "summary.json")
    for area in (readme_results.engine, readme_results.decrypt, readme_results.hardware):
        rows = [line for line in area() if line.startswith("| ")]
        assert len(rows) == 1, f"{area.__name__}: rows without a raw file: {rows[1:]}"
