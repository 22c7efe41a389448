"""The architecture and security documents name files and directories a reader can open: every
path they mention exists (relative to the document, the repository, crates/, a crate or its
src/; `core/`, `wlan/` and `cli/` are short for the crates)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BASES = [ROOT, ROOT / "crates", ROOT / "lab"] + sorted(
    d for crate in (ROOT / "crates").iterdir() for d in (crate / "src", crate) if d.is_dir())
# A path: segments of word characters and dashes joined by '/', ending in a known suffix or '/'.
PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+(?:[\w-]+\.(?:rs|py|v|md|sh|json|toml|c|h))?|[\w-]+\.(?:rs|py|v|md|sh|toml))(?![\w/])")
DOCS = ["docs/architecture.md", "docs/security.md"]
SHORT = {"core/": "wlansec-core/", "wlan/": "wlansec-wlan/", "cli/": "wlansec-cli/"}


def named_paths(text: str) -> set[str]:
    return {m.group(1) for m in PATH.finditer(text) if not m.group(1).startswith(("http", "www."))}


def exists(path: str, doc_dir: Path = ROOT / "docs") -> bool:
    for short, crate in SHORT.items():
        if path.startswith(short):
            path = crate + path.removeprefix(short)
    return any((base / path).exists() for base in [doc_dir, *BASES])


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_the_document_names_exists(doc):
    text = (ROOT / doc).read_text()
    missing = sorted(p for p in named_paths(text) if not exists(p))
    assert not missing, f"{doc} names paths that do not exist: {missing}"


def test_the_path_finder_sees_paths_in_prose_tables_and_diagrams():
    text = "see `rx/defrag.rs`, │ bss/station.rs, decrypt/tracker/ (moved) and a.b::c, not 1/2"
    assert named_paths(text) == {"rx/defrag.rs", "bss/station.rs", "decrypt/tracker/"}
    assert not exists("decrypt/tracker.rs") and exists("rx/defrag.rs")
