"""`wlansec-lab`: run the laboratory's experiments on the emulated WLAN and write the report.

    wlansec-lab run --quick                 # every experiment, smoke size, then the report
    wlansec-lab run -e tcp --repeats 40     # one experiment, the studies' 40 runs per point
    wlansec-lab run --resume                # continue a killed run (same options) where it stopped
    wlansec-lab run --cluster tcp://lab0:8786   # each run on a test host's Dask worker
    wlansec-lab report --out out/lab        # (re)write the report from kept raw JSON
    wlansec-lab publish --out out/lab-full  # copy a finished run to docs/results/<date>-lab-full
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path

from wlansec_lab import DEFAULT_WLANSEC, ROOT, experiments, publish, report, runner
from wlansec_lab.cluster import Cluster, ClusterError
from wlansec_lab.testbed import TestbedError, is_root, make_testbed


def _run(args) -> int:
    names = list(experiments.EXPERIMENTS) if args.experiments == "all" else args.experiments.split(",")
    unknown = [n for n in names if n not in experiments.EXPERIMENTS]
    if unknown:
        print(f"wlansec-lab: unknown experiment(s) {', '.join(unknown)}; known: {', '.join(experiments.EXPERIMENTS)}", file=sys.stderr)
        return 2
    if not Path(args.wlansec).exists():
        print(f"wlansec-lab: no wlansec binary at {args.wlansec} (make build, or set WLANSEC)", file=sys.stderr)
        return 2
    needs_net = any(experiments.EXPERIMENTS[n].measure for n in names)
    if needs_net and not is_root() and not args.cluster:
        print("wlansec-lab: the network experiments need root (network namespaces); run the bench imports with "
              "-e ccmp-bench,ciphers,hardware", file=sys.stderr)
        return 2
    if args.cards:
        experiments.set_cards(args.cards.split(","))
    testbed = cluster = None
    if needs_net:
        # With --cluster the testbed only describes the workers' (kind, stations) in the plan: each worker has its own.
        testbed = make_testbed(args.testbed, args.wlansec, args.name, args.stations)
        try:
            if args.cluster:
                cluster = Cluster(args.cluster, args.testbed, args.stations)
                cluster.check(runner.binary_digest(args.wlansec))
            else:
                testbed.claim()
        except (TestbedError, ClusterError) as e:
            print(f"wlansec-lab: {e}", file=sys.stderr)
            if cluster:
                cluster.client.close()
            return 1
    args.out.mkdir(parents=True, exist_ok=True)
    selftest = subprocess.run([args.wlansec, "selftest", "--quiet"], capture_output=True, text=True, timeout=300)
    previous = (args.out / "selftest.txt").read_text() if (args.out / "selftest.txt").exists() and args.keep_selftest else ""
    (args.out / "selftest.txt").write_text(previous + f"$ wlansec selftest --quiet  (exit {selftest.returncode})\n{selftest.stdout}{selftest.stderr}")
    # A killed run (SIGTERM; SIGINT is Ctrl-C) still tears the WLAN down; its records stay for --resume.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ctx = experiments.Context(testbed, args.wlansec, args.out, args.quick, args.seconds or (3.0 if args.quick else 10.0))
    repeats = args.repeats if args.repeats is not None else (1 if args.quick else 40)
    try:
        runner.run(names, ctx, repeats, seed=args.seed, resume=args.resume, cluster=cluster)
    except (TestbedError, runner.PlanMismatch, ClusterError) as e:
        print(f"wlansec-lab: {e}", file=sys.stderr)
        return 1
    finally:
        if testbed and testbed.config is not None:  # never touch a WLAN this run did not bring up
            testbed.down()
        if cluster:
            cluster.close()
    where = report.write(args.out, wlansec=args.wlansec)
    print(f"wrote {where / 'index.html'} and {where / 'report.md'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="wlansec-lab", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run experiments (then write the report)")
    r.add_argument("-e", "--experiments", default="all", help=f"comma-separated: {', '.join(experiments.EXPERIMENTS)} (default all)")
    r.add_argument("--quick", action="store_true", help="smoke version: fewer points, 1 repeat, short runs")
    r.add_argument("--repeats", type=int, help="runs per point after the warm-up (default 40, --quick 1)")
    r.add_argument("--seconds", type=float, help="traffic seconds per video run (default 10, --quick 3; TCP runs half)")
    r.add_argument("--testbed", choices=["wlan", "veth"], default="wlan", help="the emulated WLAN, or the veth stand-in")
    r.add_argument("--cards", help=f"stations' card models of video and tcp, and verilog:MHZ for the access point's CCMP on the "
                                   f"RTL, comma-separated (default {','.join(experiments.EXPERIMENTS['video'].axes['card'])}; "
                                   "e.g. hw,mcu:250,mcu:1000 to sweep the card's clock); hw is always included")
    r.add_argument("--stations", type=int, default=2)
    r.add_argument("--name", help="the testbed's name: the WLAN's (`wlansec wlan --name`, default lab) or the veth "
                                  "namespaces' prefix (default wlsl); runs at the same time need different names "
                                  "(with --cluster each worker's testbed is named after the worker)")
    r.add_argument("--cluster", metavar="ADDRESS",
                   help="send each network run to a worker of the Dask scheduler at ADDRESS (tcp://HOST:8786), one run per "
                        "testbed worker at a time (docs/laboratory.md: on several hosts); the benches run here")
    r.add_argument("--seed", type=int, default=1, help="seed of the configuration order and of each round's emulated medium")
    r.add_argument("--resume", action="store_true",
                   help="skip the runs already in OUT/raw/<experiment>.runs.jsonl (refused unless recorded with the same "
                        "matrix, repeats, seed and settings); without it a run starts over")
    r.add_argument("--out", type=Path, default=Path("out/lab"))
    r.add_argument("--wlansec", default=DEFAULT_WLANSEC)
    r.add_argument("--keep-selftest", action="store_true", help="append to an existing selftest.txt (the demo's log)")
    w = sub.add_parser("report", help="write OUT/report/index.html and report.md from OUT/raw")
    w.add_argument("--out", type=Path, default=Path("out/lab"))
    w.add_argument("--report-dir", type=Path)
    w.add_argument("--wlansec", default=DEFAULT_WLANSEC, help="the binary whose card model the report states")
    u = sub.add_parser("publish", help="copy a finished run (report, figures, raw JSON) to DEST/<date>-<name>")
    u.add_argument("--out", type=Path, default=Path("out/lab-full"))
    u.add_argument("--dest", type=Path, default=ROOT / "docs" / "results")
    u.add_argument("--name", default="lab-full")
    u.add_argument("--note", default="", help="a paragraph for the README (e.g. when the run was resumed)")
    args = p.parse_args(argv)
    if args.cmd == "run":
        return _run(args)
    if args.cmd == "publish":
        try:
            where = publish.publish(args.out, args.dest, args.name, args.note)
        except (publish.Incomplete, FileNotFoundError) as e:
            print(f"wlansec-lab: {e}", file=sys.stderr)
            return 1
        print(f"published {where}")
        return 0
    where = report.write(args.out, args.report_dir, args.wlansec)
    print(f"wrote {where / 'index.html'} and {where / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
