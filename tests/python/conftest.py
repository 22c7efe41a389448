import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# GNU time (Debian's `time`, installed by scripts/setup.sh) measures a command's own peak
# resident set: the ru_maxrss of Python's own wait4 counts the forking Python's too (a
# test run's pytest process of some 650 MiB, say).
GNU_TIME = "/usr/bin/time"

# Under WLANSEC_REQUIRE_ALL=1 (`make test` and CI set it) a test may skip only for what no
# setup can provide: a CPU feature this machine lacks (`skip_for_cpu`). Any other skip (a tool
# or library scripts/setup.sh installs, root, /dev/net/tun, a git checkout) is a failure, so a
# host missing one cannot pass by turning whole modules off.
REQUIRE_ALL = os.environ.get("WLANSEC_REQUIRE_ALL") == "1"
CPU_SKIP = "this CPU lacks "


def skip_for_cpu(feature: str):
    pytest.skip(CPU_SKIP + feature)


def _forbidden_skip(report) -> str | None:
    if not (REQUIRE_ALL and report.skipped) or hasattr(report, "wasxfail"):
        return None
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    reason = reason.removeprefix("Skipped: ")
    return None if reason.startswith(CPU_SKIP) else reason


def _fail_forbidden_skip(report):
    reason = _forbidden_skip(report)
    if reason is not None:
        report.outcome = "failed"
        report.longrepr = (f"skipped with WLANSEC_REQUIRE_ALL=1: {reason}\n"
                           "scripts/setup.sh installs every tool the tests need and the tests run as root; "
                           "set WLANSEC_REQUIRE_ALL=0 to allow this skip")


# `make test` runs the modules on pytest-xdist workers (`--dist loadgroup`). A module's tests
# share namespace, interface and port names, so each module stays on one worker; the lab's
# modules share the testbed names and addresses of wlansec_lab, so they share one worker.
SHARED_WORKER = {"test_lab": "lab-testbeds", "test_lab_cluster": "lab-testbeds"}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the marks into the node ids
def pytest_collection_modifyitems(items):
    for item in items:
        module = item.module.__name__
        item.add_marker(pytest.mark.xdist_group(SHARED_WORKER.get(module, module)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_forbidden_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_forbidden_skip(outcome.get_result())


@pytest.fixture(scope="session")
def wlansec() -> str:
    """Path of the release `wlansec` binary (built by `make test` before pytest runs)."""
    path = os.environ.get("WLANSEC") or str(ROOT / "target" / "release" / "wlansec")
    if not os.path.exists(path):
        subprocess.run(["cargo", "build", "--release", "-p", "wlansec-cli"], cwd=ROOT, check=True)
    return path
