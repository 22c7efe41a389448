"""Fail unless the directory holds the expected number of cocotb results files (argument 2)
and every one reports only passes and skips."""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

results = sorted(Path(sys.argv[1]).glob("*.xml"))
if len(results) != int(sys.argv[2]):
    sys.exit(f"{len(results)} cocotb results in {sys.argv[1]}, expected {sys.argv[2]}")
failed, passed = [], 0
for path in results:
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{path.stem}:{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(name)
        elif case.find("skipped") is None:
            passed += 1
print(f"hdl: {passed} cocotb tests passed in {len(results)} runs, {len(failed)} failed")
if failed:
    sys.exit("failed: " + ", ".join(failed))
