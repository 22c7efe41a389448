"""Imports only run one way: no circle between the modules of any Rust crate or Python
package of the project (scripts/import_cycles.py), and the checker sees a circle where there is
one, even through a re-export or a function-local import."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ROOT / "scripts" / "import_cycles.py"
TREES = sorted(p / "src" for p in (ROOT / "crates").iterdir() if (p / "src").is_dir()) + [
    ROOT / "lab" / "wlansec_lab", ROOT / "tests" / "python", ROOT / "hdl" / "tb", ROOT / "hdl" / "syn", ROOT / "scripts"]


def check(*dirs):
    return subprocess.run([sys.executable, CHECKER, *map(str, dirs)], capture_output=True, text=True)


@pytest.mark.parametrize("tree", TREES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_circle(tree):
    done = check(tree)
    assert done.returncode == 0, done.stdout


def write(root: Path, files: dict):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_rust_circle_through_a_reexport_and_a_grouped_use_is_found(tmp_path):
    write(tmp_path, {
        "lib.rs": "mod a;\nmod b;\nmod c;\npub use c::Gamma;\n",
        "a.rs": "use crate::{b::Beta, c::Other as Renamed};\npub struct Alpha;\n",
        "b.rs": "pub struct Beta(crate::Gamma);\n",
        "c.rs": "// use crate::a::Alpha;  (a comment is no import)\npub struct Gamma;\npub struct Other;\n"
                "fn f() -> super::a::Alpha { todo!() }\n",
    })
    done = check(tmp_path)
    assert done.returncode == 1 and "crate::a, crate::b, crate::c" in done.stdout, done.stdout
    assert "b.rs uses crate::Gamma (crate::c)" in done.stdout, done.stdout


def test_a_rust_child_using_its_parent_and_test_code_are_no_circle(tmp_path):
    write(tmp_path, {
        "lib.rs": "mod outer;\nmod other;\n",
        "outer/mod.rs": "mod inner;\npub use inner::Inner;\npub struct Outer;\n"
                        "#[cfg(test)]\nmod tests {\n    use crate::other::Thing;\n}\n",
        "outer/inner.rs": "use super::Outer;\npub struct Inner(Outer);\n",
        "other.rs": "pub struct Thing(crate::outer::Outer);\n",
    })
    done = check(tmp_path)
    assert done.returncode == 0, done.stdout


def test_a_python_circle_behind_a_function_local_import_is_found(tmp_path):
    write(tmp_path / "pkg", {
        "__init__.py": "",
        "runner.py": "def summary():\n    from pkg import tidy\n    return tidy\n",
        "tidy.py": "from pkg.runner import summary\n",
        "free.py": "from . import tidy\n",
    })
    done = check(tmp_path / "pkg")
    assert done.returncode == 1 and "circle in" in done.stdout and "pkg.runner, pkg.tidy" in done.stdout, done.stdout
    assert "pkg.free" not in done.stdout.splitlines()[0], done.stdout
