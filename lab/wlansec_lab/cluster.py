"""Campaigns on several test hosts through Dask distributed (`wlansec-lab run --cluster ADDRESS`).

One `dask worker --nthreads 1 --resources testbed=1 --name NAME` per test host; every run is a
task that needs `testbed=1`, so the scheduler gives each worker one run at a time, whichever
client sent it. On the worker a task:

* checks that the worker's wlansec binary has the SHA-256 the plan pins (`BinaryMismatch` else);
* measures the run with `runner.measure_point` on the worker's own testbed, named after the
  worker (the WLAN's namespaces NAME-ap, NAME-sta1, …), so workers on one host do not collide;
  the testbed's name is held by the worker process's file lock (`Testbed.claim`) for its life,
  which keeps out a local `wlansec-lab run` or a second worker of the same name on that host;
* returns the run's JSONL lines; the client appends them to OUT/raw/<experiment>.runs.jsonl,
  so `--resume`, `report` and `publish` read a cluster run as a local one.

A task writes nothing but its own testbed, and bringing a testbed up first takes down what a
lost worker left under that name: a task run twice gives two independent runs, of which the
client keeps the one that completes. The scheduler re-queues the tasks of a worker it loses
(up to `distributed.scheduler.allowed-failures` times, default 3; then the run is recorded
as an error, which `--resume` runs again).
"""

from __future__ import annotations

import atexit
import os
import re
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Iterator

from wlansec_lab import DEFAULT_WLANSEC, experiments, runner
from wlansec_lab.testbed import TestbedError, claim_name, is_root, make_testbed

#: The Dask worker resource a run needs one of: one per test host, so one run per host at a time.
RESOURCE = "testbed"
#: A worker's name is its testbed's (`wlansec wlan --name`: 1 to 8 letters or digits).
NAME = re.compile(r"[A-Za-z0-9]{1,8}")


class ClusterError(RuntimeError):
    pass


class BinaryMismatch(ClusterError):
    """A worker's wlansec binary is not the plan's: its runs would not be the same experiment."""


# ---- the worker's side -------------------------------------------------------------------------

#: This worker process's claim on its testbed's name (held for its life) and its Context (its
#: testbed) with the (kind, stations) it was built for. The claim has a lock because
#: `Cluster.check` takes it from outside the task thread; the Context is the tasks' only.
_worker: dict = {}
_claim_lock = threading.Lock()


def _worker_name(worker=None) -> str:
    """The name of `worker`, else of the worker running this task."""
    from distributed import get_worker
    name = str((worker or get_worker()).name)
    if not NAME.fullmatch(name):
        raise ClusterError(f"worker {name!r}: start it with --name of 1 to 8 letters or digits (its testbed's name)")
    return name


def _claim(name: str) -> None:
    with _claim_lock:
        if "claim" not in _worker:
            if not is_root():
                raise TestbedError(f"worker {name} is not root: the testbeds need network namespaces")
            _worker["claim"] = claim_name(name)


def _worker_context(testbed: dict, name: str) -> experiments.Context:
    """This worker's Context on a testbed of `testbed`'s kind and stations named `name`."""
    _claim(name)
    ctx = _worker.get("ctx")
    if ctx is not None and _worker["testbed"] == testbed:
        return ctx
    if ctx is None:
        atexit.register(release_worker)  # a worker stopped in order leaves no WLAN behind
    elif ctx.testbed.config is not None:  # another client's campaign on another kind of testbed
        ctx.testbed.down()
    wlansec = DEFAULT_WLANSEC  # the worker host's own: $WLANSEC, else its release build
    tb = make_testbed(testbed["kind"], wlansec, name, testbed["stations"])
    # Runs keep nothing here but the study's data files (files experiment), per binary.
    out = Path(tempfile.gettempdir()) / f"wlansec-lab-worker-{name}-{(runner.binary_digest(wlansec) or 'none')[:12]}"
    out.mkdir(exist_ok=True)
    _worker.update(ctx=experiments.Context(tb, wlansec, out, quick=False, seconds=0.0), testbed=testbed)
    return _worker["ctx"]


def _check_binary(name: str, wlansec: str, pinned_sha256: str | None) -> None:
    found = runner.binary_digest(wlansec)
    if found != pinned_sha256:
        raise BinaryMismatch(f"worker {name}: {wlansec} has SHA-256 {str(found)[:16]}…, the plan pins "
                             f"{str(pinned_sha256)[:16]}…; install the plan's build there (or set WLANSEC for the worker)")


def prepare_worker(pinned_sha256: str | None, dask_worker=None) -> str:
    """Before a campaign, on every testbed worker (`Client.run` passes `dask_worker`, outside
    the task thread, so it touches no testbed): claim its testbed's name and check its binary. Its name."""
    name = _worker_name(dask_worker)
    _claim(name)
    _check_binary(name, DEFAULT_WLANSEC, pinned_sha256)
    return name


def run_on_worker(task: dict) -> list[dict]:
    """The task of one run: its JSONL lines, the record naming the worker that measured it."""
    ctx = _worker_context(task["testbed"], _worker_name())
    _check_binary(ctx.testbed.name, ctx.wlansec, task["wlansec_sha256"])
    ctx.quick, ctx.seconds = task["quick"], task["seconds"]
    lines = runner.measure_point(ctx, task["experiment"], task["round"], task["point"], task["seed"])
    lines[-1]["worker"] = ctx.testbed.name
    return lines


def release_worker() -> None:
    """Take the worker's WLAN down at the end of a campaign (sent as a testbed task, so never under another client's run)."""
    ctx = _worker.get("ctx")
    if ctx is not None and ctx.testbed.config is not None:
        ctx.testbed.down()


# ---- the client's side -------------------------------------------------------------------------

class Cluster:
    """A Dask client on the scheduler at `address` and the testbed workers it has."""

    def __init__(self, address: str, testbed: str, stations: int, timeout: float = 30) -> None:
        from distributed import Client
        self.address = address
        self.testbed = {"kind": testbed, "stations": stations}
        try:
            self.client = Client(address, timeout=timeout)
        except OSError as e:
            raise ClusterError(f"no Dask scheduler at {address}: {e}") from None
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        self.workers = {addr: w["name"] for addr, w in workers.items() if w.get("resources", {}).get(RESOURCE, 0) >= 1}
        if not self.workers:
            self.client.close()
            raise ClusterError(f"no worker of {address} offers the resource {RESOURCE} "
                               "(start them with `dask worker ADDRESS --nthreads 1 --resources testbed=1 --name NAME`)")

    @property
    def testbeds(self) -> int:
        return len(self.workers)

    def check(self, pinned_sha256: str | None) -> None:
        """Every testbed worker claims its testbed and has the plan's binary, or ClusterError says which does not."""
        found = self.client.run(prepare_worker, pinned_sha256, workers=list(self.workers), on_error="return")
        problems = [f"{self.workers[addr]}: {type(result).__name__}: {result}" for addr, result in found.items()
                    if isinstance(result, Exception)]
        if problems:
            raise ClusterError("workers not ready:\n  " + "\n  ".join(problems))

    def runs(self, ctx: experiments.Context, e: experiments.Experiment, todo: list[tuple[int, dict]], seed: int,
             pinned_sha256: str | None) -> Iterator[tuple[int, dict, list[dict]]]:
        """Submit every (round, point) of `todo` in plan order (earlier ones first) and yield
        (round, point, lines) as they complete, in any order."""
        from distributed import as_completed
        from distributed.scheduler import KilledWorker
        futures = {}
        for rnd, point in todo:
            task = {"experiment": e, "round": rnd, "point": point, "seed": seed, "quick": ctx.quick, "seconds": ctx.seconds,
                    "testbed": self.testbed, "wlansec_sha256": pinned_sha256}
            key = f"wlansec-lab-{e.name}-r{rnd}-{runner._key(point)}-{uuid.uuid4().hex[:8]}"
            futures[self.client.submit(run_on_worker, task, key=key, resources={RESOURCE: 1}, pure=False)] = (rnd, point)
        try:
            for future in as_completed(futures):
                # Released once read: a worker lost later would otherwise have the scheduler run
                # again the runs it holds that are already recorded (and hold up as_completed).
                rnd, point = futures.pop(future)
                error = future.exception() if future.status == "error" else None
                if isinstance(error, KilledWorker):  # lost with one worker after another: recorded, --resume runs it again
                    lines = [{"point": point, "round": rnd, "warmup": rnd == 0, "loadavg": list(os.getloadavg()),
                              "error": f"KilledWorker: {error}", "wall_s": 0.0}]
                elif error is not None:
                    raise ClusterError(f"{e.name} round {rnd} {runner._key(point)}: {type(error).__name__}: {error}") from error
                else:
                    lines = future.result()
                future.release()
                yield rnd, point, lines
        finally:
            self.client.cancel(list(futures))  # a failed or interrupted campaign leaves nothing queued

    def close(self, timeout: float = 120) -> None:
        """Take the workers' WLANs down (each as a testbed task on that worker, after any run
        another client has there), then disconnect."""
        from distributed import wait
        alive = self.client.scheduler_info(n_workers=-1)["workers"]
        releases = [self.client.submit(release_worker, key=f"wlansec-lab-release-{uuid.uuid4().hex[:8]}", workers=[addr],
                                       allow_other_workers=False, resources={RESOURCE: 1}, pure=False)
                    for addr in self.workers if addr in alive]
        try:
            wait(releases, timeout=timeout)
        except TimeoutError:
            pass  # a worker lost meanwhile: its successor takes the WLAN down before it brings one up
        self.client.close()
