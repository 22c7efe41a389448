"""`wlansec-lab run --cluster`: a tiny campaign on a Dask cluster of this machine (a
`dask scheduler` and two `dask worker --nthreads 1 --resources testbed=1` processes with their
own testbed names), one worker killed in the middle of a run: its run is re-queued and
completed by the other, and the run directory reads as a local run's (every report section,
the tidy table). Root and the wlansec binary as test_lab.py's end-to-end test (the veth
stand-in)."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab"))
WLANSEC = os.environ.get("WLANSEC", str(ROOT / "target" / "release" / "wlansec"))

from wlansec_lab import experiments, report, runner, testbed as testbeds  # noqa: E402
from wlansec_lab.testbed import VethTestbed, is_root  # noqa: E402

distributed = pytest.importorskip("distributed")
from wlansec_lab.cluster import Cluster, ClusterError  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not is_root(), reason="the testbeds need root (network namespaces); CI runs as root"),
    pytest.mark.skipif(not Path(WLANSEC).exists(), reason=f"no wlansec binary at {WLANSEC}"),
]

#: The workers' names, so their testbeds' (veth namespaces wlsq1-a, …): unlike test_lab.py's.
WORKERS = ("wlsq1", "wlsq2")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def local_cluster(tmp_path):
    """The scheduler's address, the worker processes by name and the binary they run; everything stopped and every
    namespace they left removed afterwards."""
    address = f"tcp://127.0.0.1:{_free_port()}"
    # The workers import this checkout's lab and run a copy of the binary under test, as a test
    # host would its own: a rebuild meanwhile would (rightly) fail the plan's binary check.
    wlansec = tmp_path / "wlansec"
    shutil.copy2(WLANSEC, wlansec)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "lab"), "WLANSEC": str(wlansec)}
    dask = [sys.executable, "-m", "dask"]
    logs = tmp_path / "logs"
    logs.mkdir()
    procs = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                               "--no-dashboard"], env=env, stdout=subprocess.DEVNULL, stderr=(logs / "scheduler").open("w"))]
    workers = {}
    for name in WORKERS:
        # No nanny: the worker process is the one killed, and nothing restarts it.
        workers[name] = subprocess.Popen([*dask, "worker", address, "--nthreads", "1", "--resources", "testbed=1",
                                          "--name", name, "--no-nanny", "--no-dashboard", "--local-directory", str(tmp_path / name)],
                                         env=env, stdout=subprocess.DEVNULL, stderr=(logs / name).open("w"))
    procs += workers.values()
    try:
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(len(WORKERS), timeout=60)
        yield address, workers, str(wlansec)
    finally:
        # Workers first, while the scheduler is there to see them go; what does not stop in order is killed.
        for group in (list(workers.values()), procs[:1]):
            for p in group:
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
            for p in group:
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for name in WORKERS:
            VethTestbed(name=name).down()  # the killed worker's, which it could not take down
            for scratch in Path(tempfile.gettempdir()).glob(f"wlansec-lab-worker-{name}-*"):
                shutil.rmtree(scratch)


def _kill_mid_run(client, victim: subprocess.Popen, jsonl: Path, killed: dict) -> None:
    """Once the victim worker has recorded a run, SIGKILL it while it executes its next one;
    `killed["key"]` is that run's task key."""
    name = WORKERS[0]
    addr = next(a for a, w in client.scheduler_info(n_workers=-1)["workers"].items() if w["name"] == name)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        recorded = jsonl.exists() and f'"worker": "{name}"' in jsonl.read_text()
        executing = client.run(lambda dask_worker: [str(k) for k, ts in dask_worker.state.tasks.items()
                                                    if ts.state == "executing" and re.search(r"-r\d+-", str(k))], workers=[addr])[addr]
        if recorded and executing:
            victim.send_signal(signal.SIGKILL)
            killed["key"] = executing[0]
            return
        time.sleep(0.1)


def test_a_campaign_on_two_workers_survives_a_killed_worker(tmp_path, local_cluster, monkeypatch):
    address, workers, wlansec = local_cluster
    tiny = {
        "video": {"security": ["open", "ccmp"], "card": ["hw"], "profile": ["cbr-high"]},
        "tcp": {"security": ["open"], "card": ["hw"], "ip": [4], "size": [1408]},
    }
    for name, axes in tiny.items():
        monkeypatch.setattr(experiments.EXPERIMENTS[name], "quick_axes", {**experiments.EXPERIMENTS[name].quick_axes, **axes})
    out = tmp_path / "out"
    (out / "raw").mkdir(parents=True)
    (out / "selftest.txt").write_text("selftest: 81 passed, 0 failed\n")
    cluster = Cluster(address, "veth", stations=2)
    try:
        _campaign(cluster, workers, wlansec, out)
    finally:
        cluster.close()
    assert not os.path.exists(f"/run/netns/{WORKERS[1]}-a"), "the surviving worker took its testbed down"


def _campaign(cluster, workers, wlansec, out):
    assert sorted(cluster.workers.values()) == sorted(WORKERS)
    cluster.check(runner.binary_digest(wlansec))
    # The workers hold their testbeds' names: a local run cannot take them.
    with pytest.raises(testbeds.TestbedError, match=f"pid {workers[WORKERS[0]].pid}.*'{WORKERS[0]}'"):
        VethTestbed(name=WORKERS[0]).claim()

    killed = {}
    watcher = threading.Thread(target=_kill_mid_run, args=(cluster.client, workers[WORKERS[0]], runner.runs_path(out, "video"), killed))
    watcher.start()
    ctx = experiments.Context(VethTestbed(name="unused"), wlansec, out, quick=True, seconds=1.0)
    try:
        runner.run(["video", "tcp"], ctx, repeats=2, cluster=cluster)
    finally:
        watcher.join()
    assert "key" in killed and workers[WORKERS[0]].poll() == -signal.SIGKILL, "the first worker was killed during a run"

    for name in ("video", "tcp"):
        raw = json.loads((out / "raw" / f"{name}.json").read_text())
        assert len(raw["runs"]) == 3 * len(raw["summary"]) == 3 * len(raw["plan"]["points"]), "one warm-up and two kept runs per point"
        for entry in raw["summary"]:
            assert entry["n"] == 2 and not entry["errors"], entry
    # The killed run was run again, to completion, on the other worker; and the killed worker had measured runs before.
    _, experiment, rnd, point = re.fullmatch(r"(wlansec-lab)-(\w+)-r(\d+)-(.*)-[0-9a-f]{8}", killed["key"]).groups()
    runs = json.loads((out / "raw" / f"{experiment}.json").read_text())["runs"]
    rerun = next(r for r in runs if r["round"] == int(rnd) and runner._key(r["point"]) == point)
    assert rerun["worker"] == WORKERS[1] and "metrics" in rerun
    everyone = [r["worker"] for e in ("video", "tcp") for r in json.loads((out / "raw" / f"{e}.json").read_text())["runs"]]
    assert set(everyone) == set(WORKERS)

    # The run directory is a local run's: the report has every section, the tidy table every run.
    md = (report.write(out) / "report.md").read_text()
    for title in report.SECTIONS:
        assert f"## {title}" in md
    import pandas as pd
    table = pd.read_csv(out / "runs.csv")
    assert len(table) == len(everyone) and set(table.worker) == set(WORKERS)

    # A worker whose binary is not the plan's is refused before any run is sent.
    with pytest.raises(ClusterError, match=f"{WORKERS[1]}: BinaryMismatch: .*the plan pins 0000"):
        cluster.check("0" * 64)
