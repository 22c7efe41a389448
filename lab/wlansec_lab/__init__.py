"""wlansec laboratory: reads the JSON the `wlansec bench ...` commands write, plots it in the
layouts of the studies it revisits, and sets their published figures beside ours.

* `wlansec_lab.ciphers`: `wlansec bench ciphers` (the 2009 cipher power study).
* `wlansec_lab.cli`: the `wlansec-lab` command (`run`, `report`); `runner` (experiment matrix,
  repeats, statistics), `cluster` (its runs on Dask workers, `run --cluster`), `testbed`
  (emulated WLAN or veth stand-in), `traffic` (iperf3, qperf, `udpvideo`, `filexfer`), `stats`,
  `tidy` (OUT/runs.csv), `report`, `published_values`.
"""

from pathlib import Path

#: Published figures copied from the research pack, with their sources (see its README).
PUBLISHED = Path(__file__).resolve().parents[1] / "published"
