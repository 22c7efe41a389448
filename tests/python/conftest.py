import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def wlansec() -> str:
    """Path of the release `wlansec` binary (built by `make test` before pytest runs)."""
    path = os.environ.get("WLANSEC") or str(ROOT / "target" / "release" / "wlansec")
    if not os.path.exists(path):
        subprocess.run(["cargo", "build", "--release", "-p", "wlansec-cli"], cwd=ROOT, check=True)
    return path
