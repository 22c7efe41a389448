"""wlansec laboratory: reads the JSON the `wlansec bench ...` commands write, plots it in the
layouts of the studies it revisits, and sets their published figures beside ours.

* `wlansec_lab.ciphers`: `wlansec bench ciphers` (the 2009 cipher power study).
* `wlansec_lab.cli`: the `wlansec-lab` command (`run`, `report`); `experiments` (the matrix:
  axes, measurements, benches), `runner` (schedule, repeats, records, statistics), `cluster`
  (its runs on Dask workers, `run --cluster`), `testbed` (emulated WLAN or veth stand-in),
  `traffic` (iperf3, qperf, `udpvideo`, `filexfer`), `stats`, `tidy` (OUT/runs.csv), `report`
  (the package that writes OUT/report), `published_values`.
"""

import os
from pathlib import Path

#: The repository the laboratory lives in.
ROOT = Path(__file__).resolve().parents[2]
#: Published figures copied from the research pack, with their sources (see its README).
PUBLISHED = Path(__file__).resolve().parents[1] / "published"
#: The `wlansec` binary the lab runs: $WLANSEC, else the release build.
DEFAULT_WLANSEC = os.environ.get("WLANSEC") or str(ROOT / "target" / "release" / "wlansec")
