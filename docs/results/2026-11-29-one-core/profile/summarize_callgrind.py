#!/usr/bin/env python3
"""summarize_callgrind.py OUT FRAMES: a callgrind output's instructions per frame, by
function (exclusive: what each function's own code, with what it inlined, executed)."""

import collections
import re
import subprocess
import sys

path, frames = sys.argv[1], int(sys.argv[2])
listing = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", path],
                         capture_output=True, text=True, check=True).stdout
by_function = collections.Counter()
for line in listing.splitlines():
    m = re.match(r"\s*([\d,]+) \([\s\d.]+%\)\s+\S+?:(\S.*?)( \[.*\])?$", line)
    if m:
        name = re.sub(r"^(wlansec_core::engine::|one_core_profile::)", "", m.group(2))
        by_function[name] += int(m.group(1).replace(",", ""))
print(f"{sum(by_function.values()) / frames:8.1f}  total")
for name, count in by_function.most_common():
    if count / frames >= 1:
        print(f"{count / frames:8.1f}  {name}")
