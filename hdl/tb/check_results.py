"""Fail unless the directory holds the expected number of cocotb results files (argument 2)
and every one reports only passes and skips; the skipped tests are listed by name (a bench's
test that does not apply to a shape, e.g. the published CCMP-128 vectors on an N-lane core)."""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

results = sorted(Path(sys.argv[1]).glob("*.xml"))
if len(results) != int(sys.argv[2]):
    sys.exit(f"{len(results)} cocotb results in {sys.argv[1]}, expected {sys.argv[2]}")
failed, skipped, passed = [], [], 0
for path in results:
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{path.stem}:{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(name)
        elif case.find("skipped") is not None:
            skipped.append(name)
        else:
            passed += 1
print(f"hdl: {passed} cocotb tests passed in {len(results)} runs, {len(failed)} failed, {len(skipped)} skipped"
      + (f" ({', '.join(skipped)})" if skipped else ""))
if failed:
    sys.exit("failed: " + ", ".join(failed))
