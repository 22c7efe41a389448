import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# GNU time (Debian's `time`, installed by scripts/setup.sh) measures a command's own peak
# resident set: the ru_maxrss of Python's own wait4 counts the forking Python's too (a
# test run's pytest process of some 650 MiB, say).
GNU_TIME = "/usr/bin/time"


@pytest.fixture(scope="session")
def wlansec() -> str:
    """Path of the release `wlansec` binary (built by `make test` before pytest runs)."""
    path = os.environ.get("WLANSEC") or str(ROOT / "target" / "release" / "wlansec")
    if not os.path.exists(path):
        subprocess.run(["cargo", "build", "--release", "-p", "wlansec-cli"], cwd=ROOT, check=True)
    return path
