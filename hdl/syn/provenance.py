"""Where a hardware figure comes from: the RTL files a design is built from and their hash
(shared by syn/synth.py, which records it, the benches, which record it beside cycle counts,
and syn/check_figures.py, which refuses figures whose RTL has changed since)."""
import hashlib
import re
from pathlib import Path

HDL = Path(__file__).resolve().parents[1]
SOURCE_DIRS = (HDL / "rtl", HDL / "syn" / "probes")


def modules():
    """module name -> its file (one module per file, named after it)."""
    return {p.stem: p for d in SOURCE_DIRS for p in sorted(d.glob("*.v"))}


def rtl_files(top):
    """The files of `top` and of every module it may instantiate, transitively (every
    generate branch and define counted: a superset of what any parameter set elaborates)."""
    known = modules()
    found, todo = set(), [top]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        text = re.sub(r"//[^\n]*|/\*.*?\*/", "", known[name].read_text(), flags=re.S)
        todo += [m for m in re.findall(r"^\s*(\w+)\s*(?:#\s*\(|\w+\s*\()", text, re.M)
                 if m in known and m != name]
    return sorted(str(known[m].relative_to(HDL)) for m in found)


def rtl_hash(files):
    """SHA-256 over the files' names and contents (paths relative to hdl/)."""
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(rel.encode() + b"\0" + (HDL / rel).read_bytes() + b"\0")
    return h.hexdigest()


def design_rtl(top):
    """{"rtl_files": [...], "rtl_hash": "..."} of a top module as it is now."""
    files = rtl_files(top)
    return {"rtl_files": files, "rtl_hash": rtl_hash(files)}


def seeds_median(fmaxes):
    """The median Fmax over placement seeds, an unrouted seed (None) counted below every
    routed one: None when the median falls on an unrouted seed (or there are no seeds)."""
    xs = sorted(fmaxes, key=lambda f: -1.0 if f is None else f)
    if not xs:
        return None
    mid = len(xs) // 2
    pair = [xs[mid]] if len(xs) % 2 else [xs[mid - 1], xs[mid]]
    return None if None in pair else round(sum(pair) / len(pair), 2)
